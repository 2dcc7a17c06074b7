"""The graph as a Graphviz picture (DOT text; `autograph --dot` renders it): one box per op,
loop and branch bodies as nested clusters."""

import os

from runtime import errors
from runtime import graph as graph_module


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def graph_to_dot(graph):
    """Graphviz DOT text for a runtime Graph: one box per op, ellipses for inputs, and each
    nested graph (branch, loop condition, loop body) as a cluster inside its parent."""
    namer = graph_module.Namer(graph.numbering())
    lines = ["digraph %s {" % _quote(graph.name), "  compound=true;", "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];',
             "  label=%s; labelloc=t;" % _quote("graph " + graph.name)]
    ids = {}  # id(Value) -> dot node id producing it
    counter = [0]

    def new_id(prefix):
        counter[0] += 1
        return "%s%d" % (prefix, counter[0])

    def source_of(value):
        return ids.get(id(value))

    def where(node):
        location = errors.map_location(node.location)
        if not location:
            return ""
        filename, lineno, function_name = location
        return "\n%s:%s" % (os.path.basename(filename), lineno)

    def emit_graph(sub, indent, owner_id):
        pad = "  " * indent
        for value in sub.inputs:
            node_id = new_id("in")
            ids[id(value)] = node_id
            lines.append('%s%s [shape=ellipse, style=filled, fillcolor="#e8f0fe", label=%s];'
                         % (pad, node_id, _quote(namer.typed(value))))
            if owner_id is not None:
                lines.append('%s%s -> %s [style=dotted, arrowhead=none];'
                             % (pad, owner_id, node_id))
        for outer, inner in sub.captured:
            node_id = new_id("cap")
            ids[id(inner)] = node_id
            lines.append('%s%s [shape=ellipse, style=dashed, label=%s];'
                         % (pad, node_id, _quote(namer.typed(inner))))
            producer = source_of(outer)
            if producer is not None:
                lines.append('%s%s -> %s [style=dashed, label="capture"];'
                             % (pad, producer, node_id))
        for node in sub.nodes:
            node_id = new_id("op")
            outputs = ", ".join(namer.typed(v) for v in node.outputs)
            label = "%s%s%s" % (node.op.name, "\n" + outputs if outputs else "", where(node))
            control = bool(node.subgraphs)
            shape = "box, style=\"rounded,filled\", fillcolor=\"#fff4d6\"" if control else \
                "box"
            lines.append("%s%s [shape=%s, label=%s];" % (pad, node_id, shape, _quote(label)))
            for position, value in enumerate(node.inputs):
                producer = source_of(value)
                if producer is not None:
                    lines.append("%s%s -> %s;" % (pad, producer, node_id))
                elif value.is_literal:
                    literal_id = new_id("lit")
                    lines.append('%s%s [shape=plaintext, label=%s];'
                                 % (pad, literal_id, _quote(namer(value))))
                    lines.append("%s%s -> %s;" % (pad, literal_id, node_id))
            for value in node.outputs:
                ids[id(value)] = node_id
            for key, nested in node.subgraphs:
                lines.append("%ssubgraph %s {" % (pad, _quote("cluster_" + new_id("g"))))
                lines.append("%s  label=%s; style=rounded; color=\"#888888\";"
                             % (pad, _quote("%s: %s" % (node.op.name, key))))
                return_id = emit_graph(nested, indent + 1, node_id)
                lines.append("%s}" % pad)
                lines.append('%s%s -> %s [style=dotted];' % (pad, return_id, node_id))
        return_id = new_id("ret")
        lines.append('%s%s [shape=box, style=filled, fillcolor="#e6f4ea", label="return"];'
                     % (pad, return_id))
        for value in sub.outputs:
            producer = source_of(value)
            if producer is not None:
                lines.append("%s%s -> %s;" % (pad, producer, return_id))
        return return_id

    emit_graph(graph, 1, None)
    lines.append("}")
    return "\n".join(lines) + "\n"
