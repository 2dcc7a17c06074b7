"""Tests for parser: finding the source of live entities, and parse -> unparse -> parse."""

import ast
import functools
import linecache
import textwrap

import gast
import pytest

from autograph.pyct import errors
from autograph.pyct import parser


def decorator(fn):
    return fn


def wrapping_decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def plain_function(x):
    return x + 1


@decorator
@decorator
def decorated_function(x):
    return x * 2


class Methods:

    @decorator
    def method(self, x):
        text = """
        kept as written
"""
        return text, x

    @staticmethod
    def static(y):
        return y

    @classmethod
    def klass(cls, z):
        return z


def make_closure(offset):
    def closure(x):
        return x + offset
    return closure


two_lambdas = [lambda x: x + 1, lambda x: x * 2]
nested_lambdas = (lambda y: lambda y: y + 3)
same_text_lambdas = (lambda a: a, lambda a: a)


def with_default_lambdas(f=lambda q: q + 1, g=lambda q: q - 1):
    return f, g


called_with_lambda = list(map(lambda z: z * 10, [1]))
multi_line_lambda = (lambda a,
                     b: a + b)


def _unparsed(node):
    return parser.unparse(node, include_encoding_marker=False)


def test_plain_function():
    node, source = parser.parse_entity(plain_function)
    assert isinstance(node, gast.FunctionDef)
    assert node.name == "plain_function"
    assert source == "def plain_function(x):\n    return x + 1\n"


def test_decorators_are_not_part_of_the_node_or_source():
    node, source = parser.parse_entity(decorated_function)
    assert node.decorator_list == []
    assert source.startswith("def decorated_function(x):")


def test_methods_bound_static_and_class():
    for entity, name in ((Methods.method, "method"), (Methods().method, "method"),
                         (Methods.static, "static"), (Methods.klass, "klass"),
                         (Methods.__dict__["static"], "static")):
        node, source = parser.parse_entity(entity)
        assert node.name == name
        assert source.startswith(f"def {name}(")


def test_indented_source_keeps_multiline_strings_unchanged():
    node, _ = parser.parse_entity(Methods.method)
    text_value = node.body[0].value.value
    assert text_value == "\n        kept as written\n"


def test_closure_source():
    node, source = parser.parse_entity(make_closure(1))
    assert node.name == "closure"
    assert source == "def closure(x):\n    return x + offset\n"


@pytest.mark.parametrize("entity, expected", [
    (two_lambdas[0], "lambda x: x + 1"),
    (two_lambdas[1], "lambda x: x * 2"),
    (nested_lambdas, "lambda y: lambda y: y + 3"),
    (nested_lambdas(0), "lambda y: y + 3"),
    (same_text_lambdas[0], "lambda a: a"),
    (with_default_lambdas.__defaults__[0], "lambda q: q + 1"),
    (with_default_lambdas.__defaults__[1], "lambda q: q - 1"),
])
def test_lambdas_pick_the_right_one(entity, expected):
    node, source = parser.parse_entity(entity)
    assert isinstance(node, gast.Lambda)
    assert source == expected


def test_lambdas_with_the_same_text_on_one_line_map_to_their_own_columns():
    first = parser.parse_entity_with_location(same_text_lambdas[0])
    second = parser.parse_entity_with_location(same_text_lambdas[1])
    assert first.lineno == second.lineno
    assert first.col_offset < second.col_offset


def test_lambda_inside_a_call_and_multi_line_lambda():
    mapped = [None]
    mapper = map(lambda z: z - 5, mapped)
    node, source = parser.parse_entity(mapper.__reduce__()[1][0])
    assert source == "lambda z: z - 5"
    node, source = parser.parse_entity(multi_line_lambda)
    assert isinstance(node, gast.Lambda)
    assert [n.id for n in node.args.args] == ["a", "b"]
    assert "a + b" in source


def test_lambda_location_maps_back_to_file():
    found = parser.parse_entity_with_location(two_lambdas[1])
    line = linecache.getline(found.filename, found.lineno)
    assert line[found.col_offset:].startswith("lambda x: x * 2")


def test_function_location_maps_back_to_file():
    found = parser.parse_entity_with_location(Methods.static)
    line = linecache.getline(found.filename, found.lineno)
    assert line.strip() == "def static(y):"
    assert found.col_offset == 4


def test_functions_wrapped_by_functools_wraps_give_the_wrapper():
    wrapped = wrapping_decorator(plain_function)
    node, _ = parser.parse_entity(wrapped)
    assert node.name == "wrapper"


def test_nested_function_defined_locally():
    def local(a, *, b=2):
        def deeper():
            return a
        return deeper
    node, source = parser.parse_entity(local)
    assert node.name == "local"
    assert source.startswith("def local(a, *, b=2):")
    node, _ = parser.parse_entity(local(1))
    assert node.name == "deeper"


def test_class_source():
    node, source = parser.parse_entity(Methods)
    assert isinstance(node, gast.ClassDef)
    assert source.startswith("class Methods:")


def test_source_registered_in_linecache_is_found():
    source = "def from_cell(x):\n    return x - 1\n"
    filename = "<notebook-cell-test-parser>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    node, found_source = parser.parse_entity(namespace["from_cell"])
    assert node.name == "from_cell"
    assert found_source == source


def test_exec_without_source_raises_a_clear_error():
    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)
    with pytest.raises(errors.SourceNotFoundError, match=r"no_source.*<string>"):
        parser.parse_entity(namespace["no_source"])


@pytest.mark.parametrize("entity", [len, [].append, str.join, object.__init__, 42])
def test_no_source_entities_raise_source_not_found(entity):
    with pytest.raises(errors.SourceNotFoundError, match="Cannot convert"):
        parser.parse_entity(entity)


def test_source_not_found_is_not_an_os_error():
    assert not issubclass(errors.SourceNotFoundError, OSError)
    assert issubclass(errors.SourceNotFoundError, errors.PyCTError)


def test_deleted_source_file(tmp_path, monkeypatch):
    module_file = tmp_path / "vanishing_module.py"
    module_file.write_text("def vanish(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import vanishing_module
    module_file.unlink()
    linecache.checkcache(str(module_file))
    with pytest.raises(errors.SourceNotFoundError, match="cannot be read"):
        parser.parse_entity(vanishing_module.vanish)


def test_parse_and_parse_expression():
    node = parser.parse("x = 1")
    assert isinstance(node, gast.Assign)
    nodes = parser.parse("    a = 1\n    b = 2\n", single_node=False)
    assert [type(n).__name__ for n in nodes] == ["Assign", "Assign"]
    assert len(parser.parse("import os\nx = 1", preamble_len=1, single_node=False)) == 1
    with pytest.raises(ValueError):
        parser.parse("a = 1\nb = 2")
    expression = parser.parse_expression("  a + b  ")
    assert isinstance(expression, gast.BinOp)


def test_unparse_encoding_marker_and_lists():
    nodes = parser.parse("a = 1\nb = 2", single_node=False)
    assert parser.unparse(nodes) == "# coding=utf-8\na = 1\nb = 2\n"
    assert parser.unparse(nodes[0], include_encoding_marker=False) == "a = 1\n"
    assert parser.unparse(parser.parse("if a:\n  b"), indentation="  ",
                          include_encoding_marker=False) == "if a:\n  b\n"


# Every statement type of the Python 3.11 grammar, and the expressions astor is known to
# get wrong, must survive parse -> unparse -> parse unchanged.
ROUND_TRIP_SOURCES = {
    "assignments": """
        a = b = 1
        a, *b = c
        [a, (b, c)] = d
        a.b[c] += 1
        x: int = 3
        (y): list[int] = []
        z: 'str'
        del a, b[0], c.d
    """,
    "walrus": """
        if (n := len(a)) > 10:
            print(f'{n=}')
        [y := f(x), y ** 2]
        while chunk := read():
            pass
    """,
    "positional_only": """
        def f(a, b=1, /, c=2, *, d, e=3, **kw):
            pass
        def g(a, /):
            pass
        def h(a, b, /, c, d=1):
            pass
        lam = lambda a, /, b=1: a + b
    """,
    "fstrings": '''
        a = f"{x!r:>{width}} {y:.3f} {z=} {'nested'} {d['k']}"
        e = f\'\'\'{"it's"!s:^5} {'a' "b"}\'\'\'
        b = f'{a}' f"{b}" 'plain'
        c = f"{{escaped}} {x:{'>' if right else '<'}10}"
        d = rf"\\d{x}" + f"""{a
        }"""
    ''',
    "match": """
        match command:
            case [x, y, *rest] if x > 0:
                pass
            case {'key': value, **others}:
                pass
            case Point(x=0, y=yy) | Point(x=yy, y=0):
                pass
            case str() as s:
                pass
            case 1 | 2.5 | -3 | 1 + 2j | 'a' | b'b' | None | True:
                pass
            case Color.RED:
                pass
            case _:
                pass
    """,
    "try_star": """
        try:
            risky()
        except* ValueError as group:
            handle(group)
        except* (TypeError, KeyError):
            pass
        else:
            ok()
        finally:
            done()
    """,
    "try": """
        try:
            pass
        except ValueError as e:
            raise RuntimeError('x') from e
        except (TypeError, KeyError):
            raise
        except:
            pass
        else:
            pass
        finally:
            pass
    """,
    "loops": """
        for i, (a, b) in enumerate(pairs):
            if i:
                continue
            break
        else:
            pass
        while x:
            x -= 1
        else:
            y = 2
    """,
    "if_elif_else": """
        if a:
            pass
        elif b:
            pass
        elif c:
            pass
        else:
            pass
        x = a if b else c
    """,
    "functions": '''
        @decorator
        @decorator.with_args(1, k=2)
        def f(a: int, b: 'str' = 'x', *args: float, c, d=1, **kwargs) -> None:
            """Docstring."""
            global g
            def inner():
                nonlocal a
                a = 1
            yield a
            yield from b
            return
    ''',
    "async": """
        async def f():
            async with a as b, c:
                pass
            async for x in y:
                await x
            result = [z async for z in w]
            return await g()
    """,
    "classes": """
        @dataclass(frozen=True)
        class A(B, metaclass=M, **kw):
            x: int = 0
            def m(self):
                return super().m()
        class Empty:
            pass
    """,
    "with": """
        with open(a) as f, lock:
            pass
        with (open(a) as f, open(b) as g):
            pass
    """,
    "imports": """
        import os
        import os.path as p
        from . import sibling
        from ..parent import (a, b as c)
        from __future__ import annotations
    """,
    "expressions": """
        a[1:2, ::3, ...]
        a[b:c:d]
        a[*b]
        x = {**a, 'b': 1}
        y = {1, 2, *s}
        f(*args, **kwargs, k=v)
        not a and b or c
        -a ** -b
        (-a) ** b
        (a + b) * c
        a < b <= c is not d in e not in f
        lambda: (yield)
        t = ()
        t = (1,)
        s = 'quote"s' + "it's" + '''tri
        ple'''
        b = b'\\x00bytes'
        big = 1e400
        c = 1j
        n = 0x10 + 1_000
    """,
    "comprehensions": """
        [x for x in y if x if not x]
        {k: v for k, v in items}
        {s for s in t}
        (g for g in h for h in i)
        sum(x for x in y)
    """,
    "simple_statements": """
        pass
        assert x, 'message'
        raise
        x = y = None
        a; b
    """,
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP_SOURCES))
def test_round_trip_is_ast_equal(name):
    source = textwrap.dedent(ROUND_TRIP_SOURCES[name])
    original = ast.parse(source)
    regenerated = parser.unparse(gast.ast_to_gast(original))
    assert ast.dump(ast.parse(regenerated)) == ast.dump(original), regenerated


def test_round_trip_of_fallback_nodes_keeps_indentation_of_surrounding_code():
    source = textwrap.dedent("""
        def f(command):
            if command:
                match command:
                    case 1:
                        try:
                            pass
                        except* E:
                            pass
            return f'{command!r:>10}'
    """)
    node = parser.parse(source)
    text = parser.unparse(node, indentation="  ", include_encoding_marker=False)
    assert "\n    match command:\n      case 1:\n" in text
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))


def test_parse_entity_round_trip_behaves_like_the_original():
    node, _ = parser.parse_entity(Methods.method)
    namespace = {}
    exec(_unparsed(node), namespace)
    assert namespace["method"](None, 3) == Methods().method(3)


@pytest.mark.parametrize("module_name", ["textwrap", "difflib", "ast", "test.test_patma"])
def test_fast_gast_conversions_agree_with_gast(module_name):
    import importlib
    module = importlib.import_module(module_name)
    with open(module.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    ours = parser.ast_to_gast(tree)
    assert gast.dump(ours, include_attributes=True) == gast.dump(
        gast.ast_to_gast(tree), include_attributes=True)
    assert ast.dump(parser.gast_to_ast(ours), include_attributes=True) == ast.dump(
        gast.gast_to_ast(ours), include_attributes=True)


@pytest.mark.parametrize("module_name", ["textwrap", "difflib", "test.test_patma"])
def test_conversion_with_origins_in_place_agrees_with_ast_to_gast(module_name):
    import importlib
    module = importlib.import_module(module_name)
    with open(module.__file__, encoding="utf-8") as f:
        text = f.read()
    expected = gast.dump(parser.ast_to_gast(ast.parse(text)), include_attributes=True)
    # pylint: disable=protected-access
    converted = parser._ast_to_gast_with_origins(ast.parse(text), text, "m.py", 1, 0)
    assert gast.dump(converted, include_attributes=True) == expected
    # Every node gets the origin a separate origin_info.resolve walk gives it (nodes that
    # start at the same place may share one origin object).
    from autograph.pyct import anno, ast_util, origin_info
    resolved = parser.ast_to_gast(ast.parse(text))
    origin_info.resolve(resolved, text, "m.py", 7, 4)
    converted = parser._ast_to_gast_with_origins(ast.parse(text), text, "m.py", 7, 4)
    origins = [anno.getanno(n, anno.Basic.ORIGIN, None) for n in ast_util.walk(converted)]
    assert origins == [anno.getanno(n, anno.Basic.ORIGIN, None)
                       for n in ast_util.walk(resolved)]
    assert sum(origin is not None for origin in origins) > 500
    # ast.parse shares its context and operator instances between trees: they stay ast's.
    again = ast.parse("a + b < -c and d[e]")
    comparison = again.body[0].value.values[0]
    assert [type(n) for n in (again.body[0].value.op, comparison.ops[0],
                              comparison.left.op, comparison.left.left.ctx)] == [
        ast.And, ast.Lt, ast.Add, ast.Load]


def test_unparse_accepts_plain_ast_nodes():
    assert parser.unparse(ast.parse("x = [a for a in b]"), include_encoding_marker=False) == (
        "x = [a for a in b]\n")


def test_lambdas_without_column_information_are_reported_as_ambiguous():
    code = same_text_lambdas[0].__code__
    # What a code object looks like under `python -X no_debug_ranges`.
    stripped = code.replace(co_linetable=b"")
    ambiguous = type(same_text_lambdas[0])(stripped, globals())
    positions = list(stripped.co_positions())
    if any(p[2] is not None for p in positions):
        pytest.skip("this Python still reports columns")
    with pytest.raises(errors.SourceNotFoundError, match="look alike"):
        parser.parse_entity(ambiguous)


def _exec_registered(source, filename):
    """Runs `source` as if it came from a file (its text registered in linecache)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"decorator": decorator}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


TRICKY_SOURCE = (
    "@decorator(lambda d: d)\n"
    "def after_decorator_lambda(x):\n"
    "    return x\n"
    "table = {'é': lambda e: e + 1, 'ü': lambda e: e + 2}\n"
    "if True:\n"
    "\tdef tab_indented(a, \\\n"
    "\t\t\tb):\n"
    "\t\treturn a + b\n"
    "nested_in_comprehension = [lambda n=n: n * 2 for n in range(2)]\n"
    "lambda_with_lambda_default = lambda f=lambda: 1: f\n"
)


def test_tricky_layouts():
    namespace = _exec_registered(TRICKY_SOURCE, "<tricky-layouts>")
    node, source = parser.parse_entity(namespace["after_decorator_lambda"])
    assert node.name == "after_decorator_lambda" and node.decorator_list == []
    assert parser.parse_entity(namespace["table"]["é"])[1] == "lambda e: e + 1"
    found = parser.parse_entity_with_location(namespace["table"]["ü"])
    assert found.source == "lambda e: e + 2"
    line = linecache.getline("<tricky-layouts>", found.lineno)
    assert line.encode()[found.col_offset:].startswith(b"lambda e: e + 2")
    node, source = parser.parse_entity(namespace["tab_indented"])
    assert source == "def tab_indented(a, \\\n\t\tb):\n\treturn a + b\n"
    assert parser.parse_entity(namespace["nested_in_comprehension"][1])[1] == "lambda n=n: n * 2"
    assert parser.parse_entity(namespace["lambda_with_lambda_default"])[1] == (
        "lambda f=lambda: 1: f")
    assert parser.parse_entity(namespace["lambda_with_lambda_default"]())[1] == "lambda: 1"


def test_stale_source_is_reported(tmp_path, monkeypatch):
    module_file = tmp_path / "edited_module.py"
    module_file.write_text("def edited(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import edited_module
    linecache.getlines(str(module_file))
    module_file.write_text("\n\n\ndef renamed(x):\n    return x\n")
    linecache.checkcache(str(module_file))
    with pytest.raises(errors.SourceNotFoundError, match="changed"):
        parser.parse_entity(edited_module.edited)


# Grammar-heavy files of the standard library and its test suite: every construct they use
# must survive the round trip (the whole library does; this sample keeps the test fast).
GRAMMAR_CORPUS = [
    "test/test_grammar.py", "test/test_patma.py", "test/test_except_star.py",
    "test/test_fstring.py", "test/test_positional_only_arg.py",
    "test/test_named_expressions.py", "test/test_coroutines.py", "test/test_unparse.py",
    "dataclasses.py", "typing.py",
]


@pytest.mark.parametrize("relative_path", GRAMMAR_CORPUS)
def test_round_trip_of_grammar_heavy_stdlib_files(relative_path):
    import os
    path = os.path.join(os.path.dirname(os.__file__), relative_path)
    if not os.path.exists(path):
        pytest.skip(f"{relative_path} is not installed")
    with open(path, encoding="utf-8") as f:
        original = ast.parse(f.read())
    regenerated = parser.unparse(parser.ast_to_gast(original))
    assert ast.dump(ast.parse(regenerated)) == ast.dump(original)


# -- unparse_statements: the unparser of generated modules ------------------------------

_UNPARSE_CORPUS = ["textwrap", "difflib", "ast", "argparse", "fractions", "dataclasses",
                   "tokenize", "test.test_patma", "test.test_grammar"]


def _module_statements(module_name):
    import importlib
    module = importlib.import_module(module_name)
    with open(module.__file__, encoding="utf-8") as f:
        source = f.read()
    return source, lambda: parser.ast_to_gast(ast.parse(source)).body


@pytest.mark.parametrize("module_name", _UNPARSE_CORPUS)
def test_unparse_statements_writes_what_unparse_writes(module_name):
    _, statements = _module_statements(module_name)
    assert parser.unparse_statements(statements(), header="# h\n") == (
        "# h\n" + parser.unparse(statements()))


@pytest.mark.parametrize("name", sorted(ROUND_TRIP_SOURCES))
def test_unparse_statements_of_every_construct(name):
    source = textwrap.dedent(ROUND_TRIP_SOURCES[name])
    statements = lambda: parser.ast_to_gast(ast.parse(source)).body  # noqa: E731
    assert parser.unparse_statements(statements()) == parser.unparse(statements())


def _annotated_statements(statements):
    from autograph.pyct import anno
    for index, node in enumerate(n for s in statements for n in gast.walk(s)):
        anno.setanno(node, anno.Basic.ORIGIN, index)
    return statements


def _lambda_spans(tree):
    return sorted((n.lineno, n.end_lineno, n.col_offset, n.end_col_offset)
                  for n in ast.walk(tree) if isinstance(n, ast.Lambda))


GENERATED_LOOKING_SOURCE = '''
def create(ag__):
    @decorator(lambda: 1)
    def f(x, *args, k=lambda y: y + 'é', **kw):
        """A docstring
        on two lines."""
        s = 'ünïcode'; t = ag__.if_exp(x, lambda: s, lambda: 'b', 'x')()
        if x:
            pass
        elif ag__.or_(x, lambda: (lambda: x)())():
            return {k: (lambda: v) for k, v in kw.items()}
        else:
            try:
                y = [lambda q=ag__.and_(1, lambda: 2): q]
            except (E, F) as e:
                raise G from e
            finally:
                del y
        while x:
            x -= 1
        else:
            x = g(lambda: x, lambda: (yield))
        return f
    return f
'''


@pytest.mark.parametrize("module_name", _UNPARSE_CORPUS + ["<generated-looking>"])
def test_unparse_record_agrees_with_a_parse_of_the_text(module_name):
    from autograph.pyct import origin_info
    if module_name == "<generated-looking>":
        statements = lambda: parser.ast_to_gast(  # noqa: E731
            ast.parse(GENERATED_LOOKING_SOURCE)).body
    else:
        _, statements = _module_statements(module_name)
    nodes = _annotated_statements(statements())
    record = parser.UnparseRecord()
    text = parser.unparse_statements(nodes, header="# header\n", record=record)
    tree = ast.parse(text)
    assert sorted(span for _, _, span in record.call_lambdas) == _lambda_spans(tree)
    if module_name == "<generated-looking>":
        assert record.exact
        assert {getattr(call.func, "attr", None) if call is not None else None for call, _, _ in
                record.call_lambdas} >= {"if_exp", "or_", "and_", None}  # noqa: E501
    if record.exact:
        expected = origin_info.create_source_map(nodes, text, "gen.py", tree)
        assert origin_info.source_map_from_lines(record.statement_lines, "gen.py") == expected


def test_unparse_record_is_not_exact_where_a_string_spans_lines_inside_a_statement():
    record = parser.UnparseRecord()
    source = 'x = f("""first line of text\n    second line of the text""", y)'
    text = parser.unparse_statements(parser.parse(source, single_node=False), record=record)
    assert '"""first line of text\n' in text
    assert not record.exact
    record = parser.UnparseRecord()
    parser.unparse_statements(parser.parse('"""a\nb"""\nx = 1', single_node=False),
                              record=record)
    assert record.exact
    assert [line for _, line in record.statement_lines] == [2, 4]


def test_unparse_record_counts_every_line_break_it_writes():
    from autograph.pyct import origin_info
    # Parameters written by ast.unparse (positional-only ones), a docstring spanning
    # lines, and a statement object in two places of the tree (marked at each).
    source = ('def f(a, /, b=1):\n    """doc\n    string"""\n    return a\n'
              'if a:\n    z = 1\nelse:\n    w = 2\n')
    nodes = _annotated_statements(parser.parse(source, single_node=False))
    record = parser.UnparseRecord()
    text = parser.unparse_statements(nodes, record=record)
    assert "a, /, b=1" in text and record.exact
    expected = origin_info.create_source_map(nodes, text, "gen.py")
    assert origin_info.source_map_from_lines(record.statement_lines, "gen.py") == expected
    shared = nodes[1].body[0]
    nodes[1].orelse = [shared]
    record = parser.UnparseRecord()
    text = parser.unparse_statements(nodes, record=record)
    assert text.count("z = 1") == 2 and record.exact
    assert [line for node, line in record.statement_lines if node is shared] == [7, 9]
    expected = origin_info.create_source_map(nodes, text, "gen.py")
    assert origin_info.source_map_from_lines(record.statement_lines, "gen.py") == expected


def test_strings_are_written_as_astor_writes_them():
    import astor
    tricky = ["", "plain docstring", "two\nlines", "ends with quote\"", 'a """ b', "back\\slash",
              "cr\r\nlf", "nul\0", "tab\tand\x0cfeed", "ünïcode\nline", "\ud800", "'single'"]
    tricky += ["a" * 17, "a" * 18, "a" * 60, "a" * 69, "a" * 70, "é" * 30, "a\\" * 40]
    for value in tricky + [chr(i) * 3 for i in range(128)]:
        for current_line in ("", "        ", "    x = ", "\t", "    y = " + "z" * 20 + "(",
                             "    " + "w" * 22):
            for embedded in (0, 1, 2):
                # pylint: disable=protected-access
                assert parser._pretty_string(
                    value, embedded, not current_line.strip(), lambda: current_line,
                    False) == astor.code_gen.pretty_string(value, embedded, current_line, False)


def test_functions_come_from_their_files_parse_once_then_are_parsed_again():
    from autograph.pyct import anno, ast_util

    def parsed(entity):
        found = parser.parse_entity_with_location(entity, annotate_origins=True)
        origins = [anno.getanno(n, anno.Basic.ORIGIN, None) for n in ast_util.walk(found.node)]
        return found[1:], gast.dump(found.node, include_attributes=True), origins

    entities = (decorated_function, Methods.method, Methods.static, make_closure(1),
                plain_function)
    parser._file_indexes.pop(__file__, None)  # pylint: disable=protected-access
    from_file = [parsed(entity) for entity in entities]
    index = parser._file_indexes[__file__]  # pylint: disable=protected-access
    # Handed out (closures are inside a function: never stored; they are parsed alone).
    assert (decorated_function.__code__.co_firstlineno + 2, 0) not in index.trees
    assert (Methods.method.__code__.co_firstlineno + 1, 4) not in index.trees
    assert (Methods.static.__code__.co_firstlineno + 1, 4) not in index.trees
    assert (make_closure.__code__.co_firstlineno, 0) in index.trees
    assert [parsed(entity) for entity in entities] == from_file  # parsed alone this time
    (source, _, lineno, col_offset), dump, origins = from_file[1]
    assert source.startswith("def method(self, x):") and "decorator" not in dump
    assert (lineno, col_offset) == (Methods.method.__code__.co_firstlineno + 1, 4)
    assert origins[0].loc.lineno == lineno and origins[0].source_code_line == (
        "def method(self, x):")


def test_only_the_file_indexed_last_keeps_its_untaken_functions():
    import textwrap

    parser._file_indexes.pop(__file__, None)  # pylint: disable=protected-access
    parser.parse_entity_with_location(plain_function, annotate_origins=True)
    index = parser._file_indexes[__file__]  # pylint: disable=protected-access
    assert (make_closure.__code__.co_firstlineno, 0) in index.trees
    parser._file_indexes.pop(textwrap.__file__, None)  # pylint: disable=protected-access
    found = parser.parse_entity_with_location(textwrap.dedent, annotate_origins=True)
    assert found.node.name == "dedent"
    assert index.trees == {}  # memory: one file's parse at most
    assert parser.parse_entity(make_closure)[0].name == "make_closure"  # parsed alone


def test_fstrings_are_written_as_ast_unparse_writes_them():
    sources = [
        "f''", "f'{x}'", "f'{x!r}'", "f'{x!s:>{width}}'", "f'{x:.2f}'", "f'a{x}b{y!a}c'",
        "f'{{braces}} {x}'", "f'it\\'s {x}'", 'f"say \\"{x}\\""', "f'''both ' and \" {x}'''",
        "f'tab\\t{x}\\nline'", "f'back\\\\slash {x}'", "f'{x:{y}.{z}}'", "f'{x:\\n}'",
        "f'{x + 1}'", "f'{x.y}'", "f'{x!r:{y + 1}}'", "f'{(lambda: 1)}'", "f'{\"s\"}'",
        "f'\\'\\\"\\'\\'\\'\\\"\\\"\\\"{x}'", "f'ünï{x}\\x00'", "f'{x=}'", "f'{x = !r:^5}'",
    ]
    for source in sources:
        node = parser.parse_expression(source)
        # pylint: disable=protected-access
        assert parser._joined_str_source(node) == ast.unparse(ast.parse(source)), source


@pytest.mark.parametrize("module_name", ["textwrap", "difflib", "ast", "test.test_patma"])
def test_census_recorded_while_parsing_is_the_census_of_the_tree(module_name):
    import importlib
    from autograph.pyct import anno
    module = importlib.import_module(module_name)
    with open(module.__file__, encoding="utf-8") as f:
        text = f.read()
    fields = ("types", "attributes", "nested_scopes", "loop_else", "loop_starts_with_call",
              "return_in_block", "subscript_store")
    recorded_count = 0
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        source = ast.get_source_segment(text, node, padded=True)
        root = ast.parse(textwrap.dedent(source)).body[0]
        if isinstance(node, ast.Lambda):
            root = root.value  # a lambda's own text is an expression statement
        # pylint: disable=protected-access
        converted = parser._ast_to_gast_with_origins(root, source, "m.py", 1, 0)
        census = anno.getanno(converted, anno.Basic.CENSUS, None)
        if census is None:  # a part converted by gast (match statements): not recorded
            continue
        recorded_count += 1
        walked = parser.Census.of(converted)
        assert [getattr(census, f) for f in fields] == [getattr(walked, f) for f in fields]
    assert recorded_count > 10


def test_census_facts():
    from autograph.pyct import anno

    def census(source):
        found = parser.parse(source)
        return parser.Census.of(found)

    plain = census("def f(x):\n    return x.y[0]\n")
    assert not (plain.nested_scopes or plain.return_in_block or plain.subscript_store)
    assert plain.attributes == {"y"} and gast.Subscript in plain.types
    nested = census("def f(x):\n    if x:\n        def g():\n            return 1\n"
                    "    for i in x:\n        g(i)\n    else:\n        x[0] = 1\n")
    assert nested.nested_scopes and nested.return_in_block and nested.subscript_store
    assert nested.loop_else and nested.loop_starts_with_call
    assert census("lambda: (lambda: 1)").nested_scopes is False
    assert census("class A:\n    pass\n").nested_scopes
    # Recorded while parsing (the root of the tree holds it).
    found = parser.parse_entity_with_location(Methods.method, annotate_origins=True)
    assert isinstance(anno.getanno(found.node, anno.Basic.CENSUS), parser.Census)


def test_parsing_with_origins_leaves_no_cyclic_garbage():
    import gc
    parser.parse_entity_with_location(plain_function, annotate_origins=True)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        parser.parse_entity_with_location(plain_function, annotate_origins=True)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
