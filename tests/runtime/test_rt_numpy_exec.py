"""The NumPy interpreter: in-place updates when safe, errors that name the failing node."""

import time

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from equivalence import run_both, staged
from runtime import benchmarks, ops
from runtime.executors import get_executor, numpy_exec
from runtime.executors.numpy_exec import CompiledGraph
from runtime.graph import Graph, building


def _compiled(fn, *args):
    staged = rt.function(fn)
    concrete = staged.get_concrete_function(*args)
    return concrete.executable


def test_executor_interface_on_a_hand_built_graph():
    graph = Graph("hand_built")
    with building(graph):
        x = graph.add_input(np.float64, (None,))
        y = ops.get("multiply").bind1([x, 3.0])
        total = ops.get("sum").bind1([y], axis=None, keepdims=False)
    graph.outputs = [y, total]
    compiled = get_executor("numpy")(graph)
    scaled, summed = compiled(np.arange(3.0))
    np.testing.assert_array_equal(scaled, [0.0, 3.0, 6.0])
    assert summed == 9.0
    assert "v0_0 = a0 * c0" in compiled.source   # (an operator written as itself)


def test_dead_array_is_updated_in_place():
    def f(n):
        out = rt.zeros(n)

        def body(i):
            out[i] = i * 2.0
            return i + 1
        rt.while_loop(lambda i: i < n, body, (0,))
        return out
    staged = rt.function(f)
    staged(np.int64(10))
    concrete = staged.get_concrete_function(np.int64(10))
    while_step = [s for s in concrete.executable.steps if s.node.op.name == "while"][0]
    body = while_step.node.attrs["body"]
    compiled_body = CompiledGraph(body, [True] * len(body.inputs) + [False] * len(body.captured))
    assert [s.inplace for s in compiled_body.steps if s.node.op.name == "set_item"] == [True]
    # O(1) per write: 100k writes take about as long per element as 10k writes.
    timings = {}
    for n in (10_000, 100_000):
        start = time.perf_counter()
        result = staged(np.int64(n))
        timings[n] = (time.perf_counter() - start) / n
    np.testing.assert_array_equal(result, np.arange(100_000) * 2.0)
    assert timings[100_000] < 5 * timings[10_000]


def test_live_old_version_is_copied_not_overwritten():
    def f(a):
        b = a[:]          # a view of a's storage
        old = a + 0
        c = rt.zeros(3)
        d = c             # same handle
        c[0] = 1.0
        return b, old, c, d
    compiled = _compiled(f, np.zeros(3))
    set_items = [s for s in compiled.steps if s.node.op.name == "set_item"]
    assert [s.inplace for s in set_items] == [True]   # c was created in the graph, dead after


def test_constants_are_never_written():
    table = np.arange(3.0)

    @rt.function
    def f(i):
        t = rt.constant(table)
        t[i] = -1.0
        return t
    np.testing.assert_array_equal(f(np.int64(0)), [-1.0, 1.0, 2.0])
    np.testing.assert_array_equal(table, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(f(np.int64(1)), [0.0, -1.0, 2.0])


def test_loop_var_passed_in_and_still_live_is_copied_once_at_entry():
    @rt.function
    def f(a, n):
        def body(i, x):
            x[i] = -1.0
            return i + 1, x
        _, result = rt.while_loop(lambda i, x: i < n, body, (0, a * 1.0))
        return result
    np.testing.assert_array_equal(f(np.zeros(4), np.int64(2)), [-1.0, -1.0, 0.0, 0.0])


def test_loop_vars_that_swap_buffers_stay_correct(both):
    def f(a, b, n):
        def body(i, x, y):
            x[0] = x[0] + 1
            return i + 1, y, x
        return rt.while_loop(lambda i, x, y: i < n, body, (0, a, b))
    both(f, np.zeros(2), np.ones(2), np.int64(3))


def test_cond_output_passing_an_input_through_keeps_it_safe(both):
    def f(a, flag):
        b = rt.cond(flag, lambda: a, lambda: a * 2) if rt.is_tensor(flag) else (a if flag else a * 2)
        a[0] = 100.0
        return a, b
    both(f, np.zeros(2), np.bool_(True))
    both(f, np.zeros(2), np.bool_(False))


def test_runtime_error_in_a_nested_body_names_the_inner_node():
    @rt.function
    def f(x, n):
        def body(i, total):
            return i + 1, total + x[i * 2]     # reads past the end
        return rt.while_loop(lambda i, t: i < n, body, (0, 0.0))
    assert f(np.arange(10.0), np.int64(3)) == (3, 6.0)
    with pytest.raises(IndexError) as info:
        f(np.arange(4.0), np.int64(3))
    error = info.value
    assert isinstance(error, rt.errors.InvalidArgumentError)
    message = str(error)
    assert "index 4 is out of bounds" in message
    assert "While executing %" in message and "get_item" in message
    assert "test_rt_numpy_exec.py" in message and "in body" in message


def test_other_runtime_errors_keep_their_type_with_a_note():
    @rt.function
    def f(x, n):
        return rt.zeros(n) + x
    with pytest.raises(ValueError) as info:
        f(np.ones(3), np.int64(4))
    assert any("While executing" in note for note in getattr(info.value, "__notes__", []))


def test_error_names_the_node_of_its_own_trace_when_traces_look_alike():
    # Two traces of one function generate the same Python source; the failing node must be
    # described from the trace that failed.
    @rt.function
    def f(x, i):
        return x[i] * 2
    f(np.arange(3.0), np.int64(0))
    f(np.arange(6).reshape(3, 2), np.int64(0))
    with pytest.raises(IndexError) as info:
        f(np.arange(3.0), np.int64(5))
    assert "While executing %2:f64[] = get_item %0[%1]" in str(info.value)


def test_per_op_overhead_in_a_long_graph_loop():
    per_op, per_iteration = benchmarks.per_op_time(iterations=5000, ops_per_iteration=40)
    kernel = benchmarks.scalar_op_time(20000)
    print("per op %.3f us (kernel alone %.3f us), loop iteration %.3f us"
          % (per_op * 1e6, kernel * 1e6, per_iteration * 1e6))
    assert per_op < 2e-6


def _products(x, y):
    a = x @ y
    b = np.tanh(a)
    c = b @ y
    return np.exp(c).sum()


def test_intermediates_are_freed_as_soon_as_they_are_dead():
    import tracemalloc
    x, y = np.ones((300, 300)), np.full((300, 300), 1e-3)
    f = rt.function(_products, backend="numpy")
    expected = _products(x, y)
    assert f(x, y) == expected
    tracemalloc.start()
    try:
        result = f(x, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result == expected
    # Two 300x300 intermediates live at once (an op's input and its result), not all four.
    assert peak < 2.5 * x.nbytes
    source = f.get_concrete_function(x, y).executable.source
    assert "del v0_0" in source and "del v4_0" not in source    # (v4_0: the returned sum)


_REDUCED = [np.array([[1, 0, 3], [4, 5, 0]], dtype=np.int8),
            np.array([[True, False], [True, True]]),
            np.array([[1.5, np.nan], [-2.0, 4.0]]),
            np.zeros((0, 3))]


@pytest.mark.parametrize("x", _REDUCED, ids=["int8", "bool", "float_nan", "empty"])
@pytest.mark.parametrize("fn", [np.sum, np.prod, np.min, np.max, np.any, np.all])
def test_reductions_calling_their_ufunc_give_numpys_values_types_and_errors(fn, x):
    # (The kernels call np.add.reduce & co. directly: np.sum's result, dtype, type and
    # error, also for an empty array's min.)
    for kwargs in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": -1}):
        if fn in (np.sum, np.prod):
            kwargs = dict(kwargs, dtype=np.float32) if kwargs.get("axis") == 0 else kwargs
        try:
            expected = fn(x, **kwargs)
        except ValueError as error:
            with pytest.raises(ValueError, match=str(error)):
                rt.function(lambda a: fn(a, **kwargs))(x)
            continue
        result = rt.function(lambda a: fn(a, **kwargs))(x)
        np.testing.assert_array_equal(result, expected)
        assert type(result) is type(expected) and result.dtype == expected.dtype


def test_indexing_kernels_compiled_from_the_index_give_numpys_results():
    def f(x, i, j, v):
        a = x[:, i]
        b = x[i:, None, ..., -1]
        c = x[1:j:2, i]
        d = x[()]
        y = x.copy()
        y[:, j] = v
        y[i, 1:] = -v
        y[...] = y[::-1]
        return a, b, c, d, y

    x = np.arange(20.0).reshape(4, 5)
    for i, j in ((1, 3), (-2, 4), (0, -1)):
        expected = f(x, i, j, 9.0)
        for ours, theirs in zip(rt.function(f)(x, i, j, 9.0), expected):
            np.testing.assert_array_equal(ours, theirs)
            assert ours.shape == theirs.shape
        assert np.shares_memory(expected[0], x)
    with pytest.raises(IndexError, match="out of bounds"):
        rt.function(f)(x, 7, 1, 9.0)


def _update_graph(x_dtype=np.float64, read_after=False):
    """x - d, copied back into x (rt.function's writeback of `x -= d`), and x's old
    contents read after the subtraction where `read_after`."""
    graph = Graph("update")
    with building(graph):
        x = graph.add_input(x_dtype, (None,))
        d = graph.add_input(np.float64, (None,))
        new = ops.get("subtract").bind1([x, d])
        outputs = [new]
        if read_after:
            outputs.append(ops.get("sum").bind1([x], axis=None, keepdims=False))
    graph.outputs = outputs
    return graph


def test_an_update_copied_back_into_its_input_is_computed_in_the_input():
    x, d = np.arange(3.0), np.ones(3)
    compiled = CompiledGraph(_update_graph(), [True, True], copied_back=[(0, 0)])
    assert [s.inplace for s in compiled.steps] == [True]
    result, = compiled(x, d)
    assert result is x
    np.testing.assert_array_equal(x, [-1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        compiled(np.ones(1), np.ones(3))
    # Not where the old contents are read later, the result is of another dtype, the output
    # is not copied back, or the input is not the run's to write.
    cases = [(_update_graph(read_after=True), [True, True], [(0, 0)]),
             (_update_graph(np.int64), [True, True], [(0, 0)]),
             (_update_graph(), [True, True], []),
             (_update_graph(), [False, True], [(0, 0)])]
    for graph, owned, copied_back in cases:
        compiled = CompiledGraph(graph, owned, copied_back=copied_back)
        assert [s.inplace for s in compiled.steps][:1] == [False]
        x = np.arange(3, dtype=graph.inputs[0].dtype)
        assert compiled(x, d)[0] is not x
        np.testing.assert_array_equal(x, np.arange(3))


# --- control flow written into the graph's function -----------------------------------------

class _State:
    def __init__(self):
        self.total = np.zeros(3)
        self.steps = 0


def _loops_in_branches(state, xs, lengths, flag):
    a = b = np.zeros(3)       # two names for one array, then loop variables
    if flag:
        for t in reversed(range(xs.shape[0])):
            state.total += xs[t]          # an array of the state, updated in place
            if t < lengths[0]:
                a = a + xs[t]
            else:
                b = b * 0.5
        state.steps += 1
    else:
        for row in xs:
            if row.sum() > 5.0:
                return a, b               # (an early return from a graph loop)
            a += row                      # (b is a: Python updates both)
    return a, b


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_loops_in_branches_and_branches_in_loops_match_python(backend):
    xs = np.arange(12.0).reshape(4, 3) / 4
    for flag in (True, False):
        for scale in (1.0, 3.0):          # (3.0: the early return)
            run_both(_loops_in_branches, _State(), xs * scale, np.array([2, 1]),
                     np.bool_(flag), backend=backend, stage=staged)
    if backend == "numpy":
        # One function: the loops are Python `while`s, the branches `if`s, inlined.
        source = staged(_loops_in_branches, "numpy").get_concrete_function(
            _State(), xs, np.array([2, 1]), np.bool_(True)).executable.source
        assert source.count("while True:") == 2 and "        if " in source
        assert "run(" not in source.split("\n", 1)[1]


def _accumulate(xs, h0, b):
    acc = np.zeros(xs.shape[1])
    h = h0 * 1.0          # a new array: the loop may compute h's next value in it
    g = h0                # the caller's array: never written
    for t in range(xs.shape[0]):
        acc += xs[t]
        h = h + b
        g = g + b
    return acc, h, g


def _body_steps(fn, *args):
    """The steps of the body of the first loop of `fn`'s trace for `args`."""
    executable = staged(fn, "numpy").get_concrete_function(*args).executable
    loop, = [s for s in executable.steps if s.node.op.name == "while"]
    return loop.kernel.body.steps


def test_loop_variable_updates_are_computed_in_their_buffer_where_the_result_fits():
    xs = np.arange(12.0).reshape(4, 3)
    # h + b fits h (2 rows), or gives a new shape on the first iteration (h0 has 1 row):
    # NumPy's `h += b` would refuse it, Python's `h = h + b` makes a new array.
    for h0 in (np.ones((2, 3)), np.ones((1, 3))):
        run_both(_accumulate, xs, h0, np.full((2, 3), 0.5), backend="numpy", stage=staged)
    updates = [s for s in _body_steps(_accumulate, xs, np.ones((2, 3)), np.ones((2, 3)))
               if s.node.op.name == "add" and s.node.outputs[0].shape]
    assert [s.inplace for s in updates] == [True, True, False]
    # A shape no broadcast fits raises NumPy's error, as in Python (not the refused
    # in-place update's, nor with it as its context).
    run_both(_accumulate, xs, np.ones((2, 3)), np.ones((3, 3)), backend="numpy",
             stage=staged)
    with pytest.raises(ValueError) as python_error:
        _accumulate(xs, np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError) as graph_error:
        staged(_accumulate, "numpy")(xs, np.ones((2, 3)), np.ones((3, 3)))
    assert str(graph_error.value).startswith(str(python_error.value))
    assert graph_error.value.__context__ is None


def _divide_under_errstate(xs, z):
    h = np.ones(xs.shape[1])
    g = np.ones(xs.shape[1])
    with np.errstate(divide="ignore"):
        for t in range(xs.shape[0]):
            g = g / z + xs[t]
            h = h / z
    return g, h


def test_loop_variable_updates_under_errstate_are_computed_in_place_under_it():
    import warnings
    xs = np.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for z in (np.array([1.0, 0.0, 2.0]), np.array([-1.0, 2.0, 0.0])):
            run_both(_divide_under_errstate, xs, z, backend="numpy", stage=staged)
    divides = [s for s in _body_steps(_divide_under_errstate, xs, xs[0])
               if s.node.op.name == "divide"]
    assert [s.inplace for s in divides] == [False, True]


def _update_read_after(xs):
    h = np.zeros(xs.shape[1])
    deltas = np.zeros(xs.shape[1])
    for t in range(xs.shape[0]):
        previous = h
        h = h + xs[t]                 # the old h is read below: not in its buffer
        deltas = deltas + (h - previous)
    return h, deltas


def test_a_loop_variable_whose_old_value_is_read_later_is_not_updated_in_place():
    xs = np.arange(12.0).reshape(4, 3)
    run_both(_update_read_after, xs, backend="numpy", stage=staged)
    first_add = [s for s in _body_steps(_update_read_after, xs) if s.node.op.name == "add"][0]
    assert not first_add.inplace


def _nested_loops(x, n, depth):
    if depth == 0:
        return x + 1.0

    def body(i, y):
        return i + 1, _nested_loops(y, n, depth - 1)
    return rt.while_loop(lambda i, y: i < n, body, (0, x))[1]


def test_loops_nested_deeper_than_python_allows_inlining_are_called():
    # (Python allows 20 nested loops in a function; past _MAX_DEPTH a nested graph is a
    # function of its own, called from the loop.)
    def f(x, n):
        return _nested_loops(x, n, 14)
    result, staged_f = run_both(f, np.zeros(2), np.int64(2), backend="numpy")
    np.testing.assert_array_equal(result, [2.0 ** 14] * 2)
    source = staged_f.get_concrete_function(np.zeros(2), np.int64(2)).executable.source
    inlined = source.count("while True:")
    assert inlined == numpy_exec._MAX_DEPTH and "run(" in source.split("\n", 1)[1]


def test_the_mean_of_a_whole_array_is_numpy_s_bit_for_bit():
    # (The interpreter writes out np.mean's steps for a whole float64 array: ops/reductions.
    # Numba's compiled mean sums in another order, within rounding of NumPy's.)
    backend = "numpy"

    def loss(x):
        return np.mean(x)

    f = ag.function(loss, backend=backend)
    rng = np.random.default_rng(0)
    cases = [rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300) for n in (1, 7, 32, 1001)]
    cases += [rng.standard_normal((5, 8))[:, ::3], np.array([1e308, 1e308]),
              np.array([np.inf, -np.inf]), np.array([np.nan, 1.0]), np.arange(6.0)[::-2]]
    with np.errstate(all="ignore"):
        for x in cases:
            got, want = f(x), loss(x)
            assert type(got) is type(want)
            assert got == want or (np.isnan(got) and np.isnan(want)), (x, got, want)
    for x in (np.arange(5), np.ones(4, np.float32)):   # (other dtypes: np.mean itself)
        got, want = ag.function(loss, backend=backend)(x), loss(x)
        assert got == want and type(got) is type(want)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(f(np.zeros(0)))
