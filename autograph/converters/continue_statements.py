"""Lowers `continue` into a flag reset at the start of each iteration; the statements after
a `continue` are guarded by it."""

import gast

from autograph.converters import jumps
from autograph.core import converter
from autograph.pyct import templates


class ContinueTransformer(converter.Base):

    statements_only = True

    def _visit_loop(self, node):
        node = self.generic_visit(node)  # nested loops first, each with its own flag
        if not jumps.own_jumps(node, gast.Continue):
            return node
        flag = self.new_symbol("continue_")
        lowering = jumps.JumpLowering(
            is_jump=lambda s: isinstance(s, gast.Continue),
            replace=lambda s: templates.replace("flag = True", flag=flag),
            flag=flag)
        node.body = templates.replace("flag = False", flag=flag) + lowering.block(node.body)
        return node

    visit_For = _visit_loop
    visit_While = _visit_loop


def transform(node, ctx):
    return ContinueTransformer(ctx).visit(node)
