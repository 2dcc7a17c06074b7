"""NumPy functions on symbolic tensors: the __array_ufunc__ / __array_function__ tables.

Each supported NumPy function maps to a handler with NumPy's signature that records ops.
Anything else raises TypeError("np.X is not supported in graphs yet"): never a wrong result.

`out=` (ufuncs, the reductions, np.clip, np.matmul) writes the result into a symbolic array
as NumPy does: see "out=" below.
"""

import builtins
import importlib
import pkgutil
import sys
import warnings

import numpy as np

from runtime import errors, ops, path_kinds, tensor
# (round_scalar: Tensor.__round__'s, which tensor.py reaches through this module.)
from runtime.api import Raise, format_text, holds_symbolic, round_scalar  # noqa: F401
from runtime.ops.elementwise import UFUNC_OPS
from runtime.ops.reductions import ARG_REDUCTIONS, CUMULATIVE, REDUCTIONS
from runtime.ops.shapes import squeeze_axes
from runtime.ops.statistics import MASKED
from runtime.graph import Value
from runtime.tensor import Tensor, cast, is_ndarray, mark_ndarray, wrap

HANDLERS = {}
_NOVALUE = np._NoValue


def numpy_name(func):
    module = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", repr(func))
    if module.startswith("numpy"):
        parts = module.split(".")[1:]
        parts = [p for p in parts if not p.startswith("_")]
        return ".".join(["np"] + parts + [name])
    return name


def not_supported(name):
    return TypeError("%s is not supported in graphs yet" % name)


def _check_unsupported(name, **kwargs):
    for key, value in kwargs.items():
        if value is not None and value is not _NOVALUE and value is not False:
            raise not_supported("%s(..., %s=)" % (name, key))


# What to write instead of a NumPy function graphs do not compute, by name or name prefix.
ALTERNATIVES = {
    "np.fft.": "write the transform with complex arithmetic (a DFT is "
               "`np.exp(-2j * np.pi * np.outer(k, k) / n) @ x`), or transform outside the "
               "function and pass the result in",
    "np.polyval": "Horner's rule in a loop: `y = 0.0` then `for c in p: y = y * x + c`",
    "np.vectorize": "a loop over the elements (converted to a graph loop), or NumPy "
                    "expressions on the whole array",
    "np.apply_along_axis": "a loop over the other axis (`for row in x:`), converted to a "
                           "graph loop",
    "np.frompyfunc": "a loop over the elements (converted to a graph loop)",
    "np.piecewise": "np.where(condition, f(x), g(x)), nested for several pieces",
    "np.select": "nested np.where(condition, choice, default)",
    "np.gradient": "differences of slices: `(x[2:] - x[:-2]) / (2 * h)` inside, np.diff at "
                   "the edges",
}

_SEE_ALSO = ("compute it outside the function and pass the result in, or use the NumPy "
             "functions graphs compute (docs/numpy.md)")


def unsupported_function(func):
    """The refusal of a NumPy function with no handler: its name, and what to write
    instead (the user's line is added where the error reaches their code)."""
    name = numpy_name(func)
    alternative = next((text for key, text in ALTERNATIVES.items()
                        if name == key or key.endswith(".") and name.startswith(key)), None)
    return TypeError("%s is not supported in graphs yet: %s" % (name, alternative or _SEE_ALSO))


def numpy_overload(func):
    """For a NumPy function graphs compute: the call that computes it also where tensors are
    nested in list or tuple arguments, or None. NumPy's dispatch looks only at the arguments
    its dispatcher names, so `np.array_equal(x.shape, y.shape)` with sizes known only when
    the graph runs would run NumPy's own code, which turns the failed conversion into
    False: converted code calls this instead (autograph's overloads)."""
    try:
        handler = HANDLERS.get(func)
    except TypeError:   # (unhashable)
        return None
    if handler is None:
        return None

    def call(*args, **kwargs):
        if holds_symbolic(args) or holds_symbolic(kwargs):
            return handler(*args, **kwargs)
        return func(*args, **kwargs)
    call.__name__ = call.__qualname__ = getattr(func, "__name__", "numpy_function")
    return call


def apply_function(func, args, kwargs):
    handler = HANDLERS.get(func)
    if handler is None:
        raise unsupported_function(func)
    return handler(*args, **kwargs)


_UFUNC_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.minimum: np.min,
                 np.maximum: np.max, np.logical_and: np.all, np.logical_or: np.any}


# ufunc methods beyond __call__, reduce and accumulate, declared by the families:
# "at" -> handler(ufunc, *inputs, **kwargs).
UFUNC_METHODS = {}


def apply_ufunc(ufunc, method, inputs, kwargs):
    name = "np.%s" % ufunc.__name__
    if method == "reduce" and ufunc in _UFUNC_REDUCE and set(kwargs) <= {
            "axis", "keepdims", "dtype", "out"}:
        out = kwargs.get("out")
        return _reduce(_UFUNC_REDUCE[ufunc], inputs[0], kwargs.get("axis", 0),
                       kwargs.get("dtype"), kwargs.get("keepdims", False),
                       out=out[0] if isinstance(out, tuple) and len(out) == 1 else out)
    if method == "accumulate" and ufunc in (np.add, np.multiply) and set(kwargs) <= {
            "axis", "dtype", "out"}:
        fn = np.cumsum if ufunc is np.add else np.cumprod
        out = kwargs.get("out")
        return HANDLERS[fn](inputs[0], axis=kwargs.get("axis", 0), dtype=kwargs.get("dtype"),
                            out=out[0] if isinstance(out, tuple) and len(out) == 1 else out)
    if method in UFUNC_METHODS:
        return UFUNC_METHODS[method](ufunc, *inputs, **kwargs)
    if method != "__call__":
        raise not_supported("%s.%s" % (name, method))
    extra = dict(kwargs)
    out = extra.pop("out", None)   # (NumPy hands it over as a tuple, one entry per output)
    where = extra.pop("where", True)
    if isinstance(where, (bool, np.bool_)):
        where = bool(where)
    if out is None and where is not True:
        raise not_supported("%s(..., where=) without out= (NumPy leaves the other elements "
                            "of its result uninitialised)" % name)
    if ufunc is np.matmul:
        if extra:
            raise not_supported("np.matmul(..., %s=)" % ", ".join(extra))
        operands, checked = list(inputs), {}
        results = wrap(ops.get("matmul").bind(operands))
        core = builtins.sum(1 for x in inputs if np.ndim(x) >= 2)   # (the result's core dims)
    else:
        op = UFUNC_OPS.get(ufunc)
        if op is None:
            raise not_supported(name)
        dtype = extra.pop("dtype", None)
        if extra:
            raise not_supported("%s(..., %s=)" % (name, ", ".join(sorted(extra))))
        # (NEP 50: Python scalars the graph holds are weak next to NumPy values, as in
        # Python.)
        values = _weak(op.name, inputs)
        checked = {}
        if dtype is not None:
            values = _loop_operands(ufunc, values, np.dtype(dtype))
            checked = {"dtype": dtype}
        operands = values
        results = wrap(op.bind(values))
        core = 0
    if out is None:
        return results
    results = results if isinstance(results, tuple) else (results,)
    targets = _targets("%s(..., out=)" % name, out)
    if where is not True:
        checked["where"] = where
    _numpy_checks(ufunc, *operands, out=targets, **checked)
    written = tuple(result if target is None else _write(name, target, result, where, core)
                    for target, result in zip(targets, results))
    return written[0] if len(written) == 1 else written


def _weak(name, operands):
    """The Values of the operands of `name` (a ufunc's op, np.where's choices, np.clip's
    operands), the Python numbers the graph holds among them weak next to NumPy values
    (NEP 50, as in Python: np.where(c, t, x_float32) is float32 for a Python float t)."""
    return path_kinds.as_weak(name, [ops.to_value(x) for x in operands], tensor._bind)


def _loop_operands(ufunc, values, dtype):
    """The Values `values` cast to the input dtypes of the loop NumPy runs for
    `ufunc(..., dtype=dtype)`, which computes in that dtype (np.add(int8s, int8s,
    dtype=np.int16) adds in int16), with NumPy's error where it refuses the casts."""
    descriptors = tuple(type(v.literal) if v.is_literal and v.weak else v.dtype
                        for v in values)
    try:
        loop = ufunc.resolve_dtypes(descriptors + (None,) * ufunc.nout,
                                    signature=(None,) * ufunc.nin + (dtype,) * ufunc.nout)
    except TypeError as error:
        raise errors.mark_python_error(error)
    return [v if v.dtype == d else ops.to_value(cast(v, d)) for v, d in zip(values, loop)]


# --- out= -----------------------------------------------------------------------------------
# NumPy's out= writes a result into an array the caller holds. In a graph that array is a
# symbolic one (an argument, an array of the function's state, one the function made), and
# the write is the item assignment `out[...] = result` (runtime/tensor.py): its aliases and
# views see the new contents, and an argument or an array of the state is written back
# after the call (runtime/trace.py, runtime/state_guards.py). The inputs are Values read
# before the write, so an out overlapping an input (np.add(x[1:], x[:-1], out=x[1:])) gives
# NumPy's result, which buffers overlapping operands. NumPy's own checks (may the result be
# cast to out's dtype, does out have a rank that fits, is out an array at all) run on
# stand-ins of the operands (_numpy_checks); the sizes are checked here, when the graph
# runs where they are not known while tracing.

def _targets(call, out):
    """The entries of `out=` (an array, or a tuple with one per output, None asking for a
    new array) of `call` (for messages: "np.add(..., out=)"). A NumPy array there is a
    constant of the trace, which a graph cannot change: refused."""
    targets = out if isinstance(out, tuple) else (out,)
    for target in targets:
        if isinstance(target, np.ndarray):
            raise TypeError(
                "%s writes into a NumPy array that the graph holds as a constant, "
                "and a graph cannot change a constant: out must be an argument, an array the "
                "function made, or an array of the function's state that the graph takes as "
                "an input (not where it refused the state as inputs, nor with rt.function)"
                % call)
    return targets


def _stand_in(x):
    """What NumPy sees in place of `x` when it checks a call on stand-ins: a tiny array of
    a tensor's dtype and rank (runtime/ops/inference.py), a NumPy scalar for a tensor that
    is one, a Python scalar for the Python numbers the graph holds (weak, as in Python),
    tuples item by item; anything else as it is."""
    if isinstance(x, tuple):
        return tuple(_stand_in(item) for item in x)
    if isinstance(x, np.ndarray) or isinstance(x, list) and not holds_symbolic(x):
        x = np.asarray(x)   # (a constant: of its dtype and rank, as tensors)
        return np.ones((1,) * x.ndim, x.dtype) if x.ndim else x
    if isinstance(x, Tensor):
        if not x.ndim and not is_ndarray(x):
            value = x._value
            return value.literal if value.is_literal else value.dtype.type(1)
        x = x._value
    if not isinstance(x, Value):
        return x
    if not x.shape and not x.is_literal and path_kinds.is_python(x):
        return x.dtype.type(1).item()
    return ops.dummy(x)


def _numpy_checks(fn, *args, **kwargs):
    """Calls `fn` on stand-ins of its arguments (_stand_in), so that NumPy raises the error
    it raises for their dtypes and ranks: a result it cannot cast to out= (the ufuncs'
    'same_kind' rule: a float result into an int array), an out of a rank that does not
    fit, a `where=` that is not boolean, an out that is not an array."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*_stand_in(args), **{k: _stand_in(v) for k, v in kwargs.items()})
        except (TypeError, ValueError) as error:
            raise errors.mark_python_error(error) from None


def _write(name, target, result, where=True, exact=0):
    """Writes `result` into the symbolic array `target` as NumPy's out= does (the caller
    ran _numpy_checks): cast to target's dtype, broadcast to its shape (the last `exact`
    dims must be equal instead: a reduction's, a matmul's core dims), where `where` is true
    (target keeps its values elsewhere). Returns `target`."""
    result = result if result.dtype == target.dtype else cast(result, target.dtype)
    shapes = [result.static_shape] + ([np.shape(where)] if not isinstance(where, Tensor)
                                      else [where.static_shape])
    combined = ops.broadcast_shapes(target.static_shape, *shapes)
    if len(combined) != target.ndim or builtins.any(
            t is not None and c is not None and t != c
            for t, c in zip(target.static_shape, combined)):
        raise errors.mark_python_error(ValueError(
            "non-broadcastable output operand with shape %s doesn't match the broadcast "
            "shape %s" % (_shape_text(target.static_shape), _shape_text(combined))))
    _check_exact_dims(name, target, result, exact)
    if where is False:
        return target
    if where is not True:
        result = Tensor(ops.get("where").bind1([where, result, Tensor(target._value)]))
    target[...] = result
    return target


def _check_exact_dims(name, target, result, exact):
    """The last `exact` dims of `result` and `target` must be equal (NumPy's ValueError):
    checked now where both are known, when the graph runs where one is not."""
    unknown = []
    for axis in range(-exact, 0):
        t, r = target.static_shape[axis], result.static_shape[axis]
        if t is None or r is None:
            unknown.append(axis)
        elif t != r:
            unknown = None
            break
    message = "%s(..., out=): out has shape %s but the result has shape %s"
    if unknown is None:
        raise errors.mark_python_error(ValueError(message % (
            name, _shape_text(target.static_shape), _shape_text(result.static_shape))))
    if not unknown:
        return
    out_template, out_dims = _shape_template(target.shape)
    result_template, result_dims = _shape_template(result.shape)
    error = ValueError(format_text("%", message % (name, out_template, result_template),
                                   out_dims + result_dims))
    same = None
    for axis in unknown:
        equal = ops.get("equal").bind1([target.shape[axis], result.shape[axis]])
        same = equal if same is None else ops.get("logical_and").bind1([same, equal])
    Raise(error, unless=Tensor(same))


def _shape_template(shape):
    """("(%s, %s)", sizes): a shape as NumPy writes it, to format with `%` (its symbolic
    sizes are filled when the graph runs)."""
    return "(%s)" % (", ".join(["%s"] * len(shape)) + ("," if len(shape) == 1 else "")), \
        tuple(shape)


def _shape_text(shape):
    """A shape as NumPy writes it, `?` for a size not known while tracing."""
    return str(tuple("?" if d is None else d for d in shape)).replace("'", "")


def implements(*funcs):
    def register(handler):
        for func in funcs:
            HANDLERS[func] = handler
        return handler
    return register


# ndarray methods and attributes tensors have beyond the ones rt.Tensor defines itself:
# name -> (function of the tensor, is it a property).
ATTRIBUTES = {}


def method(name):
    """Declare `x.<name>(...)` on tensors: the decorated function, called with x first."""
    def register(function):
        ATTRIBUTES[name] = (function, False)
        return function
    return register


def attribute(name):
    """Declare the attribute `x.<name>` on tensors: the decorated function of x."""
    def register(function):
        ATTRIBUTES[name] = (function, True)
        return function
    return register


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) for a in axis)
    if isinstance(axis, Tensor):
        raise TypeError("axis must be a Python int in graphs, not a tensor")
    return int(axis)


def _dtype(dtype):
    return None if dtype is None else np.dtype(dtype)


# --- reductions -----------------------------------------------------------------------------

def _reduce(fn, a, axis=None, dtype=None, keepdims=False, out=None, **extra):
    if out is not None:
        options = dict(axis=axis, keepdims=keepdims)
        if fn in _LOOP_UFUNCS:
            options["dtype"] = dtype
        return _reduce_into(fn, out, a, **options)
    attrs = dict(axis=_axis(axis), keepdims=bool(keepdims))
    if fn in (np.sum, np.prod, np.mean, np.std, np.var):
        attrs["dtype"] = _dtype(dtype)
    elif dtype is not None:
        raise not_supported("np.%s(..., dtype=)" % fn.__name__)
    attrs.update(extra)
    return Tensor(REDUCTIONS[fn].bind1([a], **attrs))


# The reductions whose loop NumPy picks with out's dtype among the operands (np.sum of
# float32 into a float64 out adds in float64); the others give the same values whatever the
# loop, then cast.
_LOOP_UFUNCS = {np.sum: np.add, np.prod: np.multiply, np.cumsum: np.add,
                np.cumprod: np.multiply}


def _reduce_into(fn, out, a, **kwargs):
    """np.<fn>(a, ..., out=out) (a reduction, an arg-reduction or a cumulative one): the
    result as NumPy computes it there (in the dtype of its loop with out, unless dtype=
    says), cast to out's dtype as NumPy casts it (unsafely: np.sum(floats, out=ints)
    truncates), of exactly out's shape."""
    name = "np.%s" % fn.__name__
    _targets("%s(..., out=)" % name, out)
    _numpy_checks(fn, a, out=out, **kwargs)
    target, = out if isinstance(out, tuple) else (out,)
    ufunc = _LOOP_UFUNCS.get(fn)
    if ufunc is not None and kwargs.get("dtype") is None:
        kwargs["dtype"] = ufunc.resolve_dtypes(
            (target.dtype, ops.to_value(a).dtype, None), reduction=True, casting="unsafe")[2]
    result = HANDLERS[fn](a, **kwargs)
    return _write(name, target, result, exact=result.ndim)


def _given(value):
    return value is not _NOVALUE and value is not None


_HAS_DTYPE = (np.sum, np.prod, np.mean, np.std, np.var)


def masked_reduce(fn, a, axis=None, dtype=None, out=None, keepdims=False,
                  initial=_NOVALUE, where=True, ddof=None):
    """np.<fn>(a, ..., initial=, where=) as NumPy computes it (one call of it when the graph
    runs: runtime/ops/statistics.py); NumPy's own errors for the dtypes and ranks (a max
    with where= and no initial) while tracing. The reductions' handlers call it when
    either argument is given."""
    name = "np.%s" % fn.__name__
    if isinstance(where, (bool, np.bool_)):
        where = bool(where)
    if isinstance(initial, Tensor):
        raise not_supported("%s(..., initial=) with a tensor as initial value" % name)
    options = dict(axis=_axis(axis), keepdims=bool(keepdims))
    if fn in _HAS_DTYPE:
        options["dtype"] = _dtype(dtype)
    if ddof is not None:
        options["ddof"] = ddof
    if initial is not _NOVALUE:
        options["initial"] = initial
    if out is not None:
        return _reduce_into(fn, out, a, where=where, **options)
    _numpy_checks(fn, a, where=where, **options)
    return Tensor(MASKED[fn].bind1([a, where], **options))



@implements(np.sum)
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    if _given(initial) or _given(where):
        return masked_reduce(np.sum, a, axis, dtype, out, keepdims, initial, _where(where))
    return _reduce(np.sum, a, axis, dtype, keepdims, out)


@implements(np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    if _given(initial) or _given(where):
        return masked_reduce(np.prod, a, axis, dtype, out, keepdims, initial, _where(where))
    return _reduce(np.prod, a, axis, dtype, keepdims, out)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NOVALUE):
    _check_unsupported("np.mean", out=out)
    if _given(where):
        return masked_reduce(np.mean, a, axis, dtype, None, keepdims, where=where)
    return _reduce(np.mean, a, axis, dtype, keepdims)


@implements(np.min, np.amin)
def min(a, axis=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    if _given(initial) or _given(where):
        return masked_reduce(np.min, a, axis, None, out, keepdims, initial, _where(where))
    return _reduce(np.min, a, axis, None, keepdims, out)


@implements(np.max, np.amax)
def max(a, axis=None, out=None, keepdims=False, initial=_NOVALUE, where=_NOVALUE):
    if _given(initial) or _given(where):
        return masked_reduce(np.max, a, axis, None, out, keepdims, initial, _where(where))
    return _reduce(np.max, a, axis, None, keepdims, out)


@implements(np.any)
def any(a, axis=None, out=None, keepdims=False, *, where=_NOVALUE):
    if _given(where):
        return masked_reduce(np.any, a, axis, None, out, keepdims, where=where)
    return _reduce(np.any, a, axis, None, keepdims, out)


@implements(np.all)
def all(a, axis=None, out=None, keepdims=False, *, where=_NOVALUE):
    if _given(where):
        return masked_reduce(np.all, a, axis, None, out, keepdims, where=where)
    return _reduce(np.all, a, axis, None, keepdims, out)


def _moment(fn):
    """np.std / np.var: ddof, dtype, keepdims; where= computed by NumPy (masked_reduce)."""
    name = "np.%s" % fn.__name__

    def handler(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
                where=_NOVALUE, **kw):
        _check_unsupported(name, out=out, **kw)
        if _given(where):
            return masked_reduce(fn, a, axis, dtype, None, keepdims, where=where, ddof=ddof)
        return _reduce(fn, a, axis, dtype, keepdims, ddof=ddof)
    handler.__name__ = fn.__name__
    return handler


std = implements(np.std)(_moment(np.std))
var = implements(np.var)(_moment(np.var))


def _where(where):
    return True if where is _NOVALUE else where


def _arg(fn):
    def handler(a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            return _reduce_into(fn, out, a, axis=axis, keepdims=keepdims)
        if axis is not None:
            axis = int(axis)
        return Tensor(ARG_REDUCTIONS[fn].bind1([a], axis=axis, keepdims=bool(keepdims)))
    return handler


argmin = implements(np.argmin)(_arg(np.argmin))
argmax = implements(np.argmax)(_arg(np.argmax))


def cumulative(fn):
    def handler(a, axis=None, dtype=None, out=None):
        if out is not None:
            return _reduce_into(fn, out, a, axis=axis, dtype=dtype)
        return Tensor(CUMULATIVE[fn].bind1([a], axis=None if axis is None else int(axis),
                                           dtype=_dtype(dtype)))
    return handler


cumsum = implements(np.cumsum)(cumulative(np.cumsum))
cumprod = implements(np.cumprod)(cumulative(np.cumprod))


def _array(value):
    """A handle on `value` that is an ndarray also at rank 0, as what np.where, np.copy,
    np.zeros_like... return: a 0-d array is written in place by `+=` (its aliases see it)
    and returned as a 0-d array, where a NumPy scalar is rebound."""
    return mark_ndarray(Tensor(value))


# --- elementwise helpers --------------------------------------------------------------------

@implements(np.where)
def where(condition, x=_NOVALUE, y=_NOVALUE):
    if x is _NOVALUE and y is _NOVALUE:
        _numpy_checks(np.where, condition)   # (NumPy's ValueError for a 0-d condition)
        return HANDLERS[np.nonzero](condition)
    if x is _NOVALUE or y is _NOVALUE:
        raise ValueError("either both or neither of x and y should be given")
    return _array(ops.get("where").bind1([condition] + _weak("where", [x, y])))


@implements(np.clip)
def clip(a, a_min=_NOVALUE, a_max=_NOVALUE, out=None, *, min=_NOVALUE, max=_NOVALUE, **kwargs):
    _check_unsupported("np.clip", **kwargs)
    low = a_min if a_min is not _NOVALUE else (None if min is _NOVALUE else min)
    high = a_max if a_max is not _NOVALUE else (None if max is _NOVALUE else max)
    if low is None and high is None:
        result = copy(a)
    elif high is None:
        result = Tensor(ops.get("clip_min").bind1(_weak("clip", [a, low])))
    elif low is None:
        result = Tensor(ops.get("clip_max").bind1(_weak("clip", [a, high])))
    else:
        result = Tensor(ops.get("clip").bind1(_weak("clip", [a, low, high])))
    if out is None:
        return result
    # (NumPy's clip is the ufunc np.clip: its result cast to out as a ufunc's, 'same_kind'.)
    _targets("np.clip(..., out=)", out)
    _numpy_checks(np.clip, a, low, high, out=out)
    target, = out if isinstance(out, tuple) else (out,)
    return _write("np.clip", target, result)


@implements(np.round, np.around)
def round(a, decimals=0, out=None):
    _check_unsupported("np.round", out=out)
    return Tensor(ops.get("round").bind1([a], decimals=int(decimals)))


# --- products -------------------------------------------------------------------------------

@implements(np.dot)
def dot(a, b, out=None):
    if out is not None:
        # (NumPy wants out of exactly the result's dtype and shape, and C-contiguous: of
        # the arrays a graph gets, it cannot tell which are.)
        raise not_supported("np.dot(..., out=) (write `out[...] = np.dot(a, b)`, or use "
                            "np.matmul(a, b, out=out))")
    return Tensor(ops.get("dot").bind1([a, b]))


# --- shapes ---------------------------------------------------------------------------------

def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise not_supported("np.reshape(..., order=%r)" % order)
    if copy:
        raise not_supported("np.reshape(..., copy=True)")
    if shape is None:
        shape = newshape
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    template, dynamic = [], []
    for d in shape:
        if isinstance(d, (int, np.integer)):
            template.append(int(d))
        else:
            template.append(None)
            dynamic.append(ops.to_value(d))

    return _reshape_view(a, lambda b: Tensor(ops.get("reshape").bind1(
        [b] + dynamic, newshape=tuple(template))), dynamic)


HANDLERS[np.reshape] = reshape


# np.transpose, np.swapaxes, np.expand_dims and np.squeeze make views whatever the layout:
# their results follow the base, and writes to them write the base (runtime/tensor.py
# make_view), each written back by the inverse op.

def _tensor(a):
    return a if isinstance(a, Tensor) else mark_ndarray(Tensor(ops.to_value(a)))


def _permuted(a, axes):
    return Tensor(ops.get("transpose").bind1([a], axes=axes))


@implements(np.transpose)
def transpose(a, axes=None):
    a = _tensor(a)
    if axes is not None:
        axes = tuple(int(x) for x in axes)
        _permuted(a, axes)   # (NumPy's errors for `axes`, before the inverse is taken)
        axes = tuple(x % a.ndim for x in axes)
    inverse = None if axes is None else tuple(int(i) for i in np.argsort(axes))
    result = tensor.make_view(a, lambda b: _permuted(b, axes),
                              lambda b, region: _permuted(region, inverse))
    # (A 0-d array stays one; a NumPy scalar stays a scalar.)
    return mark_ndarray(result) if is_ndarray(a) else result


@implements(np.swapaxes)
def swapaxes(a, axis1, axis2):
    axis1, axis2 = int(axis1), int(axis2)

    def swapped(b):
        return Tensor(ops.get("swapaxes").bind1([b], axis1=axis1, axis2=axis2))
    return tensor.make_view(_tensor(a), swapped, lambda b, region: swapped(region))


@implements(np.expand_dims)
def expand_dims(a, axis):
    a = _tensor(a)
    axis = tuple(int(x) for x in axis) if isinstance(axis, (tuple, list)) else (int(axis),)
    result = tensor.make_view(
        a, lambda b: Tensor(ops.get("expand_dims").bind1([b], axis=axis)),
        lambda b, region: Tensor(ops.get("squeeze").bind1([region], axis=added)))
    added = tuple(x % result.ndim for x in axis)
    return result


@implements(np.squeeze)
def squeeze(a, axis=None):
    value = ops.to_value(a)
    axes = squeeze_axes(value.shape, axis if not isinstance(axis, list) else tuple(axis))
    if isinstance(a, Tensor) and is_ndarray(a) and a.ndim:
        # (An array squeezed to rank 0 is a 0-d array.)
        return tensor.make_view(
            a, lambda b: mark_ndarray(Tensor(ops.get("squeeze").bind1([b], axis=axes))),
            lambda b, region: Tensor(ops.get("expand_dims").bind1([region], axis=axes)))
    result = Tensor(ops.get("squeeze").bind1([value], axis=axes))
    # (A NumPy scalar stays a scalar.)
    return mark_ndarray(result) if not isinstance(a, Tensor) else result


def _contiguous(value):
    """Is `value` known C-contiguous when the graph runs: made by an op that makes a new
    array, or a constant that is? (The layout of an input, or of a view, is not known.)"""
    node = value.node
    if node is None or node.op.control_flow or node.op.is_view(node):
        return False
    if node.op.name == "constant":
        return node.attrs["value"].flags.c_contiguous
    return True


def _reshape_view(a, compute, values=()):
    """np.reshape / np.ravel give a view of a C-contiguous array and a copy of another: a
    write into the result writes `a` where the graph knows `a` is contiguous, and is refused
    where it does not know (an argument's layout is the caller's)."""
    a = _tensor(a)
    if _contiguous(a._value):
        return tensor.make_view(a, compute, lambda b, region: reshape(region, b.shape),
                                values=values)
    return tensor.make_view(a, compute, None, refusal=lambda: TypeError(_LAYOUT),
                            values=values)


_LAYOUT = ("a write into the result of a reshape or ravel of an array whose memory layout "
           "the graph does not know (an argument, state, or a view): NumPy writes into the "
           "original array only when it is contiguous. Write into the original array "
           "itself, or reshape a copy (`a.copy().reshape(...)`)")


@implements(np.ravel)
def ravel(a, order="C"):
    if order != "C":
        raise not_supported("np.ravel(..., order=%r)" % order)

    return _reshape_view(a, lambda b: Tensor(ops.get("ravel").bind1([b])))


@implements(np.copy)
def copy(a, order="K", subok=False):
    if order not in ("K", "A", "C", "F"):
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % (order,))
    if order == "A":   # (F where the input is F-contiguous, as 'K' for the arrays a graph has)
        order = "K"
    return _array(ops.get("copy").bind1([a], **({} if order == "K" else {"order": order})))


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    _targets("np.copyto(dst, ...)", dst)
    if isinstance(where, (bool, np.bool_)):
        where = bool(where)
    _numpy_checks(np.copyto, dst, src, casting=casting, where=where)
    _write("np.copyto", dst, Tensor(ops.to_value(src)), where)


def _join(fn, arrays, axis, dtype, casting):
    """np.concatenate or np.stack (`fn`) of `arrays`: NumPy's errors for their ranks, the
    axis and the casting to dtype (on stand-ins, and for sizes that do not match), each
    array cast to dtype as NumPy casts it (not their common dtype first)."""
    # (A list holding tensors is the array NumPy would make of it.)
    arrays = [Tensor(ops.to_value(a)) if isinstance(a, (list, tuple)) and holds_symbolic(a)
              else a for a in arrays]
    _numpy_checks(fn, tuple(arrays), axis=axis, dtype=dtype, casting=casting)
    if dtype is not None:
        arrays = [cast(a, dtype) for a in arrays]
    try:
        return Tensor(ops.get(fn.__name__).bind1(arrays, axis=None if axis is None
                                                  else int(axis)))
    except ValueError as error:
        raise errors.mark_python_error(error) from None


@implements(np.concatenate)
def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _check_unsupported("np.concatenate", out=out)
    return _join(np.concatenate, arrays, axis, dtype, casting)


@implements(np.append)
def append(arr, values, axis=None):
    if axis is None:
        return concatenate((ravel(arr), ravel(values)))
    return concatenate((arr, values), axis=axis)


@implements(np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _check_unsupported("np.stack", out=out)
    return _join(np.stack, arrays, axis, dtype, casting)


@implements(np.shape)
def shape(a):
    return a.shape if isinstance(a, Tensor) else np.shape(a)


@implements(np.size)
def size(a, axis=None):
    if axis is None:
        return a.size
    return a.shape[int(axis)]


@implements(np.ndim)
def ndim(a):
    return a.ndim


# --- creation -------------------------------------------------------------------------------

def _like(name):
    op = ops.get(name)

    def handler(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        if shape is not None:
            raise not_supported("np.%s(..., shape=)" % name)
        return _array(op.bind1([a], dtype=_dtype(dtype)))
    return handler


zeros_like = implements(np.zeros_like)(_like("zeros_like"))
ones_like = implements(np.ones_like)(_like("ones_like"))
empty_like = implements(np.empty_like)(_like("empty_like"))


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if shape is not None:
        raise not_supported("np.full_like(..., shape=)")
    return _array(ops.get("full_like").bind1([a, fill_value], dtype=_dtype(dtype)))


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    if retstep or axis != 0:
        raise not_supported("np.linspace(..., retstep=/axis=)")
    return Tensor(ops.get("linspace").bind1([start, stop, num], endpoint=bool(endpoint),
                                            dtype=_dtype(dtype)))


tensor.use_numpy_api(sys.modules[__name__])

# The families beyond the core above (this package's modules: sorting.py, linalg.py, ...)
# register their handlers on import.
for _family in pkgutil.iter_modules(__path__):
    importlib.import_module("%s.%s" % (__name__, _family.name))
