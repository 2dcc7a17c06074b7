"""Array creation: zeros/ones/empty/full (dims may be symbolic), their *_like forms,
arange and linspace."""

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.ops.inference import dummy
from runtime.ops.registry import defop, get


def _shape_format(name):
    def format_(node, namer):
        n_leading = node.attrs.get("_n_leading", 0)
        dynamic = iter(node.inputs[n_leading:])
        dims = [namer(next(dynamic)) if d is None else str(d) for d in node.attrs["shape"]]
        parts = ["(%s%s)" % (", ".join(dims), "," if len(dims) == 1 else "")]
        parts += [namer(v) for v in node.inputs[:n_leading]]
        if node.attrs.get("dtype") is not None:
            parts.append("dtype=%s" % np.dtype(node.attrs["dtype"]).name)
        return "%s %s" % (name, ", ".join(parts))
    return format_


def _build_shape(template, dynamic):
    it = iter(dynamic)
    return tuple(next(it) if d is None else d for d in template)


def _filled_op(name, fn):
    def infer(*dynamic, shape, dtype):
        return [(dtype, tuple(shape))]

    def make_kernel(shape, dtype):
        if all(d is not None for d in shape):
            shape = tuple(shape)
            return lambda: fn(shape, dtype)
        return lambda *dynamic: fn(_build_shape(shape, dynamic), dtype)

    return defop(name, infer=infer, make_kernel=make_kernel, format=_shape_format(name),
                 doc="np.%s(shape, dtype); shape entries None are the inputs" % name)


zeros = _filled_op("zeros", np.zeros)
ones = _filled_op("ones", np.ones)
empty = _filled_op("empty", np.empty)


def _full_infer(fill_value, *dynamic, shape, dtype, _n_leading=1):
    if dtype is None:
        dtype = np.full((), dummy(fill_value)).dtype
    return [(dtype, tuple(shape))]


def _full_kernel(shape, dtype, _n_leading=1):
    return lambda fill_value, *dynamic: np.full(_build_shape(shape, dynamic), fill_value, dtype)


full = defop("full", infer=_full_infer, make_kernel=_full_kernel, format=_shape_format("full"),
             doc="np.full(shape, fill_value, dtype); input 0 is the fill value")


def _like_op(name, fn):
    def infer(x, dtype=None):
        return [(x.dtype if dtype is None else dtype, x.shape)]

    return defop(name, infer=infer, make_kernel=lambda dtype=None: (lambda x: fn(x, dtype=dtype)),
                 doc="np.%s(x, dtype)" % name)


zeros_like = _like_op("zeros_like", np.zeros_like)
ones_like = _like_op("ones_like", np.ones_like)
empty_like = _like_op("empty_like", np.empty_like)


def _full_like_infer(x, fill_value, dtype=None):
    return [(x.dtype if dtype is None else dtype, x.shape)]


full_like = defop("full_like", infer=_full_like_infer,
                  make_kernel=lambda dtype=None: (lambda x, v: np.full_like(x, v, dtype=dtype)),
                  doc="np.full_like(x, fill_value, dtype)")


def _arange_infer(start, stop, step, dtype=None):
    parts = (start, stop, step)
    for v in parts:
        if v.shape != ():
            raise TypeError("np.arange bounds must be scalars")
    if all(v.is_literal for v in parts):
        probe = np.arange(start.literal, stop.literal, step.literal, dtype=dtype)
        return [(probe.dtype, probe.shape)]
    with np.errstate(all="ignore"):   # (a literal step 0: the error is the run's)
        dtype = np.arange(*[dummy(v) for v in parts], dtype=dtype).dtype
    return [(dtype, (None,))]


arange = defop("arange", infer=_arange_infer,
               make_kernel=lambda dtype=None: (lambda a, b, s: np.arange(a, b, s, dtype=dtype)),
               doc="np.arange(start, stop, step, dtype)")


# The most iterations a graph loop counts (its counter is an int64): a longer range has as
# many as a loop can run before the counter would pass it.
INT64_MAX = 2 ** 63 - 1


def _range_length_kernel(too_long=INT64_MAX):
    def range_length(start, stop, step):
        start, stop, step = int(start), int(stop), int(step)
        if step == 0:   # (refused before this op runs: rt.range_length's caller)
            return np.int64(0)
        length = max(0, (stop - start + step - (1 if step > 0 else -1)) // step)
        return np.int64(length if length <= INT64_MAX else too_long)
    return range_length


range_length = defop(
    "range_length",
    infer=lambda start, stop, step, too_long=INT64_MAX: [(np.dtype(np.int64), ())],
    make_kernel=_range_length_kernel,
    doc="len(range(start, stop, step)) of int64 scalars, exactly (no int64 wraps in "
        "between), or `too_long` where it passes int64's range")


def _range_item(start, step, index):
    return np.int64(int(start) + int(index) * int(step))


range_item = defop(
    "range_item",
    infer=lambda start, step, index: [(np.dtype(np.int64), ())],
    kernel=_range_item,
    doc="start + index * step of int64 scalars, the item at `index` (below its length) of "
        "range(start, stop, step): exact, where the product alone may pass int64's range")


def _linspace_infer(start, stop, num, endpoint=True, dtype=None):
    if start.shape != () or stop.shape != ():
        raise TypeError("np.linspace with array bounds is not supported in graphs yet")
    probe = np.linspace(dummy(start), dummy(stop), 2, endpoint=endpoint, dtype=dtype)
    length = int(num.literal) if num.is_literal else None
    return [(probe.dtype, (length,))]


linspace = defop(
    "linspace", infer=_linspace_infer,
    make_kernel=lambda endpoint=True, dtype=None: (
        lambda a, b, n: np.linspace(a, b, n, endpoint=endpoint, dtype=dtype)),
    doc="np.linspace(start, stop, num, endpoint, dtype)")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

_FILLED_ARRAY = {0: "np.zeros", 1: "np.ones", None: "np.empty"}


def _filled(fill, dtype, shape_text, scalar):
    """Numba text of an array of `fill` (None: uninitialised) or, for a scalar, the value."""
    if scalar:
        return nl.literal_text(fill if fill is not None else 0, dtype)
    return "%s(%s, %s)" % (_FILLED_ARRAY[fill], shape_text, nl.np_dtype(dtype))


def _numba_filled_lowering(fill):
    def lower(g, node, ins):
        shape = node.attrs["shape"]
        return _filled(fill, node.outputs[0].dtype,
                       shape and nl.shape_text(g, shape, node.inputs), not shape)
    return lower


get("zeros").def_numba(_numba_filled_lowering(0))
get("ones").def_numba(_numba_filled_lowering(1))
get("empty").def_numba(_numba_filled_lowering(None))


@get("full").def_numba
def _numba_full(g, node, ins):
    out = node.outputs[0]
    shape = node.attrs["shape"]
    fill = g.expr(node.inputs[0], out.dtype)
    if not nl.is_scalar(g, node.inputs[0]):
        raise nl.Unlowerable("np.full with an array fill value")
    fill = g.scalar_cast(fill, out.dtype)
    if not shape:
        return fill
    n_leading = node.attrs.get("_n_leading", 1)
    return "np.full(%s, %s, %s)" % (nl.shape_text(g, shape, node.inputs[n_leading:]), fill,
                                    nl.np_dtype(out.dtype))


def _numba_like_lowering(fill):
    def lower(g, node, ins):
        return _filled(fill, node.outputs[0].dtype, "%s.shape" % ins[0],
                       nl.is_scalar(g, node.inputs[0]))
    return lower


get("zeros_like").def_numba(_numba_like_lowering(0))
get("ones_like").def_numba(_numba_like_lowering(1))
get("empty_like").def_numba(_numba_like_lowering(None))


@get("full_like").def_numba
def _numba_full_like(g, node, ins):
    out = node.outputs[0]
    if not nl.is_scalar(g, node.inputs[1]):
        raise nl.Unlowerable("np.full_like with an array fill value")
    fill = g.scalar_cast(g.expr(node.inputs[1], out.dtype), out.dtype)
    if nl.is_scalar(g, node.inputs[0]):
        return fill
    return "np.full(%s.shape, %s, %s)" % (ins[0], fill, nl.np_dtype(out.dtype))


@get("arange").def_numba
def _numba_arange(g, node, ins):
    out = node.outputs[0]
    if out.dtype.kind not in "iuf":
        raise nl.Unlowerable("np.arange of dtype %s" % out.dtype)
    args = [g.expr(v) for v in node.inputs]   # (NumPy computes the length in their types)
    return "_rt.arange(%s, %s)" % (", ".join(args), nl.np_dtype(out.dtype))


@get("range_length").def_numba
def _numba_range_length(g, node, ins):
    # (Without branches where the step is a literal: each is a block to Numba, and blocks
    # cost compile time: tools/bench_compile.py's primes.)
    start, stop, step = node.inputs
    a, b, s = ins
    too_long = node.attrs.get("too_long", INT64_MAX)
    if not step.is_literal:   # (a step of 0 was refused before: rt.range_length's caller)
        count = g.tmp("n")
        g.emit("%s = %s if %s > 0 else %s if %s < 0 else np.uint64(0)" % (
            count, _uint64_count(g, a, b, "np.uint64(%s)" % s), s,
            _uint64_count(g, b, a, "(np.uint64(0) - np.uint64(%s))" % s), s))
        return _clamped(count, too_long)
    step = int(step.literal)
    low_a, low_b = g.known_lower_bound(start), g.known_lower_bound(stop)
    if step > 0 and low_a is not None and low_a >= step - 1 and low_b is not None \
            and low_b >= 0:
        # (b - a + step - 1 fits in int64: the plain count, which LLVM's loop analysis
        # reads best: primes' inner loop 7% faster than with the form below.)
        return "max(0, (%s - %s))" % (b, a) if step == 1 else \
            "max(0, (%s - %s + %d) // %d)" % (b, a, step - 1, step)
    if step > 0 and low_a is not None and low_a >= 0:
        # (max(b, a) - a is 0 where b <= a, else b - a, which fits then: exact.)
        return "(max(%s, %s) - %s)" % (b, a, a) if step == 1 else \
            "((max(%s, %s) - %s - 1) // %d + 1)" % (b, a, a, step)
    count = _uint64_count(g, a, b, "np.uint64(%d)" % abs(step)) if step > 0 else \
        _uint64_count(g, b, a, "np.uint64(%d)" % abs(step))
    return _clamped(count, too_long)


def _uint64_count(g, low, high, step):
    """Numba text of how many steps of uint64 `step` (> 0) fit from int64 `low` up to
    before `high`, without branches: counted in uint64, where the difference of the
    bounds fits (as the difference of the bounds wrapped into uint64, exactly)."""
    span = g.tmp("n")
    g.emit("%s = np.uint64(max(%s, %s)) - np.uint64(%s)" % (span, high, low, low))
    if step == "np.uint64(1)":
        return span
    some = "min(%s, np.uint64(1))" % span   # (0 where the range is empty, else 1)
    return "((%s - %s) // %s + %s)" % (span, some, step, some)


def _clamped(count, too_long):
    """Numba text of uint64 `count` as an int64: `too_long` where it passes int64's max."""
    if too_long == INT64_MAX:
        return "np.int64(min(%s, np.uint64(%d)))" % (count, INT64_MAX)
    return "(np.int64(%s) if %s <= np.uint64(%d) else %s)" % (
        count, count, INT64_MAX, nl.literal_text(too_long, np.int64))


@get("range_item").def_numba
def _numba_range_item(g, node, ins):
    start, step, _ = node.inputs
    low = g.known_lower_bound(start)
    if step.is_literal and step.literal > 0 and low is not None and low >= 0:
        return "(%s + %s * %s)" % (ins[0], ins[2], ins[1])   # (0 <= i * step <= the item)
    # (Else in uint64, which wraps: Numba's int64 arithmetic assumes it does not, and the
    # product may pass int64's range where the item does not.)
    return "np.int64(np.uint64(%s) + np.uint64(%s) * np.uint64(%s))" % (ins[0], ins[2], ins[1])


@get("linspace").def_numba
def _numba_linspace(g, node, ins):
    out = node.outputs[0]
    # (NumPy computes in the bounds' float dtype, then casts to dtype=; ints it floors.)
    computed = np.linspace(dummy(node.inputs[0]), dummy(node.inputs[1]), 2).dtype
    if out.dtype.kind != "f" or computed.kind != "f":
        raise nl.Unlowerable("np.linspace of dtype %s" % out.dtype)
    text = "_rt.linspace(%s, %s, %s, %s, %s)" % (ins[0], ins[1], ins[2],
                                                 bool(node.attrs.get("endpoint", True)),
                                                 nl.np_dtype(computed))
    return nl.cast_result(g, node, text, computed)


# --- derivative rules (reverse mode: runtime/autodiff.py) -------------------------------------
# np.zeros_like(x) and its kin read only x's shape: x gets no cotangent. (Rules build zeros
# this way, so a second derivative walks them.)

def _like_vjp(inputs, outputs, cts, dtype=None):
    return [None]


for _name in ("zeros_like", "ones_like", "empty_like"):
    get(_name).def_vjp(_like_vjp)
