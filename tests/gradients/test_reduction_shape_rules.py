"""Derivative rules of the reductions, the shape ops and the products (runtime/ops/
reductions.py, shapes.py, linalg.py), checked against central differences.

Each case is an op applied to arguments and weighted by fixed random weights of the
result's shape (`sum(op(*args) * weights)`), so the cotangent reaching the op differs at
every element and a misplaced element (a wrong transpose, a split at the wrong offset)
shows. The wide table runs on the NumPy executor; a few grouped functions run the same
rules on both backends (one Numba compile each). Points where the derivative is a
convention (ties of max/min, the dtype= of a sum) are checked against exact values.
"""

import numpy as np
import pytest

import autograph as ag
from gradcheck import check_grad
from runtime.ops.registry import get

RNG = np.random.RandomState(1234)


def randn(*shape):
    return RNG.randn(*shape)


def nonzero(*shape):
    """Values away from 0 (for cumprod, whose rule divides by x)."""
    return RNG.uniform(0.5, 1.5, shape) * RNG.choice([-1.0, 1.0], shape)


def well_conditioned(*shape):
    return RNG.randn(*shape) + 3 * np.eye(shape[-1])


def weighted(op, *args):
    """The scalar loss sum(op(*args) * weights), weights fixed random values of op's
    result shape."""
    weights = RNG.randn(*np.shape(op(*args)))

    def loss(*a):
        return np.sum(op(*a) * weights)
    return loss


def needs(*names):
    """Skips a case until the ops `names` (other modules' ops that the case goes
    through) have derivative rules."""
    missing = [name for name in names if get(name).vjp is None]
    return pytest.mark.skipif(bool(missing), reason="no derivative rule yet for %s"
                              % ", ".join(missing))


def case(name, op, *args, argnums=None, marks=()):
    argnums = tuple(range(len(args))) if argnums is None else argnums
    return pytest.param(op, args, argnums, id=name, marks=marks)


X3 = randn(2, 3, 4)

REDUCTIONS = [
    case("sum-all", lambda x: np.sum(x), X3),
    case("sum-axis0", lambda x: np.sum(x, axis=0), X3),
    case("sum-axis-1", lambda x: np.sum(x, axis=-1), X3),
    case("sum-axes-keepdims", lambda x: np.sum(x, axis=(0, -1), keepdims=True), X3),
    case("sum-all-keepdims", lambda x: np.sum(x, keepdims=True), X3),
    case("sum-scalar", lambda x: np.sum(x), np.float64(1.5)),
    case("sum-method", lambda x: x.sum(1), X3),
    case("mean-all", lambda x: np.mean(x), X3),
    case("mean-axis1", lambda x: np.mean(x, axis=1), X3),
    case("mean-axes-keepdims", lambda x: np.mean(x, axis=(0, 2), keepdims=True), X3),
    case("mean-vector", lambda x: x.mean(), randn(5)),
    # (An argument's dims are unknown to the trace; a product with a constant's are known,
    # and the rules then take the static paths: literal counts, int slice bounds.)
    case("mean-static-dims", lambda x: np.mean(np.ones((2, 3, 4)) * x, axis=(0, 2)), X3),
    case("max-scalar", lambda x: np.max(x), np.float64(0.3)),
    case("prod-scalar", lambda x: np.prod(x), np.float64(0.3)),
    case("max-all", lambda x: np.max(x), X3),
    case("max-axis1", lambda x: np.max(x, axis=1), X3),
    case("max-axes-keepdims", lambda x: np.max(x, axis=(0, -1), keepdims=True), X3),
    case("min-axis-1", lambda x: np.min(x, axis=-1), X3),
    case("min-axes", lambda x: np.min(x, axis=(0, 2)), X3),
    case("amax-method", lambda x: x.max(0), randn(4, 3)),
    case("prod-all", lambda x: np.prod(x), randn(5)),
    case("prod-axis-1", lambda x: np.prod(x, axis=-1), X3),
    case("prod-axes-keepdims", lambda x: np.prod(x, axis=(0, 1), keepdims=True), X3),
    case("prod-one-zero", lambda x: np.prod(x, axis=1),
         np.array([[1.5, 0.0, -2.0], [0.5, 2.0, 3.0]])),
    case("prod-two-zeros", lambda x: np.prod(x, axis=1),
         np.array([[1.5, 0.0, 0.0], [0.0, 2.0, 3.0]])),
    case("std-all", lambda x: np.std(x), X3),
    case("std-axis1-ddof1", lambda x: np.std(x, axis=1, ddof=1), X3),
    case("std-axes-keepdims", lambda x: np.std(x, axis=(0, 2), keepdims=True), X3),
    case("var-all-ddof1", lambda x: np.var(x, ddof=1), X3),
    case("var-axis-1", lambda x: np.var(x, axis=-1), X3),
    case("var-method-keepdims", lambda x: x.var(axis=0, keepdims=True), X3),
    case("cumsum-flat", lambda x: np.cumsum(x), X3),
    case("cumsum-axis0", lambda x: np.cumsum(x, axis=0), randn(4, 3)),
    case("cumsum-axis-1", lambda x: np.cumsum(x, axis=-1), X3),
    case("cumsum-scalar", lambda x: np.cumsum(x), np.float64(0.5)),
    case("cumprod-flat", lambda x: np.cumprod(x), nonzero(2, 3)),
    case("cumprod-axis1", lambda x: np.cumprod(x, axis=1), nonzero(2, 3, 4)),
    case("cumprod-axis0", lambda x: x.cumprod(0), nonzero(4, 3)),
    # Ints out: no rule needed, the gradient flows around them.
    case("argmax-weights", lambda x: np.sum(x, axis=0) * (np.argmax(x, axis=0) + 1.0),
         randn(4, 3)),
    case("any-all-masks", lambda x: np.sum(x * np.any(x > 0, axis=0) * np.all(x < 2.0)),
         randn(4, 3)),
]

SHAPES = [
    case("reshape-static", lambda x: x.reshape(4, 6), X3),
    case("reshape-minus1", lambda x: np.reshape(x, (-1, 2)), X3),
    case("reshape-dynamic", lambda x: x.reshape(x.shape[0], -1), X3),
    case("reshape-dynamic-all", lambda x: x.reshape(x.shape[2], x.shape[0] * x.shape[1]), X3),
    case("reshape-vector", lambda x: x.reshape(-1), X3),
    case("reshape-static-dims", lambda x: (np.ones((2, 3, 4)) * x).reshape(3, 8), X3),
    case("reshape-from-scalar", lambda x: np.reshape(x, (1, 1)), np.float64(2.0)),
    case("reshape-to-scalar", lambda x: np.reshape(x, ()), randn(1, 1)),
    case("ravel", lambda x: np.ravel(x), X3),
    case("ravel-scalar", lambda x: np.ravel(x), np.float64(2.0)),
    case("flatten", lambda x: x.flatten(), X3),
    case("squeeze-axis", lambda x: np.squeeze(x, axis=1), randn(3, 1, 2)),
    case("squeeze-axes", lambda x: np.squeeze(x, axis=(0, -1)), randn(1, 3, 1)),
    case("expand-dims", lambda x: np.expand_dims(x, 1), X3),
    case("expand-dims-axes", lambda x: np.expand_dims(x, (0, -1)), X3),
    case("expand-dims-newaxis", lambda x: x[:, None], randn(3), marks=needs("get_item")),
    case("transpose", lambda x: np.transpose(x), X3),
    case("transpose-axes", lambda x: np.transpose(x, (2, 0, 1)), X3),
    case("transpose-negative-axes", lambda x: x.transpose(-1, 0, -2), X3),
    case("T", lambda x: x.T, randn(2, 3)),
    case("swapaxes", lambda x: np.swapaxes(x, 0, -1), X3),
    case("swapaxes-method", lambda x: x.swapaxes(1, 2), X3),
    case("concatenate-axis1", lambda a, b, c: np.concatenate([a, b, c], axis=1),
         randn(2, 3), randn(2, 1), randn(2, 4)),
    case("concatenate-axis-1", lambda a, b: np.concatenate((a, b), axis=-1),
         randn(2, 2, 3), randn(2, 2, 2)),
    case("concatenate-axis0", lambda a, b: np.concatenate((a, b)), randn(2, 3), randn(4, 3)),
    case("concatenate-flat", lambda a, b: np.concatenate((a, b), axis=None),
         randn(2, 3), randn(4)),
    case("concatenate-same-twice", lambda a: np.concatenate((a, a * a), axis=0), randn(3, 2)),
    case("concatenate-static-dims", lambda a, b: np.concatenate([np.ones((2, 3)) * a, b, a],
                                                                axis=1),
         randn(2, 3), randn(2, 2)),
    case("concatenate-int-input", lambda a: np.concatenate((a, np.arange(2)), axis=0), randn(3)),
    case("stack", lambda a, b, c: np.stack([a, b, c]), randn(2, 3), randn(2, 3), randn(2, 3)),
    case("stack-axis-1", lambda a, b: np.stack((a, b), axis=-1), randn(2, 3), randn(2, 3)),
    case("stack-axis1", lambda a, b: np.stack((a, b), axis=1), randn(2, 3), randn(2, 3)),
    case("stack-scalars", lambda a, b: np.stack((a, b)), np.float64(1.0), np.float64(2.0)),
    case("vstack", lambda a, b: np.vstack((a, b)), randn(3), randn(2, 3),
         marks=needs("get_item")),
    case("hstack", lambda a, b: np.hstack((a, b)), randn(3), randn(2)),
    case("array-of-tensors", lambda a, b: np.array([a, b * 2.0]), randn(3), randn(3),
         marks=needs("copy")),
    case("append", lambda a, b: np.append(a, b), randn(2, 2), randn(3)),
]

PRODUCTS = [
    case("matmul-vv", lambda a, b: a @ b, randn(3), randn(3)),
    case("matmul-vm", lambda a, b: a @ b, randn(3), randn(3, 2)),
    case("matmul-mv", lambda a, b: a @ b, randn(2, 3), randn(3)),
    case("matmul-mm", lambda a, b: np.matmul(a, b), randn(2, 3), randn(3, 4)),
    case("matmul-batched-m", lambda a, b: a @ b, randn(5, 2, 3), randn(3, 4)),
    case("matmul-v-batched", lambda a, b: a @ b, randn(3), randn(5, 3, 2)),
    case("matmul-batched-v", lambda a, b: a @ b, randn(5, 2, 3), randn(3)),
    case("matmul-broadcast-batch", lambda a, b: a @ b, randn(5, 1, 2, 3), randn(4, 3, 2)),
    case("matmul-broadcast-ones", lambda a, b: a @ b, randn(1, 2, 3), randn(4, 3, 2)),
    case("matmul-transposed", lambda a, b: a.T @ b, randn(3, 2), randn(3, 4)),
    case("dot-vv", lambda a, b: np.dot(a, b), randn(3), randn(3)),
    case("dot-mm", lambda a, b: a.dot(b), randn(2, 3), randn(3, 4)),
    case("dot-mv", lambda a, b: np.dot(a, b), randn(5, 2, 3), randn(3)),
    case("dot-scalar", lambda a, b: np.dot(a, b), np.float64(1.5), randn(2, 3)),
    case("dot-m-stack", lambda a, b: np.dot(a, b), randn(2, 3), randn(4, 3, 5)),
    case("dot-stack-stack", lambda a, b: np.dot(a, b), randn(2, 2, 3), randn(4, 3, 5)),
    case("dot-v-stack", lambda a, b: np.dot(a, b), randn(3), randn(2, 3, 4)),
    case("outer", lambda a, b: np.outer(a, b), randn(3), randn(4)),
    case("outer-flattens", lambda a, b: np.outer(a, b), randn(2, 3), randn(2, 2)),
    case("outer-scalar", lambda a, b: np.outer(a, b), np.float64(2.0), randn(3)),
    # NumPy functions the runtime composes of these ops (runtime/numpy_api):
    case("norm", lambda a: np.linalg.norm(a), randn(2, 3), marks=needs("sqrt")),
    case("norm-axis", lambda a: np.linalg.norm(a, axis=1), randn(2, 3), marks=needs("sqrt")),
    case("average-weights", lambda a, w: np.average(a, axis=1, weights=w), randn(2, 3),
         RNG.uniform(0.5, 1.0, 3), marks=needs("divide")),
    case("inv", lambda a: np.linalg.inv(a), well_conditioned(3, 3)),
    case("inv-stack", lambda a: np.linalg.inv(a), well_conditioned(2, 3, 3)),
    case("det", lambda a: np.linalg.det(a), well_conditioned(3, 3)),
    case("det-stack", lambda a: np.linalg.det(a), well_conditioned(2, 3, 3)),
    case("slogdet", lambda a: np.linalg.slogdet(a)[1] + np.linalg.slogdet(a)[0],
         -well_conditioned(3, 3)),
    case("slogdet-stack", lambda a: np.linalg.slogdet(a)[1], well_conditioned(2, 3, 3)),
    case("solve-vector", lambda a, b: np.linalg.solve(a, b), well_conditioned(3, 3), randn(3)),
    case("solve-matrix", lambda a, b: np.linalg.solve(a, b), well_conditioned(3, 3),
         randn(3, 2)),
    case("solve-stack-vector", lambda a, b: np.linalg.solve(a, b),
         well_conditioned(2, 3, 3), randn(3)),
    case("solve-broadcast", lambda a, b: np.linalg.solve(a, b), well_conditioned(1, 3, 3),
         randn(2, 3, 2)),
]


@pytest.mark.parametrize("op, args, argnums", REDUCTIONS + SHAPES + PRODUCTS)
def test_rule_against_central_differences(op, args, argnums):
    check_grad(weighted(op, *args), *args, argnums=argnums, backends=("numpy",))


# --- the same rules on both backends, a few compiles ---------------------------------------------

W2, W6, W35, W342 = randn(3, 4), randn(6), randn(3, 5), randn(3, 4, 2)


# (One representative of each rule's backward ops: a Numba compile takes seconds per op.)

def reductions_together(x):
    return (np.sum(np.mean(x, axis=1) * W2[:, 0])
            + np.sum(np.max(x, axis=(0, 1), keepdims=True) * W2[:1, :1])
            + np.sum(np.prod(x, axis=-1) * W2[:, 1]) + np.sum(np.std(x, axis=0, ddof=1) * W2[0])
            + np.sum(np.cumsum(x, axis=1) * W2) + np.sum(np.cumprod(x) * W2.ravel()))


def shapes_together(x, y):
    # (Ranks up to 3, operands of equal ranks: Numba compiles a ufunc on a 4-D and a 3-D
    # array in seconds, per pair of ranks.)
    return (np.sum(x.reshape(x.shape[1], -1) * W2.reshape(4, 3))
            + np.sum(np.transpose(x) * W2.T)
            + np.sum(np.swapaxes(np.squeeze(np.expand_dims(x, 0), 0), 0, 1) * W2.T)
            + np.sum(np.concatenate([x, y], axis=1) * W35)
            + np.sum(np.concatenate([y, x], axis=None) * np.arange(15.0))
            + np.sum(np.stack([x, x * y], axis=-1) * W342))


def products_together(a, b, v):
    return (np.sum((a @ b) * W2) + np.sum((v @ b) * W2[0]) + np.sum((a @ v) * W2[:, 0])
            + np.sum(np.outer(v, v) * W2[:, :3]))


def linalg_together(a, b):
    sign, logdet = np.linalg.slogdet(a)
    return (np.sum(np.linalg.inv(a) * W2[:, :3]) + np.linalg.det(a) * 0.1 + logdet
            + np.sum(np.linalg.solve(a, b) * W2[:, 0]))


@pytest.mark.parametrize("fn, args, argnums", [
    pytest.param(reductions_together, (nonzero(3, 4),), 0, id="reductions"),
    pytest.param(shapes_together, (randn(3, 4), randn(3, 1)), (0, 1), id="shapes"),
    pytest.param(products_together, (randn(3, 3), randn(3, 4), randn(3)), (0, 1, 2),
                 id="products"),
    pytest.param(linalg_together, (well_conditioned(3, 3), randn(3)), (0, 1), id="linalg"),
])
def test_rules_on_both_backends(fn, args, argnums):
    check_grad(fn, *args, argnums=argnums)


def test_float32_gradients_stay_float32():
    """Each rule keeps the input's dtype: no float64 literal widens a float32 cotangent
    (check_grad checks the gradient's dtype is the argument's)."""
    x = randn(3, 4).astype(np.float32)

    def f(x):
        return (np.sum(np.mean(x, axis=0) * W2[0]) + np.max(x) + np.sum(np.std(x, axis=1))
                + np.sum(np.cumsum(x, axis=1) * W2) + np.sum((x.T @ x).reshape(-1))
                + np.sum(np.concatenate([x, x], axis=0) * np.concatenate([W2, W2])))
    expected = check_grad(f, x, rtol=1e-3, atol=1e-4, backends=("numpy",))
    # (On Numba, float32 sums round differently from NumPy's pairwise ones: check_grad's
    # exact value test does not apply; the gradient's dtype and values do.)
    grad = ag.grad(f, backend="numba")(x)
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-5)


# --- conventions: exact values ----------------------------------------------------------------

def ties(x):
    return (np.max(x) + np.sum(np.max(x, axis=1) * np.array([1.0, 10.0, 100.0]))
            + np.sum(np.min(x, axis=0, keepdims=True) * 1000.0))


def test_max_min_ties_split_the_cotangent_equally():
    """JAX's convention: k tied maxima (or minima) each get 1/k of the cotangent."""
    x = np.array([[3.0, 0.0, 3.0, 3.0],
                  [2.0, 2.0, 0.0, 1.0],
                  [3.0, 0.0, -1.0, 0.0]])
    expected = np.zeros_like(x)
    expected[[0, 0, 0, 2], [0, 2, 3, 0]] += 1.0 / 4     # np.max(x): four 3s
    expected[0, [0, 2, 3]] += 1.0 / 3                   # max of row 0: three 3s
    expected[1, [0, 1]] += 10.0 / 2                     # row 1: two 2s
    expected[2, 0] += 100.0                             # row 2: one 3
    expected[1, 0] += 1000.0                            # min of column 0: one 2
    expected[[0, 2], 1] += 1000.0 / 2                   # column 1: two 0s
    expected[2, 2] += 1000.0                            # column 2: one -1
    expected[2, 3] += 1000.0                            # column 3: one 0
    for backend in ("numpy", "numba"):
        grad = ag.grad(ties, backend=backend)(x)
        np.testing.assert_array_equal(grad, expected, err_msg=backend)


def test_sum_with_dtype_gives_the_cotangent_back_in_the_input_dtype():
    x = randn(2, 3)

    def f(x):
        return np.sum(np.sum(x, axis=-1, dtype=np.float32) * np.float32(2.0))
    grad = ag.grad(f, backend="numpy")(x)
    assert grad.dtype == np.float64
    np.testing.assert_array_equal(grad, np.full((2, 3), 2.0))


def test_prod_of_zeros_exact():
    """d prod / d x_i is the product of the other elements, zeros included."""
    x = np.array([[2.0, 0.0, 3.0], [0.0, 5.0, 0.0], [1.0, 2.0, 4.0]])
    grad = ag.grad(lambda x: np.sum(np.prod(x, axis=1)), backend="numpy")(x)
    np.testing.assert_array_equal(grad, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0],
                                         [8.0, 4.0, 2.0]])


# --- second order ------------------------------------------------------------------------------

def through_shapes_and_products(x):
    h = x.reshape(2, 3) @ W2[:, :2]                            # (2, 2)
    h = np.squeeze(np.expand_dims(h, 0), 0).T * h.ravel().reshape(2, 2)
    return np.mean(h * h, axis=1).sum() + np.max(h, axis=0).sum() * np.sum(x) + np.dot(x, x)


def hessian_vector_product(x):
    return np.sum(ag.grad(through_shapes_and_products)(x) * W6)


def test_second_order_through_shapes_and_products():
    check_grad(hessian_vector_product, randn(6))


def test_second_order_of_a_scalar_function():
    """ag.grad(ag.grad(f)) of a scalar x, through reshape, stack-free products and
    reductions (x^2 mean, x^3 via matmul, x^4 via det of a diagonal-like matrix)."""
    def f(x):
        v = np.reshape(x, (1,)) * np.array([1.0, 2.0])        # (2,)
        m = np.expand_dims(v, 1) @ np.expand_dims(v, 0)       # (2, 2) = x^2 [[1, 2], [2, 4]]
        return np.mean(m) + np.sum(v @ m) * x
    d2 = ag.grad(ag.grad(f), backend="numpy")(1.5)
    # f = x^2 (9/4) + x^4 * 15 (v @ m = x^3 [1*1 + 2*2, 1*2 + 2*4] = x^3 [5, 10])
    np.testing.assert_allclose(d2, 2 * 9 / 4 + 12 * 15 * 1.5 ** 2, rtol=1e-12)


# --- complex inputs: JAX's convention --------------------------------------------------------

def complex_numeric_grad(f, z, eps=1e-6):
    """JAX's gradient of a real f at complex z: df/dRe z - i df/dIm z, by central
    differences."""
    grad = np.zeros_like(z)
    for i in np.ndindex(z.shape):
        for step, part in ((1.0, 1.0), (1j, -1j)):
            up, down = z.copy(), z.copy()
            up[i] += eps * step
            down[i] -= eps * step
            grad[i] += part * (f(up) - f(down)) / (2 * eps)
    return grad


def complex_losses(a):
    sign, logdet = np.linalg.slogdet(a)
    return (np.real(sign * (0.7 - 0.4j)) + logdet + np.real(np.linalg.det(a) * 0.3j)
            + np.var(a, axis=0).sum() + np.std(a, ddof=1) + np.real(np.sum(np.prod(a, axis=1)))
            + np.real(np.sum(np.linalg.inv(a) @ a.T * (1.0 + 2.0j))))


@needs("real")
def test_complex_inputs_follow_jax_convention():
    a = randn(3, 3) + 1j * randn(3, 3) + 3 * np.eye(3)
    grad = ag.grad(complex_losses, backend="numpy")(a)
    np.testing.assert_allclose(grad, complex_numeric_grad(complex_losses, a), rtol=1e-6,
                               atol=1e-7)
