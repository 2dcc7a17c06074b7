"""continue lowered into a per-iteration flag."""

from converter_testing import assert_same_behaviour, code


def odd_squares(n):
    result = []
    for i in range(n):
        if i % 2 == 0:
            continue
        result.append(i * i)
    return result


def while_continue(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3:
            continue
        total += i
    return total


def test_generated_code_uses_a_flag():
    source = code(odd_squares)
    assert "continue_ = True" in source
    assert "continue_ = False" in source
    assert "continue\n" not in source


def test_continue_behaves_like_python():
    assert_same_behaviour(odd_squares, 0, 1, 7)
    assert_same_behaviour(while_continue, 0, 10)


def test_continue_in_nested_loop_and_try():
    def f(n):
        out = []
        for i in range(n):
            for j in range(n):
                try:
                    if j == i:
                        continue
                    out.append((i, j))
                finally:
                    out.append("f")
        return out

    assert_same_behaviour(f, 0, 3)
