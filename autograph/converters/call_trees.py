"""Wraps every call: `f(a, *b, k=c)` becomes `ag__.converted(f)(a, *b, k=c)`.

`ag__.converted` decides at run time what to call instead of `f` (its converted version, an
overload of a builtin, or `f` itself); the call itself stays in the user's function, so
arguments, star-args and keywords are untouched and no stack frame is added. Calls passing
exactly one, two or three positional arguments and nothing else use `ag__.converted_1` to
`ag__.converted_3`: the same decision, with builtin overloads of that fixed arity (cheaper
to call than ones packing *args and **kwargs).
Zero-argument `super()` is made explicit (`super(__class__, self)`): the converted function
no longer sits in a class body, so the compiler would not provide its implicit arguments.
"""

import gast

from autograph.core import converter
from autograph.pyct import anno, ast_util, templates

_ANNOTATIONS_FIELD = anno._ANNO_FIELD  # pylint: disable=protected-access
_SKIP_PROCESSING = anno.Basic.SKIP_PROCESSING
_ORIGIN = anno.Basic.ORIGIN
_UNCONVERTIBLE = converter.AgAnno.UNCONVERTIBLE
_WITHOUT_CHOICES = converter.AgAnno.WITHOUT_CHOICES
_CHOICE_CLASSES = frozenset(converter.CHOICE_TYPES)
_NAME = gast.Name
_CALL = gast.Call

def _is_generated_call(func):
    """Calls of overloads (ag__.x) that earlier converters generated are not wrapped."""
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and func.id == "ag__"


def _first_parameter(function_node):
    args = function_node.args
    positional = args.posonlyargs + args.args
    return positional[0].id if positional else None


class CallTreeTransformer(converter.Base):
    """The rewrite as a transformer (the reference behaviour; `transform` uses the faster
    `_CallWalk`, which makes the same tree)."""

    target_types = (gast.Call,)

    def visit_FunctionDef(self, node):
        # Decorators and defaults belong to the enclosing scope.
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        if node.returns is not None:
            node.returns = self.visit(node.returns)
        self.functions.append(node)
        try:
            node.body = [self.visit(statement) for statement in node.body]
        finally:
            self.functions.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        node.args = self.visit(node.args)
        self.functions.append(node)
        try:
            node.body = self.visit(node.body)
        finally:
            self.functions.pop()
        return node

    def _explicit_super(self, node):
        """`super()` in the converted method itself -> `super(__class__, <first parameter>)`."""
        if len(self.functions) != 1 or not isinstance(self.functions[0], gast.FunctionDef):
            return node
        first = _first_parameter(self.functions[0])
        code = getattr(self.ctx.user.entity, "__code__", None)
        if first is None or "__class__" not in getattr(code, "co_freevars", ()):
            return node
        return templates.replace_as_expression("super(class_cell, first)",
                                               class_cell="__class__", first=first)

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if _is_generated_call(node.func):
            return node
        if _is_implicit_super(node):
            node = self._explicit_super(node)
        arity = len(node.args)
        resolver = "ag__.converted"
        if (not node.keywords and arity in (1, 2, 3)
                and not any(isinstance(a, gast.Starred) for a in node.args)):
            resolver = f"ag__.converted_{arity}"
        node.func = templates.replace_as_expression(f"{resolver}(func)",
                                                    func=templates.moved(node.func))
        return node


def _is_implicit_super(call):
    func = call.func
    return (func.__class__ is gast.Name and func.id == "super" and not call.args
            and not call.keywords)


_LOAD = gast.Load


def _wrap_callee(call):
    """`f(...)` -> `ag__.converted_N(f)(...)`, in place: the nodes the template of
    CallTreeTransformer makes (with its locations), built directly (once per call of the
    user's code)."""
    arity = len(call.args)
    resolver = "converted"
    if (not call.keywords and arity in (1, 2, 3)
            and not any(a.__class__ is gast.Starred for a in call.args)):
        resolver = _FIXED_ARITY_RESOLVERS[arity]
    end = 5 + len(resolver)  # len("ag__.converted_N")
    namespace = _NAME.__new__(_NAME)
    namespace.__dict__ = {"id": "ag__", "ctx": _LOAD.__new__(_LOAD), "annotation": None,
                          "type_comment": None, "lineno": 1, "col_offset": 0,
                          "end_lineno": 1, "end_col_offset": 4}
    attribute = _ATTRIBUTE.__new__(_ATTRIBUTE)
    attribute.__dict__ = {"value": namespace, "attr": resolver, "ctx": _LOAD.__new__(_LOAD),
                          "lineno": 1, "col_offset": 0, "end_lineno": 1,
                          "end_col_offset": end}
    new_func = _CALL.__new__(_CALL)
    new_func.__dict__ = {
        "func": attribute, "args": [templates.set_context(call.func, _LOAD.__new__(_LOAD))],
        "keywords": [], "lineno": 1, "col_offset": 0, "end_lineno": 1,
        "end_col_offset": end + 6}  # + len("(func)")
    call.func = new_func


_FIXED_ARITY_RESOLVERS = {1: "converted_1", 2: "converted_2", 3: "converted_3"}
_ATTRIBUTE = gast.Attribute
_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda})
_MARKED_CLASSES = frozenset(converter.WITHOUT_CHOICES_CLASSES)
_AST = gast.AST
_CONSTANT = gast.Constant
_fields_cache = ast_util._node_fields  # pylint: disable=protected-access


class _CallWalk:
    """What CallTreeTransformer does, as one plain walk of the tree (the transformer needed
    a relevance walk first, then a few calls per node and child).

    The same walk marks each expression and simple statement holding no if-else, and/or or
    unary operator with AgAnno.WITHOUT_CHOICES: control_flow, which runs next, moves and
    copies them whole, so the relevance walk of conditional_expressions and
    logical_expressions, after it, skips them (and their copies) instead of walking them
    again.
    """

    __slots__ = ("transformer", "functions")

    def __init__(self, transformer):
        self.transformer = transformer  # makes the explicit super() calls
        self.functions = transformer.functions

    def visit(self, node, origin):
        """Rewrites the calls in `node`'s tree. Returns True when it holds a choice (see
        CHOICE_TYPES) or is left unvisited, False when not, or the node that replaces it
        (an explicit super() call, which holds none)."""
        node_class = node.__class__
        values = node.__dict__
        annotations = values.get(_ANNOTATIONS_FIELD)
        if annotations:
            if _SKIP_PROCESSING in annotations or annotations.get(_UNCONVERTIBLE, False):
                return True
            own_origin = annotations.get(_ORIGIN)
            if own_origin is not None:
                origin = own_origin
        if node_class in _SCOPES:
            found = self._function(node, origin)
        else:
            found = False
            fields = _fields_cache.get(node_class)
            if fields is None:
                fields = ast_util.node_fields(node_class)
            visit = self.visit
            for field in fields:
                value = values.get(field)
                if value.__class__ is list:
                    for item in value:
                        item_class = item.__class__
                        if item_class is _CONSTANT or (item_class is _NAME
                                                       and item.annotation is None):
                            continue
                        if isinstance(item, _AST):
                            result = visit(item, origin)
                            if result:
                                if result is True:
                                    found = True
                                else:
                                    value[value.index(item)] = result
                elif isinstance(value, _AST):
                    value_class = value.__class__
                    if value_class is _CONSTANT or (value_class is _NAME
                                                    and value.annotation is None):
                        continue
                    result = visit(value, origin)
                    if result:
                        if result is True:
                            found = True
                        else:
                            values[field] = result
        if node_class is _CALL and not _is_generated_call(node.func):
            if _is_implicit_super(node):
                replacement = self.transformer._explicit_super(node)  # pylint: disable=protected-access
                if replacement is not node:
                    if origin is not None and not anno.hasanno(replacement, _ORIGIN):
                        anno.setanno(replacement, _ORIGIN, origin)
                    _wrap_callee(replacement)
                    return replacement
            _wrap_callee(node)
        if node_class in _CHOICE_CLASSES:
            return True
        if not found and annotations is not None and node_class in _MARKED_CLASSES:
            annotations[_WITHOUT_CHOICES] = True
        return found

    def _function(self, node, origin):
        """Visits a function's or lambda's parts; returns whether they hold a choice."""
        visit = self.visit
        values = node.__dict__
        found = False
        # Decorators and defaults belong to the enclosing scope; the function's own
        # calls are in its body.
        body = values["body"]
        if node.__class__ is gast.Lambda:
            found = visit(values["args"], origin) is True
            self.functions.append(node)
            try:
                result = visit(body, origin)
                if result is True:
                    found = True
                elif result is not False:
                    node.body = result
            finally:
                self.functions.pop()
            return found
        for decorator in values["decorator_list"]:
            found |= self._item(values["decorator_list"], decorator, origin)
        found |= visit(values["args"], origin) is True
        returns = values.get("returns")
        if returns is not None:
            result = visit(returns, origin)
            if result is True:
                found = True
            elif result is not False:
                node.returns = result
        self.functions.append(node)
        try:
            for statement in list(body):
                found |= self._item(body, statement, origin)
        finally:
            self.functions.pop()
        return found

    def _item(self, items, item, origin):
        result = self.visit(item, origin)
        if result is True or result is False:
            return result
        items[items.index(item)] = result
        return False


def transform(node, ctx):
    transformer = CallTreeTransformer(ctx)
    transformer.functions = []
    if node.__class__ not in _SCOPES:
        return transformer.visit(node)
    result = _CallWalk(transformer).visit(node, None)
    return node if result is True or result is False else result
