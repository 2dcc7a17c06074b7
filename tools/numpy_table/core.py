"""The core: reductions, the ufuncs, elementwise helpers (where, clip, round), products,
shape functions, and array creation (the handlers of runtime/numpy_api/__init__.py and
the creation functions converted code calls, autograph/operators/graph/arrays.py)."""

import numpy as np

from tools.numpy_table import FLOATS, INTS, case, each, rand

ALL = FLOATS + INTS + (np.bool_,)
NUMBERS = FLOATS + INTS


def _with(x, **values):
    """A copy of `x` with items set: _with(x, at=(index, value))."""
    x = x.copy()
    for index, value in values.values():
        x[index] = value
    return x


_EMPTY = np.zeros((0,))
_EMPTY_ROWS = np.zeros((0, 3))
_SPECIAL = np.array([np.nan, 1.0, -np.inf, 0.0, -0.0, np.inf, 2.5])


# --- reductions -----------------------------------------------------------------------------

# (Numba's native sums add in another order than NumPy's pairwise summation.)
_SUMMED = 1e-12


def _reduction_cases(fn, dtypes, extra=()):
    name = "np." + fn.__name__
    rtol = _SUMMED if fn in (np.sum, np.prod, np.mean, np.std, np.var) else 0.0
    return [
        case(fn, lambda x: fn(x), *each([(7,), (3, 4), (2, 3, 4)], dtypes), _SPECIAL,
             rtol=rtol),
        case(fn, lambda x: fn(x, axis=0), *each([(3, 4), (2, 3, 4)], dtypes), rtol=rtol,
             name=name + " axis=0"),
        case(fn, lambda x: fn(x, axis=-1, keepdims=True), *each([(3, 4), (2, 3, 4)], dtypes),
             rtol=rtol, name=name + " axis=-1 keepdims"),
        case(fn, lambda x: fn(x, axis=(0, 2)), *each([(2, 3, 4)], dtypes), rtol=rtol,
             name=name + " axis=(0, 2)"),
        case(fn, lambda x: fn(x, axis=2), rand(3, 4), name=name + " bad axis"),
    ] + list(extra)


def _into(fn, **options):
    def into(x, out):
        result = fn(x, out=out, **options)
        return result, out
    return into


REDUCTIONS = (
    _reduction_cases(np.sum, ALL, [
        case(np.sum, lambda x: np.sum(x, axis=1, dtype=np.float32), *each([(3, 4)], ALL),
             name="np.sum dtype="),
        case(np.sum, _into(np.sum, axis=0), (rand(3, 4), np.zeros(4)),
             (rand(3, 4, dtype=np.int32), np.zeros(4)),
             (rand(3, 4), np.zeros(4, np.int64)), (rand(3, 4), np.zeros(3)),
             name="np.sum out="),
        case(np.sum, lambda x: np.sum(x), _EMPTY, _EMPTY_ROWS, name="np.sum empty"),
        case(np.sum, lambda x: x.sum(axis=1), *each([(3, 4)], ALL), name="x.sum"),
        case("np.add.reduce", lambda x: np.add.reduce(x, axis=1), *each([(3, 4)], NUMBERS)),
    ])
    + _reduction_cases(np.prod, NUMBERS + (np.bool_,), [
        case(np.prod, lambda x: np.prod(x, dtype=np.int64), *each([(3, 4)], INTS + FLOATS),
             name="np.prod dtype="),
        case(np.prod, lambda x: np.prod(x, axis=0), _EMPTY_ROWS, name="np.prod empty"),
    ])
    + _reduction_cases(np.mean, ALL, [
        case(np.mean, lambda x: np.mean(x, axis=0, dtype=np.float32), *each([(3, 4)], ALL),
             name="np.mean dtype="),
        case(np.mean, lambda x: x.mean(), *each([(3, 4)], NUMBERS), rtol=_SUMMED,
             name="x.mean"),
    ])
    + _reduction_cases(np.std, NUMBERS, [
        case(np.std, lambda x: np.std(x, ddof=1), *each([(7,), (3, 4)], NUMBERS),
             name="np.std ddof=1"),
        case(np.std, lambda x: np.std(x, axis=1, ddof=1, keepdims=True),
             *each([(3, 4)], NUMBERS), name="np.std axis ddof"),
    ])
    + _reduction_cases(np.var, NUMBERS, [
        case(np.var, lambda x: np.var(x, axis=0, ddof=2), *each([(4, 3)], NUMBERS),
             name="np.var ddof=2"),
        case(np.var, lambda x: x.var(), *each([(3, 4)], NUMBERS), rtol=_SUMMED,
             name="x.var"),
    ])
    + _reduction_cases(np.min, ALL, [
        case(np.min, lambda x: np.min(x), _EMPTY, name="np.min empty"),
        case(np.min, _into(np.min, axis=1), (rand(3, 4), np.zeros(3)),
             (rand(3, 4, dtype=np.int32), np.zeros(3)), (rand(3, 4), np.zeros(4)),
             name="np.min out="),
        case(np.min, lambda x: x.min(axis=0), *each([(3, 4)], NUMBERS), name="x.min"),
    ])
    + _reduction_cases(np.max, ALL, [
        case(np.max, lambda x: np.max(x, axis=0), _EMPTY_ROWS, name="np.max empty"),
        case(np.max, lambda x: x.max(), *each([(3, 4)], NUMBERS), name="x.max"),
    ])
    + [case(np.amin, lambda x: np.amin(x, axis=1), *each([(3, 4)], ALL)),
       case(np.amax, lambda x: np.amax(x, axis=0, keepdims=True), *each([(3, 4)], ALL)),
       case(np.amax, lambda x: np.amax(x), _SPECIAL, name="np.amax nan")]
    + _reduction_cases(np.any, ALL, [
        case(np.any, lambda x: np.any(x > 0.5, axis=0), *each([(3, 4)], NUMBERS),
             name="np.any comparison"),
        case(np.any, lambda x: np.any(x), _EMPTY, name="np.any empty"),
    ])
    + _reduction_cases(np.all, ALL, [
        case(np.all, lambda x: np.all(x < 1.5, axis=1), *each([(3, 4)], NUMBERS),
             name="np.all comparison"),
        case(np.all, lambda x: np.all(x), _EMPTY, name="np.all empty"),
    ])
)

def _arg_reduction_cases(fn):
    return [
        case(fn, lambda x: fn(x), *each([(7,), (3, 4)], ALL), _SPECIAL,
             np.array([1.0, 3.0, 3.0, 1.0])),
        case(fn, lambda x: fn(x, axis=0), *each([(3, 4), (2, 3, 4)], ALL),
             name="np.%s axis=0" % fn.__name__),
        case(fn, lambda x: fn(x, axis=-1, keepdims=True), *each([(3, 4)], NUMBERS),
             name="np.%s keepdims" % fn.__name__),
        case(fn, lambda x: fn(x), _EMPTY, name="np.%s empty" % fn.__name__),
        case(fn, lambda x: fn(x, axis=2), rand(3, 4), name="np.%s bad axis" % fn.__name__),
        case(fn, lambda x: getattr(x, fn.__name__)(axis=1), *each([(3, 4)], NUMBERS),
             name="x.%s" % fn.__name__),
    ]


ARG_REDUCTIONS = _arg_reduction_cases(np.argmin) + _arg_reduction_cases(np.argmax)

def _cumulative_cases(fn):
    return [
        case(fn, lambda x: fn(x), *each([(7,), (3, 4)], ALL), _SPECIAL),
        case(fn, lambda x: fn(x, axis=1), *each([(3, 4), (2, 3, 4)], ALL),
             name="np.%s axis=1" % fn.__name__),
        case(fn, lambda x: fn(x, axis=0, dtype=np.float32), *each([(3, 4)], ALL),
             name="np.%s dtype=" % fn.__name__),
        case(fn, _into(fn, axis=0), (rand(3, 4), np.zeros((3, 4))),
             (rand(3, 4, dtype=np.int32), np.zeros((3, 4))), (rand(3, 4), np.zeros(4)),
             name="np.%s out=" % fn.__name__),
        case(fn, lambda x: fn(x, axis=2), rand(3, 4), name="np.%s bad axis" % fn.__name__),
    ]


CUMULATIVE = _cumulative_cases(np.cumsum) + _cumulative_cases(np.cumprod) + [
    case("np.add.accumulate", lambda x: np.add.accumulate(x), *each([(5,), (3, 4)], NUMBERS))]


# --- the ufuncs -----------------------------------------------------------------------------
# Every ufunc graphs compute (runtime/ops/elementwise.py registers NumPy's elementwise ufuncs,
# enumerated here the same way: this package imports no project code), on arrays of the
# dtypes NumPy takes (the others are cases of NumPy's TypeError), broadcast and of mixed
# dtypes, and next to Python scalars (weak: NEP 50).

def _ufuncs():
    seen, result = set(), []
    for name in sorted(dir(np)):
        u = getattr(np, name)
        if isinstance(u, np.ufunc) and u not in seen and u.signature is None:
            seen.add(u)
            result.append(u)
    return result


# The inputs each ufunc's domain takes (floats; ints are mapped the same way, then rounded).
_UNIT = ("arcsin", "arccos", "arctanh")
_POSITIVE = ("log", "log2", "log10", "sqrt")
_AT_LEAST_ONE = ("arccosh",)
_ABOVE_MINUS_ONE = ("log1p",)
_DIVISIONS = ("divide", "floor_divide", "remainder", "fmod", "divmod", "reciprocal")
_SHIFTS = ("left_shift", "right_shift", "ldexp")
_INT_ONLY = ("gcd", "lcm", "left_shift", "right_shift", "bitwise_and", "bitwise_or",
             "bitwise_xor", "invert", "bitwise_count")
# Computed natively by Numba with its own libm / SVML where NumPy uses its own SIMD code:
# the same values to the last bits or so.
_TRANSCENDENTAL = ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
                   "cbrt", "cos", "cosh", "exp", "exp2", "expm1", "log", "log10", "log1p",
                   "log2", "logaddexp", "logaddexp2", "power", "float_power", "sin", "sinh",
                   "tan", "tanh", "hypot")

# Numba has no implementation of these: the numba backend refuses them, naming the ufunc.
_NOT_ON_NUMBA = ("bitwise_count", "frexp", "heaviside", "modf")


def _in_domain(name, x, operand=0):
    """`x` (standard normal floats, or ints -9..9) mapped into the domain of ufunc `name`'s
    input `operand`."""
    integer = x.dtype.kind in "iub"
    if x.dtype == np.bool_:
        return x
    if name in _UNIT:
        y = np.tanh(x) * 0.9 if not integer else np.sign(x) * (np.abs(x) > 6)
    elif name in _POSITIVE:
        y = np.abs(x) + (0.25 if not integer else 1)
    elif name in _AT_LEAST_ONE:
        y = np.abs(x) + 1
    elif name in _ABOVE_MINUS_ONE:
        y = np.abs(x) - (0.5 if not integer else 0)
    elif name in _DIVISIONS and operand == (0 if name == "reciprocal" else 1):
        y = np.where(x == 0, 3, x) if integer else np.where(np.abs(x) < 0.1, 0.5, x)
    elif name in _SHIFTS and operand == 1:
        y = np.abs(x) % 6
    elif name in ("power", "float_power") and operand == 1 and integer:
        y = np.abs(x) % 4
    elif name in ("power", "float_power") and operand == 0 and not integer:
        y = np.abs(x) + 0.25
    else:
        y = x
    return y.astype(x.dtype)


def _ufunc_arguments(u, shapes, dtypes):
    """Argument tuples of u's inputs, in its domain: for each pair of shapes and of dtypes."""
    return [tuple(_in_domain(u.__name__, rand(*shape, dtype=dtype, seed=i), i)
                  for i, (shape, dtype) in enumerate(zip(shape_set, dtype_set)))
            for shape_set in shapes for dtype_set in dtypes]


def _takes(u, dtypes):
    """Does NumPy compute `u` on arrays of these dtypes?"""
    try:
        with np.errstate(all="ignore"):
            u(*[np.ones(1, d) for d in dtypes])
        return True
    except TypeError:
        return False


def _ufunc_cases(u):
    name = "np." + u.__name__
    if u.__name__ == "isnat":   # (datetimes: no graph holds one)
        return []
    unary = u.nin == 1
    single = [(d,) * u.nin for d in ALL]
    valid = [d for d in single if _takes(u, d)]
    refused = [d for d in single if not _takes(u, d)]
    if unary:
        mixed = []
        shapes = [((3, 4),), ((5,),)]
    else:
        mixed = [d for d in ((np.float32, np.float64), (np.int32, np.float32),
                             (np.int64, np.int32), (np.bool_, np.int32), (np.int32, np.float64))
                 if _takes(u, d)]
        shapes = [((3, 4), (3, 4)), ((3, 1), (4,))]
    # (The first tuple, which numba runs, of mixed dtypes where NumPy takes them, broadcast.)
    first = _ufunc_arguments(u, shapes[1:], (mixed or valid)[:1])
    arguments = first + _ufunc_arguments(u, shapes, valid + mixed) + \
        _ufunc_arguments(u, shapes[:1], refused)
    if u.nin == 1 and "f" in {np.dtype(d[0]).kind for d in valid}:
        arguments.append((_SPECIAL,))
    rtol = 1e-6 if u.__name__ in _TRANSCENDENTAL else 0.0
    call = (lambda x: u(x)) if unary else (lambda x, y: u(x, y))
    numba = u.__name__ not in _NOT_ON_NUMBA
    cases = [case(u, call, *arguments, rtol=rtol, numba=numba)]
    # Python scalars next to arrays: weak (NEP 50: np.add(float32s, 2.0) is float32).
    if u.nin == 2:
        integer_only = u.__name__ in _INT_ONLY
        a = 2
        b = 3 if integer_only or u.__name__ in _SHIFTS else 0.5
        scalars = [(d,) for d in (np.float32, np.int32, np.float64, np.int64, np.bool_)
                   if _takes(u, (d, d))]
        weak = [(_in_domain(u.__name__, rand(3, 4, dtype=d[0]), 0),) for d in scalars]
        cases.append(case(u, lambda x: (u(x, a), u(b, x)) if u.__name__ not in _SHIFTS
                          and u.__name__ != "ldexp" else (u(x, a), u(x, 1)), *weak,
                          rtol=rtol, numba=numba, name=name + " weak scalars"))
    return cases


UFUNCS = [c for u in _ufuncs() for c in _ufunc_cases(u)] + [
    case(np.add, lambda x, y: np.add(x, y, out=x), *each([(3, 4)], NUMBERS, count=2),
         name="np.add out="),
    case(np.multiply, lambda x, y: np.multiply(x, y, dtype=np.float32),
         *each([(3, 4)], NUMBERS, count=2), name="np.multiply dtype="),
    case(np.add, lambda x, y: np.add(x, y), (rand(3, 4), rand(3, 2)), name="np.add shapes"),
    case(np.power, lambda x, y: np.power(x, y),
         (rand(4, dtype=np.int64), np.array([1, -1, 2, 0])), name="np.power negative ints"),
    case(np.floor_divide, lambda x, y: (x // y, x % y),
         (np.array([7, -7, 3, 0]), np.array([2, 2, 0, 0])),
         (np.array([7.0, -7.0, 3.0, np.inf]), np.array([2.0, 0.0, -0.0, 2.0])),
         numba=True, name="np.floor_divide by zero"),
    case(np.maximum, lambda x, y: (np.maximum(x, y), np.fmax(x, y)),
         (_SPECIAL, _SPECIAL[::-1].copy()), name="np.maximum nan"),
]


# --- elementwise helpers --------------------------------------------------------------------

def _with_numbers():
    """(array, Python number) pairs where NEP 50 keeps the array's dtype, the first an int
    next to float32 values (numba runs the first only)."""
    return [(rand(5, dtype=np.float32), 1), (rand(5, dtype=np.float32), 0.5),
            (rand(3, 4, dtype=np.int32), 3), (rand(5, dtype=np.int8), -2),
            (rand(5), 0.25)]


def _clip_into(x, out):
    np.clip(x, -0.5, 0.5, out=out)
    return out


ELEMENTWISE = [
    case(np.where, lambda c, x, y: np.where(c > 0, x, y), *each([(3, 4)], ALL, count=3),
         (rand(3, 1), rand(4), rand(3, 4, dtype=np.float32))),
    case(np.where, lambda x: np.where(x > 0, x, 0.5), *each([(5,), (3, 4)], NUMBERS),
         name="np.where scalar"),
    case(np.where, lambda x: np.where(x > 0, 1, 0), *each([(5,)], NUMBERS),
         name="np.where scalars"),
    case(np.where, lambda x, y: np.where(x > 0, x, y), (rand(3, 4), rand(3, 2)),
         name="np.where shapes"),
    # (Python numbers passed in, the graph's inputs: weak next to the array, as literals.)
    case(np.where, lambda x, t: (np.where(x > 0, x, t), np.where(x > 0, t, x)),
         *_with_numbers(), name="np.where Python numbers"),
    case(np.clip, lambda x: np.clip(x, -0.5, 0.5), *each([(7,), (3, 4)], NUMBERS)),
    case(np.clip, lambda x, lo, hi: np.clip(x, lo, hi), *each([(3, 4)], NUMBERS, count=3),
         (rand(3, 4), rand(4), rand(3, 1)), name="np.clip arrays"),
    case(np.clip, lambda x: (np.clip(x, None, 0.0), np.clip(x, -1, None)),
         *each([(5,)], NUMBERS), name="np.clip one side"),
    case(np.clip, lambda x: np.clip(x, min=-1, max=2), *each([(5,)], NUMBERS),
         name="np.clip min= max="),
    case(np.clip, lambda x: x.clip(0, 1), *each([(5,)], NUMBERS), name="x.clip"),
    case(np.clip, lambda x, t: (np.clip(x, -t, t), np.clip(x, t, 2), np.clip(x, None, t)),
         *_with_numbers(), name="np.clip Python numbers"),
    case(np.clip, _clip_into, (rand(3, 4), np.zeros((3, 4))),
         (rand(3, 4), np.zeros((3, 4), np.int64)), name="np.clip out="),
    case(np.round, lambda x: np.round(x), *each([(7,), (3, 4)], NUMBERS), _SPECIAL),
    case(np.round, lambda x: np.round(x, 2), *each([(7,)], NUMBERS),
         np.array([0.125, 0.135, 2.675, -1.005]), name="np.round decimals=2"),
    case(np.round, lambda x: np.round(x * 100, -1), *each([(7,)], NUMBERS),
         name="np.round decimals=-1"),
    case(np.round, lambda x: x.round(1), *each([(7,)], NUMBERS), name="x.round"),
    case(np.around, lambda x: np.around(x, 1), *each([(7,)], NUMBERS)),
]


# --- products -------------------------------------------------------------------------------

PRODUCTS = [
    case(np.dot, lambda a, b: np.dot(a, b), (rand(5), rand(5, seed=1)),
         (rand(3, 4), rand(4, 2, seed=1)), (rand(3, 4), rand(4, seed=1)),
         (rand(4), rand(4, 3, seed=1)),
         (rand(3, 4, dtype=np.float32), rand(4, 2, seed=1)),
         (rand(3, 4, dtype=np.int64), rand(4, 2, seed=1, dtype=np.int32)),
         (rand(5, dtype=np.int32), rand(5, seed=1, dtype=np.int32)),
         (rand(3, 4), rand(3, 2)), rtol=1e-12),
    case(np.dot, lambda a, b: (np.dot(a, 2.0), np.dot(3, b), a.dot(b)),
         (rand(4), rand(4, seed=1)), (rand(4, dtype=np.float32), rand(4, dtype=np.int32)),
         rtol=1e-12, name="np.dot scalars"),
    case(np.outer, lambda a, b: np.outer(a, b), *each([(3,)], NUMBERS, count=2),
         (rand(3), rand(2, 2)), (rand(3, dtype=np.int32), rand(4, dtype=np.float32))),
    case(np.linalg.norm, lambda x: np.linalg.norm(x), *each([(5,), (3, 4)]),
         rand(4, dtype=np.int64), rtol=1e-12),
    case(np.linalg.norm, lambda x: (np.linalg.norm(x, 1), np.linalg.norm(x, np.inf),
                                    np.linalg.norm(x, 3)), *each([(5,)]), rtol=1e-6,
         name="np.linalg.norm ord"),
    case(np.linalg.norm, lambda x: (np.linalg.norm(x, axis=1), np.linalg.norm(x, 1),
                                    np.linalg.norm(x, "fro", keepdims=True)),
         *each([(3, 4)]), rtol=1e-6, name="np.linalg.norm matrix"),
    case(np.linalg.norm, lambda x: np.linalg.norm(x, "fro"), rand(5),
         name="np.linalg.norm bad ord"),
]


# --- shapes ---------------------------------------------------------------------------------

def _copy_then_write(x):
    y = np.copy(x)
    x[0] = 7
    return y, x


def _copyto(x, y):
    np.copyto(x, y)
    return x


def _copyto_where(x, y):
    np.copyto(x, y, where=y > 0)
    return x


SHAPES = [
    case(np.reshape, lambda x: np.reshape(x, (4, 3)), *each([(3, 4), (12,)], ALL)),
    case(np.reshape, lambda x: np.reshape(x, (-1, 2)), *each([(3, 4), (2, 3, 2)]),
         name="np.reshape -1"),
    case(np.reshape, lambda x: np.reshape(x, (x.shape[0], -1)), *each([(3, 4), (2, 3, 2)]),
         name="np.reshape symbolic"),
    case(np.reshape, lambda x: x.reshape(2, -1), *each([(3, 4)]), name="x.reshape"),
    case(np.reshape, lambda x: np.reshape(x, (5, 2)), rand(3, 4), name="np.reshape bad size"),
    case(np.transpose, lambda x: np.transpose(x), *each([(3, 4), (2, 3, 4), (5,)], ALL)),
    case(np.transpose, lambda x: np.transpose(x, (1, 2, 0)), *each([(2, 3, 4)]),
         name="np.transpose axes"),
    case(np.transpose, lambda x: (x.T, x.transpose(1, 0)), *each([(3, 4)]), name="x.T"),
    case(np.transpose, lambda x: np.transpose(x, (0, 0)), rand(3, 4),
         name="np.transpose bad axes"),
    case(np.swapaxes, lambda x: np.swapaxes(x, 0, -1), *each([(3, 4), (2, 3, 4)], ALL)),
    case(np.swapaxes, lambda x: np.swapaxes(x, 0, 3), rand(3, 4), name="np.swapaxes bad axis"),
    case(np.expand_dims, lambda x: np.expand_dims(x, 0), *each([(3,), (3, 4)], ALL)),
    case(np.expand_dims, lambda x: np.expand_dims(x, (0, -1)), *each([(3, 4)]),
         name="np.expand_dims tuple"),
    case(np.expand_dims, lambda x: np.expand_dims(x, 3), rand(3), name="np.expand_dims bad"),
    # (np.squeeze(x) without axis= is refused: which dims are ones is not known while
    # tracing, and the result's rank depends on it.)
    case(np.squeeze, lambda x: np.squeeze(x, axis=1), *each([(3, 1, 4), (2, 1)], ALL)),
    case(np.squeeze, lambda x: (np.squeeze(x, axis=(0, 2)), x.squeeze(0)), *each([(1, 3, 1)]),
         name="np.squeeze axes"),
    case(np.squeeze, lambda x: np.squeeze(x, axis=0), rand(3, 1), name="np.squeeze bad axis"),
    case(np.ravel, lambda x: np.ravel(x), *each([(3, 4), (2, 3, 4), (5,)], ALL)),
    case(np.ravel, lambda x: (x.ravel(), x.flatten(), np.ravel(x.T)), *each([(3, 4)]),
         name="x.ravel"),
    case(np.copy, _copy_then_write, *each([(5,), (3, 4)], ALL)),
    case(np.copyto, _copyto, *each([(3, 4)], NUMBERS, count=2), (rand(3, 4), rand(4)),
         (rand(3, 4, dtype=np.int64), rand(3, 4)), (rand(3, 4), rand(2, 4))),
    case(np.copyto, _copyto_where, *each([(3, 4)], NUMBERS, count=2),
         name="np.copyto where="),
    case(np.concatenate, lambda x, y: np.concatenate((x, y)),
         *each([(3,), (3, 4)], ALL, count=2), (rand(3), rand(4, dtype=np.int32)),
         (rand(2, 4), rand(3, 4, dtype=np.float32))),
    case(np.concatenate, lambda x, y: np.concatenate([x, y, x], axis=1),
         *each([(3, 4)], NUMBERS, count=2), name="np.concatenate axis=1"),
    case(np.concatenate, lambda x, y: np.concatenate((x, y), axis=None),
         (rand(3, 4), rand(5)), name="np.concatenate axis=None"),
    case(np.concatenate, lambda x, y: np.concatenate((x, y), axis=1),
         (rand(3, 4), rand(2, 4)), (rand(3, 4), rand(3)), name="np.concatenate bad shapes"),
    case(np.append, lambda x, y: np.append(x, y), *each([(3,), (3, 4)], NUMBERS, count=2),
         (rand(3, 4), rand(2, dtype=np.int32))),
    case(np.append, lambda x, y: np.append(x, y, axis=0), *each([(3, 4)], NUMBERS, count=2),
         (rand(3, 4), rand(2, 4)), (rand(3, 4), rand(3, 3)), name="np.append axis=0"),
    case(np.stack, lambda x, y: np.stack((x, y)), *each([(3,), (3, 4)], ALL, count=2),
         (rand(3, dtype=np.int32), rand(3))),
    case(np.stack, lambda x, y: np.stack([x, y], axis=-1), *each([(3, 4)], count=2),
         name="np.stack axis=-1"),
    case(np.stack, lambda x, y: np.stack((x, y)), (rand(3), rand(4)),
         name="np.stack bad shapes"),
    case(np.shape, lambda x: np.shape(x), *each([(3, 4), (5,)])),
    case(np.size, lambda x: (np.size(x), np.size(x, 1), x.size), *each([(3, 4), (2, 3, 4)])),
    case(np.ndim, lambda x: (np.ndim(x), x.ndim), *each([(3, 4), (5,)])),
]


# --- creation -------------------------------------------------------------------------------

def _empty_like(x):
    made = (np.empty_like(x), np.empty_like(x, dtype=np.int32))
    return [(m.shape, m.dtype.name) for m in made]


def _empty(x, n):
    made = np.empty((x.shape[0], n), dtype=np.float32)
    return made.shape, made.dtype.name


CREATION = [
    case(np.zeros_like, lambda x: (np.zeros_like(x), np.zeros_like(x, dtype=np.int32)),
         *each([(3, 4), (5,)], ALL)),
    case(np.ones_like, lambda x: (np.ones_like(x), np.ones_like(x, dtype=bool)),
         *each([(3, 4), (5,)], ALL)),
    case(np.full_like, lambda x: (np.full_like(x, 2.5), np.full_like(x, 7, dtype=np.int32)),
         *each([(3, 4), (5,)], ALL)),
    case(np.empty_like, _empty_like, *each([(3, 4), (5,)], ALL)),
    case(np.linspace, lambda a, b: np.linspace(a, b), (0.0, 1.0), (-2, 3)),
    case(np.linspace, lambda x: np.linspace(0, 1, x.shape[0]), *each([(5,), (1,)]),
         name="np.linspace symbolic num"),
    case(np.linspace, lambda x, n: np.linspace(x[0], x[1], n, endpoint=False), (rand(3), 7),
         (rand(3), 0), (rand(3), 1), name="np.linspace endpoint=False"),
    case(np.linspace, lambda x, n: (np.linspace(x[0], x[1], n), np.linspace(x[2], 2.5, n)),
         (rand(3, dtype=np.float32), 13), (rand(3, dtype=np.float32), 1),
         name="np.linspace float32 bounds"),
    case(np.linspace, lambda x, n: np.linspace(0, 1, n), (rand(3), -1),
         name="np.linspace negative num"),
    case(np.linspace, lambda x, n: np.linspace(0, 10, n, dtype=np.float32), (rand(3), 6),
         name="np.linspace dtype="),
    case(np.zeros, lambda x, n: (np.zeros(x.shape[0]), np.zeros((n, x.shape[0]), np.int32)),
         (rand(5), 3), (rand(2), 0)),
    case(np.ones, lambda x, n: (np.ones((x.shape[0], n)), np.ones(n, dtype=bool)),
         (rand(5), 3)),
    case(np.empty, _empty, (rand(5), 3)),
    case(np.full, lambda x, n: (np.full((x.shape[0], n), 2.5), np.full(n, 7),
                                np.full(n, x[0]), np.full(x.shape, 1, dtype=np.float32)),
         (rand(5), 3), (rand(3, dtype=np.float32), 2)),
    case(np.arange, lambda x, n: (np.arange(n), np.arange(x.shape[0]), np.arange(2, n + 2),
                                  np.arange(n, dtype=np.float64)), (rand(5), 3), (rand(2), 0)),
    case(np.arange, lambda x, n: (np.arange(0.5, n, 0.25), np.arange(n, 0, -1)),
         (rand(5), 3), name="np.arange steps"),
    case(np.arange, lambda x, n: np.arange(1, n, 2, dtype=np.float32), (rand(5), 9),
         name="np.arange dtype="),
    case(np.arange, lambda x, n: np.arange(0.1, n, 0.3), (rand(5), 3),
         name="np.arange float step"),
    case(np.eye, lambda x, n: (np.eye(n), np.eye(x.shape[0], n), np.eye(n, k=1, dtype=int)),
         (rand(5), 3)),
    case(np.array, lambda x: (np.array([x[0], x[1], 2.0]), np.array(x), np.array(x, np.int32),
                              np.array([[x[0]], [x[1]]])), *each([(5,)], NUMBERS)),
    case(np.asarray, lambda x: (np.asarray(x), np.asarray(x[0]), np.asarray(x, np.float32)),
         *each([(5,)], NUMBERS)),
]


CASES = REDUCTIONS + ARG_REDUCTIONS + CUMULATIVE + UFUNCS + ELEMENTWISE + PRODUCTS + SHAPES \
    + CREATION
