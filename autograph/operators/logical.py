"""Lazy `and`, `or`, `not`: the right operand runs only when Python would run it.

`and_` and `or_` return the function computing the result, and generated code calls it:
`ag__.or_(a, lambda: b)()`. On Python values that is `b`'s own lambda or a C-level function
returning `a`, so `b` runs one frame above the user's function, not two (recursion through
`x or f(x)` stays close to Python's limit).
"""

import itertools

import runtime as rt
from autograph.operators.graph import common as graph_common
from autograph.operators.graph import conditionals as graph_conditionals
from autograph.operators.symbolic import PLAIN_TYPES, is_tensor

_repeat = itertools.repeat
# Comparisons make most operands bools: their result functions are made once.
_RETURN_TRUE = _repeat(True).__next__
_RETURN_FALSE = _repeat(False).__next__


def _returning(value):
    return lambda: value


def and_(a, b_fn):
    """The function computing `a and b` (the same object Python returns); `b_fn` computes b."""
    if type(a) not in PLAIN_TYPES and is_tensor(a):
        return _returning(graph_conditionals.and_(a, b_fn))
    if a:
        return b_fn
    if a is False:
        return _RETURN_FALSE
    return _repeat(a).__next__


def or_(a, b_fn):
    """The function computing `a or b` (the same object Python returns); `b_fn` computes b."""
    if type(a) not in PLAIN_TYPES and is_tensor(a):
        return _returning(graph_conditionals.or_(a, b_fn))
    if not a:
        return b_fn
    if a is True:
        return _RETURN_TRUE
    return _repeat(a).__next__


def not_(a):
    """`not a`."""
    if type(a) not in PLAIN_TYPES and is_tensor(a):
        return graph_conditionals.not_(a)
    return not a


def is_none(value):
    """`value is None` (converted code's `x is None`, and `not is_none(x)` for `x is not
    None`): a bool tensor for a called function's result that is None on the paths where
    it fell off its end (rt.none_unless), Python's answer otherwise."""
    if value is None:
        return True
    if type(value) in PLAIN_TYPES or not is_tensor(value):
        # (A tuple a called function returns on some paths only: graph_common.function_result.)
        return graph_common.is_none_flag(value) if graph_common._results else False
    return rt.is_none(value)


def is_not_none(value):
    """`value is not None` (see is_none)."""
    if value is None:
        return False
    if type(value) in PLAIN_TYPES or not is_tensor(value):
        return not_(graph_common.is_none_flag(value)) if graph_common._results else True
    return not_(rt.is_none(value))
