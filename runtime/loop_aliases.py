"""Loop variables and the Python handles they start as: which handle the body of a graph loop
gets for each (rt.while_loop's _LoopVar), and the aliasing of arrays written in place that
a graph loop cannot follow, refused at the loop.

A loop variable is a value, as a Python name is: the body gets a handle of its own on the
variable's placeholder (own_handle), so other names of the initial handle keep their value.
Only a variable the body keeps on the handle it got and writes into (`out[i] = v`) stands on
its initial handle (settle_handle decides, after each trace of the body).
"""

import copy

import numpy as np

from runtime import ops
from runtime.conditionals import CondAlias
from runtime.graph import TENSOR, literal
from runtime.tensor import Tensor, is_tensor

IMPLICIT = "a tensor assigned in the loop body"   # the name of such a loop variable


def own_handle(handle, value):
    """A new handle like `handle` (its class and attributes: a front end's list type stays a
    list), on `value`, and not a view of anything."""
    if type(handle) is Tensor:
        return Tensor(value)
    make = getattr(handle, "_rt_own_handle", None)
    if make is not None:
        return make(value)
    fresh = copy.copy(handle)
    Tensor.__init__(fresh, value)
    return fresh


def settle_handle(v):
    """After a trace of the body: does loop variable `v` stand on its initial handle, and did
    that change (so the body must be traced again)?"""
    if v.handle is None or v.passed is None:
        return False
    keeps = v.returned_same() and (v.written or v.keeps_handle)
    if keeps == v.keeps_handle:
        return False
    v.keeps_handle = keeps
    return True


def check(variables, implicit, body_graph, cond_graph):
    """Refuses a loop whose graph would not do what Python does with arrays it writes in
    place (`a[i] = v`, `a += v`). The body writes the handles it got, so an array the body
    writes into must be reached by the same loop variables in every iteration, the first
    one included, and be an outer array in each (a handle the loop keeps) or in none.

    Not seen here: a name outside the loop, not read in it, on an array that the first
    iteration writes into and then rebinds (`alias = out` before a loop doing `out[i] = v;
    out = out * 2`): graph mode writes into a copy (docs/guide.md, "Limits")."""
    written_outer = {id(v.handle): v for v in variables + implicit
                     if v.keeps_handle and v.written}
    read = {id(value) for graph in (body_graph, cond_graph) for value, _ in graph.captured}
    for v in variables:
        if v.passed is None:
            continue
        # The first iteration: the initial handles are what Python writes into.
        if not v.keeps_handle and v.handle is not None and id(v.handle) in written_outer:
            _alias_error(v, "starts as the same array as %s, which the loop writes into in "
                         "place, while it rebinds %s"
                         % (_var_text(written_outer[id(v.handle)]), v.name),
                         "give %s an array of its own before the loop: %s = %s.copy()"
                         % (v.name, _code(v), _code(v)))
        if not v.keeps_handle and v.written and v.handle is not None:
            others = [u for u in variables if u is not v and u.handle is v.handle]
            if others or id(v.init) in read:
                _alias_error(v, "is written into in place and rebound in the loop body, and %s "
                             "the array it starts as: in Python the first iteration writes "
                             "into that array and later ones into arrays of the loop"
                             % ("%s also starts as" % _var_text(others[0]) if others else
                                "the loop reads, through another name,"),
                             "write into a copy: %s = %s.copy() before the loop"
                             % (_code(v), _code(v)))
        # Later iterations: what the body returns is what the next one starts with.
        returned = v.returned
        aliased = getattr(returned, "aliased_arrays", None)   # an rt.cond's CondAlias
        if aliased is not None:
            written = {id(u.passed) for u in variables + implicit if u.written}
            outer = [h for h in aliased() if not _made_in(body_graph, h)]
            if outer and (v.written or any(id(h) in written for h in outer)):
                _alias_error(v, "is set in the loop body, under an if, to an array from "
                             "before the loop, and the loop writes into that array: in Python "
                             "the next iteration writes and reads it through %s" % v.name,
                             "set it to a copy (%s = ....copy())" % _code(v))
        if v.keeps_handle or not is_tensor(returned) or returned is v.passed:
            continue
        kept = [u for u in variables + implicit
                if u.passed is returned and (u.keeps_handle or u.returned_same())]
        if kept and (v.written or any(u.written for u in kept)) and _reads(
                (body_graph, cond_graph), v.placeholder):
            _alias_error(v, "is set in the loop body to the array of %s, which the loop "
                         "writes into in place: in Python the next iteration sees the writes "
                         "through both names" % _var_text(kept[0]),
                         "set it to a copy (%s = ....copy())" % _code(v))
        if v.written:
            sharing = [u for u in variables if u is not v and u.returned is returned]
            if sharing or not _made_in(body_graph, returned):
                _alias_error(v, "is written into in place in the loop body and then set to an "
                             "array that %s, so the next iteration would write into it"
                             % ("%s is also set to" % _var_text(sharing[0]) if sharing
                                else "exists outside the loop"),
                             "set it to a copy (%s = ....copy())" % _code(v))


def _reads(graphs, value):
    """Does a node of `graphs` read `value` (a loop variable's placeholder: is the value it
    starts an iteration with used)?"""
    return any(any(x is value for x in node.inputs) for graph in graphs for node in graph.nodes)


def _made_in(graph, handle):
    """Is `handle` a value made in `graph` (or a graph inside it), not one from outside?"""
    made = handle._value.graph
    return made is not None and graph.is_ancestor_of(made)


def _var_text(v):
    if v.name == IMPLICIT:
        return "another name"
    return v.name if v.name.startswith("'") else "loop variable %s" % v.name


def _code(v):
    """The name of a loop variable as code (autograph quotes names in messages)."""
    return v.name[1:-1] if v.name[:1] == v.name[-1:] == "'" else v.name


def _alias_error(v, what, advice):
    raise TypeError("loop variable %s %s, which a graph loop cannot do; %s"
                    % (v.name, what, advice))


def ends_on_arrays(v, body_graph):
    """[(array handle, stays)] for loop variable `v`: the arrays from before the loop that
    the body may leave `v` on, and `stays(flag Value)` building, in `body_graph`, whether
    `v` is that array at the end of an iteration (`flag`: whether it was at its start)."""
    returned = v.returned
    if v.keeps_handle or not is_tensor(returned) or returned is v.passed:
        return []
    ends = returned._arrays if isinstance(returned, CondAlias) else [(None, True, returned)]
    start, others = None, []
    for condition, when, handle in ends:
        if condition is not None and condition.graph is not body_graph:
            return []
        if handle is v.passed:
            start = (condition, when)
        elif _is_earlier_array(handle, body_graph):
            others.append((handle, (condition, when)))
    if start is not None and v.handle is not None and _is_earlier_array(v.handle, None) \
            and not any(h is v.handle for h, _ in others):
        others.insert(0, (v.handle, None))   # it may stay the array it starts the loop as

    def holds(case):
        condition, when = case
        if condition is None:
            return literal(np.bool_(when))
        return condition if when else ops.get("logical_not").bind1([condition])

    def stays_for(set_here):
        def stays(flag):
            kept = ops.get("logical_and").bind1([flag, holds(start)]) if start else \
                literal(np.False_)
            if set_here is None:
                return kept
            return ops.get("logical_or").bind1([holds(set_here), kept])
        return stays
    return [(handle, stays_for(case)) for handle, case in others]


def _is_earlier_array(handle, body_graph):
    """Is `handle` an array (rank >= 1) from before the loop (not made in `body_graph`)?"""
    value = handle._value
    if value.kind != TENSOR or not value.shape:
        return False
    return body_graph is None or value.graph is None or not body_graph.is_ancestor_of(
        value.graph)
