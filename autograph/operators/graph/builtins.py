"""Graph paths of the builtin overloads (print, len, range, ..., isinstance) and of assert."""

import builtins
import functools

import numpy as np

import runtime as rt
from autograph.operators.graph import common, iterables, lists


def print_(*objects, sep=" ", end="\n", file=None, flush=False):
    """print while tracing: prints when the graph runs (rt.print), every time it runs."""
    return rt.print(*[lists.stacked_if_list(o) for o in objects], sep=sep, end=end, file=file)


def assert_stmt(test, message_fn):
    """assert on a symbolic condition: rt.errors.AssertionFailedError when the graph runs
    and the condition is false, with the message (formatted then). The message is computed
    in a graph branch taken only then, as Python computes it only for a failing assert (so
    `assert n > 0, x[0]` does not read `x[0]` where n > 0)."""
    condition = common.is_truthy_scalar_tensor(test, "the condition of an assert statement")
    if message_fn is None:
        rt.Raise(rt.errors.AssertionFailedError(), unless=condition)
        return

    def failing():
        try:
            message = message_fn()
        except Exception as error:
            if not common.is_pythons_error(error):
                raise
            rt.Raise(error)   # (what computing the message raises, where it is computed)
            return None
        rt.Raise(rt.errors.AssertionFailedError(message))
        return None

    rt.cond(condition, lambda: None, failing)


def len_(value, *rest):
    if rest:
        raise TypeError("len() takes exactly one argument (%d given)" % (len(rest) + 1))
    if isinstance(value, iterables.SymbolicRange):
        return rt.as_python_scalar(value.length())   # (a Python int, as len's)
    if isinstance(value, iterables.SymbolicIterable):   # (enumerate, zip, reversed)
        raise TypeError("object of type '%s' has no len()"
                        % type(value).__name__[len("Symbolic"):].lower())
    if lists.is_tensor_list(value):
        return rt.as_python_scalar(value.loop_length())
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


def reversed_(sequence):
    return iterables.SymbolicReversed(sequence)


def abs_(value):
    # (Python's abs, not np.abs: of a Python bool it is an int, as the tensor's __abs__
    # says; of a Python number a Python number.)
    value = lists.stacked_if_list(value)
    if rt.is_python_scalar(value):
        return rt.as_python_scalar(builtins.abs(value if value.dtype != np.bool_
                                                else value.astype(np.int64)))
    return builtins.abs(value)


def _scalar(value, kind):
    if value.ndim != 0:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars "
                        "(%s() of %s)" % (kind, common.type_text(value)))
    return value


def int_(value, *rest):
    if rest:
        raise TypeError("int() with a base is not supported for symbolic values")
    value = _scalar(value, "int")
    if value.dtype.kind == "f":
        value = np.trunc(value)   # int() rounds toward zero, as the cast does; explicit anyway
    # (A Python int: weak next to NumPy values, divided by zero it raises: path_kinds.)
    return rt.as_python_scalar(value if value.dtype == np.int64 else value.astype(np.int64))


def _math_domain(name, x):
    """[(the error math.<name> raises, where x (float64) gives it)]: what Python's math
    module refuses, where NumPy and Numba's scalar math give nan or inf."""
    domain = ValueError("math domain error")
    if name == "sqrt":
        return [(domain, x < 0.0)]
    if name in ("log", "log2", "log10"):
        return [(domain, x <= 0.0)]
    if name == "log1p":
        return [(domain, x <= -1.0)]
    if name in ("asin", "acos"):
        return [(domain, np.abs(x) > 1.0)]
    if name in ("sin", "cos", "tan"):
        return [(domain, np.isinf(x))]
    if name in ("floor", "ceil", "trunc"):
        return [(ValueError("cannot convert float NaN to integer"), np.isnan(x)),
                (OverflowError("cannot convert float infinity to integer"), np.isinf(x))]
    return []


_MATH_RANGE = ("exp", "expm1", "sinh", "cosh")   # (OverflowError where the result is inf)


def math_function(name):
    """The graph path of math.<name> (a function of one float): the math module's own
    function when the graph runs (rt op math_call), Python's errors where it raises them,
    a Python float (int for floor/ceil/trunc, bool for isnan/isinf/isfinite)."""
    def graph_path(value):
        value = _scalar(lists.stacked_if_list(value), "math.%s" % name)
        if value.dtype.kind == "c":
            raise TypeError("must be real number, not complex")
        x = value if value.dtype == np.float64 else value.astype(np.float64)
        for error, bad in _math_domain(name, x):
            rt.Raise(error, unless=np.logical_not(bad))
        result = rt.math_call(x, name)
        if name in _MATH_RANGE:
            rt.Raise(OverflowError("math range error"),
                     unless=np.logical_not(np.isinf(result) & np.isfinite(x)))
        return rt.as_python_scalar(result)
    graph_path.__name__ = name
    return graph_path


def float_(value):
    value = _scalar(value, "float")
    return rt.as_python_scalar(value if value.dtype == np.float64 else value.astype(np.float64))


_NO_IMAG = object()   # (complex(x): no second argument; complex(x, None) is Python's error)


def complex_(real=0, imag=_NO_IMAG):
    """complex(real[, imag]) of symbolic values, as Python makes it: a Python complex. Of
    one value, that value as a complex; of two real ones, the complex with exactly these
    parts (rt.make_complex: a signed zero or an inf stays what it is). Python's own
    TypeError for what it refuses (strings with a second argument, arrays, objects)."""
    if isinstance(imag, (str, bytes)):
        raise TypeError("complex() second arg can't be a string")
    if imag is None:
        raise TypeError("complex() second argument must be a number, not 'NoneType'")
    real, imag = _complex_part(real), None if imag is _NO_IMAG else _complex_part(imag)
    if imag is None:
        value = real.astype(np.complex128) if rt.is_tensor(real) else np.complex128(real)
        return rt.as_python_scalar(value)
    if any(rt.is_tensor(part) and part.dtype.kind == "c" for part in (real, imag)):
        raise TypeError("complex(real, imag) with a complex symbolic argument is not "
                        "supported in graphs yet: write real + imag * 1j")
    for part in (real, imag):
        if not rt.is_tensor(part) and isinstance(part, (complex, np.complexfloating)):
            raise TypeError("complex(real, imag) with a complex argument is not supported "
                            "in graphs yet: write real + imag * 1j")
    return rt.as_python_scalar(rt.make_complex(real, imag))


def _complex_part(value):
    """An argument of complex() next to a symbolic one: a rank-0 symbolic value, or a
    Python or NumPy number (Python's TypeError for the rest, as complex() gives it)."""
    if rt.is_tensor(value) or lists.is_tensor_list(value):
        value = lists.stacked_if_list(value)
        if value.ndim:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        if value.dtype.kind not in "biufc":
            raise TypeError("complex() argument must be a string or a number, not 'numpy.%s'"
                            % value.dtype.name)
        return value
    if isinstance(value, (str, bytes)):
        raise TypeError("complex() can't take second arg if first is a string")
    builtins.complex(value)   # (Python's TypeError for what is no number)
    return value


def as_numpy_type(value, kind):
    """np.float64(x), np.int32(x), ... of a symbolic value: NumPy's cast of it."""
    return lists.stacked_if_list(value).astype(kind)


def bool_(value):
    return rt.as_python_scalar(common.is_truthy_scalar_tensor(value, "the argument of bool()"))


# Marks a `default` the caller did not pass.
_NO_DEFAULT = object()


def _extreme(name, better, reduce, pairwise):
    """min or max of symbolic values, as Python computes them: the first of the best
    candidates (by `key`), each later one replacing the best one only when `better`
    (strictly: a NaN never does). Python returns one of the candidates, whose type then
    depends on the values: candidates of different dtypes are refused. `pairwise`
    (np.minimum, np.maximum) gives the same value for integers and bools in one op: a
    measured win where users wait (tools/bench_workloads.py, edit_distance on the NumPy
    interpreter: 131 ms a call, 222 ms with a comparison and a select per candidate)."""
    builtin = getattr(builtins, name)

    def extreme(*args, key=None, default=_NO_DEFAULT):
        if not args:
            raise TypeError("%s expected at least 1 argument, got 0" % name)
        if len(args) > 1:
            if default is not _NO_DEFAULT:
                raise TypeError("Cannot specify a default for %s() with multiple positional "
                                "arguments" % name)
            return _best_of(name, better, pairwise, list(args), key)
        iterable = lists.stacked_if_list(args[0])
        if not rt.is_tensor(iterable):   # a Python iterable holding symbolic values
            candidates = list(iterable)
            if candidates:
                return _best_of(name, better, pairwise, candidates, key)
            if default is _NO_DEFAULT:
                return builtin(candidates)   # Python's error
            return default
        items = _scalar_items(iterable)
        count = items.shape[0]

        def best():
            if key is not None:
                return _best_item(name, better, items, key)
            if items.dtype.kind != "f":
                return reduce(items)
            # Python keeps a NaN it starts with, and skips the later ones.
            return common.select(np.isnan(items[0]), items[0], reduce(np.where(
                np.isnan(items), items[0], items)))

        if default is _NO_DEFAULT:
            rt.Raise(ValueError(_empty_message(builtin)), unless=np.greater(count, 0))
            return best()
        _same_dtypes(name, [items.dtype, _dtype_of(default)])
        return rt.cond(np.greater(count, 0), best, lambda: default,
                       names=["the value of %s()" % name])
    extreme.__name__ = name
    return extreme


def _empty_message(builtin):
    try:
        builtin([])
    except ValueError as error:
        return str(error)


def _dtype_of(value):
    return value.dtype if rt.is_tensor(value) else np.asarray(value).dtype


def _same_dtypes(name, dtypes):
    """Refuses candidates of different dtypes: Python's result would be one of them, so its
    type would depend on the values, and a graph value has one dtype."""
    dtypes = set(dtypes)
    if len(dtypes) > 1:
        raise TypeError(
            "%s() of values of different types (%s) in a graph: Python returns one of them, "
            "so the type of the result would depend on their values, and a graph value has "
            "one dtype; give them the same type (for example %s(x, 0.0) instead of "
            "%s(x, 0) for a float x)" % (name, ", ".join(sorted(str(d) for d in dtypes)),
                                         name, name))


def _best_of(name, better, pairwise, candidates, key):
    """The best of a Python list of candidates, some symbolic."""
    candidates = [lists.stacked_if_list(c) for c in candidates]
    _same_dtypes(name, [_dtype_of(c) for c in candidates])
    best = candidates[0]
    best_key = best if key is None else key(best)
    for candidate in candidates[1:]:
        if (key is None and candidate is not best and _is_symbolic_scalar(candidate, best)
                and _dtype_of(best).kind in "iub"):
            # No NaN, no signed zero: the same value as Python's, in one op, not two. (In
            # the call's order, as numba.njit reads it: edit_distance's min of three ran
            # in 226 us compiled with the operands swapped, 172 us so, njit 187 us.)
            best = pairwise(best, candidate)
            continue
        candidate_key = candidate if key is None else key(candidate)
        replaces = better(candidate_key, best_key)
        if candidate is best:
            continue   # (the comparison ran, as in Python; the result is the same object)
        if rt.is_tensor(replaces):
            replaces = common.is_truthy_scalar_tensor(replaces, "a comparison in %s()" % name)
            if _is_array(candidate) or _is_array(best):
                # Python returns that very array: writes into the result land in it (an
                # rt.cond output that is an earlier array on some path is a CondAlias).
                best, best_key = rt.cond(replaces, lambda: (candidate, candidate_key),
                                         lambda: (best, best_key), names=[name, "key"])
                continue
            best = common.select(replaces, candidate, best)
            best_key = best if key is None else common.select(replaces, candidate_key,
                                                              best_key)
        elif replaces:
            best, best_key = candidate, candidate_key
    if rt.is_tensor(best) and not rt.is_python_scalar(best) and all(
            _is_python_number(c) for c in candidates):
        return rt.as_python_scalar(best)   # (one of Python's numbers: a Python number)
    return best


def _is_python_number(value):
    return rt.is_python_scalar(value) if rt.is_tensor(value) else type(value) in (
        bool, int, float)


def _is_symbolic_scalar(a, b):
    """Is one of `a`, `b` symbolic, and neither an array?"""
    return (rt.is_tensor(a) or rt.is_tensor(b)) and not (_is_array(a) or _is_array(b))


def _is_array(value):
    """An ndarray (not a NumPy scalar) whose identity Python keeps through min and max."""
    return rt.is_tensor(value) and rt.is_ndarray(value)


def _best_item(name, better, items, key):
    """The best item of a symbolic 1-d array by `key`, called on each item as Python does
    (a graph loop over the items)."""
    first = items[0]
    first_key = key(first)

    def body(i, best, best_key):
        item = items[i]
        item_key = key(item)
        replaces = common.is_truthy_scalar_tensor(better(item_key, best_key),
                                                  "a comparison in %s()" % name)
        return (i + 1, common.select(replaces, item, best),
                common.select(replaces, item_key, best_key))

    return rt.while_loop(lambda i, best, best_key: np.less(i, items.shape[0]), body,
                         (1, first, first_key), names=["i", name, "key"])[1]


min_ = _extreme("min", np.less, np.min, np.minimum)
max_ = _extreme("max", np.greater, np.max, np.maximum)


def sum_(iterable, start=0):
    """sum(iterable, start) as Python adds: `start + item0 + item1 + ...`, left to right
    (np.sum adds a float array pairwise: other last bits), each sum in the type Python's
    gives (start 0 and int8 items: int8, wrapping as NumPy's scalars do; not np.sum's
    int64); of no items, `start` itself. With start 0 (which adds nothing but turns a
    -0.0 into 0.0), the running sums are np.cumsum's in that type; with another start, a
    graph loop adds the items one by one."""
    value = lists.stacked_if_list(iterable)
    if value.ndim == 0:
        raise TypeError("'numpy.%s' object is not iterable" % value.dtype.name)
    count = value.shape[0]
    if type(start) is int and start == 0:
        with np.errstate(all="ignore"):
            dtype = (0 + np.zeros((), value.dtype)[()] + np.zeros((), value.dtype)[()]).dtype

        def total():
            return 0 + np.cumsum(value, axis=0, dtype=dtype)[-1]
    else:
        def total():
            def body(i, running):
                return i + 1, running + value[i]
            first = start + value[0]
            return rt.while_loop(lambda i, running: np.less(i, count), body, (1, first),
                                 names=["i", "sum"])[1]
    if not rt.is_tensor(count):
        return total() if count else start
    if value.ndim > 1:
        # (Python's sum of no rows is `start`, a graph value of another rank.)
        rt.Raise(ValueError("sum() of an array with no rows in a graph: Python's is the "
                            "start value (%r), not an array of a row's shape; a graph value "
                            "has one shape" % (start,)), unless=np.greater(count, 0))
        return total()
    return rt.cond(np.greater(count, 0), total, lambda: start, names=["the value of sum()"])


def _scalar_items(value):
    """A 1-d array, whose items Python compares or tests one by one (errors as Python's)."""
    if value.ndim == 0:
        raise TypeError("'numpy.%s' object is not iterable" % value.dtype.name)
    if value.ndim > 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    return value


def _truth_reduction(name, reduce, combine):
    def reduction(iterable):
        value = lists.stacked_if_list(iterable)
        if not rt.is_tensor(value):   # a Python iterable holding symbolic values
            truths = [common.is_truthy_scalar_tensor(item, "an item of %s()" % name)
                      if rt.is_tensor(item) else bool(item) for item in value]
            return rt.as_python_scalar(
                functools.reduce(combine, truths, getattr(builtins, name)(())))
        return rt.as_python_scalar(reduce(_scalar_items(value)))   # (a Python bool)
    reduction.__name__ = name
    return reduction


any_ = _truth_reduction("any", np.any, np.logical_or)
all_ = _truth_reduction("all", np.all, np.logical_and)


_PYTHON_TYPES = {"b": bool, "i": int, "f": float, "c": complex}


def isinstance_(value, classinfo):
    """isinstance as the traced value's eager counterpart would answer: an array (rank >= 1,
    or a 0-d array: rt.is_ndarray) is an np.ndarray, a value standing for a Python scalar
    (a Python number argument, a range item: rt.is_python_scalar) that Python type, another
    rank-0 value the NumPy scalar type of its dtype, a list built in a graph loop a list."""
    if builtins.isinstance(value, classinfo):
        return True
    if lists.is_tensor_list(value):
        stands_for = list
    elif isinstance(value, iterables.SymbolicIterable):
        return False
    elif rt.is_ndarray(value):
        stands_for = np.ndarray
    elif rt.is_python_scalar(value):
        stands_for = _PYTHON_TYPES[value.dtype.kind]
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
