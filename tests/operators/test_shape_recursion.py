"""Recursion whose base case tests a shape (runtime/specialise.py): a trace with symbolic
dims would trace both branches of `if N == 1` at every depth; when it recurses until
Python's RecursionError, the function traces again with the shapes of its array arguments
static (in the trace key: another shape traces again), and the recursion ends as in
Python. On both backends, against Python."""

import numpy as np
import pytest

import autograph as ag
from graph_equivalence import check


def fft(x):
    N = x.shape[0]
    if N == 1:
        return x
    even = fft(x[::2])
    odd = fft(x[1::2])
    twiddled = np.exp(-2j * np.pi * np.arange(N // 2) / N) * odd
    return np.concatenate([even + twiddled, even - twiddled])


def merge_sort(x):
    if len(x) <= 1:
        return x
    middle = len(x) // 2
    left, right = merge_sort(x[:middle]), merge_sort(x[middle:])
    out = np.empty(len(x), x.dtype)
    i = j = 0
    for k in range(len(x)):
        if j >= len(right) or (i < len(left) and left[i] <= right[j]):
            out[k] = left[i]
            i += 1
        else:
            out[k] = right[j]
            j += 1
    return out


def sum_of_halves(x):
    n = len(x)
    if n == 1:
        return x[0]
    return sum_of_halves(x[:n // 2]) + sum_of_halves(x[n // 2:])


@pytest.fixture(scope="module", params=["numpy", "numba"])
def staged(request):
    """One staged function per recursive function and backend, shared by the tests."""
    return {fn.__name__: ag.function(fn, backend=request.param)
            for fn in (fft, merge_sort, sum_of_halves)}


def test_a_recursion_on_a_shape_ends_as_in_python(staged):
    rng = np.random.default_rng(1)
    signal = rng.standard_normal(16) + 1j * rng.standard_normal(16)
    np.testing.assert_allclose(staged["fft"](signal), np.fft.fft(signal), atol=1e-12)
    check(fft, signal, staged=staged["fft"])
    for values in (rng.standard_normal(7), np.array([3.0, 1.0, 2.0])):
        check(merge_sort, values, staged=staged["merge_sort"])
    check(sum_of_halves, np.arange(6.0), staged=staged["sum_of_halves"])


def test_another_shape_traces_again_and_the_same_one_does_not(staged):
    halves = staged["sum_of_halves"]
    count = halves.trace_count
    check(sum_of_halves, np.arange(5.0), staged=halves)
    check(sum_of_halves, np.arange(5.0) * 2, staged=halves)
    assert halves.trace_count == count + 1


def test_a_recursion_without_end_is_still_pythons_recursion_error():
    def forever(x):
        return forever(x[:1]) + 1.0
    with pytest.raises(RecursionError):
        ag.function(forever, backend="numpy")(np.ones(3))


def test_without_recursion_shapes_stay_symbolic():
    def halved(x):
        if x.shape[0] == 1:
            return x
        return x[::2]
    staged = ag.function(halved, backend="numpy")
    check(halved, np.ones(1), staged=staged)
    check(halved, np.arange(5.0), staged=staged)
    assert staged.trace_count == 1
