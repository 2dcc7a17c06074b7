"""What the gradient fuzzer (tools/fuzz_grad.py) found, minimised: each case runs the function
as plain Python and through ag.value_and_grad (tests/gradients/gradcheck.py's check_grad:
value, central differences). Bugs outside the ops' derivative rules are strict xfails naming
where the cause is: a fix turns one into an XPASS, and its mark goes."""

import numpy as np
import pytest

import autograph as ag
from gradcheck import check_grad

NUMPY = ("numpy",)

# -- runtime/autodiff.py (fixed): a list appended in a loop that has a branch: the cotangent
# of a tensor array through a `cond` is dense (its elements' cotangents stacked), as through
# a `while`. The most frequent crash: 16 of 2000 numpy programs.

def scalars_appended_then_return(y):
    vals = []
    for i in range(3):
        if y[i] > 0.0:
            return y[i] * 2.0
        vals.append(y[i])
    return sum(vals)


def scalars_appended_then_break(y):
    vals = []
    for i in range(3):
        if y[i] > 0.0:
            break
        vals.append(y[i] * 2.0)
    return sum(vals) + y[0]


def rows_appended_then_break(x):
    vals = [x]
    for i in range(2):
        if x[0, 0] > 0.0:
            break
        vals.append(x * x[0, 1])
    return np.sum(np.stack(vals))


def rows_appended_in_while_true(x):
    u = np.sum(x)
    vals = [np.stack([x, x, x]) - x[1]]
    c = 0
    while True:
        c += 1
        if c > 4:
            break
        u = u + u
        if u > -0.5:
            break
        vals.append(np.stack([x, x, x]) * x[0])
    return np.max(np.stack(vals))


def list_made_in_each_iteration(x):
    s = 0.0
    for i in range(1, x.shape[0]):
        vals = [x[:, None].ravel()]
        if x.sum() > 5.0:
            break
        vals.append(x * x[0])
        s = s + np.sum(np.stack(vals))
    return s


@pytest.mark.parametrize("fn, x", [
    (scalars_appended_then_return, np.array([-0.5, 0.6, 0.2])),
    (scalars_appended_then_break, np.array([-0.5, 0.6, 0.2])),
    (rows_appended_then_break, np.array([[-0.4, 0.3, 0.7]])),
    (rows_appended_in_while_true, np.array([-1.391, -0.173, -0.798])),
    (list_made_in_each_iteration, np.array([1.002, 1.189, 0.3])),
], ids=["scalars-return", "scalars-break", "rows-break", "rows-while-true", "list-per-iteration"])
def test_list_appended_in_a_loop_with_a_branch(fn, x):
    check_grad(fn, x)


# -- runtime/ops/gradients.py `wanted` (fixed): a traced gradient refused (a loop over
# range(n), n an int argument, whose variable turns from a scalar into an array) is traced
# again with every Python number a constant, the float being differentiated too: its
# placeholder was then bound to a literal, which the rules took for a constant (d/dt
# silently 0.0).

def widening_loop_over_int_argument(x, t, n):
    s = 0.0
    for i in range(n):
        s = s + x
    return np.sum(t * x) + np.sum(s)


def test_float_argument_is_not_made_a_constant_by_a_retrace():
    check_grad(widening_loop_over_int_argument, np.array([0.5, 1.0]), 1.3, 2, argnums=(0, 1),
               backends=NUMPY)


# -- Graph mode itself (the forward ag.function failed the same way), found through the
# gradients.

def write_through_a_row_in_a_branch(y):
    out = y.copy()
    if np.sum(y) < 3.0:
        for i in range(out.shape[0]):
            out[i][0] = np.tanh(0.75 * y[1, 1])
    return out.sum()


def view_of_a_rebound_array_in_a_loop(y):
    out = np.zeros(3)
    for i in range(y.shape[0]):
        out = out * 1.0
        v = out[1:]
        out[1] += y[0]
    return out.sum()


# (Fixed: the if's state functions read `out[i]` to see whether `out[i][0]` is an item of
# an array, which read the loop's i, unbound there: common.without_array_items.)
def test_write_through_a_row_in_a_loop_in_a_branch():
    y = np.array([[0.392, -0.689], [0.187, -0.457]])
    assert ag.function(write_through_a_row_in_a_branch, backend="numpy")(y.copy()) == \
        write_through_a_row_in_a_branch(y.copy())
    check_grad(write_through_a_row_in_a_branch, y, backends=NUMPY)


# (Fixed: the view, a temporary of the body, re-read its base's version of the finished
# body after the loop: a view reads as it was where its base's version is not usable.)
def test_view_of_an_array_rebound_in_a_loop_then_written():
    y = np.array([1.0, 2.0])
    assert ag.function(view_of_a_rebound_array_in_a_loop, backend="numpy")(y.copy()) == \
        view_of_a_rebound_array_in_a_loop(y.copy())
    check_grad(view_of_a_rebound_array_in_a_loop, y, backends=NUMPY)
