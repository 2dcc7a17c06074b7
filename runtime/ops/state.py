"""Stateful and effectful ops: variable read/assign, tensor arrays, print and assert."""

import sys

import numpy as np

from runtime import errors
from runtime.executors.numba import lowering as nl
from runtime.graph import TENSOR_ARRAY
from runtime.markers import SLOT
from runtime.ops.inference import broadcast_shapes, dummy
from runtime.ops.registry import defop, get
from runtime.ops.shapes import unify_dims
from runtime.tensor_array_buffer import TensorArrayBuffer


# --- variables ------------------------------------------------------------------------------

def _read_kernel(variable):
    def read_variable():
        return variable._array
    return read_variable


read_variable = defop(
    "read_variable",
    infer=lambda variable: [(variable.dtype, variable.shape)],
    make_kernel=_read_kernel, effect=True, unowned_output=True,
    format=lambda node, namer: "read_variable @%s" % node.attrs["variable"].name,
    doc="the current value of an rt.Variable (state lives outside the graph)")


def _assign_infer(value, variable, mode):
    shape = broadcast_shapes(variable.shape, value.shape)
    if len(shape) != len(variable.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(shape, variable.shape)):
        raise ValueError("cannot assign a value of shape %s to variable %r of shape %s"
                         % (value.shape, variable.name, variable.shape))
    if mode != "assign":
        result = np.result_type(np.ones((), variable.dtype), dummy(value))
        if not np.can_cast(result, variable.dtype, "same_kind"):
            raise TypeError("Cannot cast ufunc '%s' output from dtype('%s') to dtype('%s') "
                            "with casting rule 'same_kind'"
                            % ("add" if mode == "add" else "subtract", result, variable.dtype))
    return []


def _assign_kernel(variable, mode):
    dtype, shape = variable.dtype, variable.shape

    if mode == "assign":
        def assign(value):
            variable._array = np.array(np.broadcast_to(value, shape), dtype=dtype)
    elif mode == "add":
        def assign(value):
            variable._array = np.asarray(variable._array + value).astype(dtype)
    else:
        def assign(value):
            variable._array = np.asarray(variable._array - value).astype(dtype)
    return assign


assign_variable = defop(
    "assign_variable", infer=_assign_infer, make_kernel=_assign_kernel, effect=True,
    format=lambda node, namer: "assign_variable @%s, %s, mode=%s" % (
        node.attrs["variable"].name, namer(node.inputs[0]), node.attrs["mode"]),
    doc="variable = value / += value / -= value")


# --- tensor arrays --------------------------------------------------------------------------

def _ta_type(dtype, element_shape):
    return (dtype, element_shape, TENSOR_ARRAY)


ta_new = defop(
    "ta_new",
    infer=lambda size, dtype, element_shape, dynamic_size: [_ta_type(dtype, element_shape)],
    make_kernel=lambda dtype, element_shape, dynamic_size: (
        lambda size: TensorArrayBuffer([None] * int(size), np.dtype(dtype), element_shape,
                                       dynamic_size)),
    doc="a new tensor array of `size` unwritten elements")


def unify_element_shapes(a, b, what="TensorArray element shapes"):
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise ValueError("%s differ in rank: %s vs %s" % (what, a, b))
    return tuple(unify_dims(x, y, what) for x, y in zip(a, b))


def _ta_write_infer(ta, index, value, dtype):
    if index.shape != () or index.dtype.kind not in "iu":
        raise TypeError("TensorArray index must be an integer scalar")
    if not np.can_cast(value.dtype, dtype, "same_kind") and not value.weak:
        raise TypeError("cannot write a %s value to a TensorArray of dtype %s"
                        % (value.dtype, dtype))
    return [_ta_type(dtype, unify_element_shapes(ta.shape, value.shape))]


def _ta_write_kernel(dtype, inplace):
    dtype = np.dtype(dtype)
    if inplace:
        def ta_write(ta, index, value):
            ta.dtype = dtype
            ta.write(index, value)
            return ta
    else:
        def ta_write(ta, index, value):
            ta = ta.copy()
            ta.dtype = dtype
            ta.write(index, value)
            return ta
    return ta_write


ta_write = defop("ta_write", infer=_ta_write_infer, make_kernel=_ta_write_kernel,
                 inplace_input=0,
                 doc="ta.write(index, value): the updated array, whose dtype is `dtype` (the "
                     "array's own, or the promoted one for arrays created with dtype=None)")


def _ta_read_infer(ta, index):
    if ta.shape is None:
        raise TypeError("reading a TensorArray whose element shape is unknown: pass "
                        "element_shape= to rt.TensorArray or write to it before reading")
    return [(ta.dtype, ta.shape)]


ta_read = defop("ta_read", infer=_ta_read_infer, kernel=lambda ta, i: ta.read(i), view=True,
                doc="ta.read(index)")

ta_size = defop("ta_size", infer=lambda ta: [(np.int64, ())],
                kernel=lambda ta: np.int64(len(ta.items)), doc="ta.size()")


def _ta_stack_infer(ta):
    if ta.shape is None:
        raise TypeError("stacking a TensorArray whose element shape is unknown: pass "
                        "element_shape= to rt.TensorArray or write to it first")
    return [(ta.dtype, (None,) + ta.shape)]


ta_stack = defop("ta_stack", infer=_ta_stack_infer, kernel=lambda ta: ta.stack(),
                 doc="ta.stack(): all elements as one array")


def _ta_unstack_kernel(dtype, dynamic_size):
    dtype = np.dtype(dtype)

    def ta_unstack(value):
        value = np.asarray(value, dtype=dtype)
        return TensorArrayBuffer([value[i] for i in range(value.shape[0])], dtype,
                                 value.shape[1:], dynamic_size)
    return ta_unstack


def _ta_unstack_infer(value, dtype, dynamic_size):
    if len(value.shape) == 0:
        raise ValueError("cannot unstack a scalar into a TensorArray")
    return [_ta_type(dtype, value.shape[1:])]


ta_unstack = defop("ta_unstack", infer=_ta_unstack_infer, make_kernel=_ta_unstack_kernel,
                   view=True, doc="a tensor array of the rows of value")


# --- print and assert -----------------------------------------------------------------------

def _print_kernel(items, sep, end):
    items = tuple(items)

    def print_(*values):
        it = iter(values)
        # sys.stdout is looked up now, so output capture set up after tracing works.
        print(*[next(it) if item is SLOT else item for item in items], sep=sep, end=end,
              file=sys.stdout)
    return print_


def _print_format(node, namer):
    it = iter(node.inputs)
    shown = [namer(next(it)) if item is SLOT else repr(item) for item in node.attrs["items"]]
    extra = []
    if node.attrs["sep"] != " ":
        extra.append("sep=%r" % node.attrs["sep"])
    if node.attrs["end"] != "\n":
        extra.append("end=%r" % node.attrs["end"])
    return "print " + ", ".join(shown + extra)


print_ = defop("print", infer=lambda *values, items, sep, end: [], make_kernel=_print_kernel,
               effect=True, format=_print_format,
               doc="print(*items) when the graph runs; SLOT items are the inputs")


def _assert_kernel(message, items, error=None):
    items = tuple(items)
    error = error or errors.InvalidArgumentError

    def assert_(condition, *values):
        if not np.all(condition):
            text = message
            if items:
                it = iter(values)
                text = " ".join(str(next(it)) if item is SLOT else str(item) for item in items)
            raise error(text)
    return assert_


def _assert_format(node, namer):
    return "assert %s, %r%s" % (namer(node.inputs[0]), node.attrs["message"],
                                "".join(", " + namer(v) for v in node.inputs[1:]))


assert_ = defop("assert", infer=lambda condition, *values, message, items, error=None: [],
                make_kernel=_assert_kernel, effect=True, format=_assert_format,
                doc="raise InvalidArgumentError(message) when condition is false (`error`, "
                    "if given: that subclass of it)")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

@get("read_variable").def_numba
def _numba_read_variable(g, node, ins):
    variable = node.attrs["variable"]
    name = g.variable_arg(variable)
    if variable.dtype.kind not in "biufc" or variable.dtype == np.float16:
        raise nl.Unlowerable("a variable of dtype %s" % variable.dtype)
    if len(variable.shape) == 0:
        return "%s[0]" % name
    if id(variable) in g.assigned_variables:
        return "%s.copy()" % name   # a later assign updates the buffer in place
    return name


@get("assign_variable").def_numba
def _numba_assign_variable(g, node, ins):
    variable = node.attrs["variable"]
    mode = node.attrs["mode"]
    name = g.variable_arg(variable)
    value = node.inputs[0]
    dtype = variable.dtype
    text = g.expr(value, dtype) if mode == "assign" else g.expr(value)
    if len(variable.shape) == 0:
        if not nl.is_scalar(g, value):
            raise nl.Unlowerable("assigning an array to a scalar variable")
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
    if nl.is_scalar(g, value):
        if mode == "assign":
            text = g.scalar_cast(text, dtype)
        else:
            text = "%s.astype(%s)" % (text, nl.np_dtype(dtype))
    else:
        text = "%s.astype(%s)" % (text, nl.np_dtype(dtype))
    g.emit("%s = %s" % (target, text))
    return None


# --- tensor arrays ----------------------------------------------------------------------------

@get("ta_new").def_numba
def _numba_ta_new(g, node, ins):
    out = node.outputs[0]
    shape = out.shape if out.shape is not None else g.ta_shapes.get(out)
    if shape is None and not g.is_used(out):
        shape = ()     # replaced before any use (e.g. by unstack): any element shape will do
    if shape is None:
        raise nl.Unlowerable("a TensorArray whose element shape is unknown (pass element_shape=)")
    nl.np_dtype(out.dtype)
    size = ins[0]
    dims = "".join("%s, " % (0 if d is None else int(d)) for d in shape)
    site = g.site(node, "ta_new")
    buf, written = g.tmp("b"), g.tmp("w")
    g.emit("%s, %s = _rt.ta_new(np.empty((max(%s, 0), %s), %s), %s, %d)"
           % (buf, written, size, dims, nl.np_dtype(out.dtype), size, site))
    return [(buf, written, "np.int64(%s)" % size,
             "True" if node.attrs["dynamic_size"] else "False")]


@get("ta_write").def_numba
def _numba_ta_write(g, node, ins):
    ta, index, value = node.inputs
    b, w, n, d = nl.ta_parts(g, ta)
    out = node.outputs[0]
    if ta.dtype != out.dtype:
        # dtype=None tensor arrays take the promoted dtype of what is written (astype copies).
        nb = g.tmp("b")
        g.emit("%s = %s.astype(%s)" % (nb, b, nl.np_dtype(out.dtype)))
        b = nb
        if not g.inplace(node):
            nw = g.tmp("w")
            g.emit("%s = %s.copy()" % (nw, w))
            w = nw
    elif not g.inplace(node):
        nb, nw = g.tmp("b"), g.tmp("w")
        g.emit("%s = %s.copy()" % (nb, b))
        g.emit("%s = %s.copy()" % (nw, w))
        b, w = nb, nw
    site = g.site(node, "ta_write")
    nb, nw, nn = g.tmp("b"), g.tmp("w"), g.tmp("n")
    if nl.is_scalar(g, value):
        val = g.scalar_cast(g.expr(value, out.dtype), out.dtype)
        helper = "ta_write"
    else:
        val = nl.as_dtype(g, value, out.dtype)
        helper = "ta_write_array"
    g.emit("%s, %s, %s = _rt.%s(%s, %s, %s, %s, %s, %s, %d)"
           % (nb, nw, nn, helper, b, w, n, d, g.expr(index), val, site))
    return [(nb, nw, nn, d)]


@get("ta_read").def_numba
def _numba_ta_read(g, node, ins):
    ta, index = node.inputs
    b, w, n, d = nl.ta_parts(g, ta)
    site = g.site(node, "ta_read")
    return "%s[_rt.ta_check_read(%s, %s, %s, %d)]" % (b, w, g.expr(index), n, site)


@get("ta_size").def_numba
def _numba_ta_size(g, node, ins):
    return nl.ta_parts(g, node.inputs[0])[2]


@get("ta_stack").def_numba
def _numba_ta_stack(g, node, ins):
    b, w, n, d = nl.ta_parts(g, node.inputs[0])
    site = g.site(node, "ta_stack")
    g.emit("_rt.ta_check_stack(%s, %s, %d)" % (w, n, site))
    return "%s[:%s].copy()" % (b, n)


@get("ta_unstack").def_numba
def _numba_ta_unstack(g, node, ins):
    value = node.inputs[0]
    out = node.outputs[0]
    if nl.is_scalar(g, value):
        raise nl.Unlowerable("unstacking a scalar")
    buf = nl.as_dtype(g, value, out.dtype)
    if value.dtype == out.dtype:
        buf = "%s.copy()" % buf
    temp = g.tmp("b")
    g.emit("%s = np.ascontiguousarray(%s)" % (temp, buf))
    return [(temp, "np.ones(%s.shape[0], np.bool_)" % temp, "np.int64(%s.shape[0])" % temp,
             "True" if node.attrs["dynamic_size"] else "False")]


# --- print and assert -------------------------------------------------------------------------

def _numba_printer(items, sep, end, dtypes):
    """The print callback generated code runs in object mode: values come from Numba boxed as
    Python scalars or arrays; they are turned back into NumPy values of the graph's dtypes
    so they print like print() would."""
    items = tuple(items)
    dtypes = tuple(np.dtype(d) for d in dtypes)

    def print_(*values):
        it = iter(zip(values, dtypes))
        shown = []
        for item in items:
            if item is SLOT:
                value, dtype = next(it)
                if isinstance(value, np.ndarray):
                    shown.append(value)
                else:
                    shown.append(dtype.type(value))
            else:
                shown.append(item)
        print(*shown, sep=sep, end=end, file=sys.stdout)
    return print_


@get("print").def_numba
def _numba_print(g, node, ins):
    for v in node.inputs:
        if v.kind == TENSOR_ARRAY:
            raise nl.Unlowerable("printing a TensorArray")
    dtypes = [v.dtype for v in node.inputs]
    printer = _numba_printer(node.attrs["items"], node.attrs["sep"], node.attrs["end"], dtypes)
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
def _numba_assert(g, node, ins):
    condition = node.inputs[0]
    data = node.inputs[1:]
    for v in data:
        if not nl.is_scalar(g, v):
            raise nl.Unlowerable("an assert that prints arrays")
    site = g.site(node, "assert", items=node.attrs["items"], dtypes=[v.dtype for v in data])
    test = ins[0] if nl.is_scalar(g, condition) else "np.all(%s)" % ins[0]
    g.emit("if not %s:" % test)
    g.emit("    raise _rt.GraphFail(%d%s)" % (site, "".join(", " + g.expr(v) for v in data)))
    return None
