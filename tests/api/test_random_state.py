"""Random numbers in staged functions (issue 16, item 4): a draw from a np.random Generator
(or the legacy np.random functions) is made when the graph runs, on every call, from the
user's generator itself: the numbers and the generator's state after each call are plain
Python's, on every backend (draws in graph loops and branches, and unused ones, included),
sizes may be symbolic, and rebinding the generator is seen. What a graph cannot draw is
refused at the user's line."""

import traceback
import types
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt

BACKENDS = ["numpy", "numba"]


def assert_same(got, expected):
    """Equal values of equal dtypes (a Python number comes back as the NumPy scalar of its
    kind), in the same structure."""
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
        return
    assert np.asarray(got).dtype == np.asarray(expected).dtype, (got, expected)
    assert isinstance(got, np.ndarray) == isinstance(expected, np.ndarray), (got, expected)
    np.testing.assert_array_equal(got, expected)


def run_both(make, calls, backend):
    """Runs `make()`'s function (made twice: one for plain Python, one staged), with the
    arguments of each call; checks results and the generator's state after each call."""
    plain_rng, plain = make()
    staged_rng, function = make()
    staged = ag.function(function, backend=backend)
    for args in calls:
        assert_same(staged(*args), plain(*args))
        assert staged_rng.bit_generator.state == plain_rng.bit_generator.state
    return staged


class Classifier:
    """A layer with dropout trained by SGD: its generator is an attribute."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.W = np.linspace(-1.0, 1.0, 12).reshape(4, 3)

    def step(self, x, y, lr):
        keep = 0.5
        h = x @ self.W
        mask = self.rng.random(h.shape) < keep
        h = h * mask / keep
        error = h - y
        self.W -= lr * (x.T @ (error * mask / keep))
        return (error ** 2).mean(), mask


@pytest.mark.parametrize("backend", BACKENDS)
def test_dropout_in_a_training_step_draws_a_new_mask_on_every_call(backend):
    plain, model = Classifier(0), Classifier(0)
    staged = ag.function(model.step, backend=backend)
    x, y = np.ones((5, 4)), np.zeros((5, 3))
    masks = []
    for _ in range(2):
        loss, mask = staged(x, y, 0.1)
        plain_loss, plain_mask = plain.step(x, y, 0.1)
        assert_same(mask, plain_mask)
        assert type(loss) is np.float64
        if backend == "numpy":
            assert loss == plain_loss
            np.testing.assert_array_equal(model.W, plain.W)
        else:   # (Numba's mean and products may round differently in the last bit.)
            assert np.isclose(loss, plain_loss, rtol=1e-12)
            np.testing.assert_allclose(model.W, plain.W, rtol=1e-12)
        assert model.rng.bit_generator.state == plain.rng.bit_generator.state
        masks.append(mask)
    assert not np.array_equal(masks[0], masks[1])
    assert staged.trace_count == 1


def _loop_and_branch():
    rng = np.random.default_rng(1)

    def walk(x):
        total = 0.0
        i = 0
        while i < x.shape[0]:
            if x[i] > 0:
                total += rng.random()
            else:
                total -= rng.normal(0.0, 1.0, size=2).sum()
            rng.integers(0, 10)   # unused: it still advances the generator
            i += 1
        return total
    return rng, walk


@pytest.mark.parametrize("backend", BACKENDS)
def test_draws_in_a_graph_loop_and_its_branches(backend):
    run_both(_loop_and_branch, [(np.array([1.0, -1.0, 2.0]),), (np.array([-1.0]),),
                                (np.zeros(0),)], backend)


def _unused():
    rng = np.random.default_rng(2)

    def f(x):
        rng.standard_normal(x.shape)
        rng.random()
        return x + rng.random()
    return rng, f


def test_an_unused_draw_still_advances_the_generator():
    run_both(_unused, [(np.ones(3),), (np.ones(2),)], "numpy")


RNG = np.random.default_rng(3)


def _uses_a_global(x):
    return x * RNG.uniform(-1, 1, size=x.shape)


def _as_global():
    # (The function with a globals namespace of its own, whose RNG is a new generator.)
    namespace = {"RNG": np.random.default_rng(3), "np": np}
    return namespace["RNG"], types.FunctionType(_uses_a_global.__code__, namespace)


def _as_closure():
    rng = np.random.default_rng(3)

    def f(x):
        return x * rng.uniform(-1, 1, size=x.shape)
    return rng, f


def _as_argument():
    rng = np.random.default_rng(3)

    def f(x, generator):
        return x * generator.uniform(-1, 1, size=x.shape)
    return rng, lambda x: f(x, rng)


class _Holder:
    def __init__(self):
        self.parts = {"noise": np.random.default_rng(3)}

    def f(self, x):
        return x * self.parts["noise"].uniform(-1, 1, size=x.shape)


def _as_attribute():
    holder = _Holder()
    return holder.parts["noise"], holder.f


@pytest.mark.parametrize("make", [_as_global, _as_closure, _as_argument, _as_attribute])
def test_the_generator_as_a_global_closure_argument_or_attribute(make):
    run_both(make, [(np.ones(3),), (np.ones(4),)], "numpy")


def test_a_generator_passed_as_an_argument_is_the_one_drawn_from():
    def f(x, generator):
        return x + generator.random(x.shape)

    staged = ag.function(f)
    for seed in (0, 1):
        plain_rng, staged_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        assert_same(staged(np.zeros(2), staged_rng), f(np.zeros(2), plain_rng))
        assert staged_rng.bit_generator.state == plain_rng.bit_generator.state


def test_rebinding_the_generator_is_seen():
    plain, model = Classifier(0), Classifier(0)
    staged = ag.function(model.step)
    x, y = np.ones((2, 4)), np.zeros((2, 3))
    assert_same(staged(x, y, 0.1), plain.step(x, y, 0.1))
    plain.rng, model.rng = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(2):
        assert_same(staged(x, y, 0.1), plain.step(x, y, 0.1))
        assert model.rng.bit_generator.state == plain.rng.bit_generator.state
    assert staged.trace_count == 2


def test_rebinding_a_global_or_closure_generator_is_seen():
    plain_rng, global_function = _as_global()
    staged_rng, staged_function = _as_global()
    closure_plain_rng, closure_plain = _as_closure()
    closure_staged_rng, closure_function = _as_closure()
    staged, closure_staged = ag.function(staged_function), ag.function(closure_function)
    for seed in (1, 2):
        assert_same(staged(np.ones(2)), global_function(np.ones(2)))
        assert_same(closure_staged(np.ones(2)), closure_plain(np.ones(2)))
        for function in (global_function, staged_function):
            function.__globals__["RNG"] = np.random.default_rng(seed)
        for function in (closure_plain, closure_function):
            function.__closure__[0].cell_contents = np.random.default_rng(seed)
    assert staged.trace_count == closure_staged.trace_count == 2


def _legacy(x):
    np.random.seed(5)
    a = np.random.random(x.shape)
    b = np.random.randn(2, x.shape[0])
    c = np.random.randint(0, 5)
    d = np.random.uniform(0.0, 1.0, 3)
    e = np.random.normal()
    f = np.random.choice(x, 2)
    g = np.random.permutation(x.shape[0])
    np.random.shuffle(x)
    return a, b, c, d, e, f, g, np.random.rand()


@pytest.mark.parametrize("backend", BACKENDS)
def test_legacy_np_random_functions_follow_numpys_global_state(backend):
    # (On numba too: legacy draws call NumPy's global RandomState, not Numba's own.)
    staged = ag.function(_legacy, backend=backend)
    for n in (3, 4):
        x, plain_x = np.arange(float(n)), np.arange(float(n))
        got = staged(x)
        after = np.random.get_state(legacy=False)
        assert_same(got, _legacy(plain_x))
        assert _same_state(after, np.random.get_state(legacy=False))
        np.testing.assert_array_equal(x, plain_x)   # (shuffled in place, as Python does)


def _same_state(a, b):
    return a.keys() == b.keys() and all(
        np.array_equal(a[k]["key"], b[k]["key"]) and a[k]["pos"] == b[k]["pos"]
        if k == "state" else a[k] == b[k] for k in a)


def test_legacy_draws_without_a_seed_continue_the_global_stream():
    def f(x):
        return x + np.random.random(x.shape)

    staged = ag.function(f)
    np.random.seed(7)
    got = [staged(np.zeros(2)) for _ in range(2)]
    np.random.seed(7)
    expected = [f(np.zeros(2)) for _ in range(2)]
    assert_same(got, expected)


class LazyDense:
    """Builds its weights on its first call, from the input's width."""

    def __init__(self, seed, units):
        self.rng = np.random.default_rng(seed)
        self.units = units
        self.W = None

    def build(self, width):
        self.W = self.rng.normal(0.0, 1.0 / np.sqrt(width), size=(width, self.units))

    def __call__(self, x):
        if self.W is None:
            self.build(x.shape[-1])
        return x @ self.W + self.rng.normal(0.0, 0.01, size=self.units)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lazily_built_layer_draws_its_weights_once(backend):
    plain, layer = LazyDense(4, 16), LazyDense(4, 16)
    staged = ag.function(layer.__call__, backend=backend)
    for batch in (2, 3, 5):
        x = np.ones((batch, 8))
        assert_same(staged(x), plain(x))
        np.testing.assert_array_equal(layer.W, plain.W)
        assert layer.rng.bit_generator.state == plain.rng.bit_generator.state
    assert layer.W.shape == (8, 16)
    assert staged.trace_count == 2   # (built, then with the weights as inputs)


def _forms():
    rng = np.random.default_rng(6)

    def f(x):
        n = x.shape[0]
        return (rng.random(n), rng.random(size=()), rng.normal(x, 2.0),
                rng.normal(x[0]), rng.integers(x.astype(np.int64), 10),
                rng.integers(5, size=(n, 2), dtype=np.int32, endpoint=True),
                rng.choice(x), rng.choice(n), rng.choice(x, size=(2, 2), p=x / x.sum()),
                rng.choice(5, size=3, replace=False), rng.permutation(x),
                rng.standard_normal((2, n), dtype=np.float32), rng.exponential(2.0, n),
                rng.random(dtype=np.float32))
    return rng, f


@pytest.mark.parametrize("backend", BACKENDS)
def test_sizes_parameters_and_result_kinds(backend):
    # (On numba, array parameters, choice and float32 draws call NumPy in object mode.)
    run_both(_forms, [(np.arange(1.0, 4.0),), (np.arange(1.0, 3.0),)], backend)


def test_the_graph_shows_each_draw_at_its_generator():
    graph = ag.function(Classifier(0).step).get_concrete_function(
        np.ones((2, 4)), np.zeros((2, 3)), 0.1).graph
    assert "draw self.rng.random(size=(" in str(graph)


def test_rt_draw_without_autograph():
    rng, plain_rng = np.random.default_rng(8), np.random.default_rng(8)
    staged = rt.function(lambda x: x + rt.draw(rng.normal, 0.0, 1.0, size=x.shape))
    for _ in range(2):
        assert_same(staged(np.zeros(3)), np.zeros(3) + plain_rng.normal(0.0, 1.0, size=3))
    assert rng.bit_generator.state == plain_rng.bit_generator.state


def test_a_draw_made_while_tracing_by_unconverted_code_warns():
    rng = np.random.default_rng(9)
    staged = ag.function(lambda x: x + rng.random(2), autograph=False)
    with pytest.warns(RuntimeWarning, match="drew random numbers while it was traced, from "
                                            "a Generator.*reuses those numbers"):
        staged(np.zeros(2))


def test_a_loop_condition_that_draws_is_refused_and_its_rewrite_matches():
    def make(rewritten):
        rng = np.random.default_rng(2)

        def as_condition(x):
            n = x[0]
            while rng.random() < 0.8:
                n += 1
            return n

        def as_variable(x):
            n = x[0]
            go = rng.random() < 0.8
            while go:
                n += 1
                go = rng.random() < 0.8
            return n
        return rng, as_variable if rewritten else as_condition

    with pytest.raises(TypeError, match="the condition of the while loop .* has an effect "
                                        r"\(draw\)") as refused:
        ag.function(make(False)[1])(np.zeros(1))
    assert_at_line(refused.value, "while rng.random() < 0.8:")
    run_both(lambda: make(True), [(np.zeros(1),)] * 3, "numpy")


def assert_at_line(error, text):
    """The error's traceback ends in this file, at the line holding `text`."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == __file__]
    assert frames and frames[-1].line.strip() == text, frames


def _draws_with_gamma(x):
    return x + RNG.gamma(2.0, size=x.shape)


def _makes_its_generator(x):
    rng = np.random.default_rng(0)
    return x + rng.random(x.shape)


def _draws_into_out(x):
    return RNG.random(out=x)


def _symbolic_endpoint(x):
    return RNG.integers(0, 5, endpoint=x[0] > 0)


def _helper_factory():
    rng = np.random.default_rng(0)

    def helper(x):
        return x + rng.random(x.shape)
    return helper


_helper = _helper_factory()


def _draws_in_a_helper_closure(x):
    return _helper(x)


@pytest.mark.parametrize("function, message, line", [
    (_draws_with_gamma, r"Generator.gamma\(...\) cannot be called in a staged function: a "
     "graph would draw its numbers once, while tracing",
     "return x + RNG.gamma(2.0, size=x.shape)"),
    (_makes_its_generator, "draws from a generator made while the function is traced",
     "return x + rng.random(x.shape)"),
    (_draws_into_out, r"out=...\) is not supported in graphs", "return RNG.random(out=x)"),
    (_symbolic_endpoint, r"endpoint=...\) needs a Python value",
     "return RNG.integers(0, 5, endpoint=x[0] > 0)"),
    (_draws_in_a_helper_closure, "draws from a generator the function reaches neither",
     "return x + rng.random(x.shape)"),
])
def test_draws_a_graph_cannot_make_are_refused_at_the_users_line(function, message, line):
    before = RNG.bit_generator.state
    with pytest.raises(TypeError, match=message) as refused:
        ag.function(function)(np.ones(2))
    assert_at_line(refused.value, line)
    assert RNG.bit_generator.state == before


def test_numba_refuses_a_random_state_object_and_auto_runs_it_on_numpy():
    def f(x, state):
        i = 0
        while i < 2:
            x = x + state.random(x.shape)
            i += 1
        return x

    with pytest.raises(NotImplementedError, match="RandomState other than NumPy's global"):
        ag.function(f, backend="numba")(np.zeros(2), np.random.RandomState(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(ag.function(f, backend="auto")(np.zeros(2), np.random.RandomState(0)),
                    f(np.zeros(2), np.random.RandomState(0)))
