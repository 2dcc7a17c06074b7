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

from runtime import ops, path_kinds
from runtime.conditionals import CondAlias, _cast_in, _choose
from runtime.graph import TENSOR, building, literal
from runtime.tensor import Tensor, augmented_scalars, is_ndarray, is_tensor, mark_ndarray

IMPLICIT = "a tensor assigned in the loop body"   # the name of such a loop variable


def own_handle(handle, value):
    """A new handle like `handle` (its class and attributes: a front end's list type stays a
    list), on `value`, and not a view of anything."""
    make = getattr(handle, "_rt_own_handle", None)
    if type(handle) is Tensor:
        fresh = Tensor(value)
    elif make is not None:
        fresh = make(value)
    else:
        fresh = copy.copy(handle)
        Tensor.__init__(fresh, value)
    if is_ndarray(handle):   # (a 0-d array stays one)
        mark_ndarray(fresh)
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
    (Which earlier arrays a variable is in each iteration, and what it writes into them,
    EarlierArrays follows.)"""
    written_outer = {id(v.handle): v for v in variables + implicit
                     if v.keeps_handle and v.written}
    read = _read_from_outside((body_graph, cond_graph))
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
        # (Or, on some paths, the array of one: `if c: y = x` before the loop.)
        aliased = [written_outer[id(h)] for h in getattr(v.handle, "aliased_arrays",
                                                         lambda: [])()
                   if id(h) in written_outer]
        if not v.keeps_handle and aliased:
            _alias_error(v, "is, on some paths, the same array as %s (an if before the "
                         "loop made it so), which the loop writes into in place, while it "
                         "rebinds %s: in Python %s sees those writes until it is rebound"
                         % (_var_text(aliased[0]), v.name, v.name),
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
        if (v.placeholder in augmented_scalars and is_tensor(returned)
                and is_ndarray(returned) and not _made_in(body_graph, returned)
                and not (v.handle is not None and is_ndarray(v.handle))):
            _alias_error(v, "starts the loop as a scalar but is set in the loop body to an "
                         "array from before the loop: from the second iteration on, Python's "
                         "augmented assignment to %s (`%s += ...`) writes into that array, "
                         "where the graph loop makes a new value" % (v.name, _code(v)),
                         "set it to a copy (%s = ....copy())" % _code(v))
        aliased = getattr(returned, "aliased_arrays", None)   # an rt.cond's CondAlias
        if aliased is not None and not (v.keeps_handle and returned is v.passed) and not (
                v.ends_loop):
            # (One the variable starts the loop as and keeps is written where it is; one
            # set only in the last iteration is not read by a next one.)
            # (The body reads such an array as it was before the loop: what the variable
            # wrote into it in an earlier iteration, or another name, would be missed.)
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


def _read_from_outside(graphs):
    """The ids of the outer values `graphs` capture, and of what those are captures of
    (a loop in a branch reads the branch's capture of a value from before the branch)."""
    found = set()
    for graph in graphs:
        for value, _ in graph.captured:
            while value is not None and id(value) not in found:
                found.add(id(value))
                owner = value.graph
                value = None if owner is None else next(
                    (outer for outer, inner in owner.captured if inner is value), None)
    return found


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


class EarlierArrays:
    """Which arrays from before a graph loop (a variable's initial array, or another, `x = y`)
    each loop variable is in each iteration, and what the body writes into them through it.

    In Python a name is an object: `x[0] -= 1; x = x * 2` writes the array x starts the loop
    as in the first iteration only; `a, b = b, a` makes each array be a, then b; `if c:
    x = x * 2` leaves x the array it was where c did not hold. The body graph runs the same
    in every iteration, so bool loop variables say, per variable and earlier array, whether
    the variable is that array at the start of an iteration, and a loop variable per array
    written so holds its contents. After the loop each such array has its contents, and a
    variable is a CondAlias of the arrays it may be."""

    def __init__(self, variables, implicit, body_graph, cond_graph):
        self.inits, self.types, self._flags, self._contents = [], [], [], []
        self._results = {}
        candidates = [v for v in variables if v.passed is not None and not v.keeps_handle
                      and is_tensor(v.passed)]
        sources = {id(v): _sources(v, candidates, body_graph) for v in candidates}
        possible = {id(v): ([v.handle] if v.handle is not None and
                            _is_earlier_array(v.handle, None) else []) for v in candidates}
        changed = True
        while changed:   # what each variable may be, through the others it is set to
            changed = False
            for v in candidates:
                for _, kind, target in sources[id(v)]:
                    for array in (possible[id(target)] if kind == "var" else [target]):
                        if not any(a is array for a in possible[id(v)]):
                            possible[id(v)].append(array)
                            changed = True
        # (A variable the body rebinds is its earlier array after the loop if the loop
        # did not iterate: `x` after `for ...: x = x * 2` run zero times.)
        if not any(possible[id(v)] and not (v.returned_same() and not v.written)
                   for v in candidates):
            return
        flag_in = {}
        for v in candidates:
            for array in possible[id(v)]:
                flag_in[(id(v), id(array))] = body_graph.add_input(np.bool_, ())
                cond_graph.add_input(np.bool_, ())
                self.inits.append(literal(np.bool_(array is v.handle)))
                self.types.append((np.dtype(np.bool_), (), TENSOR))
                self._flags.append((v, array))
        outputs = []
        with building(body_graph):
            for v, array in self._flags:
                now = literal(np.False_)
                for case, kind, target in sources[id(v)]:
                    if kind == "var":
                        was = flag_in.get((id(target), id(array)))
                        if was is None:
                            continue
                    elif target is array:
                        was = literal(np.True_)
                    else:
                        continue
                    now = ops.get("logical_or").bind1([now, _and(_holds(case), was)])
                outputs.append(now)
            # The contents of the arrays the variables write into.
            carried = {id(u.handle) for u in implicit + variables
                       if u.keeps_handle and u.written}
            for array in _unique(a for v in candidates if v.written for a in possible[id(v)]):
                writers = [v for v in candidates if v.written and any(
                    a is array for a in possible[id(v)])]
                if id(array) in carried:
                    _alias_error(writers[0], "is, in some iterations, an array that the loop "
                                 "also writes into through another name", "copy it first")
                contents = body_graph.add_input(array.dtype, _joined_shape(array, writers))
                cond_graph.add_input(array.dtype, contents.shape)
                for v in writers:
                    contents = _choose(flag_in[(id(v), id(array))], True,
                                       _cast_in(body_graph, v.end, array.dtype), contents)
                outputs.append(contents)
                self.inits.append(array._value)
                self.types.append((array.dtype, contents.shape, TENSOR))
                self._contents.append(array)
        body_graph.outputs.extend(outputs)

    def finish(self, results):
        """Sets the arrays' contents from the loop's extra results."""
        flags, contents = results[:len(self._flags)], results[len(self._flags):]
        for (v, array), flag in zip(self._flags, flags):
            self._results.setdefault(id(v), []).append((flag, True, array))
        for array, value in zip(self._contents, contents):
            # (Written into in place: of the kind it was on each path, path_kinds.)
            path_kinds.mark(value, path_kinds.mixed(array._value))
            array.rebind(value)

    def of(self, v):
        """[(flag, True, array)]: the arrays loop variable `v` may be after the loop."""
        return self._results.get(id(v))


def _sources(v, candidates, body_graph):
    """[(case, "var" or "array", target)]: what the body sets `v` to at the end of an
    iteration, where `case` (a tuple of (condition Value, value it has then): all hold)
    holds: the object another variable (or `v`) started the iteration as, or an earlier
    array (through the CondAliases of the body's ifs, one in another)."""
    found = []
    pending = [((), v.returned)]
    while pending:
        case, returned = pending.pop()
        if not is_tensor(returned):
            continue
        owner = next((u for u in candidates if u.passed is returned), None)
        if owner is not None:
            found.append((case, "var", owner))
        elif _is_earlier_array(returned, body_graph):
            found.append((case, "array", returned))
        elif isinstance(returned, CondAlias):
            for condition, when, handle in returned._arrays:
                # (A condition of the body, or one from before the loop that the body's
                # if tests: `ok = n > 0` before it; the body reads it as a capture.)
                if condition.graph is not body_graph and not (
                        condition.graph is not None
                        and condition.graph.is_ancestor_of(body_graph)):
                    return []
                pending.append((case + ((condition, when),), handle))
    return found


def _holds(case):
    held = literal(np.True_)
    for condition, when in case:
        now = condition if when else ops.get("logical_not").bind1([condition])
        held = ops.get("logical_and").bind1([held, now])
    return held


def _and(a, b):
    return ops.get("logical_and").bind1([a, b])


def _unique(items):
    found = []
    for item in items:
        if not any(item is f for f in found):
            found.append(item)
    return found


def _joined_shape(array, writers):
    shape = array._value.shape
    for v in writers:
        other = v.end.shape
        if len(other) != len(shape):
            _alias_error(v, "is, in some iterations, an array of another rank", "copy it first")
        shape = tuple(a if a == b else None for a, b in zip(shape, other))
    return shape


def _is_earlier_array(handle, body_graph):
    """Is `handle` an array (rank >= 1) from before the loop (not made in `body_graph`)?"""
    value = handle._value
    if value.kind != TENSOR or not is_ndarray(handle):
        return False
    return body_graph is None or value.graph is None or not body_graph.is_ancestor_of(
        value.graph)
