"""`a if cond else b` becomes `ag__.if_exp(cond, lambda: a, lambda: b, 'a if cond else b')`."""

import ast

import gast

from autograph.core import converter
from autograph.pyct import parser, templates


def has_named_expr(node):
    """A walrus would bind in the lambda instead of the function: such expressions stay."""
    return any(isinstance(n, gast.NamedExpr) for n in gast.walk(node))


class ConditionalExpressionTransformer(converter.Base):

    target_types = (gast.IfExp,)

    def _source_of(self, node):
        """The user's own text of the expression (for messages), else its unparsed form."""
        try:
            text = ast.get_source_segment(self.ctx.info.source_code, node)
        except (AttributeError, TypeError, IndexError):
            text = None
        if text is None:
            text = parser.unparse(node, include_encoding_marker=False).strip()
        return " ".join(text.split())

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if has_named_expr(node.body) or has_named_expr(node.orelse):
            return node
        expr_repr = self._source_of(node)
        return templates.replace_as_expression(
            "ag__.if_exp(test, lambda: true_value, lambda: false_value, expr_repr)",
            test=node.test, true_value=node.body, false_value=node.orelse,
            expr_repr=gast.Constant(value=expr_repr, kind=None))


def transform(node, ctx):
    if (not ctx.user.options.uses(converter.Feature.CONDITIONAL_EXPRESSIONS)
            or not converter.contains(node, gast.IfExp)):
        return node
    return ConditionalExpressionTransformer(ctx).visit(node)
