"""Tests for unparser and fast_unparser: gast -> source -> gast round trips, and the writer
of generated modules (the same text as unparse, with a record of where things went)."""

import ast
import textwrap

import gast
import pytest

from autograph.pyct import fast_unparser
from autograph.pyct import gast_bridge
from autograph.pyct import parser
from autograph.pyct import unparser


def test_unparse_encoding_marker_and_lists():
    nodes = parser.parse("a = 1\nb = 2", single_node=False)
    assert unparser.unparse(nodes) == "# coding=utf-8\na = 1\nb = 2\n"
    assert unparser.unparse(nodes[0], include_encoding_marker=False) == "a = 1\n"
    assert unparser.unparse(parser.parse("if a:\n  b"), indentation="  ",
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
    regenerated = unparser.unparse(gast.ast_to_gast(original))
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
    text = unparser.unparse(node, indentation="  ", include_encoding_marker=False)
    assert "\n    match command:\n      case 1:\n" in text
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))


def test_unparse_accepts_plain_ast_nodes():
    assert unparser.unparse(ast.parse("x = [a for a in b]"), include_encoding_marker=False) == (
        "x = [a for a in b]\n")


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
        text = f.read()
    regenerated = unparser.unparse(gast_bridge.ast_to_gast(ast.parse(text)))
    assert ast.dump(ast.parse(regenerated)) == ast.dump(ast.parse(text))


# -- unparse_statements: the unparser of generated modules (fast_unparser) ---------------

_UNPARSE_CORPUS = ["textwrap", "difflib", "ast", "argparse", "fractions", "dataclasses",
                   "tokenize", "test.test_patma", "test.test_grammar"]


def _module_statements(module_name):
    import importlib
    module = importlib.import_module(module_name)
    with open(module.__file__, encoding="utf-8") as f:
        source = f.read()
    return source, lambda: gast_bridge.ast_to_gast(ast.parse(source)).body


@pytest.mark.parametrize("module_name", _UNPARSE_CORPUS)
def test_unparse_statements_writes_what_unparse_writes(module_name):
    _, statements = _module_statements(module_name)
    assert unparser.unparse_statements(statements(), header="# h\n") == (
        "# h\n" + unparser.unparse(statements()))


@pytest.mark.parametrize("name", sorted(ROUND_TRIP_SOURCES))
def test_unparse_statements_of_every_construct(name):
    source = textwrap.dedent(ROUND_TRIP_SOURCES[name])
    statements = lambda: gast_bridge.ast_to_gast(ast.parse(source)).body  # noqa: E731
    assert unparser.unparse_statements(statements()) == unparser.unparse(statements())


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


def _written_fast(statement):
    try:
        fast_unparser.FastUnparser("    ").run(statement)
    except fast_unparser.Unsupported:
        return False
    return True


@pytest.mark.parametrize("module_name", _UNPARSE_CORPUS + ["<generated-looking>"])
def test_unparse_record_agrees_with_a_parse_of_the_text(module_name):
    from autograph.pyct import origin_info
    if module_name == "<generated-looking>":
        statements = lambda: gast_bridge.ast_to_gast(  # noqa: E731
            ast.parse(GENERATED_LOOKING_SOURCE)).body
    else:
        _, statements = _module_statements(module_name)
    nodes = _annotated_statements(statements())
    record = unparser.UnparseRecord()
    text = unparser.unparse_statements(nodes, header="# header\n", record=record)
    tree = ast.parse(text)
    fallbacks = [n for n in nodes if not _written_fast(n)]
    if not fallbacks:
        assert sorted(span for _, _, span in record.call_lambdas) == _lambda_spans(tree)
    else:
        # Statements fast_unparser does not write are written by unparse, which records
        # nothing (the record says so): statement by statement, the others are recorded.
        assert not record.exact
        for node in nodes:
            alone = unparser.UnparseRecord()
            alone_text = unparser.unparse_statements([node], record=alone)
            if node in fallbacks:
                assert not alone.exact and not alone.call_lambdas
            else:
                assert sorted(span for _, _, span in alone.call_lambdas) == _lambda_spans(
                    ast.parse(alone_text))
    if module_name == "<generated-looking>":
        assert record.exact
        assert {getattr(call.func, "attr", None) if call is not None else None for call, _, _ in
                record.call_lambdas} >= {"if_exp", "or_", "and_", None}  # noqa: E501
    if record.exact:
        expected = origin_info.create_source_map(nodes, text, "gen.py", tree)
        assert origin_info.source_map_from_lines(record.statement_lines, "gen.py") == expected


def test_unparse_record_is_not_exact_where_a_string_spans_lines_inside_a_statement():
    record = unparser.UnparseRecord()
    source = 'x = f("""first line of text\n    second line of the text""", y)'
    text = unparser.unparse_statements(parser.parse(source, single_node=False), record=record)
    assert '"""first line of text\n' in text
    assert not record.exact
    record = unparser.UnparseRecord()
    unparser.unparse_statements(parser.parse('"""a\nb"""\nx = 1', single_node=False),
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
    record = unparser.UnparseRecord()
    text = unparser.unparse_statements(nodes, record=record)
    assert "a, /, b=1" in text and record.exact
    expected = origin_info.create_source_map(nodes, text, "gen.py")
    assert origin_info.source_map_from_lines(record.statement_lines, "gen.py") == expected
    shared = nodes[1].body[0]
    nodes[1].orelse = [shared]
    record = unparser.UnparseRecord()
    text = unparser.unparse_statements(nodes, record=record)
    assert text.count("z = 1") == 2 and record.exact
    assert [line for node, line in record.statement_lines if node is shared] == [7, 9]
    expected = origin_info.create_source_map(nodes, text, "gen.py")
    assert origin_info.source_map_from_lines(record.statement_lines, "gen.py") == expected


def test_strings_are_written_as_astor_writes_them():
    tricky = ["", "plain docstring", "two\nlines", "ends with quote\"", 'a """ b', "back\\slash",
              "cr\r\nlf", "nul\0", "tab\tand\x0cfeed", "ünïcode\nline", "\ud800", "'single'"]
    tricky += ["a" * 17, "a" * 18, "a" * 60, "a" * 69, "a" * 70, "é" * 30, "a\\" * 40]
    for value in tricky + [chr(i) * 3 for i in range(128)]:
        # On a line of its own (at the margin, indented), after other text, embedded in an
        # expression, on a long line.
        source = (f"{value!r}\ndef f():\n    {value!r}\n    x = {value!r}\n"
                  f"    y = {'z' * 20}({value!r}, k={value!r})\n    {'w' * 22} = [{value!r}]\n")
        for indentation in ("    ", "\t"):
            statements = lambda: parser.parse(source, single_node=False)  # noqa: E731
            assert unparser.unparse_statements(statements(), indentation) == unparser.unparse(
                statements(), indentation), value


def test_fstrings_are_written_as_ast_unparse_writes_them():
    sources = [
        "f''", "f'{x}'", "f'{x!r}'", "f'{x!s:>{width}}'", "f'{x:.2f}'", "f'a{x}b{y!a}c'",
        "f'{{braces}} {x}'", "f'it\\'s {x}'", 'f"say \\"{x}\\""', "f'''both ' and \" {x}'''",
        "f'tab\\t{x}\\nline'", "f'back\\\\slash {x}'", "f'{x:{y}.{z}}'", "f'{x:\\n}'",
        "f'{x + 1}'", "f'{x.y}'", "f'{x!r:{y + 1}}'", "f'{(lambda: 1)}'", "f'{\"s\"}'",
        "f'\\'\\\"\\'\\'\\'\\\"\\\"\\\"{x}'", "f'ünï{x}\\x00'", "f'{x=}'", "f'{x = !r:^5}'",
    ]
    for source in sources:
        statement = parser.parse(f"x = {source}")
        expected = f"x = {ast.unparse(ast.parse(source))}"
        assert unparser.unparse_statements([statement]) == f"# coding=utf-8\n{expected}\n"
