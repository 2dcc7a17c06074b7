"""Liveness: which symbols may still be read before being overwritten, at each statement.

`resolve(node, ctx, graphs)` sets anno.Static.LIVE_VARS_IN / LIVE_VARS_OUT on every
statement and function, and LIVE_VARS_IN_BODY on loops. A composite symbol (`self.a`)
is live when it is read; it dies when it or one of its owners (`self`) is reassigned.
Names declared global or nonlocal stay live at the function's exits (the caller sees them).
"""

import gast

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity

_LOOPS = (gast.While, gast.For, gast.AsyncFor)
_EMPTY = frozenset()


class Analyzer(cfg.GraphVisitor):
    """Backward dataflow over one graph: in_[node] / out[node] are frozensets of QNs."""

    def __init__(self, graph, exit_live=frozenset()):
        self.effects = {node: activity.node_effects(node)
                        for node in graph.index.values()}
        self.exit_live = frozenset(exit_live)
        self._leaving = graph.exit | graph.error
        # Live sets only ever hold symbols that some node reads (or exit_live): for each
        # owner among them, the composite symbols it owns, which die with it.
        dependents = {}
        universe = set(self.exit_live)
        for effects in self.effects.values():
            universe |= effects.read
        for symbol in universe:
            if symbol.is_composite():
                for owner in symbol.owner_set:
                    dependents.setdefault(owner, set()).add(symbol)
        # {node: what it kills}: a symbol dies when it or one of its owners is assigned.
        self._kills = kills = {}
        for node, effects in self.effects.items():
            kill = effects.modified
            if kill:
                owned = [d for d in map(dependents.get, kill) if d]
                if owned:
                    kill = kill.union(*owned)
            kills[node] = kill
        super().__init__(graph)

    initial_state = frozenset()

    def visit_node(self, node):
        # Frozensets throughout, shared where nothing changes: a node with one successor
        # and no effect on liveness passes its successor's set on.
        in_ = self.in_
        successors = node.next
        if node in self._leaving:
            live_out = self.exit_live.union(*map(in_.__getitem__, successors))
        elif len(successors) == 1:
            live_out = in_[next(iter(successors))]
        else:
            live_out = _EMPTY.union(*map(in_.__getitem__, successors))
        kill = self._kills[node]
        live_in = live_out - kill if kill else live_out
        read = self.effects[node].read
        if read:
            live_in = live_in.union(read)
        self.out[node] = live_out
        if live_in != in_[node]:
            in_[node] = live_in
            return True
        return False


def _find_leaving_statements(function_node, graph):
    """Statements of the function that contain a node after which the function exits."""
    parents = {}
    for parent in ast_util.walk(function_node):
        for child in ast_util.child_nodes(parent):
            parents[child] = parent
    leaving = set()
    for node in graph.exit | graph.error:
        ast_node = node.ast_node
        while ast_node is not None and ast_node is not function_node:
            if ast_node in leaving:
                break
            leaving.add(ast_node)
            ast_node = parents.get(ast_node)
    return leaving


def _annotate_graph(function_node, graph, statement_types):
    scope = activity.scope_of(function_node)
    analyzer = Analyzer(graph, exit_live=scope.globals | scope.nonlocals)
    analyzer.visit_reverse()
    live_in = analyzer.in_
    # A statement that can leave the function hands its globals/nonlocals to the caller.
    leaving = (_find_leaving_statements(function_node, graph)
               if analyzer.exit_live else ())
    for statement, entry in graph.stmt_entry.items():
        if not isinstance(statement, statement_types):
            continue
        live_out = set()
        for successor in graph.stmt_next[statement]:
            live_out |= live_in[successor]
        if statement in leaving:
            live_out |= analyzer.exit_live
        anno.setanno(statement, anno.Static.LIVE_VARS_OUT, frozenset(live_out))
        if isinstance(statement, (gast.FunctionDef, gast.AsyncFunctionDef)):
            # LIVE_VARS_IN of a def is about its own body (set with its own graph).
            continue
        anno.setanno(statement, anno.Static.LIVE_VARS_IN, live_in[entry])
        if isinstance(statement, _LOOPS):
            # Live at the start of every iteration: the loop test, or (for `for`) the
            # fetch of the next item. Excludes what only a for's iterable reads.
            header = graph.index[statement.test if isinstance(statement, gast.While)
                                 else statement]
            anno.setanno(statement, anno.Static.LIVE_VARS_IN_BODY, live_in[header])
    anno.setanno(function_node, anno.Static.LIVE_VARS_IN, live_in[graph.entry])
    if not anno.hasanno(function_node, anno.Static.LIVE_VARS_OUT):
        anno.setanno(function_node, anno.Static.LIVE_VARS_OUT, frozenset())


def resolve(node, ctx=None, graphs=None, statement_types=gast.stmt):
    """Annotates liveness on `node` (a function, lambda or module); returns `node`.

    Functions get LIVE_VARS_IN = live at the entry of their own body (free variables
    and parameters read before being assigned) and LIVE_VARS_OUT = live after the def
    statement in the enclosing function (empty for top-level functions and lambdas, and
    for functions whose def is not among `statement_types`).
    `graphs` is cfg.build's result for `node` (built here when omitted). Only statements
    of `statement_types` are annotated (all by default: a converter may need a few kinds
    only). `ctx` (a transformer.Context) is accepted for API symmetry and not used.
    """
    del ctx
    if graphs is None:
        graphs = cfg.build(node)
    # cfg.build lists inner functions first; enclosing ones set their defs' LIVE_VARS_OUT.
    for function_node in reversed(list(graphs)):
        _annotate_graph(function_node, graphs[function_node], statement_types)
    return node
