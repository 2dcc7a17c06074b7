"""Tests for the census: the facts about a function's tree by which the conversion skips
converters, taken while the tree is parsed (a pyct parse observer) or by a walk."""

import ast
import importlib
import textwrap

import gast
import pytest

from autograph.impl import api
from autograph.impl import census as census_module
from autograph.impl import conversion
from autograph.pyct import anno
from autograph.pyct import gast_bridge
from autograph.pyct import parser

Census = census_module.Census
_FIELDS = ("types", "attributes", "nested_scopes", "loop_else", "loop_starts_with_call",
           "return_in_block", "subscript_store", "percent_format")
_BLOCKS = (gast.If, gast.For, gast.AsyncFor, gast.While)
_DEFINITIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def _facts(census):
    return [getattr(census, field) for field in _FIELDS]


def _reference_facts(root):
    """The census facts of `root`, computed plainly (recursion with an `inside` flag)."""
    facts = dict(types=set(), attributes=set(), loop_else=False,
                 loop_starts_with_call=False, return_in_block=False, subscript_store=False,
                 percent_format=False)
    definitions = 0

    def visit(node, inside):
        nonlocal definitions
        if node.__class__ in Census.node_classes and node.__class__ is not gast.BinOp:
            facts["types"].add(node.__class__)
        if isinstance(node, gast.Attribute):
            facts["attributes"].add(node.attr)
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
            facts["subscript_store"] = True
        elif isinstance(node, (gast.Return, gast.Raise)) and inside:
            facts["return_in_block"] = True
        elif (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mod)
              and isinstance(node.left, gast.Constant) and isinstance(node.left.value, str)):
            facts["percent_format"] = True
        elif isinstance(node, _DEFINITIONS):
            definitions += 1
        elif isinstance(node, (gast.For, gast.AsyncFor, gast.While)):
            facts["loop_else"] |= bool(node.orelse)
            first = node.body[0] if node.body else None
            facts["loop_starts_with_call"] |= isinstance(first, gast.Expr) and isinstance(
                first.value, gast.Call)
        for child in gast.iter_child_nodes(node):
            visit(child, inside or isinstance(node, _BLOCKS))

    visit(root, False)
    root_is_function = isinstance(root, (gast.FunctionDef, gast.AsyncFunctionDef))
    return [facts["types"], facts["attributes"], definitions > root_is_function,
            facts["loop_else"], facts["loop_starts_with_call"], facts["return_in_block"],
            facts["subscript_store"], facts["percent_format"]]


@pytest.mark.parametrize("module_name", ["textwrap", "difflib", "ast", "test.test_patma"])
def test_census_taken_while_parsing_is_the_census_of_the_tree(module_name):
    module = importlib.import_module(module_name)
    with open(module.__file__, encoding="utf-8") as f:
        text = f.read()
    count = 0
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        source = ast.get_source_segment(text, node, padded=True)
        root = ast.parse(textwrap.dedent(source)).body[0]
        if isinstance(node, ast.Lambda):
            root = root.value  # a lambda's own text is an expression statement
        taken = Census(root_is_function=not isinstance(node, ast.Lambda))
        converted = gast_bridge.ast_to_gast(root, origins_from=(source, "m.py", 1, 0),
                                            observer=taken)
        assert _facts(taken) == _facts(Census.of(converted)) == _reference_facts(converted)
        count += 1
    assert count > 10


def test_census_facts():
    def census(source):
        return Census.of(parser.parse(source))

    plain = census("def f(x):\n    return x.y[0]\n")
    assert not (plain.nested_scopes or plain.return_in_block or plain.subscript_store)
    assert plain.attributes == {"y"} and gast.Subscript in plain.types
    nested = census("def f(x):\n    if x:\n        def g():\n            return 1\n"
                    "    for i in x:\n        g(i)\n    else:\n        x[0] = 1\n")
    assert nested.nested_scopes and nested.return_in_block and nested.subscript_store
    assert nested.loop_else and nested.loop_starts_with_call
    assert census("lambda: (lambda: 1)").nested_scopes is False
    assert census("class A:\n    pass\n").nested_scopes


class _Secretive:
    def __init__(self):
        self.__secret = 7

    def reveal(self, x):
        if x:
            return self.__secret
        return 0

    @staticmethod
    def plain(x):
        if x:
            return x
        return 0


def test_the_converters_get_the_census_taken_while_parsing(monkeypatch):
    seen = []
    transform_ast = conversion.AutoGraphTranspiler.transform_ast

    def spy(self, node, ctx):
        seen.append(anno.getanno(node, anno.Basic.PARSE_OBSERVER, None))
        return transform_ast(self, node, ctx)

    walks = []
    census_of = Census.of.__func__
    monkeypatch.setattr(conversion.AutoGraphTranspiler, "transform_ast", spy)
    monkeypatch.setattr(Census, "of", classmethod(
        lambda cls, root: walks.append(root) or census_of(cls, root)))
    assert api.to_graph(_Secretive.plain)(3) == 3
    assert isinstance(seen[-1], Census) and seen[-1].return_in_block and not walks
    # Private names are mangled before the converters run: the census taken while parsing
    # is dropped, and the converters walk the changed tree for one.
    assert api.to_graph(_Secretive().reveal)(1) == 7
    assert seen[-1] is None and len(walks) == 1
