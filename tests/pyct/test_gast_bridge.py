"""Tests for gast_bridge: ast <-> gast conversion agrees with gast's own, and what the one
walk of ast_to_gast also does (moving locations, origins, observers)."""

import ast
import importlib

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import gast_bridge
from autograph.pyct import origin_info


def _module_text(module_name):
    module = importlib.import_module(module_name)
    with open(module.__file__, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("module_name", ["textwrap", "difflib", "ast", "test.test_patma"])
def test_fast_gast_conversions_agree_with_gast(module_name):
    text = _module_text(module_name)
    ours = gast_bridge.ast_to_gast(ast.parse(text))
    assert gast.dump(ours, include_attributes=True) == gast.dump(
        gast.ast_to_gast(ast.parse(text)), include_attributes=True)
    assert ast.dump(gast_bridge.gast_to_ast(ours), include_attributes=True) == ast.dump(
        gast.gast_to_ast(ours), include_attributes=True)


@pytest.mark.parametrize("module_name", ["textwrap", "difflib", "test.test_patma"])
def test_conversion_with_origins_in_place_agrees_with_ast_to_gast(module_name):
    text = _module_text(module_name)
    expected = gast.dump(gast.ast_to_gast(ast.parse(text)), include_attributes=True)
    converted = gast_bridge.ast_to_gast(ast.parse(text), origins_from=(text, "m.py", 1, 0))
    assert gast.dump(converted, include_attributes=True) == expected
    # Every node gets the origin a separate origin_info.resolve walk gives it (nodes that
    # start at the same place may share one origin object).
    resolved = gast_bridge.ast_to_gast(ast.parse(text))
    origin_info.resolve(resolved, text, "m.py", 7, 4)
    converted = gast_bridge.ast_to_gast(ast.parse(text), origins_from=(text, "m.py", 7, 4))
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


@pytest.mark.parametrize("module_name", ["textwrap", "test.test_patma"])
def test_shifting_while_converting_is_shifting_first(module_name):
    text = _module_text(module_name)
    shifted = ast.parse(text)
    gast_bridge.shift_locations(shifted, -3, -2)
    expected = gast.dump(gast_bridge.ast_to_gast(shifted), include_attributes=True)
    converted = gast_bridge.ast_to_gast(ast.parse(text), shift=(-3, -2))
    assert gast.dump(converted, include_attributes=True) == expected


class _Recorder:
    """Records what it is shown: ('enter' or 'leave', node, whether the node's children
    are all gast nodes then)."""

    node_classes = frozenset({gast.If, gast.Return, gast.Name, gast.MatchAs})

    def __init__(self):
        self.events = []

    def _gast_below(self, node):
        return all(gast_bridge.is_gast_node(n) for n in ast_util.walk(node))

    def enter(self, node):
        self.events.append(("enter", node, None))

    def leave(self, node):
        self.events.append(("leave", node, self._gast_below(node)))


@pytest.mark.parametrize("module_name", ["textwrap", "test.test_patma"])
def test_observers_see_every_node_of_their_classes_once_around_its_children(module_name):
    text = _module_text(module_name)
    recorder = _Recorder()
    tree = gast_bridge.ast_to_gast(ast.parse(text), observer=recorder)
    wanted = [n for n in ast_util.walk(tree) if n.__class__ in _Recorder.node_classes]
    entered = [node for event, node, _ in recorder.events if event == "enter"]
    assert sorted(map(id, entered)) == sorted(map(id, wanted))
    # Properly nested: every node leaves after its descendants, with gast children only.
    open_nodes = []
    for event, node, gast_below in recorder.events:
        if event == "enter":
            open_nodes.append(node)
        else:
            assert open_nodes.pop() is node and gast_below
    assert not open_nodes
    # The same as a walk of the finished tree shows (nodes gast converted itself, such as
    # match statements, included).
    walked = _Recorder()
    gast_bridge.observe(tree, walked)
    assert sorted((event, id(node)) for event, node, _ in walked.events) == sorted(
        (event, id(node)) for event, node, _ in recorder.events)
    if module_name == "test.test_patma":
        assert any(node.__class__ is gast.MatchAs for node in entered)
