"""What a graph `for` loop can iterate: symbolic ranges, arrays (first axis), tensor arrays,
lists turned into tensor arrays, and enumerate/zip of those, each with a symbolic length
and an element at a symbolic index."""

import numpy as np

import runtime as rt
from runtime import errors as rt_errors
from autograph.operators.graph import common, lists

class SymbolicIterable(rt.Tensor):
    """A lazy iterable (range, enumerate, zip) over symbolic values.

    It is an rt.Tensor so that every overload takes its graph path on it; it becomes an
    array only if used as one (a range used as an array becomes an arange): rt.Tensor calls
    `materialize()` when its graph value is first needed."""

    __slots__ = ()

    def __init__(self):  # no graph value until one is needed
        pass

    def materialize(self):
        raise TypeError("%r cannot be used as an array in a graph; iterate over it with a for "
                        "loop instead" % (self,))

    def __len__(self):
        raise TypeError(rt_errors.concrete_value_refusal(
            "the length of %r is only known when the graph runs" % (self,),
            "len() of it in a converted function gives it as a symbolic int"))

    def __iter__(self):
        raise TypeError(rt_errors.concrete_value_refusal(
            "%r cannot be iterated over by Python while tracing" % (self,),
            "a for loop over it in a converted function becomes a graph loop"))

    def loop_length(self):
        raise NotImplementedError

    def loop_element(self, index):
        raise NotImplementedError


def _check_int(value):
    if rt.is_tensor(value):
        if value.ndim != 0 or value.dtype.kind not in "iu":
            raise TypeError("'%s' object cannot be interpreted as an integer"
                            % ("numpy.%s" % value.dtype.name if value.ndim == 0 else
                               "numpy.ndarray"))
        return value
    return int(value.__index__())


def _as_int64(value):
    """A range bound as the int64 a graph counts with (Python's are unbounded)."""
    if not rt.is_tensor(value):
        if not -2 ** 63 <= value < 2 ** 63:
            raise OverflowError("range() bound %d is beyond int64's range, which a graph "
                                "counts in" % value)
        return value
    if value.dtype == np.int64:
        return value
    if value.dtype == np.uint64:
        rt.Raise(OverflowError("range() bound beyond int64's range, which a graph counts "
                               "in"), unless=np.less_equal(value, np.uint64(2 ** 63 - 1)))
    return value.astype(np.int64)


class SymbolicRange(SymbolicIterable):
    """range(start, stop, step) with symbolic bounds."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, *args):
        if not 1 <= len(args) <= 3:
            raise TypeError("range expected at most 3 arguments, got %d" % len(args))
        args = [_check_int(a) for a in args]
        if len(args) == 1:
            args = [0] + args
        start, stop = args[0], args[1]
        step = args[2] if len(args) == 3 else 1
        if not rt.is_tensor(step) and step == 0:
            raise ValueError("range() arg 3 must not be zero")
        start, stop, step = _as_int64(start), _as_int64(stop), _as_int64(step)
        if rt.is_tensor(step):
            rt.Raise(ValueError("range() arg 3 must not be zero"),
                     unless=np.not_equal(step, 0))
        self.start, self.stop, self.step = start, stop, step

    def __repr__(self):
        return "range(%s, %s, %s)" % tuple(
            "<symbolic>" if rt.is_tensor(v) else v for v in (self.start, self.stop, self.step))

    def materialize(self):
        return rt.arange(self.start, self.stop, self.step, dtype=np.int64)

    def loop_length(self):
        if _is_zero(self.start) and _is_one(self.step):   # (the common case: one op)
            return np.maximum(0, self.stop)
        # (A loop cannot run past int64's max iterations: a longer range counts that many.)
        return rt.range_length(self.start, self.stop, self.step)

    def length(self, too_long="Python int too large to convert to C ssize_t"):
        """len() of it: Python's OverflowError where it passes int64's max (sys.maxsize),
        or one saying `too_long`."""
        if _is_zero(self.start) and _is_one(self.step):
            return np.maximum(0, self.stop)
        length = rt.range_length(self.start, self.stop, self.step, too_long=-1)
        rt.Raise(OverflowError(too_long), unless=np.greater_equal(length, 0))
        return length

    def loop_element(self, index):
        # (range's items are Python ints: `(i > 0) + (i > 1)` adds ints.)
        if _is_one(self.step):
            item = index + self.start if not _is_zero(self.start) else index
        else:   # (the product alone may pass int64's range, where the item does not)
            item = rt.range_item(self.start, self.step, index)
        # (Counting up from 1 or more, items are positive: dividing by one is never by 0.)
        positive = not rt.is_tensor(self.start) and not rt.is_tensor(self.step) \
            and self.start >= 1 and self.step >= 1
        return rt.as_python_scalar(item, positive=positive)


def _is_one(value):
    return not rt.is_tensor(value) and value == 1


def _is_zero(value):
    return not rt.is_tensor(value) and value == 0


class SymbolicEnumerate(SymbolicIterable):
    __slots__ = ("inner", "start")

    def __init__(self, iterable, start=0):
        self.inner = as_iterable(iterable)
        self.start = start

    def __repr__(self):
        return "enumerate(<symbolic>)"

    def loop_length(self):
        return self.inner.loop_length()

    def loop_element(self, index):
        count = index + self.start if not _is_zero(self.start) else index
        return (rt.as_python_scalar(count), self.inner.loop_element(index))


class SymbolicZip(SymbolicIterable):
    __slots__ = ("inners",)

    def __init__(self, *iterables):
        self.inners = [as_iterable(x) for x in iterables]

    def __repr__(self):
        return "zip(<symbolic>)"

    def loop_length(self):
        lengths = [inner.loop_length() for inner in self.inners]
        length = lengths[0]
        for other in lengths[1:]:
            length = np.minimum(length, other)
        return length

    def loop_element(self, index):
        return tuple(inner.loop_element(index) for inner in self.inners)


class _ArrayRows:
    """An array iterated over its first axis (a Python sequence of numbers or arrays is
    made a constant array first)."""

    def __init__(self, array):
        if not rt.is_tensor(array):
            array = np.asarray(array)
            if array.dtype == object:
                raise TypeError("cannot iterate over %r together with symbolic values in a "
                                "graph loop: its items are not numbers or arrays" % (array,))
        if array.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        self.array = array

    def loop_length(self):
        return self.array.shape[0]

    def loop_element(self, index):
        return self.array[index]


class _TensorArrayItems:
    def __init__(self, tensor_array):
        self.tensor_array = tensor_array

    def loop_length(self):
        return self.tensor_array.size()

    def loop_element(self, index):
        return self.tensor_array.read(index)


class SymbolicReversed(SymbolicIterable):
    """reversed(x) of a symbolic range, array, list or tensor array: its items from the
    last, the element at index i being the inner one at length - 1 - i (`for t in
    reversed(range(T))`, a backward pass through time)."""

    __slots__ = ("inner", "_length")

    def __init__(self, sequence):
        if isinstance(sequence, (SymbolicEnumerate, SymbolicZip, SymbolicReversed)):
            raise TypeError("'%s' object is not reversible" % (
                "list_reverseiterator" if isinstance(sequence, SymbolicReversed)
                else type(sequence).__name__[len("Symbolic"):].lower()))
        self.inner = as_iterable(sequence)
        self._length = None

    def __repr__(self):
        return "reversed(%r)" % (self.inner,)

    def loop_length(self):
        # (Kept for loop_element: a loop computes its length before it starts, and each
        # iteration's index then reads it from there instead of computing it again.)
        if isinstance(self.inner, SymbolicRange):
            # (Its items count back from the last: a longer one than a loop can count has
            # them beyond what its counter reaches.)
            self._length = self.inner.length(
                "reversed() of a range of more than 2**63 - 1 items in a graph, which "
                "counts its loops in int64")
        else:
            self._length = self.inner.loop_length()
        return self._length

    def loop_element(self, index):
        length = self._length
        if length is None or not common.is_graph_value(length):   # (another graph's)
            length = self.inner.loop_length()
        return self.inner.loop_element(length - 1 - index)


def as_iterable(value):
    """What a graph loop iterates for `value`: an object with loop_length() (int or
    symbolic int64) and loop_element(index)."""
    if isinstance(value, SymbolicIterable):
        return value
    if lists.is_tensor_list(value):
        return value
    if isinstance(value, rt.TensorArray):
        return _TensorArrayItems(value)
    if isinstance(value, range):
        return SymbolicRange(value.start, value.stop, value.step)
    if rt.is_tensor(value) or isinstance(value, (np.ndarray, list, tuple)):
        return _ArrayRows(value)
    raise TypeError("cannot iterate over %s together with symbolic values in a graph loop"
                    % type(value).__name__)
