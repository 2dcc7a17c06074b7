"""NumPy functions on symbolic tensors: the __array_ufunc__ / __array_function__ tables.

Each supported NumPy function maps to a handler with NumPy's signature that records ops.
Anything else raises TypeError("np.X is not supported in graphs yet"): never a wrong result.
"""

import sys

import numpy as np

from runtime import ops, path_kinds, tensor
from runtime.ops.elementwise import UFUNC_OPS
from runtime.ops.reductions import ARG_REDUCTIONS, CUMULATIVE, REDUCTIONS
from runtime.ops.shapes import squeeze_axes
from runtime.tensor import Tensor, cast, is_ndarray, mark_ndarray, wrap

HANDLERS = {}
_NOVALUE = np._NoValue


def numpy_name(func):
    module = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", repr(func))
    if module.startswith("numpy"):
        parts = module.split(".")[1:]
        parts = [p for p in parts if not p.startswith("_")]
        return ".".join(["np"] + parts + [name])
    return name


def not_supported(name):
    return TypeError("%s is not supported in graphs yet" % name)


def _check_unsupported(name, **kwargs):
    for key, value in kwargs.items():
        if value is not None and value is not _NOVALUE and value is not False:
            raise not_supported("%s(..., %s=)" % (name, key))


def apply_function(func, args, kwargs):
    handler = HANDLERS.get(func)
    if handler is None:
        raise not_supported(numpy_name(func))
    return handler(*args, **kwargs)


_UFUNC_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.minimum: np.min,
                 np.maximum: np.max, np.logical_and: np.all, np.logical_or: np.any}


def apply_ufunc(ufunc, method, inputs, kwargs):
    name = "np.%s" % ufunc.__name__
    if method == "reduce" and ufunc in _UFUNC_REDUCE and set(kwargs) <= {"axis", "keepdims", "dtype"}:
        axis = kwargs.get("axis", 0)
        return _reduce(_UFUNC_REDUCE[ufunc], inputs[0], axis, kwargs.get("dtype"),
                       kwargs.get("keepdims", False))
    if method == "accumulate" and ufunc in (np.add, np.multiply) and set(kwargs) <= {"axis", "dtype"}:
        fn = np.cumsum if ufunc is np.add else np.cumprod
        return cumulative(fn)(inputs[0], axis=kwargs.get("axis", 0), dtype=kwargs.get("dtype"))
    if method != "__call__":
        raise not_supported("%s.%s" % (name, method))
    if kwargs.get("out") is not None:
        raise not_supported("%s(..., out=)" % name)
    extra = {k: v for k, v in kwargs.items() if k != "out"}
    if ufunc is np.matmul:
        if extra:
            raise not_supported("np.matmul(..., %s=)" % ", ".join(extra))
        return wrap(ops.get("matmul").bind(list(inputs)))
    op = UFUNC_OPS.get(ufunc)
    if op is None:
        raise not_supported(name)
    dtype = extra.pop("dtype", None)
    if extra:
        raise not_supported("%s(..., %s=)" % (name, ", ".join(sorted(extra))))
    # (NEP 50: Python scalars the graph holds are weak next to NumPy values, as in Python.)
    values = path_kinds.as_weak(op.name, [ops.to_value(x) for x in inputs],
                                lambda name, inputs, **attrs: ops.get(name).bind1(inputs, **attrs))
    result = wrap(op.bind(values))
    if dtype is not None:
        result = cast(result, dtype) if not isinstance(result, tuple) else tuple(
            cast(r, dtype) for r in result)
    return result


def implements(*funcs):
    def register(handler):
        for func in funcs:
            HANDLERS[func] = handler
        return handler
    return register


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) for a in axis)
    if isinstance(axis, Tensor):
        raise TypeError("axis must be a Python int in graphs, not a tensor")
    return int(axis)


def _dtype(dtype):
    return None if dtype is None else np.dtype(dtype)


# --- reductions -----------------------------------------------------------------------------

def _reduce(fn, a, axis=None, dtype=None, keepdims=False, **extra):
    attrs = dict(axis=_axis(axis), keepdims=bool(keepdims))
    if fn in (np.sum, np.prod, np.mean, np.std, np.var):
        attrs["dtype"] = _dtype(dtype)
    elif dtype is not None:
        raise not_supported("np.%s(..., dtype=)" % fn.__name__)
    attrs.update(extra)
    return Tensor(REDUCTIONS[fn].bind1([a], **attrs))


@implements(np.sum)
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    _check_unsupported("np.sum", out=out, initial=initial, where=where)
    return _reduce(np.sum, a, axis, dtype, keepdims)


@implements(np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    _check_unsupported("np.prod", out=out, initial=initial, where=where)
    return _reduce(np.prod, a, axis, dtype, keepdims)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NOVALUE):
    _check_unsupported("np.mean", out=out, where=where)
    return _reduce(np.mean, a, axis, dtype, keepdims)


@implements(np.min, np.amin)
def min(a, axis=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    _check_unsupported("np.min", out=out, initial=initial, where=where)
    return _reduce(np.min, a, axis, None, keepdims)


@implements(np.max, np.amax)
def max(a, axis=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    _check_unsupported("np.max", out=out, initial=initial, where=where)
    return _reduce(np.max, a, axis, None, keepdims)


@implements(np.any)
def any(a, axis=None, out=None, keepdims=False, *, where=_NOVALUE):
    _check_unsupported("np.any", out=out, where=where)
    return _reduce(np.any, a, axis, None, keepdims)


@implements(np.all)
def all(a, axis=None, out=None, keepdims=False, *, where=_NOVALUE):
    _check_unsupported("np.all", out=out, where=where)
    return _reduce(np.all, a, axis, None, keepdims)


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NOVALUE, **kw):
    _check_unsupported("np.std", out=out, where=where, **kw)
    return _reduce(np.std, a, axis, dtype, keepdims, ddof=ddof)


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NOVALUE, **kw):
    _check_unsupported("np.var", out=out, where=where, **kw)
    return _reduce(np.var, a, axis, dtype, keepdims, ddof=ddof)


def _arg(fn):
    def handler(a, axis=None, out=None, *, keepdims=False):
        _check_unsupported("np.%s" % fn.__name__, out=out)
        if axis is not None:
            axis = int(axis)
        return Tensor(ARG_REDUCTIONS[fn].bind1([a], axis=axis, keepdims=bool(keepdims)))
    return handler


argmin = implements(np.argmin)(_arg(np.argmin))
argmax = implements(np.argmax)(_arg(np.argmax))


def cumulative(fn):
    def handler(a, axis=None, dtype=None, out=None):
        _check_unsupported("np.%s" % fn.__name__, out=out)
        return Tensor(CUMULATIVE[fn].bind1([a], axis=None if axis is None else int(axis),
                                           dtype=_dtype(dtype)))
    return handler


cumsum = implements(np.cumsum)(cumulative(np.cumsum))
cumprod = implements(np.cumprod)(cumulative(np.cumprod))


def _array(value):
    """A handle on `value` that is an ndarray also at rank 0, as what np.where, np.copy,
    np.zeros_like... return: a 0-d array is written in place by `+=` (its aliases see it)
    and returned as a 0-d array, where a NumPy scalar is rebound."""
    return mark_ndarray(Tensor(value))


# --- elementwise helpers --------------------------------------------------------------------

@implements(np.where)
def where(condition, x=_NOVALUE, y=_NOVALUE):
    if x is _NOVALUE or y is _NOVALUE:
        raise not_supported("np.where(condition) (the one-argument form)")
    return _array(ops.get("where").bind1([condition, x, y]))


@implements(np.clip)
def clip(a, a_min=_NOVALUE, a_max=_NOVALUE, out=None, *, min=_NOVALUE, max=_NOVALUE, **kwargs):
    _check_unsupported("np.clip", out=out, **kwargs)
    low = a_min if a_min is not _NOVALUE else (None if min is _NOVALUE else min)
    high = a_max if a_max is not _NOVALUE else (None if max is _NOVALUE else max)
    if low is None and high is None:
        return copy(a)
    if high is None:
        return Tensor(ops.get("clip_min").bind1([a, low]))
    if low is None:
        return Tensor(ops.get("clip_max").bind1([a, high]))
    return Tensor(ops.get("clip").bind1([a, low, high]))


@implements(np.round, np.around)
def round(a, decimals=0, out=None):
    _check_unsupported("np.round", out=out)
    return Tensor(ops.get("round").bind1([a], decimals=int(decimals)))


# --- products -------------------------------------------------------------------------------

@implements(np.dot)
def dot(a, b, out=None):
    _check_unsupported("np.dot", out=out)
    return Tensor(ops.get("dot").bind1([a, b]))


@implements(np.outer)
def outer(a, b, out=None):
    _check_unsupported("np.outer", out=out)
    return Tensor(ops.get("outer").bind1([a, b]))


# --- shapes ---------------------------------------------------------------------------------

def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise not_supported("np.reshape(..., order=%r)" % order)
    if copy:
        raise not_supported("np.reshape(..., copy=True)")
    if shape is None:
        shape = newshape
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    template, dynamic = [], []
    for d in shape:
        if isinstance(d, (int, np.integer)):
            template.append(int(d))
        else:
            template.append(None)
            dynamic.append(d)
    return Tensor(ops.get("reshape").bind1([a] + dynamic, newshape=tuple(template)))


HANDLERS[np.reshape] = reshape


@implements(np.transpose)
def transpose(a, axes=None):
    return Tensor(ops.get("transpose").bind1(
        [a], axes=None if axes is None else tuple(int(x) for x in axes)))


@implements(np.swapaxes)
def swapaxes(a, axis1, axis2):
    return Tensor(ops.get("swapaxes").bind1([a], axis1=int(axis1), axis2=int(axis2)))


@implements(np.expand_dims)
def expand_dims(a, axis):
    axis = tuple(int(x) for x in axis) if isinstance(axis, (tuple, list)) else (int(axis),)
    return Tensor(ops.get("expand_dims").bind1([a], axis=axis))


@implements(np.squeeze)
def squeeze(a, axis=None):
    value = ops.to_value(a)
    axes = squeeze_axes(value.shape, axis if not isinstance(axis, list) else tuple(axis))
    result = Tensor(ops.get("squeeze").bind1([value], axis=axes))
    # (An array squeezed to rank 0 is a 0-d array; a NumPy scalar stays a scalar.)
    return mark_ndarray(result) if is_ndarray(a) or not isinstance(a, Tensor) else result


@implements(np.ravel)
def ravel(a, order="C"):
    if order != "C":
        raise not_supported("np.ravel(..., order=%r)" % order)
    return Tensor(ops.get("ravel").bind1([a]))


@implements(np.copy)
def copy(a, order="K", subok=False):
    return _array(ops.get("copy").bind1([a]))


@implements(np.concatenate)
def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _check_unsupported("np.concatenate", out=out)
    result = Tensor(ops.get("concatenate").bind1(list(arrays),
                                                  axis=None if axis is None else int(axis)))
    return result if dtype is None else cast(result, dtype)


@implements(np.append)
def append(arr, values, axis=None):
    if axis is None:
        return concatenate((ravel(arr), ravel(values)))
    return concatenate((arr, values), axis=axis)


@implements(np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _check_unsupported("np.stack", out=out)
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    result = Tensor(ops.get("stack").bind1(arrays, axis=int(axis)))
    return result if dtype is None else cast(result, dtype)


@implements(np.shape)
def shape(a):
    return a.shape if isinstance(a, Tensor) else np.shape(a)


@implements(np.size)
def size(a, axis=None):
    if axis is None:
        return a.size
    return a.shape[int(axis)]


@implements(np.ndim)
def ndim(a):
    return a.ndim


# --- creation -------------------------------------------------------------------------------

def _like(name):
    op = ops.get(name)

    def handler(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        if shape is not None:
            raise not_supported("np.%s(..., shape=)" % name)
        return _array(op.bind1([a], dtype=_dtype(dtype)))
    return handler


zeros_like = implements(np.zeros_like)(_like("zeros_like"))
ones_like = implements(np.ones_like)(_like("ones_like"))
empty_like = implements(np.empty_like)(_like("empty_like"))


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if shape is not None:
        raise not_supported("np.full_like(..., shape=)")
    return _array(ops.get("full_like").bind1([a, fill_value], dtype=_dtype(dtype)))


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    if retstep or axis != 0:
        raise not_supported("np.linspace(..., retstep=/axis=)")
    return Tensor(ops.get("linspace").bind1([start, stop, num], endpoint=bool(endpoint),
                                            dtype=_dtype(dtype)))


tensor.use_numpy_api(sys.modules[__name__])
