"""Code templates: generate AST from code written as code, with named placeholders.

`replace("while test:\n  body", test=..., body=[...])` substitutes names, expressions,
statement blocks and argument lists, fixing the Load/Store/Del context of every substituted
node. A template is compiled on its first use into a function that builds its tree.
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


def copy_clean(node, preserve_annos=PRESERVED_ANNOTATIONS):
    """Deep-copies an AST (or a list of them), keeping only the given annotations."""
    if isinstance(node, list):
        return [copy_clean(n, preserve_annos) for n in node]
    if not isinstance(node, gast.AST):
        return node
    return _copy_node(node, tuple(preserve_annos))


def copy_tree(node):
    """Deep-copies an AST (or a list of them) with every annotation (a shallow copy of
    each node's annotation dict)."""
    if node.__class__ is list:
        return [copy_tree(n) for n in node]
    return _copy_node(node, None)


def _copy_list(values, preserve_annos):
    return [_copy_node(v, preserve_annos) if isinstance(v, gast.AST)
            else _copy_list(v, preserve_annos) if v.__class__ is list else v
            for v in values]


def _copy_node(node, preserve_annos):
    """`node` copied; `preserve_annos`: the annotation keys kept, or None for all of them."""
    # Runs for every node of every template and copied expression: reads and writes the
    # instance dicts directly instead of going through constructors and getattr.
    node_class = node.__class__
    source = node.__dict__
    new_node = node_class.__new__(node_class)
    target = new_node.__dict__
    for field in node_class._fields:
        value = source.get(field)
        if value.__class__ is list:
            value = _copy_list(value, preserve_annos)
        elif isinstance(value, gast.AST):
            value_class = value.__class__
            if value_class._fields or value.__dict__:
                value = _copy_node(value, preserve_annos)
            else:  # an expression context or operator: nothing to copy but the class
                value = value_class.__new__(value_class)
        target[field] = value
    for attribute in _LOCATION_ATTRIBUTES:
        if attribute in source:
            target[attribute] = source[attribute]
    if preserve_annos != ():
        anno.copy_annotations(node, new_node, preserve_annos)
    return new_node


def set_context(node, ctx):
    """Gives an assignable expression the context `ctx` (gast.Load/Store/Del instance).

    Names, tuples, lists and starred take `ctx` throughout; attributes and subscripts take
    it at the top only, their inner parts are always read.
    """
    node_class = node.__class__
    if node_class is gast.Name:
        node.ctx = ctx
    elif node_class is gast.Tuple or node_class is gast.List:
        node.ctx = ctx
        for element in node.elts:
            set_context(element, ctx)
    elif node_class is gast.Starred:
        node.ctx = ctx
        set_context(node.value, ctx)
    elif node_class is gast.Attribute or node_class is gast.Subscript:
        node.ctx = ctx
        # Only the assignable chain below is read; other expressions keep their contexts
        # (a walrus or comprehension target inside `(ch := s[i]).isspace` stays a store).
        set_context(node.value, gast.Load())
        if node_class is gast.Subscript:
            set_context(node.slice, gast.Load())
    return node


_NAME = gast.Name


def _name(name, ctx):
    """gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None), without the cost
    of gast's generic constructor (names are most of what templates make)."""
    node = _NAME.__new__(_NAME)
    node.__dict__ = {"id": name, "ctx": ctx, "annotation": None, "type_comment": None}
    return node


class _Moved:
    """A replacement handed over to the template (see `moved`): `node`, and whether a place
    of the template already took it."""

    __slots__ = ("node", "used")


def moved(node):
    """`node` as a replacement the template takes as it is instead of copying it (at one
    of its places in the template; any other place gets a copy).

    For an expression nothing else refers to once the template is made: a node built for
    it (a name, a constant, the result of another template) or a part of the node it
    replaces. Most replacements are such nodes, and copying them, at every level of
    nesting, was much of the cost of generating code. Unlike a copy (which keeps
    PRESERVED_ANNOTATIONS only), it keeps all its annotations: move only nodes whose other
    annotations no later step acts on. A list of nodes gives a list of moved nodes (for a
    placeholder spliced into call arguments, tuple elements, ...).
    """
    if node.__class__ is list:
        return [moved(n) for n in node]
    if not isinstance(node, gast.AST):
        raise TemplateError(f"only an AST node can be moved into a template, got {node!r}")
    handed_over = _Moved.__new__(_Moved)  # (no __init__: a call fewer, for every one)
    handed_over.node = node
    handed_over.used = False
    return handed_over


# The expressions set_context changes (the others have no context, nor anything below
# them that set_context would reach).
_ASSIGNABLE = frozenset({gast.Name, gast.Tuple, gast.List, gast.Starred, gast.Attribute,
                         gast.Subscript})


def _to_node(value, ctx):
    """Converts one replacement value (str, QN, AST expression, or a `moved` one) into an
    expression node."""
    if value.__class__ is str:
        return _name(value, ctx)
    if value.__class__ is _Moved:
        node = value.node
        if value.used:
            node = copy_clean(node)
        value.used = True
        return set_context(node, ctx) if node.__class__ in _ASSIGNABLE else node
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
    return _name(name, gast.Param.__new__(gast.Param))


# -- Builders -----------------------------------------------------------------------------
# `replace` runs tens of times per converted function. Each (template, placeholder names)
# pair is compiled once into a Python function that builds the result directly: the fixed
# parts of the template become straight-line node constructions, and only the
# placeholders are decided when it runs, by the functions below.


def _substitute(value, ctx_class):
    """A placeholder in an expression position: a node, or a list of them to splice."""
    if value.__class__ is list or value.__class__ is tuple:
        return [_to_node(v, ctx_class.__new__(ctx_class)) for v in value]
    return _to_node(value, ctx_class.__new__(ctx_class))


def _substitute_param(value):
    if isinstance(value, (list, tuple)):
        return [_param(v) for v in value]
    return _param(value)


def _expression(value, ctx_class, field, node_name):
    """A placeholder standing for the one expression of a field."""
    value_class = value.__class__
    if value_class is str:
        return _name(value, ctx_class.__new__(ctx_class))
    if value_class is list or value_class is tuple:
        raise TemplateError(f"a list replaced the single {field!r} of {node_name}")
    return _to_node(value, ctx_class.__new__(ctx_class))


def _expressions(value, ctx_class):
    """A placeholder standing alone in a list of expressions: the nodes of that list."""
    if value.__class__ is list or value.__class__ is tuple:
        return [_to_node(v, ctx_class.__new__(ctx_class)) for v in value]
    return [_to_node(value, ctx_class.__new__(ctx_class))]


def _parameters(value):
    """A placeholder standing alone in a list of parameters: the nodes of that list."""
    if value.__class__ is list or value.__class__ is tuple:
        return [_param(v) for v in value]
    return [_param(value)]


def _block(value):
    """A placeholder standing alone in a statement block: the statements of that block."""
    result = _placeholder_statement(value)
    return result if result.__class__ is list else [result]


def _body(value):
    """_block, for a block that Python requires to be non-empty."""
    return _block(value) or [gast.Pass()]


def _single(value, field, node_name):
    if value.__class__ is list:
        raise TemplateError(f"a list replaced the single {field!r} of {node_name}")
    return value


def _splice(values):
    """A list field whose elements may be lists (spliced in)."""
    result = []
    for value in values:
        if value.__class__ is list:
            result.extend(value)
        else:
            result.append(value)
    return result


def _nonempty_body(values):
    return values or [gast.Pass()]


def _placeholder_statement(value):
    """`placeholder` standing alone as a statement: the statements it is replaced by, or an
    expression statement of the expression it is replaced by."""
    statements = value if value.__class__ is list or value.__class__ is tuple else [value]
    for statement in statements:
        if not isinstance(statement, gast.stmt):
            node = gast.Expr.__new__(gast.Expr)
            node.__dict__ = {"value": _single(_substitute(value, gast.Load), "value", "Expr")}
            return node
    return list(statements)


def _attribute_name(value, attr):
    if isinstance(value, gast.Name):
        value = value.id
    if not isinstance(value, str):
        raise TemplateError(f"attribute name {attr!r} must be replaced by a str")
    return value


def _keyword_arg(value, arg):
    if isinstance(value, gast.Name):
        value = value.id
    return value if isinstance(value, str) else arg


def _definition_name(value):
    return value.id if isinstance(value, gast.Name) else str(value)


def _declared_names(value):
    """A placeholder among the names of a global or nonlocal statement: a str or a list of
    them."""
    return [value] if isinstance(value, str) else list(value)


_PLAIN_CONSTANT_TYPES = (str, int, bool, type(None))
_RENAMED_DEFINITIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
_DECLARATIONS = (gast.Global, gast.Nonlocal)


class _TemplateCompiler:
    """Writes the source of a builder function for one template and placeholder set.

    The nodes it makes have no source positions (the template's own, line 1 of the
    template, would be meaningless): where generated code comes from is its ORIGIN
    annotation."""

    def __init__(self, placeholders):
        self.placeholders = placeholders
        self.lines = []
        self.namespace = {
            "_substitute": _substitute, "_substitute_param": _substitute_param,
            "_single": _single, "_splice": _splice, "_nonempty_body": _nonempty_body,
            "_placeholder_statement": _placeholder_statement,
            "_attribute_name": _attribute_name, "_keyword_arg": _keyword_arg,
            "_definition_name": _definition_name, "_declared_names": _declared_names,
            "_expression": _expression, "_expressions": _expressions,
            "_parameters": _parameters, "_block": _block, "_body": _body,
        }
        self._classes = {}
        self._count = 0

    def _class(self, node_class):
        name = self._classes.get(node_class)
        if name is None:
            name = self._classes[node_class] = f"C{len(self._classes)}"
            self.namespace[name] = node_class
        return name

    def _constant(self, value):
        if value.__class__ in _PLAIN_CONSTANT_TYPES:
            return repr(value)
        name = f"K{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def _new_variable(self):
        self._count += 1
        return f"n{self._count}"

    def node(self, node, substitute=True):
        """Emits code building `node`; returns (expression, may_be_a_list)."""
        placeholders = self.placeholders if substitute else ()
        node_class = node.__class__
        source = node.__dict__
        if node_class is gast.Name and node.id in placeholders:
            if isinstance(node.ctx, gast.Param):
                return f"_substitute_param(R[{node.id!r}])", True
            return f"_substitute(R[{node.id!r}], {self._class(node.ctx.__class__)})", True
        if (node_class is gast.Expr and node.value.__class__ is gast.Name
                and node.value.id in placeholders):
            return f"_placeholder_statement(R[{node.value.id!r}])", True
        fields = []
        for field in node_class._fields:
            value = source.get(field)
            # A Name that is not a placeholder is kept as it is: its annotation is copied,
            # not searched for placeholders.
            substitute_children = substitute and node_class is not gast.Name
            alone = (self._alone_in_list(value[0], field, placeholders)
                     if value.__class__ is list and len(value) == 1 and substitute_children
                     else None)
            if alone is not None:
                code = alone
            elif value.__class__ is list:
                items = []
                dynamic = False
                for item in value:
                    if isinstance(item, gast.AST):
                        code, item_dynamic = self.node(item, substitute_children)
                        dynamic = dynamic or item_dynamic
                    elif node_class in _DECLARATIONS and item in placeholders:
                        code = f"_declared_names(R[{item!r}])"
                        dynamic = True
                    else:
                        code = self._constant(item)
                    items.append(code)
                code = "[" + ", ".join(items) + "]"
                if dynamic:
                    code = f"_splice({code})"
                    if (field in _NONEMPTY_BLOCKS and value
                            and isinstance(value[0], gast.stmt)):
                        code = f"_nonempty_body({code})"
            elif (value.__class__ is gast.Name and substitute_children
                  and value.id in placeholders and not isinstance(value.ctx, gast.Param)):
                code = (f"_expression(R[{value.id!r}], {self._class(value.ctx.__class__)}, "
                        f"{field!r}, {node_class.__name__!r})")
            elif isinstance(value, gast.AST):
                code, dynamic = self.node(value, substitute_children)
                if dynamic:
                    code = f"_single({code}, {field!r}, {node_class.__name__!r})"
            else:
                if field == "attr" and node_class is gast.Attribute and value in placeholders:
                    code = f"_attribute_name(R[{value!r}], {value!r})"
                elif (field == "arg" and node_class is gast.keyword and value is not None
                      and value in placeholders):
                    code = f"_keyword_arg(R[{value!r}], {value!r})"
                elif (field == "name" and node_class in _RENAMED_DEFINITIONS
                      and value in placeholders):
                    code = f"_definition_name(R[{value!r}])"
                else:
                    code = self._constant(value)
            fields.append(f"{field!r}: {code}")
        variable = self._new_variable()
        class_name = self._class(node_class)
        self.lines.append(f"    {variable} = {class_name}.__new__({class_name})")
        self.lines.append(f"    {variable}.__dict__ = {{{', '.join(fields)}}}")
        return variable, False

    def _alone_in_list(self, item, field, placeholders):
        """Code building the list of a field whose only item is the placeholder `item`
        (one call, instead of building the item and splicing it), or None."""
        if item.__class__ is gast.Name and item.id in placeholders:
            if isinstance(item.ctx, gast.Param):
                return f"_parameters(R[{item.id!r}])"
            return f"_expressions(R[{item.id!r}], {self._class(item.ctx.__class__)})"
        if (item.__class__ is gast.Expr and item.value.__class__ is gast.Name
                and item.value.id in placeholders):
            helper = "_body" if field in _NONEMPTY_BLOCKS else "_block"
            return f"{helper}(R[{item.value.id!r}])"
        return None

    def build(self, statements):
        items = [self.node(statement) for statement in statements]
        result = "[" + ", ".join(code for code, _ in items) + "]"
        if any(dynamic for _, dynamic in items):
            result = f"_splice({result})"
        source = "def build(R):\n" + "\n".join(self.lines) + f"\n    return {result}\n"
        exec(compile(source, "<template>", "exec"), self.namespace)  # pylint: disable=exec-used
        return self.namespace["build"]


_builders = {}  # (template, placeholder names) -> builder function
# Templates are written in the converters: a few dozen of them. The cache is emptied if it
# ever grows past this (a template text made from data would be a bug, not a memory leak).
_CACHE_LIMIT = 4096


def _builder(template, names):
    """The builder of (template, names), compiled on its first use."""
    key = (template, names)
    builder = _builders.get(key)
    if builder is None:
        if len(_builders) >= _CACHE_LIMIT:
            _builders.clear()
        tree = gast.parse(textwrap.dedent(template))
        builder = _builders[key] = _TemplateCompiler(frozenset(names)).build(tree.body)
    return builder


def replace(template, **replacements):
    """Parses `template` (code) and substitutes placeholders; returns a list of statements.

    A replacement may be a str (a name), a qual_names.QN, an AST expression, an AST
    statement or a list of statements (for a placeholder standing alone as a statement),
    or a list of expressions/names (spliced into call arguments, tuple elements or a
    function's parameters). Expression replacements are copied, never shared, unless
    wrapped in `moved`; statement blocks are moved into the result as they are. A
    placeholder standing for a function, class, attribute or keyword name takes a str.
    The nodes the template makes have no source positions (gast.fix_missing_locations
    gives them some, before compiling them directly).
    """
    builder = _builders.get((template, tuple(replacements)))
    if builder is None:
        if not isinstance(template, str):
            raise TemplateError(f"template must be a str, got {type(template).__name__}")
        builder = _builder(template, tuple(replacements))
    return builder(replacements)


def replace_as_expression(template, **replacements):
    """Like `replace`, for a template that is a single expression; returns that expression."""
    statements = replace(template, **replacements)
    if len(statements) != 1 or not isinstance(statements[0], gast.Expr):
        raise TemplateError(f"template is not a single expression: {template!r}")
    return statements[0].value
