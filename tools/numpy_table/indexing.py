"""Indexing: fancy indexing (reads and writes), np.take, np.take_along_axis,
np.put_along_axis, np.put, np.compress, np.extract, and the ufunc method `at`."""

import numpy as np

from tools.numpy_table import FLOATS, INTS, case, each, rand

_IDX = np.array([0, 5, -1, 11, 5])
_REPEATED = np.array([0, 0, 3, 1, 3, 3])
_ROWS, _COLS = np.array([0, 2, 2, 0]), np.array([1, 3, 3, 1])
_COLUMN = np.array([[0.5], [-1.5]])


def _with(*arrays):
    """Argument tuples: each array (several dtypes) with `arrays` after it."""
    return lambda xs: [(x,) + arrays for x in xs]


def _at(ufunc, index, value):
    """np.<ufunc>.at(x, index, value), then x."""
    def call(x):
        ufunc.at(x, index, value)
        return x
    return call


def _put_along(x, i):
    np.put_along_axis(x, i, -1.0, axis=1)
    return x


def _put(x):
    np.put(x, [0, 2, 4, 1, 9], [10, 20])
    return x


def _set_mask(x):
    x[x > 0] = 0.5
    return x


def _add_repeated(x, i):
    x[i] += 1
    return x


def _set_pairs(x, i):
    x[np.arange(x.shape[0]), i] = -1
    return x


_ARGS = [rand(4, 3, dtype=d) for d in FLOATS + INTS] + [rand(4, 3, dtype=np.bool_)]

CASES = [
    # Fancy indexing, reads and writes (the indexing ops, runtime/ops/indexing.py).
    case("x[int array]", lambda x, i: x[i], *_with(np.array([3, 0, -1, 0]))(_ARGS),
         (rand(5), np.array([[1, 2], [4, 4]], np.int32))),
    case("x[int array]", lambda x, i: x[i], (rand(3), np.array([0, 3])),
         name="x[int array] out of bounds"),
    case("x[int array, int array]", lambda x, i: x[np.arange(x.shape[0]), i],
         *_with(np.array([2, 0, 1, 1]))(_ARGS)),
    case("x[mask]", lambda x: x[x > 0], *each([(5,), (3, 4)], FLOATS + INTS)),
    case("x[mask] = v", _set_mask, *each([(6,), (2, 3)])),
    case("x[int array] += 1", _add_repeated,
         *_with(_REPEATED)([rand(4, 3), rand(4, 3, dtype=np.int32), rand(5)])),
    case("x[int array, int array] = v", _set_pairs, *_with(np.array([2, 0, 1, 1]))(_ARGS[:3])),

    case(np.take, lambda x, i: np.take(x, i), *_with(_IDX)(_ARGS),
         (rand(6), np.array([[1, 2], [5, 0]], np.int32)),
         (rand(6), np.array([True, False])), (rand(6), np.array([1, 4], np.uint64))),
    case(np.take, lambda x: np.take(x, 2), rand(5), rand(2, 3, dtype=np.int32),
         name="np.take scalar"),
    case(np.take, lambda x, i: np.take(x, i, axis=1), *_with(np.array([2, 0, -1]))(_ARGS[:3]),
         (rand(2, 3, 4), np.array([[0, 1], [2, 2]])), name="np.take axis=1"),
    case(np.take, lambda x, i: np.take(x, i, axis=0, mode="wrap"),
         *_with(np.array([-5, 7, 2, 4]))(_ARGS[:2]), name="np.take wrap"),
    case(np.take, lambda x, i: np.take(x, i, mode="clip"),
         *_with(np.array([-5, 70, 2]))(_ARGS[:2]), name="np.take clip"),
    case(np.take, lambda x, i: x.take(i), (rand(5), np.array([4, 5])),
         name="x.take out of bounds"),
    case(np.take, lambda x, i: np.take(x, i), (rand(5), np.array([1.0])),
         name="np.take float indices"),
    case(np.take, lambda x, i: np.take(x, i, axis=2), (rand(5), np.array([1])),
         name="np.take bad axis"),

    case(np.take_along_axis, lambda x, i: np.take_along_axis(x, i, axis=1),
         *[(x, np.argsort(x, axis=1)) for (x,) in each([(3, 4), (2, 3, 4)], FLOATS + INTS)]),
    case(np.take_along_axis, lambda x, i: np.take_along_axis(x, i, axis=0),
         (rand(4, 3), np.array([[3, 0, -1]])), (rand(4, 3, dtype=np.int32),
                                                np.array([[1], [2]], np.int32)),
         name="np.take_along_axis broadcast"),
    case(np.take_along_axis, lambda x, i: np.take_along_axis(x, i, axis=None),
         (rand(3, 4), np.array([11, 0, 5])), name="np.take_along_axis axis=None"),
    case(np.take_along_axis, lambda x, i: np.take_along_axis(x, i, axis=1),
         (rand(3, 4), np.array([[1], [4], [0]])), (rand(3, 4), np.array([1, 2])),
         (rand(3, 4), np.array([[1.0]])), name="np.take_along_axis errors"),

    case(np.put_along_axis, _put_along, *_with(np.array([[0], [2], [1], [2]]))(_ARGS[:4]),
         (rand(2, 3), np.array([[0, 0], [2, 1]]))),
    case(np.put_along_axis, lambda x, i: (np.put_along_axis(x, i, _COLUMN, axis=0), x)[1],
         (rand(3, 4), np.array([[0, 1, 2, 0], [2, 2, 2, 2]])), name="np.put_along_axis values"),
    case(np.put_along_axis, lambda x, i: (np.put_along_axis(x, i, 5.0, axis=None), x)[1],
         (rand(3, 4), np.array([1, 7])), name="np.put_along_axis axis=None"),
    case(np.put_along_axis, lambda x, i: (np.put_along_axis(x, i, 5.0, axis=1), x)[1],
         (rand(3, 4), np.array([[1], [4], [0]])), name="np.put_along_axis out of bounds"),

    case(np.put, _put, rand(3, 4), rand(10, dtype=np.int32), rand(12, dtype=np.float32)),
    case(np.put, lambda x, i: (x.put(i, -2.5, mode="clip"), x)[1],
         (rand(2, 3), np.array([-3, 1, 99])), name="x.put clip"),
    case(np.put, lambda x, i: (np.put(x, i, np.array([7, 8, 9]), mode="wrap"), x)[1],
         (rand(5), np.array([[-6, 2], [12, 3]])), (rand(5, dtype=np.int64), np.array([0, 5])),
         name="np.put wrap"),
    case(np.put, lambda x, i: (np.put(x, i, 1.0), x)[1], (rand(5), np.array([0, 5])),
         name="np.put out of bounds"),

    case(np.compress, lambda c, x: np.compress(c, x, axis=0),
         (np.array([True, False, True]), rand(4, 3)), (np.array([0, 1]), rand(3, 2)),
         (np.array([False, False, True, False, True]), rand(4, 3))),
    case(np.compress, lambda c, x: x.compress(c), (rand(5) > 0, rand(5)),
         (np.array([True, False]), rand(2, 2, dtype=np.int32)), name="x.compress"),
    case(np.compress, lambda c, x: np.compress(c, x, axis=1),
         (np.array([[True]]), rand(2, 2)), name="np.compress 2-d condition"),
    case(np.extract, lambda c, x: np.extract(c, x), (np.array([[1, 0, 2], [0, 0, 3]]), rand(2, 3)),
         (rand(3, 3) > 0, rand(3, 3, dtype=np.int32)), (np.array([1, 0, 1]), rand(2, 2))),

    # ufunc.at: unbuffered, an element indexed k times is combined k times.
    case("np.add.at", _at(np.add, _REPEATED, 1.0), rand(5), rand(4, dtype=np.float32),
         rand(4, dtype=np.int64), rand(4, dtype=np.int32), rand(5, dtype=np.bool_)),
    case("np.add.at", lambda x, i, v: (np.add.at(x, i, v), x)[1],
         (rand(4, 3), _REPEATED[:4], rand(4, 3, seed=1)),
         (rand(4, 3, dtype=np.float32), np.array([1, 1]), rand(3)),
         (rand(4, 3, dtype=np.int32), _REPEATED, np.float64(2.7)),
         name="np.add.at values"),
    case("np.add.at", _at(np.add, (_ROWS, _COLS), np.array([1.0, 2.0, 3.0, 4.0])),
         rand(3, 4), rand(3, 4, dtype=np.int64), name="np.add.at pairs"),
    case("np.add.at", _at(np.add, (slice(None), np.array([0, 0, 2])), 1.5), rand(2, 3),
         name="np.add.at slice and array"),
    case("np.add.at", _at(np.add, np.array([True, False, True, True]), 2.0), rand(4),
         name="np.add.at mask"),
    case("np.add.at", _at(np.add, 1, np.array([1.0, 2.0])), rand(3, 2),
         name="np.add.at int"),
    case("np.add.at", _at(np.add, np.array([0, 0]), 300), rand(3, dtype=np.int8),
         name="np.add.at int8 wraps a Python int"),
    case("np.add.at", _at(np.add, np.array([0, 0, 1]), 0.0021326093),
         np.array([-0.00037415192, 1.0], np.float32), name="np.add.at float32 in float64"),
    case("np.add.at", _at(np.add, np.array([0, 4]), 1.0), rand(3),
         name="np.add.at out of bounds"),
    case("np.add.at", _at(np.add, np.array([0, 1]), np.ones((1, 2))), rand(3),
         name="np.add.at value of another shape"),
    case("np.subtract.at", _at(np.subtract, _REPEATED, np.arange(6.0)), rand(4),
         rand(4, dtype=np.int32)),
    case("np.subtract.at", _at(np.subtract, np.array([0]), True), rand(2, dtype=np.bool_),
         name="np.subtract.at of bools"),
    case("np.multiply.at", _at(np.multiply, _REPEATED, 1.5), rand(4), rand(4, dtype=np.float32),
         rand(4, dtype=np.int64)),
    case("np.maximum.at", _at(np.maximum, _REPEATED, np.array([0.5, np.nan, 2, -1, 3, 0])),
         rand(4), rand(4, dtype=np.int32)),
    case("np.minimum.at", _at(np.minimum, _REPEATED, np.array([0.5, -2, 2, -1, np.nan, 0])),
         rand(4), np.array([1.0, np.nan, 0.0, 2.0])),
]
