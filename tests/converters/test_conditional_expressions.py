"""a if c else b becomes ag__.if_exp with lazy branches."""

from converter_testing import assert_same_behaviour, code


def pick(c, log):
    return log.append("a") or "a" if c else log.append("b") or "b"


def test_generated_code():
    def f(x):
        return 1 if x else 2

    assert "ag__.if_exp(x, lambda : 1, lambda : 2, '1 if x else 2')" in code(f)


def test_only_the_chosen_branch_runs():
    assert_same_behaviour(pick, lambda: (True, []), lambda: (False, []))


def test_walrus_in_a_branch_is_left_alone():
    def f(c):
        y = (z := 5) if c else 0
        return y, c and z

    assert_same_behaviour(f, True)
