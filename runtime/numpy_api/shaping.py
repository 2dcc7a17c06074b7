"""Building and reshaping arrays: stacking, splitting, padding, tiling, repeating, rolling,
flipping, diagonals and triangles, axis moves, broadcasting, meshgrid, x.fill.

Every function here is a composition of existing ops (slices, concatenate, transpose,
reshape, where, indexing, a write into a new array), as jax.numpy composes lax: no op of
its own, so each runs on both executors and gets its derivative from its parts. Each
follows NumPy's code (numpy/lib, numpy/_core) step by step, so values, dtypes, errors and
which results are views come out as NumPy's:

- the views NumPy makes whatever the layout (np.flip, np.moveaxis, np.atleast_2d, the
  parts of np.split...) are views here too: a write to one writes its base, a write to the
  base shows in it (runtime/tensor.py make_view, and basic indexing);
- the read-only ones (np.broadcast_to, np.diagonal, np.diag of a matrix) follow their base
  and refuse writes with NumPy's ValueError;
- where NumPy's result is the argument itself or a copy as its memory layout decides
  (np.ascontiguousarray: autograph's overloads), or a broadcast array NumPy lets one write
  into several places at once (np.broadcast_arrays), a write to the result is refused.

Sizes may be symbolic; counts that decide how many arrays a call returns (np.split's
sections), pad widths and diagonal offsets are Python ints (a Python number argument there
specialises the trace, runtime/specialise.py).
"""

import builtins
import operator

import numpy as np
from numpy.lib._arraypad_impl import _as_pairs
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from runtime import errors, ops, tensor
from runtime.api import Raise, arange, empty, format_text, holds_symbolic, zeros
from runtime.numpy_api import (UFUNC_METHODS, _NOVALUE, _array, _tensor, concatenate, copy,
                               expand_dims, implements,
                               method, not_supported, reshape, sum, transpose, where)
from runtime.tensor import Tensor, is_ndarray, is_tensor, mark_ndarray


def _python_error(call, *args, **kwargs):
    """`call(*args, **kwargs)`, with the TypeError, ValueError or IndexError it raises
    marked as NumPy's own (errors.mark_python_error: raised where the user's code runs)."""
    try:
        return call(*args, **kwargs)
    except (TypeError, ValueError, IndexError) as error:
        raise errors.mark_python_error(error) from None


_CONSTANT_WRITE = (
    "a NumPy array that the graph holds as a constant is written to through the result of "
    "a NumPy function (a view of it, as in NumPy), and a graph cannot change a constant: "
    "pass the array as an argument, or write into a copy")


def _as_array(a):
    """`a` as np.asanyarray gives it: a tensor as it is, anything else a new array; a NumPy
    array is the graph's constant, which refuses writes (_CONSTANT_WRITE)."""
    if is_tensor(a):
        return a
    if holds_symbolic(a):
        return mark_ndarray(Tensor(ops.to_value(a)))
    array = _python_error(np.asanyarray, a)
    if array is not a or not array.ndim:
        return _array(ops.to_value(array))
    return tensor.make_view(_array(ops.to_value(array)), lambda b: b,
                            refusal=lambda: TypeError(_CONSTANT_WRITE))


def _axis(axis, ndim, name=None):
    """NumPy's normalize_axis_index (its AxisError) of an axis that is a Python int."""
    return _python_error(normalize_axis_index, _int(axis), ndim, name)


def _axes(axis, ndim, name=None, allow_duplicate=False):
    """NumPy's normalize_axis_tuple of an axis or a sequence of them (Python ints)."""
    axis = [_int(a) for a in axis] if isinstance(axis, (tuple, list)) else _int(axis)
    return _python_error(normalize_axis_tuple, axis, ndim, name, allow_duplicate)


def _along(a, axis, index):
    """a[:, ..., index] with `index` at `axis` (a view for a slice)."""
    return a[(slice(None),) * axis + (index,)]


def _int(x):
    """A Python int NumPy's code needs (a count, a width, an offset): a symbolic one
    specialises the trace on the Python number it comes from, or is refused."""
    return operator.index(x)


def _is_static(*sizes):
    return builtins.all(not is_tensor(s) for s in sizes)


# --- broadcasting ---------------------------------------------------------------------------

def _shape_tuple(shape):
    if is_tensor(shape) and shape.ndim:
        raise not_supported("a shape held in an array computed in the graph (pass a tuple: "
                            "x.shape, or (n, m))")
    return tuple(shape) if np.iterable(shape) else (shape,)


def _broadcast(x, shape):
    """A new array of `shape` (ints and symbolic sizes) holding `x` broadcast to it, after
    NumPy's checks of broadcast_to where the sizes are known; a write into a new array,
    whose broadcasting check (x's sizes are 1 or the target's) raises NumPy's ValueError
    when the graph runs where they are not."""
    x = _as_array(x)
    static = tuple(s if not is_tensor(s) else None for s in shape)
    if builtins.any(s is not None and s < 0 for s in static):
        raise errors.mark_python_error(
            ValueError("all elements of broadcast shape must be non-negative"))
    # (NumPy's errors for the sizes known now: unknown ones stand in as what fits.)
    own = [1 if d is None else d for d in x.static_shape]
    wanted = list(static)
    for i in range(1, builtins.min(len(own), len(wanted)) + 1):
        if wanted[-i] is None:
            wanted[-i] = own[-i]
    wanted = [1 if s is None else s for s in wanted]
    _python_error(np.broadcast_to, np.empty(own, x.dtype), tuple(wanted))
    result = empty(shape, x.dtype)
    result[...] = x
    return result


def _shape_values(shape):
    """The symbolic sizes in `shape` (a view's reads use them)."""
    return [ops.to_value(s) for s in shape if is_tensor(s)]


@implements(np.broadcast_to)
def broadcast_to(array, shape, subok=False):
    """A read-only view of `array` broadcast to `shape`, as NumPy's."""
    shape = _shape_tuple(shape)
    return tensor.make_view(_as_array(array), lambda b: _broadcast(b, shape),
                            values=_shape_values(shape))


def _broadcast_shape(arrays):
    """The shape the arrays broadcast to (NumPy's error where their known sizes do not):
    ints where known, else the size of the array whose size is not 1 (picked when the
    graph runs where more than one is unknown; a mismatch then fails the write that
    broadcasts it)."""
    _python_error(ops.broadcast_shapes, *[a.static_shape for a in arrays])
    ndim = builtins.max([a.ndim for a in arrays], default=0)
    shape = []
    for axis in range(-ndim, 0):
        dims = [a.shape[axis] for a in arrays if a.ndim >= -axis]
        known = [d for d in dims if not is_tensor(d) and d != 1]
        if known:
            shape.append(known[0])
            continue
        unknown = [d for d in dims if is_tensor(d)]
        size = unknown[0] if unknown else 1
        for other in unknown[1:]:
            size = where(other == 1, size, other)
        shape.append(size)
    return tuple(shape)


def _same_size(a, b):
    """Are the sizes `a` and `b` (ints, symbolic ints) known to be equal?"""
    if is_tensor(a) or is_tensor(b):
        return is_tensor(a) and is_tensor(b) and a._value is b._value
    return a == b


_BROADCAST_WRITE = (
    "np.broadcast_arrays: a result that may be broadcast is written to: NumPy writes such "
    "an element into every place it was broadcast to (a deprecated behaviour), which a "
    "graph does not do. Write into a copy (np.broadcast_arrays(...)[i].copy()), or "
    "broadcast after writing")


def _broadcast_refusal():
    return TypeError(_BROADCAST_WRITE)


@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    """NumPy's: the arrays whose shape is the broadcast one as they are, the others
    broadcast to it (a graph refuses writes into those: _BROADCAST_WRITE)."""
    arrays = [_as_array(a) for a in args]
    shape = _broadcast_shape(arrays)
    result = []
    for a in arrays:
        if a.ndim == len(shape) and builtins.all(
                _same_size(d, s) for d, s in zip(a.shape, shape)):
            result.append(a)
        else:
            result.append(tensor.make_view(a, lambda b: _broadcast(b, shape),
                                           refusal=_broadcast_refusal,
                                           values=_shape_values(shape)))
    return tuple(result)


# --- joining --------------------------------------------------------------------------------

def _at_least(arys, ndim):
    result = tuple(_at_least_one(a, ndim) for a in arys)
    return result[0] if len(result) == 1 else result


def _at_least_one(a, ndim):
    """np.atleast_<ndim>d of one array: new axes by indexing (views, as NumPy's)."""
    a = _as_array(a)
    if a.ndim >= ndim:
        return a
    index = {(0, 1): (None,), (0, 2): (None, None), (1, 2): (None, slice(None)),
             (0, 3): (None, None, None), (1, 3): (None, slice(None), None),
             (2, 3): (slice(None), slice(None), None)}[(a.ndim, ndim)]
    return a[index]


@implements(np.atleast_1d)
def atleast_1d(*arys):
    return _at_least(arys, 1)


@implements(np.atleast_2d)
def atleast_2d(*arys):
    return _at_least(arys, 2)


@implements(np.atleast_3d)
def atleast_3d(*arys):
    return _at_least(arys, 3)


def _joined(arrays, ndim, axis, dtype=None, casting="same_kind"):
    arrays = [_at_least_one(a, ndim) for a in arrays]
    return concatenate(arrays, axis, dtype=dtype, casting=casting)


@implements(np.hstack)
def hstack(tup, *, dtype=None, casting="same_kind"):
    arrays = [_as_array(a) for a in tup]
    axis = 0 if arrays and _at_least_one(arrays[0], 1).ndim == 1 else 1
    return _joined(arrays, 1, axis, dtype, casting)


@implements(np.vstack)
def vstack(tup, *, dtype=None, casting="same_kind"):
    return _joined(tup, 2, 0, dtype, casting)


@implements(np.dstack)
def dstack(tup):
    return _joined(tup, 3, 2)


@implements(np.column_stack)
def column_stack(tup):
    arrays = []
    for a in tup:
        a = _as_array(a)
        # (NumPy: a 1-d array as a column, a 0-d one as a 1x1 array.)
        arrays.append(a[:, None] if a.ndim == 1 else a[None, None] if a.ndim == 0 else a)
    return concatenate(arrays, 1)


# --- splitting ------------------------------------------------------------------------------

def _split_axis(ary, axis):
    """The axis np.split splits, non-negative; NumPy's IndexError (it reads ary.shape[axis])
    where there is none."""
    axis = _int(axis)
    if not -ary.ndim <= axis < ary.ndim:
        raise errors.mark_python_error(IndexError("tuple index out of range"))
    return axis % ary.ndim


def _are_indices(indices_or_sections):
    """Does np.split get the indices to split at (a sequence), not a number of sections?"""
    if is_tensor(indices_or_sections):
        return indices_or_sections.ndim > 0
    return isinstance(indices_or_sections, (tuple, list, np.ndarray))


@implements(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    """The parts of `ary` along `axis`: views (slices), as NumPy's. With a number of
    sections, the first `size % sections` parts have one element more."""
    ary = _as_array(ary)
    axis = _split_axis(ary, axis)
    total = ary.shape[axis]
    if _are_indices(indices_or_sections):
        points = [None] + list(indices_or_sections) + [None]
    else:
        sections = _int(indices_or_sections)
        if sections <= 0:
            raise errors.mark_python_error(ValueError("number sections must be larger than 0."))
        each, extras = divmod(total, sections)
        points = [i * each + (builtins.min(i, extras) if _is_static(extras)
                              else np.minimum(i, extras)) for i in range(sections + 1)]
        points[0] = points[-1] = None
    return [_along(ary, axis, slice(start, stop)) for start, stop in zip(points, points[1:])]


@implements(np.split)
def split(ary, indices_or_sections, axis=0):
    ary = _as_array(ary)
    if not _are_indices(indices_or_sections):
        sections = _int(indices_or_sections)
        total = ary.shape[_split_axis(ary, axis)]
        if sections == 0:
            raise errors.mark_python_error(ZeroDivisionError("integer modulo by zero"))
        error = errors.mark_python_error(
            ValueError("array split does not result in an equal division"))
        if _is_static(total):
            if total % sections:
                raise error
        else:
            Raise(error, unless=total % sections == 0)
    return array_split(ary, indices_or_sections, axis)


def _split_at(name, ary, indices_or_sections, least, axis):
    ary = _as_array(ary)
    if ary.ndim < least:
        raise errors.mark_python_error(ValueError(
            "%s only works on arrays of %d or more dimensions" % (name, least)))
    return split(ary, indices_or_sections, axis)


@implements(np.hsplit)
def hsplit(ary, indices_or_sections):
    ary = _as_array(ary)
    return _split_at("hsplit", ary, indices_or_sections, 1, 1 if ary.ndim > 1 else 0)


@implements(np.vsplit)
def vsplit(ary, indices_or_sections):
    return _split_at("vsplit", ary, indices_or_sections, 2, 0)


@implements(np.dsplit)
def dsplit(ary, indices_or_sections):
    return _split_at("dsplit", ary, indices_or_sections, 3, 2)


# --- padding --------------------------------------------------------------------------------

# (np.pad's modes graphs do not compute.)
_OTHER_PAD_MODES = ("empty", "linear_ramp", "maximum", "mean", "median", "minimum")


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    """np.pad in modes 'constant', 'edge', 'wrap', 'reflect' and 'symmetric': axis by
    axis as NumPy pads (so a later axis's padding covers the corners), a constant by
    concatenating filled blocks, the others by gathering the indices NumPy's loops copy
    from (periodic in the width, which may exceed the size)."""
    array = _as_array(array)
    if isinstance(pad_width, dict) or holds_symbolic(pad_width):
        pad_width = _concrete_widths(pad_width, array.ndim)
    values = kwargs.get("constant_values", 0)
    checked = dict(kwargs)
    if "constant_values" in checked and holds_symbolic(values):
        if not is_tensor(values) or values.ndim:
            raise not_supported("np.pad(..., constant_values=) of arrays computed in the "
                                "graph (pass a scalar, or constants)")
        checked["constant_values"] = 0
    if callable(mode) or mode in _OTHER_PAD_MODES:
        raise not_supported("np.pad(..., mode=%s)" % (
            "a function" if callable(mode) else repr(mode)))
    # (NumPy's errors for pad_width, mode and the keywords, on a stand-in.)
    _python_error(np.pad, np.zeros((1,) * array.ndim, array.dtype), pad_width, mode,
                  **checked)
    if kwargs.get("reflect_type", "even") != "even":
        raise not_supported("np.pad(..., reflect_type=%r)" % (kwargs["reflect_type"],))
    widths = [(int(b), int(a)) for b, a in _as_pairs(pad_width, array.ndim, as_index=True)]
    if mode == "constant":
        pairs = ((values, values),) * array.ndim if is_tensor(values) else \
            _as_pairs(values, array.ndim)
        result = array
        for axis, ((before, after), (low, high)) in enumerate(zip(widths, pairs)):
            if before or after:
                result = concatenate([_filled(result, axis, before, low), result,
                                      _filled(result, axis, after, high)], axis)
        return result if result is not array else copy(array)
    result = array
    for axis, (before, after) in enumerate(widths):
        if before or after:
            size = array.shape[axis]
            _check_extendable(axis, size)
            result = _along(result, axis, _pad_indices(mode, size, before, after))
    return result if result is not array else copy(array)


def _concrete_widths(pad_width, ndim):
    """pad_width as the sequence NumPy makes of it: a dict's entries by axis (NumPy's own
    loop), symbolic numbers as the Python ints they are (specialising on them)."""
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            seq[axis] = (width, width) if not isinstance(width, tuple) else width
        pad_width = seq

    def concrete(x):
        if isinstance(x, (tuple, list)):
            return [concrete(item) for item in x]
        return _int(x) if is_tensor(x) else x
    return concrete(pad_width)


def _filled(like, axis, width, value):
    """A block of `like`'s shape but `width` along `axis`, holding `value` as NumPy's
    pad writes it (an item assignment: cast to the array's dtype as NumPy casts)."""
    shape = list(like.shape)
    shape[axis] = width
    block = empty(tuple(shape), like.dtype)
    block[...] = value
    return block


def _check_extendable(axis, size):
    error = errors.mark_python_error(ValueError(
        "can't extend empty axis %d using modes other than 'constant' or 'empty'" % axis))
    if _is_static(size):
        if size == 0:
            raise error
    else:
        Raise(error, unless=size > 0)


def _pad_indices(mode, size, before, after):
    """The indices along an axis of `size` that np.pad's `mode` copies into the padded
    axis (`before` and `after` wide): the same loop for NumPy arrays (a size known now)
    and tensors."""
    if _is_static(size):
        index = np.arange(-before, size + after)
    else:
        index = arange(-before, size + after, dtype=np.int64)
    if mode == "edge":
        return np.clip(index, 0, size - 1)
    if mode == "wrap":
        return np.mod(index, size)
    # (reflect: the period is 2 (n - 1), and a single element is repeated; symmetric
    # repeats the edges: the period is 2 n.)
    symmetric = int(mode == "symmetric")
    period = np.maximum(2 * size - 2 * (1 - symmetric), 1)
    folded = np.mod(index, period)
    return np.where(folded < size, folded, period - symmetric - folded)


# --- tiling and repeating -------------------------------------------------------------------

def _repeated(a, axis, count, whole):
    """`a` repeated `count` (an int or a symbolic int) times along `axis`: as a whole
    (np.tile: a new axis before it) or element by element (np.repeat: after it), by
    broadcasting along the new axis and merging it into `axis`."""
    shape = list(a.shape)
    new = axis if whole else axis + 1
    spread = _broadcast(expand_dims(a, new), tuple(shape[:new]) + (count,)
                        + tuple(shape[new:]))
    shape[axis] = shape[axis] * count
    return reshape(spread, tuple(shape))


def _count(x):
    """A repeat count: a Python int, or a symbolic scalar (a negative one fails the
    graph's new array with NumPy's ValueError), which NumPy converts as int() does where
    it is a scalar, and casts safely where it is an array."""
    if is_tensor(x):
        if is_ndarray(x):
            _check_counts(x)
        return x.astype(np.int64) if x.dtype != np.int64 else x
    count = _int(x)
    if count < 0:
        raise errors.mark_python_error(ValueError("negative dimensions are not allowed"))
    return count


def _check_counts(x):
    """NumPy's TypeError for an array of counts it cannot cast safely to intp."""
    if not np.can_cast(x.dtype, np.intp, "safe"):
        raise errors.mark_python_error(TypeError(
            "Cannot cast array data from dtype('%s') to dtype('int64') according to "
            "the rule 'safe'" % x.dtype))


@implements(np.tile)
def tile(A, reps):
    A = _as_array(A)
    if is_tensor(reps):
        reps = tuple(reps) if reps.ndim else (reps,)
    else:
        reps = tuple(reps) if np.iterable(reps) else (reps,)
    counts = [_count(r) for r in reps]
    # (NumPy: A gets leading axes up to len(reps), reps leading ones up to A's rank.)
    if len(counts) > A.ndim:
        A = A[(None,) * (len(counts) - A.ndim)]
    counts = [1] * (A.ndim - len(counts)) + counts
    result = A
    for axis, count in reversed(list(enumerate(counts))):
        if is_tensor(count) or count != 1:
            result = _repeated(result, axis, count, whole=True)
    return result if result is not A else copy(A)


@implements(np.repeat)
def repeat(a, repeats, axis=None):
    """Each element `repeats` times: a count (also a symbolic one) by broadcasting, counts
    per element (constants) by gathering. Counts computed in the graph would make the
    result's size depend on their values: refused."""
    a = _as_array(a)
    if axis is None or a.ndim == 0:
        # (NumPy takes a 0-d array as a 1-d one, also with an axis.)
        a = np.ravel(a)
    axis = 0 if axis is None else _axis(axis, a.ndim)
    if holds_symbolic(repeats):
        repeats = _as_array(repeats)
        if repeats.ndim:
            _check_counts(repeats)
            if repeats.static_shape != (1,):
                raise not_supported(
                    "np.repeat(a, repeats) with repeats an array computed in the graph (the "
                    "result's size would depend on its values: pass constant counts, or "
                    "one count)")
            repeats = repeats[0]
        return _repeated(a, axis, _count(repeats), whole=False)
    counts = np.asarray(repeats)
    if counts.size != 1:
        size = a.shape[axis]
        if _is_static(size):
            index = _python_error(np.repeat, np.arange(size), counts)
        else:
            index = _python_error(np.repeat, np.arange(counts.shape[0]), counts)
            Raise(errors.mark_python_error(ValueError(format_text(
                "%", "operands could not be broadcast together with shape (%s,) (%d,)",
                (size, counts.shape[0])))), unless=size == counts.shape[0])
        return _along(a, axis, index)
    # (The count as NumPy takes it: a scalar converted as int() does, an array of one
    # count cast safely; its errors.)
    count = _python_error(np.repeat, np.zeros(1), repeats).shape[0]
    return _repeated(a, axis, count, whole=False)


method("repeat")(repeat)


# --- rolling, flipping, rotating ------------------------------------------------------------

@implements(np.roll)
def roll(a, shift, axis=None):
    """NumPy's roll: the two parts of each rolled axis swapped (a concatenation of
    slices); a shift may be symbolic."""
    a = _as_array(a)
    if axis is None:
        flat = roll(np.ravel(a), shift, 0)
        return mark_ndarray(reshape(flat, a.shape) if a.ndim else flat[0])
    axes = _axes(axis, a.ndim, allow_duplicate=True)
    shifts, shape = _sequence(shift)
    # (NumPy broadcasts shift against the axes; its errors where they do not.)
    if len(_python_error(np.broadcast, np.zeros(shape), np.zeros(len(axes))).shape) > 1:
        raise errors.mark_python_error(
            ValueError("'shift' and 'axis' should be scalars or 1D sequences"))
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    total = {}
    for s, ax in zip(shifts, axes):
        if is_tensor(s) and s.dtype.kind not in "iu":
            s = s.astype(np.int64)
        total[ax] = total.get(ax, 0) + (s if is_tensor(s) else int(s))
    result = a
    for ax, s in sorted(total.items()):
        size = a.shape[ax]
        if _is_static(size, s):
            s %= size or 1
            if not s:
                continue
        else:
            s = np.mod(s, np.maximum(size, 1))
        cut = size - s
        result = concatenate([_along(result, ax, slice(cut, None)),
                              _along(result, ax, slice(None, cut))], ax)
    return result if result is not a else copy(a)


def _sequence(x):
    """A shift as a list of its numbers (a 1-d tensor's elements), and its shape."""
    if is_tensor(x):
        if x.ndim > 1:
            raise errors.mark_python_error(
                ValueError("'shift' and 'axis' should be scalars or 1D sequences"))
        return (list(x), (len(x),)) if x.ndim else ([x], ())
    if holds_symbolic(x):
        if builtins.any(isinstance(item, (tuple, list)) or is_tensor(item) and item.ndim
                        for item in x):
            raise errors.mark_python_error(
                ValueError("'shift' and 'axis' should be scalars or 1D sequences"))
        return list(x), (len(x),)
    x = np.asarray(x)
    return list(x.ravel()), x.shape


@implements(np.flip)
def flip(m, axis=None):
    m = _as_array(m)
    if axis is None:
        index = (slice(None, None, -1),) * m.ndim
    else:
        axes = _axes(axis, m.ndim)
        index = tuple(slice(None, None, -1) if i in axes else slice(None)
                      for i in range(m.ndim))
    return m[index]


@implements(np.fliplr)
def fliplr(m):
    m = _as_array(m)
    if m.ndim < 2:
        raise errors.mark_python_error(ValueError("Input must be >= 2-d."))
    return m[:, ::-1]


@implements(np.flipud)
def flipud(m):
    m = _as_array(m)
    if m.ndim < 1:
        raise errors.mark_python_error(ValueError("Input must be >= 1-d."))
    return m[::-1, ...]


@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    """NumPy's rot90: flips and a transpose (views)."""
    axes = tuple(_int(axis) for axis in axes)
    if len(axes) != 2:
        raise errors.mark_python_error(ValueError("len(axes) must be 2."))
    m = _as_array(m)
    if axes[0] == axes[1] or builtins.abs(axes[0] - axes[1]) == m.ndim:
        raise errors.mark_python_error(ValueError("Axes must be different."))
    if not (-m.ndim <= axes[0] < m.ndim and -m.ndim <= axes[1] < m.ndim):
        raise errors.mark_python_error(
            ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}."))
    k = _int(k) % 4
    if k == 0:
        return m[:]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return transpose(flip(m, axes[1]), order)
    return flip(transpose(m, order), axes[1])


# --- axes -----------------------------------------------------------------------------------

@implements(np.moveaxis)
def moveaxis(a, source, destination):
    a = _as_array(a)
    source = _axes(source, a.ndim, "source")
    destination = _axes(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise errors.mark_python_error(ValueError(
            "`source` and `destination` arguments must have the same number of elements"))
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(a, order)


@implements(np.rollaxis)
def rollaxis(a, axis, start=0):
    a = _as_array(a)
    n = a.ndim
    axis = _axis(axis, n)
    start = _int(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise errors.mark_python_error(np.exceptions.AxisError(
            "'%s' arg requires %d <= %s < %d, but %d was passed in"
            % ("start", -n, "start", n + 1, start)))
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    order = list(range(n))
    order.remove(axis)
    order.insert(start, axis)
    return transpose(a, order)


# --- differences ----------------------------------------------------------------------------

@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=_NOVALUE, append=_NOVALUE):
    n = _int(n)
    if n == 0:
        return a
    if n < 0:
        raise errors.mark_python_error(
            ValueError("order must be non-negative but got " + repr(n)))
    a = _as_array(a)
    if a.ndim == 0:
        raise errors.mark_python_error(
            ValueError("diff requires input that is at least one dimensional"))
    axis = _axis(axis, a.ndim)
    combined = []
    for extra in (prepend, a, append):
        if extra is _NOVALUE:
            continue
        if extra is not a:
            extra = _as_array(extra)
            if extra.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                extra = _broadcast(extra, tuple(shape))
        combined.append(extra)
    if len(combined) > 1:
        a = concatenate(combined, axis)
    for _ in range(n):
        later, earlier = _along(a, axis, slice(1, None)), _along(a, axis, slice(None, -1))
        a = (np.not_equal if a.dtype == np.bool_ else np.subtract)(later, earlier)
    return a


@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    """NumPy's ediff1d: the differences of the flattened array, in its dtype, between
    to_begin and to_end (cast to it, where NumPy's same_kind rule lets them)."""
    ary = np.ravel(_as_array(ary))
    ends = {}
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is not None:
            extra = _as_array(extra)
            if not np.can_cast(extra.dtype, ary.dtype, casting="same_kind"):
                raise errors.mark_python_error(TypeError(
                    "dtype of `%s` must be compatible with input `ary` under the "
                    "`same_kind` rule." % name))
            ends[name] = np.ravel(extra).astype(ary.dtype)
    parts = [np.subtract(ary[1:], ary[:-1])]
    if "to_begin" in ends:
        parts.insert(0, ends["to_begin"])
    if "to_end" in ends:
        parts.append(ends["to_end"])
    return concatenate(parts) if len(parts) > 1 else parts[0]


# --- diagonals and triangles ----------------------------------------------------------------

def _diagonal_values(a, offset, axis1, axis2):
    """The diagonal of `a` in the plane of axis1, axis2 (the last axis of the result):
    those two axes moved last and merged, then every (size2 + 1)-th element from the
    diagonal's first one (basic slicing)."""
    order = [i for i in range(a.ndim) if i not in (axis1, axis2)] + [axis1, axis2]
    if order != list(range(a.ndim)):
        a = Tensor(ops.get("transpose").bind1([a], axes=tuple(order)))
    rows, cols = a.shape[-2], a.shape[-1]
    start = -offset * cols if offset < 0 else offset
    if _is_static(rows, cols):
        length = builtins.max(0, builtins.min(rows + builtins.min(offset, 0),
                                              cols - builtins.max(offset, 0)))
    else:
        length = np.maximum(0, np.minimum(rows + builtins.min(offset, 0),
                                          cols - builtins.max(offset, 0)))
    flat = reshape(a, tuple(a.shape[:-2]) + (rows * cols,))
    return flat[..., start:start + length * (cols + 1):cols + 1]


@implements(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """A read-only view of the diagonal, as NumPy's (a write raises its ValueError)."""
    a = _as_array(a)
    offset, axis1, axis2 = _int(offset), _int(axis1), _int(axis2)
    # (NumPy's errors for the rank and the axes, on a stand-in.)
    _python_error(np.diagonal, np.empty((1,) * a.ndim), offset, axis1, axis2)
    axis1, axis2 = axis1 % a.ndim, axis2 % a.ndim
    return tensor.make_view(a, lambda b: _diagonal_values(b, offset, axis1, axis2))


method("diagonal")(diagonal)


@implements(np.diag)
def diag(v, k=0):
    v = _as_array(v)
    k = _int(k)
    if v.ndim == 1:
        size = v.shape[0]
        n = size + builtins.abs(k)
        result = zeros((n, n), v.dtype)
        if _is_static(size):
            index = np.arange(size)
        else:
            index = arange(0, size, dtype=np.int64)
        result[index + builtins.max(-k, 0), index + builtins.max(k, 0)] = v
        return result
    if v.ndim == 2:
        return diagonal(v, k)
    raise errors.mark_python_error(ValueError("Input must be 1- or 2-d."))


@implements(np.trace)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


method("trace")(trace)


def _tri(N, M=None, k=0):
    """np.tri(N, M, k, dtype=bool) of sizes that may be symbolic: j - i <= k."""
    M = N if M is None else M
    if _is_static(N, M, k):
        return np.tri(N, M, k, dtype=bool)
    rows = arange(0, N, dtype=np.int64)
    cols = arange(0, M, dtype=np.int64)
    return cols[None, :] - rows[:, None] <= k


def _tri_of(m, k):
    """NumPy's mask for tril/triu: np.tri(*m.shape[-2:], k=k, dtype=bool)."""
    if m.ndim == 0:
        raise errors.mark_python_error(
            TypeError("tri() missing 1 required positional argument: 'N'"))
    return _tri(*m.shape[-2:], k=k)


@implements(np.tril)
def tril(m, k=0):
    m = _as_array(m)
    return where(_tri_of(m, k), m, np.zeros(1, m.dtype))


@implements(np.triu)
def triu(m, k=0):
    m = _as_array(m)
    return where(_tri_of(m, k - 1), np.zeros(1, m.dtype), m)


# --- grids ----------------------------------------------------------------------------------

_MESHGRID_WRITE = (
    "np.meshgrid(..., copy=False): a result is written to: NumPy's results are views of "
    "the inputs, reshaped and broadcast, whose writes land in several places at once. Use "
    "copy=True (the default), or write into the inputs")


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """NumPy's meshgrid: each input flattened along its own axis (the first two swapped
    for 'xy'), broadcast to the whole grid unless sparse; copies, or with copy=False views
    of the inputs that follow them and refuse writes (_MESHGRID_WRITE)."""
    ndim = len(xi)
    if indexing not in ("xy", "ij"):
        raise errors.mark_python_error(
            ValueError("Valid values for `indexing` are 'xy' and 'ij'."))
    arrays = [_as_array(x) for x in xi]
    places = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        places[0], places[1] = 1, 0
    grid = [None] * ndim
    for place, a in zip(places, arrays):
        grid[place] = a.size
    grid = tuple(grid)

    def spread(b, place):
        shape = tuple(-1 if i == place else 1 for i in range(ndim))
        line = reshape(b, shape)
        return line if sparse else _broadcast(line, grid)
    if copy:
        return tuple(_array(ops.get("copy").bind1([spread(a, place)])) if sparse
                     else spread(a, place) for a, place in zip(arrays, places))
    output = [tensor.make_view(a, lambda b, place=place: spread(b, place),
                               refusal=lambda: TypeError(_MESHGRID_WRITE),
                               values=_shape_values(grid))
              for a, place in zip(arrays, places)]
    return output if sparse else tuple(output)


# --- layout ---------------------------------------------------------------------------------
# np.ascontiguousarray and np.asfortranarray are not dispatched to tensors by NumPy: the
# overloads of autograph/operators/graph/arrays.py call these.

def _layout(name):
    refusal = (
        "np.%s(x): its result is written to: NumPy's result is x itself where x's memory "
        "already has the layout asked for, and a copy where not, which a graph does not "
        "know. Write into x, or into a copy (x.copy())" % name)

    def convert(a, dtype=None, *, like=None):
        a = _as_array(a)
        if dtype is not None and np.dtype(dtype) != a.dtype:
            result = tensor.cast(a, dtype)   # (a new array)
            return result[None] if result.ndim == 0 else mark_ndarray(result)
        # (The array itself or a copy, as the layout decides: its writes are refused.)
        return tensor.make_view(a, lambda b: b[None] if b.ndim == 0 else b,
                                refusal=lambda: TypeError(refusal))
    convert.__name__ = name
    return convert


ascontiguousarray = implements(np.ascontiguousarray)(_layout("ascontiguousarray"))
asfortranarray = implements(np.asfortranarray)(_layout("asfortranarray"))


# --- filling --------------------------------------------------------------------------------

@method("fill")
def fill(a, value):
    """x.fill(value): every element set to `value`, in place (cast as NumPy casts it)."""
    if not is_ndarray(a):
        raise not_supported("x.fill() of a NumPy scalar")
    if holds_symbolic(value) and not is_tensor(value):
        value = _as_array(value)
    if is_tensor(value) and value.ndim or not is_tensor(value) and np.ndim(value):
        raise errors.mark_python_error(ValueError("setting an array element with a sequence."))
    a[...] = value


def ufunc_outer(ufunc, a, b, **kwargs):
    """np.add.outer(a, b) & co.: the ufunc of a with one axis of size 1 added per axis of b,
    and b (NumPy computes each element alone, so the values are NumPy's)."""
    a, b = _tensor(a), _tensor(b)
    if ufunc.nin != 2:
        raise ValueError("method outer is only supported for binary functions")
    expanded = expand_dims(a, tuple(range(a.ndim, a.ndim + b.ndim))) if b.ndim else a
    return ufunc(expanded, b, **kwargs)


UFUNC_METHODS["outer"] = ufunc_outer
