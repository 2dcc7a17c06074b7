"""Tests for origin_info: node origins and generated-line source maps."""

import textwrap

from autograph.pyct import anno
from autograph.pyct import loader
from autograph.pyct import origin_info
from autograph.pyct import parser


def some_function(a):
    b = a + 1  # adds one
    return (b,
            a)


def test_resolve_entity_annotates_nodes_with_file_positions():
    node, source = parser.parse_entity(some_function)
    origin_info.resolve_entity(node, source, some_function)
    first_line = some_function.__code__.co_firstlineno
    assign = node.body[0]
    origin = anno.getanno(assign, anno.Basic.ORIGIN)
    assert origin.loc == origin_info.Location(__file__, first_line + 1, 4)
    assert origin.function_name == "some_function"
    assert origin.source_code_line.strip() == "b = a + 1  # adds one"
    assert origin.comment == "adds one"
    second_element = node.body[1].value.elts[1]
    assert anno.getanno(second_element, anno.Basic.ORIGIN).loc.lineno == first_line + 3
    assert origin.as_frame()[:3] == (__file__, first_line + 1, "some_function")


def test_nested_functions_and_lambdas_get_their_own_name():
    source = textwrap.dedent("""
        def outer(x=default()):
            def inner(y=inner_default()):
                return 1
            f = lambda: 2
    """).lstrip()
    node = parser.parse(source)
    origin_info.resolve(node, source, "user.py", 1, 0)
    # Defaults are evaluated by the enclosing function (for the root: its own name).
    assert anno.getanno(node.args.defaults[0], anno.Basic.ORIGIN).function_name == "outer"
    inner_default = node.body[0].args.defaults[0]
    assert anno.getanno(inner_default, anno.Basic.ORIGIN).function_name == "outer"
    inner_return = node.body[0].body[0]
    assert anno.getanno(inner_return, anno.Basic.ORIGIN).function_name == "inner"
    lambda_body = node.body[1].value.body
    assert anno.getanno(lambda_body, anno.Basic.ORIGIN).function_name == "<lambda>"


def test_context_offsets_are_applied():
    source = "def f():\n  return 1\n"
    node = parser.parse(source)
    origin_info.resolve(node, source, "user.py", 50, 8)
    origin = anno.getanno(node.body[0], anno.Basic.ORIGIN)
    assert origin.loc == origin_info.Location("user.py", 51, 10)


def test_create_source_map_maps_generated_lines_back(tmp_path, monkeypatch):
    monkeypatch.setenv(loader.CACHE_DIR_ENV, str(tmp_path))
    source = textwrap.dedent("""
        def f(a):
            if a:
                b = 1
            else:
                b = 2
            return [b,
                    a]
    """).lstrip()
    node = parser.parse(source)
    origin_info.resolve(node, source, "user.py", 10, 0)
    # Insert a statement without origin: its line must not be mapped.
    node.body.insert(0, parser.parse("unmapped = None"))
    code = parser.unparse(node)
    source_map = origin_info.create_source_map(node, code, "gen.py")
    generated = code.splitlines()
    mapped = {generated[loc.lineno - 1].strip(): origin.loc.lineno
              for loc, origin in source_map.items()}
    assert mapped == {"def f(a):": 10, "if a:": 11, "b = 1": 12, "b = 2": 14,
                      "return [b, a]": 15}
    assert all(loc.filename == "gen.py" for loc in source_map)


def test_source_map_of_multi_line_expressions_uses_inner_nodes():
    source = "def f():\n    return g(\n        1,\n        2)\n"
    node = parser.parse(source)
    origin_info.resolve(node, source, "user.py", 1, 0)
    # Generated code that spreads one statement over several lines (here: the original
    # text itself) maps each line through the expression that starts on it.
    source_map = origin_info.create_source_map(node, source, "gen.py")
    assert {loc.lineno: o.loc.lineno for loc, o in source_map.items()} == {
        1: 1, 2: 2, 3: 3, 4: 4}
