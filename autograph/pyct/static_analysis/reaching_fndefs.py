"""Reaching function definitions: which local `def`s may be what a name refers to.

`resolve(node, ctx, graphs)` sets anno.Static.DEFINED_FNS_IN on every statement: the
frozenset of FunctionDef/AsyncFunctionDef nodes (of this function or, for closures, of
enclosing ones) whose name may still refer to them when the statement starts.
"""

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)


class Analyzer(cfg.GraphVisitor):
    """Forward may-analysis; a state is a frozenset of def nodes, None if not reached."""

    def __init__(self, graph, entry_state):
        self.entry_state = frozenset(entry_state)
        self.modified = {node: activity.node_effects(node).modified
                         for node in graph.index.values()}
        super().__init__(graph)

    initial_state = None

    def in_state(self, node):
        states = [self.out[p] for p in node.prev if self.out[p] is not None]
        if node is self.graph.entry:
            states.append(self.entry_state)
        if not states:
            return None
        return frozenset().union(*states)

    def visit_node(self, node):
        state = self.in_state(node)
        self.in_[node] = state
        if state is not None:
            # Rebinding a name (`f = 3`, another `def f`) hides the earlier def.
            modified = {str(s) for s in self.modified[node] if s.is_simple()}
            state = frozenset(d for d in state if d.name not in modified)
            if isinstance(node.ast_node, _DEFS):
                state |= {node.ast_node}
        if state != self.out[node]:
            self.out[node] = state
            return True
        return False


def resolve(node, ctx=None, graphs=None):
    """Annotates DEFINED_FNS_IN on the statements of `node`'s functions; returns `node`."""
    del ctx
    if graphs is None:
        graphs = cfg.build(node)
    made_at = {}  # nested def -> the enclosing analyzer's state after its def statement
    # cfg.build lists inner functions first: analyze enclosing functions before them.
    for function_node in reversed(list(graphs)):
        if isinstance(function_node, gast.Lambda):
            continue  # a lambda body holds no statements
        graph = graphs[function_node]
        local = {str(s) for s in activity.scope_of(function_node).local_names}
        # Closures see the enclosing function's defs (and themselves) unless shadowed.
        entry_state = {d for d in made_at.get(function_node, ()) if d.name not in local}
        analyzer = Analyzer(graph, entry_state)
        analyzer.visit_forward()
        for statement, entry in graph.stmt_entry.items():
            if not isinstance(statement, gast.stmt):
                continue
            states = [analyzer.out[p] or frozenset() for p in graph.stmt_prev[statement]]
            if entry is graph.entry:
                states.append(analyzer.entry_state)
            anno.setanno(statement, anno.Static.DEFINED_FNS_IN, frozenset().union(*states))
            if isinstance(statement, _DEFS):
                made_at[statement] = analyzer.out[entry] or frozenset()
    return node
