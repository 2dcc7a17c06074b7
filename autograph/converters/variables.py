"""Reads of a variable that a converted statement may leave undefined go through `ag__.ld`.

On Python values such a variable is simply unbound (reading it raises UnboundLocalError by
itself); a graph path may bind it to an `ag__.Undefined` placeholder instead, and `ld`
turns that back into Python's UnboundLocalError. So only names that some converted
statement outputs without them being defined before it are wrapped: it costs a call.
"""

import gast

from autograph.core import converter
from autograph.pyct import anno, ast_util, templates


class VariableTransformer(converter.Base):

    def visit_FunctionDef(self, node):
        self.maybe_undefined.append(anno.getanno(node, converter.AgAnno.MAYBE_UNDEFINED,
                                                 frozenset()))
        try:
            return self.generic_visit(node)
        finally:
            self.maybe_undefined.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Name(self, node):
        if (self.maybe_undefined and node.id in self.maybe_undefined[-1]
                and isinstance(node.ctx, gast.Load)
                and not anno.getanno(node, converter.AgAnno.GENERATED, False)):
            return templates.replace_as_expression("ag__.ld(name)", name=node.id)
        return node


def transform(node, ctx):
    if not any(anno.hasanno(n, converter.AgAnno.MAYBE_UNDEFINED) for n in ast_util.walk(node)
               if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))):
        return node
    transformer = VariableTransformer(ctx)
    transformer.maybe_undefined = []
    return transformer.visit(node)
