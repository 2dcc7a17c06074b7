"""Public runtime functions that work eagerly (NumPy values in, NumPy values out) and in a
trace (recording graph ops): constant, range, zeros/ones/empty/full, shape, print, Raise,
Assert, and texts formatted when the graph runs (format_text)."""

import builtins
import operator
import sys

import numpy as np

from runtime import ops, path_kinds
from runtime.ops import creation as _creation, elementwise as _elementwise
from runtime.graph import current_graph, literal
from runtime.conditionals import kind_tag
from runtime.markers import SLOT, KindSlot
from runtime.ops.state import ExceptionTemplate, Text
from runtime.tensor import (Tensor, as_python_scalar, cast as _cast, is_ndarray,
                            is_python_scalar, is_tensor, mark_ndarray)


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
        # (An array also of shape (): a 0-d array, written in place by `+=` and out=.)
        return mark_ndarray(Tensor(ops.get(name).bind1(dynamic, shape=template, dtype=dtype)))
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
    return mark_ndarray(Tensor(ops.get("full").bind1(
        [fill_value] + dynamic, shape=template, dtype=None if dtype is None else np.dtype(dtype))))


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


def range_length(start, stop, step, too_long=_creation.INT64_MAX):
    """len(range(start, stop, step)) of int64 scalars (tensors or ints) in a trace, as an
    int64 scalar tensor: exact where Python's is at most int64's max (computing
    `stop - start` in int64 would wrap), `too_long` where it is more. A step of 0 is the
    caller's to refuse."""
    return Tensor(ops.get("range_length").bind1([start, stop, step], too_long=too_long))


def range_item(start, step, index):
    """start + index * step of int64 scalars in a trace, the item at `index` (below the
    length) of range(start, stop, step), as a Python int: exact, where the product alone
    passes int64's range (a range of more than 2**63 numbers)."""
    return as_python_scalar(Tensor(ops.get("range_item").bind1([start, step, index])))


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


def _is_symbolic(v):
    from runtime.variables import Variable
    return is_tensor(v) or (isinstance(v, Variable) and current_graph() is not None)


def holds_symbolic(value):
    """True when `value` is symbolic, or a Text, tuple, list or dict holding a symbolic
    value (what rt.print, rt.Raise and format_text format when the graph runs)."""
    if _is_symbolic(value) or type(value) is Text:
        return True
    kind = type(value)
    if kind is tuple or kind is list:
        return builtins.any(holds_symbolic(item) for item in value)
    if kind is dict:
        return builtins.any(holds_symbolic(item) for item in value.values())
    return False


def _kind_tag(value):
    """For a value whose kind depends on the path (runtime/path_kinds.py), the Value saying
    which kind it has when the graph runs; None for others. A TypeError when the graph
    cannot say."""
    if not is_tensor(value):
        return None
    found = path_kinds.mixed(value._value)
    if found is None:
        return None
    tag = kind_tag(value._value, is_ndarray(value)) if found.tag is not None else None
    if tag is None:
        raise TypeError(path_kinds.refusal(value._value, "a value printed or formatted"))
    return tag


def _template(value, operands):
    """`value` as op attributes hold it: its symbolic values (appended to `operands`) are
    SLOTs, in Texts, tuples, lists and dicts (copied: later changes do not show)."""
    if _is_symbolic(value):
        operands.append(value)
        tag = _kind_tag(value)
        if tag is None:
            if not is_python_scalar(value):
                return SLOT
            # (A Python number argument, a range item: shown as the Python scalar it is.)
            code = path_kinds.code_of(path_kinds.kind_of(value._value))
            tag = literal(np.int8(code))
        operands.append(Tensor(tag))
        return KindSlot(path_kinds.kinds_by_code(), path_kinds.as_shown)
    kind = type(value)
    if kind is Text:
        return Text(value.style, value.template, _template(value.args, operands),
                    _template(value.kwargs, operands))
    if kind is tuple or kind is list:
        return kind(_template(item, operands) for item in value)
    if kind is dict:
        return {key: _template(item, operands) for key, item in value.items()}
    return value


def format_text(style, template, args, kwargs=None):
    """`template.format(*args, **kwargs)` (style "format") or `template % args` (style
    "%"): the str now when no argument is symbolic, else a Text formatted when the graph
    runs, from the NumPy values, as Python formats them."""
    kwargs = kwargs or {}
    if holds_symbolic(args) or holds_symbolic(kwargs):
        return Text(style, template, args, kwargs)
    if style == "%":
        return template % args
    return template.format(*args, **kwargs)


def _stream(file):
    """The name of the sys stream `file` is (print's file argument, None: stdout): a graph
    looks the stream up when it runs, so later redirections are seen."""
    if file is None or file is sys.stdout:
        return "stdout"
    if file is sys.stderr:
        return "stderr"
    raise TypeError("print(..., file=%r) in a graph: a graph prints when it runs, to "
                    "sys.stdout or sys.stderr only; print to another file outside the "
                    "staged function" % (file,))


def print(*values, sep=" ", end="\n", file=None):
    """print(*values) — when the graph runs if tracing (to the sys.stdout, or sys.stderr,
    of that moment: values held by tensors, also in Texts, tuples, lists and dicts, are
    formatted exactly as print() formats their NumPy values; the text of the others is
    taken now)."""
    for name, text in (("sep", sep), ("end", end)):
        if text is not None and not isinstance(text, str):
            raise TypeError("%s must be None or a string, not %s" % (name, type(text).__name__))
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    if current_graph() is None and not builtins.any(holds_symbolic(v) for v in values):
        builtins.print(*values, sep=sep, end=end, file=file)
        return None
    stream = _stream(file)
    items, operands = [], []
    for v in values:
        items.append(_template(v, operands) if holds_symbolic(v) else builtins.str(v))
    ops.get("print").bind(operands, items=tuple(items), sep=sep, end=end, stream=stream)
    return None


def raised_when_run(exception, unless=None):
    """Records that the graph raises `exception` (an instance) when it runs, unless
    `unless` is true then, and returns True, where that is when it must be raised: in a
    trace's branch or loop body, or when its arguments or attributes hold symbolic values
    (filled when the graph runs: the exception raised then is a new one of the same type,
    arguments, attributes and cause). Returns False when it is up to the caller to raise
    it now: when not tracing, and at the top level of a trace (where nothing decides at
    run time whether the raise happens) when nothing in it is symbolic."""
    graph = current_graph()
    symbolic = holds_symbolic((exception.args, _attributes(exception)))
    if not (symbolic or is_tensor(unless)) and (graph is None or graph.parent is None):
        return False
    record_raise(exception, unless)
    return True


def record_raise(exception, unless=None, traceback=None):
    """Records in the graph being built that it raises `exception` when it runs, unless
    `unless` is true then; named by its node, or by `traceback` if given (see
    ExceptionTemplate)."""
    graph = current_graph()
    operands = [] if unless is None else [unless]
    template = ExceptionTemplate(type(exception), _template(exception.args, operands),
                                 _template(_attributes(exception), operands),
                                 exception.__cause__, exception.__suppress_context__,
                                 traceback)
    ops.get("raise").bind(operands, exception=template, conditional=unless is not None)
    if traceback is None:
        template.node = graph.nodes[-1]


def _attributes(exception):
    """The attributes of `exception`: its __dict__ and its slots (NumPy's AxisError keeps
    axis and ndim in slots, which its message reads)."""
    found = dict(vars(exception))
    for kind in type(exception).__mro__:
        slots = getattr(kind, "__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in found and not name.startswith("__") and hasattr(exception, name):
                found[name] = getattr(exception, name)
    return found


def Raise(exception, unless=None):
    """raise `exception` (an instance or a class), unless `unless` is true: now, or when
    the graph runs (see raised_when_run)."""
    if isinstance(exception, type):
        exception = exception()
    if not isinstance(exception, BaseException):
        raise TypeError("exceptions must derive from BaseException")
    if not raised_when_run(exception, unless) and not (unless is not None and np.all(unless)):
        raise exception
    return None


def none_unless(x, flag, description):
    """Records that tensor `x` is None where the bool tensor `flag` is false (a called
    function's result where it fell off its end: runtime/path_kinds.py; `description` says
    so in messages): an op on it raises Python's TypeError on those paths, returning or
    printing it gives None there, and is_none(x) tells. Returns `x`."""
    if is_tensor(flag):
        path_kinds.mark_maybe_none(x._value, flag._value, is_ndarray(x), description,
                                   lambda name, inputs: ops.get(name).bind1(inputs))
    return x


def is_none(x):
    """`x is None`: for a tensor that is None on some paths (none_unless), a bool tensor
    saying whether it is on the path the graph takes."""
    if not is_tensor(x):
        return x is None
    found = path_kinds.mixed(x._value)
    if found is None or path_kinds.NONE not in found.kinds:
        return False
    tag = kind_tag(x._value, is_ndarray(x))
    if tag is None:
        raise TypeError(path_kinds.refusal(x._value, "a value tested with `is None`"))
    result = ops.get("equal").bind1([tag, literal(
        np.int8(path_kinds.code_of(path_kinds.NONE)))])
    path_kinds.mark_python(result)
    return Tensor(result)


def _raise_where(exception, condition):
    """Records that the graph raises `exception` when it runs where the bool Value
    `condition` holds (runtime/path_kinds.py: Python raises it on that path)."""
    Raise(exception, unless=Tensor(ops.get("logical_not").bind1([condition])))


# The functions of Python's math module that graphs compute (rt.math_call).
MATH_FUNCTIONS = tuple(_elementwise.MATH_FUNCTIONS)


def math_call(x, name):
    """math.<name>(x) of a scalar tensor, computed when the graph runs by the math module
    itself (Numba's math on the numba backend): `name` one of MATH_FUNCTIONS. Domain
    errors are the caller's to check (autograph's overloads raise Python's)."""
    if name not in _elementwise.MATH_FUNCTIONS:
        raise ValueError("math.%s is not computed in graphs" % name)
    return Tensor(ops.get("math_call").bind1([x], name=name))


def make_complex(real, imag):
    """complex(real, imag) of two real scalars (tensors or numbers), its parts exactly
    these (as float64s): a complex128 scalar tensor."""
    parts = [_cast(v, np.float64) if is_tensor(v) else np.float64(v) for v in (real, imag)]
    return Tensor(ops.get("make_complex").bind1([ops.to_value(p) for p in parts]))


def round_scalar(x, ndigits=None):
    """round(x, ndigits) of a rank-0 tensor, as Python rounds what it stands for (a
    Python number: rt.is_python_scalar; else a NumPy scalar), half to even:

    - round(x): a Python int (int64 in the graph), also of a NumPy scalar; a float that
      is nan or infinite raises Python's ValueError or OverflowError when the graph runs
      (and one beyond int64's range an OverflowError: a graph's ints are int64s);
    - round(x, n) of a Python float: a Python float, correctly rounded as Python does
      (round(2.675, 2) is 2.67; op python_round); of a Python int or bool: a Python int
      (to a multiple of 10**-n for n < 0); of a NumPy scalar: np.round (its dtype).

    Arrays (0-d ones too), complex values and NumPy bools raise Python's TypeError; so do
    arguments Python refuses (round(x, 1.5))."""
    if is_ndarray(x):
        raise TypeError("type numpy.ndarray doesn't define __round__ method")
    python = is_python_scalar(x)
    if not python and path_kinds.mixed(x._value) is not None:
        raise TypeError(
            "round() of a value that is a Python number on some paths of the graph and a "
            "NumPy scalar on others: Python rounds them to different types (a float or a "
            "NumPy scalar); convert it first (float(x), or np.float64(x))")
    kind = x.dtype.kind
    stand_in = ({"b": bool, "i": int, "u": int, "f": float, "c": complex}[kind](0)
                if python else x.dtype.type(0))
    # (Python's own TypeError for a type without __round__ or an ndigits it refuses.)
    builtins.round(stand_in) if ndigits is None else builtins.round(stand_in, ndigits)
    if ndigits is None:
        if kind == "f":
            x = x.astype(np.float64) if x.dtype != np.float64 else x
            Raise(ValueError("cannot convert float NaN to integer"),
                  unless=np.logical_not(np.isnan(x)))
            Raise(OverflowError("cannot convert float infinity to integer"),
                  unless=np.logical_not(np.isinf(x)))
            Raise(OverflowError("round() of a float beyond int64's range in a graph (a "
                                "graph's ints are int64s)"),
                  unless=np.less(np.abs(x), 2.0 ** 63) | np.isinf(x) | np.isnan(x))
            x = _cast(np.rint(x), np.int64)
        elif x.dtype != np.int64:
            x = _cast(x, np.int64)
        return as_python_scalar(x)
    ndigits = operator.index(ndigits)
    if not python:
        return Tensor(ops.get("round").bind1([x], decimals=ndigits))
    if kind == "f":
        return as_python_scalar(Tensor(ops.get("python_round").bind1([x], ndigits=ndigits)))
    if kind == "b":
        return as_python_scalar(_cast(x, np.int64))
    if ndigits >= 0:
        return x
    if ndigits < -18:
        raise OverflowError("round() of a Python int to a multiple of 10**%d in a graph: "
                            "beyond int64's range (a graph's ints are int64s)" % -ndigits)
    unit = 10 ** -ndigits
    quotient = x // unit
    remainder = x - quotient * unit
    up = (remainder > unit // 2) | ((remainder == unit // 2) & (quotient % 2 == 1))
    return as_python_scalar((quotient + _cast(up, np.int64)) * unit)


def _raise_unless(exception, condition):
    """Records that the graph raises `exception` when it runs where the bool Value
    `condition` does not hold."""
    Raise(exception, unless=Tensor(condition))


path_kinds.use_raiser(_raise_where, _raise_unless)


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
