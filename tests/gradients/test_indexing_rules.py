"""Derivative rules of indexing (get_item, set_item, np.add.at / np.subtract.at) and of
tensor arrays, checked against central differences (gradcheck.check_grad): the wide tables
on the numpy backend, a representative subset on numba (compiles are slow)."""

import re

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from gradcheck import check_grad
from runtime.autodiff import NotDifferentiableError
from runtime.ops import gradients as d
from runtime.ops.registry import get

NUMPY = ("numpy",)
X = np.linspace(-1.0, 2.0, 12).reshape(3, 4)
V = np.linspace(0.5, 1.5, 4)


# --- reads: x[index] --------------------------------------------------------------------------

READS = {
    "int": lambda x: np.tanh(x[1]).sum(),
    "int_int": lambda x: x[1, 2] * x[0, 0] + x[-1, -2],
    "slice": lambda x: np.tanh(x[1:3]).sum(),
    "strided": lambda x: np.tanh(x[:, ::2]).sum() + x[::-2, 1].sum(),
    "repeated_ints": lambda x: np.tanh(x[np.array([0, 2, 0, 0])]).sum(),
    "negative_ints": lambda x: (x[np.array([-1, 0, -1])] * x[0]).sum(),
    "ints_and_slice": lambda x: np.tanh(x[np.array([2, 0, 2]), 1:]).sum(),
    "two_int_arrays": lambda x: np.tanh(x[np.array([2, 0, 2]), np.array([1, 1, 3])]).sum(),
    "int_array_last": lambda x: np.tanh(x[..., np.array([3, 3, 0])]).sum(),
    "mask": lambda x: np.tanh(x[x > 0.5]).sum(),
    "mask_rows": lambda x: np.tanh(x[x[:, 0] > -0.5]).sum(),
    "new_axes": lambda x: np.tanh(x[..., None] * x[:, None, :]).sum(),
    "bounds_from_shape": lambda x: np.tanh(x[1:x.shape[0], :x.shape[1] - 1]).sum(),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_read(name):
    check_grad(READS[name], X, backends=NUMPY)


def reads_together(x):
    """Basic, repeated integer and boolean reads in one graph (one numba compile)."""
    return (np.tanh(x[1]).sum() + x[1, 2] * x[0, 0] + np.tanh(x[:, ::2]).sum()
            + np.tanh(x[np.array([0, 2, 0, 0])]).sum() + np.tanh(x[x > 0.5]).sum()
            + np.tanh(x[np.array([2, 0, 2]), 1:]).sum()
            + np.tanh(x[..., None] * x[:, None, :]).sum())


def test_reads_numba():
    check_grad(reads_together, X, backends=("numba",))


def scalar_reads(x):
    s = x[0, 1] * 2.0            # a 0-d value: new axes and `...` on it
    return np.tanh(s[None] * s).sum() + np.tanh(s[...]) * s[()]


def test_reads_of_a_scalar():
    check_grad(scalar_reads, X)


def reads_in_a_graph_loop(x):
    t = 0.0
    for i in range(x.shape[0]):          # a graph loop: i is symbolic
        t = t + np.tanh(x[i, i:]).sum() * x[i, x.shape[1] - 1 - i]
    return t


def test_reads_at_symbolic_indices_in_a_loop():
    check_grad(reads_in_a_graph_loop, X)


def test_read_float32_gradient_dtype():
    x = X.astype(np.float32)
    for backend in ("numpy", "numba"):
        g = ag.grad(lambda x: np.tanh(x[np.array([0, 0, 1])]).sum(), backend=backend)(x)
        assert g.dtype == np.float32
        expected = np.zeros((3, 4))
        np.add.at(expected, np.array([0, 0, 1]), 1 - np.tanh(x[np.array([0, 0, 1])]) ** 2)
        np.testing.assert_allclose(g, expected, rtol=1e-6)


# --- writes: x[index] = value -----------------------------------------------------------------

def preallocated(x, w):
    out = np.zeros(3)
    for i in range(3):                   # a Python loop: unrolled
        out[i] = np.tanh(x[i] * w).sum()
    return (out * out).sum()


def preallocated_graph_loop(x, w):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):          # a graph loop
        out[i] = np.tanh(x[i] * w).sum()
    return (out * out).sum()


def broadcast_writes(x, v):
    y = x * 1.0
    y[1:] = v                            # (4,) into (2, 4)
    y[:, 0] = v[0]                       # a scalar into a column
    return np.tanh(y * x).sum()


def write_with_leading_ones(x, v):
    y = x * 1.0
    y[0] = v[None, :]                    # (1, 4) into (4,): the leading 1 is dropped
    return np.tanh(y * x).sum()


def repeated_index_write(x, v):
    y = x * 1.0
    y[np.array([0, 2, 0])] = v * np.array([[1.0], [2.0], [3.0]])   # row 0: the last write
    return np.tanh(y * x).sum()


def repeated_scalar_write(x, v):
    y = x * 1.0
    y[np.array([0, 0]), np.array([1, 1])] = v[0]    # written twice, lands once
    return np.tanh(y * x).sum()


def mask_write(x, v):
    y = x * 1.0
    y[x > 0.5] = v[1]
    return np.tanh(y * x).sum()


def write_next_to_reads(x, v):
    y = x * 1.0
    y[0] = y[1] * 2                      # reads and writes of one array
    y[1] = y[0] * y[2]
    return np.tanh(y * v).sum()


def copy_then_write(x, v):
    y = x.copy()
    y[0] = y[1] * 2
    return np.tanh(y * v).sum()


def scalar_write(x, v):
    y = np.zeros(())
    y[()] = np.tanh(x[1, 1]) * v[0]
    y[...] = y * x[0, 0]
    return y * x[2, 2]


WRITES = {f.__name__: f for f in (
    preallocated, preallocated_graph_loop, broadcast_writes, write_with_leading_ones,
    repeated_index_write, repeated_scalar_write, mask_write, write_next_to_reads,
    scalar_write)}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write(name):
    check_grad(WRITES[name], X, V, argnums=(0, 1), backends=NUMPY)


@pytest.mark.parametrize("fn", [preallocated_graph_loop, repeated_index_write, mask_write,
                                write_next_to_reads], ids=lambda f: f.__name__)
def test_write_numba(fn):
    check_grad(fn, X, V, argnums=(0, 1), backends=("numba",))


@pytest.mark.xfail(get("copy").vjp is None, raises=NotDifferentiableError, strict=True,
                   reason="np.copy's rule is core.py's (another helper's)")
def test_write_into_a_copy():
    check_grad(copy_then_write, X, V, argnums=(0, 1))


def test_repeated_index_write_lands_once():
    """Exactly what NumPy does: of two writes to one element only the later counts."""
    def f(v):
        y = np.zeros(3)
        y[np.array([1, 1])] = v
        return (y * np.array([1.0, 10.0, 100.0])).sum()
    for backend in ("numpy", "numba"):
        np.testing.assert_array_equal(ag.grad(f, backend=backend)(np.array([2.0, 3.0])),
                                      [0.0, 10.0])


# --- np.add.at, np.subtract.at ----------------------------------------------------------------

def add_at(x, v):
    y = x * 1.0
    np.add.at(y, np.array([0, 0, 2]), v)                              # broadcast rows
    np.subtract.at(y, (np.array([1, 1]), np.array([3, 3])), v[:2])   # twice into one
    np.add.at(y, x > 1.0, v[3])
    return np.tanh(y * x).sum()


def test_add_at():
    check_grad(add_at, X, V, argnums=(0, 1))


def test_other_ufunc_at_is_refused_at_the_users_line():
    def f(x):
        y = x * 1.0
        np.maximum.at(y, np.array([0, 0]), x[1])
        return y.sum()
    with pytest.raises(TypeError, match=r"np\.maximum\.at .*%s:\d+" % re.escape(__file__)):
        ag.grad(f, backend="numpy")(X)


# --- second order -------------------------------------------------------------------------------

def written_and_read(x):
    y = x * 1.0
    y[0] = x[1] * x[2]
    np.add.at(y, np.array([2, 2]), x[:2] * x[1:])
    return (y * y * x[::-1] * x[np.array([1, 0, 1]), ::-1]).sum()


def test_second_order():
    check_grad(lambda x: (ag.grad(written_and_read)(x) * x).sum(), X, backends=NUMPY)


# --- tensor arrays: the cotangent of one is its elements' cotangents stacked ------------------

def tensor_array_writes(x):
    ta = rt.TensorArray(np.float64, size=3)
    ta = ta.write(0, np.tanh(x[0]))
    ta = ta.write(1, x[1] * x[0])
    ta = ta.write(2, x[2])
    ta = ta.write(1, ta.read(1) * ta.read(2))       # overwritten, after a read of it
    return np.tanh(ta.stack() * x).sum() + ta.read(0).sum()


def tensor_array_unstack_and_grow(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.unstack(np.tanh(x))
    ta = ta.write(3, x[0] * 2.0)                    # past its end: it grows
    return (ta.stack() * np.tanh(ta.stack())).sum() + (ta.read(0) * ta.read(3)).sum()


def tensor_array_of_scalars(x):
    ta = rt.TensorArray(np.float64, size=2, element_shape=())
    ta = ta.write(0, x[0, 0] * 3.0)
    ta = ta.write(1, np.tanh(x[1, 1]))
    return (ta.stack() * ta.read(0)).sum()


@pytest.mark.parametrize("fn", [tensor_array_writes, tensor_array_unstack_and_grow,
                                tensor_array_of_scalars], ids=lambda f: f.__name__)
def test_tensor_array(fn):
    check_grad(fn, X)


def list_in_a_graph_loop(x):
    rows = []
    for i in range(x.shape[0]):
        rows.append(np.tanh(x[i]) * x[i, 0])
    return np.tanh(np.stack(rows) * x).sum()


def test_list_appended_in_a_graph_loop():
    check_grad(list_in_a_graph_loop, X)


def tensor_array_read_in_a_loop(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.unstack(np.tanh(x))
    t = 0.0
    for i in range(x.shape[0]):
        t = t + (ta.read(i) * x[i]).sum()
    return t


def test_tensor_array_read_in_a_graph_loop():
    check_grad(tensor_array_read_in_a_loop, X)


# --- the helpers and ops the rules rely on ------------------------------------------------------

def test_sum_to_that_sums_nothing_is_a_view_of_its_input():
    """sum_to returns its input when there is nothing to sum: an in-place write to the
    array that input is a view of must not change it (the executor knows it is a view)."""
    def f(x):
        y = x * 1.0
        row = y[0]
        kept = rt.Tensor(d.bind("sum_to", rt.ops.to_value(row), rt.ops.to_value(row)))
        y[0] = 5.0                        # y is dead after this: updated in place
        return kept * 1.0
    for backend in ("numpy", "numba"):
        np.testing.assert_array_equal(rt.function(f, backend=backend)(X), X[0])
