"""Sorting and searching: sort, argsort. One NumPy function each (runtime/ops/calls.py)."""

import numpy as np

from runtime.ops.calls import defcall
from runtime.ops.inference import prod_or_none


def _along_axis(shape, axis, **_):
    """The shape of a result along `axis` of the input, or of the flattened input."""
    return (prod_or_none(shape),) if axis is None else shape


def _native_sort(g, node, ins):
    # Numba's np.sort sorts the last axis, NaNs last, as NumPy; any algorithm gives the
    # same values.
    x = node.inputs[0]
    if node.attrs["axis"] is None:
        return "np.sort(%s.ravel())" % ins[0]
    if len(x.shape) and node.attrs["axis"] in (-1, len(x.shape) - 1):
        return "np.sort(%s)" % ins[0]
    return None


def _native_argsort(g, node, ins):
    # Ties: only a stable sort is defined, and only there does Numba's (merge sort, 1-D)
    # give NumPy's indices; other kinds run NumPy's.
    x = node.inputs[0]
    if node.attrs["stable"] or node.attrs["kind"] in ("stable", "mergesort"):
        if node.attrs["axis"] is None:
            return "np.argsort(%s.ravel(), kind='mergesort')" % ins[0]
        if len(x.shape) == 1:
            return "np.argsort(%s, kind='mergesort')" % ins[0]
    return None


sort = defcall("sort", np.sort, _along_axis, native=_native_sort)
argsort = defcall("argsort", np.argsort, _along_axis, native=_native_argsort)
