"""Class attributes are state too: the arrays and numbers a staged function reads through a
class (`self.lr` where `class M: lr = 0.01`, a global class's `M.w`) are read on every call,
as Python reads them (the instance's own where it shadows the class's), and what the
function sets (`self.w = ...` on an inherited `w`) is left where Python leaves it (on the
instance; the class's untouched). Each scenario runs as plain Python and staged, on fresh
classes, and compares the results and what the objects and classes hold after each call."""

import dataclasses
import typing

import numpy as np
import pytest

import autograph as ag
import runtime as rt

BACKENDS = ["numpy", "numba", "auto"]


def _snapshot(objects):
    """What each object (instance or class) holds: its own data attributes."""
    held = {}
    for name, obj in objects.items():
        attributes = {k: v for k, v in vars(obj).items()
                      if not k.startswith("__") and not callable(v)
                      and not isinstance(v, (staticmethod, classmethod, property))}
        held[name] = {k: (np.array(v, copy=True) if isinstance(v, np.ndarray) else v)
                      for k, v in attributes.items()}
    return held


def _assert_same(expected, actual):
    assert type(expected) is type(actual), (expected, actual)
    if isinstance(expected, dict):
        assert expected.keys() == actual.keys()
        for k in expected:
            _assert_same(expected[k], actual[k])
    elif isinstance(expected, np.ndarray):
        assert expected.dtype == actual.dtype
        np.testing.assert_array_equal(expected, actual)
    else:
        assert expected == actual


def _run(scenario, stage):
    """Runs `scenario()` -> (objects, fn, steps): each step ("call", args) calls fn (staged
    by `stage`), or is a function changing the objects; returns what each call gave and
    what the objects held after it."""
    objects, fn, steps = scenario()
    fn = stage(fn)
    record = []
    for step in steps:
        if callable(step):
            step(objects)
            continue
        result = fn(*step[1])
        record.append((np.array(result, copy=True), _snapshot(objects)))
    return record


def _compare(scenario, backend):
    expected = _run(scenario, lambda fn: fn)
    actual = _run(scenario, lambda fn: ag.function(fn, backend=backend))
    assert len(expected) == len(actual)
    for (e_result, e_held), (a_result, a_held) in zip(expected, actual):
        _assert_same(e_result, a_result)
        _assert_same(e_held, a_held)


X = np.arange(1.0, 4.0)
CALL = ("call", (X,))


def read_through_self():
    class M:
        w = np.ones(3)
        s = 1.0

        def f(self, x):
            return x * self.w / self.s

    m = M()
    steps = [CALL,
             lambda o: setattr(o["M"], "s", 4.0), CALL,                 # a class number
             lambda o: setattr(o["M"], "w", np.full(3, 2.0)), CALL,     # rebound on the class
             lambda o: o["M"].w.__setitem__(slice(None), 3.0), CALL,    # in place
             lambda o: setattr(o["m"], "w", np.zeros(3)), CALL,         # shadowed
             lambda o: setattr(o["M"], "w", np.full(3, 5.0)), CALL,     # (the instance's read)
             lambda o: delattr(o["m"], "w"), CALL]                      # the class's again
    return {"m": m, "M": M}, m.f, steps


def unbound_method():
    class M:
        w = np.ones(3)
        s = 2.0

        def f(self, x):
            return x * self.w + self.s

    m = M()
    steps = [("call", (m, X)), lambda o: setattr(o["M"], "s", -1.0), ("call", (m, X)),
             lambda o: o["M"].w.__imul__(3.0), ("call", (m, X))]
    return {"m": m, "M": M}, M.f, steps


def assigns_inherited():
    class M:
        w = np.ones(3)
        count = 0
        s = 1.0

        def step(self, x):
            self.w = self.w + x
            self.count += 1
            return self.w * self.count / self.s

    m = M()
    steps = [CALL, CALL, lambda o: setattr(o["M"], "w", np.zeros(3)), CALL,
             lambda o: setattr(o["M"], "s", 2.0), CALL]
    return {"m": m, "M": M}, m.step, steps


def two_instances_share():
    class M:
        w = np.ones(3)

    a, b = M(), M()

    def f(x):
        return a.w * x + b.w

    steps = [CALL, lambda o: o["M"].w.__iadd__(1.0), CALL,
             lambda o: setattr(o["b"], "w", np.full(3, 10.0)), CALL,
             lambda o: setattr(o["M"], "w", np.full(3, 7.0)), CALL]
    return {"a": a, "b": b, "M": M}, f, steps


def subclass_overrides():
    class A:
        w = np.ones(3)
        s = 1.0

    class B(A):
        w = np.full(3, 2.0)

        def f(self, x):
            return x * self.w + self.s

    b = B()
    steps = [CALL, lambda o: setattr(o["A"], "w", np.full(3, 9.0)), CALL,   # B's read
             lambda o: setattr(o["A"], "s", 5.0), CALL,                     # A's s read
             lambda o: delattr(o["B"], "w"), CALL,                          # A's w now
             lambda o: setattr(o["B"], "s", -2.0), CALL]                    # B's s now
    return {"b": b, "A": A, "B": B}, b.f, steps


class Global:
    w = np.ones(3)
    s = 1.0


def uses_global_class(x):
    return x * Global.w / Global.s


def global_class():
    Global.w, Global.s = np.ones(3), 1.0
    steps = [CALL, lambda o: setattr(o["Global"], "s", 2.0), CALL,
             lambda o: o["Global"].w.__setitem__(0, 4.0), CALL,
             lambda o: setattr(o["Global"], "w", np.full(3, 3.0)), CALL]
    return {"Global": Global}, uses_global_class, steps


def dataclass_defaults():
    @dataclasses.dataclass
    class C:
        s: float = 1.0
        w: np.ndarray = dataclasses.field(default_factory=lambda: np.ones(3))
        k: typing.ClassVar[float] = 2.0

        def f(self, x):
            return x * self.w * self.s + self.k

    c = C()
    steps = [CALL, lambda o: setattr(o["C"], "s", 3.0), CALL,   # the instance's s shadows
             lambda o: setattr(o["C"], "k", 5.0), CALL,          # a ClassVar: the class's
             lambda o: setattr(o["c"], "s", 4.0), CALL]
    return {"c": c, "C": C}, c.f, steps


SCENARIOS = [read_through_self, unbound_method, assigns_inherited, two_instances_share,
             subclass_overrides, global_class, dataclass_defaults]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_class_state_as_python(scenario, backend):
    _compare(scenario, backend)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_augmented_assignment_of_a_class_array_refused(backend):
    # Python changes the class's array in place and makes it an attribute of the
    # instance too: a graph cannot bind the instance attribute to the class's array.
    class M:
        w = np.ones(3)

        def step(self, x):
            self.w += x
            return self.w

    m = M()
    with pytest.raises(TypeError, match="class attribute M.w"):
        ag.function(m.step, backend=backend)(X)
    assert "w" not in vars(m)
    np.testing.assert_array_equal(M.w, np.ones(3))


def test_rt_function_guards_class_state():
    # rt.function holds the state as constants: a class's number and array are guarded.
    class M:
        w = np.ones(3)
        s = 1.0

    m = M()

    def f(x):
        return x * m.w / m.s

    staged = rt.function(f)
    np.testing.assert_array_equal(staged(X), f(X))
    M.s = 4.0
    np.testing.assert_array_equal(staged(X), f(X))
    M.w = np.full(3, 2.0)
    np.testing.assert_array_equal(staged(X), f(X))
    m.w = np.zeros(3)
    np.testing.assert_array_equal(staged(X), f(X))
    assert set(vars(m)) == {"w"} and M.s == 4.0
