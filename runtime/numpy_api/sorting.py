"""Sorting and searching on symbolic arrays: np.sort, np.argsort (x.sort() in place)."""

import numpy as np

from runtime import ops
from runtime.numpy_api import _array, implements, method, not_supported


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
