"""Reads of a variable that a converted statement may leave undefined go through `ag__.ld`.

On Python values such a variable is simply unbound (reading it raises UnboundLocalError by
itself); a graph path may bind it to an `ag__.Undefined` placeholder instead, and `ld`
turns that back into Python's UnboundLocalError. So only names that some converted
statement outputs without them being defined before it are wrapped (control_flow marks
them on the function: marks.AgAnno.MAYBE_UNDEFINED): it costs a call.
"""

import gast

from autograph.core import converter, marks
from autograph.pyct import ast_util, templates

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)


class VariableTransformer(converter.Base):

    target_types = (gast.Name,)

    def is_target(self, node):
        # Loads of a name that some function of the tree may leave undefined: a superset
        # of what visit_Name rewrites, which knows the function the load is in.
        return node.id in self.names_of_any_function and node.ctx.__class__ is gast.Load

    def visit_FunctionDef(self, node):
        # A nested function (the graph forms' block functions among them) reads the names
        # of the functions around it too.
        outer = self.maybe_undefined[-1] if self.maybe_undefined else frozenset()
        self.maybe_undefined.append(marks.maybe_undefined(node) | outer)
        try:
            return self.generic_visit(node)
        finally:
            self.maybe_undefined.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Name(self, node):
        if (self.maybe_undefined and node.id in self.maybe_undefined[-1]
                and isinstance(node.ctx, gast.Load)):
            return templates.replace_as_expression("ag__.ld(name)", name=node.id)
        return node


def transform(node, ctx):
    names = set()
    for child in ast_util.walk(node):
        if isinstance(child, _FUNCTIONS):
            names |= marks.maybe_undefined(child)
    if not names:
        return node
    transformer = VariableTransformer(ctx)
    transformer.names_of_any_function = names
    transformer.maybe_undefined = []
    return transformer.visit(node)
