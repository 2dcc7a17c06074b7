"""ag.grad and ag.value_and_grad: argument structures, has_aux, wrt= a model's weights, inside
ag.function and on their own, run-eagerly mode, what the loss function does besides
returning the loss (prints, writes), and the refusals."""

import collections
import dataclasses

import numpy as np
import pytest

import autograph as ag
from runtime.autodiff import NotDifferentiableError

P = collections.namedtuple("P", "w b")


@dataclasses.dataclass
class D:
    w: np.ndarray
    b: np.ndarray


X = np.array([1.0, 2.0])
W = np.array([0.5, -0.3])
B = np.array([0.1, 0.2])


def expected_grads(w, b, x):
    """d/dw and d/db of sum(tanh(w * x + b))."""
    s = 1 - np.tanh(w * x + b) ** 2
    return s * x, s


def loss_dict(p, x):
    return np.tanh(p["w"] * x + p["b"]).sum()


def loss_attrs(p, x):
    return np.tanh(p.w * x + p.b).sum()


def loss_nested(p, x):
    return np.tanh(p[0] * x + p[1][0]).sum()


@pytest.mark.parametrize("fn, params, unpack", [
    (loss_dict, {"w": W, "b": B}, lambda g: (g["w"], g["b"])),
    (loss_attrs, P(W, B), lambda g: (g.w, g.b)),
    (loss_attrs, D(W, B), lambda g: (g.w, g.b)),
    (loss_nested, (W, [B]), lambda g: (g[0], g[1][0])),
], ids=["dict", "namedtuple", "dataclass", "tuple-list"])
def test_gradient_has_the_structure_of_the_argument(fn, params, unpack):
    grads = ag.grad(fn, backend="numpy")(params, X)
    assert type(grads) is type(params)
    gw, gb = unpack(grads)
    ew, eb = expected_grads(W, B, X)
    np.testing.assert_allclose(gw, ew, rtol=1e-12)
    np.testing.assert_allclose(gb, eb, rtol=1e-12)


def with_aux(x):
    y = np.tanh(x)
    return y.sum(), {"y": y, "n": 3}


def test_has_aux():
    grads, aux = ag.grad(with_aux, has_aux=True, backend="numpy")(X)
    np.testing.assert_allclose(grads, 1 - np.tanh(X) ** 2)
    assert aux["n"] == 3
    np.testing.assert_allclose(aux["y"], np.tanh(X))
    (value, aux), grads = ag.value_and_grad(with_aux, has_aux=True, backend="numpy")(X)
    assert value == np.tanh(X).sum()
    np.testing.assert_allclose(grads, 1 - np.tanh(X) ** 2)


def first_only(x, y):
    return np.tanh(x).sum()


def test_unused_argument_gets_zeros():
    gx, gy = ag.grad(first_only, argnums=(0, 1), backend="numpy")(X, np.ones(3, np.float32))
    np.testing.assert_allclose(gx, 1 - np.tanh(X) ** 2)
    assert gy.dtype == np.float32 and gy.shape == (3,) and not gy.any()


def cube(x):
    return x * x * x


def test_kinds_of_the_gradient():
    g = ag.grad(cube, backend="numpy")
    assert type(g(2.0)) is float and g(2.0) == 12.0
    assert type(g(np.float32(2.0))) is np.float32
    result = g(np.array(2.0))
    assert isinstance(result, np.ndarray) and result.shape == () and result == 12.0


class Model:
    def __init__(self):
        self.w = np.array([0.5, -0.3])
        self.b = np.array(0.1)
        self.lr = 0.1          # a Python number: not a weight
        self.name = "model"


def make_loss(model):
    def loss(x):
        return np.tanh(model.w * x + model.b).sum()
    return loss


def reference_step(model, x):
    s = 1 - np.tanh(model.w * x + model.b) ** 2
    value = np.tanh(model.w * x + model.b).sum()
    model.w = model.w - model.lr * s * x
    model.b -= model.lr * s.sum()
    return value


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_train_step_with_respect_to_a_models_weights(backend):
    model, reference = Model(), Model()
    loss = make_loss(model)

    @ag.function(backend=backend)
    def train_step(x):
        value, grads = ag.value_and_grad(loss, wrt=model)(x)
        assert set(grads) == {"w", "b"}
        model.w = model.w - model.lr * grads["w"]
        model.b -= model.lr * grads["b"]
        return value

    for _ in range(3):
        value = train_step(X)
        expected = reference_step(reference, X)
        assert value == pytest.approx(expected, rel=1e-12)
        np.testing.assert_allclose(model.w, reference.w, rtol=1e-12)
        np.testing.assert_allclose(model.b, reference.b, rtol=1e-12)
    assert train_step.trace_count == 1


def test_wrt_arrays_read_inside_a_step():
    model = Model()
    loss = make_loss(model)

    @ag.function(backend="numpy")
    def grads_of(x):
        return ag.grad(loss, wrt=[model.w, model.b])(x)

    gw, gb = grads_of(X)
    ew, eb = expected_grads(model.w, model.b, X)
    np.testing.assert_allclose(gw, ew, rtol=1e-12)
    np.testing.assert_allclose(gb, eb.sum(), rtol=1e-12)


def test_wrt_a_model_on_its_own_and_eagerly():
    model = Model()
    loss = make_loss(model)
    value, grads = ag.value_and_grad(loss, wrt=model, backend="numpy")(X)
    ew, eb = expected_grads(model.w, model.b, X)
    np.testing.assert_allclose(grads["w"], ew, rtol=1e-12)
    assert isinstance(grads["b"], np.ndarray) and grads["b"].shape == ()
    ag.run_functions_eagerly(True)
    try:
        eager_value, eager_grads = ag.value_and_grad(loss, wrt=model, backend="numba")(X)
    finally:
        ag.run_functions_eagerly(False)
    assert eager_value == value
    np.testing.assert_allclose(eager_grads["w"], grads["w"], rtol=1e-12)


def test_gradient_of_a_staged_function():
    staged = ag.function(cube)
    assert ag.grad(staged, backend="numpy")(3.0) == 27.0


def loud(x):
    s = x
    for i in range(x.shape[0]):
        s = np.tanh(s) * x
        print("step", i)
    return s.sum()


def _sine_sum(x):
    return np.sin(x).sum()


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_an_ag_function_of_a_gradient_keeps_its_own_backend(backend):
    # (The gradient object's `backend` attribute, "auto", was copied onto the ag.function
    # wrapping it by functools.update_wrapper.)
    staged = ag.function(ag.value_and_grad(_sine_sum), backend=backend)
    x = np.arange(3.0)
    value, grad = staged(x)
    assert value == _sine_sum(x)
    np.testing.assert_allclose(grad, np.cos(x))
    assert staged.backend == backend
    compiled = getattr(staged.get_concrete_function(x).executable, "compiled_graph", None)
    assert (compiled is not None) == (backend == "numba")
    if compiled is not None:
        assert compiled.dispatcher is not None   # (compiled by the call, not in the background)


def test_prints_of_the_loss_function_run_once(capsys):
    loud(X)
    expected = capsys.readouterr().out
    ag.grad(loud, backend="numpy")(X)
    assert capsys.readouterr().out == expected


def writes_outside(x, log):
    s = np.tanh(x).sum()
    log[0] = s
    return s


def test_writes_of_the_loss_function_are_kept():
    log = np.zeros(1)
    ag.grad(writes_outside, backend="numpy")(X, log)
    assert log[0] == np.tanh(X).sum()


class Keeps:
    def __init__(self):
        self.w = np.array([0.5, -0.3])
        self.last = np.zeros(2)

    def loss(self, x):
        self.w = self.w * 2.0          # the weight it is differentiated with respect to
        self.last = np.tanh(self.w * x)
        self.last[0] = 7.0
        return self.last.sum()


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_attributes_the_loss_function_sets_are_kept(backend):
    python, staged = Keeps(), Keeps()
    python.loss(X)
    w = staged.w.copy()
    grads = ag.grad(staged.loss, wrt=staged, backend=backend)(X)
    np.testing.assert_array_equal(staged.w, python.w)
    np.testing.assert_array_equal(staged.last, python.last)
    s = 1 - np.tanh(2 * w * X) ** 2
    np.testing.assert_allclose(grads["w"], [0.0, 2 * X[1] * s[1]], rtol=1e-12)


def vector_valued(x):
    return np.tanh(x)


def int_valued(x):
    return (x > 0).sum()


rng = np.random.default_rng(0)


def draws_in_loop(x):
    s = x
    for i in range(x.shape[0]):
        s = s * rng.random(2)
    return s.sum()


@pytest.mark.parametrize("call, error, match", [
    (lambda: ag.grad(first_only, backend="numpy")(np.array([1, 2]), X),
     NotDifferentiableError, "argument 0 has dtype int64"),
    (lambda: ag.grad(vector_valued, backend="numpy")(X),
     TypeError, "vector_valued returned an array of shape"),
    (lambda: ag.grad(with_aux, backend="numpy")(X),
     TypeError, "has_aux=True"),
    (lambda: ag.grad(int_valued, backend="numpy")(X),
     NotDifferentiableError, "int_valued returned int64"),
    (lambda: ag.grad(draws_in_loop, backend="numpy")(X),
     NotDifferentiableError, r"op 'draw' at .*test_grad_api.py:\d+ in draws_in_loop"),
], ids=["int-argument", "vector-loss", "pair-without-has_aux", "int-loss", "draw-in-loop"])
def test_refusals(call, error, match):
    with pytest.raises(error, match=match):
        call()


class ScalarWeights:
    def __init__(self):
        self.b = np.float64(0.5)


def test_numpy_scalar_weight_is_refused_with_the_reason():
    model = ScalarWeights()

    def loss(x):
        return (model.b * x).sum()

    with pytest.raises(NotDifferentiableError, match="keep weights in arrays"):
        ag.grad(loss, wrt=model, backend="numpy")(X)


class Layered:
    def __init__(self):
        self.kernel = np.array([0.5, -0.3])
        self.weights = [self.kernel]   # the same array at a second place

    def loss(self, x):
        return np.tanh(self.kernel * x).sum()


def test_an_array_at_two_places_is_one_weight():
    model = Layered()
    grads = ag.grad(model.loss, wrt=model, backend="numpy")(X)
    expected = (1 - np.tanh(model.kernel * X) ** 2) * X
    np.testing.assert_allclose(grads["kernel"], expected, rtol=1e-12)
    np.testing.assert_allclose(grads["weights"][0], expected, rtol=1e-12)


class Part:
    def __init__(self):
        self.w = np.ones(3)


class WithGaps:
    """A list of parts where some hold no weights (a layer without any, a number)."""

    def __init__(self):
        self.parts = [None, Part(), 3.0]

    def loss(self, x):
        return (x * self.parts[1].w).sum()


def test_parts_without_weights_are_empty_in_the_gradient():
    model = WithGaps()

    @ag.function(backend="numpy")
    def step(x):
        return ag.value_and_grad(model.loss, wrt=model)(x)

    value, grads = step(X[:1].repeat(3))
    assert grads["parts"][0] is None and grads["parts"][2] is None
    np.testing.assert_array_equal(grads["parts"][1]["w"], np.ones(3))
