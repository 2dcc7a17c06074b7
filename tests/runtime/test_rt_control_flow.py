"""rt.cond and rt.while_loop: Python semantics eagerly, graph ops on symbolic values."""

import collections

import numpy as np
import pytest

import runtime as rt


# --- cond ---------------------------------------------------------------------------------

def test_cond_on_python_values_runs_one_branch():
    calls = []
    result = rt.cond(3 > 2, lambda: calls.append("t") or 1, lambda: calls.append("f") or 2)
    assert result == 1 and calls == ["t"]


@pytest.mark.parametrize("x", [np.float64(2.0), np.float64(-3.0)])
def test_cond_matches_python(both, x):
    def f(x):
        return rt.cond(x > 0, lambda: (x * 2, x + 1), lambda: (-x, x - 1))
    both(f, x)


def test_cond_traces_both_branches_into_one_graph():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: x * 2, lambda: x - 1))
    graph = f.get_concrete_function(np.float64(1)).graph
    text = str(graph)
    assert "then_branch" in text and "else_branch" in text
    assert "multiply" in text and "subtract" in text
    assert f(np.float64(3)) == 6.0 and f(np.float64(-3)) == -4.0
    assert f.trace_count == 1


def test_cond_promotes_dtypes_and_python_numbers_and_returns_the_kind_of_the_path_taken():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: x.astype(np.int32), lambda: x * 0.5))
    assert f.get_concrete_function(np.int64(4)).outputs[0].dtype == np.float64   # (promoted)
    assert type(f(np.int64(4))) is np.int32 and type(f(np.int64(-4))) is np.float64
    g = rt.function(lambda x: rt.cond(x > 0, lambda: 1, lambda: 2.5))
    assert g(np.int64(1)) == 1 and g(np.int64(-1)) == 2.5
    assert type(g(np.int64(1))) is int and type(g(np.int64(-1))) is float   # (as Python)
    h = rt.function(lambda x: rt.cond(x > 0, lambda: x, lambda: 0))
    assert type(h(np.float32(-2))) is int and type(h(np.float32(2))) is np.float32


@pytest.mark.parametrize("x", [np.float64(2.0), np.float64(-1.0)])
def test_python_bools_carried_by_cond_and_while_loop_are_ints_in_python_operators(both, x):
    # (A branch output and a loop variable that are Python bools on every path: True + True
    # is 2, as in Python, not NumPy's `or`; the loop variable is the bool with no iteration.)
    def f(x):
        found = rt.cond(x > 0, lambda: True, lambda: False)
        _, c = rt.while_loop(lambda i, c: i < x, lambda i, c: (i + 1, c + found), (0, found))
        return found + found, -found, c, found & True
    both(f, x)


def test_cond_python_values_equal_in_both_branches_pass_through():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: (x + 1, "same", None), lambda: (x, "same", None)))
    assert f(np.float64(1))[1:] == ("same", None)


def test_cond_relaxes_shapes():
    f = rt.function(lambda x: rt.cond(x.sum() > 0, lambda: x[:2], lambda: x))
    assert f.get_concrete_function(np.ones(3)).outputs[0].shape == (None,)
    np.testing.assert_array_equal(f(np.ones(3)), np.ones(2))
    np.testing.assert_array_equal(f(-np.ones(3)), -np.ones(3))


def test_cond_keeps_the_identity_of_handles(both):
    def f(x):
        a = x + 0.0
        b = x * 2.0
        same = rt.cond(x[0] > 1, lambda: a, lambda: a)
        chosen = rt.cond(x[0] > 1, lambda: a, lambda: b)
        assert same is a
        a[1] = 10.0                 # seen through `chosen` where it is `a`
        chosen[2] = 20.0            # written into `a` or `b`, whichever it is
        return a, b, chosen
    both(f, np.arange(3.0))
    both(f, np.arange(3.0) + 2.0)


def test_cond_structure_mismatch_is_an_error():
    with pytest.raises(TypeError, match="same structure"):
        rt.function(lambda x: rt.cond(x > 0, lambda: (x, x), lambda: x))(np.float64(1))


def test_cond_tensor_versus_none_names_the_output():
    with pytest.raises(TypeError, match="'y'.*true branch.*None"):
        rt.function(lambda x: rt.cond(x > 0, lambda: (x,), lambda: (None,), names=["y"]))(
            np.float64(1))


def test_cond_rank_mismatch_is_an_error():
    with pytest.raises(TypeError, match="rank"):
        rt.function(lambda x: rt.cond(x.sum() > 0, lambda: x, lambda: x[0]))(np.ones(3))


def test_item_assignment_inside_a_branch_is_carried_out(both):
    def f(x, i):
        out = np.zeros_like(x)

        def positive():
            out[i] = x[i]
            return 0

        def negative():
            out[i] = -x[i]
            out[0] = 9.0
            return 1

        flag = rt.cond(x[i] > 0, positive, negative)
        return out, flag
    both(f, np.array([1.0, -2.0, 3.0]), np.int64(1))
    both(f, np.array([1.0, -2.0, 3.0]), np.int64(2))


def test_nested_cond(both):
    def f(x):
        return rt.cond(x > 0,
                       lambda: rt.cond(x > 10, lambda: x * 100, lambda: x * 10),
                       lambda: -x)
    for v in (20.0, 5.0, -1.0):
        both(f, np.float64(v))


# --- while_loop -----------------------------------------------------------------------------

def test_while_loop_on_python_values_is_python():
    assert rt.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0)) == (4, 6)
    assert rt.while_loop(lambda i: i < 3, lambda i: i + 1, [0]) == [3]
    assert rt.while_loop(lambda i: i < 3, lambda i: i + 1, 0) == 3


def test_while_loop_graph_matches_python(both):
    def f(n):
        return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i * i), (0, 0))
    both(f, np.int64(10))
    both(f, np.int64(0))


def test_python_loop_whose_condition_becomes_symbolic_becomes_a_graph_loop():
    f = rt.function(lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 2, (0,)))
    assert f(np.int64(7)) == (8,)
    text = str(f.get_concrete_function(np.int64(7)).graph)
    assert text.count("while") == 1 and "greater" not in text


def test_loop_var_dtype_is_widened_until_stable(both):
    def f(n):
        return rt.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, x / 2), (0, 1))
    both(f, np.int64(3))
    out = rt.function(f).get_concrete_function(np.int64(3)).outputs
    assert out[1].dtype == np.float64


def test_loop_var_shape_change_relaxes_dims():
    def f(x, n):
        return rt.while_loop(lambda i, y: i < n,
                             lambda i, y: (i + 1, np.concatenate([y, y[:1]])), (0, x))
    staged = rt.function(f, input_signature=[rt.TensorSpec((2,), np.float64),
                                             rt.TensorSpec((), np.int64)])
    i, y = staged(np.array([1.0, 2.0]), np.int64(3))
    np.testing.assert_array_equal(y, [1.0, 2.0, 1.0, 1.0, 1.0])
    assert staged.get_concrete_function(np.zeros(2), np.int64(3)).outputs[1].shape == (None,)


def test_loop_var_rank_change_names_the_variable_and_both_types():
    def f(x, n):
        return rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y[None]), (0, x),
                             names=["i", "y"])
    with pytest.raises(TypeError, match=r"'y'.*f64\[\?\].*f64\[1,\?\]"):
        rt.function(f)(np.ones(2), np.int64(1))


def test_loop_var_becoming_none_is_an_error():
    def f(n):
        return rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, None), (0, 1.0),
                             names=["i", "total"])
    with pytest.raises(TypeError, match="'total'.*NoneType"):
        rt.function(f)(np.int64(2))


def test_static_python_loop_values_pass_through():
    def f(n):
        return rt.while_loop(lambda i, tag: i < n, lambda i, tag: (i + 1, tag), (0, "label"))
    assert rt.function(f)(np.int64(2)) == (2, "label")


def test_nested_loop_vars(both):
    Point = collections.namedtuple("Point", "x y")

    def f(n):
        def body(state):
            return {"i": state["i"] + 1, "p": Point(state["p"].x + 1, state["p"].y * 2)}
        return rt.while_loop(lambda s: s["i"] < n, body, ({"i": 0, "p": Point(0, 1.0)},))
    both(f, np.int64(4))


def test_maximum_iterations(both):
    def f(n, limit):
        return rt.while_loop(lambda i: i < n, lambda i: i + 1, (0,), maximum_iterations=limit)
    both(f, np.int64(10), 3)
    both(f, np.int64(2), 3)
    staged = rt.function(f)
    assert staged(np.int64(10), np.int64(4)) == (4,)


def test_loop_body_item_assignment_on_a_loop_var_is_seen_by_aliases(both):
    def f(a):
        n = a.shape[0]

        def body(i, x):
            x[i] = x[i] * 10
            return i + 1, x
        rt.while_loop(lambda i, x: i < n, body, (0, a))
        return a
    both(f, np.arange(5.0))


def test_loop_body_item_assignment_on_a_captured_array_is_carried(both):
    def f(x):
        out = np.zeros_like(x) if not rt.is_tensor(x) else rt.zeros_like(x)

        def body(i):
            out[i] = x[i] * 2
            return i + 1
        rt.while_loop(lambda i: i < x.shape[0], body, (0,))
        return out
    both(f, np.arange(4.0))


def test_loop_rebinding_a_name_does_not_mutate_the_initial_array(both):
    def f(a, n):
        def body(i, x):
            x = x * 2
            return i + 1, x
        _, result = rt.while_loop(lambda i, x: i < n, body, (0, a))
        return a, result
    both(f, np.arange(3.0), np.int64(2))


def test_a_loop_variable_is_a_value_not_its_initial_handle(both):
    def f(x, n):
        base = x[0]

        def body(i, acc):
            return i + 1, acc + base   # `base` is the handle `acc` started as
        return rt.while_loop(lambda i, acc: i < n, body, (0, base)), base
    both(f, np.arange(1.0, 4.0), np.int64(3))


def test_a_loop_variable_written_in_place_is_its_handle_for_every_alias(both):
    def f(x, n):
        out = x + 0.0
        alias = out

        def body(i, acc):
            acc[0] = acc[0] + alias[1]   # reads the variable's own array through `alias`
            return i + 1, acc
        rt.while_loop(lambda i, acc: i < n, body, (0, out))
        return alias
    both(f, np.arange(1.0, 4.0), np.int64(3))


def test_an_alias_of_a_written_array_that_the_loop_rebinds_is_refused():
    def f(x, n):
        out = x + 0.0

        def body(i, a, b):
            a[0] = a[0] + 1.0
            return i + 1, a, b * 2.0
        return rt.while_loop(lambda i, a, b: i < n, body, (0, out, out), names=["i", "a", "b"])
    with pytest.raises(TypeError, match="loop variable 'b' starts as the same array as 'a', "
                                        "which the loop writes into in place.*b = b.copy"):
        rt.function(f)(np.arange(3.0), np.int64(2))


def test_initial_value_used_after_the_loop_is_not_overwritten(both):
    def f(a, n):
        start = a + 0.0

        def body(i, x):
            x[0] = x[0] + 1
            return i + 1, x
        _, result = rt.while_loop(lambda i, x: i < n, body, (0, start))
        return start, result
    both(f, np.arange(3.0), np.int64(3))


def test_zero_iteration_loop_returns_the_initial_values(both):
    def f(a, n):
        def body(i, x):
            x[0] = -1.0
            return i + 1, x
        return rt.while_loop(lambda i, x: i < n, body, (0, a + 1))
    both(f, np.arange(3.0), np.int64(0))


def test_nested_loops(both):
    def f(m, n):
        def outer(i, total):
            def inner(j, t):
                return j + 1, t + i * j
            _, total = rt.while_loop(lambda j, t: j < n, inner, (0, total))
            return i + 1, total
        return rt.while_loop(lambda i, t: i < m, outer, (0, 0))
    both(f, np.int64(4), np.int64(5))


def test_while_loop_with_cond_inside(both):
    def f(n):
        def body(i, evens, odds):
            return rt.cond(i % 2 == 0, lambda: (i + 1, evens + i, odds),
                           lambda: (i + 1, evens, odds + i))
        return rt.while_loop(lambda i, e, o: i < n, body, (0, 0, 0))
    both(f, np.int64(9))


class Undefined:
    """Stands for autograph's marker of a variable not defined yet."""
    _rt_undefined = True

    def __init__(self, name):
        self.name = name


def test_loop_var_defined_only_by_the_body():
    @rt.function
    def f(x, n):
        def body(i, last):
            return i + 1, x[i] * 2
        return rt.while_loop(lambda i, last: i < n, body, (0, Undefined("last")),
                             names=["i", "last"])
    assert f(np.arange(5.0), np.int64(3)) == (3, 4.0)
    with pytest.raises(rt.errors.InvalidArgumentError, match="'last' is not defined before the loop"):
        f(np.arange(5.0), np.int64(0))


def test_loop_var_the_body_never_defines_is_an_error():
    def f(n):
        return rt.while_loop(lambda i, u: i < n, lambda i, u: (i + 1, u), (0, Undefined("u")),
                             names=["i", "u"])
    with pytest.raises(TypeError, match="'u' is not defined"):
        rt.function(f)(np.int64(1))


# --- the hooks front ends use (autograph's graph loops) -------------------------------------------

def test_a_body_can_restart_the_loop_with_other_loop_variables():
    restarts = []

    @rt.function
    def f(x, n):
        def body_over_a_count(i):
            # A front end found, in this first trace, that the loop needs a second loop
            # variable: it asks the runtime to run the loop again with it.
            def restart():
                restarts.append(rt.current_graph())
                return (lambda i, total: i < n, lambda i, total: (i + 1, total + x[i]),
                        (0, 0.0), ["i", "total"])
            raise rt.control_flow.RestartLoop(restart)

        return rt.while_loop(lambda i: i < n, body_over_a_count, (0,), names=["i"])

    assert f(np.arange(5.0), np.int64(3)) == (3, 3.0)
    # restart() runs in the graph around the loop, not in the failed body's graph.
    assert restarts and all(graph.name == "f" for graph in restarts)
    assert "while" in str(f.get_concrete_function(np.arange(5.0), np.int64(3)).graph)


def test_a_loop_that_keeps_restarting_is_an_error():
    def f(n):
        def body(i):
            raise rt.control_flow.RestartLoop(lambda: (lambda i: i < n, body, (0,), ["i"]))
        return rt.while_loop(lambda i: i < n, body, (0,), names=["i"])

    with pytest.raises(TypeError, match="did not settle after 3 restarts"):
        rt.function(f)(np.int64(2))


def test_a_failed_body_trace_puts_every_handle_back():
    graph = rt.Graph("g")
    from runtime.graph import building
    with building(graph):
        out = rt.Tensor(graph.add_input(np.float64, (3,)))
        acc = rt.Tensor(graph.add_input(np.float64, (3,)))
        before = (out.graph_value, acc.graph_value)

        def body(i, acc):
            out[0] = 1.0          # an outer handle rebound in the body
            acc[1] = 2.0          # a loop-variable handle
            raise ValueError("the body fails")

        with pytest.raises(ValueError, match="the body fails"):
            rt.while_loop(lambda i, acc: i < 3, body, (0, acc))
        assert (out.graph_value, acc.graph_value) == before


def test_a_failed_branch_trace_puts_every_handle_back():
    graph = rt.Graph("g")
    from runtime.graph import building
    with building(graph):
        out = rt.Tensor(graph.add_input(np.float64, (3,)))
        pred = rt.Tensor(graph.add_input(np.bool_, ()))
        before = out.graph_value

        def failing():
            out[0] = 1.0
            raise ValueError("the branch fails")

        with pytest.raises(ValueError, match="the branch fails"):
            rt.cond(pred, failing, lambda: None)
        assert out.graph_value is before


def test_assert_iterated_is_the_one_error_of_a_loop_that_had_to_iterate():
    with pytest.raises(rt.errors.UndefinedVariableError,
                       match="^'x' is not defined before the loop, so the loop had to iterate "
                             "at least once to define it, and it did not$"):
        rt.control_flow.assert_iterated(np.False_, ["'x'"])
    with pytest.raises(UnboundLocalError,
                       match="^the while loop at f.py:3 had to iterate at least once: it "
                             "defines 'a', 'b', which are used after the loop$"):
        rt.control_flow.assert_iterated(False, ["'a'", "'b'"], loop="the while loop at f.py:3")
    assert rt.control_flow.assert_iterated(np.True_, ["'x'"]) is None
    # What Python raises there, and the error of a failed graph run.
    assert issubclass(rt.errors.UndefinedVariableError, UnboundLocalError)
    assert issubclass(rt.errors.UndefinedVariableError, rt.errors.InvalidArgumentError)
