"""Programs the differential fuzzer (tools/fuzz_graph_mode.py) found giving another answer
than Python, minimised, each named by its seed. Fixed ones live with the tests of what they
exercise; these are open: strict xfails, so each flips when it is fixed (or, where a graph
cannot do what Python does, the refusal is checked)."""

import copy

import numpy as np
import pytest

from autograph.impl.function import function
from autograph.operators.graph import LoopVariableError
from graph_equivalence import check


def _helper_returning_its_argument(a, b):
    if a:
        return a


def alias_returned_by_a_helper_then_augmented(n, k0):
    k0 = _helper_returning_its_argument(k0, n)
    k0 += k0


def alias_made_in_one_branch_augmented_in_a_loop(x, k0):
    if np.any(x):
        last = k0
    for _ in range(1, x.shape[0]):
        last -= last


def number_or_array_after_a_loop_augmented(x, k0):
    for _ in range(x.shape[0]):
        k0 = 3.0
    k0 += 2.0
    return k0


def early_return_in_a_python_loop_next_to_an_item_write(x):
    out = np.ones(3)
    for _, _ in enumerate(out):
        if np.all(out < 0.0):
            return 3
        x[-1] -= 1.0


def alias_made_in_a_branch_iterated_while_its_array_is_augmented(x):
    out1 = np.zeros(len(x))
    if out1.shape[0]:
        out1 = x
    for e2 in out1:
        if np.any(out1):
            x += out1
        else:
            out1 = np.maximum(out1, e2)


def argument_iterated_augmented_and_rebound_in_nested_loops(x, y, flag):
    c3 = 0
    while True:
        c3 += 1
        if c3 > x.shape[0]:
            break
        for e5 in y:
            y += np.exp(-np.abs(x))
            if e5 <= len(x) + c3:
                x = np.abs(np.ones(x.shape[0])) - (np.zeros(len(y)) + e5)
            else:
                x[-1] += x[0]
                if c3 >= y[0] and c3 <= flag + c3:
                    pass
                y = np.ones(len(y)) * -1.0 - (-0.5 - -1.0)
        y -= -1.0


@pytest.mark.parametrize("fn, args", [
    # (The helper's return value, an alias of its argument where `a` held, was made a plain
    # value: a graph if keeps aliases of return values: conditionals.if_stmt.)
    pytest.param(alias_returned_by_a_helper_then_augmented, (4, np.array(1.0)),
                 id="seed32148"),
    # (A graph loop carried the maybe-undefined alias as a plain value: graph/loops.py.)
    pytest.param(alias_made_in_one_branch_augmented_in_a_loop,
                 (np.array([-0.5, 1.5]), np.array([-0.5, 2.0])), id="seed32309"),
    # (The loop's first iteration ran as Python, then restarted with the return value
    # typed; the item write it did was not undone: control_flow._python_iteration.)
    pytest.param(early_return_in_a_python_loop_next_to_an_item_write, (np.array([2.5]),),
                 id="seed32989"),
])
def test_fuzzer_finds(fn, args):
    check(fn, *args)


def _prints_and_writes_before_a_return_in_a_loop(x):
    out = np.ones(2)
    for i, _ in enumerate(out):
        print("iteration", i, x[-1])
        if np.all(out < 0.0):
            return 3
        x[-1] -= 1.0
        for j in range(2):   # (a nested loop whose first iteration is undone too)
            if x[0] > 10.0:
                return j
            x[0] += 0.5
    return 5


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_restarted_loop_undoes_its_first_iteration_s_prints_and_writes(backend, capsys):
    check(_prints_and_writes_before_a_return_in_a_loop, np.array([2.5, 1.0]),
          capsys=capsys, backend=backend)


@pytest.mark.parametrize("x", [[3.0], []])
def test_fuzzer_find_31675_a_float_or_0d_array_by_the_path_keeps_its_type(x):
    # (`+=` made a 0-d array on every path: path_kinds.propagate, in place into a value
    # that is a 0-d array on some paths.)
    args = (np.array(x), np.array(-0.5))
    assert type(function(number_or_array_after_a_loop_augmented, backend="numpy")(
        *copy.deepcopy(args))) is type(number_or_array_after_a_loop_augmented(
            *copy.deepcopy(args)))
    check(number_or_array_after_a_loop_augmented, *args)


# Refused, at the loop: a graph loop cannot follow these aliases (runtime/loop_aliases.py).

@pytest.mark.parametrize("fn, args, message", [
    # seed 40363: the name is the argument where the if held; the loop rebinds it, so in
    # Python it reads the loop's writes into the argument until then.
    (alias_made_in_a_branch_iterated_while_its_array_is_augmented, (np.array([0.0, -3.0]),),
     r"loop variable 'out1' is, on some paths, the same array as 'x' \(an if before the "
     r"loop made it so\), which the loop writes into in place, while it rebinds 'out1'.*"
     r"out1 = out1.copy\(\)"),
    # seed 40923: the for loop iterates the array y starts as, which its first iteration
    # writes into; an inner loop (in a graph if) is refused as one at the top is.
    (argument_iterated_augmented_and_rebound_in_nested_loops,
     (np.array([2.5, 1.0, 0.0, 0.0]), np.array([0.5, 0.0, 1.5, -0.5]), True),
     r"loop variable 'y' is written into in place and rebound in the loop body, and the "
     r"loop reads, through another name, the array it starts as"),
], ids=["seed40363", "seed40923"])
def test_fuzzer_finds_refused(fn, args, message):
    with pytest.raises(LoopVariableError, match=message) as info:
        function(fn, backend="numpy")(*copy.deepcopy(args))
    assert "test_fuzz_finds.py" in str(info.value)   # (the user's loop)


def python_float_that_an_iteration_makes_float32(x, t, k0):
    for i in range(x.shape[0]):
        k0 = k0 * np.exp(t)   # (np.exp of a Python float: float64; of an np.float32: float32)
        t = t * x[i]          # (a Python float times an np.float32: an np.float32, NEP 50)
    return k0


@pytest.mark.xfail(strict=True, reason="open: a loop variable that is a Python float argument "
                   "on entry and a NumPy float32 after an iteration gets one dtype in the graph, "
                   "so the first iteration's np.exp computes in the wrong one (1e-8 off)")
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_fuzzer_find_9929_a_python_float_loop_variable_made_float32(backend):
    # (fuzz seed 9929, --construct for_range --construct narrow_dtypes, minimised)
    check(python_float_that_an_iteration_makes_float32,
          np.array([0.5, 2.0], dtype=np.float32), -0.25, np.float64(1.0), backend=backend)
