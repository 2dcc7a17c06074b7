"""Linear algebra inside graph programs: np.linalg's solvers and decompositions, np.einsum
and the products in loops, branches and on state, as plain Python computes them, on both
backends (each call's own cases: tools/numpy_table/linalg.py)."""

import numpy as np
import pytest

import autograph as ag
from tests.operators.graph_equivalence import check, check_raises

BACKENDS = ["numpy", "numba"]
RNG = np.random.default_rng(17)
SYMMETRIC = RNG.standard_normal((5, 5))
SYMMETRIC = SYMMETRIC @ SYMMETRIC.T + np.diag(np.arange(1.0, 6.0))


def assert_same(expected, actual, rtol=0.0):
    """Equal nesting, Python types, dtypes and values (within rtol)."""
    assert type(actual) is type(expected)
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual):
            assert_same(e, a, rtol)
        return
    if isinstance(expected, (np.ndarray, np.generic)):
        assert actual.dtype == expected.dtype and np.shape(actual) == np.shape(expected)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol)


def power_iteration(a, tolerance):
    """The largest eigenvalue of a by power iteration, until it settles."""
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    value, change, steps = 0.0, np.inf, 0
    while change > tolerance and steps < 1000:
        w = a @ v
        estimate = v @ w
        v = w / np.linalg.norm(w)
        change = abs(estimate - value)
        value = estimate
        steps += 1
    return value, v, steps


@pytest.mark.parametrize("backend", BACKENDS)
def test_power_iteration_converges_as_in_python(backend):
    staged = ag.function(power_iteration, backend=backend)
    expected = power_iteration(SYMMETRIC, 1e-10)
    actual = staged(SYMMETRIC, 1e-10)
    # (numba: its BLAS products may round otherwise, so the step count could differ.)
    assert_same(expected, actual, rtol=0.0 if backend == "numpy" else 1e-9)
    assert actual[0] == pytest.approx(np.linalg.eigvalsh(SYMMETRIC)[-1], rel=1e-9)


def fit(x, y, ridge):
    """A quadratic fit: regularised normal equations where ridge > 0, else least squares;
    the coefficients and the squared residual."""
    a = np.stack([np.ones_like(x), x, x * x], axis=1)
    if ridge > 0:
        coefficients = np.linalg.solve(a.T @ a + ridge * np.eye(3), a.T @ y)
    else:
        coefficients, residuals, rank, _ = np.linalg.lstsq(a, y)
    residual = y - a @ coefficients
    return coefficients, residual @ residual


@pytest.mark.parametrize("backend", BACKENDS)
def test_least_squares_in_a_branch(backend):
    x = np.linspace(0.0, 1.0, 7)
    y = 1.0 + 2.0 * x - x ** 2 + 0.01 * RNG.standard_normal(7)
    staged = ag.function(fit, backend=backend)
    for ridge in (0.0, 1e-3):
        assert_same(fit(x, y, ridge), staged(x, y, ridge),
                    rtol=0.0 if backend == "numpy" else 1e-12)
    assert staged.trace_count == 1   # (ridge is an input: one graph holds both branches)


def gram_schmidt(a):
    """Orthonormal columns by classical Gram-Schmidt, einsum projecting out the columns
    made so far (a graph loop over the columns); the result and its Gram matrix."""
    q = np.zeros_like(a)
    for j in range(a.shape[1]):
        v = a[:, j]
        v = v - np.einsum("ij,j->i", q[:, :j], np.einsum("ij,i->j", q[:, :j], v))
        q[:, j] = v / np.linalg.norm(v)
    return q, np.einsum("ij,ik->jk", q, q)


def gram_schmidt_unrolled(a):
    """The same for three columns, in a Python loop (unrolled while tracing)."""
    q = np.zeros_like(a)
    for j in range(3):
        v = a[:, j]
        if j > 0:
            v = v - np.einsum("ij,j->i", q[:, :j], np.einsum("ij,i->j", q[:, :j], v))
        q[:, j] = v / np.linalg.norm(v)
    return q


@pytest.mark.parametrize("backend", BACKENDS)
def test_gram_schmidt_with_einsum_in_loops(backend):
    a = RNG.standard_normal((6, 3))
    q, gram = ag.function(gram_schmidt, backend=backend)(a)
    expected_q, expected_gram = gram_schmidt(a)
    # (einsum's sums run in another order than NumPy's: equal but for rounding.)
    np.testing.assert_allclose(q, expected_q, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gram, np.eye(3), atol=1e-12)
    if backend == "numpy":   # (the same ops as the graph loop's)
        np.testing.assert_allclose(ag.function(gram_schmidt_unrolled, backend=backend)(a),
                                   expected_q, rtol=1e-12, atol=1e-14)


def decompositions(a, b, spd):
    """The np.linalg calls Numba computes natively (where its LAPACK call is NumPy's), and
    compositions of them."""
    return (np.linalg.solve(a, b), np.linalg.solve(a, np.stack([b, b], axis=1)),
            np.linalg.inv(a), np.linalg.det(a), np.linalg.slogdet(a),
            np.linalg.cholesky(spd), np.linalg.eigvalsh(spd), np.linalg.matrix_power(a, -3))


def test_decompositions_on_numba_are_numpys():
    # (float32 values: NumPy computes in float64 and rounds; ints: in float64.)
    a = (SYMMETRIC[:4, 1:] * 3).astype(np.float32)
    spd = SYMMETRIC[:4, :4].round().astype(np.int64) + 10 * np.eye(4, dtype=np.int64)
    b = np.arange(4)
    staged = ag.function(decompositions, backend="numba")
    assert_same(decompositions(a, b, spd), staged(a, b, spd), rtol=1e-12)
    # Where Numba's call raises (it refuses NaNs, words its errors otherwise), NumPy runs:
    # NumPy's NaNs, and its errors.
    nan = np.full((4, 4), np.nan, np.float32)
    with np.errstate(all="ignore"):
        assert_same(decompositions(nan, b, spd), staged(nan, b, spd))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        staged(np.ones((4, 4), np.float32), b, spd)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        staged(a, b, -spd)
    with pytest.raises(ValueError, match="solve1: Input operand 1 has a mismatch"):
        staged(a, np.arange(3), spd)


def non_finite(a, b):
    return np.linalg.solve(a, b), np.linalg.inv(a), np.linalg.det(a), np.linalg.eigvalsh(a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_finite_matrices_give_numpys_nans(backend):
    a = np.array([[np.nan, 1.0], [1.0, 3.0]])
    with np.errstate(all="ignore"):
        assert_same(non_finite(a, np.ones(2)),
                    ag.function(non_finite, backend=backend)(a, np.ones(2)))


def stacks(a, b, spd):
    """np.linalg on stacks of matrices (numba: NumPy's call, in object mode), products of
    stacks of any rank, broadcast (numba: BLAS products of the matrices)."""
    return (np.linalg.solve(a, b), np.linalg.inv(a), np.linalg.det(a),
            np.linalg.cholesky(spd), np.linalg.eigh(spd), a @ b, np.einsum("bij,bjk->bik", a, b),
            a[:, None] @ b[None], b[0, :, 0] @ a, a @ b[0, :, 0],
            np.einsum("...ij,...jk", a[:, None], b[None]))


def test_stacks_of_matrices_on_numba():
    a = RNG.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    b = RNG.standard_normal((3, 4, 2))
    spd = a @ np.swapaxes(a, 1, 2)
    assert_same(stacks(a, b, spd), ag.function(stacks, backend="numba")(a, b, spd),
                rtol=1e-12)


def integer_products(a, b, v, s):
    """Products of integers (and booleans): NumPy's loops, native on numba."""
    return (a @ b, v @ b, a @ v, v @ v, s @ s, np.dot(a, v), np.einsum("ij,jk->ik", a, b),
            np.tensordot(s, s, axes=([1, 2], [2, 1])), a.astype(bool) @ b.astype(bool))


def test_integer_products_on_numba():
    a = RNG.integers(-9, 10, (3, 4)).astype(np.int32)
    b = RNG.integers(-9, 10, (4, 5)).astype(np.int32)
    v = RNG.integers(-9, 10, 4).astype(np.int32)
    s = RNG.integers(-9, 10, (2, 3, 3)).astype(np.int32) * 50000   # (int32 wraps around)
    assert_same(integer_products(a, b, v, s),
                ag.function(integer_products, backend="numba")(a, b, v, s))


def solve_in_place(a, b):
    """Solves into the argument (an item assignment from a solve)."""
    b[...] = np.linalg.solve(a, b)
    return np.linalg.det(a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_solve_written_into_an_argument(backend):
    check(solve_in_place, SYMMETRIC, np.arange(5.0), backend=backend)


def einsum_broadcast(a, b):
    return np.einsum("ij,jk->ik", a, b)


def test_einsum_refuses_a_size_of_1_it_does_not_know_while_tracing():
    """NumPy broadcasts a summed subscript's size of 1; a graph only where it knows it."""
    info = check_raises(ValueError, einsum_broadcast, np.ones((2, 3)), np.ones((4, 2)),
                        backend="numpy", match="size 3 in operand 0 and 4 in operand 1")
    assert "test_graph_linalg.py" in "".join(info.value.__notes__)
    with pytest.raises(ValueError, match="size of 1 of a summed subscript only where"):
        ag.function(einsum_broadcast, backend="numpy")(np.ones((2, 1)), np.ones((4, 2)))
    # (Batch subscripts broadcast as matmul's stacks do.)
    check(lambda a, b: np.einsum("bij,bjk->bik", a, b), np.ones((1, 2, 3)),
          np.ones((4, 3, 2)), backend="numpy")


def test_cross_products_of_2_vectors_are_refused():
    with pytest.raises(TypeError, match=r"np.cross of 2-vectors \(deprecated"):
        ag.function(lambda a: np.cross(a, np.ones((2, 2))), backend="numpy")(np.ones((2, 2)))


def test_unsupported_modes_are_refused_by_name():
    with pytest.raises(TypeError, match="np.linalg.qr.*mode='raw'"):
        ag.function(lambda a: np.linalg.qr(a, mode="raw"), backend="numpy")(np.ones((3, 2)))
    with pytest.raises(TypeError, match="np.einsum.*out="):
        ag.function(lambda a: np.einsum("ii", a, out=a), backend="numpy")(np.ones((3, 3)))
