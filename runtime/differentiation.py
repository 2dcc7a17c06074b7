"""Gradients while a function is traced: `value_and_grad(fn, args, kwargs, ...)`.

The function is traced into a graph of its own (its differentiated inputs are that graph's
placeholders, everything else it reads from the trace around it is captured); then
runtime/autodiff.py replays that graph into the trace around it and adds the backward ops
after it. So the forward runs once, and the gradient is part of the same graph: inside an
ag.function it is part of the compiled train step.

What is differentiated:
  - `argnums`: positional arguments, each an array or a nested structure (tuple, list, dict,
    namedtuple, dataclass) of float arrays; the gradient has the argument's structure;
  - `wrt`: state held elsewhere, the weights of a model: an object (its attributes holding
    float arrays, followed into lists, dicts and other objects, as runtime/state_guards.py
    follows them; the gradient is a dict by attribute name), or a structure of arrays read
    from objects (`[model.W, model.b]`; the gradient has the same structure). Inside
    ag.function the weights are graph inputs (state_guards swaps them in), so they are the
    tensor handles the function reads; each is pointed at a placeholder while it is traced.
"""

import dataclasses
import types

import numpy as np

from runtime import autodiff, nest, ops, path_kinds
from runtime.graph import Graph, building, current_graph
from runtime.ops import gradients as d
from runtime.tensor import Tensor, is_ndarray, is_python_scalar, is_tensor, mark_ndarray

NotDifferentiableError = autodiff.NotDifferentiableError

_MAX_DEPTH = 6
# What params_of does not look into: code and namespaces (a model, callable or not, is
# followed).
_NOT_FOLLOWED = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type,
                 types.ModuleType)


# --- structures of arrays -----------------------------------------------------------------

def _is_dataclass_instance(x):
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def tree_flatten(x):
    """The leaves of `x` (nest's structures, and dataclass instances by field)."""
    if _is_dataclass_instance(x):
        return [leaf for f in dataclasses.fields(x) for leaf in tree_flatten(getattr(x, f.name))]
    if nest.is_namedtuple(x) or isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in tree_flatten(item)]
    if isinstance(x, dict):
        return [leaf for item in x.values() for leaf in tree_flatten(item)]
    return [x]


def tree_pack(x, leaves):
    """`x` rebuilt with its leaves (in tree_flatten's order) replaced by `leaves`."""
    it = iter(leaves)

    def pack(x):
        if _is_dataclass_instance(x):
            return dataclasses.replace(x, **{f.name: pack(getattr(x, f.name))
                                             for f in dataclasses.fields(x) if f.init})
        if nest.is_namedtuple(x):
            return type(x)(*[pack(item) for item in x])
        if isinstance(x, tuple):
            return tuple(pack(item) for item in x)
        if isinstance(x, list):
            return [pack(item) for item in x]
        if isinstance(x, dict):
            return {k: pack(v) for k, v in x.items()}
        return next(it)

    return pack(x)


def _holds_array(x):
    return is_tensor(x) and not is_python_scalar(x) or isinstance(x, np.ndarray)


def _like(leaf, value):
    """A Tensor on `value` that is what `leaf` is: a 0-d array, a Python float, a NumPy
    scalar."""
    tensor = Tensor(value)
    if isinstance(leaf, np.ndarray) or is_tensor(leaf) and is_ndarray(leaf):
        mark_ndarray(tensor)
    elif isinstance(leaf, float) or is_tensor(leaf) and is_python_scalar(leaf):
        path_kinds.mark_python(value)
    return tensor


def params_of(obj, depth=0):
    """The float arrays an object holds, as a dict by attribute name (lists, tuples and
    dicts of them kept; other objects followed), or None when it holds none."""
    if _holds_array(x := obj) or isinstance(x, np.floating):
        return x if np.dtype(x.dtype).kind in "fc" else None
    if depth > _MAX_DEPTH or isinstance(x, (str, bytes, int, float, complex, bool, type(None))):
        return None
    if isinstance(x, (list, tuple)):
        items = [params_of(item, depth + 1) for item in x]
        return type(x)(items) if any(i is not None for i in items) and type(x) in (list, tuple) \
            else (items if any(i is not None for i in items) else None)
    if isinstance(x, dict):
        items = {k: params_of(v, depth + 1) for k, v in x.items()}
        items = {k: v for k, v in items.items() if v is not None}
        return items or None
    attributes = getattr(x, "__dict__", None)
    if attributes is None or isinstance(x, _NOT_FOLLOWED):
        return None
    items = {k: params_of(v, depth + 1) for k, v in attributes.items() if not k.startswith("__")}
    items = {k: v for k, v in items.items() if v is not None}
    return items or None


def _wrt_structure(wrt):
    """`wrt` with every object that is not a structure replaced by its params_of dict."""
    if _holds_array(wrt):
        return wrt
    if nest.is_namedtuple(wrt) or isinstance(wrt, (tuple, list)):
        return type(wrt)(_wrt_structure(x) for x in wrt) if not nest.is_namedtuple(wrt) \
            else type(wrt)(*[_wrt_structure(x) for x in wrt])
    if isinstance(wrt, dict):
        return {k: _wrt_structure(v) for k, v in wrt.items()}
    found = params_of(wrt)
    if found is None:
        raise TypeError("wrt=: %r holds no float arrays to differentiate with respect to"
                        % (wrt,))
    return found


# --- the transform --------------------------------------------------------------------------

def _leaf_value(leaf, where):
    value = ops.to_value(leaf)
    if not d.differentiable(value):
        raise NotDifferentiableError(
            "gradients are taken with respect to float arrays, but %s has dtype %s; "
            "pass it as a float array, or leave it out of argnums" % (where, value.dtype))
    return value


def value_and_grad(fn, args, kwargs, argnums=(0,), has_aux=False, wrt=None, name=None):
    """Inside a trace: `(value, grads)` of `fn(*args, **kwargs)`, a scalar (or `(value,
    aux)` with has_aux), with respect to the positional arguments `argnums` (a tuple) and
    the arrays `wrt` names (`name`: the function's, for messages). `grads` is `(argument grads..., wrt grads)`: the caller picks."""
    outer = current_graph()
    if outer is None:
        raise RuntimeError("differentiation.value_and_grad runs while a function is traced")
    for i in argnums:
        if not -len(args) <= i < len(args):
            raise TypeError("argnums=%d, but the function was called with %d positional "
                            "arguments" % (i, len(args)))
    argnums = [i % len(args) for i in argnums]
    arg_leaves = [tree_flatten(args[i]) for i in argnums]
    wrt_tree = _wrt_structure(wrt) if wrt is not None else None
    wrt_leaves = tree_flatten(wrt_tree) if wrt is not None else []
    for leaf in wrt_leaves:
        if isinstance(leaf, np.generic):
            raise NotDifferentiableError(
                "wrt=: a weight is a NumPy scalar (%s %r), which a staged function keeps as a "
                "constant; keep weights in arrays (np.array(0.5) for a scalar; note that "
                "`b = b - lr * g` makes a 0-d array a NumPy scalar, `b -= lr * g` keeps it "
                "an array)" % (type(leaf).__name__, leaf))
        if not is_tensor(leaf):
            raise TypeError("wrt=: the arrays to differentiate with respect to are read from "
                            "where the function finds them, so they must be the function's "
                            "state (attributes of objects it reads); got a %s"
                            % type(leaf).__name__)
    values = []
    for i, leaves in zip(argnums, arg_leaves):
        values += [_leaf_value(leaf, "argument %d" % i) for leaf in leaves]
    # (An array found at two places, `layer.kernel` and `layer.weights[0]`, is one input:
    # both places get its gradient.)
    unique_wrt = list({id(leaf): leaf for leaf in wrt_leaves}.values())
    values += [_leaf_value(leaf, "a wrt= array") for leaf in unique_wrt]

    graph = Graph("grad", parent=outer)
    held = []
    with building(graph):
        placeholders = [graph.add_input(v.dtype, v.shape) for v in values]
        it = iter(placeholders)
        new_args = list(args)
        for i, leaves in zip(argnums, arg_leaves):
            new_args[i] = tree_pack(args[i], [_like(leaf, next(it)) for leaf in leaves])
        try:
            for leaf, ph in zip(unique_wrt, it):
                held.append((leaf, leaf._value, ph))
                leaf._value = ph
            result = fn(*new_args, **kwargs)
            loss, aux = _split(result, has_aux)
            loss_value = _loss_value(loss, name or getattr(fn, "__name__", "the function"))
            aux_leaves = nest.flatten(aux)
            aux_slots = [i for i, x in enumerate(aux_leaves) if _holds_array(x)]
            # Handles the function pointed at new values: what they point at after the
            # call (its writes into outer arrays, a weight it assigned to).
            rebound = [(h, h._value) for h, _ in graph.rebound.values()]
            rebound += [(leaf, leaf._value) for leaf, _, ph in held if leaf._value is not ph]
        finally:
            for leaf, value, _ in held:
                leaf._value = value
            for handle, original in graph.rebound.values():
                handle._value = original
        graph.outputs = ([graph.localize(loss_value)]
                         + [graph.localize(ops.to_value(aux_leaves[i])) for i in aux_slots]
                         + [graph.localize(v) for _, v in rebound])
    captured = [o for o, _ in graph.captured]
    n = len(values)
    # (Values of the function's graph it kept elsewhere, an attribute it set, stand for
    # their replayed copies: Graph.localize.)
    graph.replayed = {}
    outputs, cts = autodiff.vjp(
        graph, values + captured, [d.scalar(1, loss_value.dtype)] + [None] * (len(graph.outputs) - 1),
        active_inputs=[True] * n + [False] * len(captured), env=graph.replayed)
    for (handle, _), value in zip(rebound, outputs[1 + len(aux_slots):]):
        handle.rebind(value)
    grads = [_like(leaf, d.dense(ct) if ct is not None else d.zeros_like(v))
             for leaf, v, ct in zip([x for leaves in arg_leaves for x in leaves] + unique_wrt,
                                    values, cts[:n])]
    it = iter(grads)
    arg_grads = [tree_pack(args[i], [next(it) for _ in leaves])
                 for i, leaves in zip(argnums, arg_leaves)]
    by_id = dict(zip(map(id, unique_wrt), it))
    wrt_grads = (tree_pack(wrt_tree, [by_id[id(leaf)] for leaf in wrt_leaves])
                 if wrt is not None else None)
    value = _like(loss, outputs[0])
    if has_aux:
        new_aux = list(aux_leaves)
        for slot, out in zip(aux_slots, outputs[1:1 + len(aux_slots)]):
            new_aux[slot] = _like(aux_leaves[slot], out)
        value = (value, nest.pack_as(aux, new_aux))
    return value, arg_grads, wrt_grads


def _split(result, has_aux):
    if not has_aux:
        return result, ()
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError("has_aux=True: the function must return a pair (value, aux); got %s"
                        % type(result).__name__)
    return result[0], result[1]


def _loss_value(loss, name):
    if isinstance(loss, (tuple, list, dict)):
        raise TypeError("a gradient needs a function returning a scalar (the loss), but %s "
                        "returned a %s%s" % (name, type(loss).__name__,
                                             " (for (value, aux) pass has_aux=True)"
                                             if isinstance(loss, tuple) else ""))
    value = ops.to_value(loss)
    if value.shape != ():
        raise TypeError("a gradient needs a function returning a scalar (the loss), but %s "
                        "returned an array of shape (%s); reduce it, e.g. with .sum()"
                        % (name, ",".join("?" if x is None else str(x) for x in value.shape)))
    if not d.differentiable(value):
        raise NotDifferentiableError(
            "a gradient needs a function returning a float scalar, but %s returned %s"
            % (name, value.dtype))
    return value
