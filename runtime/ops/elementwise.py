"""Elementwise ops: one op per NumPy ufunc (arithmetic, comparison, logical, bitwise, math),
plus where, clip and round. Dtypes come from running the ufunc on tiny stand-ins, so they
follow NumPy 2's promotion (NEP 50) exactly."""

import operator

import numpy as np

from runtime.ops import broadcast_shapes, defop, dummy

# The Python operators do exactly what the ufunc does on NumPy arrays and scalars, but
# skip the ufunc-call overhead on NumPy scalars (the common case in graph loops).
_FAST_KERNELS = {
    np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
    np.divide: operator.truediv, np.floor_divide: operator.floordiv,
    np.remainder: operator.mod, np.power: operator.pow,
    np.less: operator.lt, np.less_equal: operator.le, np.greater: operator.gt,
    np.greater_equal: operator.ge, np.equal: operator.eq, np.not_equal: operator.ne,
    np.bitwise_and: operator.and_, np.bitwise_or: operator.or_,
    np.bitwise_xor: operator.xor, np.left_shift: operator.lshift,
    np.right_shift: operator.rshift, np.negative: operator.neg, np.invert: operator.invert,
}

UFUNC_OPS = {}   # np.ufunc -> Op


def _ufunc_infer(ufunc):
    def infer(*inputs):
        shape = broadcast_shapes(*[v.shape for v in inputs])
        with np.errstate(all="ignore"):
            results = ufunc(*[dummy(v) for v in inputs])
        if ufunc.nout == 1:
            results = (results,)
        return [(np.asarray(r).dtype, shape) for r in results]
    return infer


def _register_ufuncs():
    seen = set()
    for name in sorted(dir(np)):
        ufunc = getattr(np, name)
        if not isinstance(ufunc, np.ufunc) or ufunc in seen or ufunc.signature is not None:
            continue
        seen.add(ufunc)
        UFUNC_OPS[ufunc] = defop(
            ufunc.__name__, infer=_ufunc_infer(ufunc),
            kernel=_FAST_KERNELS.get(ufunc, ufunc),
            doc="np.%s, elementwise with broadcasting" % ufunc.__name__)


_register_ufuncs()


def _where_infer(condition, x, y):
    shape = broadcast_shapes(condition.shape, x.shape, y.shape)
    return [(np.where(dummy(condition), dummy(x), dummy(y)).dtype, shape)]


where = defop("where", infer=_where_infer, kernel=np.where, doc="np.where(condition, x, y)")


def _clip_infer(x, low, high):
    shape = broadcast_shapes(x.shape, low.shape, high.shape)
    return [(np.clip(dummy(x), dummy(low), dummy(high)).dtype, shape)]


clip = defop("clip", infer=_clip_infer, kernel=np.clip,
             doc="np.clip(x, low, high); clip_min/clip_max when a bound is None")


def _clip_one_sided(fn):
    def infer(x, bound):
        shape = broadcast_shapes(x.shape, bound.shape)
        return [(fn(dummy(x), dummy(bound)).dtype, shape)]
    return infer


clip_min = defop("clip_min", infer=_clip_one_sided(lambda x, b: np.clip(x, b, None)),
                 kernel=lambda x, b: np.clip(x, b, None), doc="np.clip(x, low, None)")
clip_max = defop("clip_max", infer=_clip_one_sided(lambda x, b: np.clip(x, None, b)),
                 kernel=lambda x, b: np.clip(x, None, b), doc="np.clip(x, None, high)")


def _round_kernel(decimals):
    def round_(x):
        return np.round(x, decimals)
    return round_


round_ = defop(
    "round",
    infer=lambda x, decimals: [(np.round(dummy(x), decimals).dtype, x.shape)],
    make_kernel=_round_kernel,
    doc="np.round(x, decimals)")
