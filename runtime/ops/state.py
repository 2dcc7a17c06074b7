"""Stateful and effectful ops: variable read/assign, tensor arrays, print, raise and assert."""

import itertools
import sys

import numpy as np

from runtime import errors
from runtime.executors.numba import lowering as nl
from runtime.graph import TENSOR_ARRAY, describe_node
from runtime.markers import DYN, SLOT, KindSlot
from runtime.ops import gradients as d
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


# Derivative rules (reverse mode: runtime/autodiff.py). The cotangent of a tensor array is
# a dense array of shape (its size, *element shape): its elements' cotangents stacked.
# ta_new and ta_size need none (an int size in, an int size out).

@get("ta_stack").def_vjp
def _ta_stack_vjp(inputs, outputs, cts):
    return [cts[0]]


@get("ta_unstack").def_vjp
def _ta_unstack_vjp(inputs, outputs, cts, dtype, dynamic_size):
    return [cts[0]]


@get("ta_read").def_vjp
def _ta_read_vjp(inputs, outputs, cts):
    """ta's cotangent: zeros, one row per element, with ct at the row read."""
    ta, index = inputs
    rows = d.zeros_rows(d.bind("ta_size", ta), cts[0])
    return [d.bind("set_item", rows, cts[0], index, index=(DYN,)), None]


@get("ta_write").def_vjp
def _ta_write_vjp(inputs, outputs, cts, dtype):
    """The value's cotangent is the written row of ct; the old array's is ct with that row
    zeroed (overwritten), cut to the old array's size (a write past its end grew it)."""
    ta, index, value = inputs
    ct = cts[0]
    ct_value = None
    if d.differentiable(value) and not value.is_literal:
        ct_value = d.unbroadcast(d.bind("get_item", ct, index, index=(DYN,)), value)
    kept = d.bind("set_item", ct, d.scalar(0, ct.dtype), index, index=(DYN,))
    ct_ta = d.bind("get_item", kept, d.bind("ta_size", ta), index=(slice(None, DYN, None),))
    return [ct_ta, None, ct_value]


# --- print, raise and assert ------------------------------------------------------------------
# Their texts may hold values known only when the graph runs: the node's attributes hold a
# template (strings, Python values, tuples, lists and dicts of them, Text and
# ExceptionTemplate objects) whose SLOTs are the node's inputs, filled in order.

class Text:
    """A str formatted when the graph runs: `template` formatted with `args` (and `kwargs`)
    in `style` "format" (str.format, f-strings) or "%" (the % operator), after the SLOTs
    in them are filled. runtime.api.format_text makes them from tensors; once formatted
    they are what Python would have formatted from the NumPy values."""

    __slots__ = ("style", "template", "args", "kwargs")

    def __init__(self, style, template, args, kwargs=None):
        self.style = style
        self.template = template
        self.args = args
        self.kwargs = kwargs or {}

    def formatted(self, values):
        """The text, the SLOTs of its arguments taken from the iterator `values`."""
        args = fill(self.args, values)
        if self.style == "%":
            return self.template % args
        return self.template.format(*args, **fill(self.kwargs, values))

    def __add__(self, other):
        if not isinstance(other, (str, Text)):
            return NotImplemented
        return Text("format", "{}{}", (self, other))

    def __radd__(self, other):
        if not isinstance(other, (str, Text)):
            return NotImplemented
        return Text("format", "{}{}", (other, self))

    def _refused(self, *args):
        raise TypeError(
            "the text %r holds symbolic values, known only when the graph runs: print it, "
            "raise or assert with it, or add strings to it, in the function itself"
            % (self,))

    # (Converted code formats a Text itself: ag__.format_ takes it as an argument.)
    __str__ = __format__ = __bool__ = __len__ = __iter__ = __eq__ = __ne__ = __lt__ = \
        __le__ = __gt__ = __ge__ = __mul__ = __mod__ = _refused
    __hash__ = object.__hash__

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            "the text %r holds symbolic values, known only when the graph runs: it has no "
            "str methods (%s); print it, raise or assert with it, or add strings to it"
            % (self, name))

    def __repr__(self):
        return _template_text(self, itertools.repeat(None), lambda value: "_")



class ExceptionTemplate:
    """The exception a `raise` makes when the graph runs: a new one of `kind` (the type
    raised while tracing) with `args` and attributes `state`, their SLOTs filled. `node`,
    the raise node (set once it is recorded), is named in the error, as the executors name
    a failing node; the type stays the user's. With `traceback` (an error raised while
    tracing that the graph raises when it runs: see rt.function), the exception made has
    that traceback, which names the user's line, instead of the node."""

    __slots__ = ("kind", "args", "state", "cause", "suppress_context", "node", "traceback")

    def __init__(self, kind, args, state, cause=None, suppress_context=False, traceback=None):
        self.kind = kind
        self.args = args
        self.state = state
        self.cause = cause
        self.suppress_context = suppress_context
        self.node = None
        self.traceback = traceback

    def made(self, values):
        """The exception to raise, the SLOTs taken from the iterator `values`."""
        args = fill(self.args, values)
        # Not through __init__: the args are what the traced exception holds, whatever
        # its class's own signature (which may compute them from other arguments).
        error = self.kind.__new__(self.kind, *args)
        for name, value in fill(self.state, values).items():
            setattr(error, name, value)   # (also slots: NumPy's AxisError)
        error.args = args
        if self.cause is not None or self.suppress_context:
            error.__cause__ = self.cause
            error.__suppress_context__ = self.suppress_context
        if self.traceback is not None:
            error._rt_node_reported = True   # (its traceback says where)
            return error.with_traceback(self.traceback)
        if self.node is not None:
            where = "While executing %s" % describe_node(self.node)
            if isinstance(error, errors.InvalidArgumentError):
                error.message = "%s\n%s" % (error.message, where)
                error.args = (error.message,) + error.args[1:]
            else:
                error.add_note(where)
            error._rt_node_reported = True   # (the executors leave it as it is)
        return error

    def __repr__(self):
        name = getattr(self.kind, "__qualname__", self.kind.__name__)
        return "%s%r" % (name, self.args)


def _numpy_value(value):
    """A value as NumPy gives it to Python code: a 0-d array as its scalar."""
    if type(value) is np.ndarray and value.ndim == 0:
        return value[()]
    return value


def fill(template, values):
    """`template` with its SLOTs replaced by the next items of the iterator `values`, and
    its Texts formatted (tuples, lists and dicts are rebuilt; anything else stays)."""
    if template is SLOT:
        return _numpy_value(next(values))
    kind = type(template)
    if kind is KindSlot:
        return template.fill(values)
    if kind is Text:
        return template.formatted(values)
    if kind is tuple or kind is list:
        return kind(fill(item, values) for item in template)
    if kind is dict:
        return {key: fill(item, values) for key, item in template.items()}
    return template


def slot_count(template):
    """How many inputs `template` takes."""
    if template is SLOT:
        return 1
    kind = type(template)
    if kind is KindSlot:
        return 2
    if kind is Text:
        return slot_count(template.args) + slot_count(template.kwargs)
    if kind is ExceptionTemplate:
        return slot_count(template.args) + slot_count(template.state)
    if kind is tuple or kind is list:
        return sum(slot_count(item) for item in template)
    if kind is dict:
        return sum(slot_count(item) for item in template.values())
    return 0


def _print_kernel(items, sep, end, stream):
    items = tuple(items)

    def print_(*values):
        # The stream is looked up now, so output capture set up after tracing works.
        print(*fill(items, iter(values)), sep=sep, end=end, file=getattr(sys, stream))
    return print_


def _print_format(node, namer):
    it = iter(node.inputs)
    shown = [_template_text(item, it, namer) for item in node.attrs["items"]]
    extra = []
    if node.attrs["sep"] != " ":
        extra.append("sep=%r" % node.attrs["sep"])
    if node.attrs["end"] != "\n":
        extra.append("end=%r" % node.attrs["end"])
    if node.attrs["stream"] != "stdout":
        extra.append("file=sys.%s" % node.attrs["stream"])
    return "print " + ", ".join(shown + extra)


def _template_text(template, inputs, namer):
    """A template as the printed graph shows it: its SLOTs as the names of the inputs."""
    if template is SLOT:
        return namer(next(inputs))
    kind = type(template)
    if kind is KindSlot:   # (a value, and the code of its kind)
        return "%s as %s" % (namer(next(inputs)), namer(next(inputs)))
    if kind is Text:
        if template.style == "%":
            return "(%r %% %s)" % (template.template,
                                   _template_text(template.args, inputs, namer))
        arguments = [_template_text(a, inputs, namer) for a in template.args]
        arguments += ["%s=%s" % (k, _template_text(v, inputs, namer))
                      for k, v in template.kwargs.items()]
        return "%r.format(%s)" % (template.template, ", ".join(arguments))
    if kind is tuple or kind is list:
        parts = ", ".join(_template_text(item, inputs, namer) for item in template)
        return "(%s%s)" % (parts, "," if len(template) == 1 else "") if kind is tuple \
            else "[%s]" % parts
    if kind is dict:
        return "{%s}" % ", ".join("%r: %s" % (k, _template_text(v, inputs, namer))
                                  for k, v in template.items())
    return repr(template)


print_ = defop("print", infer=lambda *values, items, sep, end, stream: [],
               make_kernel=_print_kernel, effect=True, format=_print_format,
               doc="print(*items) to sys.<stream> when the graph runs; the SLOTs of the "
                   "items are the inputs")


def _raise_kernel(exception, conditional):
    def raise_(*values):
        if conditional:
            unless = values[0]
            # (A scalar condition, the usual one, tested without np.all's cost.)
            if unless if type(unless) is np.bool_ or type(unless) is bool else np.all(unless):
                return
            values = values[1:]
        raise exception.made(iter(values))
    return raise_


def _raise_format(node, namer):
    inputs = iter(node.inputs)
    test = ""
    if node.attrs["conditional"]:
        test = " unless %s" % namer(next(inputs))
    exception = node.attrs["exception"]
    name = getattr(exception.kind, "__qualname__", exception.kind.__name__)
    return "raise %s%s%s" % (name, _template_text(exception.args, inputs, namer), test)


raise_ = defop("raise", infer=lambda *inputs, exception, conditional: [],
               make_kernel=_raise_kernel, effect=True, format=_raise_format,
               doc="raise the exception when the graph runs (with conditional=True, "
                   "unless input 0 is true); the SLOTs of its arguments are the inputs")


def _assert_kernel(message, items):
    items = tuple(items)

    def assert_(condition, *values):
        if not np.all(condition):
            text = message
            if items:
                it = iter(values)
                text = " ".join(str(next(it)) if item is SLOT else str(item) for item in items)
            raise errors.InvalidArgumentError(text)
    return assert_


def _assert_format(node, namer):
    return "assert %s, %r%s" % (namer(node.inputs[0]), node.attrs["message"],
                                "".join(", " + namer(v) for v in node.inputs[1:]))


assert_ = defop("assert", infer=lambda condition, *values, message, items: [],
                make_kernel=_assert_kernel, effect=True, format=_assert_format,
                doc="raise InvalidArgumentError(message) when condition is false")


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
    """A tensor array's parts: holders of its buffer and written flags (one-element lists,
    see runtime/executors/numba/support.py), its size and dynamic_size."""
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
    """Inline: the check (its failure a cold call), growing the holders when the index is
    past the buffer, the element and its flag stored; the holders are the old array's when
    the write is in place, so a loop's tensor array keeps its names from iteration to
    iteration."""
    ta, index, value = node.inputs
    b, w, n, d = nl.ta_parts(g, ta)
    out = node.outputs[0]
    if ta.dtype != out.dtype:
        # dtype=None tensor arrays take the promoted dtype of what is written (astype copies).
        nb = g.tmp("b")
        g.emit("%s = [%s[0].astype(%s)]" % (nb, b, nl.np_dtype(out.dtype)))
        b = nb
        if not g.inplace(node):
            nw = g.tmp("w")
            g.emit("%s = [%s[0].copy()]" % (nw, w))
            w = nw
    elif not g.inplace(node):
        nb, nw = g.tmp("b"), g.tmp("w")
        g.emit("%s = [%s[0].copy()]" % (nb, b))
        g.emit("%s = [%s[0].copy()]" % (nw, w))
        b, w = nb, nw
    site = g.site(node, "ta_write")
    i = g.expr(index)
    g.emit("if %s < 0 or (%s >= %s and not %s):" % (i, i, n, d))
    g.emit("    _rt.ta_check_write(%s, %s, %s, %d)" % (i, n, d, site))
    if nl.is_scalar(g, value):
        val = g.scalar_cast(g.expr(value, out.dtype), out.dtype)
    else:
        val = g.tmp("e")
        g.emit("%s = %s" % (val, nl.as_dtype(g, value, out.dtype)))
        g.emit("if %s[0].shape[1:] != %s.shape:" % (b, val))
        g.emit("    _rt.ta_reshape(%s, %s, %s, %s.shape, %s, %d)" % (b, w, n, val, i, site))
    g.emit("if %s >= %s[0].shape[0]:" % (i, b))
    g.emit("    _rt.ta_grow(%s, %s, %s + 1)" % (b, w, i))
    # (empty flags: all elements below the size are written; support.py)
    g.emit("if %s > %s and %s[0].shape[0] == 0:" % (i, n, w))
    g.emit("    _rt.ta_gap(%s, %s, %s)" % (b, w, n))
    g.emit("%s[0][%s] = %s" % (b, i, val))
    g.emit("if %s[0].shape[0] != 0:" % w)
    g.emit("    %s[0][%s] = True" % (w, i))
    return [(b, w, "max(%s, %s + 1)" % (n, i), d)]


@get("ta_read").def_numba
def _numba_ta_read(g, node, ins):
    ta, index = node.inputs
    b, w, n, d = nl.ta_parts(g, ta)
    site = g.site(node, "ta_read")
    i = g.expr(index)
    g.emit("if %s < 0 or %s >= %s or (%s[0].shape[0] != 0 and not %s[0][%s]):"
           % (i, i, n, w, w, i))
    g.emit("    _rt.ta_check_read(%s[0], %s, %s, %d)" % (w, i, n, site))
    return "%s[0][%s]" % (b, i)


@get("ta_size").def_numba
def _numba_ta_size(g, node, ins):
    return nl.ta_parts(g, node.inputs[0])[2]


@get("ta_stack").def_numba
def _numba_ta_stack(g, node, ins):
    b, w, n, d = nl.ta_parts(g, node.inputs[0])
    site = g.site(node, "ta_stack")
    g.emit("_rt.ta_check_stack(%s[0], %s, %d)" % (w, n, site))
    return "%s[0][:%s].copy()" % (b, n)


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
    return [("[%s]" % temp, "[np.zeros(0, np.bool_)]",   # (all written)
             "np.int64(%s.shape[0])" % temp,
             "True" if node.attrs["dynamic_size"] else "False")]


# --- print and raise: object-mode callbacks ---------------------------------------------------

def _numba_printer(items, sep, end, stream, dtypes):
    """The print callback generated code runs in object mode."""
    items = tuple(items)
    dtypes = tuple(np.dtype(d) for d in dtypes)

    def print_(*values):
        print(*fill(items, iter(nl.numpy_values(values, dtypes))), sep=sep, end=end,
              file=getattr(sys, stream))
    return print_


def _numba_raiser(exception, dtypes):
    """The raise callback generated code runs in object mode."""
    dtypes = tuple(np.dtype(d) for d in dtypes)

    def raise_(*values):
        raise exception.made(iter(nl.numpy_values(values, dtypes)))
    return raise_


def _callback_call(g, node, kind, callback, key, ins):
    """The call of `callback` (a Python function of the input values, returning nothing) in
    object mode."""
    for v in node.inputs:
        if v.kind == TENSOR_ARRAY:
            raise nl.Unlowerable("a %s of a TensorArray" % kind)
    return nl.objmode_call(g, node, kind, callback, key, ins)


@get("print").def_numba
def _numba_print(g, node, ins):
    attrs = node.attrs
    printer = _numba_printer(attrs["items"], attrs["sep"], attrs["end"], attrs["stream"],
                             [v.dtype for v in node.inputs])
    key = (tuple(repr(i) for i in attrs["items"]), attrs["sep"], attrs["end"], attrs["stream"])
    g.emit(_callback_call(g, node, "print", printer, key, ins))
    return None


@get("raise").def_numba
def _numba_raise(g, node, ins):
    conditional = node.attrs["conditional"]
    exception = node.attrs["exception"]
    values = node.inputs[1:] if conditional else node.inputs
    arguments = ins[1:] if conditional else ins
    if all(nl.is_scalar(g, v) for v in values):
        # A GraphFail that failures.py makes the exception of (`exception.made`): ~0.16 s
        # less to compile than an object-mode block (a 100-op loop body with one raise:
        # 0.38 -> 0.22 s).
        site = g.site(node, "raise", exception=exception, dtypes=[v.dtype for v in values])
        call = "raise _rt.GraphFail(%d%s)" % (site, "".join(", " + a for a in arguments))
    else:
        raiser = _numba_raiser(exception, [v.dtype for v in values])
        # (the location too: the error names the node, as where the user raised)
        key = (exception.kind.__module__, repr(exception), repr(exception.state),
               repr(exception.cause), node.location)
        call = _callback_call(g, node, "raise", raiser, key, arguments)
    if conditional:
        condition = node.inputs[0]
        test = ins[0] if nl.is_scalar(g, condition) else "np.all(%s)" % ins[0]
        g.emit("if not %s:" % test)
        g.emit("    " + call)
    else:
        g.emit(call)
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
