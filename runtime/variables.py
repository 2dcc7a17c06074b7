"""rt.Variable: mutable state that lives outside graphs, shared by eager code and traces.

A graph refers to a variable by handle: `read_variable` and `assign_variable` ops read and
replace its array when the graph runs, so every graph and eager code see one state.
"""

import itertools
import operator

import numpy as np

from runtime import ops
from runtime.graph import current_graph
from runtime.tensor import Tensor, is_tensor

_names = itertools.count()


def _tracing():
    return current_graph() is not None


class Variable:
    """`Variable(initial_value, dtype=None, trainable=True, name=None)` (also `ag.Variable`):
    `.assign(v)`, `.assign_add(v)`, `.assign_sub(v)`, `+=`, `-=`, `v[i] = x`,
    `.read_value()`, `.numpy()`; an operand of operators and NumPy functions; `.dtype`,
    `.shape`, `.ndim`, `.size`, `.T` and ndarray methods (`reshape`, `sum`, `mean`, ...)
    on its current value."""

    __array_priority__ = 1001

    def __init__(self, initial_value, dtype=None, trainable=True, name=None):
        if is_tensor(initial_value):
            raise TypeError("rt.Variable needs a concrete initial value, not a symbolic tensor; "
                            "create variables outside the traced function")
        self._array = np.array(initial_value, dtype=dtype)
        self.dtype = self._array.dtype
        self.shape = self._array.shape
        self.trainable = trainable
        self.name = name or "Variable_%d" % next(_names)

    # -- reading ---------------------------------------------------------------------------
    def read_value(self):
        if _tracing():
            return Tensor(ops.get("read_variable").bind1([], variable=self))
        return self._array.copy() if self._array.ndim else self._array[()]

    def numpy(self):
        return self._array.copy() if self._array.ndim else self._array[()]

    def _rt_to_value(self):
        return ops.get("read_variable").bind1([], variable=self)

    @property
    def ndim(self):
        return len(self.shape)

    # -- writing ---------------------------------------------------------------------------
    def _update(self, value, mode):
        if _tracing() or is_tensor(value):
            ops.get("assign_variable").bind([value], variable=self, mode=mode)
            return self
        if mode == "assign":
            self._array = np.array(np.broadcast_to(value, self.shape), dtype=self.dtype)
        else:
            current = self._array.copy()
            if mode == "add":
                np.add(current, value, out=current, casting="same_kind")
            else:
                np.subtract(current, value, out=current, casting="same_kind")
            self._array = current
        return self

    def assign(self, value):
        return self._update(value, "assign")

    def assign_add(self, value):
        return self._update(value, "add")

    def assign_sub(self, value):
        return self._update(value, "sub")

    def __iadd__(self, value):
        return self.assign_add(value)

    def __isub__(self, value):
        return self.assign_sub(value)

    # -- use as an operand -----------------------------------------------------------------
    def _operand(self):
        return self.read_value() if _tracing() else self._array

    def __array__(self, dtype=None, copy=None):
        if _tracing():
            raise TypeError("a Variable read while tracing is symbolic and cannot become a "
                            "NumPy array")
        return self._array if dtype is None else self._array.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [x._operand() if isinstance(x, Variable) else x for x in inputs]
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        def replace(x):
            if isinstance(x, Variable):
                return x._operand()
            if isinstance(x, (list, tuple)):
                return type(x)(replace(i) for i in x)
            return x
        return func(*replace(args), **{k: replace(v) for k, v in kwargs.items()})

    def __getitem__(self, index):
        return self._operand()[index]

    def __setitem__(self, index, value):
        """`v[index] = value`: the variable then holds a copy of its array with the item
        written (a graph writes it when it runs)."""
        if _tracing() or is_tensor(value):
            current = self.read_value()
            current[index] = value
            self.assign(current)
            return
        current = self._array.copy()
        current[index] = value
        self._array = current

    # The ndarray attributes and methods model code uses, on the current value (in a
    # graph, the value read when it runs): `w.T`, `w.reshape(...)`, `w.sum(axis=0)`.
    @property
    def T(self):
        return self._operand().T

    @property
    def size(self):
        return self._array.size

    def _value_method(name):
        def method(self, *args, **kwargs):
            return getattr(self._operand(), name)(*args, **kwargs)
        method.__name__ = name
        return method

    for _name in ("reshape", "transpose", "sum", "mean", "max", "min", "prod", "std", "var",
                  "argmax", "argmin", "any", "all", "astype", "copy", "dot", "clip",
                  "ravel", "flatten", "squeeze", "cumsum", "round"):
        locals()[_name] = _value_method(_name)
    del _name, _value_method

    def __len__(self):
        return len(self._array)

    def __bool__(self):
        return bool(self._operand())

    def __repr__(self):
        return "<rt.Variable %r shape=%s dtype=%s>" % (self.name, self.shape, self.dtype)

    def _binary(function, reflected=False):
        if reflected:
            def method(self, other):
                return function(other, self._operand())
        else:
            def method(self, other):
                return function(self._operand(), other)
        return method

    for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                  "and", "or", "xor"):
        _function = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
        locals()["__%s__" % _name] = _binary(_function)
        locals()["__r%s__" % _name] = _binary(_function, reflected=True)
    for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
        locals()["__%s__" % _name] = _binary(getattr(operator, _name))
    del _name, _function, _binary

    __hash__ = object.__hash__

    def __neg__(self):
        return -self._operand()

    def __abs__(self):
        return abs(self._operand())

    def __float__(self):
        return float(self._operand())

    def __int__(self):
        return int(self._operand())
