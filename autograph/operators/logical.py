"""Lazy `and`, `or`, `not`: the right operand runs only when Python would run it."""

from autograph.operators.symbolic import PLAIN_TYPES, graph_path, is_tensor


def and_(a, b_fn):
    """`a and b`: returns the same object Python returns; `b_fn` computes b."""
    if type(a) not in PLAIN_TYPES and is_tensor(a):
        return graph_path("and_", a, b_fn)
    return a and b_fn()


def or_(a, b_fn):
    """`a or b`: returns the same object Python returns; `b_fn` computes b."""
    if type(a) not in PLAIN_TYPES and is_tensor(a):
        return graph_path("or_", a, b_fn)
    return a or b_fn()


def not_(a):
    """`not a`."""
    if type(a) not in PLAIN_TYPES and is_tensor(a):
        return graph_path("not_", a)
    return not a
