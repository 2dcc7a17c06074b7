"""Fast tree walking for gast (and ast) trees: what gast.walk and ast.iter_child_nodes do,
at about half the cost (they run many times per conversion)."""

import ast

_AST = ast.AST
# Load/Store/Del/Param carry no data: walks skip them.
_CONTEXT_CLASSES = frozenset(
    cls for module in (ast, __import__("gast")) for cls in vars(module).values()
    if isinstance(cls, type) and issubclass(cls, getattr(module, "expr_context")))


def child_nodes(node):
    """The child nodes of `node` in field order, as a list (expression contexts left out)."""
    children = []
    source = node.__dict__
    for field in node._fields:
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
