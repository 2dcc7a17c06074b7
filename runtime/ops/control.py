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

from runtime.executors import planning
from runtime.ops.registry import defop
from runtime.tensor_array_buffer import TensorArrayBuffer


def _no_infer(*args, **kwargs):
    raise TypeError("control-flow nodes are built by rt.cond / rt.while_loop")


def copy_buffer(value):
    if isinstance(value, (np.ndarray, TensorArrayBuffer)):
        return value.copy()
    return value


def _cond_control_kernel(node, ctx, owned_inputs):
    then_compiled, else_compiled, owned, written = planning.cond_ownership(
        node, owned_inputs, ctx.compile)
    then_run, else_run = then_compiled.run, else_compiled.run

    def cond(pred, *args):
        if pred:
            return then_run(*args)
        return else_run(*args)

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
    n_captures = len(node.inputs) - n
    body_compiled, copy_at_entry, owned, written = planning.while_ownership(
        node, owned_inputs, ctx.compile)
    cond_compiled = ctx.compile(node.attrs["cond"], [False] * (n + n_captures),
                                scalar_return=True)
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

    return while_, owned, written


while_ = defop("while", infer=_no_infer, control_flow=True, format=_while_format,
               doc="loop_vars = body(*loop_vars, *captures) while cond(*loop_vars, *captures)")
while_.make_control_kernel = _while_control_kernel
