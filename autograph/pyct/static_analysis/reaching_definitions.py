"""Reaching definitions: which assignments may reach each name, and what is surely defined.

`resolve(node, ctx, graphs, definition_factory=Definition)` sets anno.Static.DEFINITIONS
on Name nodes (a tuple of Definition objects) and anno.Static.DEFINED_VARS_IN on every
statement (the frozenset of QNs defined on every path reaching it).
"""

import gast

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import cfg
from autograph.pyct import qual_names
from autograph.pyct.static_analysis import activity


class Definition:
    """One definition of a symbol: an assignment-like binding or a parameter.

    Attributes:
      param_of: the function or lambda node, for parameters; else None.
      directives: a dict converters may fill (e.g. loop directives on a variable).
      symbol: the QN defined; ast_node: the CFG node's AST node that defines it.
    """

    def __init__(self):
        self.param_of = None
        self.directives = {}
        self.symbol = None
        self.ast_node = None

    def __repr__(self):
        where = "param" if self.param_of is not None else cfg.describe(self.ast_node)
        return f"Definition({self.symbol} @ {where})"


# Marks "no definition on some path" in a symbol's set of reaching definitions.
_UNDEFINED = object()


def _join(states):
    """Union of reachable predecessor states; a symbol missing from one becomes maybe-undefined."""
    states = [s for s in states if s is not None]
    if not states:
        return None
    symbols = set()
    for state in states:
        symbols.update(state)
    joined = {}
    for symbol in symbols:
        definitions = set()
        for state in states:
            definitions |= state.get(symbol, {_UNDEFINED})
        joined[symbol] = frozenset(definitions)
    return joined


def _drop_owned(state, symbol):
    for key in [k for k in state if symbol in k.owner_set]:
        del state[key]


def _incoming(visitor, node):
    """The states flowing into `node`: its predecessors' out states (and the entry state)."""
    states = [visitor.out[p] for p in node.prev]
    if node is visitor.graph.entry:
        states.append(visitor.entry_state)
    return states


class Analyzer(cfg.GraphVisitor):
    """Forward dataflow over one graph. States: {QN: frozenset of Definitions} or None
    (not reached yet)."""

    def __init__(self, graph, definition_factory, entry_state):
        self.definition_factory = definition_factory
        self.entry_state = entry_state
        self.effects = {node: activity.node_effects(node)
                        for node in graph.index.values()}
        self.definitions = {}
        super().__init__(graph)

    initial_state = None

    def definition(self, node, symbol):
        key = (node, symbol)
        if key not in self.definitions:
            definition = self.definition_factory()
            definition.symbol = symbol
            definition.ast_node = node.ast_node
            self.definitions[key] = definition
        return self.definitions[key]

    def in_state(self, node):
        return _join(_incoming(self, node))

    def visit_node(self, node):
        state = self.in_state(node)
        self.in_[node] = state
        if state is not None:
            state = dict(state)
            effects = self.effects[node]
            for symbol in effects.deleted:
                state.pop(symbol, None)
                _drop_owned(state, symbol)
            for symbol in effects.modified - effects.deleted:
                _drop_owned(state, symbol)
                state[symbol] = frozenset((self.definition(node, symbol),))
        if state != self.out[node]:
            self.out[node] = state
            return True
        return False


def _surely_defined(state):
    if state is None:
        return frozenset()
    return frozenset(s for s, defs in state.items() if _UNDEFINED not in defs)


def _annotate_graph(function_node, graph, parent_state, definition_factory, owners):
    """Runs the analysis on one graph and annotates it; records where nested functions
    and lambdas are made (`owners`: {function node: (analyzer, CFG node)})."""
    scope = activity.scope_of(function_node)
    local = scope.local_names
    # Closure variables: what the enclosing function defined where this one is made.
    entry_state = {s: d for s, d in parent_state.items() if s.root not in local}
    for qn, name in scope.params.items():
        definition = definition_factory()
        definition.param_of = function_node
        definition.symbol = qn
        definition.ast_node = name
        entry_state[qn] = frozenset((definition,))
        anno.setanno(name, anno.Static.DEFINITIONS, (definition,))
    analyzer = Analyzer(graph, definition_factory, entry_state)
    analyzer.visit_forward()

    for cfg_node in graph.index.values():
        state = analyzer.in_[cfg_node] or {}
        lambdas = []
        for name in _names_of(cfg_node.ast_node, lambdas):
            qn = qual_names.qn_of(name)
            if isinstance(name.ctx, gast.Load):
                definitions = tuple(d for d in state.get(qn, ()) if d is not _UNDEFINED)
            elif isinstance(name.ctx, gast.Store):
                definitions = (analyzer.definition(cfg_node, qn),)
            else:
                definitions = ()
            anno.setanno(name, anno.Static.DEFINITIONS, definitions)
        for lambda_node in lambdas:
            owners[lambda_node] = (analyzer.in_, cfg_node)
        if isinstance(cfg_node.ast_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            # After the def statement: the function may refer to itself.
            owners[cfg_node.ast_node] = (analyzer.out, cfg_node)

    for statement, entry in graph.stmt_entry.items():
        if not isinstance(statement, gast.stmt):
            continue
        states = [analyzer.out[p] for p in graph.stmt_prev[statement]]
        if entry is graph.entry:
            states.append(entry_state)
        anno.setanno(statement, anno.Static.DEFINED_VARS_IN, _surely_defined(_join(states)))


def _names_of(ast_node, lambdas):
    """Name nodes whose value or binding is handled by the CFG node of `ast_node`.

    Lambdas met on the way are appended to `lambdas`.
    """
    if isinstance(ast_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        args = ast_node.args
        parts = list(ast_node.decorator_list) + list(args.defaults) + [
            d for d in args.kw_defaults if d is not None]
    elif isinstance(ast_node, gast.ClassDef):
        parts = list(ast_node.decorator_list) + list(ast_node.bases) + [
            k.value for k in ast_node.keywords]
    elif isinstance(ast_node, (gast.For, gast.AsyncFor)):
        parts = [anno.getanno(ast_node, anno.Basic.EXTRA_LOOP_TEST, None)]
    elif isinstance(ast_node, (gast.Try, gast.TryStar)):
        parts = []
    elif isinstance(ast_node, gast.Match):
        parts = [ast_node.subject]
    elif isinstance(ast_node, gast.ExceptHandler):
        parts = [ast_node.type, ast_node.name]
    elif isinstance(ast_node, gast.withitem):
        parts = [ast_node.context_expr, ast_node.optional_vars]
    elif isinstance(ast_node, gast.match_case):
        parts = [ast_node.guard]
    else:
        parts = [ast_node]
    names = []
    for part in parts:
        if part is not None:
            _collect_names(part, frozenset(), names, lambdas)
    return names


def _collect_names(node, comprehension_locals, names, lambdas):
    if isinstance(node, gast.Name):
        if node.id not in comprehension_locals or isinstance(node.ctx, gast.Param):
            names.append(node)
        return
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
        # Their bodies are separate graphs (or not functions); their outer parts are
        # reached through _names_of when they are statements.
        if isinstance(node, gast.Lambda):
            lambdas.append(node)
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d]:
                _collect_names(default, comprehension_locals, names, lambdas)
        return
    if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
        bound = set(comprehension_locals)
        for generator in node.generators:
            for target_name in gast.walk(generator.target):
                if isinstance(target_name, gast.Name):
                    bound.add(target_name.id)
        _collect_names(node.generators[0].iter, comprehension_locals, names, lambdas)
        inner = frozenset(bound)
        for i, generator in enumerate(node.generators):
            if i:
                _collect_names(generator.iter, inner, names, lambdas)
            for condition in generator.ifs:
                _collect_names(condition, inner, names, lambdas)
        elements = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
        for element in elements:
            _collect_names(element, inner, names, lambdas)
        return
    if isinstance(node, gast.NamedExpr):
        # The walrus target binds outside any comprehension.
        names.append(node.target)
        _collect_names(node.value, comprehension_locals, names, lambdas)
        return
    for child in ast_util.child_nodes(node):
        _collect_names(child, comprehension_locals, names, lambdas)


def resolve(node, ctx=None, graphs=None, definition_factory=Definition):
    """Annotates reaching definitions on `node` (function, lambda or module); returns it.

    `graphs` is cfg.build's result for `node` (built here when omitted); `ctx` is
    accepted for API symmetry and not used.
    """
    del ctx
    if graphs is None:
        graphs = cfg.build(node)
    owners = {}
    # cfg.build lists inner functions first: analyze enclosing functions before them.
    for function_node in reversed(list(graphs)):
        if function_node in owners:
            states, cfg_node = owners[function_node]
            parent_state = states[cfg_node] or {}
        else:
            parent_state = {}
        _annotate_graph(function_node, graphs[function_node], parent_state,
                        definition_factory, owners)
    return node


# -- Only what is surely defined ------------------------------------------------------
# The control-flow converter needs DEFINED_VARS_IN and nothing else. The same dataflow on
# sets of surely defined symbols (intersection at joins) gives exactly the sets
# `resolve` computes, without making Definition objects or annotating every name.


class _DefinedAnalyzer(cfg.GraphVisitor):
    """Forward must-analysis over one graph. States: frozenset of surely defined QNs, or
    None (not reached yet)."""

    def __init__(self, graph, entry_state):
        self.entry_state = entry_state
        effects = {node: activity.node_effects(node) for node in graph.index.values()}
        # States only hold symbols of the entry state or modified by some node: for each
        # owner among them, the composite symbols it owns.
        universe = set(entry_state)
        for node_effects in effects.values():
            universe |= node_effects.modified
        owned = {}
        for symbol in universe:
            if symbol.is_composite():
                for owner in symbol.owner_set:
                    owned.setdefault(owner, set()).add(symbol)
        # Each node maps a state to `state - dropped | added`: the steps of
        # Analyzer.visit_node, in the same order, composed once per node.
        self._transfers = {}
        for node, node_effects in effects.items():
            deleted = node_effects.deleted
            modified = node_effects.modified
            if not (deleted or modified):
                continue
            dropped = set()
            added = set()
            for symbol in deleted:
                removed = owned.get(symbol, set()) | {symbol}
                dropped |= removed
                added -= removed
            for symbol in modified - deleted:
                removed = owned.get(symbol)
                if removed:
                    dropped |= removed
                    added -= removed
                added.add(symbol)
            self._transfers[node] = (dropped, added)
        super().__init__(graph)

    initial_state = None

    def incoming(self, nodes, entry):
        """The intersection of the out states of `nodes` (and of the entry state if
        `entry`), None if none is reached. A single state is returned as is."""
        out = self.out
        state = self.entry_state if entry else None
        for node in nodes:
            other = out[node]
            if other is not None:
                state = other if state is None else state & other
        return state

    def visit_node(self, node):
        state = self.incoming(node.prev, node is self.graph.entry)
        self.in_[node] = state
        if state is not None:
            transfer = self._transfers.get(node)
            if transfer is not None:
                dropped, added = transfer
                if dropped:
                    state = state - dropped
                state = state | added
        if state != self.out[node]:
            self.out[node] = state
            return True
        return False


def _annotate_defined_vars(function_node, graph, parent_state, owners, statement_types):
    scope = activity.scope_of(function_node)
    local = scope.local_names
    entry_state = {s for s in parent_state if s.root not in local}
    entry_state.update(scope.params)
    analyzer = _DefinedAnalyzer(graph, frozenset(entry_state))
    analyzer.visit_forward()

    # Where nested functions and lambdas start from (None: there are none to analyze).
    for cfg_node in graph.index.values() if owners is not None else ():
        ast_node = cfg_node.ast_node
        if isinstance(ast_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            owners[ast_node] = (analyzer.out, cfg_node)
        lambdas = []
        _names_of(ast_node, lambdas)
        for lambda_node in lambdas:
            owners[lambda_node] = (analyzer.in_, cfg_node)

    for statement, entry in graph.stmt_entry.items():
        if not isinstance(statement, statement_types):
            continue
        state = analyzer.incoming(graph.stmt_prev[statement], entry is graph.entry)
        anno.setanno(statement, anno.Static.DEFINED_VARS_IN, state or frozenset())


def resolve_defined_vars(node, graphs=None, statement_types=gast.stmt):
    """Sets only anno.Static.DEFINED_VARS_IN on every statement of `node` (of
    `statement_types` only, if given), with the same values `resolve` gives (about three
    times cheaper); returns `node`."""
    if graphs is None:
        graphs = cfg.build(node)
    owners = {} if len(graphs) > 1 else None
    for function_node in reversed(list(graphs)):
        if owners and function_node in owners:
            states, cfg_node = owners[function_node]
            parent_state = states[cfg_node] or frozenset()
        else:
            parent_state = frozenset()
        _annotate_defined_vars(function_node, graphs[function_node], parent_state, owners,
                               statement_types)
    return node
