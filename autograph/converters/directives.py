"""Records `ag.set_loop_options(...)`, the first statement of a loop body, on the loop
(anno.Basic.DIRECTIVES: {"set_loop_options": {option name: expression}}) and removes it."""

import gast

from autograph.core import converter, directives
from autograph.pyct import anno


def _resolve_static(node, namespace):
    """The object a dotted name (`ag.set_loop_options`) refers to at conversion time."""
    if isinstance(node, gast.Name):
        return namespace.get(node.id, None) if hasattr(namespace, "get") else None
    if isinstance(node, gast.Attribute):
        owner = _resolve_static(node.value, namespace)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


class DirectivesTransformer(converter.Base):

    statements_only = True

    def _loop_options(self, statement):
        if not (isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Call)):
            return None
        call = statement.value
        if _resolve_static(call.func, self.ctx.info.namespace) is not directives.set_loop_options:
            return None
        options = {}
        for name, value in zip(directives.LOOP_OPTIONS, call.args):
            options[name] = value
        for keyword in call.keywords:
            if keyword.arg not in directives.LOOP_OPTIONS:
                raise ValueError(
                    f"set_loop_options got an unexpected keyword argument {keyword.arg!r}")
            options[keyword.arg] = keyword.value
        return options

    def _visit_loop(self, node):
        node = self.generic_visit(node)
        options = self._loop_options(node.body[0]) if node.body else None
        if options is not None:
            all_directives = dict(anno.getanno(node, anno.Basic.DIRECTIVES, {}))
            all_directives["set_loop_options"] = options
            anno.setanno(node, anno.Basic.DIRECTIVES, all_directives)
            node.body = node.body[1:] or [gast.Pass()]
        return node

    visit_For = _visit_loop
    visit_While = _visit_loop


def transform(node, ctx):
    return DirectivesTransformer(ctx).visit(node)
