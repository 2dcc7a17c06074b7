"""Products: dot, matmul (also batched), outer."""

import numpy as np

from runtime.ops import broadcast_shapes, defop, dummy, prod_or_none
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
