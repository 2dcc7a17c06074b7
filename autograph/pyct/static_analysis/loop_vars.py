"""Which variables a loop or an `if` carries: the design's loop-variable rule, in one place.

Run `analyze(function_node)` (or the individual analyses) first; these helpers only read
the annotations: BODY_SCOPE / ORELSE_SCOPE / COND_SCOPE, LIVE_VARS_IN / LIVE_VARS_OUT /
LIVE_VARS_IN_BODY and DEFINED_VARS_IN.

The rule (DESIGN.md, principle 4), precisely:
  * a simple name is a loop variable when the loop modifies it -- in the body, in a
    `while` condition (walrus) or as a `for` target -- and it is live at the start of an
    iteration (LIVE_VARS_IN_BODY: before the `while` test or the fetch of the next item;
    this includes what the body reads before writing, the condition, the `else` block
    and what is used after the loop) or live out of the loop (LIVE_VARS_OUT);
  * a composite (`self.a`, `d[k]`) is a loop variable when the loop modifies it and every
    simple name of its support set (`self`; `d` and `k`) is live at the start of an
    iteration -- i.e. the object existed before the loop, so the mutation is visible
    after it (a composite of an object created inside the loop stays local);
  * everything else the body modifies is local to the body (a variable overwritten
    before being read in each iteration and unused afterwards is not a loop variable);
  * modifications made in a loop's `else` block do not make loop variables.
Branches (`if`) follow the same rule with "live out of the if" in place of "live at the
start of an iteration": a branch output is a simple name modified by either branch and
live after the `if`, or a modified composite whose support set is live into the `if`.
"""

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis import liveness
from autograph.pyct.static_analysis import reaching_definitions
from autograph.pyct.static_analysis import reaching_fndefs


def analyze(node, ctx=None):
    """Runs every analysis this module needs on `node` (a function, lambda or module).

    Returns the CFGs ({function node: cfg.Graph}).
    """
    activity.resolve(node, ctx)  # resolves qualified names first
    graphs = cfg.build(node)
    liveness.resolve(node, ctx, graphs)
    reaching_definitions.resolve(node, ctx, graphs)
    reaching_fndefs.resolve(node, ctx, graphs)
    return graphs


def _enclosing_declarations(scope):
    function_scope = scope.enclosing_scope
    if function_scope is None:
        return set()
    return function_scope.globals | function_scope.nonlocals


def _select(modified, live, support_live, defined_in, declared):
    carried = set()
    for symbol in modified:
        if symbol.is_composite():
            if all(s in support_live for s in symbol.support_set):
                carried.add(symbol)
        elif symbol in live:
            carried.add(symbol)
    undefined = {s for s in carried
                 if not s.is_composite() and s not in defined_in and s not in declared}
    return tuple(sorted(carried)), tuple(sorted(undefined))


def loop_variables(loop_node):
    """Returns (loop_vars, undefined_before) for a While, For or AsyncFor node.

    loop_vars: sorted tuple of QNs the loop carries (simple names and composites, per
    the module docstring). undefined_before: the simple loop variables that are not
    defined on every path reaching the loop (DEFINED_VARS_IN), excluding names declared
    global or nonlocal; a converter must give them an "undefined" placeholder first.
    """
    body = anno.getanno(loop_node, anno.Static.BODY_SCOPE)
    modified = set(body.modified)
    if isinstance(loop_node, gast.While):
        modified |= anno.getanno(loop_node, anno.Static.COND_SCOPE).modified
    elif isinstance(loop_node, (gast.For, gast.AsyncFor)):
        modified |= activity.effects(loop_node.target).modified
    else:
        raise TypeError(f"not a loop: {cfg.describe(loop_node)}")
    live_at_iteration = anno.getanno(loop_node, anno.Static.LIVE_VARS_IN_BODY)
    live_out = anno.getanno(loop_node, anno.Static.LIVE_VARS_OUT)
    return _select(modified, live_at_iteration | live_out, live_at_iteration,
                   anno.getanno(loop_node, anno.Static.DEFINED_VARS_IN),
                   _enclosing_declarations(body))


def branch_outputs(if_node):
    """Returns (outputs, undefined_before) for an If node.

    outputs: sorted tuple of QNs modified by the body or the else block and live after
    the `if` (simple names), or modified composites whose support set is live into it.
    undefined_before: the simple outputs not defined on every path reaching the `if`
    (excluding global/nonlocal names): defined by one branch only, or by both.
    """
    if not isinstance(if_node, gast.If):
        raise TypeError(f"not an if statement: {cfg.describe(if_node)}")
    body = anno.getanno(if_node, anno.Static.BODY_SCOPE)
    orelse = anno.getanno(if_node, anno.Static.ORELSE_SCOPE)
    return _select(body.modified | orelse.modified,
                   anno.getanno(if_node, anno.Static.LIVE_VARS_OUT),
                   anno.getanno(if_node, anno.Static.LIVE_VARS_IN),
                   anno.getanno(if_node, anno.Static.DEFINED_VARS_IN),
                   _enclosing_declarations(body))


def branch_variables(if_node):
    """Returns (symbols, undefined_before, nouts) for an If node, for branch functions.

    symbols: the branch outputs first (as in `branch_outputs`), then the simple names a
    branch modifies that are live into the `if` but not after it (a branch function
    reading them before assigning must still declare them nonlocal); each part sorted.
    nouts: how many of `symbols` are outputs. undefined_before: as in `branch_outputs`.
    """
    outputs, undefined = branch_outputs(if_node)
    modified = (anno.getanno(if_node, anno.Static.BODY_SCOPE).modified
                | anno.getanno(if_node, anno.Static.ORELSE_SCOPE).modified)
    live_in = anno.getanno(if_node, anno.Static.LIVE_VARS_IN)
    inputs_only = sorted(s for s in modified
                         if not s.is_composite() and s in live_in and s not in outputs)
    return tuple(outputs) + tuple(inputs_only), undefined, len(outputs)
