"""What is below a node of a gast (or ast) tree, and the walks built on it.

`child_nodes` is the one child-field walk: analyses and converters that visit a tree go
through it instead of reading node fields themselves.
"""

import ast

_AST = ast.AST

# Fields that only ever hold plain values (names, flags, strings, expression contexts),
# never nodes: walks skip them. (Constant.value is plain too; `name`, `names` and `value`
# hold nodes elsewhere.)
_PLAIN_FIELDS = frozenset({"id", "attr", "ctx", "type_comment", "kind", "arg", "asname",
                           "module", "level", "is_async", "conversion", "simple"})
_CONSTANT_CLASSES = frozenset(
    cls for cls in (getattr(ast, "Constant"), getattr(__import__("gast"), "Constant")))
_node_fields = {}  # node class -> the fields that may hold nodes


def node_fields(node_class):
    """The fields of `node_class` that may hold nodes, in field order (cached)."""
    fields = _node_fields.get(node_class)
    if fields is None:
        fields = _node_fields[node_class] = tuple(
            field for field in node_class._fields
            if field not in _PLAIN_FIELDS
            and not (field == "value" and node_class in _CONSTANT_CLASSES))
    return fields


# Classes whose nodes never hold nodes: constants, operators and expression contexts (a
# name holds one only as the annotation of a parameter). Walks that visit every node
# pass them without a call: they are about half of the nodes of a tree.
LEAF_CLASSES = frozenset(
    cls for module in (ast, __import__("gast")) for cls in vars(module).values()
    if isinstance(cls, type) and issubclass(cls, module.AST)
    and (cls in _CONSTANT_CLASSES or issubclass(cls, (
        module.expr_context, module.boolop, module.operator, module.unaryop, module.cmpop))))


def child_nodes(node, fields=None):
    """The nodes directly below `node`, in field order (operators included, expression
    contexts left out): those in `fields` if given, else in every field of node_fields."""
    if fields is None:
        fields = _node_fields.get(node.__class__)
        if fields is None:
            fields = node_fields(node.__class__)
    children = []
    values = node.__dict__
    for field in fields:
        value = values.get(field)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, _AST):
                    children.append(item)
        elif isinstance(value, _AST):
            children.append(value)
    return children


def walk(node):
    """Yields `node` and every node below it (depth first; expression contexts left out).

    The order is not gast.walk's breadth-first order: use it where order does not matter.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(child_nodes(current))


def contains(node, node_types):
    """True when `node` or a node below it is an instance of `node_types`."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, node_types):
            return True
        stack.extend(child_nodes(current))
    return False


_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_block_fields = {}


def block_fields(node_class):
    """The fields of a statement class (or of an except handler or match case) that hold
    statement blocks, or the handlers or cases holding them, in field order."""
    fields = _block_fields.get(node_class)
    if fields is None:
        fields = _block_fields[node_class] = tuple(
            f for f in node_class._fields if f in _BLOCK_FIELDS)
    return fields


_block_layouts = {}  # statement class -> (its block fields, its fields of handlers or cases)


def statement_blocks(statement):
    """The statement blocks directly inside a compound statement, as (owner, field) pairs:
    its own body, orelse and finalbody when not empty, then the body of each of its handlers
    or cases."""
    layout = _block_layouts.get(statement.__class__)
    if layout is None:
        fields = block_fields(statement.__class__)
        layout = _block_layouts[statement.__class__] = (
            tuple(f for f in fields if f not in ("handlers", "cases")),
            tuple(f for f in fields if f in ("handlers", "cases")))
    own_fields, part_fields = layout
    blocks = []
    values = statement.__dict__
    for field in own_fields:
        if values.get(field):
            blocks.append((statement, field))
    for field in part_fields:
        for part in values.get(field) or ():
            blocks.append((part, "body"))
    return blocks
