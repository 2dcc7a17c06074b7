"""Control-flow ops: `cond` (two branch graphs) and `while` (cond and body graphs).

Nested graphs take their explicit inputs first, then their captures; the node's inputs
are in the same order (after the predicate, for `cond`). Both graphs of a node capture the
same outer values in the same order. Tracing them is runtime/control_flow.py's job; here
are their NumPy kernels, built by the executor from the compiled nested graphs.

A control-flow op's `make_control_kernel(node, ctx, owned_inputs)` returns
(kernel, owned_outputs, written_inputs): `ctx.compile(graph, owned_inputs, scalar_return)`
compiles a nested graph; "owned" inputs may be updated in place (nothing else sees them).
"""

import numpy as np

from runtime.ops import defop
from runtime.ops.state import TensorArrayBuffer


def _no_infer(*args, **kwargs):
    raise TypeError("control-flow nodes are built by rt.cond / rt.while_loop")


def copy_buffer(value):
    if isinstance(value, (np.ndarray, TensorArrayBuffer)):
        return value.copy()
    return value


def _cond_control_kernel(node, ctx, owned_inputs):
    then_compiled = ctx.compile(node.attrs["then_branch"], owned_inputs[1:])
    else_compiled = ctx.compile(node.attrs["else_branch"], owned_inputs[1:])
    then_run, else_run = then_compiled.run, else_compiled.run

    def cond(pred, *args):
        if pred:
            return then_run(*args)
        return else_run(*args)

    owned = [a and b for a, b in zip(then_compiled.owned_outputs, else_compiled.owned_outputs)]
    written = [False] + [a or b for a, b in zip(then_compiled.written_inputs,
                                                else_compiled.written_inputs)]
    return cond, owned, written


def _cond_format(node, namer):
    # Captured inputs are shown where they are bound: in the branch signatures ("<- %n").
    return "cond %s" % namer(node.inputs[0])


def _while_format(node, namer):
    return "while %s" % ", ".join(namer(v) for v in node.inputs[:node.attrs["n_loop_vars"]])


cond = defop("cond", infer=_no_infer, control_flow=True, format=_cond_format,
             doc="outputs = then_branch(*captures) if pred else else_branch(*captures)")
cond.make_control_kernel = _cond_control_kernel


def _while_control_kernel(node, ctx, owned_inputs):
    n = node.attrs["n_loop_vars"]
    body_graph, cond_graph = node.attrs["body"], node.attrs["cond"]
    n_captures = len(node.inputs) - n
    # Loop variables may be updated in place inside the body when every iteration hands
    # the next one a buffer nobody else sees; find the largest such set (a fixpoint).
    assumed = [True] * n
    while True:
        body_compiled = ctx.compile(body_graph, assumed + [False] * n_captures)
        narrowed = [a and o for a, o in zip(assumed, body_compiled.owned_outputs)]
        if narrowed == assumed:
            break
        assumed = narrowed
    cond_compiled = ctx.compile(cond_graph, [False] * (n + n_captures), scalar_return=True)
    written_in_body = body_compiled.written_inputs[:n]
    copy_at_entry = tuple(i for i in range(n)
                          if assumed[i] and written_in_body[i] and not owned_inputs[i])
    cond_run, body_run = cond_compiled.run, body_compiled.run

    if n_captures == 0 and not copy_at_entry:
        def while_(*loop_vars):
            while cond_run(*loop_vars):
                loop_vars = body_run(*loop_vars)
            return loop_vars
    else:
        def while_(*args):
            loop_vars, captures = args[:n], args[n:]
            if copy_at_entry:
                loop_vars = list(loop_vars)
                for i in copy_at_entry:
                    loop_vars[i] = copy_buffer(loop_vars[i])
                loop_vars = tuple(loop_vars)
            while cond_run(*loop_vars, *captures):
                loop_vars = body_run(*loop_vars, *captures)
            return loop_vars

    owned = [assumed[i] and (owned_inputs[i] or i in copy_at_entry) for i in range(n)]
    written = [owned_inputs[i] and written_in_body[i] for i in range(n)] + [False] * n_captures
    return while_, owned, written


while_ = defop("while", infer=_no_infer, control_flow=True, format=_while_format,
               doc="loop_vars = body(*loop_vars, *captures) while cond(*loop_vars, *captures)")
while_.make_control_kernel = _while_control_kernel
