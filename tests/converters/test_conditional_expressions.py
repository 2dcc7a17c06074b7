"""a if c else b becomes ag__.if_exp with lazy branches."""

from autograph.impl import api
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


def test_python_conditions_run_inline_in_order():
    def pick(log, name, value):
        log.append(name)
        return value

    def f(log, c):
        x = pick(log, "a", 1) if pick(log, "c", c) else pick(log, "b", 2)
        y = [v if v else -1 for v in [c, 0]]  # comprehensions: overload form
        return x, y, log, (1 if c else 2) if not c else "n"

    source = code(f)
    assert ") is True or val is False or ag__.type_(val) in ag__.PLAIN_TYPES else" in source
    for c in (0, 3, [], [1], None):
        assert_same_behaviour(f, lambda c=c: ([], c))


def test_recursion_through_a_conditional_expression_adds_no_frame():
    def f(n):
        return 0 if n == 0 else 1 + f(n - 1)

    assert api.to_graph(f)(800) == 800


def test_source_segments_split_lines_as_ast_does():
    import ast
    from autograph.converters import conditional_expressions
    for source in ("x = (a if b\n     else c)\n", "x = (a if b\r\n else c)\r\n",
                   "\x0cx = (a if b\relse c)\n", "s = 'é\u2028'\nx = (a if b\n else c)"):
        tree = ast.parse(source)
        node = tree.body[-1].value
        lines = conditional_expressions._split_lines(source)
        assert conditional_expressions._source_segment(lines, node) == (
            ast.get_source_segment(source, node))
