"""rt.function's per-call path: the fast dispatch table for plain arguments, the hooks a
wrapper (ag.function) uses instead of adding a call layer, and no per-call memory growth."""

import gc
import tracemalloc

import numpy as np
import pytest

import runtime as rt
from runtime import trace


def test_plain_arguments_take_the_fast_table_and_give_the_traced_result():
    f = rt.function(lambda x, y, scale, mode: x * scale + y if mode == "mul" else x - y)
    x, y = np.arange(3.0), np.float64(2.0)
    np.testing.assert_array_equal(f(x, y, 3, "mul"), [2.0, 5.0, 8.0])
    assert len(f._fast) == 1
    np.testing.assert_array_equal(f(np.ones(5), np.float64(1.0), 3, "mul"), np.full(5, 4.0))
    np.testing.assert_array_equal(f(x, y, 3, "sub"), [-2.0, -1.0, 0.0])
    assert f.trace_count == 2


def test_fast_keys_tell_apart_what_the_trace_key_tells_apart():
    f = rt.function(lambda x, a: x * a)
    x = np.ones(2)
    assert f(x, 2).dtype == np.float64
    assert f(x, True).dtype == np.float64
    assert f(np.ones(2, np.float32), 2).dtype == np.float32
    assert f(np.ones((2, 2)), 2).shape == (2, 2)
    assert f(x, 2.5)[0] == 2.5                 # a Python float after an int: a new trace
    assert f(x, np.float64(2.0))[0] == 2.0     # a NumPy scalar is an input, not a constant
    assert f(x, np.float64(3.0))[0] == 3.0
    assert f(x, np.array(4.0))[0] == 4.0       # a 0-d array: its own signature
    assert f.trace_count == 7
    # A Python float is never taken for an array of that dtype (np.dtype("f8") == float).
    g = rt.function(lambda v: v * 2)
    assert g(1.0) == 2.0 and np.asarray(g(np.ones(1))).shape == (1,)


def test_arguments_that_are_not_plain_leaves_take_the_general_path():
    class Sub(np.ndarray):
        pass

    f = rt.function(lambda x: x + 1)
    sub = np.ones(2).view(Sub)
    np.testing.assert_array_equal(f(sub), [2.0, 2.0])
    np.testing.assert_array_equal(f((np.ones(2))[::2]), [2.0])
    np.testing.assert_array_equal(f(x=np.ones(2)), [2.0, 2.0])
    assert None not in f._fast
    h = rt.function(lambda pair: pair[0] + pair[1])
    np.testing.assert_array_equal(h((np.ones(2), np.ones(2))), [2.0, 2.0])
    assert h._fast == {}


def test_input_signature_is_checked_on_the_fast_path():
    f = rt.function(lambda x: x * 2, input_signature=[rt.TensorSpec((3,), np.float64)])
    f(np.ones(3))
    f(np.ones(3))
    with pytest.raises(ValueError, match="does not match"):
        f(np.ones(4))


def test_mutated_arguments_are_written_back_on_the_fast_path():
    @rt.function
    def f(x, i):
        x[i] = 7.0
        return x.sum()

    x = np.zeros(3)
    f(x, np.int64(0))
    assert f(x, np.int64(2)) == 14.0
    np.testing.assert_array_equal(x, [7.0, 0.0, 7.0])


def test_concrete_functions_take_plain_or_nested_arguments():
    f = rt.function(lambda x, pair: x + pair[0] * pair[1])
    concrete = f.get_concrete_function(np.ones(2), (np.ones(2), np.float64(3.0)))
    np.testing.assert_array_equal(concrete(np.ones(2), (np.full(2, 2.0), np.float64(3.0))),
                                  [7.0, 7.0])
    g = rt.function(lambda x, y: x - y).get_concrete_function(np.ones(2), np.ones(2))
    np.testing.assert_array_equal(g(np.full(2, 5.0), np.ones(2)), [4.0, 4.0])


class _Wrapped(rt.Function):
    """A wrapper in the style of ag.function: hooks only, no __call__ of its own."""

    def __init__(self, fn):
        super().__init__(fn)
        self.errors = []
        self.inlined = 0

    def _function_to_trace(self):
        fn = self.python_function

        def traced(*args):
            result = fn(*args)
            if isinstance(result, list):
                self.output_transform = lambda r: list(r) if isinstance(r, tuple) else r
                return tuple(result)
            return result
        return traced

    def _inline_call(self, args, kwargs):
        self.inlined += 1
        return self.python_function(*args, **kwargs)

    def _on_error(self, error):
        self.errors.append(type(error).__name__)
        raise RuntimeError("rewritten: %s" % error) from None


def test_wrapper_hooks_trace_transform_inline_and_rewrite_errors():
    w = _Wrapped(lambda x: [x + 1, x * 2])
    for _ in range(2):                      # general path, then fast path
        result = w(np.ones(2))
        assert isinstance(result, list) and len(result) == 2
    outer = rt.function(lambda x: w(x)[0] - 1)
    np.testing.assert_array_equal(outer(np.ones(2)), [1.0, 1.0])
    assert w.inlined == 1 and w.trace_count == 1

    checked = _Wrapped(lambda x: rt.Assert(x.sum() > 0, "sum must be positive") or x)
    checked(np.ones(2))
    for _ in range(2):                      # the failing run, on the fast path too
        with pytest.raises(RuntimeError, match="rewritten: sum must be positive"):
            checked(-np.ones(2))
    with pytest.raises(RuntimeError, match="rewritten"):
        checked.get_concrete_function("not an array", object())
    assert checked.errors[:2] == ["InvalidArgumentError", "InvalidArgumentError"]


def test_run_functions_eagerly_runs_the_python_function():
    calls = []

    def fn(x):
        calls.append(type(x).__name__)
        return x + 1

    f = rt.function(fn)
    f(np.ones(2))
    rt.run_functions_eagerly(True)
    try:
        assert rt.functions_run_eagerly()
        np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    finally:
        rt.run_functions_eagerly(False)
    f(np.ones(2))
    assert calls == ["Tensor", "ndarray"]


def test_errors_on_the_fast_path_do_not_chain_to_the_table_lookup():
    f = rt.function(lambda x: rt.Assert(x.sum() > 0, "positive") or x)
    f(np.ones(2))
    with pytest.raises(rt.InvalidArgumentError) as info:
        f(-np.ones(2))
    assert info.value.__context__ is None
    g = rt.function(lambda x: x.undefined_attribute)
    with pytest.raises(AttributeError) as info:
        g(np.ones(2))
    assert not isinstance(info.value.__context__, KeyError)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_repeated_calls_do_not_grow_memory(backend):
    if backend == "numba":
        pytest.importorskip("numba")

    def body(x):
        return rt.while_loop(lambda i, s: i < x.shape[0], lambda i, s: (i + 1, s + x[i]),
                             (0, 0.0))[1]

    f = rt.function(body, backend=backend)
    x = np.arange(16.0)
    for _ in range(200):
        f(x)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(3000):
            f(x)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 16 * 1024, "%d bytes more after 3000 calls" % grown
    assert len(f._fast) == 1 and f.trace_count == 1


def test_fast_key_is_none_for_structures_and_unknown_objects():
    assert trace._fast_key((np.ones(2), 3, "a", None, np.int32(1)), frozenset(),
                           set()) is not None
    assert trace._fast_key(([1],), frozenset(), set()) is None
    assert trace._fast_key((object(),), frozenset(), set()) is None
    # An object of a type the function keys by identity: its id, apart from any number.
    model = Model(1.0)
    key = trace._fast_key((model, 3), frozenset(), {Model})
    assert key == (trace._OBJECT, id(model), int, trace._SYMBOLIC)
    assert key != trace._fast_key((id(model), 3), frozenset(), {Model})


def test_numba_one_array_calls_skip_type_dispatch_only_for_arrays_it_was_compiled_for():
    pytest.importorskip("numba")
    f = rt.function(lambda x: x * 2.0 + x[0], backend="numba")
    x = np.arange(8.0)
    np.testing.assert_array_equal(f(x), x * 2.0)
    np.testing.assert_array_equal(f(x + 1), (x + 1) * 2.0 + 1)
    # The compiled code is called without Numba's dispatch.
    assert [record[1] is not None for record in f._fast.values()] == [True]
    # Same dtype and rank, but not what that code assumes: strided, read-only, unaligned.
    strided = np.arange(16.0)[1::2]
    readonly = np.arange(8.0) + 3
    readonly.flags.writeable = False
    unaligned = np.frombuffer(bytearray(b"\0" + np.arange(8.0).tobytes()), offset=1)
    assert not unaligned.flags.aligned and unaligned.flags.writeable
    for array in (strided, readonly, unaligned, x[::-1], x):
        np.testing.assert_array_equal(f(array), array * 2.0 + array[0])
    assert f.trace_count == 1
    with pytest.raises(rt.errors.OutOfRangeError):
        f(np.empty(0))


class Model:
    def __init__(self, scale):
        self.w = np.full(3, scale)

    @rt.function
    def apply(self, x, lr):
        return x * self.w + lr


class SlotModel:
    __slots__ = ("w",)   # (no __weakref__: the trace holds it while cached)

    def __init__(self, scale):
        self.w = np.full(3, scale)

    @rt.function
    def apply(self, x, lr):
        return x * self.w + lr


def test_methods_take_the_fast_table_keyed_by_the_instance():
    x = np.arange(3.0)
    a, b = Model(2.0), Model(3.0)
    for lr in (0.5, 0.25):   # (the second call of each: the fast table)
        np.testing.assert_array_equal(a.apply(x, lr), x * 2.0 + lr)
        np.testing.assert_array_equal(b.apply(x, lr), x * 3.0 + lr)
    assert Model.apply.trace_count == 2
    assert sorted(k[1] for k in Model.apply._fast) == sorted([id(a), id(b)])
    # A rebound array the trace captured: traced again, through the fast path's guard.
    a.w = np.full(3, 5.0)
    np.testing.assert_array_equal(a.apply(x, 1.0), x * 5.0 + 1.0)
    assert Model.apply.trace_count == 3
    # An instance that dies takes its records along: another object at its id traces.
    del a
    gc.collect()
    assert [k[1] for k in Model.apply._fast] == [id(b)]
    with pytest.warns(RuntimeWarning, match="traced 5 times"):
        for scale in (7.0, 8.0):
            c = Model(scale)
            np.testing.assert_array_equal(c.apply(x, 0.0), x * scale)
            np.testing.assert_array_equal(c.apply(x, 0.0), x * scale)
            del c
            gc.collect()
    assert Model.apply.trace_count == 5


def test_instances_that_cannot_be_weakly_referenced_take_the_general_path():
    x = np.arange(3.0)
    for scale in (2.0, 3.0):
        m = SlotModel(scale)
        for _ in range(2):
            np.testing.assert_array_equal(m.apply(x, 1.0), x * scale + 1.0)
    assert SlotModel.apply._fast == {} and SlotModel.apply.trace_count == 2


def test_a_bound_staged_method_says_what_it_is():
    m = Model(2.0)
    bound = m.apply
    assert bound.__name__ == "apply" and bound.__qualname__ == "Model.apply"
    assert bound.python_function(np.ones(3), 1.0)[0] == 3.0
    assert bound.get_concrete_function(np.ones(3), 1.0) is not None
    assert bound.trace_count == Model.apply.trace_count
    assert repr(bound).startswith("<bound rt.function apply of <")
    with pytest.raises(AttributeError):
        bound.no_such_attribute
