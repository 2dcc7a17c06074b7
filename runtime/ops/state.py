"""Stateful and effectful ops: variable read/assign, tensor arrays, print and assert."""

import sys

import numpy as np

from runtime import errors
from runtime.graph import TENSOR_ARRAY
from runtime.ops import broadcast_shapes, defop, dummy
from runtime.ops.shapes import unify_dims


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

class TensorArrayBuffer:
    """What a tensor-array value is while a graph runs: a list of elements."""

    __slots__ = ("items", "dtype", "element_shape", "dynamic_size")

    def __init__(self, items, dtype, element_shape, dynamic_size):
        self.items = items
        self.dtype = dtype
        self.element_shape = element_shape
        self.dynamic_size = dynamic_size

    def copy(self):
        return TensorArrayBuffer(list(self.items), self.dtype, self.element_shape,
                                 self.dynamic_size)

    def write(self, index, value):
        index = int(index)
        size = len(self.items)
        if index < 0 or index >= size:
            if index >= size and self.dynamic_size:
                self.items.extend([None] * (index + 1 - size))
            else:
                raise errors.OutOfRangeError(
                    "TensorArray write index %d is out of range for size %d (create it with "
                    "dynamic_size=True to grow)" % (index, size))
        if isinstance(value, np.ndarray) and value.ndim:
            self.items[index] = np.array(value, dtype=self.dtype)
        else:
            self.items[index] = self.dtype.type(value)

    def read(self, index):
        index = int(index)
        if index < 0 or index >= len(self.items):
            raise errors.OutOfRangeError("TensorArray read index %d is out of range for size %d"
                                         % (index, len(self.items)))
        item = self.items[index]
        if item is None:
            raise errors.InvalidArgumentError(
                "TensorArray element %d was read before it was written" % index)
        return item

    def stack(self):
        if not self.items:
            shape = tuple(d or 0 for d in (self.element_shape or ()))
            return np.zeros((0,) + shape, dtype=self.dtype)
        for i, item in enumerate(self.items):
            if item is None:
                raise errors.InvalidArgumentError(
                    "TensorArray element %d was never written; cannot stack" % i)
        return np.stack(self.items).astype(self.dtype, copy=False)

    def __repr__(self):
        return "TensorArrayBuffer(%r)" % (self.items,)


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

class _Slot:
    __slots__ = ()

    def __repr__(self):
        return "_"


SLOT = _Slot()


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
