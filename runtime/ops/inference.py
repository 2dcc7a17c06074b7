"""Helpers the ops' inference rules share: NumPy broadcasting with unknown (None) dims, axis
normalisation, and stand-in operands that give NumPy's result dtypes."""

import numpy as np

from runtime.graph import NO_LITERAL, TENSOR_ARRAY


def dummy(v):
    """A tiny stand-in for `v` whose NumPy result dtype equals the real one (literals are
    themselves, so NEP 50 weak-scalar rules and overflow checks behave exactly)."""
    if v.literal is not NO_LITERAL:
        return v.literal
    if v.kind == TENSOR_ARRAY:
        raise TypeError("a TensorArray cannot be used as an array operand; call .stack() first")
    return np.ones((1,) * len(v.shape), dtype=v.dtype)


def broadcast_shapes(*shapes):
    """NumPy broadcasting with unknown (None) dims."""
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(ndim):
        dims = [s[len(s) - ndim + axis] for s in shapes if len(s) - ndim + axis >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError("operands could not be broadcast together with shapes %s"
                             % " ".join("(%s)" % ",".join("?" if d is None else str(d) for d in s)
                                        for s in shapes))
        if known:
            result.append(known.pop())
        elif any(d is None for d in dims):
            result.append(None)
        else:
            result.append(1)
    return tuple(result)


def normalize_axis(axis, ndim, name="axis"):
    if not isinstance(axis, (int, np.integer)):
        raise TypeError("%s must be a Python int in graphs, got %r" % (name, axis))
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(int(axis), ndim)
    return int(axis) % ndim if ndim else 0


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    return (normalize_axis(axis, ndim),)


def prod_or_none(dims):
    total = 1
    for d in dims:
        if d is None:
            return None
        total *= d
    return total
