"""Lowers `return` inside if/while/for into `retval_ = value; do_return = True`, guards the
statements after it, stops the loops it leaves, and returns `retval_` once at the end.

`raise exc` (outside try statements) is lowered with them, as a jump that leaves the
function: `exception = ag__.raised(exc)`, raised if not None, then `do_return = True`.
On Python values the overload gives the exception back; in a graph branch or loop body it
records an error raised when the graph runs, and the flag keeps what Python would not
reach after the raise from being traced (the branch that raises needs no value for the
variables the other one sets, as after a return).

Functions whose returns and raises are all outside if/while/for keep them: moving a block
into a nested function only breaks the returns inside it.
"""

import gast

from autograph.converters import jumps
from autograph.core import converter
from autograph.pyct import ast_util, templates

_CONVERTED_COMPOUNDS = (gast.If, gast.For, gast.While)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_TRIES = (gast.Try, gast.TryStar)


def _jumps_of(function_node):
    """(the ids of the raise statements lowered as jumps: those with an exception, outside
    try statements, of this function itself; whether a return or such a raise sits inside
    an if, while or for)."""
    raises = set()
    inside_control_flow = False
    stack = [(child, False, False) for child in function_node.body]
    while stack:
        node, inside, in_try = stack.pop()
        if isinstance(node, gast.Raise) and node.exc is not None and not in_try:
            raises.add(id(node))
            inside_control_flow = inside_control_flow or inside
        elif isinstance(node, gast.Return) and inside:
            inside_control_flow = True
        if isinstance(node, _SCOPES):
            continue
        inside = inside or isinstance(node, _CONVERTED_COMPOUNDS)
        in_try = in_try or isinstance(node, _TRIES)
        stack.extend((child, inside, in_try) for child in ast_util.child_nodes(node)
                     if isinstance(child, gast.stmt) or hasattr(child, "body"))
    return raises, inside_control_flow


def _lowered_raise(statement, exception, do_return):
    """The raise `statement` as a jump: raised here, now (the traceback then ends at the
    user's line), or, in a graph, when the graph runs (ag__.raised records it)."""
    arguments = [templates.moved(statement.exc)]
    if statement.cause is not None:
        arguments.append(templates.moved(statement.cause))
    return templates.replace(
        "exception = ag__.raised(arguments)\n"
        "if exception is not None:\n"
        "    raise exception\n"
        "do_return = True", exception=exception, arguments=arguments, do_return=do_return)


class ReturnTransformer(converter.Base):

    statements_only = True

    def visit_FunctionDef(self, node):
        node = self.generic_visit(node)  # nested functions first, each on its own
        raises, jumps_inside_control_flow = _jumps_of(node)
        if not jumps_inside_control_flow:
            return node
        do_return = self.new_symbol("do_return")
        retval = self.new_symbol("retval_")

        exception = self.new_symbol("exception") if raises else None

        def lower_jump(statement):
            if isinstance(statement, gast.Raise):
                # No value: the branch that raises gets a placeholder of the other's.
                return _lowered_raise(statement, exception, do_return)
            value = statement.value if statement.value is not None else gast.Constant(
                value=None, kind=None)
            # The value first: if computing it raises, no return happened.
            return templates.replace("retval = value\ndo_return = True", retval=retval,
                                     value=templates.moved(value), do_return=do_return)

        def stop_loop(loop):
            jumps.add_extra_loop_test(
                loop, templates.replace_as_expression("not do_return", do_return=do_return))

        lowering = jumps.JumpLowering(
            is_jump=lambda s: isinstance(s, gast.Return) or id(s) in raises,
            replace=lower_jump, flag=do_return, enter_loops=True, on_loop=stop_loop)
        docstring = converter.docstring_length(node.body)
        body = lowering.block(node.body[docstring:])
        node.body = (node.body[:docstring]
                     + templates.replace("do_return = False\nretval = None",
                                         do_return=do_return, retval=retval)
                     + body
                     + templates.replace("return ag__.function_result(retval)",
                                         retval=retval))
        return node


def transform(node, ctx):
    return ReturnTransformer(ctx).visit(node)
