"""What the graph paths share: user locations for messages, the errors they raise, and
placeholder values standing in for variables that a graph statement has yet to define."""

import re

import numpy as np

import runtime as rt
from runtime import errors as rt_errors
from autograph.core.errors import StagingError
from autograph.operators.special_values import Undefined, UndefinedReturnValue


class UndefinedInBranchError(StagingError, UnboundLocalError):
    """A variable a graph `if` must output is defined in one branch only.

    An UnboundLocalError too: run as Python, the same code fails that way when it reads the
    variable on the path that did not define it."""


class LoopVariableError(StagingError, TypeError):
    """A graph loop variable changes in a way that cannot be reconciled."""


def user_location():
    """'file:line in function' of the user code running the statement (mapped back to the
    original source when a location mapper is installed)."""
    return rt_errors.format_location(rt_errors.capture_location())


# The return-statement converter initialises its return value variable with None (or
# UndefinedReturnValue): before the `return` runs it means "no value yet", not a None value.
_RETVAL_NAME = re.compile(r"^retval_(_\d+)?$")


def is_return_placeholder(name, value):
    """True for the converter's return value variable while no `return` has set it."""
    if isinstance(value, UndefinedReturnValue):
        return True
    return value is None and name is not None and _RETVAL_NAME.match(name) is not None


def is_undefined(value):
    return type(value) is Undefined


def dummy_like(value):
    """A concrete value of the same type as `value` (tensors: zeros of the same dtype, unknown
    dims as 0), for variables that a graph statement defines on some paths only and that
    are never read on the others (the return value before a `return`, loop outputs when the
    loop runs at least once). Nested structures keep their structure."""
    if rt.is_tensor(value):
        shape = tuple(d if d is not None else 0 for d in value.static_shape)
        zeros = np.zeros(shape, dtype=value.dtype)
        return zeros[()] if not shape else zeros
    if isinstance(value, np.ndarray):
        return np.zeros_like(value)
    if isinstance(value, np.generic):
        return value.dtype.type(0)
    if isinstance(value, (bool, int, float, complex)):
        return type(value)(0)
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*[dummy_like(v) for v in value])
    if isinstance(value, (tuple, list)):
        return type(value)(dummy_like(v) for v in value)
    if isinstance(value, dict):
        return {k: dummy_like(v) for k, v in value.items()}
    return value  # other Python objects pass through a graph statement unchanged


def type_text(value):
    if rt.is_tensor(value):
        return "a tensor %s%s" % (value.dtype, list(value.static_shape)) if value.ndim else \
            "a tensor %s scalar" % value.dtype
    return "a Python %s" % type(value).__name__


def is_truthy_scalar_tensor(value, what):
    """The bool tensor Python's truth test of `value` would compute (rank 0 only)."""
    if value.ndim != 0:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all() (%s is %s)"
                         % (what, type_text(value)))
    if value.dtype == np.bool_:
        return value
    return np.not_equal(value, 0)
