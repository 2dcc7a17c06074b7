"""Shared helpers for runtime tests: run a function eagerly and through rt.function and
compare results, printed output, mutated arguments and exception types."""

import contextlib
import copy
import io
import os

import numpy as np
import pytest

import runtime as rt


def assert_same(expected, actual, path="result"):
    """Equal structure; equal values; equal NumPy dtypes (Python scalars count as their
    NumPy default dtype, which is what a graph produces for them)."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)), "%s: %r vs %r" % (path, expected, actual)
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
    e, a = np.asarray(expected), np.asarray(actual)
    assert e.dtype == a.dtype, "%s: dtype %s vs %s" % (path, e.dtype, a.dtype)
    assert e.shape == a.shape, "%s: shape %s vs %s" % (path, e.shape, a.shape)
    np.testing.assert_array_equal(a, e, err_msg=path)
    if isinstance(expected, np.ndarray) and expected.ndim:
        assert isinstance(actual, np.ndarray), path


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


def run_both(fn, *args, backend=None, **kwargs):
    """Run `fn` eagerly and as rt.function on copies of the same arguments; assert equal
    results, printed output, argument mutations and exception types. Returns
    (graph result, staged function)."""
    backend = backend or BACKEND
    eager_args, graph_args = copy.deepcopy(args), copy.deepcopy(args)
    staged = rt.function(fn, backend=backend)
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


@pytest.fixture
def both():
    return run_both


@pytest.fixture
def same():
    return assert_same
