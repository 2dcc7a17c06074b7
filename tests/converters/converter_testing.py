"""Helpers for converter tests: run a function converted and unconverted, compare everything."""

import contextlib
import io

from autograph.impl import api


def outcome(fn, *args, **kwargs):
    """(result or exception type and message, printed output) of one call."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = ("returned", fn(*args, **kwargs))
        except Exception as e:  # the type and message are part of the behaviour
            result = ("raised", type(e), str(e))
    return result, out.getvalue()


def assert_same_behaviour(fn, *arg_tuples, recursive=True):
    """The converted fn returns, prints and raises exactly what fn does, for each args tuple.

    An entry may be a function returning the args tuple, for arguments the call mutates:
    each run then gets fresh ones.
    """
    converted = api.to_graph(fn, recursive=recursive)
    assert converted is not fn
    for args in arg_tuples:
        make_args = args if callable(args) else (lambda args=args: args)
        fresh = [make_args(), make_args()]
        fresh = [a if isinstance(a, tuple) else (a,) for a in fresh]
        assert outcome(converted, *fresh[0]) == outcome(fn, *fresh[1]), f"args={fresh[1]!r}"
    return converted


def code(fn):
    return api.to_code(fn)


# --- the same function as plain Python and as ag.function on each backend -----------------

# Every backend: graph tests pass `backends=ALL_BACKENDS` for a few cases (Numba compiles
# are slow) and run on the NumPy interpreter otherwise.
ALL_BACKENDS = ("numpy", "numba", "auto")


def _error_text(error):
    """The message the user's code gave the error (before the user frames that autograph
    appends, and the graph node the executors name)."""
    metadata = getattr(error, "ag_error_metadata", None)
    text = metadata.original_message if metadata is not None else str(error)
    return text.split("\nWhile executing ")[0]


def _graph_outcome(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = ("returned", fn(*args))
        except Exception as e:  # compared by the caller
            result = ("raised", e)
    return result, out.getvalue()


def same_values(expected, actual, python_types=False, path="result"):
    """Asserts equal nesting (lists stay lists, tuples tuples), equal values and equal
    NumPy dtypes (a Python number counts as its NumPy default dtype); python_types=True
    also asserts the same Python types (an int stays an int, not an np.int64)."""
    import numpy as np
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected) and len(actual) == len(expected), (
            f"{path}: {expected!r} != {actual!r}")
        for k, (e, a) in enumerate(zip(expected, actual)):
            same_values(e, a, python_types, f"{path}[{k}]")
        return
    if isinstance(expected, dict):
        assert type(actual) is dict and list(actual) == list(expected), path
        for key in expected:
            same_values(expected[key], actual[key], python_types, f"{path}[{key!r}]")
        return
    if expected is None or isinstance(expected, str):
        assert actual == expected and type(actual) is type(expected), (
            f"{path}: {expected!r} != {actual!r}")
        return
    if python_types:
        assert type(actual) is type(expected), (
            f"{path}: {type(expected).__name__} != {type(actual).__name__}")
    e, a = np.asarray(expected), np.asarray(actual)
    assert e.dtype == a.dtype, f"{path}: dtype {e.dtype} != {a.dtype} ({expected!r}, {actual!r})"
    assert e.shape == a.shape, f"{path}: shape {e.shape} != {a.shape}"
    assert np.array_equal(e, a, equal_nan=e.dtype.kind in "fc"), (
        f"{path}: {expected!r} != {actual!r}")
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), f"{path}: {actual!r} is not an array"


def assert_same_in_graphs(fn, *arg_tuples, backends=("numpy",), python_types=False,
                          graph_errors=None):
    """fn as plain Python and through ag.function on each backend (one staged function per
    backend, called with every args tuple): the same results (see same_values), printed
    output, arguments after the call, and exceptions (type, or a documented subclass, and
    message). graph_errors maps a Python exception type to the documented one a graph
    raises instead (AssertionError: rt.errors.AssertionFailedError). Returns {backend:
    staged function}."""
    import copy

    from autograph.impl.function import function
    staged = {backend: function(fn, backend=backend) for backend in backends}
    for args in arg_tuples:
        args = args if isinstance(args, tuple) else (args,)
        python_args = copy.deepcopy(args)
        expected, expected_out = _graph_outcome(fn, python_args)
        for backend, graph_fn in staged.items():
            graph_args = copy.deepcopy(args)
            actual, actual_out = _graph_outcome(graph_fn, graph_args)
            where = f"{backend}, args={args!r}"
            if expected[0] == "raised":
                error = expected[1]
                assert actual[0] == "raised", f"{where}: Python raised {error!r}, graph returned {actual[1]!r}"
                # The user's type, or (documented) a subclass: an out-of-range read raises
                # rt.errors.OutOfRangeError, an IndexError.
                expected_type = (graph_errors or {}).get(type(error), type(error))
                assert isinstance(actual[1], expected_type), (
                    f"{where}: {actual[1]!r} is not a {expected_type.__name__}")
                assert _error_text(actual[1]) == _error_text(error), (
                    f"{where}: {_error_text(actual[1])!r} != {_error_text(error)!r}")
            else:
                if actual[0] == "raised":
                    raise AssertionError(f"{where}: the graph raised") from actual[1]
                same_values(expected[1], actual[1], python_types, where)
            assert actual_out == expected_out, f"{where}: printed {actual_out!r}, Python {expected_out!r}"
            same_values(python_args, graph_args, python_types, f"{where}: arguments after the call")
    return staged
