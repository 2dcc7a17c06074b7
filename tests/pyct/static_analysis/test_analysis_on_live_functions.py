"""The analyses on functions parsed from live objects, with a real transformer.Context."""

import pytest

from autograph.pyct import anno
from autograph.pyct.static_analysis import loop_vars

parser = pytest.importorskip("autograph.pyct.parser")
transformer = pytest.importorskip("autograph.pyct.transformer")


def _context(fn):
    info = transformer.EntityInfo(name=fn.__name__, source_code="", source_file=None,
                                  future_features=(), namespace=fn.__globals__)
    return transformer.Context(info, None, None)


def classic(a, b):
    while a > 0:
        c = b * 2
        a = a - c
    return a


def make_counter(step):
    count = 0

    def bump(times):
        nonlocal count
        for _ in range(times):
            count += step
        return count
    return bump


def test_classic_case_on_a_parsed_function():
    node, _ = parser.parse_entity(classic)
    loop_vars.analyze(node, _context(classic))
    loop = node.body[0]
    assert [str(s) for s in loop_vars.loop_variables(loop)[0]] == ["a"]


def test_closure_parsed_from_a_live_function():
    bump = make_counter(2)
    node, _ = parser.parse_entity(bump)
    loop_vars.analyze(node, _context(bump))
    loop = node.body[1]
    loop_variables, undefined = loop_vars.loop_variables(loop)
    assert [str(s) for s in loop_variables] == ["count"]
    assert undefined == ()
    scope = anno.getanno(node, anno.Static.SCOPE)
    assert {str(s) for s in scope.nonlocals} == {"count"}
