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


def _overload(builtin, symbolic_args):
    """The overload of `builtin`: the builtin itself unless `symbolic_args(args, kwargs)`,
    which says whether an argument is symbolic (then the graph path takes the call)."""
    name = builtin.__name__

    def overload(*args, **kwargs):
        if symbolic_args(args, kwargs):
            return graph_path(name, *args, **kwargs)
        return builtin(*args, **kwargs)

    overload.__name__ = overload.__qualname__ = name + "_"
    overload.__doc__ = f"`{name}` of converted code: the builtin on Python values."
    return overload


def _first_symbolic(args, kwargs):
    return bool(args) and type(args[0]) not in PLAIN_TYPES and is_tensor(args[0])


def _positional_symbolic(args, kwargs):
    return _any_symbolic(args)


def _any_argument_symbolic(args, kwargs):
    return _any_symbolic(args) or _any_symbolic(kwargs.values())


print_ = _overload(builtins.print, _positional_symbolic)
len_ = _overload(builtins.len, _first_symbolic)
range_ = _overload(builtins.range, _positional_symbolic)
enumerate_ = _overload(builtins.enumerate, _any_argument_symbolic)
zip_ = _overload(builtins.zip, _positional_symbolic)
abs_ = _overload(builtins.abs, _first_symbolic)
int_ = _overload(builtins.int, _first_symbolic)
float_ = _overload(builtins.float, _first_symbolic)
bool_ = _overload(builtins.bool, _first_symbolic)
min_ = _overload(builtins.min, _positional_symbolic)
max_ = _overload(builtins.max, _positional_symbolic)
sum_ = _overload(builtins.sum, _first_symbolic)
any_ = _overload(builtins.any, _first_symbolic)
all_ = _overload(builtins.all, _first_symbolic)
isinstance_ = _overload(builtins.isinstance, _first_symbolic)
next_ = _overload(builtins.next, _first_symbolic)
iter_ = _overload(builtins.iter, _first_symbolic)


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


def register_generated_code(block_codes, lambda_codes):
    """Records code objects of converted code: block functions that overloads call, and
    lambdas (generated or the user's: only those called by an overload are added frames)."""
    for code in block_codes:
        _block_codes[id(code)] = code
    for code in lambda_codes:
        _lambda_codes[id(code)] = code


def is_added_frame(frame):
    """True for a stack frame that exists only because the code was converted."""
    code = frame.f_code
    if code.co_filename in _OPERATOR_FILES:
        return True
    if _block_codes.get(id(code)) is code:
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


def warn_(message, category=None, stacklevel=1, source=None):
    """warnings.warn with `stacklevel` counted in the user's frames, as before conversion."""
    if not isinstance(stacklevel, int):
        return warnings.warn(message, category, stacklevel, source)  # its own TypeError
    # +1 for this function's own frame; warnings counts the caller of warn as level 1.
    depth = _physical_depth(stacklevel - 1, sys._getframe(1)) + 2
    return warnings.warn(message, category, depth, source)


def getframe_(depth=0):
    """sys._getframe counting the user's frames, as before conversion."""
    if not isinstance(depth, int):
        return sys._getframe(depth)  # its own TypeError
    caller = sys._getframe(1)
    return sys._getframe(_physical_depth(depth, caller) + 1)


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
    sys._getframe: getframe_,
}


def overload_of(builtin):
    """The overload of a builtin, or None."""
    try:
        return BUILTIN_OVERLOADS.get(builtin)
    except TypeError:  # unhashable callables are never builtins
        return None
