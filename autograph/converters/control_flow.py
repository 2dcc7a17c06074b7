"""`if`, `while` and `for` run as themselves on Python values, and as calls of
ag__.if_stmt / while_stmt / for_stmt, with the blocks moved into local functions, on
symbolic ones.

Each statement becomes a "dual" form: its condition (or iterable) is computed once into a
temporary; when that value is a Python value (bools first, then the exact-type test the
overloads use, then `ag__.is_plain` for other types) the statement runs inline, as
written, with its blocks converted the same way; otherwise its graph form runs. `if x > 0:
total = total + x` becomes

    cond = x > 0
    if cond is True or cond is False or ag__.type_(cond) in ag__.PLAIN_TYPES or ...:
        if cond:
            total = total + x
    else:
        graph_forms().if_stmt(cond)

A condition that is certainly a Python bool (`x is y`, `k in d`, a constant: see
logical_expressions.is_python_valued) needs neither: such a statement stays as it is.

This module makes the Python forms and walks the blocks; control_flow_graph makes the graph
forms and the `graph_forms()` function defining them; control_flow_scopes says which
variables a statement carries out of its graph form, and declares them.
"""

import gast

from autograph.converters import logical_expressions
from autograph.converters.control_flow_graph import GraphForms, has_loop_options, with_origin
from autograph.converters.control_flow_scopes import FunctionScope
from autograph.core import converter, marks
from autograph.pyct import anno, ast_util, cfg, templates
from autograph.pyct.static_analysis import activity, liveness, reaching_definitions

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
# The statements whose graph forms read liveness and reaching definitions.
_CONVERTED_STATEMENTS = (gast.If, gast.While, gast.For)
_SIMPLE_STATEMENTS = frozenset({
    gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.Delete,
    gast.Pass, gast.Break, gast.Continue, gast.Raise, gast.Assert, gast.Import,
    gast.ImportFrom, gast.Global, gast.Nonlocal})


def _copy_without_blocks(statement, blocks):
    """(a copy of a compound statement, with every annotation, whose statement blocks
    `blocks` are empty: its graph form gets blocks of its own; where those blocks are in
    the copy)."""
    contents = [getattr(owner, field) for owner, field in blocks]
    for owner, field in blocks:
        setattr(owner, field, [])
    try:
        copy = templates.copy_tree(statement)
    finally:
        for (owner, field), block in zip(blocks, contents):
            setattr(owner, field, block)
    parts = [*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]
    copied_parts = [*getattr(copy, "handlers", ()), *getattr(copy, "cases", ())]
    copied_owners = {id(statement): copy}
    copied_owners.update((id(part), copied) for part, copied in zip(parts, copied_parts))
    return copy, [(copied_owners[id(owner)], field) for owner, field in blocks]


def _graph_copy(node):
    """A statement or expression of the Python form, for the graph form too: the node
    itself when it holds no choice (marks.holds_no_choice). Nothing after this converter
    changes such a node in place, except `ag__.ld` reads, which the graph forms then get
    copies for (GraphForms.definition); everything else is copied, since the expression
    converters rewrite the two forms differently."""
    if marks.holds_no_choice(node):
        return node
    return templates.copy_tree(node)


def _python_test(name, template="name is True or name is False or ag__.type_(name) in "
                                "ag__.PLAIN_TYPES or ag__.is_plain(name)"):
    """`v is a Python value`: for conditions, the bools first (most are), then the
    exact-type test the overloads use (inline: both are far cheaper than a call, and NumPy
    bools and ints are common conditions), then `ag__.is_plain` for other types; a loop's
    iterable is tested once per loop, by one call. Later converters (and/or/not) leave it
    alone."""
    return marks.leave_alone(templates.replace_as_expression(template, name=name))


def _negation(value, negated):
    """`ag__.not_(value)` for the graph form of `if not value:` (its Python form tests
    `value` itself), else `value` (a name, or a node)."""
    if not negated:
        return value
    if value.__class__ is not str:
        value = templates.moved(value)
    return templates.replace_as_expression("ag__.not_(value)", value=value)


def _either(terms, operator):
    """`term_1 and term_2 ...` (operator "and") or `term_1 or term_2 ...` (one term: itself)."""
    if len(terms) == 1:
        return terms[0]
    return templates.replace_as_expression(f"first {operator} rest",
                                           first=templates.moved(terms[0]),
                                           rest=templates.moved(terms[1:]))


def _flags_test(flags, template, operator):
    """`template` ("flag is False", ...) for each flag, joined by `operator`."""
    return _either([templates.replace_as_expression(template, flag=flag) for flag in flags],
                   operator)


# Loops with a lowered break or return: the extra test `not flag_1 and not flag_2 ...` -----

def _flags(extra_test):
    """The flag names of an extra test `not flag_1 and not flag_2 ...` (lowered
    break/return), or None when it has another form."""
    terms = extra_test.values if isinstance(extra_test, gast.BoolOp) and isinstance(
        extra_test.op, gast.And) else [extra_test]
    flags = [t.operand.id for t in terms
             if isinstance(t, gast.UnaryOp) and isinstance(t.op, gast.Not)
             and isinstance(t.operand, gast.Name)]
    return flags if len(flags) == len(terms) else None


def _overload_form(extra_test):
    """The extra test in its overload form, for the places of a loop's Python form that
    evaluate it rarely (shorter code)."""
    flags = _flags(extra_test)
    if flags is None:
        return extra_test
    result = templates.replace_as_expression("ag__.not_(flag)", flag=flags[-1])
    for flag in reversed(flags[:-1]):
        result = templates.replace_as_expression(
            "ag__.and_(ag__.not_(flag), lambda: rest)()", flag=flag,
            rest=templates.moved(result))
    return result


def _stop_test(extra_test):
    """`if extra_test is not True: break` (the loop must stop, or continue as a graph
    loop). While every flag is exactly False the extra test is True, and that is tested
    first, cheaply."""
    overload_form = _overload_form(extra_test)
    flags = _flags(extra_test)
    if flags is None:
        return templates.replace("if extra_test is not True:\n    break",
                                 extra_test=overload_form)
    test = marks.leave_alone(templates.replace_as_expression(
        "any_set and extra_test is not True",
        any_set=_flags_test(flags, "flag is not False", "or"), extra_test=overload_form))
    return templates.replace("if test:\n    break", test=test)


def _maybe_graph(iterated, extra_test):
    """A cheap test that is False when the loop certainly needs no graph form after its
    Python form: a Python iterator and flags that are Python bools."""
    flags = _flags(extra_test)
    if flags is None:
        return templates.replace_as_expression("True")
    return marks.leave_alone(templates.replace_as_expression(
        "ag__.type_(iterated) not in ag__.PLAIN_TYPES or not_bools", iterated=iterated,
        not_bools=_flags_test(flags, "flag is not True and flag is not False", "or")))


class ControlFlowTransformer(converter.Base):

    statements_only = True

    def visit_FunctionDef(self, node):
        scope = FunctionScope(node, self.walrus)
        if scope.declares:
            scope.strip_declarations(node)
        forms = GraphForms(scope, self)
        self.graph_forms.append(forms)
        try:
            node.body = self._convert_block(node.body, False)[0] or [gast.Pass()]
        finally:
            self.graph_forms.pop()
        definition = forms.definition() if forms.definitions else None
        if scope.maybe_undefined:
            marks.set_maybe_undefined(node, scope.maybe_undefined)
        prologue = scope.prologue(node)
        if definition is not None:
            prologue.append(definition)
        if prologue:
            docstring = converter.docstring_length(node.body)
            node.body = node.body[:docstring] + prologue + node.body[docstring:]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def new_function_name(self, root):
        """A fresh name for a generated function (the expression converters after this one
        only make overload forms in them)."""
        name = self.new_symbol(root)
        self.ctx.user.generated_function_names.add(name)
        return name

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
        """(Python form, graph form) of a statement, as lists of statements."""
        node_class = node.__class__
        if marks.is_left_alone(node):
            return [node], ([templates.copy_tree(node)] if graph else None)
        if node_class is gast.If:
            return self._if(node, graph)
        if node_class is gast.While:
            return self._while(node, graph)
        if node_class is gast.For:
            return self._for(node, graph)
        if node_class in _SCOPES:
            if node_class is not gast.ClassDef:
                node = self.visit(node)  # a function of its own
            return [node], ([templates.copy_tree(node)] if graph else None)
        return self._compound(node, graph)

    def _compound(self, node, graph):
        """Any other statement: its blocks (try, with, match, ...) converted both ways."""
        if node.__class__ in _SIMPLE_STATEMENTS:  # most statements: no blocks to look for
            return [node], ([_graph_copy(node)] if graph else None)
        # In this order (it decides the names generated in them): the statement's own
        # blocks, then those of its handlers or cases.
        blocks = ast_util.statement_blocks(node)
        if not blocks:
            return [node], ([templates.copy_tree(node)] if graph else None)
        if not graph:
            for owner, field in blocks:
                setattr(owner, field, self._convert_block(getattr(owner, field), False)[0]
                        or [gast.Pass()])
            return [node], None
        functional, graph_blocks = _copy_without_blocks(node, blocks)
        for (owner, field), (graph_owner, _) in zip(blocks, graph_blocks):
            python_block, graph_block = self._convert_block(getattr(owner, field), True)
            setattr(owner, field, python_block or [gast.Pass()])
            setattr(graph_owner, field, graph_block or [gast.Pass()])
        return [node], [functional]

    # if -------------------------------------------------------------------------

    def _if(self, node, graph):
        forms = self.graph_forms[-1]
        if logical_expressions.is_python_valued(node.test):
            # `if x is y:` tests a Python bool: the statement stays as it is, in both
            # forms (its blocks converted).
            python_body, graph_body = self._convert_block(node.body, graph)
            python_else, graph_else = self._convert_block(node.orelse, graph)
            functional = None
            if graph:
                functional = with_origin(node, templates.replace(
                    "if test:\n    body\nelse:\n    orelse",
                    test=templates.moved(_graph_copy(node.test)), body=graph_body,
                    orelse=graph_else))
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
        entry = forms.if_form(node, graph_body, graph_else)
        inline_test = cond
        if negated:  # `not` of a value just found to be a Python value stays as it is
            not_cond = templates.replace_as_expression("not cond", cond=cond)
            anno.setanno(not_cond, logical_expressions.INLINE_TEST, True)
            inline_test = templates.moved(not_cond)
        python = templates.replace(
            "cond = test\n"
            "if python_test:\n"
            "    if inline_test:\n"
            "        body\n"
            "    else:\n"
            "        orelse\n"
            "else:\n"
            "    graph_form",
            cond=cond, test=templates.moved(test),
            python_test=templates.moved(_python_test(cond)), inline_test=inline_test,
            body=python_body, orelse=python_else,
            graph_form=forms.entry(node, entry, [_negation(cond, negated)]))
        if simple:
            python = python[1:]
        with_origin(node, python[-1].body)
        with_origin(node, python)
        functional = (forms.call(node, entry, [_negation(_graph_copy(test), negated)])
                      if graph else None)
        return python, functional

    # while ----------------------------------------------------------------------

    def _while(self, node, graph):
        forms = self.graph_forms[-1]
        if has_loop_options(node):
            # Loop options are for graph loops: such a loop keeps its graph form only.
            args = forms.while_form(node, self._convert_block(node.body, True)[1])
            entry = forms.while_function(node, "while_stmt", args)
            python_else, graph_else = self._convert_block(node.orelse, graph)
            return (forms.entry(node, entry, []) + python_else,
                    forms.call(node, entry, []) + graph_else if graph else None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        if extra_test is None and logical_expressions.is_python_valued(node.test):
            # `while True:`, `while x is not None:`: a Python loop in both forms.
            python_body, graph_body = self._convert_block(node.body, graph)
            python_else, graph_else = self._convert_block(node.orelse, graph)
            functional = None
            if graph:
                functional = with_origin(node, templates.replace(
                    "while test:\n    body", test=templates.moved(_graph_copy(node.test)),
                    body=graph_body)) + graph_else
            node.body = python_body or [gast.Pass()]
            node.orelse = []
            return [node] + python_else, functional
        python_body, graph_body = self._convert_block(node.body, True)
        test = node.test
        flags = None if extra_test is None else _flags(extra_test)
        # A walrus would bind in the lambda.
        if flags and not logical_expressions.has_named_expr(test):
            # `not break_ and test` (a lowered break/return): while every flag is exactly
            # False (always, on Python values) that is `test` itself; otherwise the
            # overload form (rare: the loop is ending, or a flag turned symbolic).
            test = templates.replace_as_expression(
                "test if all_false else ag__.and_(flags_test, lambda: test_copy)()",
                test=templates.moved(test),
                test_copy=templates.moved(templates.copy_tree(node.test)),
                all_false=templates.moved(_flags_test(flags, "flag is False", "and")),
                flags_test=_overload_form(extra_test))
        elif extra_test is not None:
            test = templates.replace_as_expression(
                "extra_test and test", extra_test=templates.moved(templates.copy_tree(
                    extra_test)), test=templates.moved(test))
        args = forms.while_form(node, graph_body)
        # Inside an enclosing graph form, the loop is a while_stmt call; here the
        # condition was just computed (symbolic): straight to the graph loop.
        entry = forms.while_function(node, "while_graph", templates.copy_tree(args))
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
            "    graph_form",
            # The test is the user's (or made from it above), used nowhere else now.
            cond=cond, test=templates.moved(test), body=python_body or [gast.Pass()],
            stop=templates.moved(_python_test(
                cond, "name is not True and (ag__.type_(name) not in ag__.PLAIN_TYPES "
                      "and not ag__.is_plain(name) or not name)")),
            symbolic=templates.moved(_python_test(cond, "not ag__.is_plain(name)")),
            graph_form=forms.entry(node, entry, []))
        with_origin(node, python)
        with_origin(node, python[0].body)
        python_else, graph_else = self._convert_block(node.orelse, graph)
        functional = None
        if graph:
            functional = with_origin(node, templates.replace(
                "ag__.while_stmt(args)", args=templates.moved(args))) + graph_else
        return python + python_else, functional

    # for ------------------------------------------------------------------------

    def _for(self, node, graph):
        forms = self.graph_forms[-1]
        if has_loop_options(node):
            entry = forms.for_form(node, self._convert_block(node.body, True)[1])
            python_else, graph_else = self._convert_block(node.orelse, graph)
            return (forms.entry(node, entry, [node.iter]) + python_else,
                    forms.call(node, entry, [templates.copy_tree(node.iter)]) + graph_else
                    if graph else None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        python_body, graph_body = self._convert_block(node.body, True)
        # A name is just read again (nothing runs in between), unless the loop must
        # rebind what it iterates (to its iterator, for a graph loop to take it over).
        simple = extra_test is None and isinstance(node.iter, gast.Name)
        iterated = node.iter.id if simple else self.new_symbol("iterated")
        entry = forms.for_form(node, graph_body)
        graph_form = forms.entry(node, entry, [iterated])
        python_test = _python_test(iterated, "ag__.is_plain_iterable(name)")
        if extra_test is None:
            python = templates.replace(
                "iterated = iterable\n"
                "if python_test:\n"
                "    for target in iterated:\n"
                "        body\n"
                "else:\n"
                "    graph_form",
                iterated=iterated, iterable=templates.moved(node.iter),
                python_test=templates.moved(python_test), target=templates.moved(node.target),
                body=python_body, graph_form=graph_form)
            if simple:
                python = python[1:]
            with_origin(node, python)
            with_origin(node, python[-1].body)
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
                "        graph_form",
                iterated=iterated, iterable=templates.moved(node.iter),
                python_test=templates.moved(python_test),
                extra_test=_overload_form(extra_test),
                stop=_stop_test(extra_test),
                maybe_graph=templates.moved(_maybe_graph(iterated, extra_test)),
                extra_test_graph=_overload_form(extra_test),
                target=templates.moved(node.target), body=python_body or [gast.Pass()],
                graph_form=graph_form)
            with_origin(node, python)
            with_origin(node, python[1].body)
            loop = python[1].body[1].body[0]
            with_origin(node, loop)
            with_origin(node, loop.body[-1])
        python_else, graph_else = self._convert_block(node.orelse, graph)
        functional = None
        if graph:
            functional = forms.call(node, entry, [_graph_copy(node.iter)]) + graph_else
        return python + python_else, functional


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
    transformer.graph_forms = []
    return transformer.visit(node)
