"""What derivative rules share: recording ops on Values, undoing broadcasting, zeros.

A rule (`@get(name).def_vjp`, see runtime/ops/registry.py) works on graph Values, not
Tensors, because op modules sit below runtime/tensor.py. It records its ops with `bind`
(`bind("multiply", ct, y)`), so the gradient graph is an ordinary graph: both executors
run it, and a rule made of ops that have rules can be differentiated again (second order).

Broadcasting is undone with `unbroadcast(ct, x)`: a sum over the axes NumPy added or
stretched. Dims a trace does not know (None) are decided when the graph runs, by the
`sum_to` op.
"""

import numpy as np

from runtime import errors
from runtime.executors.numba import lowering as nl
from runtime.graph import TENSOR_ARRAY, Value, literal
from runtime.ops.registry import defop, get
from runtime.tensor_array_buffer import TensorArrayBuffer


def bind(name, *inputs, **attrs):
    """Record op `name` on `inputs` (Values or Python scalars); its single output Value."""
    return get(name).bind1(list(inputs), **attrs)


def differentiable(value):
    """Does `value` carry a gradient? Float and complex values do; ints and bools do not."""
    return value is not None and np.dtype(value.dtype).kind in "fc"


def scalar(value, dtype):
    """A literal of `dtype` (a NumPy scalar: strong, so it never changes a result's dtype)."""
    return literal(np.dtype(dtype).type(value))


def as_dtype(ct, dtype):
    """`ct` cast to `dtype` (the cotangent of a float32 input is float32)."""
    if isinstance(ct, Scatter):
        return ct.cast(dtype)
    if ct.dtype == np.dtype(dtype):
        return ct
    return bind("cast", ct, dtype=np.dtype(dtype))


def zeros_like(x):
    """Zeros of x's shape and dtype (a literal 0 when x is a scalar)."""
    if x.shape == ():
        return scalar(0, x.dtype)
    return bind("zeros_like", x)


def add(a, b):
    """a + b, cotangents of one value: either may be None (none yet) or a Scatter."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, Scatter) and isinstance(b, Scatter):
        return a.plus(b)
    if isinstance(b, Scatter):
        return b.add_into(a)
    if isinstance(a, Scatter):
        return a.add_into(b)
    return bind("add", a, b)


class Scatter:
    """A sparse cotangent: zeros shaped like `like` with values added at indices, one part
    (values, the `index` template and `dynamic` inputs of get_item, `basic`: no element
    named twice) per read. The cotangent of an array rules read parts of (x[t] in a loop):
    the engine keeps it sparse while it only accumulates, adding it into a dense
    cotangent in place, so a loop reading rows of x costs those rows per iteration, not x;
    `dense` makes it an array where a rule needs one."""

    __slots__ = ("like", "parts")

    def __init__(self, like, values, dynamic, index, basic):
        self.like = like
        self.parts = [(values, list(dynamic), index, basic)]

    @property
    def dtype(self):
        return self.parts[0][0].dtype

    def plus(self, other):
        """This cotangent and another Scatter of the same array (a new Scatter)."""
        both = Scatter.__new__(Scatter)
        both.like, both.parts = self.like, self.parts + other.parts
        return both

    def cast(self, dtype):
        cast = Scatter.__new__(Scatter)
        cast.like = self.like
        cast.parts = [(as_dtype(values, dtype), dynamic, index, basic)
                      for values, dynamic, index, basic in self.parts]
        return cast

    def add_into(self, acc):
        """acc with the values added at their indices (a new version of acc)."""
        for values, dynamic, index, basic in self.parts:
            if basic:
                part = bind("get_item", acc, *dynamic, index=index)
                acc = bind("set_item", acc, bind("add", part, values), *dynamic, index=index)
            else:
                acc = bind("ufunc_at", acc, values, *dynamic, index=index, ufunc="add")
        return acc

    def dense(self):
        zeros = bind("zeros_like", self.like, dtype=self.dtype)
        values, dynamic, index, basic = self.parts[0]
        if not basic:
            return self.add_into(zeros)
        first = bind("set_item", zeros, values, *dynamic, index=index)
        rest = Scatter.__new__(Scatter)
        rest.like, rest.parts = self.like, self.parts[1:]
        return rest.add_into(first)

    def values_used(self):
        return [self.like] + [v for values, dynamic, _, _ in self.parts
                              for v in [values] + dynamic]


def dense(ct):
    """A cotangent as an array (a Scatter made dense; None stays None)."""
    return ct.dense() if isinstance(ct, Scatter) else ct


def _static_dims_equal(a, b):
    return a is not None and b is not None and a == b


def unbroadcast(ct, x):
    """The cotangent of `x` from the cotangent of a result `x` was broadcast into: `ct`
    summed over the axes broadcasting added or stretched, in x's dtype."""
    if not isinstance(x, Value):
        return None
    if ct.shape == x.shape and all(d is not None for d in x.shape):
        return as_dtype(ct, x.dtype)
    lead = len(ct.shape) - len(x.shape)
    if lead > 0:
        ct = bind("sum", ct, axis=tuple(range(lead)), keepdims=False, dtype=None)
    keep = []   # axes where x's dim is 1 and the result's is not: summed, keepdims
    unknown = False
    for axis, (xd, cd) in enumerate(zip(x.shape, ct.shape)):
        if xd == 1 and cd != 1:
            keep.append(axis)
        elif xd is None and cd != 1 and not _static_dims_equal(xd, cd):
            unknown = True   # x's dim may be 1 where the result's is not
    if keep:
        ct = bind("sum", ct, axis=tuple(keep), keepdims=True, dtype=None)
    if unknown:
        ct = bind("sum_to", ct, x)
    return as_dtype(ct, x.dtype)


# --- sum_to: the axes broadcasting stretched, decided when the graph runs ---------------------

def _sum_to(ct, x):
    axes = tuple(axis for axis, (cd, xd) in enumerate(zip(ct.shape, np.shape(x)))
                 if xd == 1 and cd != 1)
    if axes:
        return ct.sum(axis=axes, keepdims=True)
    return ct


def _sum_to_infer(ct, x):
    if len(ct.shape) != len(x.shape):
        raise ValueError("sum_to: ranks differ (%d, %d)" % (len(ct.shape), len(x.shape)))
    shape = tuple(xd if xd is not None else (1 if cd == 1 else None)
                  for cd, xd in zip(ct.shape, x.shape))
    return [(ct.dtype, shape)]


sum_to = defop(
    "sum_to", infer=_sum_to_infer, kernel=_sum_to, view=True,   # (no axes: ct itself)
    doc="ct summed (keepdims) over the axes where x's dim is 1 and ct's is not: the "
        "cotangent of x from that of a result x was broadcast into (same ranks)")


@sum_to.def_vjp
def _sum_to_vjp(inputs, outputs, cts):
    ct, x = inputs
    return [bind("broadcast_like", cts[0], ct), None]


def _broadcast_like_infer(x, like):
    return [(x.dtype, like.shape)]


broadcast_like = defop(
    "broadcast_like", infer=_broadcast_like_infer,
    kernel=lambda x, like: np.array(np.broadcast_to(x, np.shape(like))),
    doc="x broadcast to the shape of `like` (a new array): the transpose of sum_to")


@broadcast_like.def_vjp
def _broadcast_like_vjp(inputs, outputs, cts):
    return [unbroadcast(cts[0], inputs[0]), None]


def _numba_sum_to(g, node, ins):
    ct = node.inputs[0]
    if nl.is_scalar(g, ct):
        return ins[0]
    return "_rt.sum_to(%s, %s)" % (ins[0], ins[1])


def _numba_broadcast_like(g, node, ins):
    x, like = node.inputs
    if nl.is_scalar(g, like):
        return ins[0]
    return "np.broadcast_to(%s, %s.shape).copy()" % (ins[0], ins[1])


sum_to.def_numba(_numba_sum_to)
broadcast_like.def_numba(_numba_broadcast_like)


# --- ta_prefix: a tensor array as it was before later appends ---------------------------------

def _ta_prefix(ta, size):
    return TensorArrayBuffer(ta.items[:int(size)], ta.dtype, ta.element_shape, ta.dynamic_size)


ta_prefix = defop(
    "ta_prefix", infer=lambda ta, size: [(ta.dtype, ta.shape, TENSOR_ARRAY)], kernel=_ta_prefix,
    view=True,
    doc="the first `size` elements of tensor array `ta` (a view): a list as it was before "
        "the appends a loop made later, which backward loops replay")


@ta_prefix.def_numba
def _numba_ta_prefix(g, node, ins):
    b, w, n, dynamic = nl.ta_parts(g, node.inputs[0])
    return [(b, w, "np.int64(min(%s, %s))" % (n, g.expr(node.inputs[1])), dynamic)]


# --- indexing and tensor arrays (g_indexing) -----------------------------------------------------

def dims(x):
    """x's shape as a `zeros`/`reshape` template and its inputs: (template, dynamic), the
    dims unknown at trace time (None in the template) read from x when the graph runs."""
    sizes = [dim(x, axis) for axis in range(len(x.shape))]
    return (tuple(size if isinstance(size, int) else None for size in sizes),
            [size for size in sizes if not isinstance(size, int)])


def zeros_rows(n, element):
    """Zeros of shape (n, *element.shape) in element's dtype, `n` an int64 scalar Value: the
    dense cotangent of a tensor array of n elements shaped like `element` (a tensor
    array's cotangent is its elements' cotangents stacked)."""
    template, dynamic = dims(element)
    return bind("zeros", n, *dynamic, shape=(None,) + template, dtype=element.dtype)


def refuse(outputs, problem):
    """A NotDifferentiableError (a TypeError) for a rule that cannot differentiate what it
    was given, naming the user's line (the node of `outputs`, as the engine names a node
    without a rule)."""
    location = outputs[0].node.location if outputs[0].node is not None else None
    where = " at %s" % errors.format_location(location) if location is not None else ""
    return errors.NotDifferentiableError("cannot differentiate %s%s" % (problem, where))


# --- for rules whose inputs may be real or complex (g_elementwise) ----------------------------
#
# Complex values follow JAX's convention: a cotangent `c` of a complex value z pairs with a
# change dz as Re(c * dz) (no conjugate), so a holomorphic op's rule is `ct * f'(z)`, the same
# formula as for reals, and the cotangent of a real input is the real part of what its
# result's rule gives it.

def wanted(x):
    """Is the cotangent of `x` worth computing? For an input of the node whose rule runs,
    the engine says (`wanting`: those the gradient being built goes back to, a literal the
    caller bound a differentiated input to included); otherwise (a value a rule made) a
    float or complex value that is not a literal. Skipping the others keeps their ops out
    of the gradient graph."""
    if _wanted is not None:
        if id(x) in _wanted[0]:
            return True
        if id(x) in _wanted[1]:
            return False
    return differentiable(x) and not x.is_literal


_wanted = None   # (ids of the running rule's inputs that want a cotangent, ids of the others)


class wanting:
    """While the engine runs a rule: of the node's `inputs` (Values), those in `active` are
    `wanted`, the others not. (Traces are made one at a time in a process:
    runtime/trace.py.)"""

    def __init__(self, inputs, active):
        wanted = {id(v) for v in active}
        self.ids = (wanted, {id(v) for v in inputs} - wanted)

    def __enter__(self):
        global _wanted
        self.before, _wanted = _wanted, self.ids

    def __exit__(self, *exc):
        global _wanted
        _wanted = self.before


def cotangent_for(ct, x, broadcast=True):
    """The cotangent of input `x` from `ct`, the cotangent of a result `x` was broadcast into:
    its real part when `x` is real and `ct` complex, summed over the axes broadcasting added
    or stretched, in x's dtype. None when `x` wants none (see `wanted`). `broadcast=False`:
    ct has x's shape (the result of a one-input elementwise op), so there is nothing to sum
    even where the dims are unknown at trace time (no `sum_to`)."""
    if not wanted(x):
        return None
    if np.dtype(ct.dtype).kind == "c" and np.dtype(x.dtype).kind != "c":
        ct = bind("real", ct)   # (a cast of a complex would warn that it drops the imaginary part)
    return unbroadcast(ct, x) if broadcast else as_dtype(ct, x.dtype)


# --- shapes, reductions and products (g_shapes): dims decided when the graph runs ----------------

from runtime.ops.inference import normalize_axes  # noqa: E402

def real_dtype(dtype):
    """The real dtype of `dtype`'s values (float32 for complex64; itself for a real one)."""
    return np.empty(0, dtype).real.dtype


def dim(x, axis):
    """x.shape[axis]: a Python int where the trace knows it, else an int64 `dim` op."""
    static = x.shape[axis]
    if static is not None:
        return static
    return bind("dim", x, axis=axis % len(x.shape))


def count(x, axes, dtype):
    """How many elements of x the axes `axes` hold (the divisor of a mean), a scalar of
    `dtype`: a literal where the trace knows the dims, else a product of `dim` ops."""
    static = 1
    dynamic = None
    for axis in axes:
        size = dim(x, axis)
        if isinstance(size, int):
            static *= size
        else:
            dynamic = size if dynamic is None else bind("multiply", dynamic, size)
    if dynamic is None:
        return scalar(static, dtype)
    if static != 1:
        dynamic = bind("multiply", dynamic, literal(np.int64(static)))
    return bind("cast", dynamic, dtype=np.dtype(dtype))


def reshape(x, dims):
    """x reshaped to `dims`: Python ints (-1 too) or int64 scalar Values (known when the
    graph runs)."""
    template = tuple(size if isinstance(size, int) else None for size in dims)
    return bind("reshape", x, *[size for size in dims if not isinstance(size, int)],
                newshape=template)


def reshape_to(ct, x):
    """`ct` (as many elements as x) in x's shape, x's dims unknown to the trace taken when
    the graph runs (`dim` ops). A scalar x takes the sum of ct's one element, a scalar ct
    is broadcast (neither is a reshape, which Numba cannot lower to or from a scalar)."""
    if ct.shape == x.shape and all(s is not None for s in x.shape):
        return ct
    if x.shape == ():
        return bind("sum", ct, axis=None, keepdims=False, dtype=None)
    if ct.shape == ():
        return bind("broadcast_like", ct, x)
    return reshape(ct, [dim(x, axis) for axis in range(len(x.shape))])


def keep_reduced(ct, x, axis, keepdims):
    """The cotangent `ct` of a reduction of x over `axis` with the reduced axes back as
    1s (as keepdims=True leaves them), so that it broadcasts against x."""
    ndim = len(x.shape)
    if keepdims or ndim == 0:
        return ct
    axes = tuple(sorted(normalize_axes(axis, ndim)))
    if not axes:
        return ct
    return bind("expand_dims", ct, axis=axes)


def matrix_transpose(x):
    """x with its last two axes swapped (a stack of matrices transposed)."""
    ndim = len(x.shape)
    return bind("swapaxes", x, axis1=ndim - 2, axis2=ndim - 1)


def negate(x):
    """-x as a multiply by -1 (its rule exists wherever multiply's does)."""
    return bind("multiply", x, scalar(-1, real_dtype(x.dtype)))
