"""The bridge between Python's ast trees and gast trees: ast_to_gast (which can also move
locations, annotate origins and show an observer every node, in the same walk) and
gast_to_ast back.

Both are table-driven equivalents of gast.ast_to_gast / gast.gast_to_ast for this Python
version (the tests check they agree with gast's): they run on every conversion, and gast's
generic versions cost about twice as much.
"""

import ast
import re

import gast

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import origin_info

_LOCATION_ATTRIBUTES = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _conversion_table(source_module, target_module):
    """{class of source_module: (its twin in target_module, the twin's fields)}."""
    table = {}
    for name in dir(source_module):
        source_class = getattr(source_module, name)
        if not (isinstance(source_class, type) and issubclass(source_class, ast.AST)):
            continue
        target_class = getattr(target_module, name, None)
        if isinstance(target_class, type) and issubclass(target_class, ast.AST):
            table[source_class] = (target_class, target_class._fields)
    return table


_AST_TO_GAST = _conversion_table(ast, gast)
_GAST_TO_AST = _conversion_table(gast, ast)


def is_gast_node(node):
    """Whether `node` is a gast node (rather than an ast one)."""
    return type(node) in _GAST_TO_AST


# ---------------------------------------------------------------------------
# ast -> gast, in place.
# ---------------------------------------------------------------------------

_AST_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# ast.parse shares one instance of each expression context and operator among all the
# nodes it makes (and all the trees): those get a gast instance of their own.
_SHARED_BASES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_SHARED_AST_CLASSES = frozenset(c for c in _AST_TO_GAST if issubclass(c, _SHARED_BASES))
# The gast class for each shared ast context or operator class.
_GAST_OF_SHARED = {c: _AST_TO_GAST[c][0] for c in _SHARED_AST_CLASSES}
# Observers are not shown those: they carry no data.
_UNSHOWN_CLASSES = frozenset(_GAST_OF_SHARED.values())

# What converting a field of a node in place takes, from the field's type:
_CHILD = 0  # one node (or None)
_CHILDREN = 1  # a list of nodes
_DEF_BODY = 2  # a def's statements: they run in the def
_LAMBDA_BODY = 3  # a lambda's expression: it runs in the lambda
_CONTEXT = 4  # a shared context or operator: replaced by a gast instance of its own
_CONTEXTS = 5  # a list of those (Compare.ops)
_PARAMETER = 6  # an ast.arg (or None): replaced by a gast Name
_PARAMETERS = 7  # a list of those
_HANDLER_NAME = 8  # ExceptHandler.name: a string in ast, a Name in gast
_SCALAR_TYPES = frozenset(("identifier", "int", "string", "constant"))
_SIGNATURE = re.compile(r"(\w+)(?:\((.*)\))?")


def _signature(ast_class):
    """[(type, field)] of a class that ast.parse makes, read from the ASDL signature its
    docstring gives ('Name(identifier id, expr_context ctx)'); None for other classes."""
    match = _SIGNATURE.fullmatch((ast_class.__doc__ or "").strip())
    if match is None or match.group(1) != ast_class.__name__:
        return None
    declared = [tuple(d.split()) for d in match.group(2).split(", ")] if match.group(2) else []
    if tuple(field for _, field in declared) != ast_class._fields:
        return None
    return declared


def _in_place_plans():
    """ast class -> (gast class, ((field, how), ...) for the fields holding nodes, (gast
    field the ast class lacks, whether it defaults to [] rather than None) pairs, the ast
    fields gast lacks, whether it has a location): what turning an ast node into the gast
    node in place takes. A class is left out (converted by gast, as a new node) when a
    node its fields can hold is."""
    plans = {}
    child_types = {}
    for ast_class, (gast_class, gast_fields) in _AST_TO_GAST.items():
        signature = _signature(ast_class)
        if ast_class in _SHARED_AST_CLASSES or ast_class is ast.arg or signature is None:
            continue
        steps = []
        types_held = set()
        for type_name, field in signature:
            base = type_name.rstrip("*?")
            many = type_name.endswith("*")
            if field not in gast_fields:
                continue
            if ast_class is ast.ExceptHandler and field == "name":
                steps.append((field, _HANDLER_NAME))
                continue
            if base in _SCALAR_TYPES:
                continue
            node_type = getattr(ast, base, None)
            if not (isinstance(node_type, type) and issubclass(node_type, ast.AST)):
                break
            if issubclass(node_type, _SHARED_BASES):
                how = _CONTEXTS if many else _CONTEXT
            elif node_type is ast.arg:
                how = _PARAMETERS if many else _PARAMETER
            else:
                types_held.add(node_type)
                if field == "body" and ast_class in _AST_FUNCTIONS:
                    how = _DEF_BODY
                elif field == "body" and ast_class is ast.Lambda:
                    how = _LAMBDA_BODY
                else:
                    how = _CHILDREN if many else _CHILD
            steps.append((field, how))
        else:
            plans[ast_class] = (
                gast_class, tuple(steps),
                tuple((f, f == "type_params") for f in gast_fields if f not in ast_class._fields),
                tuple(f for f in ast_class._fields if f not in gast_fields),
                "lineno" in ast_class._attributes)
            child_types[ast_class] = types_held
    # Converted in place, a child stays where it is: a parent is only converted in place
    # when every class its children can have is (else it falls back, as a whole).
    made_by_parse = [c for c in _AST_TO_GAST if _signature(c) is not None]
    changed = True
    while changed:
        changed = False
        for ast_class, types_held in child_types.items():
            if ast_class in plans and any(
                    c not in plans for t in types_held for c in made_by_parse
                    if issubclass(c, t) and c not in _SHARED_AST_CLASSES and c is not ast.arg):
                del plans[ast_class]
                changed = True
    return plans


_IN_PLACE = _in_place_plans()


def shift_locations(tree, line_delta, col_delta):
    """Moves every node's location; columns are clamped at 0 (continuation lines may be
    less indented than the definition)."""
    for node in ast.walk(tree):
        if "lineno" in node._attributes:
            lineno = getattr(node, "lineno", None)
            if lineno is None:
                continue
            node.lineno = lineno + line_delta
            node.col_offset = max(node.col_offset + col_delta, 0)
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += line_delta
                node.end_col_offset = max(node.end_col_offset + col_delta, 0)


def observe(tree, observer):
    """Shows `observer` the nodes of the gast tree `tree` as ast_to_gast shows it the nodes
    it converts (enter, the node's children, leave)."""
    watched = {c for c in observer.node_classes if c not in _UNSHOWN_CLASSES}
    stack = [(tree, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            observer.leave(node)
            continue
        if node.__class__ in watched:
            observer.enter(node)
            stack.append((node, True))
        stack.extend((child, False) for child in reversed(ast_util.child_nodes(node)))


def ast_to_gast(root, shift=(0, 0), origins_from=None, observer=None):
    """The gast tree of the ast tree `root` (what gast.ast_to_gast returns), made from
    `root` itself: its nodes become the gast nodes (gast's node classes have the same
    layout as ast's, so `__class__` can change), so `root` must be the caller's own tree
    (freshly parsed). In the same walk:

    shift: (line delta, column delta) moves every location first, as
      shift_locations(root, *shift) would;
    origins_from: None, or (source, filename, lineno, col_offset): every located node gets
      the anno.Basic.ORIGIN that origin_info.resolve(the gast tree, *origins_from) gives it;
    observer: None, or an object collecting facts about the tree, shown each node whose
      class is in its `node_classes` (expression contexts and operators excepted):
      observer.enter(node) before the node's children, observer.leave(node) after them
      (then the node and everything below it are gast nodes).
    """
    line_shift, col_shift = shift
    shifted = bool(line_shift or col_shift)
    annotating = origins_from is not None
    if annotating:
        source, filename, context_lineno, context_col_offset = origins_from
        source_lines = source.splitlines()
        line_count = len(source_lines)
        get_comment = origin_info.line_comments(source).get
        line_delta = context_lineno - 1
    watched = observer.node_classes if observer is not None else ()
    new_tuple = tuple.__new__  # the NamedTuple constructor's argument handling costs more
    new_node = ast.AST.__new__
    location_class = origin_info.Location
    origin_class = origin_info.OriginInfo
    annotations_field = anno._ANNO_FIELD  # pylint: disable=protected-access
    origin_key = anno.Basic.ORIGIN
    plans = _IN_PLACE
    gast_of_shared = _GAST_OF_SHARED
    gast_name = gast.Name
    # Nodes next to each other in the walk often start at the same place (a call, its
    # function, the name the function is read from): they share one origin (an immutable
    # tuple), made once.
    last_lineno = last_column = last_name = last_origin = None

    def locate(fields, function_name):
        """Moves the location of a node (its `fields`), then annotates its origin."""
        nonlocal last_lineno, last_column, last_name, last_origin
        lineno = fields["lineno"]
        column = fields["col_offset"]
        if shifted:
            fields["lineno"] = lineno = lineno + line_shift
            column += col_shift
            fields["col_offset"] = column = column if column > 0 else 0
            end_lineno = fields.get("end_lineno")
            if end_lineno is not None:
                fields["end_lineno"] = end_lineno + line_shift
                end_column = fields["end_col_offset"] + col_shift
                fields["end_col_offset"] = end_column if end_column > 0 else 0
        if not annotating:
            return
        if lineno != last_lineno or column != last_column or function_name is not last_name:
            last_lineno, last_column, last_name = lineno, column, function_name
            last_origin = new_tuple(origin_class, (
                new_tuple(location_class, (filename, lineno + line_delta,
                                           column + context_col_offset)),
                function_name,
                source_lines[lineno - 1] if 0 < lineno <= line_count else None,
                get_comment(lineno)))
        fields[annotations_field] = {origin_key: last_origin}

    def convert_parameter(node, function_name):
        # gast represents parameters as Name nodes in the Param context.
        fields = node.__dict__
        new = new_node(gast_name)
        annotation = fields.get("annotation")
        new_fields = new.__dict__
        new_fields.update(
            id=fields["arg"], ctx=gast.Param(),
            annotation=None if annotation is None else convert(annotation, function_name),
            type_comment=fields.get("type_comment"))
        for attribute in _LOCATION_ATTRIBUTES:
            if attribute in fields:
                new_fields[attribute] = fields[attribute]
        locate(new_fields, function_name)
        if watched and gast_name in watched:
            observer.enter(new)
            observer.leave(new)
        return new

    def convert(node, function_name):
        try:
            target_class, steps, added, dropped, located = plans[node.__class__]
        except KeyError:
            return convert_other(node, function_name)
        node.__class__ = target_class
        fields = node.__dict__
        if added:  # (few classes have any: tested first, no loop started)
            for field, is_list in added:
                fields[field] = [] if is_list else None
        if dropped:
            for field in dropped:
                fields.pop(field, None)
        if located:
            locate(fields, function_name)
        observed = watched and target_class in watched
        if observed:
            observer.enter(node)
        for field, how in steps:
            value = fields[field]
            if how == _CHILD:
                if value is not None:
                    convert(value, function_name)
            elif how == _CHILDREN:
                for item in value:
                    if item is not None:  # Dict.keys and kw_defaults hold None too
                        convert(item, function_name)
            elif how == _CONTEXT:
                fields[field] = new_node(gast_of_shared[value.__class__])
            elif how == _DEF_BODY:
                body_name = fields["name"]
                for item in value:
                    convert(item, body_name)
            elif how == _LAMBDA_BODY:
                convert(value, "<lambda>")
            elif how == _PARAMETERS:
                value[:] = [convert_parameter(item, function_name) for item in value]
            elif how == _PARAMETER:
                if value is not None:
                    fields[field] = convert_parameter(value, function_name)
            elif how == _CONTEXTS:
                value[:] = [new_node(gast_of_shared[item.__class__]) for item in value]
            elif value is not None:  # _HANDLER_NAME
                fields[field] = gast_name(value, gast.Store(), None, None)
        if observed:
            observer.leave(node)
        return node

    def convert_other(node, function_name):
        """A node without a plan: converted by gast, as a new subtree."""
        node_class = node.__class__
        if node_class is ast.arg:
            return convert_parameter(node, function_name)
        if node_class in _SHARED_AST_CLASSES:
            return new_node(gast_of_shared[node_class])
        if shifted:
            shift_locations(node, line_shift, col_shift)
        new = gast.ast_to_gast(node)
        if annotating:
            origin_info.resolve(new, source, filename, context_lineno, context_col_offset,
                                function_name)
        if watched:
            observe(new, observer)
        return new

    if root.__class__ in _AST_FUNCTIONS:
        root_name = root.name
    elif root.__class__ is ast.Lambda:
        root_name = "<lambda>"
    else:
        root_name = None
    converted = convert(root, root_name)
    # The nested functions refer to each other through cells of this frame: emptied, the
    # cells no longer make a reference cycle, and are freed now (not by the collector).
    del convert, convert_other, convert_parameter, locate
    return converted


# ---------------------------------------------------------------------------
# gast -> ast, as a new tree.
# ---------------------------------------------------------------------------

# Expression contexts carry no data; ast.parse shares one instance of each as well.
_AST_CONTEXTS = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}


def _gast_name_to_arg(name):
    source = name.__dict__
    annotation = source.get("annotation")
    new = ast.arg(source["id"], None if annotation is None else gast_to_ast(annotation),
                  source.get("type_comment"))
    fields = new.__dict__
    for attribute in _LOCATION_ATTRIBUTES:
        if attribute in source:
            fields[attribute] = source[attribute]
    return new


def gast_to_ast(node):
    """The ast tree of a gast tree (what gast.gast_to_ast returns, faster)."""
    node_class = type(node)
    context = _AST_CONTEXTS.get(node_class)
    if context is not None:
        return context
    entry = _GAST_TO_AST.get(node_class)
    if entry is None:
        return gast.gast_to_ast(node)
    target_class, field_names = entry
    source = node.__dict__
    if node_class is gast.arguments:
        to_arg = _gast_name_to_arg
        new = ast.arguments(
            [to_arg(a) for a in source["posonlyargs"]], [to_arg(a) for a in source["args"]],
            None if source["vararg"] is None else to_arg(source["vararg"]),
            [to_arg(a) for a in source["kwonlyargs"]],
            [None if d is None else gast_to_ast(d) for d in source["kw_defaults"]],
            None if source["kwarg"] is None else to_arg(source["kwarg"]),
            [gast_to_ast(d) for d in source["defaults"]])
        return new
    # ast nodes keep their fields in the instance dict: filling it directly is what the
    # constructor does, without its argument handling.
    new = target_class.__new__(target_class)
    fields = new.__dict__
    for field in field_names:
        value = source.get(field)
        if value.__class__ is list:
            value = [gast_to_ast(v) if isinstance(v, ast.AST) else v for v in value]
        elif isinstance(value, ast.AST):
            value = gast_to_ast(value)
        fields[field] = value
    if node_class is gast.ExceptHandler and source.get("name") is not None:
        fields["name"] = source["name"].id
    for attribute in _LOCATION_ATTRIBUTES:
        if attribute in source:
            fields[attribute] = source[attribute]
    return new
