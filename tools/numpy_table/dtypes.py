"""Dtypes: complex arrays, conversions, NumPy 2's promotion (NEP 50), integer overflow and
division, float16, and the dtype questions (np.result_type, np.finfo...) on tensors' dtypes.

On the numba backend, complex products, quotients and absolute values differ from NumPy's
in the last bit (NumPy's SIMD loops fuse multiply-adds; Numba computes them as C does):
those cases have `rtol`."""

import numpy as np

from tools.numpy_table import FLOATS, INTS, case, each, rand

COMPLEX = (np.complex128, np.complex64)
_ALL = FLOATS + INTS + COMPLEX + (np.bool_,)
_NEGATIVE_ZERO_AND_HALVES = np.array([-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 1e10, -1e10])

CASES = [
    # --- complex arrays
    case("x.real", lambda x: x.real, *each([(5,), (3, 4)], _ALL)),
    case("x.imag", lambda x: x.imag, *each([(5,), (3, 4)], _ALL)),
    case("x.real", lambda x: (x.real * 2, x[0].real, x[0].imag), *each([(4,)], COMPLEX + FLOATS),
         name="x.real of scalars"),
    case(np.real, lambda x: np.real(x), *each([(5,), (2, 3)], _ALL)),
    case(np.imag, lambda x: np.imag(x), *each([(5,), (2, 3)], _ALL)),
    case(np.conjugate, lambda x: np.conjugate(x), *each([(5,), (2, 3)], COMPLEX + FLOATS + INTS)),
    case(np.conj, lambda x: np.conj(x) * x, *each([(5,)], COMPLEX + FLOATS), rtol=1e-6),
    case(np.angle, lambda x: np.angle(x), *each([(5,), (2, 3)], COMPLEX + FLOATS + INTS),
         rtol=1e-6),
    case(np.angle, lambda x: np.angle(x, deg=True), *each([(5,)], COMPLEX + FLOATS + INTS),
         name="np.angle deg", rtol=1e-6),
    case(np.absolute, lambda x: np.abs(x), *each([(5,), (2, 3)], COMPLEX), rtol=1e-6,
         name="np.abs complex"),
    case(np.multiply, lambda x, y: (x * y + x / y - 1j, x - 2 * y, -x, x ** 2),
         *each([(5,), (2, 3)], COMPLEX, count=2), rtol=1e-5, name="complex arithmetic"),
    case(np.multiply, lambda x, y: x * y + 0.5j, (rand(4, dtype=np.float32),
                                                          rand(4, dtype=np.complex64)),
         (rand(4, dtype=np.int64), rand(4, dtype=np.complex64)),
         name="complex with real arithmetic", rtol=1e-6),
    case(np.add, lambda x: x.astype(np.complex128) + 1, *each([(5,)], FLOATS + INTS),
         name="complex from real"),
    case(np.absolute, lambda x: (abs(x[0]), abs(x[1] * 1j), np.abs(x[0])),
         *each([(3,)], COMPLEX + FLOATS), rtol=1e-6, name="abs of complex scalars"),
    case(np.iscomplexobj, lambda x: (np.iscomplexobj(x), np.isrealobj(x)), *each([(3,)], _ALL)),
    case(np.isrealobj, lambda x: np.isrealobj(x[0]), *each([(3,)], COMPLEX + FLOATS)),
    case(np.iscomplex, lambda x: (np.iscomplex(x), np.iscomplex(x[0]), np.isreal(x)),
         *each([(3,)], _ALL), rand(3) + 0j),
    case(np.isreal, lambda x: np.isreal(x), *each([(2, 2)], COMPLEX + FLOATS)),
    # --- conversions
    case("x.astype", lambda x: (x.astype(np.int32), x.astype(np.int64), x.astype(bool),
                                x.astype(np.uint8)),
         _NEGATIVE_ZERO_AND_HALVES[:7], *each([(5,), (3, 4)], FLOATS)),
    case("x.astype", lambda x: (x.astype(np.float32), x.astype(np.float16),
                                x.astype(np.complex64)),
         *each([(5,)], FLOATS + INTS), (_NEGATIVE_ZERO_AND_HALVES,), numba=False,
         name="x.astype narrower floats"),
    case("x.astype", lambda x: (x.astype(np.float64), x.astype(np.int8), x.astype(np.bool_)),
         *each([(5,)], INTS + (np.bool_,)), name="x.astype of ints"),
    case(np.float32, lambda x: (np.float32(x), np.float32(x[0]), np.int64(x[1]),
                                np.complex128(x[2]), np.float64(x[0] * 2)),
         *each([(4,)], FLOATS + INTS)),
    # --- NumPy 2's promotion (NEP 50): Python numbers are weak
    case(np.add, lambda x: (x + 1.5, x * 2, x / 3, x[0] + 1.0, x[0] * np.float64(2.0)),
         *each([(4,)], FLOATS + INTS + (np.int8, np.uint8)), name="NEP 50 weak Python numbers"),
    case(np.add, lambda x: x + 300, rand(4, dtype=np.int8), name="NEP 50 Python int out of range"),
    case(np.add, lambda x: x * 2 + 1.5, *each([(4,)], (np.float16,)), numba=False,
         name="NEP 50 float16"),
    # --- integer overflow and division
    case(np.floor_divide, lambda x, y: (x // y, x % y, np.floor_divide(x, y)),
         *[(rand(6, dtype=d), np.array([0, 1, -2, 0, 3, -1], dtype=d)) for d in INTS],
         (rand(6, dtype=np.uint8), np.array([0, 1, 2, 0, 3, 1], dtype=np.uint8)),
         name="integer division by zero"),
    case(np.add, lambda x: (x + np.int64(2 ** 62) * 2, x * np.int64(2 ** 62),
                                          x - np.iinfo(np.int64).max),
         *each([(5,)], (np.int64,)), name="int64 overflow wraps"),
    case(np.add, lambda x: (x * x * x * x * x * x, x + np.int32(2 ** 31 - 1)),
         *each([(5,)], (np.int32,)), name="int32 overflow wraps"),
    case(np.floor_divide, lambda x: x // 0, *each([(4,)], INTS), name="int floor_divide by 0"),
    case(np.floor_divide, lambda x: x[0] // x[1], np.array([7, 0]),
         name="int scalar floor_divide by 0"),
    # --- dtype questions
    case(np.result_type, lambda x, y: x.astype(np.result_type(x, y, np.float32)),
         *each([(3,)], _ALL, count=2)),
    case(np.result_type, lambda x: x.astype(np.result_type(x.dtype, np.int8, 1.0)),
         *each([(3,)], _ALL), name="np.result_type of x.dtype"),
    case(np.can_cast, lambda x: (np.can_cast(x, np.float32), np.can_cast(x.dtype, np.int64),
                                 np.can_cast(x, np.int8, casting="same_kind")),
         *each([(3,)], _ALL)),
    case(np.finfo, lambda x: x + np.finfo(x.dtype).eps * (x * 0 + np.finfo(x.dtype).max),
         *each([(3,)], FLOATS)),
    case(np.iinfo, lambda x: np.minimum(x, np.iinfo(x.dtype).max - 5) + np.iinfo(x.dtype).bits,
         *each([(3,)], INTS)),
    case(np.promote_types, lambda x: x.astype(np.promote_types(x.dtype, np.float32)),
         *each([(3,)], FLOATS + INTS)),
]
