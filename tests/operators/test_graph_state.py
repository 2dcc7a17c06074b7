"""The state of graph loops and branches: aliases, values merged after a branch, names local
to a branch, variables defined by a loop. Each example runs as plain Python and through
ag.function on the NumPy and the Numba backend, and must give the same results."""

import copy
import inspect

import numpy as np
import pytest

import runtime as rt

from autograph.errors import StagingError
from autograph.impl.function import function
from autograph.operators.graph import LoopVariableError
from graph_equivalence import check, check_either, check_raises

BACKENDS = ["numpy", "numba"]


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


# --- a loop variable that starts as an alias of another name -----------------------------------

def accumulates_its_alias(x):
    base = x[0]
    acc = base
    for i in range(x.shape[0]):
        acc = acc + base
    return acc


def counts_with_an_aliased_int(x):
    n = x.shape[0]
    total = n
    for i in range(x.shape[0]):
        total += n
    return total


def while_on_an_alias(x):
    step = x[1]
    value = step
    while value < 20.0:
        value = value * 2.0 + step
    return value, step


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [accumulates_its_alias, counts_with_an_aliased_int,
                                while_on_an_alias])
def test_an_alias_of_a_loop_variable_keeps_its_value(fn, backend):
    check(fn, np.array([2.0, 1.0, 1.0, 1.0]), backend=backend)


def two_loop_variables_from_one_value(x):
    a = x[0]
    b = a
    for i in range(x.shape[0]):
        a = a + 1.0
        b = b * 2.0
    return a, b


def test_two_loop_variables_from_one_value_are_independent():
    check(two_loop_variables_from_one_value, np.array([2.0, 1.0, 1.0]))


def writes_through_an_alias_in_a_loop(x):
    out = np.zeros(3)
    alias = out
    for i in range(x.shape[0]):
        alias[i % 3] = alias[(i + 2) % 3] + x[i]
    return out, alias


def aliased_array_loop_variable(x):
    out = np.zeros(3)
    seen = out
    total = 0.0
    for i in range(x.shape[0]):
        out[i % 3] += x[i]
        total = total + seen[i % 3]
    return out, seen, total


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [writes_through_an_alias_in_a_loop, aliased_array_loop_variable])
def test_in_place_writes_are_seen_through_every_alias(fn, backend):
    check(fn, np.arange(1.0, 6.0), backend=backend)


def alias_of_a_branch_output(x):
    base = x[0]
    value = base
    if x[1] > 0:
        value = value + base
    else:
        value = value - 1.0
    return value, base


@pytest.mark.parametrize("x", [[2.0, 1.0], [2.0, -1.0]])
def test_an_alias_of_a_branch_output_keeps_its_value(x):
    check(alias_of_a_branch_output, np.array(x))


# --- an array returned early, updated on the other path ----------------------------------------

def early_return_of_an_array(y):
    out = np.zeros(3)
    if y[0] < 1.0:
        return out, 0
    out[0] += 1.0
    return out, 1


def early_return_in_a_loop(y):
    out = np.zeros(3)
    for i in range(y.shape[0]):
        if y[i] < 0.0:
            return out, i
        out[i % 3] += y[i]
    return out, -1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("y", [[2.0, 1.0, 3.0, 4.0], [0.5, 1.0, 3.0, 4.0], [2.0, 1.0, -3.0, 4.0]])
def test_an_array_returned_early_keeps_later_updates(y, backend):
    check(early_return_of_an_array, np.array(y), backend=backend)
    check(early_return_in_a_loop, np.array(y), backend=backend)


# --- names assigned in nested statements of one branch do not leak into the other ---------------

def python_loop_in_the_first_branch(x):
    k = 10
    if x[0] > 0:
        j = 0
        while j < 3:
            k = j
            j += 1
        y = x[0]
    else:
        y = x[0]
        for i in range(2):
            y = y + k
    return y


def graph_loop_in_the_first_branch(x):
    k = 10.0
    if x[0] > 0:
        for j in range(x.shape[0]):
            k = x[j]
        y = x[0]
    else:
        y = x[0]
        for i in range(2):
            y = y + k
    return y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[2.0, 3.0], [-2.0, 3.0]])
def test_names_of_nested_statements_do_not_leak_between_branches(x, backend):
    check(python_loop_in_the_first_branch, np.array(x), backend=backend)
    check(graph_loop_in_the_first_branch, np.array(x), backend=backend)


# --- return and break in a Python while whose condition becomes symbolic -----------------------

def return_in_a_while_that_becomes_symbolic(x):
    i = 0
    s = 0.0
    while i < 5:
        if x[0] > 1.0:
            if s > 3.0:
                return s
        s = s + x[0]
        i += 1
        if s > 100.0:
            break
    return s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [2.0, 0.5, 60.0])
def test_return_and_break_in_a_while_that_becomes_symbolic(x, backend):
    check(return_in_a_while_that_becomes_symbolic, np.array([x]), backend=backend)


# --- arrays written in place in a loop, and the names that reach them ---------------------------

def double_buffer(x, n):
    a = x.copy()
    b = np.zeros_like(x)
    for step in range(n):
        for i in range(1, x.shape[0] - 1):
            b[i] = (a[i - 1] + a[i + 1]) / 2
        a, b = b, a
    return a


def written_then_rebound(x, out):
    for i in range(x.shape[0]):
        out[i % 3] = x[i]
        out = out * 2.0
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_written_in_place_and_swapped_or_rebound(backend):
    check(double_buffer, np.arange(6.0), np.int64(3), backend=backend)
    check(written_then_rebound, np.arange(1.0, 5.0), np.zeros(3), backend=backend)


def reads_the_first_array_through_an_alias(x):
    out = np.zeros(3)
    alias = out
    total = 0.0
    for i in range(x.shape[0]):
        total = total + alias[0]
        out[0] = x[i]
        out = out * 2.0
    return out, total


def two_names_one_written_in_place(x):
    a = np.zeros(3)
    b = a
    for i in range(x.shape[0]):
        a[i % 3] += x[i]
        b = b + 1.0
    return a, b


def alias_made_in_the_body(x):
    a = np.zeros(3)
    b = np.ones(3)
    total = 0.0
    for i in range(x.shape[0]):
        total = total + b[0]
        b = a
        a[0] += 1.0
    return a, b, total


@pytest.mark.parametrize("fn,message", [
    (reads_the_first_array_through_an_alias,
     "'out' is written into in place and rebound in the loop body, and the loop reads, "
     "through another name, the array it starts as.*out = out.copy\\(\\) before the loop"),
    (two_names_one_written_in_place,
     "'b' starts as the same array as another name, which the loop writes into in place, "
     "while it rebinds 'b'.*b = b.copy\\(\\)"),
    (alias_made_in_the_body,
     "'b' is set in the loop body to the array of another name, which the loop writes into"),
])
def test_aliases_a_graph_loop_cannot_follow_are_refused_at_the_loop(fn, message):
    assert fn(np.arange(1.0, 5.0)) is not None   # valid Python
    with pytest.raises(LoopVariableError, match=message) as info:
        function(fn, backend="numpy")(np.arange(1.0, 5.0))
    assert "(in the for loop at %s:%d in %s)" % (
        __file__, _line_of(fn, "for i in"), fn.__name__) in str(info.value)


# --- variables a graph loop defines -------------------------------------------------------------

def defined_in_a_while(x):
    i = 0
    while i < x.shape[0]:
        last = x[i] * 2.0
        i += 1
    return last


def loop_target_after_a_for(x):
    for i in range(x.shape[0]):
        pass
    return i


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [defined_in_a_while, loop_target_after_a_for])
def test_a_variable_a_loop_defines_is_unbound_when_it_ran_zero_times(fn, backend):
    check(fn, np.arange(1.0, 4.0), backend=backend)
    with pytest.raises(UnboundLocalError):
        fn(np.zeros(0))
    with pytest.raises(UnboundLocalError, match="it ran no iteration that did"):
        function(fn, backend=backend)(np.zeros(0))


# --- attributes and items of Python objects set in graph statements -------------------------------

class Record:
    pass


def attribute_set_in_both_branches(x):
    record = Record()
    record.scale = 1.0
    if x[0] > 0:
        record.offset = x[0] * 2
    else:
        record.offset = 3.0
    return record.scale + record.offset


def key_set_in_both_branches(x):
    d = {"k": 0.0}
    if x[0] > 0:
        d["j"] = x[0]
    else:
        d["j"] = 2.0
    return d["j"] + d["k"]


def list_item_set_in_a_branch(x):
    items = [0.0, 1.0]
    if x[0] > 0:
        items[0] = x[0]
    return items[0] + items[1]


def list_item_updated_in_a_loop(x):
    items = [0.0, 0.0]
    for i in range(x.shape[0]):
        items[0] = items[0] + x[i]
    return items[0], items[1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("first", [2.0, -2.0])
def test_attributes_and_items_set_in_graph_branches_and_loops(first, backend):
    x = np.array([first, 1.0, 3.0])
    for fn in (attribute_set_in_both_branches, key_set_in_both_branches,
               list_item_set_in_a_branch, list_item_updated_in_a_loop):
        check(fn, x, backend=backend)


def attribute_set_in_one_branch(x):
    record = Record()
    if x[0] > 0:
        record.value = x[0] * 2
    return record.value


def key_set_in_one_branch(x):
    d = {}
    if x[0] > 0:
        d["k"] = x[0]
    return d["k"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,error,shown", [
    (attribute_set_in_one_branch, AttributeError, "'record.value' is not set"),
    (key_set_in_one_branch, KeyError, "\"d['k']\" is not set"),
])
def test_attributes_and_items_set_in_one_branch_raise_as_python_where_unset(
        fn, error, shown, backend):
    check(fn, np.array([1.0]), backend=backend)
    with pytest.raises(error):
        fn(np.array([-1.0]))
    with pytest.raises(error) as info:
        function(fn, backend=backend)(np.array([-1.0]))
    assert str(info.value).startswith(
        "%s (the if statement at %s:%d in %s defines it in the if branch only"
        % (shown, __file__, _line_of(fn, "if x[0] > 0"), fn.__name__))


def attribute_set_in_a_loop(x):
    record = Record()
    for i in range(x.shape[0]):
        record.last = x[i]
    return record.last


def key_set_in_a_loop(x):
    d = {}
    for i in range(x.shape[0]):
        d["last"] = x[i]
    return d["last"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,error", [(attribute_set_in_a_loop, AttributeError),
                                      (key_set_in_a_loop, KeyError)])
def test_attributes_and_items_a_loop_sets_raise_as_python_when_it_ran_zero_times(
        fn, error, backend):
    check(fn, np.arange(1.0, 4.0), backend=backend)
    with pytest.raises(error):
        fn(np.zeros(0))
    with pytest.raises(error, match="it ran no iteration that did"):
        function(fn, backend=backend)(np.zeros(0))


# --- arrays that grow in a loop ------------------------------------------------------------------

def grows_by_concatenate(x):
    v = np.zeros(0)
    for i in range(x.shape[0]):
        v = np.concatenate((v, [x[i], i]))
    return v


def grows_by_append(x):
    v = np.array([1.0])
    i = 0
    while v.shape[0] < x.shape[0]:
        v = np.append(v, x[i])
        i += 1
    return v


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_that_grow_in_a_loop_relax_to_unknown_dims(backend):
    for fn in (grows_by_concatenate, grows_by_append):
        check(fn, np.arange(1.0, 5.0), backend=backend)
        check(fn, np.zeros(0), backend=backend)


# --- values a graph loop cannot carry -----------------------------------------------------------

def becomes_a_tuple(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = (s, 1)
    return s


def test_a_loop_variable_whose_structure_changes_is_refused_naming_it():
    assert becomes_a_tuple(np.ones(2)) == ((0.0, 1), 1)
    with pytest.raises(LoopVariableError,
                       match="^loop variable 's' of the for loop at %s:%d in becomes_a_tuple is a "
                             "Python float before the loop but a Python tuple after an "
                             "iteration" % (__file__, _line_of(becomes_a_tuple, "for i"))):
        function(becomes_a_tuple, backend="numpy")(np.ones(2))


# --- a name that is an earlier array on some paths of a graph if -------------------------------

def alias_on_one_path(x):
    out = np.zeros(3)
    result = out
    if x[0] > 1:
        result = out * 2
    out[1] = 7.0            # seen through `result` where it is `out`
    return result


def write_through_a_chosen_array(x):
    a = np.zeros(3)
    b = np.ones(3)
    if x[0] > 1:
        chosen = a
    else:
        chosen = b
    chosen[0] = 9.0         # lands in a or b
    return a, b, chosen


def alias_from_a_nested_if(x):
    a = np.zeros(3)
    r = a
    if x[0] > 1:
        if x[1] > 1:
            r = np.ones(3)
    a += 1.0
    return r


def alias_of_an_argument(x, y):
    r = y
    if x[0] > 1:
        r = np.zeros(y.shape[0])
    r[0] = 7.0              # writes the caller's array where r is y
    return r


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[3.0, 2.0, 0.5], [3.0, 0.5, 0.5], [0.5, 3.0, 1.0]])
def test_a_name_that_is_an_earlier_array_on_some_paths_sees_its_writes(x, backend):
    x = np.array(x)
    for fn in (alias_on_one_path, write_through_a_chosen_array, alias_from_a_nested_if):
        check(fn, x, backend=backend)
    check(alias_of_an_argument, x, np.ones(4), backend=backend)


def chosen_array_written_in_a_loop(x):
    a = np.zeros(3)
    b = np.ones(3)
    r = a
    for i in range(x.shape[0]):
        if x[i] > 1:
            r = b
        r[0] += 1.0
    return a, b, r


def test_an_earlier_array_chosen_and_written_in_a_loop_is_refused():
    with pytest.raises(LoopVariableError, match="'r' is set in the loop body, under an if, "
                                                "to an array from before the loop"):
        function(chosen_array_written_in_a_loop, backend="numpy")(np.arange(3.0))


# --- found by the fuzzer (tools/fuzz), minimised ---------------------------------------------------

def returns_from_while_true(x, y):
    while True:
        if np.any(x < -0.5):
            return np.sqrt(np.abs(y))
    return np.zeros(y.shape[0])


def returns_a_python_value_from_a_loop(y):
    base = 1
    for i in range(len(y)):
        return (base, None)


def name_set_to_an_array_the_loop_writes(y, limit):
    count = 0
    while count < limit:
        count += 1
        y[1] -= 1.0
        x = y
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_fuzzer_findings_on_loop_state(backend):
    # `while True` leaves through the lowered return: the return value is a loop variable.
    check(returns_from_while_true, np.array([-2.0, 1.0]), np.array([4.0, 9.0]), backend=backend)
    # A Python value returned from a graph loop is the same object on every path.
    check(returns_a_python_value_from_a_loop, np.ones(2), backend=backend)
    # No iteration, no return: Python returns None, and so does the graph.
    check(returns_a_python_value_from_a_loop, np.ones(0), backend=backend)
    # `x = y` on an array the loop writes, where the loop never reads x's previous value.
    check(name_set_to_an_array_the_loop_writes, np.zeros(3), np.int64(2), backend=backend)


# --- variables some paths do not define: Python's error where Python reads them ------------------

def read_only_where_defined(x):
    for i in range(x.shape[0]):
        last = x[i]
    if x.shape[0] > 0:
        return last
    return -1.0


def defined_under_an_if_in_a_loop(x):
    i = 0
    while i < x.shape[0]:
        if x[i] > 1:
            best = x[i]
        i += 1
    return best


def carried_only_through_iterations(x):
    for e in x:
        for j in range(1):
            last = e
        last = last
    return 0.0


def defined_before_on_one_path(x):
    if x[0] > 0:
        v = x[0]
    for i in range(x.shape[0]):
        v = v + 1
    return v


def copied_where_undefined(x):
    if x[0] > 0:
        last = x[0]
    copy = last            # Python raises here, though `copy` is never used
    return 1.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[1.0, 3.0], [-1.0, 0.5], [], [2.0]])
def test_maybe_undefined_variables_raise_where_python_reads_them(x, backend):
    x = np.array(x)
    for fn in (read_only_where_defined, defined_under_an_if_in_a_loop,
               carried_only_through_iterations, defined_before_on_one_path):
        check_either(fn, x, backend=backend)


def test_a_copy_of_an_undefined_variable_raises_as_python():
    check(copied_where_undefined, np.array([1.0]))
    check_raises(UnboundLocalError, copied_where_undefined, np.array([-1.0]),
                 match="cannot access local variable 'last'")


def returns_a_list_from_a_branch_in_a_loop(xi, c0):
    vals = []
    for e in xi:
        if c0:
            return vals


def appends_in_a_branch(x):
    vals = []
    if x[1] > 0:
        vals.append(x[0])
    return len(vals)


def builds_a_list_in_a_loop_in_one_branch(x):
    vals = []
    for i in range(1):
        if x[i] > 0:
            continue
        for j in range(x.shape[0]):
            vals.append(x[j])
    return len(vals)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[1.0, 3.0], [-1.0, 0.5], [2.0, -1.0]])
def test_fuzzer_findings_on_lists_in_branches(x, backend):
    x = np.array(x)
    check(appends_in_a_branch, x, backend=backend)
    check(builds_a_list_in_a_loop_in_one_branch, x, backend=backend)
    check(returns_a_list_from_a_branch_in_a_loop, x, x[0], backend=backend)


# --- variables of nested functions that a graph statement calls -----------------------------------

def counts_calls_in_a_loop(x):
    calls = 0

    def step(v):
        nonlocal calls
        calls += 1
        return calls

    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            total += step(x[i])
        total = total + calls
    return step(0.0), total


def counts_calls_in_a_branch(x):
    calls = 0

    def step():
        nonlocal calls
        calls += 1

    if x[0] > 0:
        step()
        seen = calls
    else:
        seen = calls * 10
    return calls, seen


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[1.0, -1.0, 2.0], [-1.0]])
def test_nonlocal_variables_of_called_functions_are_carried(x, backend):
    check(counts_calls_in_a_loop, np.array(x), backend=backend)
    check(counts_calls_in_a_branch, np.array(x), backend=backend)


# --- a name that is an earlier array after a graph loop -------------------------------------------

def breaks_before_rebinding_an_argument(x, k):
    count = 0
    while count < 1:
        count += 1
        if k[0] > 0:
            if np.sum(x):
                break
        x = x - 0.25
    x[0] -= 1.0             # the caller's array where the loop left x on it


def rebinds_under_a_condition(x, k):
    for i in range(x.shape[0]):
        if x[i] > k[0]:
            x = x * 2
    x[0] = -7.0
    return x


def set_to_another_array_in_the_loop(x, y):
    count = 0
    while count < x.shape[0]:
        count += 1
        x = y
    y[0] = 2.5              # seen through x, which is y after the loop
    return np.dot(x, x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[3.0, 1.0], [-3.0, 1.0], [0.0, 0.0]])
def test_a_name_a_loop_leaves_on_an_earlier_array_is_that_array(x, backend):
    x = np.array(x)
    for fn in (breaks_before_rebinding_an_argument, rebinds_under_a_condition,
               set_to_another_array_in_the_loop):
        check(fn, x, x[::-1].copy(), backend=backend)


def rebinds_in_every_iteration(x, n):
    for i in range(1, x.shape[0]):
        x = np.abs(x)
    x += n                  # the caller's array where the loop did not iterate (seed 9057)


def rebinds_in_a_while_loop_then_writes(x):
    count = 0
    while count < len(x) and 2.5 <= x[0]:
        count += 1
        x = np.ones(1)
        x += x[0]
    x[-1] += 1.0            # (seed 9209)


def writes_after_an_inner_loop_that_may_not_iterate(x):
    for i in range(x.shape[0]):
        for j in range(1, x.shape[0]):
            x = x * 2.0
        x[0] = 1.5          # the caller's array while the inner loop has not run (seed 4173)
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[2.0], [3.0, 1.0], []])
def test_a_name_a_loop_rebinds_is_the_earlier_array_if_the_loop_did_not_iterate(x, backend):
    x = np.array(x)
    check(rebinds_in_every_iteration, x, np.int64(2), backend=backend)
    check(writes_after_an_inner_loop_that_may_not_iterate, x, backend=backend)
    if x.size:
        check(rebinds_in_a_while_loop_then_writes, x, backend=backend)


def writes_in_a_loop_what_an_earlier_loop_left(x, n, m):
    for i in range(n):
        x = np.ones(x.shape)
    count = 0
    while count < m:
        count += 1
        x -= np.sum(x)      # the caller's array where the first loop did not iterate
    return x


def writes_in_a_loop_what_an_earlier_while_left(x, y, n):
    count = 0
    while count < n:
        count += 1
        y = np.zeros(1)
    for i in range(x.shape[0]):
        y += 3.0            # (seeds 1214, 1510)
        y[0] += x[i]
    return y


def writes_through_the_array_an_if_chose_and_another_name(x, y, c, n):
    z = x
    if c > 0:
        z = y
    total = 0.0
    for i in range(n):
        z += 1.0
        y[0] += 5.0          # seen through z where z is y
        total += z[0]
        x[-1] -= z[0]
    return z, total


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_writes_the_array_an_earlier_loop_may_have_left_a_name_on(backend):
    for c in (1, -1):
        check(writes_through_the_array_an_if_chose_and_another_name, np.array([1.0, 2.0]),
              np.array([3.0, 4.0]), np.int64(c), np.int64(3), backend=backend)
    for n, m in ((0, 2), (1, 2), (2, 0)):
        n, m = np.int64(n), np.int64(m)
        check(writes_in_a_loop_what_an_earlier_loop_left, np.array([1.0, 2.0]), n, m,
              backend=backend)
        check(writes_in_a_loop_what_an_earlier_while_left, np.array([1.0, 2.0]),
              np.array([5.0]), n, backend=backend)


class Counter:
    def __init__(self):
        self.count = 0

    def add(self):
        self.count += 1
        return self.count


def counts_in_a_python_loop_turned_graph(x, n):
    counter = Counter()
    for i in range(3):
        steps = 0
        while True:
            steps += 1
            if steps > n:
                break
            counter.add()
            if x[-1] > 0:
                break
        if x[0] > 5:
            return -1
    return counter.count


def condition_with_a_side_effect(x):
    counter = Counter()
    i = 0
    while i < x.shape[0] and counter.add() < 10:
        i += 1
    return counter.count


@pytest.mark.parametrize("backend", BACKENDS)
def test_attributes_changed_in_the_rest_of_a_python_loop_turned_graph(backend):
    # (The if statement of each remaining iteration traces a partial of the loop's body.)
    check(counts_in_a_python_loop_turned_graph, np.array([1.0, -1.0]), 3, backend=backend)
    check(counts_in_a_python_loop_turned_graph, np.array([1.0, 2.0]), 3, backend=backend)


def test_a_loop_condition_that_changes_state_is_refused_naming_it():
    assert condition_with_a_side_effect(np.ones(3)) == 3   # `and` stops at i < 3
    with pytest.raises(StagingError, match="the condition of the while loop at %s:%d in "
                                           "condition_with_a_side_effect changes "
                                           "'counter.count'" % (
                                               __file__, _line_of(condition_with_a_side_effect,
                                                                  "while i <"))):
        function(condition_with_a_side_effect, backend="numpy")(np.ones(3))


# --- arrays written in place and then rebound: the arrays Python writes are written -------------

def writes_the_argument_then_rebinds(x):
    for i in range(x.shape[0]):
        x -= 1.0             # the caller's array in the first iteration only
        x = np.zeros_like(x)
    return x


def an_alias_after_the_loop(x, y):
    alias = x
    for i in range(x.shape[0]):
        x[0] = 9.0
        x = x * 2
    return alias, x


def swaps_and_writes(x, y):
    for i in range(3):
        x[0] = x[0] + 1
        x, y = y, x          # the arguments' arrays take turns
    return x, y


def writes_in_a_loop_in_a_branch(x, y):
    for i in range(2):       # unrolled: two graph ifs
        if np.max(y) < 0.5:
            for j in range(0, len(y), 2):
                x[0] -= 1.0
                x = y * 3
        else:
            y = np.zeros(1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[3.0, 1.0], [-3.0], []])
def test_arrays_written_then_rebound_in_a_loop_are_written_as_in_python(x, backend):
    x = np.array(x)
    y = np.arange(x.shape[0]) * 1.0
    for fn in (an_alias_after_the_loop, swaps_and_writes):
        check_either(fn, x, y, backend=backend)
    check(writes_the_argument_then_rebinds, x, backend=backend)
    check(writes_in_a_loop_in_a_branch, np.array([-1.5]), np.array([2.0]), backend=backend)
    check(writes_in_a_loop_in_a_branch, np.array([-1.5]), np.array([0.0]), backend=backend)


def returns_a_list_it_builds_from_inside_the_loop(x):
    vals = []
    for e in x:
        if x[1] > 0:
            return vals
        else:
            vals.append(1.0)


def test_a_list_a_loop_builds_returned_from_inside_it_is_refused_naming_it():
    with pytest.raises(StagingError, match="the value returned is set in the for loop at %s:%d "
                                           "in returns_a_list_it_builds_from_inside_the_loop to "
                                           "a list the loop builds" % (
                                               __file__, _line_of(
                                                   returns_a_list_it_builds_from_inside_the_loop,
                                                   "for e in"))):
        function(returns_a_list_it_builds_from_inside_the_loop,
                 backend="numpy")(np.array([0.0, 1.0]))


# --- variables read before anything defines them: Python's error where the graph runs that -------

def reads_before_defining_in_a_loop(x):
    for i in range(x.shape[0]):
        acc = acc + x[i]     # UnboundLocalError when the loop runs, nothing when it does not
    return 1.0


def copies_an_unbound_variable_in_a_branch(x):
    if x[0] > 0:
        k = last             # UnboundLocalError where the branch runs
        last = 1.0
    return 1.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[1.0, 3.0], [-1.0], []])
def test_unbound_reads_raise_where_python_runs_them(x, backend):
    x = np.array(x)
    check_either(reads_before_defining_in_a_loop, x, backend=backend)
    if x.shape[0]:
        check_either(copies_an_unbound_variable_in_a_branch, x, backend=backend)


def returns_the_list_it_appends_to_in_the_first_iteration(x):
    vals = []
    for e in x:
        vals.append(e)
        return vals


def test_a_list_appended_to_and_returned_in_a_graph_loop_is_refused_naming_it():
    with pytest.raises(StagingError, match="the value returned is set in the for loop .* to a "
                                           "list the loop builds"):
        function(returns_the_list_it_appends_to_in_the_first_iteration,
                 backend="numpy")(np.array([1.0]))


def counts_in_a_condition(x):
    counter = Counter()
    hits = 0
    for i in range(x.shape[0]):
        if x[i] > 0 and counter.add() > 1:   # add() runs where x[i] > 0 only
            hits += 1
    return counter.count, hits


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_an_and_or_operand_changes_is_carried(backend):
    check(counts_in_a_condition, np.array([1.0, -1.0, 2.0, 3.0]), backend=backend)


# --- Python's errors on paths a graph traces but Python may not run ------------------------------

def indexes_an_empty_list_in_a_loop(x):
    vals = []
    for i in range(x.shape[0]):
        if vals[1]:          # IndexError when the loop runs, nothing when it does not
            pass
    return 1.0


def looks_up_a_missing_key_in_a_branch(x):
    d = {}
    if x[0] > 0:
        y = d["k"]           # KeyError where the branch runs
    else:
        y = 2.0
    return y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[1.0], [-1.0], []])
def test_python_errors_of_a_path_are_raised_where_the_graph_runs_it(x, backend):
    x = np.array(x)
    check_either(indexes_an_empty_list_in_a_loop, x, backend=backend)
    if x.shape[0]:
        check_either(looks_up_a_missing_key_in_a_branch, x, backend=backend)


def rebinds_under_ifs_of_an_unrolled_loop(x, k):
    for i in range(len(x)):
        x -= k               # the caller's array, while no if below rebinds x
        for j in range(3):   # a Python loop: three graph ifs
            if 1 < k:
                x = x * 2


def an_error_in_a_conditional_expression(x, y):
    vals = []
    for i in range(len(x)):
        if y if x[i] else vals[1]:   # vals[1] only where x[i] is 0
            pass
    return 1.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [-2.0, 2.0])
def test_fuzzer_findings_on_ifs_inside_loops(k, backend):
    check(rebinds_under_ifs_of_an_unrolled_loop, np.array([1.0, -2.0]), np.array(k),
          backend=backend)
    check_either(an_error_in_a_conditional_expression, np.array([k]), np.float64(-1.5),
                 backend=backend)
    check_either(an_error_in_a_conditional_expression, np.array([0.0]), np.float64(-1.5),
                 backend=backend)


def writes_an_array_it_chose_under_an_if(x, y):
    r = np.zeros(2)
    for i in range(x.shape[0]):
        r[0] += 1.0          # the array r is at this iteration's start
        if x[i] > 0:
            r = y            # ... which is y from here on
    return r


def test_an_array_chosen_under_an_if_and_written_in_a_loop_is_refused():
    with pytest.raises(LoopVariableError, match="'r' is set in the loop body, under an if, "
                                                "to an array from before the loop"):
        function(writes_an_array_it_chose_under_an_if, backend="numpy")(
            np.array([1.0, 2.0]), np.array([5.0, 6.0]))


def negates_a_numpy_bool_in_a_branch(x, flag):
    if x.shape[0]:
        u = -np.abs(flag)    # np.abs(False) is np.False_: NumPy's TypeError where it runs
    return 1.0


def subtracts_bools_in_a_loop(x):
    b = x > 0
    for i in range(x.shape[0]):
        b = b - b            # NumPy's boolean subtract TypeError when the loop runs
    return 1.0


def subtracts_bools_in_a_branch(x):
    b = x > 0
    if x.shape[0] > 2:
        c = b - b
    return 1.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [[], [1.0, -1.0, 2.0]])
def test_numpys_errors_of_a_path_are_raised_where_the_graph_runs_it(x, backend):
    # NumPy raised them while tracing (on Python values, or in an op's inference rule on
    # the dtypes): Python raises them only where it runs that path.
    x = np.array(x)
    check_either(negates_a_numpy_bool_in_a_branch, x, False, backend=backend)
    check_either(subtracts_bools_in_a_loop, x, backend=backend)
    check_either(subtracts_bools_in_a_branch, x, backend=backend)


def converts_a_tensor_in_a_branch_of_unconverted_code(x):
    return rt.cond(x[0] > 0, lambda: float(x[0]), lambda: 0.0)


def test_a_refusal_in_a_branch_is_still_raised_while_tracing():
    # float() of a symbolic value is a refusal of graph mode (raised by the runtime), not
    # an error of Python: it is not deferred to the path.
    with pytest.raises(TypeError, match="float"):
        function(converts_a_tensor_in_a_branch_of_unconverted_code, backend="numpy",
                 autograph=False).get_concrete_function(np.ones(2))


# (In a tuple, it is not a state input of the graph: runtime/state_guards.py.)
class _Constants(tuple):
    """A tuple subclass: its arrays are constants of a trace, not inputs (plain tuples'
    are)."""


_NUMPY_ARRAYS_OF_THE_MODULE = _Constants((np.arange(3) * 1.0,))


def writes_a_symbolic_value_into_a_numpy_array_in_a_branch(x):
    # A NumPy array made while tracing: a graph cannot write a tensor into it. (The array
    # in the tuple itself is read-only while tracing: tests/api/test_out_argument.py.)
    out = _NUMPY_ARRAYS_OF_THE_MODULE[0].copy()
    if x[0] > 0:
        out[2] = x[0]
    return 1.0


_STATE_OF_THE_MODULE = np.arange(3) * 1.0


def writes_into_an_array_of_the_module_in_a_branch(x):
    out = _STATE_OF_THE_MODULE   # the module's state: an input of the graph, written back
    if x[0] > 0:
        out[2] = x[0]
    return out.sum()


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_writes_into_the_state_of_the_module_are_left_where_python_leaves_them(backend):
    staged = function(writes_into_an_array_of_the_module_in_a_branch, backend=backend)
    for x in (-1.0, 5.0, 7.0):
        before = _STATE_OF_THE_MODULE.copy()
        expected = writes_into_an_array_of_the_module_in_a_branch(np.array([x]))
        python_after = _STATE_OF_THE_MODULE.copy()
        _STATE_OF_THE_MODULE[:] = before
        assert staged(np.array([x])) == expected
        np.testing.assert_array_equal(_STATE_OF_THE_MODULE, python_after)


def test_numpys_error_caused_by_a_refusal_is_raised_while_tracing():
    # NumPy's ValueError ("setting an array element with a sequence") comes from the
    # refusal of float() of a symbolic value: a limit of graph mode, said at once, not an
    # error of Python deferred to the path.
    staged = function(writes_a_symbolic_value_into_a_numpy_array_in_a_branch, backend="numpy")
    with pytest.raises(ValueError) as info:
        staged.get_concrete_function(np.array([-1.0]))
    assert isinstance(info.value.__cause__, TypeError)
    assert "symbolic" in str(info.value.__cause__)


def _checked(value, limit):
    if limit >= 1.5:
        raise ValueError("bad value %d" % limit)   # (on Python values while tracing)
    return value


def raises_in_a_helper_called_in_a_graph_branch(x, n):
    if n <= x[0]:
        return x[-1], 1
    y = np.where(x > 2.5, x - 2.0, _checked(1.0, n))   # (fuzzer seed 3504)
    return y[0], 2


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_raise_a_called_function_reaches_in_a_graph_branch_raises_there_as_in_python(backend):
    staged = function(raises_in_a_helper_called_in_a_graph_branch, backend=backend)
    check(raises_in_a_helper_called_in_a_graph_branch, np.array([3.0, -1.0]), 2,
          backend=backend, staged=staged)
    with pytest.raises(ValueError, match="bad value 2"):
        raises_in_a_helper_called_in_a_graph_branch(np.array([1.0, -3.0]), 2)
    with pytest.raises(ValueError, match="bad value 2"):
        staged(np.array([1.0, -3.0]), 2)
    check(raises_in_a_helper_called_in_a_graph_branch, np.array([1.0, 3.0]), 1,
          backend=backend)


# --- found by the differential fuzzer (seeds 10465, 10817 of tools/fuzz_graph_mode.py) -----------

def alias_made_in_one_branch_then_written(x, k0):
    if x[0] <= x.shape[0]:
        last = k0                 # (no else: `last` is undefined on the other path)
    k0 = k0 + last
    last += last                  # writes the argument's array where the if held


@pytest.mark.parametrize("k0", [np.array(-2.0), np.array([-2.0, 1.0])])
def test_an_alias_made_in_one_branch_writes_into_its_array_after_the_if(k0):
    for x in (np.array([-3.0]), np.array([1.5, 2.0])):
        check(alias_made_in_one_branch_then_written, x, k0)


def appends_an_array_then_changes_it(x, k0):
    items = []
    for _ in range(len(x)):
        items.append(k0)
    k0 -= 0.5
    return items


def appends_a_copy_then_changes_it(x, k0):
    items = []
    for _ in range(len(x)):
        items.append(k0.copy())
    k0 -= 0.5
    return items


@pytest.mark.parametrize("k0", [np.array(-2.0), np.array([-2.0, 1.0])])
def test_an_array_changed_after_it_was_appended_to_a_graph_list_is_refused(k0):
    with pytest.raises(TypeError, match="an array appended to items, a list built in a "
                       "graph loop, is changed in place afterwards"):
        function(appends_an_array_then_changes_it, backend="numpy")(np.ones(2), k0.copy())
    check(appends_a_copy_then_changes_it, np.ones(2), k0)


def scalar_then_array_from_before(x, flag, k0):
    c = 0
    while c < len(x):
        c += 1
        flag += flag          # (a bool first; k0 itself, written in place, after)
        flag = k0


def test_a_scalar_loop_variable_set_to_an_earlier_array_and_augmented_is_refused():
    # (fuzzer seed 23184)
    with pytest.raises(LoopVariableError, match="loop variable 'flag' starts the loop as a "
                       "scalar but is set in the loop body to an array from before the loop"):
        function(scalar_then_array_from_before, backend="numpy")(
            np.ones(2), True, np.array(2.0))


def counted_by_a_number(n, flag, k0):
    c = 0
    while c < n:
        c += 1
        flag += flag
        flag = k0


def test_with_a_python_number_bound_the_loop_runs_as_python_instead():
    # (With `n` a Python number, the refused graph loop is traced again with `n` a
    # constant: the loop runs as Python while tracing, as Python does.)
    staged = check(counted_by_a_number, 2, True, np.array(2.0))
    assert staged.trace_count == 1


def rebinds_twice_under_graph_ifs_in_a_graph_loop(x, xi):
    for i2 in range(len(xi)):
        if x[0] < 5:
            for _ in range(2):          # (a Python loop: two graph ifs, one after the other)
                if i2 > 1.0:
                    xi = xi * 2
                xi[i2] = 1.0


def test_an_array_rebound_under_two_graph_ifs_in_a_graph_loop_writes_the_argument():
    # (fuzzer seed 24453: an alias made of an alias in one branch)
    for x in (np.array([3.0, 0.0]), np.array([9.0, 1.0, 2.0])):
        check(rebinds_twice_under_graph_ifs_in_a_graph_loop, x, np.array([-1, 0, 4]))


def augmented_or_rebound_by_a_flag_from_before_the_loop(x, y, n):
    ok = 0 > 1.0 - n          # (tested by the body's if; read by the body as a capture)
    for _ in y:
        if ok:
            x *= 2.5
        else:
            x = np.ones(1)


def test_an_if_in_a_loop_testing_a_value_from_before_it_keeps_the_argument_written():
    # (fuzzer seed 36058: the second iteration's write into the argument was lost)
    for n in (4, 0):
        check(augmented_or_rebound_by_a_flag_from_before_the_loop, np.array([2.0, -3.0]),
              np.array([2.0, -0.5, 1.0]), n)


# --- an earlier array through a helper's return, a name one branch defines, `+=` by path ------

def _returns_its_argument_on_some_paths(a, n):
    if n[0] > 0:
        return a
    return None


def _returns_its_argument_from_a_loop(a, n):
    out = np.zeros(2)
    for i in range(n.shape[0]):
        if n[i] > 0:
            return a        # (a return in a graph loop ends it: a later write is not seen)
        out += a
        a[0] += 1.0
    return out


def writes_what_a_helper_returned(a, n):
    k = _returns_its_argument_on_some_paths(a, n)
    if k is not None:
        k += 1.0            # the caller's array where the helper returned it
    return a


def writes_what_a_helper_returned_from_a_loop(a, n):
    k = _returns_its_argument_from_a_loop(a, n)
    k += 1.0
    k[1] = 5.0
    return a


def alias_one_branch_defines_written_in_a_loop(x, k0):
    if np.any(x > 0):
        last = k0
    for i in range(x.shape[0]):
        last[i] += 1.0      # (read through ag__.ld: still the variable, and k0 there)
    return x


def alias_one_branch_defines_augmented_in_a_while_under_an_if(x, k0):
    if np.any(x > 0):
        last = k0
    i = 0
    while i < x.shape[0]:
        if x[i] > 1.0:
            last *= 2.0
        i += 1
    k0 += 1.0
    return last


def array_one_branch_defines_written_by_item(x, k0):
    if np.any(x > 0):
        last = np.zeros(2)
    last[0] += 1.0
    y = last
    y[1] = 3.0              # (y is last)
    return last


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [[-0.5, 1.5], [-0.5, -1.0], [1.0, -1.0]])
def test_an_earlier_array_a_helper_or_a_branch_leaves_a_name_on_is_written(n, backend):
    # (fuzzer seeds 32148, 32309 and their neighbours: the writes were lost)
    for fn in (writes_what_a_helper_returned, writes_what_a_helper_returned_from_a_loop):
        check(fn, np.array([-0.5, 2.0]), np.array(n), backend=backend)
    for fn in (alias_one_branch_defines_written_in_a_loop,
               alias_one_branch_defines_augmented_in_a_while_under_an_if,
               array_one_branch_defines_written_by_item):
        check_either(fn, np.array(n), np.array([-0.5, 2.0]), backend=backend)


def alias_an_if_made_read_in_a_loop_writing_its_array(x):
    out1 = np.zeros(len(x))
    if x[0] > 0:
        out1 = x
    for i in range(x.shape[0]):
        x += out1           # (out1 is x there, and the loop does not rebind it)
    return out1


def alias_an_if_made_rebound_in_a_loop_writing_its_array(x):
    out1 = np.zeros(len(x))
    if x[0] > 0:
        out1 = x
    for i in range(x.shape[0]):
        x += out1
        out1 = out1 * 2.0
    return out1


def test_an_alias_an_if_made_of_an_array_a_loop_writes_is_read_or_refused():
    # (fuzzer seed 40363's neighbours)
    for x in ([1.0, 2.0], [-1.0, 2.0]):
        check(alias_an_if_made_read_in_a_loop_writing_its_array, np.array(x))
    with pytest.raises(LoopVariableError, match="'out1' is, on some paths, the same array "
                                                "as 'x'"):
        function(alias_an_if_made_rebound_in_a_loop_writing_its_array,
                 backend="numpy")(np.array([1.0, 2.0]))


def number_then_0d_array_augmented(x, k0):
    k0 = 1.5
    for _ in range(x.shape[0]):
        k0 = np.array(3.0)
    k0 += 2.0               # a new float, or into the 0-d array, by the path taken
    return k0


def argument_or_number_augmented(x, k0):
    if x[0] > 0:
        k0 = 3.0
    k0 *= 2.0               # into the argument where it is still k0
    return k0


@pytest.mark.parametrize("x", [[3.0], [-1.0], []])
def test_augmented_assignment_to_a_number_or_a_0d_array_by_the_path(x):
    # (fuzzer seed 31675's neighbours: the result is the path's type, the argument
    # written where it is the argument)
    for fn in (number_then_0d_array_augmented, argument_or_number_augmented):
        args = (np.array(x), np.array(-0.5))
        check_either(fn, *args)
        if x:
            assert type(function(fn, backend="numpy")(*copy.deepcopy(args))) is type(
                fn(*copy.deepcopy(args)))
