"""The parts of complex values: np.real and np.imag (x.real, x.imag).

They are the two primitives complex arrays need beyond the ufuncs (np.conj, np.abs and the
arithmetic are ufuncs; np.angle is arctan2 of these parts). As NumPy's, the real part of a
complex array is a view of it, and of a real array the array itself; the imaginary part of
a real array is zeros.
"""

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.ops.registry import defop


def _part_infer(function):
    def infer(x):
        return [(np.asarray(function(np.ones((), x.dtype))).dtype, x.shape)]
    return infer


real = defop("real", infer=_part_infer(np.real), kernel=np.real, view=True,
             doc="np.real(x): the real part (x itself for a real x)")
imag = defop("imag", infer=_part_infer(np.imag), kernel=np.imag, view=True,
             doc="np.imag(x): the imaginary part (zeros for a real x)")


@real.def_numba
def _numba_real(g, node, ins):
    x = node.inputs[0]
    if x.dtype.kind != "c":
        return ins[0]
    if nl.is_scalar(g, x):
        return "%s.real" % ins[0]
    # (Numba's x.real is a strided view: a contiguous copy keeps array types C-ordered.)
    return "np.ascontiguousarray(%s.real)" % ins[0]


@imag.def_numba
def _numba_imag(g, node, ins):
    x = node.inputs[0]
    if x.dtype.kind != "c":
        if nl.is_scalar(g, x):
            return nl.literal_text(0, x.dtype)
        return "np.zeros_like(%s)" % ins[0]
    if nl.is_scalar(g, x):
        return "%s.imag" % ins[0]
    return "np.ascontiguousarray(%s.imag)" % ins[0]


# --- derivative rules (runtime/autodiff.py; helpers in runtime/ops/gradients.py) -------------
# JAX's convention for complex values (runtime/ops/gradients.py): a cotangent c of z pairs
# with dz as Re(c * dz), so Re(z) = Re(1 * z) passes c = ct back and Im(z) = Re(-1j * z)
# passes c = -1j * ct.

from runtime.ops import gradients as d  # noqa: E402


@real.def_vjp
def _real_vjp(inputs, outputs, cts):
    x, = inputs
    # (of a complex x: ct cast to x's dtype, an imaginary part of 0)
    return [d.cotangent_for(cts[0], x, broadcast=False)]


@imag.def_vjp
def _imag_vjp(inputs, outputs, cts):
    x, = inputs
    if not d.wanted(x) or x.dtype.kind != "c":
        return [None]   # the imaginary part of a real x is zeros
    return [d.bind("multiply", cts[0], d.scalar(-1j, x.dtype))]
