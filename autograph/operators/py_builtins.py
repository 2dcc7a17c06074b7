"""Overloads of Python builtins: exactly the builtin on Python values, graph ops on tensors.

Each overload takes the builtin's arguments unchanged and, when no argument is symbolic,
calls the builtin itself, so results, exceptions and messages are the builtin's own.
"""

import builtins
import os
import sys
import warnings

from autograph.operators.symbolic import PLAIN_TYPES, graph_path, is_tensor


def _any_symbolic(args):
    for value in args:
        if type(value) not in PLAIN_TYPES and is_tensor(value):
            return True
    return False


def print_(*objects, **kwargs):
    if _any_symbolic(objects):
        return graph_path("print", *objects, **kwargs)
    return builtins.print(*objects, **kwargs)


def len_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("len", *args, **kwargs)
    return builtins.len(*args, **kwargs)


def range_(*args, **kwargs):
    if _any_symbolic(args):
        return graph_path("range", *args, **kwargs)
    return builtins.range(*args, **kwargs)


def enumerate_(*args, **kwargs):
    if _any_symbolic(args) or _any_symbolic(kwargs.values()):
        return graph_path("enumerate", *args, **kwargs)
    return builtins.enumerate(*args, **kwargs)


def zip_(*args, **kwargs):
    if _any_symbolic(args):
        return graph_path("zip", *args, **kwargs)
    return builtins.zip(*args, **kwargs)


def abs_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("abs", *args, **kwargs)
    return builtins.abs(*args, **kwargs)


def int_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("int", *args, **kwargs)
    return builtins.int(*args, **kwargs)


def float_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("float", *args, **kwargs)
    return builtins.float(*args, **kwargs)


def bool_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("bool", *args, **kwargs)
    return builtins.bool(*args, **kwargs)


def min_(*args, **kwargs):
    if _any_symbolic(args):
        return graph_path("min", *args, **kwargs)
    return builtins.min(*args, **kwargs)


def max_(*args, **kwargs):
    if _any_symbolic(args):
        return graph_path("max", *args, **kwargs)
    return builtins.max(*args, **kwargs)


def sum_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("sum", *args, **kwargs)
    return builtins.sum(*args, **kwargs)


def any_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("any", *args, **kwargs)
    return builtins.any(*args, **kwargs)


def all_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("all", *args, **kwargs)
    return builtins.all(*args, **kwargs)


def isinstance_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("isinstance", *args, **kwargs)
    return builtins.isinstance(*args, **kwargs)


def next_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("next", *args, **kwargs)
    return builtins.next(*args, **kwargs)


def iter_(*args, **kwargs):
    if args and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0]):
        return graph_path("iter", *args, **kwargs)
    return builtins.iter(*args, **kwargs)


# Frames that converted code adds between a user's function and what it calls: overload
# frames of control flow, and the block functions (if_body, loop_body, lambdas of lazy
# operators) those overloads call, which live in generated modules.
_OPERATOR_FILES = frozenset(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    for name in ("control_flow.py", "logical.py", "conditional_expressions.py",
                 "exceptions.py"))
_GENERATED_MODULE_MARK = "__autograph_generated_"


def is_added_frame(frame):
    """True for a stack frame that exists only because the code was converted."""
    filename = frame.f_code.co_filename
    if filename in _OPERATOR_FILES:
        return True
    caller = frame.f_back
    return (caller is not None and caller.f_code.co_filename in _OPERATOR_FILES
            and _GENERATED_MODULE_MARK in filename)


def warn_(message, category=None, stacklevel=1, source=None):
    """warnings.warn with `stacklevel` counted in the user's frames, as before conversion."""
    frame = sys._getframe(1)
    physical = 1
    remaining = stacklevel - 1 if isinstance(stacklevel, int) else 0
    # A block function and the overloads above it are the same user function as the
    # first frame above them that is not an added frame.
    while remaining > 0 and frame.f_back is not None and is_added_frame(frame):
        frame = frame.f_back
        physical += 1
    while remaining > 0 and frame is not None:
        frame = frame.f_back
        physical += 1
        if frame is not None and not is_added_frame(frame):
            remaining -= 1
    if not isinstance(stacklevel, int):
        physical = stacklevel  # let warnings.warn raise its own TypeError
    else:
        physical += 1  # this function's own frame
    return warnings.warn(message, category, physical, source)


# builtin -> overload; converted_call routes calls of these builtins to their overloads.
BUILTIN_OVERLOADS = {
    builtins.print: print_,
    builtins.len: len_,
    builtins.range: range_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
    builtins.abs: abs_,
    builtins.int: int_,
    builtins.float: float_,
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
}


def overload_of(builtin):
    """The overload of a builtin, or None."""
    try:
        return BUILTIN_OVERLOADS.get(builtin)
    except TypeError:  # unhashable callables are never builtins
        return None
