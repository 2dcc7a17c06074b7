"""Sorting, searching and counting on symbolic arrays: np.sort, np.argsort, np.partition,
np.argpartition (x.sort() and x.partition() in place), np.searchsorted, np.digitize,
np.unique, np.nonzero (and np.where(condition)), np.argwhere, np.flatnonzero,
np.count_nonzero, np.bincount, np.histogram.

The arguments that decide a result's shape or its algorithm (axis, kth, side, minlength,
bins, the return_ flags) are static: a Python number argument of the function there makes
the trace specialise on its value (runtime/specialise.py), as in a shape."""

import operator

import numpy as np

from runtime import errors, ops
from runtime.numpy_api import (_array, _axis, _numpy_checks, implements, method,
                               not_supported, ravel, stack, sum, transpose)
from runtime.ops.inference import normalize_axis
from runtime.tensor import Tensor


def _sorted(name, a, axis, kind, order, stable):
    if order is not None:
        raise not_supported("np.%s(..., order=) (structured arrays)" % name)
    return _array(ops.get(name).bind1([a], axis=axis, kind=kind, stable=stable))


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _sorted("sort", a, axis, kind, order, stable)


@implements(np.argsort)
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _sorted("argsort", a, axis, kind, order, stable)


method("argsort")(argsort)


@method("sort")
def sort_in_place(a, axis=-1, kind=None, order=None, *, stable=None):
    """x.sort(): sorts x in place."""
    a[...] = sort(a, axis, kind, order, stable=stable)


def _partitioned(name, a, kth, axis, kind, order):
    if order is not None:
        raise not_supported("np.%s(..., order=) (structured arrays)" % name)
    a = a if isinstance(a, Tensor) else Tensor(ops.to_value(np.asarray(a)))
    axis = _axis(axis)
    many = isinstance(kth, (tuple, list))
    kth = tuple(operator.index(k) for k in kth) if many else operator.index(kth)
    # (NumPy's errors for the axis and, where the size is known, kth; else when it runs.)
    size = a.static_shape[normalize_axis(axis, a.ndim)] if axis is not None else a.size
    if isinstance(size, int):
        for k in kth if many else (kth,):
            if not -size <= k < size:
                raise errors.mark_python_error(
                    ValueError("kth(=%d) out of bounds (%d)" % (k + size if k < 0 else k,
                                                                  size)))
    return _array(ops.get(name).bind1([a], kth=kth, axis=axis, kind=kind))


@implements(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """np.partition: NumPy's own result (only the k-th elements' places are defined, the
    rest is the order NumPy's selection leaves), on both backends."""
    return _partitioned("partition", a, kth, axis, kind, order)


@implements(np.argpartition)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned("argpartition", a, kth, axis, kind, order)


method("argpartition")(argpartition)


@method("partition")
def partition_in_place(a, kth, axis=-1, kind="introselect", order=None):
    """x.partition(kth): partitions x in place."""
    a[...] = partition(a, kth, axis, kind, order)


@implements(np.searchsorted)
def searchsorted(a, v, side="left", sorter=None):
    inputs = [a, v] + ([] if sorter is None else [sorter])
    # (A 0-d v gives a NumPy scalar, as a scalar v.)
    return Tensor(ops.get("searchsorted").bind1(inputs, side=side))


method("searchsorted")(searchsorted)


@implements(np.digitize)
def digitize(x, bins, right=False):
    return Tensor(ops.get("digitize").bind1([x, bins], right=bool(right)))


@implements(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """np.unique of the flattened array: the values, and the arrays asked for (the
    number of unique values is known when the graph runs)."""
    if axis is not None:
        raise not_supported("np.unique(..., axis=)")
    values = ops.get("unique").bind(
        [ar], return_index=bool(return_index), return_inverse=bool(return_inverse),
        return_counts=bool(return_counts), equal_nan=bool(equal_nan), sorted=bool(sorted))
    results = tuple(_array(v) for v in values)
    return results[0] if len(results) == 1 else results


@implements(np.nonzero)
def nonzero(a):
    """The indices of the nonzero elements, one array per dim (their length is known when
    the graph runs)."""
    _numpy_checks(np.nonzero, a)   # (NumPy's ValueError for a 0-d array)
    return tuple(_array(v) for v in ops.get("nonzero").bind([a]))


method("nonzero")(nonzero)


@implements(np.argwhere)
def argwhere(a):
    """np.argwhere as NumPy computes it: the indices of np.nonzero, one row per element
    (a 0-d array: as an array of one element, with no column)."""
    if not isinstance(a, Tensor):
        a = Tensor(ops.to_value(a))
    if a.ndim == 0:
        return argwhere(stack([a]))[:, :0]
    return transpose(stack(nonzero(a)))


@implements(np.flatnonzero)
def flatnonzero(a):
    return nonzero(ravel(a))[0]


@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    """The number of nonzero elements: a sum of `a != 0`, of NumPy's int dtype."""
    return sum(np.not_equal(a, 0), axis=axis, keepdims=keepdims)


@implements(np.bincount)
def bincount(x, weights=None, minlength=0):
    """The counts (or the weights' sums) of each value of x, max(x) + 1 of them at least:
    the length is known when the graph runs."""
    inputs = [x] + ([] if weights is None else [weights])
    return _array(ops.get("bincount").bind1(inputs, minlength=operator.index(minlength)))


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """np.histogram with a number of bins (edges given as an array or a rule's name are
    refused): NumPy's counts and edges."""
    if isinstance(bins, str) or np.ndim(bins):
        raise not_supported("np.histogram(..., bins=<edges or a rule>) (give a number of bins)")
    bins = operator.index(bins)
    if range is not None:
        range = tuple(float(r) for r in range)
    if density is not None:
        density = bool(density)
    inputs = [a] + ([] if weights is None else [weights])
    hist, edges = ops.get("histogram").bind(inputs, bins=bins, range=range, density=density)
    return _array(hist), _array(edges)
