"""The user's variables in control_flow's graph forms: what a statement carries out of its
graph form (its outputs), which of them may be undefined when it starts, and the
declarations that keep every variable the one variable of the user's function once its
blocks are moved into functions.

A statement's outputs, named by the `symbol_names` of its overload, are the loop variables
(modified in the loop and live into or out of it, by liveness analysis) or the branch
outputs (modified in a branch and live after it), including attribute and item targets
such as `self.total` or `state["n"]`. One that is not surely defined before the statement
may be undefined (marks.set_maybe_undefined).

In the graph form every variable a block assigns is declared `nonlocal` (or `global`) in
its function, so scoping, closures and UnboundLocalError behave as before. A variable that
only the moved blocks assign gets a declaration `x: ag__.Undefined` in the user's function
(never evaluated, no run-time cost) so that it stays local there.
"""

import gast

from autograph.core import converter, marks
from autograph.pyct import anno, ast_util, templates

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def names(symbols):
    return {str(s) for s in symbols or ()}


def simple_names(symbols):
    """The names of the symbols that are variables (not attributes or items)."""
    return {str(s) for s in symbols if not s.is_composite()}


class FunctionScope:
    """What the converter knows of the names of the user's function it is in."""

    def __init__(self, node, walrus):
        scope = anno.getanno(node, anno.Static.SCOPE, None)
        self.globals = names(scope.globals) if scope is not None else set()
        self.nonlocals = names(scope.nonlocals) if scope is not None else set()
        self.params = names(scope.params) if scope is not None else set()
        # Whether its own code may hold global/nonlocal statements (activity found some).
        self.declares = scope is None or bool(scope.globals or scope.nonlocals)
        self.walrus = walrus  # whether the function may hold a walrus operator
        self.declared_in_blocks = set()  # names the generated functions declare nonlocal
        self.maybe_undefined = set()  # outputs that may be unbound when a statement starts

    def own_bindings(self, function_node):
        """converter.own_bindings, cheaper when the user's function has no walrus (the
        code generated until now has none of its own)."""
        return converter.own_bindings(function_node, self.walrus)

    def declarations(self, modified_names):
        """global/nonlocal statements for a generated function assigning `modified_names`."""
        globals_ = modified_names & self.globals
        nonlocals = modified_names - globals_
        self.declared_in_blocks |= nonlocals - self.nonlocals
        declarations = []
        if globals_:
            declarations += templates.replace("global names", names=sorted(globals_))
        if nonlocals:
            declarations += templates.replace("nonlocal names", names=sorted(nonlocals))
        for declaration in declarations:
            marks.mark_holds_no_choice(declaration)
        return declarations

    def block_function(self, name, params, body, modified_names):
        """`def name(params): body`, a block of the user's function moved into a function
        that declares the variables it assigns."""
        declared = set()
        body = _unannotate(body, declared)
        self.declared_in_blocks |= declared - self.globals
        node = templates.replace("def name(params):\n    body", name=name, params=params,
                                 body=body)[0]
        marks.mark_holds_no_choice(node.args)  # names only
        # Only what the function's own statements bind: a nested statement's blocks are
        # functions of their own (siblings among the graph forms), declaring theirs.
        own = self.own_bindings(node)
        node.body = self.declarations((modified_names | declared) & own) + node.body
        return node

    def strip_declarations(self, function_node):
        """Removes the function's own global/nonlocal statements, keeping their names: the
        function declares them once, first (see prologue)."""
        found = {gast.Global: set(), gast.Nonlocal: set()}
        function_node.body = _strip_declarations(function_node.body, found) or [gast.Pass()]
        self.globals |= found[gast.Global]
        self.nonlocals |= found[gast.Nonlocal]

    def prologue(self, function_node):
        """The declarations the user's function starts with: its global and nonlocal
        names, then `x: ag__.Undefined` for each variable only its moved blocks assign."""
        prologue = []
        if self.globals:
            prologue += templates.replace("global names", names=sorted(self.globals))
        if self.nonlocals:
            prologue += templates.replace("nonlocal names", names=sorted(self.nonlocals))
        unbound = self.declared_in_blocks - self.params - self.globals - self.nonlocals
        if unbound:
            unbound -= self.own_bindings(function_node)
        for name in sorted(unbound):
            prologue += templates.replace("name: ag__.Undefined", name=name)
        return prologue

    def outputs(self, node, modified, live):
        """(the modified symbols the statement `node` carries out of its graph form, sorted;
        the names surely defined before it, or None when that is unknown)."""
        # None: reaching definitions did not run, so treat everything as defined.
        defined_before = (names(anno.getanno(node, anno.Static.DEFINED_VARS_IN))
                          if anno.hasanno(node, anno.Static.DEFINED_VARS_IN) else None)
        has_liveness = anno.hasanno(node, anno.Static.LIVE_VARS_OUT)
        outputs = []
        for symbol in modified:
            if symbol.is_composite():
                # Object mutations matter when the object exists before the statement.
                root = str(symbol.root)
                if defined_before is None or root in defined_before or root in self.params:
                    outputs.append(symbol)
            elif not has_liveness or str(symbol) in live:
                outputs.append(symbol)
        outputs.sort(key=str)
        return outputs, defined_before

    def loop_outputs(self, node, modified, extra_test):
        """outputs() of a loop: the symbols live into or out of it."""
        live = (names(anno.getanno(node, anno.Static.LIVE_VARS_IN, None))
                | names(anno.getanno(node, anno.Static.LIVE_VARS_OUT, None)))
        # Flags read by the extra test (break_, do_return) are always loop variables.
        if extra_test is not None:
            live |= {n.id for n in ast_util.walk(extra_test) if isinstance(n, gast.Name)}
        return self.outputs(node, modified, live)

    def note_maybe_undefined(self, outputs, defined_before):
        """Records (and returns, in output order) which variables among `outputs` may be
        undefined when their statement starts."""
        maybe_undefined = [defined_before is not None and not output.is_composite()
                           and str(output) not in defined_before for output in outputs]
        self.maybe_undefined.update(
            str(o) for o, undefined in zip(outputs, maybe_undefined) if undefined)
        return maybe_undefined


def _map_blocks(statement, process):
    """Applies `process` to every statement block directly inside a compound statement."""
    for owner, field in ast_util.statement_blocks(statement):
        new_block = process(getattr(owner, field))
        if not new_block and field == "body":
            new_block = [gast.Pass()]
        setattr(owner, field, new_block)


def _strip_declarations(statements, found):
    """Removes global/nonlocal statements of one scope (collecting their names into `found`)."""
    result = []
    for statement in statements:
        if isinstance(statement, (gast.Global, gast.Nonlocal)):
            found[type(statement)].update(statement.names)
            continue
        if not isinstance(statement, _SCOPES):
            _map_blocks(statement, lambda block: _strip_declarations(block, found))
        result.append(statement)
    return result


def _unannotate(statements, declared):
    """Local annotations cannot name a nonlocal: `x: int = v` -> `x = v` in moved blocks."""
    result = []
    for statement in statements:
        if isinstance(statement, gast.AnnAssign):
            if isinstance(statement.target, gast.Name):
                declared.add(statement.target.id)
            if statement.value is None:
                continue
            statement = templates.replace("target = value",
                                          target=templates.moved(statement.target),
                                          value=templates.moved(statement.value))[0]
        elif not isinstance(statement, _SCOPES):
            _map_blocks(statement, lambda block: _unannotate(block, declared))
        result.append(statement)
    return result
