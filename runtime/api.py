"""Public runtime functions that work eagerly (NumPy values in, NumPy values out) and in a
trace (recording graph ops): constant, range, zeros/ones/empty/full, shape, print, Assert."""

import builtins

import numpy as np

from runtime import nest, ops
from runtime.graph import current_graph
from runtime.markers import SLOT
from runtime.tensor import Tensor, cast as _cast, is_tensor


class TensorSpec:
    """An input-signature entry: `TensorSpec(shape, dtype)`; None dims stay generic."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype=np.float64):
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)

    def is_compatible_with(self, array):
        if np.asarray(array).dtype != self.dtype and not isinstance(array, np.generic):
            return False
        if self.shape is None:
            return True
        shape = np.shape(array)
        return len(shape) == len(self.shape) and all(
            s is None or s == d for s, d in zip(self.shape, shape))

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%s)" % (self.shape, self.dtype.name)


def _tracing(*values):
    return current_graph() is not None or builtins.any(is_tensor(v) for v in values)


def constant(value, dtype=None):
    """Eagerly `np.asarray(value, dtype)`; in a trace, a constant tensor."""
    if is_tensor(value):
        return value if dtype is None else _cast(value, dtype)
    array = np.asarray(value, dtype=dtype)
    if current_graph() is None:
        return array
    return Tensor(ops.to_value(array[()] if array.ndim == 0 else array))


def _shape_template(shape):
    if isinstance(shape, (int, np.integer)) or is_tensor(shape):
        shape = (shape,)
    template, dynamic = [], []
    for d in shape:
        if is_tensor(d):
            if d.ndim != 0 or d.dtype.kind not in "iu":
                raise TypeError("shape dims must be integer scalars, got %r" % (d,))
            template.append(None)
            dynamic.append(d)
        else:
            template.append(int(d))
    return tuple(template), dynamic


def _filled(name, fn):
    def create(shape, dtype=float):
        dtype = np.dtype(dtype)
        if not _tracing(*(shape if isinstance(shape, (tuple, list)) else (shape,))):
            return fn(shape, dtype)
        template, dynamic = _shape_template(shape)
        return Tensor(ops.get(name).bind1(dynamic, shape=template, dtype=dtype))
    create.__name__ = name
    create.__doc__ = "np.%s(shape, dtype); dims may be symbolic in a trace." % name
    return create


zeros = _filled("zeros", np.zeros)
ones = _filled("ones", np.ones)
empty = _filled("empty", np.empty)


def full(shape, fill_value, dtype=None):
    """np.full(shape, fill_value, dtype); dims may be symbolic in a trace."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    if not _tracing(fill_value, *dims):
        return np.full(shape, fill_value, dtype=dtype)
    template, dynamic = _shape_template(shape)
    return Tensor(ops.get("full").bind1([fill_value] + dynamic, shape=template,
                                        dtype=None if dtype is None else np.dtype(dtype)))


def _like(name, fn):
    def create(x, dtype=None):
        if not _tracing(x):
            return fn(x, dtype=dtype)
        return Tensor(ops.get(name).bind1([x], dtype=None if dtype is None else np.dtype(dtype)))
    create.__name__ = name
    return create


zeros_like = _like("zeros_like", np.zeros_like)
ones_like = _like("ones_like", np.ones_like)
empty_like = _like("empty_like", np.empty_like)


def full_like(x, fill_value, dtype=None):
    if not _tracing(x, fill_value):
        return np.full_like(x, fill_value, dtype=dtype)
    return Tensor(ops.get("full_like").bind1([x, fill_value],
                                             dtype=None if dtype is None else np.dtype(dtype)))


def arange(start, stop=None, step=1, dtype=None):
    """np.arange; bounds may be symbolic in a trace (the length is then unknown)."""
    if stop is None:
        start, stop = 0, start
    if not _tracing(start, stop, step):
        return np.arange(start, stop, step, dtype=dtype)
    return Tensor(ops.get("arange").bind1([start, stop, step],
                                          dtype=None if dtype is None else np.dtype(dtype)))


def range(start, limit=None, delta=1, dtype=None):
    """Like Python's range. Eagerly: a Python `range` for Python ints (np.arange otherwise);
    in a trace: an int64 (or `dtype`) tensor."""
    args = (start, limit, delta)
    if not _tracing(*args):
        if dtype is None and builtins.all(isinstance(a, (int, type(None))) and not isinstance(a, bool)
                                          for a in args):
            return builtins.range(start, limit, delta) if limit is not None else builtins.range(start)
        return arange(start, limit, delta, dtype=dtype)
    return arange(start, limit, delta, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    if not _tracing(start, stop, num):
        return np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    return Tensor(ops.get("linspace").bind1([start, stop, num], endpoint=bool(endpoint),
                                            dtype=None if dtype is None else np.dtype(dtype)))


def cast(x, dtype):
    """x.astype(dtype), eagerly or in a trace."""
    if is_tensor(x):
        return _cast(x, dtype)
    return np.asarray(x).astype(dtype)[()] if np.ndim(x) == 0 else np.asarray(x).astype(dtype)


def shape(x):
    """x.shape: Python ints, and symbolic int64 scalars for dims unknown while tracing."""
    return x.shape if is_tensor(x) else np.shape(x)


def size(x):
    return x.size if is_tensor(x) else np.size(x)


def ndim(x):
    return x.ndim if is_tensor(x) else np.ndim(x)


def print(*values, sep=" ", end="\n"):
    """print(*values) — when the graph runs if any value is symbolic (to the sys.stdout of
    that moment, formatting values exactly as print() formats the NumPy values)."""
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    if current_graph() is None and not builtins.any(_is_symbolic(v) for v in values):
        builtins.print(*values, sep=sep, end=end)
        return None
    items, operands = [], []
    for v in values:
        if _is_symbolic(v):
            items.append(SLOT)
            operands.append(v)
        elif builtins.any(_is_symbolic(leaf) for leaf in nest.flatten(v)):
            raise TypeError("rt.print of a %s containing symbolic tensors is not supported yet; "
                            "print the tensors as separate arguments" % type(v).__name__)
        else:
            items.append(v)
    ops.get("print").bind(operands, items=tuple(items), sep=sep, end=end)
    return None


def _is_symbolic(v):
    from runtime.variables import Variable
    return is_tensor(v) or (isinstance(v, Variable) and current_graph() is not None)


def Assert(condition, message="", data=None):
    """Raise rt.errors.InvalidArgumentError(message) if `condition` is false: now if it is
    concrete, when the graph runs if it is symbolic. `data` values are printed after the
    message."""
    from runtime.errors import InvalidArgumentError
    data = list(data or ())
    if not is_tensor(condition) and not builtins.any(is_tensor(d) for d in data):
        if not np.all(condition):
            text = " ".join([str(message)] + [str(d) for d in data]) if data else str(message)
            raise InvalidArgumentError(text)
        return None
    items = (str(message),) + (SLOT,) * len(data) if data else ()
    ops.get("assert").bind([condition] + data, message=str(message), items=items)
    return None
