"""rt.cond and rt.while_loop: plain Python when nothing is symbolic, graph ops otherwise.

In a trace, branches and loop bodies are traced into nested graphs; outer values they read
become explicit captures. Item assignments on outer arrays inside a branch or body
(`out[i] = v` on a handle defined outside) are carried out automatically: they become extra
outputs of the cond, or extra loop variables of the loop. Every handle a trace points at a
value of the branch or body is pointed back when the trace ends, also when it fails.

rt.while_loop owns the types of loop variables: it traces the body again until they settle
(dtypes widen, dims that change become unknown), and a front end that must choose other
loop variables after seeing a trace (autograph) raises RestartLoop from the body. A loop
variable defined only by the body makes the loop assert that it iterated at least once
(assert_iterated, the one error for that).
"""

import numpy as np

from runtime import errors, nest, ops
from runtime.graph import (TENSOR, TENSOR_ARRAY, Graph, Value, building, current_graph,
                           literal, type_str)
from runtime.tensor import Tensor, bool_or_number, is_tensor, mark_bool_or_number
from runtime.tensor_array import TensorArray

_MAX_RETRACES = 10   # traces of a loop body until its loop variables' types settle
_MAX_RESTARTS = 3    # RestartLoop requests of one loop


# --- helpers ----------------------------------------------------------------------------------

def _is_graph_tensor_array(x):
    return isinstance(x, TensorArray) and x._value is not None


def _is_eager_tensor_array(x):
    return isinstance(x, TensorArray) and x._value is None


def _is_symbolic(x):
    return is_tensor(x) or _is_graph_tensor_array(x)


def _is_number(x):
    return isinstance(x, (bool, int, float, complex, np.generic))


def _wrap(value, flexible=False):
    if value.kind == TENSOR_ARRAY:
        return TensorArray.from_graph_value(value, flexible=flexible)
    return Tensor(value)


def _describe(x):
    if isinstance(x, Value):
        if x.is_literal:
            return "a Python %s" % type(x.literal).__name__ if x.weak else x.type_str()
        return x.type_str()
    if is_tensor(x) or _is_graph_tensor_array(x):
        return x._value.type_str()
    return "a Python %s (%r)" % (type(x).__name__, x)


def _value_of(x, graph):
    """The Value for a symbolic or numeric leaf, recorded (if needed) in `graph`."""
    with building(graph):
        return ops.to_value(x)


def _type_of(value):
    return (value.kind, value.dtype, value.shape)


def _cast_in(graph, value, dtype):
    """`value` as `dtype`, adding a cast to `graph` when needed (literals stay literals)."""
    dtype = np.dtype(dtype)
    if value.kind == TENSOR_ARRAY or (value.dtype == dtype and not value.weak):
        return value
    if value.is_literal:
        return literal(np.asarray(value.literal).astype(dtype)[()] if not value.weak
                       else dtype.type(value.literal))
    if value.dtype == dtype:
        return value
    with building(graph):
        return ops.get("cast").bind1([value], dtype=dtype)


def _join_dtypes(a, b):
    """NumPy's promotion of two values (weak Python scalars stay weak)."""
    def operand(v):
        return v.literal if v.weak else v.dtype
    return np.result_type(operand(a), operand(b))


def _bool_and_number(name, a, path_a, b, path_b, location):
    """How a join of `a` and `b` says it holds a bool on one path and a number on another
    (tensor.mark_bool_or_number: an error if it is returned), or None."""
    known = bool_or_number(a) or bool_or_number(b)
    if known or (a.dtype == np.bool_) == (b.dtype == np.bool_):
        return known
    return "%s is %s on %s but %s on %s (%s)" % (name, _describe(a), path_a, _describe(b),
                                                 path_b, errors.format_location(location))


def _join_shapes(name, a, b):
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise TypeError("%s has shape (%s) in one branch and (%s) in the other; its rank must "
                        "not change" % (name, ",".join(map(str, a)), ",".join(map(str, b))))
    return tuple(x if x == y else None for x, y in zip(a, b))


def _put_back(graph):
    """Points the outer handles that `graph` rebound (while it was built) back at their
    values from before."""
    for handle, original in list(graph.rebound.values()):
        handle._value = original


def _same_static(a, b):
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


# --- cond ---------------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, names=None):
    """`true_fn()` if pred else `false_fn()`; a graph `cond` op when `pred` is symbolic.

    Both branches must return the same structure. Python values equal in both branches
    pass through; numbers and tensors become tensors of the promoted dtype (dims that
    differ become unknown). `names` (optional) names the outputs in error messages.
    """
    if not is_tensor(pred):
        return true_fn() if pred else false_fn()
    outer = current_graph()
    if outer is None:
        raise RuntimeError("rt.cond on a symbolic tensor outside a trace")
    location = errors.capture_location()

    traced = []
    for fn, label in ((true_fn, "then_branch"), (false_fn, "else_branch")):
        branch = Graph(label, parent=outer)
        with building(branch):
            try:
                result = fn()
            except BaseException:
                _put_back(branch)
                raise
        rebound = list(branch.rebound.values())
        ends = {id(handle): handle._value for handle, _ in rebound}
        for handle, original in rebound:
            handle._value = original
        traced.append((branch, result, rebound, ends))

    (then_graph, then_result, then_rebound, then_ends), \
        (else_graph, else_result, else_rebound, else_ends) = traced
    if not nest.same_structure(then_result, else_result, lists_match_tuples=True):
        raise TypeError("rt.cond: true_fn and false_fn must return the same structure; got %r "
                        "and %r" % (_structure_text(then_result), _structure_text(else_result)))

    if names is not None and not isinstance(names, (list, tuple)):
        names = [names]
    then_paths = _named_paths(then_result, names, "output")
    else_leaves = nest.flatten(else_result)

    output_leaves = []     # Python value, or an index into outputs
    then_outputs, else_outputs, output_types = [], [], []
    mixed = {}             # output index -> it is a bool on one path, a number on another
    flexible = []          # per output: a list-like TensorArray (dtype follows writes)

    def add_output(name, a, b):
        va = a if isinstance(a, Value) else _value_of(a, then_graph)
        vb = b if isinstance(b, Value) else _value_of(b, else_graph)
        if va.kind != vb.kind:
            raise TypeError("%s is %s in the true branch but %s in the false branch"
                            % (name, _describe(va), _describe(vb)))
        if va.kind == TENSOR_ARRAY:
            if va.dtype != vb.dtype:
                raise TypeError("%s is %s in the true branch but %s in the false branch"
                                % (name, _describe(va), _describe(vb)))
            from runtime.ops.state import unify_element_shapes
            shape = _join_shapes(name, va.shape, vb.shape) if (
                va.shape is not None and vb.shape is not None) else unify_element_shapes(
                    va.shape, vb.shape)
            dtype = va.dtype
        else:
            dtype = _join_dtypes(va, vb)
            shape = _join_shapes(name, va.shape, vb.shape)
            mixed[len(output_types)] = _bool_and_number(
                name, va, "the true branch", vb, "the false branch", location)
        then_outputs.append(then_graph.localize(_cast_in(then_graph, va, dtype)))
        else_outputs.append(else_graph.localize(_cast_in(else_graph, vb, dtype)))
        output_types.append((dtype, shape, va.kind))
        flexible.append(getattr(a, "flexible", False) or getattr(b, "flexible", False))
        return len(output_types) - 1

    for (name, a), b in zip(then_paths, else_leaves):
        symbolic = _is_symbolic(a) or _is_symbolic(b)
        if not symbolic and _same_static(a, b):
            output_leaves.append(("static", a))
            continue
        if symbolic or (_is_number(a) or isinstance(a, np.ndarray)) and (
                _is_number(b) or isinstance(b, np.ndarray)):
            for x, label in ((a, "true"), (b, "false")):
                if not (_is_symbolic(x) or _is_number(x) or isinstance(x, np.ndarray)):
                    raise TypeError("%s is %s in the true branch but %s in the false branch"
                                    % (name, _describe(a), _describe(b)))
            output_leaves.append(("value", add_output(name, a, b)))
            continue
        raise TypeError("%s is %s in the true branch but %s in the false branch; a Python "
                        "value must be the same in both branches of a graph cond"
                        % (name, _describe(a), _describe(b)))

    # Outer handles assigned to inside a branch (item assignment) become extra outputs.
    carried = {}
    for rebound in (then_rebound, else_rebound):
        for handle, original in rebound:
            carried.setdefault(id(handle), (handle, original))
    carried_outputs = []
    for key, (handle, original) in carried.items():
        a = then_ends.get(key, original)
        b = else_ends.get(key, original)
        carried_outputs.append((handle, add_output("a tensor assigned in a branch", a, b)))

    union = _ordered_union([o for o, _ in then_graph.captured] + [o for o, _ in else_graph.captured])
    then_graph.capture_in_order(union)
    else_graph.capture_in_order(union)
    then_graph.outputs = then_outputs
    else_graph.outputs = else_outputs
    node = outer.add_node(ops.get("cond"), [pred._value] + union,
                          {"then_branch": then_graph, "else_branch": else_graph},
                          output_types, location=location)
    for index, text in mixed.items():
        if text:
            mark_bool_or_number(node.outputs[index], text)
    leaves = [_wrap(node.outputs[x], flexible[x]) if kind == "value" else x
              for kind, x in output_leaves]
    for handle, index in carried_outputs:
        handle.rebind(node.outputs[index])
    return nest.pack_as(then_result, leaves)


def _structure_text(x):
    return nest.pack_as(x, ["_"] * len(nest.flatten(x)))


def _ordered_union(values):
    seen = set()
    out = []
    for v in values:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _named_paths(structure, names, default):
    if isinstance(structure, (tuple, list)) and not nest.is_namedtuple(structure) and names:
        paths = []
        for i, item in enumerate(structure):
            prefix = repr(names[i]) if i < len(names) else "%s[%d]" % (default, i)
            for path, leaf in nest.flatten_with_paths(item):
                paths.append(("%s%s" % (prefix, path) if not path else prefix + path, leaf))
        return paths
    return [(default + path if path else default, leaf)
            for path, leaf in nest.flatten_with_paths(structure)]


# --- while_loop ---------------------------------------------------------------------------------

def _call_body(body, loop_vars, single):
    result = body(*loop_vars)
    if (single or len(loop_vars) == 1) and not (
            isinstance(result, (tuple, list)) and not nest.is_namedtuple(result)
            and len(result) == 1):
        result = (result,)   # a one-variable body may return the bare value
    return result


class RestartLoop(Exception):
    """Raised by a loop's cond or body while rt.while_loop runs or traces them: run the loop
    again from the start, with loop variables the caller could only choose after seeing a
    trace (autograph: a variable the body defines, a Python list it appends to, an attribute
    a function it calls sets).

    rt.while_loop points every handle the trace bound back at its value from before, calls
    `restart()` (in the graph around the loop), which returns the new `(cond, body,
    loop_vars, names)`, and runs the loop with them; at most _MAX_RESTARTS times."""

    def __init__(self, restart):
        super().__init__("internal: restart the loop")
        self.restart = restart


def while_loop(cond, body, loop_vars, maximum_iterations=None, names=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns loop_vars.

    Plain Python while no loop variable and no condition is symbolic (switching to a graph
    loop as soon as one becomes symbolic); a graph `while` op otherwise. Python numbers
    become constants of their NumPy default dtype. A loop variable whose dtype changes in
    the body is widened to the promoted dtype, and dims that change become unknown; other
    changes raise TypeError naming the variable (`names` gives names for messages). The
    body may raise RestartLoop to run the loop again with other loop variables.
    """
    for _ in range(_MAX_RESTARTS):
        try:
            return _while_loop(cond, body, loop_vars, maximum_iterations, names)
        except RestartLoop as request:
            cond, body, loop_vars, names = request.restart()
    try:
        return _while_loop(cond, body, loop_vars, maximum_iterations, names)
    except RestartLoop:
        raise TypeError("rt.while_loop: the loop variables did not settle after %d restarts"
                        % _MAX_RESTARTS) from None


def _while_loop(cond, body, loop_vars, maximum_iterations, names):
    single = not isinstance(loop_vars, (tuple, list)) or nest.is_namedtuple(loop_vars)
    was_list = isinstance(loop_vars, list)
    if single:
        loop_vars = (loop_vars,)
    if not any(_is_symbolic(x) for x in nest.flatten(loop_vars)) and not is_tensor(maximum_iterations):
        iterations = 0
        while True:
            if maximum_iterations is not None and iterations >= maximum_iterations:
                break
            graph = current_graph()
            start = len(graph.nodes) if graph is not None else 0
            test = cond(*loop_vars)
            if is_tensor(test):
                graph.discard_unused_since(start)
                remaining = None if maximum_iterations is None else maximum_iterations - iterations
                return _graph_while(cond, body, loop_vars, remaining, names, single)
            if not test:
                break
            loop_vars = _call_body(body, loop_vars, single)
            iterations += 1
            if any(_is_symbolic(x) for x in nest.flatten(loop_vars)):
                remaining = None if maximum_iterations is None else maximum_iterations - iterations
                return _graph_while(cond, body, loop_vars, remaining, names, single)
        if single:
            return loop_vars[0]
        return list(loop_vars) if was_list else tuple(loop_vars)
    return _graph_while(cond, body, loop_vars, maximum_iterations, names, single)


class _LoopVar:
    """One flat loop variable: its name, the type it has in the loop, its initial value,
    and the Python handle (if any) whose identity the loop keeps."""

    def __init__(self, name, kind, dtype, shape, init, handle=None):
        self.name = name
        self.kind = kind
        self.dtype = np.dtype(dtype)
        self.shape = shape
        self.init = init
        self.handle = handle
        # Did the body return `handle` itself (so the loop updated that Python object)?
        self.returned_same_handle = False
        self.undefined = None   # the marker object, for a variable the body defines
        self.flexible = False   # a TensorArray whose dtype follows what is written
        self.bool_or_number = None   # see _bool_and_number
        self.location = None

    def type_text(self):
        return type_str(self.dtype, self.shape, self.kind)


def _graph_while(cond, body, loop_vars, maximum_iterations, names, single):
    outer = current_graph()
    if outer is None:
        raise RuntimeError("rt.while_loop on symbolic values outside a trace")
    location = errors.capture_location()
    if names is not None and not isinstance(names, (list, tuple)):
        names = [names]

    paths = _named_paths(tuple(loop_vars), names, "loop_vars")
    leaves = []          # ("static", object) or ("var", index into loop_var_list)
    variables = []
    reused = set()
    for name, leaf in paths:
        if is_tensor(leaf):
            value = leaf._value   # restored as is after tracing; add_node captures it
            handle = leaf if id(leaf) not in reused else None
            reused.add(id(leaf))
            # (A Tensor subclass may hold a tensor-array value: keep the value's kind.)
            variables.append(_LoopVar(name, value.kind, value.dtype, value.shape, value, handle))
        elif _is_graph_tensor_array(leaf):
            value = leaf._value
            variables.append(_LoopVar(name, TENSOR_ARRAY, value.dtype, value.shape, value))
            variables[-1].flexible = leaf.flexible
        elif _is_eager_tensor_array(leaf):
            raise TypeError("%s is a TensorArray created outside the trace; create it inside "
                            "the traced function to use it in a graph loop" % name)
        elif _is_number(leaf) or isinstance(leaf, np.ndarray):
            array = np.asarray(leaf)
            value = literal(array[()]) if array.ndim == 0 else _value_of(array, outer)
            variables.append(_LoopVar(name, TENSOR, value.dtype, value.shape, value))
        elif is_undefined(leaf):
            # Defined by the body: its type comes from the first trace of the body.
            variables.append(_LoopVar(name, None, np.float64, None, None))
            variables[-1].undefined = leaf
        else:
            leaves.append(("static", leaf))
            continue
        leaves.append(("var", len(variables) - 1))
    user_count = len(variables)
    flags = []           # per undefined variable: "the body has run at least once"
    for v in variables:
        if v.undefined is not None:
            flags.append(_LoopVar("<%s is defined>" % v.name, TENSOR, np.bool_, (),
                                  literal(np.False_)))
    counter = None
    if maximum_iterations is not None:
        counter = _LoopVar("<iteration counter>", TENSOR, np.int64, (), literal(np.int64(0)))
    implicit = []        # _LoopVar for outer handles assigned to in the body

    def all_vars():
        return variables + implicit + flags + ([counter] if counter is not None else [])

    def trace(fn, label):
        """Traces `fn` (the cond or the body) on placeholders of the loop variables; the
        handles of loop variables stand for them during the trace, and every handle is
        pointed back at its value from before when the trace ends (also when it fails)."""
        graph = Graph(label, parent=outer)
        current = all_vars()
        try:
            with building(graph):
                placeholders = [graph.add_input(v.dtype, v.shape, v.kind)
                                if v.kind is not None else None for v in current]
                user_leaves = []
                for v, ph in zip(variables, placeholders):
                    if ph is None:
                        user_leaves.append(v.undefined)
                    elif v.handle is not None:
                        v.handle._value = ph
                        user_leaves.append(v.handle)
                    else:
                        user_leaves.append(_wrap(ph, v.flexible))
                for v, ph in zip(implicit, placeholders[user_count:]):
                    v.handle._value = ph
                args = nest.pack_as(tuple(loop_vars), [
                    user_leaves[x] if kind == "var" else x for kind, x in leaves])
                if label == "body":
                    result = _call_body(fn, args, single)
                else:
                    result = fn(*args)
                outputs = _collect(label, result, graph, placeholders, current)
        finally:
            rebound = [(h, orig) for h, orig in graph.rebound.values()
                       if not any(h is v.handle for v in current)]
            for v in current:
                if v.handle is not None:
                    v.handle._value = v.init
            for handle, original in rebound:
                handle._value = original
        return graph, outputs, rebound

    def _collect(label, result, graph, placeholders, current):
        if label == "cond":
            test = result
            test_value = test._value if is_tensor(test) else ops.to_value(test)
            if counter is not None:
                limit = maximum_iterations
                below = ops.get("less").bind1([placeholders[-1], limit])
                test_value = ops.get("logical_and").bind1([test_value, below])
            return [test_value]
        if not nest.same_structure(result, tuple(loop_vars), lists_match_tuples=True):
            raise TypeError("rt.while_loop: body must return the same structure as loop_vars; "
                            "got %r, expected %r" % (_structure_text(result),
                                                     _structure_text(tuple(loop_vars))))
        flat = nest.flatten(result)
        outputs = []
        for (kind, x), out in zip(leaves, flat):
            if kind == "static":
                if not _same_static(x, out):
                    raise TypeError("loop variable %s is %s before the loop but %s after an "
                                    "iteration; give it a tensor or number value before the loop"
                                    % (_static_name(paths, leaves, x), _describe(x), _describe(out)))
                continue
            v = variables[x]
            v.returned_same_handle = v.handle is not None and out is v.handle
            if v.undefined is not None and is_undefined(out):
                raise TypeError("loop variable %s is not defined before the loop and the loop "
                                "body does not define it" % v.name)
            if is_tensor(out) or _is_graph_tensor_array(out):
                outputs.append(out._value)
            elif _is_number(out) or isinstance(out, np.ndarray):
                outputs.append(ops.to_value(out))
            else:
                raise TypeError("loop variable %s is %s before the loop but %s after an "
                                "iteration" % (v.name, v.type_text(), _describe(out)))
        for v in implicit:
            outputs.append(v.handle._value)
        for v in flags:
            outputs.append(literal(np.True_))
        if counter is not None:
            outputs.append(ops.get("add").bind1([placeholders[-1], 1]))
        return outputs

    for _ in range(_MAX_RETRACES):
        body_graph, body_outputs, rebound = trace(body, "body")
        changed = False
        for v, out in zip(all_vars(), body_outputs):
            v.location = location
            if _reconcile(v, out):
                changed = True
        for handle, original in rebound:
            if any(handle is v.handle for v in implicit):
                continue
            implicit.append(_LoopVar("a tensor assigned in the loop body", original.kind,
                                     original.dtype, original.shape, original, handle))
            changed = True
        if not changed:
            break
    else:
        raise TypeError("rt.while_loop: loop variable types did not settle after %d traces of "
                        "the body" % _MAX_RETRACES)
    cond_graph, cond_outputs, _ = trace(cond, "cond")

    final = all_vars()
    body_graph.outputs = [body_graph.localize(_cast_in(body_graph, out, v.dtype))
                          for v, out in zip(final, body_outputs)]
    cond_graph.outputs = [cond_graph.localize(cond_outputs[0])]
    for v in variables:
        if v.undefined is not None:
            v.init = _zeros_value(outer, v)
    inits = [_cast_in(outer, v.init, v.dtype) for v in final]
    union = _ordered_union([o for o, _ in cond_graph.captured] + [o for o, _ in body_graph.captured])
    cond_graph.capture_in_order(union)
    body_graph.capture_in_order(union)
    node = outer.add_node(ops.get("while"), inits + union,
                          {"n_loop_vars": len(final), "cond": cond_graph, "body": body_graph},
                          [(v.dtype, v.shape, v.kind) for v in final], location=location)
    results = node.outputs
    for v, result in zip(final, results):
        if v.bool_or_number:
            mark_bool_or_number(result, v.bool_or_number)
    out_leaves = []
    for kind, x in leaves:
        if kind == "static":
            out_leaves.append(x)
            continue
        v = variables[x]
        if v.handle is not None and v.returned_same_handle:
            v.handle.rebind(results[x])
            out_leaves.append(v.handle)
        else:
            out_leaves.append(_wrap(results[x], v.flexible))
    for i, v in enumerate(implicit):
        v.handle.rebind(results[user_count + i])
    undefined = [v for v in variables if v.undefined is not None]
    for v, flag in zip(undefined, results[user_count + len(implicit):]):
        assert_iterated(flag, [v.name])
    packed = nest.pack_as(tuple(loop_vars), out_leaves)
    if isinstance(loop_vars, list):
        packed = list(packed)
    return packed[0] if single else packed


def assert_iterated(ran, defines, loop=None):
    """The error of a loop that had to iterate at least once, because its body defines
    variables used after it (`defines`: their names as messages show them): raises
    rt.errors.InvalidArgumentError if `ran` (a loop variable, False before the loop and True
    after an iteration) is false, when the graph runs if it is symbolic. `loop` describes
    the loop for the message (autograph: "the for loop at file:line in f")."""
    if loop is None:
        message = ("%s is not defined before the loop, so the loop had to iterate at least "
                   "once to define it, and it did not" % ", ".join(defines))
    else:
        message = ("%s had to iterate at least once: it defines %s, which %s used after the "
                   "loop" % (loop, ", ".join(defines), "is" if len(defines) == 1 else "are"))
    if isinstance(ran, Value) or _is_symbolic(ran):
        ops.get("assert").bind([ran], message=message, items=())
    elif not ran:
        raise errors.InvalidArgumentError(message)


def is_undefined(x):
    """True for markers of variables not defined yet (any object whose class sets
    `_rt_undefined = True`, e.g. autograph's Undefined)."""
    return getattr(type(x), "_rt_undefined", False) is True


def _zeros_value(graph, v):
    """A placeholder initial value of `v`'s type (unknown dims 0) for an undefined var."""
    if v.kind == TENSOR_ARRAY:
        raise TypeError("loop variable %s must be defined before the loop to hold a TensorArray"
                        % v.name)
    if not v.shape:
        return literal(v.dtype.type(0))
    with building(graph):
        return ops.get("zeros").bind1([], shape=tuple(d or 0 for d in v.shape), dtype=v.dtype)


def _static_name(paths, leaves, obj):
    for (name, leaf), (kind, x) in zip(paths, leaves):
        if kind == "static" and x is obj:
            return name
    return "?"


def _reconcile(v, out):
    """Widen loop variable `v` to also hold `out` (a body output). True if `v` changed."""
    if v.kind is None:   # undefined before the loop: take the body's type
        v.kind, v.shape = out.kind, out.shape
        v.dtype = np.result_type(out.literal) if out.weak else out.dtype
        return True
    if out.kind != v.kind:
        raise TypeError("loop variable %s changes from %s before the loop to %s in the body"
                        % (v.name, v.type_text(), out.type_str()))
    if v.kind == TENSOR_ARRAY:
        if out.dtype != v.dtype and v.flexible:
            v.dtype = np.result_type(v.dtype, out.dtype)
            return True
        if out.dtype != v.dtype:
            raise TypeError("loop variable %s changes from %s before the loop to %s in the body"
                            % (v.name, v.type_text(), out.type_str()))
        if v.shape is None or out.shape is None:
            shape = v.shape if out.shape is None else out.shape
        else:
            if len(v.shape) != len(out.shape):
                raise TypeError("loop variable %s changes from %s before the loop to %s in the "
                                "body" % (v.name, v.type_text(), out.type_str()))
            shape = tuple(a if a == b else None for a, b in zip(v.shape, out.shape))
        changed = shape != v.shape
        v.shape = shape
        return changed
    if v.init is not None and v.bool_or_number is None:
        v.bool_or_number = _bool_and_number("loop variable %s" % v.name, v.init,
                                            "entry to the loop", out, "an iteration",
                                            v.location)
    dtype = np.result_type(v.dtype, out.literal if out.weak else out.dtype)
    if len(out.shape) != len(v.shape):
        raise TypeError("loop variable %s changes from %s before the loop to %s in the body; "
                        "its rank must not change" % (v.name, v.type_text(), out.type_str()))
    shape = tuple(a if a == b else None for a, b in zip(v.shape, out.shape))
    changed = dtype != v.dtype or shape != v.shape
    v.dtype, v.shape = dtype, shape
    return changed
