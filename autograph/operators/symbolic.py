"""The one cheap question every overload asks first: is this value a symbolic runtime tensor?

An overload that meets one hands its arguments to its graph path, in
autograph/operators/graph.
"""

import numpy as _np

from runtime import TensorArray as _TensorArray
from runtime import check_iteration as _check_iteration
from runtime import is_tensor

# Values of these exact types are never symbolic: overloads test `type(x) in PLAIN_TYPES`
# first (a C-level set lookup) and only call is_tensor for anything else. Builtin iterators
# and views are included: converted loops test what they iterate.
PLAIN_TYPES = frozenset({bool, int, float, complex, str, bytes, type(None), list, tuple,
                         dict, set, frozenset, range, _np.ndarray}) | frozenset(
    t for t in _np.sctypeDict.values() if isinstance(t, type)) | frozenset(
    type(x) for x in (iter([]), iter(()), iter(range(0)), iter(""), iter({}), iter(set()),
                      {}.keys(), {}.values(), {}.items(), iter({}.values()),
                      iter({}.items()), enumerate(()), zip(), map(abs, ()),
                      filter(None, ()), reversed([]), (x for x in ())))


# The builtins that generated code's own type tests use, under ag__ (the user's `type` and
# `iter` may be shadowed or rebound; these never are).
type_ = type
iter_ = iter
# The graph forms' factory returns its own locals (the block functions it defines); the
# builtin, called through this alias, still sees the calling frame (it is C code).
locals_ = locals


def is_plain(value):
    """True when `value` is a Python value, not a symbolic tensor: what a converted
    statement tests (after `value is True or value is False`) to run inline."""
    return type(value) in PLAIN_TYPES or not is_tensor(value)


def is_plain_iterable(value):
    """True when a converted `for` runs as a Python loop over `value` (not over a Python
    iterator from outside a function being traced: rt.check_iteration refuses that)."""
    if type(value) in PLAIN_TYPES or not is_symbolic_iterable(value):
        _check_iteration(value, "a for loop over")
        return True
    return False


def is_symbolic_iterable(value):
    """What a graph loop iterates: a symbolic tensor or a runtime TensorArray."""
    return is_tensor(value) or isinstance(value, _TensorArray)


class GraphPathNotImplemented(NotImplementedError):
    """An overload met a symbolic tensor but has no graph path (e.g. next on a tensor)."""
