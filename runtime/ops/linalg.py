"""Products: dot, matmul (also batched), outer."""

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.ops.inference import broadcast_shapes, dummy, prod_or_none
from runtime.ops.registry import defop, get
from runtime.ops.shapes import unify_dims


def _check_inner(a, b):
    unify_dims(a, b, "shapes not aligned: inner dimensions")


def _matmul_infer(a, b):
    if len(a.shape) == 0 or len(b.shape) == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    dtype = np.matmul(dummy(a), dummy(b)).dtype
    sa, sb = a.shape, b.shape
    if len(sa) == 1 and len(sb) == 1:
        _check_inner(sa[0], sb[0])
        return [(dtype, ())]
    if len(sa) == 1:
        _check_inner(sa[0], sb[-2])
        return [(dtype, sb[:-2] + sb[-1:])]
    if len(sb) == 1:
        _check_inner(sa[-1], sb[0])
        return [(dtype, sa[:-1])]
    _check_inner(sa[-1], sb[-2])
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    return [(dtype, batch + (sa[-2], sb[-1]))]


matmul = defop("matmul", infer=_matmul_infer, kernel=np.matmul, doc="a @ b")


def _dot_infer(a, b):
    dtype = np.dot(dummy(a), dummy(b)).dtype
    sa, sb = a.shape, b.shape
    if len(sa) == 0 or len(sb) == 0:
        return [(dtype, broadcast_shapes(sa, sb))]
    if len(sb) == 1:
        _check_inner(sa[-1], sb[0])
        return [(dtype, sa[:-1])]
    _check_inner(sa[-1], sb[-2])
    return [(dtype, sa[:-1] + sb[:-2] + sb[-1:])]


dot = defop("dot", infer=_dot_infer, kernel=np.dot, doc="np.dot(a, b)")

outer = defop(
    "outer",
    infer=lambda a, b: [(np.outer(dummy(a), dummy(b)).dtype,
                         (prod_or_none(a.shape), prod_or_none(b.shape)))],
    kernel=np.outer, doc="np.outer(a, b)")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

def _check_product_shapes(g, node, name):
    """Before a product of arrays in generated code: NumPy's error (the compiled graph's
    "product" site, runtime/executors/numba/compiled.py) when the inner dims differ or,
    for a matmul of stacks, the batch dims do not broadcast; Numba's own checks would name
    neither the node nor NumPy's message. Dims inference proved equal need no check."""
    a, b = node.inputs
    xa, xb = g.arg(node, 0), g.arg(node, 1)
    inner_a, inner_b = len(a.shape) - 1, 0 if len(b.shape) == 1 else len(b.shape) - 2
    tests = []
    if a.shape[inner_a] is None or b.shape[inner_b] is None:
        tests.append("%s.shape[%d] != %s.shape[%d]" % (xa, inner_a, xb, inner_b))
    if name == "matmul" and len(a.shape) == 3 and len(b.shape) == 3 and (
            a.shape[0] is None or b.shape[0] is None or a.shape[0] != b.shape[0]):
        tests.append("(%s.shape[0] != %s.shape[0] and %s.shape[0] != 1 and %s.shape[0] != 1)"
                     % (xa, xb, xa, xb))
    if not tests:
        return
    site = g.site(node, "product", name=name, axes=(inner_a, inner_b))
    g.uses_err = True
    g.emit("if %s:" % " or ".join(tests))
    position = 0
    for x, rank in ((xa, len(a.shape)), (xb, len(b.shape))):   # both shapes, for the message
        g.emit("    err[%d] = %d" % (position, rank))
        for axis in range(rank):
            g.emit("    err[%d] = %s.shape[%d]" % (position + 1 + axis, x, axis))
        position += 1 + rank
    g.emit("    raise _rt.GraphFail(%d)" % site)


def _numba_product_lowering(name):
    def lower(g, node, ins):
        out = node.outputs[0]
        a, b = node.inputs
        if out.dtype.kind not in "fc":
            raise nl.Unlowerable("%s of %s values (Numba's BLAS products take floats only)"
                              % (name, out.dtype))
        if name == "dot" and (nl.is_scalar(g, a) or nl.is_scalar(g, b)):
            text = "(%s * %s)" % (nl.as_dtype(g, a, out.dtype), nl.as_dtype(g, b, out.dtype))
            return g.scalar_cast(text, out.dtype) if nl.is_scalar(g, out) else text
        if not (nl.is_scalar(g, a) or nl.is_scalar(g, b)):
            _check_product_shapes(g, node, name)
        if (name == "matmul" and not nl.is_scalar(g, a) and not nl.is_scalar(g, b)
                and 2 <= len(a.shape) <= 3 and 2 <= len(b.shape) <= 3
                and 3 in (len(a.shape), len(b.shape))):
            # A stack of matrices (a 2-D operand is a batch of one): support.batched_matmul.
            x, y = nl.as_dtype(g, a, out.dtype), nl.as_dtype(g, b, out.dtype)
            if len(a.shape) == 2:
                x = "np.ascontiguousarray(%s).reshape((1, %s.shape[0], %s.shape[1]))" % (x, x, x)
            if len(b.shape) == 2:
                y = "np.ascontiguousarray(%s).reshape((1, %s.shape[0], %s.shape[1]))" % (y, y, y)
            return "_rt.batched_matmul(%s, %s)" % (x, y)
        if nl.is_scalar(g, a) or nl.is_scalar(g, b) or len(a.shape) > 2 or len(b.shape) > 2:
            raise nl.Unlowerable("%s of rank-%d and rank-%d operands (Numba: 1-D and 2-D, "
                                 "and matmul of stacks of rank 3)"
                                 % (name, len(a.shape), len(b.shape)))
        x = "np.ascontiguousarray(%s)" % nl.as_dtype(g, a, out.dtype)
        y = "np.ascontiguousarray(%s)" % nl.as_dtype(g, b, out.dtype)
        text = "np.dot(%s, %s)" % (x, y)
        if nl.is_scalar(g, out):
            return g.scalar_cast(text, out.dtype)
        return text
    return lower


get("matmul").def_numba(_numba_product_lowering("matmul"))
get("dot").def_numba(_numba_product_lowering("dot"))


@get("outer").def_numba
def _numba_outer(g, node, ins):
    out = node.outputs[0]
    a, b = node.inputs
    if nl.is_scalar(g, a) or nl.is_scalar(g, b):
        raise nl.Unlowerable("np.outer of scalars")
    return "np.outer(np.ravel(%s), np.ravel(%s))" % (nl.as_dtype(g, a, out.dtype),
                                                     nl.as_dtype(g, b, out.dtype))
