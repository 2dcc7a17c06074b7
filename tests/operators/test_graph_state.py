"""The state of graph loops and branches: aliases, values merged after a branch, names local
to a branch, variables defined by a loop. Each example runs as plain Python and through
ag.function on the NumPy and the Numba backend, and must give the same results."""

import inspect

import numpy as np
import pytest

from autograph.impl.function import function
from autograph.operators.graph import LoopVariableError
from graph_equivalence import check

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
    with pytest.raises(UnboundLocalError, match="had to iterate at least once"):
        function(fn, backend=backend)(np.zeros(0))
