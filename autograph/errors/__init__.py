"""Errors at the user's line: the package's public errors, and the machinery that makes every
error from converted code or from a graph run point at the user's file, line and function.

The path of a location, from parsing to the message a user reads:

  autograph/pyct/origin_info.py   parsing annotates every AST node with its origin (file,
                                  line, function, source line); the transpiler turns the
                                  origins into a source map: generated line -> user's line
                                  (pyct is generic, so this stays there: it is the data)
  autograph/errors/code_lines.py  converted code objects are rebuilt with the user's file
                                  and a line table of the user's lines (impl/conversion.py
                                  calls it), so tracebacks, warnings and frames name them
  autograph/errors/tracebacks.py  an exception leaving ag.function is rewritten: generated
                                  helper frames become the user's, framework frames are
                                  dropped, the message names the user's line; it also
                                  installs the runtime's location hook
  runtime/errors.py               every graph node records the first frame outside the
                                  framework where it was created (capture_location) and
                                  maps it through that hook when a graph run fails, so
                                  "While executing <node>" names the user's line

The public classes below are re-exported as ag.AutoGraphError, ag.ConversionError and
ag.StagingError. Importing this package imports neither of its modules.
"""


class AutoGraphError(Exception):
    """Base class of every error the autograph package raises on its own behalf."""


class ConversionError(AutoGraphError):
    """A function or other entity could not be converted (says which one and why)."""


class StagingError(AutoGraphError):
    """An error raised while tracing converted code that could not keep its original type."""
