"""Graph paths of `while` and `for` loops: an rt.while_loop over the loop variables the
converter's analysis chose (symbol_names), carried through get_state/set_state.

The first trace of the body also discovers what the state alone cannot tell: variables the
loop defines (undefined before it), the return value a `return` inside the loop sets,
Python lists the body changes (they become TensorLists), and attributes that functions the
body calls change (`counter.add(x)`: they become extra loop variables). When it finds one,
it asks rt.while_loop to run the loop again from the start (rt.control_flow.RestartLoop)
with that value given a typed initial value; the runtime settles the tensor types, puts
back the handles a trace rebound, and raises the "had to iterate at least once" error.
Variables of the body that are not loop variables are its temporaries: they are put back
after the loop, so no value of the body's trace leaks out of it.
"""

import collections
import functools

import numpy as np

import runtime as rt
from runtime import control_flow as rt_control_flow
from runtime import errors as rt_errors
from runtime import nest
from autograph.operators import special_values
from autograph.operators.graph import common, conditionals, iterables, lists


# What one run of rt.while_loop takes (cond, body, loop_vars, names) and what sets the
# statement's state from its results (finish).
_Loop = collections.namedtuple("_Loop", "cond body loop_vars names finish ending")


class _Static(common.StateMarker):
    """Stands for a loop-state value that stays a Python object (rt.while_loop passes it
    through unchanged and checks it comes back as the very same object)."""


def _as_condition(value, what):
    if rt.is_tensor(value):
        return common.is_truthy_scalar_tensor(value, what)
    return bool(value)


class _GraphLoop:
    """One graph loop statement: its state functions, names, options and user location."""

    def __init__(self, get_state, set_state, symbol_names, opts, kind, body, test):
        self.body = body
        self.test = test
        self.get_state, self.set_state, self.names = common.statement_state(
            get_state, set_state, symbol_names, (test, body))
        # Python lists the body reads that are not loop variables (`l.insert(...)`, or any
        # mutation the analysis does not see as an assignment): watched like loop variables.
        self.list_cells = {
            name: cell for name, cell in common.closure_cells(body, deep=True).items()
            if type(common.cell_value(cell)) is list and name not in self.names}
        self.opts = dict(opts or {})
        self.kind = kind
        self.location = rt_errors.capture_location()
        self.where = None

    def describe(self):
        if self.where is None:
            self.where = rt_errors.format_location(self.location)
        return "the %s loop at %s" % (self.kind, self.where)

    # -- running ----------------------------------------------------------------------------
    def run(self, test, step_body, counter_init=None):
        """Runs the loop. `test()` is the condition (after set_state), `step_body(counter)` one
        iteration; with `counter_init`, an int64 counter is an extra (first) loop variable."""
        # (A variable an enclosing graph statement's body has not defined yet, in its first
        # trace, is undefined before this loop too: its type comes from this loop's body, a
        # Python number stays one, as at the top.)
        init = tuple(special_values.Undefined(name) if conditionals.is_unbound(value)
                     else value for name, value in zip(self.names, self.get_state()))
        prepared = list(init)
        temporaries = self.temporaries = conditionals.BlockVariables(
            (self.body,), set(self.names) | set(self.list_cells))
        self.invariants = []
        for variable, shape in self.opts.get("shape_invariants") or ():
            for k, value in enumerate(init):
                if value is variable or self.names[k] == variable:
                    self.invariants.append((k, shape))
                    break
            else:
                raise common.StagingError(
                    "shape_invariants of %s names %r, which is not a variable of the loop"
                    % (self.describe(), variable))
        self.must_iterate = []   # Python values the loop defines: it asserts it ran
        # {state index: (defined before the loop, (symbol, error, reason))}: graph values the
        # path a run takes may leave undefined (MaybeUndefined), each with a flag variable.
        self.maybe = {}
        for k, value in enumerate(init):
            if isinstance(value, special_values.MaybeUndefined):
                self.maybe[k] = (value.defined, (value.symbol, value.error, value.reason))
                # (An earlier array on the paths that define it stays that array's alias:
                # the loop's writes into it land there.)
                prepared[k] = special_values.defined_part(value)
        self.attributes = []   # (label, object, attribute) carried as extra loop variables
        at_entry = common.WatchedAttributes((self.body,))

        def restart(fixes):
            """Called by rt.while_loop (RestartLoop) after a first body trace found fixes:
            the loop starts over from its initial state, with typed initial values for
            them."""
            at_entry.restore()
            self.set_state(init)
            self._apply(fixes, init, prepared)
            current[0] = self._prepare(init, prepared, test, step_body, counter_init, restart)
            return current[0][:4] + (current[0].ending,)

        # The loop rt.while_loop runs (the last one, after restarts).
        current = [self._prepare(init, prepared, test, step_body, counter_init, restart)]
        cond_fn, body_fn, loop_vars, names = current[0][:4]
        try:
            results = rt.while_loop(cond_fn, body_fn, loop_vars, names=names,
                                    maximum_iterations=self.opts.get("maximum_iterations"),
                                    ending=current[0].ending)
        except TypeError as e:
            if isinstance(e, common.StagingError) or not str(e).startswith(
                    ("loop variable", "rt.while_loop")):
                raise
            raise common.LoopVariableError("%s (in %s)" % (e, self.describe())) from e
        current[0].finish(results)
        # Variables of the body that are not loop variables are its temporaries: they must
        # not keep values of the body's trace.
        temporaries.keep(label for label, _, _ in self.attributes)
        temporaries.changed_and_restore()
        return None

    def _apply(self, fixes, init, prepared):
        for k, (what, detail) in fixes.items():
            if isinstance(k, tuple):   # an attribute changed by a function the body calls
                self._add_attribute(*detail)
                continue
            if isinstance(k, str):    # a list in a closure cell
                cell = self.list_cells[k]
                cell.cell_contents = self._tensor_list(k, cell.cell_contents, detail)
                continue
            name = self.names[k]
            if lists.is_tensor_list(detail) or what == "list" and type(init[k]) is not list:
                # (A list the body changes, that this variable only is set to in it.)
                raise common.StagingError(
                    "%s is set in %s to a list the loop builds (a tensor array there), "
                    "which a graph loop cannot carry under another name; use the list "
                    "itself after the loop" % (common.quoted(name) if not
                                               common.is_return_value_name(name) else
                                               "the value returned", self.describe()))
            if what == "defined":
                prepared[k] = common.placeholder_like(detail)
                if not common.is_undefined(init[k]):
                    continue   # (a return value the loop sets: its do_return says where)
                if conditionals.can_flag(detail):
                    prepared[k] = common.dummy_like(detail)   # (numbers too: a tensor)
                    self.maybe[k] = (np.False_, (
                        common.quoted(name), common.undefined_error_type(name),
                        "%s defines it, and it ran no iteration that did" % self.describe()))
                else:
                    self.must_iterate.append(name)
            elif what == "list":
                prepared[k] = self._tensor_list(name, init[k], detail)

    def _tensor_list(self, name, python_list, added_types):
        converted = None if added_types is None else lists.to_tensor_list(
            python_list, added_types, name)
        if converted is None:
            raise common.StagingError(
                "the Python list '%s' is changed in %s, whose iterations are only known when "
                "the graph runs, but its items are not numbers or arrays of one dtype, so it "
                "cannot become a tensor array" % (name, self.describe()))
        return converted

    def _prepare(self, init, prepared, test, step_body, counter_init, restart):
        """The rt.while_loop for the loop variables as they are now (`prepared`), and the
        function setting the state from its results (`finish`)."""
        names = self.names
        statics = {k: _Static(k) for k, v in enumerate(prepared) if not common.is_loop_value(v)}
        loop_vars = [statics.get(k, v) for k, v in enumerate(prepared)]
        extra = []
        if counter_init is not None:
            extra.append(counter_init)
        if self.must_iterate:
            extra.append(np.bool_(False))
        maybe = sorted(self.maybe)
        n_flags = len(extra)
        extra += [self.maybe[k][0] for k in maybe]
        extra += [getattr(obj, attribute) for _, obj, attribute in self.attributes]
        n_extra = len(extra)
        n_head = n_extra - len(self.attributes)

        def set_attributes(loop_values):
            for (_, obj, attribute), value in zip(self.attributes, loop_values[n_head:n_extra]):
                setattr(obj, attribute, value)
        traces = [0]

        def state_of(loop_values):
            state = [prepared[k] if k in statics else v
                     for k, v in enumerate(loop_values[n_extra:])]
            for k, defined in zip(maybe, loop_values[n_flags:]):
                state[k] = special_values.maybe_undefined(state[k], defined,
                                                          *self.maybe[k][1])
            return tuple(state)

        def cond_fn(*loop_values):
            self.set_state(state_of(loop_values))
            set_attributes(loop_values)
            counter = loop_values[0] if counter_init is not None else None
            attributes = common.WatchedAttributes(
                (self.test,), skip={label for label, _, _ in self.attributes})
            result = test(counter)
            changed = attributes.changed()
            if changed:
                attributes.restore()
                raise common.StagingError(
                    "the condition of %s changes %s (in a function it calls), and the "
                    "condition of a graph loop cannot change state: test it in the loop "
                    "body instead (while True: ... if not condition: break)"
                    % (self.describe(), common.quoted(changed[0][0])))
            return result

        def body_fn(*loop_values):
            # (rt.while_loop may run a first iteration as Python, all values concrete.)
            first = traces[0] == 0
            traces[0] += 1
            state = state_of(loop_values)
            before = self.get_state()
            watched = _WatchedLists(state, names, self.list_cells)
            set_attributes(loop_values)
            attributes = common.WatchedAttributes(
                (self.body,), skip=set(names) | {label for label, _, _ in self.attributes})
            try:
                # Variables not defined before the loop read, in the body, as what raises
                # Python's error when the graph runs the body.
                reason = "it is not defined before %s" % self.describe()
                self.set_state(tuple(conditionals.unbound(name, value, reason)
                                     for name, value in zip(names, state)))
                self.temporaries.unbind(reason)
                counter = loop_values[0] if counter_init is not None else None
                try:
                    step_body(counter)
                except Exception as error:
                    if not common.defer_error(error):   # (else the body raises it when
                        raise                           # it runs)
                now = list(self.get_state())
                self.temporaries.check_copies_of_unbound(names, now)
                out = [special_values.Undefined(name) if conditionals.is_unbound(value)
                       else value for name, value in zip(names, now)]
                # (Items of Python lists among the loop variables, `l[0]`, go back now: the
                # list itself must come out of the body unchanged.)
                self.set_state(before)
                fixes = watched.list_fixes()
                for label, obj, attribute, _, value in attributes.changed():
                    if common.is_graph_value(value):
                        fixes[("attribute", label)] = ("attribute", (label, obj, attribute))
                result = []
                for k, value in enumerate(out):
                    if k in statics:
                        self._check_static(k, prepared[k], value, watched, fixes)
                        result.append(statics[k])
                    else:
                        self._check_loop_value(k, prepared[k], value)
                        result.append(value)
                if fixes:
                    if first:
                        raise rt_control_flow.RestartLoop(functools.partial(restart, fixes))
                    raise self._unsettled(fixes, init, out)
            except BaseException as error:
                # (rt.while_loop puts back the handles the trace rebound.)
                watched.restore()
                attributes.restore()
                if first and isinstance(error, lists.ListChangedInBranch):
                    fix = watched.fix_for(error.target, statics, prepared, error.added_types)
                    if fix is not None:
                        raise rt_control_flow.RestartLoop(
                            functools.partial(restart, fix)) from None
                raise
            head = []
            if counter_init is not None:
                head.append(counter + 1)
            if self.must_iterate:
                head.append(np.bool_(True))
            for k in maybe:   # still its value of the iteration's start: as defined as then
                value = result[k]
                head.append(loop_values[n_flags + maybe.index(k)] if value is state[k] else
                            value.defined if isinstance(value, special_values.MaybeUndefined)
                            else np.True_)
                if value is state[k] and isinstance(value, special_values.MaybeUndefinedAlias):
                    # (The handle the iteration got, which its writes went to: rt.while_loop
                    # sees it kept, so they land in the earlier array.)
                    result[k] = value.alias
            head += [getattr(obj, attribute) for _, obj, attribute in self.attributes]
            return tuple(head + result)

        def finish(results):
            if not isinstance(results, tuple):
                results = (results,)
            set_attributes(results)
            final = list(state_of(results))
            self.set_state(tuple(final))
            common.note_loop_returns(names, final)
            if self.must_iterate:
                ran = results[1] if counter_init is not None else results[0]
                for error, defines in _by_error_type(self.must_iterate).items():
                    rt_control_flow.assert_iterated(ran, defines, loop=self.describe(),
                                                    error=error)
            self._check_shape_invariants(final)

        return _Loop(cond_fn, body_fn, tuple(extra + loop_vars),
                     ["<loop counter>"] * (counter_init is not None)
                     + ["<loop ran>"] * bool(self.must_iterate)
                     + ["<%s is defined>" % names[k] for k in maybe]
                     + [label for label, _, _ in self.attributes]
                     + common.display_names(names), finish,
                     # (A return value is set where a `return` ends the loop.)
                     [n_extra + k for k, name in enumerate(names)
                      if common.is_return_value_name(name) and k not in statics])

    def _add_attribute(self, label, obj, attribute):
        value = getattr(obj, attribute, None)
        if not common.is_loop_value(value):
            raise common.LoopVariableError(
                "'%s' is changed in %s (by a function it calls) to a graph value, but is %s "
                "before the loop; give it a number or array value before the loop"
                % (label, self.describe(), common.type_text(value)))
        self.attributes.append((label, obj, attribute))

    # -- checks -------------------------------------------------------------------------------
    def _unsettled(self, fixes, init, out):
        """The error for a variable that still changes kind after the first trace."""
        indices = [k for k in fixes if isinstance(k, int)]
        attributes = sorted(k[1] for k in fixes if isinstance(k, tuple))
        if attributes and not indices:
            return common.StagingError("'%s' is changed in %s (by a function it calls) after "
                                       "its first trace" % (attributes[0], self.describe()))
        if not indices:
            return common.StagingError("the Python list '%s' is changed in %s after its first "
                                       "trace" % (min(fixes), self.describe()))
        k = min(indices)
        return common.LoopVariableError(
            "loop variable '%s' of %s changes from %s before the loop to %s in the body"
            % (self.names[k], self.describe(), common.type_text(init[k]),
               common.type_text(out[k])))

    def _check_static(self, k, before, after, watched, fixes):
        name = self.names[k]
        if type(before) is list and lists.is_tensor_list(after):
            # An inner graph loop made it a TensorList: make it one for this loop too.
            fixes[k] = ("list", [(after.dtype, after.static_shape)])
            return
        if after is before or common.same_immutable(before, after):
            if type(before) is list and watched.changed(before):
                # Made a TensorList, the list traces again; what it does not support
                # (insert, remove, ...) then fails at the user's line, naming it.
                fixes[k] = ("list", watched.added_types(before))
            return
        undefined_before = common.is_undefined(before) or common.is_return_placeholder(
            name, before)
        if undefined_before:
            if common.is_undefined(after) or common.is_return_placeholder(name, after):
                return
            fixes[k] = ("defined", after)
            return
        raise common.LoopVariableError(
            "loop variable '%s' of %s is %s before the loop but %s after an iteration; a "
            "Python value must stay the same object in a graph loop (give it a number or "
            "array value before the loop to make it a graph value)"
            % (name, self.describe(), common.type_text(before), common.type_text(after)))

    def _check_loop_value(self, k, before, after):
        if common.is_loop_value(after) and nest.same_structure(before, after,
                                                          lists_match_tuples=True):
            return
        raise common.LoopVariableError(
            "loop variable '%s' of %s is %s before the loop but %s after an iteration"
            % (self.names[k], self.describe(), common.type_text(before),
               common.type_text(after)))

    def _check_shape_invariants(self, final):
        for k, shape in self.invariants:
            if rt.is_tensor(final[k]):
                _check_invariant(self.names[k], final[k], shape, self)


_GRAPH_ERRORS = {UnboundLocalError: rt.errors.UndefinedVariableError,
                 AttributeError: rt.errors.UndefinedAttributeError,
                 KeyError: rt.errors.UndefinedKeyError}


def _by_error_type(names):
    """{graph error type: names as messages show them} of state a loop must define: the
    type Python raises when it reads each (variables, attributes, items) undefined."""
    grouped = {}
    for name in names:
        error = _GRAPH_ERRORS[common.undefined_error_type(name)]
        grouped.setdefault(error, []).append(common.quoted(name))
    return grouped


def _check_invariant(name, value, shape, loop):
    actual = value.static_shape
    shape = tuple(shape)
    if len(shape) != len(actual) or any(
            s is not None and s != a for s, a in zip(shape, actual)):
        raise common.LoopVariableError(
            "loop variable '%s' of %s has shape %s, which does not match its shape invariant "
            "%s" % (name, loop.describe(), actual, shape))


class _WatchedLists:
    """The Python lists a loop body may change (loop variables, and lists in the body's
    closure cells): their contents (and cell bindings) before one body trace."""

    def __init__(self, state, names, list_cells):
        self.snapshots = lists.snapshot_python_lists(state, names)
        self.cells = {name: (cell, common.cell_value(cell)) for name, cell in list_cells.items()}
        for name, (cell, content) in self.cells.items():
            if type(content) is list:
                self.snapshots.append(lists.ListSnapshot(name, content))

    def _snapshot(self, target):
        for snapshot in self.snapshots:
            if snapshot.target is target:
                return snapshot
        return None

    def changed(self, target):
        snapshot = self._snapshot(target)
        return snapshot is not None and snapshot.changed()

    def added_types(self, target):
        return self._snapshot(target).added_types()

    def list_fixes(self):
        """Fixes for lists in closure cells: changed in place, or made a TensorList by an
        inner graph loop."""
        fixes = {}
        for name, (cell, before) in self.cells.items():
            now = common.cell_value(cell)
            if lists.is_tensor_list(now) and type(before) is list:
                fixes[name] = ("list", [(now.dtype, now.static_shape)])
            elif now is before and self.changed(before):
                fixes[name] = ("list", self.added_types(before))
        return fixes

    def fix_for(self, target, statics, prepared, added_types):
        """The fix for a list an inner graph `if` changed (None if not watched here)."""
        if added_types is None:
            return None
        for k in statics:
            if prepared[k] is target:
                return {k: ("list", added_types)}
        for name, (cell, before) in self.cells.items():
            if before is target:
                return {name: ("list", added_types)}
        return None

    def restore(self):
        for snapshot in self.snapshots:
            if snapshot.changed():
                snapshot.restore()
        for cell, before in self.cells.values():
            common.set_cell(cell, before)


def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """`while test(): body()` with a symbolic condition (also a Python loop whose condition
    became symbolic after some iterations: it continues as a graph loop from there)."""
    loop = _GraphLoop(get_state, set_state, symbol_names, opts, "while", body, test)

    def condition(counter):
        graph = rt.current_graph()
        start = len(graph.nodes)
        cond = _as_condition(test(), "the condition of " + loop.describe())
        _refuse_effects_in_condition(graph.nodes[start:], loop)
        return cond

    loop.run(condition, lambda counter: body())
    return None


# Effects a loop condition cannot have (raising twice raises once).
_REPEATABLE_EFFECTS = frozenset({"raise", "assert"})


def _refuse_effects_in_condition(nodes, loop):
    """Python evaluated the condition once before the graph loop, to find it symbolic; the
    graph loop evaluates it again before its first iteration, so an effect in it (a print,
    a random draw) would happen once more than in Python: refused."""
    for node in nodes:
        inner = [node] + [n for _, sub in node.subgraphs for n in sub.walk()]
        for effect in inner:
            if effect.op.effect and effect.op.name not in _REPEATABLE_EFFECTS:
                raise TypeError(
                    "the condition of %s has an effect (%s) and is symbolic: the graph "
                    "loop would run it once more than Python, which evaluated it before "
                    "finding it symbolic. Compute the condition into a variable before "
                    "the loop and again at the end of its body, and loop `while` that "
                    "variable" % (loop.describe(), effect.op.name))


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """`for target in iter_: body(target)` over a symbolic iterable: a graph loop over a
    counter, stopping early when `extra_test()` (break/return flags) turns false."""
    if not (rt.is_tensor(iter_) or isinstance(iter_, rt.TensorArray)):
        rest = _remaining_range(iter_)
        if rest is None or len(rest) <= UNROLLED_GUARDED_ITERATIONS:
            return _guarded_python_loop(iter_, extra_test, body, get_state, set_state,
                                        symbol_names)
        # (A long range: the rest is one graph loop, not one nested graph `if` per item.)
        iter_ = iterables.SymbolicRange(rest.start, rest.stop, rest.step)
        if get_state is None:
            get_state, set_state = common.variable_state(symbol_names, (extra_test, body))
    iterable = iterables.as_iterable(iter_)
    length = iterable.loop_length()
    loop = _GraphLoop(get_state, set_state, symbol_names, opts, "for", body, extra_test)

    def test(counter):
        more = counter < length
        if extra_test is None:
            return more
        keep_going = extra_test()
        if not rt.is_tensor(keep_going):
            return more if keep_going else np.logical_and(more, False)
        return np.logical_and(more, common.is_truthy_scalar_tensor(
            keep_going, "the loop's break/return test"))

    loop.run(test, lambda counter: body(iterable.loop_element(counter)),
             counter_init=0)   # (a Python int: range gives Python ints)
    return None


# The most iterations of a Python `range` loop that are unrolled at trace time once its
# break/return test turned symbolic, each a graph `if` nested in the last one's; the rest of a
# longer range is a graph loop (`for _ in range(1000): ... if converged: break` would
# otherwise nest 1000 branches).
UNROLLED_GUARDED_ITERATIONS = 8

_RANGE_ITERATOR = type(iter(range(0)))


def _remaining_range(iterator):
    """The range a partly consumed range iterator has left to give, or None for another
    iterator."""
    if type(iterator) is not _RANGE_ITERATOR:
        return None
    _, (whole,), given = iterator.__reduce__()
    return whole[given:]


def _guarded_python_loop(iterator, extra_test, body, get_state, set_state, symbol_names):
    """The rest of a Python `for` loop whose break/return test became symbolic: the remaining
    iterations still unroll at trace time, each one a graph `if` on the test."""
    if get_state is None:  # variables only: reached through the loop's own blocks
        get_state, set_state = common.variable_state(symbol_names, (extra_test, body))
    for target in iterator:
        keep_going = extra_test() if extra_test is not None else True
        if not rt.is_tensor(keep_going):
            if not keep_going:
                return None
            body(target)
            continue
        conditionals.if_stmt(keep_going, functools.partial(body, target), None, get_state,
                             set_state, symbol_names, len(symbol_names))
    return None
