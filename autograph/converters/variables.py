"""Reads of a variable that a converted statement may leave undefined go through `ag__.ld`.

On Python values such a variable is simply unbound (reading it raises UnboundLocalError by
itself); a graph path may bind it to an `ag__.Undefined` placeholder instead, and `ld`
turns that back into Python's UnboundLocalError. So only names that some converted
statement outputs without them being defined before it are wrapped: it costs a call.
"""

import gast

from autograph.core import converter
from autograph.pyct import anno, ast_util, templates

_ANNOTATIONS_FIELD = anno._ANNO_FIELD  # pylint: disable=protected-access
_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)


class VariableTransformer(converter.Base):
    """The rewrite as a transformer (the reference behaviour; `transform` uses the faster
    `_load_through_ld` walk, which does the same)."""

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


def _ld(name_node, origin):
    replacement = templates.replace_as_expression("ag__.ld(name)", name=name_node.id)
    if origin is not None:
        anno.setanno(replacement, anno.Basic.ORIGIN, origin)
    return replacement


def _load_through_ld(node, names, origin):
    """Replaces, below `node`, the loads of `names` by `ag__.ld(name)`: what
    VariableTransformer does (same skipped nodes, same ORIGIN on the replacements) with a
    plain walk instead of the transformer machinery (it visits every node of the tree)."""
    annotations = node.__dict__.get(_ANNOTATIONS_FIELD)
    if annotations:
        if (anno.Basic.SKIP_PROCESSING in annotations
                or annotations.get(converter.AgAnno.UNCONVERTIBLE, False)):
            return
        origin = annotations.get(anno.Basic.ORIGIN) or origin
    if isinstance(node, _FUNCTIONS):
        names = (annotations or {}).get(converter.AgAnno.MAYBE_UNDEFINED, frozenset())
    fields = node.__dict__
    for field in node._fields:
        value = fields.get(field)
        if value.__class__ is list:
            for index, item in enumerate(value):
                if isinstance(item, gast.AST):
                    replacement = _visit_child(item, names, origin)
                    if replacement is not None:
                        value[index] = replacement
        elif isinstance(value, gast.AST):
            replacement = _visit_child(value, names, origin)
            if replacement is not None:
                fields[field] = replacement


def _visit_child(child, names, origin):
    """The replacement of `child`, or None when it stays (its subtree rewritten)."""
    if child.__class__ is gast.Name:
        if child.id not in names or not isinstance(child.ctx, gast.Load):
            return None
        annotations = child.__dict__.get(_ANNOTATIONS_FIELD)
        if annotations:
            if (anno.Basic.SKIP_PROCESSING in annotations
                    or annotations.get(converter.AgAnno.UNCONVERTIBLE, False)
                    or annotations.get(converter.AgAnno.GENERATED, False)):
                return None
            origin = annotations.get(anno.Basic.ORIGIN) or origin
        return _ld(child, origin)
    _load_through_ld(child, names, origin)
    return None


def transform(node, ctx):
    del ctx
    if not any(anno.hasanno(n, converter.AgAnno.MAYBE_UNDEFINED) for n in ast_util.walk(node)
               if isinstance(n, _FUNCTIONS)):
        return node
    _load_through_ld(node, frozenset(), None)
    return node
