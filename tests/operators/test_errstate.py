"""np.errstate inside a staged function governs the ops inside its block when the graph
runs, as in Python (it used to act only while tracing)."""

import warnings

import numpy as np
import pytest

import autograph as ag


def quiet_reciprocal(x):
    with np.errstate(divide="ignore"):
        y = 1.0 / x
    return y


def strict_reciprocal(x):
    with np.errstate(all="raise"):
        y = 1.0 / x
    return y


def strict_in_a_loop(x, n):
    total = np.zeros_like(x)
    for i in range(n):
        if i > 0:
            with np.errstate(divide="raise"):
                total += 1.0 / (x - 1.0)
        total += x
    return total


def outside_the_block(x):
    with np.errstate(divide="ignore"):
        y = 1.0 / x
    return y + 1.0 / x   # the caller's error handling again


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_an_ignored_error_is_ignored_when_the_graph_runs(backend):
    x = np.array([0.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(ag.function(quiet_reciprocal, backend=backend)(x),
                                      quiet_reciprocal(x))


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_a_raising_error_raises_when_the_graph_runs(backend):
    staged = ag.function(strict_reciprocal, backend=backend)
    np.testing.assert_array_equal(staged(np.array([1.0, 2.0])), [1.0, 0.5])
    with pytest.raises(FloatingPointError, match="divide by zero"):
        staged(np.array([0.0, 2.0]))
    with pytest.raises(FloatingPointError):
        ag.function(strict_in_a_loop, backend=backend)(np.array([1.0, 2.0]), 3)
    np.testing.assert_array_equal(
        ag.function(strict_in_a_loop, backend=backend)(np.array([1.0, 2.0]), 1), [1.0, 2.0])


def test_numba_refuses_a_raising_error_state_naming_it():
    with pytest.raises(Exception, match=r"np\.errstate\(\.\.\.='raise'\)"):
        ag.function(strict_reciprocal, backend="numba")(np.array([1.0, 2.0]))


def test_ops_after_the_block_use_the_callers_error_handling():
    staged = ag.function(outside_the_block, backend="numpy")
    x = np.array([0.0, 2.0])
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        staged(x)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        staged(x)
