"""Fast tree walks: the same nodes as gast.walk / ast.walk, without expression contexts."""

import ast
import textwrap

import gast

from autograph.pyct import ast_util, gast_bridge, parser

SOURCE = textwrap.dedent("""
    import a.b as c
    from d import e as f
    def g(x, *args, y=1, **kw):
        try:
            z = {k: v for k, v in kw.items() if (w := v)}
        except E as error:
            raise
        match x:
            case {"a": 1, **rest}:
                pass
            case [1, *others] as whole:
                pass
        return lambda q: not q or -x, f"{x!r:>{y}}", z[1:2], x.attr
""")


def _without_contexts(nodes):
    return [n for n in nodes if not isinstance(n, (ast.expr_context, gast.expr_context))]


def test_walk_finds_every_node_but_contexts_in_ast_and_gast_trees():
    for tree in (ast.parse(SOURCE), gast_bridge.ast_to_gast(ast.parse(SOURCE))):
        expected = _without_contexts(ast.walk(tree))
        got = list(ast_util.walk(tree))
        assert len(got) == len(expected)
        assert {id(n) for n in got} == {id(n) for n in expected}


def test_child_nodes_keeps_field_order_and_operators():
    call = parser.parse_expression("f(a, not b, k=c)")
    children = ast_util.child_nodes(call)
    assert [type(c).__name__ for c in children] == ["Name", "Name", "UnaryOp", "keyword"]
    assert ast_util.contains(call, gast.Not)  # operator nodes are children too
    assert not ast_util.contains(call, gast.Load)  # contexts are left out
