"""Sorting and searching."""

import numpy as np

from tools.numpy_table import FLOATS, INTS, case, each, rand

_TIES = np.array([3.0, 1.0, np.nan, 1.0, -0.0, 0.0, 2.0])

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
]
