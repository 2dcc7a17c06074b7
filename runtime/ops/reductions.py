"""Reductions (sum, mean, prod, min, max, any, all, std, var), argmin/argmax and the
cumulative ops, with NumPy's axis / keepdims / dtype arguments."""

import warnings

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.ops.inference import dummy, normalize_axes, normalize_axis, prod_or_none
from runtime.ops.registry import defop, get

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


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

_NUMBA_ROW_HELPERS = {"sum": "rows_sum", "prod": "rows_prod", "mean": "rows_mean", "min": "rows_min",
                "max": "rows_max", "any": "rows_any", "all": "rows_all",
                "argmin": "rows_argmin", "argmax": "rows_argmax", "std": "rows_std",
                "var": "rows_var"}


def _numba_reduce_lowering(name):
    def lower(g, node, ins):
        x = node.inputs[0]
        out = node.outputs[0]
        attrs = node.attrs
        axis = attrs.get("axis")
        keepdims = attrs.get("keepdims", False)
        ddof = int(attrs.get("ddof") or 0)
        if x.dtype.kind == "c" and name in ("min", "max", "argmin", "argmax"):
            raise nl.Unlowerable("np.%s of complex values" % name)
        if x.dtype.kind == "c" and name in ("mean", "std", "var") and (
                ddof or attrs.get("dtype") is not None or (
                    axis is not None and len(normalize_axes(axis, len(x.shape)))
                    < len(x.shape))):
            # (The helpers for these accumulate in float64: d * d, not |d|**2.)
            raise nl.Unlowerable("np.%s of complex values over an axis, with ddof or dtype"
                                 % name)
        source = ins[0]
        if nl.is_scalar(g, x):
            if name in ("argmin", "argmax"):
                return "0"
            if name in ("std", "var"):
                return nl.literal_text(0.0 if ddof < 1 else float("nan"), out.dtype)
            return g.scalar_cast(source, out.dtype)
        ndim = len(x.shape)
        accumulate = out.dtype if name in ("sum", "prod") else None
        if accumulate is not None and accumulate != x.dtype:
            source = "%s.astype(%s)" % (source, nl.np_dtype(accumulate))
        if attrs.get("dtype") is not None and name in ("mean", "std", "var"):
            source = "%s.astype(%s)" % (source, nl.np_dtype(attrs["dtype"]))
        if isinstance(axis, (list, tuple)):
            axes = tuple(sorted(int(a) % ndim for a in axis))
        elif axis is None:
            axes = tuple(range(ndim))
        else:
            axes = (int(axis) % ndim,)
        if name in ("argmin", "argmax") and axis is None:
            axes = tuple(range(ndim))
        if len(axes) == ndim:
            text = "np.%s(%s)" % (name, source)
            if name in ("std", "var") and ddof:
                text = "_rt.var_ddof(np.ravel(%s), %d)" % (source, ddof)
                text = "np.sqrt(%s)" % text if name == "std" else text
            if name in ("argmin", "argmax"):
                natural = np.dtype(np.int64)
            elif name in ("any", "all"):
                natural = np.dtype(np.bool_)
            else:
                natural = None
            if keepdims:
                temp = g.tmp()
                g.emit("%s = %s" % (temp, g.scalar_cast(text, out.dtype)))
                return "np.full(%s, %s, %s)" % ("(%s)" % ("1, " * ndim), temp,
                                                nl.np_dtype(out.dtype))
            if natural is not None and natural == out.dtype:
                return text
            return g.scalar_cast(text, out.dtype)
        if name not in _NUMBA_ROW_HELPERS or (len(axes) > 1 and name in ("argmin", "argmax")):
            raise nl.Unlowerable("np.%s over axis %s of a rank-%d array" % (name, axis, ndim))
        if ndim != 2:
            # Kept axes first, reduced axes last, as a C-contiguous (kept, reduced) matrix
            # whose rows the row helpers reduce; then the kept shape back.
            kept = [a for a in range(ndim) if a not in axes]
            dims = ["%s.shape[%d]" % (ins[0], a) for a in range(ndim)]
            rows = g.tmp()
            g.emit("%s = np.ascontiguousarray(%s.transpose((%s))).reshape((%s, %s))" % (
                rows, source, "".join("%d, " % a for a in kept + list(axes)),
                " * ".join(dims[a] for a in kept) or "1",
                " * ".join(dims[a] for a in axes)))
            if keepdims:
                shape = [("1" if a in axes else dims[a]) for a in range(ndim)]
            else:
                shape = [dims[a] for a in kept]
        else:
            rows = source if axes == (1,) else "%s.T" % source
            shape = None
        text = "_rt.%s(%s%s)" % (_NUMBA_ROW_HELPERS[name], rows,
                                 ", %d" % ddof if name in ("std", "var") else "")
        helper_dtype = {"mean": np.dtype(np.float64), "std": np.dtype(np.float64),
                        "var": np.dtype(np.float64), "any": np.dtype(np.bool_),
                        "all": np.dtype(np.bool_), "argmin": np.dtype(np.int64),
                        "argmax": np.dtype(np.int64)}.get(
            name, np.dtype(accumulate) if accumulate is not None else x.dtype)
        if helper_dtype != out.dtype:
            text = "%s.astype(%s)" % (text, nl.np_dtype(out.dtype))
        if shape is not None:
            text = "%s.reshape((%s))" % (text, "".join(d + ", " for d in shape))
        elif keepdims:
            shape = ("(1, %s.shape[1])" if axes == (0,) else "(%s.shape[0], 1)") % ins[0]
            text = "%s.reshape(%s)" % (text, shape)
        return text
    return lower


for _name in ("sum", "prod", "mean", "min", "max", "any", "all", "std", "var", "argmin",
              "argmax"):
    get(_name).def_numba(_numba_reduce_lowering(_name))
del _name


def _numba_cumulative_lowering(name):
    def lower(g, node, ins):
        x = node.inputs[0]
        out = node.outputs[0]
        axis = node.attrs.get("axis")
        if nl.is_scalar(g, x):
            return "np.full(1, %s, %s)" % (g.scalar_cast(ins[0], out.dtype), nl.np_dtype(out.dtype))
        source = ins[0] if x.dtype == out.dtype else "%s.astype(%s)" % (ins[0], nl.np_dtype(out.dtype))
        if axis is None or len(x.shape) == 1:
            return "np.%s(%s)" % (name, source)
        if len(x.shape) != 2:
            raise nl.Unlowerable("np.%s over an axis of a rank-%d array" % (name, len(x.shape)))
        if int(axis) % 2 == 1:
            return "_rt.rows_%s(%s)" % (name, source)
        return "_rt.rows_%s(%s.T).T" % (name, source)
    return lower


get("cumsum").def_numba(_numba_cumulative_lowering("cumsum"))
get("cumprod").def_numba(_numba_cumulative_lowering("cumprod"))


from runtime.ops import gradients as d  # noqa: E402


@get("sum").def_vjp
def _sum_vjp(inputs, outputs, cts, axis=None, keepdims=False, dtype=None):
    x, = inputs
    ct = cts[0]
    if not keepdims and axis is not None:
        axes = normalize_axes(axis, len(x.shape))
        for a in sorted(axes):
            ct = d.bind("expand_dims", ct, axis=a)
    return [d.bind("broadcast_like", ct, x)]
