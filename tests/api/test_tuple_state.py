"""Arrays in tuples of a staged function's state (`self.data = (X, y)`, nested tuples,
namedtuples, tuples in lists and dicts, in closures and globals) are graph inputs like the
state's other arrays: each call reads them through their tuples, so a tuple the user
replaced, or an array changed in place, is seen; what the function writes into them lands
in the arrays, and a tuple it sets is made again after each run. Each scenario runs as
plain Python and staged, on fresh objects, and compares the results and the state after
each call."""

import collections
import dataclasses
import typing
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from test_class_state import _assert_same

BACKENDS = ["numpy", "numba"]

Batch = collections.namedtuple("Batch", "X y")


class Pair(typing.NamedTuple):
    w: np.ndarray
    scale: float


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: np.ndarray


def _copy(value):
    """A deep copy of the state: containers rebuilt, arrays copied."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        items = [_copy(item) for item in value]
        return type(value)._make(items) if hasattr(type(value), "_fields") else tuple(items)
    if isinstance(value, list):
        return [_copy(item) for item in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return (type(value), {k: _copy(v) for k, v in vars(value).items()})
    if hasattr(value, "__dict__") and not callable(value):
        return (type(value), {k: _copy(v) for k, v in vars(value).items()})
    return value


def _run(scenario, stage):
    """Runs `scenario()` -> (state, fn, steps): each step is ("call", args) or a function
    changing the state (a dict of the objects, containers and arrays involved); returns
    what each call gave and a copy of the state after it."""
    state, fn, steps = scenario()
    fn = stage(fn)
    record = []
    for step in steps:
        if callable(step):
            step(state)
            continue
        result = fn(*step[1])
        record.append((_copy(result), _copy({k: v for k, v in state.items()
                                             if not callable(v)})))
    return record, fn


def _compare(scenario, backend, traces=None):
    expected, _ = _run(scenario, lambda fn: fn)
    actual, staged = _run(scenario, lambda fn: ag.function(fn, backend=backend))
    assert len(expected) == len(actual)
    for (e_result, e_state), (a_result, a_state) in zip(expected, actual):
        _assert_same(e_result, a_result)
        _assert_same(e_state, a_state)
    if traces is not None:
        assert staged.trace_count == traces


X = np.arange(1.0, 4.0)
CALL = ("call", (X,))


class Holder:
    pass


def reads_a_tuple():
    # The data set in a tuple: the user replaces it with another of the same structure
    # (no new trace), changes an array in place, gives it arrays of another length.
    h = Holder()
    h.data = (np.ones(3), np.full(3, 2.0))

    def step(x):
        features, targets = h.data
        return x * features - targets

    def replace(s):
        s["h"].data = (np.full(3, 5.0), np.zeros(3))

    def longer(s):
        s["h"].data = (np.arange(5.0), np.ones(5))
    steps = [("call", (X,)), replace, ("call", (X,)),
             lambda s: s["h"].data[0].__setitem__(1, 7.0), ("call", (X,)),
             longer, ("call", (np.ones(5),))]
    return {"h": h}, step, steps


def writes_in_place():
    # In-place writes into arrays of a tuple land in the arrays (the user's references
    # see them), on every call.
    h = Holder()
    features, targets = np.ones(3), np.zeros(3)
    h.data = (features, targets)

    def step(x):
        a, b = h.data
        a += x
        h.data[1][0] = a.sum()
        return a * 2.0
    steps = [CALL, CALL, lambda s: s["h"].data[1].fill(-1.0), CALL]
    return {"h": h, "features": features, "targets": targets}, step, steps


def sets_the_tuple():
    # A tuple the function sets (a functional update) is made again after each run.
    h = Holder()
    h.params = (np.ones(3), np.zeros(3), "sgd")

    def step(x):
        w, b, name = h.params
        y = x * w + b
        h.params = (w - 0.1 * y, b + 1.0, name)
        return y
    steps = [CALL, CALL, lambda s: setattr(s["h"], "params", (np.full(3, 3.0), np.ones(3),
                                                              "sgd")), CALL]
    return {"h": h}, step, steps


def sets_a_new_tuple():
    # A tuple of tensors the function leaves in a new place (a cache) is made there after
    # each run, and the next trace reads it as inputs.
    h = Holder()
    h.w = np.ones(3)

    def step(x):
        y = x * h.w
        h.cache = (y, Batch(y + 1.0, 2.0), "last")
        h.w = h.w + 1.0
        return y
    steps = [CALL, CALL, CALL]
    return {"h": h}, step, steps


def namedtuples():
    # A namedtuple read by field and updated with _replace; a typing.NamedTuple holding a
    # Python number, which stays a constant of the trace.
    h = Holder()
    h.batch = Batch(np.ones(3), np.full(3, 2.0))
    h.pair = Pair(np.full(3, 3.0), 2.0)

    def step(x):
        y = (x * h.batch.X - h.batch.y) * h.pair.w * h.pair.scale
        h.batch = h.batch._replace(y=h.batch.y + 1.0)
        return y
    steps = [CALL, CALL, lambda s: setattr(s["h"], "pair", Pair(np.ones(3), 5.0)), CALL,
             lambda s: s["h"].batch.X.__imul__(2.0), CALL]
    return {"h": h}, step, steps


def nested_tuples():
    h = Holder()
    h.data = ((np.ones(3), 2.0), (np.full(3, 3.0), (np.full(3, 4.0),)))

    def step(x):
        (a, s), (b, (c,)) = h.data
        c[0] = x.sum()
        return x * a * s + b - c
    steps = [CALL, lambda s: s["h"].data[1][1][0].__setitem__(2, 9.0), CALL,
             lambda s: setattr(s["h"], "data", ((np.zeros(3), 1.0),
                                                (np.ones(3), (np.ones(3),)))), CALL]
    return {"h": h}, step, steps


def tuples_in_a_dict_and_a_list():
    h = Holder()
    h.sets = {"train": (np.ones(3), np.zeros(3))}
    h.pairs = [(np.full(3, 2.0), 1.0), (np.full(3, 3.0), 2.0)]

    def step(x):
        total = x * h.sets["train"][0] + h.sets["train"][1]
        for w, s in h.pairs:
            total = total + w * s
        h.pairs[0][0][:] = total
        return total
    steps = [CALL, lambda s: s["h"].sets.__setitem__("train", (np.full(3, 4.0),
                                                               np.ones(3))), CALL,
             lambda s: s["h"].pairs.__setitem__(1, (np.ones(3), 5.0)), CALL]
    return {"h": h}, step, steps


def in_a_closure_and_a_global():
    # A tuple in a closure cell and in a module global: their places are set while tracing.
    taps = (np.ones(3), np.full(3, 0.5))

    def step(x):
        GLOBAL_PAIR[1][:] = x
        return x * taps[0] + taps[1] * GLOBAL_PAIR[0]

    GLOBAL_PAIR[0][:] = 2.0
    GLOBAL_PAIR[1][:] = 0.0
    steps = [CALL, lambda s: s["taps"][1].fill(3.0), CALL]
    return {"taps": taps, "pair": GLOBAL_PAIR}, step, steps


GLOBAL_PAIR = (np.full(3, 2.0), np.zeros(3))


def one_tuple_in_two_places():
    # One tuple (and so its arrays) in two places: a write through one is read through the
    # other, and the function sees them as one object, as Python does.
    h = Holder()
    h.data = (np.ones(3), np.zeros(3))
    h.loader = Holder()
    h.loader.data = h.data
    h.weights = h.data[0]

    def step(x):
        h.loader.data[0][:] = x + h.weights
        return h.data[0] * 2.0 if h.data is h.loader.data else x
    steps = [CALL, CALL]
    return {"h": h}, step, steps


def objects_in_a_tuple():
    # A frozen dataclass in a tuple: its array is an input at its attribute.
    h = Holder()
    h.layers = (Frozen(np.ones(3)), np.full(3, 2.0))

    def step(x):
        h.layers[0].w[:] = h.layers[0].w * x
        return h.layers[0].w + h.layers[1]
    steps = [CALL, CALL]
    return {"h": h}, step, steps


def iterates_a_tuple():
    # The trace unrolls a loop over the tuple: a tuple of another length traces again.
    h = Holder()
    h.ws = (np.ones(3), np.full(3, 2.0))

    def step(x):
        for w in h.ws:
            x = x * w + 1.0
        return x
    steps = [CALL, lambda s: setattr(s["h"], "ws", s["h"].ws + (np.full(3, 3.0),)), CALL,
             lambda s: setattr(s["h"], "ws", list(s["h"].ws)), CALL]
    return {"h": h}, step, steps


SCENARIOS = [reads_a_tuple, writes_in_place, sets_the_tuple, sets_a_new_tuple, namedtuples,
             nested_tuples, tuples_in_a_dict_and_a_list, in_a_closure_and_a_global,
             one_tuple_in_two_places, objects_in_a_tuple, iterates_a_tuple]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_arrays_in_tuples_as_python(scenario, backend):
    _compare(scenario, backend)


@pytest.mark.parametrize("scenario, traces", [(reads_a_tuple, 1), (sets_the_tuple, 1),
                                               (namedtuples, 2), (iterates_a_tuple, 3)],
                         ids=lambda s: getattr(s, "__name__", ""))
def test_a_replaced_tuple_of_the_same_structure_reuses_the_trace(scenario, traces):
    # (namedtuples: the Python number `scale` in a tuple is a constant, guarded by value.)
    _compare(scenario, "numpy", traces)


class Trainer:
    """Holds its data set in a tuple, which its step never reads."""

    def __init__(self, rows):
        self.w = np.ones(4)
        self.data = (np.ones((rows, 256)), np.zeros(rows))

    def step(self, x):
        return x * self.w


def test_a_data_set_in_a_tuple_is_not_compared_on_every_call():
    # The arrays of the tuple are inputs, read where they sit: no copy of their bytes.
    trainer = Trainer(8192)
    step = ag.function(trainer.step, backend="numpy")
    x = np.arange(4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            np.testing.assert_array_equal(step(x), trainer.step(x))
    assert step.trace_count == 1
    guard = step.get_concrete_function(x).guard
    assert not any(type(g).__name__ == "ConstantsGuard"
                   for g in getattr(guard, "guards", [guard]))


class Dataset(typing.NamedTuple):
    """A namedtuple's method: its `self` has no place to set, so its arrays stay
    constants of the trace, compared with copies of their bytes on every call."""
    X: np.ndarray
    y: np.ndarray

    def loss(self, w):
        return ((self.X @ w - self.y) ** 2).mean()


@pytest.mark.parametrize("rows", [8, 1024])
def test_a_trace_says_when_its_contents_check_is_large(rows):
    """Past a megabyte of arrays compared by contents on every call, a trace says so, once,
    naming the largest and what to do."""
    data = Dataset(np.ones((rows, 256)), np.zeros(rows))
    loss = ag.function(data.loss)
    w = np.full(256, 0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            np.testing.assert_allclose(loss(w), data.loss(w))
    said = [str(w.message) for w in caught if "compares" in str(w.message)]
    if rows == 8:
        assert said == []
    else:
        assert len(said) == 1 and "self.X, 2.0 MB" in said[0]
        assert "plain tuples" in said[0]


class Model:
    def __init__(self):
        self.w = np.ones(2**18)

    def step(self, x):
        return x * self.w[0]


def test_the_contents_warning_names_arguments_by_their_parameters():
    # rt.function holds the state as constants: `self` passed as an argument is named as
    # the method names it.
    model = Model()
    step = rt.function(Model.step)
    with pytest.warns(RuntimeWarning, match=r"the largest, self\.w, 2\.0 MB"):
        step(model, np.float64(2.0))
