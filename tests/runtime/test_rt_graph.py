"""The graph IR: printed form, numbering, explicit captures, source locations, op registry."""

import numpy as np
import pytest

import runtime as rt
from runtime import errors, graph as graph_module, ops


def _graph(fn, *args):
    return rt.function(fn).get_concrete_function(*args).graph


def test_printed_form_is_typed_one_op_per_line():
    def f(x, y):
        return x + y * 2.0
    text = str(_graph(f, np.ones(3), np.float32(1)))
    assert text == (
        "graph f(%0:f64[?], %1:f32[]) {\n"
        "  %2:f32[] = multiply %1, 2.0\n"
        "  %3:f64[?] = add %0, %2\n"
        "  return %3\n"
        "}")


def test_numbering_is_stable_across_traces():
    def f(x):
        return np.exp(x[1:]) - x.sum()
    assert str(_graph(f, np.ones(3))) == str(_graph(f, np.ones(3)))


def test_nested_graphs_are_indented_and_captures_explicit():
    def f(x, n):
        def body(i, total):
            return i + 1, total + x[i]
        return rt.while_loop(lambda i, total: i < n, body, (0, 0.0))[1]
    text = str(_graph(f, np.ones(3), np.int64(3)))
    assert text == (
        "graph f(%0:f64[?], %1:i64[]) {\n"
        "  %2:i64[], %3:f64[] = while 0:i64, 0.0:f64\n"
        "    cond(%4:i64[], %5:f64[], %6:i64[] <- %1, %7:f64[?] <- %0) {\n"
        "      %8:bool[] = less %4, %6\n"
        "      return %8\n"
        "    }\n"
        "    body(%9:i64[], %10:f64[], %11:i64[] <- %1, %12:f64[?] <- %0) {\n"
        "      %13:i64[] = add %9, 1\n"
        "      %14:f64[] = get_item %12[%9]\n"
        "      %15:f64[] = add %10, %14\n"
        "      return %13, %15\n"
        "    }\n"
        "  return %3\n"
        "}")


def test_indexing_and_creation_print_readably():
    def f(x, i):
        out = rt.zeros((x.shape[0], 2))
        out[i, 1:] = x[i:, None][0]
        return out
    text = str(_graph(f, np.ones(3), np.int64(1)))
    assert "zeros (%2, 2), dtype=float64" in text
    assert "get_item %0[%1:, None]" in text
    assert "set_item %3[%1, 1:], " in text


def test_nested_graph_values_are_captured_through_every_level():
    def f(x, n):
        def outer(i):
            def inner(j):
                return j + x[0]
            return rt.while_loop(lambda j: j < n, inner, (i * 1.0,))[0] + 1
        return rt.while_loop(lambda i: i < n, outer, (0.0,))
    graph = _graph(f, np.ones(3), np.float64(3))
    outer_node = graph.nodes[-1]
    body = outer_node.attrs["body"]
    inner_node = [node for node in body.nodes if node.op.name == "while"][0]
    # Every value a nested graph reads is one of its own inputs or a literal.
    for g in (graph, body, inner_node.attrs["body"], inner_node.attrs["cond"]):
        defined = set(map(id, g.all_inputs))
        for node in g.nodes:
            for value in node.inputs:
                assert value.is_literal or id(value) in defined
            defined.update(map(id, node.outputs))
    assert [o for o, _ in inner_node.attrs["body"].captured] == inner_node.inputs[1:]


def test_nodes_record_the_user_source_line():
    def f(x):
        y = x * 2           # the multiply is created here
        return y
    graph = _graph(f, np.ones(2))
    filename, lineno, function = graph.nodes[0].location
    assert filename == __file__ and function == "f"
    assert "the multiply is created here" in open(filename).read().splitlines()[lineno - 1]


def test_location_mapper_rewrites_locations_lazily():
    graph = _graph(lambda x: x + 1, np.ones(2))
    node = graph.nodes[0]
    previous = errors.set_location_mapper(lambda f, l, n: ("original.py", 42, "user_fn"))
    try:
        assert "created at original.py:42 in user_fn" in graph_module.describe_node(node)
    finally:
        errors.set_location_mapper(previous)
    assert "original.py" not in graph_module.describe_node(node)


def test_location_mapper_returning_none_keeps_the_raw_frame():
    graph = _graph(lambda x: x + 1, np.ones(2))
    previous = errors.set_location_mapper(lambda *loc: None)
    try:
        assert __file__ in graph_module.describe_node(graph.nodes[0])
    finally:
        errors.set_location_mapper(previous)


def test_every_op_declares_inference_and_a_numpy_kernel():
    for name, op in ops.all_ops().items():
        assert callable(op.infer), name
        if not op.control_flow:
            assert op.kernel is not None or op.make_kernel is not None, name
        else:
            assert callable(op.plan_control), name
        assert op.numba is None or callable(op.numba), name
        # (The interpreter writes an update into its input as the augmented assignment.)
        assert (op.into_kernel is None) == (op.augmented is None), name


def test_numba_lowering_slot_is_filled_beside_the_op():
    op = ops.get("hypot")
    previous = op.numba
    try:
        @op.def_numba
        def lower(*args):
            return "np.hypot(%s, %s)" % args
        assert op.numba is lower
    finally:
        op.numba = previous


def test_ops_cannot_be_defined_twice():
    with pytest.raises(ValueError):
        ops.defop("add", infer=lambda x: [])
