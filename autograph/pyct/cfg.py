"""Control-flow graphs of functions and lambdas, and a base class for dataflow analyses.

`build(node)` returns {FunctionDef/AsyncFunctionDef/Lambda node: Graph} for every function
in `node`. A CFG node stands for one unit of work (see `Node`); a nested def, class or
comprehension is a single node of the enclosing graph (each def gets its own graph).
"""

import collections
import contextlib
import operator
import threading

import gast

from autograph.pyct import anno, ast_util


class Node:
    """A CFG node: one unit of work, identified by `ast_node`.

    What `ast_node` is, per construct:
      simple statements (assign, expr, return, del, pass, break, continue, raise, assert,
        import, global, nonlocal) and def/class statements: the statement itself;
      if / while: the test expression (While.test, If.test);
      for: three nodes: For.iter (evaluated once, before the loop), the For node itself
        (the loop header: "is there a next item", plus any anno.Basic.EXTRA_LOOP_TEST)
        and For.target (binding the next item);
      with: one node per withitem; try: the Try node (entering the try, no work);
      except: the ExceptHandler (matching the type, binding the name);
      match: the Match node (evaluating the subject) and one node per match_case
        (pattern and guard);
      lambda graphs: a single node, the lambda's body expression.
    `next` and `prev` are frozensets of Nodes once the graph is built.
    """

    def __init__(self, next_, prev, ast_node):
        self.next = next_
        self.prev = prev
        self.ast_node = ast_node

    def __repr__(self):
        return f"<{describe(self.ast_node)}>"


def describe(ast_node):
    """A short one-line text for an AST node, for debugging and test messages."""
    if isinstance(ast_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        return f"def {ast_node.name}"
    if isinstance(ast_node, gast.ClassDef):
        return f"class {ast_node.name}"
    if isinstance(ast_node, (gast.For, gast.AsyncFor)):
        return "for-header"
    if isinstance(ast_node, (gast.Try, gast.TryStar)):
        return "try"
    if isinstance(ast_node, gast.Match):
        return f"match {_unparse(ast_node.subject)}"
    if isinstance(ast_node, gast.ExceptHandler):
        return "except" + (f" {_unparse(ast_node.type)}" if ast_node.type else "")
    if isinstance(ast_node, gast.withitem):
        return f"with {_unparse(ast_node.context_expr)}"
    if isinstance(ast_node, gast.match_case):
        return f"case {_unparse_pattern(ast_node.pattern)}"
    return _unparse(ast_node)


def _unparse(ast_node):
    try:
        return gast.unparse(ast_node).strip().split("\n")[0]
    except Exception:  # Debug text only: never fail on an odd node.
        return type(ast_node).__name__


def _unparse_pattern(pattern):
    import ast
    try:
        return ast.unparse(gast.gast_to_ast(pattern))
    except Exception:  # Debug text only.
        return type(pattern).__name__


class Graph(collections.namedtuple(
        "Graph", ["entry", "exit", "error", "index", "stmt_prev", "stmt_next",
                  "stmt_entry"])):
    """The control-flow graph of one function or lambda.

    Attributes:
      entry: the first Node executed.
      exit: frozenset of Nodes after which the function returns normally (last nodes of
        the body, `return` statements, or the last nodes of the `finally` blocks they
        run through).
      error: frozenset of Nodes after which an exception leaves the function: `raise`
        and `assert` outside any try, the last nodes of a `finally` reached by an
        exception. Exceptions raised by calls are not tracked.
      index: {ast node: Node} for each Node's ast_node, in source order.
      stmt_prev: {statement: frozenset of Nodes outside it with an edge into it} (looked
        up by key; computed on first look-up).
      stmt_next: {statement: frozenset of Nodes outside it with an edge from it}, i.e.
        what runs right after the statement (including via break/return/exceptions).
      stmt_entry: {statement: the first Node executed for it}.
    """

    def __repr__(self):
        lines = []
        for node in self.index.values():
            successors = ", ".join(sorted(repr(n) for n in node.next))
            lines.append(f"{node!r} -> [{successors}]")
        return "\n".join(lines)


class _Loop:
    def __init__(self, header):
        self.header = header
        self.break_nodes = set()


class _Finally:
    def __init__(self):
        # [(kind, loop-or-None, nodes)]: jumps that must run the finally block first.
        self.pending = []


class _ExceptionRegion:
    """A region whose nodes may raise into the handlers (or finally) of a try."""

    def __init__(self):
        self.nodes = []


class _FunctionBuilder:
    """Builds the graph of one function body."""

    def __init__(self):
        self.index = {}
        self.leaves = set()
        self.entry = None
        self.exits = set()
        self.errors = set()
        # Stack of _Loop and _Finally frames (jump targets and finally blocks between).
        self.frames = []
        self.regions = []
        # Nodes are added in order, so the nodes of a statement are those of `index` at
        # positions [start, end): statement_spans gives (start, end) per statement.
        self.open_statements = []  # [(statement, start)]
        self.statement_spans = {}
        self.stmt_entry = {}
        # Statements begun that have no node yet: the next node added is their entry.
        self.entryless = []

    # Nodes and edges.
    def add_node(self, ast_node):
        index = self.index
        if ast_node in index:
            raise ValueError(f"AST node used twice in a CFG: {describe(ast_node)}")
        # The new node follows every leaf.
        leaves = self.leaves
        node = Node(set(), set(leaves), ast_node)
        for leaf in leaves:
            leaf.next.add(node)
        index[ast_node] = node
        if self.entry is None:
            self.entry = node
        self.leaves = {node}
        for region in self.regions:
            region.nodes.append(node)
        if self.entryless:
            for statement in self.entryless:
                self.stmt_entry[statement] = node
            self.entryless = []
        return node

    @staticmethod
    def connect(first, second):
        first.next.add(second)
        second.prev.add(first)

    def begin_statement(self, statement):
        self.open_statements.append((statement, len(self.index)))
        self.entryless.append(statement)

    def end_statement(self, statement):
        ended, start = self.open_statements.pop()
        assert ended is statement
        self.statement_spans[statement] = (start, len(self.index))
        if start == len(self.index):
            self.entryless.remove(statement)  # a statement with no node has no entry

    def add_statement(self, statement):
        """A statement of a single node (begin_statement, add_node, end_statement)."""
        start = len(self.index)
        self.entryless.append(statement)
        self.add_node(statement)
        self.statement_spans[statement] = (start, start + 1)

    # Jumps: break, continue, return, routed through any finally blocks in between.
    def jump(self, nodes, kind, loop=None):
        for frame in reversed(self.frames):
            if isinstance(frame, _Finally):
                frame.pending.append((kind, loop, set(nodes)))
                return
            if frame is loop:
                break
        if kind == "break":
            loop.break_nodes.update(nodes)
        elif kind == "continue":
            for node in nodes:
                self.connect(node, loop.header)
        elif kind == "return":
            self.exits.update(nodes)

    def innermost_loop(self):
        for frame in reversed(self.frames):
            if isinstance(frame, _Loop):
                return frame
        raise SyntaxError("'break' or 'continue' outside loop")

    def raise_from(self, nodes):
        """Nodes after which an exception propagates (not caught by a handler here)."""
        if self.regions:
            # Region edges are added when the try statement is finished.
            return
        self.errors.update(nodes)

    def finish(self):
        self.exits.update(self.leaves)
        nodes = list(self.index.values())
        for node in nodes:
            node.next = frozenset(node.next)
            node.prev = frozenset(node.prev)
        return Graph(entry=self.entry, exit=frozenset(self.exits),
                     error=frozenset(self.errors), index=self.index,
                     stmt_prev=_StatementEdges(nodes, self.statement_spans, "prev"),
                     stmt_next=_StatementEdges(nodes, self.statement_spans, "next"),
                     stmt_entry=self.stmt_entry)


class _StatementEdges(dict):
    """Graph.stmt_prev or stmt_next: {statement: frozenset of the Nodes outside it with an
    edge into it (`prev`) or from it (`next`)}, computed for a statement when it is first
    looked up (`edges[statement]`): the analyses of a conversion may need it for a few
    statements only. Look it up before release_graphs unlinks the graph."""

    def __init__(self, nodes, statement_spans, direction):
        super().__init__()
        self._nodes = nodes  # in the order of Graph.index
        self._statement_spans = statement_spans
        self._direction = operator.attrgetter(direction)

    def __missing__(self, statement):
        start, end = self._statement_spans[statement]
        inside = self._nodes[start:end]
        neighbours = set().union(*map(self._direction, inside))
        edges = frozenset(neighbours.difference(inside))
        self[statement] = edges
        return edges


class _GraphBuilder(gast.NodeVisitor):
    """Walks a tree, building a graph for each function and lambda found."""

    def __init__(self, find_lambdas=True):
        self.graphs = {}
        self.builder = None
        self.find_lambdas = find_lambdas

    # Functions and lambdas.
    def _build_function(self, node, body):
        saved = self.builder
        self.builder = _FunctionBuilder()
        body()
        self.graphs[node] = self.builder.finish()
        self.builder = saved

    def _visit_function(self, node):
        if self.builder is not None:
            self._simple(node)
        # Defaults and decorators run in the parent; lambdas in them get their graphs.
        for expression in node.decorator_list + node.args.defaults + [
                d for d in node.args.kw_defaults if d is not None]:
            self.visit_expression(expression)
        self._build_function(node, lambda: self._visit_block(node.body))

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_Lambda(self, node):
        for expression in node.args.defaults + [
                d for d in node.args.kw_defaults if d is not None]:
            self.visit_expression(expression)

        def body():
            self.builder.add_node(node.body)
            self.visit_expression(node.body)
        self._build_function(node, body)

    def visit_ClassDef(self, node):
        if self.builder is not None:
            self._simple(node)
        # A class body is not a function; graphs are built for the methods in it.
        saved = self.builder
        self.builder = None
        for child in node.decorator_list + node.bases + node.keywords + node.body:
            self.visit(child)
        self.builder = saved

    def visit_expression(self, node):
        """Finds the lambdas inside an expression; expressions add no CFG nodes."""
        if node is None or not self.find_lambdas:
            return
        if node.__class__ is gast.Lambda:
            self.visit_Lambda(node)
            return
        # Expression contexts, which child_nodes leaves out, hold no lambdas.
        for child in ast_util.child_nodes(node):
            self.visit_expression(child)

    def visit(self, node):
        if self.builder is None and not isinstance(
                node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            # Outside any function: only look for functions and lambdas.
            for child in ast_util.child_nodes(node):
                self.visit(child)
            return
        super().visit(node)

    def generic_visit(self, node):
        if isinstance(node, gast.stmt):
            self._simple(node)
        else:
            self.visit_expression(node)

    # Statements.
    def _visit_block(self, statements):
        for statement in statements:
            self.visit(statement)

    def _simple(self, node):
        self.builder.add_statement(node)
        if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            self._expressions_of(node)

    def _expressions_of(self, node):
        if not self.find_lambdas:
            return
        for child in ast_util.child_nodes(node):
            if isinstance(child, gast.expr):
                self.visit_expression(child)

    def visit_Return(self, node):
        self._simple(node)
        self.builder.jump(self.builder.leaves, "return")
        self.builder.leaves = set()

    def visit_Break(self, node):
        self._simple(node)
        self.builder.jump(self.builder.leaves, "break", self.builder.innermost_loop())
        self.builder.leaves = set()

    def visit_Continue(self, node):
        self._simple(node)
        self.builder.jump(self.builder.leaves, "continue", self.builder.innermost_loop())
        self.builder.leaves = set()

    def visit_Raise(self, node):
        self._simple(node)
        self.builder.raise_from(self.builder.leaves)
        self.builder.leaves = set()

    def visit_Assert(self, node):
        self._simple(node)
        self.builder.raise_from(self.builder.leaves)

    def visit_If(self, node):
        builder = self.builder
        builder.begin_statement(node)
        test = builder.add_node(node.test)
        self.visit_expression(node.test)
        self._visit_block(node.body)
        body_leaves = builder.leaves
        builder.leaves = {test}
        self._visit_block(node.orelse)
        builder.leaves = builder.leaves | body_leaves
        builder.end_statement(node)

    def visit_While(self, node):
        builder = self.builder
        builder.begin_statement(node)
        test = builder.add_node(node.test)
        self.visit_expression(node.test)
        loop = self._loop_body(node, test)
        # `while True:` leaves only through break, return or raise (or the test a lowered
        # break or return adds to it).
        always_true = isinstance(node.test, gast.Constant) and bool(node.test.value) and (
            not anno.hasanno(node, anno.Basic.EXTRA_LOOP_TEST))
        self._loop_exit(node, loop, set() if always_true else {test})

    def _loop_body(self, node, header):
        """Builds the body of a loop whose iterations start at `header`."""
        builder = self.builder
        loop = _Loop(header)
        builder.frames.append(loop)
        self._visit_block(node.body)
        for leaf in builder.leaves:
            builder.connect(leaf, header)
        builder.frames.pop()
        return loop

    def _loop_exit(self, node, loop, exhausted):
        """The else block runs when the loop is exhausted; break skips it."""
        builder = self.builder
        builder.leaves = exhausted
        self._visit_block(node.orelse)
        builder.leaves = builder.leaves | loop.break_nodes
        builder.end_statement(node)

    def _visit_for(self, node):
        builder = self.builder
        builder.begin_statement(node)
        builder.add_node(node.iter)
        self.visit_expression(node.iter)
        header = builder.add_node(node)
        builder.add_node(node.target)
        loop = self._loop_body(node, header)
        self._loop_exit(node, loop, {header})

    visit_For = _visit_for
    visit_AsyncFor = _visit_for

    def _visit_with(self, node):
        builder = self.builder
        builder.begin_statement(node)
        for item in node.items:
            builder.add_node(item)
            self.visit_expression(item.context_expr)
        self._visit_block(node.body)
        builder.end_statement(node)

    visit_With = _visit_with
    visit_AsyncWith = _visit_with

    def visit_Match(self, node):
        builder = self.builder
        builder.begin_statement(node)
        builder.add_node(node)
        self.visit_expression(node.subject)
        out = set()
        for case in node.cases:
            case_node = builder.add_node(case)
            self.visit_expression(case.guard)
            self._visit_block(case.body)
            out |= builder.leaves
            builder.leaves = {case_node}
            if _irrefutable(case):
                builder.leaves = set()
                break
        builder.leaves = builder.leaves | out
        builder.end_statement(node)

    def _visit_try(self, node):
        builder = self.builder
        builder.begin_statement(node)
        final = _Finally() if node.finalbody else None
        final_region = _ExceptionRegion() if node.finalbody else None
        if final is not None:
            builder.frames.append(final)
            builder.regions.append(final_region)

        handler_region = _ExceptionRegion() if node.handlers else None
        if handler_region is not None:
            builder.regions.append(handler_region)
        builder.add_node(node)
        self._visit_block(node.body)
        if handler_region is not None:
            builder.regions.pop()
        self._visit_block(node.orelse)
        normal = builder.leaves

        for handler in node.handlers:
            builder.begin_statement(handler)
            builder.leaves = set()
            handler_node = builder.add_node(handler)
            # Any node of the try body may raise after it ran; the Try node stands for
            # an exception raised before the first one completed.
            for raising in handler_region.nodes:
                builder.connect(raising, handler_node)
            self.visit_expression(handler.type)
            self._visit_block(handler.body)
            normal = normal | builder.leaves
            builder.end_statement(handler)

        if final is None:
            builder.leaves = normal
            builder.end_statement(node)
            return

        builder.frames.pop()
        builder.regions.pop()
        raising = set(final_region.nodes)
        builder.leaves = normal | raising | {
            n for _, _, nodes in final.pending for n in nodes}
        self._visit_block(node.finalbody)
        final_leaves = builder.leaves
        for kind, loop, _ in final.pending:
            builder.jump(final_leaves, kind, loop)
        if raising:
            builder.raise_from(final_leaves)
        builder.leaves = final_leaves if normal else set()
        builder.end_statement(node)

    visit_Try = _visit_try
    visit_TryStar = _visit_try


def _irrefutable(case):
    if case.guard is not None:
        return False
    pattern = case.pattern
    while isinstance(pattern, gast.MatchAs) and pattern.pattern is not None:
        pattern = pattern.pattern
    if isinstance(pattern, gast.MatchOr):
        return any(isinstance(p, gast.MatchAs) and p.pattern is None for p in pattern.patterns)
    return isinstance(pattern, gast.MatchAs) and pattern.pattern is None


def build(node, find_lambdas=True):
    """Builds graphs for every function and lambda in `node`: {function node: Graph}.

    find_lambdas=False says that `node` holds no lambda (as activity analysis may know):
    expressions, which make no CFG nodes, are then not searched for lambdas.
    """
    builder = _GraphBuilder(find_lambdas)
    builder.visit(node)
    built = getattr(_released, "graphs", None)
    if built is not None:
        built.extend(builder.graphs.values())
    return builder.graphs


# The nodes of a graph link to each other both ways (next and prev), and each holds its
# AST node: a graph dropped by its analysis stays in memory, with the whole tree, until the
# cycle collector finds it, and that collection costs about as much as building the graph.
# Conversions run their analyses inside `release_graphs()`, which unlinks the graphs built
# meanwhile when it ends, so plain reference counting frees them and the tree at once.
_released = threading.local()


@contextlib.contextmanager
def release_graphs():
    """Graphs built inside this block lose their edges when it ends (their `next` and
    `prev` become empty): use it around work that drops the graphs it builds."""
    outer = getattr(_released, "graphs", None)
    _released.graphs = built = []
    try:
        yield
    finally:
        _released.graphs = outer
        for graph in built:
            for cfg_node in graph.index.values():
                cfg_node.next = cfg_node.prev = frozenset()


_NOT_CONSTANT = object()


class GraphVisitor:
    """Base for dataflow analyses over one Graph: iterates `visit_node` to a fixpoint.

    Subclasses define `init_state(node)` (or, when every node starts with the same
    immutable value, set the class attribute `initial_state` to it instead) and
    `visit_node(node)`, which updates `self.in_[node]` / `self.out[node]` from its
    neighbours and returns True when the node's result changed (its successors, or
    predecessors in reverse, are then revisited). Every node is visited at least once,
    reachable from the entry or not, so unreachable code and endless loops get states too.
    """

    initial_state = _NOT_CONSTANT

    def __init__(self, graph):
        self.graph = graph
        self.reset()

    def init_state(self, node):
        raise NotImplementedError("Subclasses must implement this.")

    def reset(self):
        nodes = self.graph.index.values()
        if self.initial_state is not _NOT_CONSTANT:
            self.in_ = dict.fromkeys(nodes, self.initial_state)
            self.out = dict.fromkeys(nodes, self.initial_state)
            return
        self.in_ = {node: self.init_state(node) for node in nodes}
        self.out = {node: self.init_state(node) for node in nodes}

    def visit_node(self, node):
        raise NotImplementedError("Subclasses must implement this.")

    def _visit(self, forward):
        nodes = list(self.graph.index.values())
        if not forward:
            nodes.reverse()
        worklist = collections.deque(nodes)
        queued = set(nodes)
        # Locals: this loop runs a few times per node of every graph.
        next_node, append, visit_node = worklist.popleft, worklist.append, self.visit_node
        while worklist:
            node = next_node()
            queued.discard(node)
            if visit_node(node):
                for neighbour in (node.next if forward else node.prev):
                    if neighbour not in queued:
                        queued.add(neighbour)
                        append(neighbour)

    def visit_forward(self):
        self._visit(forward=True)

    def visit_reverse(self):
        self._visit(forward=False)
