"""Fast tree walking for gast (and ast) trees: what gast.walk and ast.iter_child_nodes do,
at about half the cost (they run many times per conversion)."""

import ast

_AST = ast.AST
# Load/Store/Del/Param carry no data: walks skip them.
_CONTEXT_CLASSES = frozenset(
    cls for module in (ast, __import__("gast")) for cls in vars(module).values()
    if isinstance(cls, type) and issubclass(cls, getattr(module, "expr_context")))


# Fields that only ever hold plain values (names, flags, strings), never nodes: walks skip
# them. (Constant.value is plain too; `name`, `names` and `value` hold nodes elsewhere.)
_PLAIN_FIELDS = frozenset({"id", "attr", "ctx", "type_comment", "kind", "arg", "asname",
                           "module", "level", "is_async", "conversion", "simple"})
_CONSTANT_CLASSES = frozenset(
    cls for cls in (getattr(ast, "Constant"), getattr(__import__("gast"), "Constant")))
_node_fields = {}  # node class -> the fields that may hold nodes


def node_fields(node_class):
    """The fields of `node_class` that may hold nodes (cached)."""
    fields = _node_fields.get(node_class)
    if fields is None:
        fields = _node_fields[node_class] = tuple(
            field for field in node_class._fields
            if field not in _PLAIN_FIELDS
            and not (field == "value" and node_class in _CONSTANT_CLASSES))
    return fields


def child_nodes(node):
    """The child nodes of `node` in field order, as a list (expression contexts left out)."""
    children = []
    source = node.__dict__
    for field in node_fields(node.__class__):
        value = source.get(field)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, _AST) and item.__class__ not in _CONTEXT_CLASSES:
                    children.append(item)
        elif isinstance(value, _AST) and value.__class__ not in _CONTEXT_CLASSES:
            children.append(value)
    return children


def walk(node):
    """Yields `node` and every node below it (depth first; expression contexts left out).

    The order is not gast.walk's breadth-first order: use it where order does not matter.
    """
    stack = [node]
    pop = stack.pop
    extend = stack.extend
    while stack:
        current = pop()
        yield current
        extend(child_nodes(current))


def contains(node, node_types):
    """True when `node` or a node below it is an instance of `node_types`."""
    stack = [node]
    pop = stack.pop
    extend = stack.extend
    while stack:
        current = pop()
        if isinstance(current, node_types):
            return True
        extend(child_nodes(current))
    return False
