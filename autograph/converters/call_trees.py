"""Wraps every call: `f(a, *b, k=c)` becomes `ag__.converted(f)(a, *b, k=c)`.

`ag__.converted` decides at run time what to call instead of `f` (its converted version, an
overload of a builtin, or `f` itself); the call itself stays in the user's function, so
arguments, star-args and keywords are untouched and no stack frame is added. Calls passing
exactly one, two or three positional arguments and nothing else use `ag__.converted_1` to
`ag__.converted_3`: the same decision, with builtin overloads of that fixed arity (cheaper
to call than ones packing *args and **kwargs).
Zero-argument `super()` is made explicit (`super(__class__, self)`): the converted function
no longer sits in a class body, so the compiler would not provide its implicit arguments.
"""

import gast

from autograph.core import converter, marks
from autograph.pyct import templates


def _is_generated_call(func):
    """Calls of overloads (ag__.x) that earlier converters generated are not wrapped."""
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and func.id == "ag__"


def _first_parameter(function_node):
    args = function_node.args
    positional = args.posonlyargs + args.args
    return positional[0].id if positional else None


class CallTreeTransformer(converter.Base):

    target_types = (gast.Call,)

    def visit_FunctionDef(self, node):
        # Decorators and defaults belong to the enclosing scope.
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        if node.returns is not None:
            node.returns = self.visit(node.returns)
        self.functions.append(node)
        try:
            node.body = [self.visit(statement) for statement in node.body]
        finally:
            self.functions.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        node.args = self.visit(node.args)
        self.functions.append(node)
        try:
            node.body = self.visit(node.body)
        finally:
            self.functions.pop()
        return node

    def _explicit_super(self, node):
        """`super()` in the converted method itself -> `super(__class__, <first parameter>)`."""
        if len(self.functions) != 1 or not isinstance(self.functions[0], gast.FunctionDef):
            return node
        first = _first_parameter(self.functions[0])
        code = getattr(self.ctx.user.entity, "__code__", None)
        if first is None or "__class__" not in getattr(code, "co_freevars", ()):
            return node
        return templates.replace_as_expression("super(class_cell, first)",
                                               class_cell="__class__", first=first)

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if _is_generated_call(node.func):
            return node
        if _is_implicit_super(node):
            node = self._explicit_super(node)
        arity = len(node.args)
        resolver = "ag__.converted"
        if (not node.keywords and arity in (1, 2, 3)
                and not any(isinstance(a, gast.Starred) for a in node.args)):
            resolver = f"ag__.converted_{arity}"
        node.func = templates.replace_as_expression(f"{resolver}(func)",
                                                    func=templates.moved(node.func))
        return node


def _is_implicit_super(call):
    func = call.func
    return (func.__class__ is gast.Name and func.id == "super" and not call.args
            and not call.keywords)


def transform(node, ctx):
    transformer = CallTreeTransformer(ctx)
    transformer.functions = []
    # The walk that finds the calls to visit also marks what holds no choice, for
    # control_flow and the expression converters after it (see marks.AgAnno.WITHOUT_CHOICES).
    transformer.relevant = marks.mark_what_holds_no_choice(
        node, CallTreeTransformer.target_types)
    return transformer.visit(node)
