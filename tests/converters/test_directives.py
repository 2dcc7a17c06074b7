"""ag.set_loop_options as the first statement of a loop is recorded and removed."""

from autograph.core import directives
from converter_testing import assert_same_behaviour, code

set_loop_options = directives.set_loop_options


def loop(n):
    i = 0
    while i < n:
        set_loop_options(maximum_iterations=100)
        i += 1
    total = 0
    for j in range(n):
        directives.set_loop_options(shape_invariants=[(total, ())])
        total += j
    return i, total


def test_generated_code_passes_options_to_the_loop_overloads():
    source = code(loop)
    assert "set_loop_options" not in source
    assert "{'maximum_iterations': 100}" in source
    assert "{'shape_invariants': [(total, ())]}" in source
    # Options holding the user's expressions are evaluated when the loop runs: inside the
    # function running the overload, not when the graph forms are made.
    assert "def for_stmt(iterated):\n            ag__.for_stmt(iterated, " in source
    assert "{'shape_invariants': [(total, ())]})" in source.split("def for_stmt(iterated):")[1]


def test_behaviour():
    assert_same_behaviour(loop, 0, 5)
