"""The graph IR: SSA values, nodes (one op each), graphs with nested graphs for control flow.

A `Graph` is an ordered list of `Node`s. Every `Value` is defined once: by a graph input
(placeholder), by a node output, or it is a literal (a constant scalar printed inline,
usable in any graph without capture). Control-flow nodes (`cond`, `while`) keep their
branches and bodies as nested graphs in their attrs; a nested graph's `captured` list
pairs each outer value it reads with the placeholder that stands for it inside, so every
read of an outer value is explicit.

Printed form (stable numbering, one op per line, nested graphs indented)::

    graph f(%0:f64[?], %1:i64[]) {
      %2:f64[?] = add %0, 1.0
      return %2
    }
"""

import threading

import numpy as np

from runtime import errors

TENSOR = "tensor"
TENSOR_ARRAY = "tensor_array"


class _NoLiteral:
    __slots__ = ()

    def __repr__(self):
        return "NO_LITERAL"


NO_LITERAL = _NoLiteral()


class Value:
    """An SSA value: `dtype` (NumPy dtype), `shape` (tuple of int|None; for a tensor array,
    the element shape, or None when not known yet), `kind` (TENSOR or TENSOR_ARRAY).

    `graph` is the graph that defines it (None for literals), `node` the node that produces
    it (None for placeholders and literals). A literal carries its Python or NumPy scalar
    in `literal`; `weak` is true for Python scalars (NEP 50 weak promotion).
    """

    __slots__ = ("dtype", "shape", "kind", "graph", "node", "literal", "weak", "__weakref__")

    def __init__(self, dtype, shape, graph=None, node=None, kind=TENSOR, literal=NO_LITERAL,
                 weak=False):
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape) if shape is not None else None
        self.kind = kind
        self.graph = graph
        self.node = node
        self.literal = literal
        self.weak = weak

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def is_literal(self):
        return self.literal is not NO_LITERAL

    def type_str(self):
        return type_str(self.dtype, self.shape, self.kind)

    def __repr__(self):
        if self.is_literal:
            return "<Value literal %s>" % format_literal(self)
        return "<Value %s>" % self.type_str()


def literal(value):
    """A literal Value for a Python scalar (weak) or a NumPy scalar (strong)."""
    if isinstance(value, np.generic):   # before the Python checks: np.float64 is a float
        return Value(value.dtype, (), literal=value, weak=False)
    if isinstance(value, (bool, int, float, complex)):
        dtype = np.result_type(value) if not isinstance(value, bool) else np.dtype(bool)
        if isinstance(value, int) and not isinstance(value, bool):
            dtype = np.dtype(np.int64)
        return Value(dtype, (), literal=value, weak=True)
    raise TypeError("not a scalar literal: %r" % (value,))


class Node:
    """One op application. `attrs` may hold nested graphs (control flow)."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "location", "graph", "errstate")

    def __init__(self, op, inputs, attrs, location=None, graph=None):
        self.op = op
        self.inputs = list(inputs)
        self.attrs = dict(attrs)
        self.outputs = []
        self.location = location
        self.graph = graph
        # NumPy's floating-point error handling where the function set its own with
        # np.errstate around the op (None: the caller's, when the graph runs).
        self.errstate = None

    @property
    def subgraphs(self):
        return [(k, v) for k, v in self.attrs.items() if isinstance(v, Graph)]

    def __repr__(self):
        return "<Node %s>" % self.op.name


class Graph:
    """An ordered list of nodes in SSA form, with explicit inputs, captures and outputs."""

    def __init__(self, name="graph", parent=None):
        self.name = name
        self.parent = parent
        # NumPy's error handling when the trace began: ops bound under another one (an
        # np.errstate block of the function) keep theirs (Node.errstate).
        self.errstate = np.geterr() if parent is None else parent.errstate
        self.inputs = []      # explicit placeholders
        self.captured = []    # [(outer Value, inner placeholder Value)]
        self._capture_map = {}
        self.nodes = []
        self.outputs = []
        self._cache = {}      # per-graph memo (e.g. shape dims), keyed by the caller
        # Tensor handles from outer graphs rebound while building this graph:
        # {id(handle): (handle, value before the first rebind)}. Control flow uses it to
        # carry item assignments on outer arrays out of branches and loop bodies.
        self.rebound = {}
        # While an iteration of a loop runs as Python in this graph (control_flow.while_loop):
        # every handle rebound meanwhile, as `rebound`, so that a restart of the loop can
        # point them back; else None.
        self.journal = None
        # For the graph of a function differentiated (runtime/differentiation.py): its values
        # replayed in the graph around it ({Value: Value}). A value of it kept elsewhere (an
        # attribute the function set) stands for its replayed copy there.
        self.replayed = None

    # -- building ------------------------------------------------------------------------
    def add_input(self, dtype, shape, kind=TENSOR):
        value = Value(dtype, shape, graph=self, kind=kind)
        self.inputs.append(value)
        return value

    @property
    def all_inputs(self):
        """Placeholders in calling order: explicit inputs, then captures."""
        return self.inputs + [inner for _, inner in self.captured]

    @property
    def captured_outer(self):
        return [outer for outer, _ in self.captured]

    def is_ancestor_of(self, graph):
        while graph is not None:
            if graph is self:
                return True
            graph = graph.parent
        return False

    def localize(self, value):
        """The value to use for `value` inside this graph, capturing it if it is outer."""
        if value.graph is self or value.graph is None:
            return value
        replayed = value.graph.replayed
        if replayed is not None and value in replayed:
            return self.localize(replayed[value])
        found = self._capture_map.get(value)
        if found is not None:
            return found
        if value.graph is None or not value.graph.is_ancestor_of(self.parent):
            raise ValueError(
                "a symbolic tensor (%s) from another trace, branch or loop body was used "
                "here; values created inside rt.cond branches or rt.while_loop bodies must be "
                "returned from them to be used outside" % value.type_str())
        outer = self.parent.localize(value)
        inner = Value(value.dtype, value.shape, graph=self, kind=value.kind)
        self.captured.append((outer, inner))
        self._capture_map[value] = inner
        if outer is not value:
            self._capture_map[outer] = inner
        return inner

    def capture_in_order(self, outer_values):
        """Make `captured` list exactly `outer_values` (values of the parent graph), in order,
        adding unused placeholders where needed. Used to align branches and loop graphs."""
        existing = {id(o): (o, i) for o, i in self.captured}
        new = []
        for outer in outer_values:
            if id(outer) in existing:
                new.append(existing[id(outer)])
            else:
                new.append((outer, Value(outer.dtype, outer.shape, graph=self, kind=outer.kind)))
        self.captured = new
        for outer, inner in new:
            self._capture_map.setdefault(outer, inner)

    def discard_unused_since(self, start, undone=False):
        """Drop pure nodes added at index >= start whose outputs nothing uses (e.g. a loop
        condition evaluated once before the loop turned out to be a graph loop). `undone`:
        what was built since is undone (an iteration a loop restart runs again), so nodes
        with effects and control flow go too: a print in it must not run twice."""
        cached = {id(v) for v in self._cache.values()}
        index = len(self.nodes) - 1
        while index >= start:
            node = self.nodes[index]
            used = any(id(out) in cached for out in node.outputs) or any(
                inp in node.outputs for later in self.nodes[index + 1:] for inp in later.inputs)
            if not used and (undone or not node.op.effect and not node.op.control_flow):
                del self.nodes[index]
            index -= 1

    def prune_unused_queries(self):
        """Drop shape queries and constants nothing uses (e.g. the dims of `x.shape` that
        were never read). Only ops that can never fail are dropped, so a graph still raises
        wherever the Python function would."""
        for node in self.nodes:
            for _, sub in node.subgraphs:
                sub.prune_unused_queries()
        used = {id(v) for v in self.outputs}
        kept = []
        for node in reversed(self.nodes):
            if node.op.name in _NEVER_FAILING_QUERIES and not any(
                    id(v) in used for v in node.outputs):
                continue
            kept.append(node)
            used.update(id(v) for v in node.inputs)
        kept.reverse()
        self.nodes = kept

    def may_fail_when_run(self):
        """Has it an op that may raise or has an effect when it runs (anything but the
        queries prune_unused_queries may drop)?"""
        return any(node.op.name not in _NEVER_FAILING_QUERIES for node in self.nodes)

    def add_node(self, op, inputs, attrs, output_types, location=None):
        node = Node(op, [self.localize(v) for v in inputs], attrs, location, graph=self)
        errstate = np.geterr()
        if errstate != self.errstate:
            node.errstate = errstate
        for out_type in output_types:
            dtype, shape, kind = out_type
            node.outputs.append(Value(dtype, shape, graph=self, node=node, kind=kind))
        self.nodes.append(node)
        return node

    # -- inspection ----------------------------------------------------------------------
    def walk(self):
        """Every node, nested graphs included, in print order."""
        for node in self.nodes:
            yield node
            for _, sub in node.subgraphs:
                yield from sub.walk()

    def numbering(self):
        """Stable names %0, %1, ... for every non-literal value, in print order."""
        names = {}

        def visit(graph):
            for value in graph.all_inputs:
                names.setdefault(value, len(names))
            for node in graph.nodes:
                for value in node.outputs:
                    names.setdefault(value, len(names))
                for _, sub in node.subgraphs:
                    visit(sub)

        visit(self)
        return names

    def __str__(self):
        return format_graph(self)

    def pretty(self):
        return format_graph(self)

    def __repr__(self):
        return "<Graph %s: %d nodes>" % (self.name, len(self.nodes))


_NEVER_FAILING_QUERIES = frozenset(["dim", "size", "constant"])


# --- printing ---------------------------------------------------------------------------------

_SHORT_DTYPES = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "float32": "f32", "float64": "f64", "longdouble": "f128",
    "complex64": "c64", "complex128": "c128",
}


def dtype_str(dtype):
    dtype = np.dtype(dtype)
    return _SHORT_DTYPES.get(dtype.name, dtype.name)


def shape_str(shape):
    if shape is None:
        return "*"
    return ",".join("?" if d is None else str(d) for d in shape)


def type_str(dtype, shape, kind=TENSOR):
    text = "%s[%s]" % (dtype_str(dtype), shape_str(shape))
    if kind == TENSOR_ARRAY:
        return "ta<%s>" % text
    return text


def format_literal(value):
    lit = value.literal
    if value.weak:
        return repr(lit)
    return "%s:%s" % (lit.item() if hasattr(lit, "item") else lit, dtype_str(value.dtype))


class Namer:
    """Maps values to printed names using a root graph's numbering."""

    def __init__(self, numbering):
        self.numbering = numbering

    def __call__(self, value):
        if isinstance(value, Value):
            if value.is_literal:
                return format_literal(value)
            number = self.numbering.get(value)
            return "%%%s" % (number if number is not None else "?")
        return repr(value)

    def typed(self, value):
        return "%s:%s" % (self(value), value.type_str())


def format_attr(value):
    if isinstance(value, np.dtype):
        return dtype_str(value)
    if isinstance(value, type) and issubclass(value, np.generic):
        return dtype_str(value)
    if isinstance(value, np.ndarray):
        return "<array %s>" % type_str(value.dtype, value.shape)
    return repr(value)


def format_node_rhs(node, namer):
    """`opname args, attr=value` for one node (ops may customise it)."""
    custom = getattr(node.op, "format", None)
    if custom is not None:
        return custom(node, namer)
    parts = [namer(v) for v in node.inputs]
    parts += ["%s=%s" % (k, format_attr(v)) for k, v in node.attrs.items()
              if not isinstance(v, Graph) and not k.startswith("_")]
    return ("%s %s" % (node.op.name, ", ".join(parts))).rstrip()


def format_node_head(node, namer):
    lhs = ", ".join(namer.typed(v) for v in node.outputs)
    rhs = format_node_rhs(node, namer)
    return "%s = %s" % (lhs, rhs) if lhs else rhs


def _graph_signature(graph, namer):
    params = [namer.typed(v) for v in graph.inputs]
    params += ["%s <- %s" % (namer.typed(inner), namer(outer)) for outer, inner in graph.captured]
    return "(%s)" % ", ".join(params)


def _format_into(lines, graph, namer, indent, label):
    pad = "  " * indent
    lines.append("%s%s%s {" % (pad, label, _graph_signature(graph, namer)))
    for node in graph.nodes:
        lines.append("%s  %s" % (pad, format_node_head(node, namer)))
        for key, sub in node.subgraphs:
            _format_into(lines, sub, namer, indent + 2, key)
    lines.append("%s  return %s" % (pad, ", ".join(namer(v) for v in graph.outputs)))
    lines.append("%s}" % pad)


def format_graph(graph):
    namer = Namer(graph.numbering())
    lines = []
    _format_into(lines, graph, namer, 0, "graph %s" % graph.name)
    return "\n".join(lines)


def describe_node(node, root=None):
    """One-line description with root numbering, plus where the user created it."""
    if root is None:
        root = node.graph
        while root is not None and root.parent is not None:
            root = root.parent
    namer = Namer(root.numbering() if root is not None else {})
    return "%s created at %s" % (format_node_head(node, namer),
                                 errors.format_location(node.location))


# --- the graph-building context --------------------------------------------------------------

# Each thread builds its own graphs: a thread running a staged function while another one
# traces must neither see nor add to that thread's graph.
_local = threading.local()
# The graphs being built by all threads: empty means nobody is tracing, the one test the
# per-call paths of staged functions make (cheaper than reading the thread's own stack).
_building = []


def current_graph():
    """The graph this thread is building, or None when running eagerly."""
    if not _building:
        return None
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


class building:
    """Context manager: nodes recorded inside (by this thread) go to `graph`."""

    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph

    def __enter__(self):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self.graph)
        _building.append(self.graph)
        return self.graph

    def __exit__(self, *exc):
        popped = _local.stack.pop()
        assert popped is self.graph
        _building.remove(popped)   # one list operation: atomic for the other threads
        return False
