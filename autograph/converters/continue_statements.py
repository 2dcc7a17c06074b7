"""Lowers `continue` into a flag reset at the start of each iteration; the statements after
a `continue` are guarded by it."""

import gast

from autograph.converters import jumps
from autograph.core import converter
from autograph.pyct import anno, templates


class ContinueTransformer(converter.Base):

    statements_only = True

    def _visit_loop(self, node):
        return self.lower(self.generic_visit(node))

    def lower(self, node):
        """Lowers the continues of loop `node` (its nested loops already lowered)."""
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


_LOOPS = frozenset({gast.For, gast.While})
_ANNOTATIONS_FIELD = anno._ANNO_FIELD  # pylint: disable=protected-access
_SKIP_PROCESSING = anno.Basic.SKIP_PROCESSING
_UNCONVERTIBLE = converter.AgAnno.UNCONVERTIBLE


def _lower_loops(transformer, statements):
    """What ContinueTransformer's visit does to these statements and those nested in them
    (loops lowered innermost first, in the transformer's order), walking only statement
    blocks: the transformer's calls per node and child cost more than the lowering."""
    block_fields = converter.block_fields
    left_alone = converter.left_alone
    for statement in statements:
        values = statement.__dict__
        annotations = values.get(_ANNOTATIONS_FIELD)
        if annotations and (_SKIP_PROCESSING in annotations
                            or annotations.get(_UNCONVERTIBLE, False)):
            continue  # left as it is (converter.left_alone)
        for field in block_fields(statement.__class__):
            block = values.get(field)
            if not block:
                continue
            if field in ("handlers", "cases"):
                for part in block:
                    if not left_alone(part):
                        _lower_loops(transformer, part.body)
            elif isinstance(block[0], gast.stmt):
                _lower_loops(transformer, block)
        if statement.__class__ in _LOOPS:
            transformer.lower(statement)


def transform(node, ctx):
    transformer = ContinueTransformer(ctx)
    if node.__class__ not in (gast.FunctionDef, gast.AsyncFunctionDef):
        return transformer.visit(node)
    _lower_loops(transformer, [node])
    return node
