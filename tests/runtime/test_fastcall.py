"""The one-array per-call path of a staged function in C (runtime/_fastcall.c) and the Python
path that takes every call where the extension is not built: both give what plain Python
gives, for every kind of array, error, state change and caller."""

import gc
import os
import sys
import weakref

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime import trace

BACKENDS = ["numpy", "numba"]


@pytest.fixture(params=["c", "python"])
def path(request, monkeypatch):
    """Functions staged in the test take their calls in C, or all on the Python path."""
    if request.param == "c":
        if trace._fastcall is None:
            pytest.skip("runtime._fastcall is not built (no C compiler at install)")
    else:
        monkeypatch.setattr(trace, "_fastcall", None)
    return request.param


def test_the_extension_is_built_where_ci_requires_it():
    # .ci/run installs with a C compiler and sets AUTOGRAPH_REQUIRE_FASTCALL: a failed build
    # (optional in setup.py) must not pass unnoticed there.
    if not os.environ.get("AUTOGRAPH_REQUIRE_FASTCALL"):
        pytest.skip("AUTOGRAPH_REQUIRE_FASTCALL is not set")
    assert trace._fastcall is not None
    assert type(ag.function(lambda x: x).func).__name__ == "FastCall"


def clipped_square(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        if v < 0:
            out[i] = 0
        else:
            out[i] = v * v
    return out


def _arrays():
    base = np.linspace(-2.0, 3.0, 8)
    readonly = base.copy()
    readonly.flags.writeable = False
    return [
        base, base.astype(np.float32), np.arange(-3, 5), base[::2], readonly,
        base.reshape(2, 4)[:, 0], base[:0], base,
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_array_calls_give_what_python_gives(path, backend):
    # Signatures alternate (dtypes, strides, flags, a byte order), so the last one-array
    # signature is replaced and reused; each call compares with Python. (An ndarray
    # subclass is refused: tests/api/test_data_arguments.py.)
    staged = ag.function(clipped_square, backend=backend)
    for _ in range(2):
        for x in _arrays():
            expected = clipped_square(x)
            got = staged(x)
            assert type(got) is type(expected)
            assert got.dtype == expected.dtype, x.dtype
            np.testing.assert_array_equal(got, expected)


def check_positive(x):
    for i in range(x.shape[0]):
        if x[i] <= 0:
            raise ValueError(f"element {i} is not positive")
    return x * 2


def _assert_errors_have_pythons_context(staged, good, bad, expected, message):
    """staged(*bad) raises Python's ValueError(message), with no context, or the one of
    the handler it is called in, also on the second call (the last signature's entry);
    staged(*good) gives `expected` between them."""
    np.testing.assert_array_equal(staged(*good), expected)
    for _ in range(2):
        with pytest.raises(ValueError) as info:
            staged(*bad)
        assert info.value.args == (message,)
        assert info.value.__context__ is None
        try:
            raise KeyError("handled")
        except KeyError as handled:
            with pytest.raises(ValueError) as info:
                staged(*bad)
            assert info.value.__context__ is handled
        np.testing.assert_array_equal(staged(*good), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_are_pythons_with_pythons_context(path, backend):
    good, bad = np.ones(3), np.array([1.0, -1.0])
    _assert_errors_have_pythons_context(ag.function(check_positive, backend=backend),
                                        (good,), (bad,), good * 2, "element 1 is not positive")


class Scale:
    def __init__(self):
        self.W = np.ones(3)


scale = Scale()


def scaled(x):
    return x * scale.W


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_rebound_or_changed_in_place_is_seen(path, backend):
    staged = ag.function(scaled, backend=backend)
    x = np.arange(3.0)
    try:
        for _ in range(2):
            np.testing.assert_array_equal(staged(x), scaled(x))
        scale.W = np.full(3, 2.0)   # (the trace's guard fails: traced again)
        for _ in range(2):
            np.testing.assert_array_equal(staged(x), scaled(x))
        scale.W[:] = 5.0
        np.testing.assert_array_equal(staged(x), scaled(x))
    finally:
        scale.W = np.ones(3)


TABLE = np.arange(3.0)


@ag.function
def add_table(x):
    return x + TABLE


def uses_table(x):
    return add_table(TABLE) * x


def test_calls_while_tracing_or_running_eagerly_take_the_python_function(path):
    staged = ag.function(uses_table)
    add_table(np.ones(3))   # (the one-array signature the nested call has)
    x = np.ones(3)
    try:
        np.testing.assert_array_equal(staged(x), uses_table(x))
        TABLE[:] = 7.0   # the nested call was traced into the graph, not run then
        np.testing.assert_array_equal(staged(x), uses_table(x))
        calls = []   # (rt.function: no conversion, so the append runs when traced only)
        noted = rt.function(lambda v: calls.append(type(v).__name__) or v + 1)
        noted(x)
        noted(x)
        assert calls == ["Tensor"]
        ag.run_functions_eagerly(True)
        try:
            noted(x)
        finally:
            ag.run_functions_eagerly(False)
        noted(x)
        assert calls == ["Tensor", "ndarray"]
    finally:
        TABLE[:] = np.arange(3.0)


def test_calls_hold_no_references(path):
    staged = ag.function(check_positive, backend="numpy")
    good, bad = np.ones(3), -np.ones(3)
    staged(good)
    staged(good)
    before = sys.getrefcount(good), sys.getrefcount(bad)
    for _ in range(300):
        staged(good)
        try:
            staged(bad)
        except ValueError:
            pass
    gc.collect()   # (an exception's traceback and its frames are a cycle)
    assert (sys.getrefcount(good), sys.getrefcount(bad)) == before


# Calls of several arguments: the C path remembers the last signature of the fast table it
# was told (per argument: an array's dtype and rank, a Python number input's type, a
# constant's type and value, an object's identity). Each call below differs from the one
# before it in one of those, so a check that lets one through gives a wrong result.


def mixed(x, a, mode, offset=0):
    if isinstance(a, bool):   # (a bool is a constant: its own trace per value)
        a = 10 if a else -10
    if mode == "add":
        return x + a + offset
    return x * a * x.ndim   # (x.ndim: a constant of the trace)


def _mixed_calls():
    xf, xi = np.linspace(-1.0, 2.0, 6), np.arange(-2, 4)
    return [
        (xf, 2, "add"), (xf, 3, "add"), (xf, 2.5, "add"), (xi, 2.5, "add"), (xi, 2, "add"),
        (xi, True, "add"), (xi, 1, "add"), (xi, False, "add"), (xi, 2, "mul"),
        (xf, 2, "mul"), (xf.reshape(2, 3), 2, "mul"), (xf.astype(np.float32), 2, "mul"),
        (xf, 2, "mul"), (xf, 2, "add"), (xf, 2, "add", 7), (xf, 2, "add"),
        (xf, 2 ** 70, "add"), (xf, 2 ** 70 + 2 ** 60, "add"), (xf, 5, "add"),
        (xf, np.float32(1.5), "mul"), (xf, 1.5, "mul"), (xf, -2 ** 53, "mul"),
        (xf, -2 ** 53 - 2, "mul"), (xf[::2], 4.0, "add"),
    ]


@pytest.mark.filterwarnings("ignore:.*has been traced")
@pytest.mark.parametrize("backend", BACKENDS)
def test_multi_argument_calls_give_what_python_gives(path, backend):
    staged = ag.function(mixed, backend=backend)
    calls = _mixed_calls()
    for _ in range(2):
        for args in calls + calls[::-1]:
            expected = mixed(*args)
            for _ in range(2):   # (the second: the signature remembered)
                got = staged(*args)
                assert type(got) is type(expected)
                assert got.dtype == expected.dtype, args[1:]
                np.testing.assert_array_equal(got, expected)


def power(x, n):
    return x ** n


@pytest.mark.filterwarnings("ignore:.*has been traced")
@pytest.mark.parametrize("backend", BACKENDS)
def test_static_numbers_are_told_apart_by_type_and_value(path, backend):
    staged = ag.function(power, backend=backend, static_argnums=1)
    xi = np.arange(1, 5)
    for _ in range(2):
        for n in [2, 3, 2.0, 2, True, 1, 3.0, 0.5]:
            expected = power(xi, n)
            for _ in range(2):
                got = staged(xi, n)
                assert got.dtype == expected.dtype, n
                np.testing.assert_array_equal(got, expected)


def divided(x, s):
    return x / s


def divided_by_setting(x, settings):
    return x / settings["s"]


SIGN = 0.0


def divided_by_global(x):
    return x / SIGN


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_constant_minus_zero_is_not_zero(path, backend, monkeypatch):
    """-0.0 == 0.0, but x / -0.0 is -inf: the keys, the C path's check and the guards of
    constants tell them apart."""
    x = np.array([1.0, -2.0])
    static = ag.function(divided, backend=backend, static_argnums=1)
    nested = ag.function(divided_by_setting, backend=backend)
    constant = rt.function(divided_by_global, backend=backend)   # (globals: constants)
    for s in [0.0, -0.0, -0.0, 0.0, 0.0, -0.0, 1.0]:
        monkeypatch.setitem(globals(), "SIGN", s)
        for staged, plain, args in [(static, divided, (x, s)),
                                    (nested, divided_by_setting, (x, {"s": s})),
                                    (constant, divided_by_global, (x,))]:
            for _ in range(2):
                np.testing.assert_array_equal(staged(*args), plain(*args))


class Scaling:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return x * self.w


class Shifting(Scaling):
    def forward(self, x):
        return x + self.w


def apply_to(layer, x, lr):
    return layer.forward(x) - lr


@pytest.mark.filterwarnings("ignore:.*has been traced")
@pytest.mark.parametrize("backend", BACKENDS)
def test_objects_swapped_and_state_rebound_are_seen(path, backend):
    staged = ag.function(apply_to, backend=backend)
    scaling, shifting = Scaling(np.full(3, 2.0)), Shifting(np.full(3, 2.0))
    x = np.arange(3.0)

    def check(layer, lr):
        expected = apply_to(layer, x, lr)
        for _ in range(2):
            np.testing.assert_array_equal(staged(layer, x, lr), expected)

    for _ in range(2):
        for layer in [scaling, shifting, scaling, Scaling(np.ones(3)), shifting]:
            check(layer, 0.5)
            check(layer, 1)
    scaling.w = np.full(3, 3.0)   # (the trace's guard fails: traced again)
    check(scaling, 0.5)
    scaling.w[:] = 4.0
    check(scaling, 0.5)
    scaling.w = np.ones((3, 3))   # (another rank)
    check(scaling, 0.5)
    check(shifting, 0.5)
    # A dead object's id may be another's: its records go with it.
    for _ in range(5):
        check(Shifting(np.arange(3.0)), 0.5)
        check(Scaling(np.arange(3.0)), 0.5)
        gc.collect()


def check_lr(x, lr):
    if lr <= 0:
        raise ValueError("the learning rate is not positive")
    return x * lr


@pytest.mark.parametrize("backend", BACKENDS)
def test_multi_argument_errors_are_pythons_with_pythons_context(path, backend):
    x = np.ones(3)
    _assert_errors_have_pythons_context(ag.function(check_lr, backend=backend), (x, 0.5),
                                        (x, -1.0), x * 0.5, "the learning rate is not positive")


def checked_step(layer, x, lr):
    if lr <= 0:
        raise ValueError("the learning rate is not positive")
    return layer.forward(x) * lr


def test_multi_argument_calls_hold_no_references(path):
    staged = ag.function(checked_step, backend="numpy")
    layer, x = Scaling(np.ones(3)), np.ones(3)
    lr, bad = 0.25, -1.0
    for _ in range(2):
        staged(layer, x, lr)
        with pytest.raises(ValueError):
            staged(layer, x, bad)
    gc.collect()   # (tracing's cycles)
    before = [sys.getrefcount(v) for v in (layer, x, lr, bad)]
    for _ in range(300):
        staged(layer, x, lr)
        try:
            staged(layer, x, bad)
        except ValueError:
            pass
    gc.collect()
    assert [sys.getrefcount(v) for v in (layer, x, lr, bad)] == before
    dead = weakref.ref(layer)
    del layer
    gc.collect()
    assert dead() is None   # (the remembered signature holds its object weakly)


def test_repeated_calls_take_the_c_path(path):
    # The tests above are only worth their C half if it takes the calls: no Python frame of
    # runtime/trace.py runs for a call of the last signature.
    if path != "c":
        pytest.skip("the Python path")
    layer, x = Shifting(np.ones(3)), np.ones(3)
    staged = ag.function(apply_to)
    frames = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == trace.__file__:
            frames.append(frame.f_code.co_name)

    for args in [(layer, x, 0.5), (x, 2, "add"), (x, True, "mul"), (x, 2 ** 70, "add")]:
        fn = staged if len(args) == 3 and args[0] is layer else ag.function(mixed)
        fn(*args)
        fn(*args)
        sys.setprofile(profile)
        try:
            fn(*args)
        finally:
            sys.setprofile(None)
        assert frames == [], args
