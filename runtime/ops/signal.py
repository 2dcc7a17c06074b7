"""One-dimensional signal functions: convolve, correlate, interp. One NumPy function each
(runtime/ops/calls.py); Numba's own versions give NumPy's bits for the forms lowered natively
(checked by tools/numpy_table/signal.py)."""

import numpy as np

from runtime.ops.calls import defcall


def _correlation_shape(a, v, mode):
    if len(a) != 1 or len(v) != 1:
        raise ValueError("object too deep for desired array")
    n, m = a[0], v[0]
    if n == 0 or m == 0:
        raise ValueError("%s cannot be empty" % ("a" if n == 0 else "v"))
    if n is None or m is None:
        return (None,)
    return ({"full": n + m - 1, "same": max(n, m),
             "valid": max(n, m) - min(n, m) + 1}[mode],)


def _native(form):
    def native(g, node, ins):
        if node.attrs["mode"] != form or node.inputs[0].dtype != node.inputs[1].dtype:
            return None
        return "np.%s(%s, %s)" % (node.op.name, ins[0], ins[1])
    return native


def _interp_shape(x, xp, fp, **_):
    if len(xp) != 1 or len(fp) != 1:
        raise ValueError("object too deep for desired array")
    if xp[0] is not None and fp[0] is not None and xp[0] != fp[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xp[0] == 0:
        raise ValueError("array of sample points is empty")
    return x


def _native_interp(g, node, ins):
    attrs = node.attrs
    if attrs["left"] is None and attrs["right"] is None and attrs["period"] is None \
            and all(v.dtype == np.float64 for v in node.inputs):
        return "np.interp(%s, %s, %s)" % tuple(ins)
    return None


convolve = defcall("convolve", np.convolve, _correlation_shape, native=_native("full"))
correlate = defcall("correlate", np.correlate, _correlation_shape, native=_native("valid"))
interp = defcall("interp", np.interp, _interp_shape, native=_native_interp)
