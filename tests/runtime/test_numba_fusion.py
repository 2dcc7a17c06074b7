"""Fused elementwise loops (runtime/executors/numba/fusion.py) give plain NumPy's values,
dtypes and errors: broadcasting, slices, float32 with Python numbers, writes and failures
between the ops of a chain. Each function compiles once per backend for the session."""

import copy
import re

import numpy as np
import pytest

import autograph as ag
from equivalence import staged
from runtime.executors.numba import fusion

BACKENDS = ["numpy", "numba"]


def chains(a, b, row, col, s, lr):
    """Chains of every fusable op, broadcast (rank 1 against 2, size-1 axes on both sides),
    on slices, with Python numbers and a scalar of the arrays' dtype."""
    stencil = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
    outer = np.sqrt(np.abs(row - col)) * -b[0] / (s + 1)
    clipped = np.maximum(np.minimum(a * lr, 0.5), -0.5) ** 2 - np.square(col)
    used_twice = a + 1.0
    return stencil, outer, clipped, used_twice * used_twice, np.tanh(a @ b + row + 1.0)


def _chain_inputs(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 4)).astype(dtype)
    b = rng.standard_normal((4, 4)).astype(dtype)
    row = rng.standard_normal(4).astype(dtype)
    col = rng.standard_normal((5, 1)).astype(dtype)
    return a, b, row, col, dtype(0.5), 0.3


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_chains_give_numpys_bits_and_dtypes(backend, dtype):
    args = _chain_inputs(dtype)
    expected = chains(*copy.deepcopy(args))
    got = staged(chains, backend)(*copy.deepcopy(args))
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def test_fused_chains_handle_nan_inf_and_division_by_zero():
    args = list(_chain_inputs(np.float64))
    args[0][0, :2] = [np.nan, np.inf]
    args[3][1, 0] = -np.inf
    args[4] = np.float64(-1.0)        # (s + 1) == 0: division by zero gives inf / nan
    expected = chains(*copy.deepcopy(args))
    got = staged(chains, "numba")(*copy.deepcopy(args))
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)


def test_the_chains_are_fused_into_loops():
    source = staged(chains, "numba").get_concrete_function(
        *_chain_inputs(np.float64)).executable.source
    # The stencil (5 adds, a multiply); the outer's two parts (b[0] may raise, between
    # them); the clip (6 ops); the twice-used sum with its product; the sum going into
    # tanh: 6 loops, no ufunc call left.
    assert source.count("= np.empty(") == 6
    assert "np.add(" not in source and "np.multiply(" not in source
    assert "numpy_unary_inplace" in source   # tanh writes into its fused operand


def shrink(x, y, t):
    """Soft thresholding (tools/vectorised_workloads.py's ista), comparisons, np.where
    choosing between arrays, broadcast (y is a row), with Python numbers."""
    soft = np.where(np.abs(x) > t, x - t * np.sign(x), 0.0)
    picked = np.where(x > y, x, y * 2.0)
    return (soft, picked, np.sign(x) * 1.0, np.where(x >= y, x, 0.5),
            np.where(x < 0.5, 1.0, y), np.where(x == y, x, -x), np.where(x != y + 0.0, x, y),
            np.where(x <= t, x * 2.0, x), x > y)


def _shrink_inputs(dtype):
    x = np.array([[-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf],
                  [0.25, -0.25, 0.1, -3.0, 0.5, 2.0]], dtype)
    y = np.array([0.0, -0.0, np.nan, 1.0, np.inf, 0.3], dtype)
    return x, y, 0.2


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_where_sign_and_comparisons_fuse_with_numpys_bits(backend, dtype):
    """NaN (of either sign), -0.0 and infinities through sign, comparisons and np.where,
    fused, give NumPy's bits and dtypes."""
    args = _shrink_inputs(dtype)
    expected = shrink(*copy.deepcopy(args))
    f = staged(shrink, backend)
    got = f(*copy.deepcopy(args))
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
        assert (np.signbit(g) == np.signbit(e)).all()
    if backend == "numba":
        source = f.get_concrete_function(*args).executable.source
        # One loop per result but the last (the soft thresholding one, its x read twice:
        # one local), which stays np.greater (fusion._IN_CHAINS_ONLY).
        assert source.count("= np.empty(") == 8
        assert "np.where(" not in source and "np.sign(" not in source
        assert source.count("np.greater(") == 1 and "np.less" not in source
        assert "np.equal" not in source and "np.not_equal" not in source


def masked_updates(x, m, s):
    """x[m] = f(x[m]): the mask computed or given; a view of x and a value computed from x
    before the updates; float32 with Python numbers; one not of the idiom (y[m] read)."""
    before = x * 1.0
    view = x[1:]
    below = x < 0.0
    x[below] = -x[below]
    x[m] = x[m] * s + 1.0
    y = x * 2.0
    y[m] = y[m] - x[m]
    return x, before, view, y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_masked_updates_are_one_loop_with_numpys_results(backend, dtype):
    x = np.array([-1.5, 2.0, -0.0, np.nan, -np.inf, 3.0], dtype)
    m = np.array([True, False, True, True, False, True])
    args = (x, m, 0.3)
    expected = masked_updates(*copy.deepcopy(args))
    f = staged(masked_updates, backend)
    arguments = copy.deepcopy(args)
    got = f(*arguments)
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(arguments[0], expected[0])   # x written in place
    # A mask that does not fit: NumPy's IndexError, at the gather.
    with pytest.raises(IndexError) as eager:
        masked_updates(x.copy(), m[:4], 0.3)
    with pytest.raises(IndexError) as graph:
        f(x.copy(), m[:4], 0.3)
    assert str(graph.value).splitlines()[0] == str(eager.value)
    if backend == "numba":
        source = f.get_concrete_function(*args).executable.source
        # The two updates of the idiom gather nothing; y[m] - x[m] gathers twice.
        assert source.count("_rt.check_mask(") == 5
        assert len(re.findall(r"= \w+\[\w+\]\n", source)) == 2


def write_between(x, y):
    t = x * 2.0
    x[0] = 100.0          # a write between the product and the sum reading it
    return t + y


def raise_between(x, y, z, i):
    t = x + y             # may raise (broadcast)
    u = z[i]              # may raise (index), between t and its use
    return t * u


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_fusion_across_writes_and_failures(backend):
    x, y = np.arange(4.0), np.ones(4)
    np.testing.assert_array_equal(staged(write_between, backend)(x.copy(), y),
                                  write_between(x.copy(), y))
    f = staged(raise_between, backend)
    z = np.arange(3.0)
    np.testing.assert_array_equal(f(x, y, z, 1), raise_between(x, y, z, 1))
    # Both fail: plain Python reports the sum's misfit first, the graph too.
    with pytest.raises(ValueError) as info:
        f(x, np.ones(3), z, 5)
    assert "t = x + y" in info.value.__notes__[-1] or "raise_between" in info.value.__notes__[-1]
    assert "add" in info.value.__notes__[-1]
    # Only the index fails.
    with pytest.raises(IndexError):
        f(x, y, z, 5)


def misfit(a, b, c):
    return (a + b) * c


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_misfit_in_a_fused_chain_names_its_op(backend):
    f = staged(misfit, backend)
    with pytest.raises(ValueError):
        misfit(np.ones(3), np.ones(4), np.ones(3))
    with pytest.raises(ValueError) as first:
        f(np.ones(3), np.ones(4), np.ones(3))
    assert first.value.__notes__[-1].startswith("While executing ")
    assert " add " in first.value.__notes__[-1]
    with pytest.raises(ValueError) as second:
        f(np.ones(3), np.ones(3), np.ones(4))
    assert " multiply " in second.value.__notes__[-1]
    np.testing.assert_array_equal(f(np.ones((2, 1)), np.ones(3), np.ones(3)),
                                  misfit(np.ones((2, 1)), np.ones(3), np.ones(3)))


def test_only_one_float_dtype_fuses():
    graph = ag.function(lambda a, n: (a + n) * 2, backend="numpy").get_concrete_function(
        np.ones(3, np.float32), np.ones(3, np.int64)).graph
    trees, members, _ = fusion.plan(graph)
    assert not members   # float32 + int64 arrays compute in float64: NumPy's cast, not fused


def dead_work(a, b):
    product = a @ b       # read by nothing (as a gradient nobody asked for)
    total = a + b         # likewise
    return a * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_results_nobody_reads_still_give_numpys_errors(backend):
    f = staged(dead_work, backend)
    a = np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(f(a, np.ones((2, 2))), dead_work(a, np.ones((2, 2))))
    for b in (np.ones((3, 2)), np.ones((2, 3))):   # the product's misfit, then the sum's
        with pytest.raises(ValueError) as expected:
            dead_work(a, b)
        with pytest.raises(ValueError) as raised:
            f(a, b)
        op = "matmul" if "matmul" in str(expected.value) else "add"
        assert (" %s " % op) in raised.value.__notes__[-1]
    if backend == "numba":
        source = f.get_concrete_function(a, np.ones((2, 2))).executable.source
        assert "np.dot" not in source and source.count("np.empty(") == 1   # only their checks


def many_chains(x):
    """More separate elementwise results than fusion.MAX_LOOPS."""
    return tuple(x * float(k) + 1.0 for k in range(fusion.MAX_LOOPS + 4))


def test_a_graph_gets_at_most_max_loops_fused_loops():
    """Numba's compile time grows faster than the number of loops in one function."""
    x = np.arange(6.0)
    f = staged(many_chains, "numba")
    results = f(x)
    for got, expected in zip(results, many_chains(x)):
        np.testing.assert_array_equal(got, expected)
    source = f.get_concrete_function(x).executable.source
    assert source.count("= np.empty(") == fusion.MAX_LOOPS
