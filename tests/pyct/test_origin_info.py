"""Tests for origin_info: node origins and generated-line source maps."""

import textwrap

import gast

from autograph.pyct import anno
from autograph.pyct import loader
from autograph.pyct import origin_info
from autograph.pyct import parser
from autograph.pyct import unparser


def some_function(a):
    b = a + 1  # adds one
    return (b,
            a)


def test_resolve_entity_annotates_nodes_with_file_positions():
    node, source = parser.parse_entity(some_function)
    parser.resolve_entity(node, source, some_function)
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
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path))
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
    code = unparser.unparse(node)
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


def _tokenized_comments(source):
    import io
    import tokenize
    comments = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string[1:].strip()
    return comments


TRICKY_COMMENTS = "".join(line + "\n" for line in [
    "def f(x):  # header",
    "    a = \"#not\" + '#not'  # after strings",
    "    b = \"\"\"#not",
    "    still # not\"\"\" + r\"\\\"#\"  # raw string with an escaped quote",
    "    c = f\"{x}#not\" + f'{x!r:>{10}}'  # f-strings",
    "    d = b'\\x23' + rb\"#\"  #   padded   ",
    "    e = [1,  # inside brackets",
    "         2]",
    "    # a line of its own",
    "    return 'it''s' \"#\" or '''#''' or \"\"\"a \"quote\" # inside\"\"\"  # last",
])


def test_line_comments_are_the_tokenizers_comments():
    assert origin_info.line_comments(TRICKY_COMMENTS) == _tokenized_comments(TRICKY_COMMENTS)
    assert origin_info.line_comments("x = 1\n") == {}


def test_line_comments_of_a_partial_source_stop_at_an_unclosed_string():
    # A lambda cut out of a longer line can end inside a string: nothing after it counts.
    assert origin_info.line_comments("f = 1  # kept\ng = 'open # not a comment\n") == {
        1: "kept"}


def _origins(node):
    from autograph.pyct import ast_util
    return [(type(n).__name__, anno.getanno(n, anno.Basic.ORIGIN, None))
            for n in ast_util.walk(node)]


class _Methods:
    @staticmethod
    def decorated(x=len("#"), *args, y: int = 2, **kwargs):  # comment
        def inner(z=(lambda q: q)):  # inner
            try:
                return z  # returns
            except ValueError as e:
                raise e
        return [lambda w: w + x for _ in args], inner  # lambdas

    pair = staticmethod(lambda a, b=(1,  # a default
                                    2): (a,
                                         b))


def test_parsing_with_origins_annotates_like_resolve():
    # Indented definitions (methods, a lambda in a class body) have their locations moved
    # by the same walk.
    for entity in (some_function, _Methods.decorated, _Methods.__dict__["decorated"],
                   _Methods.pair):
        plain = parser.parse_entity_with_location(entity)
        origin_info.resolve(plain.node, plain.source, plain.filename, plain.lineno,
                            plain.col_offset)
        annotated = parser.parse_entity_with_location(entity, annotate_origins=True)
        assert annotated[1:] == plain[1:]
        assert gast.dump(annotated.node, include_attributes=True) == gast.dump(
            plain.node, include_attributes=True)
        origins = _origins(annotated.node)
        assert origins == _origins(plain.node)
        comments = {origin.comment for _, origin in origins if origin and origin.comment}
        names = {origin.function_name for _, origin in origins if origin}
        if entity is some_function:
            assert comments == {"adds one"} and names == {"some_function"}
        elif entity is _Methods.pair:
            assert comments == {"a default"} and names == {"<lambda>"}
            assert annotated.node.body.elts[1].lineno == 3  # of the lambda's own text
        else:
            assert comments == {"comment", "inner", "returns", "lambdas"}
            assert names == {"decorated", "inner", "<lambda>"}
