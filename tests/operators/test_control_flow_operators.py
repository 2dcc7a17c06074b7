"""Python paths of if_stmt / while_stmt / for_stmt: they behave like the statements."""

import itertools

import pytest

from autograph.operators import control_flow


def test_if_stmt_returns_the_chosen_branch_to_call():
    ran = []
    for cond, orelse in ((True, True), (0, True), ([], False)):
        branch = control_flow.if_stmt(
            cond, lambda: ran.append("body"), (lambda: ran.append("else")) if orelse else None,
            None, None, (), 0)
        assert ran == [] or ran[-1] != "called-early"
        branch()
    assert ran == ["body", "else"]


def test_if_stmt_evaluates_truth_once_and_propagates_its_error():
    class Cond:
        calls = 0

        def __bool__(self):
            Cond.calls += 1
            raise ValueError("ambiguous")

    with pytest.raises(ValueError, match="ambiguous"):
        control_flow.if_stmt(Cond(), lambda: None, None, None, None, (), 0)
    assert Cond.calls == 1


def test_while_stmt_runs_until_test_is_false():
    state = {"i": 0}

    def body():
        state["i"] += 1

    control_flow.while_stmt(lambda: state["i"] < 5, body, None, None, (), {})
    assert state["i"] == 5


def test_for_stmt_iterates_like_python():
    seen = []
    control_flow.for_stmt({"a": 1, "b": 2}, None, seen.append, None, None, (), {})
    assert seen == ["a", "b"]


def test_for_stmt_extra_test_never_consumes_an_extra_element():
    iterator = iter(range(10))
    seen = []

    def body(x):
        seen.append(x)

    control_flow.for_stmt(iterator, lambda: len(seen) < 3, body, None, None, (), {})
    assert seen == [0, 1, 2]
    assert next(iterator) == 3


def test_for_stmt_extra_test_false_at_start_runs_nothing():
    seen = []
    control_flow.for_stmt(itertools.count(), lambda: False, seen.append,
                          None, None, (), {})
    assert seen == []


def test_for_stmt_not_iterable_error_is_pythons():
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        control_flow.for_stmt(5, None, lambda x: None, None, None, (), {})
