"""Writes into arrays that NumPy makes views of another array: through a transpose, swapped
axes, an added or removed axis, a reshape of a new array, the write lands in the other array
as in NumPy; where NumPy's answer depends on a memory layout the graph does not know (a
reshape of an argument), or NumPy writes what a graph cannot (x.real), it is refused at the
user's line. These used to be silently lost."""

import numpy as np
import pytest

import autograph as ag
from tests.operators.graph_equivalence import check


def through_transpose(x):
    y = x.T
    y[0] = 5.0
    return x


def through_swapaxes_in_place(x):
    y = np.swapaxes(x, 0, 1)
    y[0, 1] += 5.0
    return x, y


def through_added_axis(x):
    y = x[None]
    z = np.expand_dims(x, 1)
    z[1, 0] = -1.0
    return x, y


def through_squeeze(x):
    y = np.squeeze(x, axis=(0, 2))
    y[0] = 7.0
    return x


def through_reshape_of_a_new_array(n):
    a = np.zeros(6)
    out = a.reshape(2, 3)
    out[1, 2] = n
    flat = out.ravel()
    flat[0] = -n
    return a, out


def transpose_in_a_loop(x):
    y = x.T
    for i in range(x.shape[0]):
        if i % 2 == 0:
            y[:, i] = i
    return x


def transposed_twice(x):
    y = x.T.T
    y += 1.0
    return x


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_write_through_a_view_writes_the_array_it_views(backend):
    x = np.arange(6.0).reshape(2, 3)
    check(through_transpose, x, backend=backend)
    check(through_swapaxes_in_place, x, backend=backend)
    check(through_added_axis, np.arange(3.0), backend=backend)
    check(through_squeeze, np.arange(3.0).reshape(1, 3, 1), backend=backend)
    check(through_reshape_of_a_new_array, 3.0, backend=backend)
    check(transpose_in_a_loop, np.zeros((4, 3)), backend=backend)
    check(transposed_twice, x, backend=backend)


def write_into_reshaped_argument(x):
    y = x.reshape(-1)
    y[0] = 5.0
    return x


def write_into_real_part(c):
    r = c.real
    r[0] = 5.0
    return c


def test_a_write_numpy_makes_by_memory_layout_is_refused_at_the_users_line():
    with pytest.raises(TypeError, match=r"(?s)reshape or ravel of an array whose memory "
                                        r"layout.*test_graph_views\.py.*y\[0\] = 5\.0"):
        ag.function(write_into_reshaped_argument)(np.zeros((2, 2)))
    with pytest.raises(TypeError, match=r"(?s)a write into x\.real.*r\[0\] = 5\.0"):
        ag.function(write_into_real_part)(np.zeros(2, complex))


def named_view_in_a_loop(a):
    q = np.zeros_like(a)
    for j in range(a.shape[1]):
        d = q[:, :j]
        q[:, j] = d.sum() + 1.0
    return q


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_view_named_in_a_loop_body_whose_base_the_body_writes(backend):
    # (It used to fail with an internal error about a value from another loop body.)
    check(named_view_in_a_loop, np.ones((3, 3)), backend=backend)


def view_written_in_a_branch_next_to_an_early_return(x, limit):
    y = x.T
    for i in range(x.shape[1]):
        if y[i].sum() > limit:
            return i
        y[i] *= -1.0
    return -1


class _Weights:
    def __init__(self):
        self.W = np.arange(6.0).reshape(2, 3)

    def flip_first_column(self):
        cols = self.W.T
        cols[0] = -cols[0]
        return self.W.sum()


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_views_in_combination_with_early_returns_and_state(backend):
    x = np.arange(6.0).reshape(2, 3)
    check(view_written_in_a_branch_next_to_an_early_return, x, 4.0, backend=backend)
    check(view_written_in_a_branch_next_to_an_early_return, x, 100.0, backend=backend)
    plain, held = _Weights(), _Weights()
    staged = ag.function(held.flip_first_column, backend=backend)
    for _ in range(2):
        assert staged() == plain.flip_first_column()
        np.testing.assert_array_equal(held.W, plain.W)


# --- views and item writes in loops and branches (the gradient fuzzer's finds, neighbours) -----

def view_of_a_rebound_array_used_after_the_loop(y):
    out = np.zeros(3)
    for i in range(y.shape[0]):
        out = out * 1.0
        v = out[1:]         # (a view of the body's own out)
        out[1] += y[0]
    return v.sum() + out.sum()


def view_of_a_rebound_array_written(y):
    out = np.zeros(3)
    v = out[1:]
    for i in range(y.shape[0]):
        out = out * 1.0
        v = out[1:]
        out[1] += y[i]
        v[0] += 1.0
    return v, out


def view_written_in_a_loop_in_a_branch(y):
    out = np.zeros(3)
    if y[0] > 0:
        for i in range(y.shape[0]):
            out = out + 1.0
            v = out[:2]
            v[1] = y[i]
    return out


def row_written_in_a_loop_in_a_branch_next_to_a_return(y):
    out = np.zeros((2, 2))
    if y[0] > 0:
        for i in range(y.shape[0]):
            if y[i] > 1.0:
                return out
            out[i][0] = y[i]        # (the if's state: `out[i]` read no i before the loop)
    return out


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("y", [[1.0, 2.0], [-1.0, 0.5], [0.5, 0.25]])
def test_views_and_rows_of_arrays_a_loop_rebinds_or_writes(y, backend):
    for fn in (view_of_a_rebound_array_used_after_the_loop, view_of_a_rebound_array_written,
               view_written_in_a_loop_in_a_branch,
               row_written_in_a_loop_in_a_branch_next_to_a_return):
        check(fn, np.array(y), backend=backend)


def _copies(x):
    return x.copy(), np.copy(x), np.copy(x, order="C"), np.copy(x, order="F")


def test_copies_have_numpy_s_memory_order():
    # (x.copy() is C-ordered, np.copy(x) keeps the input's order: NumPy's defaults.)
    staged = ag.function(_copies, backend="numpy")
    for x in (np.arange(6.0).reshape(2, 3), np.asfortranarray(np.arange(6.0).reshape(2, 3))):
        for got, want in zip(staged(x), _copies(x)):
            np.testing.assert_array_equal(got, want)
            assert (got.flags.c_contiguous, got.flags.f_contiguous) == \
                (want.flags.c_contiguous, want.flags.f_contiguous)
