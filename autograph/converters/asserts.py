"""`assert test, msg` becomes `ag__.assert_stmt(test, lambda: msg)`; like Python, asserts
disappear when the interpreter runs with -O (conversion happens in the same interpreter)."""

from autograph.core import converter
from autograph.pyct import templates


class AssertTransformer(converter.Base):

    statements_only = True

    def visit_Assert(self, node):
        node = self.generic_visit(node)
        if not __debug__:
            return []
        if node.msg is None:
            return templates.replace("ag__.assert_stmt(test, None)",
                                     test=templates.moved(node.test))
        return templates.replace("ag__.assert_stmt(test, lambda: msg)",
                                 test=templates.moved(node.test), msg=templates.moved(node.msg))


def transform(node, ctx):
    if not ctx.user.options.uses(converter.Feature.ASSERT_STATEMENTS):
        return node
    return AssertTransformer(ctx).visit(node)
