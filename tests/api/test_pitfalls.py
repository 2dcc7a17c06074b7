"""Known pitfalls of source conversion (issue 3): each must behave exactly as unconverted."""

import sys
import warnings

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/converters")

from autograph.impl import api  # noqa: E402
from converter_testing import assert_same_behaviour  # noqa: E402


class Account:
    def __init__(self, balance):
        self.__balance = balance

    def withdraw(self, amount):
        if amount > self.__balance:
            raise ValueError(f"insufficient: {self.__balance}")
        self.__balance -= amount
        return self.__balance


def test_name_mangled_attributes():
    assert_same_behaviour(Account.withdraw, lambda: (Account(10), 3),
                          lambda: (Account(1), 3))


def _warn_from_branch(flag):
    if flag:
        warnings.warn("from a branch", UserWarning, stacklevel=2)
    return flag


def _calls_warner():
    return _warn_from_branch(True)  # the warning must point at this line


def test_warning_stacklevel_points_at_the_same_user_line():
    with warnings.catch_warnings(record=True) as plain:
        warnings.simplefilter("always")
        _calls_warner()
    converted = api.to_graph(_calls_warner)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        converted()
    assert plain[0].filename == __file__
    assert (got[0].filename, got[0].lineno) == (plain[0].filename, plain[0].lineno)
    assert got[0].message.args == plain[0].message.args


def test_warning_from_converted_branch_with_unconverted_caller():
    converted = api.to_graph(_warn_from_branch)

    def caller():
        return converted(True)  # this line

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        caller()
    assert got[0].filename == __file__
    assert got[0].lineno == caller.__code__.co_firstlineno + 1


def _warn_two_levels_up(value):
    warnings.warn("two levels", UserWarning, stacklevel=3)
    return value


def _warns_in_conditional_expression(flag):
    return _warn_two_levels_up(1) if flag else 0


def _warns_in_or(flag):
    return flag or _warn_two_levels_up(2)


def _call_with(function, argument):
    return function(argument)  # stacklevel=3 must point at this line


def test_warning_stacklevel_through_conditional_and_logical_expressions():
    # The branches of `a if c else b` and the right side of `or` run in generated lambdas
    # called by the converted function: those frames must not count as user frames.
    for function, argument in ((_warns_in_conditional_expression, True), (_warns_in_or, 0)):
        converted = api.to_graph(function)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            _call_with(converted, argument)
        assert (got[0].filename, got[0].lineno) == (
            __file__, _call_with.__code__.co_firstlineno + 1), function.__name__


def _warns_beside_a_user_lambda(flag):
    # The generated lambdas of the conditional and the user's own start on one line.
    return _warn_two_levels_up(3) if flag else (lambda: 0)


def _warns_in_a_user_lambda_beside_generated_ones(flag):
    return (lambda: _warn_two_levels_up(4))() if flag else 0  # stacklevel=3: this line


class _Truthy:
    """A condition of no plain type: converted `a if c else b` calls its generated lambdas."""

    def __bool__(self):
        return True


def test_warning_stacklevel_with_user_and_generated_lambdas_on_one_line():
    # Only the generated lambdas are skipped frames; the user's lambda is a frame of its own.
    converted = api.to_graph(_warns_beside_a_user_lambda)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        _call_with(converted, _Truthy())
    assert (got[0].filename, got[0].lineno) == (
        __file__, _call_with.__code__.co_firstlineno + 1)
    function = _warns_in_a_user_lambda_beside_generated_ones
    for candidate in (function, api.to_graph(function)):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            _call_with(candidate, _Truthy())
        assert (got[0].filename, got[0].lineno) == (
            __file__, function.__code__.co_firstlineno + 1)


def _warns_inside_branches(flag):
    if flag:
        warnings.warn("here", UserWarning)  # stacklevel=1: this line
        if flag > 1:
            _warn_from_branch(True)  # stacklevel=2 from the callee: this line
    return flag


def test_warning_lines_inside_converted_branches():
    # The branch runs in a generated function called from the `ag__.if_stmt(...)()` line;
    # the warning must name the user's line inside the branch, as unconverted.
    for argument in (1, 2):
        with warnings.catch_warnings(record=True) as plain:
            warnings.simplefilter("always")
            _warns_inside_branches(argument)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            api.to_graph(_warns_inside_branches)(argument)
        assert [(w.filename, w.lineno) for w in got] == [
            (w.filename, w.lineno) for w in plain]


def _recursion_through_or(n):
    return n == 0 or _recursion_through_or(n - 1)


def test_recursion_through_conditional_and_logical_expressions():
    # Two frames per level (the function and the generated lambda it calls), as for `if`.
    assert api.to_graph(_recursion_through_or)(400) is True


def test_nested_generator_and_walrus_and_docstring():
    def f(values):
        """Doc."""
        def evens():
            for v in values:
                if v % 2 == 0:
                    yield v
        total = 0
        for e in evens():
            if (doubled := e * 2) > 4:
                total += doubled
        return total, doubled if values else None

    assert_same_behaviour(f, ([1, 2, 3, 4],), ([],))


def test_try_except_else_finally_with_loops():
    def f(values):
        out = []
        for v in values:
            try:
                if v == 0:
                    continue
                r = 10 // v
            except ZeroDivisionError:
                out.append("zero")
            else:
                if r > 3:
                    return out, "big"
                out.append(r)
            finally:
                out.append("f")
        return out, "end"

    assert_same_behaviour(f, ([1, 0, 2],), ([5, 4, 1],), ([],))


def test_comprehensions_lambdas_star_args_kwonly_del():
    def f(*args, scale=1, **kwargs):
        data = [a * scale for a in args if a]
        mapping = {k: v for k, v in kwargs.items()}
        key = lambda kv: -kv[1]  # noqa: E731
        ordered = sorted(mapping.items(), key=key)
        first = data[0] if data else None
        del data
        return first, ordered

    assert_same_behaviour(f, (1, 2), (0, 3), lambda: ())
    converted = api.to_graph(f)
    assert converted(2, scale=3, a=1, b=2) == f(2, scale=3, a=1, b=2)
