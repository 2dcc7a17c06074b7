"""`a if cond else b` as an overload: only the chosen branch runs on Python values."""

from autograph.operators.graph import conditionals as graph_conditionals
from autograph.operators.symbolic import PLAIN_TYPES, is_tensor


def if_exp(cond, if_true, if_false, expr_repr):
    """The function computing `a if cond else b`: `if_true` or `if_false` on Python values.

    Generated code calls what it returns: `ag__.if_exp(c, lambda: a, lambda: b, '...')()`,
    so the branch runs one frame above the user's function, not two (recursion through a
    conditional expression stays close to Python's limit). `expr_repr` is the source text,
    for errors. On a symbolic condition the graph path computes the value, and a function
    returning it is returned.
    """
    if type(cond) not in PLAIN_TYPES and is_tensor(cond):
        value = graph_conditionals.if_exp(cond, if_true, if_false, expr_repr)
        return lambda: value
    return if_true if cond else if_false
