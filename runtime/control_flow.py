"""rt.while_loop: plain Python while nothing is symbolic, a graph `while` op otherwise.

The cond and the body are traced into nested graphs (outer values they read become
explicit captures); item assignments on outer arrays inside the body become extra loop
variables, and every handle a trace points at a value of the body is pointed back when the
trace ends, also when it fails. Loop variables are values, not their initial handles
(runtime/loop_aliases.py).

rt.while_loop owns the types of loop variables: it traces the body again until they settle
(dtypes widen, dims that change become unknown), and a front end that must choose other
loop variables after seeing a trace (autograph) raises RestartLoop from the body. A loop
variable defined only by the body makes the loop assert that it iterated at least once
(assert_iterated; assert_defined raises the errors of values not defined).
"""

import numpy as np

from runtime import api, errors, loop_aliases, nest, ops, path_kinds
from runtime.conditionals import (
    CondAlias, _cast_in, _describe, _holds_0d_array, _is_eager_tensor_array,
    _is_graph_tensor_array, _is_number, _is_symbolic, _named_paths, _ordered_union,
    _same_static, _structure_text, _value_of, _wrap, kind_tag)
from runtime.graph import (TENSOR, TENSOR_ARRAY, Graph, Value, building, current_graph,
                           literal, type_str)
from runtime.tensor import Tensor, is_ndarray, is_tensor

_MAX_RETRACES = 10   # traces of a loop body until its loop variables' types settle
_MAX_RESTARTS = 3    # RestartLoop requests of one loop


# --- while_loop ---------------------------------------------------------------------------------

def _call_body(body, loop_vars, single):
    result = body(*loop_vars)
    if (single or len(loop_vars) == 1) and not (
            isinstance(result, (tuple, list)) and not nest.is_namedtuple(result)
            and len(result) == 1):
        result = (result,)   # a one-variable body may return the bare value
    return result


def _python_iteration(graph, body, loop_vars, single):
    """One iteration of a loop run as Python (no loop variable symbolic yet) while `graph`
    is built. When the body asks for a restart (RestartLoop), what the iteration built is
    undone: the handles it rebound point back at their values from before (an item write
    into an argument, `x[-1] -= 1`, would be done twice: once here, once when the loop
    runs again from the start) and the nodes it added go."""
    if graph is None:
        return _call_body(body, loop_vars, single)
    start, outer_journal = len(graph.nodes), graph.journal
    journal = graph.journal = {}
    try:
        return _call_body(body, loop_vars, single)
    except RestartLoop:
        for handle, before in journal.values():
            handle._value = before
        graph.discard_unused_since(start, undone=True)
        journal = {}
        raise
    finally:
        graph.journal = outer_journal
        if outer_journal is not None:   # (an outer Python iteration may be undone too)
            for key, entry in journal.items():
                outer_journal.setdefault(key, entry)


class RestartLoop(Exception):
    """Raised by a loop's cond or body while rt.while_loop runs or traces them: run the loop
    again from the start, with loop variables the caller could only choose after seeing a
    trace (autograph: a variable the body defines, a Python list it appends to, an attribute
    a function it calls sets).

    rt.while_loop points every handle the trace bound back at its value from before, calls
    `restart()` (in the graph around the loop), which returns the new `(cond, body,
    loop_vars, names)` (and `ending`, see while_loop, as a fifth), and runs the loop with
    them; at most _MAX_RESTARTS times."""

    def __init__(self, restart):
        super().__init__("internal: restart the loop")
        self.restart = restart


def while_loop(cond, body, loop_vars, maximum_iterations=None, names=None, ending=()):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns loop_vars.

    Plain Python while no loop variable and no condition is symbolic (switching to a graph
    loop as soon as one becomes symbolic); a graph `while` op otherwise. Python numbers
    become constants of their NumPy default dtype. A loop variable whose dtype changes in
    the body is widened to the promoted dtype, and dims that change become unknown; other
    changes raise TypeError naming the variable (`names` gives names for messages). The
    body may raise RestartLoop to run the loop again with other loop variables.

    `ending` (indexes into loop_vars) are variables the body sets only in the iteration
    after which the loop stops (a function's return value, set where a `return` ends the
    loop): what they are set to is not read by a later iteration, so one may be an earlier
    array the loop writes into (after the loop it is that array where it was set to it).
    """
    for _ in range(_MAX_RESTARTS):
        try:
            return _while_loop(cond, body, loop_vars, maximum_iterations, names, ending)
        except RestartLoop as request:
            cond, body, loop_vars, names, *rest = request.restart()
            ending = rest[0] if rest else ()
    try:
        return _while_loop(cond, body, loop_vars, maximum_iterations, names, ending)
    except RestartLoop:
        raise TypeError("rt.while_loop: the loop variables did not settle after %d restarts"
                        % _MAX_RESTARTS) from None


def _while_loop(cond, body, loop_vars, maximum_iterations, names, ending):
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
                return _graph_while(cond, body, loop_vars, remaining, names, single, ending)
            if not test:
                break
            loop_vars = _python_iteration(graph, body, loop_vars, single)
            iterations += 1
            if any(_is_symbolic(x) for x in nest.flatten(loop_vars)):
                remaining = None if maximum_iterations is None else maximum_iterations - iterations
                return _graph_while(cond, body, loop_vars, remaining, names, single, ending)
        if single:
            return loop_vars[0]
        return list(loop_vars) if was_list else tuple(loop_vars)
    return _graph_while(cond, body, loop_vars, maximum_iterations, names, single, ending)


class _LoopVar:
    """One flat loop variable: its name, the type it has in the loop, its initial value,
    and the Python handle (if any) it starts as.

    A loop variable is a value, as a Python name is: the body gets a handle of its own on
    the variable's placeholder, so other names of the initial handle keep their value
    (`acc = base` before a loop that does `acc = acc + base`). Only when the body keeps the
    name on the handle it got and writes into it (`out[i] = v`) is the variable that
    handle's contents: then the body gets the initial handle itself (`keeps_handle`), so
    every alias of it sees the writes, and the handle holds the result after the loop."""

    def __init__(self, name, kind, dtype, shape, init, handle=None):
        self.name = name
        self.kind = kind
        self.dtype = np.dtype(dtype)
        self.shape = shape
        self.init = init
        self.handle = handle
        # Arrays start on their handle (item writes are what happens to arrays in loops),
        # scalars on a handle of their own (they are only ever rebound); a trace of the body
        # that shows otherwise switches and traces again.
        self.keeps_handle = handle is not None and is_ndarray(handle)
        self.undefined = None   # the marker object, for a variable the body defines
        self.flexible = False   # a TensorArray whose dtype follows what is written
        # path_kinds.Mixed when its kind on entry and after iterations differ (True + 1.0)
        self.mixed = None
        self.tag_lost = False   # a path cannot say which kind it holds (path_kinds)
        # A Python number on some paths and a NumPy scalar of its dtype on others: the
        # description of where (path_kinds.python_on_some_paths; no tag).
        self.python_on_some_paths = None
        # A Python scalar on entry and after every iteration (path_kinds.is_python).
        self.python = init is None or path_kinds.is_python(init)
        self.init_0d_array = handle is not None and _holds_0d_array(handle)
        # A Python number on entry (`acc = 0.0`): weak, so NumPy values the body adds to it
        # decide its dtype (NEP 50), until a body output that is a NumPy value does.
        self.weak_init = (init.literal if init is not None and init.is_literal and init.weak
                          else None)
        self.location = None
        # Seen in the last trace of the body: the handle it got and its placeholder, what
        # it returned, and whether it wrote into the handle it got.
        self.passed = self.placeholder = self.returned = self.end = None
        self.written = False
        # Set by the body only in the iteration that ends the loop (while_loop's `ending`).
        self.ends_loop = False

    def type_text(self):
        return type_str(self.dtype, self.shape, self.kind)

    def returned_same(self):
        return self.passed is not None and self.returned is self.passed


def _graph_while(cond, body, loop_vars, maximum_iterations, names, single, ending=()):
    outer = current_graph()
    if outer is None:
        raise RuntimeError("rt.while_loop on symbolic values outside a trace")
    location = errors.capture_location()
    if names is not None and not isinstance(names, (list, tuple)):
        names = [names]

    paths = _named_paths(tuple(loop_vars), names, "loop_vars")
    leaves = []          # ("static", object) or ("var", index into loop_var_list)
    variables = []
    for name, leaf in paths:
        if is_tensor(leaf):
            value = leaf._value   # restored as is after tracing; add_node captures it
            # (A Tensor subclass may hold a tensor-array value: keep the value's kind.)
            variables.append(_LoopVar(name, value.kind, value.dtype, value.shape, value, leaf))
        elif _is_graph_tensor_array(leaf):
            value = leaf._value
            variables.append(_LoopVar(name, TENSOR_ARRAY, value.dtype, value.shape, value))
            variables[-1].flexible = leaf.flexible
        elif _is_eager_tensor_array(leaf):
            raise TypeError("%s is a TensorArray created outside the trace; create it inside "
                            "the traced function to use it in a graph loop" % name)
        elif _is_number(leaf) or isinstance(leaf, np.ndarray):
            array = np.asarray(leaf)
            # (A Python scalar stays one: weak, and a Python bool acts as an int in `+`.)
            value = (literal(leaf) if _is_number(leaf) else literal(array[()])
                     if array.ndim == 0 else _value_of(array, outer))
            variables.append(_LoopVar(name, TENSOR, value.dtype, value.shape, value))
            variables[-1].init_0d_array = _holds_0d_array(leaf)
        elif is_undefined(leaf):
            # Defined by the body: its type comes from the first trace of the body.
            variables.append(_LoopVar(name, None, np.float64, None, None))
            variables[-1].undefined = leaf
        else:
            leaves.append(("static", leaf))
            continue
        leaves.append(("var", len(variables) - 1))
    user_count = len(variables)
    ending_leaves = set()
    start = 0
    for index, item in enumerate(loop_vars):
        count = len(nest.flatten(item))
        if index in ending:
            ending_leaves.update(range(start, start + count))
        start += count
    for position, (kind, x) in enumerate(leaves):
        if kind == "var" and position in ending_leaves:
            variables[x].ends_loop = True
    flags = []           # per undefined variable: "the body has run at least once"
    for v in variables:
        if v.undefined is not None:
            flags.append(_LoopVar("<%s is defined>" % v.name, TENSOR, np.bool_, (),
                                  literal(np.False_)))
    counter = None
    if maximum_iterations is not None:
        counter = _LoopVar("<iteration counter>", TENSOR, np.int64, (), literal(np.int64(0)))
    implicit = []        # _LoopVar for outer handles assigned to in the body

    kind_tags = {}       # id(loop variable) -> _LoopVar of its kind tag (path_kinds)

    def all_vars():
        return (variables + implicit + flags + list(kind_tags.values())
                + ([counter] if counter is not None else []))

    def trace(fn, label):
        """Traces `fn` (the cond or the body) on placeholders of the loop variables, and
        points every handle back at its value from before when the trace ends (also when
        it fails)."""
        graph = Graph(label, parent=outer)
        current = all_vars()
        held = []   # (handle, value before): handles standing for loop variables
        try:
            with building(graph):
                placeholders = [graph.add_input(v.dtype, v.shape, v.kind)
                                if v.kind is not None else None for v in current]
                tag_placeholders = dict(zip(map(id, current), placeholders))
                for v, ph in zip(current, placeholders):
                    if ph is not None and v in variables and v.kind == TENSOR:
                        path_kinds.mark_python(ph, v.python)
                        if v.python_on_some_paths is not None and v.mixed is None:
                            path_kinds.mark_python_on_some_paths(
                                ph, v.python_on_some_paths)
                    if ph is not None and v.mixed is not None:
                        # (The body sees what each path may hold, and which it holds.)
                        tag = kind_tags.get(id(v))
                        path_kinds.mark(ph, path_kinds.Mixed(
                            v.mixed.kinds, v.mixed.description,
                            tag and tag_placeholders[id(tag)]))
                user_leaves = []
                on_handle = {}   # id(initial handle) -> placeholder it stands for
                given = []       # (loop variable, handle it gets, its placeholder)
                for v, ph in zip(current, placeholders):
                    if v.undefined is not None and ph is None:
                        user_leaves.append(v.undefined)
                        continue
                    if v in flags or v is counter:
                        continue
                    if v.keeps_handle:
                        if id(v.handle) not in on_handle:
                            held.append((v.handle, v.handle._value))
                            v.handle._value = ph
                            on_handle[id(v.handle)] = ph
                        given.append((v, v.handle, on_handle[id(v.handle)]))
                    elif v.handle is not None:
                        given.append((v, loop_aliases.own_handle(v.handle, ph), ph))
                    else:
                        given.append((v, _wrap(ph, v.flexible), ph))
                    if len(user_leaves) < user_count:
                        user_leaves.append(given[-1][1])
                args = nest.pack_as(tuple(loop_vars), [
                    user_leaves[x] if kind == "var" else x for kind, x in leaves])
                if label == "body":
                    for v in current:
                        v.passed = v.placeholder = None
                    for v, handle, ph in given:
                        v.passed, v.placeholder = handle, ph
                    result = _call_body(fn, args, single)
                else:
                    result = fn(*args)
                outputs = _collect(label, result, graph, placeholders, current)
                if label == "body":
                    for v in current:
                        v.end = v.passed._value if v.passed is not None else None
                        v.written = v.passed is not None and v.end is not v.placeholder
        finally:
            held_ids = {id(h) for h, _ in held}
            rebound = [(h, orig) for h, orig in graph.rebound.values() if id(h) not in held_ids]
            for handle, original in reversed(held):
                handle._value = original
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
            v.returned = out
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
            v.returned = v.handle
            outputs.append(v.handle._value)
        for v in flags:
            outputs.append(literal(np.True_))
        for x, v in enumerate(variables):
            if id(v) in kind_tags:
                tag = kind_tag(outputs[x], _holds_0d_array(v.returned))
                v.tag_lost = v.tag_lost or tag is None
                outputs.append(literal(np.int8(0)) if tag is None else tag)
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
        for v, out in zip(variables, body_outputs):
            if _settle_kinds(v, out):
                changed = True
            if v.python and v.kind == TENSOR and not path_kinds.is_python(out):
                v.python, changed = False, True
            if _settle_python_on_some_paths(v, out):
                changed = True
            if v.mixed is not None and id(v) not in kind_tags and not v.tag_lost:
                # Which kind it holds, as a loop variable of its own (kind_tag).
                with building(outer):
                    init = (kind_tag(v.init, v.init_0d_array) if v.init is not None
                            else literal(np.int8(0)))
                if init is None:
                    v.tag_lost = True
                else:
                    kind_tags[id(v)] = _LoopVar("<the kind of %s>" % v.name, TENSOR, np.int8,
                                                (), init)
                    changed = True
        for v in variables:
            if loop_aliases.settle_handle(v):
                changed = True
        for handle, original in rebound:
            if any(handle is v.handle for v in implicit):
                continue
            implicit.append(_LoopVar(loop_aliases.IMPLICIT, original.kind,
                                     original.dtype, original.shape, original, handle))
            implicit[-1].keeps_handle = True
            changed = True
        if not changed:
            break
    else:
        raise TypeError("rt.while_loop: loop variable types did not settle after %d traces of "
                        "the body" % _MAX_RETRACES)
    cond_graph, cond_outputs, _ = trace(cond, "cond")
    loop_aliases.check(variables, implicit, body_graph, cond_graph)

    final = all_vars()
    body_graph.outputs = [body_graph.localize(_cast_in(body_graph, out, v.dtype))
                          for v, out in zip(final, body_outputs)]
    cond_graph.outputs = [cond_graph.localize(cond_outputs[0])]
    for v in variables:
        if v.undefined is not None:
            v.init = _zeros_value(outer, v)
    inits = [_cast_in(outer, v.init, v.dtype) for v in final]
    types = [(v.dtype, v.shape, v.kind) for v in final]
    # Which arrays from before the loop the variables are, and what they write into them
    # (extra loop variables: runtime/loop_aliases.py).
    arrays = loop_aliases.EarlierArrays(variables, implicit, body_graph, cond_graph)
    inits += arrays.inits
    types += arrays.types
    union = _ordered_union([o for o, _ in cond_graph.captured] + [o for o, _ in body_graph.captured])
    cond_graph.capture_in_order(union)
    body_graph.capture_in_order(union)
    node = outer.add_node(ops.get("while"), inits + union,
                          {"n_loop_vars": len(types), "cond": cond_graph, "body": body_graph},
                          types, location=location)
    results = node.outputs
    for v, result in zip(final, results):
        if v in variables and v.kind == TENSOR:
            path_kinds.mark_python(result, v.python)
            if v.python_on_some_paths is not None and v.mixed is None:
                path_kinds.mark_python_on_some_paths(result, v.python_on_some_paths)
        if v.mixed is not None:
            tag = kind_tags.get(id(v))
            path_kinds.mark(result, path_kinds.Mixed(
                v.mixed.kinds, v.mixed.description,
                None if tag is None or v.tag_lost else results[final.index(tag)]))
    arrays.finish(results[len(final):])
    out_leaves = []
    for kind, x in leaves:
        if kind == "static":
            out_leaves.append(x)
            continue
        v = variables[x]
        if v.keeps_handle:
            v.handle.rebind(results[x])
            out_leaves.append(v.handle)
        elif v.handle is not None and v.returned_same() and not v.written:
            out_leaves.append(v.handle)   # the loop leaves it as it was: the same object
        elif arrays.of(v):
            out_leaves.append(CondAlias(results[x], arrays.of(v), Tensor(results[x])))
        elif v.handle is not None:
            out_leaves.append(loop_aliases.own_handle(v.handle, results[x]))
        else:
            out_leaves.append(_wrap(results[x], v.flexible))
    for i, v in enumerate(implicit):
        if v.written:   # (one an earlier trace found written, this one did not, is as it was)
            # (Written into in place: of the kind it was on each path, path_kinds.)
            path_kinds.mark(results[user_count + i], path_kinds.mixed(v.init))
            v.handle.rebind(results[user_count + i])
    undefined = [v for v in variables if v.undefined is not None]
    for v, flag in zip(undefined, results[user_count + len(implicit):]):
        assert_iterated(flag, [v.name])
    packed = nest.pack_as(tuple(loop_vars), out_leaves)
    if isinstance(loop_vars, list):
        packed = list(packed)
    return packed[0] if single else packed

def assert_iterated(ran, defines, loop=None, error=None):
    """The error of a loop that had to iterate at least once, because its body defines
    variables used after it (`defines`: their names as messages show them): raises `error`
    (default rt.errors.UndefinedVariableError, an InvalidArgumentError and the
    UnboundLocalError Python raises; UndefinedAttributeError and UndefinedKeyError for
    attributes and items) if `ran` (a loop variable, False before the loop and True after an
    iteration) is false, when the graph runs if it is symbolic. `loop` describes the loop
    for the message (autograph: "the for loop at file:line in f")."""
    if loop is None:
        message = ("%s is not defined before the loop, so the loop had to iterate at least "
                   "once to define it, and it did not" % ", ".join(defines))
    else:
        message = ("%s had to iterate at least once: it defines %s, which %s used after the "
                   "loop" % (loop, ", ".join(defines), "is" if len(defines) == 1 else "are"))
    assert_defined(ran, message, error)


def assert_defined(defined, message, error=None):
    """Raises `error` (an rt.errors.InvalidArgumentError subclass, default
    UndefinedVariableError) with `message` unless `defined`: when the graph runs if it is
    symbolic (a conditional raise in the graph being built: rt.Raise), now if it is not."""
    error = error or errors.UndefinedVariableError
    if isinstance(defined, Value):
        defined = Tensor(defined)
    api.Raise(error(message), unless=defined)


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


def _settle_kinds(v, out):
    """Records the kinds user loop variable `v` may hold after the loop, from its initial
    value and body output `out` (path_kinds); True if they changed (the body is traced
    again, its placeholder marked)."""
    if v.kind != TENSOR:
        return False
    if v.init is None:
        found = path_kinds.mixed(out)
    else:
        found = path_kinds.join("loop variable %s" % v.name, v.init, v.init_0d_array,
                                "entry to the loop", out, _holds_0d_array(v.returned),
                                "an iteration", errors.format_location(v.location), _describe)
    before = v.mixed.kinds if v.mixed is not None else None
    v.mixed = found if found is not None else v.mixed
    return (v.mixed.kinds if v.mixed is not None else None) != before


def _settle_python_on_some_paths(v, out):
    """Records that user loop variable `v` is a Python number on some paths and a NumPy
    scalar of its dtype on others (from its initial value and body output `out`:
    path_kinds.python_on_some_paths), where its kinds do not differ otherwise; True if that
    changed (the body is traced again, its placeholder marked)."""
    if v.kind != TENSOR or v.python_on_some_paths is not None or v.mixed is not None:
        return False
    joined = [out] if v.init is None else [v.init, out]
    if not path_kinds.python_differs(joined):
        return False
    if v.init is None:   # (the body defines it: as its output is)
        v.python_on_some_paths = path_kinds.python_on_some_paths(out)
    else:
        v.python_on_some_paths = path_kinds.python_on_some_paths_description(
            "loop variable %s" % v.name, v.init, "entry to the loop", out, "an iteration",
            errors.format_location(v.location))
    return True


def _weak_init_dtype(v, strong, widened):
    """The dtype of loop variable `v`, a Python number on entry, after an iteration gave it
    a NumPy scalar of dtype `strong`: as in NumPy 2, `acc = 0.0; for t in x32: acc += t`
    adds in float32 (the Python number is weak), so the variable is `strong` joined with
    the number, where that dtype holds the number exactly (the path that does not iterate
    returns it as it was: path_kinds); else `widened`, which holds both."""
    dtype = np.result_type(strong, v.weak_init)
    try:
        exact = dtype.kind in "biufc" and dtype.type(v.weak_init).item() == v.weak_init
    except OverflowError:   # (a Python int out of the dtype's range)
        exact = False
    v.weak_init = None   # (a NumPy value from now on: later outputs join strongly)
    return dtype if exact else widened


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
    dtype = np.result_type(v.dtype, out.literal if out.weak else out.dtype)
    if (v.weak_init is not None and not out.shape and not out.weak
            and not path_kinds.is_python(out)):
        dtype = _weak_init_dtype(v, out.dtype, dtype)
    if len(out.shape) != len(v.shape):
        raise TypeError("loop variable %s changes from %s before the loop to %s in the body; "
                        "its rank must not change" % (v.name, v.type_text(), out.type_str()))
    shape = tuple(a if a == b else None for a, b in zip(v.shape, out.shape))
    changed = dtype != v.dtype or shape != v.shape
    v.dtype, v.shape = dtype, shape
    return changed
