"""`if`, `while` and `for` run as themselves on Python values, and as calls of
ag__.if_stmt / while_stmt / for_stmt, with the blocks moved into local functions, on
symbolic ones.

Each statement becomes a "dual" form: its condition (or iterable) is computed once into a
temporary; when that value is a Python value (bools first, then the exact-type test the
overloads use, then `ag__.is_plain` for other types) the statement runs inline, as
written, with its blocks converted the same way; otherwise its graph form runs:
`graph_forms().if_stmt_2(cond)`. A condition that is certainly a Python bool (`x is None`,
`k in d`, a constant: see logical_expressions.is_python_valued) needs neither: such a
statement stays as it is.

The graph forms of all statements are defined once, in one local function `graph_forms()`
returning them (`ag__.GraphForms(ag__.locals_())`), which only a statement taking its graph
form calls: the Python path creates none of them. There, each statement has its block
functions and a function of its condition (or iterable) running its overload with them:
`if_stmt_2 = ag__.if_form(if_body_2, ...)`, so that `if_stmt_2(cond)` runs
`ag__.if_stmt(cond, if_body_2, ...)()` (a `def` when loop options hold the user's
expressions, evaluated when the loop runs). The graph forms of enclosing blocks call it too.

In the graph form every variable a block assigns is declared `nonlocal` (or `global`) in
its function, so every variable stays the one variable of the user's function: scoping,
closures and UnboundLocalError behave as before. A variable that only the moved blocks
assign gets a declaration `x: ag__.Undefined` in the function (never evaluated, no run-time
cost) so that it stays local there.

`symbol_names` names the statement's outputs for the graph paths: the loop variables
(modified in the loop and live into or out of it, by liveness analysis) or the branch outputs
(modified in a branch and live after it), including attribute and item targets such as
`self.total` or `state["n"]`. The graph paths read and write variables through the closure
cells of the block functions (which declare them), so the code passes None for the state
functions; a statement whose outputs include attribute or item targets gets
`get_state`/`set_state` functions (shared by statements carrying the same outputs).
"""

import gast

from autograph.converters import logical_expressions
from autograph.core import converter, marks
from autograph.pyct import anno, ast_util, templates
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity, liveness, reaching_definitions

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
# The statements whose graph forms read liveness and reaching definitions.
_CONVERTED_STATEMENTS = (gast.If, gast.While, gast.For)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")
_SIMPLE_STATEMENTS = frozenset({
    gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.Delete,
    gast.Pass, gast.Break, gast.Continue, gast.Raise, gast.Assert, gast.Import,
    gast.ImportFrom, gast.Global, gast.Nonlocal})
# The overloads running statements, and the ag__ functions making their graph forms.
_FORMS = {"if_stmt": "if_form", "for_stmt": "for_form", "while_stmt": "while_form",
          "while_graph": "while_graph_form"}


def _copy_without_blocks(statement):
    """A copy of a compound statement, with every annotation, whose statement blocks (and
    those of its handlers or cases) are empty: its graph form gets blocks of its own."""
    emptied = []
    for owner in [statement, *getattr(statement, "handlers", ()),
                  *getattr(statement, "cases", ())]:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(owner, field, None)
            if block.__class__ is list:
                emptied.append((owner, field, block))
                setattr(owner, field, [])
    try:
        return templates.copy_tree(statement)
    finally:
        for owner, field, block in emptied:
            setattr(owner, field, block)


def _graph_copy(node):
    """A statement or expression of the Python form, for the graph form too: the node
    itself when it holds no choice (marked by call_trees). Nothing after this converter
    changes such a node in place (conditional and logical expressions skip it), except
    `ag__.ld` reads, which visit_FunctionDef gives their own copies; everything else is
    copied, since those converters rewrite the two forms differently."""
    if marks.holds_no_choice(node):
        return node
    return templates.copy_tree(node)


def _without_choices(node):
    """Marks a node this converter generates from names, constants and nodes already marked
    as holding no choice: the relevance walks of the two converters after it skip it."""
    return marks.mark_holds_no_choice(node)


def _hold_no_choice(nodes):
    return all(node.__class__ is gast.Name or marks.holds_no_choice(node)
               for node in nodes)


def _name(name, ctx=gast.Load):
    # Built directly, as templates build names: gast's generic constructor (for the name
    # and its context) costs as much again, and names are most of what is made here.
    node = gast.Name.__new__(gast.Name)
    node.__dict__ = {"id": name, "ctx": ctx.__new__(ctx), "annotation": None,
                     "type_comment": None}
    return node


def _ref(name):
    """The expression reading `name`: a generated function, `ag__.x` or None (built
    directly: a template per name would be parsed anew for every name)."""
    if name == "None":
        return gast.Constant(value=None, kind=None)
    if name.startswith("ag__."):
        return gast.Attribute(value=_name("ag__"), attr=name[len("ag__."):], ctx=gast.Load())
    return _name(name)


def _call_statement(func, args):
    return gast.Expr(value=gast.Call(func=func, args=args, keywords=[]))


def _flags_test(flags, operator, identity):
    """`flag_1 is False and flag_2 is False ...` (or any such combination)."""
    terms = [gast.Compare(left=_name(flag), ops=[identity()],
                          comparators=[gast.Constant(value=False, kind=None)])
             for flag in flags]
    return terms[0] if len(terms) == 1 else gast.BoolOp(op=operator(), values=terms)


def _with_origin(node, statements):
    """Generated statements (a list or one) report the user's statement `node` (tracebacks,
    the statement named by graph-path errors)."""
    origin = anno.getanno(node, anno.Basic.ORIGIN, None)
    if origin is not None:
        for statement in statements if statements.__class__ is list else (statements,):
            if not anno.hasanno(statement, anno.Basic.ORIGIN):
                anno.setanno(statement, anno.Basic.ORIGIN, origin)
    return statements


def _skipped(node):
    """Later converters (and/or/not) must leave the generated type tests alone; nor is
    there anything for them in the generated functions made of names and constants only
    (their relevance walks then skip them too)."""
    anno.setanno(node, anno.Basic.SKIP_PROCESSING, True)
    return node


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
        # Whether its own code may hold global/nonlocal statements (activity found some).
        self.declares = scope is None or bool(scope.globals or scope.nonlocals)
        self.declared_in_blocks = set()  # names the generated functions declare nonlocal
        self.maybe_undefined = set()  # outputs that may be unbound when a statement starts
        self.graph_defs = []  # the block functions of every graph form, defined together
        self.factory = None  # the name of the function defining them
        # (output, maybe undefined) tuple -> its (get_state, set_state) names: statements
        # carrying the same variables share one pair.
        self.state_functions = {}


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
        if function.declares:
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
            if function.maybe_undefined:
                # The variables converter rewrites reads of these names in place, in the
                # Python form only: the graph form must not share its nodes then.
                function.graph_defs = templates.copy_tree(function.graph_defs)
            prologue.extend(self._factory(function))
        if function.globals:
            prologue.append(gast.Global(names=sorted(function.globals)))
        if function.nonlocals:
            prologue.append(gast.Nonlocal(names=sorted(function.nonlocals)))
        if function.maybe_undefined:
            marks.set_maybe_undefined(node, function.maybe_undefined)
        unbound = (function.declared_in_blocks - function.params - function.globals
                   - function.nonlocals)
        if unbound:
            unbound -= self.own_bindings(node)
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
        factory_name = function.factory or self.new_function_name("graph_forms")
        # Its locals are the block functions (and the user's variables it passes on to
        # them): one short line, whatever their number.
        result = templates.replace_as_expression("ag__.GraphForms(ag__.locals_())")
        factory = gast.FunctionDef(
            name=factory_name, args=gast.arguments(
                args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                kwarg=None, defaults=[]),
            body=function.graph_defs + [_without_choices(gast.Return(value=result))],
            decorator_list=[],
            returns=None, type_comment=None, type_params=[])
        return [factory]

    def _factory_name(self):
        function = self.function
        if function.factory is None:
            function.factory = self.new_function_name("graph_forms")
        return function.factory

    def _graph_entry(self, node, entry, args):
        """`graph_forms().entry(args)`: a statement of the Python form taking its graph
        form (its condition or iterable found symbolic)."""
        forms = gast.Call(func=_name(self._factory_name()), args=[], keywords=[])
        statement = _call_statement(gast.Attribute(value=forms, attr=entry, ctx=gast.Load()),
                                    args)
        if _hold_no_choice(args):
            _without_choices(statement)
        return _with_origin(node, [statement])

    @staticmethod
    def _call(node, name, args):
        """`name(args)` (a graph form calling the function that runs a statement's
        overload), reporting the user's statement `node`."""
        statement = _call_statement(_name(name), args)
        if _hold_no_choice(args):
            _without_choices(statement)
        return _with_origin(node, [statement])

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
        if marks.is_left_alone(node):
            return [node], ([templates.copy_tree(node)] if graph else None)
        node_class = node.__class__
        if node_class is gast.If:
            python, functional = self._if(node, graph)
        elif node_class is gast.While:
            python, functional = self._while(node, graph)
        elif node_class is gast.For:
            python, functional = self._for(node, graph)
        elif node_class in (gast.FunctionDef, gast.AsyncFunctionDef):
            node = self.visit(node)
            return [node], ([templates.copy_tree(node)] if graph else None)
        elif isinstance(node, _SCOPES):
            return [node], ([templates.copy_tree(node)] if graph else None)
        else:
            return self._compound(node, graph)
        return python, functional

    def _compound(self, node, graph):
        """Any other statement: its blocks (try, with, match, ...) converted both ways."""
        if node.__class__ in _SIMPLE_STATEMENTS:  # most statements: no blocks to look for
            return [node], ([_graph_copy(node)] if graph else None)
        blocks = [field for field in _BLOCK_FIELDS
                  if isinstance(getattr(node, field, None), list)
                  and getattr(node, field) and isinstance(getattr(node, field)[0], gast.stmt)]
        parts = list(getattr(node, "handlers", ())) + list(getattr(node, "cases", ()))
        if not blocks and not parts:
            return [node], ([templates.copy_tree(node)] if graph else None)
        functional = _copy_without_blocks(node) if graph else None
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
    def _python_test(name, template="name is True or name is False or ag__.type_(name) in "
                                    "ag__.PLAIN_TYPES or ag__.is_plain(name)"):
        """`v is a Python value`: for conditions, the bools first (most are), then the
        exact-type test the overloads use (inline: both are far cheaper than a call,
        and NumPy bools and ints are common conditions), then `ag__.is_plain` for other
        types; a loop's iterable is tested once per loop, by one call."""
        return _skipped(templates.replace_as_expression(template, name=name))

    def _if(self, node, graph):
        if logical_expressions.is_python_valued(node.test):
            # `if x is None:` tests a Python bool: the statement stays as it is, in both
            # forms (its blocks converted).
            python_body, graph_body = self._convert_block(node.body, graph)
            python_else, graph_else = self._convert_block(node.orelse, graph)
            functional = None
            if graph:
                functional = [_with_origin(node, gast.If(
                    test=_graph_copy(node.test), body=graph_body or [gast.Pass()],
                    orelse=graph_else))]
            node.body = python_body or [gast.Pass()]
            node.orelse = python_else
            return [node], functional
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
        entry = self._graph_if(node, graph_body, graph_else)
        inline_test = _name(cond)
        if negated:  # `not` of a value just found to be a Python value stays as it is
            inline_test = gast.UnaryOp(op=gast.Not(), operand=inline_test)
            anno.setanno(inline_test, logical_expressions.INLINE_TEST, True)
        inline = gast.If(test=inline_test, body=python_body or [gast.Pass()],
                         orelse=python_else)
        python = [] if simple else [gast.Assign(targets=[_name(cond, gast.Store)],
                                                value=test, type_comment=None)]
        python.append(gast.If(test=self._python_test(cond), body=[_with_origin(node, inline)],
                              orelse=self._graph_entry(
                                  node, entry, [self._negation(_name(cond), negated)])))
        _with_origin(node, python)
        functional = (self._call(node, entry, [self._negation(_graph_copy(test), negated)])
                      if graph else None)
        return python, functional

    @staticmethod
    def _negation(value, negated):
        """`ag__.not_(value)` for the graph form of `if not value:` (its Python form tests
        `value` itself), else `value`."""
        if not negated:
            return value
        return templates.replace_as_expression("ag__.not_(value)",
                                               value=templates.moved(value))

    def _while(self, node, graph):
        if self._has_loop_options(node):
            # Loop options are for graph loops: such a loop keeps its graph form only.
            args = self._graph_while(node, self._convert_block(node.body, True)[1])
            entry = self._overload_function(node, "while_stmt", [], args)
            python_else, graph_else = self._convert_block(node.orelse, graph)
            return (self._graph_entry(node, entry, []) + python_else,
                    self._call(node, entry, []) + graph_else if graph else None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        if extra_test is None and logical_expressions.is_python_valued(node.test):
            # `while True:`, `while x is not None:`: a Python loop in both forms.
            python_body, graph_body = self._convert_block(node.body, graph)
            python_else, graph_else = self._convert_block(node.orelse, graph)
            functional = None
            if graph:
                functional = [_with_origin(node, gast.While(
                    test=_graph_copy(node.test), body=graph_body or [gast.Pass()], orelse=[]))]
                functional += graph_else
            node.body = python_body or [gast.Pass()]
            node.orelse = []
            return [node] + python_else, functional
        python_body, graph_body = self._convert_block(node.body, True)
        test = node.test
        flags = None if extra_test is None else self._flags(extra_test)
        # A walrus would bind in the lambda.
        if flags and not logical_expressions.has_named_expr(test):
            # `not break_ and test` (a lowered break/return): while every flag is exactly
            # False (always, on Python values) that is `test` itself; otherwise the
            # overload form (rare: the loop is ending, or a flag turned symbolic).
            test = templates.replace_as_expression(
                "test if all_false else ag__.and_(flags_test, lambda: test_copy)()",
                test=templates.moved(test), test_copy=templates.moved(templates.copy_tree(node.test)),
                all_false=templates.moved(_flags_test(flags, gast.And, gast.Is)),
                flags_test=self._overload_form(extra_test))
        elif extra_test is not None:
            test = gast.BoolOp(op=gast.And(), values=[templates.copy_tree(extra_test), test])
        args = self._graph_while(node, graph_body)
        # Inside an enclosing graph form, the loop is a while_stmt call; here the
        # condition was just computed (symbolic): straight to the graph loop.
        entry = self._overload_function(node, "while_graph", [], templates.copy_tree(args))
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
            # The test is the user's (or made from it above), used nowhere else now.
            cond=cond, test=templates.moved(test), body=python_body or [gast.Pass()],
            stop=templates.moved(self._python_test(
                cond, "name is not True and (ag__.type_(name) not in ag__.PLAIN_TYPES "
                      "and not ag__.is_plain(name) or not name)")),
            symbolic=templates.moved(self._python_test(cond, "not ag__.is_plain(name)")),
            graph_part=self._graph_entry(node, entry, []))
        _with_origin(node, python)
        _with_origin(node, python[0].body)
        python_else, graph_else = self._convert_block(node.orelse, graph)
        functional = None
        if graph:
            functional = _with_origin(node, [_call_statement(_ref("ag__.while_stmt"), args)])
            functional += graph_else
        return python + python_else, functional

    def _for(self, node, graph):
        if self._has_loop_options(node):
            entry = self._graph_for(node, self._convert_block(node.body, True)[1])
            python_else, graph_else = self._convert_block(node.orelse, graph)
            return (self._graph_entry(node, entry, [node.iter]) + python_else,
                    self._call(node, entry, [templates.copy_tree(node.iter)]) + graph_else
                    if graph else None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        python_body, graph_body = self._convert_block(node.body, True)
        # A name is just read again (nothing runs in between), unless the loop must
        # rebind what it iterates (to its iterator, for a graph loop to take it over).
        simple = extra_test is None and isinstance(node.iter, gast.Name)
        iterated = node.iter.id if simple else self.new_symbol("iterated")
        entry = self._graph_for(node, graph_body)
        graph_entry = self._graph_entry(node, entry, [_name(iterated)])
        python_test = self._python_test(iterated, "ag__.is_plain_iterable(name)")
        if extra_test is None:
            python = templates.replace(
                "iterated = iterable\n"
                "if python_test:\n"
                "    for target in iterated:\n"
                "        body\n"
                "else:\n"
                "    graph_part",
                iterated=iterated, iterable=templates.moved(node.iter),
                python_test=templates.moved(python_test), target=templates.moved(node.target),
                body=python_body or [gast.Pass()], graph_part=graph_entry)
            if simple:
                python = python[1:]
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
                iterated=iterated, iterable=templates.moved(node.iter),
                python_test=templates.moved(python_test),
                extra_test=self._overload_form(extra_test),
                stop=self._stop_test(extra_test),
                maybe_graph=templates.moved(self._maybe_graph(iterated, extra_test)),
                extra_test_graph=self._overload_form(extra_test),
                target=templates.moved(node.target), body=python_body or [gast.Pass()],
                graph_part=graph_entry)
        _with_origin(node, python)
        _with_origin(node, python[-1].body if simple else python[1].body)
        if extra_test is not None:
            loop = python[1].body[1].body[0]
            _with_origin(node, loop)
            _with_origin(node, loop.body[-1])
        python_else, graph_else = self._convert_block(node.orelse, graph)
        functional = None
        if graph:
            functional = self._call(node, entry, [_graph_copy(node.iter)]) + graph_else
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
        not_bools = [gast.BoolOp(op=gast.And(), values=[
            gast.Compare(left=_name(flag), ops=[gast.IsNot()],
                         comparators=[gast.Constant(value=value, kind=None)])
            for value in (True, False)]) for flag in flags]
        return _skipped(templates.replace_as_expression(
            "ag__.type_(iterated) not in ag__.PLAIN_TYPES or not_bools", iterated=iterated,
            not_bools=not_bools[0] if len(not_bools) == 1 else gast.BoolOp(
                op=gast.Or(), values=not_bools)))

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
        overload_form = ControlFlowTransformer._overload_form(extra_test)
        flags = ControlFlowTransformer._flags(extra_test)
        if flags is None:
            return templates.replace("if extra_test is not True:\n    break",
                                     extra_test=overload_form)
        test = _skipped(templates.replace_as_expression(
            "any_set and extra_test is not True",
            any_set=_flags_test(flags, gast.Or, gast.IsNot), extra_test=overload_form))
        return templates.replace("if test:\n    break", test=test)

    @staticmethod
    def _has_loop_options(node):
        return bool(anno.getanno(node, anno.Basic.DIRECTIVES, {}).get("set_loop_options"))

    # Helpers ------------------------------------------------------------------

    def own_bindings(self, function_node):
        """converter.own_bindings, cheaper when the user's function has no walrus (the
        code generated until now has none of its own)."""
        return converter.own_bindings(function_node, self.walrus)

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
            declarations.append(_without_choices(gast.Global(names=sorted(globals_))))
        if nonlocals:
            declarations.append(_without_choices(gast.Nonlocal(names=sorted(nonlocals))))
        return declarations

    def _block_function(self, name, params, body, modified_names):
        declared = set()
        body = _unannotate(body, declared)
        self.function.declared_in_blocks |= declared - self.function.globals
        node = templates.replace("def name(params):\n    body", name=name, params=params,
                                 body=body)[0]
        _without_choices(node.args)  # names only
        # Only what the function's own statements bind: a nested statement's blocks are
        # functions of their own (siblings among the graph forms), declaring theirs.
        own = self.own_bindings(node)
        node.body = self._declarations((modified_names | declared) & own) + node.body
        return node

    def _state_functions(self, outputs, defined_before):
        """get_state/set_state definitions for `outputs` when they include attribute or item
        targets; otherwise ([], "None", "None"): the graph paths reach variables through
        the closure cells of the statement's block functions, which declare them."""
        maybe_undefined = [defined_before is not None and not output.is_composite()
                           and str(output) not in defined_before for output in outputs]
        if not any(output.is_composite() for output in outputs):
            self.function.maybe_undefined.update(
                str(o) for o, undefined in zip(outputs, maybe_undefined) if undefined)
            return [], "None", "None"
        key = tuple(zip(map(str, outputs), maybe_undefined))
        shared = self.function.state_functions.get(key)
        if shared is not None:
            self.function.maybe_undefined.update(
                str(o) for o, undefined in zip(outputs, maybe_undefined) if undefined)
            return [], shared[0], shared[1]
        get_state = self.new_function_name("get_state")
        set_state = self.new_function_name("set_state")
        self.function.state_functions[key] = (get_state, set_state)
        values = []
        for output, undefined in zip(outputs, maybe_undefined):
            expression = output.ast()
            if undefined:
                self.function.maybe_undefined.add(str(output))
                expression = templates.replace_as_expression(
                    "ag__.value_or_undefined(lambda: value, name)",
                    value=templates.moved(expression),
                    name=templates.moved(gast.Constant(value=str(output), kind=None)))
            values.append(expression)
        state_tuple = gast.Tuple(elts=values, ctx=gast.Load())
        get_def = templates.replace("def get_state():\n    return state", get_state=get_state,
                                    state=templates.moved(state_tuple))
        vars_ = self.new_symbol("vars_")
        targets = gast.Tuple(elts=[o.ast() for o in outputs], ctx=gast.Store())
        set_def = templates.replace("def set_state(vars_):\n    targets = vars_",
                                    set_state=set_state, vars_=vars_,
                                    targets=templates.moved(targets))
        set_def[0].body = self._declarations(_simple(outputs)) + set_def[0].body
        _skipped(get_def[0])
        _skipped(set_def[0])
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

    def _overload_function(self, node, overload, params, args, call_result=False):
        """The function running a statement's overload, among the graph forms; returns its
        name. Its arguments are `params` followed by the rest of `args` (which start with
        them, as used): `overload_N = ag__.overload_form(rest)`, a partial application
        (no code object to compile and map); or, when the arguments hold the user's
        expressions (loop options, evaluated when the loop runs),
        `def overload_N(params): ag__.overload(args)` (with `()` after the call when the
        overload returns the function to run)."""
        name = self.new_function_name(overload)
        if (not any(arg.__class__ is gast.Dict and arg.keys for arg in args)
                and all(arg.__class__ is gast.Name and arg.id == param
                        for arg, param in zip(args, params))):
            form = gast.Call(func=_ref("ag__." + _FORMS[overload]), args=args[len(params):],
                             keywords=[])
            assignment = gast.Assign(targets=[_name(name, gast.Store)], value=form,
                                     type_comment=None)
            self.function.graph_defs.append(_skipped(_with_origin(node, assignment)))
            return name
        call = gast.Call(func=_ref("ag__." + overload), args=args, keywords=[])
        if call_result:
            call = gast.Call(func=call, args=[], keywords=[])
        definition = templates.replace("def name(params):\n    call", name=name,
                                       params=[_name(p, gast.Param) for p in params],
                                       call=gast.Expr(value=call))[0]
        self.function.graph_defs.append(definition)
        _with_origin(node, definition.body)
        # Names and constants only, unless it passes loop options (the user's expressions).
        if not any(arg.__class__ is gast.Dict and arg.keys for arg in args):
            _skipped(definition)
        return name

    def _graph_if(self, node, body, orelse):
        """The graph form of an if: its block functions and `if_stmt_N`, the function of the
        condition running ag__.if_stmt with them (among the graph forms); returns its name."""
        body_scope = anno.getanno(node, anno.Static.BODY_SCOPE)
        orelse_scope = anno.getanno(node, anno.Static.ORELSE_SCOPE, None)
        modified = set(body_scope.modified)
        if orelse_scope is not None:
            modified |= orelse_scope.modified
        live_out = _names(anno.getanno(node, anno.Static.LIVE_VARS_OUT, None))
        outputs, defined_before = self._outputs(node, modified, live_out)
        state_defs, get_state, set_state = self._state_functions(outputs, defined_before)

        body_name = self.new_function_name("if_body")
        definitions = state_defs + [self._block_function(
            body_name, [], body or [gast.Pass()], _simple(body_scope.modified))]
        orelse_name = "None"
        if orelse:
            orelse_name = self.new_function_name("else_body")
            definitions.append(self._block_function(
                orelse_name, [], orelse, _simple(orelse_scope.modified)))
        self.function.graph_defs.extend(definitions)
        test = _name("cond")
        args = [test] + [_ref(n) for n in (body_name, orelse_name, get_state, set_state)] + [
                self._symbol_names(outputs), gast.Constant(value=len(outputs), kind=None)]
        return self._overload_function(node, "if_stmt", ["cond"], args, call_result=True)


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
        """The block functions of a while loop's graph form (its else block excluded),
        among the graph forms; returns the arguments of its while_stmt call."""
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
        self.function.graph_defs.extend(state_defs + [
            test_def, self._block_function(body_name, [], body, _simple(body_scope.modified))])
        return [_ref(n) for n in (test_name, body_name, get_state, set_state)] + [
                self._symbol_names(outputs), self._loop_options(node)]


    def _graph_for(self, node, body):
        """The graph form of a for loop (its else block excluded): its block functions and
        `for_stmt_N`, the function of the iterable running ag__.for_stmt with them (among
        the graph forms); returns its name."""
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
        definitions = list(state_defs)
        extra_test_name = "None"
        if extra_test is not None:
            extra_test_name = self.new_function_name("extra_test")
            definitions += templates.replace("def extra_test_name():\n    return extra_test",
                                             extra_test_name=extra_test_name,
                                             extra_test=extra_test)
        body_name = self.new_function_name("loop_body")
        iterate = self.new_symbol("itr")
        body = templates.replace("target = iterate", target=node.target,
                                 iterate=iterate) + loop_body
        definitions.append(self._block_function(
            body_name, [iterate], body, _simple(modified)))
        self.function.graph_defs.extend(definitions)
        args = [_name("iterated")] + [_ref(n) for n in (
            extra_test_name, body_name, get_state, set_state)] + [
                self._symbol_names(outputs), self._loop_options(node)]
        return self._overload_function(node, "for_stmt", ["iterated"], args)



def transform(node, ctx):
    # The analyses share one walk of the tree: activity's, which also records the effects
    # of the CFG nodes for liveness and reaching definitions, and whether there are
    # lambdas for the CFG builder to look for. Nothing here reads the qualified-name
    # annotations: activity computes the names as it goes instead.
    effects = activity.Effects()
    activity.resolve(node, ctx, effects=effects, annotate_names=False, call_scopes=False)
    graphs = cfg.build(node, find_lambdas=bool(effects.lambdas))
    activity.record_effects(graphs, effects)
    # Only the statements converted here are annotated: liveness after them (and into
    # loops), and DEFINED_VARS_IN (the cheaper analysis that computes just that).
    liveness.resolve(node, ctx, graphs, statement_types=_CONVERTED_STATEMENTS)
    reaching_definitions.resolve_defined_vars(node, graphs,
                                              statement_types=_CONVERTED_STATEMENTS)
    transformer = ControlFlowTransformer(ctx)
    transformer.walrus = effects.walrus
    transformer.functions = []
    transformer.generated_functions = set()
    return transformer.visit(node)
