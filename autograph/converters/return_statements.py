"""Lowers `return` inside if/while/for into `retval_ = value; do_return = True`, guards the
statements after it, stops the loops it leaves, and returns `retval_` once at the end.

Functions whose returns are all outside if/while/for keep their returns: moving a block into
a nested function only breaks the returns inside it.
"""

import gast

from autograph.converters import jumps
from autograph.core import converter
from autograph.pyct import ast_util, templates

_CONVERTED_COMPOUNDS = (gast.If, gast.For, gast.While)


def _returns_inside_control_flow(function_node):
    """True when some `return` of this function sits inside an if, while or for."""
    stack = [(child, False) for child in function_node.body]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, gast.Return) and inside:
            return True
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef,
                             gast.Lambda)):
            continue
        inside = inside or isinstance(node, _CONVERTED_COMPOUNDS)
        stack.extend((child, inside) for child in ast_util.child_nodes(node)
                     if isinstance(child, gast.stmt) or hasattr(child, "body"))
    return False


class ReturnTransformer(converter.Base):

    statements_only = True

    def visit_FunctionDef(self, node):
        node = self.generic_visit(node)  # nested functions first, each on its own
        if not _returns_inside_control_flow(node):
            return node
        do_return = self.new_symbol("do_return")
        retval = self.new_symbol("retval_")

        def lower_return(statement):
            value = statement.value if statement.value is not None else gast.Constant(
                value=None, kind=None)
            # The value first: if computing it raises, no return happened.
            return templates.replace("retval = value\ndo_return = True", retval=retval,
                                     value=templates.moved(value), do_return=do_return)

        def stop_loop(loop):
            jumps.add_extra_loop_test(
                loop, templates.replace_as_expression("not do_return", do_return=do_return))

        lowering = jumps.JumpLowering(
            is_jump=lambda s: isinstance(s, gast.Return), replace=lower_return,
            flag=do_return, enter_loops=True, on_loop=stop_loop)
        docstring = converter.docstring_length(node.body)
        body = lowering.block(node.body[docstring:])
        node.body = (node.body[:docstring]
                     + templates.replace("do_return = False\nretval = None",
                                         do_return=do_return, retval=retval)
                     + body
                     + templates.replace("return retval", retval=retval))
        return node


def transform(node, ctx):
    return ReturnTransformer(ctx).visit(node)
