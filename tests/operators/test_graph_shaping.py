"""Building and reshaping arrays in graphs, in combination: padding, rolling, stacking and
splitting inside graph loops and branches, views written through, read-only views and the
writes graphs refuse. (Each function alone: tools/numpy_table/shaping.py.)"""

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.operators.graph_equivalence import check, check_raises

BACKENDS = ["numpy", "numba"]


def diffuse(u, steps, rate):
    """A 2-D heat stencil: the edges padded by repeating them, in a while loop."""
    i = 0
    while i < steps:
        p = np.pad(u, 1, mode="edge")
        u = u + rate * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u)
        i += 1
    return u


@pytest.mark.parametrize("backend", BACKENDS)
def test_stencil_with_pad_in_a_while_loop(backend):
    u = np.random.default_rng(0).random((5, 4))
    staged = check(diffuse, u, 3, 0.1, backend=backend)
    check(diffuse, np.ones((2, 7)), 0, 0.25, backend=backend, staged=staged)
    assert staged.trace_count == 1


def life(board, steps):
    """Game of Life on a torus: neighbours counted by rolling the board."""
    for _ in range(steps):
        neighbours = np.zeros_like(board)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                if di != 0 or dj != 0:
                    neighbours += np.roll(board, (di, dj), axis=(0, 1))
        board = ((neighbours == 3) | ((board == 1) & (neighbours == 2))).astype(board.dtype)
    return board


@pytest.mark.parametrize("backend", BACKENDS)
def test_game_of_life_with_roll_in_a_for_loop(backend):
    glider = np.zeros((6, 6), np.int64)
    glider[0, 1] = glider[1, 2] = glider[2, 0] = glider[2, 1] = glider[2, 2] = 1
    staged = check(life, glider, 4, backend=backend)
    check(life, np.random.default_rng(1).integers(0, 2, (5, 7)), 6, backend=backend,
          staged=staged)


def weighted_rows(x):
    """Rows built with np.vstack, one per row of x (a symbolic count)."""
    out = np.zeros((0, x.shape[1]))
    for i in range(x.shape[0]):
        out = np.vstack([out, x[i] * i])
    return out, np.hstack([out.sum(axis=0), [out.shape[0]]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_stacked_in_a_loop_over_symbolic_rows(backend):
    staged = check(weighted_rows, np.arange(6.0).reshape(3, 2), backend=backend)
    check(weighted_rows, np.ones((1, 3)), backend=backend, staged=staged)
    check(weighted_rows, np.ones((0, 2)), backend=backend, staged=staged)


def blocks(x, parts):
    """np.array_split's parts, summed in a branch, then stacked back."""
    pieces = np.array_split(x, parts)
    total = 0.0
    for piece in pieces:
        if piece.shape[0] > 1:
            total = total + np.diff(piece).sum()
        else:
            total = total - piece.sum()
    return total, np.concatenate(pieces[::-1])


def test_split_parts_in_a_branch():
    staged = check(blocks, np.arange(7.0) ** 2, 3)
    check(blocks, np.arange(2.0), 3, staged=staged)


def flipped_rows(x, n):
    """Writes through np.flip's view, in a loop: x changes too, as in NumPy."""
    rows = np.flip(x, 0)
    for i in range(n):
        rows[i % rows.shape[0]] += i
    return rows.sum(), x


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_through_a_flipped_view_in_a_loop(backend):
    check(flipped_rows, np.arange(6.0).reshape(3, 2), 5, backend=backend)


def transposed_writes(x):
    t = x.T
    t[0] = -1.0                          # x's column 0
    m = np.moveaxis(x, 0, 1)[1:]
    m[...] = 2.0                         # x's columns 1:
    d = np.diagonal(x)                   # read-only, follows x
    x[0, 0] = 5.0
    return x, d, t, np.swapaxes(x, 0, 1)[0]


def test_views_of_transposes_follow_their_base():
    check(transposed_writes, np.zeros((2, 3)))


def diagonal_written(x):
    np.diagonal(x)[0] = 1.0


def broadcast_written(x):
    b = np.broadcast_to(x, (2, 3))
    b += 1.0


def test_read_only_views_refuse_writes_as_numpy():
    check_raises(ValueError, diagonal_written, np.zeros((2, 2)), match="read-only")
    check_raises(ValueError, broadcast_written, np.zeros(3), match="read-only")


def broadcast_arrays_written(x, y):
    a, b = np.broadcast_arrays(x, y)
    b[0, 0] = 7.0
    return x, y


def contiguous_written(x):
    c = np.ascontiguousarray(x)
    c[0] = 1.0
    return x


def meshgrid_written(x, y):
    gx, gy = np.meshgrid(x, y, copy=False)
    gx[0, 0] = 1.0


def test_writes_whose_target_depends_on_the_layout_are_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        broadcast_arrays_written(np.zeros(3), np.zeros((2, 1)))   # (NumPy warns)
    with pytest.raises(TypeError, match="np.broadcast_arrays.*copy"):
        ag.function(broadcast_arrays_written, backend="numpy")(np.zeros(3), np.zeros((2, 1)))
    with pytest.raises(TypeError, match="np.ascontiguousarray.*layout"):
        ag.function(contiguous_written, backend="numpy")(np.zeros(3))
    with pytest.raises(TypeError, match="np.meshgrid.*copy=True"):
        ag.function(meshgrid_written, backend="numpy")(np.zeros(3), np.zeros(2))


def grid_energy(n, k):
    """np.eye, np.tri, np.identity, np.tril and np.triu with sizes from a Python int."""
    a = np.eye(n, k=k) + 2 * np.tri(n) - np.identity(n)
    lower, upper = np.tril(a, -1), np.triu(a, 1)
    return a, lower.sum() - upper.sum(), np.trace(a), np.diag(np.diag(a, k))


@pytest.mark.parametrize("backend", BACKENDS)
def test_symbolic_sizes_make_eye_and_triangles(backend):
    staged = check(grid_energy, 4, 1, backend=backend)
    check(grid_energy, 2, 1, backend=backend, staged=staged)
    assert staged.trace_count == 1   # (n is an input)
    check(grid_energy, 3, -1, backend=backend, staged=staged)
    assert staged.trace_count == 2   # (np.diag's offset specialises: a Python int there)


def tiled(x, n):
    """np.tile and np.repeat with a symbolic count, chosen in a branch."""
    if x.sum() > 0:
        y = np.tile(x, (n, 1))
    else:
        y = np.repeat(x[None], n, axis=0)[:, ::-1]
    return y, np.repeat(x, n)


def test_tile_and_repeat_with_symbolic_counts_in_a_branch():
    staged = check(tiled, np.arange(3.0), 2)
    check(tiled, -np.arange(4.0), 3, staged=staged)
    check(tiled, np.arange(2.0), 0, staged=staged)
    assert staged.trace_count == 1


def negative_repeat(x, n):
    return np.repeat(x, n)


def test_a_negative_symbolic_count_raises_numpys_error():
    check_raises(ValueError, negative_repeat, np.arange(3.0), -1, match="negative")


def filled(x, n):
    for i in range(n):
        x[i % x.shape[0]].fill(i)
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_fill_in_place_in_a_loop(backend):
    check(filled, np.zeros((3, 2)), 4, backend=backend)


def split_unevenly(x):
    return np.split(x, 2)


def test_unequal_split_of_symbolic_size_raises_when_run():
    staged = check(split_unevenly, np.arange(4.0))
    with pytest.raises(ValueError, match="equal division"):
        staged(np.arange(5.0))


def computed_counts(x):
    return np.repeat(x, x.astype(np.int64))


def other_pad(x):
    return np.pad(x, 1, mode="mean")


def test_refusals_name_the_call():
    with pytest.raises(TypeError, match=r"np.repeat\(a, repeats\) with repeats an array computed"):
        ag.function(computed_counts, backend="numpy")(np.arange(3.0))
    with pytest.raises(TypeError, match=r"np.pad\(..., mode='mean'\)"):
        ag.function(other_pad, backend="numpy")(np.arange(3.0))


def rolled_after_a_read(x):
    first = x[3]                     # (the graph may fail here first: the error is deferred)
    return np.roll(x, 1, axis=2) + first


def test_numpys_axis_error_where_the_graph_may_fail_before():
    check_raises(np.exceptions.AxisError, rolled_after_a_read, np.ones(4), match="axis 2")


TABLE = np.arange(4.0)


@ag.do_not_convert
def table():
    return TABLE   # (a NumPy array the graph holds as a constant)


def constant_written(x):
    first, _ = np.atleast_1d(table(), x)
    first[0] = 9.0


def test_a_write_into_a_constant_through_a_result_is_refused():
    with pytest.raises(TypeError, match="holds as a constant"):
        ag.function(constant_written, backend="numpy")(np.ones(2))
    assert TABLE[0] == 0.0
