"""Derivative rules of the elementwise ops (runtime/ops/elementwise.py, cast and copy in
core.py, real and imag in complex.py).

Every op with a rule is checked against central differences (gradcheck.check_grad: plain
Python's value, float64 differences) with several shapes, broadcasting included, where it
is smooth: the wide tables on the NumPy executor, then the same ops grouped into a few
functions on both executors (each Numba compile takes seconds). Points where a derivative
is undefined (ties, kinks, zeros of |x|) are checked with exact values, float32 inputs
give float32 gradients computed in float32, and the rules differentiate again (second
order).
"""

import inspect
import math

import numpy as np
import pytest

import autograph as ag
from runtime import autodiff

from gradcheck import check_grad

NUMPY = ("numpy",)
BACKENDS = ("numpy", "numba")


def draw(shape, low, high, signed=False, seed=0):
    """Uniform values in [low, high] (and their negatives when `signed`), a Python float
    for shape ()."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(low, high, shape)
    if signed:
        values = values * rng.choice([-1.0, 1.0], shape)
    return float(values) if shape == () else values


def weights(shape):
    """A cotangent that is not all ones (a transposed or misplaced gradient shows)."""
    return np.linspace(0.5, 1.5, int(np.prod(shape, dtype=int))).reshape(shape)


# --- one input ----------------------------------------------------------------------------------

# (name, function, low, high, signed): x drawn from [low, high] (and its negatives).
UNARY = [
    ("positive", np.positive, 0.1, 2.0, True),
    ("negative", np.negative, 0.1, 2.0, True),
    ("negative operator", lambda x: -x, 0.1, 2.0, True),
    ("square", np.square, 0.1, 2.0, True),
    ("sqrt", np.sqrt, 0.2, 3.0, False),
    ("cbrt", np.cbrt, 0.2, 3.0, True),
    ("reciprocal", np.reciprocal, 0.5, 2.0, True),
    ("exp", np.exp, -2.0, 2.0, False),
    ("exp2", np.exp2, -2.0, 2.0, False),
    ("expm1", np.expm1, -2.0, 2.0, False),
    ("log", np.log, 0.2, 3.0, False),
    ("log2", np.log2, 0.2, 3.0, False),
    ("log10", np.log10, 0.2, 3.0, False),
    ("log1p", np.log1p, -0.5, 3.0, False),
    ("sin", np.sin, -3.0, 3.0, False),
    ("cos", np.cos, -3.0, 3.0, False),
    ("tan", np.tan, -1.2, 1.2, False),
    ("arcsin", np.arcsin, -0.9, 0.9, False),
    ("arccos", np.arccos, -0.9, 0.9, False),
    ("arctan", np.arctan, -3.0, 3.0, False),
    ("sinh", np.sinh, -2.0, 2.0, False),
    ("cosh", np.cosh, -2.0, 2.0, False),
    ("tanh", np.tanh, -2.0, 2.0, False),
    ("arcsinh", np.arcsinh, -3.0, 3.0, False),
    ("arccosh", np.arccosh, 1.2, 4.0, False),
    ("arctanh", np.arctanh, -0.9, 0.9, False),
    ("absolute", np.absolute, 0.1, 2.0, True),
    ("abs builtin", abs, 0.1, 2.0, True),
    ("fabs", np.fabs, 0.1, 2.0, True),
    ("conjugate", np.conj, 0.1, 2.0, True),
    ("deg2rad", np.deg2rad, 1.0, 90.0, True),
    ("radians", np.radians, 1.0, 90.0, True),
    ("rad2deg", np.rad2deg, 0.1, 2.0, True),
    ("degrees", np.degrees, 0.1, 2.0, True),
    # Piecewise constant (zero gradient), away from their jumps.
    ("sign", np.sign, 0.1, 2.0, True),
    ("floor", np.floor, 0.1, 0.9, True),
    ("ceil", np.ceil, 0.1, 0.9, True),
    ("trunc", np.trunc, 0.1, 0.9, True),
    ("rint", np.rint, 0.1, 0.4, True),
    ("round", lambda x: np.round(x, 1), 0.11, 0.14, True),
    # Ops of the graph that are not ufuncs.
    ("copy", np.copy, 0.1, 2.0, True),
    ("where", lambda x: np.where(x > 0, x * x, -x), 0.1, 2.0, True),
    ("clip", lambda x: np.clip(x, -1.0, 1.0), 0.1, 2.0, True),
    ("clip low", lambda x: np.clip(x, -1.0, None), 0.1, 2.0, True),
    ("clip high", lambda x: np.clip(x, None, 1.0), 0.1, 2.0, True),
]

SHAPES = [(), (3,), (2, 3)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name, fn, low, high, signed", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, fn, low, high, signed, shape):
    w = weights(shape)

    def loss(x):
        return np.sum(fn(x) * w)

    check_grad(loss, draw(shape, low, high, seed=len(name), signed=signed), backends=NUMPY)


def test_cast_gives_the_gradient_in_the_input_dtype():
    def loss(x):
        return np.sum(x.astype(np.float32) ** 2)

    x = np.array([0.5, -1.25, 2.0])
    # (Steps of 2**-10: x, x +- step and their squares are exact in float32.)
    check_grad(loss, x, rtol=1e-6, eps=2.0 ** -10)


def test_cast_to_int_gives_no_gradient():
    def loss(x):
        return np.sum(x.astype(np.int64) * 1.0 + x * x)

    check_grad(loss, np.array([0.4, -1.6, 2.2]), backends=NUMPY)


# Python's math module on a scalar (op math_call): the rule of the matching ufunc.
MATH = [
    ("sqrt", 0.2, 3.0), ("exp", -2.0, 2.0), ("log", 0.2, 3.0), ("log2", 0.2, 3.0),
    ("log10", 0.2, 3.0), ("log1p", -0.5, 3.0), ("expm1", -2.0, 2.0), ("sin", -3.0, 3.0),
    ("cos", -3.0, 3.0), ("tan", -1.2, 1.2), ("asin", -0.9, 0.9), ("acos", -0.9, 0.9),
    ("atan", -3.0, 3.0), ("sinh", -2.0, 2.0), ("cosh", -2.0, 2.0), ("tanh", -2.0, 2.0),
    ("fabs", -2.0, -0.1),
]


@pytest.mark.parametrize("name, low, high", MATH, ids=[m[0] for m in MATH])
def test_math_module(name, low, high):
    function = getattr(math, name)

    def loss(x):
        return function(x) * 1.5

    check_grad(loss, draw((), low, high, seed=len(name)), backends=NUMPY)


def test_python_round_and_math_floor_give_zero_gradients():
    def loss(x):
        return round(x, 1) + math.floor(x) + x

    assert ag.grad(loss, backend="numpy")(2.37) == 1.0


# --- two inputs, with broadcasting -------------------------------------------------------------

def _apart(a, b):
    return np.abs(a - b) > 0.1


def _fraction_inside(a, b):
    fraction = np.mod(a / b, 1.0)
    return (fraction > 0.05) & (fraction < 0.95)


def _off_origin(a, b):
    return a * a + b * b > 0.1


# (name, function, (low, high, signed) of x, of y, condition on x and y or None)
BINARY = [
    ("add", np.add, (0.1, 2, True), (0.1, 2, True), None),
    ("subtract", np.subtract, (0.1, 2, True), (0.1, 2, True), None),
    ("multiply", np.multiply, (0.1, 2, True), (0.1, 2, True), None),
    ("divide", np.divide, (0.1, 2, True), (0.5, 2, True), None),
    ("power", np.power, (0.3, 2, False), (0.1, 2, True), None),
    ("power operator", lambda a, b: a ** b, (0.3, 2, False), (0.1, 2, True), None),
    ("float_power", np.float_power, (0.3, 2, False), (0.1, 2, True), None),
    ("arctan2", np.arctan2, (0.1, 2, True), (0.1, 2, True), _off_origin),
    ("hypot", np.hypot, (0.1, 2, True), (0.1, 2, True), _off_origin),
    ("logaddexp", np.logaddexp, (0.1, 3, True), (0.1, 3, True), None),
    ("logaddexp2", np.logaddexp2, (0.1, 3, True), (0.1, 3, True), None),
    ("maximum", np.maximum, (0.1, 2, True), (0.1, 2, True), _apart),
    ("minimum", np.minimum, (0.1, 2, True), (0.1, 2, True), _apart),
    ("fmax", np.fmax, (0.1, 2, True), (0.1, 2, True), _apart),
    ("fmin", np.fmin, (0.1, 2, True), (0.1, 2, True), _apart),
    ("clip low array", lambda a, b: np.clip(a, b, None), (0.1, 2, True), (0.1, 2, True),
     _apart),
    ("clip high array", lambda a, b: np.clip(a, None, b), (0.1, 2, True), (0.1, 2, True),
     _apart),
    ("copysign", np.copysign, (0.1, 2, True), (0.1, 2, True), None),
    ("remainder", np.remainder, (0.1, 4, True), (0.3, 1.5, True), _fraction_inside),
    ("remainder operator", lambda a, b: a % b, (0.1, 4, True), (0.3, 1.5, True),
     _fraction_inside),
    ("fmod", np.fmod, (0.1, 4, True), (0.3, 1.5, True), _fraction_inside),
    ("floor_divide", lambda a, b: a // b + a, (0.1, 4, True), (0.3, 1.5, True),
     _fraction_inside),
    ("where", lambda a, b: np.where(a > b, a * b, b - a), (0.1, 2, True), (0.1, 2, True),
     _apart),
]

PAIRS = [((2, 3), (2, 3)), ((3,), (2, 3)), ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), ())]


def draw_pair(x_shape, y_shape, x_domain, y_domain, condition, seed):
    """x and y from their domains where `condition` holds everywhere on their broadcast."""
    for attempt in range(200):
        x = draw(x_shape, *x_domain, seed=seed + 1000 * attempt)
        y = draw(y_shape, *y_domain, seed=seed + 1000 * attempt + 1)
        if condition is None or np.all(condition(np.asarray(x), np.asarray(y))):
            return x, y
    raise AssertionError("no draw satisfies the condition")


@pytest.mark.parametrize("shapes", PAIRS, ids=str)
@pytest.mark.parametrize("name, fn, x_domain, y_domain, condition", BINARY,
                         ids=[b[0] for b in BINARY])
def test_binary(name, fn, x_domain, y_domain, condition, shapes):
    out_shape = np.broadcast_shapes(*shapes)
    w = weights(out_shape)

    def loss(x, y):
        return np.sum(fn(x, y) * w)

    x, y = draw_pair(*shapes, x_domain, y_domain, condition, seed=len(name))
    check_grad(loss, x, y, argnums=(0, 1), backends=NUMPY)


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 1), (1, 3)), ((3,), ())], ids=str)
def test_clip_with_array_bounds(shapes):
    x_shape, bound_shape = shapes

    def loss(x, low, high):
        return np.sum(np.clip(x, low, high) * weights(np.broadcast_shapes(x_shape, bound_shape)))

    x = draw(x_shape, 0.0, 3.0, seed=3)
    for seed in range(100):
        low = draw(bound_shape, 0.0, 1.0, seed=seed)
        high = draw(bound_shape, 2.0, 3.0, seed=seed + 1)
        if np.all(_apart(x, np.asarray(low))) and np.all(_apart(x, np.asarray(high))):
            break
    check_grad(loss, x, low, high, argnums=(0, 1, 2), backends=NUMPY)


def test_heaviside_passes_the_gradient_to_h0_where_x_is_zero():
    def loss(x, h0):
        return np.sum(np.heaviside(x, h0) * weights((2, 3)))

    x = np.array([[-1.0, 0.0, 2.0], [0.0, 3.0, -0.5]])
    h0 = np.array([0.5, 0.25, 0.75])
    check_grad(loss, x, h0, argnums=1, backends=NUMPY)
    gx, gh0 = grad_of(loss, x, h0, argnums=(0, 1))
    w = weights((2, 3))
    np.testing.assert_array_equal(gx, np.zeros((2, 3)))   # (a step: 0 at x = 0 too)
    np.testing.assert_array_equal(gh0, [w[1, 0], w[0, 1], 0.0])


def test_ldexp_frexp_and_modf():
    exponents = np.array([-1, 0, 3])

    def loss(x):
        fraction, integral = np.modf(x)
        mantissa, exponent = np.frexp(x * x)
        return np.sum(np.ldexp(x, exponents) + fraction * 2.0 + integral + mantissa * exponent)

    check_grad(loss, np.array([0.3, -1.6, 2.25]), backends=NUMPY)


def test_mixed_float32_and_float64_operands():
    w = np.array([[0.5, 1.0, 1.5]])

    def loss(x, y):
        return np.sum(np.maximum(x, y) * w + x / y)

    x = np.array([0.25, -0.5, 2.0], np.float32)
    y = np.array([[1.5], [-1.0]])
    gx, gy = ag.grad(loss, argnums=(0, 1), backend="numpy")(x, y)
    assert gx.dtype == np.float32 and gy.dtype == np.float64
    x64 = x.astype(np.float64)
    expected = ag.grad(loss, argnums=(0, 1), backend="numpy")(x64, y)
    np.testing.assert_allclose(gx, expected[0], rtol=1e-6)
    np.testing.assert_allclose(gy, expected[1], rtol=1e-6)


# --- complex values in between (JAX's convention) ------------------------------------------------

def complex_mix(x, y):
    z = np.exp(1j * x) * y + x / (2.0 + 1j * y)
    s = np.sign(z)
    return (np.sum(np.abs(z) ** 2 + np.real(np.conj(z) * s) + np.imag(np.sqrt(z) * np.log(z)))
            + np.sum(np.real(np.sin(z) + np.tanh(z) - z ** 2.5)))


def test_complex_intermediates():
    x = np.array([0.3, -0.8, 1.2])
    y = np.array([[0.7], [1.4]])
    check_grad(complex_mix, x, y, argnums=(0, 1))


def test_complex_from_python_parts():
    def loss(a, b):
        return abs(complex(a, b)) + (complex(a, b) * complex(b, a)).imag

    check_grad(loss, 0.6, -1.3, argnums=(0, 1), backends=NUMPY)


# --- undefined derivatives: exact values --------------------------------------------------------

def grad_of(fn, *args, argnums=0, backend="numpy"):
    return ag.grad(fn, argnums=argnums, backend=backend)(*args)


@pytest.mark.parametrize("fn", [np.maximum, np.minimum, np.fmax, np.fmin,
                                lambda a, b: np.clip(a, b, None),
                                lambda a, b: np.clip(a, None, b)],
                         ids=["maximum", "minimum", "fmax", "fmin", "clip_min", "clip_max"])
def test_ties_split_the_gradient_half_and_half(fn):
    def loss(x, y):
        return np.sum(fn(x, y))

    x = np.array([1.0, 2.0, -3.0])
    y = np.array([1.0, 0.0, -3.0])
    gx, gy = grad_of(loss, x, y, argnums=(0, 1))
    picked_x = fn(x, y) == x
    np.testing.assert_array_equal(gx, np.where(x == y, 0.5, np.where(picked_x, 1.0, 0.0)))
    np.testing.assert_array_equal(gx + gy, [1.0, 1.0, 1.0])


def test_clip_at_its_bounds():
    def loss(x):
        return np.sum(np.clip(x, 0.0, 1.0))

    np.testing.assert_array_equal(grad_of(loss, np.array([0.0, 0.5, 1.0, 2.0, -1.0])),
                                  [0.5, 1.0, 0.5, 0.0, 0.0])


def test_maximum_of_nan_gives_zero_gradients():
    def loss(x, y):
        return np.sum(np.maximum(x, y) * 0.0)

    gx, gy = grad_of(loss, np.array([np.nan, 1.0]), np.array([2.0, np.nan]), argnums=(0, 1))
    np.testing.assert_array_equal(gx, [0.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0])


def test_fmax_ignores_a_nan():
    def loss(x, y):
        return np.sum(np.fmax(x, y))

    gx, gy = grad_of(loss, np.array([np.nan, 1.0]), np.array([2.0, np.nan]), argnums=(0, 1))
    np.testing.assert_array_equal(gx, [0.0, 1.0])
    np.testing.assert_array_equal(gy, [1.0, 0.0])


@pytest.mark.parametrize("fn", [np.abs, np.fabs, abs, lambda x: np.copysign(x, 1.0)],
                         ids=["absolute", "fabs", "abs builtin", "copysign"])
def test_absolute_at_zero_is_zero(fn):
    def loss(x):
        return np.sum(fn(x))

    np.testing.assert_array_equal(grad_of(loss, np.array([-1.5, 0.0, -0.0, 2.0])),
                                  [-1.0, 0.0, 0.0, 1.0])


def test_copysign_takes_the_sign_of_its_second_argument():
    def loss(x, y):
        return np.sum(np.copysign(x, y))

    gx, gy = grad_of(loss, np.array([-2.0, 3.0, 1.0]), np.array([1.0, -0.0, -5.0]),
                     argnums=(0, 1))
    np.testing.assert_array_equal(gx, [-1.0, -1.0, -1.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0, 0.0])


def test_hypot_at_the_origin_is_zero():
    def loss(x, y):
        return np.sum(np.hypot(x, y))

    gx, gy = grad_of(loss, np.array([0.0, 3.0]), np.array([0.0, 4.0]), argnums=(0, 1))
    np.testing.assert_allclose(gx, [0.0, 0.6], rtol=1e-15, atol=0)
    np.testing.assert_allclose(gy, [0.0, 0.8], rtol=1e-15, atol=0)


@pytest.mark.filterwarnings("ignore:divide by zero encountered in power")
def test_power_at_zero():
    def loss(x, y):
        return np.sum(x ** y + x ** 0 + x ** 1)

    # d/dx x**0 = 0 (even at x = 0); d/dy 0**y = 0 (log 0 taken as 0); an integer exponent
    # 0 gives 0 for x, not 0 * 0**-1.
    gx, gy = grad_of(loss, np.array([0.0, 0.0, 2.0]), np.array([2.0, 0.5, 3.0]),
                     argnums=(0, 1))
    np.testing.assert_array_equal(gx, [1.0, np.inf, 13.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0, 8.0 * np.log(2.0)])
    gx = grad_of(lambda x, n: np.sum(x ** n), np.array([0.0, 2.0]), np.array([0, 2]))
    np.testing.assert_array_equal(gx, [0.0, 4.0])


def test_sign_of_a_complex_value():
    """sign(z) = z/|z| changes with z's direction, not its length; at 0 its gradient is 0."""
    def loss(x):
        return np.sum(np.imag(np.sign(x * (1.0 + 1.0j) + 0.5j)))

    x = np.array([0.0, 2.0, -1.0])
    check_grad(loss, x, backends=NUMPY)
    assert grad_of(lambda x: np.sum(np.real(np.sign(x * (1.0 + 1.0j)))), x)[0] == 0.0


@pytest.mark.parametrize("fn", [np.sign, np.floor, np.ceil, np.trunc, np.rint,
                                lambda x: np.round(x, 2), lambda x: x // 0.5],
                         ids=["sign", "floor", "ceil", "trunc", "rint", "round",
                              "floor_divide"])
def test_piecewise_constant_ops_have_zero_gradients_at_their_jumps_too(fn):
    def loss(x):
        return np.sum(fn(x) + x)

    np.testing.assert_array_equal(grad_of(loss, np.array([0.0, 0.5, 1.0, -2.0])),
                                  [1.0, 1.0, 1.0, 1.0])


# --- both executors: the ops grouped, a few compiles --------------------------------------------

def unary_mix(x):
    """Most unary rules in one function, x in (0.15, 0.85)."""
    a = (np.sin(x) * np.cos(x) + np.tan(x) + np.exp(x) - np.exp2(x) + np.expm1(x)
         + np.log(x) + np.log2(x) - np.log10(x) + np.log1p(x) + np.sqrt(x) + np.cbrt(x))
    b = (np.arcsin(x) + np.arccos(x) * 2.0 + np.arctan(x) + np.sinh(x) + np.cosh(x)
         + np.tanh(x) + np.arcsinh(x) + np.arccosh(x + 1.5) + np.arctanh(x)
         + np.reciprocal(x) + np.square(x) - np.abs(x - 0.5) + np.fabs(x)
         + np.deg2rad(x) + np.rad2deg(x) + np.conj(x) + np.positive(x) - np.negative(x))
    c = np.floor(x * 3.0) + np.sign(x) + np.rint(x) + np.clip(x, 0.2, 0.7) * np.copy(x)
    return np.sum(a * b + c * x.astype(x.dtype))


def binary_mix(x, y):
    """Most binary rules in one function, x of shape (n, 1) and y of shape (m,) in (0.5, 2)."""
    a = (x + y) * (x - y) / (x * y) + x ** y + (y * 1.1) ** x + np.arctan2(x, y - 1.0)
    b = (np.hypot(x, y) + np.logaddexp(x, y) - np.logaddexp2(x, -y) + np.maximum(x, y)
         + np.minimum(x, y * 0.9) + np.fmax(x, y) + np.fmin(x, y) + np.copysign(x, y - 1.0))
    c = np.where(x > y, x, y * y) + np.remainder(x * 5.0, y) + np.fmod(y * 7.0, x)
    return np.sum(a * b + c)


def math_mix(x):
    """The math module's functions and np.float_power: float64 whatever their input."""
    return (np.float_power(x, 1.7) + np.float_power(2.1, x)
            + math.sqrt(x) + math.exp(x) * math.log(x) + math.sin(x) * math.cos(x)
            + math.tan(x) + math.asin(x) + math.acos(x) + math.atan(x) + math.sinh(x)
            + math.cosh(x) + math.tanh(x) + math.log1p(x) + math.expm1(x) + math.log2(x)
            + math.log10(x) + math.fabs(x - 1.0))


def test_unary_rules_on_both_executors():
    check_grad(unary_mix, np.array([[0.23, 0.41, 0.77], [0.62, 0.18, 0.55]]),
               backends=BACKENDS)


def test_binary_rules_on_both_executors():
    x = np.array([[0.61], [1.37]])
    y = np.array([0.83, 1.91, 1.2])
    check_grad(binary_mix, x, y, argnums=(0, 1), backends=BACKENDS)


def test_math_module_on_both_executors():
    check_grad(math_mix, 0.43, backends=BACKENDS)


# --- float32 ------------------------------------------------------------------------------------

def float32_loss(x, y):
    z = np.tanh(x) * np.exp(-y) + np.sqrt(x * x + 1.0) / (y + 2.0) + x ** 2 + np.log1p(y * y)
    z = np.maximum(z, y * 0.5) + np.clip(z, -1.0, 1.0) + np.where(z > 0.3, z, np.abs(z))
    return np.sum(np.arctan2(z, x + 2.0) + np.logaddexp(z, y) + np.hypot(x, z) * np.sin(y)
                  + 2.0 ** y + 3 ** x)


def _inexact_dtypes_in(graph):
    return {v.dtype for node in graph.walk() for v in node.outputs
            if np.dtype(v.dtype).kind in "fc"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_gradients_are_float32(backend):
    x = np.array([0.3, -0.7, 1.2], np.float32)
    y = np.array([[0.5], [-0.4]], np.float32)
    gx, gy = ag.grad(float32_loss, argnums=(0, 1), backend=backend)(x, y)
    assert gx.dtype == np.float32 and gy.dtype == np.float32
    ex, ey = ag.grad(float32_loss, argnums=(0, 1), backend=backend)(
        x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(gx, ex, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(gy, ey, rtol=2e-5, atol=2e-6)


FLOAT32_CASES = [
    (float32_loss, [(3,), (2, 1)]),
    (unary_mix, [(2, 3)]),
    (binary_mix, [(2, 1), (3,)]),
    (complex_mix, [(3,), (2, 1)]),
]


@pytest.mark.parametrize("fn, shapes", FLOAT32_CASES, ids=[c[0].__name__ for c in FLOAT32_CASES])
def test_float32_gradients_are_computed_in_float32(fn, shapes):
    """No rule widens: the whole gradient graph of float32 inputs is float32 (complex64)."""
    args = [np.full(shape, 0.6, np.float32) for shape in shapes]
    argnums = tuple(range(len(args)))

    @ag.function(backend="numpy")
    def step(*args):
        return ag.value_and_grad(fn, argnums=argnums)(*args)

    value, grads = step(*args)
    assert all(g.dtype == np.float32 for g in grads)
    allowed = {np.dtype(np.float32), np.dtype(np.complex64)}
    assert _inexact_dtypes_in(step.get_concrete_function(*args).graph) <= allowed


# --- second order -------------------------------------------------------------------------------

# (f, f'') of a scalar x, at x = 0.7.
SECOND_ORDER = [
    (lambda x: np.exp(x) * np.sin(x), lambda x: 2 * np.exp(x) * np.cos(x)),
    (lambda x: x ** 3, lambda x: 6 * x),
    (lambda x: np.log(x), lambda x: -1 / x ** 2),
    (lambda x: np.sqrt(x), lambda x: -0.25 * x ** -1.5),
    (lambda x: np.tanh(x), lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    (lambda x: 1.0 / x, lambda x: 2 / x ** 3),
    (lambda x: np.arctan(x), lambda x: -2 * x / (1 + x * x) ** 2),
    (lambda x: np.arcsin(x), lambda x: x / (1 - x * x) ** 1.5),
    (lambda x: np.cos(x) ** 2, lambda x: -2 * np.cos(2 * x)),
    (lambda x: np.logaddexp(x, 2 * x), lambda x: np.exp(x) / (1 + np.exp(x)) ** 2),
    (lambda x: np.hypot(x, 3.0), lambda x: 9 / (x * x + 9) ** 1.5),
    (lambda x: np.maximum(x, 0.5) ** 2, lambda x: 2.0),
    (lambda x: np.where(x > 0, x * x, -x), lambda x: 2.0),
    (lambda x: np.abs(x - 1.0) ** 3, lambda x: 6 * (1 - x)),
    (lambda x: x ** 2.5, lambda x: 3.75 * x ** 0.5),
    (lambda x: np.float_power(x, 3), lambda x: 6 * x),
    (lambda x: np.clip(x * x, 0.0, 1.0), lambda x: 2.0),
    (lambda x: math.exp(x) - math.cos(x), lambda x: np.exp(x) + np.cos(x)),
    (lambda x: np.exp2(x), lambda x: np.log(2) ** 2 * 2 ** x),
    (lambda x: np.cbrt(x), lambda x: -2 / 9 * x ** (-5 / 3)),
]


@pytest.mark.parametrize("index", range(len(SECOND_ORDER)))
def test_second_order(index):
    f, f2 = SECOND_ORDER[index]
    second = ag.grad(ag.grad(f), backend="numpy")(0.7)
    np.testing.assert_allclose(second, f2(0.7), rtol=1e-10, atol=1e-12)


def second_order_mix(x):
    return sum(f(x) for f, _ in SECOND_ORDER)


@pytest.mark.parametrize("backend", BACKENDS)
def test_second_order_of_a_mix_on_both_executors(backend):
    second = ag.grad(ag.grad(second_order_mix), backend=backend)(0.7)
    expected = sum(f2(0.7) for _, f2 in SECOND_ORDER)
    np.testing.assert_allclose(second, expected, rtol=1e-10)


# --- an op without a rule -----------------------------------------------------------------------

def sorted_loss(x):
    return np.sum(np.sort(x) * np.array([1.0, 2.0, 3.0]))


def test_an_op_without_a_rule_is_a_clear_error_at_the_users_line():
    line = inspect.getsourcelines(sorted_loss)[1] + 1
    with pytest.raises(autodiff.NotDifferentiableError) as caught:
        ag.grad(sorted_loss, backend="numpy")(np.array([3.0, 1.0, 2.0]))
    message = str(caught.value)
    assert "op 'sort'" in message
    assert "%s:%d in sorted_loss" % (__file__, line) in message
