"""Shape ops: reshape, transpose, expand_dims, squeeze, ravel, flatten, swapaxes,
concatenate and stack. Symbolic dims (tensors) are allowed in reshape."""

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.markers import DYN
from runtime.ops.inference import dummy, normalize_axis, prod_or_none
from runtime.ops.registry import defop, get


def unify_dims(a, b, what="shapes"):
    """The dim that both `a` and `b` may be (None when unknown); error when they differ."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError("%s do not match: %s vs %s" % (what, a, b))


def _shape_text(shape):
    return "(%s)" % ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "")


# --- reshape --------------------------------------------------------------------------------

def _reshape_infer(x, *dynamic, newshape):
    dims = []
    dynamic_iter = iter(dynamic)
    for entry in newshape:
        if entry is None:
            next(dynamic_iter)
            dims.append(None)
        else:
            dims.append(int(entry))
    if dims.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    size = prod_or_none(x.shape)
    if -1 in dims:
        rest = prod_or_none([d for d in dims if d != -1])
        if size is not None and rest is not None:
            if rest == 0 or size % rest:
                raise ValueError("cannot reshape array of size %d into shape %s"
                                 % (size, _shape_text(dims)))
            dims[dims.index(-1)] = size // rest
        else:
            dims[dims.index(-1)] = None
    else:
        total = prod_or_none(dims)
        if size is not None and total is not None and size != total:
            raise ValueError("cannot reshape array of size %d into shape %s"
                             % (size, _shape_text(dims)))
    return [(x.dtype, tuple(dims))]


def _reshape_kernel(newshape):
    if all(d is not None for d in newshape):
        newshape = tuple(newshape)
        return lambda x: np.reshape(x, newshape)

    def reshape(x, *dynamic):
        it = iter(dynamic)
        return np.reshape(x, tuple(next(it) if d is None else d for d in newshape))
    return reshape


def _reshape_format(node, namer):
    it = iter(node.inputs[1:])
    dims = [namer(next(it)) if d is None else str(d) for d in node.attrs["newshape"]]
    return "reshape %s, (%s)" % (namer(node.inputs[0]), ", ".join(dims))


reshape = defop("reshape", infer=_reshape_infer, make_kernel=_reshape_kernel, view=True,
                format=_reshape_format,
                doc="np.reshape(x, newshape); newshape entries None are the extra inputs")


# --- axes permutations ----------------------------------------------------------------------

def _transpose_infer(x, axes):
    if axes is None:
        return [(x.dtype, x.shape[::-1])]
    axes = tuple(normalize_axis(a, len(x.shape)) for a in axes)
    if sorted(axes) != list(range(len(x.shape))):
        raise ValueError("axes don't match array")
    return [(x.dtype, tuple(x.shape[a] for a in axes))]


def _transpose_kernel(axes):
    # (The method np.transpose calls, without its Python layer: a sixth of the time. An
    # op's input is always a NumPy array or scalar when the graph runs.)
    if axes is None:
        return lambda x: x.transpose()
    return lambda x: x.transpose(axes)


transpose = defop("transpose", infer=_transpose_infer, view=True,
                  make_kernel=_transpose_kernel, doc="np.transpose(x, axes)")


def _transpose_expression(node):
    axes = node.attrs["axes"]
    if axes is None:
        return "{0}.transpose()"
    if all(type(a) is int for a in axes):
        return "{0}.transpose((%s))" % "".join("%d, " % a for a in axes)
    return None


transpose.expression = _transpose_expression


def _swapaxes_infer(x, axis1, axis2):
    a = normalize_axis(axis1, len(x.shape))
    b = normalize_axis(axis2, len(x.shape))
    shape = list(x.shape)
    shape[a], shape[b] = shape[b], shape[a]
    return [(x.dtype, tuple(shape))]


swapaxes = defop("swapaxes", infer=_swapaxes_infer, view=True,
                 make_kernel=lambda axis1, axis2: (lambda x: np.swapaxes(x, axis1, axis2)),
                 doc="np.swapaxes(x, axis1, axis2)")


def _expand_dims_infer(x, axis):
    out_ndim = len(x.shape) + len(axis)
    axes = sorted(normalize_axis(a, out_ndim) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    dims = iter(x.shape)
    return [(x.dtype, tuple(1 if i in axes else next(dims) for i in range(out_ndim)))]


expand_dims = defop("expand_dims", infer=_expand_dims_infer, view=True,
                    make_kernel=lambda axis: (lambda x: np.expand_dims(x, axis)),
                    doc="np.expand_dims(x, axis) (axis: a tuple)")


def squeeze_axes(shape, axis):
    """The axes np.squeeze removes; needs `axis` when some dims are unknown."""
    if axis is None:
        if any(d is None for d in shape):
            raise TypeError("np.squeeze without axis= on an array with dims unknown at trace "
                            "time is ambiguous in a graph; pass axis=")
        return tuple(i for i, d in enumerate(shape) if d == 1)
    axes = tuple(normalize_axis(a, len(shape)) for a in (axis if isinstance(axis, tuple) else (axis,)))
    for a in axes:
        if shape[a] not in (1, None):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return axes


squeeze = defop(
    "squeeze",
    infer=lambda x, axis: [(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axis))],
    make_kernel=lambda axis: (lambda x: np.squeeze(x, axis)), view=True,
    doc="np.squeeze(x, axis) (axis: a tuple of the axes to remove)")

ravel = defop("ravel", infer=lambda x: [(x.dtype, (prod_or_none(x.shape),))],
              kernel=np.ravel, view=True, doc="np.ravel(x)")
flatten = defop("flatten", infer=lambda x: [(x.dtype, (prod_or_none(x.shape),))],
                kernel=lambda x: np.array(x).flatten(), doc="x.flatten() (a copy)")


# --- joining --------------------------------------------------------------------------------

def _concatenate_infer(*xs, axis):
    dtype = np.concatenate([np.atleast_1d(dummy(x)) for x in xs], axis=None).dtype
    if axis is None:
        sizes = [prod_or_none(x.shape) for x in xs]
        return [(dtype, (None if None in sizes else sum(sizes),))]
    ndim = len(xs[0].shape)
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for x in xs:
        if len(x.shape) != ndim:
            raise ValueError("all the input arrays must have same number of dimensions")
    axis = normalize_axis(axis, ndim)
    shape = []
    for i in range(ndim):
        dims = [x.shape[i] for x in xs]
        if i == axis:
            shape.append(None if None in dims else sum(dims))
        else:
            d = dims[0]
            for other in dims[1:]:
                d = unify_dims(d, other, "all the input array dimensions except for the "
                                         "concatenation axis")
            shape.append(d)
    return [(dtype, tuple(shape))]


concatenate = defop(
    "concatenate", infer=_concatenate_infer,
    make_kernel=lambda axis: (lambda *xs: np.concatenate(xs, axis=axis)),
    doc="np.concatenate(xs, axis)")


def _stack_infer(*xs, axis):
    dtype = np.concatenate([np.atleast_1d(dummy(x)).ravel() for x in xs]).dtype
    shape = xs[0].shape
    for x in xs[1:]:
        if len(x.shape) != len(shape):
            raise ValueError("all input arrays must have the same shape")
        shape = tuple(unify_dims(a, b, "all input arrays must have the same shape;")
                      for a, b in zip(shape, x.shape))
    axis = normalize_axis(axis, len(shape) + 1)
    shape = shape[:axis] + (len(xs),) + shape[axis:]
    return [(dtype, shape)]


stack = defop("stack", infer=_stack_infer,
              make_kernel=lambda axis: (lambda *xs: np.stack(xs, axis=axis)),
              doc="np.stack(xs, axis)")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

@get("reshape").def_numba
def _numba_reshape(g, node, ins):
    x = node.inputs[0]
    out = node.outputs[0]
    if nl.is_scalar(g, x) or nl.is_scalar(g, out):
        raise nl.Unlowerable("reshape to or from a scalar")
    shape = nl.shape_text(g, node.attrs["newshape"], node.inputs[1:])
    return "np.ascontiguousarray(%s).reshape(%s)" % (ins[0], shape)


@get("transpose").def_numba
def _numba_transpose(g, node, ins):
    axes = node.attrs["axes"]
    if nl.is_scalar(g, node.inputs[0]):
        return ins[0]
    ndim = len(node.inputs[0].shape)
    if axes is None or tuple(int(a) % ndim for a in axes) == tuple(range(ndim))[::-1]:
        return "%s.T" % ins[0]
    return "np.transpose(%s, (%s))" % (ins[0], "".join("%d, " % (int(a) % ndim) for a in axes))


@get("swapaxes").def_numba
def _numba_swapaxes(g, node, ins):
    ndim = len(node.inputs[0].shape)
    if ndim == 2 and {int(node.attrs["axis1"]) % 2, int(node.attrs["axis2"]) % 2} == {0, 1}:
        # (A matrix transpose: `.T` keeps a contiguous layout Numba knows, which BLAS takes
        # without a copy; np.swapaxes gives one it does not.)
        return "%s.T" % ins[0]
    return "np.swapaxes(%s, %d, %d)" % (ins[0], node.attrs["axis1"], node.attrs["axis2"])


@get("expand_dims").def_numba
def _numba_expand_dims(g, node, ins):
    out = node.outputs[0]
    out_ndim = len(out.shape)
    axes = {int(a) % out_ndim for a in node.attrs["axis"]}
    if nl.is_scalar(g, node.inputs[0]):
        return "np.full((%s), %s, %s)" % ("1, " * out_ndim, ins[0], nl.np_dtype(out.dtype))
    parts = ["None" if i in axes else ":" for i in range(out_ndim)]
    return "%s[%s]" % (ins[0], ", ".join(parts))


@get("squeeze").def_numba
def _numba_squeeze(g, node, ins):
    x = node.inputs[0]
    axes = set(node.attrs["axis"])
    if nl.is_scalar(g, x):
        return ins[0]
    parts = []
    for axis, dim in enumerate(x.shape):
        if axis in axes:
            if dim != 1:
                site = g.site(node, "squeeze")
                g.emit("if %s.shape[%d] != 1:" % (ins[0], axis))
                g.emit("    raise _rt.GraphFail(%d)" % site)
            parts.append("0")
        else:
            parts.append(":")
    return "%s[%s]" % (ins[0], ", ".join(parts))


@get("ravel").def_numba
def _numba_ravel(g, node, ins):
    if nl.is_scalar(g, node.inputs[0]):
        return "np.full(1, %s, %s)" % (ins[0], nl.np_dtype(node.outputs[0].dtype))
    return "np.ravel(%s)" % ins[0]


@get("flatten").def_numba
def _numba_flatten(g, node, ins):
    if nl.is_scalar(g, node.inputs[0]):
        return "np.full(1, %s, %s)" % (ins[0], nl.np_dtype(node.outputs[0].dtype))
    return "%s.flatten()" % ins[0]


@get("concatenate").def_numba
def _numba_concatenate(g, node, ins):
    out = node.outputs[0]
    axis = node.attrs["axis"]
    if any(nl.is_scalar(g, v) for v in node.inputs):
        raise nl.Unlowerable("concatenating scalars")
    parts = [nl.as_dtype(g, v, out.dtype) for v in node.inputs]
    if axis is None:
        parts = ["np.ravel(%s)" % p for p in parts]
        return "np.concatenate((%s))" % "".join(p + ", " for p in parts)
    return "np.concatenate((%s), axis=%d)" % ("".join(p + ", " for p in parts), int(axis))


@get("stack").def_numba
def _numba_stack(g, node, ins):
    out = node.outputs[0]
    parts = [nl.as_dtype(g, v, out.dtype) for v in node.inputs]
    if all(nl.is_scalar(g, v) for v in node.inputs):
        return "np.array([%s], dtype=%s)" % (", ".join(parts), nl.np_dtype(out.dtype))
    if any(nl.is_scalar(g, v) for v in node.inputs):
        raise nl.Unlowerable("np.stack of scalars and arrays")
    return "np.stack((%s), %d)" % ("".join(p + ", " for p in parts), int(node.attrs["axis"]))


# --- derivative rules (runtime/autodiff.py; helpers in runtime/ops/gradients.py) -------------
# Each is the op's inverse on the cotangent (or, for the joins, the split). Dims unknown at
# trace time are read when the graph runs (`dim` ops), so the rules hold for any sizes.

from runtime.ops import gradients as d  # noqa: E402


@get("reshape").def_vjp
def _reshape_vjp(inputs, outputs, cts, newshape):
    """ct back in x's shape; the dynamic newshape entries (ints) get no cotangent."""
    return [d.reshape_to(cts[0], inputs[0])] + [None] * (len(inputs) - 1)


def _to_input_shape(inputs, outputs, cts):
    return [d.reshape_to(cts[0], inputs[0])]


get("ravel").def_vjp(_to_input_shape)
get("flatten").def_vjp(_to_input_shape)


@get("squeeze").def_vjp
def _squeeze_vjp(inputs, outputs, cts, axis):
    if not axis:
        return [cts[0]]
    return [d.bind("expand_dims", cts[0], axis=tuple(axis))]


@get("expand_dims").def_vjp
def _expand_dims_vjp(inputs, outputs, cts, axis):
    ndim = len(outputs[0].shape)
    return [d.bind("squeeze", cts[0], axis=tuple(sorted(normalize_axis(a, ndim)
                                                          for a in axis)))]


@get("transpose").def_vjp
def _transpose_vjp(inputs, outputs, cts, axes):
    if axes is None:
        return [d.bind("transpose", cts[0], axes=None)]
    ndim = len(inputs[0].shape)
    inverse = tuple(int(i) for i in np.argsort([normalize_axis(a, ndim) for a in axes]))
    return [d.bind("transpose", cts[0], axes=inverse)]


@get("swapaxes").def_vjp
def _swapaxes_vjp(inputs, outputs, cts, axis1, axis2):
    ndim = len(inputs[0].shape)
    return [d.bind("swapaxes", cts[0], axis1=normalize_axis(axis1, ndim),
                   axis2=normalize_axis(axis2, ndim))]


@get("concatenate").def_vjp
def _concatenate_vjp(inputs, outputs, cts, axis):
    """ct split along the axis at the inputs' sizes there (the bounds are their running
    sums, added when the graph runs where the trace does not know them); for axis None,
    the flat ct split at the inputs' sizes, each piece in its input's shape."""
    ct = cts[0]
    flat = axis is None
    if flat:
        axis, sizes = 0, [_flat_size(x) for x in inputs]
    else:
        axis = normalize_axis(axis, len(ct.shape))
        sizes = [d.dim(x, axis) for x in inputs]
    result = []
    start = 0
    for x, size in zip(inputs, sizes):
        stop = _plus(start, size)
        if d.differentiable(x) and not x.is_literal:
            index = [slice(None)] * len(ct.shape)
            index[axis] = slice(start if isinstance(start, int) else DYN,
                                stop if isinstance(stop, int) else DYN)
            bounds = [b for b in (start, stop) if not isinstance(b, int)]
            piece = d.bind("get_item", ct, *bounds, index=tuple(index))
            result.append(d.reshape_to(piece, x) if flat else piece)
        else:
            result.append(None)
        start = stop
    return result


def _flat_size(x):
    if all(s is not None for s in x.shape):
        return prod_or_none(x.shape)
    return d.bind("size", x)


def _plus(a, b):
    """a + b for sizes that are Python ints or int64 Values."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(a, int) and a == 0:
        return b
    return d.bind("add", a, b)


@get("stack").def_vjp
def _stack_vjp(inputs, outputs, cts, axis):
    """Input i's cotangent is ct[..., i, ...] (at the new axis)."""
    ct = cts[0]
    axis = normalize_axis(axis, len(ct.shape))
    result = []
    for i, x in enumerate(inputs):
        if d.differentiable(x) and not x.is_literal:
            index = (slice(None),) * axis + (i,)
            result.append(d.bind("get_item", ct, index=index))
        else:
            result.append(None)
    return result
