"""Indexing: get_item (ints, slices, None, ..., tensor indices, boolean masks) and set_item.

The index is kept in the node's attrs as a template: a tuple whose entries are Python ints,
None, Ellipsis, slices, or DYN; each DYN (also inside a slice) takes the next dynamic input
after the array (and, for set_item, after the value)."""

import numpy as np

from runtime import errors
from runtime.executors.numba import lowering as nl
from runtime.markers import DYN
from runtime.ops import gradients as d
from runtime.ops.inference import broadcast_shapes
from runtime.ops.registry import defop, get


def _entry_kind(entry, dynamic_iter):
    """(kind, info) for one template entry; kinds: int, slice, newaxis, ellipsis,
    int_scalar, int_array, mask."""
    if entry is DYN:
        value = next(dynamic_iter)
        if value.dtype == np.bool_:
            return "mask", value
        if value.dtype.kind not in "iu":
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             "(`None`) and integer or boolean arrays are valid indices")
        return ("int_scalar", value) if value.shape == () else ("int_array", value)
    if entry is None:
        return "newaxis", None
    if entry is Ellipsis:
        return "ellipsis", None
    if isinstance(entry, slice):
        parts = []
        for part in (entry.start, entry.stop, entry.step):
            if part is DYN:
                value = next(dynamic_iter)
                if value.shape != () or value.dtype.kind not in "iu":
                    raise TypeError("slice indices must be integers or None or have an "
                                    "__index__ method")
                parts.append(DYN)
            else:
                parts.append(part)
        return "slice", slice(*parts)
    return "int", int(entry)


def indexed_shape(shape, template, dynamic):
    """The result shape of x[index] (None dims where unknown); raises NumPy's errors for
    invalid indices that can be seen at trace time."""
    it = iter(dynamic)
    entries = [_entry_kind(e, it) for e in template]
    consumed = 0
    for kind, info in entries:
        if kind in ("int", "slice", "int_scalar", "int_array"):
            consumed += 1
        elif kind == "mask":
            consumed += len(info.shape)
    ndim = len(shape)
    if sum(1 for k, _ in entries if k == "ellipsis") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError("too many indices for array: array is %d-dimensional, but %d were "
                         "indexed" % (ndim, consumed))
    expanded = []
    for kind, info in entries:
        if kind == "ellipsis":
            expanded.extend([("slice", slice(None))] * (ndim - consumed))
        else:
            expanded.append((kind, info))
    if not any(k == "ellipsis" for k, _ in entries):
        expanded.extend([("slice", slice(None))] * (ndim - consumed))

    has_advanced = any(k in ("int_array", "mask") for k, _ in expanded)
    out = []
    advanced_shapes = []
    advanced_positions = []
    axis = 0
    for position, (kind, info) in enumerate(expanded):
        if kind == "newaxis":
            out.append(1)
            continue
        if kind == "slice":
            dim = shape[axis]
            if dim is not None and DYN not in (info.start, info.stop, info.step):
                out.append(len(range(*info.indices(dim))))
            else:
                out.append(None)
            axis += 1
            continue
        if kind in ("int", "int_scalar"):
            dim = shape[axis]
            if kind == "int" and dim is not None and not -dim <= info < dim:
                from runtime.errors import OutOfRangeError
                raise OutOfRangeError("index %d is out of bounds for axis %d with size %d"
                                      % (info, axis, dim))
            axis += 1
            if has_advanced:
                advanced_shapes.append(())
                advanced_positions.append(position)
            continue
        if kind == "int_array":
            advanced_shapes.append(info.shape)
            advanced_positions.append(position)
            axis += 1
            continue
        if kind == "mask":
            for i, mdim in enumerate(info.shape):
                dim = shape[axis + i]
                if dim is not None and mdim is not None and dim != mdim:
                    raise IndexError(
                        "boolean index did not match indexed array along axis %d; size of "
                        "axis is %d but size of corresponding boolean axis is %d"
                        % (axis + i, dim, mdim))
            axis += len(info.shape)
            count = None
            if info.is_literal:
                count = int(bool(info.literal))
            advanced_shapes.append((count,))
            advanced_positions.append(position)
            continue
    if not advanced_shapes:
        return tuple(out)
    advanced = broadcast_shapes(*advanced_shapes)
    contiguous = advanced_positions == list(range(advanced_positions[0],
                                                  advanced_positions[-1] + 1))
    if contiguous:
        # `out` holds the non-advanced dims in order; insert the advanced block where the
        # first advanced index was.
        before = sum(1 for k, _ in expanded[:advanced_positions[0]] if k in ("slice", "newaxis"))
        return tuple(out[:before]) + advanced + tuple(out[before:])
    return advanced + tuple(out)


def is_basic(template, dynamic):
    """True when x[index] is a view (no advanced indexing)."""
    return all(v.shape == () and v.dtype != np.bool_ for v in dynamic)


def _materialize(entry, it):
    if entry is DYN:
        return next(it)
    if isinstance(entry, slice) and DYN in (entry.start, entry.stop, entry.step):
        return slice(*[next(it) if p is DYN else p for p in (entry.start, entry.stop, entry.step)])
    return entry


def index_builder(template):
    """A function from the dynamic index values (a tuple) to the NumPy index."""
    n_dynamic = sum(1 for e in template if e is DYN) + sum(
        1 for e in template if isinstance(e, slice) for p in (e.start, e.stop, e.step) if p is DYN)
    if n_dynamic == 0:
        index = tuple(template)
        return lambda dynamic: index
    if template == (DYN,):
        return lambda dynamic: dynamic[0]
    if all(e is DYN for e in template):
        return tuple

    def build(dynamic):
        it = iter(dynamic)
        return tuple([_materialize(e, it) for e in template])
    return build


def _static_int(entry):
    return (type(entry) is int or isinstance(entry, np.integer)) and type(entry) is not bool


def index_source(template):
    """(the Python source of `template` as a subscript, its dynamic entries named d0, d1,
    ... in order, and their number): `x[:, d0]` gives ("[:, d0]", 1); None when an entry
    is other than an int, None, Ellipsis, DYN or a slice of those. Kernels compiled from
    it index with no Python call in between (an index built per call by index_builder
    costs more than a small array's x[:, t] itself)."""
    names = []

    def part(p):
        if p is None:
            return ""
        if p is DYN:
            names.append("d%d" % len(names))
            return names[-1]
        if _static_int(p):
            return "%d" % p
        raise TypeError

    texts = []
    try:
        for entry in template:
            if entry is DYN or entry is None or _static_int(entry):
                texts.append(part(entry) if entry is not None else "None")
            elif entry is Ellipsis:
                texts.append("...")
            elif isinstance(entry, slice):
                text = "%s:%s" % (part(entry.start), part(entry.stop))
                if entry.step is not None:
                    text += ":" + part(entry.step)
                texts.append(text)
            else:
                return None
    except TypeError:
        return None
    # (One entry alone, not in a tuple: NumPy's fast path for x[i], the same result.)
    subscript = ", ".join(texts) if texts else "()"
    return "[%s]" % subscript, len(names)


def _compiled_index_kernel(template, body):
    """The function `kernel` that `body` defines, `{i}` in it the subscript of `template`
    and `{d}` its dynamic parameters (", d0, d1"); None where the template has no source
    (index_source)."""
    found = index_source(template)
    if found is None:
        return None
    subscript, n = found
    namespace = {"np": np}
    exec(body.format(i=subscript, d="".join(", d%d" % k for k in range(n))), namespace)
    return namespace["kernel"]


def format_index(template, dynamic, namer):
    it = iter(dynamic)
    parts = []
    for entry in template:
        if entry is DYN:
            parts.append(namer(next(it)))
        elif entry is None:
            parts.append("None")
        elif entry is Ellipsis:
            parts.append("...")
        elif isinstance(entry, slice):
            bits = [("" if p is None else namer(next(it)) if p is DYN else str(p))
                    for p in (entry.start, entry.stop, entry.step)]
            parts.append(":".join(bits[:2]) + (":" + bits[2] if bits[2] else ""))
        else:
            parts.append(str(entry))
    return "[%s]" % ", ".join(parts)


# --- get_item -------------------------------------------------------------------------------

def _get_item_infer(x, *dynamic, index):
    return [(x.dtype, indexed_shape(x.shape, index, dynamic))]


def _get_item_kernel(index):
    if index == (DYN,):
        return lambda x, i: x[i]
    compiled = _compiled_index_kernel(index, "def kernel(x{d}):\n    return x{i}\n")
    if compiled is not None:
        return compiled
    build = index_builder(index)
    if not any(e is DYN or isinstance(e, slice) and DYN in (e.start, e.stop, e.step)
               for e in index):
        static = build(())
        return lambda x: x[static]
    return lambda x, *dynamic: x[build(dynamic)]


def _get_item_expression(node):
    # (The kernel's own expression: `{0}[:, {1}]` for x[:, t].)
    found = index_source(node.attrs["index"])
    if found is None:
        return None
    subscript, n = found
    for k in reversed(range(n)):   # (d10 before d1)
        subscript = subscript.replace("d%d" % k, "{%d}" % (k + 1))
    return "{0}" + subscript


get_item = defop(
    "get_item", infer=_get_item_infer, make_kernel=_get_item_kernel,
    view=lambda node: is_basic(node.attrs["index"], node.inputs[1:]),
    format=lambda node, namer: "get_item %s%s" % (
        namer(node.inputs[0]), format_index(node.attrs["index"], node.inputs[1:], namer)),
    doc="x[index]")
get_item.expression = _get_item_expression


# --- set_item -------------------------------------------------------------------------------

def _set_item_infer(x, value, *dynamic, index):
    target = indexed_shape(x.shape, index, dynamic)
    vshape = value.shape
    while len(vshape) > len(target) and vshape[0] in (1, None):
        vshape = vshape[1:]
    if len(vshape) > len(target):
        raise ValueError("could not broadcast input array from shape (%s) into shape (%s)"
                         % (",".join(map(str, value.shape)), ",".join(map(str, target))))
    combined = broadcast_shapes(target, vshape)
    for t, c in zip(target, combined):
        if t is not None and c is not None and t != c:
            raise ValueError("could not broadcast input array from shape (%s) into shape (%s)"
                             % (",".join(map(str, value.shape)), ",".join(map(str, target))))
    if value.is_literal:
        # NumPy's own check: e.g. a Python int out of range for the array's dtype.
        np.empty((), dtype=x.dtype)[()] = value.literal
    return [(x.dtype, x.shape)]


def _set_item_kernel(index, inplace):
    compiled = _compiled_index_kernel(index, "def kernel(x, value{d}):\n" + (
        "" if inplace else "    x = np.array(x)\n") + "    x{i} = value\n    return x\n")
    if compiled is not None:
        return compiled
    build = index_builder(index)
    if inplace:
        if index == (DYN,):
            def set_item(x, value, i):
                x[i] = value
                return x
        else:
            def set_item(x, value, *dynamic):
                x[build(dynamic)] = value
                return x
    else:
        def set_item(x, value, *dynamic):
            x = np.array(x)
            x[build(dynamic)] = value
            return x
    return set_item


set_item = defop(
    "set_item", infer=_set_item_infer, make_kernel=_set_item_kernel, inplace_input=0,
    format=lambda node, namer: "set_item %s%s, %s" % (
        namer(node.inputs[0]), format_index(node.attrs["index"], node.inputs[2:], namer),
        namer(node.inputs[1])),
    doc="x[index] = value, as a new version of x (updated in place when x is dead)")


# --- ufunc_at --------------------------------------------------------------------------------

def _ufunc_at_infer(x, value, *dynamic, index, ufunc):
    """np.<ufunc>.at(x, index, value): x's type. NumPy's errors: the ufunc's for these dtypes
    (a boolean subtract), a value that does not broadcast to x[index] (no leading dims of
    one dropped, unlike an item assignment)."""
    target = indexed_shape(x.shape, index, dynamic)
    at_loop(ufunc, x, value)
    if len(value.shape) > len(target) or any(
            v is not None and t is not None and v not in (1, t)
            for v, t in zip(value.shape[::-1], target[::-1])):
        raise errors.mark_python_error(ValueError("array is not broadcastable to correct shape"))
    return [(x.dtype, x.shape)]


def at_loop(ufunc, x, value):
    """The dtypes (in1, in2, out) of the loop np.<ufunc>.at runs on these Values. It takes
    its operand as an array: a Python number is as strong as an int64 or float64 array
    (np.add.at(int8s, i, 300) wraps where int8s + 300 raises); the result is cast to x's
    dtype unsafely."""
    try:
        return getattr(np, ufunc).resolve_dtypes((x.dtype, value.dtype, None))
    except TypeError as error:
        raise errors.mark_python_error(error)


def _ufunc_at_kernel(index, ufunc, inplace):
    build = index_builder(index)
    at = getattr(np, ufunc).at

    def ufunc_at(x, value, *dynamic):
        if not inplace:
            x = np.array(x)
        at(x, build(dynamic), value)
        return x
    return ufunc_at


ufunc_at = defop(
    "ufunc_at", infer=_ufunc_at_infer, make_kernel=_ufunc_at_kernel, inplace_input=0,
    format=lambda node, namer: "ufunc_at %s.at(%s%s, %s)" % (
        node.attrs["ufunc"], namer(node.inputs[0]),
        format_index(node.attrs["index"], node.inputs[2:], namer), namer(node.inputs[1])),
    doc="np.<ufunc>.at(x, index, value): x with ufunc(x[index], value) written at index, "
        "elements indexed more than once combined each time (a new version of x, updated "
        "in place when x is dead)")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

def _single_mask(g, node, x, entries, source):
    """The mask of `x[mask]` on a 1-d x (Numba's own boolean indexing), after NumPy's shape
    check; None for other indices (they run as the code generator's loops)."""
    if len(entries) != 1 or entries[0][0] != "mask" or len(x.shape) != 1:
        return None
    mask = entries[0][1]
    if len(mask.shape) != 1:
        return None
    g.emit("_rt.check_mask(%s.shape[0], %s.shape[0], %d)"
           % (g.expr(mask), source, g.site(node, "mask", axis=0)))
    return g.expr(mask)


@get("get_item").def_numba
def _numba_get_item(g, node, ins):
    x = node.inputs[0]
    if nl.is_scalar(g, x):
        index = node.attrs["index"]
        if index in ((), (Ellipsis,)):
            return ins[0]
        if all(entry is None or entry is Ellipsis for entry in index):
            # (New axes on a 0-d array, x[None]: an array of the one element.)
            out = node.outputs[0]
            return "np.full((%s), %s, %s)" % ("1, " * len(out.shape), ins[0],
                                              nl.np_dtype(out.dtype))
        raise nl.Unlowerable("indexing a scalar")
    entries = nl.index_entries(g, x, node.attrs["index"], node.inputs[1:])
    if not nl.is_advanced(entries):
        return "%s[%s]" % (ins[0], nl.index_text(g, node, x, entries, ins[0]))
    mask = _single_mask(g, node, x, entries, ins[0])
    if mask is not None:
        return "%s[%s]" % (ins[0], mask)
    return g.gather(node, entries, ins[0])


@get("set_item").def_numba
def _numba_set_item(g, node, ins):
    x, value = node.inputs[0], node.inputs[1]
    if nl.is_scalar(g, x):
        if node.attrs["index"] in ((), (Ellipsis,)):
            if not nl.is_scalar(g, value):
                raise nl.Unlowerable("assigning an array into a scalar")
            return g.scalar_cast(g.expr(value, x.dtype), x.dtype)
        raise nl.Unlowerable("indexing a scalar")
    if nl.is_scalar(g, value):
        val = g.expr(value, x.dtype)
        if not value.is_literal and value.dtype != x.dtype:
            val = g.scalar_cast(val, x.dtype)
    else:
        val = g.expr(value)
        if value.dtype != x.dtype:
            val = "%s.astype(%s)" % (val, nl.np_dtype(x.dtype))
    if g.inplace(node):
        target = ins[0]
    else:
        target = g.tmp()
        g.emit("%s = %s.copy()" % (target, ins[0]))
    entries = nl.index_entries(g, x, node.attrs["index"], node.inputs[2:])
    if not nl.is_advanced(entries):
        g.emit("%s[%s] = %s" % (target, nl.index_text(g, node, x, entries, target), val))
        return target
    mask = _single_mask(g, node, x, entries, target) if nl.is_scalar(g, value) else None
    if mask is not None:
        g.emit("%s[%s] = %s" % (target, mask, val))
    else:
        g.scatter(node, entries, target, value, val)
    return target


# np.<ufunc>.at in generated code: the element's new value from its old one and the value's
# element, in the loop's dtypes (`at_loop`); the ufuncs whose Numba scalar code is NumPy's.
_AT_SCALAR = {"add": "(%s + %s)", "subtract": "(%s - %s)", "multiply": "(%s * %s)",
              "maximum": "np.maximum(%s, %s)", "minimum": "np.minimum(%s, %s)"}


@get("ufunc_at").def_numba
def _numba_ufunc_at(g, node, ins):
    x, value = node.inputs[0], node.inputs[1]
    name = node.attrs["ufunc"]
    if name not in _AT_SCALAR:
        raise nl.Unlowerable("np.%s.at" % name)
    entries = nl.index_entries(g, x, node.attrs["index"], node.inputs[2:])
    if nl.is_scalar(g, x) or not nl.is_advanced(entries):
        # (np.<ufunc>.at with a basic index is recorded as x[index] = ufunc(x[index], v).)
        raise nl.Unlowerable("np.%s.at without an index array" % name)
    first, second, _ = at_loop(name, x, value)
    val = g.expr(value)

    def combine(element, operand):
        if x.dtype != first:
            element = g.scalar_cast(element, first)
        if value.dtype != second:
            operand = g.scalar_cast(operand, second)
        # (Numba computes small ints in int64: the cast wraps as NumPy's int8 loop does.)
        return g.scalar_cast(_AT_SCALAR[name] % (element, operand), x.dtype)

    if g.inplace(node):
        target = ins[0]
    else:
        target = g.tmp()
        g.emit("%s = %s.copy()" % (target, ins[0]))
    g.scatter(node, entries, target, value, val, combine)
    return target


# --- derivative rules (reverse mode: runtime/autodiff.py; helpers: runtime/ops/gradients.py) ---
# The dynamic inputs of an index (int scalars, int and bool arrays) get no cotangent.

def _has_int_array(dynamic):
    """Does the index hold an integer array (that may name an element more than once)?"""
    return any(v.shape != () and v.dtype != np.bool_ for v in dynamic)


@get("get_item").def_vjp
def _get_item_vjp(inputs, outputs, cts, index):
    """x's cotangent: zeros with ct added at the index. A basic index names each element of
    x at most once (a write does); an integer array may name one several times, and each
    time adds its share (np.add.at)."""
    x, dynamic = inputs[0], inputs[1:]
    ct = cts[0]
    none = [None] * len(dynamic)
    if x.shape == ():
        # (A 0-d x takes only new axes, `...` and boolean scalars: x once, or nothing.)
        return [ct if ct.shape == () else
                d.bind("sum", ct, axis=None, keepdims=False, dtype=None)] + none
    # (Sparse: the engine adds it into x's cotangent in place, or makes it dense.)
    return [d.Scatter(x, ct, dynamic, index, basic=is_basic(index, dynamic))] + none


def _ids_like(x):
    """1, 2, 3, ... in x's shape (int64): one id per element."""
    ones = d.bind("ones_like", x, dtype=np.dtype(np.int64))
    template, dynamic = d.dims(x)
    return d.bind("reshape", d.bind("cumsum", ones, axis=None, dtype=None), *dynamic,
                  newshape=template)


def _written_ct(ct, x, value, dynamic, index):
    """The cotangent of `value` in x[index] = value: ct read at the index, where the element
    written last (NumPy's order, and the generated code's) is the one that landed; summed
    back over what the write broadcast."""
    read = d.bind("get_item", ct, *dynamic, index=index)
    if _has_int_array(dynamic):
        # An element named twice keeps the later write: JAX's scheme, an id written per
        # element of x[index] and read back, tells which writes landed.
        ids = _ids_like(read)
        slots = d.bind("zeros_like", x, dtype=np.dtype(np.int64))
        written = d.bind("set_item", slots, ids, *dynamic, index=index)
        landed = d.bind("equal", d.bind("get_item", written, *dynamic, index=index), ids)
        read = d.bind("where", landed, read, d.scalar(0, read.dtype))
    extra = len(value.shape) - len(read.shape)
    if extra > 0:   # (value's leading dims of one, which the write dropped)
        read = d.bind("expand_dims", read, axis=tuple(range(extra)))
    return d.unbroadcast(read, value)


@get("set_item").def_vjp
def _set_item_vjp(inputs, outputs, cts, index):
    """x[index] = value, a new version: x's cotangent is ct with the index zeroed (those
    elements were overwritten); value's is ct at the index."""
    x, value, dynamic = inputs[0], inputs[1], inputs[2:]
    ct = cts[0]
    ct_x = d.bind("set_item", ct, d.scalar(0, ct.dtype), *dynamic, index=index)
    ct_value = None
    if d.wanted(value):
        ct_value = _written_ct(ct, x, value, dynamic, index)
    return [ct_x, ct_value] + [None] * len(dynamic)


@get("ufunc_at").def_vjp
def _ufunc_at_vjp(inputs, outputs, cts, index, ufunc):
    """np.add.at / np.subtract.at: x's cotangent is ct; value's is ct at the index (each
    time an element is named it took one more share of value), negated for subtract.
    Other ufuncs are refused."""
    if ufunc not in ("add", "subtract"):
        raise d.refuse(outputs, "np.%s.at (np.add.at and np.subtract.at can be "
                                "differentiated)" % ufunc)
    x, value, dynamic = inputs[0], inputs[1], inputs[2:]
    ct = cts[0]
    ct_value = None
    if d.wanted(value):
        read = d.bind("get_item", ct, *dynamic, index=index)
        if ufunc == "subtract":
            read = d.bind("negative", read)
        ct_value = d.unbroadcast(read, value)
    return [ct, ct_value] + [None] * len(dynamic)
