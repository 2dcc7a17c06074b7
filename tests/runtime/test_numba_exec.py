"""The Numba executor gives the NumPy interpreter's results, dtypes, printed output and errors.

Each graph is compiled once per test session (shared rt.function objects) and Numba's disk
cache keeps warm runs fast.
"""

import io
import contextlib
import logging
import os
import re
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import runtime as rt
from runtime import errors
from runtime.executors.numba import codegen, compiled, policy

BACKENDS = ["numpy", "numba"]


def _loop(n, body, init):
    """state = body(i, *state) for i in range(n), as a graph loop."""
    return rt.while_loop(lambda i, *s: i < n,
                         lambda i, *s: (i + 1,) + tuple(body(i, *s)), (0,) + tuple(init))[1:]


# --- equivalence cases: functional graphs, run eagerly (plain NumPy) and on each backend -----

CASES = {}


def case(*args):
    def register(fn):
        CASES[fn.__name__] = (fn, args)
        return fn
    return register


_x1 = np.linspace(-2.0, 3.0, 7)
_ints = np.arange(6, dtype=np.int64)
_x2 = np.arange(12.0).reshape(3, 4)


@case(_x1, _ints)
def arithmetic(x, n):
    return (x + 1, x * 2.5 - x / 3, n // 2, n % 3, -n, n ** 2, x ** 2, np.abs(x), x // 0.7,
            x % 0.7, n / 4, n - 7 // 2)


@case(np.linspace(0, 1, 5).astype(np.float32), np.arange(5, dtype=np.int32))
def small_dtypes(f, i):
    return (f + 1, f * 2.0, i + 1, i * i, (i + 1) // 2, f.astype(np.int32),
            i.astype(np.float32), i < 3, np.float32(2) * f, f[1] + f[2], i[1] * i[3])


@case(_x1)
def math_ufuncs(x):
    return (np.exp(x), np.log(np.abs(x) + 1), np.sqrt(np.abs(x)), np.tanh(x), np.sin(x),
            np.floor(x), np.ceil(x), np.sign(x), np.maximum(x, 0.5), np.minimum(x, 0.5),
            np.round(x, 1), np.round(x), np.exp(x[2]), np.floor(x[1]))


@case(np.arange(24.0).reshape(2, 3, 4) * 0.7 - 3.0)
def reductions_rank3(x):
    return (np.sum(x, axis=1), np.max(x, axis=(0, 2)), np.mean(x, axis=2, keepdims=True),
            np.argmax(x, axis=0), np.std(x, axis=(1, 2)), np.any(x > 3, axis=1),
            np.prod(x, axis=(0, 1), keepdims=True))


@case(np.arange(24.0).reshape(2, 3, 4) * 0.1, np.arange(8.0).reshape(4, 2) - 3.0)
def batched_products(a, w):
    return a @ w, a[:1] @ np.transpose(a, (0, 2, 1)), w.T @ np.transpose(a, (0, 2, 1))


@case(_x1, np.float64(0.3), np.int64(7))
def scalar_loop(x, a, k):
    def body(i, s, t, b):
        v = x[i]
        return s + v * a, t + k // (i + 1) + k % (i + 2), b | (v > a)
    return _loop(x.shape[0], body, (0.0, 0, False))


@case(np.array([3, -7, 120, -128], np.int8), np.array([9, 0, 65535, 2], np.uint16),
      np.array([-5, 8, 7, -2**40], np.int64), np.array([2**63 + 5, 1, 7, 0], np.uint64))
def integer_min_max_in_a_loop(a, b, c, u):
    # Scalar integer minimum/maximum are lowered to the builtins (better branches): the
    # values and dtypes of mixed integer types must stay NumPy's (uint64 with int64: float).
    def body(i, s, t, w, f):
        return (s + np.minimum(a[i], b[i]), t + np.maximum(np.maximum(c[i], a[i]), b[i]),
                w + np.minimum(u[i], np.uint64(3)), f + np.maximum(u[i], c[i]))
    return _loop(a.shape[0], body, (np.int32(0), np.int64(0), np.uint64(0), 0.0))


@case(_x2)
def reductions(x):
    return (np.sum(x), np.sum(x, axis=0), np.sum(x, axis=1), np.mean(x), np.mean(x, axis=1),
            np.max(x, axis=0), np.min(x), np.prod(x[0]), np.argmax(x), np.argmax(x, axis=1),
            np.any(x > 5), np.all(x > -1), np.std(x), np.cumsum(x[1]),
            np.max(x, axis=1, keepdims=True))


@case(np.array([[1.0, np.nan, 3.0], [np.nan, -2.0, 5.0], [4.0, 0.5, np.nan], [2.0, 7.0, -1.0]]),
      np.array([[3, -1, 8], [0, 9, -4]], np.int16), np.array([[True, False], [False, False]]),
      np.array([1.5, np.nan, -0.5, 2.5], np.float32))
def max_and_min_with_nans_and_other_dtypes(x, n, b, f):
    # (NaN first, in the middle and last of a row or column; views that are not contiguous)
    return (np.max(x), np.min(x[3]), np.max(x, axis=1), np.min(x, axis=0), np.max(x[:, 1:]),
            np.min(x.T, axis=1), np.max(x[:, ::2], axis=0, keepdims=True),
            np.min(x, axis=1, keepdims=True), np.max(n), np.min(n, axis=0),
            np.max(n, axis=1, keepdims=True), np.max(b, axis=1), np.min(b), np.max(f),
            np.min(f[2:]), np.max(f[::2]))


def max_and_min_of_signed_zeros(x):
    return np.max(x), np.min(x), np.max(x, axis=1), np.min(x.T, axis=0), np.max(x[:, 1:])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_and_min_of_floats_give_numpys_bits(dtype):
    """Float max and min run NumPy's own loops (lowering.NUMPY_REDUCE): which of 0.0 and
    -0.0, and which NaN, as NumPy gives them, whatever their places in its SIMD blocks."""
    rng = np.random.default_rng(5)
    f = staged(max_and_min_of_signed_zeros, "numba")
    for n in (2, 3, 7, 33, 130):
        x = np.where(rng.random((3, n)) < 0.5, -0.0, 0.0).astype(dtype)
        y = rng.standard_normal((3, n)).astype(dtype)
        y[1, rng.integers(n)] = np.nan
        for a in (x, y):
            for got, want in zip(f(a), max_and_min_of_signed_zeros(a)):
                assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (n, a)


def sums_numpy_adds_pairwise(x, v):
    return (np.sum(x), np.sum(x, axis=1), np.sum(x[:, 3:], axis=-1), np.sum(v), np.sum(v[::3]),
            np.mean(x), np.mean(x, axis=1), np.mean(v), x.mean(axis=-1, keepdims=True))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sums_give_numpys_pairwise_bits(dtype):
    """np.sum of floats runs np.add's loop in reduce mode where NumPy sums the items in one
    run (a 1-D array, a C-contiguous one, rows): its pairwise sum, its bits; np.mean is
    that sum divided by the count, as NumPy's."""
    rng = np.random.default_rng(6)
    f = staged(sums_numpy_adds_pairwise, "numba")
    for n in (5, 40, 300):
        x = (rng.standard_normal((3, n)) * 10.0 ** rng.integers(-4, 5, (3, n))).astype(dtype)
        v = (rng.standard_normal(4 * n) * 10.0 ** rng.integers(-4, 5, 4 * n)).astype(dtype)
        for got, want in zip(f(x, v), sums_numpy_adds_pairwise(x, v)):
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), n


@case(_x2, _ints)
def shapes(x, n):
    return (x.reshape(4, 3), x.T, np.transpose(x), x.ravel(), x.flatten(), np.expand_dims(n, 0),
            x[None], np.concatenate([x, x], axis=0), np.stack([n, n]), np.swapaxes(x, 0, 1))


@case(_x2, _ints)
def indexing(x, n):
    i = n[2]
    return (x[1], x[:, 1], x[1:, ::2], x[i - 1, i], x[-1], x[1, -1], n[n > 2],
            n[np.array([0, 2])], x[np.array([2, 0])], x[x > 5], x[np.array([[0, 1], [1, 0]])])


@case(_x2, _x1)
def item_assignment(x, v):
    y = x * 1
    y[0, 0] = 5
    y[1] = v[:4]
    y[:, 2] = -1
    w = v.copy()
    w[w > 0] = 0
    return y, w


@case(_x2)
def creation(x):
    n = x.shape[0]
    return (rt.zeros((n, 2)), rt.ones((n,), np.int32), rt.full((2, n), 3.5), np.zeros_like(x),
            np.ones_like(x, dtype=np.int64), np.full_like(x, 7), rt.arange(n),
            rt.arange(0.5, n, 0.5))


@case(_x2, _x1)
def products(a, v):
    return a @ a.T, np.dot(a, v[:4]), v @ v, np.outer(v, v[:2])


@case(_x1)
def where_and_clip(x):
    return np.where(x > 0, x, 0.0), np.clip(x, -1, 1), np.where(x > 1, 1, -1)


@case(_x1)
def tensor_array_of_scalars(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    _, ta = rt.while_loop(lambda i, ta: i < x.shape[0],
                          lambda i, ta: (i + 1, ta.write(i, x[i] * 2)), (0, ta))
    return ta.stack(), ta.read(1), ta.size()


@case(_x2)
def tensor_array_of_rows(x):
    ta = rt.TensorArray(np.float64, size=x.shape[0], element_shape=(None,))
    _, ta = rt.while_loop(lambda i, ta: i < x.shape[0],
                          lambda i, ta: (i + 1, ta.write(i, x[i] + 1)), (0, ta))
    return ta.stack()


@case(_ints)
def nested_loops_and_conds(ns):
    """Collatz stopping times: a data-dependent inner loop with a cond."""
    def body(i, total):
        def step(n, steps):
            n = rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
            return n, steps + 1
        _, steps = rt.while_loop(lambda n, s: n > 1, step, (ns[i], 0))
        return (total + steps,)
    return _loop(ns.shape[0], body, (0,))[0]


@case(_x1)
def loop_carried_array(x):
    """An array written in place across iterations, and an old version kept alive."""
    out = rt.zeros((x.shape[0],))

    def body(i, out, keep):
        out[i] = x[i] * 2
        keep = rt.cond(i == 2, lambda: out * 1, lambda: keep)
        return out, keep
    return _loop(x.shape[0], body, (out, rt.zeros((x.shape[0],))))


def _run_eager(fn, args):
    return fn(*args)


def _as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _assert_same(expected, got, exact=True):
    expected, got = _as_list(expected), _as_list(got)
    assert len(expected) == len(got)
    for k, (e, g) in enumerate(zip(expected, got)):
        # (A Python number computed from Python numbers stays one, as eagerly.)
        assert isinstance(g, (np.ndarray, np.generic)) or type(g) is type(e), \
            "output %d is a %s" % (k, type(g))
        e = np.asarray(e)
        g = np.asarray(g)
        assert g.dtype == e.dtype, "output %d: dtype %s, expected %s" % (k, g.dtype, e.dtype)
        assert g.shape == e.shape, "output %d: shape %s, expected %s" % (k, g.shape, e.shape)
        if exact and e.dtype.kind != "f":
            np.testing.assert_array_equal(g, e, err_msg="output %d" % k)
        else:
            # Float reductions may differ in the last bits: NumPy sums pairwise, Numba in order.
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, err_msg="output %d" % k)


_FUNCTIONS = {}


def staged(fn, backend, **kwargs):
    """One rt.function per (function, backend) for the whole session: compile once."""
    key = (fn, backend, tuple(sorted(kwargs.items())))
    if key not in _FUNCTIONS:
        _FUNCTIONS[key] = rt.function(fn, backend=backend, **kwargs)
    return _FUNCTIONS[key]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.mark.parametrize("name", sorted(CASES))
def test_results_and_dtypes_match_eager_numpy(name, backend):
    fn, args = CASES[name]
    expected = _run_eager(fn, args)
    got = staged(fn, backend)(*args)
    _assert_same(expected, got)


def test_every_case_lowers_completely():
    for name, (fn, args) in CASES.items():
        graph = staged(fn, "numba").get_concrete_function(*args).graph
        assert codegen.numba_unsupported_ops(graph) == [], name


def test_generic_over_dimension_sizes():
    fn, _ = CASES["scalar_loop"]
    f = staged(fn, "numba")
    for n in (3, 7, 50):
        x = np.linspace(0.0, 1.0, n)
        _assert_same(fn(x, np.float64(0.3), np.int64(7)), f(x, np.float64(0.3), np.int64(7)))
    assert f.trace_count == 1
    executable = f.get_concrete_function(x, np.float64(0.3), np.int64(7)).executable
    assert len(executable.compiled_graph.dispatcher.signatures) == 1


def test_mutated_argument_is_written_back(backend):
    def fill(x, v):
        x[1] = v
        return x.sum()

    x = np.zeros(4)
    total = staged(fill, backend)(x, np.float64(2.5))
    assert total == 2.5
    np.testing.assert_array_equal(x, [0.0, 2.5, 0.0, 0.0])


def fill_loop(x):
    out = rt.empty((x.shape[0],))

    def body(i, out):
        out[i] = x[i] * 2
        return (out,)
    return _loop(x.shape[0], body, (out,))[0]


def test_loop_writes_buffers_in_place():
    """out[i] = ... in a loop updates one buffer (no copy per iteration); a write whose old
    version is still used copies (loop_carried_array checks those values)."""
    x = np.arange(5.0)
    f = staged(fill_loop, "numba")
    np.testing.assert_array_equal(f(x), x * 2)
    source = f.get_concrete_function(x).executable.source
    assert ".copy()" not in source, source


_TABLE = np.arange(4.0)


def view_then_write(x):
    y = rt.constant(_TABLE)   # a graph constant: every run must see it unchanged
    y[0] = x[1]
    return y + 0, y


def test_write_copies_when_the_old_version_is_still_used():
    x = np.arange(4.0)
    expected = staged(view_then_write, "numpy")(x)
    f = staged(view_then_write, "numba")
    _assert_same(expected, f(x))
    _assert_same(expected, f(x))
    np.testing.assert_array_equal(_TABLE, np.arange(4.0))
    assert ".copy()" in f.get_concrete_function(x).executable.source


# --- printing ---------------------------------------------------------------------------------

def printing(x):
    def body(i, s):
        rt.print("step", i, x[i], s)
        return (s + x[i],)
    total = _loop(x.shape[0], body, (np.float32(0),))[0]
    rt.print(x[:3], total, x[0] > 0, sep="|", end="!\n")
    return total


def test_print_output_matches_python_print(backend):
    x = np.array([0.1, 2.0, -3.5], dtype=np.float32)
    expected = io.StringIO()
    with contextlib.redirect_stdout(expected):
        printing(x)
    f = staged(printing, backend)
    f.get_concrete_function(x)     # compile before capturing: only the run prints
    got = io.StringIO()
    with contextlib.redirect_stdout(got):
        f(x)
    assert got.getvalue() == expected.getvalue()
    assert "step 1 2.0 0.1" in got.getvalue()


# --- runtime errors ---------------------------------------------------------------------------

def checked_sum(x):
    def body(i, s):
        rt.Assert(x[i] >= 0, "negative value", data=[i, x[i]])
        return (s + x[i],)
    return _loop(x.shape[0], body, (0.0,))[0]


def test_failed_assert_raises_invalid_argument_with_same_message(backend):
    x = np.array([1.0, 2.0, -4.0])
    with pytest.raises(errors.InvalidArgumentError) as eager:
        checked_sum(x)
    f = staged(checked_sum, backend)
    with pytest.raises(errors.InvalidArgumentError) as graph:
        f(x)
    message = str(graph.value)
    assert message.splitlines()[0] == str(eager.value) == "negative value 2 -4.0"
    assert "While executing" in message and "test_numba_exec.py" in message
    assert f(np.array([1.0, 2.0])) == 3.0


def grid(n, m, x):
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = x * i + j
    return out


def test_the_one_node_that_may_raise_names_itself_without_a_marker():
    # np.zeros is the only node whose code Numba may raise in: its error names it and the
    # user's line with no `err` marker set in the code (compile time:
    # tools/bench_compile.py), on the first call and on the fast path of later ones.
    import autograph as ag
    f = ag.function(grid, backend="numba")
    np.testing.assert_array_equal(f(3, 2, 0.5), grid(3, 2, 0.5))
    for _ in range(2):
        with pytest.raises(ValueError, match="negative dimensions") as raised:
            f(-1, 2, 0.5)
        assert raised.value.__notes__[-1] == "While executing %%3:f64[?,?] = zeros (%%0, %%1), " \
            "dtype=float64 created at %s:%d in grid" % (__file__, grid.__code__.co_firstlineno + 1)
    source = f.get_concrete_function(3, 2, 0.5).executable.source
    assert "err" not in source[source.index("def run_graph"):], source


def dot_of_doubled(a, b):
    return np.dot(a * 2.0, b)


def matmul_of_doubled(a, b):
    return (a * 2.0) @ b


PRODUCT_MISMATCHES = [((3,), (4,)), ((2, 3), (4,)), ((3,), (4, 2)), ((2, 3), (4, 2)),
                      ((2, 2, 3), (2, 4, 2)), ((2, 2, 3), (3, 3, 2))]


@pytest.mark.parametrize("product", [dot_of_doubled, matmul_of_doubled])
def test_a_product_of_misfit_shapes_raises_numpys_error_at_the_users_line(product):
    # Numba's own check would raise from its linalg.py, naming neither line nor node.
    line = product.__code__.co_firstlineno + 1
    f = staged(product, "numba")
    for shape_a, shape_b in PRODUCT_MISMATCHES:
        if product is dot_of_doubled and len(shape_a) + len(shape_b) > 4:
            continue   # a dot of rank-3 operands does not run on Numba (a clear refusal)
        a, b = np.ones(shape_a), np.ones(shape_b)
        with pytest.raises(ValueError) as expected:
            product(a, b)
        good_b = np.ones(shape_a[-1:] + shape_b[len(shape_b) - 1:] if len(shape_b) > 1
                         else shape_a[-1:])
        if len(shape_b) == 3:
            good_b = np.ones((1,) + shape_a[-1:] + shape_b[-1:])
        for _ in range(2):   # the first call and the fast path of later ones
            with pytest.raises(ValueError) as raised:
                f(a, b)
            assert str(raised.value) == str(expected.value)
            assert raised.value.__notes__[-1].startswith("While executing ")
            assert raised.value.__notes__[-1].endswith(
                "created at %s:%d in %s" % (__file__, line, product.__name__))
            np.testing.assert_allclose(f(a, good_b), product(a, good_b))


def sum_of_two(a, b):
    return a + b * 2.0


def reshaped(a):
    return a.reshape((2, -1)) + 1.0


def largest(a):
    return np.max(a) + 1.0


def smallest_of_rows(a):
    return np.min(a, axis=1, keepdims=True) + 1.0


@pytest.mark.parametrize("fn, good, bad", [
    (sum_of_two, (np.ones(3), np.ones(3)), (np.ones(3), np.ones(4))),
    (reshaped, (np.ones(4),), (np.ones(3),)),
    (largest, (np.ones(2),), (np.ones(0),)),
    (smallest_of_rows, (np.ones((3, 2)),), (np.ones((3, 0)),)),
])
def test_errors_numba_raises_itself_name_the_node_and_the_users_line(fn, good, bad):
    line = fn.__code__.co_firstlineno + 1
    numpy_f, numba_f = staged(fn, "numpy"), staged(fn, "numba")
    np.testing.assert_allclose(numba_f(*good), fn(*good))
    with pytest.raises(Exception) as expected:
        numpy_f(*bad)
    for _ in range(2):
        with pytest.raises(type(expected.value)) as raised:
            numba_f(*bad)
        assert raised.value.__notes__ == expected.value.__notes__
        assert "created at %s:%d in %s" % (__file__, line, fn.__name__) in \
            raised.value.__notes__[-1]
        assert "_ag_numba_" not in str(raised.value)   # no lines about generated files
        numba_dir = os.path.dirname(__import__("numba").__file__)
        assert not any(entry.filename.startswith(numba_dir)   # Numba's own files
                       for entry in traceback.extract_tb(raised.value.__traceback__))


def read_at(x, i):
    return x[i] * 2


def write_at(x, i, j):
    x[i, j] = -1.0
    return x[i, j] + x[-i - 1, -j - 1]


def test_negative_indices_at_the_bounds_read_and_write_like_numpy(backend):
    f = staged(write_at, backend)
    for i, j in ((-3, -2), (-1, 0), (2, 1), (0, -1)):
        x, expected = np.arange(6.0).reshape(3, 2), np.arange(6.0).reshape(3, 2)
        want = write_at(expected, i, j)
        assert f(x, np.int64(i), np.int64(j)) == want
        np.testing.assert_array_equal(x, expected)
    for i, j, message in ((-4, 0, "index -4 is out of bounds for axis 0 with size 3"),
                          (3, 0, "index 3 is out of bounds for axis 0 with size 3"),
                          (0, -3, "index -3 is out of bounds for axis 1 with size 2")):
        with pytest.raises(IndexError) as info:
            f(np.zeros((3, 2)), np.int64(i), np.int64(j))
        assert str(info.value).splitlines()[0] == message
    g = staged(read_at, backend)
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        g(np.zeros(0), np.int64(0))
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with size 0"):
        g(np.zeros(0), np.int64(-1))


def read_wrapped(x, k):
    n = x.shape[0]
    return x[k % n] + x[(k + np.int64(1)) % n]


def test_an_index_modulo_the_axis_size_needs_no_check_only_for_python_ints():
    # (`k % n` with Python ints raises ZeroDivisionError where n is 0 before the read, so
    # it is in bounds: runtime/executors/numba/bounds.py; NumPy's int64 gives 0 there, so
    # the read keeps its check.)
    f = rt.function(read_wrapped, backend="numba")
    x = np.arange(4.0)
    for k in (-9, -1, 0, 3, 11):
        assert f(x, k) == read_wrapped(x, k)
    with pytest.raises(ZeroDivisionError):
        f(np.zeros(0), 2)
    source = f.get_concrete_function(x, 1).executable.source
    checked = [line for line in source.splitlines() if "err[" in line and "] = v" in line]
    assert len(checked) == 1, source   # (the read at the NumPy int64 remainder only)


def test_out_of_range_read_raises_like_numpy(backend):
    f = staged(read_at, backend)
    x = np.arange(3.0)
    assert f(x, np.int64(-1)) == 4.0
    with pytest.raises(IndexError) as info:
        f(x, np.int64(5))
    assert isinstance(info.value, errors.InvalidArgumentError)
    assert str(info.value).splitlines()[0] == "index 5 is out of bounds for axis 0 with size 3"
    assert "read_at" in str(info.value)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 3"):
        f(x, np.array([0, 7]))
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                                         "axis 0; size of axis is 3 but size of corresponding "
                                         "boolean axis is 2"):
        f(x, np.array([True, False]))


def loop_reads(x, extra, offset, step, base):
    """sum of x[step * i + offset + base * len(x)] for i in range(len(x) + extra)."""
    def body(i, s):
        return (s + x[step * i + offset + base * x.shape[0]],)
    return _loop(x.shape[0] + extra, body, (0.0,))[0]


def growing_reads(x):
    """Reads x[i] from a buffer that shrinks each step: the checks must stay."""
    def body(i, buf, s):
        return buf[1:], s + buf[i]
    return _loop(x.shape[0], body, (x, 0.0))[1]


def read_after_loop(x, y):
    """What a loop condition says (len(x) < len(y)) holds in its body only, not after it."""
    n = x.shape[0]
    i = rt.while_loop(lambda i: (n < y.shape[0]) & (i < 1), lambda i: (i + 1,), (0,))[0]
    return y[n] + i


def read_up_to_clamped(x):
    """i <= max(0, len(x) - 10) lets i = 0 through even for a short x."""
    n = np.maximum(0, x.shape[0] - 10)
    return rt.while_loop(lambda i, s: i <= n, lambda i, s: (i + 1, s + x[i + 5]), (0, 0.0))[1]


def test_loop_indices_are_checked_unless_provably_in_range():
    # Which loop indices the Numba executor proves in range (and leaves unchecked) must not
    # change what runs: reads at the edges give NumPy's values or its IndexError.
    x = np.arange(1.0, 6.0)
    cases = [(0, 0, 1, 0), (0, 1, 1, 0), (1, 0, 1, 0), (0, -1, 1, 0), (0, 0, -1, 0),
             (0, -5, -1, 0), (0, -1, -1, 1), (0, 0, -1, 1)]
    kinds = set()
    for args in cases:
        outcomes = []
        for backend in BACKENDS:
            try:
                outcomes.append(float(staged(loop_reads, backend)(x, *args)))
            except IndexError as error:
                outcomes.append(str(error).splitlines()[0])
        assert outcomes[0] == outcomes[1], args
        kinds.add(type(outcomes[0]))
    assert kinds == {float, str}
    messages = []
    for backend in BACKENDS:
        with pytest.raises(IndexError) as info:
            staged(growing_reads, backend)(x)
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1] == "index 3 is out of bounds for axis 0 with size 2"
    assert float(staged(read_after_loop, "numba")(np.ones(2), np.arange(3.0))) == 3.0
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        staged(read_after_loop, "numba")(np.ones(5), np.arange(3.0))
    assert float(staged(read_up_to_clamped, "numba")(np.arange(16.0))) == sum(range(5, 12))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        staged(read_up_to_clamped, "numba")(np.arange(3.0))


def row_times_two(x, i):
    return x[i] * 2.0


def test_errors_on_the_fast_path_match_the_first_call(backend):
    # After the first call, calls with the same signature go straight to the compiled code;
    # its failures must still become the NumPy interpreter's errors.
    f = rt.function(row_times_two, backend=backend)
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(f(x, np.int64(1)), x[1] * 2.0)
    np.testing.assert_array_equal(f(x, np.int64(-3)), x[0] * 2.0)
    for i in (3, -4):
        with pytest.raises(errors.OutOfRangeError) as info:
            f(x, np.int64(i))
        assert str(info.value).splitlines()[0] == (
            "index %d is out of bounds for axis 0 with size 3" % i)
        assert "row_times_two" in str(info.value)


def transcendental(x):
    return np.tanh(x), np.exp(x), np.log1p(np.abs(x)), np.arctan(x), np.cbrt(x)


def test_transcendental_ufuncs_give_numpys_bits_at_every_size_and_layout():
    # Generated code calls NumPy's own SIMD loops (lowering.NUMPY_UNARY): the bits plain
    # NumPy gives, small arrays, transposed ones and float32 alike.
    f = staged(transcendental, "numba")
    grid = np.linspace(-3.0, 3.0, 1000)
    for x in (grid, grid[:12].reshape(3, 4).T, grid[::7].astype(np.float32)):
        for got, want in zip(f(x), transcendental(x)):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


def put(x, idx, value):
    x[idx] = value
    return x


def test_integer_array_index_writes_match(backend):
    # Rows chosen by an integer array: NumPy's broadcasting of the value, negative indices,
    # and its errors (checked before anything is written).
    f = staged(put, backend)
    cases = [(np.zeros(5), np.array([0, 3, -1]), np.array([1.0, 2.0, 3.0])),
             (np.zeros(5), np.array([4, 1, 4]), np.array([7.0])),
             (np.zeros((3, 2)), np.array([2, 0]), np.array([[1.0, 2.0], [3.0, 4.0]])),
             (np.zeros((3, 2)), np.array([2, 0]), np.array([[9.0], [8.0]])),
             (np.zeros((3, 2)), np.array([2, -3]), np.array([7.0, 8.0])),
             (np.zeros((3, 2)), np.array([1]), np.array([5.0]))]
    for x, idx, value in cases:
        expected = x.copy()
        expected[idx] = value
        np.testing.assert_array_equal(f(x, idx, value), expected)
        np.testing.assert_array_equal(x, expected)
    for x, idx, value, error, message in (
            (np.zeros(5), np.array([0, 7, 1]), np.ones(3), errors.OutOfRangeError,
             "index 7 is out of bounds for axis 0 with size 5"),
            (np.zeros((3, 2)), np.array([2, 0, 1]), np.ones(3), ValueError,
             "shape mismatch: value array of shape (3,) could not be broadcast to indexing "
             "result of shape (3,2)"),
            (np.zeros((3, 2)), np.array([2, 0]), np.ones((3, 2)), ValueError,
             "shape mismatch: value array of shape (3,2) could not be broadcast to indexing "
             "result of shape (2,2)")):
        with pytest.raises(error) as info:
            f(x, idx, value)
        assert str(info.value).splitlines()[0] == message
        assert any("in put" in n for n in [str(info.value)] + getattr(info.value, "__notes__", []))
        assert not x.any()


def read_before_write(x):
    ta = rt.TensorArray(np.float64, size=3)
    ta = ta.write(0, x[0])
    return ta.read(2)


def test_tensor_array_errors_match(backend):
    with pytest.raises(errors.InvalidArgumentError) as info:
        staged(read_before_write, backend)(np.arange(3.0))
    assert str(info.value).splitlines()[0] == "TensorArray element 2 was read before it was written"


def test_errors_from_both_backends_are_identical():
    x = np.array([1.0, -2.0])
    messages = []
    for backend in BACKENDS:
        with pytest.raises(errors.InvalidArgumentError) as info:
            staged(checked_sum, backend)(x)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# --- variables --------------------------------------------------------------------------------

def test_variable_updates_are_shared_with_eager_code(backend):
    counter = rt.Variable(np.int64(0))
    acc = rt.Variable(np.zeros(2))

    def accumulate(x):
        def body(i, s):
            counter.assign_add(1)
            acc.assign(acc + x[i])
            return (s + counter.read_value(),)
        return _loop(x.shape[0], body, (np.int64(0),))[0]

    f = rt.function(accumulate, backend=backend)
    assert f(np.array([1.0, 2.0, 3.0])) == 1 + 2 + 3
    assert counter.numpy() == 3
    np.testing.assert_array_equal(acc.numpy(), [6.0, 6.0])
    assert f(np.array([1.0])) == 4
    assert counter.numpy() == 4


# --- backend selection ------------------------------------------------------------------------

def complex_round(x):
    """A scalar loop (Numba's kind) using an op Numba cannot lower (np.round of complex
    values)."""
    rounded = np.abs(np.round(x * 1j)).sum()
    return _loop(2, lambda i, s: (s + rounded * i,), (0.0,))[0]


def test_unsupported_op_is_named_with_the_user_line():
    x = np.ones(3)
    graph = staged(complex_round, "numpy").get_concrete_function(x).graph
    assert codegen.numba_unsupported_ops(graph) == ["round"]
    with pytest.raises(compiled.NumbaLoweringError) as info:
        rt.function(complex_round, backend="numba")(x)
    message = str(info.value)
    assert "'round'" in message and "test_numba_exec.py" in message \
        and "complex_round" in message


def _built(f, *args):
    """On auto, the compiled graph of the trace of f(*args) once its code is generated, after
    the first call (runtime/executors/numba/pending.py); None if it stays on NumPy."""
    return f.get_concrete_function(*args).executable.built(240)


def test_auto_runs_unsupported_graphs_on_numpy_and_says_why(caplog):
    x = np.ones(3)
    with caplog.at_level(logging.INFO, logger="autograph"):
        f = rt.function(complex_round, backend="auto")
        assert f(x) == 3.0
        assert _built(f, x) is None         # (the code generator runs after the first call)
        assert f(x) == 3.0                  # the trace's executable: the NumPy interpreter's
    assert "NumPy interpreter" in caplog.text and "'round'" in caplog.text
    assert not hasattr(f.get_concrete_function(x).executable, "compiled_graph")


def array_loop(a, v):
    return _loop(3, lambda i, v: (np.tanh(a @ v),), (v,))[0]


def test_auto_uses_numba_for_scalar_loops_times_array_loops_and_numpy_otherwise():
    x = np.arange(4.0)
    straight = rt.function(lambda x: np.exp(x) + 1, backend="auto")
    np.testing.assert_array_equal(straight(x), np.exp(x) + 1)
    # (Compiled only once called often: then timed, like the array loops.)
    assert straight.get_concrete_function(x).executable.calls_to_build == policy.HOT_CALLS - 1
    matrix_loop = rt.function(array_loop, backend="auto")
    a, v = np.eye(4) * 0.5, np.ones((4, 2))
    np.testing.assert_array_equal(matrix_loop(a, v), array_loop(a, v))
    assert policy.loop_work(matrix_loop.get_concrete_function(a, v).graph)[0] > 10
    assert _built(matrix_loop, a, v).measure   # both executors timed once compiled
    fn, args = CASES["scalar_loop"]
    looping = staged(fn, "auto")
    _assert_same(fn(*args), looping(*args))
    assert _built(looping, *args) is not None


def test_auto_falls_back_to_numpy_when_numba_cannot_compile(monkeypatch, caplog):
    from runtime.ops import get
    exp = get("exp")
    monkeypatch.setattr(exp, "numba", lambda g, node, ins: "undefined_helper(%s)" % ins[0])

    def f(x):
        return _loop(2, lambda i, s: (s + np.exp(x[i]),), (0.0,))[0]

    x = np.array([0.0, 1.0])
    with caplog.at_level(logging.INFO, logger="autograph"):
        staged_f = rt.function(f, backend="auto")
        assert staged_f(x) == 1.0 + np.e            # the NumPy interpreter, while it compiles
        assert _built(staged_f, x).wait(240)
        assert staged_f(x) == 1.0 + np.e            # still: the worker could not compile it
    assert "could not compile it (TypingError" in caplog.text
    with pytest.raises(compiled.NumbaLoweringError, match="could not compile"):
        rt.function(f, backend="numba")(x)


# --- caching and memory -----------------------------------------------------------------------

_PROBE = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    import numpy as np
    import runtime as rt
    from runtime.executors.numba import support
    support.check_mask(1, 1, 0)           # Numba's own start-up, paid by any jitted code

    def f(x):
        return rt.while_loop(lambda i, s: i < x.shape[0], lambda i, s: (i + 1, s + x[i] * i),
                             (0, 0.0))[1]

    start = time.perf_counter()
    g = rt.function(f, backend="numba")
    result = g(np.arange(5.0))
    elapsed = time.perf_counter() - start
    dispatcher = g.get_concrete_function(np.arange(5.0)).executable.compiled_graph.dispatcher
    print(result, sum(dispatcher.stats.cache_hits.values()), elapsed)
""")


def test_disk_cache_is_reused_by_a_second_process(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / "ag"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _PROBE.format(root=root)], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        result, hits, elapsed = out.stdout.split()
        runs.append((float(result), int(hits), float(elapsed)))
    assert runs[0][0] == runs[1][0] == 30.0
    assert runs[0][1] == 0 and runs[1][1] >= 1
    assert runs[1][2] < runs[0][2]


def test_importing_the_ops_loads_neither_numba_nor_the_code_generator():
    # Op modules declare their lowerings through the leaf lowering module only: a process
    # whose graphs all run on the NumPy interpreter never imports numba or the generator.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    probe = ("import sys; sys.path.insert(0, %r); import runtime, runtime.ops; "
             "print(sorted(m for m in sys.modules if m == 'numba' or "
             "m.startswith('runtime.executors.numba.')))" % root)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "['runtime.executors.numba.lowering']"


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_no_memory_growth_per_call():
    fn, _ = CASES["loop_carried_array"]
    f = staged(fn, "numba")
    x = np.linspace(0.0, 1.0, 16)
    for _ in range(2000):
        f(x)
    before = _rss_bytes()
    for _ in range(20000):
        f(x)
    assert _rss_bytes() - before < 2 * 2 ** 20


def test_the_ufuncs_named_as_lacking_are_those_numba_lacks():
    """lowering.NUMBA_LACKS stands in for asking Numba (code generation imports no Numba)."""
    from numba.np import ufunc_db
    from runtime.executors.numba import lowering
    assert lowering.numba_ufuncs() == frozenset(ufunc_db.get_ufuncs())


def test_a_kernel_is_compiled_once_whatever_literals_its_callers_pass():
    """Generated code passes site numbers and table rows as literals; a kernel compiled per
    literal value (Numba's default) cost the MLP's train step ten compiles of one kernel."""
    import numba
    from numba import types
    from runtime.executors.numba import support

    @numba.njit
    def checks(n):
        support.check_mask(n, n, 3)
        support.check_mask(n, n, 4)
        return n

    assert checks(2) == 2
    assert support.check_mask.signatures
    assert not any(isinstance(t, types.Literal)
                   for signature in support.check_mask.signatures for t in signature)


def loops_of_every_kind(x, n):
    total = 0.0
    for i in range(x.shape[0]):   # counted: a `for` over a range in generated code
        total += x[i] * i
    for j in range(2, n):
        total += j
    k = -1
    for k in range(n):            # (k, read after the loop, is a loop variable of its own)
        total += 0.5
    total += k
    for m in range(0, n, 2):      # (counts its iterations, m computed from the count)
        total += m
    for p in range(n):            # a break: `while True` (faster, measured)
        if p * p > n:
            break
        total += p
    q, b = 0, n
    while q < b:                  # the bound changes: `while True`
        b -= 1
        q += 1
        total += q * max(q, b)
    return total


def test_counted_loops_are_ranges_and_unread_scalars_are_dropped():
    # Numba types a `for` over a range at once, a `while True` with a counter again until
    # its type settles; and it types and lowers every local it is given (compile time:
    # tools/bench_compile.py). Same results as Python, whichever form each loop takes.
    import autograph as ag
    f = ag.function(loops_of_every_kind, backend="numba")
    x = np.arange(4.0)
    for n in (0, 1, 5, 9):
        assert f(x, n) == loops_of_every_kind(x, n)
    source = f.get_concrete_function(x, 5).executable.source
    body = source[source.index("def run_graph"):].splitlines()
    assert sum(line.lstrip().startswith("for ") for line in body) == 4, source
    assert sum(line.strip() == "while True:" for line in body) == 2, source
    # Every local is read (the `q > b` of `max(q, b)`, Python's builtin here, is not
    # emitted; nor is a counted loop's `i + 1`).
    for line in body:
        name = line.split(" = ")[0].strip()
        if " = " in line and name.isidentifier():
            assert sum(name in codegen._NAME.findall(other) for other in body) > 1, name


def stepped_ranges(n, m):
    total = 0
    for d in range(3, n, 2):      # (d is 3 + 2 * the loop's count: that product fits)
        if d * d > n:             # (the user's product: checked)
            break
        total += d
    for e in range(n, m, -3):     # (e is n - 3 * the count)
        total += e
    for i in range(n // 4):       # (i * 4 < n fits; i * m may not: checked)
        total += i * 4
        if i * m < 0:
            total -= 1
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_ranges_own_product_is_not_checked_for_overflow(backend):
    # A range with a step counts its iterations, i, and gives start + i * step: that
    # product fits in int64 as the count is below the range's length; so does i * 4 in a
    # range(n // 4). Its OverflowError check is left out (compile time:
    # tools/bench_compile.py); the user's products keep theirs.
    import autograph as ag
    f = ag.function(stepped_ranges, backend=backend)
    for n, m in ((50, -3), (0, 0), (-7, 2), (2, -9), (101, 1), (4200, 2 ** 40)):
        assert f(n, m) == stepped_ranges(n, m), (n, m)
    with pytest.raises(OverflowError, match="too large for a graph"):
        f(4200, 2 ** 53)   # (Python gives the exact big int: a graph refuses)
    if backend == "numba":
        source = f.get_concrete_function(50, 3).executable.source
        assert source.count("float(") == 4 and source.count("GraphFail") == 2, source


def index_arithmetic(a, n):
    total = 0
    k = 0
    for i in range(1, a.shape[0] + 1):
        total += a[i - 1] * (i - 1) + a[(i - 1) // 2]
        if a[i - 1] > n:
            total += (k + 1) * 3      # (computed in a branch: not there after it)
        else:
            total -= i - 1
        total += (k + 1) * (i - 1)
        k += 1
    while k > n:
        total += k * 2                # (reads a loop variable the loop rebinds)
        k -= 3
    return total + k * 2 + (a.shape[0] + 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_common_scalar_expressions_are_computed_once(backend):
    # Numba types every local it is given: `i - 1` once per iteration, not once per use
    # (compile time: tools/bench_compile.py). Not across a branch's end nor from a loop's
    # body after it, where the names they read hold other values.
    import autograph as ag
    f = ag.function(index_arithmetic, backend=backend)
    for a, n in ((np.arange(5), 2), (np.array([3, -1, 4, 1, 5, 9, 2, 6]), 3),
                 (np.array([7]), 0), (np.zeros(0, np.int64), -4), (np.arange(9), -20)):
        assert f(a, n) == index_arithmetic(a, n), (a, n)
    if backend == "numba":
        source = f.get_concrete_function(np.arange(5), 2).executable.source
        body = source[source.index("def run_graph"):]
        assert body.count(" - 1)") == 2, source   # (the range's length, and i - 1)
        assert body.count(" * 2)") == 2, source   # (in the loop, and after it)


def ranges_of_any_length(n, m):
    total = 0
    for i in range(n):
        total += i
    for j in range(m, n):
        total += j * 3
    for k in range(2, m + n):
        total += k
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_ranges_length_is_not_clamped_in_its_loop(backend):
    # range(0, max(0, x)) iterates as range(0, x): the generated `for` goes without the
    # `max` (compile time: tools/bench_compile.py), empty ranges included. The length of
    # range(a, b) goes without a branch (max(b, a) - a: b - a may wrap in int64).
    import autograph as ag
    f = ag.function(ranges_of_any_length, backend=backend)
    for n, m in ((5, 2), (-3, 0), (0, -4), (2, 7), (7, -2), (-6, -1)):
        assert f(n, m) == ranges_of_any_length(n, m), (n, m)
    if backend == "numba":
        source = f.get_concrete_function(5, 2).executable.source
        body = source[source.index("def run_graph"):]
        assert "max(0" not in body and " else " not in body and body.count("for ") == 3, source


def breaks_of_every_kind(x, n):
    total = 0.0
    i = -1
    for i in range(x.shape[0]):   # breaks on the first, the last or no iteration
        if x[i] > n:
            break
        total += x[i]
    total += i                    # (read after the loop that broke)
    k = 0
    while k < n:
        k += 1
        if k * k >= n:            # (after changing k)
            break
    total += k
    found = -1
    for a in range(n):
        for c in range(a):        # (a loop with no break in one with a break)
            total += 0.125
        for b in range(n):
            if a * b > n:         # (breaks the inner loop only, setting found)
                found = a * 100 + b
                break
            total += 0.25
        if found >= 0 and a > 2:  # (breaks the outer loop)
            break
    total += found
    seen = False
    for j in range(x.shape[0]):   # (a bool set in the loop and read only there: no break)
        if seen:
            total += 0.5
        if x[j] > 1:
            seen = True
    p, q = 1, 2
    while q < 100 * n:
        if p > n:
            p, q = q, p           # (loop variables swapped as it breaks)
            break
        p, q = q, p + q
    return total + p * 10 + q


def continues_of_every_kind(x, n):
    total = 0.0
    for i in range(x.shape[0]):   # `if c: continue`, the rest of the body after it
        if x[i] < 0:
            continue
        total += x[i]
    out = np.zeros(n)
    for i in range(n):
        if i % 3 == 0:
            total += 1            # (the branch changes a loop variable: an if/else)
            continue
        elif i % 3 == 1:
            continue
        out[i] = i * 0.5          # (written in place in the rest)
    k = 0
    while k < n:                  # (the counter steps before the continue)
        k += 1
        if k % 2 == 0:
            continue
        total += k
    found = -1
    for j in range(n):            # (beside a break: `while True`, whose counter steps after
        if j % 2 == 1:            # the continue's branch, an if/else)
            continue
        if j * j > n:
            found = j
            break
        total += j
    return total + np.sum(out) + found * 100



@pytest.mark.parametrize("backend", BACKENDS)
def test_a_continue_is_a_continue(backend):
    # `if c: continue` is a `continue` in generated code where the loop variables keep
    # their values in that branch, not an if/else that copies every loop variable (compile
    # time: tools/bench_compile.py); a branch that changes one stays an if/else.
    import autograph as ag
    f = ag.function(continues_of_every_kind, backend=backend)
    for x in (np.array([1.0, -2.0, 3.0]), np.zeros(0), np.array([-1.0])):
        for n in (0, 1, 4, 9, 30):
            assert f(x, n) == continues_of_every_kind(x, n), (x, n)
    if backend == "numba":
        source = f.get_concrete_function(np.zeros(3), 4).executable.source
        assert source.count("continue\n") == 2, source


def search(x, target):
    for i in range(x.shape[0]):
        if x[i] == target:
            return i              # (an early return beside the break)
        if x[i] > target:
            break
    return -1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_break_leaves_the_loop_with_no_flag(backend):
    # `if c: break` is a break in generated code, not a flag carried through an if/else
    # that copies every loop variable (compile time: tools/bench_compile.py); the loop
    # variables read after the loop hold what Python left in them.
    import autograph as ag
    f = ag.function(breaks_of_every_kind, backend=backend)
    for x in (np.array([5.0, 1, 2]), np.array([0.0, 1, 9]), np.array([0.0, 1, 2]), np.zeros(0)):
        for n in (0, 1, 3, 4, 7, 10, 2000):
            assert f(x, n) == breaks_of_every_kind(x, n), (x, n)
    g = ag.function(search, backend=backend)
    for x in (np.array([1.0, 3, 5]), np.zeros(0)):
        for target in (0.0, 1.0, 2.0, 3.0, 5.0, 6.0):
            assert g(x, target) == search(x, target), (x, target)
    if backend == "numba":
        source = f.get_concrete_function(np.zeros(3), 4).executable.source
        body = source[source.index("def run_graph"):]
        assert "(not " not in body and body.count("break") == 10, source
        # (The early return's flag is read after the loop: it stays.)
        source = g.get_concrete_function(np.zeros(3), 4.0).executable.source
        assert source.count("break") == 2, source


def array_loop_variables(x, n):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):   # (the loop variable takes over the new array's local)
        out[i] = x[i] * 2
    for k in range(n):            # (and a loop's after it, and in it)
        for i in range(x.shape[0]):
            out[i] += k
            for j in range(i):
                out[i] += out[j] * 0.5
    base = x * 1.0
    cur = base
    for k in range(n):            # (base, read in the loop too, keeps its own)
        cur = cur + base
    counts = np.zeros(3, dtype=np.int64)
    for k in range(n):            # (an int array, then a float one)
        counts = counts + 0.5
    return out, cur, counts


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_array_loop_variable_takes_over_its_initial_local(backend):
    # No `v5 = v2` before a loop where nothing else reads v2 (Numba increfs and decrefs an
    # array local copied: compile time, tools/bench_compile.py).
    import autograph as ag
    f = ag.function(array_loop_variables, backend=backend)
    for x in (np.array([1.0, -2.0, 3.5]), np.zeros(0), np.arange(6.0)):
        for n in (0, 1, 3):
            _assert_same(array_loop_variables(x, n), f(x, n))
    if backend == "numba":
        source = f.get_concrete_function(np.zeros(3), 2).executable.source
        body = source[source.index("def run_graph"):]
        out = re.search(r"(\w+) = np\.zeros\(\(v", body).group(1)
        assert body.count("%s[" % out) == 6 and not re.search(r"= %s$" % out, body, re.M), \
            source


def jumps_in_an_unrolled_loop_in_a_graph_loop(x, y, n):
    # (fuzz seed 7196, minimised: the four unrolled iterations' break, continue and return
    # flags are some 500 `and`s and `or`s in one loop body)
    for i in range(len(y)):
        for j in range(4):
            if y[0] > 0.5:
                break
            if n > len(y):
                continue
            if j <= y[-1]:
                return x
    return x * 1.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_flags_of_many_jumps_compile_without_a_branch_each(backend):
    # Each `and` of a scalar logical_and was a branch, so a block, for Numba, whose SSA pass
    # walks a chain of blocks one Python call each: RecursionError, a refusal after 30 s.
    import autograph as ag
    f = ag.function(jumps_in_an_unrolled_loop_in_a_graph_loop, backend=backend)
    for y, n in ((np.array([-0.5, 0.5, -0.5, 2.5]), 3), (np.array([-0.5, 0.5, -0.5, -2.5]), 3),
                 (np.array([-0.5, 0.5, -0.5, -2.5]), 5), (np.array([0.7]), 0)):
        x = np.arange(float(y.shape[0]))
        _assert_same(jumps_in_an_unrolled_loop_in_a_graph_loop(x.copy(), y, n), f(x, y, n))
