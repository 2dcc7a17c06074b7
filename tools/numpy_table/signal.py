"""Signals and polynomials."""

import numpy as np

from tools.numpy_table import FLOATS, INTS, case, each, rand

# Numba's np.correlate sums its products in another order than NumPy's, whose order
# depends on the CPU's SIMD width: the last bits differ on some machines.
_SUMMED = 1e-12
_XP = np.sort(rand(12, seed=3))
_FP = rand(12, seed=4)

CASES = [
    case(np.convolve, lambda a, v: np.convolve(a, v), *each([(9,)], FLOATS + INTS, count=2),
         (rand(4), rand(9)), (rand(9), rand(9, dtype=np.int64))),
    case(np.convolve, lambda a, v: np.convolve(a, v, mode="same"), (rand(9), rand(4)),
         (rand(3), rand(8)), name="np.convolve same"),
    case(np.convolve, lambda a, v: np.convolve(a, v, "valid"), (rand(9), rand(4)),
         (rand(3), rand(8)), name="np.convolve valid"),
    case(np.convolve, lambda a, v: np.convolve(a, v), (rand(3, 2), rand(4)), (rand(0), rand(4)),
         name="np.convolve errors"),
    case(np.correlate, lambda a, v: np.correlate(a, v), (rand(9), rand(4)), (rand(4), rand(9)),
         *each([(7,)], INTS, count=2), rtol=_SUMMED),
    case(np.correlate, lambda a, v: np.correlate(a, v, "full"), (rand(9), rand(4)),
         rtol=_SUMMED, name="np.correlate full"),
    case(np.interp, lambda x: np.interp(x, _XP, _FP), rand(20, seed=5) * 2, rand(4, 5),
         rand(6, dtype=np.float32), rand(6, dtype=np.int64)),
    case(np.interp, lambda x, xp, fp: np.interp(x, xp, fp), (rand(5), _XP, _FP),
         (rand(5), _XP, _FP[:5]), name="np.interp arrays"),
    case(np.interp, lambda x: np.interp(x, _XP, _FP, left=-1.0, right=2.0), rand(20) * 3,
         name="np.interp left right"),
    case(np.interp, lambda x: np.interp(float(x[0]), _XP, _FP), rand(3), name="np.interp scalar"),
    case(np.polyval, lambda p, x: np.polyval(p, x), (rand(4), rand(6)), (rand(3), rand(2, 3)),
         (rand(3, dtype=np.int64), rand(5, dtype=np.int64)), (rand(3, dtype=np.float32), rand(5))),
    case(np.polyval, lambda p: np.polyval(p, 2.0), rand(4), name="np.polyval at a number"),
]
