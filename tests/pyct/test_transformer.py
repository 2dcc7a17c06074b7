"""Tests for transformer.Base and CodeGenerator: block visiting, state stacks, origins."""

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import naming
from autograph.pyct import origin_info
from autograph.pyct import parser
from autograph.pyct import unparser
from autograph.pyct import transformer


def _context():
    info = transformer.EntityInfo(name="f", source_code="", source_file="<test>",
                                  future_features=(), namespace={})
    return transformer.Context(info, naming.Namer({}), user_context=None)


def _parsed(source):
    node = parser.parse(source)
    origin_info.resolve(node, source, "user.py", 100, 0)
    return node


def _source(node):
    return unparser.unparse(node, include_encoding_marker=False)


def test_statement_visit_may_return_a_list_that_is_spliced():
    class DuplicateAssignments(transformer.Base):
        def visit_Assign(self, node):
            return [node, parser.parse("marker = 1")]

    node = _parsed("def f():\n  a = 1\n  if a:\n    b = 2\n  return a\n")
    node = DuplicateAssignments(_context()).visit(node)
    assert _source(node) == ("def f():\n    a = 1\n    marker = 1\n    if a:\n"
                             "        b = 2\n        marker = 1\n    return a\n")


def test_returning_none_removes_the_statement():
    class RemovePass(transformer.Base):
        def visit_Pass(self, node):
            return None

    node = RemovePass(_context()).visit(_parsed("def f():\n  pass\n  return 1\n"))
    assert _source(node) == "def f():\n    return 1\n"


def test_replacements_inherit_the_origin_of_the_replaced_node():
    class CallsToNames(transformer.Base):
        def visit_Call(self, node):
            return gast.Name("replaced", gast.Load(), None, None)

    node = _parsed("def f():\n  x = 1\n  return g(x)\n")
    original_call_origin = anno.getanno(node.body[1].value, anno.Basic.ORIGIN)
    node = CallsToNames(_context()).visit(node)
    new_name = node.body[1].value
    assert anno.getanno(new_name, anno.Basic.ORIGIN) is original_call_origin
    assert anno.getanno(new_name, anno.Basic.ORIGIN).loc.lineno == 102


def test_new_statements_from_an_expression_inherit_its_origin_and_drop_the_expr():
    class CallToAssign(transformer.Base):
        def visit_Call(self, node):
            return parser.parse("result = 0")

    node = _parsed("def f():\n  g()\n")
    node = CallToAssign(_context()).visit(node)
    assert isinstance(node.body[0], gast.Assign)
    assert anno.getanno(node.body[0], anno.Basic.ORIGIN).loc.lineno == 101


def test_skip_processing_leaves_nodes_alone():
    class RenameAll(transformer.Base):
        def visit_Name(self, node):
            node.id = "renamed"
            return node

    node = _parsed("def f():\n  a = b\n  c = d\n")
    anno.setanno(node.body[1], anno.Basic.SKIP_PROCESSING, True)
    node = RenameAll(_context()).visit(node)
    assert _source(node) == "def f():\n    renamed = renamed\n    c = d\n"


class _Loop:
    def __init__(self):
        self.has_break = False


def test_state_stack_tracks_the_innermost_node():
    seen = []

    class LoopsWithBreak(transformer.Base):
        def visit_While(self, node):
            self.state[_Loop].enter()
            node = self.generic_visit(node)
            seen.append((node.test.id, self.state[_Loop].has_break, self.state[_Loop].level))
            self.state[_Loop].exit()
            return node

        def visit_Break(self, node):
            self.state[_Loop].has_break = True
            return node

    source = "def f():\n  while outer:\n    while inner:\n      break\n"
    LoopsWithBreak(_context()).visit(_parsed(source))
    # The root state plus one per open loop.
    assert seen == [("inner", True, 3), ("outer", False, 2)]


def test_visit_block_with_a_new_destination_for_the_remaining_statements():
    class WrapRestInIf(transformer.Base):
        def visit_FunctionDef(self, node):
            def after_visit(statement):
                if isinstance(statement, gast.Expr) and statement.value.func.id == "split":
                    guard = parser.parse("if condition:\n  pass")
                    guard.body = []
                    return [statement, guard], guard.body
                return statement, None
            node.body = self.visit_block(node.body, after_visit=after_visit)
            return node

    node = _parsed("def f():\n  a()\n  split()\n  b()\n  c()\n")
    node = WrapRestInIf(_context()).visit(node)
    assert _source(node) == ("def f():\n    a()\n    split()\n    if condition:\n"
                             "        b()\n        c()\n")


def test_visit_rejects_lists():
    with pytest.raises(ValueError, match="visit_block"):
        transformer.Base(_context()).visit([])


def test_get_definition_directive():
    class Definition:
        def __init__(self, value):
            self.directives = {"set_loop_options": {"maximum_iterations": value}}

    node = parser.parse_expression("x")
    base = transformer.Base(_context())
    assert base.get_definition_directive(node, "set_loop_options", "maximum_iterations",
                                         "default") == "default"
    value = parser.parse_expression("10")
    anno.setanno(node, anno.Basic.ORIG_DEFINITIONS, [Definition(value), Definition(value)])
    assert base.get_definition_directive(
        node, "set_loop_options", "maximum_iterations", None) is value
    anno.setanno(node, anno.Basic.ORIG_DEFINITIONS,
                 [Definition(value), Definition(parser.parse_expression("20"))])
    with pytest.raises(ValueError, match="ambiguous"):
        base.get_definition_directive(node, "set_loop_options", "maximum_iterations", None)


def test_code_generator_emits_and_maps_lines_to_origins():
    class StatementLister(transformer.CodeGenerator):
        def visit_Assign(self, node):
            self.emit(f"assign {node.targets[0].id}\n")

        def visit_Return(self, node):
            self.emit("return\n")

    node = _parsed("def f():\n  a = 1\n  b = 2\n  return a\n")
    generator = StatementLister(_context())
    generator.generic_visit(node)
    assert generator.code_buffer == "assign a\nassign b\nreturn\n"
    assert {line: origin.loc.lineno for line, origin in generator.source_map.items()} == {
        1: 101, 2: 102, 3: 103}


def test_apply_to_single_assignments_splits_literal_tuples():
    pairs = []
    node = parser.parse("a, (b, c) = 1, (2, 3)")
    transformer.Base(_context()).apply_to_single_assignments(
        node.targets, node.value, lambda t, v: pairs.append((_source(t), _source(v))))
    assert pairs == [("a\n", "1\n"), ("b\n", "2\n"), ("c\n", "3\n")]


def test_what_a_transformer_narrows_its_visits_to():
    class RenameNames(transformer.Base):
        def visit_Name(self, node):
            node.id = node.id.upper()
            return node

    # Only the children whose ids are `relevant`: here, not inside calls.
    node = parser.parse("def f(a):\n    return a + g(a)")
    renamer = RenameNames(_context())
    renamer.relevant = {id(n) for n in gast.walk(node)} - {
        id(n) for call in gast.walk(node) if isinstance(call, gast.Call)
        for n in gast.walk(call)}
    renamer.visit(node)
    assert "return A + g(a)" in _source(node)

    # Only the fields `fields_of` gives: here, not the parameters.
    node = parser.parse("def f(a):\n    return a")
    renamer = RenameNames(_context())
    renamer.fields_of = lambda node_class: tuple(
        f for f in ast_util.node_fields(node_class) if f != "args")
    renamer.visit(node)
    assert "def f(a):\n    return A" in _source(node)

    # Not what has an annotation among `left_alone_keys`.
    node = parser.parse("def f(a):\n    return a + b")
    anno.setanno(node.body[0].value.right, anno.Basic.SKIP_PROCESSING, True)
    RenameNames(_context()).visit(node)
    assert "return A + b" in _source(node)
