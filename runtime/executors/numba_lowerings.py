"""Numba lowerings of the runtime's ops, registered in each op's `numba` slot.

A lowering is `lowering(g, node, ins)`: `g` is the code generator (numba_exec.CodeGen),
`ins` the input expressions (rank-0 values are scalars). It returns one expression per
output (a string, or a list), or None after emitting statements itself, and raises
`Unlowerable(reason)` for what Numba's nopython mode cannot do. Dtypes are those of the
graph: results are converted when Numba's own typing rules would differ from NumPy's.

(These live here while runtime/ops is being written; they register with
`@get(name).def_numba` exactly as they will next to each op definition.)
"""

import numpy as np
from numba.np import ufunc_db

from runtime.executors.numba_exec import TA_PARTS, Unlowerable, literal_text, np_dtype
from runtime.graph import TENSOR_ARRAY
from runtime.ops import get
from runtime.ops.elementwise import UFUNC_OPS
from runtime.ops.indexing import DYN
from runtime.ops.state import SLOT

_NUMBA_UFUNCS = set(ufunc_db.get_ufuncs())
_EXACT_SCALARS = (np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.complex128))


def _scalar(g, value):
    return g.is_scalar(value)


def _typed_inputs(node):
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


def _operands(g, node):
    dtypes = _typed_inputs(node)
    return [g.expr(v, dt) for v, dt in zip(node.inputs, dtypes)], dtypes


def _cast_result(g, node, text, natural, index=0):
    """`text` (of dtype `natural` for arrays) converted to the output's dtype."""
    out = node.outputs[index]
    if _scalar(g, out):
        if out.dtype in _EXACT_SCALARS and natural == out.dtype:
            return text
        return g.scalar_cast(text, out.dtype)
    if natural != out.dtype:
        return "%s.astype(%s)" % (text, np_dtype(out.dtype))
    return text


# --- elementwise ------------------------------------------------------------------------------

_OPERATORS = {
    "add": "+", "subtract": "-", "multiply": "*", "less": "<", "less_equal": "<=",
    "greater": ">", "greater_equal": ">=", "equal": "==", "not_equal": "!=",
    "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "left_shift": "<<",
    "right_shift": ">>",
}
_PREDICATES = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal",
               "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
               "isfinite", "signbit"}


def _natural_dtype(ufunc, dtypes):
    """What the ufunc gives for strongly-typed operands of these dtypes (NumPy's loops, which
    Numba's array ufuncs follow)."""
    with np.errstate(all="ignore"):
        result = ufunc(*[np.ones(1, dtype=d) for d in dtypes])
    if isinstance(result, tuple):
        return [r.dtype for r in result]
    return [result.dtype]


def _make_ufunc_lowering(ufunc):
    name = ufunc.__name__

    def lower(g, node, ins):
        if ufunc not in _NUMBA_UFUNCS:
            raise Unlowerable("np.%s has no Numba implementation" % name)
        for v in node.inputs:
            if v.dtype == np.float16 or v.dtype.kind not in "biufc":
                raise Unlowerable("dtype %s" % v.dtype)
        args, dtypes = _operands(g, node)
        scalar = all(_scalar(g, v) for v in node.inputs)
        natural = _natural_dtype(ufunc, dtypes)
        if ufunc.nout > 1:
            temp = g.tmp()
            g.emit("%s = np.%s(%s)" % (temp, name, ", ".join(args)))
            return [_cast_result(g, node, "%s[%d]" % (temp, i), natural[i], i)
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
            op = _OPERATORS.get(name)
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
            else:
                text = "np.%s(%s)" % (name, ", ".join(args))
            if name in _PREDICATES:
                return text
            exact = all(d == node.outputs[0].dtype for d in dtypes)
            return _cast_result(g, node, text, natural[0] if exact else None)
        # Numba types an array-with-scalar ufunc by the array's dtype (NumPy 1's value-based
        # rule); NumPy 2 promotes strong scalars. Give scalars the loop's common dtype.
        try:
            common = np.result_type(*dtypes)
        except TypeError:
            common = None
        if common is not None and (common.char * ufunc.nin) in [t.split("->")[0] for t in ufunc.types]:
            for k, v in enumerate(node.inputs):
                if _scalar(g, v) and dtypes[k] != common:
                    args[k] = (literal_text(v.literal, common) if v.is_literal
                               else g.scalar_cast(args[k], common))
        text = "np.%s(%s)" % (name, ", ".join(args))
        return _cast_result(g, node, text, natural[0])
    return lower


for _ufunc, _op in UFUNC_OPS.items():
    _op.def_numba(_make_ufunc_lowering(_ufunc))


@get("where").def_numba
def _where(g, node, ins):
    out = node.outputs[0]
    c = ins[0]
    x = g.expr(node.inputs[1], out.dtype)
    y = g.expr(node.inputs[2], out.dtype)
    if all(_scalar(g, v) for v in node.inputs):
        return g.scalar_cast("(%s if %s else %s)" % (x, c, y), out.dtype)
    if _scalar(g, node.inputs[0]):
        raise Unlowerable("np.where with a scalar condition and array operands")
    if not _scalar(g, node.inputs[1]) and node.inputs[1].dtype != out.dtype:
        x = "%s.astype(%s)" % (x, np_dtype(out.dtype))
    if not _scalar(g, node.inputs[2]) and node.inputs[2].dtype != out.dtype:
        y = "%s.astype(%s)" % (y, np_dtype(out.dtype))
    if _scalar(g, node.inputs[1]):
        x = g.scalar_cast(x, out.dtype)
    if _scalar(g, node.inputs[2]):
        y = g.scalar_cast(y, out.dtype)
    return "np.where(%s, %s, %s)" % (c, x, y)


def _clip_lowering(kind):
    def lower(g, node, ins):
        out = node.outputs[0]
        args, dtypes = _operands(g, node)
        if kind == "clip":
            text = "np.minimum(np.maximum(%s, %s), %s)" % tuple(args)
            natural = _natural_dtype(np.maximum, dtypes[:2])[0]
            natural = _natural_dtype(np.minimum, [natural, dtypes[2]])[0]
        elif kind == "min":
            text = "np.maximum(%s, %s)" % tuple(args)
            natural = _natural_dtype(np.maximum, dtypes)[0]
        else:
            text = "np.minimum(%s, %s)" % tuple(args)
            natural = _natural_dtype(np.minimum, dtypes)[0]
        return _cast_result(g, node, text, natural)
    return lower


get("clip").def_numba(_clip_lowering("clip"))
get("clip_min").def_numba(_clip_lowering("min"))
get("clip_max").def_numba(_clip_lowering("max"))


@get("round").def_numba
def _round(g, node, ins):
    x = node.inputs[0]
    decimals = int(node.attrs["decimals"])
    out = node.outputs[0]
    if x.dtype.kind in "biu":
        if decimals >= 0:
            return ins[0] if _scalar(g, x) else "%s.copy()" % ins[0]
        raise Unlowerable("np.round of integers with negative decimals")
    if x.dtype.kind == "c":
        raise Unlowerable("np.round of complex values")
    if decimals == 0:
        text = "np.rint(%s)" % ins[0]
    elif decimals > 0:
        scale = literal_text(10.0 ** decimals, out.dtype)
        text = "(np.rint(%s * %s) / %s)" % (ins[0], scale, scale)
    else:
        scale = literal_text(10.0 ** -decimals, out.dtype)
        text = "(np.rint(%s / %s) * %s)" % (ins[0], scale, scale)
    return _cast_result(g, node, text, x.dtype)


# --- basic ------------------------------------------------------------------------------------

@get("constant").def_numba
def _constant(g, node, ins):
    value = node.attrs["value"]
    if value.dtype.kind not in "biufc" or value.dtype == np.float16:
        raise Unlowerable("constant of dtype %s" % value.dtype)
    if value.ndim == 0:
        return literal_text(value[()], value.dtype)
    return g.constant_arg(np.ascontiguousarray(value))


@get("cast").def_numba
def _cast(g, node, ins):
    out = node.outputs[0]
    if _scalar(g, node.inputs[0]):
        return g.scalar_cast(ins[0], out.dtype)
    return "%s.astype(%s)" % (ins[0], np_dtype(out.dtype))


@get("copy").def_numba
def _copy(g, node, ins):
    if _scalar(g, node.inputs[0]):
        return ins[0]
    return "%s.copy()" % ins[0]


@get("dim").def_numba
def _dim(g, node, ins):
    return "%s.shape[%d]" % (ins[0], node.attrs["axis"])


@get("size").def_numba
def _size(g, node, ins):
    if _scalar(g, node.inputs[0]):
        return "1"
    return "%s.size" % ins[0]


# --- creation ---------------------------------------------------------------------------------

def _shape_text(g, template, dynamic):
    it = iter(dynamic)
    dims = [g.expr(next(it)) if d is None else str(int(d)) for d in template]
    return "(%s)" % "".join(d + ", " for d in dims)


def _filled_lowering(fill):
    def lower(g, node, ins):
        out = node.outputs[0]
        shape = node.attrs["shape"]
        if not shape:
            return literal_text(fill if fill is not None else 0, out.dtype)
        text = _shape_text(g, shape, node.inputs)
        function = {0: "np.zeros", 1: "np.ones", None: "np.empty"}[fill]
        return "%s(%s, %s)" % (function, text, np_dtype(out.dtype))
    return lower


get("zeros").def_numba(_filled_lowering(0))
get("ones").def_numba(_filled_lowering(1))
get("empty").def_numba(_filled_lowering(None))


@get("full").def_numba
def _full(g, node, ins):
    out = node.outputs[0]
    shape = node.attrs["shape"]
    fill = g.expr(node.inputs[0], out.dtype)
    if not _scalar(g, node.inputs[0]):
        raise Unlowerable("np.full with an array fill value")
    fill = g.scalar_cast(fill, out.dtype)
    if not shape:
        return fill
    n_leading = node.attrs.get("_n_leading", 1)
    return "np.full(%s, %s, %s)" % (_shape_text(g, shape, node.inputs[n_leading:]), fill,
                                    np_dtype(out.dtype))


def _like_lowering(fill):
    def lower(g, node, ins):
        out = node.outputs[0]
        if _scalar(g, node.inputs[0]):
            return literal_text(fill if fill is not None else 0, out.dtype)
        function = {0: "np.zeros", 1: "np.ones", None: "np.empty"}[fill]
        return "%s(%s.shape, %s)" % (function, ins[0], np_dtype(out.dtype))
    return lower


get("zeros_like").def_numba(_like_lowering(0))
get("ones_like").def_numba(_like_lowering(1))
get("empty_like").def_numba(_like_lowering(None))


@get("full_like").def_numba
def _full_like(g, node, ins):
    out = node.outputs[0]
    if not _scalar(g, node.inputs[1]):
        raise Unlowerable("np.full_like with an array fill value")
    fill = g.scalar_cast(g.expr(node.inputs[1], out.dtype), out.dtype)
    if _scalar(g, node.inputs[0]):
        return fill
    return "np.full(%s.shape, %s, %s)" % (ins[0], fill, np_dtype(out.dtype))


@get("arange").def_numba
def _arange(g, node, ins):
    out = node.outputs[0]
    if out.dtype.kind not in "iuf":
        raise Unlowerable("np.arange of dtype %s" % out.dtype)
    args = [g.scalar_cast(g.expr(v, out.dtype), out.dtype) for v in node.inputs]
    return "np.arange(%s)" % ", ".join(args)


@get("linspace").def_numba
def _linspace(g, node, ins):
    out = node.outputs[0]
    if not node.attrs.get("endpoint", True):
        raise Unlowerable("np.linspace with endpoint=False")
    if out.dtype.kind != "f":
        raise Unlowerable("np.linspace of dtype %s" % out.dtype)
    text = "np.linspace(float(%s), float(%s), %s)" % (ins[0], ins[1], ins[2])
    return _cast_result(g, node, text, np.dtype(np.float64))


# --- reductions -------------------------------------------------------------------------------

_ROW_HELPERS = {"sum": "rows_sum", "prod": "rows_prod", "mean": "rows_mean", "min": "rows_min",
                "max": "rows_max", "any": "rows_any", "all": "rows_all",
                "argmin": "rows_argmin", "argmax": "rows_argmax", "std": "rows_std",
                "var": "rows_var"}


def _reduce_lowering(name):
    def lower(g, node, ins):
        x = node.inputs[0]
        out = node.outputs[0]
        attrs = node.attrs
        axis = attrs.get("axis")
        keepdims = attrs.get("keepdims", False)
        if attrs.get("ddof") not in (None, 0):
            raise Unlowerable("np.%s with ddof" % name)
        if x.dtype.kind == "c" and name in ("min", "max", "argmin", "argmax"):
            raise Unlowerable("np.%s of complex values" % name)
        source = ins[0]
        if _scalar(g, x):
            if name in ("argmin", "argmax"):
                return "0"
            if name in ("std", "var"):
                return literal_text(0.0, out.dtype)
            return g.scalar_cast(source, out.dtype)
        ndim = len(x.shape)
        accumulate = out.dtype if name in ("sum", "prod") else None
        if accumulate is not None and accumulate != x.dtype:
            source = "%s.astype(%s)" % (source, np_dtype(accumulate))
        if attrs.get("dtype") is not None and name in ("mean", "std", "var"):
            source = "%s.astype(%s)" % (source, np_dtype(attrs["dtype"]))
        if isinstance(axis, (list, tuple)):
            axes = tuple(sorted(int(a) % ndim for a in axis))
        elif axis is None:
            axes = tuple(range(ndim))
        else:
            axes = (int(axis) % ndim,)
        if name in ("argmin", "argmax") and axis is None:
            axes = tuple(range(ndim))
        if len(axes) == ndim:
            text = "np.%s(%s)" % (name, source)
            if name in ("argmin", "argmax"):
                natural = np.dtype(np.int64)
            elif name in ("any", "all"):
                natural = np.dtype(np.bool_)
            else:
                natural = None
            if keepdims:
                temp = g.tmp()
                g.emit("%s = %s" % (temp, g.scalar_cast(text, out.dtype)))
                return "np.full(%s, %s, %s)" % ("(%s)" % ("1, " * ndim), temp,
                                                np_dtype(out.dtype))
            if natural is not None and natural == out.dtype:
                return text
            return g.scalar_cast(text, out.dtype)
        if ndim != 2 or len(axes) != 1 or name not in _ROW_HELPERS:
            raise Unlowerable("np.%s over axis %s of a rank-%d array" % (name, axis, ndim))
        rows = source if axes == (1,) else "%s.T" % source
        g.helpers.add(_ROW_HELPERS[name])
        text = "_rt.%s(%s)" % (_ROW_HELPERS[name], rows)
        helper_dtype = {"mean": np.dtype(np.float64), "std": np.dtype(np.float64),
                        "var": np.dtype(np.float64), "any": np.dtype(np.bool_),
                        "all": np.dtype(np.bool_), "argmin": np.dtype(np.int64),
                        "argmax": np.dtype(np.int64)}.get(
            name, np.dtype(accumulate) if accumulate is not None else x.dtype)
        if helper_dtype != out.dtype:
            text = "%s.astype(%s)" % (text, np_dtype(out.dtype))
        if keepdims:
            shape = ("(1, %s.shape[1])" if axes == (0,) else "(%s.shape[0], 1)") % ins[0]
            text = "%s.reshape(%s)" % (text, shape)
        return text
    return lower


for _name in ("sum", "prod", "mean", "min", "max", "any", "all", "std", "var", "argmin",
              "argmax"):
    get(_name).def_numba(_reduce_lowering(_name))


def _cumulative_lowering(name):
    def lower(g, node, ins):
        x = node.inputs[0]
        out = node.outputs[0]
        axis = node.attrs.get("axis")
        if _scalar(g, x):
            return "np.full(1, %s, %s)" % (g.scalar_cast(ins[0], out.dtype), np_dtype(out.dtype))
        source = ins[0] if x.dtype == out.dtype else "%s.astype(%s)" % (ins[0], np_dtype(out.dtype))
        if axis is None or len(x.shape) == 1:
            return "np.%s(%s)" % (name, source)
        if len(x.shape) != 2:
            raise Unlowerable("np.%s over an axis of a rank-%d array" % (name, len(x.shape)))
        if int(axis) % 2 == 1:
            return "_rt.rows_%s(%s)" % (name, source)
        return "_rt.rows_%s(%s.T).T" % (name, source)
    return lower


get("cumsum").def_numba(_cumulative_lowering("cumsum"))
get("cumprod").def_numba(_cumulative_lowering("cumprod"))


# --- indexing ---------------------------------------------------------------------------------

def _index_text(g, node, x, template, dynamic, source=None):
    """The index expression for x[template] (bounds-checked scalar indices), or raises."""
    it = iter(dynamic)
    entries = []
    for entry in template:
        if entry is DYN:
            value = next(it)
            if value.shape != () or value.dtype == np.bool_:
                raise Unlowerable("advanced indexing (arrays or masks) combined with other "
                                  "indices")
            entries.append(("dyn", value))
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
    consumed = sum(1 for k, _ in entries if k in ("dyn", "slice", "int"))
    ndim = len(x.shape)
    expanded = []
    for kind, info in entries:
        if kind == "ellipsis":
            expanded.extend([("slice", ":")] * (ndim - consumed))
        else:
            expanded.append((kind, info))
    if not any(k == "ellipsis" for k, _ in entries):
        expanded.extend([("slice", ":")] * (ndim - consumed))
    parts = []
    axis = 0
    source = source or g.expr(x)
    for kind, info in expanded:
        if kind == "none":
            parts.append("None")
            continue
        if kind == "slice":
            parts.append(info)
        elif kind == "int":
            dim = x.shape[axis]
            if dim is not None and -dim <= info < dim:
                parts.append(str(info))
            else:
                parts.append(g.checked_index(node, str(info), source, axis))
        else:
            parts.append(g.checked_index(node, g.expr(info), source, axis))
        axis += 1
    return ", ".join(parts) if parts else "()"


def _advanced_single(node, x, dynamic):
    """(kind, index value) when the index is one integer array or one boolean mask."""
    template = node.attrs["index"]
    if len(template) == 1 and template[0] is DYN and len(dynamic) == 1:
        value = dynamic[0]
        if value.dtype == np.bool_:
            return "mask", value
        if value.shape != ():
            return "take", value
    return None, None


@get("get_item").def_numba
def _get_item(g, node, ins):
    x = node.inputs[0]
    dynamic = node.inputs[1:]
    if _scalar(g, x):
        if node.attrs["index"] in ((), (Ellipsis,)):
            return ins[0]
        raise Unlowerable("indexing a scalar")
    kind, index = _advanced_single(node, x, dynamic)
    if kind == "take":
        if len(x.shape) != 1:
            raise Unlowerable("integer-array indexing of a rank-%d array" % len(x.shape))
        site = g.site(node, "index", axis=0)
        return "_rt.take1(%s, %s, %d)" % (ins[0], g.expr(index), site)
    if kind == "mask":
        if len(index.shape) != 1 or len(x.shape) != 1:
            raise Unlowerable("a boolean mask of rank %d on a rank-%d array (Numba supports "
                              "1-D masks only)" % (len(index.shape), len(x.shape)))
        site = g.site(node, "mask", axis=0)
        g.emit("_rt.check_mask(%s.shape[0], %s.shape[0], %d)" % (g.expr(index), ins[0], site))
        return "%s[%s]" % (ins[0], g.expr(index))
    return "%s[%s]" % (ins[0], _index_text(g, node, x, node.attrs["index"], dynamic))


@get("set_item").def_numba
def _set_item(g, node, ins):
    x, value = node.inputs[0], node.inputs[1]
    dynamic = node.inputs[2:]
    out = node.outputs[0]
    if _scalar(g, x):
        if node.attrs["index"] in ((), (Ellipsis,)):
            if not _scalar(g, value):
                raise Unlowerable("assigning an array into a scalar")
            return g.scalar_cast(g.expr(value, x.dtype), x.dtype)
        raise Unlowerable("indexing a scalar")
    if _scalar(g, value):
        val = g.expr(value, x.dtype)
        if value.is_literal:
            pass
        elif value.dtype != x.dtype:
            val = g.scalar_cast(val, x.dtype)
    else:
        val = g.expr(value)
        if value.dtype != x.dtype:
            val = "%s.astype(%s)" % (val, np_dtype(x.dtype))
    kind, index = _advanced_single(node, x, dynamic)
    if g.inplace(node):
        target = ins[0]
    else:
        target = g.tmp()
        g.emit("%s = %s.copy()" % (target, ins[0]))
    if kind == "mask":
        if index.shape != x.shape and len(index.shape) != 1:
            raise Unlowerable("a boolean mask whose shape differs from the array's")
        site = g.site(node, "mask", axis=0)
        g.emit("_rt.check_mask(%s.shape[0], %s.shape[0], %d)" % (g.expr(index), target, site))
        if len(x.shape) == 1:
            g.emit("%s[%s] = %s" % (target, g.expr(index), val))
        elif _scalar(g, value):
            g.emit("_rt.set_mask_scalar(%s, %s, %s)" % (target, g.expr(index), val))
        else:
            raise Unlowerable("assigning an array through an N-D boolean mask")
    elif kind == "take":
        raise Unlowerable("assignment through an integer-array index")
    else:
        index_text = _index_text(g, node, x, node.attrs["index"], dynamic, target)
        g.emit("%s[%s] = %s" % (target, index_text, val))
    return target


# --- shapes -----------------------------------------------------------------------------------

@get("reshape").def_numba
def _reshape(g, node, ins):
    x = node.inputs[0]
    out = node.outputs[0]
    if _scalar(g, x) or _scalar(g, out):
        raise Unlowerable("reshape to or from a scalar")
    shape = _shape_text(g, node.attrs["newshape"], node.inputs[1:])
    return "np.ascontiguousarray(%s).reshape(%s)" % (ins[0], shape)


@get("transpose").def_numba
def _transpose(g, node, ins):
    axes = node.attrs["axes"]
    if _scalar(g, node.inputs[0]):
        return ins[0]
    ndim = len(node.inputs[0].shape)
    if axes is None or tuple(int(a) % ndim for a in axes) == tuple(range(ndim))[::-1]:
        return "%s.T" % ins[0]
    return "np.transpose(%s, (%s))" % (ins[0], "".join("%d, " % (int(a) % ndim) for a in axes))


@get("swapaxes").def_numba
def _swapaxes(g, node, ins):
    return "np.swapaxes(%s, %d, %d)" % (ins[0], node.attrs["axis1"], node.attrs["axis2"])


@get("expand_dims").def_numba
def _expand_dims(g, node, ins):
    out = node.outputs[0]
    out_ndim = len(out.shape)
    axes = {int(a) % out_ndim for a in node.attrs["axis"]}
    if _scalar(g, node.inputs[0]):
        return "np.full((%s), %s, %s)" % ("1, " * out_ndim, ins[0], np_dtype(out.dtype))
    parts = ["None" if i in axes else ":" for i in range(out_ndim)]
    return "%s[%s]" % (ins[0], ", ".join(parts))


@get("squeeze").def_numba
def _squeeze(g, node, ins):
    x = node.inputs[0]
    axes = set(node.attrs["axis"])
    if _scalar(g, x):
        return ins[0]
    parts = []
    for axis, dim in enumerate(x.shape):
        if axis in axes:
            if dim != 1:
                site = g.site(node, "squeeze")
                g.emit("if %s.shape[%d] != 1:" % (ins[0], axis))
                g.emit("    raise _rt.GraphFail(%d)" % site)
            parts.append("0")
        else:
            parts.append(":")
    return "%s[%s]" % (ins[0], ", ".join(parts))


@get("ravel").def_numba
def _ravel(g, node, ins):
    if _scalar(g, node.inputs[0]):
        return "np.full(1, %s, %s)" % (ins[0], np_dtype(node.outputs[0].dtype))
    return "np.ravel(%s)" % ins[0]


@get("flatten").def_numba
def _flatten(g, node, ins):
    if _scalar(g, node.inputs[0]):
        return "np.full(1, %s, %s)" % (ins[0], np_dtype(node.outputs[0].dtype))
    return "%s.flatten()" % ins[0]


def _as_dtype(g, value, dtype):
    text = g.expr(value, dtype)
    if _scalar(g, value):
        return g.scalar_cast(text, dtype)
    if value.dtype != dtype:
        return "%s.astype(%s)" % (text, np_dtype(dtype))
    return text


@get("concatenate").def_numba
def _concatenate(g, node, ins):
    out = node.outputs[0]
    axis = node.attrs["axis"]
    if any(_scalar(g, v) for v in node.inputs):
        raise Unlowerable("concatenating scalars")
    parts = [_as_dtype(g, v, out.dtype) for v in node.inputs]
    if axis is None:
        parts = ["np.ravel(%s)" % p for p in parts]
        return "np.concatenate((%s))" % "".join(p + ", " for p in parts)
    return "np.concatenate((%s), axis=%d)" % ("".join(p + ", " for p in parts), int(axis))


@get("stack").def_numba
def _stack(g, node, ins):
    out = node.outputs[0]
    parts = [_as_dtype(g, v, out.dtype) for v in node.inputs]
    if all(_scalar(g, v) for v in node.inputs):
        return "np.array([%s], dtype=%s)" % (", ".join(parts), np_dtype(out.dtype))
    if any(_scalar(g, v) for v in node.inputs):
        raise Unlowerable("np.stack of scalars and arrays")
    return "np.stack((%s), %d)" % ("".join(p + ", " for p in parts), int(node.attrs["axis"]))


# --- products ---------------------------------------------------------------------------------

def _product_lowering(name):
    def lower(g, node, ins):
        out = node.outputs[0]
        a, b = node.inputs
        if out.dtype.kind not in "fc":
            raise Unlowerable("%s of %s values (Numba's BLAS products take floats only)"
                              % (name, out.dtype))
        if name == "dot" and (_scalar(g, a) or _scalar(g, b)):
            text = "(%s * %s)" % (_as_dtype(g, a, out.dtype), _as_dtype(g, b, out.dtype))
            return g.scalar_cast(text, out.dtype) if _scalar(g, out) else text
        if _scalar(g, a) or _scalar(g, b) or len(a.shape) > 2 or len(b.shape) > 2:
            raise Unlowerable("%s of rank-%d and rank-%d operands (Numba: 1-D and 2-D only)"
                              % (name, len(a.shape), len(b.shape)))
        x = "np.ascontiguousarray(%s)" % _as_dtype(g, a, out.dtype)
        y = "np.ascontiguousarray(%s)" % _as_dtype(g, b, out.dtype)
        text = "np.dot(%s, %s)" % (x, y)
        if _scalar(g, out):
            return g.scalar_cast(text, out.dtype)
        return text
    return lower


get("matmul").def_numba(_product_lowering("matmul"))
get("dot").def_numba(_product_lowering("dot"))


@get("outer").def_numba
def _outer(g, node, ins):
    out = node.outputs[0]
    a, b = node.inputs
    if _scalar(g, a) or _scalar(g, b):
        raise Unlowerable("np.outer of scalars")
    return "np.outer(np.ravel(%s), np.ravel(%s))" % (_as_dtype(g, a, out.dtype),
                                                     _as_dtype(g, b, out.dtype))


# --- variables --------------------------------------------------------------------------------

@get("read_variable").def_numba
def _read_variable(g, node, ins):
    variable = node.attrs["variable"]
    name = g.variable_arg(variable)
    if variable.dtype.kind not in "biufc" or variable.dtype == np.float16:
        raise Unlowerable("a variable of dtype %s" % variable.dtype)
    if len(variable.shape) == 0:
        return "%s[0]" % name
    if id(variable) in g.assigned_variables:
        return "%s.copy()" % name   # a later assign updates the buffer in place
    return name


@get("assign_variable").def_numba
def _assign_variable(g, node, ins):
    variable = node.attrs["variable"]
    mode = node.attrs["mode"]
    name = g.variable_arg(variable)
    value = node.inputs[0]
    dtype = variable.dtype
    text = g.expr(value, dtype) if mode == "assign" else g.expr(value)
    if len(variable.shape) == 0:
        if not _scalar(g, value):
            raise Unlowerable("assigning an array to a scalar variable")
        if mode == "add":
            text = "%s[0] + %s" % (name, text)
        elif mode == "sub":
            text = "%s[0] - %s" % (name, text)
        g.emit("%s[0] = %s" % (name, g.scalar_cast(text, dtype)))
        return None
    target = "%s[%s]" % (name, ", ".join([":"] * len(variable.shape)))
    if mode == "add":
        text = "(%s + %s)" % (name, text)
    elif mode == "sub":
        text = "(%s - %s)" % (name, text)
    if _scalar(g, value):
        if mode == "assign":
            text = g.scalar_cast(text, dtype)
        else:
            text = "%s.astype(%s)" % (text, np_dtype(dtype))
    else:
        text = "%s.astype(%s)" % (text, np_dtype(dtype))
    g.emit("%s = %s" % (target, text))
    return None


# --- tensor arrays ----------------------------------------------------------------------------

def _ta(g, value):
    base = g.expr(value)
    return [base + p for p in TA_PARTS]


@get("ta_new").def_numba
def _ta_new(g, node, ins):
    out = node.outputs[0]
    shape = out.shape if out.shape is not None else g.ta_shapes.get(out)
    if shape is None:
        raise Unlowerable("a TensorArray whose element shape is unknown (pass element_shape=)")
    np_dtype(out.dtype)
    size = ins[0]
    dims = "".join("%s, " % (0 if d is None else int(d)) for d in shape)
    site = g.site(node, "ta_new")
    buf, written = g.tmp("b"), g.tmp("w")
    g.emit("%s, %s = _rt.ta_new(np.empty((max(%s, 0), %s), %s), %s, %d)"
           % (buf, written, size, dims, np_dtype(out.dtype), size, site))
    return [(buf, written, "np.int64(%s)" % size,
             "True" if node.attrs["dynamic_size"] else "False")]


@get("ta_write").def_numba
def _ta_write(g, node, ins):
    ta, index, value = node.inputs
    b, w, n, d = _ta(g, ta)
    out = node.outputs[0]
    if not g.inplace(node):
        nb, nw = g.tmp("b"), g.tmp("w")
        g.emit("%s = %s.copy()" % (nb, b))
        g.emit("%s = %s.copy()" % (nw, w))
        b, w = nb, nw
    site = g.site(node, "ta_write")
    nb, nw, nn = g.tmp("b"), g.tmp("w"), g.tmp("n")
    if _scalar(g, value):
        val = g.scalar_cast(g.expr(value, out.dtype), out.dtype)
        helper = "ta_write"
    else:
        val = _as_dtype(g, value, out.dtype)
        helper = "ta_write_array"
    g.emit("%s, %s, %s = _rt.%s(%s, %s, %s, %s, %s, %s, %d)"
           % (nb, nw, nn, helper, b, w, n, d, g.expr(index), val, site))
    return [(nb, nw, nn, d)]


@get("ta_read").def_numba
def _ta_read(g, node, ins):
    ta, index = node.inputs
    b, w, n, d = _ta(g, ta)
    site = g.site(node, "ta_read")
    return "%s[_rt.ta_check_read(%s, %s, %s, %d)]" % (b, w, g.expr(index), n, site)


@get("ta_size").def_numba
def _ta_size(g, node, ins):
    return _ta(g, node.inputs[0])[2]


@get("ta_stack").def_numba
def _ta_stack(g, node, ins):
    b, w, n, d = _ta(g, node.inputs[0])
    site = g.site(node, "ta_stack")
    g.emit("_rt.ta_check_stack(%s, %s, %d)" % (w, n, site))
    return "%s[:%s].copy()" % (b, n)


@get("ta_unstack").def_numba
def _ta_unstack(g, node, ins):
    value = node.inputs[0]
    out = node.outputs[0]
    if _scalar(g, value):
        raise Unlowerable("unstacking a scalar")
    buf = _as_dtype(g, value, out.dtype)
    if value.dtype == out.dtype:
        buf = "%s.copy()" % buf
    temp = g.tmp("b")
    g.emit("%s = np.ascontiguousarray(%s)" % (temp, buf))
    return [(temp, "np.ones(%s.shape[0], np.bool_)" % temp, "np.int64(%s.shape[0])" % temp,
             "True" if node.attrs["dynamic_size"] else "False")]


# --- print and assert -------------------------------------------------------------------------

@get("print").def_numba
def _print(g, node, ins):
    from runtime.executors.numba_support import make_printer
    for v in node.inputs:
        if v.kind == TENSOR_ARRAY:
            raise Unlowerable("printing a TensorArray")
    dtypes = [v.dtype for v in node.inputs]
    printer = make_printer(node.attrs["items"], node.attrs["sep"], node.attrs["end"], dtypes,
                           SLOT)
    site = g.site(node, "print", printer=printer)
    # The object-mode block lives in its own jitted function: in the same function as the
    # inline bounds checks' raise, Numba 0.68 emits invalid LLVM ("does not dominate").
    params = ", ".join("p%d" % i for i in range(len(ins)))
    g.add_function([
        "@numba.njit(cache=True)",
        "def _print%d(%s):" % (site, params),
        "    with numba.objmode():",
        "        _rt.call_site(__name__, %d%s)" % (site, "".join(", p%d" % i for i in range(len(ins)))),
    ])
    g.emit("_print%d(%s)" % (site, ", ".join(ins)))
    return None


@get("assert").def_numba
def _assert(g, node, ins):
    condition = node.inputs[0]
    data = node.inputs[1:]
    for v in data:
        if not _scalar(g, v):
            raise Unlowerable("an assert that prints arrays")
    site = g.site(node, "assert", items=node.attrs["items"], dtypes=[v.dtype for v in data])
    test = ins[0] if _scalar(g, condition) else "np.all(%s)" % ins[0]
    g.emit("if not %s:" % test)
    g.emit("    raise _rt.GraphFail(%d%s)" % (site, "".join(", " + g.expr(v) for v in data)))
    return None
