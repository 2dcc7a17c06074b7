"""Basic ops: constants, casts, copies and shape queries."""

import functools

import numpy as np

from runtime import path_kinds
from runtime.executors.numba import lowering as nl
from runtime.ops.registry import defop, get


def _format_constant(node, namer):
    value = node.attrs["value"]
    if value.size <= 6:
        return "constant %s" % np.array2string(value, separator=", ").replace("\n", "")
    return "constant <array %s[%s]>" % (value.dtype, ",".join(map(str, value.shape)))


constant = defop(
    "constant",
    infer=lambda value: [(value.dtype, value.shape)],
    make_kernel=lambda value: (lambda: value),
    unowned_output=True,  # shared by every run of the graph: never written in place
    format=_format_constant,
    doc="An array baked into the graph (by reference: the caller's array object).")


def _cast_kernel(dtype):
    def cast(x):
        return x.astype(dtype)
    return cast


cast = defop(
    "cast",
    infer=lambda x, dtype: [(dtype, x.shape)],
    make_kernel=_cast_kernel,
    doc="x.astype(dtype): always a new array (NumPy's default copy=True)")
# (A scalar of its own dtype made a Python scalar's Value, as an item of `range` is, is
# the scalar itself: nobody sees the array a copy would be.)
cast.expression = lambda node: (
    "{0}" if node.inputs[0].shape == () and node.inputs[0].dtype == node.attrs["dtype"]
    and path_kinds.is_python(node.outputs[0]) else None)


def _copy_kernel(order="K"):
    return np.copy if order == "K" else functools.partial(np.copy, order=order)


copy = defop(
    "copy",
    infer=lambda x, order="K": [(x.dtype, x.shape)],
    make_kernel=_copy_kernel,
    doc="np.copy(x) (memory order 'K': the input's), or x.copy() (order='C')")


def _dim_kernel(axis):
    def dim(x):
        return np.int64(x.shape[axis])
    return dim


dim = defop(
    "dim",
    infer=lambda x, axis: [(np.int64, ())],
    make_kernel=_dim_kernel,
    doc="x.shape[axis] as an int64 scalar (for dims unknown at trace time).")


size = defop(
    "size",
    infer=lambda x: [(np.int64, ())],
    kernel=lambda x: np.int64(np.size(x)),
    doc="x.size as an int64 scalar.")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

@get("constant").def_numba
def _numba_constant(g, node, ins):
    value = node.attrs["value"]
    if value.dtype.kind not in "biufc" or value.dtype == np.float16:
        raise nl.Unlowerable("constant of dtype %s" % value.dtype)
    if value.ndim == 0:
        return nl.literal_text(value[()], value.dtype)
    return g.constant_arg(np.ascontiguousarray(value))


@get("cast").def_numba
def _numba_cast(g, node, ins):
    out = node.outputs[0]
    source = ins[0]
    if node.inputs[0].dtype.kind == "c" and out.dtype.kind != "c":
        # NumPy: a complex is true where either part is nonzero; other real dtypes take
        # the real part (Numba casts no complex to a real dtype).
        if out.dtype == np.bool_:
            return "(%s != 0)" % source
        source = "%s.real" % source
    if nl.is_scalar(g, node.inputs[0]):
        return g.scalar_cast(source, out.dtype)
    return "%s.astype(%s)" % (source, nl.np_dtype(out.dtype))


@get("copy").def_numba
def _numba_copy(g, node, ins):
    if nl.is_scalar(g, node.inputs[0]):
        return ins[0]
    return "%s.copy()" % ins[0]


@get("dim").def_numba
def _numba_dim(g, node, ins):
    return "%s.shape[%d]" % (ins[0], node.attrs["axis"])


@get("size").def_numba
def _numba_size(g, node, ins):
    if nl.is_scalar(g, node.inputs[0]):
        return "1"
    return "%s.size" % ins[0]


# --- derivative rules (runtime/autodiff.py; helpers in runtime/ops/gradients.py) -------------

from runtime.ops import gradients as d  # noqa: E402


@get("cast").def_vjp
def _cast_vjp(inputs, outputs, cts, dtype):
    """The cotangent cast back to the input's dtype (float32 -> float64 -> float32 gives a
    float32 gradient); of a complex result cast from a real, its real part. A cast to an
    integer or bool has no cotangent (the engine never forms one)."""
    x, = inputs
    return [d.cotangent_for(cts[0], x, broadcast=False)]


@get("copy").def_vjp
def _copy_vjp(inputs, outputs, cts, order="K"):
    return [d.cotangent_for(cts[0], inputs[0], broadcast=False)]
