"""Statistics on symbolic arrays: quantiles (np.median, np.percentile, np.quantile), np.average,
np.ptp, the nan-reductions, np.isclose / np.allclose / np.array_equal, and the reductions'
`where=` and `initial=`.

Where NumPy computes a function by composing others (np.nansum is np.sum of the array with
its NaNs replaced; np.average is sums and a division; np.isclose is ufuncs), the handler
composes the same calls in the same order, so the graph gives NumPy's bits and needs no op
of its own. Where NumPy runs one kernel (np.median, np.nanmax, np.sum(where=)), the graph
calls that function (runtime/ops/statistics.py).
"""

import builtins

import numpy as np

from runtime import ops
from runtime.api import Raise, holds_symbolic
from runtime.conditionals import cond
from runtime.numpy_api import (_NOVALUE, HANDLERS, _axis, _check_unsupported, implements,
                               masked_reduce, not_supported)
from runtime.ops.statistics import QUANTILES
from runtime.tensor import Tensor, as_python_scalar, cast, is_python_scalar, is_tensor

# --- quantiles ------------------------------------------------------------------------------

def _quantile(fn, a, q, axis, out, overwrite_input, keepdims, method="linear", weights=None,
              interpolation=None):
    name = "np.%s" % fn.__name__
    _check_unsupported(name, out=out, weights=weights, interpolation=interpolation)
    if overwrite_input:
        raise not_supported("%s(..., overwrite_input=True) (NumPy leaves the input "
                            "partly sorted)" % name)
    attrs = dict(axis=_axis(axis), keepdims=bool(keepdims) if keepdims is not _NOVALUE
                 else False)
    inputs = [a]
    if fn in (np.percentile, np.quantile, np.nanpercentile, np.nanquantile):
        attrs["method"] = method
        if _is_python_numbers(q):
            # (Python numbers stay an attr: weak, as NumPy takes them.)
            attrs["q"] = q if isinstance(q, (int, float)) else _as_tuple(q)
        else:
            inputs.append(q)
    return Tensor(QUANTILES[fn].bind1(inputs, **attrs))


def _is_python_numbers(q):
    if isinstance(q, (list, tuple)):
        return builtins.all(_is_python_numbers(item) for item in q)
    return isinstance(q, (bool, int, float)) and not is_tensor(q)


def _as_tuple(q):
    return tuple(_as_tuple(item) if isinstance(item, (list, tuple)) else item for item in q)


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _quantile(np.median, a, None, axis, out, overwrite_input, keepdims)


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=_NOVALUE):
    return _quantile(np.nanmedian, a, None, axis, out, overwrite_input, keepdims)


def _quantile_handler(fn):
    def handler(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
        return _quantile(fn, a, q, axis, out, overwrite_input, keepdims, method, weights,
                         interpolation)
    return handler


for _fn in (np.percentile, np.quantile, np.nanpercentile, np.nanquantile):
    implements(_fn)(_quantile_handler(_fn))
del _fn


# --- average, ptp ---------------------------------------------------------------------------

def _shape_equal(a, b):
    """a.shape == b.shape: a Python bool where the trace knows, else a bool tensor."""
    if a.ndim != b.ndim:
        return False
    same = True
    for x, y in zip(a.shape, b.shape):
        if isinstance(x, int) and isinstance(y, int):
            if x != y:
                return False
            continue
        equal = Tensor(ops.get("equal").bind1([x, y]))
        same = equal if same is True else np.logical_and(same, equal)
    return same


def _as_tensor(x):
    """x as a Tensor: a list or tuple holding tensors stacked, as NumPy would make it."""
    if is_tensor(x):
        return x
    return Tensor(ops.to_value(x if holds_symbolic(x) else np.asanyarray(x)))


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=_NOVALUE):
    """NumPy's np.average (numpy/lib/_function_base_impl.py), call for call."""
    a = _as_tensor(a)
    if axis is not None:
        axis = _axis(axis)
        axis = tuple(ops.normalize_axes(axis, a.ndim))
    kept = {} if keepdims is _NOVALUE else {"keepdims": keepdims}
    if weights is None:
        avg = a.mean(axis, **kept)
        scl = cast(a.size / avg.size, avg.dtype)
    else:
        wgt = _weights(weights, a, axis)
        if a.dtype.kind in "biu":
            result_dtype = np.result_type(a.dtype, wgt.dtype, "f8")
        else:
            result_dtype = np.result_type(a.dtype, wgt.dtype)
        scl = wgt.sum(axis=axis, dtype=result_dtype, **kept)
        Raise(ZeroDivisionError("Weights sum to zero, can't be normalized"),
              unless=np.logical_not(np.any(scl == 0.0)))
        avg = np.multiply(a, wgt, dtype=result_dtype).sum(axis, **kept) / scl
    if not returned:
        return avg
    if _shape_equal(scl, avg) is not True:
        scl = np.ones_like(avg, dtype=scl.dtype) * scl   # (np.broadcast_to, exactly)
    return avg, scl


def _weights(weights, a, axis):
    """NumPy's _weights_are_valid: the weights, shaped to broadcast against `a`. Where the
    trace does not know the sizes, weights of a's rank must have its shape (checked when
    the graph runs)."""
    wgt = _as_tensor(weights)
    same = _shape_equal(a, wgt)
    if same is True:
        return wgt
    if same is not False:   # (of a's rank, sizes known when the graph runs)
        error = (TypeError("Axis must be specified when shapes of a and weights differ.")
                 if axis is None else
                 ValueError("Shape of weights must be consistent with shape of a along "
                            "specified axis."))
        Raise(error, unless=same)
        return wgt
    if axis is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    if wgt.ndim != len(axis):
        raise ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis.")
    same = True
    for x, ax in zip(wgt.shape, axis):
        y = a.shape[ax]
        if isinstance(x, int) and isinstance(y, int):
            if x != y:
                raise ValueError("Shape of weights must be consistent with shape of a "
                                 "along specified axis.")
            continue
        equal = Tensor(ops.get("equal").bind1([x, y]))
        same = equal if same is True else np.logical_and(same, equal)
    if same is not True:
        Raise(ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis."), unless=same)
    wgt = wgt.transpose(tuple(int(i) for i in np.argsort(axis)))
    return wgt.reshape(tuple(s if ax in axis else 1 for ax, s in enumerate(a.shape)))


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    _check_unsupported("np.ptp", out=out)
    keepdims = False if keepdims is _NOVALUE else keepdims
    return np.subtract(np.max(a, axis=axis, keepdims=keepdims),
                       np.min(a, axis=axis, keepdims=keepdims))


# --- nan-reductions -------------------------------------------------------------------------
# NumPy's own compositions (numpy/lib/_nanfunctions_impl.py): the NaNs replaced, then the
# reduction; np.nanmax and np.nanmin are one kernel (np.fmax.reduce), called as such.

def _replace_nan(a, value):
    """NumPy's _replace_nan: (a with its NaNs replaced by value, the NaN mask), or (a, None)
    for a dtype without NaNs."""
    a = _as_tensor(a)
    if a.dtype.kind not in "fc":
        return a, None
    mask = np.isnan(a)
    return np.where(mask, value, a), mask


def _divide_by_count(total, count):
    """NumPy's _divide_by_count: the quotient in total's dtype."""
    quotient = np.divide(total, count)
    return quotient if quotient.dtype == total.dtype else cast(quotient, total.dtype)


def _kept(keepdims):
    return False if keepdims is _NOVALUE else keepdims


def _nan_replaced(fn, fill):
    """NumPy's nan-form of a sum or product: `fn` of the array with its NaNs replaced by
    `fill` (numpy/lib/_nanfunctions_impl.py)."""
    def handler(a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE,
                where=_NOVALUE):
        a, _ = _replace_nan(a, fill)
        return HANDLERS[fn](a, axis=axis, dtype=dtype, out=out, keepdims=_kept(keepdims),
                            initial=initial, where=where)
    return handler


def _nan_replaced_cumulative(fn, fill):
    def handler(a, axis=None, dtype=None, out=None):
        a, _ = _replace_nan(a, fill)
        return HANDLERS[fn](a, axis=axis, dtype=dtype, out=out)
    return handler


nansum = implements(np.nansum)(_nan_replaced(np.sum, 0))
nanprod = implements(np.nanprod)(_nan_replaced(np.prod, 1))
nancumsum = implements(np.nancumsum)(_nan_replaced_cumulative(np.cumsum, 0))
nancumprod = implements(np.nancumprod)(_nan_replaced_cumulative(np.cumprod, 1))


def _inexact(name, dtype):
    if dtype is not None and not np.issubdtype(np.dtype(dtype), np.inexact):
        raise TypeError("If a is inexact, then dtype must be inexact")


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
    _check_unsupported("np.nanmean", out=out)
    arr, mask = _replace_nan(a, 0)
    keepdims = _kept(keepdims)
    if mask is None:
        return HANDLERS[np.mean](arr, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    _inexact("np.nanmean", dtype)
    count = HANDLERS[np.sum](np.logical_not(mask), axis=axis, dtype=np.intp,
                             keepdims=keepdims, where=where)
    total = HANDLERS[np.sum](arr, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    return _divide_by_count(total, count)


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NOVALUE, *, where=_NOVALUE,
           mean=_NOVALUE, correction=_NOVALUE):
    _check_unsupported("np.nanvar", out=out, mean=mean, correction=correction)
    arr, mask = _replace_nan(a, 0)
    keepdims = _kept(keepdims)
    if mask is None:
        return HANDLERS[np.var](arr, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                                where=where)
    _inexact("np.nanvar", dtype)
    count = HANDLERS[np.sum](np.logical_not(mask), axis=axis, dtype=np.intp, keepdims=True,
                             where=where)
    avg = HANDLERS[np.sum](arr, axis=axis, dtype=dtype, keepdims=True, where=where)
    avg = _divide_by_count(avg, count)
    deviation = np.subtract(arr, avg)
    if deviation.dtype != arr.dtype:   # (NumPy subtracts into arr: cast unsafely)
        deviation = cast(deviation, arr.dtype)
    deviation = np.where(mask, 0, deviation)
    if deviation.dtype.kind == "c":
        squares = np.real(np.multiply(deviation, np.conj(deviation)))
    else:
        squares = np.multiply(deviation, deviation)
    var = HANDLERS[np.sum](squares, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    if var.ndim < count.ndim:
        count = np.squeeze(count, axis)
    dof = count - ddof
    var = _divide_by_count(var, dof)
    # (NumPy's _copyto: NaN where dof <= 0, in var's dtype; a scalar stays a scalar.)
    return Tensor(ops.get("where").bind1([dof <= 0, np.nan, var]))


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NOVALUE, *, where=_NOVALUE,
           mean=_NOVALUE, correction=_NOVALUE):
    var = nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                 where=where, mean=mean, correction=correction)
    return np.sqrt(var)


def _nan_extreme(fn):
    def handler(a, axis=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE, where=_NOVALUE):
        a = _as_tensor(a)
        if a.dtype.kind not in "fc":   # (no NaNs: NumPy's np.fmax.reduce is np.max there)
            reduce = HANDLERS[np.max if fn is np.nanmax else np.min]
            return reduce(a, axis=axis, out=out, keepdims=_kept(keepdims), initial=initial,
                          where=where)
        return masked_reduce(fn, a, axis=axis, out=out, keepdims=_kept(keepdims),
                             initial=initial, where=True if where is _NOVALUE else where)
    return handler


nanmax = implements(np.nanmax)(_nan_extreme(np.nanmax))
nanmin = implements(np.nanmin)(_nan_extreme(np.nanmin))


def _nan_arg(fn, replacement):
    arg = np.argmax if fn is np.nanargmax else np.argmin

    def handler(a, axis=None, out=None, *, keepdims=_NOVALUE):
        _check_unsupported("np.%s" % fn.__name__, out=out)
        a, mask = _replace_nan(a, replacement)
        if mask is not None:
            all_nan = np.any(np.all(mask, axis=axis))
            Raise(ValueError("All-NaN slice encountered"),
                  unless=np.logical_or(mask.size == 0, np.logical_not(all_nan)))
        return HANDLERS[arg](a, axis=axis, keepdims=_kept(keepdims))
    return handler


nanargmax = implements(np.nanargmax)(_nan_arg(np.nanargmax, -np.inf))
nanargmin = implements(np.nanargmin)(_nan_arg(np.nanargmin, np.inf))


# --- comparisons ----------------------------------------------------------------------------

@implements(np.isclose)
def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """NumPy's np.isclose (numpy/_core/numeric.py), ufunc for ufunc."""
    x, y = a, b
    if is_tensor(y) and y.ndim == 0 and is_python_scalar(y):
        if y.dtype.kind in "bi":
            y = y + 0.0   # (float(y): Python's)
    elif is_tensor(y) or not isinstance(y, (int, float, complex)):
        y = y if is_tensor(y) else np.asanyarray(y)
        wanted = np.result_type(y.dtype, 1.0)
        if y.dtype.kind != "m" and wanted != y.dtype:
            y = y.astype(wanted) if is_tensor(y) else np.asanyarray(y, dtype=wanted)
    elif isinstance(y, int):
        y = float(y)
    x = x if is_tensor(x) or isinstance(x, (int, float, complex)) else np.asanyarray(x)
    result = np.logical_or(
        np.logical_and(np.less_equal(abs(x - y), atol + rtol * abs(y)), np.isfinite(y)),
        np.equal(x, y))
    if equal_nan:
        result = np.logical_or(result, np.logical_and(np.isnan(x), np.isnan(y)))
    return result


@implements(np.allclose)
def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """A Python bool, as NumPy's: a graph `if` on it is a graph conditional."""
    return as_python_scalar(Tensor(ops.to_value(
        np.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))))


@implements(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    """A Python bool, as NumPy's: False for different shapes (decided when the graph runs
    where the trace does not know the sizes), else whether all elements are equal (NaNs
    equal to NaNs with equal_nan)."""
    a1, a2 = _as_tensor(a1), _as_tensor(a2)
    same = _shape_equal(a1, a2)
    if same is False:
        return False

    def compare():
        equal = np.equal(a1, a2)
        if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
            equal = np.logical_or(equal, np.logical_and(np.isnan(a1), np.isnan(a2)))
        return as_python_scalar(Tensor(ops.to_value(np.all(equal))))

    if same is True:
        return compare()
    return cond(same, compare, lambda: False)


@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's np.trapezoid, call for call: the mean of neighbouring values times the
    spacing (dx, or the differences of x), summed along `axis`."""
    y = _as_tensor(y)
    if x is None:
        d = dx
    else:
        x = _as_tensor(x)
        if x.ndim == 1:
            d = np.diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = np.diff(x, axis=axis)
    ahead = [slice(None)] * y.ndim
    behind = [slice(None)] * y.ndim
    ahead[axis] = slice(1, None)
    behind[axis] = slice(None, -1)
    return (d * (y[tuple(ahead)] + y[tuple(behind)]) / 2.0).sum(axis)
