"""The graph as a Graphviz picture: every node in its own cluster, bodies collapsed below a
depth, widely read values named rather than drawn. (tests/test_cli.py renders pictures.)"""

import re

import numpy as np

import runtime as rt
from runtime import graph as graph_module
from runtime import graph_dot


def _graph(fn, *args):
    return rt.function(fn).get_concrete_function(*args).graph


def loop_with_branch(x):
    n = x.shape[0]

    def cond(i, s):
        return i < n

    def body(i, s):
        s = rt.cond(x[i] > 0, lambda: s + x[i], lambda: s)
        return i + 1, s

    total = rt.while_loop(cond, body, (0, 0.0))[1]
    return total * 2.0


def unrolled_steps(h, W):
    # A Python loop: 40 branches in a row, each reading W (the shape of a decoder).
    for _ in range(40):
        h = rt.cond(np.sum(h) > 0, lambda: np.tanh(W @ h), lambda: h)
    return h


def _parse(dot_text):
    """(declared, mentions) of DOT text as graph_to_dot writes it (one statement a line):
    the cluster labels around each node's declaration, and around each edge that names it."""
    declared, mentions, stack = {}, [], []
    for line in dot_text.splitlines():
        line = line.strip()
        if line.startswith("subgraph "):
            stack.append(None)
        elif line.startswith("label=") and stack and stack[-1] is None:
            stack[-1] = re.match(r'label="([^"]*)"', line).group(1)
        elif line == "}":
            if stack:
                stack.pop()
        elif re.match(r"^\w+ -> \w+", line):
            tail, head = re.match(r"^(\w+) -> (\w+)", line).groups()
            mentions += [(tail, tuple(stack)), (head, tuple(stack))]
        elif re.match(r"^\w+ \[", line) and not line.startswith(("node ", "edge ")):
            node_id = line.split()[0]
            label = re.search(r'label="((?:[^"\\]|\\.)*)"', line).group(1)
            declared[node_id] = (tuple(stack), label)
    return declared, mentions


def _expected_clusters(graph):
    """The cluster labels each value name (%N) belongs to, from the graph's nesting."""
    namer = graph_module.Namer(graph.numbering())
    expected = {}

    def visit(sub, path):
        for value in sub.all_inputs:
            expected[namer(value)] = path
        for node in sub.nodes:
            for value in node.outputs:
                expected[namer(value)] = path
            for key, nested in node.subgraphs:
                visit(nested, path + ("%s: %s" % (node.op.name, key),))

    visit(graph, ())
    return expected


def test_every_node_is_drawn_in_its_own_cluster():
    graph = _graph(loop_with_branch, np.ones(4))
    declared, mentions = _parse(graph_dot.graph_to_dot(graph))
    expected = _expected_clusters(graph)
    checked = set()
    for node_id, (path, label) in declared.items():
        name = re.search(r"%\d+", label)
        if node_id.startswith(("op", "in", "cap")) and name:
            assert path == expected[name.group()], (node_id, label)
            checked.add(expected[name.group()])
    assert checked == {(), ("while: cond",), ("while: body",),
                       ("while: body", "cond: then_branch"), ("while: body", "cond: else_branch")}
    # DOT puts a node into every cluster that mentions it: an edge may only be written in
    # the node's own cluster or around it, never inside a cluster the node is not in.
    for node_id, path in mentions:
        own = declared[node_id][0]
        assert own[:len(path)] == path, "%s (in %s) is mentioned inside %s" % (node_id, own, path)


def test_top_level_ops_are_in_no_cluster():
    graph = _graph(loop_with_branch, np.ones(4))
    declared, mentions = _parse(graph_dot.graph_to_dot(graph))
    top_level = {node_id for node_id, (_, label) in declared.items()
                 if re.split(r"\W", label)[0] in ("dim", "while", "multiply")}
    assert len(top_level) == 3
    # The old writer put the edges into the loop's clusters, which drew the loop's own op
    # and the ops before it inside "while: cond".
    assert {path for node_id, path in mentions if node_id in top_level} == {()}


def test_depth_collapses_deeper_bodies_into_one_box():
    graph = _graph(loop_with_branch, np.ones(4))
    flat = graph_dot.graph_to_dot(graph, depth=0)
    assert "subgraph" not in flat
    assert "\\nbody: 6 ops: 2 get_item, 2 add, greater, cond\\nreads %1, %0" in flat
    one_level = graph_dot.graph_to_dot(graph, depth=1)
    assert 'label="while: body"' in one_level and "cond: then_branch" not in one_level
    assert "then_branch: 2 ops: get_item, add" in one_level
    assert graph_dot.graph_to_dot(graph) == graph_dot.graph_to_dot(graph, depth=2)


def test_default_depth_keeps_a_model_sized_picture_small():
    graph = _graph(unrolled_steps, np.ones(3), np.eye(3))
    assert graph_dot.nesting_depth(graph) == 1
    text = graph_dot.graph_to_dot(graph)
    assert "subgraph" not in text  # 40 branches with their bodies would be ~400 boxes
    # W (%1) is read by all 40 branches: they name it, rather than 40 edges from the top.
    assert "%1:f64[?,?] (used 40 times)" in text
    assert not re.search(r"^\s*in2 ->", text, re.M)
    assert len(re.findall(r"reads %1, ", text)) == 40


def test_collapsed_box_reads_its_captures():
    graph = _graph(loop_with_branch, np.ones(4))
    declared, _ = _parse(graph_dot.graph_to_dot(graph, depth=0))
    text = graph_dot.graph_to_dot(graph, depth=0)
    while_id = next(i for i, (_, label) in declared.items() if label.startswith("while"))
    x_id = next(i for i, (_, label) in declared.items() if label.startswith("%0:"))
    assert re.search(r"^\s*%s -> %s \[style=dashed\];" % (x_id, while_id), text, re.M)
