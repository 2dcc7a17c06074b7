"""Control-flow graphs: edges for every statement kind, jumps through finally, dataflow base."""

import textwrap

import gast
import pytest

from autograph.pyct import cfg


def _graph(source):
    fn = gast.parse(textwrap.dedent(source)).body[0]
    graphs = cfg.build(fn)
    return fn, graphs[fn], graphs


def _edges(graph):
    return {(cfg.describe(a.ast_node), cfg.describe(b.ast_node))
            for a in graph.index.values() for b in a.next}


def _names(nodes):
    return {cfg.describe(n.ast_node) for n in nodes}


def test_straight_line_code():
    fn, graph, _ = _graph("""
        def f(a):
            b = a
            c = b
            return c
    """)
    assert _edges(graph) == {("b = a", "c = b"), ("c = b", "return c")}
    assert cfg.describe(graph.entry.ast_node) == "b = a"
    assert _names(graph.exit) == {"return c"}
    assert graph.error == frozenset()


def test_if_else_joins():
    fn, graph, _ = _graph("""
        def f(a):
            if a:
                b = 1
            else:
                b = 2
            return b
    """)
    assert _edges(graph) == {("a", "b = 1"), ("a", "b = 2"), ("b = 1", "return b"),
                             ("b = 2", "return b")}
    if_node = fn.body[0]
    assert _names(graph.stmt_next[if_node]) == {"return b"}
    assert graph.stmt_entry[if_node] is graph.index[if_node.test]


def test_if_without_else_falls_through_from_the_test():
    fn, graph, _ = _graph("""
        def f(a):
            if a:
                b = 1
            return a
    """)
    assert ("a", "return a") in _edges(graph)


def test_while_with_else_break_and_continue():
    fn, graph, _ = _graph("""
        def f(a):
            while a > 0:
                if a == 5:
                    break
                if a == 3:
                    continue
                a = a - 1
            else:
                done = 1
            return a
    """)
    edges = _edges(graph)
    assert ("a > 0", "done = 1") in edges  # normal exit runs the else block
    assert ("break", "return a") in edges  # break skips it
    assert ("continue", "a > 0") in edges
    assert ("a = a - 1", "a > 0") in edges
    assert ("done = 1", "return a") in edges
    loop = fn.body[0]
    assert _names(graph.stmt_next[loop]) == {"return a"}
    assert _names(graph.stmt_prev[loop]) == set()  # the loop is the function's entry


def test_while_true_only_leaves_through_break():
    fn, graph, _ = _graph("""
        def f():
            while True:
                x = g()
                if x:
                    break
            return x
    """)
    edges = _edges(graph)
    assert ("True", "return x") not in edges
    assert ("break", "return x") in edges


def test_for_loop_nodes_iterate_header_and_target():
    fn, graph, _ = _graph("""
        def f(xs):
            for i in xs:
                s = i
            else:
                t = 1
            return s
    """)
    loop = fn.body[0]
    header = graph.index[loop]
    iterate = graph.index[loop.iter]
    target = graph.index[loop.target]
    assert iterate.next == {header}
    assert target in header.next and graph.index[loop.orelse[0]] in header.next
    assert header in graph.index[loop.body[0]].next
    assert graph.stmt_entry[loop] is iterate
    assert _names(graph.stmt_next[loop]) == {"return s"}


def test_return_inside_loop_exits_the_function():
    fn, graph, _ = _graph("""
        def f(xs):
            for x in xs:
                if x:
                    return x
            return None
    """)
    assert _names(graph.exit) == {"return x", "return None"}
    assert not graph.index[fn.body[0].body[0].body[0]].next


def test_try_except_else_finally():
    fn, graph, _ = _graph("""
        def f(a):
            try:
                b = g(a)
            except ValueError as e:
                b = 0
            except:
                b = 1
            else:
                b = b + 1
            finally:
                cleanup()
            return b
    """)
    edges = _edges(graph)
    # The try body may raise into each handler, from its entry or after its statement.
    assert {("try", "except ValueError"), ("b = g(a)", "except ValueError"),
            ("try", "except"), ("b = g(a)", "except")} <= edges
    assert ("b = g(a)", "b = b + 1") in edges
    # The else block is not protected by the handlers, but by the finally.
    assert ("b = b + 1", "except ValueError") not in edges
    for source in ["b = 0", "b = 1", "b = b + 1", "b = g(a)", "except ValueError"]:
        assert (source, "cleanup()") in edges
    assert ("cleanup()", "return b") in edges
    # Exceptions not handled leave through the finally block.
    assert _names(graph.error) == {"cleanup()"}


def test_return_break_continue_run_the_finally_block():
    fn, graph, _ = _graph("""
        def f(xs):
            for x in xs:
                try:
                    if x == 1:
                        break
                    if x == 2:
                        continue
                    if x == 3:
                        return x
                finally:
                    log(x)
            return None
    """)
    edges = _edges(graph)
    assert ("break", "log(x)") in edges
    assert ("continue", "log(x)") in edges
    assert ("return x", "log(x)") in edges
    assert ("break", "return None") not in edges
    # After the finally block, each pending jump continues to its target.
    assert ("log(x)", "return None") in edges  # break
    assert ("log(x)", "for-header") in edges  # continue and normal completion
    assert "log(x)" in _names(graph.exit)  # return


def test_nested_finally_blocks_chain():
    fn, graph, _ = _graph("""
        def f():
            try:
                try:
                    return 1
                finally:
                    inner()
            finally:
                outer()
    """)
    edges = _edges(graph)
    assert ("return 1", "inner()") in edges
    assert ("inner()", "outer()") in edges
    assert ("return 1", "outer()") in edges  # an exception in the return expression
    assert _names(graph.exit) == {"outer()"}


def test_raise_and_assert_are_error_exits():
    fn, graph, _ = _graph("""
        def f(a):
            assert a, "no a"
            if a > 1:
                raise ValueError(a)
            return a
    """)
    assert _names(graph.error) == {"assert a, 'no a'", "raise ValueError(a)"}
    assert ("assert a, 'no a'", "a > 1") in _edges(graph)
    assert not graph.index[fn.body[1].body[0]].next


def test_raise_inside_try_goes_to_the_handler():
    fn, graph, _ = _graph("""
        def f(a):
            try:
                raise ValueError(a)
            except ValueError:
                pass
            return a
    """)
    assert ("raise ValueError(a)", "except ValueError") in _edges(graph)
    assert graph.error == frozenset()


def test_with_items_are_nodes():
    fn, graph, _ = _graph("""
        def f(a, b):
            with a as x, b:
                y = x
            return y
    """)
    assert _edges(graph) == {("with a", "with b"), ("with b", "y = x"),
                             ("y = x", "return y")}


def test_match_cases_fall_through_in_order():
    fn, graph, _ = _graph("""
        def f(cmd):
            match cmd:
                case [x]:
                    r = x
                case {"k": v} if v:
                    r = v
                case _:
                    r = None
            return r
    """)
    edges = _edges(graph)
    assert ("match cmd", "case [x]") in edges
    assert ("case [x]", "case {'k': v}") in edges
    assert ("case {'k': v}", "case _") in edges
    assert ("case _", "r = None") in edges
    # `case _` cannot fail, so the match cannot be left without a case.
    assert ("case _", "return r") not in edges
    assert ("r = x", "return r") in edges


def test_match_without_irrefutable_case_can_fall_out():
    fn, graph, _ = _graph("""
        def f(cmd):
            match cmd:
                case 1:
                    r = 1
            return 0
    """)
    assert ("case 1", "return 0") in _edges(graph)


def test_nested_defs_lambdas_and_comprehensions():
    fn, graph, graphs = _graph("""
        def f(xs):
            def g(y=lambda: 0):
                return [y for y in xs]
            h = lambda a: lambda b: a + b
            return g
    """)
    inner = fn.body[0]
    assert _edges(graph) == {("def g", "h = lambda a: lambda b: a + b"),
                             ("h = lambda a: lambda b: a + b", "return g")}
    assert inner in graphs
    assert _names(graphs[inner].index.values()) == {"return [y for y in xs]"}
    lambdas = [n for n in gast.walk(fn) if isinstance(n, gast.Lambda)]
    assert len(lambdas) == 3 and all(lam in graphs for lam in lambdas)
    assert len(graphs) == 5


def test_build_on_a_module_finds_functions_and_methods():
    module = gast.parse(textwrap.dedent("""
        x = 1
        def f():
            pass
        class K:
            def m(self):
                return self
            async def am(self):
                async for i in self:
                    await i
                async with self:
                    pass
    """))
    graphs = cfg.build(module)
    assert sorted(getattr(k, "name", "") for k in graphs) == ["am", "f", "m"]


def test_statements_with_no_special_flow_are_single_nodes():
    fn, graph, _ = _graph("""
        def f(a):
            global G
            import os
            from os import path
            del a
            a: int = 1
            pass
            b = (c := 2)
            class K:
                pass
    """)
    assert len(graph.index) == 8
    assert len(_edges(graph)) == 7


def test_break_outside_loop_is_an_error():
    node = gast.parse("def f():\n    break\n").body[0]
    with pytest.raises(SyntaxError):
        cfg.build(node)


class _Reachable(cfg.GraphVisitor):
    def init_state(self, node):
        return False

    def visit_node(self, node):
        reached = node is self.graph.entry or any(self.out[p] for p in node.prev)
        changed = reached != self.out[node]
        self.in_[node] = self.out[node] = reached
        return changed


def test_graph_visitor_reaches_a_fixpoint_and_sees_dead_code():
    fn, graph, _ = _graph("""
        def f(a):
            while a:
                a = a - 1
            return a
            dead = 1
    """)
    visitor = _Reachable(graph)
    visitor.visit_forward()
    reached = {cfg.describe(n.ast_node): visitor.out[n] for n in graph.index.values()}
    assert reached == {"a": True, "a = a - 1": True, "return a": True, "dead = 1": False}


def test_graphs_built_inside_release_graphs_let_go_of_their_tree():
    import gc
    import weakref
    fn = gast.parse("def f(a):\n    while a:\n        a -= 1\n    return a\n").body[0]
    kept = cfg.build(fn)[fn]  # built outside: keeps its edges
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with cfg.release_graphs():
            tree = gast.parse("def g(a):\n    while a:\n        a -= 1\n    return a\n")
            node = tree.body[0]
            graph = cfg.build(node)[node]
            assert any(n.next for n in graph.index.values())
            alive = weakref.ref(node)
            del tree, node
        assert all(not n.next and not n.prev for n in graph.index.values())
        del graph
        # Freed by reference counting alone: the graph's edges formed the only cycles.
        assert alive() is None
    finally:
        if gc_was_enabled:
            gc.enable()
    assert any(n.next for n in kept.index.values())
