"""Reverse mode over the graph IR: the gradient graph of a traced function, as ordinary ops.

`vjp(graph, inputs, output_cotangents)` works on a traced function's graph (its explicit
inputs, then its captures): it *replays* the graph's nodes into the graph being built, with
its inputs bound to `inputs`, then walks the replayed nodes backwards, calling each op's
derivative rule (`@get(name).def_vjp`, declared beside the op; helpers in
runtime/ops/gradients.py), and returns the outputs and one cotangent per input. Both the
forward and the backward ops land in the graph being built, so the executors run them like
any other, and a gradient graph can be differentiated again.

Control flow has its rules here, because they recurse into this module:

- `cond`: the backward is a `cond` on the same predicate whose branches replay their
  forward branch and propagate back through it (the branch's values are recomputed, not
  kept).
- `while`: the replayed forward loop pushes its loop variables on a stack (a tensor array)
  at the start of every iteration, and the results of its products and transcendental
  functions (SAVED_OPS) once computed, and counts the iterations; the backward loop runs
  that many times, popping each iteration's values, recomputing the body's cheap rest from
  them and propagating back through it. Memory: O(iterations x (loop variables + saved
  results)). A value whose shape may change per iteration is recomputed, not saved (a
  stack holds one element shape). A tensor-array loop
  variable (a list appended in the loop) is not pushed whole: the body only appends to it,
  so its final value cut to the size it had (`ta_prefix`) stands in for every iteration's;
  only that size is pushed (a body that does anything else to one is refused). Its
  cotangent is dense: its elements' cotangents stacked, shape (size, *element_shape).

Replays inside a backward loop or branch recompute values only: prints, raises and asserts
there are left out (the forward ran them), and random draws there are refused (a recomputed
draw would differ). Cotangents of ints and bools are never formed; a node is walked only
when one of its outputs has a cotangent, and an op without a rule there is a
`NotDifferentiableError` at the user's line.
"""

import numpy as np

from runtime import errors, path_kinds
from runtime.graph import TENSOR, TENSOR_ARRAY, Graph, Value, building, current_graph, literal
from runtime.markers import DYN
from runtime.ops import gradients as d
from runtime.ops.registry import get


NotDifferentiableError = errors.NotDifferentiableError


def _lookup(env, value):
    if value.is_literal:
        return value
    return env[value]


# --- replaying a graph ----------------------------------------------------------------------------

class _Replay:
    """Copies nodes into the graph being built, mapping the original Values to the copies in
    `env`. `recompute`: inside a backward loop or branch (effects are left out). `tapes`
    maps each original `while` node replayed with stacks to (its iteration count, one stack
    per loop variable, its final loop variables, [(a saved value of its body, its
    stack)])."""

    def __init__(self, env, recompute):
        self.env = env
        self.recompute = recompute
        self.tapes = {}

    def run(self, nodes, differentiated, active):
        """Replays `nodes`; `while` nodes among `differentiated` get stacks (`active`: the
        ids of the values that carry a gradient)."""
        for node in nodes:
            if node.outputs and all(o in self.env for o in node.outputs):
                continue   # (a value the forward loop saved: read, not recomputed)
            if self.recompute and node.op.effect:
                if node.op.name == "draw":
                    raise _error(node, "a random draw inside a loop or branch that is "
                                       "differentiated: its values would be drawn again by "
                                       "the backward pass; draw them before the loop")
                continue
            if node.op.name == "while" and node in differentiated:
                self._while_with_stack(node, active)
            else:
                clone_node(node, self.env, current_graph(), self.recompute)

    def _while_with_stack(self, node, active):
        env = self.env
        outer = current_graph()
        n = node.attrs["n_loop_vars"]
        body, cond = node.attrs["body"], node.attrs["cond"]
        saved = _saved_in_body(node, active)
        inits = [_lookup(env, v) for v in node.inputs[:n]]
        kinds = [v.kind for v in node.outputs[:n]]
        lists = [i for i in range(n) if kinds[i] == TENSOR_ARRAY]
        _check_appends_only(node, body, lists)
        # What each iteration pushes: a tensor's value; a tensor array's size (the body
        # only appends, so the final array cut to that size is the array it began with).
        pushed = [(i, node.outputs[i].dtype, node.outputs[i].shape) if kinds[i] == TENSOR
                  else (i, np.dtype(np.int64), ()) for i in range(n)]
        pushed += [(v, v.dtype, v.shape) for v in saved]
        stacks = [d.bind("ta_new", literal(np.int64(0)), dtype=dtype, element_shape=shape,
                         dynamic_size=True) for _, dtype, shape in pushed]
        types = ([(v.dtype, v.shape, v.kind) for v in node.outputs[:n]]
                 + [(np.dtype(np.int64), (), TENSOR)]
                 + [(s.dtype, s.shape, s.kind) for s in stacks])

        def new_body(phs):
            count = phs[n]
            local = {}
            outs = _inline(body, phs[:n], env, self.recompute, local)
            written = []
            for stack, (i, _, _) in zip(phs[n + 1:], pushed):
                if isinstance(i, Value):
                    item = local[i]   # a value of the body the backward reads
                else:
                    item = phs[i] if kinds[i] == TENSOR else d.bind("ta_size", phs[i])
                # (Appended at its end, which is `count`: so the loop is one a gradient
                # of this gradient can go through.)
                written.append(d.bind("ta_write", stack, d.bind("ta_size", stack), item,
                                      dtype=stack.dtype))
            return outs + [d.bind("add", count, literal(np.int64(1)))] + written

        def new_cond(phs):
            return _inline(cond, phs[:n], env, self.recompute)

        count0 = literal(np.int64(0))
        results = emit_while(outer, new_cond, new_body, inits + [count0] + stacks, types,
                             node.location)
        env.update(zip(node.outputs[:n], results[:n]))
        stacks = results[n + 1:]
        self.tapes[node] = (results[n], stacks[:n], results[:n], list(zip(saved, stacks[n:])))


def _check_appends_only(node, body, ta_indices):
    """Refuses a loop whose body does more to a tensor-array loop variable than append."""
    for i in ta_indices:
        placeholder = body.inputs[i]
        for inner in body.nodes:
            if inner.op.name == "ta_write" and inner.inputs[0] is placeholder:
                index = inner.inputs[1]
                if not (index.node is not None and index.node.op.name == "ta_size"
                        and index.node.inputs[0] is placeholder):
                    raise _error(node, "a loop that writes into a list (tensor array) at "
                                       "an index other than its end: only appends are "
                                       "differentiated in loops")


# Ops whose results a forward loop saves for its backward loop, instead of the backward loop
# computing them again: the products and the transcendental functions, which cost much more
# than reading a saved value (the cheap elementwise ops are recomputed).
SAVED_OPS = frozenset([
    "matmul", "dot", "outer", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "tanh", "sinh", "cosh", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arcsinh",
    "arccosh", "arctanh", "arctan2", "sqrt", "cbrt", "power", "float_power", "logaddexp",
    "logaddexp2", "hypot", "math_call", "inv", "solve", "det", "slogdet"])


def _saved_in_body(node, active):
    """The values of a `while` node's body its backward loop reads rather than recomputes:
    results of SAVED_OPS that carry a gradient, in the body itself (not nested graphs)."""
    body = node.attrs["body"]
    var_flags, cap_flags = _while_activity(node, active)
    inner = {id(ph) for ph, flag in zip(body.all_inputs, var_flags + cap_flags) if flag}
    found = _active_nodes(body.nodes, inner)
    unstable = _shape_unstable(body)
    return [out for n in body.nodes if n in found and n.op.name in SAVED_OPS
            for out in n.outputs if out.kind == TENSOR and d.differentiable(out)
            and id(out) not in unstable]


def _shape_unstable(body):
    """The ids of the values of a loop body whose shapes may differ from one iteration to
    the next (`x[i, i:]` in a loop over i): a stack holds elements of one shape. Loop
    variables keep theirs (rt.while_loop settles them); a value's shape may change where
    it is computed from one that may, or decided by an int or bool that changes per
    iteration (a slice bound, a size), conservatively."""
    varying = {id(ph) for ph in body.inputs}    # values that change per iteration
    unstable = set()
    for node in body.nodes:
        if any(id(v) in unstable for v in node.inputs) or _shape_follows_values(
                node, varying):
            unstable.update(id(o) for o in node.outputs)
        if any(id(v) in varying for v in node.inputs):
            varying.update(id(o) for o in node.outputs)
    return unstable


def _shape_follows_values(node, varying):
    """May the output shape of `node` depend on the values of its inputs that change per
    iteration? An int index does not (x[i] has the shape of any row), a slice bound does,
    as does any other int or bool that changes (conservatively), and control flow."""
    if node.op.control_flow:
        return True
    if node.op.name in ("get_item", "set_item", "ufunc_at"):
        dynamic = iter(node.inputs[1 if node.op.name == "get_item" else 2:])
        for entry in node.attrs["index"]:
            parts = [entry] if entry is DYN else [
                p for p in (entry.start, entry.stop, entry.step) if p is DYN] \
                if isinstance(entry, slice) else []
            for _ in parts:
                value = next(dynamic)
                neutral = entry is DYN and value.shape == () and value.dtype.kind in "iu"
                if id(value) in varying and not neutral:
                    return True
        return False
    return any(id(v) in varying and np.dtype(v.dtype).kind in "biu" for v in node.inputs)


def clone_node(node, env, target, recompute=False):
    """Adds a copy of `node` to `target` (nested graphs copied too), inputs mapped by `env`;
    maps its outputs in `env`."""
    inputs = [_lookup(env, v) for v in node.inputs]
    attrs = {k: (_clone_graph(v, env, target, recompute) if isinstance(v, Graph) else v)
             for k, v in node.attrs.items()}
    new = target.add_node(node.op, inputs, attrs,
                          [(o.dtype, o.shape, o.kind) for o in node.outputs],
                          location=node.location)
    new.errstate = node.errstate
    for old, copy in zip(node.outputs, new.outputs):
        env[old] = copy
        _copy_kind(old, copy, env)
    return new


def _copy_kind(old, new, env):
    """`new`, the copy of `old`, stands for the same Python kind (runtime/path_kinds.py):
    a Python float stays one through the gradient's replay, and a value that is None on
    some paths stays so, with its kind tag's copy (which a later node may make: then the
    mark waits for it, `_copy_pending_kinds`)."""
    if path_kinds.is_python(old):
        path_kinds.mark_python(new)
    found = path_kinds.mixed(old)
    if found is not None:
        _pending_kinds.append((new, found, env))


_pending_kinds = []   # (copy, Mixed of the original, env) waiting for the tag's copy


def _copy_pending_kinds():
    """Marks the copies waiting for their kind tags, once a replay has copied its nodes (a
    tag not copied, one of a nested graph, leaves its copy untagged). Traces are made one
    at a time in a process."""
    for new, found, env in _pending_kinds:
        tag = env.get(found.tag) if found.tag is not None else None
        path_kinds.mark(new, path_kinds.Mixed(found.kinds, found.description, tag,
                                              found.table))
    _pending_kinds.clear()


def _clone_graph(sub, env, parent, recompute):
    graph = Graph(sub.name, parent=parent)
    local = {}
    for v in sub.inputs:
        local[v] = graph.add_input(v.dtype, v.shape, v.kind)
        _copy_kind(v, local[v], local)
    for outer, inner in sub.captured:
        new_outer = parent.localize(_lookup(env, outer))
        new_inner = Value(inner.dtype, inner.shape, graph=graph, kind=inner.kind)
        graph.captured.append((new_outer, new_inner))
        graph._capture_map[new_outer] = new_inner
        local[inner] = new_inner
    with building(graph):
        for node in sub.nodes:
            if recompute and node.op.effect and node.op.name != "draw":
                continue
            clone_node(node, local, graph, recompute)
    graph.outputs = [_lookup(local, v) for v in sub.outputs]
    return graph


def _inline(sub, inputs, env, recompute, local=None):
    """The outputs of nested graph `sub` computed in the graph being built, its explicit
    inputs bound to `inputs` and its captures to what `env` maps their outer values to
    (`local`, if given, is filled with each value of `sub` and its copy)."""
    local = {} if local is None else local
    local.update(zip(sub.inputs, inputs))
    for outer, inner in sub.captured:
        local[inner] = _lookup(env, outer)
    graph = current_graph()
    for node in sub.nodes:
        if recompute and node.op.effect and node.op.name != "draw":
            continue
        clone_node(node, local, graph, recompute)
    return [_lookup(local, v) for v in sub.outputs]


# --- building control flow by hand ----------------------------------------------------------------

def _new_graph(label, parent, types):
    graph = Graph(label, parent=parent)
    placeholders = [graph.add_input(dtype, shape, kind) for dtype, shape, kind in types]
    return graph, placeholders


def _fit(graph, value, dtype):
    """`value` as an output of `graph`, in `dtype`."""
    value = graph.localize(value)
    if value.kind == TENSOR and value.dtype != np.dtype(dtype):
        with building(graph):
            value = d.bind("cast", value, dtype=np.dtype(dtype))
    return value


def emit_while(outer, cond_fn, body_fn, inits, types, location=None):
    """A `while` node in `outer`: loop variables of `types` starting at `inits`; `cond_fn`
    and `body_fn` take the loop variables' placeholders and return the test and the next
    loop variables. Returns the final loop variables."""
    body, body_phs = _new_graph("body", outer, types)
    with building(body):
        outs = body_fn(body_phs)
    body.outputs = [_fit(body, o, t[0]) for o, t in zip(outs, types)]
    cond, cond_phs = _new_graph("cond", outer, types)
    with building(cond):
        test = cond_fn(cond_phs)
    cond.outputs = [_fit(cond, test[0] if isinstance(test, list) else test, np.bool_)]
    union = _union(cond, body)
    inits = [_fit(outer, v, t[0]) for v, t in zip(inits, types)]
    node = outer.add_node(get("while"), inits + union,
                          {"n_loop_vars": len(types), "cond": cond, "body": body},
                          types, location=location)
    return node.outputs


def emit_cond(outer, pred, then_fn, else_fn, types, location=None):
    """A `cond` node in `outer` whose branches (no explicit inputs) return `types`."""
    branches = []
    for label, fn in (("then_branch", then_fn), ("else_branch", else_fn)):
        graph = Graph(label, parent=outer)
        with building(graph):
            outs = fn()
        graph.outputs = [_fit(graph, o, t[0]) for o, t in zip(outs, types)]
        branches.append(graph)
    union = _union(*branches)
    node = outer.add_node(get("cond"), [pred] + union,
                          {"then_branch": branches[0], "else_branch": branches[1]},
                          types, location=location)
    return node.outputs


def _union(*graphs):
    union, seen = [], set()
    for graph in graphs:
        for outer, _ in graph.captured:
            if id(outer) not in seen:
                seen.add(id(outer))
                union.append(outer)
    for graph in graphs:
        graph.capture_in_order(union)
    return union


# --- the backward walk ----------------------------------------------------------------------------

def _active_nodes(nodes, active):
    """The nodes whose outputs depend on an `active` value (a set of ids, extended with
    their outputs that carry a gradient)."""
    found = set()
    for node in nodes:
        if not any(id(v) in active for v in node.inputs):
            continue
        found.add(node)
        if node.op.name == "while":
            flags, _ = _while_activity(node, active)
            outputs = [o for o, flag in zip(node.outputs, flags) if flag]
        else:
            outputs = node.outputs
        active.update(id(o) for o in outputs if d.differentiable(o))
    return found


def _while_activity(node, active):
    """Which loop variables and captures of a `while` node carry a gradient: a loop
    variable does when its initial value does, or when the body makes it depend on one
    that does (to a fixed point)."""
    n = node.attrs["n_loop_vars"]
    body = node.attrs["body"]
    flags = [id(v) in active and d.differentiable(v) for v in node.inputs[:n]]
    captures = [id(v) in active and d.differentiable(v) for v in node.inputs[n:]]
    while True:
        inner = {id(ph) for ph, flag in zip(body.all_inputs, flags + captures) if flag}
        _active_nodes(body.nodes, inner)
        grown = [flag or (id(out) in inner and d.differentiable(out))
                 for flag, out in zip(flags, body.outputs)]
        if grown == flags:
            return flags, captures
        flags = grown


def vjp(graph, inputs, output_cts, active_inputs=None, recompute=False, env=None,
        saved=None):
    """Replays `graph` in the graph being built on `inputs` (for `graph.all_inputs`) and
    propagates `output_cts` (one Value or None per output) back. Returns (the replayed
    outputs, one cotangent Value or None per input). `active_inputs` (default: every
    float input) are the inputs whose cotangents are wanted; `env`, if given, is filled with
    each value of `graph` and its replayed copy; `saved` maps values of `graph` to copies
    the caller already has (a forward loop saved them), which the replay does not
    recompute."""
    all_inputs = graph.all_inputs
    if active_inputs is None:
        active_inputs = [d.differentiable(v) for v in all_inputs]
    active = {id(v) for v, a in zip(all_inputs, active_inputs) if a and d.differentiable(v)}
    differentiated = _active_nodes(graph.nodes, active)
    env = {} if env is None else env
    env.update(zip(all_inputs, inputs))
    env.update(saved or {})
    replay = _Replay(env, recompute)
    try:
        replay.run(graph.nodes, differentiated, active)
    finally:
        _copy_pending_kinds()
    outputs = [_lookup(env, v) for v in graph.outputs]
    cts = {}
    for v, ct in zip(graph.outputs, output_cts):
        if ct is not None and id(v) in active:
            cts[v] = d.add(cts.get(v), d.as_dtype(ct, v.dtype))
    start = len(current_graph().nodes)
    for node in reversed(graph.nodes):
        if node not in differentiated:
            continue
        out_cts = [d.dense(cts.pop(o, None)) for o in node.outputs]
        if all(ct is None for ct in out_cts):
            continue
        if node.op.name == "while":
            in_cts = _while_vjp(node, env, out_cts, replay.tapes[node], active)
        elif node.op.name == "cond":
            in_cts = _cond_vjp(node, env, out_cts, active)
        else:
            rule = node.op.vjp
            if rule is None:
                raise _error(node, "it has no derivative rule")
            graph = current_graph()
            first = len(graph.nodes)
            inputs = [_lookup(env, v) for v in node.inputs]
            with d.wanting(inputs, [x for x, v in zip(inputs, node.inputs) if id(v) in active]):
                in_cts = rule(inputs, [env[o] for o in node.outputs], out_cts, **node.attrs)
            for new in graph.nodes[first:]:   # (the backward ops are at the user's line)
                new.location = node.location
        for v, ct in zip(node.inputs, in_cts):
            if ct is not None and id(v) in active:
                cts[v] = d.add(cts.get(v), d.as_dtype(ct, v.dtype))
    in_cts = [cts.get(v) if id(v) in active else None for v in all_inputs]
    _prune(current_graph(), start, [x for ct in in_cts if ct is not None
                                    for x in (ct.values_used() if isinstance(ct, d.Scatter)
                                              else [ct])])
    return outputs, in_cts


def _has_effect(node):
    """Does `node` do more than compute its outputs (an effect op, or control flow holding
    one)?"""
    if node.op.effect:
        return True
    return any(_has_effect(inner) for _, sub in node.subgraphs for inner in sub.nodes)


def _prune(graph, start, kept):
    """Drops the nodes from `start` on that nothing needs: those whose outputs neither a
    later node, nor `kept`, nor the graph's outputs use, with no effect (a replayed `if`
    whose results the backward loop does not read, values recomputed for rules that did not
    need them). Nested graphs among them are pruned too."""
    used = {id(v) for v in kept} | {id(v) for v in graph.outputs}
    kept_nodes = []
    for node in reversed(graph.nodes[start:]):
        if not _has_effect(node) and not any(id(o) in used for o in node.outputs):
            continue
        for _, sub in node.subgraphs:
            _prune(sub, 0, [])
        used.update(id(v) for v in node.inputs)
        kept_nodes.append(node)
    kept_nodes.reverse()
    graph.nodes[start:] = kept_nodes


def _error(node, problem):
    doc = node.op.doc or ""
    what = "%s (op '%s')" % (doc.split(",")[0], node.op.name) if doc.startswith("np.") \
        else "op '%s'" % node.op.name
    return NotDifferentiableError("cannot differentiate through %s at %s: %s"
                                  % (what, errors.format_location(node.location), problem))


def _zeros_for(value):
    """Zeros for the cotangent of `value` (a tensor array's: its elements stacked)."""
    if value.kind == TENSOR_ARRAY:
        return d.bind("zeros_like", d.bind("ta_stack", value))
    return d.zeros_like(value)


def _cond_vjp(node, env, out_cts, active):
    pred = _lookup(env, node.inputs[0])
    captures = [_lookup(env, v) for v in node.inputs[1:]]
    flags = [id(v) in active and d.differentiable(v) for v in node.inputs[1:]]
    wanted = [j for j, flag in enumerate(flags) if flag]
    types = [(captures[j].dtype, _dense_shape(captures[j]), TENSOR) for j in wanted]

    def branch(sub):
        def backward():
            _, in_cts = vjp(sub, captures, out_cts, flags, recompute=True)
            return [d.dense(in_cts[j]) if in_cts[j] is not None else _zeros_for(captures[j])
                    for j in wanted]
        return backward

    results = emit_cond(current_graph(), pred, branch(node.attrs["then_branch"]),
                        branch(node.attrs["else_branch"]), types, node.location)
    in_cts = [None] * len(node.inputs)
    for j, ct in zip(wanted, results):
        in_cts[1 + j] = ct
    return in_cts


def _while_vjp(node, env, out_cts, tape, active):
    count, stacks, finals, saved = tape
    n = node.attrs["n_loop_vars"]
    body = node.attrs["body"]
    captures = [_lookup(env, v) for v in node.inputs[n:]]
    kinds = [v.kind for v in node.outputs[:n]]
    var_flags, cap_flags = _while_activity(node, active)
    var_ids = [i for i in range(n) if var_flags[i]]
    cap_ids = [j for j, flag in enumerate(cap_flags) if flag]
    # A tensor array's cotangent is dense: its elements' cotangents stacked.
    ct_vars = [out_cts[i] if out_cts[i] is not None else _zeros_for(finals[i])
               for i in var_ids]
    ct_caps = [_zeros_for(captures[j]) for j in cap_ids]
    types = ([(np.dtype(np.int64), (), TENSOR)]
             + [(ct.dtype, _dense_shape(finals[i]), TENSOR) for i, ct in zip(var_ids, ct_vars)]
             + [(captures[j].dtype, captures[j].shape, TENSOR) for j in cap_ids])

    def backward_body(phs):
        k = d.bind("subtract", phs[0], literal(np.int64(1)))
        carried = phs[1:1 + len(var_ids)]
        summed = phs[1 + len(var_ids):]
        loop_vars = []
        for i in range(n):
            item = d.bind("ta_read", stacks[i], k)
            if kinds[i] == TENSOR_ARRAY:
                item = d.bind("ta_prefix", finals[i], item)
            loop_vars.append(item)
        body_cts = [None] * n
        for i, ct in zip(var_ids, carried):
            body_cts[i] = ct
        _, in_cts = vjp(body, loop_vars + captures, body_cts, var_flags + cap_flags,
                        recompute=True,
                        saved={v: d.bind("ta_read", stack, k) for v, stack in saved})
        new_carried = [d.dense(in_cts[i]) if in_cts[i] is not None
                       else _zeros_for(loop_vars[i]) for i in var_ids]
        new_summed = [d.add(s, in_cts[n + j]) for s, j in zip(summed, cap_ids)]
        return [k] + new_carried + new_summed

    def backward_cond(phs):
        return d.bind("greater", phs[0], literal(np.int64(0)))

    results = emit_while(current_graph(), backward_cond, backward_body,
                         [count] + ct_vars + ct_caps, types, node.location)
    in_cts = [None] * len(node.inputs)
    for i, ct in zip(var_ids, results[1:1 + len(var_ids)]):
        in_cts[i] = ct
    for j, ct in zip(cap_ids, results[1 + len(var_ids):]):
        in_cts[n + j] = ct
    return in_cts


def _dense_shape(value):
    """The shape of `value`'s cotangent: its own; a tensor array's elements stacked."""
    if value.kind == TENSOR_ARRAY:
        return (None,) + tuple(value.shape or ())
    return value.shape
