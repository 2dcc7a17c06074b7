"""Functions with a `match` statement: code astor cannot unparse, so the generated module is
written by ast.unparse, which needs every generated node to carry a line number."""

from converter_testing import assert_same_behaviour


def _classify(point, limit):
    match point:
        case (x, y) if x > limit or y > limit:
            if x > y:
                kind = "far right"
            else:
                kind = "far up"
        case (x, y):
            kind = "near" if x + y else "origin"
        case _:
            kind = None
    total = 0
    for value in (point if isinstance(point, tuple) else ()):
        if value > 0 and value != limit:
            total += value
    return kind, total


def test_match_with_branches_loops_and_logic_inside_and_around():
    assert_same_behaviour(_classify, ((5, 1), 2), ((1, 5), 2), ((1, 1), 2), ((0, 0), 2),
                          ("x", 2))


def _first_mark(segment, start):
    while start < len(segment) and ((ch := segment[start]).isspace() or ch in ")#"):
        start += 1
    return start, [c for c in segment if (up := c.upper()) != c]


def test_walrus_inside_a_called_attribute_keeps_its_target():
    # The walrus sits in the object of a method call, which the call wrapper rewrites.
    assert_same_behaviour(_first_mark, ("  )#x", 0), ("", 0), ("ab", 5))
