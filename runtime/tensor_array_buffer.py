"""The value of a tensor array while a graph runs, a list of elements: the NumPy kernels work
on it, an eager rt.TensorArray holds one, the Numba executor returns one."""

import numpy as np

from runtime import errors


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
