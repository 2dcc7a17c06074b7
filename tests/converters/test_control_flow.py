"""if/while/for become overload calls; Python scoping and side effects are unchanged."""

import pytest

from autograph.impl import api
from converter_testing import assert_same_behaviour, code


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2:
            n = 3 * n + 1
        else:
            n //= 2
        steps += 1
    return steps


def test_generated_code_calls_the_overloads():
    source = code(collatz_steps)
    # On Python values the statements run inline; the overloads take over on symbolic ones.
    assert "while True:" in source and "if cond:" in source
    # Graph forms: the overloads applied to the block functions (as functions of the
    # condition), called when a condition is symbolic.
    assert "while_graph = ag__.while_graph_form(loop_test, loop_body, " in source
    assert "if_stmt = ag__.if_form(if_body, else_body, " in source
    assert "graph_forms().while_graph()" in source and "if_stmt(cond)" in source
    # Loop variables come from liveness: n and steps, in a stable order.
    assert "('n', 'steps')" in source


def test_loops_and_branches_behave_like_python():
    assert_same_behaviour(collatz_steps, 1, 6, 27)


def test_variable_defined_only_in_branch_raises_unbound_local_error():
    def f(c):
        if c:
            x = 1
        return x

    assert_same_behaviour(f, True, False)


def test_variable_defined_only_in_loop():
    def f(n):
        for i in range(n):
            last = i
        return last, i

    assert_same_behaviour(f, 3, 0)


def test_branch_local_variables_and_annotated_locals():
    def f(c):
        total: int = 0
        if c:
            tmp: int = 5
            total += tmp
        else:
            note: str
            total -= 1
        return total

    assert_same_behaviour(f, True, False)


def test_global_and_nonlocal_are_preserved():
    def outer():
        count = 0

        def bump(n):
            nonlocal count
            global GLOBAL_COUNTER
            for _ in range(n):
                if True:
                    count += 1
                    GLOBAL_COUNTER += 1
            return count

        return bump

    global GLOBAL_COUNTER
    GLOBAL_COUNTER = 0
    bump = outer()
    converted = api.to_graph(bump)
    assert converted(3) == 3
    assert GLOBAL_COUNTER == 3
    assert bump(2) == 5  # the converted function shares the closure cell
    assert GLOBAL_COUNTER == 5


GLOBAL_COUNTER = 0


def test_attribute_and_item_targets_are_state():
    class Box:
        def __init__(self):
            self.total = 0

    def f(box, d, n):
        for i in range(n):
            box.total += i
            d["n"] += 1
        return box.total, d

    source = code(f)
    assert "box.total" in source and "d['n']" in source
    assert_same_behaviour(f, lambda: (Box(), {"n": 0}, 4))


def test_property_setter_runs_exactly_as_often():
    class Counter:
        def __init__(self):
            self._value = 0

        @property
        def value(self):
            return self._value

        @value.setter
        def value(self, v):
            print("set", v)
            self._value = v

    def f(counter, n):
        i = 0
        while i < n:
            counter.value += 1
            i += 1
        if n > 1:
            counter.value = 10
        return counter.value

    assert_same_behaviour(f, lambda: (Counter(), 3), lambda: (Counter(), 0))


def test_for_over_dict_string_generator_and_tuple_targets():
    def f(d, s):
        out = []
        for k, v in d.items():
            out.append((k, v))
        for ch in s:
            out.append(ch)
        for x in (y * 2 for y in range(3)):
            out.append(x)
        return out

    assert_same_behaviour(f, ({"a": 1, "b": 2}, "xy"))


def test_exceptions_inside_loops_propagate_unchanged():
    def f(values):
        total = 0
        for v in values:
            total += 10 // v
        return total

    assert_same_behaviour(f, ([1, 2],), ([1, 0],), (5,))


def test_walrus_in_while_condition():
    def f(values):
        it = iter(values)
        seen = []
        while (x := next(it, None)) is not None:
            seen.append(x)
        return seen, x

    assert_same_behaviour(f, ([1, 2, 3],), ([],))


def test_try_with_del_and_imports_in_branches():
    def f(c):
        if c:
            import math as m
            value = m.sqrt(4)
            del m
        else:
            try:
                raise KeyError("k")
            except KeyError as e:
                value = str(e)
        return value

    assert_same_behaviour(f, True, False)


def test_nested_function_defined_in_loop_captures_like_python():
    def f(n):
        funcs = []
        for i in range(n):
            def g():
                return i
            funcs.append(g)
        return [h() for h in funcs]

    assert_same_behaviour(f, 3)


def test_match_statement_keeps_working():
    def f(x):
        match x:
            case [a, b]:
                result = a + b
            case {"k": v}:
                result = v
            case _:
                result = None
        if result is None:
            return "none"
        return result

    assert_same_behaviour(f, ([1, 2],), ({"k": 5},), (3,))


def test_read_before_assignment_in_loop_is_still_an_error():
    def f(n):
        for i in range(n):
            if i:
                print(prev)
            prev = i
        return prev

    assert_same_behaviour(f, 3)
    with pytest.raises(NameError):
        api.to_graph(f)(0)


def test_loop_variables_follow_the_liveness_rule():
    def f(a, b):
        c = 0
        while a < b:
            c = a * 2
            a = c + 1
        return a

    source = code(f)
    # a: modified and read by the condition; b: only read; c: written before any read in
    # the body and unused after the loop.
    assert "ag__.while_graph_form(loop_test, loop_body, None, None, ('a',), {})" in source
    assert_same_behaviour(f, (0, 10), (5, 1))


# --- the inline Python form ---------------------------------------------------------------


def test_python_values_run_the_statements_inline():
    def f(values):
        total = 0
        for v in values:
            if v > 2:
                total += v
        return total

    source = code(f)
    # The block functions of the graph forms are defined in one function, which only the
    # branches taken on symbolic values call.
    assert "for v in values:" in source and "if cond:" in source
    factory, body = source.split("    total = 0", 1)
    assert factory.count("\n    def ") == 1 and "def graph_forms():" in factory
    assert "def " not in body
    lines = [line.strip() for line in body.splitlines()]
    # The if's and the for's graph forms: one line each, in the else of the type test.
    assert [line for line in lines if "graph_forms()" in line] == [
        "graph_forms().if_stmt(cond)", "graph_forms().for_stmt(values)"]
    for index, line in enumerate(lines):
        if "graph_forms()" in line:
            assert lines[index - 1] == "else:"
    assert ("if cond is True or cond is False or ag__.type_(cond) in ag__.PLAIN_TYPES or "
            "ag__.is_plain(cond):") in lines
    assert "if ag__.is_plain_iterable(values):" in lines
    assert_same_behaviour(f, ([1, 5, 3],), ([],))


_END = object()


def test_python_valued_conditions_keep_the_statement_as_it_is():
    def f(values, seen):
        found = []
        i = 0
        while i is not _END:  # identity tests are Python bools: no type test, no graph form
            if values[i] in seen:
                found.append(values[i])
            elif not values[i] is _END:
                seen.add(values[i])
            i = i + 1 if i + 1 < len(values) else _END
        return sorted(seen), found

    source = code(f)
    assert "    while i is not _END:\n" in source and "        if values[i] in seen:\n" in source
    assert "        elif not values[i] is _END:\n" in source
    assert "graph_forms" not in source and "while True" not in source
    assert_same_behaviour(f, lambda: ([1, 2, 2, None, 3], set()), lambda: ([5], {5}))


def test_is_none_is_an_overload_a_graph_answers():
    # (A called function's result may be None on some paths only: the graph tells.)
    def f(values, seen):
        if seen is None:
            seen = set()
        return [v for v in values if v is not None and v not in seen]

    source = code(f)
    assert "ag__.is_none(seen)" in source and "ag__.is_not_none(v)" in source
    assert_same_behaviour(f, lambda: ([1, None, 2], None), lambda: ([1, 2], {1}))


def test_loop_with_break_tests_its_flag_cheaply():
    def f(xs, stop):
        k = 0
        total = 0
        while k < len(xs):
            if xs[k] == stop:
                break
            total += xs[k]
            k += 1
        else:
            total = -total
        return total, k

    source = code(f)
    # While the flag is exactly False (always, on Python values) the test is the user's.
    assert "cond_1 = k < ag__.converted_1(len)(xs) if break_ is False else " in source
    assert_same_behaviour(f, ([1, 2, 3], 2), ([1, 2, 3], 7), ([], 0))


def test_statements_carrying_only_variables_need_no_state_functions():
    def f(values):
        total = 0
        for v in values:
            if v > 0:
                total += v
            if v > 10:
                total += 1
        return total

    source = code(f)
    assert "get_state" not in source and "set_state" not in source
    assert source.count("None, None, ('total',), 1)") == 2
    assert_same_behaviour(f, ([1, -5, 30],), ([],))


class _Totals:
    def __init__(self):
        self.total = 0


def test_statements_carrying_the_same_attribute_targets_share_their_state_functions():
    def f(acc, values):
        for v in values:
            if v > 0:
                acc.total += v
            if v > 10:
                acc.total += 1
        return acc.total

    source = code(f)
    assert source.count("def get_state") == 1 and source.count("def set_state") == 1
    assert source.count("get_state, set_state, ('acc.total',), 1)") == 2
    assert f(_Totals(), [1, -5, 30]) == api.to_graph(f)(_Totals(), [1, -5, 30]) == 32


def test_while_condition_runs_exactly_once_per_iteration():
    def f(n):
        calls = []

        def more():
            calls.append(len(calls))
            print("test", len(calls))
            return len(calls) <= n

        steps = 0
        while more():
            steps += 1
        return steps, calls

    assert_same_behaviour(f, 0, 3)


def test_break_fetches_no_extra_element():
    def f(items):
        it = iter(items)
        seen = []
        for x in it:
            seen.append(x)
            if x == 2:
                break
        return seen, list(it)

    assert_same_behaviour(f, ([1, 2, 3, 4],), ([5],), ([],))


def test_return_from_nested_loops_stops_both():
    def f(rows):
        count = 0
        for row in rows:
            for x in row:
                count += 1
                if x < 0:
                    return x, count
        return None, count

    assert_same_behaviour(f, ([[1, 2], [3, -4, 5], [-6]],), ([[1]],))


def test_loops_over_user_iterables_and_objects_with_bool():
    class Countdown:
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            print("iter")
            return iter(range(self.n, 0, -1))

    class Flag:
        def __init__(self, value):
            self.value = value

        def __bool__(self):
            print("bool", self.value)
            return self.value

    def f(n, flag):
        out = []
        for i in Countdown(n):
            if flag:
                out.append(i)
            else:
                out.append(-i)
        while flag:
            flag = Flag(False)
        return out

    assert_same_behaviour(f, (3, Flag(True)), (2, Flag(False)))


def test_control_flow_inside_try_and_with_inside_loops():
    import contextlib

    @contextlib.contextmanager
    def noted(name):
        print("enter", name)
        yield
        print("exit", name)

    def f(values):
        out = []
        for v in values:
            try:
                with noted(v):
                    if v == 0:
                        raise ZeroDivisionError("zero")
                    out.append(10 // v)
            except ZeroDivisionError as e:
                for _ in range(2):
                    out.append(str(e))
            finally:
                if v < 0:
                    out.append("negative")
        return out

    assert_same_behaviour(f, ([2, 0, -5],))


def test_deep_recursion_through_loops_and_branches():
    # The Python form adds no frame: recursion as deep as the original's works.
    def f(n):
        for _ in range(1):
            while n > 0:
                if n % 2:
                    return f(n - 1) + 1
                return f(n - 1) + 1
        return 0

    converted = api.to_graph(f)
    assert converted(700) == f(700) == 700
