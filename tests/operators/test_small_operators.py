"""Logical, conditional-expression, assert, list and variable overloads on Python values."""

import collections

import pytest

from autograph import operators as ag


def test_and_or_return_the_same_object_and_are_lazy():
    default = [1]
    empty = []
    # The overloads return the function computing the result (generated code calls it).
    assert ag.or_(empty, lambda: default)() is default
    assert ag.and_(empty, lambda: pytest.fail("must not run"))() is empty
    assert ag.or_(default, lambda: pytest.fail("must not run"))() is default
    assert ag.and_(1, lambda: default)() is default
    assert ag.and_(False, lambda: pytest.fail("must not run"))() is False
    assert ag.or_(True, lambda: pytest.fail("must not run"))() is True
    assert ag.not_([]) is True


def test_if_exp_runs_only_the_chosen_branch():
    # The overload returns the branch to call (generated code calls it).
    assert ag.if_exp(True, lambda: 1, lambda: pytest.fail("no"), "1 if c else 2")() == 1
    assert ag.if_exp(0, lambda: pytest.fail("no"), lambda: 2, "1 if c else 2")() == 2


def test_assert_stmt_raises_like_assert():
    ag.assert_stmt(True, lambda: pytest.fail("message computed for a passing assert"))
    with pytest.raises(AssertionError) as info:
        ag.assert_stmt(0, None)
    assert info.value.args == ()
    with pytest.raises(AssertionError) as info:
        ag.assert_stmt([], lambda: "bad value")
    assert info.value.args == ("bad value",)


def test_list_overloads_keep_identity_and_semantics():
    values = [1, 2]
    assert ag.list_append(values, 3) is values
    assert values == [1, 2, 3]
    assert ag.list_pop(values, None, None) == (values, 3)
    assert ag.list_pop(values, 0, None) == (values, 1)
    with pytest.raises(IndexError, match="pop from empty list"):
        ag.list_pop([], None, None)
    queue = collections.deque()
    assert ag.list_append(queue, 1) is queue and list(queue) == [1]
    table = {}
    assert ag.set_item(table, "k", 1) is table and table == {"k": 1}


def test_ld_raises_unbound_local_error_for_undefined():
    assert ag.ld(5) == 5
    with pytest.raises(UnboundLocalError, match="cannot access local variable 'x'"):
        ag.ld(ag.Undefined("x"))


def test_overloads_without_a_graph_path_say_so():
    import numpy as np
    import runtime as rt

    def traced(x):
        return ag.overload_of(next)(x)

    with pytest.raises(NotImplementedError, match="not supported by this overload yet"):
        rt.function(traced)(np.arange(3.0))


def test_plain_value_tests_of_converted_statements():
    import numpy as np
    import runtime as rt

    class Flag:  # a user type: not one of the plain types, still a Python value
        def __bool__(self):
            return False

    for value in (True, 0, np.int64(3), np.bool_(False), [], collections.deque(), Flag()):
        assert ag.is_plain(value) and ag.is_plain_iterable(value)
    seen = {}

    def trace(x):
        seen["plain"] = ag.is_plain(x)
        seen["plain_iterable"] = ag.is_plain_iterable(x)
        return x

    rt.function(trace, backend="numpy")(np.ones(2))
    assert seen == {"plain": False, "plain_iterable": False}


def test_graph_forms_are_the_factorys_own_locals():
    def graph_forms():
        def if_body():
            return "if_body"

        def for_stmt(iterated):
            return iterated
        return ag.GraphForms(ag.locals_())  # the builtin sees this frame through the alias

    forms = graph_forms()
    assert forms.if_body() == "if_body" and forms.for_stmt(3) == 3
