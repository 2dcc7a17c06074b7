"""The graph as a Graphviz picture (DOT text; `autograph --dot` renders it): one box per op,
loop and branch bodies as nested clusters, bodies nested too deep drawn as one summary box.

Boxes are labelled like the printed graph (`add %3, 1`): literals and widely read values
are named there rather than drawn as nodes and edges, because side nodes beside every op
and edges from the top of the picture to every step are what made model pictures many
thousands of pixels wide (and took Graphviz minutes to lay out).

DOT puts a node into every subgraph that mentions it, so each edge is written in the
innermost cluster that holds both of its ends: an edge written inside a cluster would
pull an outer node into that cluster.
"""

import collections
import os

from runtime import errors
from runtime import graph as graph_module

# The default depth is the deepest one whose picture has at most this many nodes: about
# what a screen shows readably (a loop with a dozen captures and a hundred ops fits).
MAX_NODES = 150
# A value read more often than this (a model's weights, a shape every step uses) has no
# edges: its readers name it in their labels, and its own label says how often it is used.
MAX_EDGES_PER_VALUE = 8
# How many op kinds the summary box of a collapsed body names.
SUMMARY_KINDS = 4

_INPUT = 'shape=ellipse, style=filled, fillcolor="#e8f0fe"'
_CAPTURE = "shape=ellipse, style=dashed"
_CONTROL = 'shape=box, style="rounded,filled", fillcolor="#fff4d6"'
_COLLAPSED = _CONTROL + ", peripheries=2"
_RETURN = 'shape=box, style=filled, fillcolor="#e6f4ea"'


def graph_to_dot(graph, depth=None):
    """DOT text for a runtime Graph: ellipses for inputs, a box per op, and each nested graph
    (branch, loop condition, loop body) as a cluster inside its parent, up to `depth` levels
    of nesting (0: the top-level graph only). Deeper control-flow ops are one box that
    summarises their bodies. `depth=None` picks the deepest level whose picture has at most
    MAX_NODES nodes (every level, for small graphs)."""
    if depth is not None:
        return _draw(graph, depth).text()
    for depth in range(nesting_depth(graph), -1, -1):
        writer = _draw(graph, depth)
        if writer.node_count <= MAX_NODES:
            break
    return writer.text()


def _draw(graph, depth):
    writer = _DotWriter(graph, depth)
    writer.emit_graph(graph, writer.root, 0, owner_id=None)
    return writer


def nesting_depth(graph):
    """How many levels of nested graphs `graph` has (0: no control flow)."""
    return max((1 + nesting_depth(sub) for node in graph.nodes for _, sub in node.subgraphs),
               default=0)


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _where(node):
    """`model.py:12`: the user's line that created `node` ("" if unknown)."""
    location = errors.map_location(node.location)
    if not location:
        return ""
    filename, lineno, _ = location
    return "%s:%s" % (os.path.basename(filename), lineno)


def _summary(key, sub):
    """`body: 7 ops: 3 add, 2 matmul, get_item, ...` for a collapsed nested graph."""
    kinds = collections.Counter(node.op.name for node in sub.walk())
    total = sum(kinds.values())
    if not total:
        return "%s: no ops" % key
    named = ["%d %s" % (n, name) if n > 1 else name
             for name, n in kinds.most_common(SUMMARY_KINDS)]
    if len(kinds) > SUMMARY_KINDS:
        named.append("...")
    return "%s: %d op%s: %s" % (key, total, "" if total == 1 else "s", ", ".join(named))


def _reads(graph, depth, counts):
    """Counts, per value id, how often the picture reads it (ops, returns, captures)."""
    for outer, _ in graph.captured:
        counts[id(outer)] += 1
    for node in graph.nodes:
        expanded = depth > 0 and node.subgraphs
        for value in _split_captures(node)[0] if expanded else node.inputs:
            counts[id(value)] += 1
        if expanded:
            for _, sub in node.subgraphs:
                _reads(sub, depth - 1, counts)
    for value in graph.outputs:
        counts[id(value)] += 1
    return counts


def _split_captures(node):
    """A node's inputs as (operands, values its nested graphs capture): a control-flow
    node's inputs end with its nested graphs' captures (runtime/ops/control.py)."""
    subgraphs = node.subgraphs
    captured = [outer for outer, _ in subgraphs[0][1].captured] if subgraphs else []
    split = len(node.inputs) - len(captured)
    if not captured or any(a is not b for a, b in zip(node.inputs[split:], captured)):
        return node.inputs, []
    return node.inputs[:split], node.inputs[split:]


class _Cluster:
    """One DOT block (the whole graph or a `subgraph cluster_N`): its node statements, its
    child clusters and the edges whose ends both lie inside it."""

    def __init__(self, name, label, parent):
        self.name = name
        self.label = label
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.nodes = []
        self.children = []
        self.edges = []

    def write(self, lines, indent):
        pad = "  " * indent
        lines.extend(pad + statement for statement in self.nodes)
        for child in self.children:
            lines.append("%ssubgraph %s {" % (pad, _quote(child.name)))
            lines.append('%s  label=%s; style=rounded; color="#888888";'
                         % (pad, _quote(child.label)))
            child.write(lines, indent + 1)
            lines.append("%s}" % pad)
        lines.extend(pad + statement for statement in self.edges)


class _DotWriter:
    """Draws one graph at one depth: `emit_graph` fills the clusters, `text` writes them."""

    def __init__(self, graph, depth):
        self.graph = graph
        self.depth = depth
        self.namer = graph_module.Namer(graph.numbering())
        self.read_counts = _reads(graph, depth, collections.Counter())
        self.root = _Cluster(None, None, None)
        self.producers = {}   # id(Value) -> DOT id of the node that stands for it
        self.cluster_of = {}  # DOT id -> the cluster that declares it
        self.edges = set()    # (tail, head, attributes) already written
        self.counter = 0
        self.node_count = 0

    def add_node(self, cluster, prefix, attributes, label):
        self.counter += 1
        self.node_count += 1
        node_id = "%s%d" % (prefix, self.counter)
        cluster.nodes.append("%s [%s, label=%s];" % (node_id, attributes, _quote(label)))
        self.cluster_of[node_id] = cluster
        return node_id

    def add_edge(self, tail, head, attributes=""):
        """The edge tail -> head, written in the innermost cluster that holds both."""
        if (tail, head, attributes) in self.edges:
            return  # one edge per pair of boxes, however many values pass between them
        self.edges.add((tail, head, attributes))
        a, b = self.cluster_of[tail], self.cluster_of[head]
        while a is not b:
            if a.depth >= b.depth:
                a = a.parent
            else:
                b = b.parent
        a.edges.append("%s -> %s%s;" % (tail, head, " [%s]" % attributes if attributes else ""))

    def add_read(self, value, reader_id, attributes=""):
        """The edge from the node that stands for `value` to its reader, unless the reader's
        label names it instead (a literal, or a value read all over the picture)."""
        producer = self.producers.get(id(value))
        if producer is not None and self.read_counts[id(value)] <= MAX_EDGES_PER_VALUE:
            self.add_edge(producer, reader_id, attributes)

    def usage(self, value):
        """` (used 40 times)` for a value drawn without edges, else ""."""
        reads = self.read_counts[id(value)]
        return " (used %d times)" % reads if reads > MAX_EDGES_PER_VALUE else ""

    def add_placeholder(self, value, cluster, prefix, attributes, label):
        node_id = self.add_node(cluster, prefix, attributes, label)
        self.producers[id(value)] = node_id
        return node_id

    def emit_graph(self, sub, cluster, level, owner_id, above=None):
        """Draws `sub` into `cluster`, below the node `above` (when given); returns the id of
        its return box."""
        for value in sub.inputs:
            label = self.namer.typed(value) + self.usage(value)
            node_id = self.add_placeholder(value, cluster, "in", _INPUT, label)
            if owner_id is not None:
                self.add_edge(owner_id, node_id, "style=dotted, arrowhead=none")
            if above not in (None, owner_id):
                self.add_edge(above, node_id, "style=invis")
        for outer, inner in sub.captured:
            if not self.read_counts[id(inner)]:
                continue  # both graphs of a loop capture the same values; few read them all
            label = "%s <- %s%s" % (self.namer.typed(inner), self.namer(outer), self.usage(inner))
            node_id = self.add_placeholder(inner, cluster, "cap", _CAPTURE, label)
            self.add_read(outer, node_id, "style=dashed")
            if above is not None:
                self.add_edge(above, node_id, "style=invis")
        for node in sub.nodes:
            self.emit_node(node, cluster, level)
        return_id = self.add_node(cluster, "ret", _RETURN, "return %s" % ", ".join(
            self.namer(value) for value in sub.outputs))
        for value in sub.outputs:
            self.add_read(value, return_id)
        if above is not None:
            self.add_edge(above, return_id, "style=invis")  # also when nothing is read
        return return_id

    def emit_node(self, node, cluster, level):
        lines = [graph_module.format_node_rhs(node, self.namer)]
        if node.outputs:
            lines.append(", ".join(self.namer.typed(value) + self.usage(value)
                                   for value in node.outputs))
        lines.append(_where(node))
        subgraphs = node.subgraphs
        collapsed = bool(subgraphs) and level >= self.depth
        operands, captured = _split_captures(node)
        if collapsed:
            lines.extend(_summary(key, nested) for key, nested in subgraphs)
            if captured:
                lines.append("reads " + ", ".join(self.namer(value) for value in captured))
        attributes = _COLLAPSED if collapsed else _CONTROL if subgraphs else "shape=box"
        node_id = self.add_node(cluster, "op", attributes, "\n".join(filter(None, lines)))
        for value in operands:
            self.add_read(value, node_id)
        for value in captured:
            # Expanded, the bodies draw what they capture; unseen, the edge still puts the
            # op below the values it reads.
            self.add_read(value, node_id, "style=dashed" if collapsed else "style=invis")
        for value in node.outputs:
            self.producers[id(value)] = node_id
        if collapsed:
            return
        # The bodies hang below their op, one under the other (a loop's condition above its
        # body, a branch's then above its else): side by side, they made pictures wide.
        above = node_id
        for key, nested in subgraphs:
            self.counter += 1
            child = _Cluster("cluster_g%d" % self.counter, "%s: %s" % (node.op.name, key),
                             cluster)
            cluster.children.append(child)
            return_id = self.emit_graph(nested, child, level + 1, node_id, above)
            self.add_edge(return_id, node_id, "style=dotted, constraint=false")
            above = return_id

    def text(self):
        lines = ["digraph %s {" % _quote(self.graph.name), "  compound=true;", "  rankdir=TB;",
                 '  node [fontname="Helvetica", fontsize=10];',
                 '  edge [fontname="Helvetica", fontsize=9];',
                 "  label=%s; labelloc=t;" % _quote("graph " + self.graph.name)]
        self.root.write(lines, 1)
        lines.append("}")
        return "\n".join(lines) + "\n"
