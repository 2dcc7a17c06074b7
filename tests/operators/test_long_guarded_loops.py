"""A Python `for` over a long range whose `break` depends on a tensor (iterate until
converged, at most N times): the rest of the range is one graph loop. It used to unroll
into N nested graph branches, whose tracing time doubled with every iteration (1000 never
finished)."""

import numpy as np
import pytest

import autograph as ag
from tests.operators.graph_equivalence import check, graph_text


def power_iteration(a, steps):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    for _ in range(steps):
        w = a @ v
        w = w / np.linalg.norm(w)
        if np.all(np.abs(w - v) <= 1e-12):
            break
        v = w
    return v, v @ a @ v


def first_above(x, limit):
    found = -1
    for i in range(1000):
        if x[i % x.shape[0]] > limit:
            found = i
            break
    return found


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_long_range_with_a_tensor_break_is_a_graph_loop(backend):
    a = np.random.default_rng(0).normal(size=(6, 6))
    a = a + a.T
    staged = check(power_iteration, a, 1000, backend=backend)
    assert "while" in graph_text(staged, a, 1000)
    check(first_above, np.array([0.1, 0.5, 0.9]), 0.7, backend=backend)
    check(first_above, np.array([0.1, 0.5, 0.9]), 2.0, backend=backend)


def three_steps(a):
    return power_iteration(a, 3)


def test_a_short_range_still_unrolls():
    a = np.eye(3) * 2.0
    staged = check(three_steps, a, backend="numpy")
    assert "while" not in graph_text(staged, a)
