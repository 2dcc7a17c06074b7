"""ag.function: decorator forms, methods, tracing and its cache, eager debugging mode."""

import sys

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph.impl.function import Function, function, functions_run_eagerly, \
    run_functions_eagerly

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/runtime")
from equivalence import run_both  # noqa: E402

BACKENDS = ["numpy", "numba", "auto"]


def clipped_sum(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > limit:
            break
        total += x[i]
    return total


def test_bare_and_with_arguments():
    bare = function(clipped_sum)
    configured = function(backend="numpy")(clipped_sum)
    x = np.array([1.0, 2.0, 10.0, 3.0])
    assert bare(x, np.float64(5.0)) == configured(x, np.float64(5.0)) == 3.0
    assert isinstance(bare, Function) and configured.backend == "numpy"
    assert bare.python_function is clipped_sum
    assert bare.__name__ == "clipped_sum" and bare.__doc__ == clipped_sum.__doc__


def test_unknown_backend_is_an_error():
    with pytest.raises(ValueError, match="backend"):
        function(clipped_sum, backend="tensorflow")


def test_traces_once_per_dtype_and_rank_not_per_shape():
    staged = function(clipped_sum, backend="numpy")
    staged(np.arange(3.0), np.float64(1.0))
    staged(np.arange(7.0), np.float64(4.0))
    assert staged.trace_count == 1
    staged(np.arange(3), np.float64(1.0))          # int64: a new signature
    assert staged.trace_count == 2
    staged(np.arange(3.0), 2.0)                    # Python float: weak, a new signature
    staged(np.arange(3.0), 3.0)                    # ... whose value is an input
    assert staged.trace_count == 3
    static = function(clipped_sum, backend="numpy", static_argnames=["limit"])
    static(np.arange(3.0), 2.0)
    static(np.arange(3.0), 3.0)                    # a static number: a constant of the trace
    assert static.trace_count == 2


side_effects = []
traced = set()


def with_python_side_effect(x):
    side_effects.append("called")     # (an append to a list of the state: every call)
    traced.add("traced")              # (another Python side effect: while tracing only)
    return x * 2


def test_python_side_effects_happen_while_tracing_only_but_appends_to_state_lists():
    side_effects.clear()
    traced.clear()
    staged = function(with_python_side_effect, backend="numpy")
    for _ in range(3):
        staged(np.arange(2.0))
    assert side_effects == ["called"] * 3 and traced == {"traced"}
    traced.clear()
    staged(np.arange(2.0))
    assert traced == set() and staged.trace_count == 1


def test_get_concrete_function_gives_the_graph():
    staged = function(clipped_sum, backend="numpy")
    concrete = staged.get_concrete_function(np.arange(3.0), np.float64(1.0))
    text = str(concrete.graph)
    assert "while" in text and "cond" in text
    assert concrete(np.arange(4.0), np.float64(2.0)) == 3.0
    assert staged.trace_count == 1


def running_total(x):
    total = 0.0
    for i in range(x.shape[0]):     # a static length: a Python loop, unrolled
        total += x[i]
    return total, x.shape[0]


def test_input_signature_fixes_shapes():
    staged = function(running_total, backend="numpy",
                      input_signature=[rt.TensorSpec((3,), np.float64)])
    assert staged(np.arange(3.0)) == (3.0, 3)
    assert "while" not in str(staged.get_concrete_function(np.arange(3.0)).graph)
    with pytest.raises(ValueError):
        staged(np.arange(4.0))


def test_python_loop_with_a_symbolic_break():
    staged = function(clipped_sum, backend="numpy",
                      input_signature=[rt.TensorSpec((4,), np.float64),
                                       rt.TensorSpec((), np.float64)])
    x = np.array([1.0, 2.0, 10.0, 3.0])
    assert staged(x, np.float64(5.0)) == 3.0


class Model:
    def __init__(self, scale):
        self.scale = scale

    @function(backend="numpy")
    def apply(self, x):
        out = np.zeros_like(x)
        for i in range(x.shape[0]):
            if x[i] > 0:
                out[i] = x[i] * self.scale
        return out


def test_methods_trace_per_instance():
    a, b = Model(2.0), Model(3.0)
    x = np.array([1.0, -1.0, 2.0])
    assert np.array_equal(a.apply(x), [2.0, 0.0, 4.0])
    assert np.array_equal(b.apply(x), [3.0, 0.0, 6.0])
    assert np.array_equal(a.apply(x), [2.0, 0.0, 4.0])
    assert a.apply.trace_count == 2
    assert a.apply.python_function(x)[0] == 2.0
    assert "while" in str(a.apply.get_concrete_function(x).graph)
    assert Model.apply.python_function.__name__ == "apply"


@function(backend="numpy")
def inner(x):
    if x > 0:
        return x
    return -x


@function(backend="numpy")
def outer(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += inner(x[i])
    return total


def test_an_ag_function_called_while_tracing_becomes_part_of_the_graph():
    assert outer(np.array([1.0, -2.0, 3.0])) == 6.0
    assert inner.trace_count == 0 and outer.trace_count == 1


def test_run_functions_eagerly_runs_the_original_python():
    calls = []

    def probe(x):
        calls.append(type(x))
        return x + 1

    staged = function(probe, backend="numpy")
    run_functions_eagerly(True)
    try:
        assert functions_run_eagerly()
        assert staged(np.float64(1.0)) == 2.0
    finally:
        run_functions_eagerly(False)
    assert not functions_run_eagerly()
    assert calls == [np.float64] and staged.trace_count == 0
    staged(np.float64(1.0))
    assert calls[-1] is rt.Tensor and staged.trace_count == 1


def python_branch_on_tensor(x):
    if x > 0:
        return x
    return -x


def test_autograph_false_traces_without_conversion():
    staged = function(python_branch_on_tensor, backend="numpy", autograph=False)
    with pytest.raises(TypeError, match="truth value of a symbolic tensor"):
        staged(np.float64(1.0))
    assert function(lambda x: x * 2, autograph=False, backend="numpy")(np.float64(2.0)) == 4.0


def fails_while_tracing(x):
    return np.frobnicate(x)  # noqa: there is no such function


def test_errors_are_raised_never_a_silent_eager_fallback():
    with pytest.raises(AttributeError, match="frobnicate"):
        function(fails_while_tracing, backend="numpy")(np.arange(2.0))


def test_auto_backend_gives_the_same_results():
    x = np.array([1.0, 2.0, 10.0, 3.0])
    assert function(clipped_sum)(x, np.float64(5.0)) == clipped_sum(x, np.float64(5.0))


def rows_total(m):
    total = 0.0
    count = 0
    for row in m:                  # a static first dimension: still one graph loop
        total = total + np.sum(row)
        count += 1
    return total, count


def test_loop_over_an_array_with_a_static_first_dimension():
    staged = function(rows_total, backend="numpy",
                      input_signature=[rt.TensorSpec((3, 2), np.float64)])
    m = np.arange(6.0).reshape(3, 2)
    assert staged(m) == rows_total(m)


class Doubler:
    def __call__(self, x):
        if x > 0:
            return x * 2
        return x


def test_callable_objects():
    staged = function(Doubler(), backend="numpy")
    assert staged(np.float64(3.0)) == 6.0 and staged(np.float64(-1.0)) == -1.0
    assert staged.trace_count == 1


def _grows_until(x, limit):
    s = 0.0  # a Python float: the condition turns symbolic after the first iteration
    steps = 0
    while s < limit:
        ag.set_loop_options(maximum_iterations=5)
        s = s + x[0]
        steps += 1
    return s, steps


def test_maximum_iterations_counts_the_python_iterations_before_the_graph_loop():
    s, steps = ag.function(_grows_until, backend="numpy")(np.ones(2), 100.0)
    assert (float(s), int(steps)) == (5.0, 5)
    # Plain Python ignores the option: the loop runs to its own end.
    assert _grows_until(np.ones(2), 100.0) == (100.0, 100)


def test_staged_function_looks_like_the_function_it_stages():
    import copy
    import inspect

    def scaled(x, scale: float = 2.0, *, shift=0.0):
        """Scales and shifts."""
        return x * scale + shift

    scaled.tag = "kept"
    staged = ag.function(scaled)
    assert inspect.signature(staged) == inspect.signature(scaled)
    assert (staged.__name__, staged.__qualname__, staged.__doc__, staged.__module__) == (
        scaled.__name__, scaled.__qualname__, scaled.__doc__, scaled.__module__)
    assert staged.__wrapped__ is scaled and staged.tag == "kept"
    assert copy.copy(staged) is staged and copy.deepcopy(staged) is staged
    assert repr(staged).startswith("<ag.function") and callable(staged)
    np.testing.assert_array_equal(staged(np.ones(2), 3.0, shift=1.0), [4.0, 4.0])


def test_ag_functions_pickle_by_reference_and_work_in_a_process_pool():
    import concurrent.futures
    import multiprocessing
    import pickle
    assert pickle.loads(pickle.dumps(outer)) is outer
    assert pickle.loads(pickle.dumps(Model.apply)) is Model.apply
    x = np.array([1.0, -2.0, 3.0])
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        assert pool.submit(outer, x).result() == outer(x) == 6.0


def _decrement_an_alias(k, x):
    m = k
    if x[0] > 0:            # a graph if
        m -= 1
    for i in range(x.shape[0]):   # a graph loop
        m += x[i]
    if isinstance(m, np.ndarray):
        m[()] = m * 2
    return m, k


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_0d_array_argument_is_mutated_through_an_alias_in_graph_control_flow(backend):
    for k in (np.array(5.0), np.float64(5.0)):
        run_both(_decrement_an_alias, k, np.array([1.0, 2.0]), backend=backend, stage=function)


def _countdown(n):
    while n > 0:
        yield n
        n -= 1


async def _fetch(x):
    return x


async def _stream(x):
    yield x


@pytest.mark.parametrize("fn, kind", [(_countdown, "a generator function"),
                                      (_fetch, "an async function"),
                                      (_stream, "an async generator function")])
def test_generators_and_async_functions_are_refused_when_decorated(fn, kind):
    line = fn.__code__.co_firstlineno
    for stage, error in ((function, ag.ConversionError), (rt.function, TypeError)):
        with pytest.raises(error) as info:
            stage(fn)
        message = str(info.value)
        assert isinstance(info.value, TypeError)
        assert "cannot stage %s at %s:%d" % (fn.__name__, __file__, line) in message
        assert kind in message and "without" in message and "decorate" not in message


def test_a_generator_called_from_a_staged_function_runs_while_tracing():
    def total(x):
        s = x[0] * 0
        for k in _countdown(3):
            s = s + k * x[0]
        return s
    for backend in BACKENDS:
        run_both(total, np.array([2.0]), backend=backend, stage=function)


def _flags_and_total(x):
    total = 0.0
    for i in range(x.shape[0]):   # a graph loop
        total += x[i]
    return True, 1, None, [False, total], {"ok": total > 1, "n": 2}


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_values_in_results_stay_python_values_next_to_graph_loops(backend):
    result, _ = run_both(_flags_and_total, np.arange(3.0), backend=backend, stage=function)
    assert result[0] is True and type(result[1]) is int and result[2] is None
    assert result[3][0] is False and type(result[4]["n"]) is int


def _bool_or_number(x, flag):
    if x[0] > 0:
        flag -= 1      # a Python int now, on this path only
    return flag


def _bool_or_number_returned(x):
    if x[0] > 0:
        return True, 1
    return 0, 0


def _bool_loop_variable(x):
    n = 0
    for i in range(x.shape[0]):
        n = x[i] > 0
    return n


def _bitwise_and_of_a_bool_or_number(x, flag):
    if x[0] > 0:
        flag -= 1
    return flag & True, flag + 1   # True & True is a bool, 1 & True an int


# Found by the fuzzer (tools/fuzz, seeds 707, 1313, 5541, 1567, 2969, 5909, 9030, 57, 7111,
# 2777, 7936, 5301, 4539, 2198, 5578, 6210), minimised: values whose kind (bool, int,
# float, dtype; 0-d array or scalar) depends on the path the graph takes.

def _int_or_float(x, n):
    b = x[0] if x[0] > 1 else n
    return b, b + 1, b / 2, b > 1, int(b), float(b)


def _int_or_float_returned(x, n):
    if np.all(x):
        return n, 1.0
    return 1.5, 0


def _int_or_float_result_of_or(x, flag):
    flag += x.shape[0]
    return flag or 1.0


def _total_from_an_int(x):
    total = 0                    # an int if the loop runs no iteration
    for i in range(x.shape[0]):
        if x[i] > 0:
            total = total + x[i]
    return total


def _float16_or_float64(x, flag):
    if flag >= x[-1]:
        return np.sqrt(flag)     # np.sqrt of a bool is a float16
    return x[0]


def _scalar_or_0d_array(x, k):
    for i in range(x.shape[0]):
        if x[i] > 0:
            k = 1.5              # a float where k was a 0-d array
    return k


def _bool_or_int_through_min(x, flag):
    if np.all(x > 1.0):
        flag += 4
    return min(flag, flag)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("fn, arguments", [
    (_bitwise_and_of_a_bool_or_number, [(np.ones(2), False), (-np.ones(2), False)]),
    (_bool_or_number, [(np.ones(2), False), (-np.ones(2), True)]),
    (_bool_or_number_returned, [(np.ones(2),), (-np.ones(2),)]),
    (_bool_loop_variable, [(np.ones(2),), (np.ones(0),)]),
    (_int_or_float, [(np.array([2.0]), 5), (np.array([0.0]), 5)]),
    (_int_or_float_returned, [(np.ones(2), 4), (np.zeros(2), 4)]),
    (_int_or_float_result_of_or, [(np.ones(0), True), (np.ones(1), False)]),
    (_total_from_an_int, [(np.array([1.0, -2.0]),), (np.array([-1.0]),), (np.ones(0),)]),
    (_float16_or_float64, [(np.array([0.0, 2.0]), True), (np.array([3.0, 2.0]), False)]),
    (_scalar_or_0d_array, [(np.ones(2), np.array(-1.0)), (-np.ones(2), np.array(-1.0))]),
    (_bool_or_int_through_min, [(np.array([-2.0]), False), (np.array([2.0]), True)]),
])
def test_a_value_whose_kind_depends_on_the_path_comes_back_as_python_has_it(
        fn, arguments, backend):
    # A graph value has one dtype (NumPy's promotion of the paths' values); the graph also
    # carries which kind the path taken gave it, so True never comes back as 1, 5 never as
    # 5.0, a float never as a 0-d array.
    staged = function(fn, backend=backend)
    for args in arguments:
        run_both(fn, *args, backend=backend, stage=lambda f, backend: staged)


def _negative_of_a_bool_or_an_int(x, y, flag):
    if np.all(x < 2.0):
        flag -= flag            # an int on this path, a bool on the other
    return y * np.exp(-np.abs(flag))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_an_operation_python_refuses_on_one_path_raises_there_when_the_graph_runs(backend):
    # (Fuzzer seed 2455.) `-` of a bool is a TypeError in NumPy; of an int it is not.
    staged = function(_negative_of_a_bool_or_an_int, backend=backend)
    for x in (np.array([1.0]), np.array([3.0])):
        run_both(_negative_of_a_bool_or_an_int, x, np.array([2.0]), False, backend=backend,
                 stage=lambda f, backend: staged)


def _printed_bool_or_number(x, flag):
    for i in range(1, x.shape[0]):
        print("flag", flag, f"{flag}", "%s" % (flag,))
        flag += i
    return x


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_printed_value_whose_kind_depends_on_the_path_prints_as_python(backend):
    # (Fuzzer seeds 2451, 4261, 5776: True was printed as 1.)
    for args in ((np.array([2.0, 3.0, 4.0]), True), (np.array([2.0]), False)):
        run_both(_printed_bool_or_number, *args, backend=backend, stage=function)


def _two_joins_combined(x, n):
    a = x[0] if x[0] > 0 else n
    b = x[1] if x[1] > 0 else n
    return a + b, a * b > 1, a / b      # an int, or a float, depending on two choices


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_values_whose_kinds_depend_on_different_conditions_combine_as_in_python(backend):
    staged = function(_two_joins_combined, backend=backend)
    for x in ([1.0, -1.0], [1.0, 2.0], [-1.0, -1.0], [-1.0, 3.0]):
        run_both(_two_joins_combined, np.array(x), 2, backend=backend,
                 stage=lambda f, backend: staged)


def _five_joins_combined(x, n):
    a = x[0] if x[0] > 0 else n
    b = x[1] if x[1] > 0 else n
    c = x[2] if x[2] > 0 else n
    d = x[3] if x[3] > 0 else n
    e = x[4] if x[4] > 0 else n
    return np.array([a, b, c, d, e])    # int64 or float64: 32 combinations of choices


def test_combining_too_many_values_whose_kinds_depend_on_different_choices_is_refused():
    with pytest.raises(TypeError) as info:
        function(_five_joins_combined, backend="numpy")(np.ones(5), 2)
    message = str(info.value)
    assert message.startswith("the result is float64 or int64 depending on the path, which "
                              "a graph cannot return or print as Python does: ")
    assert "it combines values whose kinds depend on different choices, more than 16 " \
        "combinations of them, such as: 'x[0] if x[0] > 0 else n' is f64[] on the true " \
        "branch but a Python int on the false branch" in message
    assert "(%s:%d in _five_joins_combined)" % (
        __file__, _five_joins_combined.__code__.co_firstlineno + 1) in message


def _arithmetic_on_a_bool_or_number(x, flag):
    if x[0] > 0:
        flag -= 1           # an int on this path, a bool on the other
    for i in range(x.shape[0]):
        if x[i] > 2:
            flag = True
    both = flag & True      # a bool or a number still: not returned
    return (flag + 1, flag * 2.5, -flag, flag > 0, (both | (flag > 0)) == 1,
            x[0] if flag else 0.0, abs(flag), ~flag, flag + flag)


@pytest.mark.parametrize("backend", BACKENDS)
def test_arithmetic_on_a_bool_joined_with_a_number_gives_what_python_gives(backend):
    for x in (np.array([1.0, 3.0]), np.array([-1.0, 0.0]), np.array([2.0, 0.0])):
        for flag in (False, True):
            run_both(_arithmetic_on_a_bool_or_number, x, flag, backend=backend,
                     stage=function)


# A Python bool a graph carries (a loop variable, a branch's output, `not t`, a comparison of
# range items) stays a Python bool: in arithmetic it is the int it is (True + True is 2), not
# NumPy's bool (np.True_ + np.True_ is True; np.True_ - np.True_ raises). (Fuzzer seed 8258.)

def _python_bools_in_a_loop(x, flag):
    c = flag
    for i in range(x.shape[0]):
        c = c + flag        # an int after an iteration, the bool with none
    for i in range(x.shape[0], -1, -1):
        flag -= flag        # (seed 8258: NumPy refuses `-` of bools)
    counts = 0
    for i in range(x.shape[0]):
        counts = (i > 0) + (i > 1)   # range's items are Python ints, i > 0 a Python bool
    return c, flag, counts


def _python_bools_from_a_branch(x):
    found = False
    if x[0] > 0:
        found = True        # a Python bool on every path
    t = not x[1] > 0        # `not` makes a Python bool
    b = bool(x[1])
    return (found + found, -found, abs(found), +found, ~found, found * 2.5, found & True,
            found ^ True, t + 1, t - t, -t, t | t, b + b, -b, found + (x[1] > 0))


def _python_or_numpy_bool(x):
    found = False           # a Python bool on one path, a NumPy bool on the other
    if x[0] > 0:
        found = x[1] > 0
    return found + found, found + 1, found & True, found + (x[1] > 0), abs(found)


def _negative_of_a_python_or_numpy_bool(x):
    found = False
    if x[0] > 0:
        found = x[1] > 0
    return -found           # 0, or NumPy's TypeError


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("fn, arguments", [
    (_python_bools_in_a_loop, [(np.ones(3), True), (np.ones(0), True), (np.ones(1), False)]),
    (_python_bools_from_a_branch, [(np.array([1.0, 2.0]),), (np.array([-1.0, 0.0]),)]),
    (_python_or_numpy_bool, [(np.array([1.0, 2.0]),), (np.array([-1.0, 2.0]),),
                             (np.array([1.0, -2.0]),)]),
    (_negative_of_a_python_or_numpy_bool, [(np.array([1.0, 2.0]),), (np.array([-1.0, 2.0]),)]),
])
def test_a_python_bool_a_graph_carries_is_an_int_in_arithmetic_as_in_python(
        fn, arguments, backend):
    staged = function(fn, backend=backend)
    for args in arguments:
        run_both(fn, *args, backend=backend, stage=lambda f, backend: staged)


def _two_python_or_numpy_bools(x):
    a = False
    if x[0] > 0:
        a = x[1] > 0
    b = False
    if x[1] > 0:
        b = x[0] > 0
    return a + b            # each a Python or a NumPy bool by its own choice


def test_adding_python_or_numpy_bools_chosen_by_different_conditions_is_refused():
    with pytest.raises(TypeError) as info:
        function(_two_python_or_numpy_bools, backend="numpy")(np.ones(2))
    message = str(info.value)
    assert message.startswith("a value that is a Python bool on some paths and a NumPy bool "
                              "on others is an operand of np.add, ")
    assert "'a' is bool[] on the true branch but a Python bool on the false branch (%s:%d" % (
        __file__, _two_python_or_numpy_bools.__code__.co_firstlineno + 2) in message
    assert "`bool(x)` for a Python bool, `np.bool_(x)` for a NumPy bool" in message


def test_simultaneous_first_calls_from_threads_convert_and_trace_once_per_signature():
    import threading
    staged = function(clipped_sum, backend="numpy")
    inputs = [(np.arange(4.0), np.float64(2.0)), (np.arange(4), np.int64(2))]
    start, results = threading.Barrier(8), [None] * 8

    def work(t):
        start.wait()
        results[t] = [staged(*inputs[(t + i) % 2]) for i in range(50)]

    workers = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert staged.trace_count == 2
    for t, values in enumerate(results):
        for i, value in enumerate(values):
            x, limit = inputs[(t + i) % 2]
            assert value == clipped_sum(x, limit) and type(value) is type(clipped_sum(x, limit))


# --- an error raised while tracing, after ops that may raise first when the graph runs -------
# (minimised fuzzer programs: Python raises the first error on its path; a graph raises an
# error it met while tracing only after the ops traced before it, which may raise first.)

def _indexes_then_raises(x):
    x[1]                                   # IndexError where x is shorter
    raise ValueError("bad value %d" % 0)


def _asserts_then_reads_an_unbound_name(x, flag):
    assert flag, x.shape                   # the message is symbolic: checked when run
    if 0.0:
        last = 1.0
    return last


def _asserts_on_a_tensor_then_indexes_an_empty_list(x):
    assert not x.shape[0] <= 3.0, "bad value %d" % len(x)
    vals = []
    return vals[-1], 0 - len(x)


def _loop_reads_an_unbound_name_then_raises(x, n):
    c = 0
    while c < len(x):
        c += 1
        last = last                        # noqa: F821 (UnboundLocalError if it runs)
    raise RuntimeError("bad value %d" % n)


def _prints_then_indexes_an_empty_list(x):
    print("first", x[0])
    return [][0]


@pytest.mark.parametrize("fn, args", [
    (_indexes_then_raises, (np.zeros(0),)),
    (_indexes_then_raises, (np.zeros(3),)),
    (_asserts_then_reads_an_unbound_name, (np.zeros(0), False)),
    (_asserts_then_reads_an_unbound_name, (np.zeros(0), True)),
    (_asserts_on_a_tensor_then_indexes_an_empty_list, (np.zeros(0),)),
    (_asserts_on_a_tensor_then_indexes_an_empty_list, (np.zeros(5),)),
    (_loop_reads_an_unbound_name_then_raises, (np.zeros(1), 4)),
    (_loop_reads_an_unbound_name_then_raises, (np.zeros(0), 4)),
    (_prints_then_indexes_an_empty_list, (np.zeros(0),)),
    (_prints_then_indexes_an_empty_list, (np.ones(2),)),
])
def test_an_error_met_while_tracing_is_raised_after_what_the_graph_runs_before_it(fn, args):
    run_both(fn, *args, backend="numpy", stage=function)


@pytest.mark.parametrize("backend", ["numba", "auto"])
def test_an_error_met_while_tracing_waits_for_the_ops_before_it_on_every_backend(backend):
    for x in (np.zeros(0), np.zeros(2)):
        run_both(_indexes_then_raises, x, backend=backend, stage=function)
        run_both(_prints_then_indexes_an_empty_list, x, backend=backend, stage=function)


def test_an_error_met_while_tracing_keeps_its_message_and_names_the_users_line():
    staged = function(_indexes_then_raises, backend="numpy")
    for _ in range(2):   # traced again on each call, as Python runs the code again
        with pytest.raises(ValueError) as info:
            staged(np.zeros(3))
        assert str(info.value).startswith("bad value 0")
        assert str(info.traceback[-1].path) == __file__
        assert "raise ValueError" in str(info.traceback[-1].statement)
    assert staged.trace_count == 2


def _refused_after_an_index(x):
    x[1]
    y = 0.0
    for i in range(x.shape[0]):
        y = "text"           # a graph loop variable cannot become a str: refused
    return y


def test_a_refusal_met_while_tracing_is_raised_while_tracing():
    # Only Python's own errors wait for the graph to run: a refusal of graph mode says at
    # once what cannot be staged, also where an op before it would raise when run.
    staged = function(_refused_after_an_index, backend="numpy")
    with pytest.raises(ag.StagingError, match="'y'"):
        staged.get_concrete_function(np.zeros(3))
