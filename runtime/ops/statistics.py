"""Statistics that are one NumPy function each (runtime/ops/calls.py): the quantiles
(np.median, np.percentile, np.quantile and their nan-variants), and the reductions with
`where=` or `initial=` (np.sum(x, where=mask)).

Why NumPy's own functions and not compositions of sort, index and lerp: NumPy's quantiles
partition, pick and interpolate with rules of their own (which of two lerp formulas, the
dtype of the weight, NaN slices, q as a weak Python number), and a reduction with `where=`
sums the unmasked runs pairwise, which the sum of `where(mask, x, 0)` does not: calling
NumPy gives its bits by construction. Numba's np.median and np.quantile differ from
NumPy's (last bits, dtypes, a NaN in a slice) and it has no `where=` reductions: on the
numba backend generated code calls NumPy for these (object mode).
"""

import numpy as np

from runtime.ops.calls import defcall
from runtime.ops.inference import normalize_axes


def _reduced(shape, axis, keepdims):
    axes = normalize_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


# --- quantiles ------------------------------------------------------------------------------
# Inputs: the array, then q where it is an array (of the graph or a NumPy constant); a q of
# Python numbers is the attr `q` (weak, as NumPy takes it: float32 data stays float32).

def _quantile_shape(a, *q_shape, axis=None, keepdims=False, q=None, **_):
    q_dims = q_shape[0] if q_shape else np.shape(q)
    return tuple(q_dims) + _reduced(a, axis, keepdims)


def _median_shape(a, axis=None, keepdims=False, **_):
    return _reduced(a, axis, keepdims)


QUANTILES = {}   # NumPy function -> op
for _function in (np.median, np.nanmedian):
    QUANTILES[_function] = defcall(_function.__name__, _function, _median_shape)
for _function in (np.percentile, np.quantile, np.nanpercentile, np.nanquantile):
    QUANTILES[_function] = defcall(_function.__name__, _function, _quantile_shape)


# --- reductions with where= / initial=, np.nanmax, np.nanmin --------------------------------
# Inputs: the array and the mask (True where only initial= is given); attrs: axis,
# keepdims, and dtype, ddof, initial where the function has them. (np.nanmax is one
# kernel, np.fmax.reduce: its signed zeros are its own.)

def _masked(function):
    def call(a, where, **attrs):
        if np.ndim(where) == 0 and where:   # (np.nanmax refuses where=np.True_)
            return function(a, **attrs)
        return function(a, where=where, **attrs)
    call.__name__ = function.__name__
    return call


def _masked_shape(a, where, axis=None, keepdims=False, **_):
    return _reduced(a, axis, keepdims)


MASKED = {}      # NumPy function -> op
for _function in (np.sum, np.prod, np.mean, np.min, np.max, np.any, np.all, np.std, np.var,
                  np.nanmax, np.nanmin):
    MASKED[_function] = defcall(
        "%s_where" % _function.__name__, _masked(_function), _masked_shape,
        doc="np.%s(x, where=, initial=)" % _function.__name__)
del _function
