"""Graph paths of the builtin overloads (print, len, range, ..., isinstance) and of assert."""

import builtins
import functools

import numpy as np

import runtime as rt
from autograph.operators.graph import common, iterables, lists


def print_(*objects, sep=" ", end="\n", file=None, flush=False):
    """print of symbolic values: prints when the graph runs (rt.print)."""
    if file is not None:
        raise TypeError("print(..., file=...) of symbolic values is not supported in graphs; "
                        "the graph prints to sys.stdout")
    return rt.print(*[lists.stacked_if_list(o) for o in objects], sep=sep, end=end)


def assert_stmt(test, message_fn):
    """assert on a symbolic condition: rt.errors.InvalidArgumentError when the graph runs."""
    message = message_fn() if message_fn is not None else None
    condition = common.is_truthy_scalar_tensor(test, "the condition of an assert statement")
    if rt.is_tensor(message):
        return rt.Assert(condition, "assertion failed:", data=[message])
    return rt.Assert(condition, "assertion failed" if message is None else str(message))


def len_(value, *rest):
    if rest:
        raise TypeError("len() takes exactly one argument (%d given)" % (len(rest) + 1))
    if lists.is_tensor_list(value) or isinstance(value, iterables.SymbolicIterable):
        return value.loop_length()
    if value.ndim == 0:
        raise TypeError("len() of unsized object")
    return value.shape[0]


def range_(*args):
    return iterables.SymbolicRange(*args)


def enumerate_(iterable, start=0):
    return iterables.SymbolicEnumerate(iterable, start)


def zip_(*iterables_, strict=False):
    if strict:
        raise TypeError("zip(..., strict=True) over symbolic values is not supported in graphs")
    return iterables.SymbolicZip(*iterables_)


def abs_(value):
    return np.abs(lists.stacked_if_list(value))


def _scalar(value, kind):
    if value.ndim != 0:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars "
                        "(%s() of %s)" % (kind, common.type_text(value)))
    return value


def int_(value, *rest):
    if rest:
        raise TypeError("int() with a base is not supported for symbolic values")
    value = _scalar(value, "int")
    if value.dtype.kind in "iu":
        return value
    if value.dtype.kind == "f":
        value = np.trunc(value)   # int() rounds toward zero, as the cast does; explicit anyway
    return value.astype(np.int64)


def float_(value):
    return _scalar(value, "float").astype(np.float64)


def bool_(value):
    return common.is_truthy_scalar_tensor(value, "the argument of bool()")


def _extreme(name, pairwise, reduce):
    def extreme(*args, key=None, **kwargs):
        if key is not None:
            raise TypeError("%s(..., key=...) of symbolic values is not supported in graphs"
                            % name)
        if len(args) == 1:
            (value,) = args
            value = lists.stacked_if_list(value)
            if "default" in kwargs:
                raise TypeError("%s(..., default=...) of symbolic values is not supported in "
                                "graphs" % name)
            if not rt.is_tensor(value):
                return getattr(builtins, name)(value)
            return reduce(_scalar_items(value))
        if kwargs:
            raise TypeError("%s() got an unexpected keyword argument %r"
                            % (name, next(iter(kwargs))))
        if not args:
            raise TypeError("%s expected at least 1 argument, got 0" % name)
        return functools.reduce(pairwise, [lists.stacked_if_list(a) for a in args])
    extreme.__name__ = name
    return extreme


min_ = _extreme("min", np.minimum, np.min)
max_ = _extreme("max", np.maximum, np.max)


def sum_(iterable, start=0):
    """sum over the first axis (Python adds the rows), plus start."""
    value = lists.stacked_if_list(iterable)
    if value.ndim == 0:
        raise TypeError("'numpy.%s' object is not iterable" % value.dtype.name)
    total = np.sum(value, axis=0)
    return total + start if not (isinstance(start, int) and start == 0) else total


def _scalar_items(value):
    """A 1-d array, whose items Python compares or tests one by one (errors as Python's)."""
    if value.ndim == 0:
        raise TypeError("'numpy.%s' object is not iterable" % value.dtype.name)
    if value.ndim > 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    return value


def _truth_reduction(name, reduce):
    def reduction(iterable):
        return reduce(_scalar_items(lists.stacked_if_list(iterable)))
    reduction.__name__ = name
    return reduction


any_ = _truth_reduction("any", np.any)
all_ = _truth_reduction("all", np.all)


def isinstance_(value, classinfo):
    """isinstance as the traced value's eager counterpart would answer: an array (rank >= 1,
    or a 0-d array: rt.is_ndarray) is an np.ndarray, another rank-0 value the NumPy scalar
    type of its dtype, a list built in a graph loop a list."""
    if builtins.isinstance(value, classinfo):
        return True
    if lists.is_tensor_list(value):
        stands_for = list
    elif isinstance(value, iterables.SymbolicIterable):
        return False
    elif rt.is_ndarray(value):
        stands_for = np.ndarray
    else:
        stands_for = value.dtype.type
    return issubclass(stands_for, classinfo)


class _RowIterator:
    """iter() of a symbolic array: its rows, read at positions known while tracing (a read
    past the end fails when the graph runs, as an out-of-range read)."""

    def __init__(self, iterable):
        self.items = iterables.as_iterable(iterable)
        self.position = 0

    def __iter__(self):
        return self

    def __next__(self):
        length = self.items.loop_length()
        if not rt.is_tensor(length) and self.position >= length:
            raise StopIteration
        item = self.items.loop_element(self.position)
        self.position += 1
        return item


def iter_(value, *sentinel):
    if sentinel:
        raise TypeError("iter(callable, sentinel) of a symbolic value is not supported")
    return _RowIterator(value)
