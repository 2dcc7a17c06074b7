"""Values whose kind depends on the path a graph run takes.

A graph value has one dtype. Where control flow joins values of different kinds (rt.cond's
branches, a loop variable's value on entry and after an iteration), NumPy's promotion gives
the join one dtype, but Python's name holds, on each path, the value of that path's kind:
`b = x[0] if c else n` is a Python int on one path and an np.float64 on the other,
`found = 0 ... found = True` an int or a bool, `k = 1.5` a float where `k` was a 0-d array.
A kind is (dtype, Python scalar?, 0-d array?): a Python int and an np.int64 are one kind
(API.md: Python numbers a graph computes come back as NumPy scalars of their kind).

Such a join is marked (`mark`) with the kinds it may hold, a description of where it was
made, and a kind tag: an int8 graph value (rt.cond's extra output, rt.while_loop's extra
loop variable) holding, when the graph runs, the code (`code_of`) of the kind the path
taken gave it. Ops on a marked value compute the kind they give on each path (`propagate`,
from each op's own inference rule, on the kinds of the inputs' tags together): `n + 1` is
still an int or a float, but `b / 2`, `b > 0`, `int(b)` and `True + 1` have one kind on
every path and are not marked; where an op refuses a path's kind (`-` of a NumPy bool),
the graph raises that error there. A returned (runtime/trace.py) or printed
(runtime/api.py, markers.KindSlot) marked value is converted to the kind of the path taken
(`as_kind`); only a value combining more than _MAX_COMBINATIONS choices has no tag, and
returning or printing it is refused when the function is traced (`refusal`).

A value may also be None on some paths (`mark_maybe_none`: a called function's result
where it fell off its end without a `return`): its kinds include NONE. An op on it raises
Python's TypeError on those paths, but ops that pass it along (`copy`, the control-flow
ops, `print`) or test its truth (`not r`, `bool(r)`: the value there is zeros, false as
None is); where Python defines the result on None otherwise (`r == 0` is False, `x[r]`
adds an axis, None stored in an array or a list), the graph raises a TypeError saying
that it cannot give it. (Guarded by `if r is not None`, none of this happens.)

A value that is a Python scalar on every path is recorded too (`is_python`: weak literals,
and `mark_python`: joins and loop variables whose every path gives one, `not t`, `bool(t)`,
range items, shape dims, and Python operators on Python scalars), because Python's
operators treat a Python bool as the int it is (`True + True` is 2, where `np.True_ +
np.True_` is True): `bind_python_operator` binds a Python operator's op as Python does on
them, also for a bool that is a Python bool on some paths and a NumPy bool on others (a
join whose kinds differ in that alone, so it has a tag saying which the path gave).

A number that is a Python number on some paths and a NumPy scalar of the same dtype on
others (`t = 0.5`, then `t = np.abs(t)` in a loop that may not get there) has no tag
(`mark_python_on_some_paths`): the two compute and show alike next to values of their
dtype, and a tag would cost every `s = 0.0` accumulator of a loop adding NumPy values a loop
variable. Where NEP 50 makes them compute in different dtypes (next to float32 values), the
op is refused at trace time (`as_weak`).
"""

import functools
import itertools
import weakref

import numpy as np

from runtime import errors
from runtime.graph import Value, literal

# {Value: Mixed}: values that hold a different kind on different paths.
_marks = weakref.WeakKeyDictionary()

# Values that are not literals but stand for Python scalars on every path (`python`).
_python = weakref.WeakSet()

# The kind of None (a called function's result where it returned nothing: mark_maybe_none).
NONE = (np.dtype(object), True, False)

# Ops that take a value that is None on some paths along, or test its truth, as Python
# does with None (the value there is zeros: false, as None is); `copy` keeps it None.
_NONE_PASSES = frozenset({"cond", "while", "print", "raise", "assert", "logical_not",
                          "copy"})
# Ops whose result on None Python defines, differently from an op on zeros (`None == 0` is
# False, `x[None]` adds an axis; None stored in a float array is nan, in a list None): the
# graph raises a TypeError saying so where an input is None (_none_error).
_NONE_DEFINED = frozenset({"equal", "not_equal", "logical_and", "logical_or", "logical_xor",
                           "get_item", "set_item", "ta_write", "ta_unstack",
                           "assign_variable", "stack", "concatenate", "where"})

# {Value: description of the join}: numbers that are Python numbers on some paths and NumPy
# scalars of the same dtype on others (`t = -1.25`, then `t = np.abs(t)` in a loop that may
# not reach it). They have no tag: carrying one would cost every `s = 0.0` accumulator of a
# loop adding NumPy values a loop variable, and the two show and compute alike next to
# values of their dtype. Next to narrower NumPy values NumPy promotes them differently (a
# Python float next to float32 values is a float32, an np.float64 stays one): there the
# graph refuses (`as_weak`, `_python_on_some_paths_refusal`).
_numbers_python_on_some_paths = weakref.WeakKeyDictionary()

# Python ints known to be positive on every path (range items counting up from 1 or more):
# dividing by one needs no check for zero (_raise_where_zero).
_positive = weakref.WeakSet()

# Representative Python scalars of each dtype kind (weak operands of the inference rules).
_PYTHON_SCALARS = {"b": True, "i": 1, "f": 1.0, "c": 1j}
_PYTHON_NAMES = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}


class Mixed:
    """The kinds a value may hold (a frozenset of (dtype, Python scalar, 0-d array)), the
    description of the join that made it so, and, when the graph knows at run time which
    kind the path taken gave it, `tag`: an int8 Value holding a code (`code_of`), and
    `table`: {code: the value's kind when the tag holds it}."""

    __slots__ = ("kinds", "description", "tag", "table")

    def __init__(self, kinds, description, tag=None, table=None):
        self.kinds = frozenset(kinds)
        self.description = description
        self.tag = tag
        self.table = table if table is not None else {code_of(k): k for k in self.kinds}


# Every kind seen, by code (the codes tags hold; they only grow).
_codes = {}
_kinds = []


def code_of(kind):
    """The small int code of `kind` (what a tag holds at run time)."""
    code = _codes.get(kind)
    if code is None:
        code = _codes[kind] = len(_kinds)
        _kinds.append(kind)
    return code


def kinds_by_code():
    """The kinds of all codes so far (a list: code -> kind)."""
    return list(_kinds)


def kind_of(value, ndarray=False):
    """The kind of Value `value` on the paths where it is what it is: (dtype, Python
    scalar, 0-d array); `ndarray` says a rank-0 value stands for a 0-d array."""
    return (value.dtype, is_python(value), bool(ndarray) and not value.shape)


def is_python(value):
    """Does Value `value` stand for a Python scalar on every path: a weak literal, or a
    value recorded by `mark_python` (also read by a nested graph through a placeholder)?"""
    if value.weak:
        return True
    if not _python:
        return False
    return _origin(value, _python.__contains__) is not None


def mark_python(value, python=True):
    """Records that the rank-0 Value `value` (no literal) stands for a Python scalar on
    every path (a join or loop variable whose every path is one, `not t`, `bool(t)`, an
    item of `range`, a Python operator on Python scalars), when `python` is true."""
    if python and not value.weak and value.shape == () and not value.is_literal:
        _python.add(value)


def python_differs(values):
    """Are rank-0 number Values `values` (a join's, of one dtype) Python numbers on some
    paths and NumPy scalars on others (`python_on_some_paths` counts as both)?"""
    python = set()
    for value in values:
        if value.shape != () or value.dtype.kind not in "iufc":
            return False
        found = python_on_some_paths(value)
        python.update((True, False) if found is not None else (is_python(value),))
    return len(python) > 1


def mark_python_on_some_paths(value, description):
    """Records that rank-0 Value `value` is a Python number on some paths and a NumPy
    scalar of its dtype on others; `description` says where they join, for the refusal."""
    if not value.is_literal and not value.shape:
        _numbers_python_on_some_paths[value] = description


def python_on_some_paths(value):
    """The description of Value `value`'s join if it is a Python number on some paths and
    a NumPy scalar of its dtype on others (also read through a nested graph's
    placeholder), else None."""
    if not _numbers_python_on_some_paths:
        return None
    found = _origin(value, _numbers_python_on_some_paths.__contains__)
    return None if found is None else _numbers_python_on_some_paths[found]


def python_on_some_paths_description(name, a, path_a, b, path_b, location_text):
    """The description of a join of Values `a` (on `path_a`) and `b` (on `path_b`) of one
    kind but that one is a Python number and the other a NumPy scalar, for the refusal."""
    def text(value):
        if python_on_some_paths(value) is not None:
            return "a Python or NumPy %s" % value.dtype.name
        return ("a Python %s" % _PYTHON_NAMES[value.dtype.kind] if is_python(value)
                else "a NumPy %s" % value.dtype.name)
    return "%s is %s on %s but %s on %s (%s)" % (name, text(a), path_a, text(b), path_b,
                                                 location_text)


def _origin(value, recorded):
    """`value`, or the outer value a placeholder of a nested graph reads, for which
    `recorded(v)` holds; else None."""
    while value is not None:
        if recorded(value):
            return value
        if value.node is not None or value.graph is None:
            return None
        value = next((outer for outer, inner in value.graph.captured if inner is value), None)
    return None


def kinds_of(value, ndarray=False):
    """The kinds `value` may hold: those of its mark, or its own."""
    found = mixed(value)
    return found.kinds if found is not None else frozenset([kind_of(value, ndarray)])


def mark(value, found):
    """Records that `value` holds one of several kinds (a Mixed), or nothing for None."""
    if found is not None:
        _marks[value] = found


def mixed(value):
    """The Mixed of `value` (also when it is the placeholder by which a nested graph reads
    such a value), or None."""
    if not _marks:
        return None
    found = _origin(value, _marks.__contains__)
    return None if found is None else _marks[found]


def differs(kinds):
    """Do `kinds` differ in what Python shows of them (dtype, or array or scalar), or in
    what Python operators do with them (a Python bool or a NumPy bool: `bind_python_operator`)?"""
    return len({(dtype, ndarray) for dtype, _, ndarray in kinds}) > 1 or _bool_python_differs(
        kinds)


def _bool_python_differs(kinds):
    return len({python for dtype, python, ndarray in kinds
                if dtype == np.bool_ and not ndarray}) > 1


def join(name, a, a_ndarray, path_a, b, b_ndarray, path_b, location_text, describe):
    """The Mixed of a join of Values `a` (on `path_a`) and `b` (on `path_b`) whose kinds
    differ, else None. `describe(value)` says what a value is, for the message."""
    kinds = kinds_of(a, a_ndarray) | kinds_of(b, b_ndarray)
    if not differs(kinds):
        return None
    known = mixed(a) or mixed(b)
    if known is not None and (kinds_of(a, a_ndarray) == kinds or kinds_of(b, b_ndarray)
                              == kinds):
        return Mixed(kinds, known.description)   # (nothing new: the earlier join says it)
    return Mixed(kinds, "%s is %s on %s but %s on %s (%s)" % (
        name, _side_text(a, a_ndarray, describe), path_a,
        _side_text(b, b_ndarray, describe), path_b, location_text))


def _side_text(value, ndarray, describe):
    """What Value `value` is on one side of a join: the kinds it may hold where an earlier
    join made it one of several ("a Python bool or a Python float", where `describe` would
    say "f64[]" of both sides), else `describe(value)`."""
    if len(kinds_of(value, ndarray)) > 1:
        return kinds_phrase(kinds_of(value, ndarray))
    return _with_array(describe(value), ndarray, value)


def _with_array(text, ndarray, value):
    return "a 0-d array of %s" % text if ndarray and not value.shape else text


def kinds_phrase(kinds):
    """The kinds (of a Mixed) as a message says them: "a Python bool or float64"."""
    return " or ".join(sorted({"a Python %s" % _PYTHON_NAMES[kind[0].kind] if kind[1] else
                               kind_text(kind) for kind in kinds if kind != NONE}))


# Set while a Python operator (`-x`, `x + y`, `abs(x)`) binds its op (python_operator).
_python_operators = [0]


class python_operator:
    """While it is active, ops are bound for Python operators: a Python bool they get acts
    as the int it is in Python (`-True` is -1, `True + True` 2), but in `&`, `|`, `^`; a
    NumPy function on one treats it as a NumPy bool (`np.negative(True)` raises). (For the
    marks of values whose kind depends on the path; `bind_python_operator` does it for
    the values that are Python scalars.)"""

    def __enter__(self):
        _python_operators[0] += 1

    def __exit__(self, *exc_info):
        _python_operators[0] -= 1


_BOOL_OPERATORS = ("bitwise_and", "bitwise_or", "bitwise_xor")


def bind_python_operator(name, values, bind_op, bind):
    """The outputs of Python operator `name` (an op name; `bind_op(values)` binds its op) on
    Values `values`, as Python computes them. With a NumPy value among them NumPy's rules
    apply (`np.True_ + True` is NumPy's `or`). When every operand is a Python scalar
    (`is_python`), so are the results, and a Python bool among them acts as the int it is,
    but in `&`, `|`, `^`; an operand that is a Python bool on some paths and a NumPy bool
    on others (`_partly_python`) gets Python's result on the first and NumPy's on the
    others (`_both_ways`). `bind(op name, inputs, **attrs)` records a helper op."""
    with python_operator():
        if not all(not v.shape and (is_python(v) or _partly_python(v)) for v in values):
            outputs = bind_op(as_weak(name, values, bind))
            # (A Python operator on Python numbers, one of them a NumPy scalar on some
            # paths: a Python number on the others; `t * 2.0`.)
            found = ([python_on_some_paths(v) for v in values]
                     if _numbers_python_on_some_paths else ())
            if any(found) and all(not v.shape and (is_python(v) or f is not None)
                                  for v, f in zip(values, found)):
                description = next(f for f in found if f is not None)
                for value in outputs:
                    if value.dtype.kind in "iufc":
                        mark_python_on_some_paths(value, description)
            return outputs
        if any(_partly_python(v) for v in values):
            # (With a number among the operands NumPy makes the bools ints too: `found + 1`.)
            if name in _BOOL_OPERATORS or not all(v.dtype == np.bool_ for v in values):
                return bind_op(values)
            return _both_ways(name, values, bind_op, bind)
        if name not in _BOOL_OPERATORS:
            values = [_as_int(v, bind) if v.dtype == np.bool_ and not v.is_literal else v
                      for v in values]
        if name in _DIVISIONS:
            _raise_where_zero(name, values, bind)
        if name == "power" and values[0].dtype.kind in "iu" and values[1].dtype.kind in "iu":
            _raise_where_negative_power(values[1], bind)
        if name in _OVERFLOWING:
            _raise_where_overflow(name, values, bind)
        outputs = bind_op(values)
    for value in outputs:
        mark_python(value)
    return outputs


# Python operators whose int result may leave int64's range from operands well inside it.
# (Sums are not checked: a sum leaves it only from operands near its bounds, and a graph's
# Python ints are at most 2**53 where they come in as arguments: runtime/specialise.py.
# Checking every counter's `i += 1` would cost scalar loops a third of their speed.)
_OVERFLOWING = frozenset({"multiply", "power", "left_shift"})


def _raise_where_overflow(name, values, bind):
    """A Python int has no bounds; a graph holds one in an int64. Where the exact result of
    Python operator `name` on ints `values` would not fit (a product of two big counts, a
    hash computed by multiplying), the graph raises OverflowError when it runs (before
    computing it) instead of giving the wrapped value."""
    if _raise_where is None or any(v.dtype != np.int64 for v in values) or all(
            v.is_literal for v in values):
        return
    _raise_unless(OverflowError(
        "a Python int result is too large for a graph, which holds Python ints as int64 "
        "(Python would give the exact big int): compute with floats, or outside the staged "
        "function"), bind("int_fits", values, operator_name=name))


def _raise_where_negative_power(exponent, bind):
    """Python's int ** negative int is a float (2 ** -1 is 0.5); a graph's int power has one
    dtype, an int: where the exponent is negative the graph raises when it runs."""
    if _raise_where is None or (exponent.is_literal and exponent.literal >= 0) or (
            _positive and _origin(exponent, _positive.__contains__) is not None):
        return
    _raise_where(ValueError(
        "a Python int to a negative Python int power is a float in Python (2 ** -1 is 0.5), "
        "which a graph's int power cannot give: write the base as a float (2.0 ** n)"),
        bind("less", [exponent, literal(exponent.dtype.type(0))]))


_DIVISIONS = frozenset({"divide", "floor_divide", "remainder", "divmod"})


def mark_positive(value):
    """Records that Value `value`, a Python int on every path, is positive on every path."""
    if not value.is_literal:
        _positive.add(value)


# Python's messages, by operator and by whether both operands are ints.
_ZERO_DIVISION = {
    ("divide", True): "division by zero",
    ("floor_divide", True): "integer division or modulo by zero",
    ("remainder", True): "integer modulo by zero",
    ("divmod", True): "integer division or modulo by zero",
    ("divide", False): "float division by zero",
    ("floor_divide", False): "float floor division by zero",
    ("remainder", False): "float modulo",
    ("divmod", False): "float divmod()",
}


def _raise_where_zero(name, operands, bind):
    """Python raises ZeroDivisionError where a Python number is divided by zero (NumPy
    gives inf or 0 with a warning): so does the graph, with Python's message for operator
    `name` on `operands`, where the Python number divisor is zero when it runs (not a
    literal other than 0, nor positive: mark_positive)."""
    divisor = operands[1]
    if _raise_where is None or (divisor.is_literal and divisor.literal != 0) or (
            _positive and _origin(divisor, _positive.__contains__) is not None):
        return
    integers = all(v.dtype.kind in "iub" for v in operands)
    if any(v.dtype.kind == "c" for v in operands):
        message = "complex division by zero"
    else:
        message = _ZERO_DIVISION[name, integers]
    _raise_where(ZeroDivisionError(message),
                 bind("equal", [divisor, literal(divisor.dtype.type(0))]))


_COMPARISONS = frozenset({"equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal"})


def as_weak(name, values, bind):
    """The operands of op `name` (a Python operator's, a ufunc's) with the Python scalars
    among them that are graph values (`is_python`: `x.shape[0]`, range items; literals are
    weak already) cast to the dtype NumPy converts such a scalar to next to the NumPy
    operands (NEP 50: `x_int32 * n` is int32, `x_float32 + n` float32). An int out of that
    dtype's range raises NumPy's OverflowError where the graph runs. (Comparisons of ints
    and bools compare the values as they are: NumPy compares out-of-range Python ints
    exactly; next to a float array, a Python number is converted as for other ops:
    `x_float32 <= 0.2` compares float32 values.)"""
    if name in _COMPARISONS and all(v.dtype.kind in "biu" for v in values):
        return values
    if _numbers_python_on_some_paths:
        _refuse_python_on_some_paths(name, values)
    weak = [not v.shape and not v.is_literal and is_python(v) and mixed(v) is None
            for v in values]
    if not any(weak) or all(weak):
        return _as_weak_on_some_paths(values, bind)
    others = _promoted([v for v, w in zip(values, weak) if not w])
    operands = []
    for value, w in zip(values, weak):
        if w:
            target = np.result_type(*others, _PYTHON_SCALARS[value.dtype.kind])
            # (Cast where NumPy's promotion of the graph value would give another dtype.)
            if np.result_type(*others, value.dtype) != target:
                value = _cast_python_number(value, target, bind)
        operands.append(value)
    return operands


def _refuse_python_on_some_paths(name, values):
    """Raises TypeError where an operand of op `name` is a Python number on some paths and
    a NumPy scalar on others (`python_on_some_paths`) and NumPy computes with the two in
    different dtypes next to the other `values` (a Python float next to float32 values is a
    float32, an np.float64 is not): a graph value has one dtype, and does not know which
    path ran."""
    for position, value in enumerate(values):
        description = None if value.is_literal else python_on_some_paths(value)
        if description is None:
            continue
        others = _promoted([v for i, v in enumerate(values) if i != position])
        if not others:
            continue
        as_python = np.result_type(*others, _PYTHON_SCALARS[value.dtype.kind])
        as_numpy = np.result_type(*others, value.dtype)
        if as_python != as_numpy:
            raise TypeError(_python_on_some_paths_refusal(name, description, as_python,
                                                          as_numpy))


def _python_on_some_paths_refusal(name, description, as_python, as_numpy):
    """The message refusing op `name` on a value that is a Python number on some paths and
    a NumPy scalar on others (`description`), where NumPy computes in dtype `as_python` on
    the first and `as_numpy` on the others."""
    return ("%s: np.%s of it computes in %s where it is the Python number and in %s where "
            "it is the NumPy scalar (NEP 50), and a graph does not follow which of the two a "
            "value is when it is a Python number on some paths and a NumPy scalar on others. "
            "Make it one of the two on every path: `float(x)` (or `int(x)`) for a Python "
            "number, `np.float64(x)` for a NumPy scalar, or cast the other operand"
            % (description, name, as_python.name, as_numpy.name))


def _promoted(values):
    """What np.result_type takes for Values `values` as NumPy promotes them: a weak
    literal as its Python number (np.clip(x_float32, t, 3.0) is float32), another value as
    an empty array of its dtype."""
    return [v.literal if v.is_literal and v.weak else np.empty(0, v.dtype) for v in values]


def _cast_python_number(value, target, bind):
    """Value `value`, a Python number (on the paths where it is one), cast to dtype
    `target` as NumPy converts it, raising NumPy's OverflowError where an int does not fit.
    Where it is None (mark_maybe_none), the cast passes None along: the op it is an operand
    of raises there what NumPy raises."""
    _passing_none[0] += 1
    try:
        if value.dtype.kind in "iu" and target.kind in "iu" and _raise_where:
            info = np.iinfo(target)
            outside = bind("logical_or", [
                bind("less", [value, literal(info.min)]),
                bind("greater", [value, literal(info.max)])])
            _raise_where(OverflowError("Python integer out of bounds for %s" % target.name),
                         outside)
        return bind("cast", [value], dtype=target)
    finally:
        _passing_none[0] -= 1


# Set while ops that pass None along, as `copy` does, are bound (_cast_python_number).
_passing_none = [0]


def _as_weak_on_some_paths(values, bind):
    """`values` (as_weak), with an operand that is a Python number on some paths and a
    NumPy value on others (`t = 1.0 ... t = np.sum(x_float32)`) cast to the dtype it has in
    the operation on every path, where that is one dtype but not the join's: next to
    float32 values, a Python float is converted to float32 and a float32 stays one, so
    `t - x_float32[0]` computes in float32 whichever path was taken (the join of a float
    and a float32 is a float64 graph value)."""
    partly = [i for i, v in enumerate(values) if not v.shape and not v.is_literal
              and mixed(v) is not None and any(kind[1] for kind in mixed(v).kinds)]
    if len(partly) != 1 or any(mixed(v) is not None for i, v in enumerate(values)
                               if i != partly[0] and not v.is_literal):
        return values
    value = values[partly[0]]
    others = _promoted([v for i, v in enumerate(values) if i != partly[0]])
    if not others:
        return values
    dtypes = {np.result_type(*others, _PYTHON_SCALARS[kind[0].kind]) if kind[1] else kind[0]
              for kind in mixed(value).kinds if kind != NONE}
    if len(dtypes) != 1 or value.dtype in dtypes:
        return values
    operands = list(values)
    operands[partly[0]] = _cast_python_number(value, dtypes.pop(), bind)
    return operands


def _as_int(value, bind):
    result = bind("cast", [value], dtype=np.dtype(np.int64))
    mark_python(result)
    return result


def _both_ways(name, values, bind_op, bind):
    """The outputs of Python operator `name` on bools `values`, some of them Python bools on
    some paths and NumPy bools on others (their mark's tag says which): Python's result
    (bools as ints) where they are Python bools, NumPy's elsewhere (or NumPy's error there:
    `-np.True_`)."""
    found = [mixed(v) for v in values if _partly_python(v)]
    tag = found[0].tag
    if tag is None or any(m.tag is not tag for m in found):
        raise TypeError(
            "a value that is a Python bool on some paths and a NumPy bool on others is an "
            "operand of np.%s, which treats them differently (True + True is 2, np.True_ + "
            "np.True_ is True); a graph gives each path its result only where they depend "
            "on one choice, and these depend on several, such as: %s. Make such a value one of "
            "the two on every path: `bool(x)` for a Python bool, `np.bool_(x)` for a NumPy "
            "bool"
            % (name, found[0].description))
    table = found[0].table
    python_codes = [code for code, (dtype, python, _) in sorted(table.items())
                    if python and dtype == np.bool_]
    on_python = None   # a bool Value: is the path taken one where they are Python bools?
    for code in python_codes:
        equal = bind("equal", [tag, literal(np.int8(code))])
        on_python = equal if on_python is None else bind("logical_or", [on_python, equal])
    as_python = bind_op([_as_int(v, bind) if not v.is_literal else v for v in values])
    try:
        as_numpy = bind_op(values)
    except TypeError as error:   # (NumPy refuses: `-np.True_`; on those paths the graph does)
        if _raise_where is not None:
            _raise_where(error, bind("logical_not", [on_python]))
        for value in as_python:
            mark_python(value)
        return as_python
    outputs = []
    for a, b in zip(as_python, as_numpy):
        value = bind("where", [on_python, a, b])
        kinds = {code: (a.dtype, True, False) if code in python_codes
                 else (b.dtype, False, False) for code in table}
        _marks.pop(value, None)
        if differs(kinds.values()):
            _marks[value] = Mixed(kinds.values(), found[0].description, tag, kinds)
        outputs.append(value)
    return outputs


def _partly_python(value):
    """Is `value` a bool that is a Python bool on some paths and a NumPy bool on others?"""
    found = mixed(value)
    return found is not None and value.dtype == np.bool_ and _bool_python_differs(
        found.kinds)


def propagate(name, infer, inputs, attrs, outputs, bind):
    """Marks the `outputs` of an op (its inference rule `infer`) on `inputs` that have a
    different kind on different paths: the kinds the op gives on each path, from its rule
    on the kinds its marked inputs have there. Inputs marked with one tag hold their kinds
    together (`n + n`), and the outputs keep that tag; inputs with different tags (`a + b`,
    chosen by two conditions) combine every way, and the outputs get a tag computed from
    theirs (`bind(op name, inputs)` records an op). Without tags, outputs whose kind
    still differs have none (returning them is refused)."""
    marks = [mixed(v) for v in inputs]
    if not any(marks):
        return
    if name == "ta_write" and marks[2] is not None:
        _refuse_item_of_kinds(marks[2])
    if _python_operators[0] and name not in _BOOL_OPERATORS:
        infer = functools.partial(_as_python_ints, infer)
    description = next(m.description for m in marks if m is not None)
    # (A Python operator on Python scalars gives Python scalars on every path.)
    python = bool(_python_operators[0]) and all(not v.shape and is_python(v) for v in inputs)
    # (An in-place operator, `k += 1`, into a value that is a 0-d array on some paths.)
    inplace = bool(_inplace_targets) and bool(inputs) and inputs[0] is _inplace_targets[-1]
    tags = []   # the distinct tags of the marked inputs, each once
    for m in marks:
        if m is not None and not any(m.tag is t for t in tags):
            tags.append(m.tag)
    if any(t is None for t in tags):
        _mark_untagged(name, infer, inputs, attrs, outputs, marks, description, python)
        return
    # Each combination of the tags' codes: the kinds of the outputs there.
    codes = [sorted(set.intersection(*[set(m.table) for m in marks
                                       if m is not None and m.tag is t])) for t in tags]
    combinations = list(itertools.islice(itertools.product(*codes), _MAX_COMBINATIONS + 1))
    if len(combinations) > _MAX_COMBINATIONS:
        _mark_untagged(name, infer, inputs, attrs, outputs, marks, description, python)
        return
    tables = [{} for _ in outputs]
    for combination in combinations:
        chosen = dict(zip(map(id, tags), combination))
        kinds = [None if m is None else m.table[chosen[id(m.tag)]] for m in marks]
        if NONE in kinds:   # (the op passes None along, or raises there: raise_where_none)
            for table in tables:
                table[combination] = NONE if name == "copy" or _passing_none[0] else None
            continue
        types = _infer_on(infer, inputs, attrs, kinds)
        if isinstance(types, Exception):
            # Python raises it on that path (`-flag` of a bool): so does the graph there.
            if _raise_where is not None and len(combinations) > 1:
                _raise_where(types, _codes_test(tags, combination, bind))
            continue
        if inplace and kinds[0] is not None and (kinds[0][2] or inputs[0].shape):
            # (Into an array there, also a 0-d one: it stays that array, of its dtype.)
            tables[0][combination] = kinds[0]
            continue
        # (A Python operator on what is a Python scalar on this path gives one here.)
        python_here = python or bool(_python_operators[0]) and all(
            not v.shape and (is_python(v) if kind is None else kind[1])
            for v, kind in zip(inputs, kinds))
        for table, t in zip(tables, types):
            table[combination] = (np.dtype(t[0]), python_here, False)
    for value, table in zip(outputs, tables):
        if None in table.values():   # (where an input is None: the op's kind elsewhere)
            known = [kind for kind in table.values() if kind is not None]
            if not known:
                continue
            table = {c: kind if kind is not None else known[0] for c, kind in table.items()}
        if not differs(table.values()):
            continue
        if len(tags) == 1:
            _marks[value] = Mixed(table.values(), description, tags[0],
                                  {c: kind for (c,), kind in table.items()})
        else:
            _marks[value] = Mixed(table.values(), description,
                                  _combined_tag(tags, table, bind))


def _refuse_item_of_kinds(found):
    """Raises TypeError for an item written into a tensor array (a list built in a graph
    loop) whose dtype depends on the path (Mixed `found`): Python's list keeps each item's
    own type, a tensor array holds its items in one dtype, and no kind per item."""
    kinds = [kind for kind in found.kinds if kind != NONE]
    if len({kind[0] for kind in kinds}) > 1:
        raise TypeError(
            "%s, and it is an item of a list built in a graph loop: the list built in a graph "
            "holds values of different types (%s, by the path), and a graph holds it as a "
            "tensor array, of one dtype, where Python keeps each item's own type. Make the "
            "item one type on every path (`float(v)`, `np.float32(v)`, `int(v)`)"
            % (found.description, kinds_phrase(kinds)))


# Combinations of the codes of several tags an op's output tag is computed from, at most.
_MAX_COMBINATIONS = 16


def _combined_tag(tags, table, bind):
    """An int8 Value holding the code of the kind `table` ({codes of `tags`: kind}) gives
    for the codes the `tags` hold when the graph runs."""
    items = sorted(table.items())
    tag = literal(np.int8(code_of(items[0][1])))
    for combination, kind in items[1:]:
        tag = bind("where", [_codes_test(tags, combination, bind),
                             literal(np.int8(code_of(kind))), tag])
    return tag


def _codes_test(tags, codes, bind):
    """A bool Value: do the `tags` hold `codes` when the graph runs?"""
    test = None
    for t, code in zip(tags, codes):
        equal = bind("equal", [t, literal(np.int8(code))])
        test = equal if test is None else bind("logical_and", [test, equal])
    return test


# Records that the graph raises an exception where a bool Value holds (runtime/api.py
# plugs in rt.Raise when imported: it builds ops, so this module does not import it).
_raise_where = _raise_unless = None


def use_raiser(raise_where, raise_unless):
    """Called once by runtime/api.py: `raise_where(exception, condition)`, and
    `raise_unless(exception, condition)` (where it does not hold)."""
    global _raise_where, _raise_unless
    _raise_where, _raise_unless = raise_where, raise_unless


def _none_passes(name, attrs):
    """Does op `name` take a value that is None on some paths as Python takes None?"""
    return name in _NONE_PASSES or (name == "cast" and attrs.get("dtype") == np.bool_) or bool(
        _passing_none[0])


def raise_where_none(name, inputs, attrs, bind):
    """Before op `name` is recorded on Values `inputs`: where one of them is None
    (mark_maybe_none; each such input, as each may be None on other paths), the graph
    raises what Python raises (_none_error), before the op runs on the zeros the value
    holds there. `bind(op name, inputs)` records an op."""
    if not _marks or _none_passes(name, attrs):
        return
    for value in inputs:
        found = mixed(value)
        if found is None or NONE not in found.kinds:
            continue
        if found.tag is None:
            raise TypeError(
                "%s: np.%s of it, where the graph cannot tell which paths give None (it "
                "combines values whose kinds depend on different choices). Test `r is None` "
                "first, or make the function return a value on every path" % (
                    found.description, name))
        test = None
        for code, kind in sorted(found.table.items()):
            if kind == NONE:
                equal = _codes_test([found.tag], (code,), bind)
                test = equal if test is None else bind("logical_or", [test, equal])
        if _raise_where is not None:
            _raise_where(_none_error(name, found.description, inputs, value), test)


def partly_0d_array(value):
    """Is Value `value` a 0-d array on some paths (and a scalar on others)?"""
    found = mixed(value)
    return found is not None and any(kind[2] for kind in found.kinds)


# The Values that in-place operators (`y -= r` on an array) write into, innermost last.
_inplace_targets = []


class inplace_into:
    """While it is active, the op being bound writes into Value `target` (NumPy's error for
    None is then the in-place one's: `y -= None` raises a UFuncTypeError)."""

    def __init__(self, target):
        self.target = target

    def __enter__(self):
        _inplace_targets.append(self.target)

    def __exit__(self, *exc_info):
        _inplace_targets.pop()


def _none_error(name, description, inputs, none_value):
    """The error the graph raises where input `none_value` of op `name` on `inputs` is None
    (mark_maybe_none): for a ufunc, what NumPy raises for it on None (tried now, on zeros
    for the other inputs), with `description` as a note; where NumPy and Python define the
    result on None (`None == 0` is False, `x[None]` adds an axis), a TypeError saying that
    a graph cannot give it; else Python's TypeError."""
    ufunc = getattr(np, name, None)
    if isinstance(ufunc, np.ufunc):
        samples = [None if v is none_value else _sample(v) for v in inputs]
        out = {}
        if _inplace_targets and inputs[0] is _inplace_targets[-1] and ufunc.nout == 1 \
                and samples[0] is not None:
            out = {"out": samples[0]}
        try:
            with np.errstate(all="ignore"):
                ufunc(*samples, **out)
        except Exception as error:   # (Python's: the graph raises it where r is None)
            error.add_note(description)
            return error
    if name in _NONE_DEFINED or isinstance(ufunc, np.ufunc):
        return TypeError(
            "%s: np.%s of it, whose result Python defines on None (`None == 0` is False, "
            "`x[None]` adds an axis, None stored in a float array is nan), which a graph "
            "cannot give: a graph value is a number or an array on every path. Test `r is "
            "None` first, or make the function return a value on every path (such as -1, "
            "or nan)" % (description, name))
    return TypeError("unsupported operand type for np.%s: 'NoneType' (%s)" % (name, description))


def _sample(value):
    """A concrete value like Value `value` (zeros; unknown dims 1)."""
    if value.is_literal:
        return value.literal
    zeros = np.zeros(tuple(1 if d is None else d for d in value.shape), value.dtype)
    return zeros if value.shape else zeros[()]


def mark_maybe_none(value, flag, ndarray, description, bind):
    """Records that Value `value` is None where the bool Value `flag` is false: a called
    function's result where it fell off its end (`description` says so, for messages).
    `ndarray`: a rank-0 `value` stands for a 0-d array. `bind(op name, inputs)` records
    an op."""
    found = mixed(value)
    if found is not None and found.tag is None:
        _marks[value] = Mixed(found.kinds | {NONE}, found.description)
        return
    if found is None:
        own = kind_of(value, ndarray)
        tag, table = literal(np.int8(code_of(own))), {code_of(own): own}
    else:
        tag, table = found.tag, dict(found.table)
    none = code_of(NONE)
    table[none] = NONE
    _marks[value] = Mixed(table.values(), description,
                          bind("where", [flag, tag, literal(np.int8(none))]), table)


def _mark_untagged(name, infer, inputs, attrs, outputs, marks, description, python):
    """Marks the outputs whose kind differs on some combination of the kinds of the
    marked inputs, without a tag: the graph cannot say which they hold."""
    choices = [sorted(m.kinds, key=str) if m is not None else [None] for m in marks]
    found = [set() for _ in outputs]
    for combination in itertools.islice(itertools.product(*choices), 64):
        if NONE in combination:   # (raise_where_none refused the others)
            if name == "copy" or _passing_none[0]:
                for kinds in found:
                    kinds.add(NONE)
            continue
        types = _infer_on(infer, inputs, attrs, combination)
        for kinds, t in zip(found, () if isinstance(types, Exception) else types):
            kinds.add((np.dtype(t[0]), python, False))
    for value, kinds in zip(outputs, found):
        if differs(kinds):
            _marks[value] = Mixed(kinds, description)


def _as_python_ints(infer, *operands, **attrs):
    """`infer` with the Python bools among `operands` (weak bool literals) as Python ints,
    when all are Python scalars (with a NumPy value among them NumPy's rules apply)."""
    if not all(not v.shape and is_python(v) for v in operands):
        return infer(*operands, **attrs)
    return infer(*[literal(int(v.literal)) if v.weak and v.dtype == np.bool_ else v
                   for v in operands], **attrs)


def _infer_on(infer, inputs, attrs, kinds):
    """The op's output types on `inputs` where those with a kind in `kinds` have it; the
    exception where the op refuses them (that path raises it: it returns nothing). (The
    other inputs that are Python scalars are weak there too: `np.where(c, x, t)` of a Python
    float t is float32 where x is float32 and float64 where it is float64.)"""
    operands = []
    for v, kind in zip(inputs, kinds):
        if kind is None and not v.shape and not v.is_literal and is_python(v):
            kind = kind_of(v)
        operands.append(v if kind is None else _stand_in(v, kind))
    try:
        return infer(*operands, **attrs)
    except Exception as error:
        return error


def _stand_in(value, kind):
    """A Value like `value` of kind `kind` (a Python scalar kind is a weak literal)."""
    dtype, python, _ = kind
    if python and not value.shape and dtype.kind in _PYTHON_SCALARS:
        return literal(_PYTHON_SCALARS[dtype.kind])
    return Value(dtype, value.shape, kind=value.kind)


def as_kind(value, kind):
    """The run-time `value` of a join (in the join's dtype) as `kind`, the kind of the path
    taken: a NumPy scalar of its dtype (for Python scalars too), or a 0-d array."""
    if kind == NONE:
        return None
    dtype, _, ndarray = kind
    array = np.asarray(value)
    if array.dtype.kind in "fc" and dtype.kind in "iu" and not np.all(abs(array) < 2.0 ** 53):
        raise errors.InvalidArgumentError(
            "an integer %s that a graph joined with a float (as float64, on another path) "
            "is too large to be held exactly; make it a float, or an int, on every path"
            % array)
    converted = array.astype(dtype)
    return np.array(converted) if ndarray else converted[()]


def as_shown(value, kind):
    """The run-time `value` as `kind` (as_kind), as print and str.format show it: a Python
    scalar for a Python kind (`repr` shows `3`, not `np.int64(3)`)."""
    converted = as_kind(value, kind)
    return converted.item() if kind[1] and isinstance(converted, np.generic) else converted


def kind_text(kind):
    if kind == NONE:
        return "None"
    dtype, python, ndarray = kind
    if ndarray:
        return "a 0-d %s array" % dtype.name
    return dtype.name


def refusal(value, what):
    """The TypeError message for `what` ("the result[0]", "a value printed") of Value
    `value` when it holds different kinds on different paths and the graph cannot tell
    which (it has no tag), else None."""
    found = mixed(value)
    if found is None or found.tag is not None:
        return None
    texts = sorted({kind_text(k) for k in found.kinds})
    dtypes = {k[0] for k in found.kinds}
    if any(d == np.bool_ for d in dtypes) and len(dtypes) > 1:
        headline = "%s is a bool on some paths and a number on others" % what
        advice = "make them bools (`x != 0`) or numbers (`int(flag)`) on every path"
    else:
        headline = "%s is %s depending on the path" % (what, " or ".join(texts))
        advice = ("make them one type on every path (`float(n)`, `int(n)`, or "
                  "`np.asarray(...)` for a 0-d array)")
    return ("%s, which a graph cannot return or print as Python does: it combines values "
            "whose kinds depend on different choices, more than %d combinations of them, "
            "such as: %s. A graph value has one type; %s"
            % (headline, _MAX_COMBINATIONS, found.description, advice))
