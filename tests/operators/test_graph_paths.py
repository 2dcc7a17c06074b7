"""The graph paths called the way converted code calls the overloads (hand-written state
functions inside an rt.function trace), independent of the converters."""

import numpy as np
import pytest

import runtime as rt
from autograph import operators as ag__
from autograph.operators import py_builtins
from autograph.operators.graph import TensorList, UndefinedInBranchError
from autograph.operators.graph import builtins as graph_builtins
from autograph.operators.symbolic import GraphPathNotImplemented


def test_every_builtin_overload_with_a_graph_path_has_one():
    for builtin in (print, len, range, enumerate, zip, abs, int, float, bool, min, max, sum,
                    any, all, isinstance, iter):
        assert callable(py_builtins.GRAPH_PATHS[builtin])


def test_overloads_without_a_graph_path_say_so():
    def traced(x):
        return py_builtins.overload_of(next)(x)

    with pytest.raises(GraphPathNotImplemented, match="next"):
        rt.function(traced)(np.arange(3.0))


def test_if_stmt_outputs_through_get_and_set_state():
    def traced(x):
        y = x * 0

        def get_state():
            return (y,)

        def set_state(values):
            nonlocal y
            (y,) = values

        def body():
            nonlocal y
            y = x + 1

        def orelse():
            nonlocal y
            y = x - 1

        ag__.if_stmt(x > 0, body, orelse, get_state, set_state, ("y",), 1)
        return y

    staged = rt.function(traced)
    assert staged(np.float64(2.0)) == 3.0 and staged(np.float64(-2.0)) == -3.0
    assert staged.trace_count == 1


def test_if_stmt_variable_outputs_through_the_blocks_closure_cells():
    # What converted code passes for outputs that are all variables: no state functions.
    def traced(x):
        y = x * 0
        z = x * 0

        def body():
            nonlocal y
            y = x + 1

        def inner():
            nonlocal z
            z = x * 3

        def orelse():
            # z is assigned by a nested statement's block, reached through this one's cells.
            ag__.if_stmt(True, inner, None, None, None, ("z",), 1)()

        ag__.if_stmt(x > 0, body, orelse, None, None, ("y", "z"), 2)
        return y, z

    staged = rt.function(traced)
    assert staged(np.float64(2.0)) == (3.0, 0.0)
    assert staged(np.float64(-2.0)) == (0.0, -6.0)
    assert staged.trace_count == 1


_global_total = 0.0


def test_if_stmt_global_outputs_through_the_blocks_globals():
    global _global_total

    def traced(x):
        def body():
            global _global_total
            _global_total = x + 1

        def orelse():
            global _global_total
            _global_total = x - 1

        ag__.if_stmt(x > 0, body, orelse, None, None, ("_global_total",), 1)
        return _global_total

    try:
        staged = rt.function(traced)
        assert staged(np.float64(2.0)) == 3.0 and staged(np.float64(-2.0)) == -3.0
    finally:
        _global_total = 0.0


def test_an_output_the_blocks_do_not_reach_is_an_internal_error_not_a_new_global():
    def traced(x):
        y = x * 0

        def body():
            pass   # (a converter bug: the block does not declare the output)

        ag__.if_stmt(x > 0, body, None, None, None, ("y",), 1)
        return y

    with pytest.raises(Exception, match="internal error.*'y'"):
        rt.function(traced)(np.float64(1.0))
    assert "y" not in globals()


def test_if_stmt_variable_undefined_in_one_branch():
    def traced(x):
        y: ag__.Undefined   # what converted code declares: `y` stays a local, unbound

        def get_state():
            return (ag__.value_or_undefined(lambda: y, "y"),)

        def set_state(values):
            nonlocal y
            (y,) = values

        def body():
            nonlocal y
            y = x + 1

        ag__.if_stmt(x > 0, body, None, get_state, set_state, ("y",), 1)
        assert isinstance(y, ag__.MaybeUndefined)
        return ag__.ld(y)   # what converted code reads it with

    staged = rt.function(traced)
    assert staged(np.float64(1.0)) == 2.0
    with pytest.raises(UnboundLocalError, match="cannot access local variable 'y'"):
        staged(np.float64(-1.0))


def test_while_stmt_with_python_counter_converted_at_loop_entry():
    def traced(n):
        i, total = 0, 0.0

        def get_state():
            return i, total

        def set_state(values):
            nonlocal i, total
            i, total = values

        def test():
            return i < n

        def body():
            nonlocal i, total
            total = total + i * 0.5
            i = i + 1

        ag__.while_stmt(test, body, get_state, set_state, ("i", "total"), {})
        return i, total

    assert rt.function(traced)(np.int64(4)) == (4, 3.0)


def test_for_stmt_over_a_symbolic_range_with_extra_test():
    def traced(n):
        total, stop = 0, False

        def get_state():
            return total, stop

        def set_state(values):
            nonlocal total, stop
            total, stop = values

        def extra_test():
            return ag__.not_(stop)

        def body(i):
            nonlocal total, stop
            total = total + i
            stop = total > 10

        ag__.for_stmt(graph_builtins.range_(n), extra_test, body, get_state, set_state,
                      ("total", "stop"), {})
        return total

    staged = rt.function(traced)
    assert staged(np.int64(100)) == 15 and staged(np.int64(3)) == 3


def test_tensor_list_behaves_like_a_list_in_a_trace():
    def traced(x):
        values = TensorList.from_elements([1.0], np.float64, (), "values")
        values.append(x[0])
        values.append(x[1] * 2)
        values[0] = 5.0
        last = values.pop()
        return values.stack(), last, values.length(), values[-1]

    stacked, last, length, tail = rt.function(traced)(np.array([3.0, 4.0]))
    assert np.array_equal(stacked, [5.0, 3.0]) and last == 8.0 and length == 2 and tail == 3.0


def test_symbolic_range_length_matches_python():
    def traced(start, stop, step):
        return graph_builtins.len_(graph_builtins.range_(start, stop, step))

    staged = rt.function(traced)
    for start, stop, step in [(0, 10, 3), (10, 0, -3), (5, 5, 1), (7, 2, 1), (-4, 9, 5)]:
        assert staged(np.int64(start), np.int64(stop), np.int64(step)) == \
            len(range(start, stop, step))
