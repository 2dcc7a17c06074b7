"""and/or/not become lazy overloads returning the same objects Python returns."""

import gast

from autograph.converters import conditional_expressions, logical_expressions
from autograph.core import converter
from autograph.impl import api
from autograph.pyct import anno, naming, templates, transformer, unparser
from converter_testing import ALL_BACKENDS, assert_same_behaviour, assert_same_in_graphs, code


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


def test_python_operands_run_inline():
    def f(a, b):
        return a and b, not a

    source = code(f)
    # The Python form, with the overload form for symbolic operands beside it.
    assert "a and b if a is True or a is False or ag__.type_(a) in ag__.PLAIN_TYPES else" in source
    assert "(not a) if a is True or a is False or " in source or \
        "not a if a is True or a is False or " in source


_MISSING = object()


def test_python_valued_operands_keep_the_operator():
    def f(x, items, log):
        a = x is _MISSING or log.append("right of or") or len(items)
        b = x in items and (log.append("right of and") or items[0])
        c = not x is _MISSING
        d = "empty" if x is _MISSING else "some"
        return a, b, c, d, log

    source = code(f)
    # Identity and membership tests are Python bools: only the other operands are tested.
    assert "a = x is _MISSING or (" in source and "b = x in items and (" in source
    assert "c = not x is _MISSING\n" in source
    assert "d = 'empty' if x is _MISSING else 'some'\n" in source
    assert_same_behaviour(f, lambda: (_MISSING, [3], []), lambda: (3, [3], []),
                          lambda: (4, [3], []))


def test_is_none_tests_are_overloads():
    # (A graph answers them for a called function's result that is None on some paths.)
    def f(x, items):
        a = x is None or len(items)
        b = None is not x and items[0]
        return a, b, "empty" if x is None else "some"

    source = code(f)
    assert "ag__.is_none(x)" in source and "ag__.is_not_none(x)" in source
    assert "x is None" not in source.split("\x27")[0]   # (a description string keeps it)
    assert_same_behaviour(f, lambda: (None, [3]), lambda: (3, [3]), lambda: (0, [0]))


class Noisy:
    """An operand whose truth test and evaluation print (not a plain type)."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __bool__(self):
        print("bool", self.name)
        return self.value


def test_inline_form_keeps_evaluation_order_and_objects():
    def operand(log, name, value):
        log.append(name)
        return value

    def f(log, x, y):
        a = operand(log, "a", x) and operand(log, "b", y) or operand(log, "c", x)
        b = not operand(log, "d", y) or (operand(log, "e", x) and operand(log, "f", y))
        c = [v and w for v, w in zip([x, y], [y, x])]  # comprehensions: overload form
        d = (lambda: x or y)()
        return a, b, c, d, log

    for x, y in [(0, 1), (2, 0), ([], [3]), (Noisy("x", True), Noisy("y", False)),
                 (None, "s")]:
        assert_same_behaviour(f, lambda x=x, y=y: ([], x, y))


def test_recursion_through_or_adds_no_frame():
    def f(n):
        return n == 0 or f(n - 1)

    converted = api.to_graph(f)
    assert converted(800) is f(800) is True


def _expression(source):
    return gast.parse(source).body[0].value


def test_only_the_operators_replaced_are_targets():
    rewritten = logical_expressions.is_rewritten
    assert rewritten(_expression("a and b")) and rewritten(_expression("not a"))
    assert rewritten(_expression("a is d or b or c"))  # regrouped: a or (b or c)
    assert not rewritten(_expression("a is d or b"))  # only its operands change
    assert not rewritten(_expression("-a")) and not rewritten(_expression("not a is d"))
    assert rewritten(_expression("a is None")) and rewritten(_expression("None is not a"))
    assert rewritten(_expression("a is None or b"))
    walrus = _expression("a and (b := c)")
    assert not rewritten(walrus) and rewritten(walrus, walrus=False)
    generated = _expression("a is True or a is False or b")
    anno.setanno(generated, logical_expressions.INLINE_TEST, True)
    # Left as it is, but not in a copy (copies drop the mark).
    assert not rewritten(generated) and rewritten(generated, copied=True)
    assert conditional_expressions.is_rewritten(_expression("a if b else c"))
    assert not conditional_expressions.is_rewritten(_expression("a if b is d else c"))
    assert conditional_expressions.is_rewritten(_expression("a if b is None else c"))
    assert not conditional_expressions.is_rewritten(_expression("(d := a) if b else c"))


def test_an_and_whose_operand_is_a_conditional_expression_is_converted():
    def f(a, log):
        return a and ("x" if log.append("test") or log else "y"), log

    source = code(f)
    # The inline test of the if-else assigns a temporary of its own (read only inside
    # it): the `and` is converted all the same, its overload form in a lambda.
    assert "ag__.and_(a, lambda : " in source
    assert_same_behaviour(f, lambda: (1, []), lambda: (0, []))


def test_a_walrus_of_the_users_keeps_the_and_as_it_is():
    def f(a, b):
        return a and (c := b), c if a else None

    source = code(f)
    assert "return a and (c := b)" in source
    assert_same_behaviour(f, (1, 2), (0, 2))


def _converted_after_conditionals(source, new_root):
    """and/or conversion after if-else conversion; new_root: of a copy of that tree (the
    relevance conditional_expressions hands over is then for another tree)."""
    info = transformer.EntityInfo(name="f", source_code=source, source_file="<test>",
                                  future_features=(), namespace={})
    ctx = transformer.Context(info, naming.Namer({}), user_context=converter.ProgramContext(
        converter.STANDARD_OPTIONS))
    node = conditional_expressions.transform(gast.parse(source).body[0], ctx)
    if new_root:
        node = templates.copy_tree(node)
    return unparser.unparse(logical_expressions.transform(node, ctx),
                            include_encoding_marker=False)


def test_relevance_handed_over_for_another_tree_is_found_again():
    source = "def f(a, c, d, e):\n    return a and (d if c else e), not (d if c else e)\n"
    converted = _converted_after_conditionals(source, new_root=False)
    assert "ag__.and_(a, lambda : " in converted and "ag__.if_exp(c, " in converted
    assert _converted_after_conditionals(source, new_root=True) == converted


# --- chained comparisons -----------------------------------------------------------------

class Loud:
    """A comparand that logs its comparisons and returns a non-bool object from them."""

    def __init__(self, log, value):
        self.log, self.value = log, value

    def __lt__(self, other):
        self.log.append(("lt", self.value, getattr(other, "value", other)))
        return [self.value] if self.value < getattr(other, "value", other) else []


def test_chained_comparisons_keep_python_semantics():
    def operand(log, name, value):
        log.append(name)
        return value

    def f(log, x, y):
        a = operand(log, "a", x) < operand(log, "b", y) <= operand(log, "c", 3)
        b = 0 < x < y < 10 > x
        c = [v for v in (x, y, 5) if 0 <= v < 4]  # comprehensions: the overload form
        d = (lambda: x < y < 4)()
        e = [v for v in ([x] if 0 < x < 3 else [y])]  # no walrus in an iterable
        g = Loud(log, x) < Loud(log, y) < Loud(log, 3)  # objects, not bools, are returned
        if 1 < x <= y:
            log.append("if")
        while 0 <= x < y:
            x += 1
        return a, b, c, d, e, g, x, log

    converted = api.to_graph(f)
    source = code(f)
    assert "ag__.and_" in source and ":= y" in source
    for x, y in [(1, 2), (2, 1), (0, 0), (2, 5), (1.5, 2.5)]:
        assert_same_behaviour(f, lambda x=x, y=y: ([], x, y))
    assert converted([], 1, 2)[-1][:3] == ["a", "b", "c"]


def test_chained_comparisons_of_arrays_raise_pythons_error():
    import numpy as np

    def f(x):
        return 0 < x < 5

    assert_same_behaviour(f, np.float64(3.0), np.array([1.0]), np.array([1.0, 7.0]))


def test_chain_operand_evaluated_once_in_every_form():
    def f(log, x):
        def middle():
            log.append("middle")
            return x
        first = 0 < middle() < 5
        nested = [0 < middle() < 5 for _ in range(2)]
        return first, nested, log

    assert_same_behaviour(f, lambda: ([], 3), lambda: ([], 7), lambda: ([], -1))


def chained_in_statements(x, y):
    total = 0.0
    for i in range(x.shape[0]):
        if 0.0 < x[i] <= y:                     # in an if, in a graph loop
            total += x[i]
        elif -1.0 < x[i] < 0.0 < y:
            total -= 1.0
    n = 0
    while 0 <= n < x.shape[0] and x[n] < y:     # in a while test, with a lowered `and`
        n += 1
    inside = 0 < y < 3.0                        # a value
    label = 1.0 if -2.0 < x[0] < 2.0 else 2.0  # in a conditional expression's test
    return total, n, inside, label, not 0 < y < 1.0


def test_chained_comparisons_on_tensors():
    import numpy as np
    assert_same_in_graphs(chained_in_statements, (np.array([1.0, -0.5, 3.0]), 2.0),
                          (np.array([-3.0, 0.5, 0.25]), 0.5), (np.array([5.0]), -1.0),
                          backends=ALL_BACKENDS)


def test_chained_comparison_returned_from_a_graph_loop():
    import numpy as np

    def first_in_range(x, low, high):
        for i in range(x.shape[0]):
            if low <= x[i] < high:
                return i
        return -1

    def all_between(x):
        ok = True
        for v in x:
            ok = ok and -1.0 < v < 1.0
        return ok

    assert_same_in_graphs(first_in_range, (np.array([5.0, 2.0, 3.0]), 1.0, 4.0),
                          (np.array([5.0]), 1.0, 4.0))
    assert_same_in_graphs(all_between, np.array([0.5, -0.5]), np.array([0.5, 2.0]))


# Minimised fuzzer programs (tools/fuzz, seeds 9 and 24): refused with "decorate the
# function with ag.function" before chains were converted.

def fuzz_seed_9(c0):
    ok1 = 0 < c0 <= 2
    return ok1


def fuzz_seed_24(x, xi, t, k0):
    if x[0] < 0.25 != -0.5:
        pass


def test_fuzzer_chains():
    import numpy as np
    assert_same_in_graphs(fuzz_seed_9, np.float64(-1.0), np.float64(1.5))
    assert_same_in_graphs(fuzz_seed_24, (np.array([]), np.array([], dtype=np.int64), -0.75,
                                         np.array(-1.0)),
                          (np.array([0.1]), np.array([1]), -0.75, np.array(-1.0)))


def fuzz_ternary_in_or(x, y):
    return x > 5 or (x > 1 if y > 0 else x < -1)


def test_a_conditional_expression_inside_or_on_tensors():
    import numpy as np
    assert_same_in_graphs(fuzz_ternary_in_or, *[(np.float64(x), np.float64(y))
                                                for x in (-2.0, 0.5, 3.0, 6.0)
                                                for y in (-1.0, 1.0)])
