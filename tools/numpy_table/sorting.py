"""Sorting, searching and counting."""

import numpy as np

from tools.numpy_table import FLOATS, INTS, case, each, rand

_TIES = np.array([3.0, 1.0, np.nan, 1.0, -0.0, 0.0, 2.0])
_SORTED = np.array([-1.0, 0.0, 0.0, 1.5, 2.0, 2.0, 7.0, np.nan])
_PROBES = np.array([-2.0, 0.0, 1.0, 2.0, 8.0, np.inf, np.nan])
_REPEATS = np.array([[2, 0, 2], [5, 0, 1]])
_COUNTS = np.array([3, 0, 3, 1, 7, 1])


def _sorted(shape, dtype):
    return (np.sort(rand(11, dtype=dtype)), rand(*shape, dtype=dtype, seed=1))


CASES = [
    case(np.sort, lambda x: np.sort(x), *each([(7,), (3, 4)], FLOATS + INTS), _TIES),
    case(np.sort, lambda x: np.sort(x, axis=0), *each([(3, 4), (2, 3, 2)]), name="np.sort axis=0"),
    case(np.sort, lambda x: np.sort(x, axis=None), *each([(3, 4)]), name="np.sort axis=None"),
    case(np.sort, lambda x: np.sort(x, axis=2), rand(3, 4), name="np.sort bad axis"),
    case(np.argsort, lambda x: np.argsort(x), *each([(7,), (3, 4)], FLOATS + INTS)),
    case(np.argsort, lambda x: np.argsort(x, kind="stable"), _TIES, *each([(3, 4)], INTS),
         name="np.argsort stable"),
    case(np.argsort, lambda x: x.argsort(axis=None, stable=True), _TIES, rand(3, 4),
         name="x.argsort stable"),
    case("x.sort", lambda x: (x.sort(axis=0), x)[1], *each([(5,), (3, 4)], FLOATS + INTS)),

    # np.partition: NumPy's own order on both backends (only the k-th place is defined).
    case(np.partition, lambda x: np.partition(x, 2), *each([(7,), (3, 5)], FLOATS + INTS),
         _TIES),
    case(np.partition, lambda x: np.partition(x, (0, -1), axis=0), *each([(4, 3)]),
         rand(5), name="np.partition kths axis=0"),
    case(np.partition, lambda x: np.partition(x, 1, axis=None), rand(3, 4),
         name="np.partition axis=None"),
    case(np.partition, lambda x: np.partition(x, 5), rand(5), rand(3, 2),
         name="np.partition kth out of bounds"),
    case(np.argpartition, lambda x: np.argpartition(x, 3), *each([(7,), (2, 6)], FLOATS + INTS),
         _TIES),
    case("x.partition", lambda x: (x.partition(1), x)[1], *each([(5,), (3, 4)])),
    case(np.argpartition, lambda x: x.argpartition(-2, axis=0), rand(4, 3),
         name="x.argpartition"),

    case(np.searchsorted, lambda a, v: np.searchsorted(a, v), _sorted((6,), np.float64),
         (_SORTED, _PROBES), _sorted((2, 3), np.float32), _sorted((4,), np.int64),
         _sorted((4,), np.int32), (np.sort(rand(9, dtype=np.int64)), rand(5)),
         (np.sort(rand(6, dtype=np.float32)), rand(4))),
    case(np.searchsorted, lambda a, v: np.searchsorted(a, v, side="right"),
         (_SORTED, _PROBES), _sorted((6,), np.int32), name="np.searchsorted right"),
    case(np.searchsorted, lambda a: np.searchsorted(a, 1.0), _SORTED,
         np.array([0, 1, 1, 2]), np.array([False, True, True]), name="np.searchsorted scalar"),
    case(np.searchsorted, lambda a, v: a.searchsorted(v, sorter=np.argsort(a)),
         (rand(7), rand(4, seed=3)), (_TIES, _PROBES), name="x.searchsorted sorter"),
    case(np.searchsorted, lambda a, v: np.searchsorted(a, v, sorter=np.array([0, 5])),
         (rand(2), rand(3)), name="np.searchsorted sorter out of range"),
    case(np.searchsorted, lambda a, v: np.searchsorted(a, v), (rand(2, 3), rand(3)),
         name="np.searchsorted of a matrix"),

    case(np.digitize, lambda x, b: np.digitize(x, b), (rand(9), np.array([-1.0, 0.0, 0.5, 2.0])),
         (_PROBES, np.array([2.0, 1.0, 0.0])), (rand(3, 4, dtype=np.float32),
                                                np.array([-1.0, 0.0, 1.0])),
         (rand(6, dtype=np.int64), np.array([-3, 0, 4]))),
    case(np.digitize, lambda x, b: np.digitize(x, b, right=True),
         (np.array([0.0, 1.0, 1.5, 2.0, 3.0]), np.array([0.0, 1.0, 2.0])),
         name="np.digitize right"),
    case(np.digitize, lambda x, b: np.digitize(x, b), (rand(4), np.array([0.0, 2.0, 1.0])),
         name="np.digitize bins not monotonic"),

    case(np.unique, lambda x: np.unique(x), *each([(9,), (3, 4)], INTS),
         np.array([True, False, True]), *each([(9,)], FLOATS), _TIES),
    case(np.unique, lambda x: np.unique(x, return_index=True, return_inverse=True,
                                        return_counts=True),
         *each([(3, 4)], FLOATS + INTS), _TIES, name="np.unique all returns"),
    case(np.unique, lambda x: np.unique(x, return_counts=True, equal_nan=False), _TIES,
         _REPEATS, name="np.unique counts, NaNs apart"),
    case(np.unique, lambda x: np.unique(x, return_inverse=True)[1], _REPEATS,
         name="np.unique inverse"),

    case(np.nonzero, lambda x: np.nonzero(x), _REPEATS, *each([(7,)], FLOATS + INTS),
         np.array([0.0, np.nan, -0.0, 1.0]), rand(2, 3, 2, dtype=np.bool_)),
    case(np.nonzero, lambda x: x.nonzero(), rand(4, 3, dtype=np.bool_), name="x.nonzero"),
    case(np.nonzero, lambda x: np.nonzero(x.sum()), rand(3), name="np.nonzero 0-d"),
    case(np.nonzero, lambda x: x[np.nonzero(x > 0)].sum(), *each([(3, 4), (5,)]),
         name="x[np.nonzero(x > 0)].sum()"),
    case(np.where, lambda x: np.where(x > 0), *each([(3, 4), (5,)], FLOATS + INTS),
         name="np.where(condition)"),
    case(np.argwhere, lambda x: np.argwhere(x), _REPEATS, *each([(6,), (2, 2, 3)],
                                                                 FLOATS + INTS),
         np.float64(0.0), np.array(2.0)),
    case(np.argwhere, lambda x: np.argwhere(x > 0) * 2, rand(3, 4), name="np.argwhere then *"),
    case(np.flatnonzero, lambda x: np.flatnonzero(x), _REPEATS, *each([(5,), (2, 3)])),
    case(np.count_nonzero, lambda x: np.count_nonzero(x), _REPEATS,
         *each([(5,), (2, 3)], FLOATS + INTS), rand(4, dtype=np.bool_)),
    case(np.count_nonzero, lambda x: np.count_nonzero(x, axis=1, keepdims=True), _REPEATS,
         rand(2, 3, dtype=np.bool_), name="np.count_nonzero axis"),
    case(np.count_nonzero, lambda x: np.count_nonzero(x, axis=(0, 1)), rand(2, 3, 2),
         name="np.count_nonzero axes"),

    case(np.bincount, lambda x: np.bincount(x), _COUNTS, _COUNTS.astype(np.int32),
         _COUNTS.astype(np.uint8), np.array([True, False, True]), np.array([], np.int64)),
    case(np.bincount, lambda x, w: np.bincount(x, w, minlength=10),
         (_COUNTS, rand(6)), (_COUNTS.astype(np.int32), rand(6, dtype=np.float32)),
         (_COUNTS, _COUNTS), name="np.bincount weights minlength"),
    case(np.bincount, lambda x: np.bincount(x, minlength=2), _COUNTS - 1,
         name="np.bincount of a negative"),
    case(np.bincount, lambda x: np.bincount(x), rand(4), name="np.bincount of floats"),
    case(np.bincount, lambda x, w: np.bincount(x, w), (_COUNTS, rand(5)),
         name="np.bincount weights of another length"),
    case(np.bincount, lambda x: np.bincount(x)[x].sum(), _COUNTS,
         name="np.bincount(x)[x].sum()"),

    case(np.histogram, lambda x: np.histogram(x, bins=4), *each([(20,), (3, 5)], FLOATS + INTS),
         np.array([2.0, 2.0, 2.0])),
    case(np.histogram, lambda x, w: np.histogram(x, 5, range=(-1.0, 1.0), weights=w),
         *each([(30,)], count=2), name="np.histogram range weights"),
    case(np.histogram, lambda x: np.histogram(x, 3, density=True), rand(12),
         name="np.histogram density"),
    case(np.histogram, lambda x: np.histogram(x, bins=3), np.array([1.0, np.nan]),
         name="np.histogram of NaN"),
]
