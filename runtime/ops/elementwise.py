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

# ... and Python's augmented assignments what the ufunc does with out= its first operand
# (`x -= y` is np.subtract(x, y, out=x)): the kernels computing into input 0 (Op.into_kernel).
_INTO_KERNELS = {
    np.add: operator.iadd, np.subtract: operator.isub, np.multiply: operator.imul,
    np.divide: operator.itruediv, np.floor_divide: operator.ifloordiv,
    np.remainder: operator.imod, np.power: operator.ipow,
    np.bitwise_and: operator.iand, np.bitwise_or: operator.ior,
    np.bitwise_xor: operator.ixor, np.left_shift: operator.ilshift,
    np.right_shift: operator.irshift,
}

# ... and the expressions of those operators (Op.expression).
_OPERATOR_EXPRESSIONS = {
    operator.add: "{0} + {1}", operator.sub: "{0} - {1}", operator.mul: "{0} * {1}",
    operator.truediv: "{0} / {1}", operator.floordiv: "{0} // {1}",
    operator.mod: "{0} % {1}", operator.pow: "{0} ** {1}",
    operator.lt: "{0} < {1}", operator.le: "{0} <= {1}", operator.gt: "{0} > {1}",
    operator.ge: "{0} >= {1}", operator.eq: "{0} == {1}", operator.ne: "{0} != {1}",
    operator.and_: "{0} & {1}", operator.or_: "{0} | {1}", operator.xor: "{0} ^ {1}",
    operator.lshift: "{0} << {1}", operator.rshift: "{0} >> {1}",
    operator.neg: "-{0}", operator.invert: "~{0}",
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
    # vars, not dir + getattr: getattr of a lazily loaded submodule's name imports it
    # (numpy.f2py, numpy.testing, numpy.ma: ~100 ms of `import autograph`).
    for name, ufunc in sorted(vars(np).items()):
        if not isinstance(ufunc, np.ufunc) or ufunc in seen or ufunc.signature is not None:
            continue
        seen.add(ufunc)
        op = UFUNC_OPS[ufunc] = defop(
            ufunc.__name__, infer=_ufunc_infer(ufunc),
            kernel=_FAST_KERNELS.get(ufunc, ufunc),
            doc="np.%s, elementwise with broadcasting" % ufunc.__name__)
        op.into_kernel = _INTO_KERNELS.get(ufunc)
        expression = _OPERATOR_EXPRESSIONS.get(op.kernel)
        if expression is not None:
            op.expression = lambda node, expression=expression: expression
            if op.into_kernel is not None:
                op.augmented = expression.split()[1] + "="


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
                # (`&` and `|` of bools, not `and` and `or`: both operands are computed
                # already, and each `and` is a branch, so a block, for Numba. Its SSA pass
                # walks up a chain of blocks one Python call each: a loop body of 600
                # flag updates passed the recursion limit, fuzz seed 7196.)
                bools = [a if d == np.bool_ else "bool(%s)" % a for a, d in zip(args, dtypes)]
                return "(%s %s %s)" % (bools[0], "&" if name == "logical_and" else "|",
                                       bools[1])
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
            loop = g.numpy_loop(ufunc, x.dtype)
            if loop is not None:   # NumPy's SIMD loop (lowering.NUMPY_UNARY says why)
                return "_rt.numpy_unary%s(%s, %d, %s)" % (
                    "_inplace" if g.fresh_temporary(x) else "", loop[0], loop[1], args[0])
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
        exact = out.dtype in nl.EXACT_SCALARS and all(
            v.dtype == out.dtype or v.is_literal for v in node.inputs[1:])
        builtin = _python_extreme(node)
        if builtin is not None:
            text = "%s(%s, %s)" % (builtin, y, x)
        else:
            text = "(%s if %s else %s)" % (x, c, y)
        return text if exact else g.scalar_cast(text, out.dtype)
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


def _python_extreme(node):
    """"max" for a scalar `where(x > y, x, y)` (Python's `max(y, x)`: ag's max and min of
    scalars, autograph/operators/graph/builtins.py), "min" for `where(x < y, x, y)`, of one
    int or float dtype; else None. Numba's builtin computes exactly that, the later operand
    where it compares greater (less), a NaN never: one select, where the conditional
    expression makes three blocks and a phi for Numba (a 100-op loop body of min and max
    compiled in 0.18 s against 0.22 s: tools/bench_compile.py)."""
    condition, x, y = node.inputs
    test = condition.node
    if (test is None or test.op.name not in ("greater", "less") or x.dtype != y.dtype
            or x.dtype != node.outputs[0].dtype or x.dtype.kind not in "iuf"):
        return None
    if not (_same_value(test.inputs[0], x) and _same_value(test.inputs[1], y)):
        return None
    return "max" if test.op.name == "greater" else "min"


def _same_value(a, b):
    """The same Value, or literals of the same type and text (so 0.0 is not -0.0)."""
    if a is b:
        return True
    return (a.is_literal and b.is_literal and a.dtype == b.dtype and a.weak == b.weak
            and repr(a.literal) == repr(b.literal))


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
#
# Each rule records ops only (d.bind), so the gradient graph runs on both executors and, where
# the ops it uses have rules too, can be differentiated again. Constants are literals of the
# dtype they meet (a float32 input's gradient is computed in float32). Complex inputs follow
# JAX's convention (runtime/ops/gradients.py): the rules of holomorphic ops are the real
# formulas; absolute, sign and conjugate have their own complex cases. Where a derivative is
# undefined (kinks, ties) the rules follow JAX, except absolute at 0 (see _absolute_vjp).
# Piecewise-constant ops (sign of a real, floor, ceil, trunc, rint, round, floor_divide) have
# a zero gradient: their rules return None (no cotangent, which the engine reads as zeros).

from runtime.graph import literal  # noqa: E402
from runtime.ops import gradients as d  # noqa: E402


def _op(name):
    def record(*inputs):
        return d.bind(name, *inputs)
    record.__name__ = name
    return record


_add, _sub, _mul, _div, _neg = (_op(n) for n in ("add", "subtract", "multiply", "divide",
                                                 "negative"))
_square, _sqrt, _exp, _exp2, _log = (_op(n) for n in ("square", "sqrt", "exp", "exp2", "log"))
_sin, _cos, _sinh, _cosh = (_op(n) for n in ("sin", "cos", "sinh", "cosh"))
_equal, _where, _sign, _conj, _real = (_op(n) for n in ("equal", "where", "sign", "conjugate",
                                                        "real"))


def _c(value, like):
    """The constant `value` as a literal of like's dtype."""
    return d.scalar(value, like.dtype)


def _is_complex(v):
    return np.dtype(v.dtype).kind == "c"


def _nonzero(v):
    """v with its zeros replaced by ones (JAX's _replace_zero): a denominator that is 0
    exactly where the gradient is taken to be 0."""
    return _where(_equal(v, _c(0, v)), _c(1, v), v)


# Unary ops: the cotangent is ct * f'(x), f'(x) built by `derivative(x, y)` (y = f(x)).

_UNARY_DERIVATIVES = {
    "positive": None,   # (ct itself)
    "negative": lambda x, y: _c(-1, x),
    "square": lambda x, y: _mul(_c(2, x), x),
    "sqrt": lambda x, y: _div(_c(0.5, y), y),
    "cbrt": lambda x, y: _div(_c(1 / 3, y), _square(y)),
    "reciprocal": lambda x, y: _neg(_square(y)),
    "exp": lambda x, y: y,
    "exp2": lambda x, y: _mul(y, _c(np.log(2), y)),
    "expm1": lambda x, y: _add(y, _c(1, y)),
    "log": lambda x, y: _div(_c(1, x), x),
    "log2": lambda x, y: _div(_c(1 / np.log(2), x), x),
    "log10": lambda x, y: _div(_c(1 / np.log(10), x), x),
    "log1p": lambda x, y: _div(_c(1, x), _add(x, _c(1, x))),
    "sin": lambda x, y: _cos(x),
    "cos": lambda x, y: _neg(_sin(x)),
    "tan": lambda x, y: _add(_c(1, y), _square(y)),
    "arcsin": lambda x, y: _div(_c(1, x), _sqrt(_sub(_c(1, x), _square(x)))),
    "arccos": lambda x, y: _div(_c(-1, x), _sqrt(_sub(_c(1, x), _square(x)))),
    "arctan": lambda x, y: _div(_c(1, x), _add(_c(1, x), _square(x))),
    "sinh": lambda x, y: _cosh(x),
    "cosh": lambda x, y: _sinh(x),
    "tanh": lambda x, y: _sub(_c(1, y), _square(y)),
    "arcsinh": lambda x, y: _div(_c(1, x), _sqrt(_add(_square(x), _c(1, x)))),
    "arccosh": lambda x, y: _div(_c(1, x), _sqrt(_mul(_sub(x, _c(1, x)), _add(x, _c(1, x))))),
    "arctanh": lambda x, y: _div(_c(1, x), _mul(_sub(_c(1, x), x), _add(_c(1, x), x))),
    "deg2rad": lambda x, y: _c(np.pi / 180, y),
    "radians": lambda x, y: _c(np.pi / 180, y),
    "rad2deg": lambda x, y: _c(180 / np.pi, y),
    "degrees": lambda x, y: _c(180 / np.pi, y),
}


def _unary_rule(derivative):
    def rule(inputs, outputs, cts):
        x, = inputs
        if not d.wanted(x):
            return [None]
        ct = cts[0] if derivative is None else _mul(cts[0], derivative(x, outputs[0]))
        return [d.cotangent_for(ct, x, broadcast=False)]
    return rule


for _name, _derivative in _UNARY_DERIVATIVES.items():
    get(_name).def_vjp(_unary_rule(_derivative))
del _name, _derivative


def _zero_gradient(inputs, outputs, cts, **attrs):
    """Piecewise constant in every input: a zero gradient (JAX's convention for sign, floor,
    ceil, round; NumPy's rint and trunc likewise, round's decimals and floor_divide too)."""
    return [None] * len(inputs)


for _name in ("floor", "ceil", "trunc", "rint", "floor_divide", "round", "python_round"):
    get(_name).def_vjp(_zero_gradient)
del _name


@get("sign").def_vjp
def _sign_vjp(inputs, outputs, cts):
    """Zero for a real x. NumPy's sign of a complex z is z/|z|, which is not constant: its
    cotangent is (ct - Re(ct s) conj(s)) / |z| with s = z/|z| (0 at z = 0, as abs's)."""
    x, = inputs
    if not d.wanted(x) or not _is_complex(x):
        return [None]
    s, ct = outputs[0], cts[0]
    r = d.bind("absolute", x)
    at_zero = _equal(r, _c(0, r))
    tangential = _sub(ct, _mul(_real(_mul(ct, s)), _conj(s)))
    return [_div(_where(at_zero, _c(0, ct), tangential), _where(at_zero, _c(1, r), r))]


@get("absolute").def_vjp
@get("fabs").def_vjp
def _absolute_vjp(inputs, outputs, cts):
    """ct * sign(x) for a real x: 0 at x = 0 (the smallest subgradient; TensorFlow and
    PyTorch give 0, JAX since 0.4 gives 1). For a complex z: ct * conj(z) / |z|, 0 at 0
    (JAX's)."""
    x, = inputs
    if not d.wanted(x):
        return [None]
    if _is_complex(x):
        y = d.bind("cast", outputs[0], dtype=x.dtype)
        return [_div(_mul(cts[0], _conj(x)), _nonzero(y))]
    return [d.cotangent_for(_mul(cts[0], _sign(x)), x, broadcast=False)]


@get("conjugate").def_vjp
def _conjugate_vjp(inputs, outputs, cts):
    x, = inputs
    if not d.wanted(x):
        return [None]
    return [_conj(cts[0]) if _is_complex(x) else d.cotangent_for(cts[0], x, broadcast=False)]


# Binary ops with broadcasting: each input's cotangent summed back to its shape.

@get("add").def_vjp
def _add_vjp(inputs, outputs, cts):
    return [d.cotangent_for(cts[0], x) for x in inputs]


@get("subtract").def_vjp
def _subtract_vjp(inputs, outputs, cts):
    x, y = inputs
    return [d.cotangent_for(cts[0], x),
            d.cotangent_for(_neg(cts[0]), y) if d.wanted(y) else None]


@get("multiply").def_vjp
def _multiply_vjp(inputs, outputs, cts):
    x, y = inputs
    ct = cts[0]
    return [d.cotangent_for(_mul(ct, y), x) if d.wanted(x) else None,
            d.cotangent_for(_mul(ct, x), y) if d.wanted(y) else None]


@get("divide").def_vjp
def _divide_vjp(inputs, outputs, cts):
    """x / y: ct / y, and -ct * (x / y) / y for y."""
    x, y = inputs
    ct = cts[0]
    return [d.cotangent_for(_div(ct, y), x) if d.wanted(x) else None,
            d.cotangent_for(_neg(_div(_mul(ct, outputs[0]), y)), y) if d.wanted(y) else None]


def _power_rule(power):
    """x ** y (np.power, np.float_power: `power` computes x ** (y - 1) the same way).
    JAX's conventions: for x, y * x ** (y - 1), and 0 where an integer y is 0; for y,
    log(x) * x ** y with log(0) taken as 0 (x = 0 gives 0)."""
    def rule(inputs, outputs, cts):
        x, y = inputs
        ct, out = cts[0], outputs[0]
        ct_x = ct_y = None
        if d.wanted(x) and not (y.is_literal and y.literal == 0):
            if y.is_literal and y.literal == 1:
                ct_x = d.cotangent_for(ct, x)
            else:
                ct_x = d.cotangent_for(_mul(ct, _power_derivative(power, x, y)), x)
        if d.wanted(y):
            # (A literal base as a literal of the result's dtype: log(2.0) of a weak 2.0 would
            # be float64, and widen a float32 gradient.)
            base = _c(x.literal if x.literal != 0 else 1, out) if x.is_literal else _nonzero(x)
            ct_y = d.cotangent_for(_mul(ct, _mul(_log(base), out)), y)
        return [ct_x, ct_y]
    return rule


def _power_derivative(power, x, y):
    if y.is_literal:
        # x ** 2, x ** 0.5: the exponent's literal less one, of the same kind (so x ** (y - 1)
        # has the dtype x ** y has).
        if y.literal == 2 and power == "power":
            return _mul(_c(2, x), x)
        return _mul(y, d.bind(power, x, literal(type(y.literal)(y.literal - 1))))
    if np.dtype(y.dtype).kind not in "biu":
        return _mul(y, d.bind(power, x, _sub(y, literal(1))))
    # An integer exponent 0 gives 0, where x ** -1 would be inf at x = 0 (and warn).
    zero = _equal(y, literal(0))
    y = _where(zero, literal(1), y)
    jac = _mul(y, d.bind(power, x, _sub(y, literal(1))))
    return _where(zero, _c(0, jac), jac)


get("power").def_vjp(_power_rule("power"))
get("float_power").def_vjp(_power_rule("float_power"))


@get("arctan2").def_vjp
def _arctan2_vjp(inputs, outputs, cts):
    """arctan2(y, x): ct * x / (x^2 + y^2) for y, -ct * y / (x^2 + y^2) for x (nan at the
    origin, as JAX's)."""
    y, x = inputs
    ct = _div(cts[0], _add(_square(x), _square(y)))
    return [d.cotangent_for(_mul(ct, x), y) if d.wanted(y) else None,
            d.cotangent_for(_neg(_mul(ct, y)), x) if d.wanted(x) else None]


@get("hypot").def_vjp
def _hypot_vjp(inputs, outputs, cts):
    """hypot(x, y): ct * x / hypot, ct * y / hypot; 0 at the origin (the smallest
    subgradient, as abs's at 0)."""
    ct = _div(cts[0], _nonzero(outputs[0]))
    return [d.cotangent_for(_mul(ct, v), v) if d.wanted(v) else None for v in inputs]


def _logaddexp_rule(exp):
    """logaddexp(a, b) = log(exp(a) + exp(b)): ct * exp(a - out) for a (exp2 for
    logaddexp2); where an input is -inf and the other finite, 0; nan where both are the same
    infinity (so is the naive log(exp(a) + exp(b))'s)."""
    def rule(inputs, outputs, cts):
        out = outputs[0]
        return [d.cotangent_for(_mul(cts[0], exp(_sub(v, out))), v) if d.wanted(v) else None
                for v in inputs]
    return rule


get("logaddexp").def_vjp(_logaddexp_rule(_exp))
get("logaddexp2").def_vjp(_logaddexp_rule(_exp2))


def _select_cotangents(ct, x, y, out):
    """The cotangents of x and y where out is one of them (maximum, minimum, fmax, fmin):
    ct to the input equal to out, split 0.5/0.5 at ties (JAX's convention), 0 to both where
    out is nan and neither equals it."""
    picked_x, picked_y = _equal(x, out), _equal(y, out)
    half, zero = _mul(ct, _c(0.5, ct)), _c(0, ct)
    ct_x = _where(picked_x, _where(picked_y, half, ct), zero) if d.wanted(x) else None
    ct_y = _where(picked_y, _where(picked_x, half, ct), zero) if d.wanted(y) else None
    return ct_x, ct_y


def _select_vjp(inputs, outputs, cts):
    x, y = inputs
    ct_x, ct_y = _select_cotangents(cts[0], x, y, outputs[0])
    return [d.cotangent_for(ct_x, x) if ct_x is not None else None,
            d.cotangent_for(ct_y, y) if ct_y is not None else None]


for _name in ("maximum", "minimum", "fmax", "fmin", "clip_min", "clip_max"):
    get(_name).def_vjp(_select_vjp)   # clip_min is maximum(x, low), clip_max minimum(x, high)
del _name


@get("clip").def_vjp
def _clip_vjp(inputs, outputs, cts):
    """np.clip(x, low, high) is minimum(maximum(x, low), high) (NumPy's definition, and the
    Numba lowering's): the rules of those two, so ties split as theirs do."""
    x, low, high = inputs
    if not (d.wanted(x) or d.wanted(low) or d.wanted(high)):
        return [None, None, None]
    raised = d.bind("maximum", x, low)
    ct_raised, ct_high = _select_cotangents(cts[0], raised, high, outputs[0])
    ct_x, ct_low = _select_cotangents(ct_raised, x, low, raised)
    return [d.cotangent_for(ct, v) if ct is not None else None
            for ct, v in ((ct_x, x), (ct_low, low), (ct_high, high))]


@get("copysign").def_vjp
def _copysign_vjp(inputs, outputs, cts):
    """copysign(x, y) = |x| with y's sign: ct * sign(x) * (y's sign, +-1) for x (0 at x = 0,
    as abs's); 0 for y."""
    x, y = inputs
    if not d.wanted(x):
        return [None, None]
    factor = _mul(_sign(x), d.bind("copysign", _c(1, x), y))
    return [d.cotangent_for(_mul(cts[0], factor), x), None]


@get("heaviside").def_vjp
def _heaviside_vjp(inputs, outputs, cts):
    """heaviside(x, h0) is 0, h0 or 1: 0 for x; for h0, ct where x == 0."""
    x, h0 = inputs
    if not d.wanted(h0):
        return [None, None]
    ct = _where(_equal(x, _c(0, x)), cts[0], _c(0, cts[0]))
    return [None, d.cotangent_for(ct, h0)]


def _modulo_vjp(inputs, outputs, cts):
    """remainder(x, y) (Python's %) and fmod(x, y) are x - q * y with q an integer (floored
    or truncated): ct for x, -ct * q for y (JAX's), q = rint((x - out) / y)."""
    x, y = inputs
    ct = cts[0]
    ct_y = None
    if d.wanted(y):
        quotient = d.bind("rint", _div(_sub(x, outputs[0]), y))
        ct_y = d.cotangent_for(_neg(_mul(ct, quotient)), y)
    return [d.cotangent_for(ct, x), ct_y]


get("remainder").def_vjp(_modulo_vjp)
get("fmod").def_vjp(_modulo_vjp)


@get("divmod").def_vjp
def _divmod_vjp(inputs, outputs, cts):
    """(floor_divide, remainder): the quotient is piecewise constant."""
    if cts[1] is None:
        return [None, None]
    return _modulo_vjp(inputs, outputs[1:], cts[1:])


@get("ldexp").def_vjp
def _ldexp_vjp(inputs, outputs, cts):
    """ldexp(x, i) = x * 2**i: ldexp(ct, i) for x; i is an integer."""
    x, i = inputs
    if not d.wanted(x):
        return [None, None]
    return [d.cotangent_for(d.bind("ldexp", cts[0], i), x), None]


@get("frexp").def_vjp
def _frexp_vjp(inputs, outputs, cts):
    """(mantissa, exponent) with x = mantissa * 2**exponent: ldexp(ct, -exponent) for x."""
    x, = inputs
    if not d.wanted(x) or cts[0] is None:
        return [None]
    return [d.cotangent_for(d.bind("ldexp", cts[0], _neg(outputs[1])), x, broadcast=False)]


@get("modf").def_vjp
def _modf_vjp(inputs, outputs, cts):
    """(fractional part, integral part): 1 and 0."""
    x, = inputs
    if not d.wanted(x) or cts[0] is None:
        return [None]
    return [d.cotangent_for(cts[0], x, broadcast=False)]


@get("where").def_vjp
def _where_vjp(inputs, outputs, cts):
    """ct where the condition picked x, zero elsewhere; the reverse for y; none for the
    condition (a selection is piecewise constant in it)."""
    condition, x, y = inputs
    ct, zero = cts[0], _c(0, cts[0])
    return [None,
            d.cotangent_for(_where(condition, ct, zero), x) if d.wanted(x) else None,
            d.cotangent_for(_where(condition, zero, ct), y) if d.wanted(y) else None]


# Python's math module: the rule of the ufunc that computes the same function.
_MATH_UFUNCS = {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}


@get("math_call").def_vjp
def _math_call_vjp(inputs, outputs, cts, name):
    ufunc = _MATH_UFUNCS.get(name, name)
    return get(ufunc).vjp(inputs, outputs, cts)


@get("make_complex").def_vjp
def _make_complex_vjp(inputs, outputs, cts):
    """complex(re, im): Re(ct) for re, -Im(ct) for im (JAX's convention)."""
    re, im = inputs
    ct = cts[0]
    return [_real(ct) if d.wanted(re) else None,
            _neg(d.bind("imag", ct)) if d.wanted(im) else None]
