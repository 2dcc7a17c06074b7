"""Graph paths of `while` and `for` loops: an rt.while_loop over the loop variables the
converter's analysis chose (symbol_names), carried through get_state/set_state.

The first trace of the body also discovers what the state alone cannot tell: variables the
loop defines (undefined before it), the return value a `return` inside the loop sets, and
Python lists the body appends to (they become TensorLists). When it finds one, the loop is
traced again from the start with that variable given a typed initial value.
"""

import functools

import numpy as np

import runtime as rt
from runtime import errors as rt_errors
from autograph.operators.graph import common, iterables, lists
from autograph.operators.graph.conditionals import restore_rebound
from autograph.operators.graph.registry import graph_path_of

_MAX_ATTEMPTS = 4


class _Retry(Exception):
    """Raised out of the first body trace: the loop needs typed initial values for `fixes`."""

    def __init__(self, loop, fixes):
        super().__init__("internal: retrace the loop")
        self.loop = loop
        self.fixes = fixes


class _Static:
    """Stands for a loop-state value that stays a Python object (rt.while_loop passes it
    through unchanged and checks it comes back as the very same object)."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return "<python value>"


def _is_loop_value(value):
    """True for what rt.while_loop carries as a graph loop variable."""
    if lists.is_tensor_list(value) or isinstance(value, iterables.SymbolicIterable):
        return False
    if rt.is_tensor(value):
        return True
    if isinstance(value, rt.TensorArray):
        return value._value is not None
    if type(value) is tuple or (isinstance(value, tuple) and hasattr(type(value), "_fields")):
        return len(value) > 0 and all(_is_loop_value(v) for v in value)
    if type(value) is dict:
        return len(value) > 0 and all(_is_loop_value(v) for v in value.values())
    return isinstance(value, (bool, int, float, complex, np.generic, np.ndarray))


def _as_condition(value, what):
    if rt.is_tensor(value):
        return common.is_truthy_scalar_tensor(value, what)
    return bool(value)


class _GraphLoop:
    """One graph loop statement: its state functions, names, options and user location."""

    def __init__(self, get_state, set_state, symbol_names, opts, kind, body):
        self.get_state, self.set_state, self.names = common.without_array_items(
            get_state, set_state, symbol_names)
        # Python lists the body reads that are not loop variables (`l.insert(...)`, or any
        # mutation the analysis does not see as an assignment): watched like loop variables.
        self.list_cells = {}
        code = getattr(body, "__code__", None)
        for name, cell in zip(code.co_freevars if code else (), getattr(body, "__closure__", None) or ()):
            try:
                content = cell.cell_contents
            except ValueError:
                continue
            if type(content) is list and name not in self.names:
                self.list_cells[name] = cell
        self.opts = dict(opts or {})
        self.kind = kind
        self.location = rt_errors.capture_location()
        self.where = None

    def describe(self):
        if self.where is None:
            self.where = rt_errors.format_location(self.location)
        return "the %s loop at %s" % (self.kind, self.where)

    # -- running ----------------------------------------------------------------------------
    def run(self, test, step_body, counter_init=None, counter_step=None):
        """Runs the loop. `test()` is the condition (after set_state), `step_body(counter)` one
        iteration; with `counter_init`, an int64 counter is an extra (first) loop variable."""
        init = tuple(self.get_state())
        prepared = list(init)
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
        self.must_iterate = []
        for _ in range(_MAX_ATTEMPTS):
            saved = [(v, v._value) for v in prepared if rt.is_tensor(v)
                     and not lists.is_tensor_list(v) and not isinstance(v, iterables.SymbolicIterable)]
            self._saved = saved
            try:
                return self._attempt(init, prepared, test, step_body, counter_init)
            except _Retry as retry:
                if retry.loop is not self:
                    raise
                for handle, value in saved:
                    handle._value = value
                self.set_state(init)
                self._apply(retry.fixes, init, prepared)
        raise common.LoopVariableError("the loop variables of %s did not settle"
                                       % self.describe())

    def _apply(self, fixes, init, prepared):
        for k, (what, detail) in fixes.items():
            if isinstance(k, str):    # a list in a closure cell
                cell = self.list_cells[k]
                converted = None if detail is None else lists.to_tensor_list(
                    cell.cell_contents, detail, k)
                if converted is None:
                    raise common.StagingError(
                        "the Python list '%s' is changed in %s, whose iterations are only "
                        "known when the graph runs, but its items are not numbers or arrays "
                        "of one dtype, so it cannot become a tensor array"
                        % (k, self.describe()))
                cell.cell_contents = converted
                continue
            name = self.names[k]
            if what == "defined":
                prepared[k] = common.dummy_like(detail)
                if common.is_undefined(init[k]):
                    self.must_iterate.append(name)
            elif what == "list":
                converted = None if detail is None else lists.to_tensor_list(
                    init[k], detail, name)
                if converted is None:
                    raise common.StagingError(
                        "the Python list '%s' is appended to in %s, whose iterations are only "
                        "known when the graph runs, but its items are not numbers or arrays "
                        "of one dtype, so it cannot become a tensor array"
                        % (name, self.describe()))
                prepared[k] = converted

    def _attempt(self, init, prepared, test, step_body, counter_init):
        names = self.names
        statics = {k: _Static(k) for k, v in enumerate(prepared) if not _is_loop_value(v)}
        loop_vars = [statics.get(k, v) for k, v in enumerate(prepared)]
        extra = []
        if counter_init is not None:
            extra.append(counter_init)
        if self.must_iterate:
            extra.append(np.bool_(False))
        n_extra = len(extra)
        traces = [0]
        reassigned = {}

        def state_of(user_vars):
            return tuple(prepared[k] if k in statics else v for k, v in enumerate(user_vars))

        def cond_fn(*loop_values):
            self.set_state(state_of(loop_values[n_extra:]))
            counter = loop_values[0] if counter_init is not None else None
            return test(counter)

        def body_fn(*loop_values):
            graph = rt.current_graph()
            first = traces[0] == 0
            traces[0] += 1
            user_in = loop_values[n_extra:]
            state = state_of(user_in)
            snapshots = lists.snapshot_python_lists(state, names)
            cell_snapshots = {name: lists.ListSnapshot(name, cell.cell_contents)
                              for name, cell in self.list_cells.items()
                              if type(cell.cell_contents) is list}
            snapshots += list(cell_snapshots.values())
            try:
                self.set_state(state)
                counter = loop_values[0] if counter_init is not None else None
                step_body(counter)
                out = list(self.get_state())
                fixes = {}
                result = []
                for k, value in enumerate(out):
                    if k in statics:
                        self._check_static(k, prepared[k], value, snapshots, fixes)
                        result.append(statics[k])
                    else:
                        self._check_loop_value(k, prepared[k], value)
                        reassigned[k] = value is not user_in[k]
                        result.append(value)
                for name, snapshot in cell_snapshots.items():
                    if snapshot.changed():
                        fixes[name] = ("list", snapshot.added_types())
                if fixes:
                    if not first:
                        k = min(k for k in fixes if not isinstance(k, str)) if any(
                            not isinstance(k, str) for k in fixes) else None
                        if k is None:
                            raise common.StagingError(
                                "the Python list '%s' is changed in %s after its first trace"
                                % (min(fixes), self.describe()))
                        raise common.LoopVariableError(
                            "loop variable '%s' of %s changes from %s before the loop to %s in "
                            "the body" % (names[k], self.describe(), common.type_text(init[k]),
                                          common.type_text(out[k])))
                    raise _Retry(self, fixes)
            except BaseException as error:
                for snapshot in snapshots:
                    if snapshot.changed():
                        snapshot.restore()
                restore_rebound(graph)
                if first and isinstance(error, lists.ListChangedInBranch) and \
                        error.added_types is not None:
                    for k in statics:
                        if prepared[k] is error.target:
                            raise _Retry(self, {k: ("list", error.added_types)}) from None
                    for name, snapshot in cell_snapshots.items():
                        if snapshot.target is error.target:
                            raise _Retry(self, {name: ("list", error.added_types)}) from None
                raise
            head = []
            if counter_init is not None:
                head.append(counter + 1)
            if self.must_iterate:
                head.append(np.bool_(True))
            return tuple(head + result)

        maximum_iterations = self.opts.get("maximum_iterations")
        try:
            results = rt.while_loop(cond_fn, body_fn, tuple(extra + loop_vars),
                                    maximum_iterations=maximum_iterations,
                                    names=["<loop counter>"] * (counter_init is not None)
                                    + ["<loop ran>"] * bool(self.must_iterate) + names)
        except TypeError as e:
            if isinstance(e, common.StagingError) or not str(e).startswith(
                    ("loop variable", "rt.while_loop")):
                raise
            raise common.LoopVariableError("%s (in %s)" % (e, self.describe())) from e
        if not isinstance(results, tuple):
            results = (results,)
        user_out = results[n_extra:]
        final = []
        graph = rt.current_graph()
        for k, value in enumerate(user_out):
            if k in statics:
                final.append(prepared[k])
                continue
            before = prepared[k]
            if rt.is_tensor(before) and value is before and reassigned.get(k):
                # The body assigned a new object to the name: the object the name held
                # before the loop keeps its value (only in-place writes reach it).
                new = rt.Tensor(before._value)
                logged = graph.rebound.get(id(before)) if graph is not None else None
                original = {id(h): v for h, v in self._saved}.get(id(before))
                if original is not None:
                    before._value = original
                    if logged is not None and logged[1] is original:
                        del graph.rebound[id(before)]
                value = new
            final.append(value)
        self.set_state(tuple(final))
        if self.must_iterate:
            flag = results[1] if counter_init is not None else results[0]
            rt.Assert(flag, "%s had to iterate at least once: it defines %s, which %s used "
                      "after the loop" % (self.describe(), ", ".join(
                          "'%s'" % n for n in self.must_iterate),
                          "is" if len(self.must_iterate) == 1 else "are"))
        self._check_shape_invariants(final)
        return None

    # -- checks -------------------------------------------------------------------------------
    def _check_static(self, k, before, after, snapshots, fixes):
        name = self.names[k]
        if type(before) is list and lists.is_tensor_list(after):
            # An inner graph loop made it a TensorList: make it one for this loop too.
            fixes[k] = ("list", [(after.dtype, after.static_shape)])
            return
        if after is before:
            for snapshot in snapshots:
                if snapshot.target is before and snapshot.changed():
                    # Made a TensorList, the list traces again; what it does not support
                    # (insert, remove, ...) then fails at the user's line, naming it.
                    fixes[k] = ("list", snapshot.added_types())
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
        if _is_loop_value(after):
            return
        raise common.LoopVariableError(
            "loop variable '%s' of %s is %s before the loop but %s after an iteration"
            % (self.names[k], self.describe(), common.type_text(before),
               common.type_text(after)))

    def _check_shape_invariants(self, final):
        for k, shape in self.invariants:
            if rt.is_tensor(final[k]):
                _check_invariant(self.names[k], final[k], shape, self)


def _check_invariant(name, value, shape, loop):
    actual = value.static_shape
    shape = tuple(shape)
    if len(shape) != len(actual) or any(
            s is not None and s != a for s, a in zip(shape, actual)):
        raise common.LoopVariableError(
            "loop variable '%s' of %s has shape %s, which does not match its shape invariant "
            "%s" % (name, loop.describe(), actual, shape))


@graph_path_of("while_stmt")
def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """`while test(): body()` with a symbolic condition (also a Python loop whose condition
    became symbolic after some iterations: it continues as a graph loop from there)."""
    loop = _GraphLoop(get_state, set_state, symbol_names, opts, "while", body)
    loop.run(lambda counter: _as_condition(test(), "the condition of " + loop.describe()),
             lambda counter: body())
    return None


@graph_path_of("for_stmt")
def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """`for target in iter_: body(target)` over a symbolic iterable: a graph loop over a
    counter, stopping early when `extra_test()` (break/return flags) turns false."""
    if not (rt.is_tensor(iter_) or isinstance(iter_, rt.TensorArray)):
        return _guarded_python_loop(iter_, extra_test, body, get_state, set_state,
                                    symbol_names)
    iterable = iterables.as_iterable(iter_)
    length = iterable.loop_length()
    loop = _GraphLoop(get_state, set_state, symbol_names, opts, "for", body)

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
             counter_init=np.int64(0))
    return None


def _guarded_python_loop(iterator, extra_test, body, get_state, set_state, symbol_names):
    """The rest of a Python `for` loop whose break/return test became symbolic: the remaining
    iterations still unroll at trace time, each one a graph `if` on the test."""
    from autograph.operators.graph import conditionals
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
