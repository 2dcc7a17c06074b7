"""Ops on symbolic tensors give exactly what NumPy gives (values, dtypes, errors)."""

import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(5)
I = np.array([3, -2, 7, 0, 5], dtype=np.int64)
B = np.array([True, False, True, True, False])


# --- elementwise --------------------------------------------------------------------------

BINARY_UFUNCS = [np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.remainder,
                 np.power, np.maximum, np.minimum, np.fmax, np.fmin, np.arctan2, np.hypot,
                 np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
                 np.logical_and, np.logical_or, np.logical_xor, np.copysign, np.nextafter]
UNARY_UFUNCS = [np.negative, np.positive, np.absolute, np.sign, np.floor, np.ceil, np.rint,
                np.trunc, np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p,
                np.sqrt, np.cbrt, np.square, np.reciprocal, np.sin, np.cos, np.tan, np.arcsin,
                np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh,
                np.arctanh, np.isnan, np.isinf, np.isfinite, np.logical_not, np.signbit,
                np.deg2rad, np.rad2deg]
INT_UFUNCS = [np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift,
              np.gcd, np.lcm]


@pytest.mark.parametrize("ufunc", BINARY_UFUNCS, ids=lambda u: u.__name__)
def test_binary_ufuncs_match_numpy(both, ufunc):
    with np.errstate(all="ignore"):
        both(lambda a, b: ufunc(a, b), X, V[:4])
        both(lambda a: ufunc(a, 2.5), X)


@pytest.mark.parametrize("ufunc", UNARY_UFUNCS, ids=lambda u: u.__name__)
def test_unary_ufuncs_match_numpy(both, ufunc):
    with np.errstate(all="ignore"):
        both(lambda a: ufunc(a), X)
        both(lambda a: ufunc(a[1, 2]), X)


@pytest.mark.parametrize("ufunc", INT_UFUNCS + [np.invert], ids=lambda u: u.__name__)
def test_integer_ufuncs_match_numpy(both, ufunc):
    a = np.array([5, 12, 7, 3], dtype=np.int64)
    if ufunc.nin == 1:
        both(lambda a: ufunc(a), a)
    else:
        both(lambda a, b: ufunc(a, b), a, np.array([3, 2, 1, 2], dtype=np.int32))


def test_every_numpy_ufunc_is_an_op():
    names = {name for name in dir(np) if isinstance(getattr(np, name), np.ufunc)
             and getattr(np, name).signature is None}
    for name in names:
        assert getattr(np, name).__name__ in ops.REGISTRY, name


def test_divmod_and_two_output_ufuncs(both):
    both(lambda a: divmod(a, 0.7), X)
    both(lambda a: np.modf(a), X)
    both(lambda a: np.frexp(a), X)


def test_python_operators_and_reflected_forms(both):
    def f(a, b):
        return (a + b, 1 + a, a - 2, 3 - a, a * b, 2 * a, a / b, 1 / a, a // b, 7 // b,
                a % b, 5 % b, a ** 2, 2 ** a, -a, +a, abs(a), a < b, 1 < a, a >= b, a == b,
                a != 1, a @ b.T)
    with np.errstate(all="ignore"):
        both(f, X, X[::-1] + 0.5)


def test_bitwise_operators(both):
    def f(a, b):
        return a & b, a | 3, 6 ^ a, ~a, a << 2, a >> b, 1 << b
    both(f, np.array([1, 6, 9], dtype=np.int32), np.array([2, 1, 0], dtype=np.int64))
    both(lambda a, b: (a & b, a | b, a ^ b, ~a), B, B[::-1].copy())


def test_where_clip_round(both):
    both(lambda x: np.where(x > 0, x, 0.0), X)
    both(lambda x: np.where(x > 0, 1, 2), X)
    both(lambda x: np.clip(x, -0.5, 0.5), X)
    both(lambda x: np.clip(x, None, 0.5), X)
    both(lambda x: np.clip(x, -0.2, None), X)
    both(lambda x: x.clip(-0.5, 0.5), X)
    both(lambda x: np.round(x * 10, 1), X)
    both(lambda x: np.round(x), X)
    both(lambda x: round(x[0, 0] * 10), X)
    both(lambda x: round(x[0, 0] * 10, 2), X)


# --- NEP 50 promotion ---------------------------------------------------------------------

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16, np.float32,
          np.float64, np.complex64]
SCALARS = [True, 1, -1, 300, 1.5, 1e300, 2j]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_array_with_array_promotion_matches_numpy(both, dtype):
    a = np.arange(1, 4).astype(dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for other in DTYPES:
            b = np.arange(2, 5).astype(other)
            both(lambda a, b: (a + b, a * b, a / b, a < b), a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_python_scalars_are_weak(both, dtype):
    a = np.arange(1, 4).astype(dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for scalar in SCALARS:
            both(lambda a, s: (a + s, s * a, a > s), a, scalar)


def test_python_numbers_compare_with_float_arrays_in_their_dtype(both):
    # (0.2 as float32 is 0.2f, 16777217 is 16777216.0f: NumPy compares those.)
    a = np.array([0.2, 16777216.0, -1.0], np.float32)
    both(lambda a, s, n: (a <= s, a == s, a > s, a == n, a < n, s >= a), a, 0.2, 16777217)
    both(lambda a: (a <= a.shape[0] * 5592406 - 1, a.shape[0] * 5592406 - 1 == a), a)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpy_scalars_are_strong(both, dtype):
    a = np.arange(1, 4).astype(np.float32)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(lambda a, s: (a + s, s - a), a, np.dtype(dtype).type(1))
        both(lambda a, s: a[0] + s, a, np.dtype(dtype).type(1))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_python_ints_a_graph_holds_are_weak(both, dtype):
    # (x.shape[0] is a Python int in Python, a graph value in the graph: NEP 50 all the same.)
    a = np.arange(1, 4).astype(dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(lambda a: (a + a.shape[0], a.shape[0] * a, a / a.shape[0], a - a.shape[0] * 2,
                        np.multiply(a, a.shape[0]), np.add(a.shape[0], a), a > a.shape[0]), a)
        both(lambda a: a[0] * a.shape[0], a)


def test_python_int_a_graph_holds_out_of_range_raises_like_numpy(both):
    both(lambda a: a + a.shape[0] * 100, np.arange(3, dtype=np.int8))
    both(lambda a: a + a.shape[0] * 100, np.arange(1, dtype=np.int8))
    with pytest.raises(OverflowError):
        rt.function(lambda a: a * (a.shape[0] * 100))(np.arange(3, dtype=np.int8))


def test_python_int_out_of_range_raises_like_numpy(both):
    both(lambda a: a + 1000, np.arange(3, dtype=np.int8))
    both(lambda a: a - -1, np.arange(3, dtype=np.uint8))
    with pytest.raises(OverflowError):
        rt.function(lambda a: a + 1000)(np.arange(3, dtype=np.int8))


# --- reductions ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "prod", "mean", "min", "max", "any", "all", "std", "var"])
def test_reductions_with_axis_and_keepdims(both, name):
    fn = getattr(np, name)
    both(lambda x: fn(x), X)
    both(lambda x: (fn(x, axis=0), fn(x, axis=1), fn(x, axis=-1)), X)
    both(lambda x: (fn(x, axis=0, keepdims=True), fn(x, axis=(0, 1), keepdims=True)), X)
    both(lambda x: getattr(x, name)(axis=1), X)
    both(lambda x: fn(x > 0, axis=0), X)
    both(lambda x: fn(x.astype(np.int8), axis=0), X * 3)


def test_reduction_dtype_argument(both):
    both(lambda x: np.sum(x, dtype=np.float32), X)
    both(lambda x: x.sum(axis=0, dtype=np.int64), np.arange(6, dtype=np.int8).reshape(2, 3))
    both(lambda x: np.mean(x, dtype=np.float32, axis=1), X)


def test_arg_and_cumulative_reductions(both):
    both(lambda x: (np.argmin(x), np.argmax(x, axis=0), np.argmax(x, axis=1, keepdims=True)), X)
    both(lambda x: (x.argmax(), x.argmin(axis=1)), X)
    both(lambda x: (np.cumsum(x), np.cumsum(x, axis=0), np.cumprod(x, axis=1)), X)
    both(lambda x: x.cumsum(axis=1, dtype=np.float32), X)
    both(lambda x: np.add.reduce(x, axis=1), X)
    both(lambda x: np.add.accumulate(x), X)


def test_reduction_errors_match_numpy(both):
    both(lambda x: np.sum(x, axis=2), X)
    both(lambda x: np.max(x[0:0]), X)
    with pytest.raises(np.exceptions.AxisError):
        rt.function(lambda x: np.sum(x, axis=2))(X)


# --- products -----------------------------------------------------------------------------

def test_dot_matmul_outer(both):
    a, b = X, RNG.standard_normal((4, 2))
    both(lambda a, b: (np.dot(a, b), a @ b, np.matmul(a, b), a.dot(b)), a, b)
    both(lambda a, v: (a @ v, v @ a.T, np.dot(v, v), np.dot(a, 2.0)), a, V[:4])
    both(lambda u, v: np.outer(u, v), V, V[:3])
    batch = RNG.standard_normal((2, 3, 4))
    both(lambda a, b: a @ b, batch, b)
    both(lambda a, b: a @ b, a.astype(np.int64), b.astype(np.int32))


def test_matmul_shape_mismatch_raises(both):
    both(lambda a, b: a @ b, X, X)


# --- shapes -------------------------------------------------------------------------------

def test_reshape_transpose_and_friends(both):
    both(lambda x: (x.reshape(4, 3), x.reshape((2, -1)), np.reshape(x, (-1,)), x.reshape(-1, 2)), X)
    both(lambda x: (x.T, np.transpose(x), x.transpose(1, 0), np.swapaxes(x, 0, 1)), X)
    both(lambda x: (np.expand_dims(x, 0), np.expand_dims(x, -1), np.expand_dims(x, (0, 2))), X)
    both(lambda x: (np.squeeze(x[:1], 0), np.squeeze(x[:, :1], axis=1), x[None].squeeze(0)), X)
    both(lambda x: (np.ravel(x), x.ravel(), x.flatten()), X)
    both(lambda x: x.reshape(5, 3), X)


def test_squeeze_without_axis_needs_known_dims():
    with pytest.raises(TypeError, match="pass axis="):
        rt.function(lambda x: np.squeeze(x))(X[:1])
    spec = [rt.TensorSpec((1, 4), np.float64)]
    np.testing.assert_array_equal(rt.function(np.squeeze, input_signature=spec)(X[:1]), X[0])


def test_reshape_with_symbolic_dims():
    @rt.function
    def f(x):
        n = x.shape[0]
        return x.reshape(n, 2, -1)
    x = np.arange(24.0).reshape(4, 6)
    np.testing.assert_array_equal(f(x), x.reshape(4, 2, -1))
    assert f.get_concrete_function(x).outputs[0].shape == (None, 2, None)


def test_concatenate_and_stack(both):
    both(lambda a, b: (np.concatenate([a, b]), np.concatenate((a, b), axis=1),
                       np.concatenate([a, b], axis=None)), X, X * 2)
    both(lambda a, b: (np.stack([a, b]), np.stack([a, b], axis=1), np.stack([a, b], axis=-1)),
         X, X * 2)
    both(lambda a, b: np.concatenate([a, b]), X, V)
    both(lambda a, b: np.concatenate([a, b.astype(np.int32)]), V, I)
    both(lambda a: np.concatenate([a, np.ones(2)]), V)


def test_shape_queries():
    shapes = []

    @rt.function
    def f(x):
        shapes.append((x.shape[1], np.shape(x)[1], x.ndim, np.ndim(x), x.static_shape))
        return x.shape[0] * 1, x.size, np.size(x)

    assert f(X) == (3, 12, 12)
    assert shapes[0][2:] == (2, 2, (None, None))
    assert all(rt.is_tensor(s) and s.dtype == np.int64 for s in shapes[0][:2])

    @rt.function(input_signature=[rt.TensorSpec((3, 4), np.float64)])
    def g(x):
        shapes.append(x.shape)
        return x.size
    assert g(X) == 12
    assert shapes[-1] == (3, 4)


# --- creation -----------------------------------------------------------------------------

def test_creation_like(both):
    both(lambda x: (np.zeros_like(x), np.ones_like(x, dtype=np.int32), np.full_like(x, 7),
                    np.full_like(x, 2.5, dtype=np.float32), np.empty_like(x).shape), X)


def test_creation_with_symbolic_dims():
    @rt.function
    def f(x):
        n = x.shape[0]
        return (rt.zeros((n, 2)), rt.ones(n, dtype=np.int32), rt.full((2, n), 3),
                rt.empty((n,)).shape[0], rt.arange(n), rt.arange(1, n, 2, dtype=np.float32),
                rt.linspace(0.0, 1.0, n), np.linspace(x[0], x[-1], 4), rt.range(n))
    x = np.arange(5.0)
    got = f(x)
    expected = (np.zeros((5, 2)), np.ones(5, np.int32), np.full((2, 5), 3), 5, np.arange(5),
                np.arange(1, 5, 2, dtype=np.float32), np.linspace(0.0, 1.0, 5),
                np.linspace(0.0, 4.0, 4), np.arange(5))
    for e, a in zip(expected, got):
        np.testing.assert_array_equal(a, e)
        assert np.asarray(a).dtype == np.asarray(e).dtype


def test_creation_is_eager_outside_a_trace():
    assert isinstance(rt.zeros((2, 3)), np.ndarray)
    assert rt.full(3, 2.0).dtype == np.float64
    assert rt.range(3) == range(3)
    np.testing.assert_array_equal(rt.range(0, 3, dtype=np.float32), np.arange(3, dtype=np.float32))
    assert rt.constant([1, 2]).dtype == np.int64


def test_astype_and_cast(both):
    both(lambda x: (x.astype(np.int32), x.astype(np.float32), x.astype(bool), rt.cast(x, np.int8)),
         X * 10)
    both(lambda x: x[0, 0].astype(np.int64), X * 10)


# --- unsupported functions ------------------------------------------------------------------

@pytest.mark.parametrize("fn,name", [
    (lambda x: np.fft.fft(x), "np.fft.fft"),
    (lambda x: np.polyfit(x[0], x[1], 2), "np.polyfit"),
    (lambda x: np.apply_along_axis(np.sum, 0, x), "np.apply_along_axis"),
    (lambda x: np.add.reduceat(x, [0, 1]), "np.add.reduceat"),
    (lambda x: np.sum(x, initial=x[0]), "np.sum(..., initial=)"),
    (lambda x: np.i0(x), "np.i0"),
    (lambda x: np.mean(x, axis=0, out=x[0]), "np.mean(..., out=)"),
])
def test_unsupported_numpy_functions_raise_type_error(fn, name):
    with pytest.raises(TypeError, match="%s.* is not supported in graphs yet" % name.replace(
            "(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        rt.function(fn)(X)


def test_asarray_of_a_tensor_says_what_to_do():
    with pytest.raises(TypeError, match="cannot be converted to a NumPy array"):
        rt.function(lambda x: np.asarray(x))(X)
