"""np.linalg.norm in graphs, computed as NumPy computes it: vector norms of every order,
along an axis or of a whole vector, and matrix norms (those of the singular values from
np.linalg.svd)."""

import numpy as np
import pytest

import autograph as ag

CASES = [
    ((5,), {}), ((5,), {"ord": 1}), ((5,), {"ord": np.inf}), ((5,), {"ord": -np.inf}),
    ((5,), {"ord": 0}), ((5,), {"ord": 3}), ((5,), {"ord": 0.5}), ((5,), {"keepdims": True}),
    ((3, 4), {}), ((3, 4), {"ord": "fro"}), ((3, 4), {"axis": 1}), ((3, 4), {"axis": 0,
                                                                             "ord": 1}),
    ((3, 4), {"axis": -1, "keepdims": True}), ((3, 4), {"ord": 1}), ((3, 4), {"ord": -1}),
    ((3, 4), {"ord": np.inf}), ((3, 4), {"ord": -np.inf}), ((3, 4), {"axis": (1, 0),
                                                                      "ord": 1}),
    ((2, 3, 4), {"axis": (0, 2), "keepdims": True}), ((2, 3, 4), {"axis": 1, "ord": 3}),
]


def _norm(options):
    def norm(x):
        return np.linalg.norm(x, **options)
    return norm


@pytest.mark.parametrize("shape, options", CASES, ids=[str(c) for c in CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_norm_is_numpys(shape, options, dtype):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    x.flat[1] = 0.0
    fn = _norm(options)
    expected = fn(x)
    actual = ag.function(fn, backend="numpy")(x)   # (numba: test_norms_on_numba)
    assert type(actual) is type(expected)
    np.testing.assert_array_equal(actual, expected)


def gradient_clipping(g, limit):
    n = np.linalg.norm(g)
    if n > limit:
        g = g * (limit / n)
    return g, n


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_gradient_clipping_by_the_norm(backend):
    staged = ag.function(gradient_clipping, backend=backend)
    for g, limit in ((np.arange(6.0) - 2, 1.0), (np.array([0.1, 0.2]), 5.0),
                     (np.arange(4), 2.0)):
        expected, actual = gradient_clipping(g, limit), staged(g, limit)
        np.testing.assert_allclose(actual[0], expected[0], rtol=1e-15)
        assert actual[1] == pytest.approx(expected[1], rel=1e-15)
        assert type(actual[1]) is type(expected[1])


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_matrix_norms_of_singular_values(ord):
    x = np.random.default_rng(2).standard_normal((3, 4))
    np.testing.assert_array_equal(ag.function(_norm({"ord": ord}), backend="numpy")(x),
                                  np.linalg.norm(x, ord))


def test_norms_of_complex_arrays_are_refused():
    with pytest.raises(TypeError, match="np.linalg.norm of a complex array"):
        ag.function(_norm({}), backend="numpy")(np.ones(2, complex))


def norms_on_numba(x):
    return (np.linalg.norm(x), np.linalg.norm(x, axis=1, ord=3),
            np.linalg.norm(x, ord=np.inf), np.linalg.norm(x, ord="fro", keepdims=True))


def test_norms_on_numba():
    x = np.random.default_rng(1).standard_normal((3, 4))
    expected = norms_on_numba(x)
    actual = ag.function(norms_on_numba, backend="numba")(x)
    for e, a in zip(expected, actual):
        assert type(a) is type(e)
        np.testing.assert_allclose(a, e, rtol=1e-14)
