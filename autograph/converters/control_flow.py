"""`if`, `while` and `for` run as themselves on Python values, and as calls of
ag__.if_stmt / while_stmt / for_stmt, with the blocks moved into local functions, on
symbolic ones.

Each statement becomes a "dual" form: its condition (or iterable) is computed once into a
temporary; when that value is a Python value (bools first, then the exact-type test the
overloads use, then `is_tensor`) the statement runs inline, as written, with its blocks
converted the same way; otherwise its "graph" form runs: the overload call. The block
functions of all graph forms (a block's graph form calls those of the statements inside
it) are defined once, in one local function `graph_forms()` returning them, which only a
statement taking its graph form calls: the Python path creates none of them, and the code
stays about twice the size of the original.

In the graph form every variable a block assigns is declared `nonlocal` (or `global`) in
its function, so every variable stays the one variable of the user's function: scoping,
closures and UnboundLocalError behave as before. A variable that only the moved blocks
assign gets a declaration `x: ag__.Undefined` in the function (never evaluated, no run-time
cost) so that it stays local there.

`get_state`/`set_state` and `symbol_names` carry the statement's outputs for the graph
paths: the loop variables (modified in the loop and live into or out of it, by liveness
analysis) or the branch outputs (modified in a branch and live after it), including
attribute and item targets such as `self.total` or `state["n"]`.
"""

import gast

from autograph.converters import logical_expressions
from autograph.core import converter
from autograph.pyct import anno, ast_util, templates
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity, liveness, reaching_definitions

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")
_ANNOTATIONS_FIELD = anno._ANNO_FIELD  # pylint: disable=protected-access
_LOCATIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _copy(node):
    """A deep copy of an AST (or a list of them) keeping every annotation: the graph form of
    a block is a copy of what its Python form was made from."""
    if node.__class__ is list:
        return [_copy(n) for n in node]
    node_class = node.__class__
    source = node.__dict__
    new_node = node_class.__new__(node_class)
    target = new_node.__dict__
    for field in node_class._fields:
        value = source.get(field)
        if value.__class__ is list:
            value = [_copy(v) if isinstance(v, (gast.AST, list)) else v for v in value]
        elif isinstance(value, gast.AST):
            value = _copy(value)
        target[field] = value
    for attribute in _LOCATIONS:
        if attribute in source:
            target[attribute] = source[attribute]
    annotations = source.get(_ANNOTATIONS_FIELD)
    if annotations:
        target[_ANNOTATIONS_FIELD] = dict(annotations)
    return new_node


def _shell(node):
    """A copy of a compound statement without its blocks (and handlers/cases as shells)."""
    node_class = node.__class__
    source = node.__dict__
    new_node = node_class.__new__(node_class)
    target = new_node.__dict__
    for field in node_class._fields:
        value = source.get(field)
        if field in _BLOCK_FIELDS and value.__class__ is list and (
                not value or isinstance(value[0], gast.stmt)):
            value = []
        elif field in ("handlers", "cases"):
            value = [_shell(v) for v in value]
        elif value.__class__ is list:
            value = [_copy(v) if isinstance(v, (gast.AST, list)) else v for v in value]
        elif isinstance(value, gast.AST):
            value = _copy(value)
        target[field] = value
    for attribute in _LOCATIONS:
        if attribute in source:
            target[attribute] = source[attribute]
    annotations = source.get(_ANNOTATIONS_FIELD)
    if annotations:
        target[_ANNOTATIONS_FIELD] = dict(annotations)
    return new_node


def _name(name, ctx=gast.Load):
    return gast.Name(id=name, ctx=ctx(), annotation=None, type_comment=None)


def _with_origin(node, statements):
    """Generated statements (a list or one) report the user's statement `node` (tracebacks,
    the statement named by graph-path errors)."""
    origin = anno.getanno(node, anno.Basic.ORIGIN, None)
    if origin is not None:
        for statement in statements if statements.__class__ is list else (statements,):
            if not anno.hasanno(statement, anno.Basic.ORIGIN):
                anno.setanno(statement, anno.Basic.ORIGIN, origin)
    return statements


def _skipped(expression):
    """Later converters (and/or/not) must leave the generated type tests alone."""
    anno.setanno(expression, anno.Basic.SKIP_PROCESSING, True)
    return expression


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
        self.graph_defs = []  # the block functions of every graph form, defined together
        self.factory = None  # (name of the function defining them, name of its result)


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
            node.body = self._convert_block(node.body, False)[0] or [gast.Pass()]
        finally:
            self.functions.pop()
        prologue = []
        if function.graph_defs:
            prologue.extend(self._factory(function))
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
            declarations = [p for p in prologue if not isinstance(p, gast.FunctionDef)]
            factory = [p for p in prologue if isinstance(p, gast.FunctionDef)]
            node.body = (node.body[:docstring] + declarations + factory
                         + node.body[docstring:])
        return node

    # The graph forms' block functions --------------------------------------------

    def _factory(self, function):
        """`def graph_forms(): <every block function>; return ag__.GraphForms(...)`.

        The graph forms of all statements share their block functions (a block's graph
        form calls those of the statements inside it), so each is defined once, in this
        function, which only a statement taking its graph form calls. The block functions
        declare the user's variables nonlocal: nested one level deeper, they still reach
        the user's function.
        """
        factory_name, _ = function.factory
        names = [d.name for d in function.graph_defs]
        result = gast.Call(
            func=templates.replace_as_expression("ag__.GraphForms"), args=[],
            keywords=[gast.keyword(arg=n, value=_name(n)) for n in names])
        factory = gast.FunctionDef(
            name=factory_name, args=gast.arguments(
                args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                kwarg=None, defaults=[]),
            body=function.graph_defs + [gast.Return(value=result)], decorator_list=[],
            returns=None, type_comment=None, type_params=[])
        return [factory]

    def _factory_names(self):
        function = self.function
        if function.factory is None:
            function.factory = (self.new_function_name("graph_forms"),
                                self.new_symbol("forms"))
        return function.factory

    def _defs_out(self, statements):
        """Moves the block function definitions of `statements` to the function's graph
        forms; returns the rest (the overload call)."""
        rest = []
        for statement in statements:
            if (isinstance(statement, gast.FunctionDef)
                    and statement.name in self.generated_functions):
                self.function.graph_defs.append(statement)
            else:
                rest.append(statement)
        return rest

    def _graph_entry(self, node, calls):
        """The graph form of a statement at the user function's level: its block
        functions come from the graph forms' function."""
        factory_name, forms = self._factory_names()
        generated = self.generated_functions
        calls = _copy(calls)
        for call in calls:
            for child in ast_util.walk(call):
                for field in child._fields:
                    value = getattr(child, field, None)
                    values = value if isinstance(value, list) else [value]
                    for index, item in enumerate(values):
                        if (isinstance(item, gast.Name) and item.id in generated
                                and isinstance(item.ctx, gast.Load)):
                            replacement = gast.Attribute(value=_name(forms), attr=item.id,
                                                         ctx=gast.Load())
                            if isinstance(value, list):
                                value[index] = replacement
                            else:
                                setattr(child, field, replacement)
        entry = templates.replace("forms = factory()", forms=forms, factory=factory_name)
        return _with_origin(node, entry + calls)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return node

    # Dual forms -----------------------------------------------------------------

    def _convert_block(self, block, graph):
        """(Python form, graph form) of a block; the graph form is None unless `graph`."""
        python = []
        functional = [] if graph else None
        for statement in block:
            statement_python, statement_graph = self._convert_statement(statement, graph)
            python.extend(statement_python)
            if graph:
                functional.extend(statement_graph)
        return python, functional

    def _convert_statement(self, node, graph):
        annotations = node.__dict__.get(_ANNOTATIONS_FIELD)
        if annotations and (annotations.get(anno.Basic.SKIP_PROCESSING)
                            or annotations.get(converter.AgAnno.UNCONVERTIBLE, False)):
            return [node], ([_copy(node)] if graph else None)
        node_class = node.__class__
        if node_class is gast.If:
            python, functional = self._if(node, graph)
        elif node_class is gast.While:
            python, functional = self._while(node, graph)
        elif node_class is gast.For:
            python, functional = self._for(node, graph)
        elif node_class in (gast.FunctionDef, gast.AsyncFunctionDef):
            node = self.visit(node)
            return [node], ([_copy(node)] if graph else None)
        elif isinstance(node, _SCOPES):
            return [node], ([_copy(node)] if graph else None)
        else:
            return self._compound(node, graph)
        return python, functional

    def _compound(self, node, graph):
        """Any other statement: its blocks (try, with, match, ...) converted both ways."""
        blocks = [field for field in _BLOCK_FIELDS
                  if isinstance(getattr(node, field, None), list)
                  and getattr(node, field) and isinstance(getattr(node, field)[0], gast.stmt)]
        parts = list(getattr(node, "handlers", ())) + list(getattr(node, "cases", ()))
        if not blocks and not parts:
            return [node], ([_copy(node)] if graph else None)
        functional = _shell(node) if graph else None
        for field in blocks:
            python_block, graph_block = self._convert_block(getattr(node, field), graph)
            setattr(node, field, python_block or [gast.Pass()])
            if graph:
                setattr(functional, field, graph_block or [gast.Pass()])
        graph_parts = getattr(functional, "handlers", []) + getattr(functional, "cases", []) \
            if graph else []
        for index, part in enumerate(parts):
            python_block, graph_block = self._convert_block(part.body, graph)
            part.body = python_block or [gast.Pass()]
            if graph:
                graph_parts[index].body = graph_block or [gast.Pass()]
        return [node], ([functional] if graph else None)

    @staticmethod
    def _python_test(name, symbolic_test="is_tensor"):
        """`v is a Python value`: for conditions, the bools first (most are), then the exact
        type test the overloads use, then `is_tensor` (the builtins under ag__: the user's
        `type` may be shadowed)."""
        template = "ag__.type_(name) in ag__.PLAIN_TYPES or not ag__.symbolic_test(name)"
        if symbolic_test == "is_tensor":
            template = "name is True or name is False or " + template
        return _skipped(templates.replace_as_expression(
            template, name=name, symbolic_test=symbolic_test))

    @staticmethod
    def _symbolic_test(name, template="test"):
        """`v is symbolic` (the negation of _python_test) inside `template`."""
        return _skipped(templates.replace_as_expression(template, test=templates.replace_as_expression(
            "name is not True and name is not False and ag__.type_(name) not in "
            "ag__.PLAIN_TYPES and ag__.is_tensor(name)", name=name)))

    def _if(self, node, graph):
        python_body, graph_body = self._convert_block(node.body, True)
        python_else, graph_else = self._convert_block(node.orelse, True)
        # The condition is computed once, into a temporary (a name is just read again).
        # `if not x` tests x itself (`not` of a Python value is a Python bool).
        test = node.test
        negated = isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)
        if negated:
            test = test.operand
        simple = isinstance(test, gast.Name)
        cond = test.id if simple else self.new_symbol("cond")
        graph_test = _name(cond)
        if negated:
            graph_test = templates.replace_as_expression("ag__.not_(cond)", cond=cond)
        graph_part = _with_origin(node, self._defs_out(
            self._graph_if(node, graph_test, graph_body, graph_else)))
        inline_test = _name(cond)
        if negated:  # `not` of a value just found to be a Python value stays as it is
            inline_test = gast.UnaryOp(op=gast.Not(), operand=inline_test)
            anno.setanno(inline_test, logical_expressions.INLINE_TEST, True)
        inline = gast.If(test=inline_test, body=python_body or [gast.Pass()],
                         orelse=python_else)
        python = [] if simple else [gast.Assign(targets=[_name(cond, gast.Store)],
                                                value=test, type_comment=None)]
        python.append(gast.If(test=self._python_test(cond), body=[_with_origin(node, inline)],
                              orelse=self._graph_entry(node, graph_part)))
        _with_origin(node, python)
        functional = None
        if graph:
            functional = [] if simple else _with_origin(node, [gast.Assign(
                targets=[_name(cond, gast.Store)], value=_copy(test), type_comment=None)])
            functional += graph_part
        return python, functional

    def _while(self, node, graph):
        if self._has_loop_options(node):
            # Loop options are for graph loops: such a loop keeps its graph form only.
            functional = _with_origin(node, self._defs_out(self._graph_while(
                node, self._convert_block(node.body, True)[1])))
            python_else, graph_else = self._convert_block(node.orelse, graph)
            return (self._graph_entry(node, functional) + python_else,
                    functional + graph_else if graph else None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        python_body, graph_body = self._convert_block(node.body, True)
        test = node.test
        if extra_test is not None:
            test = gast.BoolOp(op=gast.And(), values=[_copy(extra_test), test])
        graph_part = _with_origin(node, self._defs_out(self._graph_while(node, graph_body)))
        # The graph form inside the enclosing graph form calls while_stmt; here the
        # condition was just computed (symbolic): straight to the graph loop.
        inline_graph_part = self._graph_entry(node, graph_part)
        inline_graph_part[-1].value.func.attr = "while_graph"
        cond = self.new_symbol("cond")
        # The condition runs exactly once per iteration; when it turns symbolic, the rest
        # of the loop runs as a graph loop (which traces the condition itself).
        python = templates.replace(
            "while True:\n"
            "    cond = test\n"
            "    if stop:\n"
            "        break\n"
            "    body\n"
            "if symbolic:\n"
            "    graph_part",
            cond=cond, test=test, body=python_body or [gast.Pass()],
            stop=self._symbolic_test(cond, f"test or not {cond}"),
            symbolic=self._symbolic_test(cond), graph_part=inline_graph_part)
        _with_origin(node, python)
        _with_origin(node, python[0].body)
        python_else, graph_else = self._convert_block(node.orelse, graph)
        functional = graph_part + graph_else if graph else None
        return python + python_else, functional

    def _for(self, node, graph):
        if self._has_loop_options(node):
            functional = _with_origin(node, self._defs_out(self._graph_for(
                node, node.iter, self._convert_block(node.body, True)[1])))
            python_else, graph_else = self._convert_block(node.orelse, graph)
            return (self._graph_entry(node, _copy(functional)) + python_else,
                    functional + graph_else if graph else None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        python_body, graph_body = self._convert_block(node.body, True)
        iterated = self.new_symbol("iterated")
        graph_part = _with_origin(node, self._defs_out(
            self._graph_for(node, _name(iterated), graph_body)))
        graph_entry = self._graph_entry(node, graph_part)
        python_test = self._python_test(iterated, "is_symbolic_iterable")
        if extra_test is None:
            python = templates.replace(
                "iterated = iterable\n"
                "if python_test:\n"
                "    for target in iterated:\n"
                "        body\n"
                "else:\n"
                "    graph_part",
                iterated=iterated, iterable=node.iter, python_test=python_test,
                target=node.target, body=python_body or [gast.Pass()], graph_part=graph_entry)
        else:
            # The extra test (break/return flags: True, False or symbolic) is checked before
            # the first iteration and after each body; when it turns symbolic, the graph
            # form runs the rest of the partly consumed iterator.
            python = templates.replace(
                "iterated = iterable\n"
                "if python_test:\n"
                "    iterated = ag__.iter_(iterated)\n"
                "    if extra_test is True:\n"
                "        for target in iterated:\n"
                "            body\n"
                "            stop\n"
                "if maybe_graph:\n"
                "    if ag__.for_needs_graph(iterated, extra_test_graph):\n"
                "        graph_part",
                iterated=iterated, iterable=node.iter, python_test=python_test,
                extra_test=self._overload_form(extra_test),
                stop=self._stop_test(extra_test),
                maybe_graph=self._maybe_graph(iterated, extra_test),
                extra_test_graph=self._overload_form(extra_test), target=node.target,
                body=python_body or [gast.Pass()], graph_part=graph_entry)
        _with_origin(node, python)
        _with_origin(node, python[1].body)
        if extra_test is not None:
            loop = python[1].body[1].body[0]
            _with_origin(node, loop)
            _with_origin(node, loop.body[-1])
        python_else, graph_else = self._convert_block(node.orelse, graph)
        functional = None
        if graph:
            functional = _with_origin(node, [gast.Assign(
                targets=[_name(iterated, gast.Store)], value=_copy(node.iter),
                type_comment=None)])
            functional += graph_part + graph_else
        return python + python_else, functional

    @staticmethod
    def _flags(extra_test):
        """The flag names of an extra test `not flag_1 and not flag_2 ...` (lowered
        break/return), or None when it has another form."""
        terms = extra_test.values if isinstance(extra_test, gast.BoolOp) and isinstance(
            extra_test.op, gast.And) else [extra_test]
        flags = [t.operand.id for t in terms
                 if isinstance(t, gast.UnaryOp) and isinstance(t.op, gast.Not)
                 and isinstance(t.operand, gast.Name)]
        return flags if len(flags) == len(terms) else None

    def _maybe_graph(self, iterated, extra_test):
        """A cheap test that is False when the loop certainly needs no graph form after its
        Python form: a Python iterator and flags that are Python bools."""
        flags = self._flags(extra_test)
        if flags is None:
            return gast.Constant(value=True, kind=None)
        parts = [f"ag__.type_({iterated}) not in ag__.PLAIN_TYPES"] + [
            f"{flag} is not True and {flag} is not False" for flag in flags]
        return _skipped(templates.replace_as_expression(" or ".join(parts)))

    @staticmethod
    def _overload_form(extra_test):
        """The extra test `not flag_1 and not flag_2 ...` in its overload form, for the
        places of a loop's Python form that evaluate it rarely (shorter code)."""
        flags = ControlFlowTransformer._flags(extra_test)
        if flags is None:
            return extra_test
        result = templates.replace_as_expression("ag__.not_(flag)", flag=flags[-1])
        for flag in reversed(flags[:-1]):
            result = templates.replace_as_expression(
                "ag__.and_(ag__.not_(flag), lambda: rest)()", flag=flag, rest=result)
        return result

    @staticmethod
    def _stop_test(extra_test):
        """`if extra_test is not True: break` (the loop must stop, or continue as a graph
        loop). The extra test is `not flag_1 and not flag_2 ...` (lowered break/return):
        while every flag is exactly False it is True, and that is tested first, cheaply."""
        stop = templates.replace("if extra_test is not True:\n    break",
                                 extra_test=ControlFlowTransformer._overload_form(extra_test))
        flags = ControlFlowTransformer._flags(extra_test)
        if flags is None:
            return stop
        any_set = _skipped(templates.replace_as_expression(
            " or ".join(f"{flag} is not False" for flag in flags)))
        return templates.replace("if any_set:\n    stop", any_set=any_set, stop=stop)

    @staticmethod
    def _has_loop_options(node):
        return bool(anno.getanno(node, anno.Basic.DIRECTIVES, {}).get("set_loop_options"))

    # Helpers ------------------------------------------------------------------

    @property
    def function(self):
        return self.functions[-1]

    def new_function_name(self, root):
        name = self.new_symbol(root)
        self.generated_functions.add(name)
        self.ctx.user.generated_function_names.add(name)
        return name

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

    def _graph_if(self, node, test, body, orelse):
        """Today's functional form of an if: block functions and an if_stmt call."""
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
            body_name, [], body or [gast.Pass()], _simple(body_scope.modified))]
        orelse_name = "None"
        if orelse:
            orelse_name = self.new_function_name("else_body")
            statements.append(self._block_function(
                orelse_name, [], orelse, _simple(orelse_scope.modified)))
        statements += templates.replace(
            "ag__.if_stmt(test, body_name, orelse_name, get_state, set_state, symbol_names, "
            "nouts)()",
            test=test, body_name=body_name, orelse_name=orelse_name, get_state=get_state,
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

    def _graph_while(self, node, body):
        """Today's functional form of a while loop (its else block excluded)."""
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
        body = body or [gast.Pass()]
        test_name = self.new_function_name("loop_test")
        test_def = templates.replace("def test_name():\n    return test", test_name=test_name,
                                     test=test)[0]
        test_def.body = self._declarations(_simple(cond_modified)) + test_def.body
        body_name = self.new_function_name("loop_body")
        statements = state_defs + [test_def, self._block_function(
            body_name, [], body, _simple(body_scope.modified))]
        statements += templates.replace(
            "ag__.while_stmt(test_name, body_name, get_state, set_state, symbol_names, opts)",
            test_name=test_name, body_name=body_name, get_state=get_state,
            set_state=set_state, symbol_names=self._symbol_names(outputs),
            opts=self._loop_options(node))
        return statements

    def _graph_for(self, node, iterated, body):
        """Today's functional form of a for loop over `iterated` (its else block excluded)."""
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

        loop_body = body or [gast.Pass()]
        statements = list(state_defs)
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
            iter_=iterated, extra_test=extra_test_name, body_name=body_name,
            get_state=get_state, set_state=set_state,
            symbol_names=self._symbol_names(outputs), opts=self._loop_options(node))
        return statements


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
