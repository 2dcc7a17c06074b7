"""Statistics and dtypes in graph code: quantiles in branches, closeness tests deciding graph
conditionals and loops, complex arithmetic in loops, NumPy 2's promotion of loop
accumulators, integer overflow and division, on the numpy and numba backends (the cases of
each function alone are in tools/numpy_table/statistics.py and dtypes.py)."""

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.operators.graph_equivalence import check, check_raises

BACKENDS = ["numpy", "numba"]


def robust_z_scores(x, threshold):
    """Robust z-scores (the median absolute deviation), or plain ones where the MAD is 0."""
    centre = np.median(x)
    mad = np.median(np.abs(x - centre))
    if mad > 0:
        z = 0.6745 * (x - centre) / mad
    else:
        z = (x - np.mean(x)) / np.std(x, ddof=1)
    return z, np.sum(np.abs(z) > threshold), np.percentile(z, [5, 95])


@pytest.mark.parametrize("backend", BACKENDS)
def test_robust_z_scores_with_a_median_in_a_branch(backend):
    staged = ag.function(robust_z_scores, backend=backend)
    rng = np.random.default_rng(3)
    tied = np.array([1.0, 1.0, 1.0, 1.0, 5.0, 1.0, 0.0])   # (MAD 0: the other branch)
    for x in (rng.standard_normal(11), tied, rng.standard_normal(10) * 100):
        check(robust_z_scores, x, 3.5, staged=staged)
    assert len(staged._cache) == 1   # (both branches in one graph)


def newton_square_root(a, tolerance):
    """Newton's iteration until np.allclose says the iterates settled (a Python bool in a
    graph `while`)."""
    x = np.ones_like(a)
    previous = np.zeros_like(a)
    steps = 0
    while not np.allclose(x, previous, rtol=tolerance, atol=0.0):
        previous = x
        x = 0.5 * (x + a / x)
        steps += 1
    return x, steps


@pytest.mark.parametrize("backend", BACKENDS)
def test_allclose_decides_a_graph_while_loop(backend):
    staged = ag.function(newton_square_root, backend=backend)
    for a in (np.array([2.0, 9.0, 1e4]), np.array([0.25])):
        check(newton_square_root, a, 1e-12, staged=staged)
    graph = str(staged.get_concrete_function(np.array([2.0]), 1e-12).graph)
    assert "while" in graph


def snap_if_close(x, target):
    if np.isclose(x, target).all() and x.shape[0] == target.shape[0]:
        return target.copy(), True
    if np.allclose(x, target, atol=0.5):
        return (x + target) / 2, False
    return x, False


@pytest.mark.parametrize("backend", BACKENDS)
def test_closeness_as_python_bools_in_graph_conditionals(backend):
    staged = ag.function(snap_if_close, backend=backend)
    target = np.array([1.0, 2.0, 3.0])
    for x in (target + 1e-9, target + 0.3, target + 2.0):
        expected, actual = snap_if_close(x, target), staged(x, target)
        np.testing.assert_array_equal(actual[0], expected[0])
        assert actual[1] is expected[1]
    assert len(staged._cache) == 1
    assert "cond" in str(staged.get_concrete_function(x, target).graph)


def discrete_fourier_transform(x):
    """The DFT by complex arithmetic in loops (no FFT)."""
    n = x.shape[0]
    result = np.zeros(n, dtype=np.complex128)
    for k in range(n):
        total = 0j
        for t in range(n):
            total += x[t] * np.exp(-2j * np.pi * k * t / n)
        result[k] = total
    return result, abs(result[1]), result.real.sum(), np.angle(result, deg=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_discrete_fourier_transform_by_complex_arithmetic(backend):
    x = np.random.default_rng(1).standard_normal(8)
    expected = discrete_fourier_transform(x)
    actual = ag.function(discrete_fourier_transform, backend=backend)(x)
    np.testing.assert_allclose(actual[0], np.fft.fft(x), atol=1e-12)
    for e, a in zip(expected, actual):
        assert type(a) is type(e) and np.asarray(a).dtype == np.asarray(e).dtype
        if backend == "numpy":
            np.testing.assert_array_equal(a, e)
        else:   # (Numba's complex loops: C's arithmetic, not NumPy's fused SIMD loops)
            np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)


def complex_parts(z):
    w = z * (1 - 2j)
    return w.real + w.imag, np.conj(w).imag, np.abs(w), w.real.dtype, z.astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_parts_and_dtypes(backend, dtype):
    z = (np.arange(4) + 1j * np.arange(4)[::-1]).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (NumPy's ComplexWarning for the cast)
        expected = complex_parts(z)
        actual = ag.function(complex_parts, backend=backend)(z)
    for e, a in zip(expected, actual):
        if isinstance(e, np.dtype):
            assert a == e
            continue
        assert np.asarray(a).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(a, e, rtol=1e-6)


def accumulate(x):
    total = 0.0
    count = 0
    for v in x:
        total += v
        count += x.dtype.type(1)
    return total, count


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_python_float_accumulator_over_float32_stays_float32(backend):
    """NumPy 2 (NEP 50): 0.0 + np.float32 is np.float32, so the loop adds in float32; with
    no iteration the Python numbers come back as they were."""
    staged = ag.function(accumulate, backend=backend)
    for x in (np.linspace(0, 1, 7, dtype=np.float32), np.zeros(0, np.float32),
              np.arange(5, dtype=np.int16)):
        expected, actual = accumulate(x), staged(x)
        assert [type(a) for a in actual] == [type(e) for e in expected]
        assert actual == expected


def integer_edges(x, y):
    big = x + np.int64(2 ** 62) * 4
    return x // y, x % y, big, np.cumsum(x * np.int64(2 ** 61))


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_overflow_wraps_and_division_by_zero_gives_zero(backend):
    x = np.array([7, -7, 3, 2 ** 62, 0])
    y = np.array([0, 2, 0, -3, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(integer_edges, x, y, backend=backend)


def first_peak(x):
    return np.nanargmax(x, axis=1), np.nanmax(x, axis=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_all_nan_slice_raises_valueerror_in_nanargmax(backend):
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_raises(ValueError, first_peak, x, match="All-NaN slice", backend=backend)
        check(first_peak, x[:1], backend=backend)


def halve(x):
    return x * 0.5 + 1


def test_float16_is_refused_by_numba_by_name_and_runs_on_auto():
    x = np.arange(4, dtype=np.float16)
    with pytest.raises(Exception, match="float16 .Numba has no float16"):
        ag.function(halve, backend="numba")(x)
    result = ag.function(halve, backend="auto")(x)
    assert result.dtype == np.float16
    np.testing.assert_array_equal(result, halve(x))
