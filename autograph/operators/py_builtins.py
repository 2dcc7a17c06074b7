"""Overloads of Python builtins: exactly the builtin on Python values, graph ops on tensors.

Each overload takes the builtin's arguments unchanged and, when no argument is symbolic,
calls the builtin itself, so results, exceptions and messages are the builtin's own.
"""

import builtins
import functools
import math
import os
import sys
import types
import warnings

import numpy as np

import runtime as rt
from autograph.operators import data_structures, formatting
from autograph.operators.graph import arrays as graph_arrays
from autograph.operators.graph import builtins as graph_builtins
from autograph.operators.graph import random as graph_random
from autograph.operators.symbolic import PLAIN_TYPES, GraphPathNotImplemented, is_tensor

# builtin -> what its overload does when an argument is a symbolic tensor.
GRAPH_PATHS = {
    builtins.print: graph_builtins.print_,
    builtins.len: graph_builtins.len_,
    builtins.range: graph_builtins.range_,
    builtins.enumerate: graph_builtins.enumerate_,
    builtins.zip: graph_builtins.zip_,
    builtins.reversed: graph_builtins.reversed_,
    builtins.abs: graph_builtins.abs_,
    builtins.int: graph_builtins.int_,
    builtins.float: graph_builtins.float_,
    builtins.complex: graph_builtins.complex_,
    builtins.bool: graph_builtins.bool_,
    builtins.min: graph_builtins.min_,
    builtins.max: graph_builtins.max_,
    builtins.sum: graph_builtins.sum_,
    builtins.any: graph_builtins.any_,
    builtins.all: graph_builtins.all_,
    builtins.isinstance: graph_builtins.isinstance_,
    builtins.iter: graph_builtins.iter_,
}


# math.sqrt, math.exp, ...: what graphs compute of the math module (rt.MATH_FUNCTIONS).
GRAPH_PATHS.update({getattr(math, name): graph_builtins.math_function(name)
                    for name in rt.MATH_FUNCTIONS})


def _graph_path(builtin):
    """The graph path of `builtin`'s overload; for a builtin without one (next), a function
    raising GraphPathNotImplemented."""
    path = GRAPH_PATHS.get(builtin)
    if path is None:
        def path(*args, **kwargs):
            raise GraphPathNotImplemented(
                f"{builtin.__name__}: symbolic tensors are not supported by this overload yet")
    return path


def _any_symbolic(args):
    for value in args:
        if type(value) not in PLAIN_TYPES and is_tensor(value):
            return True
    return False


def _named(overload, builtin):
    name = builtin.__name__
    overload.__name__ = overload.__qualname__ = name + "_"
    overload.__doc__ = f"`{name}` of converted code: the builtin itself on Python values."
    return overload


# Marks an argument the caller did not pass (overloads take the common arguments as
# parameters, which is much cheaper than packing *args and **kwargs on every call). A list,
# so that its type is one of PLAIN_TYPES and passes the type checks at no cost.
_ABSENT = ["argument not passed"]

# Builtins whose result depends on the length of a list or dict argument: a trace holds
# for the lengths of those of the function's state it reads (rt.read_length).
_READS_LENGTH = frozenset({builtins.len, builtins.reversed, builtins.enumerate, builtins.zip})
_READING = rt.READING_LENGTHS   # ([count]: nonzero while a trace records them)


def _first_arg_overload(builtin):
    """The overload of a builtin whose first argument decides (len, abs, int, ...)."""
    graph_path = _graph_path(builtin)
    reads_length = builtin in _READS_LENGTH

    def overload(value=_ABSENT, /, *args, **kwargs):
        if type(value) not in PLAIN_TYPES and is_tensor(value):
            return graph_path(value, *args, **kwargs)
        if reads_length and _READING[0] and (type(value) is list or type(value) is dict):
            rt.read_length(value)
        if args or kwargs or value is _ABSENT:
            # Unusual calls (wrong arity included) go to the builtin as they are, so
            # results and error messages stay the builtin's own.
            if value is _ABSENT:
                return builtin(*args, **kwargs)
            return builtin(value, *args, **kwargs)
        return builtin(value)

    return _named(overload, builtin)


def _any_arg_overload(builtin, keywords_too=False):
    """The overload of a builtin that any (positional) argument may make symbolic."""
    graph_path = _graph_path(builtin)
    reads_length = builtin in _READS_LENGTH

    def overload(first=_ABSENT, second=_ABSENT, third=_ABSENT, /, *args, **kwargs):
        # Most calls pass one to three Python values: type checks and a direct call.
        if ((type(first) not in PLAIN_TYPES or type(second) not in PLAIN_TYPES
             or type(third) not in PLAIN_TYPES)
                and (is_tensor(first) or is_tensor(second) or is_tensor(third))):
            return graph_path(*_present(first, second, third), *args, **kwargs)
        if reads_length and _READING[0]:
            for value in (first, second, third) + args:
                if type(value) is list or type(value) is dict:
                    rt.read_length(value)
        if args or kwargs:
            if _any_symbolic(args) or (keywords_too and kwargs
                                       and _any_symbolic(kwargs.values())):
                return graph_path(*_present(first, second, third), *args, **kwargs)
            return builtin(*_present(first, second, third), *args, **kwargs)
        if third is not _ABSENT:
            return builtin(first, second, third)
        if second is not _ABSENT:
            return builtin(first, second)
        if first is not _ABSENT:
            return builtin(first)
        return builtin()

    return _named(overload, builtin)


def _present(first, second, third):
    if first is _ABSENT:
        return ()
    if second is _ABSENT:
        return (first,)
    if third is _ABSENT:
        return (first, second)
    return (first, second, third)


def print_(*objects, **options):
    """`print` of converted code: the builtin itself, or, while tracing (whatever it
    prints), a print when the graph runs, every time it runs."""
    if rt.current_graph() is None:
        return builtins.print(*objects, **options)
    return graph_builtins.print_(*objects, **options)


len_ = _first_arg_overload(builtins.len)
range_ = _any_arg_overload(builtins.range)
enumerate_ = _any_arg_overload(builtins.enumerate, keywords_too=True)
zip_ = _any_arg_overload(builtins.zip)
reversed_ = _first_arg_overload(builtins.reversed)
abs_ = _first_arg_overload(builtins.abs)
int_ = _first_arg_overload(builtins.int)
float_ = _first_arg_overload(builtins.float)
complex_ = _any_arg_overload(builtins.complex, keywords_too=True)
bool_ = _first_arg_overload(builtins.bool)
def _container_overload(builtin, decided_by=None):
    """The overload of a builtin whose arguments may be Python lists or tuples holding
    symbolic values (min, max, any, all): its graph path takes them while tracing. A
    generator (a generator expression over a Python iterable) is consumed first, as the
    builtin consumes it: min and max take every item; any and all stop at the first
    Python item whose truth `decided_by` (True, False) decides, as Python stops there
    (the items after a symbolic one, which Python would not compute where that one turns
    out to decide, are computed: a graph decides when it runs)."""
    graph_path = _graph_path(builtin)

    def overload(*args, **kwargs):
        if rt.current_graph() is not None:
            if len(args) == 1 and type(args[0]) is types.GeneratorType:
                args = (_items(args[0], decided_by),)
            if (any(rt.holds_symbolic(a) for a in args)
                    or any(rt.holds_symbolic(v) for v in kwargs.values())):
                return graph_path(*args, **kwargs)
        return builtin(*args, **kwargs)

    return _named(overload, builtin)


def _items(generator, decided_by):
    items = []
    for item in generator:
        items.append(item)
        if decided_by is not None and not rt.holds_symbolic(item) \
                and bool(item) is decided_by:
            break
    return items


min_ = _container_overload(builtins.min)
max_ = _container_overload(builtins.max)
sum_ = _first_arg_overload(builtins.sum)
any_ = _container_overload(builtins.any, decided_by=True)
all_ = _container_overload(builtins.all, decided_by=False)
isinstance_ = _first_arg_overload(builtins.isinstance)
def next_(iterator, *default):
    """`next(iterator)` of converted code: not of a Python iterator from outside a function
    being traced (rt.check_iteration)."""
    if type(iterator) not in PLAIN_TYPES and is_tensor(iterator):
        return _graph_path(builtins.next)(iterator, *default)
    rt.check_iteration(iterator, "next() of")
    return builtins.next(iterator, *default)
iter_ = _first_arg_overload(builtins.iter)


# Frames that converted code adds between a user's function and what it calls: overload
# frames of control flow, and the block functions (if_body, loop_body, and the lambdas of
# lazy operators) those overloads call. The conversion registers the block functions'
# code objects (they report the user's file, so their names are what identifies them).
_OPERATOR_FILES = frozenset(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    for name in ("control_flow.py", "logical.py", "conditional_expressions.py",
                 "exceptions.py"))
_block_codes = {}  # id(code) -> code: generated block functions
_lambda_codes = {}  # id(code) -> code: lambdas inside converted code
_thunk_codes = {}  # id(code) -> code: generated lambdas that converted code calls itself


def register_generated_code(block_codes, lambda_codes, thunk_codes=()):
    """Records code objects of converted code: block functions that overloads call,
    lambdas (generated or the user's: only those called by an overload are added frames),
    and the generated lambdas converted code calls itself (`ag__.if_exp(...)()`: always
    added frames)."""
    for code in block_codes:
        _block_codes[id(code)] = code
    for code in lambda_codes:
        _lambda_codes[id(code)] = code
    for code in thunk_codes:
        _thunk_codes[id(code)] = code


def is_added_frame(frame):
    """True for a stack frame that exists only because the code was converted."""
    code = frame.f_code
    if code.co_filename in _OPERATOR_FILES:
        return True
    if _block_codes.get(id(code)) is code or _thunk_codes.get(id(code)) is code:
        return True
    caller = frame.f_back
    return (_lambda_codes.get(id(code)) is code and caller is not None
            and caller.f_code.co_filename in _OPERATOR_FILES)


def _physical_depth(levels, frame):
    """How many frames above `frame` lie `levels` user frames above it.

    A block function and the overloads above it belong to the same user function as the
    first frame above them that is not an added frame; added frames are not counted.
    """
    physical = 0
    if levels <= 0:
        return 0
    while frame.f_back is not None and is_added_frame(frame):
        frame = frame.f_back
        physical += 1
    while levels > 0 and frame is not None:
        frame = frame.f_back
        physical += 1
        if frame is not None and not is_added_frame(frame):
            levels -= 1
    return physical


def _innermost_depth(levels, frame):
    """Like _physical_depth, landing on the innermost frame of the target user function:
    the block function (or generated lambda) running the user's line, when there is one.

    A user function's frame and the added frames it called (overloads, block functions,
    generated lambdas) count as one user frame; the innermost of them is the one whose
    line is the user's line (the function's own frame is at the `ag__.if_stmt(...)` call).
    """
    physical = 0
    while levels > 0 and frame is not None:
        while frame.f_back is not None and is_added_frame(frame):
            frame = frame.f_back
            physical += 1
        frame = frame.f_back
        physical += 1
        levels -= 1
    return physical


def warn_(message, category=None, stacklevel=1, source=None):
    """warnings.warn with `stacklevel` counted in the user's frames, as before conversion:
    the warning names the user's file and line (and module) where Python would."""
    if not isinstance(stacklevel, int):
        return warnings.warn(message, category, stacklevel, source)  # its own TypeError
    # +1 for this function's own frame; warnings counts the caller of warn as level 1.
    depth = _innermost_depth(stacklevel - 1, sys._getframe(1)) + 2
    return warnings.warn(message, category, depth, source)


def getframe_(depth=0):
    """sys._getframe counting the user's frames, as before conversion."""
    if not isinstance(depth, int):
        return sys._getframe(depth)  # its own TypeError
    caller = sys._getframe(1)
    return sys._getframe(_physical_depth(depth, caller) + 1)


def _numpy_scalar_type_overload(kind):
    """The overload of a NumPy scalar type (np.float64(x), np.int32(x), ...): on a
    symbolic value, NumPy's conversion (astype, truncating toward zero to an int)."""

    def overload(*args, **kwargs):
        if (len(args) == 1 and not kwargs and type(args[0]) not in PLAIN_TYPES
                and is_tensor(args[0])):
            return graph_builtins.as_numpy_type(args[0], kind)
        return kind(*args, **kwargs)

    overload.__name__ = overload.__qualname__ = kind.__name__ + "_"
    overload.__doc__ = f"`np.{kind.__name__}` of converted code: the type itself on Python values."
    return overload


_NUMPY_SCALAR_TYPES = sorted(
    {t for t in np.sctypeDict.values()
     if isinstance(t, type) and issubclass(t, (np.number, np.bool_))},
    key=lambda t: t.__name__)


# builtin -> overload; converted_call routes calls of these builtins to their overloads.
BUILTIN_OVERLOADS = {
    **{getattr(math, name): _first_arg_overload(getattr(math, name))
       for name in rt.MATH_FUNCTIONS},
    builtins.print: print_,
    builtins.len: len_,
    builtins.range: range_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
    builtins.reversed: reversed_,
    builtins.abs: abs_,
    builtins.int: int_,
    builtins.float: float_,
    builtins.complex: complex_,
    builtins.bool: bool_,
    builtins.min: min_,
    builtins.max: max_,
    builtins.sum: sum_,
    builtins.any: any_,
    builtins.all: all_,
    builtins.isinstance: isinstance_,
    builtins.next: next_,
    builtins.iter: iter_,
    warnings.warn: warn_,
    sys._getframe: getframe_,
    **graph_arrays.OVERLOADS,   # NumPy array creation with symbolic sizes
    **graph_random.OVERLOADS,   # np.random.seed, generators made while tracing
    **formatting.OVERLOADS,     # str, repr, format, str.format: texts of symbolic values
    **{t: _numpy_scalar_type_overload(t) for t in _NUMPY_SCALAR_TYPES},
}


def overload_of(builtin):
    """The overload of a builtin, or None (`text.format` of a str: format_ bound to it; a
    random draw while tracing: rt.draw)."""
    try:
        overload = BUILTIN_OVERLOADS.get(builtin)
    except TypeError:  # unhashable callables are never builtins
        return None
    if (overload is None and type(builtin) is _BUILTIN_METHOD
            and type(builtin.__self__) is str and builtin.__name__ == "format"):
        return functools.partial(formatting.format_, builtin.__self__)
    if (overload is None and type(builtin) is types.MethodType
            and rt.is_random_method(builtin)):
        return graph_random.method_overload(builtin)   # (rng.normal(...), np.random.rand)
    if (overload is None and type(builtin) is _BUILTIN_METHOD
            and type(builtin.__self__) is list
            and builtin.__name__ in data_structures.LIST_CHANGES):
        return functools.partial(data_structures.list_method, builtin)   # (self.log.append)
    if (overload is None and type(builtin) is _BUILTIN_METHOD
            and type(builtin.__self__) is dict and builtin.__name__ in _DICT_VIEWS):
        return functools.partial(_dict_view, builtin)   # (self.params.items())
    if overload is None:
        overload = rt.numpy_overload(builtin)   # (tensors nested in a NumPy call's lists)
    return overload


_DICT_VIEWS = frozenset({"items", "keys", "values"})


def _dict_view(method, *args, **kwargs):
    """`d.items()` (keys, values) of converted code: the view, its dict's length read by
    a trace being built (rt.read_length)."""
    if _READING[0]:
        rt.read_length(method.__self__)
    return method(*args, **kwargs)


_BUILTIN_METHOD = type("".format)


# Overloads for calls that pass exactly one, two or three positional arguments (and nothing
# else), which converted code routes through `converted_1` to `converted_3`: the same decision as
# the general overloads, with a fixed signature (no *args/**kwargs to pack on every call).
def _fixed_arity(builtin, arity, any_arg):
    graph_path = _graph_path(builtin)
    reads = builtin in _READS_LENGTH
    if arity == 1:
        def overload(first, /):
            if type(first) not in PLAIN_TYPES and is_tensor(first):
                return graph_path(first)
            if reads and _READING[0] and (type(first) is list or type(first) is dict):
                rt.read_length(first)
            return builtin(first)
    elif arity == 3:
        def overload(first, second, third, /):
            if ((type(first) not in PLAIN_TYPES or type(second) not in PLAIN_TYPES
                 or type(third) not in PLAIN_TYPES)
                    and (is_tensor(first) or is_tensor(second) or is_tensor(third))
                    if any_arg else type(first) not in PLAIN_TYPES and is_tensor(first)):
                return graph_path(first, second, third)
            if reads and _READING[0]:
                for value in (first, second, third):
                    if type(value) is list or type(value) is dict:
                        rt.read_length(value)
            return builtin(first, second, third)
    elif any_arg:
        def overload(first, second, /):
            if ((type(first) not in PLAIN_TYPES or type(second) not in PLAIN_TYPES)
                    and (is_tensor(first) or is_tensor(second))):
                return graph_path(first, second)
            if reads and _READING[0]:
                for value in (first, second):
                    if type(value) is list or type(value) is dict:
                        rt.read_length(value)
            return builtin(first, second)
    else:
        def overload(first, second, /):
            if type(first) not in PLAIN_TYPES and is_tensor(first):
                return graph_path(first, second)
            return builtin(first, second)
    return _named(overload, builtin)


_ANY_ARG = (builtins.range, builtins.enumerate, builtins.zip, builtins.complex)
_FIRST_ARG = (builtins.len, builtins.reversed, builtins.abs, builtins.int, builtins.float,
              builtins.bool, builtins.sum, builtins.isinstance, builtins.iter) + tuple(
                  getattr(math, name) for name in rt.MATH_FUNCTIONS)
# arity -> {builtin: overload for calls with exactly that many positional arguments}
FIXED_ARITY_OVERLOADS = {
    arity: {**{b: _fixed_arity(b, arity, True) for b in _ANY_ARG},
            **{b: _fixed_arity(b, arity, False) for b in _FIRST_ARG},
            builtins.print: print_, builtins.min: min_, builtins.max: max_,
            builtins.any: any_, builtins.all: all_}
    for arity in (1, 2, 3)}
