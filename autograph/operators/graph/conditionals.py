"""Graph paths of `if` statements, `a if c else b`, and `and`/`or`/`not` on symbolic values."""

import numpy as np

import runtime as rt
from runtime import errors as rt_errors
from autograph.operators.graph import common, lists
from autograph.operators.graph.registry import graph_path_of


class _Unchanged:
    """Stands for a variable both branches leave as the very same object (handles mutated
    in place included: rt.cond carries their item assignments out by itself)."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return "<unchanged>"


def restore_rebound(graph):
    """Points the outer handles a failed branch or body rebound back at their old values."""
    if graph is None:
        return
    for handle, original in list(graph.rebound.values()):
        handle._value = original


@graph_path_of("if_stmt")
def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """`if` on a symbolic condition: an rt.cond whose outputs are the statement's outputs
    (variables modified in either branch and live after it, and attribute/item targets)."""
    location = rt_errors.capture_location()
    pred = common.is_truthy_scalar_tensor(cond, "the condition of an if statement")
    init = tuple(get_state())
    names = list(symbol_names)
    outputs = []

    def branch(block, label):
        def traced():
            graph = rt.current_graph()
            snapshots = lists.snapshot_python_lists(init)
            try:
                set_state(init)
                if block is not None:
                    block()
                out = list(get_state())
                lists.check_python_lists_unchanged(snapshots, names, label, location)
            except BaseException:
                restore_rebound(graph)
                raise
            outputs.append(out)
            if len(outputs) == 2:
                _reconcile(outputs[0], outputs[1], init, names, orelse is not None, location)
            return out
        return traced

    result = rt.cond(pred, branch(body, "if"), branch(orelse, "else"), names=names)
    final = []
    for k, value in enumerate(result):
        if isinstance(value, _Unchanged):
            value = init[k]
        else:
            value = lists.rewrap_like(value, outputs[0][k], outputs[1][k])
        final.append(value)
    set_state(tuple(final))
    return None


def _reconcile(then_out, else_out, init, names, has_else, location):
    """Makes the two branches' outputs comparable, in place: shared objects become markers,
    return values not set yet become placeholders of the other branch's type; a variable
    defined in one branch only is an error."""
    for k, name in enumerate(names):
        a, b = then_out[k], else_out[k]
        a_undefined, b_undefined = common.is_undefined(a), common.is_undefined(b)
        if a_undefined and b_undefined:
            then_out[k] = else_out[k] = init[k] if common.is_undefined(init[k]) else a
            continue
        if a_undefined or b_undefined:
            missing, defined = ("if", "else") if a_undefined else ("else", "if")
            raise common.UndefinedInBranchError(
                "'%s' must also be defined in the %s branch: the if statement at %s defines "
                "it in the %s branch only, and it is used after the statement; define it "
                "before the if statement or in both branches%s"
                % (name, missing, rt_errors.format_location(location), defined,
                   "" if has_else else " (this if statement has no else branch)"))
        a_placeholder = common.is_return_placeholder(name, a)
        b_placeholder = common.is_return_placeholder(name, b)
        if a_placeholder and not b_placeholder:
            then_out[k] = a = common.dummy_like(b)
        elif b_placeholder and not a_placeholder:
            else_out[k] = b = common.dummy_like(a)
        if a is init[k] and b is init[k] and (rt.is_tensor(a) or lists.is_tensor_list(a)):
            then_out[k] = else_out[k] = _Unchanged(k)


@graph_path_of("if_exp")
def if_exp(cond, if_true, if_false, expr_repr):
    """`a if cond else b` on a symbolic condition: an rt.cond of the two expressions."""
    pred = common.is_truthy_scalar_tensor(cond, "the condition of %r" % (expr_repr,))
    return rt.cond(pred, if_true, if_false, names=[expr_repr])


@graph_path_of("and_")
def and_(a, b_fn):
    """`a and b`: b is computed (in the graph) only when a is true; the result is b then,
    else a, as Python returns."""
    pred = common.is_truthy_scalar_tensor(a, "the left operand of 'and'")
    return rt.cond(pred, b_fn, lambda: a, names=["the value of an 'and' expression"])


@graph_path_of("or_")
def or_(a, b_fn):
    """`a or b`: b is computed (in the graph) only when a is false."""
    pred = common.is_truthy_scalar_tensor(a, "the left operand of 'or'")
    return rt.cond(pred, lambda: a, b_fn, names=["the value of an 'or' expression"])


@graph_path_of("not_")
def not_(a):
    return np.logical_not(common.is_truthy_scalar_tensor(a, "the operand of 'not'"))
