"""Elementwise ops: one op per NumPy ufunc (arithmetic, comparison, logical, bitwise, math),
plus where, clip and round. Dtypes come from running the ufunc on tiny stand-ins, so they
follow NumPy 2's promotion (NEP 50) exactly."""

import math
import operator

import numpy as np

from runtime import errors
from runtime.executors.numba import lowering as nl
from runtime.ops import calls
from runtime.ops.inference import broadcast_shapes, dummy
from runtime.ops.registry import defop, get

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
        operands = [dummy(v) for v in inputs]
        try:
            with np.errstate(all="ignore"):
                results = ufunc(*operands)
        except TypeError as error:
            # NumPy refuses these dtypes (a boolean subtract): the error it raises when
            # the code runs, whatever the values.
            raise errors.mark_python_error(error)
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


# |an approximation, in float64, of the exact result| at or past which the int64 result of
# a Python operator on Python ints may have wrapped: operands rounded to float64, then the
# operation, are off by far less than 2**23 there, so every result out of range is caught
# (and those within 2**23 of the bounds with them), the same on every executor.
INT64_LIMIT = float(2 ** 63 - 2 ** 23)

_APPROXIMATIONS = {"multiply": "abs(float(%s) * float(%s))",
                   "power": "abs(float(%s) ** float(%s))",
                   "left_shift": "abs(float(%s) * 2.0 ** float(%s))"}


def _fits_kernel(operator_name):
    text = "lambda a, b: np.bool_(%s < %r)" % (
        _APPROXIMATIONS[operator_name] % ("a", "b"), INT64_LIMIT)
    return eval(text, {"np": np})


int_fits = defop(
    "int_fits",
    infer=lambda a, b, operator_name: [(np.dtype(np.bool_), ())],
    make_kernel=_fits_kernel,
    doc="does Python operator `operator_name` (multiply, power, left_shift) on the Python "
        "ints a and b give a result in int64's range? (runtime/path_kinds.py raises "
        "OverflowError where it does not)")


# Functions of Python's math module on a scalar: computed by the math module itself (libm,
# as Python computes them; NumPy's own loops may differ in the last bit), in float64.
# Their domain errors are raised by checks before the op (autograph's overloads).
MATH_FUNCTIONS = {
    "sqrt": "f", "exp": "f", "log": "f", "log2": "f", "log10": "f", "log1p": "f",
    "expm1": "f", "sin": "f", "cos": "f", "tan": "f", "asin": "f", "acos": "f",
    "atan": "f", "sinh": "f", "cosh": "f", "tanh": "f", "fabs": "f", "floor": "i",
    "ceil": "i", "trunc": "i", "isnan": "b", "isinf": "b", "isfinite": "b",
}
_MATH_DTYPES = {"f": np.dtype(np.float64), "i": np.dtype(np.int64), "b": np.dtype(np.bool_)}


def _math_kernel(name):
    function = getattr(math, name)
    make = _MATH_DTYPES[MATH_FUNCTIONS[name]].type
    return lambda x: make(function(float(x)))


math_call = defop(
    "math_call",
    infer=lambda x, name: [(_MATH_DTYPES[MATH_FUNCTIONS[name]], ())],
    make_kernel=_math_kernel,
    doc="math.<name>(x) of a scalar, as Python's math module computes it")


make_complex = defop(
    "make_complex",
    infer=lambda real, imag: [(np.dtype(np.complex128), ())],
    kernel=lambda real, imag: np.complex128(complex(float(real), float(imag))),
    doc="complex(real, imag) of two float64 scalars: the parts as they are (arithmetic "
        "with 1j would turn an infinite part's partner into nan and lose a zero's sign)")


def _python_round(x, ndigits):
    return np.float64(round(float(x), ndigits))


python_round = defop(
    "python_round",
    infer=lambda x, ndigits: [(np.dtype(np.float64), ())],
    make_kernel=lambda ndigits: lambda x: _python_round(x, ndigits),
    doc="round(x, ndigits) of a Python float, as Python rounds it (correctly rounded, where "
        "np.round scales, rounds and scales back: round(2.675, 2) is 2.67, np.round 2.68)")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

def _numba_ufunc_lowering(ufunc):
    name = ufunc.__name__

    def lower(g, node, ins):
        if ufunc not in nl.numba_ufuncs():
            raise nl.Unlowerable("np.%s has no Numba implementation" % name)
        for v in node.inputs:
            if v.dtype == np.float16:
                raise nl.Unlowerable("dtype float16 (Numba has no float16)")
            if v.dtype.kind not in "biufc":
                raise nl.Unlowerable("dtype %s" % v.dtype)
        args, dtypes = nl.operands(g, node)
        scalar = all(nl.is_scalar(g, v) for v in node.inputs)
        natural = nl.natural_dtype(ufunc, dtypes)
        if name == "power" and dtypes[0].kind in "biu" and dtypes[1].kind == "i":
            _check_exponents(g, node, args[1], scalar or nl.is_scalar(g, node.inputs[1]))
        if ufunc.nout > 1:
            temp = g.tmp()
            g.emit("%s = np.%s(%s)" % (temp, name, ", ".join(args)))
            return [nl.cast_result(g, node, "%s[%d]" % (temp, i), natural[i], i)
                    for i in range(ufunc.nout)]
        if scalar:
            if name in ("logical_and", "logical_or"):
                text = "(bool(%s) %s bool(%s))" % (args[0], "and" if name == "logical_and"
                                                   else "or", args[1])
                return text
            if name == "logical_not":
                return "(not %s)" % args[0]
            if name == "invert" and node.inputs[0].dtype == np.bool_:
                return "(not %s)" % args[0]
            op = nl.OPERATORS.get(name)
            if name in ("remainder", "floor_divide") and all(
                    d.kind in "iu" for d in dtypes):
                op = "%" if name == "remainder" else "//"   # Python's = NumPy's for ints
            if op is not None and all(d.kind in "biu" for d in dtypes) and op in (
                    "<<", ">>", "&", "|", "^") and any(d == np.bool_ for d in dtypes):
                op = None   # keep NumPy's bool semantics for bitwise ops on bools
            if op is not None:
                text = "(%s %s %s)" % (args[0], op, args[1])
            elif name == "negative":
                text = "(-%s)" % args[0]
            elif name == "absolute" and node.inputs[0].dtype.kind != "c":
                text = "abs(%s)" % args[0]
            elif name in ("minimum", "maximum") and all(d.kind in "iu" for d in dtypes) and (
                    np.result_type(*dtypes).kind in "iu"):   # not int64 with uint64 (float64)
                # Same value as np.minimum/np.maximum for integers, but Numba's builtin
                # compares the other way round, and LLVM turns that into branches that
                # predict far better in scalar loops (edit_distance on unseen inputs:
                # ~145 us vs ~210 us, as fast as njit of the user's `min(a, b, c)`).
                text = "%s(%s, %s)" % ("min" if name == "minimum" else "max", args[0], args[1])
            else:
                text = "np.%s(%s)" % (name, ", ".join(args))
            if name in nl.PREDICATES:
                return text
            exact = all(d == node.outputs[0].dtype for d in dtypes)
            return nl.cast_result(g, node, text, natural[0] if exact else None)
        # Numba picks its own loop (value-based for scalars, skipping float16 loops: int8 /
        # int8 gives float32 where NumPy gives float64). Convert the operands to the loop
        # NumPy resolves, so Numba runs that one.
        try:
            loop = ufunc.resolve_dtypes(tuple(dtypes) + (None,) * ufunc.nout)
        except (TypeError, ValueError):
            loop = None
        if loop is not None:
            natural = list(loop[ufunc.nin:])
            for k, v in enumerate(node.inputs):
                want = loop[k]
                if want == dtypes[k]:
                    continue
                if nl.is_scalar(g, v):
                    args[k] = (nl.literal_text(v.literal, want) if v.is_literal
                               else g.scalar_cast(args[k], want))
                else:
                    args[k] = "%s.astype(%s)" % (args[k], nl.np_dtype(want))
        text = "np.%s(%s)" % (name, ", ".join(args))
        x, out = node.inputs[0], node.outputs[0]
        if (ufunc in nl.NUMPY_UNARY_CODES and x.dtype in (np.float32, np.float64)
                and out.dtype == x.dtype and not x.is_literal):
            # Large arrays: NumPy's SIMD loop (support.numpy_unary); small: Numba's.
            return "(_rt.numpy_unary(%s, %d) if %s.size >= %d else %s)" % (
                args[0], nl.NUMPY_UNARY_CODES[ufunc], args[0], nl.NUMPY_UNARY_MIN, text)
        return nl.cast_result(g, node, text, natural[0])
    return lower


def _check_exponents(g, node, exponent, scalar):
    """NumPy raises where an int is raised to a negative int power; Numba's int power
    gives a number: generated code checks the exponents first (not a literal's >= 0)."""
    value = node.inputs[1]
    if value.is_literal and np.all(np.asarray(value.literal) >= 0):
        return
    site = g.site(node, "negative_power")
    g.emit("if %s:" % ("%s < 0" % exponent if scalar else "np.any(%s < 0)" % exponent))
    g.emit("    raise _rt.GraphFail(%d)" % site)


for _ufunc, _op in UFUNC_OPS.items():
    _op.def_numba(_numba_ufunc_lowering(_ufunc))
del _ufunc, _op


@get("where").def_numba
def _numba_where(g, node, ins):
    out = node.outputs[0]
    c = ins[0]
    x = g.expr(node.inputs[1], out.dtype)
    y = g.expr(node.inputs[2], out.dtype)
    if all(nl.is_scalar(g, v) for v in node.inputs):
        return g.scalar_cast("(%s if %s else %s)" % (x, c, y), out.dtype)
    if nl.is_scalar(g, node.inputs[0]):
        raise nl.Unlowerable("np.where with a scalar condition and array operands")
    if not nl.is_scalar(g, node.inputs[1]) and node.inputs[1].dtype != out.dtype:
        x = "%s.astype(%s)" % (x, nl.np_dtype(out.dtype))
    if not nl.is_scalar(g, node.inputs[2]) and node.inputs[2].dtype != out.dtype:
        y = "%s.astype(%s)" % (y, nl.np_dtype(out.dtype))
    if nl.is_scalar(g, node.inputs[1]):
        x = g.scalar_cast(x, out.dtype)
    if nl.is_scalar(g, node.inputs[2]):
        y = g.scalar_cast(y, out.dtype)
    return "np.where(%s, %s, %s)" % (c, x, y)


def _numba_clip_lowering(kind):
    def lower(g, node, ins):
        out = node.outputs[0]
        args, dtypes = nl.operands(g, node)
        if kind == "clip":
            text = "np.minimum(np.maximum(%s, %s), %s)" % tuple(args)
            natural = nl.natural_dtype(np.maximum, dtypes[:2])[0]
            natural = nl.natural_dtype(np.minimum, [natural, dtypes[2]])[0]
        elif kind == "min":
            text = "np.maximum(%s, %s)" % tuple(args)
            natural = nl.natural_dtype(np.maximum, dtypes)[0]
        else:
            text = "np.minimum(%s, %s)" % tuple(args)
            natural = nl.natural_dtype(np.minimum, dtypes)[0]
        return nl.cast_result(g, node, text, natural)
    return lower


get("clip").def_numba(_numba_clip_lowering("clip"))
get("clip_min").def_numba(_numba_clip_lowering("min"))
get("clip_max").def_numba(_numba_clip_lowering("max"))


@get("round").def_numba
def _numba_round(g, node, ins):
    x = node.inputs[0]
    decimals = int(node.attrs["decimals"])
    out = node.outputs[0]
    if x.dtype.kind in "biu":
        if decimals >= 0:
            return ins[0] if nl.is_scalar(g, x) else "%s.copy()" % ins[0]
        raise nl.Unlowerable("np.round of integers with negative decimals")
    if x.dtype.kind == "c":
        raise nl.Unlowerable("np.round of complex values")
    if decimals == 0:
        text = "np.rint(%s)" % ins[0]
    elif decimals > 0:
        scale = nl.literal_text(10.0 ** decimals, out.dtype)
        text = "(np.rint(%s * %s) / %s)" % (ins[0], scale, scale)
    else:
        scale = nl.literal_text(10.0 ** -decimals, out.dtype)
        text = "(np.rint(%s / %s) * %s)" % (ins[0], scale, scale)
    return nl.cast_result(g, node, text, x.dtype)


@get("int_fits").def_numba
def _numba_int_fits(g, node, ins):
    return "(%s < %r)" % (_APPROXIMATIONS[node.attrs["operator_name"]] % tuple(ins),
                          INT64_LIMIT)


@get("make_complex").def_numba
def _numba_make_complex(g, node, ins):
    return "complex(%s, %s)" % tuple(ins)


@get("python_round").def_numba
def _numba_python_round(g, node, ins):
    # (Numba's round(x, ndigits) scales as np.round does: Python's own, in object mode.)
    return calls.object_mode(g, node, ins, _python_round)


@get("math_call").def_numba
def _numba_math_call(g, node, ins):
    return "math.%s(float(%s))" % (node.attrs["name"], ins[0])


# --- derivative rules (runtime/autodiff.py; helpers in runtime/ops/gradients.py) -------------

from runtime.ops import gradients as d  # noqa: E402


@get("add").def_vjp
def _add_vjp(inputs, outputs, cts):
    return [d.unbroadcast(cts[0], x) for x in inputs]


@get("multiply").def_vjp
def _multiply_vjp(inputs, outputs, cts):
    x, y = inputs
    return [d.unbroadcast(d.bind("multiply", cts[0], y), x),
            d.unbroadcast(d.bind("multiply", cts[0], x), y)]


@get("tanh").def_vjp
def _tanh_vjp(inputs, outputs, cts):
    y = outputs[0]
    return [d.bind("multiply", cts[0], d.bind("subtract", d.scalar(1, y.dtype),
                                               d.bind("multiply", y, y)))]
