"""Reductions (sum, mean, prod, min, max, any, all, std, var), argmin/argmax and the
cumulative ops, with NumPy's axis / keepdims / dtype arguments."""

import warnings

import numpy as np

from runtime.ops import defop, dummy, normalize_axes, normalize_axis, prod_or_none

REDUCTIONS = {}      # NumPy function -> Op, for the __array_function__ table
ARG_REDUCTIONS = {}
CUMULATIVE = {}


def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduce_op(name, fn, extra=()):
    def infer(x, axis=None, keepdims=False, **kw):
        axes = normalize_axes(axis, len(x.shape))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")   # e.g. ddof >= size on the stand-in
            dtype = np.asarray(fn(dummy(x), axis=axis, keepdims=keepdims, **kw)).dtype
        return [(dtype, _reduced_shape(x.shape, axes, keepdims))]

    def make_kernel(axis=None, keepdims=False, **kw):
        kw = {k: v for k, v in kw.items() if v is not None or k not in ("dtype",)}
        if axis is None and not keepdims and not kw:
            return fn
        return lambda x: fn(x, axis=axis, keepdims=keepdims, **kw)

    REDUCTIONS[fn] = defop(name, infer=infer, make_kernel=make_kernel,
                           doc="np.%s(x, axis, keepdims%s)" % (name, "".join(", " + e for e in extra)))


_reduce_op("sum", np.sum, ("dtype",))
_reduce_op("prod", np.prod, ("dtype",))
_reduce_op("mean", np.mean, ("dtype",))
_reduce_op("min", np.min)
_reduce_op("max", np.max)
_reduce_op("any", np.any)
_reduce_op("all", np.all)
_reduce_op("std", np.std, ("dtype", "ddof"))
_reduce_op("var", np.var, ("dtype", "ddof"))


def _arg_op(name, fn):
    def infer(x, axis=None, keepdims=False):
        if axis is None:
            shape = (1,) * len(x.shape) if keepdims else ()
        else:
            shape = _reduced_shape(x.shape, (normalize_axis(axis, len(x.shape)),), keepdims)
        return [(np.intp, shape)]

    def make_kernel(axis=None, keepdims=False):
        if axis is None and not keepdims:
            return fn
        return lambda x: fn(x, axis=axis, keepdims=keepdims)

    ARG_REDUCTIONS[fn] = defop(name, infer=infer, make_kernel=make_kernel,
                               doc="np.%s(x, axis, keepdims)" % name)


_arg_op("argmin", np.argmin)
_arg_op("argmax", np.argmax)


def _cumulative_op(name, fn):
    def infer(x, axis=None, dtype=None):
        if axis is None:
            shape = (prod_or_none(x.shape),)
        else:
            normalize_axis(axis, max(len(x.shape), 1))
            shape = x.shape
        return [(fn(dummy(x), axis=axis, dtype=dtype).dtype, shape)]

    def make_kernel(axis=None, dtype=None):
        return lambda x: fn(x, axis=axis, dtype=dtype)

    CUMULATIVE[fn] = defop(name, infer=infer, make_kernel=make_kernel,
                           doc="np.%s(x, axis, dtype)" % name)


_cumulative_op("cumsum", np.cumsum)
_cumulative_op("cumprod", np.cumprod)
