"""State a staged function reads from objects, closures and globals (issue 16, item 1): an
array it uses in graph operations is read on every call, on every backend, and rebinding
the place it sits in (`layer.W = new`) is seen: the function traces again.

Not yet (issue 16): arrays of the state used only in computations made while tracing
(`(self.a * self.b).sum()`, with no argument involved) are folded into the graph then."""

import dataclasses

import numpy as np
import pytest

import autograph as ag

BACKENDS = ["numpy", "numba"]


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
    # Each rebinding traced once more; in-place changes none.
    assert staged.trace_count == 7


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
        TABLE = np.full(5, 1.0)   # another shape: a new trace, as Python broadcasting says
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


@pytest.mark.xfail(strict=True, reason="issue 16: state arrays used only in computations made "
                   "while tracing are folded into the graph (state should be graph inputs)")
def test_state_used_only_while_tracing_is_read_on_every_call():
    layer = Dense(3)

    def norm_plus(x):
        return (layer.W * layer.W).sum() + x.sum()

    staged = ag.function(norm_plus)
    staged(np.ones(3))
    layer.W += 1.0
    assert staged(np.ones(3)) == norm_plus(np.ones(3))
