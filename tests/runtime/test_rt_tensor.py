"""rt.Tensor as a user sees it while tracing: types, shapes, handles, errors."""

import numpy as np
import pytest

import runtime as rt
from runtime.graph import Graph, building


def test_types_and_shapes():
    seen = {}

    @rt.function
    def f(x):
        seen.update(dtype=x.dtype, static=x.static_shape, ndim=x.ndim, shape=x.shape,
                    size=x.size, row=x[0], repr=repr(x), is_tensor=rt.is_tensor(x))
        return x
    f(np.ones((2, 3), dtype=np.float32))
    assert seen["dtype"] == np.float32 and seen["static"] == (None, None) and seen["ndim"] == 2
    assert all(rt.is_tensor(d) and d.dtype == np.int64 and d.ndim == 0 for d in seen["shape"])
    assert rt.is_tensor(seen["size"]) and seen["row"].static_shape == (None,)
    assert seen["repr"] == "<rt.Tensor f32[?,?]>" and seen["is_tensor"]
    assert not rt.is_tensor(np.ones(2)) and not rt.is_tensor(3.0)


def test_symbolic_dims_are_recorded_once_per_array():
    @rt.function
    def f(x):
        return x.shape[0] + x.shape[0] + len(x.shape)
    graph = f.get_concrete_function(np.ones((4, 2))).graph
    # One dim per array and axis (x.shape[1] is unused and pruned).
    assert [n.op.name for n in graph.nodes] == ["dim", "add", "add"]
    assert f(np.ones((4, 2))) == 10


@pytest.mark.parametrize("convert", [bool, int, float, complex, lambda t: [1, 2][t],
                                     lambda t: range(t)])
def test_python_conversions_raise_type_error_saying_what_to_do(convert):
    with pytest.raises(TypeError, match="rt.cond|rt.range|ag.function"):
        rt.function(lambda x: convert(x[0]))(np.arange(3))


def test_rebind_points_every_alias_at_the_new_version():
    graph = Graph("g")
    with building(graph):
        x = rt.Tensor(graph.add_input(np.float64, (3,)))
        alias = x
        x.rebind(x + 1)
        assert alias._value is x._value and alias._value.node.op.name == "add"
        assert graph.rebound == {}          # x belongs to this graph: nothing to carry


def test_rebind_of_an_outer_handle_inside_a_nested_graph_is_logged():
    outer = Graph("outer")
    with building(outer):
        x = rt.Tensor(outer.add_input(np.float64, (3,)))
        original = x._value
        inner = Graph("inner", parent=outer)
        with building(inner):
            x[0] = 1.0
            assert inner.rebound[id(x)] == (x, original)
            assert x._value.graph is inner


def test_tensors_are_hashable_by_identity():
    @rt.function
    def f(x):
        table = {x: 1}
        return table[x] + x
    np.testing.assert_array_equal(f(np.zeros(2)), [1.0, 1.0])


def test_methods_like_ndarray(both):
    def f(x):
        return (x.sum(), x.mean(axis=0), x.max(keepdims=True), x.argmax(), x.cumsum(),
                x.astype(np.int32), x.reshape(-1), x.T, x.copy(), x.ravel(),
                x.any(), x.all(), x.prod(), x.std(), x.var(ddof=1), x.min(axis=1))
    both(f, np.arange(6.0).reshape(2, 3) + 1)


def test_a_handle_made_without_a_value_takes_materialize_on_first_use():
    class Lazy(rt.Tensor):
        __slots__ = ()

        def __init__(self):   # no value until one is needed
            pass

        def materialize(self):
            return rt.arange(0, 3, 1, dtype=np.int64)

    @rt.function
    def f(x):
        lazy = Lazy()
        return x + lazy, lazy.graph_value is lazy.graph_value

    result, same = f(np.ones(3, dtype=np.int64))
    np.testing.assert_array_equal(result, [1, 2, 3])
    assert same


def test_a_plain_tensor_has_a_graph_value_and_rebinds_publicly():
    graph = Graph("g")
    with building(graph):
        x = rt.Tensor(graph.add_input(np.float64, (3,)))
        first = x.graph_value
        x.rebind(x * 2)
        assert x.graph_value is not first and x.graph_value.node.op.name == "multiply"
