"""Run a function as plain Python and staged (rt.function, or ag.function for the tests
that import this module), and compare results (values, dtypes, Python types), printed
output, mutated arguments and exception types."""

import contextlib
import copy
import io
import os

import numpy as np

import runtime as rt


def assert_same(expected, actual, path="result"):
    """Equal structure; equal values; equal NumPy dtypes (Python scalars count as their
    NumPy default dtype, which is what a graph produces for them); equal Python types,
    except that a Python scalar may come back as the NumPy scalar of its dtype."""
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), "%s: %r vs %r" % (path, expected, actual)
        assert len(expected) == len(actual), path
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, "%s[%d]" % (path, i))
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(expected) == list(actual), path
        for k in expected:
            assert_same(expected[k], actual[k], "%s[%r]" % (path, k))
        return
    if expected is None or isinstance(expected, str):
        assert actual == expected, path
        return
    if type(expected).__module__ != "numpy" and hasattr(expected, "__dict__"):
        # An object (a model, a state holder): its attributes after the call.
        assert type(actual) is type(expected), "%s: %r vs %r" % (path, expected, actual)
        assert_same(vars(expected), vars(actual), path + ".__dict__")
        return
    # Python types: an array (also 0-d) stays an array, a NumPy scalar a NumPy scalar; a
    # Python scalar stays one, or is the NumPy scalar of its kind when the graph computed
    # it (the dtype test below: a bool never becomes an int).
    if isinstance(expected, (np.ndarray, np.generic)):
        assert type(actual) is type(expected), "%s: %r vs %r" % (path, expected, actual)
    else:
        assert type(actual) is type(expected) or isinstance(actual, np.generic), (
            "%s: %r vs %r" % (path, expected, actual))
    e, a = np.asarray(expected), np.asarray(actual)
    assert e.dtype == a.dtype, "%s: dtype %s vs %s" % (path, e.dtype, a.dtype)
    assert e.shape == a.shape, "%s: shape %s vs %s" % (path, e.shape, a.shape)
    np.testing.assert_array_equal(a, e, err_msg=path)


def _capture(thunk):
    out = io.StringIO()
    result = error = None
    with contextlib.redirect_stdout(out):
        try:
            result = thunk()
        except Exception as e:  # compared by the caller
            error = e
    return result, error, out.getvalue()


# The equivalence suite runs on the NumPy interpreter; RT_TEST_BACKEND=numba (or auto)
# runs the same checks on another executor.
BACKEND = os.environ.get("RT_TEST_BACKEND", "numpy")


def run_both(fn, *args, backend=None, stage=rt.function, **kwargs):
    """Run `fn` eagerly and as `stage(fn, backend=backend)` on copies of the same arguments;
    assert equal results, printed output, argument mutations and exception types. Returns
    (graph result, staged function)."""
    backend = backend or BACKEND
    eager_args, graph_args = copy.deepcopy(args), copy.deepcopy(args)
    staged = stage(fn, backend=backend)
    expected, eager_error, eager_out = _capture(lambda: fn(*eager_args, **kwargs))
    actual, graph_error, graph_out = _capture(lambda: staged(*graph_args, **kwargs))
    if eager_error is not None:
        assert graph_error is not None, "eager raised %r, graph did not" % (eager_error,)
        assert isinstance(graph_error, type(eager_error)), (eager_error, graph_error)
    else:
        if graph_error is not None:
            raise graph_error
        assert_same(expected, actual)
    assert graph_out == eager_out
    assert_same(eager_args, graph_args, "mutated arguments")
    return actual, staged


_STAGED = {}


def staged(fn, backend):
    """One ag.function per (function, backend) for the whole test session: Numba compiles
    each once."""
    import autograph as ag
    key = (fn, backend)
    if key not in _STAGED:
        _STAGED[key] = ag.function(fn, backend=backend)
    return _STAGED[key]
