"""Signals and polynomials on symbolic arrays: np.convolve, np.correlate, np.interp,
np.polyval."""

import numpy as np

from runtime import control_flow, ops
from runtime.numpy_api import _array, implements, not_supported
from runtime.tensor import Tensor


def _correlation(name, a, v, mode):
    if mode not in ("full", "same", "valid"):
        raise ValueError("mode must be one of 'valid', 'same', or 'full' (got %r)" % (mode,))
    return _array(ops.get(name).bind1([a, v], mode=mode))


@implements(np.convolve)
def convolve(a, v, mode="full"):
    return _correlation("convolve", a, v, mode)


@implements(np.correlate)
def correlate(a, v, mode="valid"):
    return _correlation("correlate", a, v, mode)


@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    for name, value in (("left", left), ("right", right), ("period", period)):
        if isinstance(value, Tensor):
            raise not_supported("np.interp(..., %s=<a tensor>) (a Python number works)" % name)
    result = ops.get("interp").bind1([x, xp, fp], left=left, right=right, period=period)
    return Tensor(result) if not result.shape else _array(result)


@implements(np.polyval)
def polyval(p, x):
    """Horner's rule, as NumPy computes it: y = zeros_like(x), then y = y * x + c for each
    coefficient c (a graph loop when their number is known only when the graph runs)."""
    if isinstance(p, np.poly1d) or isinstance(x, np.poly1d):
        raise not_supported("np.polyval of an np.poly1d")
    p = Tensor(ops.to_value(p))
    x = Tensor(ops.to_value(x))
    if p.ndim != 1:
        raise not_supported("np.polyval with coefficients of %d dimensions" % p.ndim)
    y = np.zeros_like(x)
    if p.static_shape[0] is not None:
        for i in range(p.static_shape[0]):
            y = y * x + p[i]
        return y
    y = y * x + p[0]   # (the loop's variable takes its dtype from the first step, as in NumPy)
    _, y = control_flow.while_loop(lambda i, y: i < p.shape[0],
                                   lambda i, y: (i + 1, y * x + p[i]), (1, y))
    return y
