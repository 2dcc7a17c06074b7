"""`raise` and `assert` as overloads: exactly Python's on Python values; in a graph, an
error raised when the graph runs, of the user's type, with its message formatted then."""

import runtime as rt
from autograph.operators.graph import builtins as graph_builtins
from autograph.operators.symbolic import PLAIN_TYPES, is_tensor

# Marks a `raise` without `from`.
_NO_CAUSE = object()


def _instance(exception, what):
    """The exception `raise` raises for `exception` (a class is instantiated), with
    Python's error for anything else."""
    if isinstance(exception, type) and issubclass(exception, BaseException):
        return exception()
    if not isinstance(exception, BaseException):
        raise TypeError(what)
    return exception


def raised(exception, cause=_NO_CAUSE):
    """The exception `raise exception` (`raise exception from cause`) raises now, which
    converted code raises itself (so that the traceback ends at the user's line); or None
    when its message holds symbolic values while tracing: the graph raises it when it
    runs (rt.raised_when_run). Converted code then sets a jump flag, so that what Python
    would not reach after the raise is not traced either."""
    exception = _instance(exception, "exceptions must derive from BaseException")
    if cause is not _NO_CAUSE:
        exception.__cause__ = (None if cause is None else _instance(
            cause, "exception causes must derive from BaseException"))
    if rt.current_graph() is None or not rt.holds_symbolic((exception.args, vars(exception))):
        # Raised now, also in a graph branch or loop body, and also from a function they
        # call: the statement being traced defers it to when the graph runs that path
        # (common.defer_error), as Python raises it only there, through the callers.
        return exception
    rt.raised_when_run(exception)
    return None


def assert_stmt(test, message_fn):
    """`assert test, message`; `message_fn` computes the message (None without a message).
    On a symbolic test: rt.errors.AssertionFailedError (an InvalidArgumentError and an
    AssertionError) when the graph runs and the test is false, with the message then. A
    Python test that fails in a graph branch or loop body fails when the graph runs."""
    if type(test) not in PLAIN_TYPES and is_tensor(test):
        return graph_builtins.assert_stmt(test, message_fn)
    if not test:
        error = AssertionError() if message_fn is None else AssertionError(message_fn())
        if rt.current_graph() is None or not rt.raised_when_run(error):
            raise rt.errors.mark_python_error(error)   # (the user's, raised here for them)
    return None
