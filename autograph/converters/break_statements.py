"""Lowers `break` into a flag: `break_ = True`, the rest of the body guarded, and the loop
stopped by an extra test checked before the next iteration. A loop's `else` moves after the
loop, guarded by the flag, so it runs exactly when Python runs it."""

import gast

from autograph.converters import jumps
from autograph.core import converter
from autograph.pyct import templates


class BreakTransformer(converter.Base):

    statements_only = True

    def _visit_loop(self, node):
        node = self.generic_visit(node)
        orelse = node.orelse
        node.orelse = []
        if not jumps.own_jumps(node, gast.Break):
            return [node] + orelse
        flag = self.new_symbol("break_")
        lowering = jumps.JumpLowering(
            is_jump=lambda s: isinstance(s, gast.Break),
            replace=lambda s: templates.replace("flag = True", flag=flag),
            flag=flag)
        node.body = lowering.block(node.body)
        jumps.add_extra_loop_test(node, templates.replace_as_expression("not flag", flag=flag))
        result = templates.replace("flag = False", flag=flag) + [node]
        if orelse:
            result += templates.replace("if not flag:\n    orelse", flag=flag, orelse=orelse)
        return result

    visit_For = _visit_loop
    visit_While = _visit_loop


def transform(node, ctx):
    return BreakTransformer(ctx).visit(node)
