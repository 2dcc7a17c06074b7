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


def _own(obj):
    """The attributes `obj` holds itself: its `__dict__`'s and its slots' that are set."""
    own = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
    if not isinstance(obj, type):
        for klass in type(obj).__mro__:
            for name in vars(klass).get("__slots__", ()):
                if hasattr(obj, name) and name not in ("__dict__", "__weakref__"):
                    own[name] = getattr(obj, name)
    return own


def _copy(value):
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True)
    if type(value) is tuple:
        return tuple(_copy(v) for v in value)
    return value


def _snapshot(objects):
    """What each object (instance or class) holds: its own data attributes."""
    held = {}
    for name, obj in objects.items():
        attributes = {k: v for k, v in _own(obj).items()
                      if not k.startswith("__") and not callable(v)
                      and not isinstance(v, (staticmethod, classmethod, property))
                      and type(v).__name__ != "member_descriptor"}
        held[name] = {k: _copy(v) for k, v in attributes.items()}
    return held


def _assert_same(expected, actual):
    assert type(expected) is type(actual), (expected, actual)
    if isinstance(expected, dict):
        assert expected.keys() == actual.keys()
        for k in expected:
            _assert_same(expected[k], actual[k])
    elif isinstance(expected, (tuple, list)):
        assert len(expected) == len(actual)
        for e, a in zip(expected, actual):
            _assert_same(e, a)
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


def slots_instance():
    # An instance with __slots__ (no __dict__): its slots and its class's attributes are
    # state as an instance's are.
    class M:
        __slots__ = ("b", "h", "n")
        w = np.ones(3)
        s = 1.0

        def __init__(self):
            self.b = np.ones(3)
            self.n = 0

        def f(self, x):
            self.h = x * self.s               # a slot that was not set
            self.n += 1
            return x * (self.w * 2) + self.b * 2 + self.s + self.n

    m = M()
    steps = [CALL, lambda o: o["M"].w.__setitem__(slice(None), 2.0), CALL,
             lambda o: setattr(o["M"], "w", np.full(3, 5.0)), CALL,
             lambda o: setattr(o["M"], "s", 3.0), CALL,
             lambda o: o["m"].b.__setitem__(0, 4.0), CALL,
             lambda o: setattr(o["m"], "b", np.full(3, 7.0)), CALL]
    return {"m": m, "M": M}, m.f, steps


def slots_dataclass():
    @dataclasses.dataclass(frozen=True, slots=True)
    class C:
        w: np.ndarray
        s: float = 1.0
        k: typing.ClassVar[np.ndarray] = np.ones(3)

        def f(self, x):
            return x * self.w * self.s + self.k

    c = C(np.ones(3))
    steps = [CALL, lambda o: o["C"].k.__imul__(3.0), CALL,
             lambda o: setattr(o["C"], "k", np.zeros(3)), CALL,
             lambda o: o["c"].w.__setitem__(1, 5.0), CALL,
             lambda o: object.__setattr__(o["c"], "s", 2.0), CALL]
    return {"c": c, "C": C}, c.f, steps


def sets_inherited_to_itself():
    # `self.s = self.s` makes an instance attribute of the class's value: a later change
    # of the class's is not seen through the instance.
    class M:
        s = 1.0
        n = 0

        def f(self, x):
            self.s = self.s
            self.n += 1
            return x * self.s + self.n

    m = M()
    steps = [CALL, lambda o: setattr(o["M"], "s", 4.0), CALL,
             lambda o: setattr(o["M"], "n", 10), CALL]
    return {"m": m, "M": M}, m.f, steps


def sets_inherited_on_every_path():
    class M:
        n = 0.0

        def f(self, x):
            if x.sum() > 0:
                self.n = 1.0
            else:
                self.n = -1.0
            return x * self.n

    m = M()
    steps = [CALL, ("call", (-X,)), lambda o: setattr(o["M"], "n", 5.0), CALL]
    return {"m": m, "M": M}, m.f, steps


def two_levels():
    class A:
        w = np.ones(3)
        s = 1.0

    class B(A):
        pass

    class C(B):
        def f(self, x):
            return x * self.w + self.s

    c = C()
    steps = [CALL, lambda o: o["A"].w.__iadd__(1.0), CALL,
             lambda o: setattr(o["B"], "s", 4.0), CALL,       # the middle class's now
             lambda o: delattr(o["B"], "s"), CALL,
             lambda o: setattr(o["A"], "w", np.full(3, 3.0)), CALL,
             lambda o: setattr(o["c"], "w", np.zeros(3)), CALL]
    return {"c": c, "A": A, "B": B, "C": C}, c.f, steps


def classmethod_of_a_subclass():
    # `cls` is the subclass: it reads its base's attributes without holding them, and
    # `cls.calls = ...` sets the subclass's own.
    class A:
        w = np.ones(3)
        s = 1.0
        calls = 0

        @classmethod
        def g(cls, x):
            cls.calls = cls.calls + 1
            return x * cls.w + cls.s * cls.calls

    class B(A):
        pass

    steps = [CALL, lambda o: setattr(o["A"], "s", 2.0), CALL,
             lambda o: o["A"].w.__setitem__(slice(None), 3.0), CALL,
             lambda o: setattr(o["B"], "w", np.full(3, 4.0)), CALL,
             lambda o: setattr(o["A"], "calls", 100), CALL]
    return {"A": A, "B": B}, B.g, steps


class Table:
    w = np.ones(3)
    s = 1.0

    @staticmethod
    def lookup(x):
        return x * SubTable.w + SubTable.s


class SubTable(Table):
    pass


def staticmethod_reads_a_subclass():
    Table.w, Table.s = np.ones(3), 1.0
    for name in ("w", "s"):
        if name in vars(SubTable):
            delattr(SubTable, name)
    steps = [CALL, lambda o: o["Table"].w.__setitem__(0, 4.0), CALL,
             lambda o: setattr(o["Table"], "s", 2.0), CALL,
             lambda o: setattr(o["SubTable"], "s", 3.0), CALL]
    return {"Table": Table, "SubTable": SubTable}, Table.lookup, steps


def property_reads_class_array():
    class M:
        w = np.ones(3)

        @property
        def scaled(self):
            return self.w * 2.0

        def f(self, x):
            return x * self.scaled

    m = M()
    steps = [CALL, lambda o: o["M"].w.__setitem__(slice(None), 3.0), CALL,
             lambda o: setattr(o["M"], "w", np.full(3, 7.0)), CALL]
    return {"m": m, "M": M}, m.f, steps


def subclasses_share_a_base_array():
    class Base:
        w = np.ones(3)

    class One(Base):
        pass

    class Two(Base):
        pass

    a, b = One(), Two()

    def f(x):
        return a.w * x + b.w

    steps = [CALL, lambda o: o["Base"].w.__iadd__(1.0), CALL,
             lambda o: setattr(o["One"], "w", np.zeros(3)), CALL,
             lambda o: setattr(o["Base"], "w", np.full(3, 3.0)), CALL]
    return {"a": a, "b": b, "Base": Base, "One": One, "Two": Two}, f, steps


def in_loops_and_branches():
    class M:
        w = np.ones(3)
        s = 1.0
        limit = 10.0

        def f(self, x):
            total = 0.0
            for i in range(x.shape[0]):
                total = total + self.w[i] * x[i] * self.s
            if total > self.limit:
                total = total * self.w[0]
            return total

    m = M()
    steps = [CALL, lambda o: setattr(o["M"], "s", 4.0), CALL,
             lambda o: o["M"].w.__setitem__(0, 3.0), CALL,
             lambda o: setattr(o["M"], "limit", 1000.0), CALL]
    return {"m": m, "M": M}, m.f, steps


def class_tuple_of_arrays():
    # Arrays in a tuple of a class are inputs, read through the class's tuple
    # (tests/api/test_tuple_state.py): while tracing, the class holds a copy of it.
    class M:
        taps = (np.ones(3), np.full(3, 2.0))

        def f(self, x):
            return x * (self.taps[0] * 2.0) + self.taps[1].sum()

    m = M()
    steps = [CALL, lambda o: o["M"].taps[0].__setitem__(1, 5.0), CALL,
             lambda o: setattr(o["M"], "taps", (np.zeros(3), np.ones(3))), CALL,
             lambda o: o["M"].taps[1].__imul__(3.0), CALL]
    return {"m": m, "M": M}, m.f, steps


class Counted:
    w = np.ones(3)
    n = 0

    def f(self, x):
        Counted.w = self.w + x       # the class's, read back through the instance
        Counted.n = Counted.n + 1
        return self.w * self.n


class CountedChild(Counted):
    pass


def sets_a_class_attribute_by_name():
    Counted.w, Counted.n = np.ones(3), 0
    child = CountedChild()
    steps = [CALL, CALL, lambda o: setattr(o["Counted"], "n", 10), CALL]
    return {"child": child, "Counted": Counted, "CountedChild": CountedChild}, child.f, steps


def numpy_scalars():
    # NumPy scalars of the state are constants of the trace, guarded by value.
    class M:
        s = np.float64(2.0)

        def __init__(self):
            self.t = np.float32(1.0)

        def f(self, x):
            return x * self.s + self.t

    m = M()
    steps = [CALL, lambda o: setattr(o["M"], "s", np.float64(3.0)), CALL,
             lambda o: setattr(o["m"], "t", np.float32(-0.0)), CALL,
             lambda o: setattr(o["m"], "t", np.float32(0.0)), CALL]
    return {"m": m, "M": M}, m.f, steps


def toggles_a_number_it_indexes_with():
    # Python needs the value of `phase` (a list index): the trace holds it as a constant,
    # and what the function sets it to is set after each call, as Python sets it.
    class M:
        phase = 0
        ws = [np.ones(3), np.full(3, 2.0)]

        def f(self, x):
            y = x * self.ws[self.phase]
            self.phase = 1 - self.phase
            self.mode = "odd" if self.phase else "even"
            return y

    m = M()
    steps = [CALL, CALL, CALL, lambda o: setattr(o["M"], "phase", 1), CALL,
             lambda o: delattr(o["m"], "phase"), CALL, CALL]
    return {"m": m, "M": M}, m.f, steps


SCENARIOS = [read_through_self, unbound_method, assigns_inherited, two_instances_share,
             subclass_overrides, global_class, dataclass_defaults, slots_instance,
             slots_dataclass, sets_inherited_to_itself, sets_inherited_on_every_path,
             two_levels, classmethod_of_a_subclass, staticmethod_reads_a_subclass,
             property_reads_class_array, subclasses_share_a_base_array,
             in_loops_and_branches, class_tuple_of_arrays,
             sets_a_class_attribute_by_name, numpy_scalars,
             toggles_a_number_it_indexes_with]


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



class SetsOnSomePaths:
    n = 0.0

    def in_a_branch(self, x):
        if x.sum() > 100.0:
            self.n += 1.0
        return x * self.n

    def in_a_loop(self, x):
        for i in range(x.shape[0]):
            self.n += x[i]
        return x * self.n


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("method", ["in_a_branch", "in_a_loop"])
def test_inherited_set_on_some_paths_refused(method, backend):
    # Python makes `n` an attribute of the instance only on the paths that set it (not
    # where the branch is not taken, nor where the loop runs no times): a graph setting it
    # after every run would hide later changes of the class's.
    m = SetsOnSomePaths()
    with pytest.raises(TypeError, match="on some paths only.*SetsOnSomePaths.n"):
        ag.function(getattr(m, method), backend=backend)(X)
    assert "n" not in vars(m) and SetsOnSomePaths.n == 0.0

@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_class_attribute_set_through_type_self_refused(backend):
    # Python sets the class's; the graph has no place of the class to set it at.
    class M:
        w = np.ones(3)

        def f(self, x):
            type(self).w = self.w + x
            return self.w

    m = M()
    with pytest.raises(TypeError, match="sets the class attribute M.w.*type\\(self\\)"):
        ag.function(m.f, backend=backend)(X)
    assert "w" not in vars(m)
    np.testing.assert_array_equal(M.w, np.ones(3))


def _rt_scenario():
    # rt.function does not convert the function: NumPy computes `self.w * 2.0` and
    # `self.b.sum()` while it is traced, and the graph holds the results as constants.
    class M:
        w = np.ones(3)
        s = 1.0

        def __init__(self):
            self.b = np.ones(3)

        def f(self, x):
            return x * (self.w * 2.0) / self.s + self.b.sum() + TABLE[0]

    m = M()
    steps = [CALL, lambda o: o["M"].w.__setitem__(0, 3.0), CALL,         # in place
             lambda o: setattr(o["M"], "w", np.full(3, 4.0)), CALL,        # rebound
             lambda o: setattr(o["M"], "s", 2.0), CALL,                    # a number
             lambda o: o["m"].b.__iadd__(1.0), CALL,                       # the instance's
             lambda o: TABLE.__setitem__(0, 5.0), CALL,                    # a global's
             lambda o: setattr(o["m"], "w", np.zeros(3)), CALL]            # shadowed
    return {"m": m, "M": M}, m.f, steps


TABLE = np.ones(2)


@pytest.mark.filterwarnings("ignore:.*has been traced 5 times")
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_rt_function_sees_its_constants_changed(backend):
    # rt.function holds the arrays of its state as constants of the trace: a call finding
    # one rebound or changed in place traces again.
    TABLE[:] = 1.0
    expected = _run(_rt_scenario, lambda fn: fn)
    TABLE[:] = 1.0
    staged = []
    actual = _run(_rt_scenario, lambda fn: staged.append(rt.function(fn, backend=backend))
                  or staged[0])
    TABLE[:] = 1.0
    for (e_result, e_held), (a_result, a_held) in zip(expected, actual):
        _assert_same(e_result, a_result)
        _assert_same(e_held, a_held)
    assert staged[0].trace_count == 7


def test_rt_function_refuses_changing_its_state_while_traced():
    # Python changes the array on every call; a trace would change it once.
    class M:
        w = np.ones(3)

        def f(self, x):
            self.w += 1.0
            return x * self.w

    m = M()
    with pytest.raises(TypeError, match="rt.function holds the arrays of its state"):
        rt.function(m.f)(X)
    np.testing.assert_array_equal(M.w, np.ones(3))
    assert M.w.flags.writeable



def test_refused_state_inputs_are_guarded_by_contents():
    # (No graph op for np.linalg.eig: the state is read while tracing, as constants.)
    class M:
        a = np.array([[2.0, 0.0], [0.0, 4.0]])

        def f(self, x):
            return np.linalg.eig(self.a)[0] @ x

    m = M()
    staged = ag.function(m.f, backend="numpy")
    with pytest.warns(RuntimeWarning, match="changed in place traces again"):
        np.testing.assert_allclose(staged(np.ones(2)), m.f(np.ones(2)))
    M.a[0, 0] = 7.0
    with pytest.warns(RuntimeWarning, match="its state is read while tracing"):
        np.testing.assert_allclose(staged(np.ones(2)), m.f(np.ones(2)))


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


def test_a_tuple_holding_inputs_the_graph_updates_traces_once():
    # The tuple's arrays are inputs at their attributes: the graph changing them in place
    # does not make the tuple's places look changed.
    class M:
        def __init__(self):
            self.W, self.b = np.ones(3), np.zeros(3)
            self.params = (self.W, self.b)

        def step(self, x):
            W, b = self.params
            y = x * W + b
            self.W -= 0.1 * y
            return y

    staged_model, plain = M(), M()
    staged = ag.function(staged_model.step, backend="numpy")
    for _ in range(3):
        np.testing.assert_array_equal(staged(X), plain.step(X))
    np.testing.assert_array_equal(staged_model.W, plain.W)
    assert staged.trace_count == 1



def test_scalars_in_a_class_tuple_trace_once():
    class M:
        scales = (2.0, np.float32(3.0), "mode")

        def f(self, x):
            return x * self.scales[0] * self.scales[1]

    m = M()
    staged = ag.function(m.f, backend="numpy")
    for _ in range(3):
        np.testing.assert_array_equal(staged(X), m.f(X))
    assert staged.trace_count == 1
