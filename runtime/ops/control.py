"""Control-flow ops: `cond` (two branch graphs) and `while` (cond and body graphs).

Nested graphs take their explicit inputs first, then their captures; the node's inputs
are in the same order (after the predicate, for `cond`). Both graphs of a node capture the
same outer values in the same order. Tracing them is runtime/control_flow.py's job; here
is how the NumPy interpreter plans them, which it then writes into the generated function
of the graph around them as a Python `if` or `while` (numpy_exec.py).

A control-flow op's `plan_control(node, ctx, owned_inputs, private_inputs)` returns
(plan, owned_outputs, written_inputs, private_outputs): `ctx.compile(graph, owned_inputs,
carried=(), private_inputs=None)` plans a nested graph; "owned" inputs may be updated in
place (nothing else sees them), "private" ones also hold values Python computes in new
arrays (runtime/executors/planning.py), and `carried` pairs a loop body's inputs with the
outputs the next iteration gets for them (numpy_exec.CompiledGraph).
"""

from collections import namedtuple

import numpy as np

from runtime.executors import planning
from runtime.ops.registry import defop
from runtime.tensor_array_buffer import TensorArrayBuffer

# The planned nested graphs of a node, and the loop variables a `while` copies at entry
# (planning.while_ownership).
CondPlan = namedtuple("CondPlan", "then_branch else_branch")
WhilePlan = namedtuple("WhilePlan", "cond body n_loop_vars copy_at_entry")


def _no_infer(*args, **kwargs):
    raise TypeError("control-flow nodes are built by rt.cond / rt.while_loop")


def copy_buffer(value):
    if isinstance(value, (np.ndarray, TensorArrayBuffer)):
        return value.copy()
    return value


def _private(owned, private):
    return [o and p for o, p in zip(owned, private)]


def _plan_cond(node, ctx, owned_inputs, private_inputs):
    def plan_branch(graph, owned):
        return ctx.compile(graph, owned, private_inputs=_private(owned, private_inputs[1:]))

    then_compiled, else_compiled, owned, written = planning.cond_ownership(
        node, owned_inputs, plan_branch)
    private = [a and b for a, b in zip(then_compiled.private_outputs,
                                       else_compiled.private_outputs)]
    return CondPlan(then_compiled, else_compiled), owned, written, _private(owned, private)


def _cond_format(node, namer):
    # Captured inputs are shown where they are bound: in the branch signatures ("<- %n").
    return "cond %s" % namer(node.inputs[0])


def _while_format(node, namer):
    return "while %s" % ", ".join(namer(v) for v in node.inputs[:node.attrs["n_loop_vars"]])


cond = defop("cond", infer=_no_infer, control_flow=True, format=_cond_format,
             doc="outputs = then_branch(*captures) if pred else else_branch(*captures)")
cond.plan_control = _plan_cond


def _plan_while(node, ctx, owned_inputs, private_inputs):
    n = node.attrs["n_loop_vars"]
    n_captures = len(node.inputs) - n
    # The loop variables private on every iteration: at entry, and as the body's outputs
    # when they are at its start (the largest such set: a fixpoint).
    private = _private(owned_inputs[:n], private_inputs[:n])
    while True:
        def plan_body(graph, owned):
            # (Output i is the next iteration's input i: `dkernel += ...` may be computed
            # in the loop variable's buffer, as Python does.)
            return ctx.compile(graph, owned, carried=[(i, i) for i in range(n)],
                               private_inputs=_private(owned, private) + [False] * n_captures)

        body_compiled, copy_at_entry, owned, written = planning.while_ownership(
            node, owned_inputs, plan_body)
        narrowed = _private(private, body_compiled.private_outputs)
        if narrowed == private:
            break
        private = narrowed
    cond_compiled = ctx.compile(node.attrs["cond"], [False] * len(node.inputs))
    plan = WhilePlan(cond_compiled, body_compiled, n, copy_at_entry)
    return plan, owned, written, _private(owned, private)


while_ = defop("while", infer=_no_infer, control_flow=True, format=_while_format,
               doc="loop_vars = body(*loop_vars, *captures) while cond(*loop_vars, *captures)")
while_.plan_control = _plan_while
