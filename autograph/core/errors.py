"""The package's public errors (re-exported as ag.AutoGraphError, ag.ConversionError,
ag.StagingError)."""


class AutoGraphError(Exception):
    """Base class of every error the autograph package raises on its own behalf."""


class ConversionError(AutoGraphError):
    """A function or other entity could not be converted (says which one and why)."""


class StagingError(AutoGraphError):
    """An error raised while tracing converted code that could not keep its original type."""
