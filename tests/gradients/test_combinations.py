"""Gradients through combinations: a loop inside a branch, an item write next to an early
return, aliases of an array written in a loop, weights on objects read in a loop, a list
appended in a loop inside a branch, nested functions, against central differences."""

import numpy as np
import pytest

from gradcheck import check_grad

rng = np.random.default_rng(1)


def loop_in_branch(x):
    s = x * 1.0
    if x.sum() > 0:
        for i in range(x.shape[0]):
            s = np.tanh(s) * x + s
    else:
        s = s * s
    return s.sum()


def write_next_to_return(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i] + out[i - 1]
        if out[i] > 2.0:
            return out.sum() * 3.0
    return out.sum()


def alias_written_in_loop(x):
    y = x.copy()
    z = y                      # an alias: writes through z are writes to y
    for i in range(1, x.shape[0]):
        z[i] = z[i - 1] * 0.5 + y[i]
    return (y * x).sum()


class Cell:
    def __init__(self, seed):
        r = np.random.default_rng(seed)
        self.w = r.standard_normal((3, 3)) * 0.4
        self.b = r.standard_normal(3) * 0.1

    def __call__(self, h, x):
        return np.tanh(h @ self.w + x + self.b)


CELL = Cell(3)


def weights_on_object(x):
    h = np.zeros(3)
    for t in range(x.shape[0]):
        h = CELL(h, x[t])
    return (h * h).sum()


def list_in_branch(x):
    parts = []
    if x[0, 0] > -10.0:
        for row in x:
            parts.append(np.tanh(row).sum())
    total = 0.0
    for p in parts:
        total = total + p * p
    return total


def helper(v, k):
    return np.exp(-v * k).sum()


def calls_and_kwargs(x):
    total = 0.0
    for k in range(1, 4):
        total = total + helper(x, k=k) / k
    return total


@pytest.mark.parametrize("fn, x", [
    (loop_in_branch, rng.standard_normal(3) + 1.0),
    (loop_in_branch, rng.standard_normal(3) - 2.0),
    (write_next_to_return, np.array([0.5, 0.9, 1.2, 0.3])),
    (write_next_to_return, np.array([0.1, 0.2, 0.3])),
    (alias_written_in_loop, rng.standard_normal(4)),
    (weights_on_object, rng.standard_normal((4, 3))),
    (list_in_branch, rng.standard_normal((3, 2))),
    (calls_and_kwargs, rng.standard_normal(3)),
], ids=["loop-in-then", "loop-in-else", "write-then-return", "write-falls-off", "alias",
        "weights-on-object", "list-in-branch", "calls"])
def test_combination(fn, x):
    check_grad(fn, x)


def test_gradient_with_respect_to_weights_read_in_a_loop():
    import autograph as ag
    x = rng.standard_normal((4, 3))
    grads = ag.grad(weights_on_object, wrt=CELL, backend="numpy")(x)

    def of_w(w):
        saved = CELL.w
        CELL.w = w
        try:
            return weights_on_object(x)
        finally:
            CELL.w = saved

    from gradcheck import numeric_grad
    np.testing.assert_allclose(grads["w"], numeric_grad(of_w, (CELL.w,), 0), rtol=1e-5,
                               atol=1e-7)
