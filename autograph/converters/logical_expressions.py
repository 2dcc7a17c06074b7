"""`a and b`, `a or b`, `not a` become lazy overloads: `ag__.and_(a, lambda: b)()`, ...
(the overload returns the function computing the result, so it adds no frame of its own).
The right operand still runs only when Python would run it, and the result is the same
object Python returns."""

import gast

from autograph.converters.conditional_expressions import has_named_expr
from autograph.core import converter
from autograph.pyct import templates


class LogicalExpressionTransformer(converter.Base):

    target_types = (gast.BoolOp, gast.UnaryOp)

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        if any(has_named_expr(v) for v in node.values[1:]):
            return node
        overload = "ag__.and_" if isinstance(node.op, gast.And) else "ag__.or_"
        # a and b and c == a and (b and c): nest from the right.
        result = node.values[-1]
        for left in reversed(node.values[:-1]):
            result = templates.replace_as_expression(
                f"{overload}(left, lambda: right)()", left=left, right=result)
        return result

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return templates.replace_as_expression("ag__.not_(operand)", operand=node.operand)
        return node


def transform(node, ctx):
    if not ctx.user.options.uses(converter.Feature.LOGICAL_EXPRESSIONS):
        return node
    transformer = LogicalExpressionTransformer(ctx)
    if not transformer.has_targets(node):
        return node
    return transformer.visit(node)
