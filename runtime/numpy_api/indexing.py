"""Indexing functions on symbolic arrays: np.take, np.take_along_axis, np.put_along_axis,
np.put, np.compress, np.extract (and the methods x.take, x.put, x.compress), and the
ufunc method `at` (np.add.at, np.maximum.at, ...).

Each is what NumPy computes it as, written with the indexing ops: np.take is an index along
one axis, np.take_along_axis an index by the indices and aranges broadcast against them
(NumPy's own construction), np.compress and np.extract take the indices of np.nonzero.
Only ufunc.at needs an op of its own (runtime/ops/indexing.py: ufunc_at): an element
indexed twice is combined twice, where `x[i] += v` writes it once."""

import numpy as np

from runtime import errors, ops
from runtime.numpy_api import (UFUNC_METHODS, _numpy_checks, _targets, method, implements,
                               not_supported, ravel, reshape)
from runtime.ops.elementwise import UFUNC_OPS
from runtime.ops.indexing import at_loop, is_basic
from runtime.ops.inference import normalize_axis
from runtime.tensor import Tensor, cast, normalize_index

_MODES = ("raise", "wrap", "clip")


def _tensor(x):
    return x if isinstance(x, Tensor) else Tensor(ops.to_value(np.asarray(x)))


def _clip_mode(mode):
    if mode not in _MODES:
        raise errors.mark_python_error(ValueError(
            "clipmode must be one of 'clip', 'raise', or 'wrap' (got %r)" % (mode,)))


def _moded(indices, size, mode):
    """The indices NumPy takes with `mode` along an axis of `size`: as they are ('raise':
    out of range is NumPy's IndexError), modulo the size ('wrap'), or clipped to it
    ('clip', which also takes negative ones to 0). Of NumPy's intp dtype; a bool is an int
    there."""
    if indices.dtype != np.intp:
        indices = cast(indices, np.intp)
    if mode == "wrap":
        return np.mod(indices, size)
    if mode == "clip":
        return np.clip(indices, 0, size - 1)
    return indices


@implements(np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    if out is not None:
        raise not_supported("np.take(..., out=)")
    _clip_mode(mode)
    # (NumPy's errors for the indices' dtype, a bad axis: on stand-ins, which 'wrap' keeps
    # in range.)
    _numpy_checks(np.take, a, indices, axis=axis, mode="wrap")
    a, indices = _tensor(a), _tensor(indices)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, a.ndim)
    return a[(slice(None),) * axis + (_moded(indices, a.shape[axis], mode),)]


method("take")(take)


def _along_axis(arr, indices, axis):
    """(array, index) of NumPy's take_along_axis / put_along_axis: the indices where the
    axis is, an arange of each other axis broadcast against them (NumPy's
    _make_along_axis_idx); axis=None indexes the flattened array."""
    arr, indices = _tensor(arr), _tensor(indices)
    if axis is None:
        if indices.ndim != 1:
            raise errors.mark_python_error(ValueError(
                "when axis=None, `indices` must have a single dimension."))
        arr, axis = _flat(arr), 0
    else:
        axis = normalize_axis(axis, arr.ndim)
    if indices.dtype.kind not in "iu":
        raise errors.mark_python_error(IndexError("`indices` must be an integer array"))
    if arr.ndim != indices.ndim:
        raise errors.mark_python_error(ValueError(
            "`indices` and `arr` must have the same number of dimensions"))
    index = []
    for dim, size in enumerate(arr.shape):
        if dim == axis:
            index.append(indices)
            continue
        shape = (1,) * dim + (-1,) + (1,) * (arr.ndim - dim - 1)
        index.append(reshape(Tensor(ops.get("arange").bind1([0, size, 1], dtype=np.intp)),
                             shape))
    return arr, tuple(index)


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    arr, index = _along_axis(arr, indices, axis)
    return arr[index]


def _flat(a):
    """The elements of `a` in a row, as a new handle that the caller writes back into `a`
    itself (not a view of it)."""
    return Tensor(ops.get("ravel").bind1([a]))


@implements(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    """Writes `values` into arr at NumPy's take_along_axis places. (With axis=None NumPy
    writes through `np.array(arr.flat)`, a view of a C-contiguous arr, and raises for
    another: this writes into arr in both cases.)"""
    _targets("np.put_along_axis(arr, ...)", arr)
    target, index = _along_axis(arr, indices, axis)
    target[index] = values
    if axis is None:
        arr[...] = reshape(target, arr.shape)


@implements(np.put)
def put(a, ind, v, mode="raise"):
    """a.flat[ind] = v as NumPy's put does it: v repeated as often as the indices need
    (not broadcast), written in order (of repeated indices, the last wins)."""
    _targets("np.put(a, ...)", a)
    _clip_mode(mode)
    _numpy_checks(np.put, a, ind, v, mode="wrap")
    ind, v = ravel(_tensor(ind)), ravel(_tensor(v))
    if v.static_shape == (0,):
        return   # (NumPy puts nothing)
    flat = _flat(a)
    count = ind.shape[0]
    repeated = v[np.mod(Tensor(ops.get("arange").bind1([0, count, 1], dtype=np.intp)),
                        v.shape[0])]
    flat[_moded(ind, flat.shape[0], mode)] = repeated
    a[...] = reshape(flat, a.shape)


method("put")(put)


@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """The slices of `a` where the 1-d `condition` is true: NumPy's take of its nonzero()
    (a shorter condition takes the first slices; one true past the end is an IndexError)."""
    if out is not None:
        raise not_supported("np.compress(..., out=)")
    condition = _tensor(condition)
    if condition.ndim != 1:
        raise errors.mark_python_error(ValueError("condition must be a 1-d array"))
    return take(a, np.nonzero(condition)[0], axis=axis)


@method("compress")
def compress_method(a, condition, axis=None, out=None):
    return compress(condition, a, axis, out)


@implements(np.extract)
def extract(condition, arr):
    """NumPy's take(ravel(arr), nonzero(ravel(condition))[0])."""
    return take(ravel(arr), np.nonzero(ravel(condition))[0])


def ufunc_at(ufunc, a, indices, b=None):
    """np.<ufunc>.at(a, indices, b): a[indices] = ufunc(a[indices], b), unbuffered: an element
    indexed k times is combined k times (`a[i] += b` adds once). NumPy takes b as an array
    (a Python number as strong as an int64 or float64 array) and casts the result to a's
    dtype unsafely. Writes into a, as NumPy does."""
    name = "np.%s.at" % ufunc.__name__
    _targets("%s(a, ...)" % name, a)
    if not isinstance(a, Tensor):
        raise errors.mark_python_error(TypeError("first operand must be array"))
    if ufunc.nin != 2 or ufunc.nout != 1 or ufunc not in UFUNC_OPS:
        raise not_supported(name)
    if b is None:
        raise errors.mark_python_error(ValueError("second operand needed for ufunc"))
    template, dynamic = normalize_index(indices)
    dynamic = [ops.to_value(d) for d in dynamic]
    value = ops.to_value(b)
    if is_basic(template, dynamic):
        # (No element is indexed twice: a read, the ufunc in NumPy's loop, a write.)
        first, second, _ = at_loop(ufunc.__name__, ops.to_value(a), value)
        current, operand = a[indices], Tensor(value)
        if current.dtype != first:
            current = cast(current, first)
        if operand.dtype != second or value.weak:
            operand = cast(operand, second)
        a[indices] = ufunc(current, operand)
        return
    a._update(lambda current: ops.get("ufunc_at").bind1(
        [current, value] + dynamic, index=template, ufunc=ufunc.__name__))


UFUNC_METHODS["at"] = ufunc_at
