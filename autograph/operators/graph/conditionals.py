"""Graph paths of `if` statements, `a if c else b`, and `and`/`or`/`not` on symbolic values."""

import functools

import numpy as np

import runtime as rt
from runtime import conditionals as rt_conditionals
from runtime import errors as rt_errors
from runtime import nest
from autograph.operators import special_values
from autograph.operators.graph import common, lists


class _Same(common.StateMarker):
    """Stands for a container (list, tuple, dict) that both branches leave a name on: rt.cond
    would rebuild it, and it must stay that very object (rt.cond keeps handles in it, and
    carries what the branches wrote into them)."""

    __slots__ = ("value",)

    def __init__(self, index, value):
        super().__init__(index)
        self.value = value


def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """`if` on a symbolic condition: an rt.cond whose outputs are the statement's outputs
    (variables modified in either branch and live after it, and attribute/item targets).

    A Python list of numbers or arrays that a branch appends to (or that a loop in a branch
    makes a tensor array) becomes a tensor array (TensorList) before the statement, which
    is traced again."""
    location = rt_errors.capture_location()
    pred = common.is_truthy_scalar_tensor(cond, "the condition of an if statement")
    get_state, set_state, names = common.statement_state(get_state, set_state, symbol_names,
                                                         (body, orelse))
    converted = set()
    while True:
        try:
            return _if_stmt(pred, body, orelse, get_state, set_state, names, location)
        except lists.ListChangedInBranch as error:
            if id(error.target) in converted or not lists.to_tensor_list_in(
                    error, get_state, set_state, (body, orelse)):
                raise
            converted.add(id(error.target))


def _if_stmt(pred, body, orelse, get_state, set_state, names, location):
    init = tuple(get_state())
    others = BlockVariables((body, orelse), names)
    outputs = []
    raising = []           # per branch traced: does it raise when it runs
    flagged = []           # (output index, (symbol, error, reason)): outputs some path may
                           # leave undefined
    returned = []          # output indices of return values a `return` set on some paths
    returns = [k for k, name in enumerate(names) if common.is_return_value_name(name)]
    ran = []               # per branch traced: per return value, did a `return` run

    def branch(block, label):
        def traced():
            graph = rt.current_graph()
            snapshots = lists.snapshot_python_lists(init, names, (body, orelse))
            try:
                # Variables not defined before the statement read, in the branch, as what
                # raises Python's error when the graph runs that branch.
                reason = "it is not defined before the if statement at %s" % (
                    rt_errors.format_location(location))
                set_state(tuple(unbound(name, value, reason)
                                for name, value in zip(names, init)))
                others.unbind(reason)
                raised = False
                if block is not None:
                    try:
                        block()
                    except Exception as error:
                        if not common.defer_error(error):
                            raise
                        raised = True   # (the branch raises it when it runs)
                now = list(get_state())
                others.check_copies_of_unbound(names, now)
                out = [special_values.Undefined(name) if is_unbound(value) else value
                       for name, value in zip(names, now)]
                # (Items of Python lists among the outputs, `l[0]`, go back now: the list
                # itself must come out of the branch unchanged.)
                set_state(init)
                # (rt.cond keeps the identity of handles: one both branches leave a name on
                # stays that object, one that is an array from before on some path stays
                # that array there.)
                changed = others.changed_and_restore()
                lists.check_python_lists_unchanged(snapshots, label, location)
                lists.check_no_list_became_tensor_list(
                    [(before, now) for before, now in zip(init, out)]
                    + [(others.before[name], now) for name, now in changed.items()
                       if name in others.before], label, location)
            except BaseException:
                others.restore()   # (rt.cond puts back the handles the branch rebound)
                raise
            outputs.append((out, changed, graph))
            raising.append(raised)
            # Whether a `return` ran in the branch (common.note_returned), read in it.
            ran.append([common.returned_flag(names[k], out[k], _returns_itself(
                names[k], names, out, changed)) for k in returns])
            if len(outputs) == 2:
                (then_out, then_changed, then_graph), \
                    (else_out, else_changed, else_graph) = outputs
                # A branch that raises when it runs has no outputs to speak of: those of
                # the other branch's types.
                if raising == [True, False]:
                    then_out[:] = [_never_used(b) for b in else_out]
                elif raising == [False, True]:
                    else_out[:] = [_never_used(a) for a in then_out]
                flags = _reconcile(then_out, else_out, init, names, orelse is not None,
                                   location)
                others.add_outputs((then_out, then_changed, then_graph),
                                   (else_out, else_changed, else_graph))
                # After those: whether each output that some path may leave undefined is
                # defined on the path taken.
                for k, then_defined, else_defined, source in flags:
                    then_out.append(then_defined)
                    else_out.append(else_defined)
                    flagged.append((k, source))
                for k, then_ran, else_ran in zip(returns, *ran):
                    if then_ran is not True or else_ran is not True:
                        then_out.append(then_ran)
                        else_out.append(else_ran)
                        returned.append(k)
            return out
        return traced

    result = rt.cond(pred, branch(body, "if"), branch(orelse, "else"),
                     names=common.display_names(names))
    final = [value.value if isinstance(value, _Same) else
             lists.rewrap_like(value, outputs[0][0][k], outputs[1][0][k])
             for k, value in enumerate(result[:len(names)])]
    end = len(result) - len(returned)
    defined = result[end - len(flagged):end]
    for (k, source), flag in zip(flagged, defined):
        if isinstance(final[k], rt_conditionals.CondAlias):   # (an earlier array there)
            final[k] = special_values.MaybeUndefinedAlias(final[k], flag, *source)
        else:
            final[k] = special_values.MaybeUndefined(rt.constant(final[k]).graph_value,
                                                     flag, *source)
    for k, flag in zip(returned, result[end:]):
        common.note_returned(final[k], flag)
    set_state(tuple(final))
    others.set_outputs(result[len(names):end - len(flagged)])
    return None


class BlockVariables:
    """Variables a branch assigns (its blocks' closure cells) that are not among the
    statement's outputs, and attributes of objects the blocks reach that a called function
    changes. Correct analysis leaves only branch-local temporaries among the variables; all
    are put back after each branch so that no trace-time value leaks out of a branch. One
    that both branches leave defined as a graph value is made an output too (so a counter
    that `counter.add(x)` increments, or a variable the analysis missed, gets the value of
    the branch taken)."""

    def __init__(self, blocks, names):
        self.names = set(names)
        # (deep: also the names the block functions of nested statements assign)
        self.cells = {name: cell for name, cell in common.closure_cells(
            *blocks, deep=True).items() if name not in self.names}
        self.before = {name: common.cell_value(cell) for name, cell in self.cells.items()}
        self.attributes = common.WatchedAttributes(blocks, skip=self.names | set(self.cells))
        self.slots = {}   # label -> (value before, setter)
        self.extra = []

    def unbind(self, reason):
        """Binds the variables not defined before the statement to Unbound values."""
        for name, cell in self.cells.items():
            if self.before[name] is common.EMPTY:
                cell.cell_contents = unbound(name, special_values.Undefined(name), reason)

    def check_copies_of_unbound(self, names, values):
        """A variable set to another's Unbound value read it: Python raised there, so the
        branch does when it runs (a read in an op checks by itself)."""
        pairs = list(zip(names, values)) + [(name, common.cell_value(cell))
                                            for name, cell in self.cells.items()]
        for name, value in pairs:
            if is_unbound(value) and value.symbol != common.quoted(name):
                value.check()

    def keep(self, labels):
        """Leaves the variables and attributes `labels` as they are from now on (a loop
        carries them)."""
        for label in labels:
            self.attributes.skip.add(label)
            self.cells.pop(label, None)

    def restore(self):
        for name, cell in self.cells.items():
            common.set_cell(cell, self.before[name])
        self.attributes.restore()

    def changed_and_restore(self):
        """{label: value} of what the branch changed; puts everything back."""
        changed = {}
        for name, cell in self.cells.items():
            value = common.cell_value(cell)
            if value is not self.before[name] and not is_unbound(value):
                changed[name] = _current_version(value)
                self.slots[name] = (self.before[name], functools.partial(common.set_cell, cell))
        for label, obj, attribute, before, value in self.attributes.changed():
            changed[label] = _current_version(value)
            self.slots[label] = (before, functools.partial(common.set_attribute, obj, attribute))
        self.restore()
        return changed

    def add_outputs(self, then_branch, else_branch):
        """Appends, to each branch's outputs, the changes both branches can output."""
        (then_out, then_changed, then_graph), (else_out, else_changed, else_graph) = \
            then_branch, else_branch
        for label in sorted(set(then_changed) | set(else_changed)):
            before = self.slots[label][0]
            a = then_changed.get(label, before)
            b = else_changed.get(label, before)
            if common.is_graph_value(a, then_graph) and common.is_graph_value(
                    b, else_graph) and not (is_unbound(a) or is_unbound(b)):
                self.extra.append(label)
                then_out.append(a)
                else_out.append(b)

    def set_outputs(self, values):
        for label, value in zip(self.extra, values):
            self.slots[label][1](value)


def _returns_itself(name, names, out, changed):
    """Did a branch run a `return` itself (its `do_return` flag is True at its end), for
    return value variable `name`? (`out`: the branch's outputs, `changed`: the other
    variables it changed.)"""
    flag = common.return_flag_name(name)
    return (out[names.index(flag)] if flag in names else changed.get(flag)) is True


def _never_used(value):
    """A value like `value` for a path that raises before it would be used: its tensors
    zeros (a tensor of another branch cannot be used in this one), the rest as it is."""
    return _map_leaves(value, lambda leaf: common.dummy_like(leaf) if rt.is_tensor(leaf)
                       and not hasattr(leaf, "loop_length") else leaf)


def unbound(name, value, reason):
    """An Unbound value for a variable whose value is Undefined, else `value`."""
    if not common.is_undefined(value):
        return value
    return special_values.Unbound(common.quoted(name), common.undefined_error_type(name),
                                  reason)


def is_unbound(value):
    return type(value) is special_values.Unbound


def _map_leaves(value, convert):
    """`value` with `convert(leaf)` for each leaf (also inside tuples, lists and dicts); the
    same object when no leaf changes."""
    if nest.is_nested(value):
        leaves = nest.flatten(value)
        converted = [convert(leaf) for leaf in leaves]
        if any(a is not b for a, b in zip(leaves, converted)):
            return nest.pack_as(value, converted)
        return value
    return convert(value)


def _current_version(value):
    """`value` with every handle in it (a return value `(out, 1)` too) replaced by a handle
    on the version it points at now."""
    def version(leaf):
        if lists.is_tensor_list(leaf):
            return lists.TensorList(leaf.graph_value, leaf.name)
        return rt.Tensor(leaf.graph_value) if type(leaf) is rt.Tensor else leaf
    return _map_leaves(value, version)


def _reconcile(then_out, else_out, init, names, has_else, location):
    """Makes the two branches' outputs comparable, in place: a variable one branch does not
    define gets a placeholder there (zeros of the other's type) and a flag saying whether
    it is defined, as does one that may be undefined already (MaybeUndefined); return
    values not set yet become placeholders of the other branch's value. Returns
    [(index, then flag, else flag, (symbol, error, reason))]
    of the outputs that need a flag."""
    flags = []
    for k, name in enumerate(names):
        a, b = then_out[k], else_out[k]
        a_undefined, b_undefined = common.is_undefined(a), common.is_undefined(b)
        if a_undefined and b_undefined:
            then_out[k] = else_out[k] = init[k] if common.is_undefined(init[k]) else a
            continue
        if a_undefined or b_undefined:
            missing, defined = ("if", "else") if a_undefined else ("else", "if")
            value = b if a_undefined else a
            reason = ("the if statement at %s defines it in the %s branch only%s"
                      % (rt_errors.format_location(location), defined,
                         "" if has_else else " (it has no else branch)"))
            source = (common.quoted(name), common.undefined_error_type(name), reason)
            if can_flag(value):
                if a_undefined:
                    then_out[k] = common.dummy_like(b)
                    flags.append((k, False, _defined(b), source))
                else:
                    else_out[k] = common.dummy_like(a)
                    flags.append((k, _defined(a), False, source))
                continue
            if common.jumps_away(then_out if a_undefined else else_out, names):
                # That branch returns/breaks/continues: the guarded code after the if
                # statement that reads the variable does not run after it.
                if a_undefined:
                    then_out[k] = common.dummy_like(b)
                else:
                    else_out[k] = common.dummy_like(a)
                continue
            raise common.undefined_in_branch_error(name,
                "%s must also be defined in the %s branch: %s, and it is used after the "
                "statement, but it is %s, which a graph cannot leave undefined on a path; "
                "define it before the if statement or in both branches"
                % (common.quoted(name), missing, reason, common.type_text(value)))
        a_placeholder = common.is_return_placeholder(name, a)
        b_placeholder = common.is_return_placeholder(name, b)
        if a_placeholder and not b_placeholder:
            then_out[k] = a = common.placeholder_like(b)
        elif b_placeholder and not a_placeholder:
            else_out[k] = b = common.placeholder_like(a)
        if a is b and nest.is_nested(a):
            then_out[k] = else_out[k] = _Same(k, a)
            continue
        if a is not b and (isinstance(a, special_values.MaybeUndefined)
                           or isinstance(b, special_values.MaybeUndefined)):
            maybe = a if isinstance(a, special_values.MaybeUndefined) else b
            flags.append((k, _defined(a), _defined(b),
                          (maybe.symbol, maybe.error, maybe.reason)))
    return flags


def can_flag(value):
    """Can a graph `if` output `value` as a graph value with a flag (MaybeUndefined)?"""
    if rt.is_tensor(value):
        return not hasattr(value, "loop_length") and value.graph_value.kind == "tensor"
    return isinstance(value, (bool, int, float, complex, np.generic, np.ndarray))


def _defined(value):
    """Is `value`, a branch's output, defined: its flag if it may not be."""
    return value.defined if isinstance(value, special_values.MaybeUndefined) else True


def if_exp(cond, if_true, if_false, expr_repr):
    """`a if cond else b` on a symbolic condition: an rt.cond of the two expressions."""
    pred = common.is_truthy_scalar_tensor(cond, "the condition of %r" % (expr_repr,))
    return _expression_cond(pred, if_true, if_false, expr_repr)


def and_(a, b_fn):
    """`a and b`: b is computed (in the graph) only when a is true; the result is b then,
    else a, as Python returns."""
    pred = common.is_truthy_scalar_tensor(a, "the left operand of 'and'")
    return _expression_cond(pred, b_fn, lambda: a, "the value of an 'and' expression")


def or_(a, b_fn):
    """`a or b`: b is computed (in the graph) only when a is false."""
    pred = common.is_truthy_scalar_tensor(a, "the left operand of 'or'")
    return _expression_cond(pred, lambda: a, b_fn, "the value of an 'or' expression")


def _expression_cond(pred, true_fn, false_fn, name):
    """rt.cond of two expressions (functions); what they change besides their value (an
    attribute a method they call sets: `counter.add(x) > 0 and ...`) is an output too,
    as in a graph if."""
    others = BlockVariables((true_fn, false_fn), ())
    traced_outputs = []
    raising = []

    def branch(fn):
        def traced():
            graph = rt.current_graph()
            try:
                try:
                    out = [fn()]
                    raising.append(False)
                except Exception as error:
                    if not common.defer_error(error):
                        raise
                    out = [None]   # (the branch raises it when it runs)
                    raising.append(True)
                changed = others.changed_and_restore()
            except BaseException:
                others.restore()
                raise
            traced_outputs.append((out, changed, graph))
            if len(traced_outputs) == 2:
                (then_out, _, _), (else_out, _, _) = traced_outputs
                if raising[0] and not raising[1]:
                    then_out[0] = _never_used(else_out[0])
                elif raising[1] and not raising[0]:
                    else_out[0] = _never_used(then_out[0])
                others.add_outputs(*traced_outputs)
            return out
        return traced

    result = rt.cond(pred, branch(true_fn), branch(false_fn), names=[name])
    others.set_outputs(result[1:])
    return result[0]


def not_(a):
    # (`not t` is a Python bool: `(not t) + 1` is an int.)
    return rt.as_python_scalar(
        np.logical_not(common.is_truthy_scalar_tensor(a, "the operand of 'not'")))
