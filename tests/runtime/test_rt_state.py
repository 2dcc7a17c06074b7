"""TensorArray, Variable, rt.print and rt.Assert: eagerly and in graphs, same behaviour."""

import numpy as np
import pytest

import runtime as rt


# --- TensorArray ----------------------------------------------------------------------------

def squares(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, x[i] * x[i])
    _, ta = rt.while_loop(lambda i, ta: i < x.shape[0], body, (0, ta))
    return ta.stack(), ta.size(), ta.read(1)


def test_tensor_array_in_a_graph_loop_matches_eager(both):
    both(squares, np.arange(4.0))


def test_tensor_array_rows(both):
    def f(m):
        ta = rt.TensorArray(m.dtype if not rt.is_tensor(m) else m.dtype, size=m.shape[0])
        ta = ta.unstack(m)
        ta = ta.write(0, m[1] * 10)
        return ta.stack(), ta.read(2)
    both(f, np.arange(6.0).reshape(3, 2))


def test_fixed_size_tensor_array_write_out_of_range(both):
    def f(x):
        ta = rt.TensorArray(np.float64, size=2)
        ta = ta.write(2, x[0])
        return ta.stack()
    both(f, np.ones(3))
    with pytest.raises(IndexError):
        rt.function(f)(np.ones(3))


def test_tensor_array_element_shape_from_writes():
    @rt.function
    def f(x):
        ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)

        def body(i, ta):
            return i + 1, ta.write(i, x[i])
        _, ta = rt.while_loop(lambda i, ta: i < x.shape[0], body, (0, ta))
        return ta.stack()
    np.testing.assert_array_equal(f(np.arange(6.0).reshape(3, 2)), np.arange(6.0).reshape(3, 2))
    out = f.get_concrete_function(np.ones((3, 2))).outputs[0]
    assert out.shape == (None, None)


def test_tensor_array_read_before_write_is_invalid_argument():
    @rt.function
    def f(x):
        ta = rt.TensorArray(np.float64, size=3, element_shape=())
        return ta.read(1) + x
    with pytest.raises(rt.errors.InvalidArgumentError, match="before it was written"):
        f(np.float64(1))


# --- Variable -----------------------------------------------------------------------------

def test_variable_eager_api():
    v = rt.Variable([1.0, 2.0], name="w")
    v.assign_add(1)
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    v.assign([0.0, 1.0])
    v -= 1
    np.testing.assert_array_equal(v.read_value(), [-1.0, 0.0])
    np.testing.assert_array_equal(np.exp(v), np.exp([-1.0, 0.0]))
    np.testing.assert_array_equal(v + 1, [0.0, 1.0])
    assert v.dtype == np.float64 and v.shape == (2,)


def test_variable_state_is_shared_by_graphs_and_eager_code():
    counter = rt.Variable(0, dtype=np.int64)

    @rt.function
    def count(x):
        def body(i):
            counter.assign_add(1)
            return i + 1
        rt.while_loop(lambda i: i < x.shape[0], body, (0,))
        return counter + 0

    assert count(np.ones(3)) == 3
    assert counter.numpy() == 3
    counter.assign(10)
    assert count(np.ones(2)) == 12
    assert count.trace_count == 1


def test_variable_as_operand_in_a_graph():
    w = rt.Variable(np.array([2.0, 3.0]))

    @rt.function
    def f(x):
        return w * x + np.exp(w) + w[0]
    np.testing.assert_allclose(f(np.ones(2)), np.array([2.0, 3.0]) + np.exp([2.0, 3.0]) + 2.0)
    w.assign([1.0, 1.0])
    np.testing.assert_allclose(f(np.ones(2)), np.array([1.0, 1.0]) + np.e + 1.0)


def test_variable_assign_in_graph_then_read():
    v = rt.Variable(1.0)

    @rt.function
    def f(x):
        v.assign(x)
        v.assign_sub(0.5)
        return v.read_value() * 2
    assert f(np.float64(3.0)) == 5.0 and v.numpy() == 2.5


def test_variable_results_are_copies():
    v = rt.Variable(np.zeros(2))
    out = rt.function(lambda x: v.read_value())(np.ones(1))
    out[0] = 5.0
    assert v.numpy()[0] == 0.0


# --- print ----------------------------------------------------------------------------------

def test_print_formats_like_python_print(both):
    def f(x, i):
        rt.print("values:", x, x[i], x.sum() > 0, i, sep=" | ")
        rt.print(x.astype(np.int32), end="!\n")
        rt.print("plain", 1, None)
        return x
    both(f, np.array([0.5, 1.25, 3.0]), np.int64(1))


def test_print_happens_when_the_graph_runs(capsys):
    f = rt.function(lambda x: rt.print("x =", x))
    f(np.float64(1))
    f(np.float64(2))
    assert capsys.readouterr().out == "x = 1.0\nx = 2.0\n"


def test_print_in_loop_body(both):
    def f(n):
        def body(i):
            rt.print("step", i)
            return i + 1
        return rt.while_loop(lambda i: i < n, body, (0,))
    both(f, np.int64(3))


# --- Assert ---------------------------------------------------------------------------------

def test_assert_passes_and_fails_like_eager(both):
    def f(x):
        rt.Assert(x.min() >= 0, "x must be non-negative")
        return np.sqrt(x)
    both(f, np.arange(3.0))
    both(f, np.array([1.0, -1.0]))


def test_failed_assert_message_and_location():
    @rt.function
    def f(x):
        rt.Assert(x > 0, "x must be positive", data=[x])
        return x
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        f(np.float64(-2))
    message = str(info.value)
    assert message.startswith("x must be positive -2.0")
    assert "While executing assert" in message and "test_rt_state.py" in message


def test_list_like_tensor_array_infers_and_promotes_its_dtype(both):
    def f(x, n):
        ta = rt.TensorArray(dynamic_size=True)

        def body(i, ta):
            ta = ta.write(i, i)                 # ints first ...
            ta = ta.write(i + n, x[i] * 0.5)    # ... then floats: the list becomes float64
            return i + 1, ta
        _, ta = rt.while_loop(lambda i, ta: i < n, body, (0, ta))
        return ta.stack()
    result, _ = both(f, np.arange(3.0), np.int64(3))
    assert result.dtype == np.float64


def test_list_like_tensor_array_of_ints(both):
    def f(n):
        ta = rt.TensorArray(dynamic_size=True)
        _, ta = rt.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)),
                              (0, ta))
        return ta.stack()
    result, _ = both(f, np.int64(4))
    assert result.dtype == np.int64
