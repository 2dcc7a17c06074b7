"""`a if cond else b` as an overload: only the chosen branch runs on Python values."""

from autograph.operators.symbolic import PLAIN_TYPES, graph_path, is_tensor


def if_exp(cond, if_true, if_false, expr_repr):
    """`if_true() if cond else if_false()`; `expr_repr` is the source text, for errors."""
    if type(cond) not in PLAIN_TYPES and is_tensor(cond):
        return graph_path("if_exp", cond, if_true, if_false, expr_repr)
    return if_true() if cond else if_false()
