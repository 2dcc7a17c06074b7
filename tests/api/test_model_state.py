"""State a staged function reads from objects, closures and globals (issue 16, items 1 and
2): its arrays are inputs of the graph, read from their places (`layer.W`,
`model.layers[1].b`, `params["W"]`, a global) on every call, on every backend; rebinding
one to an array of the same dtype and rank is read as it is, another one traces again;
the function's own writes (`self.W -= lr * g`, `self.W = self.W - d`) are left where
Python leaves them."""

import dataclasses
import warnings

import numpy as np
import pytest

import autograph as ag

BACKENDS = ["numpy", "numba", "auto"]


class Dense:
    def __init__(self, n):
        self.W = np.ones(n)
        self.b = np.zeros(1)


class Model:
    def __init__(self, n):
        self.layers = [Dense(n), Dense(n)]
        self.params = {"scale": np.full(n, 2.0)}


@dataclasses.dataclass
class Config:
    weights: np.ndarray


TABLE = np.arange(3.0)


def uses_a_global(x):
    return (TABLE * x).sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_rebinding_state_is_seen_like_in_place_changes(backend):
    model = Model(3)
    config = Config(np.ones(3))
    closure_array = np.ones(3)

    def forward(x):
        h = model.layers[1].W.T * x + model.layers[0].b
        return (h * model.params["scale"]).sum() + (config.weights * x * closure_array).sum()

    staged = ag.function(forward, backend=backend)
    x = np.arange(3.0)

    def changes():
        yield lambda: model.layers[1].W.__iadd__(1.0)                 # in place
        yield lambda: setattr(model.layers[1], "W", np.full(3, 5.0))  # rebound
        yield lambda: model.params.__setitem__("scale", np.ones(3))   # a dict entry
        yield lambda: setattr(config, "weights", np.zeros(3))         # a dataclass field
        yield lambda: model.layers.__setitem__(0, Dense(3))           # a list item
        yield lambda: setattr(model.layers[0], "b", np.ones(1))

    assert staged(x) == forward(x)
    for change in changes():
        change()
        assert staged(x) == forward(x)
    nonlocal_change = np.full(3, 3.0)
    closure_array = nonlocal_change      # (a closure cell rebound)
    assert staged(x) == forward(x)
    # The places are read on every call: no new trace.
    assert staged.trace_count == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rebound_global_is_seen(backend):
    global TABLE
    staged = ag.function(uses_a_global, backend=backend)
    x = np.ones(3)
    before = TABLE
    try:
        assert staged(x) == uses_a_global(x)
        TABLE = np.full(3, 4.0)
        assert staged(x) == uses_a_global(x) == 12.0
        TABLE = np.full(5, 1.0)   # another size: NumPy's broadcasting error, as in Python
        with pytest.raises(ValueError):
            uses_a_global(x)
        with pytest.raises(ValueError):
            staged(x)
    finally:
        TABLE = before


def test_state_the_method_reads_through_self_is_guarded():
    class Scaler:
        def __init__(self):
            self.w = np.ones(2)

        @ag.function
        def __call__(self, x):
            return self.w * x

    scaler = Scaler()
    assert scaler(np.ones(2)).tolist() == [1.0, 1.0]
    scaler.w = np.full(2, 3.0)
    assert scaler(np.ones(2)).tolist() == [3.0, 3.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_used_only_in_numpy_computations_is_read_on_every_call(backend):
    layer = Dense(3)

    def norm_plus(x):
        return (layer.W * layer.W).sum() + x.sum()

    staged = ag.function(norm_plus, backend=backend)
    staged(np.ones(3))
    layer.W += 1.0
    assert staged(np.ones(3)) == norm_plus(np.ones(3))
    layer.W = np.ones(4)     # another size: read as it is
    assert staged(np.ones(3)) == norm_plus(np.ones(3))
    layer.W = np.ones((2, 2))     # another rank: traced again
    assert staged(np.ones(3)) == norm_plus(np.ones(3))
    assert staged.trace_count == 2


class Trainer:
    def __init__(self):
        self.W = np.linspace(0.0, 1.0, 4)
        self.b = np.zeros(1)
        self.history = {"last": np.zeros(4)}

    def step(self, x, y, lr):
        error = (self.W * x).sum() + self.b[0] - y
        grad = error * x
        self.W -= lr * grad                    # in place: the same array, updated
        self.b = self.b - lr * error           # rebound: a new array in the place
        self.history["last"] = grad
        return error * error


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_train_step_leaves_the_state_python_leaves(backend):
    plain, staged_model = Trainer(), Trainer()
    staged = ag.function(staged_model.step, backend=backend)
    W_before = staged_model.W
    rng = np.random.default_rng(0)
    for _ in range(5):
        x, y = rng.standard_normal(4), np.float64(rng.standard_normal())
        assert np.isclose(staged(x, y, 0.1), plain.step(x, y, 0.1))
        for name in ("W", "b"):
            np.testing.assert_allclose(getattr(staged_model, name), getattr(plain, name))
        np.testing.assert_allclose(staged_model.history["last"], plain.history["last"])
        assert type(staged_model.b) is np.ndarray and type(staged_model.history["last"]) \
            is np.ndarray
    assert staged_model.W is W_before       # (updated in place, as Python does)
    assert staged.trace_count == 1


def test_state_a_graph_cannot_compute_on_is_read_while_tracing():
    # (No graph op for np.linalg.eig, whose dtype the values decide: the state is then a
    # constant of the trace, guarded where it sits.)
    holder = Dense(2)
    holder.M = np.array([[2.0, 0.0], [0.0, 4.0]])

    def solve(x):
        return np.linalg.eig(holder.M)[0] @ x

    staged = ag.function(solve)
    with pytest.warns(RuntimeWarning, match="its state is read while tracing.*eig"):
        np.testing.assert_allclose(staged(np.ones(2)), solve(np.ones(2)))
    holder.M = np.eye(2)
    with pytest.warns(RuntimeWarning, match="its state is read while tracing"):
        np.testing.assert_allclose(staged(np.ones(2)), solve(np.ones(2)))


def test_a_python_number_in_the_state_counts_calls():
    class Counter:
        def __init__(self):
            self.steps = 0

        def step(self, x):
            self.steps += 1
            return x * self.steps

    plain, staged_counter = Counter(), Counter()
    staged = ag.function(staged_counter.step)
    for _ in range(3):
        staged(np.ones(1))
        plain.step(np.ones(1))
    assert staged_counter.steps == plain.steps


SCALE = 2.0


class _Trainer:
    def __init__(self):
        self.lr = 0.5
        self.steps = 0
        self.decay = 1.0
        self.w = np.ones(3)
        self.layers = [np.ones(3), 2 * np.ones(3)]

    def step(self, g):
        self.w -= self.lr * self.decay * g * SCALE
        self.steps += 1
        self.decay = self.decay * 0.5
        return self.w.sum() + self.steps

    def pick(self, x):
        return x * self.layers[self.steps % 2]     # (a list index: needs the value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_numbers_on_objects_and_in_globals_are_read_and_written_each_call(backend):
    global SCALE
    plain, staged_trainer = _Trainer(), _Trainer()
    staged = ag.function(staged_trainer.step, backend=backend)
    for k in range(4):
        if k == 2:   # (changed between calls, as a schedule does)
            plain.lr = staged_trainer.lr = 0.125
            SCALE = 3.0
        g = np.arange(3.0) + k
        assert staged(g) == plain.step(g)
        assert (staged_trainer.steps, staged_trainer.decay, staged_trainer.lr) == \
            (plain.steps, plain.decay, plain.lr)
        assert type(staged_trainer.steps) is int and type(staged_trainer.decay) is float
        np.testing.assert_array_equal(staged_trainer.w, plain.w)
    SCALE = 2.0
    assert staged.trace_count == 1


def test_a_number_of_the_state_python_needs_the_value_of_is_a_constant_guarded_by_value():
    plain, staged_trainer = _Trainer(), _Trainer()
    staged = ag.function(staged_trainer.pick, backend="numpy")
    for steps in (0, 1, 0, 1):
        plain.steps = staged_trainer.steps = steps
        np.testing.assert_array_equal(staged(np.ones(3)), plain.pick(np.ones(3)))
    assert staged.trace_count == 2   # (one per value of steps)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ag_variable_is_explicit_state_with_the_ndarray_surface(backend):
    w = ag.Variable(np.arange(6.0).reshape(2, 3))
    plain_w = np.arange(6.0).reshape(2, 3)

    @ag.function(backend=backend)
    def step(x, lr):
        y = x @ w.T
        w.assign_sub(lr * np.outer(y, x))
        w[0, 0] = w[0, 0] + 1.0
        return y.sum() + w.sum(axis=0).sum() + w.reshape(6)[1] + w.size

    def plain(x, lr):
        y = x @ plain_w.T
        plain_w[...] = plain_w - lr * np.outer(y, x)
        plain_w[0, 0] = plain_w[0, 0] + 1.0
        return y.sum() + plain_w.sum(axis=0).sum() + plain_w.reshape(6)[1] + plain_w.size

    for _ in range(3):
        assert np.isclose(step(np.ones(3), 0.1), plain(np.ones(3), 0.1))
        np.testing.assert_allclose(w.numpy(), plain_w)
    w[1, 2] = -1.0                       # (eager: outside a graph)
    assert w.numpy()[1, 2] == -1.0 and w.T.shape == (3, 2) and w.mean() == w.numpy().mean()


class LazyDense:
    """Builds its weights on the first call, from the input's size (issue 16, item 3)."""

    def __init__(self, units):
        self.units = units
        self.W = None

    def build(self, n):
        self.W = np.linspace(-1.0, 1.0, n * self.units).reshape(n, self.units)
        self.b = np.zeros(self.units)

    def __call__(self, x):
        if self.W is None:
            self.build(x.shape[-1])
        self.last = x @ self.W + self.b       # (a new attribute holding a graph value)
        return self.last


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_layer_built_on_its_first_call_keeps_its_weights(backend):
    layer, plain = LazyDense(2), LazyDense(2)
    staged = ag.function(lambda x: layer(x), backend=backend)
    for batch in (3, 3, 5, 1):
        x = np.arange(batch * 4.0).reshape(batch, 4)
        np.testing.assert_allclose(staged(x), plain(x))
        np.testing.assert_allclose(layer.W, plain.W)
        assert type(layer.W) is np.ndarray and type(layer.last) is np.ndarray
        np.testing.assert_allclose(layer.last, plain.last)
    layer.W *= 2.0
    plain.W *= 2.0
    np.testing.assert_allclose(staged(np.ones((2, 4))), plain(np.ones((2, 4))))
    # The build's trace, then one with the weights as inputs, for every batch size.
    assert staged.trace_count == 2


def test_the_fifth_trace_warns_once_naming_what_changed():
    @ag.function(static_argnames=["lr"])
    def step(x, lr):
        return x * lr

    with pytest.warns(RuntimeWarning, match=r"traced 5 times: argument 'lr', a Python float, "
                      r"changed value \(0.\d, then 0.5\)") as record:
        for lr in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
            step(np.ones(2), lr)
    assert len([w for w in record if "traced" in str(w.message)]) == 1
    assert record[0].filename == __file__


def _first_above(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            return i


class Tracker:
    def __init__(self):
        self.counts = np.zeros(3)
        self.total = np.zeros(1)

    def update(self, x):
        i = _first_above(x, 1.0)          # None on some paths
        if i is not None:
            self.counts[i] += 1.0         # an item write into state, next to the None test
            for v in x:                   # a loop inside the branch
                self.total = self.total + v
        return self.counts.sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_on_objects_with_early_returns_none_and_loops_in_branches(backend):
    plain, staged_tracker = Tracker(), Tracker()
    staged = ag.function(staged_tracker.update, backend=backend)
    for x in ([0.5, 2.0, 3.0], [0.0, 0.0, 0.0], [5.0, 0.0, 1.5], [0.0, 0.5, 9.0]):
        assert staged(np.array(x)) == plain.update(np.array(x))
        np.testing.assert_array_equal(staged_tracker.counts, plain.counts)
        np.testing.assert_array_equal(staged_tracker.total, plain.total)
    assert staged.trace_count == 1


class _Logger:
    def __init__(self):
        self.w = np.ones(2)
        self.history = []
        self.names = ["start"]
        self.queue = [1.0, 2.0]

    def step(self, x):
        loss = (self.w * x).sum()
        self.history.append(loss)
        self.names.extend(["step", "done"])
        return loss

    def step_in_branch(self, x):
        loss = (self.w * x).sum()
        if loss > 1:
            self.history.append(loss)
        return loss

    def step_popping(self, x):
        return x * self.queue.pop()


@pytest.mark.parametrize("backend", BACKENDS)
def test_appends_to_lists_of_the_state_happen_on_every_call(backend):
    plain, logger = _Logger(), _Logger()
    staged = ag.function(logger.step, backend=backend)
    for k in range(3):
        x = np.ones(2) * k
        assert staged(x) == plain.step(x)
        assert logger.history == plain.history and logger.names == plain.names
        assert all(type(v) is np.float64 for v in logger.history)
    assert staged.trace_count == 1


def test_other_changes_to_lists_of_the_state_and_appends_in_graph_branches_are_refused():
    logger = _Logger()
    with pytest.raises(TypeError, match=r"list.append\(\) on a list from outside the staged "
                       r"function .* inside a graph branch or loop"):
        ag.function(logger.step_in_branch, backend="numpy")(np.ones(2))
    assert logger.history == []
    with pytest.raises(TypeError, match=r"list.pop\(\) on a list from outside"):
        ag.function(logger.step_popping, backend="numpy")(np.ones(2))
    assert logger.queue == [1.0, 2.0]


def test_the_warning_names_the_argument_also_when_keywords_are_passed():
    @ag.function(backend="numpy")
    def scaled(k, x, scale=1.0):
        return x * [1, 2, 3, 4, 5, 6][k] * scale    # (a list index: k specialises)

    with pytest.warns(RuntimeWarning, match=r"traced 5 times: argument 'k', a Python int, "
                      r"changed value \(\d, then 4\)"):
        for k in range(5):
            scaled(k, np.ones(3), scale=2.0)


class _Flags:
    def __init__(self):
        self.training = True
        self.mode = "sum"
        self.scale = None
        self.w = np.ones(2)

    def step(self, x):
        y = self.w * x
        if self.training:
            y = y * 2.0
        if self.scale is not None:
            y = y * self.scale
        return y.sum() if self.mode == "sum" else y.max()


@pytest.mark.parametrize("backend", BACKENDS)
def test_flags_strings_and_none_on_objects_are_guarded_by_value(backend):
    plain, flags = _Flags(), _Flags()
    staged = ag.function(flags.step, backend=backend)
    changes = [("training", False), ("mode", "max"), ("scale", 3.0), ("training", True),
               ("scale", None), ("mode", "sum")]
    x = np.arange(2.0) + 1
    assert staged(x) == plain.step(x)
    with pytest.warns(RuntimeWarning, match=r"traced 5 times: self\.\w+, a constant of the "
                      r"trace, changed \("):
        for name, value in changes:
            setattr(plain, name, value)
            setattr(flags, name, value)
            assert staged(x) == plain.step(x), (name, value)
    assert staged.trace_count <= 1 + len(changes)


class _Counter:
    def __init__(self):
        self.steps = 0
        self.scale = 0.5
        self.hits = np.zeros(3)
        self.history = []

    def scan(self, x):
        """Numbers of the state in a graph loop and a branch, an item write into a held
        array next to an early return."""
        total = 0.0
        for i in range(x.shape[0]):
            self.steps += 1
            if x[i] > 2.0:
                self.hits[i % 3] += 1.0
                return total
            total += x[i] * self.scale
        return total

    def scan_and_log(self, x):
        total = self.scan(x)
        self.history.append(total)     # (after the call: on every path)
        return total

    def scan_then_log(self, x):
        for i in range(x.shape[0]):
            if x[i] > 2.0:
                return 0.0
        self.history.append(1.0)       # (only where the loop did not return)
        return 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_numbers_of_the_state_in_graph_loops_and_branches_next_to_early_returns(backend):
    plain, counter = _Counter(), _Counter()
    staged = ag.function(counter.scan_and_log, backend=backend)
    for x in (np.array([1.0, 0.5]), np.array([1.0, 3.0, 0.5]), np.zeros(0),
              np.array([0.25, 0.5, 1.0, 1.5])):
        assert staged(x) == plain.scan_and_log(x)
        assert (counter.steps, counter.scale, counter.history) == \
            (plain.steps, plain.scale, plain.history)
        assert type(counter.steps) is int
        np.testing.assert_array_equal(counter.hits, plain.hits)
    plain.scale = counter.scale = 2.0        # (a schedule's change: read, not retraced)
    x = np.array([1.0, 1.0])
    assert staged(x) == plain.scan_and_log(x) and counter.history == plain.history
    assert staged.trace_count == 1


def test_an_append_after_a_loop_that_may_return_early_is_refused():
    counter = _Counter()
    with pytest.raises(TypeError, match=r"code after a `return` or `break` that a graph loop"):
        ag.function(counter.scan_then_log, backend="numpy")(np.ones(2))
    assert counter.history == []


class _Recorder:
    """A layer keeping what Python keeps: its input, the output it returns (in two
    places), a constant array, a 0-d array, and states a loop writes in place."""

    def __init__(self):
        self.W = np.ones(3)
        self.weights = [self.W]   # (an alias of W, updated in place by -=)

    def step(self, x, steps):
        self.inputs = x
        h = np.tanh(x * self.W)
        self.out = h
        self.also_out = h
        self.table = np.arange(3.0)
        self.count = np.array(0.0)
        self.states = np.zeros((steps, 3))
        for t in range(steps):
            self.states[t] = h * t
        self.total = self.states.sum(axis=0)
        self.W -= 0.1 * self.total
        return h


def _identities(layer, x, result):
    return (layer.inputs is x, result is layer.out, layer.out is layer.also_out,
            layer.weights[0] is layer.W)


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_left_in_the_state_are_the_objects_python_leaves(backend):
    # The state a step sets is not copied: the argument itself, the returned array itself
    # (also where it is in two places); a constant is a new array each call, so changing
    # what a call left changes neither the graph nor the next call.
    plain, layer = _Recorder(), _Recorder()
    staged = ag.function(layer.step, backend=backend)
    rtol = 0 if backend == "numpy" else 1e-13   # (Numba's tanh differs in the last bit)
    for k in range(4):
        x = np.linspace(-1.0, 1.0, 3) + k
        expected = plain.step(x, 4)
        result = staged(x, 4)
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=0)
        assert _identities(layer, x, result) == _identities(plain, x, expected)
        for name in ("inputs", "out", "table", "count", "states", "total", "W"):
            ours, theirs = getattr(layer, name), getattr(plain, name)
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0)
            assert type(ours) is type(theirs) and ours.dtype == theirs.dtype
        for obj in (layer, plain):   # (what a caller may do with what the call left)
            obj.table[0] = 100.0
            obj.states[0] = -1.0
            obj.out[0] = 7.0
    assert staged.trace_count <= 2


def _two_loops(x, n, m):
    acc = x                      # (x itself when the loop runs no iteration)
    for _ in range(n):
        acc = acc * 2.0
    states = np.zeros((m, 3))
    for t in range(m):           # (a counter next to arrays: it pins none of them)
        states[t] = acc + t
    total = np.zeros(3)
    for t in range(m):
        total += states[t]
    acc[0] = -1.0                # (writes the caller's x where acc is x, as Python)
    return acc, states, total


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_through_loops_with_counters_next_to_in_place_writes(backend):
    staged = ag.function(_two_loops, backend=backend)
    for n, m in ((0, 2), (2, 3), (0, 0), (1, 1)):
        x, x_plain = np.arange(3.0), np.arange(3.0)
        result, expected = staged(x, n, m), _two_loops(x_plain, n, m)
        np.testing.assert_array_equal(x, x_plain)
        for ours, theirs in zip(result, expected):
            np.testing.assert_array_equal(ours, theirs)
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        result[1][:] = 7.0   # (what the caller does with a result touches no later call)


class _Updater:
    def __init__(self):
        self.W = np.arange(6.0).reshape(2, 3)
        self.b = np.ones(3)
        self.weights = [self.W, self.b]

    def step(self, x, d, lr):
        seen = self.W                  # (the weight itself: sees the update)
        row = self.W[0]                # (a view of it: sees it too)
        old = self.b * 1.0             # (a copy: does not)
        self.W -= lr * d               # (the interpreter computes it in the weight itself)
        self.b += lr * d.sum(axis=0)
        x -= lr                        # (a mutated argument, also returned)
        self.b *= 2.0                  # (a second update of the same weight)
        return seen.sum() + row.sum() + old.sum() + x.sum(), x, seen, row


def _subtract_into(a, b):
    a -= b
    return a


def _mutate_first(a, b):
    a -= 1.0
    return b * 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_place_updates_of_the_state_and_arguments_leave_python_s_objects(backend):
    plain, model = _Updater(), _Updater()
    staged = ag.function(model.step, backend=backend)
    W = model.W
    for k in range(3):
        x, x_plain = np.arange(3.0), np.arange(3.0)
        d = np.full((2, 3), 0.5 + k)
        result, expected = staged(x, d, 0.1), plain.step(x_plain, d, 0.1)
        assert np.isclose(result[0], expected[0])
        np.testing.assert_array_equal(x, x_plain)
        np.testing.assert_array_equal(result[3], expected[3])
        assert result[1] is x and result[2] is model.W is W
        assert model.weights[0] is model.W and model.weights[1] is model.b
        for name in ("W", "b"):
            np.testing.assert_array_equal(getattr(model, name), getattr(plain, name))
    assert staged.trace_count == 1
    # `a -= b` where b's shape is one `a` cannot hold: NumPy's error, the array unchanged.
    staged = ag.function(_subtract_into, backend=backend)
    np.testing.assert_array_equal(staged(np.ones(3), np.ones(3)), np.zeros(3))
    a = np.ones(1)
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        _subtract_into(a.copy(), np.ones(3))
    with pytest.raises(ValueError):
        staged(a, np.ones(3))
    np.testing.assert_array_equal(a, np.ones(1))
    np.testing.assert_array_equal(staged(np.ones(3), np.ones(1)), np.zeros(3))


def _read_change_read(a, b):
    before = b * 1.0
    a -= 1.0
    a *= 2.0
    return before, b + 0.0


def _item_writes_from_the_other(a, b):
    for i in range(3):
        a[i] = b[2 - i] + 1.0
    return a


class _Viewed:
    def __init__(self):
        self.W = np.arange(3.0)
        self.head = self.W[:2]   # a view of the weights, kept in the state

    def step(self):
        self.W -= 1.0
        return self.head + 0.0

    def step_on(self, x):
        self.W -= 1.0
        return x * 2.0


# (Each case: the function, how to make its arguments from a fresh array x (and the
# object, for methods), and whether they share memory where the function writes.)
_SHARED_CASES = {
    "one array passed twice": (_mutate_first, lambda x, m: (x, x)),
    "read, change twice, read": (_read_change_read, lambda x, m: (x, x)),
    "overlapping views": (_read_change_read, lambda x, m: (x[:2], x[1:])),
    "item writes from the other": (_item_writes_from_the_other, lambda x, m: (x, x)),
    "a view in the state": ("step", lambda x, m: ()),
    "an argument viewing the state": ("step_on", lambda x, m: (m.W[1:],)),
    "the state's array as the argument": ("step_on", lambda x, m: (m.W,)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(_SHARED_CASES))
def test_arrays_sharing_memory_where_the_graph_writes_give_python_s_answer(backend, case):
    # A graph holds each input as an array of its own; where the function changes one
    # that shares memory with another, the call runs as plain Python (once warned), so
    # the answer, the arguments and the state are Python's.
    fn, make = _SHARED_CASES[case]
    plain_obj, staged_obj = _Viewed(), _Viewed()
    if isinstance(fn, str):
        plain, staged = getattr(plain_obj, fn), ag.function(getattr(staged_obj, fn),
                                                            backend=backend)
    else:
        plain, staged = fn, ag.function(fn, backend=backend)
    with pytest.warns(RuntimeWarning, match="shares memory with another of its inputs"):
        for call in range(2):
            x, x_plain = np.arange(3.0), np.arange(3.0)
            got = staged(*make(x, staged_obj))
            want = plain(*make(x_plain, plain_obj))
            for g, w in zip(got if isinstance(got, tuple) else [got],
                            want if isinstance(want, tuple) else [want]):
                np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(x, x_plain)
            np.testing.assert_array_equal(staged_obj.W, plain_obj.W)
            assert staged_obj.head.base is staged_obj.W


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_separate_arrays_and_disjoint_views_run_the_graph_without_a_warning(backend):
    staged = ag.function(_read_change_read, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for make in (lambda x: (x, x.copy()), lambda x: (x[::2], x[1::2])):
            x, x_plain = np.arange(4.0), np.arange(4.0)
            got, want = staged(*make(x)), _read_change_read(*make(x_plain))
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(x, x_plain)
    assert staged.trace_count == 1


def test_a_concrete_function_refuses_arrays_sharing_memory_where_it_writes():
    concrete = ag.function(_mutate_first, backend="numpy").get_concrete_function(
        np.arange(3.0), np.arange(3.0))
    x = np.arange(3.0)
    with pytest.raises(ValueError, match="_mutate_first changes an array in place that "
                       "shares memory with another of its inputs"):
        concrete(x, x)
    np.testing.assert_array_equal(x, np.arange(3.0))   # (nothing ran)


# --- a train step staged in its class: called as model.step(...), the model is an argument
# the per-call path keys by identity, and reads the state through (runtime/trace.py:
# ConcreteFunction._generate_call, a fast entry) ---------------------------------------------

class _Stepped:
    def __init__(self, start, view=False):
        self.W = np.full(3, start)
        self.head = self.W[:2] if view else np.zeros(2)
        self.out = None
        self.mode = "sgd"

    def step(self, x, i, lr):
        self.out = self.W * x
        if self.mode == "sgd":
            self.W -= lr * x
        else:
            self.W = self.W * 0.5
        return self.out[i] + self.head.sum()



def _staged_stepped(backend):
    class Staged(_Stepped):
        step = ag.function(_Stepped.step, backend=backend)
    return Staged


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_step_staged_in_its_class_reads_and_writes_each_model_s_state(backend):
    Staged = _staged_stepped(backend)
    plain = [_Stepped(1.0), _Stepped(2.0)]
    staged = [Staged(1.0), Staged(2.0)]
    x = np.arange(3.0)

    def changes():
        yield lambda m: None
        yield lambda m: m.W.__iadd__(1.0)                    # in place
        yield lambda m: setattr(m, "W", np.full(3, 7.0))     # rebound, same dtype and rank
        yield lambda m: setattr(m, "out", np.zeros((2, 2)))  # rebound to another rank
        yield lambda m: setattr(m, "mode", "halve")          # a flag (guarded by value)
        yield lambda m: setattr(m, "head", np.ones(2))
        yield lambda m: setattr(m, "W", np.arange(3))        # another dtype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # (traced more than 5 times)
        for change in changes():
            for call in range(2):
                for k in (0, 1, 0):   # (the two models in turn)
                    if call == 0:
                        change(plain[k])
                        change(staged[k])
                    got, want = staged[k].step(x, 2, 0.25), plain[k].step(x, 2, 0.25)
                    assert got == want and type(got) is type(want)
                    for name in ("W", "head", "out"):
                        np.testing.assert_array_equal(getattr(staged[k], name),
                                                      getattr(plain[k], name))
                        assert getattr(staged[k], name).dtype == getattr(plain[k], name).dtype
                    assert staged[k].out is not staged[k].W
    # (Per model: the first trace, one after its first call set `out`, one per change of
    # rank, flag or dtype and one when the step sets `out` back to rank 1.)
    assert Staged.step.trace_count == 2 * 5


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_step_staged_in_its_class_refuses_a_view_of_what_it_writes_and_raises_at_the_line(
        backend):
    Staged = _staged_stepped(backend)
    plain, staged = _Stepped(1.0, view=True), Staged(1.0, view=True)
    x = np.arange(3.0)
    with pytest.warns(RuntimeWarning, match="shares memory with another of its inputs"):
        for call in range(3):
            assert staged.step(x, 1, 0.5) == plain.step(x, 1, 0.5)
            np.testing.assert_array_equal(staged.W, plain.W)
            assert staged.head.base is staged.W
    plain, staged = _Stepped(1.0), Staged(1.0)
    for i in (1, 2):   # (two calls: the second takes the per-call path)
        assert staged.step(x, i, 0.5) == plain.step(x, i, 0.5)
    line = _Stepped.step.__code__.co_firstlineno + 6   # (`return self.out[i] + ...`)
    with pytest.raises(IndexError, match=r"out of bounds(.|\n)*get_item .* created at "
                       r".*test_model_state.py:%d in step" % line):
        staged.step(x, 5, 0.5)
