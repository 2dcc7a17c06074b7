"""Advanced indexing (integer arrays and boolean masks, several of them or with ints, slices
and None) reads and writes, as plain Python and through ag.function on each backend: values,
dtypes, shapes, NumPy's errors (type, message, order) at the user's line, the arguments
written. On Numba these run as the code generator's loops
(runtime/executors/numba/advanced_indexing.py); each function compiles once per backend for
the whole module."""

import copy
import sys

import numpy as np
import pytest

import autograph as ag
from runtime import errors

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/runtime")
from equivalence import run_both, staged  # noqa: E402

BACKENDS = ["numpy", "numba"]


def check(fn, backend, *args):
    run_both(fn, *args, backend=backend, stage=lambda f, backend: staged(f, backend))


# -- reads ---------------------------------------------------------------------------------

def reads(x, y, i, j, k, m, m2, n, flag):
    """x: (3, 4, 5); y: (3, 4); i, j: int arrays of one length; k: a (2, 1) int array;
    m: a mask of x's first axis, m2 of its first two; n: an int; flag: a boolean scalar."""
    return (
        y[i, j], y[k, j], y[i, j[:1]],              # broadcast index arrays, n-d too
        y[i, :], y[:, j], y[n, j], y[-1, j],        # with slices and ints
        x[:, i, j], x[:, n, j],                      # adjacent: they keep their place
        x[i, :, j], x[n, :, j], x[i, None, j],       # separated: the broadcast dims first
        x[None, i, j], x[i, ..., j], x[::-1, 1:4, j], x[n:, j[:2]], x[k, i, 1:3],
        y[i], y[k], y[[0, 2], [1, 1]], y[j[:0], 1],  # one array; a list; an empty one
        y[i.astype(np.int8), j.astype(np.uint8) % 4],
        x.astype(np.int32)[i, j], (y > 5)[i, j],    # the array's dtype is kept
        y[m, 0], y[m, 1:], y[m, j[:2]], x[m, :, n],  # masks with other indices
        x[m2], x[m2, n], x[:, m2[0]], y[flag, n], x[n, flag, j],
    )


_X = np.arange(60.0).reshape(3, 4, 5)
_Y = np.arange(12.0).reshape(3, 4)
_MASK = np.array([True, False, True])


def _read_args(i, j, k=np.array([[0], [2]]), m=_MASK, n=1, flag=True):
    m2 = (_X[:, :, 0] % 3) == 0
    return (_X, _Y, np.array(i), np.array(j), k, m, m2, np.int64(n), np.bool_(flag))


@pytest.mark.parametrize("backend", BACKENDS)
def test_reads_match_numpy(backend):
    check(reads, backend, *_read_args([2, 0, -1], [1, 3, -4]))
    # The same trace: an index array of one element broadcast, another int, False.
    check(reads, backend, *_read_args([1], [0, 3, 2, -1], k=np.array([[-1], [1], [0]]),
                                      m=np.array([False, True, True]), n=-2, flag=False))
    assert staged(reads, backend).trace_count == 1


# -- writes --------------------------------------------------------------------------------

def writes(y, x, i, j, v, m):
    """Writes on copies (returned) and on the argument y itself (written back)."""
    a = np.zeros_like(y)
    a[i, j] = 5.0
    b = np.zeros_like(y)
    b[i, j] = v                                  # one element each
    b[i, j[:1]] = v[:1] * 10                     # a value of one element, broadcast
    c = np.zeros_like(y)
    c[[0, 0, 0], [1, 1, 1]] = v                  # repeated: the last write wins
    c[[1, 1, 2], [0, 0, 0]] += v                 # ... and an update adds once
    c[[2, 2]] += 1
    d = np.zeros_like(y)
    d[i, :] = np.arange(4.0)                     # rows, a row broadcast
    d[i[:2], :] = v[:2, None]                    # a column broadcast
    d[m, 0] = v[:2] + 100                        # through a mask and an int
    e = x.copy()
    e[1, :, j] += v[:, None]                     # separated: the value in NumPy's layout
    e[m, 2, j[0]] = -1.0
    f = np.zeros(y.shape, np.int64)
    f[i, j] = v * 1.7                            # cast to the array's dtype
    h = np.zeros_like(y)
    h[y > 4] = np.arange(7.0)                    # a mask of y's shape: one value per True
    h[y < 2] = v[:1]
    z = np.zeros(4)
    z[i[:2, None]] = v[:2, None]                 # one index array: not a mask's rules
    y[i, j] -= 1.0                               # the argument, written in place
    return a, b, c, d, e, f, h, z


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_match_numpy(backend):
    check(writes, backend, _Y.copy(), _X.copy(), np.array([2, 0, -1]), np.array([1, 3, -4]),
          np.array([1.5, -2.0, 3.0]), _MASK)
    check(writes, backend, _Y.copy(), _X.copy(), np.array([0, 0, 2]), np.array([-1, -1, 0]),
          np.array([4.0, 5.0, 6.0]), np.array([False, True, True]))
    assert staged(writes, backend).trace_count == 1


def swap_rows(y, z):
    y[[1, 0], :] = y[:2]                         # the value, a view of y, read first
    z[z[:, 0], z[:, 1]] = 7                      # the index arrays, views of z, too
    return y, z


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_read_their_value_and_indices_before_writing(backend):
    check(swap_rows, backend, _Y.copy(), np.array([[1, 0], [0, 1], [1, 1]]))


# -- errors ----------------------------------------------------------------------------------

def pick(y, i, j):
    return y[i, j]


def put(y, i, j, v):
    y[i, j] = v
    return y


def pick_masked(y, m, n):
    return y[m, n]


def put_masked(y, m, v):
    y[m] = v
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_through_a_1d_mask(backend):
    """x[mask] = value of 1-d arrays (one pass over the mask on Numba): a value per True,
    one broadcast, none; the mask or the value the array written or a view of it."""
    x = np.arange(6.0)
    mask = np.array([True, False, True, True, False, True])
    check(put_masked, backend, x.copy(), mask, np.arange(10.0, 14.0))
    check(put_masked, backend, x.copy(), mask, np.array([-1.0]))
    check(put_masked, backend, x.copy(), np.zeros(6, bool), np.ones(0))
    check(put_masked, backend, x.copy(), mask, np.arange(4))        # cast to x's dtype
    b = np.array([True, True, False, True, True, True])
    check(lambda b: put_masked(b, b, b[::-1][:5]), backend, b.copy())
    check(put_masked, backend, x.copy(), x > 2.0, x[::-1][:3].copy())
    check(put_masked, backend, x.copy(), x > 2.0, x[3:])          # (inputs: copies)
    if backend == "numba":
        source = staged(put_masked, backend).get_concrete_function(
            x, mask, np.ones(4)).executable.source
        assert "np.nonzero" not in source and "np.count_nonzero" in source


_ERROR_CASES = [
    # NumPy checks in this order: masks, ints, index arrays broadcasting together, the value
    # (writes), then each index array in turn; nothing is written before.
    (pick, (_Y, np.array([0, 7]), np.array([9, 0]))),              # the first array
    (pick, (_Y, np.array([0, 1]), np.array([0, -5]))),             # a negative one
    (pick, (_Y, np.array([0, 1, 2]), np.array([0, 1]))),           # not broadcastable
    (put, (_Y, np.array([2, 0]), np.array([1, 1]), np.ones(3))),    # the value's shape
    (put, (_Y, np.array([0, 9]), np.array([0, 1]), np.ones(3))),    # ... before the range
    (put, (_Y, np.array([0, 1]), np.array([0, 4]), np.ones(2))),    # written: nothing
    (pick_masked, (_Y, np.array([True, False]), np.int64(9))),     # the mask, then the int
    (pick_masked, (_Y, _MASK, np.int64(-5))),
    (put_masked, (_Y, _Y > 4, np.ones(2))),                         # NumPy's boolean
    (put_masked, (_Y, _Y > 4, np.ones((1, 7)))),                    # assignment's own
    (put_masked, (_Y[0], np.ones(3, bool), np.ones(3))),            # 1-d: the mask,
    (put_masked, (_Y[0], _Y[0] > 1, np.ones(3))),                   # the value's size,
    (put_masked, (_Y[0], _Y[0] > 1, np.ones((1, 2)))),              # its rank
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_are_numpys_at_the_users_line(backend):
    for fn, args in _ERROR_CASES:
        with pytest.raises(Exception) as eager:
            fn(*copy.deepcopy(args))
        graph_args = copy.deepcopy(args)
        with pytest.raises(type(eager.value)) as graph:
            staged(fn, backend)(*graph_args)
        message = str(graph.value)
        assert message.splitlines()[0] == str(eager.value), (fn.__name__, args)
        where = "\n".join([message] + getattr(graph.value, "__notes__", []))
        assert "test_advanced_indexing.py" in where and "in %s" % fn.__name__ in where
        if isinstance(eager.value, IndexError):
            assert isinstance(graph.value, errors.OutOfRangeError)
        np.testing.assert_array_equal(graph_args[0], args[0])


# -- in graph loops, next to an early return -------------------------------------------------

def cross_entropy_steps(probs, labels, steps):
    """The cross-entropy's gather and its gradient's update, in a graph loop."""
    rows = np.arange(probs.shape[0])
    grad = np.zeros_like(probs)
    total = 0.0
    for step in range(steps):
        total += -np.log(probs[rows, labels]).sum()
        grad[rows, labels] -= 1.0 / (step + 1)
        grad[rows[::2], :] *= 0.5
    return total, grad


def mark_first_over(x, cols, limit):
    """Writes x through an index array in a loop, and returns early."""
    for row in range(x.shape[0]):
        if x[row, cols].max() > limit:
            x[row, cols] = -1.0
            return row
        x[row:row + 1, cols] += 0.5
    return -1


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_graph_loops_and_next_to_an_early_return(backend):
    probs = np.linspace(0.1, 0.9, 12).reshape(4, 3)
    check(cross_entropy_steps, backend, probs, np.array([2, 0, 1, 2]), 3)
    for limit in (7.0, 100.0):
        check(mark_first_over, backend, np.arange(12.0).reshape(4, 3), np.array([0, 2]),
              limit)
