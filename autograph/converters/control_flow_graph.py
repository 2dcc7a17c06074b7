"""The graph forms of control_flow's statements, and the one function defining them all.

The graph forms of all the statements of a user function are defined once, in one local
function returning them, which only a statement taking its graph form calls (the Python
path creates none of them):

    def graph_forms():
        def if_body():
            nonlocal total
            total = total + x
        if_stmt = ag__.if_form(if_body, None, None, None, ('total',), 1)
        ...
        return ag__.GraphForms(ag__.locals_())

Each statement has its block functions and a function of its condition (or iterable)
running its overload with them: `if_stmt(cond)` runs `ag__.if_stmt(cond, if_body, ...)()`
(a `def` when loop options hold the user's expressions, evaluated when the loop runs). A
statement of the Python form takes its graph form with `graph_forms().if_stmt(cond)`; the
graph forms of enclosing blocks call `if_stmt(cond)` directly.

The overloads read and write the statement's outputs (see control_flow_scopes) through the
closure cells of its block functions, which declare them, so they get None for the state
functions; a statement whose outputs include attribute or item targets (`self.total`,
`state["n"]`) gets `get_state`/`set_state` functions, shared by the statements carrying the
same outputs.
"""

import gast

from autograph.converters.control_flow_scopes import simple_names
from autograph.core import marks
from autograph.pyct import anno, templates
from autograph.pyct.static_analysis import activity

# The overloads running while loops, and the ag__ functions making their graph forms.
_WHILE_FORMS = {"while_stmt": "while_form", "while_graph": "while_graph_form"}


def with_origin(node, statements):
    """Generated statements (a list or one) report the user's statement `node` (tracebacks,
    the statement named by graph-path errors)."""
    origin = anno.getanno(node, anno.Basic.ORIGIN, None)
    if origin is not None:
        for statement in statements if statements.__class__ is list else (statements,):
            if not anno.hasanno(statement, anno.Basic.ORIGIN):
                anno.setanno(statement, anno.Basic.ORIGIN, origin)
    return statements


def has_loop_options(node):
    return bool(anno.getanno(node, anno.Basic.DIRECTIVES, {}).get("set_loop_options"))


def _moved(args):
    """Arguments (names as str, and nodes) handed over to a template."""
    return [arg if arg.__class__ is str else templates.moved(arg) for arg in args]


def _hold_no_choice(args):
    """Whether arguments (names, as str or nodes, and other nodes) hold no choice."""
    return all(arg.__class__ is str or arg.__class__ is gast.Name
               or marks.holds_no_choice(arg) for arg in args)


def _function_or_none(name):
    """A generated function's name, or None where a statement has none (a literal node)."""
    return templates.moved(gast.Constant(value=None, kind=None)) if name is None else name


def _literals(values):
    """Constant nodes of `values`, moved into a template (templates substitute names and
    nodes: a literal is given as its node)."""
    return templates.moved([gast.Constant(value=value, kind=None) for value in values])


def _loop_options(node):
    """`{'option': expression, ...}`: the loop's set_loop_options, for its overload."""
    options = anno.getanno(node, anno.Basic.DIRECTIVES, {}).get("set_loop_options", {})
    return templates.moved(templates.replace_as_expression(
        "{names: values}", names=_literals(options),
        values=templates.moved(list(options.values()))))


class GraphForms:
    """The graph forms of the statements of one user function, and `graph_forms()`.

    `scope` is the function's control_flow_scopes.FunctionScope; `namer` gives fresh
    names (new_symbol) and names of generated functions (new_function_name).
    """

    def __init__(self, scope, namer):
        self.scope = scope
        self.namer = namer
        self.definitions = []  # the block functions of every graph form, defined together
        self.factory = None  # the name of the function defining them
        # (output, maybe undefined) tuple -> its (get_state, set_state) names: statements
        # carrying the same variables share one pair.
        self.state_functions = {}

    # Calling them -------------------------------------------------------------------

    def entry(self, node, entry, args):
        """`graph_forms().entry(args)`: a statement of the Python form taking its graph
        form (its condition or iterable found symbolic)."""
        if self.factory is None:
            self.factory = self.namer.new_function_name("graph_forms")
        statement = templates.replace("graph_forms().entry(args)",
                                      graph_forms=self.factory, entry=entry, args=_moved(args))
        if _hold_no_choice(args):
            marks.mark_holds_no_choice(statement[0])
        return with_origin(node, statement)

    @staticmethod
    def call(node, name, args):
        """`name(args)` (a graph form calling the function that runs a statement's
        overload), reporting the user's statement `node`."""
        statement = templates.replace("name(args)", name=name, args=_moved(args))
        if _hold_no_choice(args):
            marks.mark_holds_no_choice(statement[0])
        return with_origin(node, statement)

    # Defining them ------------------------------------------------------------------

    def definition(self):
        """`def graph_forms(): <every block function>; return ag__.GraphForms(...)`.

        The graph forms of all statements share their block functions (a block's graph
        form calls those of the statements inside it), so each is defined once, in this
        function. The block functions declare the user's variables nonlocal: nested one
        level deeper, they still reach the user's function.
        """
        definitions = self.definitions
        if self.scope.maybe_undefined:
            # The variables converter rewrites reads of these names in place, in the
            # Python form only: the graph form must not share its nodes then (see
            # marks.set_maybe_undefined).
            definitions = templates.copy_tree(definitions)
        # Its locals are the block functions (and the user's variables it passes on to
        # them): one short line, whatever their number.
        factory = templates.replace(
            "def graph_forms():\n"
            "    definitions\n"
            "    return ag__.GraphForms(ag__.locals_())",
            graph_forms=self.factory or self.namer.new_function_name("graph_forms"),
            definitions=definitions)[0]
        marks.mark_holds_no_choice(factory.body[-1])
        return factory

    def if_form(self, node, body, orelse):
        """The graph form of an if: its block functions and `if_stmt_N`, the function of the
        condition running ag__.if_stmt with them; returns its name."""
        body_scope = anno.getanno(node, anno.Static.BODY_SCOPE)
        orelse_scope = anno.getanno(node, anno.Static.ORELSE_SCOPE, None)
        modified = set(body_scope.modified)
        if orelse_scope is not None:
            modified |= orelse_scope.modified
        live_out = {str(s) for s in anno.getanno(node, anno.Static.LIVE_VARS_OUT, None) or ()}
        outputs, defined_before = self.scope.outputs(node, modified, live_out)
        get_state, set_state = self._state_functions(outputs, defined_before)
        body_name = self.namer.new_function_name("if_body")
        self.definitions.append(self.scope.block_function(
            body_name, [], body, simple_names(body_scope.modified)))
        orelse_name = None
        if orelse:
            orelse_name = self.namer.new_function_name("else_body")
            self.definitions.append(self.scope.block_function(
                orelse_name, [], orelse, simple_names(orelse_scope.modified)))
        name = self.namer.new_function_name("if_stmt")
        self._define(node, templates.replace(
            "if_stmt = ag__.if_form(if_body, else_body, get_state, set_state, "
            "(symbol_names,), outputs)",
            if_stmt=name, if_body=body_name, else_body=_function_or_none(orelse_name),
            get_state=_function_or_none(get_state), set_state=_function_or_none(set_state),
            symbol_names=_literals(map(str, outputs)), outputs=_literals([len(outputs)])[0]))
        return name

    def while_form(self, node, body):
        """The block functions of a while loop's graph form (its else block excluded);
        returns the arguments of its while_stmt call."""
        body_scope = anno.getanno(node, anno.Static.BODY_SCOPE)
        cond_scope = anno.getanno(node, anno.Static.COND_SCOPE, None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        modified = set(body_scope.modified)
        cond_modified = set(cond_scope.modified) if cond_scope is not None else set()
        outputs, defined_before = self.scope.loop_outputs(node, modified | cond_modified,
                                                          extra_test)
        get_state, set_state = self._state_functions(outputs, defined_before)
        test_name = self.namer.new_function_name("loop_test")
        declarations = self.scope.declarations(simple_names(cond_modified))
        if extra_test is None:
            test_def = templates.replace(
                "def loop_test():\n    declarations\n    return test",
                loop_test=test_name, declarations=declarations, test=node.test)
        else:
            # The flags first: after a break, the user's test must not run again.
            test_def = templates.replace(
                "def loop_test():\n    declarations\n    return extra_test and test",
                loop_test=test_name, declarations=declarations, extra_test=extra_test,
                test=node.test)
        body_name = self.namer.new_function_name("loop_body")
        self.definitions += test_def + [self.scope.block_function(
            body_name, [], body, simple_names(body_scope.modified))]
        replacements = dict(
            loop_test=test_name, loop_body=body_name, get_state=_function_or_none(get_state),
            set_state=_function_or_none(set_state), symbol_names=_literals(map(str, outputs)))
        if not has_loop_options(node):
            return templates.replace_as_expression(
                "f(loop_test, loop_body, get_state, set_state, (symbol_names,), {})",
                **replacements).args
        return templates.replace_as_expression(
            "f(loop_test, loop_body, get_state, set_state, (symbol_names,), options)",
            options=_loop_options(node), **replacements).args

    def while_function(self, node, overload, args):
        """The function running a while loop's overload (`overload`: "while_stmt", or
        "while_graph" for a loop already found symbolic), among the graph forms, with the
        arguments while_form gave; returns its name. It is `while_stmt_N =
        ag__.while_form(args)`, a partial application (no code object to compile and
        map), unless the loop options hold the user's expressions (evaluated when the loop
        runs): `def while_stmt_N(): ag__.while_stmt(args)`."""
        name = self.namer.new_function_name(overload)
        if not has_loop_options(node):
            self._define(node, templates.replace(
                "overload = ag__.form(args)", overload=name, form=_WHILE_FORMS[overload],
                args=templates.moved(args)))
            return name
        definition = templates.replace("def name():\n    ag__.overload(args)",
                                       name=name, overload=overload,
                                       args=templates.moved(args))[0]
        with_origin(node, definition.body)
        self.definitions.append(definition)
        return name

    def for_form(self, node, body):
        """The graph form of a for loop (its else block excluded): its block functions and
        `for_stmt_N`, the function of the iterable running ag__.for_stmt with them;
        returns its name."""
        body_scope = anno.getanno(node, anno.Static.BODY_SCOPE)
        iterate_scope = anno.getanno(node, anno.Static.ITERATE_SCOPE, None)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        if iterate_scope is None:
            target_modified = set(activity.effects(
                templates.replace("target = None", target=node.target)[0]).modified)
        else:
            target_modified = set(iterate_scope.modified)
        modified = set(body_scope.modified) | target_modified
        outputs, defined_before = self.scope.loop_outputs(node, modified, extra_test)
        get_state, set_state = self._state_functions(outputs, defined_before)
        extra_test_name = None
        if extra_test is not None:
            extra_test_name = self.namer.new_function_name("extra_test")
            self.definitions += templates.replace(
                "def extra_test_name():\n    return extra_test",
                extra_test_name=extra_test_name, extra_test=extra_test)
        body_name = self.namer.new_function_name("loop_body")
        iterate = self.namer.new_symbol("itr")
        body = templates.replace("target = iterate", target=node.target,
                                 iterate=iterate) + (body or templates.replace("pass"))
        self.definitions.append(self.scope.block_function(
            body_name, [iterate], body, simple_names(modified)))
        name = self.namer.new_function_name("for_stmt")
        replacements = dict(
            for_stmt=name, extra_test=_function_or_none(extra_test_name), loop_body=body_name,
            get_state=_function_or_none(get_state), set_state=_function_or_none(set_state),
            symbol_names=_literals(map(str, outputs)))
        if not has_loop_options(node):
            self._define(node, templates.replace(
                "for_stmt = ag__.for_form(extra_test, loop_body, get_state, set_state, "
                "(symbol_names,), {})", **replacements))
            return name
        # Loop options hold the user's expressions, evaluated when the loop runs.
        definition = templates.replace(
            "def for_stmt(iterated):\n"
            "    ag__.for_stmt(iterated, extra_test, loop_body, get_state, set_state, "
            "(symbol_names,), options)", options=_loop_options(node), **replacements)[0]
        with_origin(node, definition.body)
        self.definitions.append(definition)
        return name

    def _define(self, node, statements):
        """Adds the definition of a statement's graph form made of names and constants only
        (later converters leave it alone)."""
        for statement in statements:
            self.definitions.append(marks.leave_alone(with_origin(node, statement)))

    def _state_functions(self, outputs, defined_before):
        """(get_state, set_state): the names of the state functions of `outputs` when they
        include attribute or item targets, defined among the graph forms; otherwise (None,
        None): the graph paths reach variables through the closure cells of the
        statement's block functions, which declare them."""
        maybe_undefined = self.scope.note_maybe_undefined(outputs, defined_before)
        if not any(output.is_composite() for output in outputs):
            return None, None
        key = tuple(zip(map(str, outputs), maybe_undefined))
        shared = self.state_functions.get(key)
        if shared is not None:
            return shared
        get_state = self.namer.new_function_name("get_state")
        set_state = self.namer.new_function_name("set_state")
        self.state_functions[key] = (get_state, set_state)
        values = []
        for output, undefined in zip(outputs, maybe_undefined):
            value = output.ast()
            if undefined:
                value = templates.replace_as_expression(
                    "ag__.value_or_undefined(lambda: value, name)",
                    value=templates.moved(value), name=_literals([str(output)])[0])
            values.append(value)
        get_def = templates.replace("def get_state():\n    return (values,)",
                                    get_state=get_state, values=templates.moved(values))
        set_def = templates.replace(
            "def set_state(vars_):\n    declarations\n    (targets,) = vars_",
            set_state=set_state, vars_=self.namer.new_symbol("vars_"),
            declarations=self.scope.declarations(simple_names(outputs)),
            targets=templates.moved([output.ast() for output in outputs]))
        self.definitions += [marks.leave_alone(get_def[0]), marks.leave_alone(set_def[0])]
        return get_state, set_state
