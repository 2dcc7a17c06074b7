"""return inside if/loops lowered into a flag and a single return."""

from converter_testing import assert_same_behaviour, code


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


def index_of(values, target):
    for i, v in enumerate(values):
        if v == target:
            return i
    return -1


def in_try(x):
    log = []
    try:
        if x:
            return "early", log
        log.append("body")
    except ValueError:
        return "except", log
    else:
        log.append("else")
    finally:
        log.append("finally")
    return "end", log


def test_generated_code_has_a_single_return():
    source = code(sign)
    assert "return 1" not in source and "return -1" not in source
    assert [line.strip() for line in source.splitlines()].count("return retval_") == 1
    assert "do_return = True" in source
    assert "retval_ = 1" in source


def test_return_behaves_like_python():
    assert_same_behaviour(sign, 5, -2, 0)
    assert_same_behaviour(index_of, ([1, 2, 3], 2), ([1, 2, 3], 7), ([], 1))


def test_return_inside_try_except_else_finally():
    assert_same_behaviour(in_try, True, False)


def test_return_value_that_raises_is_not_a_return():
    def f(x):
        if x:
            try:
                return 1 // 0
            except ZeroDivisionError:
                pass
        return "after"

    assert_same_behaviour(f, True, False)


def test_functions_without_nested_returns_keep_them():
    def plain(x):
        y = x + 1
        return y

    assert "do_return" not in code(plain)


def test_implicit_none_and_bare_return():
    def f(x):
        if x:
            return
        print("fell through")

    assert_same_behaviour(f, True, False)


def test_early_return_from_while_loop():
    def f(n):
        i = 0
        while True:
            i += 1
            if i * i > n:
                return i
    assert_same_behaviour(f, 0, 50)
