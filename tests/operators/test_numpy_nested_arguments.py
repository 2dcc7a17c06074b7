"""NumPy functions given tensors nested in lists and tuples: NumPy's dispatch does not see
them (np.array_equal(x.shape, y.shape) with sizes known only when the graph runs used to be
silently False); converted code computes the call in the graph."""

import numpy as np
import pytest

from tests.operators.graph_equivalence import check


def same_shape(x, y):
    if np.array_equal(x.shape, y.shape):
        return 1
    return 0


def largest(x):
    return np.max([x[0], x[1], 0.5]), np.mean((x[0], x.sum()))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_tensors_in_a_tuple_argument(backend):
    check(same_shape, np.ones(3), np.ones(3), backend=backend)
    check(same_shape, np.ones(3), np.ones(4), backend=backend)
    check(largest, np.array([0.1, 0.2]), backend=backend)
    check(largest, np.array([0.7, 0.2]), backend=backend)
