"""`l.append(x)` and `x = l.pop()` on a local variable `l` become overloads
(`l = ag__.list_append(l, x)`, `l, x = ag__.list_pop(l, None, None)`), so a graph loop can
turn the list into a tensor array. Only local names are rebound: rebinding an attribute or a
global would add an assignment the user never wrote."""

import gast

from autograph.core import converter
from autograph.pyct import templates


def method_call_on_local(call, method, locals_, max_args):
    """The receiver's name if `call` is `<local>.method(<= max_args positional args>)`."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and call.func.attr == method and isinstance(call.func.value, gast.Name)):
        return None
    if call.keywords or len(call.args) > max_args:
        return None
    if any(isinstance(a, gast.Starred) for a in call.args):
        return None
    name = call.func.value.id
    return name if name in locals_ else None


class ListTransformer(converter.Base):

    statements_only = True

    def visit_FunctionDef(self, node):
        self.locals_stack.append(converter.LazyLocalNames(node, self.walrus))
        try:
            return self.generic_visit(node)
        finally:
            self.locals_stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    @property
    def locals(self):
        return self.locals_stack[-1] if self.locals_stack else frozenset()

    def visit_Expr(self, node):
        name = method_call_on_local(node.value, "append", self.locals, 1)
        if name is None or len(node.value.args) != 1:
            return node
        return templates.replace("target = ag__.list_append(target, element)",
                                 target=name, element=templates.moved(node.value.args[0]))

    def visit_Assign(self, node):
        if len(node.targets) != 1 or not isinstance(node.targets[0], gast.Name):
            return node
        name = method_call_on_local(node.value, "pop", self.locals, 1)
        if name is None or node.targets[0].id == name:
            return node
        index = node.value.args[0] if node.value.args else gast.Constant(value=None, kind=None)
        return templates.replace("target, element = ag__.list_pop(target, index, None)",
                                 target=name, element=templates.moved(node.targets[0]),
                                 index=templates.moved(index))


def transform(node, ctx):
    if not ctx.user.options.uses(converter.Feature.LISTS):
        return node
    transformer = ListTransformer(ctx)
    transformer.walrus = converter.may_hold_walrus(ctx)
    transformer.locals_stack = []
    return transformer.visit(node)
