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


def _reduce_op(name, fn, extra=(), ufunc=None, forced_dtype=None, whole=None):
    """`ufunc`: the ufunc whose reduce `fn` calls for a NumPy array (np.sum: np.add.reduce,
    with `forced_dtype` for np.any / np.all), called directly by the kernel: np.sum's
    Python layer doubles the time of a small array's sum. `whole`: the kernel reducing a
    whole array (no axis, keepdims nor dtype), where not `fn`."""
    def infer(x, axis=None, keepdims=False, **kw):
        axes = normalize_axes(axis, len(x.shape))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")   # e.g. ddof >= size on the stand-in
            dtype = np.asarray(fn(dummy(x), axis=axis, keepdims=keepdims, **kw)).dtype
        return [(dtype, _reduced_shape(x.shape, axes, keepdims))]

    def make_kernel(axis=None, keepdims=False, **kw):
        kw = {k: v for k, v in kw.items() if v is not None or k not in ("dtype",)}
        if ufunc is not None and set(kw) <= {"dtype"}:
            reduce, dtype = ufunc.reduce, kw.get("dtype", forced_dtype)
            return lambda x: reduce(x, axis, dtype, None, keepdims)
        if axis is None and not keepdims and not kw:
            return whole or fn
        return lambda x: fn(x, axis=axis, keepdims=keepdims, **kw)

    REDUCTIONS[fn] = defop(name, infer=infer, make_kernel=make_kernel,
                           doc="np.%s(x, axis, keepdims%s)" % (name, "".join(", " + e for e in extra)))


_reduce_op("sum", np.sum, ("dtype",), np.add)
_reduce_op("prod", np.prod, ("dtype",), np.multiply)
_F8 = np.dtype(np.float64)
_add_reduce = np.add.reduce


def _whole_mean(x):
    """np.mean(x); for a non-empty float64 array np.mean's own steps written out (numpy's
    _methods._mean: the sum, then a float64 of it divided by the count as an intp), bit for
    bit its result without its three Python layers (a model's loss, on every step)."""
    if type(x) is np.ndarray and x.dtype is _F8 and x.size:
        return np.float64(_add_reduce(x, None, None, None, False) / np.intp(x.size))
    return np.mean(x)


_reduce_op("mean", np.mean, ("dtype",), whole=_whole_mean)
_reduce_op("min", np.min, (), np.minimum)
_reduce_op("max", np.max, (), np.maximum)
_reduce_op("any", np.any, (), np.logical_or, np.bool_)
_reduce_op("all", np.all, (), np.logical_and, np.bool_)
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

_NUMBA_ROW_HELPERS = {"sum": "rows_sum", "prod": "rows_prod", "mean": "rows_mean",
                      "min": "rows_extreme", "max": "rows_extreme", "any": "rows_any",
                      "all": "rows_all", "argmin": "rows_argmin", "argmax": "rows_argmax",
                      "std": "rows_std", "var": "rows_var"}


def _numpy_loop(g, name, x, out):
    """The arguments of support.extreme_of, sum_of and their rows_ kernels after the
    array: the table of NumPy's loops and the row of the loop of np.maximum (np.minimum,
    np.add) for x's dtype, or -1 where there is none (lowering.NUMPY_REDUCE) or the result
    has another dtype (NumPy casts in chunks: a sum of each)."""
    loop = None
    if x.dtype in (np.float32, np.float64) and out.dtype == x.dtype:
        loop = g.numpy_loop({"max": np.maximum, "min": np.minimum, "sum": np.add}[name],
                            x.dtype)
    if loop is None:
        return "%s, -1" % g.object_arg(nl.numpy_loops())
    return "%s, %d" % loop


def _mean_of_sum(name, x, out, attrs):
    """Is np.mean of x the sum (support.sum_of, rows_sum) divided by the count, as NumPy
    computes it (a float mean in its own dtype: float32(float64(s) / n) is the float32
    quotient, correctly rounded)?"""
    return (name == "mean" and x.dtype in (np.float32, np.float64) and out.dtype == x.dtype
            and attrs.get("dtype") is None)


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
            if name in ("max", "min"):   # (support.extreme_of: Numba's compiles slowly)
                text = "_rt.extreme_of(np.ravel(%s), %s, %s)" % (
                    source, _numpy_loop(g, name, x, out), name == "max")
            elif name == "sum" and out.dtype == x.dtype:   # (NumPy's pairwise sum)
                text = "_rt.sum_of(%s, %s)" % (source, _numpy_loop(g, name, x, out))
            elif _mean_of_sum(name, x, out, attrs):   # (NumPy's: its sum / the count)
                text = "(_rt.sum_of(%s, %s) / %s.size)" % (
                    source, _numpy_loop(g, "sum", x, out), source)
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
        extra = ", %d" % ddof if name in ("std", "var") else ""
        if name in ("max", "min"):
            extra = ", %s, %s" % (_numpy_loop(g, name, x, out), name == "max")
        elif name == "sum" and ndim == 2:
            extra = ", " + _numpy_loop(g, name, x, out)
        elif name == "sum":   # (NumPy's order is not rows of the copy's: Numba's sum)
            extra = ", %s, -1" % g.object_arg(nl.numpy_loops())
        if _mean_of_sum(name, x, out, attrs) and ndim == 2:
            text = "(_rt.rows_sum(%s, %s) / %s.shape[1])" % (
                rows, _numpy_loop(g, "sum", x, out), rows)
        else:
            text = "_rt.%s(%s%s)" % (_NUMBA_ROW_HELPERS[name], rows, extra)
        helper_dtype = {"mean": np.dtype(np.float64), "std": np.dtype(np.float64),
                        "var": np.dtype(np.float64), "any": np.dtype(np.bool_),
                        "all": np.dtype(np.bool_), "argmin": np.dtype(np.int64),
                        "argmax": np.dtype(np.int64)}.get(
            name, np.dtype(accumulate) if accumulate is not None else x.dtype)
        if helper_dtype != out.dtype:
            text = "%s.astype(%s)" % (text, nl.np_dtype(out.dtype))
        if shape is not None:
            text = "%s.reshape((%s))" % (text, "".join(d + ", " for d in shape))
        elif keepdims:   # (support.as_column: a reshape in generated code compiles slowly)
            text = "_rt.%s(%s)" % ("as_row" if axes == (0,) else "as_column", text)
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


# --- derivative rules (runtime/autodiff.py; helpers in runtime/ops/gradients.py) -------------
# Every rule first puts the reduced axes back as 1s (d.keep_reduced), so the cotangent
# broadcasts against x whatever axis / keepdims were. argmin, argmax, any and all need no
# rule: their outputs are ints and bools, which carry no cotangent.

from runtime.ops import gradients as d  # noqa: E402


def _reduced_axes(x, axis):
    return normalize_axes(axis, len(x.shape))


@get("sum").def_vjp
def _sum_vjp(inputs, outputs, cts, axis=None, keepdims=False, dtype=None):
    x, = inputs
    return [d.bind("broadcast_like", d.keep_reduced(cts[0], x, axis, keepdims), x)]


@get("mean").def_vjp
def _mean_vjp(inputs, outputs, cts, axis=None, keepdims=False, dtype=None):
    """The sum's rule over the number of elements reduced (known when the graph runs)."""
    x, = inputs
    ct = d.keep_reduced(cts[0], x, axis, keepdims)
    size = d.count(x, _reduced_axes(x, axis), d.real_dtype(ct.dtype))
    scale = d.bind("divide", d.scalar(1, size.dtype), size)
    return [d.bind("broadcast_like", d.bind("multiply", ct, scale), x)]


def _chooser_vjp(inputs, outputs, cts, axis=None, keepdims=False):
    """max and min: the cotangent goes to the elements equal to the result. Ties (JAX's
    convention): it is split equally among the tied elements, so each of k equal maxima
    gets ct / k (a subgradient; the mean of the one-sided derivatives)."""
    x, = inputs
    y = d.keep_reduced(outputs[0], x, axis, keepdims)
    ct = d.keep_reduced(cts[0], x, axis, keepdims)
    chosen = d.bind("cast", d.bind("equal", x, y), dtype=x.dtype)
    ties = d.bind("sum", chosen, axis=_reduced_axes(x, axis), keepdims=True, dtype=None)
    return [d.bind("multiply", d.bind("divide", chosen, ties), ct)]


get("max").def_vjp(_chooser_vjp)
get("min").def_vjp(_chooser_vjp)


@get("prod").def_vjp
def _prod_vjp(inputs, outputs, cts, axis=None, keepdims=False, dtype=None):
    """d prod / d x_i = the product of the other elements, computed without dividing by a
    zero: with x' = x where x != 0, else 1, it is prod(x') / x'_i times the product of the
    zeros other than x_i: 1 when there are none, that zero (0, but with its derivative,
    1) when there is one, 0 when there are more. So the first and second derivatives are
    exact for any input, zeros included; from the third on, exact where the reduced
    elements hold at most one zero (with two or more, the product of the other zeros is
    taken as a constant 0)."""
    x, = inputs
    axes = _reduced_axes(x, axis)
    ct = d.keep_reduced(cts[0], x, axis, keepdims)
    zero, one = d.scalar(0, x.dtype), d.scalar(1, x.dtype)
    is_zero = d.bind("equal", x, zero)
    nonzero = d.bind("where", is_zero, one, x)
    others = d.bind("divide", d.bind("prod", nonzero, axis=axes, keepdims=True, dtype=x.dtype),
                    nonzero)
    zeros = d.bind("where", is_zero, x, zero)      # the zeros, with their derivatives
    zeros_total = d.bind("sum", zeros, axis=axes, keepdims=True, dtype=None)
    n_zeros = d.bind("sum", d.bind("cast", is_zero, dtype=np.dtype(np.int64)), axis=axes,
                     keepdims=True, dtype=None)
    other_zeros = d.bind("subtract", n_zeros, d.bind("cast", is_zero, dtype=np.dtype(np.int64)))
    the_other_zero = d.bind("subtract", zeros_total, zeros)
    factor = d.bind("where", d.bind("equal", other_zeros, 0), one,
                    d.bind("where", d.bind("equal", other_zeros, 1), the_other_zero, zero))
    return [d.bind("multiply", ct, d.bind("multiply", others, factor))]


def _moments(x, axis, ddof, dtype):
    """(x - mean, 1 / (n - ddof)) over the reduced axes, in the dtype var computes in."""
    centred = d.bind("subtract", x, d.bind("mean", x, axis=axis, keepdims=True, dtype=dtype))
    real = d.real_dtype(centred.dtype)
    n = d.count(x, _reduced_axes(x, axis), real)
    scale = d.bind("divide", d.scalar(1, real),
                   d.bind("subtract", n, d.scalar(ddof or 0, real)))
    if centred.dtype.kind == "c":    # (d|z|^2 in JAX's convention: 2 conj(z))
        centred = d.bind("conjugate", centred)
    return centred, scale


@get("var").def_vjp
def _var_vjp(inputs, outputs, cts, axis=None, keepdims=False, dtype=None, ddof=0):
    """2 (x - mean) / (n - ddof) (the mean's own derivative sums to zero against it)."""
    x, = inputs
    ct = d.keep_reduced(cts[0], x, axis, keepdims)
    centred, scale = _moments(x, axis, ddof, dtype)
    weight = d.bind("multiply", ct, d.bind("multiply", scale, d.scalar(2, scale.dtype)))
    return [d.bind("multiply", centred, weight)]


@get("std").def_vjp
def _std_vjp(inputs, outputs, cts, axis=None, keepdims=False, dtype=None, ddof=0):
    """(x - mean) / ((n - ddof) std): var's over 2 std. Where std is 0 (all elements
    equal) this divides by zero: NaN, as JAX's sqrt of var gives."""
    x, = inputs
    ct = d.keep_reduced(cts[0], x, axis, keepdims)
    std = d.keep_reduced(outputs[0], x, axis, keepdims)
    centred, scale = _moments(x, axis, ddof, dtype)
    weight = d.bind("divide", d.bind("multiply", ct, scale), std)
    return [d.bind("multiply", centred, weight)]


def _flip(x, axis):
    """x reversed along `axis`."""
    index = [slice(None)] * len(x.shape)
    index[axis] = slice(None, None, -1)
    return d.bind("get_item", x, index=tuple(index))


def _scanned(x, axis):
    """(x as a cumulative op scans it: flattened for axis None; the axis it scans)."""
    if axis is None:
        return d.bind("ravel", x), 0
    return x, normalize_axis(axis, len(x.shape))


@get("cumsum").def_vjp
def _cumsum_vjp(inputs, outputs, cts, axis=None, dtype=None):
    """ct summed from each position to the end: a cumsum of ct reversed, reversed."""
    x, ct = inputs[0], cts[0]
    axis = 0 if axis is None else normalize_axis(axis, len(x.shape))
    total = _flip(d.bind("cumsum", _flip(ct, axis), axis=axis, dtype=None), axis)
    return [d.reshape_to(total, x)]


@get("cumprod").def_vjp
def _cumprod_vjp(inputs, outputs, cts, axis=None, dtype=None):
    """sum over k >= i of ct_k y_k, over x_i: right for nonzero x; at a zero of x this
    divides 0 by 0 (NaN at that element, not a wrong number)."""
    x, = inputs
    scanned, axis = _scanned(x, axis)
    y, ct = outputs[0], cts[0]
    weighted = d.bind("multiply", ct, y)
    total = _flip(d.bind("cumsum", _flip(weighted, axis), axis=axis, dtype=None), axis)
    return [d.reshape_to(d.bind("divide", total, scanned), x)]
