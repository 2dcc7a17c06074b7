"""Python lists in graph code: appended to in a graph loop they become tensor arrays, and
after the loop behave like the list of values plain Python builds."""

import numpy as np
import pytest

from autograph.errors import StagingError
from autograph.impl.function import function
from graph_equivalence import check, graph_text


def squares(x):
    values = []
    for i in range(x.shape[0]):
        values.append(x[i] * x[i])
    return np.stack(values), len(values), values[0], values[-1]


def test_list_appended_in_graph_loop_stacks_indexes_and_has_length():
    staged = check(squares, np.arange(1.0, 5.0))
    check(squares, np.arange(1.0, 9.0), staged=staged)
    assert staged.trace_count == 1
    assert "ta_write" in graph_text(staged, np.arange(3.0))


def returns_the_list(x):
    rows = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            rows.append(x[i] * 2)
    return rows


@pytest.mark.parametrize("x", [[1.0, -1.0, 3.0], [-1.0], []])
def test_returned_list_is_a_python_list_of_values(x):
    check(returns_the_list, np.array(x))


def iterate_after_loop(x):
    kept = [0.5]
    n = 0
    while n < x.shape[0]:
        kept.append(x[n])
        n += 1
    total = 0.0
    for value in kept:
        total += value
    return total, sum(kept), np.array(kept)


def test_list_with_initial_items_iterated_after_the_loop():
    check(iterate_after_loop, np.array([1.0, 2.0, 4.0]))


def rows_of_a_matrix(m):
    out = []
    for i in range(m.shape[0]):
        out.append(m[i] + 1.0)
    return np.stack(out)


def test_list_of_arrays():
    check(rows_of_a_matrix, np.arange(6.0).reshape(3, 2))


def pops(x):
    stack = []
    for i in range(x.shape[0]):
        stack.append(x[i])
    top = stack.pop()
    return top, len(stack)


def test_pop_after_the_loop():
    check(pops, np.array([1, 5, 9]))


def list_changed_under_condition(x):
    items = [1.0]
    if x > 0:
        items.append(x)
    return items


def list_of_objects_changed_under_condition(x):
    items = ["a"]
    if x > 0:
        items.append("b")
    return items


def test_python_list_changed_in_a_graph_branch_becomes_a_tensor_array():
    check(list_changed_under_condition, np.float64(1.0))
    check(list_changed_under_condition, np.float64(-1.0))
    with pytest.raises(StagingError, match="'items'"):
        function(list_of_objects_changed_under_condition, backend="numpy")(np.float64(1.0))


def list_of_objects(x):
    names = ["a"]
    for i in range(x.shape[0]):
        names.append("b")
    return len(names)


def test_list_of_python_objects_cannot_become_a_tensor_array():
    with pytest.raises(StagingError, match="'names'"):
        function(list_of_objects, backend="numpy")(np.arange(3.0))


def python_loop_list(x):
    out = []
    for i in range(3):          # a Python loop: unrolled at trace time, a plain list
        out.append(x * i)
    return np.stack(out)


def test_lists_in_python_loops_stay_python_lists():
    staged = check(python_loop_list, np.arange(2.0))
    assert "ta_" not in graph_text(staged, np.arange(2.0))


def nested_loops_list(m):
    found = []
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > 2:
                found.append(i * 10 + j)
    return found, len(found)


def test_list_appended_in_nested_graph_loops_and_branches():
    check(nested_loops_list, np.arange(6).reshape(2, 3))



def item_written(x):
    items = []
    for i in range(x.shape[0]):
        items.append(x[i])
        items[0] = 1.0
    return items


def test_items_of_a_list_built_in_a_graph_loop_can_be_written():
    check(item_written, np.array([5.0, 6.0, 7.0]))


def inserted(x):
    items = [1.0]
    for i in range(x.shape[0]):
        items.insert(0, x[i])
    return items


def test_unsupported_list_methods_in_a_graph_loop_name_the_list_and_method():
    with pytest.raises(TypeError, match=r"items\.insert"):
        function(inserted, backend="numpy")(np.ones(3))


def appended_in_branch_not_loop_var(x):
    seen = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            seen.append(x[i])
    return np.stack(seen) if False else len(seen)


def test_list_appended_through_a_method_call_in_a_branch_of_a_graph_loop():
    check(appended_in_branch_not_loop_var, np.array([1.0, -1.0, 2.0]))


def truth_of_lists(x):
    evens = []
    for i in range(x.shape[0]):
        if x[i] % 2 == 0:
            evens.append(x[i])
    if evens:
        first = evens[0]
    else:
        first = -1
    return first, not evens, bool(evens)


@pytest.mark.parametrize("x", [[1, 4, 6], [1, 3]])
def test_truth_value_of_a_list_built_in_a_graph_loop(x):
    check(truth_of_lists, np.array(x))


def plus_equals(x):
    acc = []
    for i in range(x.shape[0]):
        acc += [x[i], -x[i]]
    return acc


def nested_insert_free_extend(m):
    flat = []
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            flat.extend([m[i, j]])
    return len(flat), np.stack(flat)


def test_extend_and_plus_equals_in_graph_loops():
    check(plus_equals, np.array([1.0, 2.0]))
    check(nested_insert_free_extend, np.arange(6.0).reshape(2, 3))


# Items of different types (found by the fuzzer's narrow_dtypes): Python keeps each item's
# own type; a tensor array, of one dtype, gave them back converted (1.5 as the int 1, 0.1
# rounded to float32, a float32 item as a float64). Refused, naming the list.
def int_or_float_item_by_branch(x):
    vals = []
    if x[0] > 0:
        vals.append(1)
    else:
        vals.append(1.5)
    return vals


def python_float_after_float32_items(x):
    vals = []
    for i in range(x.shape[0]):
        vals.append(x[i])
    vals.append(0.1)
    return vals


def float32_item_next_to_a_python_float(x):
    vals = [0.5]
    for v in x:
        if v > 0:
            vals.append(v)
    return vals


def float32_items_written_over_with_a_python_float(x):
    vals = []
    for v in x:
        vals.append(v)
    vals[0] = 0.1
    return vals


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("fn", [int_or_float_item_by_branch, python_float_after_float32_items,
                                float32_item_next_to_a_python_float,
                                float32_items_written_over_with_a_python_float],
                         ids=lambda fn: fn.__name__)
def test_items_of_different_types_in_a_list_built_in_a_graph_are_refused(fn, backend):
    x = np.array([-1.0, 2.0], np.float32)
    fn(x.copy())   # (Python builds it)
    with pytest.raises(TypeError, match="'vals' built in a graph holds values of different types"):
        function(fn, backend=backend)(x)


def test_items_of_one_type_with_python_numbers_among_them_stay_as_python_builds():
    def counts(x):
        out = [0]
        for v in x:
            if v > 0:
                out.append(len(out))
        return out

    check(counts, np.array([1.0, -1.0, 2.0], np.float32))
