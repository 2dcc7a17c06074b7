"""`a if cond else b` as an overload: only the chosen branch runs on Python values."""

from autograph.operators.symbolic import PLAIN_TYPES, graph_path, is_tensor


def if_exp(cond, if_true, if_false, expr_repr):
    """`a if cond else b` as `ag__.if_exp(cond, lambda: a, lambda: b, expr_repr)()`:
    returns the function computing the value (`expr_repr` is the source text, for errors).

    On Python values that is the chosen branch itself, called by the user's function, so
    it adds one stack frame, not two. On a symbolic condition the graph path computes the
    value, and a function returning it is returned.
    """
    if type(cond) not in PLAIN_TYPES and is_tensor(cond):
        value = graph_path("if_exp", cond, if_true, if_false, expr_repr)
        return lambda: value
    return if_true if cond else if_false
