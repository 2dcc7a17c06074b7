"""The lowering helpers: what an op module imports to declare its Numba lowering next to the op
in runtime/ops/*.py. A leaf: importing it imports neither numba, the code generator, nor
runtime.ops.

A lowering is `lowering(g, node, ins)`, registered with `@get(name).def_numba`: `g` is the
code generator (runtime/executors/numba/codegen.py, `CodeGen`), `ins` the input expressions
(rank-0 values are Numba scalars). It returns one expression per output (a string, or a
list; a tensor array is a tuple of four expressions, see TA_PARTS), or None after emitting
statements itself, and raises `Unlowerable(reason)` for what Numba's nopython mode cannot
do. Dtypes are the graph's: results are converted where Numba's typing rules differ from
NumPy 2's.
"""

import ctypes

import numpy as np

from runtime.markers import DYN

_INFINITY = float("inf")


# A tensor array is four locals: data buffer, written flags, size, dynamic_size.
TA_PARTS = ("_b", "_w", "_n", "_d")


class Unlowerable(Exception):
    """Raised by a lowering (or the generator) for a node that cannot run under Numba."""


def np_dtype(dtype):
    """Source text for a NumPy dtype usable in nopython code."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return "np.bool_"
    if dtype.kind not in "biufc" or dtype == np.float16:
        raise Unlowerable("dtype %s is not supported by Numba" % dtype)
    return "np." + dtype.name


def literal_text(value, dtype):
    """A typed scalar constant of `dtype` holding `value`."""
    dtype = np.dtype(dtype)
    v = np.asarray(value).astype(dtype)[()]
    if dtype == np.bool_:
        return "True" if v else "False"
    if dtype.kind in "iu":
        # (Numba mistypes the constant -9223372036854775808 as an operand: `a + c` gives a.)
        text = str(int(v)) if int(v) != -2 ** 63 else "np.int64(-9223372036854775807 - 1)"
        return text if dtype == np.int64 else "%s(%s)" % (np_dtype(dtype), text)
    if dtype.kind == "f":
        f = float(v)
        if f != f:
            text = "np.nan"
        elif f in (_INFINITY, -_INFINITY):
            text = "np.inf" if f > 0 else "(-np.inf)"
        else:
            text = repr(f)
        return text if dtype == np.float64 else "%s(%s)" % (np_dtype(dtype), text)
    if dtype.kind == "c":
        c = complex(v)
        text = "complex(%s, %s)" % (literal_text(c.real, np.float64), literal_text(c.imag, np.float64))
        return text if dtype == np.complex128 else "%s(%s)" % (np_dtype(dtype), text)
    raise Unlowerable("literal of dtype %s" % dtype)


# Ufuncs NumPy runs with SIMD kernels: 4-18x faster than the scalar libm loops Numba
# compiles (measured, float64, 4096 elements: tanh 0.9 vs 10 ns per element, exp 0.7 vs 3.3,
# cbrt 0.7 vs 12), and they give NumPy's exact bits. Generated code calls those loops
# themselves on float arrays, the C functions the ufunc dispatches to, through their
# addresses (support.numpy_unary): no object mode, whose ~2 us a call made them pay only on
# large arrays (an RNN step's tanh of 256 elements took 2.5 us in Numba's loop, 0.25 us in
# NumPy's). The addresses are read from the ufunc objects (the fields of PyUFuncObject that
# NumPy's C API documents, numpy/ufuncobject.h) and reach generated code as an argument,
# the table `numpy_loops()`, never as constants: they change from process to process, and
# compiled code is cached on disk. A ufunc's index in this tuple is part of generated
# code: append only.
NUMPY_UNARY = (np.exp, np.log, np.tanh, np.expm1, np.log1p, np.arctan, np.exp2, np.log2,
               np.log10, np.sinh, np.cosh, np.arcsin, np.arccos, np.cbrt, np.tan, np.arctanh,
               np.arcsinh, np.arccosh)
NUMPY_UNARY_CODES = {u: i for i, u in enumerate(NUMPY_UNARY)}
# Binary ufuncs whose loops generated code calls in reduce mode, as NumPy's reduce does (the
# output's step 0: out = op(out, x[i])): np.max, np.min and np.sum of float rows and arrays
# (support.extreme_of, sum_of). NumPy's SIMD loops took 57 us for the max of 100000 float64
# where Numba's loop took 250, and they give NumPy's bits: which of 0.0 and -0.0, which
# NaN, its pairwise sum. Their codes follow NUMPY_UNARY's in numpy_loops(): append only.
NUMPY_REDUCE = (np.maximum, np.minimum, np.add)


class _UFuncFields(ctypes.Structure):
    """The leading fields of NumPy's PyUFuncObject (numpy/ufuncobject.h)."""
    _fields_ = [("ob_refcnt", ctypes.c_ssize_t), ("ob_type", ctypes.c_void_p),
                ("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nargs", ctypes.c_int),
                ("identity", ctypes.c_int), ("functions", ctypes.POINTER(ctypes.c_void_p)),
                ("data", ctypes.POINTER(ctypes.c_void_p)), ("ntypes", ctypes.c_int),
                ("reserved1", ctypes.c_int), ("name", ctypes.c_char_p),
                ("types", ctypes.POINTER(ctypes.c_char))]


_LOOP_TYPE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p),
                              ctypes.POINTER(ctypes.c_ssize_t),
                              ctypes.POINTER(ctypes.c_ssize_t), ctypes.c_void_p)
# Values the loop found for a ufunc must give NumPy's bits on before generated code uses it.
_PROBE = np.array([-800.0, -30.5, -2.0, -1.0, -0.75, -0.1, -1e-300, -0.0, 0.0, 1e-300, 0.1,
                   0.5, 0.75, 1.0, 1.5, 2.0, 3.7, 20.0, 100.5, 800.0, np.inf, -np.inf, np.nan])


def _inner_loop(ufunc, dtype):
    """(function, data) addresses of `ufunc`'s inner loop for `dtype` operands and result,
    or None when the ufunc has none or it does not give what the ufunc gives on _PROBE
    (a unary ufunc's values; a binary one's reduce of _PROBE and of its reverse, its NaN
    first, last, in the middle, or none)."""
    fields = _UFuncFields.from_address(id(ufunc))
    nargs = ufunc.nin + 1
    if fields.name != ufunc.__name__.encode() or fields.nin != ufunc.nin or fields.nout != 1:
        return None
    num = np.dtype(dtype).num
    for i in range(fields.ntypes):
        if all(ord(fields.types[nargs * i + k]) == num for k in range(nargs)):
            function = fields.functions[i]
            data = fields.data[i] if fields.data else None
            break
    else:
        return None
    if not function:
        return None
    loop = _LOOP_TYPE(function)
    probe = _PROBE.astype(dtype)
    with np.errstate(all="ignore"):
        if ufunc.nin == 1:
            out = np.empty_like(probe)
            loop((ctypes.c_void_p * 2)(probe.ctypes.data, out.ctypes.data),
                 (ctypes.c_ssize_t * 1)(probe.size),
                 (ctypes.c_ssize_t * 2)(probe.itemsize, probe.itemsize), data)
            return (function, data or 0) if out.tobytes() == ufunc(probe).tobytes() else None
        finite = probe[np.isfinite(probe)]
        for x in (probe, probe[::-1].copy(), np.roll(probe, 7), probe[:-1], finite,
                  np.tile(finite[::-1], 9)):
            # (From the identity, where the ufunc has one, as NumPy's reduce starts.)
            start = 0 if ufunc.identity is not None else 1
            out = np.full(1, ufunc.identity, dtype) if start == 0 else x[:1].copy()
            loop((ctypes.c_void_p * 3)(out.ctypes.data, x.ctypes.data + start * x.itemsize,
                                       out.ctypes.data),
                 (ctypes.c_ssize_t * 1)(x.size - start),
                 (ctypes.c_ssize_t * 3)(0, x.itemsize, 0), data)
            if out.tobytes() != np.asarray(ufunc.reduce(x)).tobytes():
                return None
    return function, data or 0


_NUMPY_LOOPS = NUMPY_UNARY + NUMPY_REDUCE
_numpy_loops = None


def numpy_loops():
    """The table generated code finds NumPy's loops in: row 2 * code + (0 for float64, 1
    for float32) of a ufunc's code (its index in NUMPY_UNARY + NUMPY_REDUCE) holds the
    addresses of its loop's function and data; zeros where there is none (`loop_index`)."""
    global _numpy_loops
    if _numpy_loops is None:
        table = np.zeros((2 * len(_NUMPY_LOOPS), 2), np.intp)
        for code, ufunc in enumerate(_NUMPY_LOOPS):
            for column, dtype in enumerate((np.float64, np.float32)):
                found = _inner_loop(ufunc, dtype)
                if found is not None:
                    table[2 * code + column] = found
        table.flags.writeable = False
        _numpy_loops = table
    return _numpy_loops


def loop_index(ufunc, dtype):
    """The row of `ufunc`'s loop for `dtype` in numpy_loops(), or None when there is none
    (generated code then uses Numba's own loop)."""
    code = _NUMPY_LOOPS.index(ufunc)
    row = 2 * code + (0 if np.dtype(dtype) == np.float64 else 1)
    return row if numpy_loops()[row, 0] else None


EXACT_SCALARS = (np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.complex128))
# The NumPy ufuncs Numba 0.68 has no nopython implementation of (numba.np.ufunc_db): named
# here rather than asked of Numba, so that generating code needs no Numba import (a first
# call on backend "auto" makes none: compiled.py). tests/runtime/test_numba_exec.py checks
# the list against the installed Numba; a ufunc missing from it makes a compile fail,
# which backend "auto" answers by running the graph on the NumPy interpreter.
NUMBA_LACKS = ("bitwise_count", "frexp", "heaviside", "matmul", "matvec", "modf", "vecdot",
               "vecmat")


def numba_ufuncs():
    """The NumPy ufuncs Numba implements in nopython mode."""
    return _NUMBA_UFUNCS


_NUMBA_UFUNCS = frozenset(value for name, value in vars(np).items()
                          if isinstance(value, np.ufunc) and value.__name__ not in NUMBA_LACKS)


def is_scalar(g, value):
    return g.is_scalar(value)


def names_its_errors(g, node):
    """Makes an exception raised by the code emitted next (by Numba's own code, or a
    `raise` with NumPy's message that a lowering emits) name `node` and the user's line.
    The code generator marks the array code it expects may raise (codegen's
    `_numba_may_raise`); a lowering calls this where that rule cannot tell: an op whose
    output length the data decides looks to it like one keeping its operand's shape."""
    g.uses_err = True
    g.emit("err[%d] = %d" % (g.node_slot, g.site(node, "node") + 1))


def typed_inputs(node):
    """Dtypes the inputs get in generated code: weak literals take NumPy's NEP 50 type."""
    strong = [v.dtype for v in node.inputs if not v.weak]
    result = []
    for v in node.inputs:
        if v.weak and strong:
            try:
                result.append(np.result_type(*strong, v.literal))
            except (OverflowError, TypeError, ValueError):
                result.append(v.dtype)
        else:
            result.append(v.dtype)
    return result


def operands(g, node):
    """(input expressions with weak literals typed as NumPy would, their dtypes)."""
    dtypes = typed_inputs(node)
    return [g.expr(v, dt) for v, dt in zip(node.inputs, dtypes)], dtypes


def cast_result(g, node, text, natural, index=0):
    """`text` (of dtype `natural` for arrays) converted to the dtype of output `index`."""
    out = node.outputs[index]
    if is_scalar(g, out):
        if out.dtype in EXACT_SCALARS and natural == out.dtype:
            return text
        return g.scalar_cast(text, out.dtype)
    if natural != out.dtype:
        return "%s.astype(%s)" % (text, np_dtype(out.dtype))
    return text


def natural_dtype(ufunc, dtypes):
    """What the ufunc gives for strongly-typed operands of these dtypes (NumPy's loops, which
    Numba's array ufuncs follow)."""
    with np.errstate(all="ignore"):
        result = ufunc(*[np.ones(1, dtype=d) for d in dtypes])
    if isinstance(result, tuple):
        return [r.dtype for r in result]
    return [result.dtype]


OPERATORS = {
    "add": "+", "subtract": "-", "multiply": "*", "less": "<", "less_equal": "<=",
    "greater": ">", "greater_equal": ">=", "equal": "==", "not_equal": "!=",
    "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "left_shift": "<<",
    "right_shift": ">>",
}
PREDICATES = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal",
              "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
              "isfinite", "signbit"}


def broadcast_step(g, array, axis):
    """A new local that is 0 where `array`'s dim `axis` is 1 (broadcast: a loop reads its
    element 0 along that axis), else 1; the loop index is multiplied by it. Written as
    `0 if ... == 1 else 1`, with the dims' checks inline (fusion._combine): LLVM then
    versions the loop for steps of 1, where a bool step or checks called as a helper cost
    the stencil kernel (jacobi_2d) 27% of its time (665 -> 850 us, tools/bench_workloads.py)
    for a few blocks less to compile."""
    step = g.tmp("m")
    g.emit("%s = 0 if %s.shape[%d] == 1 else 1" % (step, array, axis))
    return step


def shape_text(g, template, dynamic):
    """A shape tuple: static dims as ints, None dims from the dynamic inputs."""
    it = iter(dynamic)
    dims = [g.expr(next(it)) if d is None else str(int(d)) for d in template]
    return "(%s)" % "".join(d + ", " for d in dims)


def index_entries(g, x, template, dynamic):
    """The entries of x[template] in order, the ellipsis expanded and the trailing `:`s
    added: ("slice", text), ("none", None), ("int", a Python int or a scalar Value),
    ("array", an integer-array Value), ("mask", a boolean Value; it takes as many axes of x
    as its rank)."""
    it = iter(dynamic)
    entries = []
    for entry in template:
        if entry is DYN:
            value = next(it)
            if value.dtype == np.bool_:
                entries.append(("mask", value))
            else:
                entries.append(("array" if value.shape != () else "int", value))
        elif isinstance(entry, slice):
            parts = [("" if p is None else g.expr(next(it)) if p is DYN else str(int(p)))
                     for p in (entry.start, entry.stop, entry.step)]
            entries.append(("slice", "%s:%s%s" % (parts[0], parts[1],
                                                  ":" + parts[2] if parts[2] else "")))
        elif entry is None:
            entries.append(("none", None))
        elif entry is Ellipsis:
            entries.append(("ellipsis", None))
        else:
            entries.append(("int", int(entry)))
    consumed = sum(len(info.shape) if kind == "mask" else 1 for kind, info in entries
                   if kind in ("slice", "int", "array", "mask"))
    fill = [("slice", ":")] * (len(x.shape) - consumed)
    expanded = []
    for kind, info in entries:
        if kind == "ellipsis":
            expanded.extend(fill)
            fill = []
        else:
            expanded.append((kind, info))
    return expanded + fill


def is_advanced(entries):
    """Does the index hold an integer array or a boolean mask (NumPy's advanced indexing)?"""
    return any(kind in ("array", "mask") for kind, _ in entries)


def scalar_index(g, node, x, index, source, axis):
    """The expression for scalar index `index` (a Python int or a Value) on `axis` of x,
    normalised and bounds-checked unless that is known unneeded."""
    if isinstance(index, int):
        dim = x.shape[axis]
        if dim is not None and -dim <= index < dim:
            return str(index)
        return g.checked_index(node, str(index), source, axis, index)
    return g.checked_index(node, g.expr(index), source, axis, index)


def index_text(g, node, x, entries, source):
    """The index expression for a basic index (ints, slices, None: no advanced entry) of
    `source`, the array x is in generated code."""
    parts = []
    axis = 0
    for kind, info in entries:
        if kind == "none":
            parts.append("None")
            continue
        if kind == "slice":
            parts.append(info)
        elif kind == "int":
            parts.append(scalar_index(g, node, x, info, source, axis))
        else:
            raise Unlowerable("advanced indexing in a basic index")   # callers check first
        axis += 1
    return ", ".join(parts) if parts else "()"


def as_dtype(g, value, dtype):
    """`value` converted to `dtype` (a scalar conversion or an astype copy when needed)."""
    text = g.expr(value, dtype)
    if is_scalar(g, value):
        return g.scalar_cast(text, dtype)
    if value.dtype != dtype:
        return "%s.astype(%s)" % (text, np_dtype(dtype))
    return text


def ta_parts(g, value):
    """The four locals of a tensor array (the holders of its buffer and written flags, its
    size, dynamic)."""
    return list(g.expr(value))




# --- NumPy called from generated code, in object mode ------------------------------------------

def numpy_values(values, dtypes):
    """The values Numba hands an object-mode callback, as the NumPy executor gives them:
    Numba boxes scalars as Python numbers, turned back into NumPy values of the graph's
    dtypes."""
    return [value if isinstance(value, np.ndarray) else np.dtype(dtype).type(value)
            for value, dtype in zip(values, dtypes)]


def objmode_type(dtype, ndim):
    """An object-mode result type: `float64[:, ::1]` (C-contiguous), or `int64` for ndim 0."""
    name = "bool_" if np.dtype(dtype) == np.bool_ else np_dtype(dtype)[len("np."):]
    if ndim == 0:
        return name
    return "%s[%s::1]" % (name, ":, " * (ndim - 1))


def objmode_call(g, node, kind, callback, key, arguments, results=()):
    """The call, from generated code, of `callback(*arguments)` run by Python in object mode:
    its expression (the value of `results`' types, a tuple of them when there are several, or
    None). `results` are (dtype, ndim) pairs: the callback returns arrays of exactly those
    dtypes, C-contiguous. `key` says what the callback does (callbacks are registered by
    module name, so it is part of the generated module's identity).

    The object-mode block lives in its own jitted function: in the same function as the
    inline bounds checks' raise, Numba 0.68 emits invalid LLVM ("does not dominate")."""
    site = g.site(node, kind, callback=callback, key=key)
    params = ["p%d" % i for i in range(len(arguments))]
    call = "_rt.call_site(__name__, %d%s)" % (site, "".join(", " + p for p in params))
    lines = ["@_jit", "def _%s%d(%s):" % (kind, site, ", ".join(params))]
    if not results:
        lines += ["    with numba.objmode():", "        " + call]
    else:
        names = ["r%d" % i for i in range(len(results))]
        types = ", ".join("%s=%r" % (name, objmode_type(dtype, ndim))
                          for name, (dtype, ndim) in zip(names, results))
        lines += ["    with numba.objmode(%s):" % types,
                  "        %s = %s" % (", ".join(names) + ("," if len(names) == 1 else ""),
                                       call if len(names) > 1 else "(%s,)" % call),
                  "    return %s" % ", ".join(names)]
    g.add_function(lines)
    return "_%s%d(%s)" % (kind, site, ", ".join(arguments))
