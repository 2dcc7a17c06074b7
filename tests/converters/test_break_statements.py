"""break lowered into a flag: generated code and behaviour, including loop else blocks."""

from converter_testing import assert_same_behaviour, code


def find_first_negative(values):
    found = None
    for v in values:
        if v < 0:
            found = v
            break
        print("checked", v)
    else:
        print("no negative")
    return found


def nested_break(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            pairs.append((i, j))
        if i == 3:
            break
    return pairs


def while_else(n):
    i = 0
    while i < n:
        i += 1
        if i == 5:
            break
    else:
        print("ran out at", i)
    return i


def test_generated_code_uses_a_flag_not_break():
    source = code(find_first_negative)
    lines = source.splitlines()
    # The only break statements left are the inline Python loop's exit after its extra
    # test (break/return flags), never the user's break.
    for index, line in enumerate(lines):
        if line.strip() == "break":
            assert lines[index - 1].strip().endswith("is not True:"), source
    assert "break_ = True" in source
    assert "break_ = False" in source
    assert "extra_test" in source


def test_for_else_and_break_behave_like_python():
    assert_same_behaviour(find_first_negative, ([1, 2, -3, 4],), ([1, 2],), ([],), ([-1],))


def test_nested_loops_break_only_their_own_loop():
    assert_same_behaviour(nested_break, 0, 2, 6)


def test_while_else_runs_exactly_when_python_runs_it():
    assert_same_behaviour(while_else, 0, 3, 5, 9)


def test_break_does_not_consume_an_extra_element():
    def take_until_three(n):
        it = iter(range(n))
        for x in it:
            if x == 3:
                break
        return next(it)

    assert_same_behaviour(take_until_three, 10, 4, 2)


def test_break_costs_no_extra_iteration():
    def count_tests(n):
        calls = []

        def test(i):
            calls.append(i)
            return i < n

        i = 0
        while test(i):
            if i == 2:
                break
            i += 1
        return calls

    assert_same_behaviour(count_tests, 5, 1)


def test_break_inside_try_finally_runs_finally():
    def f(n):
        log = []
        for i in range(n):
            try:
                if i == 2:
                    break
                log.append(i)
            finally:
                log.append("finally")
        return log

    assert_same_behaviour(f, 0, 5)
