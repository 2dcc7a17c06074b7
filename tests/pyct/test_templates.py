"""Tests for templates.replace: code written as code, placeholders substituted."""

import gast
import pytest

from autograph.pyct import anno, templates


def _std_unparse(module):
    import ast
    # Template nodes have no source positions, which ast.unparse reads on some nodes.
    return ast.unparse(gast.gast_to_ast(gast.fix_missing_locations(module))).strip()


def run(nodes, namespace):
    module = gast.Module(body=nodes, type_ignores=[])
    code = compile(gast.gast_to_ast(gast.fix_missing_locations(module)), "<template>", "exec")
    exec(code, namespace)
    return namespace


def expr(src):
    return gast.parse(src).body[0].value


def test_names_are_replaced_with_their_context():
    nodes = templates.replace("target = value + 1", target="y", value="x")
    assert _std_unparse(gast.Module(body=nodes, type_ignores=[])) == "y = x + 1"
    assert isinstance(nodes[0].targets[0].ctx, gast.Store)
    assert isinstance(nodes[0].value.left.ctx, gast.Load)
    assert run(nodes, {"x": 2})["y"] == 3


def test_expression_replacement_gets_store_context_as_target():
    load_subscript = expr("a[i]")
    nodes = templates.replace("target = 5", target=load_subscript)
    target = nodes[0].targets[0]
    assert isinstance(target, gast.Subscript)
    assert isinstance(target.ctx, gast.Store)
    assert isinstance(target.value.ctx, gast.Load)
    assert run(nodes, {"a": [0, 1], "i": 1})["a"] == [0, 5]


def test_tuple_target_elements_get_store_context():
    nodes = templates.replace("targets = values", targets=expr("(a, b.c)"), values=expr("(1, 2)"))
    target = nodes[0].targets[0]
    assert isinstance(target.ctx, gast.Store)
    assert isinstance(target.elts[0].ctx, gast.Store)
    assert isinstance(target.elts[1].ctx, gast.Store)
    assert isinstance(target.elts[1].value.ctx, gast.Load)


def test_store_target_reused_as_load():
    store_name = gast.Name(id="x", ctx=gast.Store(), annotation=None, type_comment=None)
    node = templates.replace_as_expression("f(arg)", arg=store_name)
    assert isinstance(node.args[0].ctx, gast.Load)
    assert store_name.ctx.__class__ is gast.Store  # the original is not changed


def test_statement_block_is_spliced():
    body = gast.parse("a = 1\nb = a + 1").body
    nodes = templates.replace(
        """
        def fn_name(params):
            body
            return b
        """, fn_name="g", params=["p", "q"], body=body)
    namespace = run(nodes, {})
    assert namespace["g"](0, 0) == 2
    assert [a.id for a in nodes[0].args.args] == ["p", "q"]


def test_empty_body_becomes_pass():
    nodes = templates.replace("def f():\n  body", body=[])
    assert isinstance(nodes[0].body[0], gast.Pass)


def test_empty_orelse_stays_empty():
    nodes = templates.replace("if c:\n  body\nelse:\n  orelse", c="c", body=gast.parse("x = 1").body,
                              orelse=[])
    assert nodes[0].orelse == []


def test_argument_list_is_spliced_into_call():
    node = templates.replace_as_expression("f(a, args, z)", args=[expr("b"), "c"])
    assert [n.id for n in node.args] == ["a", "b", "c", "z"]


def test_attribute_and_keyword_names():
    node = templates.replace_as_expression("obj.attr_name(kw_name=v)", obj="o", attr_name="m",
                                           kw_name="key", v="value")
    assert _std_unparse(gast.Module(body=[gast.Expr(value=node)], type_ignores=[])) == \
        "o.m(key=value)"


def test_lambda_params():
    node = templates.replace_as_expression("lambda params: x", params=["x", "y"])
    assert [a.id for a in node.args.args] == ["x", "y"]


def test_replacement_nodes_are_copied_not_shared():
    value = expr("a + b")
    nodes = templates.replace("x = v\ny = v", v=value)
    assert nodes[0].value is not nodes[1].value
    assert nodes[0].value is not value


def test_statement_blocks_are_moved_and_templates_reused():
    body = gast.parse("a = 1").body
    first = templates.replace("if c:\n    body", c="c", body=body)
    assert first[0].body[0] is body[0]
    second = templates.replace("if c:\n    body", c="d", body=gast.parse("b = 2").body)
    assert first[0].test.id == "c" and second[0].test.id == "d"  # no shared template tree


def test_preserved_annotations_survive_copy():
    value = expr("a")
    anno.setanno(value, anno.Basic.ORIGIN, "origin")
    anno.setanno(value, anno.Static.SCOPE, "dropped")
    node = templates.replace_as_expression("f(v)", v=value)
    assert anno.getanno(node.args[0], anno.Basic.ORIGIN) == "origin"
    assert not anno.hasanno(node.args[0], anno.Static.SCOPE)


def test_replace_as_expression_rejects_statements():
    with pytest.raises(templates.TemplateError):
        templates.replace_as_expression("x = 1")


def test_bad_replacement_type():
    with pytest.raises(templates.TemplateError):
        templates.replace("x = v", v=3.5)


# -- what templates build, placeholder by placeholder --------------------------------------

def _outcome(template, replacements):
    """(the source of what `replace` builds, the annotations kept), or ("error", message)."""
    try:
        nodes = templates.replace(template, **replacements)
    except templates.TemplateError as e:
        return "error", str(e)
    module = gast.Module(body=nodes, type_ignores=[])
    kept = sorted({str(key) for n in nodes for m in gast.walk(n)
                   for key in anno.keys(m)})
    return _std_unparse(module), kept


def _annotated_expression():
    node = expr("a.b[c]")
    anno.setanno(node, anno.Basic.ORIGIN, "origin")
    anno.setanno(node, anno.Static.SCOPE, "dropped")
    return node


_CASES = [
    ("target = value + 1", lambda: dict(target="y", value="x"), ("y = x + 1", [])),
    ("target = value", lambda: dict(target=expr("a[i]"), value=_annotated_expression()),
     ("a[i] = a.b[c]", ["Basic.ORIGIN"])),
    ("f(args)", lambda: dict(args=[expr("x"), "y", expr("z + 1")]), ("f(x, y, z + 1)", [])),
    ("f(a, args, b)", lambda: dict(args=[]), ("f(a, b)", [])),
    ("def name(params):\n    body", lambda: dict(name="g", params=["a", "b"], body=[]),
     ("def g(a, b):\n    pass", [])),
    ("def name(params):\n    body",
     lambda: dict(name=gast.Name("h", gast.Load(), None, None), params=[],
                  body=gast.parse("x = 1\ny = 2").body),
     ("def h():\n    x = 1\n    y = 2", [])),
    ("def name(a, *params):\n    return a", lambda: dict(name="g", params=["b", "c"]),
     ("error", "a list replaced the single 'vararg' of arguments")),
    ("if not flag:\n    rest", lambda: dict(flag="f", rest=gast.parse("pass").body),
     ("if not f:\n    pass", [])),
    ("if not flag:\n    rest\nelse:\n    other", lambda: dict(flag="f", rest=[], other=[]),
     ("if not f:\n    pass", [])),
    ("body\nx = 1", lambda: dict(body=expr("y + 1")), ("y + 1\nx = 1", [])),
    ("body", lambda: dict(body=[expr("y"), expr("z")]),
     ("error", "a list replaced the single 'value' of Expr")),
    ("x = obj.attr", lambda: dict(obj="o", attr="field"), ("x = o.field", [])),
    ("x = obj.attr", lambda: dict(obj="o", attr=gast.Name("f", gast.Load(), None, None)),
     ("x = o.f", [])),
    ("x = obj.attr", lambda: dict(obj="o", attr=expr("1")),
     ("error", "attribute name 'attr' must be replaced by a str")),
    ("f(key=value)", lambda: dict(key="k", value=expr("v")), ("f(k=v)", [])),
    ("f(key=value)", lambda: dict(key=expr("1"), value="v"), ("f(key=v)", [])),
    ("class name(base):\n    x = 1", lambda: dict(name="K", base="B"),
     ("class K(B):\n    x = 1", [])),
    # A parameter is a placeholder too; a parameter's annotation is kept as written.
    ("lambda x: value", lambda: dict(value=expr("x * 2"), x="ignored"),
     ("lambda ignored: x * 2", [])),
    ("def f(a: ann = default):\n    pass", lambda: dict(ann="int", default=expr("3")),
     ("def f(a: ann=3):\n    pass", [])),
    ("global x, y\nx = (1, 'a', b'b', 1.5, None, ..., 1j)", lambda: dict(x="renamed"),
     ("global renamed, y\nrenamed = (1, 'a', b'b', 1.5, None, ..., 1j)", [])),
    ("nonlocal names", lambda: dict(names=["b", "a"]), ("nonlocal b, a", [])),
    ("x = {1: a, **b}", lambda: dict(a="q", b=expr("d")), ("x = {1: q, **d}", [])),
    ("x = name", lambda: dict(name=3), ("error", "cannot use 3 of type int as a replacement")),
    ("del target", lambda: dict(target=expr("a.b")), ("del a.b", [])),
    ("for target in iterate:\n    body",
     lambda: dict(target=expr("(i, j)"), iterate="it", body=[]),
     ("for i, j in it:\n    pass", [])),
    ("x = a\ny = a", lambda: dict(a=expr("[1, 2]")), ("x = [1, 2]\ny = [1, 2]", [])),
]


@pytest.mark.parametrize("template, make_replacements, expected", _CASES)
def test_each_kind_of_placeholder(template, make_replacements, expected):
    # A template is compiled on its first use and reused after that.
    for _ in range(3):
        assert _outcome(template, make_replacements()) == expected


def test_compiled_templates_return_fresh_nodes_and_move_statement_blocks():
    value = expr("x + 1")
    block = gast.parse("y = 2").body
    first = templates.replace("if c:\n    body\nz = value", body=block, value=value)
    second = templates.replace("if c:\n    body\nz = value", body=[], value=value)
    assert first[0].body[0] is block[0]  # moved, not copied
    assert first[1].value is not value and second[1].value is not first[1].value
    assert first[0].test is not second[0].test
    assert isinstance(second[0].body[0], gast.Pass)


def test_a_moved_replacement_is_used_as_it_is_and_copied_for_a_second_place():
    value = gast.parse("a + b").body[0].value
    [statement] = templates.replace("x = value\ny = value", value=templates.moved(value))[:1]
    assert statement.value is value
    both = templates.replace("x = (value, value)", value=templates.moved(value))
    first, second = both[0].value.elts
    assert first is value and second is not value
    assert gast.dump(second) == gast.dump(value)


def test_a_moved_target_gets_the_store_context():
    target = gast.parse("a.b").body[0].value
    [assign] = templates.replace("target = 1", target=templates.moved(target))
    assert assign.targets[0] is target and isinstance(target.ctx, gast.Store)


def test_only_nodes_can_be_moved():
    with pytest.raises(templates.TemplateError):
        templates.moved("name")


def test_a_list_of_moved_nodes_is_spliced_as_it_is():
    first, second = expr("a + 1"), expr("b")
    call = templates.replace_as_expression("f(x, args)", args=templates.moved([first, second]))
    assert call.args[1] is first and call.args[2] is second
