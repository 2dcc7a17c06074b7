"""`l.append(x)` and `x = l.pop()` on a local variable `l` become overloads
(`l = ag__.list_append(l, x)`, `l, x = ag__.list_pop(l, None, None)`), so a graph loop can
turn the list into a tensor array. Only local names are rebound: rebinding an attribute or a
global would add an assignment the user never wrote."""

import gast

from autograph.core import converter
from autograph.pyct import anno, templates


def method_call_on_local(call, method, locals_, max_args):
    """The receiver's name if `call` is `<local>.method(<= max_args positional args>)`."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and call.func.attr == method and isinstance(call.func.value, gast.Name)):
        return None
    if call.keywords or len(call.args) > max_args:
        return None
    if any(isinstance(a, gast.Starred) for a in call.args):
        return None
    name = call.func.value.id
    return name if name in locals_ else None


class ListTransformer(converter.Base):

    statements_only = True

    def visit_FunctionDef(self, node):
        self.locals_stack.append(converter.LazyLocalNames(node, self.walrus))
        try:
            return self.generic_visit(node)
        finally:
            self.locals_stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return node

    @property
    def locals(self):
        return self.locals_stack[-1] if self.locals_stack else frozenset()

    def visit_Expr(self, node):
        return self.rewrite_append(self.generic_visit(node))

    def rewrite_append(self, node):
        """The statements replacing an expression statement (`node` if none)."""
        name = method_call_on_local(node.value, "append", self.locals, 1)
        if name is None or len(node.value.args) != 1:
            return node
        return templates.replace("target = ag__.list_append(target, element)",
                                 target=name, element=templates.moved(node.value.args[0]))

    def visit_Assign(self, node):
        return self.rewrite_pop(self.generic_visit(node))

    def rewrite_pop(self, node):
        """The statements replacing an assignment (`node` if none)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], gast.Name):
            return node
        name = method_call_on_local(node.value, "pop", self.locals, 1)
        if name is None or node.targets[0].id == name:
            return node
        index = node.value.args[0] if node.value.args else gast.Constant(value=None, kind=None)
        return templates.replace("target, element = ag__.list_pop(target, index, None)",
                                 target=name, element=templates.moved(node.targets[0]),
                                 index=templates.moved(index))


_FUNCTIONS = frozenset({gast.FunctionDef, gast.AsyncFunctionDef})
_ANNOTATIONS_FIELD = anno._ANNO_FIELD  # pylint: disable=protected-access
_ORIGIN = anno.Basic.ORIGIN
_SKIP_PROCESSING = anno.Basic.SKIP_PROCESSING
_UNCONVERTIBLE = converter.AgAnno.UNCONVERTIBLE


def _rewrite_block(transformer, statements, origin):
    """What ListTransformer's visit does to a block of statements (and the blocks nested
    in them), walking only statement blocks: the transformer's calls per node and child
    cost more than the rewrite. Replacements get the ORIGIN the transformer gives them
    (the statement's own, else its nearest annotated ancestor's)."""
    index = 0
    while index < len(statements):
        statement = statements[index]
        index += 1
        statement_class = statement.__class__
        statement_origin = origin
        annotations = statement.__dict__.get(_ANNOTATIONS_FIELD)
        if annotations:
            if _SKIP_PROCESSING in annotations or annotations.get(_UNCONVERTIBLE, False):
                continue  # left as it is (converter.left_alone)
            statement_origin = annotations.get(_ORIGIN) or origin
        if statement_class is gast.Expr or statement_class is gast.Assign:
            # (Their children are expressions, which the transformer does not visit.)
            if statement_class is gast.Expr:
                replacement = transformer.rewrite_append(statement)
            else:
                replacement = transformer.rewrite_pop(statement)
            if replacement is not statement:
                if statement_origin is not None:
                    for new_statement in replacement:
                        if not anno.hasanno(new_statement, _ORIGIN):
                            anno.setanno(new_statement, _ORIGIN, statement_origin)
                statements[index - 1:index] = replacement
                index += len(replacement) - 1
            continue
        if statement_class in _FUNCTIONS:
            transformer.locals_stack.append(
                converter.LazyLocalNames(statement, transformer.walrus))
        try:
            values = statement.__dict__
            for field in converter.block_fields(statement_class):
                block = values.get(field)
                if not block:
                    continue
                if field in ("handlers", "cases"):
                    for part in block:
                        if not converter.left_alone(part):
                            part_annotations = part.__dict__.get(_ANNOTATIONS_FIELD)
                            part_origin = statement_origin
                            if part_annotations:
                                part_origin = part_annotations.get(_ORIGIN) or part_origin
                            _rewrite_block(transformer, part.body, part_origin)
                elif isinstance(block[0], gast.stmt):
                    _rewrite_block(transformer, block, statement_origin)
        finally:
            if statement_class in _FUNCTIONS:
                transformer.locals_stack.pop()


def transform(node, ctx):
    if not ctx.user.options.uses(converter.Feature.LISTS):
        return node
    transformer = ListTransformer(ctx)
    transformer.walrus = converter.may_hold_walrus(ctx)
    transformer.locals_stack = []
    if node.__class__ not in _FUNCTIONS:
        return transformer.visit(node)
    _rewrite_block(transformer, [node], ctx.current_origin)
    return node
