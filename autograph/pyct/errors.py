"""Errors raised by the generic source-transformation layer (pyct).

The top-level package wraps or subclasses these into `ag.ConversionError`.
"""


class PyCTError(Exception):
    """Base class for errors raised while parsing, transforming or loading code."""


class SourceNotFoundError(PyCTError):
    """The source code of an entity cannot be retrieved, so it cannot be converted."""
