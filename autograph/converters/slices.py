"""`l[i] = x` on a local list that the function appends to becomes
`l = ag__.set_item(l, i, x)`, so the write reaches a tensor array in a graph loop.

Other item writes stay as written: symbolic arrays support `a[i] = x` themselves, and
rebinding anything but a local name would add an assignment the user never wrote. The
index must be side-effect free (names, constants, tuples of them), so evaluating it before
the value, as the call does, changes nothing.
"""

import gast

from autograph.converters.lists import method_call_on_local
from autograph.core import converter
from autograph.pyct import templates


def _is_simple_index(node):
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.Tuple):
        return all(_is_simple_index(e) for e in node.elts)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _is_simple_index(node.operand)
    return False


def _appended_lists(function_node, locals_):
    names = set()
    for child in converter.walk_own_scope(function_node):
        if not isinstance(child, gast.Call):
            continue
        name = method_call_on_local(child, "append", locals_, 1)
        if name is not None:
            names.add(name)
        elif (isinstance(child.func, gast.Attribute) and child.func.attr == "list_append"
              and isinstance(child.func.value, gast.Name) and child.func.value.id == "ag__"
              and isinstance(child.args[0], gast.Name)):
            names.add(child.args[0].id)  # already converted by the lists converter
    return names


class SliceTransformer(converter.Base):

    statements_only = True

    def visit_FunctionDef(self, node):
        self.lists_stack.append(
            _appended_lists(node, converter.LazyLocalNames(node, self.walrus)))
        try:
            return self.generic_visit(node)
        finally:
            self.lists_stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node):
        node = self.generic_visit(node)
        if len(node.targets) != 1 or not self.lists_stack:
            return node
        target = node.targets[0]
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and target.value.id in self.lists_stack[-1]
                and _is_simple_index(target.slice)):
            return node
        return templates.replace("target = ag__.set_item(target, index, value)",
                                 target=target.value.id, index=templates.moved(target.slice),
                                 value=templates.moved(node.value))


def transform(node, ctx):
    transformer = SliceTransformer(ctx)
    transformer.walrus = converter.may_hold_walrus(ctx)
    transformer.lists_stack = []
    return transformer.visit(node)
