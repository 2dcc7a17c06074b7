"""Code templates: generate AST from code written as code, with named placeholders.

`replace("while test:\n  body", test=..., body=[...])` parses the template and
substitutes names, expressions, statement blocks and argument lists, fixing the
Load/Store/Del context of every substituted node.
"""

import textwrap

import gast

from autograph.pyct import anno

# Annotations that survive when a node is copied into a template; analyses are
# re-run after each converter, so everything else is dropped to keep copies cheap.
PRESERVED_ANNOTATIONS = frozenset({
    anno.Basic.DIRECTIVES,
    anno.Basic.EXTRA_LOOP_TEST,
    anno.Basic.ORIGIN,
    anno.Basic.SKIP_PROCESSING,
    anno.Basic.ORIG_DEFINITIONS,
})

# Block fields that Python requires to be non-empty.
_NONEMPTY_BLOCKS = frozenset({"body"})


class TemplateError(ValueError):
    """A template or its replacements are malformed."""


_LOCATION_ATTRIBUTES = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_ANNOTATIONS_FIELD = anno._ANNO_FIELD  # pylint: disable=protected-access


def copy_clean(node, preserve_annos=PRESERVED_ANNOTATIONS):
    """Deep-copies an AST (or a list of them), keeping only the given annotations."""
    if isinstance(node, list):
        return [copy_clean(n, preserve_annos) for n in node]
    if not isinstance(node, gast.AST):
        return node
    return _copy_node(node, tuple(preserve_annos))


def _copy_node(node, preserve_annos):
    # Runs for every node of every template and copied expression: reads and writes the
    # instance dicts directly instead of going through constructors and getattr.
    node_class = node.__class__
    source = node.__dict__
    new_node = node_class.__new__(node_class)
    target = new_node.__dict__
    for field in node_class._fields:
        value = source.get(field)
        if value.__class__ is list:
            value = [_copy_node(v, preserve_annos) if isinstance(v, gast.AST)
                     else copy_clean(v, preserve_annos) if isinstance(v, list) else v
                     for v in value]
        elif isinstance(value, gast.AST):
            value = _copy_node(value, preserve_annos)
        target[field] = value
    for attribute in _LOCATION_ATTRIBUTES:
        if attribute in source:
            target[attribute] = source[attribute]
    if preserve_annos:
        annotations = source.get(_ANNOTATIONS_FIELD)
        if annotations:
            kept = {key: annotations[key] for key in preserve_annos if key in annotations}
            if kept:
                target[_ANNOTATIONS_FIELD] = kept
    return new_node


def set_context(node, ctx):
    """Gives an assignable expression the context `ctx` (gast.Load/Store/Del instance).

    Names, tuples, lists and starred take `ctx` throughout; attributes and subscripts take
    it at the top only, their inner parts are always read.
    """
    if isinstance(node, (gast.Name, gast.Starred)):
        node.ctx = ctx
        if isinstance(node, gast.Starred):
            set_context(node.value, ctx)
    elif isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ctx
        for element in node.elts:
            set_context(element, ctx)
    elif isinstance(node, (gast.Attribute, gast.Subscript)):
        node.ctx = ctx
        _set_load(node.value)
        if isinstance(node, gast.Subscript):
            _set_load(node.slice)
    return node


def _set_load(node):
    for child in gast.walk(node):
        if hasattr(child, "ctx") and not isinstance(child.ctx, gast.Param):
            child.ctx = gast.Load()


def _to_node(value, ctx):
    """Converts one replacement value (str, QN, or AST expression) into an expression node."""
    if isinstance(value, str):
        return gast.Name(id=value, ctx=ctx, annotation=None, type_comment=None)
    if hasattr(value, "ast") and not isinstance(value, gast.AST):  # a qual_names.QN
        return set_context(value.ast(), ctx)
    if isinstance(value, gast.AST):
        return set_context(copy_clean(value), ctx)
    raise TemplateError(f"cannot use {value!r} of type {type(value).__name__} as a replacement")


def _param(value):
    """A function parameter node from a str, QN or Name."""
    if isinstance(value, str):
        name = value
    elif isinstance(value, gast.Name):
        name = value.id
    elif hasattr(value, "ast"):
        name = str(value)
    else:
        raise TemplateError(f"cannot use {value!r} as a function parameter")
    return gast.Name(id=name, ctx=gast.Param(), annotation=None, type_comment=None)


_REPLACE_VISITORS = {}  # node class -> _ReplaceTransformer method


class _ReplaceTransformer(gast.NodeTransformer):
    """Substitutes placeholders; statement visits may return lists, which are spliced."""

    def __init__(self, replacements):
        self.replacements = replacements

    def visit(self, node):
        # ast.NodeVisitor.visit, with the method looked up once per node class.
        visitor = _REPLACE_VISITORS.get(node.__class__)
        if visitor is None:
            visitor = getattr(type(self), "visit_" + node.__class__.__name__, None)
            if visitor is None:
                visitor = type(self).generic_visit
            _REPLACE_VISITORS[node.__class__] = visitor
        return visitor(self, node)

    # Statement blocks ---------------------------------------------------------

    def visit_Expr(self, node):
        # A placeholder standing alone as a statement is a statement block. Blocks are
        # moved, not copied: the caller hands them over (copying whole bodies at every
        # nesting level would make conversion quadratic).
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            statements = value if isinstance(value, (list, tuple)) else [value]
            if all(isinstance(s, gast.stmt) for s in statements):
                return list(statements)
        return self.generic_visit(node)

    def generic_visit(self, node):
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                new_values = []
                for item in value:
                    if isinstance(item, gast.AST):
                        result = self.visit(item)
                        if result is None:
                            continue
                        if isinstance(result, list):
                            new_values.extend(result)
                            continue
                        new_values.append(result)
                    else:
                        new_values.append(item)
                if (field in _NONEMPTY_BLOCKS and not new_values and value
                        and isinstance(value[0], gast.stmt)):
                    new_values = [gast.Pass()]
                setattr(node, field, new_values)
            elif isinstance(value, gast.AST):
                result = self.visit(value)
                if isinstance(result, list):
                    raise TemplateError(
                        f"a list replaced the single {field!r} of {type(node).__name__}")
                setattr(node, field, result)
        return node

    # Names and expressions ----------------------------------------------------

    def visit_Name(self, node):
        if node.id not in self.replacements:
            return node
        value = self.replacements[node.id]
        if isinstance(node.ctx, gast.Param):
            if isinstance(value, (list, tuple)):
                return [_param(v) for v in value]
            return _param(value)
        if isinstance(value, (list, tuple)):
            # Splicing into a list of expressions (call arguments, tuple elements, ...).
            return [_to_node(v, type(node.ctx)()) for v in value]
        return _to_node(value, type(node.ctx)())

    def visit_Attribute(self, node):
        node = self.generic_visit(node)
        if node.attr in self.replacements:
            value = self.replacements[node.attr]
            if isinstance(value, gast.Name):
                value = value.id
            if not isinstance(value, str):
                raise TemplateError(f"attribute name {node.attr!r} must be replaced by a str")
            node.attr = value
        return node

    def visit_keyword(self, node):
        node = self.generic_visit(node)
        if node.arg is not None and node.arg in self.replacements:
            value = self.replacements[node.arg]
            if isinstance(value, gast.Name):
                value = value.id
            if isinstance(value, str):
                node.arg = value
        return node

    def _rename_definition(self, node):
        if node.name in self.replacements:
            value = self.replacements[node.name]
            node.name = value.id if isinstance(value, gast.Name) else str(value)

    def visit_FunctionDef(self, node):
        self._rename_definition(node)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._rename_definition(node)
        return self.generic_visit(node)

    def visit_arguments(self, node):
        node = self.generic_visit(node)
        for field in ("vararg", "kwarg"):
            value = getattr(node, field)
            if isinstance(value, list):
                raise TemplateError(f"a list replaced {field}")
        return node


_template_cache = {}


def _parsed_template(template):
    """A fresh tree of `template`: parsed once, copied afterwards (copying is much faster)."""
    tree = _template_cache.get(template)
    if tree is None:
        tree = _template_cache[template] = gast.parse(textwrap.dedent(template))
    return copy_clean(tree, preserve_annos=())


def _check_replacements(replacements):
    for key in replacements:
        if not isinstance(key, str):
            raise TemplateError(f"replacement keys must be names, got {key!r}")


def replace(template, **replacements):
    """Parses `template` (code) and substitutes placeholders; returns a list of statements.

    A replacement may be a str (a name), a qual_names.QN, an AST expression, an AST
    statement or a list of statements (for a placeholder standing alone as a statement),
    or a list of expressions/names (spliced into call arguments, tuple elements or a
    function's parameters). Expression replacements are copied, never shared; statement
    blocks are moved into the result as they are.
    """
    _check_replacements(replacements)
    if not isinstance(template, str):
        raise TemplateError(f"template must be a str, got {type(template).__name__}")
    tree = _parsed_template(template)
    transformer = _ReplaceTransformer(replacements)
    results = []
    for statement in tree.body:
        result = transformer.visit(statement)
        if isinstance(result, list):
            results.extend(result)
        elif result is not None:
            results.append(result)
    return results


def replace_as_expression(template, **replacements):
    """Like `replace`, for a template that is a single expression; returns that expression."""
    statements = replace(template, **replacements)
    if len(statements) != 1 or not isinstance(statements[0], gast.Expr):
        raise TemplateError(f"template is not a single expression: {template!r}")
    return statements[0].value
