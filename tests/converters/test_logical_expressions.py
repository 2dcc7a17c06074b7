"""and/or/not become lazy overloads returning the same objects Python returns."""

from converter_testing import assert_same_behaviour, code


def test_generated_code():
    def f(a, b, c):
        return a and b and c, a or b, not a

    source = code(f)
    assert "ag__.and_(a, lambda : ag__.and_(b, lambda : c)())()" in source
    assert "ag__.or_(a, lambda : b)()" in source
    assert "ag__.not_(a)" in source


def test_same_objects_and_short_circuit():
    def f(x, default, log):
        value = x or default
        other = x and log.append("right side ran")
        return value is default, value, other, log, not x

    assert_same_behaviour(f, lambda: ([], [1], []), lambda: ([2], [1], []))


def test_comparison_chains_and_conditions():
    def f(x):
        if 0 < x < 10 and x % 2 == 0 or x == -1:
            return "yes"
        return "no"

    assert_same_behaviour(f, 4, 3, -1, 12)
