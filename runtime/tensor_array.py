"""rt.TensorArray: a list of same-typed tensors, usable eagerly and as a graph loop variable.

In a trace a TensorArray is a handle on a graph value of kind tensor_array; `write` returns
a new TensorArray (the executor updates the buffer in place when the old version is dead).
Eagerly it wraps a Python list and `write` updates it and returns the same object.
"""

import numpy as np

from runtime import ops
from runtime.graph import TENSOR_ARRAY, current_graph
from runtime.tensor import Tensor, is_tensor
from runtime.tensor_array_buffer import TensorArrayBuffer


class TensorArray:
    """`TensorArray(dtype, size=0, dynamic_size=False, element_shape=None)`.

    `dtype=None` makes a list-like array whose dtype is inferred from what is written and
    promoted as NumPy would promote the stacked values (bool until the first write); in a
    graph loop that promotion widens the loop variable like any other.
    """

    __slots__ = ("dtype", "dynamic_size", "flexible", "_value", "_eager")

    def __init__(self, dtype=None, size=0, dynamic_size=False, element_shape=None, **unused):
        self.flexible = dtype is None
        self.dtype = np.dtype(np.bool_ if dtype is None else dtype)
        self.dynamic_size = bool(dynamic_size)
        element_shape = None if element_shape is None else tuple(
            None if d is None else int(d) for d in element_shape)
        if current_graph() is not None or is_tensor(size):
            self._value = ops.get("ta_new").bind1(
                [size], dtype=self.dtype, element_shape=element_shape,
                dynamic_size=self.dynamic_size)
            self._eager = None
        else:
            self._value = None
            self._eager = TensorArrayBuffer([None] * int(size), self.dtype, element_shape,
                                            self.dynamic_size)

    @classmethod
    def from_graph_value(cls, value, dynamic_size=None, flexible=False):
        """A TensorArray handle on `value`, a graph Value of kind tensor_array."""
        assert value.kind == TENSOR_ARRAY
        ta = cls.__new__(cls)
        ta.dtype = value.dtype
        ta.dynamic_size = dynamic_size
        ta.flexible = flexible
        ta._value = value
        ta._eager = None
        return ta

    @property
    def graph_value(self):
        """The graph Value this TensorArray stands for in a trace; None when it is eager."""
        return self._value

    def _rt_to_value(self):
        if self._value is None:
            raise TypeError("an eager TensorArray cannot be used in a graph; create it inside "
                            "the traced function")
        return self._value

    @property
    def element_shape(self):
        return self._value.shape if self._value is not None else self._eager.element_shape

    def _symbolic(self, *operands):
        if self._value is not None:
            return True
        if any(is_tensor(x) for x in operands):
            raise TypeError("an eager TensorArray (created outside the trace) cannot take "
                            "symbolic values; create it inside the traced function")
        return False

    def write(self, index, value):
        """Set element `index` to `value`; returns the updated TensorArray."""
        if self._symbolic(index, value):
            value = ops.to_value(value)
            dtype = self.dtype
            if self.flexible:
                dtype = np.result_type(dtype, value.literal if value.weak else value.dtype)
            return TensorArray.from_graph_value(
                ops.get("ta_write").bind1([self._value, index, value], dtype=dtype),
                self.dynamic_size, self.flexible)
        if self.flexible:
            self.dtype = self._eager.dtype = np.result_type(
                self.dtype, value if isinstance(value, (bool, int, float, complex)) else
                np.asarray(value).dtype)
        value = np.asarray(value)
        self._eager.write(index, value)
        if self._eager.element_shape is None:
            self._eager.element_shape = value.shape
        return self

    def read(self, index):
        if self._symbolic(index):
            return Tensor(ops.get("ta_read").bind1([self._value, index]))
        return self._eager.read(index)

    def stack(self):
        if self._value is not None:
            return Tensor(ops.get("ta_stack").bind1([self._value]))
        return self._eager.stack()

    def unstack(self, value):
        """A TensorArray holding the rows of `value`."""
        if self._symbolic(value) or is_tensor(value):
            if self.flexible:
                self.dtype = value.dtype
            return TensorArray.from_graph_value(
                ops.get("ta_unstack").bind1([value], dtype=self.dtype,
                                            dynamic_size=bool(self.dynamic_size)),
                self.dynamic_size, self.flexible)
        if self.flexible:
            self.dtype = np.asarray(value).dtype
        value = np.asarray(value, dtype=self.dtype)
        self._eager = TensorArrayBuffer([np.array(row) if row.ndim else row[()] for row in value],
                                        self.dtype, value.shape[1:], self.dynamic_size)
        return self

    def size(self):
        if self._value is not None:
            return Tensor(ops.get("ta_size").bind1([self._value]))
        return np.int64(len(self._eager.items))

    def __repr__(self):
        if self._value is not None:
            return "<rt.TensorArray %s>" % self._value.type_str()
        return "<rt.TensorArray %s, size %d (eager)>" % (self.dtype, len(self._eager.items))
