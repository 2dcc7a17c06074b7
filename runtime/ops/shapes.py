"""Shape ops: reshape, transpose, expand_dims, squeeze, ravel, flatten, swapaxes,
concatenate and stack. Symbolic dims (tensors) are allowed in reshape."""

import numpy as np

from runtime.ops import defop, dummy, normalize_axis, prod_or_none


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


transpose = defop("transpose", infer=_transpose_infer, view=True,
                  make_kernel=lambda axes: (lambda x: np.transpose(x, axes)),
                  doc="np.transpose(x, axes)")


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
