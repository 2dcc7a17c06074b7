"""Graph paths of if/while/for: converted Python control flow on symbolic values becomes
graph control flow and gives what plain Python gives on the same NumPy inputs."""

import inspect

import numpy as np
import pytest

import runtime as rt
from autograph.core.directives import set_loop_options
from autograph.operators.graph import LoopVariableError, UndefinedInBranchError
from graph_equivalence import check, check_either, check_raises, graph_text
from autograph.impl.function import function
from autograph.operators.graph import loops as graph_loops

# --- if ------------------------------------------------------------------------------------


def sign_and_scale(x):
    scale = 1.0
    if x > 0:
        label = 1
        scale = 2.0
    elif x < 0:
        label = -1
    else:
        label = 0
        scale = 0.5
    return label, x * scale


@pytest.mark.parametrize("x", [3.0, -2.0, 0.0])
def test_if_elif_else_outputs_variables_modified_in_any_branch(x):
    staged = check(sign_and_scale, np.float64(x))
    assert "cond" in graph_text(staged, np.float64(x))


def branch_local_temporaries(x):
    if x > 1.0:
        tmp = x * 2.0
        y = tmp + 1.0
    else:
        y = x
    return y


def test_variables_local_to_a_branch_need_no_else_definition():
    for x in (0.5, 3.0):
        check(branch_local_temporaries, np.float64(x))


def negated_conditions(x, limit):
    total = x * 0.0
    if not x > limit:
        total = total + x
    for i in range(3):
        if not total > limit:   # the graph form of a nested `if not`
            total = total + 1.0
    return total


@pytest.mark.parametrize("x", [1.0, 5.0])
def test_negated_conditions_in_graph_branches(x):
    staged = check(negated_conditions, np.float64(x), np.float64(2.5))
    assert "cond" in graph_text(staged, np.float64(x), np.float64(2.5))


def defined_in_if_branch_only(x):
    if x > 0:
        y = x + 1
    return y


def defined_in_else_branch_only(x):
    if x > 0:
        pass
    else:
        y = x - 1
    return y


def test_variable_defined_in_one_branch_is_unbound_on_the_other_when_the_graph_runs():
    check(defined_in_if_branch_only, np.float64(1.0))
    check(defined_in_else_branch_only, np.float64(-1.0))
    info = check_raises(UnboundLocalError, defined_in_if_branch_only, np.float64(-1.0),
                        match="cannot access local variable 'y' where it is not associated "
                              "with a value \\(the if statement at ")
    lines, first = inspect.getsourcelines(defined_in_if_branch_only)
    if_line = first + next(i for i, line in enumerate(lines) if "if x > 0" in line)
    assert "test_graph_control_flow.py:%d in defined_in_if_branch_only defines it in the if " \
        "branch only (it has no else branch))" % if_line in str(info.value)
    check_raises(UnboundLocalError, defined_in_else_branch_only, np.float64(1.0),
                 match="defines it in the else branch only")


def python_value_in_one_branch(x):
    if x > 0:
        mode = "up"
    return mode


def test_a_python_value_defined_in_one_branch_is_refused_naming_it():
    check_raises(UnboundLocalError, python_value_in_one_branch, np.float64(-1.0),
                 graph_error=UndefinedInBranchError,
                 match="'mode' must also be defined in the else branch: the if statement at "
                       ".* defines it in the if branch only .*, but it is a Python str, which "
                       "a graph cannot leave undefined on a path")


def early_return(x):
    if x > 0:
        return x * 2
    return -x


def early_return_in_else(x):
    if x > 0:
        y = x
    else:
        return 0.0
    return y + 1


@pytest.mark.parametrize("x", [2.0, -3.0])
def test_early_return_under_a_symbolic_condition(x):
    check(early_return, np.float64(x))
    check(early_return_in_else, np.float64(x))


def branches_disagree_on_python_values(x):
    if x > 0:
        mode = "up"
    else:
        mode = "down"
    return mode


def test_python_values_that_differ_between_branches_are_an_error():
    with pytest.raises(TypeError, match="mode"):
        function(branches_disagree_on_python_values, backend="numpy")(np.float64(1.0))


def write_in_branches(x, out):
    buffer = np.zeros(3)
    if x[0] > 0:
        buffer[0] = x[0]
        out[1] = 5.0
    else:
        buffer[2] = -x[0]
    return buffer


@pytest.mark.parametrize("first", [1.5, -2.5])
def test_item_assignment_in_branches_on_local_arrays_and_arguments(first):
    check(write_in_branches, np.array([first, 0.0]), np.zeros(3))


def alias_sees_branch_write(x):
    out = np.zeros(2)
    alias = out
    if x > 0:
        out[0] = x
    else:
        out = np.ones(2)
    return alias, out


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_aliases_see_in_place_writes_but_not_rebinding(x):
    check(alias_sees_branch_write, np.float64(x))


class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.count = 0


def attribute_state(x, acc):
    for i in range(x.shape[0]):
        if x[i] > 0:
            acc.total += x[i]
            acc.count += 1
    return acc.total, acc.count


def test_attribute_mutations_in_graph_branches_and_loops():
    x = np.array([1.0, -2.0, 3.0, 4.0])
    expected = attribute_state(x, Accumulator())
    staged = function(attribute_state, backend="numpy")
    acc = Accumulator()
    result = staged(x, acc)
    assert result[0] == expected[0] and result[1] == expected[1]


def dict_state(x):
    state = {"n": 0, "sum": 0.0}
    for i in range(x.shape[0]):
        if x[i] > 0:
            state["n"] += 1
        state["sum"] += x[i]
    return state["n"], state["sum"]


def test_dict_item_state_in_graph_loops():
    check(dict_state, np.array([1.0, -2.0, 3.0, 4.0]))


def conditional_expression(x):
    return x * 2 if x > 0 else -x


def lazy_and_or(x, i):
    inside = i < x.shape[0] and x[i] > 0
    outside = i >= x.shape[0] or x[i] < 0
    return inside, outside, not inside


@pytest.mark.parametrize("x", [2.0, -1.0])
def test_conditional_expression(x):
    check(conditional_expression, np.float64(x))


@pytest.mark.parametrize("i", [0, 1, 5])
def test_and_or_evaluate_the_right_operand_only_when_python_would(i):
    # x[5] would be an out-of-range read: it must not run when i >= len(x).
    check(lazy_and_or, np.array([1.0, -1.0]), np.int64(i))


# --- while ---------------------------------------------------------------------------------


def halvings(n):
    steps = 0
    while n > 1:
        n = n // 2
        steps += 1
    return steps


def test_while_with_symbolic_condition_is_one_graph_loop():
    staged = check(halvings, np.int64(1000))
    check(halvings, np.int64(1), staged=staged)
    assert staged.trace_count == 1
    assert "while" in graph_text(staged, np.int64(7))


def widening(n):
    x = 0
    i = 0
    while i < n:
        x = x + 0.5
        i += 1
    return x


def test_loop_variable_dtype_is_widened():
    check(widening, np.int64(5))


def shape_changes(n):
    x = np.zeros(1)
    i = 0
    while i < n:
        x = np.concatenate([x, x])
        i += 1
    return x


def test_loop_variable_shape_is_relaxed():
    check(shape_changes, np.int64(3))


def rank_changes(n):
    x = 0.0
    i = 0
    while i < n:
        x = np.zeros(3)
        i += 1
    return x


def becomes_a_string(n):
    x = 0.0
    i = 0
    while i < n:
        x = "done"
        i += 1
    return x


def test_irreconcilable_loop_variable_changes_name_the_variable():
    with pytest.raises(TypeError, match=r"x'? .*f64\[\].*f64\[3\].*test_graph_control_flow"):
        function(rank_changes, backend="numpy")(np.int64(2))
    with pytest.raises(LoopVariableError, match="'x'.*float.*str"):
        function(becomes_a_string, backend="numpy")(np.int64(2))


def condition_becomes_symbolic(x):
    i = 0
    total = 0
    while total < 10:           # a Python test at first: total starts as a Python int
        total = total + x[i % 3]
        i += 1
    return total, i


def test_python_loop_whose_condition_becomes_symbolic_continues_as_graph_loop():
    check(condition_becomes_symbolic, np.array([1, 2, 3]))


def defined_by_loop(n):
    i = 0
    while i < n:
        last = i * 10
        i += 1
    return last


def test_variable_defined_by_the_loop_needs_one_iteration():
    check(defined_by_loop, np.int64(4))
    with pytest.raises(UnboundLocalError):
        defined_by_loop(np.int64(0))
    with pytest.raises(UnboundLocalError, match="it ran no iteration that did"):
        function(defined_by_loop, backend="numpy")(np.int64(0))


def while_else(n, stop):
    i = 0
    found = -1
    while i < n:
        if i == stop:
            found = i
            break
        i += 1
    else:
        found = 100
    return found


@pytest.mark.parametrize("stop", [3, 20])
def test_while_else_runs_when_python_would(stop):
    check(while_else, np.int64(10), np.int64(stop))


def max_iterations(n):
    i = 0
    while i < n:
        set_loop_options(maximum_iterations=3)
        i += 1
    return i


def test_maximum_iterations_is_honoured_in_graph_loops():
    assert max_iterations(np.int64(10)) == 10   # no effect on a Python loop
    assert function(max_iterations, backend="numpy")(np.int64(10)) == 3
    assert function(max_iterations, backend="numpy")(np.int64(2)) == 2


def shape_invariant(n):
    x = np.zeros(1)
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(x, (None,))])
        x = np.concatenate([x, np.ones(1)])
        i += 1
    return x


def wrong_shape_invariant(n):
    x = np.zeros(1)
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(x, (1,))])
        x = np.concatenate([x, np.ones(1)])
        i += 1
    return x


def test_shape_invariants_are_checked():
    check(shape_invariant, np.int64(3))
    with pytest.raises(LoopVariableError, match="'x'.*shape invariant"):
        function(wrong_shape_invariant, backend="numpy")(np.int64(3))


def counts_with_variable(x, v):
    for i in range(x.shape[0]):
        v.assign_add(x[i])
    return v.read_value()


def test_variable_assign_add_in_a_graph_loop_updates_shared_state():
    v = rt.Variable(0.0)
    result = function(counts_with_variable, backend="numpy")(np.array([1.0, 2.0, 3.5]), v)
    assert result == 6.5
    assert v.numpy() == 6.5


# --- for -----------------------------------------------------------------------------------


def range_loops(n, start):
    total = 0
    for i in range(n):
        total += i
    for i in range(start, n, 3):
        total += 100 * i
    for i in range(n, start, -2):
        total -= i
    return total


@pytest.mark.parametrize("n,start", [(10, 2), (0, 4), (7, 7)])
def test_for_over_ranges_with_symbolic_bounds(n, start):
    staged = check(range_loops, np.int64(n), np.int64(start))
    assert graph_text(staged, np.int64(n), np.int64(start)).count("while") >= 3


def over_rows(m):
    total = np.zeros(m.shape[1])
    for row in m:
        total = total + row
    return total


def over_enumerate_and_zip(a, b):
    acc = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        acc += i * x * y
    return acc


def test_for_over_array_rows_enumerate_and_zip():
    check(over_rows, np.arange(12.0).reshape(4, 3))
    check(over_enumerate_and_zip, np.arange(5.0), np.arange(4.0) + 1.0)


def over_tensor_array(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    for i in range(x.shape[0]):
        ta = ta.write(i, x[i] * 2)
    total = 0.0
    for value in ta:
        total += value
    return total


def test_for_over_a_tensor_array_graph_path():
    # What converted code does for `for value in ta: total += value`, called directly.
    def traced(x):
        ta = rt.TensorArray(np.float64, size=0, dynamic_size=True).unstack(x * 2)
        total = 0.0

        def get_state():
            return (total,)

        def set_state(values):
            nonlocal total
            (total,) = values

        def body(value):
            nonlocal total
            total = total + value

        graph_loops.for_stmt(ta, None, body, get_state, set_state, ("total",), {})
        return total

    assert rt.function(traced)(np.arange(4.0)) == 12.0


def test_for_over_a_tensor_array():
    assert function(over_tensor_array, backend="numpy")(np.arange(4.0)) == 12.0


def break_continue_return(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        if total > limit:
            break
        if x[i] > 100:
            return -1.0, i
        total += x[i]
    else:
        total = total + 1000
    return total, -1


@pytest.mark.parametrize("x,limit", [
    ([1.0, -2.0, 3.0], 50.0),          # for/else runs
    ([5.0, 6.0, 7.0, 8.0], 8.0),       # break
    ([1.0, 200.0, 3.0], 50.0),         # early return
])
def test_break_continue_return_and_for_else(x, limit):
    check(break_continue_return, np.array(x), np.float64(limit))


def nested_item_assignment(a, b):
    m, n = a.shape[0], b.shape[0]
    d = np.zeros((m + 1, n + 1), dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            d[i, j] = max(d[i - 1, j], d[i, j - 1]) + (a[i - 1] == b[j - 1])
        counts[a[i - 1] % 4] += 1
    mask = d > 1
    d[mask] = 0
    return d, counts


def test_item_assignment_in_nested_graph_loops():
    check(nested_item_assignment, np.array([1, 2, 3, 2]), np.array([2, 3, 1]))


def mutates_argument(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i]
    return out.sum()


def test_mutated_argument_holds_new_contents_after_the_call():
    check(mutates_argument, np.arange(4.0), np.zeros(4))


def alias_in_loop(x):
    h = np.zeros(3)
    keep = h
    out = np.zeros(3)
    view = out
    for i in range(x.shape[0]):
        h = h + x[i]
        out[i % 3] = x[i]
    return keep, h, view


def test_loop_aliases_see_in_place_writes_only():
    check(alias_in_loop, np.arange(5.0))


def helper(v):
    if v > 0:
        return v * 2
    return v


def calls_helper(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += helper(x[i])
    return total


def test_called_functions_are_converted_too():
    check(calls_helper, np.array([1.0, -2.0, 3.0]))


class Layer:
    def __init__(self, scale, activation):
        self.scale = scale
        self.activation = activation

    def __call__(self, x):
        y = x * self.scale
        if self.activation == "relu":
            y = np.maximum(y, 0.0)
        return y


LAYERS = [Layer(2.0, "relu"), Layer(-1.0, None), Layer(0.5, "relu")]


def python_objects_at_trace_time(x):
    for layer in LAYERS:
        x = layer(x)
    return x


def test_python_objects_run_at_trace_time():
    staged = check(python_objects_at_trace_time, np.array([1.0, -1.0]))
    assert "while" not in graph_text(staged, np.array([1.0]))


def loop_temporary_defined_before(x, c):
    total = 0.0
    tmp = 0.0
    if c > 0:
        for i in range(x.shape[0]):
            tmp = x[i] * 2
            total += tmp
    return total


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_loop_temporaries_do_not_leak_out_of_a_graph_loop_in_a_branch(c):
    check(loop_temporary_defined_before, np.arange(3.0), np.float64(c))


def loop_target_used_after(n):
    for i in range(n):
        pass
    return i


def test_loop_target_used_after_the_loop():
    check(loop_target_used_after, np.int64(5))
    with pytest.raises(UnboundLocalError, match="it ran no iteration that did"):
        function(loop_target_used_after, backend="numpy")(np.int64(0))


def size_one_condition(x):
    if np.expand_dims(x[0], 0) > 0:    # shape (1,)
        return 1
    return 0


@pytest.mark.parametrize("x", [[2.0, -1.0], [-2.0, 1.0]])
def test_condition_on_a_size_one_array(x):
    check(size_one_condition, np.array(x))


class Counter:
    def __init__(self):
        self.total = 0.0
        self.calls = 0

    def add(self, value):
        self.total += value
        self.calls += 1


def method_mutates_attributes(x):
    counter = Counter()
    for i in range(x.shape[0]):
        if x[i] > 0:
            counter.add(x[i])
    return counter.total, counter.calls


def method_mutates_in_branch(x):
    counter = Counter()
    if x[0] > 0:
        counter.add(x[0])
    return counter.total


def test_attributes_changed_by_called_methods_in_graph_loops_and_branches():
    check(method_mutates_attributes, np.array([1.0, -2.0, 3.0]))
    check(method_mutates_in_branch, np.array([2.0]))
    check(method_mutates_in_branch, np.array([-2.0]))


# --- everyday loop patterns --------------------------------------------------------------------


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def while_true_with_break(x):
    i = 0
    while True:
        if x[i] > 3:
            break
        i += 1
    return i


def return_from_nested_loops(m):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] < 0:
                return i, j
    return -1, -1


def argmax_with_enumerate(x):
    best, best_i = x[0], 0
    for i, v in enumerate(x):
        if v > best:
            best, best_i = v, i
    return best_i, best


def scan_while_and(x, limit):
    i = 0
    while i < x.shape[0] and x[i] < limit:
        i += 1
    return i


@pytest.mark.parametrize("fn,args", [
    (fibonacci, (np.int64(10),)),
    (while_true_with_break, (np.array([1.0, 2.0, 5.0]),)),
    (return_from_nested_loops, (np.array([[1.0, 2.0], [3.0, -1.0]]),)),
    (return_from_nested_loops, (np.ones((2, 2)),)),
    (argmax_with_enumerate, (np.array([1.0, 5.0, 3.0]),)),
    (scan_while_and, (np.arange(5.0), np.float64(2.5))),
    (scan_while_and, (np.arange(5.0), np.float64(10.0))),
])
def test_everyday_loop_patterns(fn, args):
    check(fn, *args)


def first_positive(x):
    for i in range(x.shape[0]):
        if x[i] > 0:
            return i


def first_positive_or_minus_one(x):
    for i in range(x.shape[0]):
        if x[i] > 0:
            return i
    return -1


def test_a_path_without_return_returns_none_as_python_never_a_made_up_value():
    check(first_positive, np.array([-1.0, 2.0]))
    assert first_positive(np.array([-1.0])) is None
    check(first_positive, np.array([-1.0]))
    check(first_positive_or_minus_one, np.array([-1.0]))
    check(first_positive_or_minus_one, np.array([-1.0, 3.0]))


def returns_in_an_if_in_a_graph_branch(y, k):
    found = []
    if k > 0:
        if y[0] > 0:
            return found
    else:
        return found           # (no return where k > 0 and y[0] <= 0: None)


def returns_in_nested_ifs_on_every_path(y, k):
    found = []                 # (fuzzer seed 8488)
    if k > 0:
        return found
    if 1.0:
        if y[0] > 0:
            return found
    return found


def returns_a_tensor_in_an_if_in_a_graph_branch(y, k):
    if k > 0:
        if y[0] > 0:
            return y[0]
    else:
        return y[-1]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_return_in_an_if_in_a_graph_branch_is_checked_where_the_function_ends(backend):
    for fn in (returns_in_an_if_in_a_graph_branch, returns_a_tensor_in_an_if_in_a_graph_branch):
        staged = function(fn, backend=backend)
        for args in ((np.array([1.0]), 1), (np.array([1.0]), -1), (np.array([-1.0]), 1)):
            check(fn, *args, backend=backend, staged=staged)
        assert staged(np.array([-1.0]), 1) is None
    for args in ((np.array([1.0]), 1), (np.array([1.0]), -1), (np.array([-1.0]), -1)):
        check(returns_in_nested_ifs_on_every_path, *args, backend=backend)


# Found by the fuzzer (tools/fuzz, seeds 707, 1313, 3201, 6210, 858, 928, 2534, 2737, 1170,
# 1486), minimised: Python returns None where the function falls off its end; the graph
# made up a value there (zeros) or raised.

def returns_in_a_branch_only(x):
    if x[0] > 0:
        return 2.0


def returns_a_python_int_in_a_branch_only(x):
    c = 0
    if len(x):
        return c


def returns_a_0d_array_in_a_branch_only(x, k):
    if x.shape[0]:
        return k


def returns_in_one_of_two_ifs(x):
    if x[0] > 0:
        return (1.0, 1)
    if x[1] > 0:
        return (x[1], 2)


def returns_from_a_loop_only(x):
    v = 1.0
    for e in x:
        return v


def returns_from_a_graph_loop_in_a_python_loop(xi, n):
    v = 1.0
    for i in range(n):
        for e in xi:
            return v


def returns_a_list_in_a_nested_if_or_after_it(x):
    vals = []
    if 1.0:
        if np.all(x > 2.0):
            return vals
    return vals


def returns_a_list_from_a_nested_if(x, flag):
    vals = []
    if x[0] < x[-1]:
        if flag:
            return vals


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_falling_off_the_end_on_some_paths_returns_none_as_python(backend):
    cases = [
        (returns_in_a_branch_only, [(np.array([1.0]),), (np.array([-1.0]),)]),
        (returns_a_python_int_in_a_branch_only, [(np.ones(1),), (np.ones(0),)]),
        (returns_a_0d_array_in_a_branch_only, [(np.ones(1), np.array(1.5)),
                                               (np.ones(0), np.array(1.5))]),
        (returns_in_one_of_two_ifs, [(np.array([1.0, 1.0]),), (np.array([-1.0, 1.0]),),
                                     (np.array([-1.0, -1.0]),)]),
        (returns_from_a_loop_only, [(np.ones(2),), (np.ones(0),)]),
        (returns_from_a_graph_loop_in_a_python_loop, [(np.ones(2, dtype=np.int64), 3),
                                                      (np.ones(0, dtype=np.int64), 3)]),
        (returns_a_list_in_a_nested_if_or_after_it, [(np.array([3.0]),), (np.array([2.0]),)]),
        (returns_a_list_from_a_nested_if, [(np.array([1.0, 2.0]), True),
                                           (np.array([2.0, 1.0]), True),
                                           (np.array([1.0, 2.0]), False)]),
    ]
    for fn, arguments in cases:
        staged = function(fn, backend=backend)
        for args in arguments:
            check(fn, *args, staged=staged)


# --- Python loops that turn into graph loops midway ------------------------------------


def break_on_symbolic_in_python_loop(x):
    total = 0.0
    for i in [0, 1, 2, 3]:
        total += 1.0
        if x[i] > 2.0:  # symbolic: the break flag becomes symbolic in the first iteration
            break
        total += x[i]
    return total


@pytest.mark.parametrize("x", [[1.0, 1.0, 5.0, 1.0], [3.0, 0.0, 0.0, 0.0],
                               [0.0, 0.0, 0.0, 0.0]])
def test_python_for_whose_break_turns_symbolic_continues_with_the_rest(x):
    check(break_on_symbolic_in_python_loop, np.array(x))


def grows_until(x, limit):
    s = 0.0  # a Python float: the condition turns symbolic after the first iteration
    steps = 0
    while s < limit:
        s = s + x[0]
        steps += 1
    return s, steps


def test_python_while_whose_condition_turns_symbolic_continues_as_a_graph_loop():
    check(grows_until, np.ones(2), 7.5)
    check(grows_until, np.ones(2), -1.0)


# A called function that returns on some paths only gives its caller None on the others
# (rt.none_unless): ops on it raise Python's TypeError there, `is None` tells, and
# returning or printing it gives None.

def _doubled_if_positive(v):
    if v > 0:
        return v * 2.0


def _index_of_first_above(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            return i


def _passed_on(v):
    return _doubled_if_positive(v)


def uses_a_result_that_is_none_on_some_paths(x):
    return _doubled_if_positive(x[0]) * 2.0      # Python: TypeError where x[0] <= 0


def checks_a_result_that_is_none_on_some_paths(x):
    return _doubled_if_positive(x[0]) is None, _doubled_if_positive(x[0]) is not None


def branches_on_a_result_that_is_none_on_some_paths(x):
    r = _doubled_if_positive(x[0])
    if r is None:
        return -1.0
    return r + 1.0


def returns_a_result_that_is_none_on_some_paths(x):
    return _passed_on(x[0])


def prints_a_result_that_is_none_on_some_paths(x):
    r = _doubled_if_positive(x[0])
    print("r:", r)
    return r is None


def adds_results_that_are_none_on_different_paths(x):
    return _doubled_if_positive(x[0]) + _doubled_if_positive(x[1])   # either may be None


def searches_then_reads(x):
    i = _index_of_first_above(x, 2.0)
    k = i if i is not None else -1
    if i is not None and x[i] > 3.0:
        x[i] = 0.0      # an item write next to the None test
    return k


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_called_functions_none_on_some_paths_is_none_in_its_caller(backend, capsys):
    for fn in (uses_a_result_that_is_none_on_some_paths,
               checks_a_result_that_is_none_on_some_paths,
               branches_on_a_result_that_is_none_on_some_paths,
               returns_a_result_that_is_none_on_some_paths,
               prints_a_result_that_is_none_on_some_paths, searches_then_reads,
               adds_results_that_are_none_on_different_paths):
        staged = function(fn, backend=backend)
        for x in ([1.5, 4.0, 1.0], [-1.0, 2.5, 1.0], [-1.0, 0.0, 1.0], [1.5, -1.0, 3.0]):
            try:
                fn(np.array(x))
            except TypeError:
                with pytest.raises(TypeError, match="NoneType"):
                    staged(np.array(x))
                continue
            capsys.readouterr()
            check(fn, np.array(x), capsys=capsys, staged=staged)


def _find(x):
    for i in range(x.shape[0]):
        if x[i] > 2.0:
            return i, x[i]


def _label(v):
    if v > 0:
        return "positive"


def branches_on_a_tuple_that_is_none_on_some_paths(x):
    r = _find(x)
    if r is None:
        return -1, 0.0
    i, v = r
    return i, v * 2.0


def returns_a_tuple_that_is_none_on_some_paths(x):
    r = _find(x)
    return r


def returns_a_string_on_some_paths(x):
    if x[0] > 0:
        return "positive"


def uses_a_string_that_is_none_on_some_paths(x):
    return _label(x[0])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_results_that_are_none_on_some_paths_in_structures_and_strings(backend):
    for fn in (branches_on_a_tuple_that_is_none_on_some_paths,
               returns_a_tuple_that_is_none_on_some_paths, returns_a_string_on_some_paths):
        staged = function(fn, backend=backend)
        for x in ([1.0, 3.0], [-1.0, 1.0]):
            check(fn, np.array(x), staged=staged)
    # (A called function gives its caller numbers, arrays and tuples of them that may be
    # None; a string it cannot.)
    with pytest.raises(TypeError, match=r"_label\(\) returns a str on some paths and None on "
                       r"others .* which a graph cannot give its caller"):
        function(uses_a_string_that_is_none_on_some_paths, backend=backend)(np.array([1.0]))


def compares_a_result_that_is_none_on_some_paths(x):
    return _doubled_if_positive(x[0]) == 0.0      # Python: False where it is None


def indexes_with_a_result_that_is_none_on_some_paths(x):
    return x[_index_of_first_above(x, 2.0)]      # Python: x[None] adds an axis


@pytest.mark.parametrize("fn, x", [(compares_a_result_that_is_none_on_some_paths, [-1.0]),
                                   (indexes_with_a_result_that_is_none_on_some_paths, [1.0])])
def test_where_python_defines_an_op_on_none_the_graph_says_it_cannot(fn, x):
    staged = function(fn)
    check(fn, np.array([3.0]), staged=staged)   # (not None: as Python)
    with pytest.raises(TypeError, match=r"is None where it falls off its end.*whose result "
                       r"Python defines on None.*Test `r is None` first"):
        staged(np.array(x))


# Python ints a graph holds (range items, shapes) are weak next to NumPy values (NEP 50), as
# the Python ints they stand for are.

def scales_by_the_index(x):
    total = x[0] * 0
    for i in range(x.shape[0]):
        x[i] = x[i] * i + i
        total = total + x[i] * i
    return x * x.shape[0], total - x.shape[0]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_python_ints_a_graph_holds_keep_the_arrays_dtype(backend):
    staged = function(scales_by_the_index, backend=backend)
    for dtype in (np.int32, np.float32, np.int8, np.uint8, np.float64):
        x = np.arange(1, 4).astype(dtype)
        expected = scales_by_the_index(x.copy())
        result = check(scales_by_the_index, x, staged=staged)(x.copy())
        assert [np.asarray(r).dtype for r in result] == [np.asarray(e).dtype for e in expected]


# Found by the fuzzer (maybe_none, seeds 733 and 453), minimised.

def _zero_if_above_one(a):
    if a[0] > 1:
        return 0


def subtracts_in_place_a_result_that_is_none_on_some_paths(y):
    y -= _zero_if_above_one(y)      # Python: NumPy's UFuncTypeError where it is None


def _nothing(a):
    pass


def stores_none_into_arrays(x):
    out = np.ones(3)
    ints = np.ones(3, dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = _nothing(x)        # nan, as NumPy stores None in a float array
        if x[i] > 5:
            ints[0] = _nothing(x)   # NumPy's TypeError
    return out, ints


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_none_in_numpy_operations_gives_numpys_result_or_error(backend):
    for fn, inputs in ((subtracts_in_place_a_result_that_is_none_on_some_paths, ([0.5], [2.0])),
                       (stores_none_into_arrays, ([1.0, 2.0], [1.0, 7.0]))):
        staged = function(fn, backend=backend)
        for x in inputs:
            try:
                fn(np.array(x))
            except TypeError as error:
                with pytest.raises(type(error)):
                    staged(np.array(x))
                continue
            check(fn, np.array(x), staged=staged)


# Python numbers a graph holds divide as Python's do: by zero they raise ZeroDivisionError
# (NumPy gives inf or 0); int() and float() give Python numbers (weak next to arrays).

def divides_python_numbers(x):
    total = 0
    for i in range(x.shape[0]):
        total += 10 // (i - 1) + 7 % (i - 1) + 3 / (i - 1)
    n = x.shape[0]
    return total, float(n) / (n - 2), x[0] / (n - 2)


def scales_by_python_numbers(x):
    return x * int(x[0]), x * float(x.shape[0]), int(x[0]) * 2 ** 40


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_python_numbers_a_graph_holds_divide_and_promote_as_in_python(backend):
    staged = function(divides_python_numbers, backend=backend)
    with np.errstate(divide="ignore"):
        check(divides_python_numbers, np.ones(1), staged=staged)
        for n in (2, 3):
            check_raises(ZeroDivisionError, divides_python_numbers, np.ones(n),
                         backend=backend)
    staged = function(scales_by_python_numbers, backend=backend)
    for dtype in (np.float32, np.int32, np.int16):
        x = np.arange(2, 5).astype(dtype)
        expected = scales_by_python_numbers(x.copy())
        result = check(scales_by_python_numbers, x, staged=staged)(x.copy())
        assert [np.asarray(r).dtype for r in result] == [np.asarray(e).dtype for e in expected]


# Found by the fuzzer (narrow_dtypes, seed 1339), minimised: an in-place operator keeps the
# array's dtype on each path (float32 here, float64 there); the join of the two (a float64
# graph value) gave float64 on both after `x += float64 array`.

def adds_in_place_into_an_array_whose_dtype_depends_on_the_branch(x):
    if x[0] > 0:
        x = np.ones(len(x))
    x += np.ones(len(x))
    return x[-1] + 1.0, x


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_an_in_place_operator_keeps_the_dtype_of_the_path_taken(backend):
    fn = adds_in_place_into_an_array_whose_dtype_depends_on_the_branch
    staged = function(fn, backend=backend)
    for first in (-1.0, 1.0):
        x = np.array([first, 0.5], np.float32)
        expected = fn(x.copy())
        result = check(fn, x, staged=staged)(x.copy())
        assert [np.asarray(r).dtype for r in result] == [np.asarray(e).dtype for e in expected]
        assert type(result[0]) is type(expected[0])


# Found by the fuzzer (narrow_dtypes, seeds 2134, 2056, 1593 and 1713), minimised. NEP 50
# gives a Python number the dtype of the float32 values next to it, a NumPy value its own:
# a value of the path taken keeps its kind next to float32 values, or the graph refuses.

def python_float_defined_in_nested_loops(y, n):
    for _ in range(y.shape[0]):
        for _ in range(n):
            c0 = 3.0           # (seed 2134: the inner loop's c0 started as a NumPy float64)
    return c0 + y              # float32: c0 is a Python float


def writes_in_a_loop_into_the_array_of_the_path_taken(x, n):
    if n > 5:
        x = np.zeros(1)        # float64 here, the float32 argument on the other path
    for _ in range(n):
        x[0] = 2.0             # (seed 2056: float64 after the loop on both paths)
    return x


def writes_in_an_inner_loop_into_the_array_of_the_path_taken(x, n):
    for _ in range(n):
        if n > 5:
            x = np.zeros(1)
        for _ in range(n):
            x[0] = 2.0
    return x


def _returns_a_python_float_from_a_loop(y):
    for i in range(y.shape[0]):
        if y[i] > 0:
            return 2.0
    return 3.0


def scales_by_a_python_float_returned_in_a_loop(y):
    return y * _returns_a_python_float_from_a_loop(y)


def _returns_a_python_float_or_none(v):
    if v > 0:
        return 2.0


def scales_by_a_python_float_unless_none(y):
    r = _returns_a_python_float_or_none(y[0])
    if r is not None:
        return y * r
    return y


def _types(value):
    return [(type(v), np.asarray(v).dtype) for v in (value if isinstance(value, tuple)
                                                     else (value,))]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_values_next_to_float32_keep_the_kind_of_the_path_taken(backend):
    cases = [(python_float_defined_in_nested_loops, np.array([3.0], np.float32), (4, 0)),
             (writes_in_a_loop_into_the_array_of_the_path_taken,
              np.array([-2.0], np.float32), (3, 7)),
             (writes_in_an_inner_loop_into_the_array_of_the_path_taken,
              np.array([-2.0], np.float32), (3, 7))]
    for fn, x, ns in cases:
        staged = function(fn, backend=backend)
        for n in ns:
            if fn is python_float_defined_in_nested_loops and n == 0:
                check_raises(UnboundLocalError, fn, x, n, backend=backend)
                continue
            check(fn, x, n, staged=staged)
            assert _types(staged(x.copy(), n)) == _types(fn(x.copy(), n))
    # (A function's return value where it did not return yet was a NumPy zero: a Python
    # float on some paths only, float64 next to float32 values.)
    for fn in (scales_by_a_python_float_returned_in_a_loop,
               scales_by_a_python_float_unless_none):
        staged = function(fn, backend=backend)
        for first in (2.0, -2.0):
            x = np.array([first, 1.0], np.float32)
            check(fn, x, staged=staged)
            assert _types(staged(x.copy())) == _types(fn(x.copy()))


def python_float_or_numpy_float64_by_the_iteration(x, y, t):
    for e in x:
        if e > 0:
            break
        t = np.abs(t)          # a NumPy float64 from the second iteration on
    return np.maximum(t, y)    # float32 where t is still the Python float (seed 1593)


def python_float_or_numpy_float64_by_the_branch(x, y, t):
    if x[0] > 0:
        t = np.abs(t)
    return np.maximum(2.0 * t + 1, y)


def python_float_or_float32_item_of_a_list(x, t):
    items = []
    for _ in range(len(x)):
        items.append(x[-1] or t)   # (seed 1713: float64 items where Python has float32)
    return items


def accumulates_numpy_floats_into_a_python_float(x, y):
    s = 0.0
    for v in x:
        s += v                 # a Python float if the loop does not iterate
    return s * 2.0, s + y


def test_an_accumulator_started_as_a_python_number_carries_no_kind_tag():
    # (Only next to narrower values does it matter which of the two it is: no loop
    # variable saying so, in the loop that computes it.)
    staged = check(accumulates_numpy_floats_into_a_python_float, np.array([1.5, 2.0]),
                   np.array([1.0]))
    check(accumulates_numpy_floats_into_a_python_float, np.zeros(0), np.array([1.0]),
          staged=staged)
    assert "i8" not in graph_text(staged, np.array([1.5, 2.0]), np.array([1.0]))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_python_number_on_some_paths_only_next_to_float32_is_refused(backend):
    x, y = np.array([0.5], np.float32), np.array([2.0], np.float32)
    with pytest.raises(TypeError, match=(
            r"loop variable 't' is a Python float on entry to the loop but a Python or NumPy "
            r"float64 on an iteration \(.*: np.maximum of it computes in float32 where it is "
            r"the Python number and in float64 where it is the NumPy scalar")) as info:
        function(python_float_or_numpy_float64_by_the_iteration, backend=backend)(x, y, -1.25)
    assert "test_graph_control_flow.py" in str(info.value)   # (the user's line)
    with pytest.raises(TypeError, match=(
            r"'t' is a NumPy float64 on the true branch but a Python float on the false "
            r"branch .*np.maximum of it computes in float32")):
        function(python_float_or_numpy_float64_by_the_branch, backend=backend)(x, y, -1.25)
    # Next to float64 values the two compute alike: as in Python.
    for fn in (python_float_or_numpy_float64_by_the_iteration,
               python_float_or_numpy_float64_by_the_branch):
        for first in (0.5, -0.5):
            check(fn, np.array([first, -1.0], np.float32), np.array([2.0]), -1.25,
                  backend=backend)
    with pytest.raises(TypeError, match=(
            r"is f32\[\] on the true branch but a Python float on the false branch .* the "
            r"list built in a graph holds values of different types \(a Python float or "
            r"float32, by the path\)")):
        function(python_float_or_float32_item_of_a_list, backend=backend)(x, 0.75)


def bool_or_float_by_the_path_then_rebound_in_a_loop(x, flag):
    for i in range(x.shape[0]):
        if x[i] > 0:
            flag += 1
        flag -= 1.5        # (a Python bool still where the loop does not iterate)
    vals = []
    for i in range(x.shape[0]):
        vals.append(flag)
        flag += 2.0 * np.exp(x[i])
    return vals


def test_a_refused_join_of_a_value_already_of_several_kinds_says_them():
    # (Fuzz seed 41221: "loop variable 'flag' is f64[] on entry to the loop but f64[] on
    # an iteration", the kinds of a value an earlier join made one of several unsaid.)
    with pytest.raises(TypeError, match=(
            r"loop variable 'flag' is a Python bool or a Python float on entry to the loop "
            r"but f64\[\] on an iteration \(.*test_graph_control_flow.py:\d+ in bool_or_float")):
        function(bool_or_float_by_the_path_then_rebound_in_a_loop)(np.array([1.0, -1.0]), True)
