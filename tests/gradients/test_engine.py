"""The reverse-mode engine (runtime/autodiff.py) through ag.value_and_grad: straight-line
code, loops with data-dependent trip counts, nested loops, branches inside loops, `break`
and early `return`, checked against central differences on both backends."""

import numpy as np
import pytest

from gradcheck import check_grad


def tanh_dot(x, w):
    return np.tanh(x * w).sum()


def grow_until(x):
    s = x
    while s.sum() < 50.0:
        s = s * x + x
    return s.sum()


def nested_loops(x):
    s = x
    i = 0
    while s.sum() < 20.0:
        j = 0
        while j < 2:
            s = np.tanh(s) + s * x
            j += 1
        i += 1
    return s.sum()


def branch(x):
    s = x * x
    if s.sum() > 1.0:
        s = np.tanh(s) * x
    else:
        s = s * s
    return s.sum()


def branch_in_loop(x):
    s = x
    for i in range(6):
        if s.sum() > 3.0:
            s = np.tanh(s) + x
        else:
            s = s * x + x
    return s.sum()


def early_return(x):
    s = x
    for i in range(x.shape[0] * 3):
        s = s * x + x
        if s.sum() > 10.0:
            return s.sum() * 2.0
    return s.sum()


def loop_with_break(x):
    s = x
    for i in range(x.shape[0] * 10):
        s = np.tanh(s) + s * x
        if s.sum() > 10.0:
            break
    return s.sum()


def test_straight_line_both_arguments():
    check_grad(tanh_dot, np.linspace(-1, 1, 5), np.full(5, 0.3), argnums=(0, 1))


@pytest.mark.parametrize("fn, x", [
    (grow_until, [1.5, 2.0]),
    (nested_loops, [1.1, 1.2]),
    (branch, [0.5, 0.9]),          # then
    (branch, [0.1, 0.2]),          # else
    (branch_in_loop, [0.6, 0.9]),  # both branches taken in one run
    (early_return, [1.1, 1.3]),    # returns from inside the loop
    (early_return, [0.1, 0.3]),    # falls off its end
    (loop_with_break, [0.5, 0.9]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_control_flow(fn, x):
    check_grad(fn, np.array(x))


def smooth(x):
    return np.exp(np.tanh(x) * x) - x ** 3


def sines(x):
    s = x
    i = 0
    while i < 3:
        s = np.sin(s) * x
        i += 1
    return s


def grow_scalar(x):
    s = x
    while s < 10.0:
        s = s * x + 1.0
    return s


@pytest.mark.parametrize("fn, x", [(smooth, 0.7), (sines, 0.7), (grow_scalar, 1.3)],
                         ids=["no-loop", "unrolled-loop", "data-dependent-while"])
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_second_order(fn, x, backend):
    """ag.grad(ag.grad(f)) against central differences of ag.grad(f): the backward ops,
    loops and stacks included, are differentiated again."""
    import autograph as ag
    first = ag.grad(fn, backend="numpy")
    eps = 1e-5
    expected = (first(x + eps) - first(x - eps)) / (2 * eps)
    assert ag.grad(ag.grad(fn), backend=backend)(x) == pytest.approx(expected, rel=1e-6)
