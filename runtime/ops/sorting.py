"""Sorting, searching and counting: sort, argsort, partition, argpartition, searchsorted,
digitize, unique, nonzero, bincount, histogram. One NumPy function each
(runtime/ops/calls.py): NumPy computes them on the NumPy executor, and on Numba natively
where Numba gives NumPy's results for those arguments and dtypes (each `_native_*` says
where, tested in tools/numpy_table/sorting.py), else NumPy in object mode.

np.nonzero, np.unique and np.bincount give arrays whose length the data decides: their
shapes have None there (the ops after them work with unknown sizes)."""

import numpy as np

from runtime.executors.numba import lowering as nl
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

# np.partition: only the k-th elements' places are defined, the order on either side is
# NumPy's introselect's. NumPy computes them on both executors (Numba's own partition
# orders the sides differently), so the whole result is NumPy's.
# (Their dtypes are said: NumPy on stand-ins of one element would find kth out of range.)
partition = defcall("partition", np.partition, _along_axis, dtype=lambda a, **_: a)
argpartition = defcall("argpartition", np.argpartition, _along_axis,
                       dtype=lambda a, **_: np.dtype(np.intp))


def _plain_comparison(*values):
    """Do Numba's comparisons of these values' dtypes give NumPy's (which compares in
    their common dtype)? Ints and floats: yes; uint64 with a signed int: no (NumPy goes
    to float64); bool, complex: left to NumPy."""
    kinds = {v.dtype.kind for v in values}
    if not kinds <= {"i", "u", "f"}:
        return False
    return not ({"i", "u"} <= kinds and any(v.dtype == np.uint64 for v in values))


def _native_searchsorted(g, node, ins):
    # Numba's np.searchsorted: NumPy's results, NaNs sorted last, for one sorted 1-d
    # array; a sorter is NumPy's.
    a, v = node.inputs[:2]
    if len(node.inputs) == 3 or len(a.shape) != 1 or not _plain_comparison(a, v):
        return None
    return "np.searchsorted(%s, %s, side=%r)" % (ins[0], ins[1], node.attrs["side"])


def _searchsorted(a, v, sorter=None, *, side):
    """np.searchsorted, its sorter an array input after v."""
    return np.searchsorted(a, v, side=side, sorter=sorter)


def _searchsorted_dtype(a, v, *sorter, side):
    # (Without the sorter: on stand-ins of one element, one of 1 would be out of range.)
    return np.searchsorted(np.ones(1, a), np.ones(1, v), side=side).dtype


searchsorted = defcall("searchsorted", _searchsorted, lambda a, v, *sorter, side: v,
                       dtype=_searchsorted_dtype, native=_native_searchsorted,
                       doc="np.searchsorted")


def _native_digitize(g, node, ins):
    # Numba's np.digitize: NumPy's algorithm (searchsorted either way, its error for bins
    # that are not monotonic) on arrays.
    x, bins = node.inputs
    if not len(x.shape) or not _plain_comparison(x, bins):
        return None
    return "np.digitize(%s, %s, %s)" % (ins[0], ins[1], node.attrs["right"])


digitize = defcall("digitize", np.digitize, lambda x, bins, right: x,
                   native=_native_digitize)


def _unique_outputs(ar, return_index, return_inverse, return_counts, **_):
    return 1 + return_index + return_inverse + return_counts


def _unique_shapes(shape, return_index, return_inverse, return_counts, **_):
    """The unique values, then each array asked for: the indices of first occurrences, the
    inverse (of the input's shape), the counts."""
    shapes = [(None,)]
    shapes += [(None,)] if return_index else []
    shapes += [shape] if return_inverse else []
    shapes += [(None,)] if return_counts else []
    return shapes


def _native_unique(g, node, ins):
    # Numba's np.unique: the sorted values only; of floats it keeps -0.0 where NumPy keeps
    # 0.0 (and NaNs are NumPy's rule of equal_nan): integers and bools only.
    attrs = node.attrs
    if (_unique_outputs(None, **attrs) == 1 and attrs["sorted"]
            and node.inputs[0].dtype.kind in "biu"):
        return "np.unique(%s)" % ins[0]
    return None


unique = defcall("unique", np.unique, _unique_shapes, outputs=_unique_outputs,
                 native=_native_unique)


def _native_nonzero(g, node, ins):
    # Numba's np.nonzero: NumPy's indices (int64) in C order, NaN counted as nonzero.
    name = g.tmp("nz")
    g.emit("%s = np.nonzero(%s)" % (name, ins[0]))
    return ["%s[%d]" % (name, i) for i in range(len(node.outputs))]


nonzero = defcall("nonzero", np.nonzero, lambda shape: [(None,)] * len(shape),
                  outputs=lambda a: len(a.shape), native=_native_nonzero)


def _bincount(x, weights=None, *, minlength):
    """np.bincount, of float64 wherever there are weights (NumPy gives int64 zeros for an
    empty x with weights: a dtype the values decide, which a graph cannot have)."""
    result = np.bincount(x, weights, minlength)
    return result if weights is None else result.astype(np.float64, copy=False)


_NEGATIVE = "'list' argument must have no negative elements"
_LENGTHS = "The weights and list don't have the same length."


def _native_bincount(g, node, ins):
    # Numba's np.bincount: NumPy's counts (int64) and weighted sums (float64), for signed
    # and small unsigned ints; NumPy's checks, messages and order are written here
    # (Numba's have other messages, and check the weights of an empty x too).
    x = node.inputs[0]
    if x.dtype.kind not in "iu" or x.dtype == np.uint64:
        return None
    nl.names_its_errors(g, node)
    if x.dtype.kind == "i":
        g.emit("if %s.size and %s.min() < 0:" % (ins[0], ins[0]))
        g.emit("    raise ValueError(%r)" % _NEGATIVE)
    minlength = node.attrs["minlength"]
    if len(ins) == 1:
        return "np.bincount(%s, None, %d)" % (ins[0], minlength)
    g.emit("if %s.size and %s.size != %s.size:" % (ins[0], ins[1], ins[0]))
    g.emit("    raise ValueError(%r)" % _LENGTHS)
    return "(np.bincount(%s, %s, %d) if %s.size else np.zeros(%d))" % (
        ins[0], ins[1], minlength, ins[0], minlength)


bincount = defcall("bincount", _bincount, lambda x, *weights, minlength: (None,),
                   native=_native_bincount, doc="np.bincount")

# np.histogram with a number of bins: NumPy's on both executors (Numba's takes no weights
# or density, does not widen a range of one value, and bins values next to an edge by its
# own rounding, without NumPy's correction).
def _histogram(a, weights=None, *, bins, range, density):
    """np.histogram, its weights an array input after a."""
    return np.histogram(a, bins, range=range, density=density, weights=weights)


histogram = defcall("histogram", _histogram,
                    lambda a, *weights, bins, range, density: [(bins,), (bins + 1,)],
                    outputs=2, doc="np.histogram")
