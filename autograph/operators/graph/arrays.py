"""NumPy array creation in traced code: np.zeros((n, m)) & co. with symbolic sizes cannot be
intercepted by NumPy's protocols, so converted code calls these overloads instead
(OVERLOADS is part of py_builtins.BUILTIN_OVERLOADS, the table `ag__.converted` consults).
While tracing, a new array is a graph array also when made of Python values (np.zeros(3),
np.array([1.0, 2.0]), np.arange(3)): the graph may write symbolic values into it."""

import numpy as np

import runtime as rt
from autograph.operators.graph import lists

_NO_VALUE = object()


def _tracing():
    return rt.current_graph() is not None


def _has_symbolic(*values):
    for value in values:
        if rt.is_tensor(value):
            return True
        if isinstance(value, (tuple, list)) and _has_symbolic(*value):
            return True
    return False


def _no_extras(name, **options):
    for option, (value, default) in options.items():
        if value is not default and value != default:
            raise TypeError("np.%s(..., %s=%r) is not supported in graphs" % (name, option, value))


def _filled(name, rt_create):
    numpy_create = getattr(np, name)

    def create(shape, dtype=float, order="C", *, like=None, **kwargs):
        if not _tracing():
            return numpy_create(shape, dtype, order, like=like, **kwargs) if like is not None \
                else numpy_create(shape, dtype, order, **kwargs)
        _no_extras(name, order=(order, "C"), like=(like, None))
        return rt_create(shape, dtype)
    create.__name__ = name
    create.__doc__ = ("np.%s: a graph array while tracing (an array the graph may write "
                      "into), sizes may be symbolic." % name)
    return create


zeros = _filled("zeros", rt.zeros)
ones = _filled("ones", rt.ones)
empty = _filled("empty", rt.empty)


def full(shape, fill_value, dtype=None, order="C", **kwargs):
    if not _tracing():
        return np.full(shape, fill_value, dtype, order, **kwargs)
    _no_extras("full", order=(order, "C"), **{k: (v, None) for k, v in kwargs.items()})
    return rt.full(shape, fill_value, dtype)


def _graph_array(array):
    """A new NumPy array made while tracing from Python values, as a graph array (a
    constant): like np.zeros's, the graph may write symbolic values into it (`a[i] = t`,
    `a += t`) and index it with symbolic indices, which a NumPy array cannot take.
    (Arrays of other kinds than numbers and bools, and 0-d arrays, stay NumPy's.)"""
    if (not _tracing() or not isinstance(array, np.ndarray) or array.ndim == 0
            or array.dtype.kind not in "biufc"):
        return array
    return rt.constant(array)


def arange(*args, dtype=None, **kwargs):
    if not _has_symbolic(*args, *kwargs.values()):
        return _graph_array(np.arange(*args, dtype=dtype, **kwargs))
    start = kwargs.pop("start", None)
    stop = kwargs.pop("stop", None)
    step = kwargs.pop("step", None)
    if kwargs:
        raise TypeError("np.arange(..., %s=...) is not supported in graphs" % next(iter(kwargs)))
    positional = list(args) + [None] * (3 - len(args))
    start = positional[0] if start is None else start
    stop = positional[1] if stop is None else stop
    step = positional[2] if step is None else step
    if stop is None:
        start, stop = 0, start
    return rt.arange(start, stop, 1 if step is None else step, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, **kwargs):
    if not _has_symbolic(start, stop, num):
        made = np.linspace(start, stop, num, endpoint, retstep, dtype, axis, **kwargs)
        return (_graph_array(made[0]), made[1]) if retstep else _graph_array(made)
    _no_extras("linspace", retstep=(retstep, False), axis=(axis, 0))
    return rt.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)


def eye(N, M=None, k=0, dtype=float, order="C", **kwargs):
    if not _has_symbolic(N, M, k):
        return _graph_array(np.eye(N, M, k, dtype, order, **kwargs))
    _no_extras("eye", order=(order, "C"))
    rows = rt.arange(0, N, 1, dtype=np.int64)
    cols = rt.arange(0, N if M is None else M, 1, dtype=np.int64)
    return (cols[None, :] - rows[:, None] == k).astype(dtype)


def _stacked(obj):
    """A list (or tuple) holding symbolic values as one tensor, nested lists in it
    stacked too (np.array([[x[0]], [x[1]]])); other values unchanged."""
    if lists.is_tensor_list(obj):
        return obj.stack()
    if isinstance(obj, (list, tuple)) and _has_symbolic(*obj):
        return np.stack([_stacked(x) for x in obj])
    return obj


def tri(N, M=None, k=0, dtype=float, **kwargs):
    if not _has_symbolic(N, M, k):
        return _graph_array(np.tri(N, M, k, dtype, **kwargs))
    _no_extras("tri", **{key: (value, None) for key, value in kwargs.items()})
    rows = rt.arange(0, N, 1, dtype=np.int64)
    cols = rt.arange(0, N if M is None else M, 1, dtype=np.int64)
    mask = cols[None, :] - rows[:, None] <= k
    return mask if np.dtype(dtype) == np.bool_ else mask.astype(dtype)


def identity(n, dtype=None, **kwargs):
    if not _has_symbolic(n):
        return _graph_array(np.identity(n, dtype, **kwargs))
    _no_extras("identity", **{key: (value, None) for key, value in kwargs.items()})
    return eye(n, dtype=dtype)


def _layout(numpy_fn):
    """np.ascontiguousarray, np.asfortranarray: NumPy does not hand tensors to
    __array_function__ here; the graph's handlers (runtime/numpy_api/shaping.py) say what
    the result is."""
    def convert(a, dtype=None, **kwargs):
        if not _has_symbolic(a):
            made = numpy_fn(a, dtype, **kwargs)
            return made if made is a else _graph_array(made)
        _no_extras(numpy_fn.__name__, **{key: (value, None) for key, value in kwargs.items()})
        return rt.numpy_api.apply_function(numpy_fn, (a,), {"dtype": dtype})
    convert.__name__ = numpy_fn.__name__
    return convert


def _from_sequence(numpy_fn):
    def create(obj, *args, **kwargs):
        obj = _stacked(obj)
        if not rt.is_tensor(obj):
            made = numpy_fn(obj, *args, **kwargs)
            # (np.asarray of an array is that very array.)
            return made if made is obj else _graph_array(made)
        dtype = kwargs.pop("dtype", args[0] if args else None)
        if dtype is not None and np.dtype(dtype) != obj.dtype:
            obj = obj.astype(dtype)
        elif numpy_fn is np.array and kwargs.get("copy", True):
            obj = np.copy(obj)
        if not rt.is_ndarray(obj):
            # (np.asarray of a NumPy scalar is a new 0-d array, written in place by `+=`.)
            obj = np.copy(obj)
        return obj
    create.__name__ = numpy_fn.__name__
    return create


def stack(arrays, *args, **kwargs):
    if lists.is_tensor_list(arrays):
        arrays = arrays.stack()
        axis = kwargs.get("axis", args[0] if args else 0)
        if axis not in (0, -arrays.ndim):
            return np.moveaxis(arrays, 0, axis) if hasattr(np, "moveaxis") else arrays
        return arrays
    return np.stack(arrays, *args, **kwargs)


def runtime_range(start, limit=None, delta=1, dtype=None):
    """rt.range: in converted code a lazy symbolic range (a graph loop over it computes its
    elements from a counter instead of materialising them)."""
    from autograph.operators.graph.iterables import SymbolicRange
    if (_has_symbolic(start, limit, delta)
            and (dtype is None or np.dtype(dtype) == np.int64)
            and all(not rt.is_tensor(v) or v.dtype.kind in "iu" for v in (start, limit, delta))):
        return SymbolicRange(start, limit, delta) if limit is not None else SymbolicRange(start)
    return rt.range(start, limit, delta, dtype=dtype)


OVERLOADS = {
    rt.range: runtime_range,
    np.zeros: zeros, np.ones: ones, np.empty: empty, np.full: full, np.arange: arange,
    np.linspace: linspace, np.eye: eye, np.tri: tri, np.identity: identity,
    np.array: _from_sequence(np.array), np.asarray: _from_sequence(np.asarray),
    np.asanyarray: _from_sequence(np.asanyarray),
    np.ascontiguousarray: _layout(np.ascontiguousarray),
    np.asfortranarray: _layout(np.asfortranarray), np.stack: stack,
}
