"""`if`, `while` and `for` become calls of ag__.if_stmt / while_stmt / for_stmt, with the
blocks moved into local functions.

Every variable a block assigns is declared `nonlocal` (or `global`) in its function, so on
Python values the overload just calls the block and every variable stays the one variable of
the user's function: scoping, closures and UnboundLocalError behave as before. A variable
that only the moved blocks assign gets a declaration `x: ag__.Undefined` in the function
(never evaluated, no run-time cost) so that it stays local there.

`get_state`/`set_state` and `symbol_names` carry the statement's outputs for the graph
paths: the loop variables (modified in the loop and live into or out of it, by liveness
analysis) or the branch outputs (modified in a branch and live after it), including
attribute and item targets such as `self.total` or `state["n"]`.
"""

import gast

from autograph.core import converter
from autograph.pyct import anno, ast_util, templates
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity, liveness, reaching_definitions

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _names(symbols):
    return {str(s) for s in symbols or ()}


def _simple(symbols):
    return {str(s) for s in symbols if not s.is_composite()}


class _Function:
    """What the converter tracks about the user function it is inside."""

    def __init__(self, node):
        scope = anno.getanno(node, anno.Static.SCOPE, None)
        self.globals = _names(scope.globals) if scope is not None else set()
        self.nonlocals = _names(scope.nonlocals) if scope is not None else set()
        self.params = _names(scope.params) if scope is not None else set()
        self.declared_in_blocks = set()  # names the generated functions declare nonlocal
        self.maybe_undefined = set()  # outputs that may be unbound when a statement starts


def _map_blocks(statement, process):
    """Applies `process` to every statement block directly inside a compound statement."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
            new_block = process(block)
            if not new_block and field == "body":
                new_block = [gast.Pass()]
            setattr(statement, field, new_block)
    for part in list(getattr(statement, "handlers", ())) + list(getattr(statement, "cases", ())):
        part.body = process(part.body) or [gast.Pass()]


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
            statement = gast.Assign(targets=[statement.target], value=statement.value,
                                    type_comment=None)
        elif not isinstance(statement, _SCOPES):
            _map_blocks(statement, lambda block: _unannotate(block, declared))
        result.append(statement)
    return result


class ControlFlowTransformer(converter.Base):

    statements_only = True

    # Functions ----------------------------------------------------------------

    def visit_FunctionDef(self, node):
        function = _Function(node)
        found = {gast.Global: set(), gast.Nonlocal: set()}
        node.body = _strip_declarations(node.body, found) or [gast.Pass()]
        function.globals |= found[gast.Global]
        function.nonlocals |= found[gast.Nonlocal]
        self.functions.append(function)
        try:
            node = self.generic_visit(node)
        finally:
            self.functions.pop()
        prologue = []
        if function.globals:
            prologue.append(gast.Global(names=sorted(function.globals)))
        if function.nonlocals:
            prologue.append(gast.Nonlocal(names=sorted(function.nonlocals)))
        if function.maybe_undefined:
            anno.setanno(node, converter.AgAnno.MAYBE_UNDEFINED,
                         frozenset(function.maybe_undefined))
        unbound = (function.declared_in_blocks - converter.own_bindings(node) - function.params
                   - function.globals - function.nonlocals)
        for name in sorted(unbound):
            prologue.extend(templates.replace("name: ag__.Undefined", name=name))
        if prologue:
            docstring = converter.docstring_length(node.body)
            node.body = node.body[:docstring] + prologue + node.body[docstring:]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return node

    # Helpers ------------------------------------------------------------------

    @property
    def function(self):
        return self.functions[-1]

    def new_function_name(self, root):
        name = self.new_symbol(root)
        self.generated_functions.add(name)
        self.ctx.user.generated_function_names.add(name)
        return name

    def _hoist(self, statements):
        """Takes the generated function definitions out of a loop body, at any depth.

        They only read and assign variables of the user's function (every assigned name
        is nonlocal), so they can be defined once before the loop instead of once per
        iteration. Returns (definitions, remaining statements).
        """
        hoisted = []

        def visit_block(block):
            remaining = []
            for statement in block:
                if (isinstance(statement, gast.FunctionDef)
                        and statement.name in self.generated_functions):
                    statement.body = visit_block(statement.body) or [gast.Pass()]
                    hoisted.append(statement)
                    continue
                if not isinstance(statement, _SCOPES):
                    _map_blocks(statement, visit_block)
                remaining.append(statement)
            return remaining

        remaining = visit_block(statements)
        return hoisted, remaining

    def _declarations(self, modified_names):
        """global/nonlocal statements for a generated function assigning `modified_names`."""
        function = self.function
        globals_ = modified_names & function.globals
        nonlocals = modified_names - globals_
        function.declared_in_blocks |= nonlocals - function.nonlocals
        declarations = []
        if globals_:
            declarations.append(gast.Global(names=sorted(globals_)))
        if nonlocals:
            declarations.append(gast.Nonlocal(names=sorted(nonlocals)))
        return declarations

    def _block_function(self, name, params, body, modified_names):
        declared = set()
        body = _unannotate(body, declared)
        self.function.declared_in_blocks |= declared - self.function.globals
        node = templates.replace("def name(params):\n    body", name=name, params=params,
                                 body=body)[0]
        node.body = self._declarations(modified_names | declared) + node.body
        return node

    def _state_functions(self, outputs, defined_before):
        """get_state/set_state definitions (or the shared no-op ones) for `outputs`."""
        if not outputs:
            return [], "ag__.get_no_state", "ag__.set_no_state"
        get_state = self.new_function_name("get_state")
        set_state = self.new_function_name("set_state")
        values = []
        for output in outputs:
            expression = output.ast()
            if (defined_before is not None and not output.is_composite()
                    and str(output) not in defined_before):
                self.function.maybe_undefined.add(str(output))
                expression = templates.replace_as_expression(
                    "ag__.value_or_undefined(lambda: value, name)", value=expression,
                    name=gast.Constant(value=str(output), kind=None))
            values.append(expression)
        state_tuple = gast.Tuple(elts=values, ctx=gast.Load())
        get_def = templates.replace("def get_state():\n    return state", get_state=get_state,
                                    state=state_tuple)
        vars_ = self.new_symbol("vars_")
        targets = gast.Tuple(elts=[o.ast() for o in outputs], ctx=gast.Store())
        set_def = templates.replace("def set_state(vars_):\n    targets = vars_",
                                    set_state=set_state, vars_=vars_, targets=targets)
        set_def[0].body = self._declarations(_simple(outputs)) + set_def[0].body
        return get_def + set_def, get_state, set_state

    @staticmethod
    def _symbol_names(outputs):
        return gast.Tuple(elts=[gast.Constant(value=str(o), kind=None) for o in outputs],
                          ctx=gast.Load())

    def _outputs(self, node, modified, live):
        """Modified symbols that the statement must carry out (for graph paths)."""
        # None: reaching definitions did not run, so treat everything as defined.
        defined_before = (_names(anno.getanno(node, anno.Static.DEFINED_VARS_IN))
                          if anno.hasanno(node, anno.Static.DEFINED_VARS_IN) else None)
        has_liveness = anno.hasanno(node, anno.Static.LIVE_VARS_OUT)
        outputs = []
        for symbol in modified:
            name = str(symbol)
            if symbol.is_composite():
                # Object mutations matter when the object exists before the statement.
                root = str(symbol.root)
                if (defined_before is None or root in defined_before
                        or root in self.function.params):
                    outputs.append(symbol)
            elif not has_liveness or name in live:
                outputs.append(symbol)
        outputs.sort(key=str)
        return outputs, defined_before

    # if -----------------------------------------------------------------------

    def visit_If(self, node):
        node = self.generic_visit(node)
        body_scope = anno.getanno(node, anno.Static.BODY_SCOPE)
        orelse_scope = anno.getanno(node, anno.Static.ORELSE_SCOPE, None)
        modified = set(body_scope.modified)
        if orelse_scope is not None:
            modified |= orelse_scope.modified
        live_out = _names(anno.getanno(node, anno.Static.LIVE_VARS_OUT, None))
        outputs, defined_before = self._outputs(node, modified, live_out)
        state_defs, get_state, set_state = self._state_functions(outputs, defined_before)

        body_name = self.new_function_name("if_body")
        statements = state_defs + [self._block_function(
            body_name, [], node.body, _simple(body_scope.modified))]
        orelse_name = "None"
        if node.orelse:
            orelse_name = self.new_function_name("else_body")
            statements.append(self._block_function(
                orelse_name, [], node.orelse, _simple(orelse_scope.modified)))
        statements += templates.replace(
            "ag__.if_stmt(test, body_name, orelse_name, get_state, set_state, symbol_names, "
            "nouts)()",
            test=node.test, body_name=body_name, orelse_name=orelse_name, get_state=get_state,
            set_state=set_state, symbol_names=self._symbol_names(outputs),
            nouts=gast.Constant(value=len(outputs), kind=None))
        return statements

    # loops --------------------------------------------------------------------

    def _loop_outputs(self, node, modified, extra_test):
        live = (_names(anno.getanno(node, anno.Static.LIVE_VARS_IN, None))
                | _names(anno.getanno(node, anno.Static.LIVE_VARS_OUT, None)))
        # Flags read by the extra test (break_, do_return) are always loop variables.
        if extra_test is not None:
            live |= {n.id for n in ast_util.walk(extra_test) if isinstance(n, gast.Name)}
        return self._outputs(node, modified, live)

    @staticmethod
    def _loop_options(node):
        options = anno.getanno(node, anno.Basic.DIRECTIVES, {}).get("set_loop_options", {})
        return gast.Dict(keys=[gast.Constant(value=k, kind=None) for k in options],
                         values=list(options.values()))

    def visit_While(self, node):
        node = self.generic_visit(node)
        body_scope = anno.getanno(node, anno.Static.BODY_SCOPE)
        cond_scope = anno.getanno(node, anno.Static.COND_SCOPE, None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        modified = set(body_scope.modified)
        cond_modified = set(cond_scope.modified) if cond_scope is not None else set()
        outputs, defined_before = self._loop_outputs(node, modified | cond_modified, extra_test)
        state_defs, get_state, set_state = self._state_functions(outputs, defined_before)

        test = node.test
        if extra_test is not None:
            # The flags first: after a break, the user's test must not run again.
            test = gast.BoolOp(op=gast.And(), values=[extra_test, test])
        hoisted, body = self._hoist(node.body)
        test_name = self.new_function_name("loop_test")
        test_def = templates.replace("def test_name():\n    return test", test_name=test_name,
                                     test=test)[0]
        test_def.body = self._declarations(_simple(cond_modified)) + test_def.body
        body_name = self.new_function_name("loop_body")
        statements = hoisted + state_defs + [test_def, self._block_function(
            body_name, [], body, _simple(body_scope.modified))]
        statements += templates.replace(
            "ag__.while_stmt(test_name, body_name, get_state, set_state, symbol_names, opts)",
            test_name=test_name, body_name=body_name, get_state=get_state,
            set_state=set_state, symbol_names=self._symbol_names(outputs),
            opts=self._loop_options(node))
        return statements + node.orelse

    def visit_For(self, node):
        node = self.generic_visit(node)
        body_scope = anno.getanno(node, anno.Static.BODY_SCOPE)
        iterate_scope = anno.getanno(node, anno.Static.ITERATE_SCOPE, None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        target_modified = set(activity.effects(gast.Assign(
            targets=[node.target], value=gast.Constant(value=None, kind=None),
            type_comment=None)).modified) if iterate_scope is None else set(
                iterate_scope.modified)
        modified = set(body_scope.modified) | target_modified
        outputs, defined_before = self._loop_outputs(node, modified, extra_test)
        state_defs, get_state, set_state = self._state_functions(outputs, defined_before)

        hoisted, loop_body = self._hoist(node.body)
        statements = hoisted + list(state_defs)
        extra_test_name = "None"
        if extra_test is not None:
            extra_test_name = self.new_function_name("extra_test")
            statements += templates.replace("def extra_test_name():\n    return extra_test",
                                            extra_test_name=extra_test_name,
                                            extra_test=extra_test)
        body_name = self.new_function_name("loop_body")
        iterate = self.new_symbol("itr")
        body = templates.replace("target = iterate", target=node.target,
                                 iterate=iterate) + loop_body
        statements.append(self._block_function(
            body_name, [iterate], body, _simple(modified)))
        statements += templates.replace(
            "ag__.for_stmt(iter_, extra_test, body_name, get_state, set_state, symbol_names, "
            "opts)",
            iter_=node.iter, extra_test=extra_test_name, body_name=body_name,
            get_state=get_state, set_state=set_state,
            symbol_names=self._symbol_names(outputs), opts=self._loop_options(node))
        return statements + node.orelse


def transform(node, ctx):
    activity.resolve(node, ctx)
    graphs = cfg.build(node)
    liveness.resolve(node, ctx, graphs)
    # Only DEFINED_VARS_IN is read here: the cheaper analysis that computes just that.
    reaching_definitions.resolve_defined_vars(node, graphs)
    transformer = ControlFlowTransformer(ctx)
    transformer.functions = []
    transformer.generated_functions = set()
    return transformer.visit(node)
