"""Parsing live Python entities (functions, lambdas, methods, classes) into gast ASTs,
and unparsing ASTs back to source (astor, with `ast.unparse` for what astor lacks; generated
modules are written by a faster transcription of astor's rules, unparse_statements).
"""

import ast
import inspect
import linecache
import re
import threading
import types
from typing import NamedTuple

import astor
import gast

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import errors
from autograph.pyct import origin_info

_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS


# ---------------------------------------------------------------------------
# ast <-> gast conversion.
# ---------------------------------------------------------------------------
# Table-driven equivalents of gast.ast_to_gast / gast.gast_to_ast for this Python version
# (the tests check they agree with gast's). They run on every conversion, and gast's
# generic versions cost about twice as much.

_LOCATION_ATTRIBUTES = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_MISSING = object()


def _conversion_table(source_module, target_module):
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


def _copy_location(source, target_dict):
    for attribute in _LOCATION_ATTRIBUTES:
        if attribute in source:
            target_dict[attribute] = source[attribute]


def ast_to_gast(node):
    """The gast tree of an ast tree (what gast.ast_to_gast returns, faster)."""
    node_class = type(node)
    source = node.__dict__
    if node_class is ast.arg:
        # gast represents parameters as Name nodes in the Param context.
        new = gast.Name.__new__(gast.Name)
        fields = new.__dict__
        annotation = source.get("annotation")
        fields.update(id=source["arg"], ctx=gast.Param(),
                      annotation=None if annotation is None else ast_to_gast(annotation),
                      type_comment=source.get("type_comment"))
        _copy_location(source, fields)
        return new
    entry = _AST_TO_GAST.get(node_class)
    if entry is None:
        return gast.ast_to_gast(node)
    target_class, field_names = entry
    new = target_class.__new__(target_class)
    fields = new.__dict__
    for field in field_names:
        value = source.get(field, _MISSING)
        if value is _MISSING:
            value = [] if field == "type_params" else None
        elif value.__class__ is list:
            value = [ast_to_gast(v) if isinstance(v, ast.AST) else v for v in value]
        elif isinstance(value, ast.AST):
            value = ast_to_gast(value)
        fields[field] = value
    if node_class is ast.ExceptHandler and fields["name"] is not None:
        fields["name"] = gast.Name(fields["name"], gast.Store(), None, None)
    if "lineno" in source:  # expression contexts, operators, ... have no location
        for attribute in _LOCATION_ATTRIBUTES:
            if attribute in source:
                fields[attribute] = source[attribute]
    return new


_AST_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# ast.parse shares one instance of each expression context and operator among all the
# nodes it makes (and all the trees): those get a gast instance of their own.
_SHARED_BASES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_SHARED_AST_CLASSES = frozenset(c for c in _AST_TO_GAST if issubclass(c, _SHARED_BASES))

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
    fields gast lacks, whether it has a location, its census kind (0: none)): what turning
    an ast node into the gast node in place (and recording it in a Census) takes. A class
    is left out (converted by gast, as a new node) when a node its fields can hold is."""
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
                "lineno" in ast_class._attributes, _CENSUS_KINDS.get(gast_class, 0))
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


# ---------------------------------------------------------------------------
# What a function's tree holds.
# ---------------------------------------------------------------------------

# What a Census records about a node, by its class (absent: nothing). Ifs and loops
# (_BLOCK and above) hold blocks a return can be in.
_PRESENT, _ATTRIBUTE, _SUBSCRIPT, _RETURN, _DEFINITION, _LOOP, _IF = range(1, 8)
_BLOCK = _LOOP
_CENSUS_KINDS = {
    gast.Break: _PRESENT, gast.Continue: _PRESENT, gast.Assert: _PRESENT,
    gast.IfExp: _PRESENT, gast.Attribute: _ATTRIBUTE, gast.Subscript: _SUBSCRIPT,
    gast.Return: _RETURN, gast.FunctionDef: _DEFINITION, gast.AsyncFunctionDef: _DEFINITION,
    gast.ClassDef: _DEFINITION, gast.For: _LOOP, gast.AsyncFor: _LOOP, gast.While: _LOOP,
    gast.If: _IF,
}
_GAST_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)
# Operators (like expression contexts) are leaves a census does not look at: not walked.
_OPERATOR_FIELDS = frozenset({"op", "ops"})
_census_walk_info = {}  # node class -> (its census kind, the fields of it to walk)


class Census:
    """What a function's gast tree holds, for a transpiler that skips the passes with
    nothing to do in it (conversion speed).

    parse_entity_with_location(..., annotate_origins=True) records it while building the
    tree (no walk of its own) and sets it as the root's anno.Basic.CENSUS; Census.of(root)
    walks a tree for it. It describes the tree as it was then: whoever changes the tree
    before using it must drop it.

    types: the node classes present among those of _CENSUS_KINDS (breaks, continues,
      asserts, conditional expressions, attributes, subscripts, returns, defs, classes,
      loops, ifs);
    attributes: the attribute names (Attribute.attr) in it;
    nested_scopes: it holds a class, or a def other than the root;
    loop_else: a loop has an else block;
    loop_starts_with_call: a loop's body starts with a call statement;
    return_in_block: a return is inside an if or loop (at any depth, in nested defs too);
    subscript_store: an item or slice is assigned to (a Subscript in the Store context).
    """

    __slots__ = ("types", "attributes", "loop_else", "loop_starts_with_call",
                 "return_in_block", "subscript_store", "_definitions", "_root_is_function")

    def __init__(self, root_is_function):
        self.types = set()
        self.attributes = set()
        self.loop_else = False
        self.loop_starts_with_call = False
        self.return_in_block = False
        self.subscript_store = False
        self._definitions = 0  # defs and classes, the root included
        self._root_is_function = root_is_function

    @property
    def nested_scopes(self):
        return self._definitions > self._root_is_function

    def note(self, node, kind, inside):
        """Records `node`, a gast node of census kind `kind` whose children are gast nodes
        too; `inside` (true or false): whether it is inside an if or a loop."""
        self.types.add(node.__class__)
        if kind == _ATTRIBUTE:
            self.attributes.add(node.attr)
        elif kind == _SUBSCRIPT:
            if node.ctx.__class__ is gast.Store:
                self.subscript_store = True
        elif kind == _RETURN:
            if inside:
                self.return_in_block = True
        elif kind == _DEFINITION:
            self._definitions += 1
        elif kind == _LOOP:
            if node.orelse:
                self.loop_else = True
            first = node.body[0] if node.body else None
            if first.__class__ is gast.Expr and first.value.__class__ is gast.Call:
                self.loop_starts_with_call = True

    @classmethod
    def of(cls, root):
        """The census of the gast tree `root`, from a walk of it."""
        census = cls(root.__class__ in _GAST_FUNCTIONS)
        note = census.note
        infos = _census_walk_info
        node_base = gast.AST
        # The nodes outside any if or loop are walked first, then those inside one: two
        # stacks, no flag per node.
        inside_nodes = []
        push_inside = inside_nodes.append
        for inside, stack in ((False, [root]), (True, inside_nodes)):
            pop = stack.pop
            push_here = stack.append
            while stack:
                node = pop()
                node_class = node.__class__
                info = infos.get(node_class)
                if info is None:
                    info = infos[node_class] = (_CENSUS_KINDS.get(node_class, 0), tuple(
                        field for field in ast_util.node_fields(node_class)
                        if field not in _OPERATOR_FIELDS))
                kind, fields = info
                push = push_here
                if kind:
                    note(node, kind, inside)
                    if kind >= _BLOCK:
                        push = push_inside
                values = node.__dict__
                for field in fields:
                    value = values.get(field)
                    if value.__class__ is list:
                        for item in value:
                            if isinstance(item, node_base):
                                push(item)
                    elif isinstance(value, node_base):
                        push(value)
        return census


_IN_PLACE = _in_place_plans()
# The gast class for each shared ast context or operator class.
_GAST_OF_SHARED = {c: _AST_TO_GAST[c][0] for c in _SHARED_AST_CLASSES}


def _ast_to_gast_with_origins(root, source, filename, context_lineno, context_col_offset,
                              line_shift=0, col_shift=0):
    """The gast tree of the ast tree `root` (what ast_to_gast returns), made from `root`
    itself, every located node annotated with its anno.Basic.ORIGIN as
    origin_info.resolve(the gast tree, source, filename, context_lineno,
    context_col_offset) annotates it, and the root with its anno.Basic.CENSUS: one walk,
    and no second tree built and freed.

    `root` must be a tree of its own (freshly parsed): its nodes become the gast nodes
    (gast's node classes have the same layout as ast's, so `__class__` can change). Their
    locations are first moved as _shift_locations(root, line_shift, col_shift) would.
    """
    source_lines = source.splitlines()
    line_count = len(source_lines)
    get_comment = origin_info.line_comments(source).get
    line_delta = context_lineno - 1
    new_tuple = tuple.__new__
    new_node = ast.AST.__new__
    location_class = origin_info.Location
    origin_class = origin_info.OriginInfo
    annotations_field = anno._ANNO_FIELD  # pylint: disable=protected-access
    origin_key = anno.Basic.ORIGIN
    plans = _IN_PLACE
    gast_of_shared = _GAST_OF_SHARED
    gast_name = gast.Name
    shifted = bool(line_shift or col_shift)
    census = Census(root.__class__ in _AST_FUNCTIONS)
    note = census.note
    census_complete = True  # False once a subtree is converted by gast (not recorded)
    blocks = 0  # the ifs and loops the node being converted is in
    # Nodes next to each other in the walk often start at the same place (a call, its
    # function, the name the function is read from): they share one origin (an immutable
    # tuple), made once.
    last_lineno = last_column = last_name = last_origin = None

    def shift(fields):
        fields["lineno"] += line_shift
        fields["col_offset"] = max(fields["col_offset"] + col_shift, 0)
        if fields.get("end_lineno") is not None:
            fields["end_lineno"] += line_shift
            fields["end_col_offset"] = max(fields["end_col_offset"] + col_shift, 0)

    def new_origin(lineno, column, function_name):
        nonlocal last_lineno, last_column, last_name, last_origin
        last_lineno, last_column, last_name = lineno, column, function_name
        last_origin = new_tuple(origin_class, (
            new_tuple(location_class, (filename, lineno + line_delta,
                                       column + context_col_offset)),
            function_name, source_lines[lineno - 1] if 0 < lineno <= line_count else None,
            get_comment(lineno)))
        return last_origin

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
        _copy_location(fields, new_fields)
        if shifted:
            shift(new_fields)
        new_fields[annotations_field] = {origin_key: new_origin(
            new_fields["lineno"], new_fields["col_offset"], function_name)}
        return new

    def convert(node, function_name):
        nonlocal last_lineno, last_column, last_name, last_origin, blocks
        try:
            target_class, steps, added, dropped, located, kind = plans[node.__class__]
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
            lineno = fields["lineno"]
            column = fields["col_offset"]
            if shifted:  # shift(fields), inlined: every node of a function taken from
                # its file's parse (_FileIndex.trees) is moved
                fields["lineno"] = lineno = lineno + line_shift
                column += col_shift
                fields["col_offset"] = column = column if column > 0 else 0
                end_lineno = fields.get("end_lineno")
                if end_lineno is not None:
                    fields["end_lineno"] = end_lineno + line_shift
                    end_column = fields["end_col_offset"] + col_shift
                    fields["end_col_offset"] = end_column if end_column > 0 else 0
            if lineno != last_lineno or column != last_column or function_name is not last_name:
                # new_origin(lineno, column, function_name), inlined (most nodes make one)
                last_lineno, last_column, last_name = lineno, column, function_name
                last_origin = new_tuple(origin_class, (
                    new_tuple(location_class, (filename, lineno + line_delta,
                                               column + context_col_offset)),
                    function_name,
                    source_lines[lineno - 1] if 0 < lineno <= line_count else None,
                    get_comment(lineno)))
            fields[annotations_field] = {origin_key: last_origin}
        if kind >= _BLOCK:
            blocks += 1
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
        if kind:  # recorded once its children are gast nodes
            if kind >= _BLOCK:
                blocks -= 1
            note(node, kind, blocks)
        return node

    def convert_other(node, function_name):
        nonlocal census_complete
        node_class = node.__class__
        if node_class is ast.arg:
            return convert_parameter(node, function_name)
        if node_class in _SHARED_AST_CLASSES:
            return new_node(gast_of_shared[node_class])
        census_complete = False
        if shifted:
            _shift_locations(node, line_shift, col_shift)
        new = gast.ast_to_gast(node)
        origin_info.resolve(new, source, filename, context_lineno, context_col_offset,
                            function_name)
        return new

    if root.__class__ in _AST_FUNCTIONS:
        root_name = root.name
    elif root.__class__ is ast.Lambda:
        root_name = "<lambda>"
    else:
        root_name = None
    converted = convert(root, root_name)
    if census_complete:
        anno.setanno(converted, anno.Basic.CENSUS, census)
    # The nested functions refer to each other through cells of this frame: emptied, the
    # cells no longer make a reference cycle, and are freed now (not by the collector).
    del convert, convert_other, convert_parameter, new_origin, shift
    return converted


def _gast_name_to_arg(name):
    source = name.__dict__
    annotation = source.get("annotation")
    new = ast.arg(source["id"], None if annotation is None else gast_to_ast(annotation),
                  source.get("type_comment"))
    _copy_location(source, new.__dict__)
    return new


# Expression contexts carry no data; ast.parse shares one instance of each as well.
_AST_CONTEXTS = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}



def _ast_unparse(tree):
    """ast.unparse of a tree that may hold generated nodes without positions (ast.unparse
    reads `lineno` of assignments, for type comments)."""
    return ast.unparse(ast.fix_missing_locations(tree))


# ast.unparse's f-string rules (Python 3.11's ast._Unparser.visit_JoinedStr), for the
# f-strings whose replacement fields hold plain names: those make no unparser (and no ast
# copy of the node), about a fifth of the cost.
_STRING_LITERAL = ast._Unparser()._str_literal_helper  # pylint: disable=protected-access
_ALL_QUOTES = ("'", '"', '"""', "'''")


def _fstring_inner(node, parts):
    """ast._Unparser._write_fstring_inner of a JoinedStr's value (or format spec) into
    `parts`; False where a replacement field holds more than a name."""
    node_class = node.__class__
    if node_class is gast.JoinedStr:
        for value in node.values:
            if not _fstring_inner(value, parts):
                return False
    elif node_class is gast.Constant and node.value.__class__ is str:
        parts.append(node.value.replace("{", "{{").replace("}", "}}"))
    elif node_class is gast.FormattedValue:
        value = node.value
        if value.__class__ is not gast.Name or value.annotation is not None:
            return False
        parts.append("{")
        parts.append(value.id)  # a name holds no backslash and does not start with "{"
        if node.conversion != -1:
            parts.append(f"!{chr(node.conversion)}")
        if node.format_spec is not None:
            parts.append(":")
            if not _fstring_inner(node.format_spec, parts):
                return False
        parts.append("}")
    else:
        return False
    return True


def _joined_str_source(node):
    """ast.unparse(gast_to_ast(node)) of a gast JoinedStr."""
    quote_types = list(_ALL_QUOTES)
    literals = []
    for value in node.values:
        parts = []
        if not _fstring_inner(value, parts):
            break
        literal, new_quote_types = _STRING_LITERAL(
            "".join(parts), quote_types=quote_types,
            escape_special_whitespace=value.__class__ is gast.Constant)
        if set(new_quote_types).isdisjoint(quote_types):
            break  # ast.unparse falls back to repr()
        literals.append(literal)
        quote_types = new_quote_types
    else:
        quote = quote_types[0]
        return f"f{quote}{''.join(literals)}{quote}"
    return _ast_unparse(gast_to_ast(node))

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


# ---------------------------------------------------------------------------
# Locating definitions in a source file.
# ---------------------------------------------------------------------------


class _Definition(NamedTuple):
    """Where a `def` or `lambda` sits in its file (1-based lines, byte columns)."""

    name: str  # '<lambda>' for lambdas
    lineno: int  # the `def`/`lambda` keyword line (not the decorator line)
    first_lineno: int  # what the code object reports as co_firstlineno
    col_offset: int
    end_lineno: int
    end_col_offset: int
    arg_names: tuple  # in code-object order: positional, keyword-only, *args, **kwargs
    nested_lambdas: int  # lambdas directly inside (not inside another lambda)


class _FileIndex:
    """The definitions of one source file, looked up by the line a code object starts on."""

    def __init__(self, lines, by_line, trees):
        self.lines = lines  # the linecache list this index was built from (checked by identity)
        self.by_line = by_line
        # (lineno, col_offset) -> the ast node of a def not inside another function, from
        # the parse that built this index, until a conversion takes it (each is handed out
        # once: it becomes that conversion's gast tree) or another file is indexed (see
        # _holding_trees). Converting several functions of a file then parses each of them
        # once, not twice.
        self.trees = trees

    def take_tree(self, definition):
        """The def's node from the index's parse, if nobody took it yet; else None."""
        with _index_lock:
            return self.trees.pop((definition.lineno, definition.col_offset), None)


_index_lock = threading.Lock()
_file_indexes = {}  # filename -> _FileIndex
# The index whose parse still holds untaken defs: only the file indexed last keeps them
# (they take about 20 times the memory of their source), so the memory held is bounded by
# one file's tree. Converting functions of one file in a row parses each of them once.
_holding_trees = None


def _arg_names(args):
    names = [a.arg for a in args.posonlyargs] + [a.arg for a in args.args]
    names += [a.arg for a in args.kwonlyargs]
    if args.vararg is not None:
        names.append(args.vararg.arg)
    if args.kwarg is not None:
        names.append(args.kwarg.arg)
    return tuple(names)


def _code_arg_names(code):
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & _CO_VARARGS) + bool(code.co_flags & _CO_VARKEYWORDS)
    return code.co_varnames[:count]


def _count_nested_lambdas(node):
    """Lambdas in `node` or below it that are not themselves inside another lambda."""
    count = 0
    stack = [node]
    while stack:
        child = stack.pop()
        if isinstance(child, ast.Lambda):
            count += 1
            continue
        stack.extend(ast.iter_child_nodes(child))
    return count


def _count_nested_lambda_codes(code):
    """Same as _count_nested_lambdas, on the compiled side (comprehensions are code objects)."""
    count = 0
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == "<lambda>":
                count += 1
            elif const.co_name.startswith("<"):  # <listcomp>, <genexpr>, ...
                count += _count_nested_lambda_codes(const)
    return count


def _build_index(tree):
    by_line = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            name = node.name
            nested = 0
        elif isinstance(node, ast.Lambda):
            first = node.lineno
            name = "<lambda>"
            nested = _count_nested_lambdas(node.body)
        else:
            continue
        definition = _Definition(
            name, node.lineno, first, node.col_offset, node.end_lineno, node.end_col_offset,
            _arg_names(node.args), nested)
        by_line.setdefault(first, []).append(definition)
    return by_line


def _outermost_functions(tree):
    """{(lineno, col_offset): node} of the defs in `tree` that are not inside a function
    or lambda (module functions and methods: their subtrees do not overlap)."""
    found = {}
    stack = [tree]
    while stack:
        for child in ast.iter_child_nodes(stack.pop()):
            if isinstance(child, _AST_FUNCTIONS):
                found[(child.lineno, child.col_offset)] = child
            elif isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                stack.append(child)  # defs are statements: expressions are not entered
    return found


def _file_index(filename, lines):
    """The index of `filename` for this exact `lines` list; None if the file does not parse."""
    index = _file_indexes.get(filename)
    if index is not None and index.lines is lines:
        return index
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    global _holding_trees
    index = _FileIndex(lines, _build_index(tree), _outermost_functions(tree))
    with _index_lock:
        if _holding_trees is not None:
            _holding_trees.trees = {}
        _holding_trees = index
        _file_indexes[filename] = index
    return index


# ---------------------------------------------------------------------------
# Source retrieval.
# ---------------------------------------------------------------------------


class EntitySource(NamedTuple):
    """A parsed entity together with where its source came from.

    `node`'s line numbers count from 1 at the first line of `source`; its column offsets
    are relative to `source`. Line `n` of `source` is line `lineno + n - 1` of `filename`,
    and a column `c` of `source` is column `c + col_offset` there.
    """

    node: object
    source: str
    filename: str
    lineno: int
    col_offset: int


def _describe(entity):
    name = getattr(entity, "__qualname__", None) or getattr(entity, "__name__", None)
    module = getattr(entity, "__module__", None)
    if name and module:
        return f"{module}.{name}"
    return name or repr(entity)


def _unwrap_entity(entity):
    """The plain function behind a bound method or a static/class method object."""
    if isinstance(entity, (staticmethod, classmethod)):
        entity = entity.__func__
    if inspect.ismethod(entity):
        entity = entity.__func__
    return entity


def _frozen_module_file(entity, filename):
    """The source file of a frozen standard library module ('<frozen posixpath>'), if any."""
    if not filename.startswith("<frozen "):
        return None
    module_globals = getattr(entity, "__globals__", None) or {}
    module_file = module_globals.get("__file__")
    if isinstance(module_file, str) and module_file.endswith(".py"):
        return module_file
    return None


def _source_lines(entity, code):
    filename = code.co_filename
    module_globals = getattr(entity, "__globals__", None)
    try:
        lines = linecache.getlines(filename, module_globals)
        if not lines:
            frozen_file = _frozen_module_file(entity, filename)
            if frozen_file is not None:
                filename = frozen_file
                lines = linecache.getlines(filename, module_globals)
    except Exception:  # a broken __loader__.get_source must not escape as a random error
        lines = []
    if not lines:
        if filename.startswith("<") and filename.endswith(">"):
            why = (f"it was defined in {filename!r} (an interactive session, exec or eval), "
                   "which keeps no source, and no source was registered for that name; "
                   "register it in linecache.cache, or define the function in a file")
        else:
            why = f"its source file {filename!r} cannot be read"
        raise errors.SourceNotFoundError(f"Cannot convert {_describe(entity)}: {why}.")
    return filename, lines


def _position_fits(definition, positions):
    start = (definition.lineno, definition.col_offset)
    end = (definition.end_lineno, definition.end_col_offset)
    for lineno, end_lineno, col, end_col in positions:
        if (lineno, col) < start or (end_lineno, end_col) > end:
            return False
    return True


def _code_positions(code):
    """Source spans of the code's instructions, without the zero-width bookkeeping ones."""
    spans = set()
    for lineno, end_lineno, col, end_col in code.co_positions():
        if lineno is None or col is None or end_lineno is None or end_col is None:
            continue
        if lineno == end_lineno and col == end_col:
            continue
        spans.add((lineno, end_lineno, col, end_col))
    return spans


def _pick_lambda(candidates, code, entity):
    """Chooses, among the lambdas starting on the code's first line, the one compiled to `code`."""
    if len(candidates) > 1:
        arg_names = _code_arg_names(code)
        same_args = [c for c in candidates if c.arg_names == arg_names]
        candidates = same_args or candidates  # private names are mangled in class bodies
    if len(candidates) > 1:
        nested = _count_nested_lambda_codes(code)
        same_nesting = [c for c in candidates if c.nested_lambdas == nested]
        candidates = same_nesting or candidates
    if len(candidates) > 1:
        positions = _code_positions(code)
        if not positions:
            raise errors.SourceNotFoundError(
                f"Cannot convert {_describe(entity)}: line {code.co_firstlineno} of "
                f"{code.co_filename} has {len(candidates)} lambdas that look alike, and Python "
                "recorded no column positions to tell them apart (-X no_debug_ranges?).")
        fitting = [c for c in candidates if _position_fits(c, positions)]
        # The innermost lambda whose span holds every instruction of the code.
        fitting.sort(key=lambda c: (c.end_lineno - c.lineno, c.end_col_offset - c.col_offset))
        candidates = fitting[:1] or candidates
    if len(candidates) != 1:
        return None
    return candidates[0]


def _find_definition(entity, code):
    filename, lines = _source_lines(entity, code)
    for attempt in range(2):
        index = _file_index(filename, lines)
        if index is None:
            return filename, lines, None
        candidates = [d for d in index.by_line.get(code.co_firstlineno, ())
                      if d.name == code.co_name]
        if code.co_name == "<lambda>":
            found = _pick_lambda(candidates, code, entity)
        else:
            found = candidates[0] if len(candidates) == 1 else None
        if found is not None or attempt:
            return filename, lines, found
        # The cached lines may be stale (file edited, module reloaded): reread once.
        linecache.checkcache(filename)
        filename, lines = _source_lines(entity, code)
    return filename, lines, None


def _common_indent(lines):
    margin = None
    for line in lines:
        stripped = line.lstrip(" \t")
        if not stripped.strip():
            continue
        indent = line[:len(line) - len(stripped)]
        if margin is None or len(indent) < len(margin):
            margin = indent
    return margin or ""


def _shift_locations(tree, line_delta, col_delta):
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


def _dedent_display(lines, margin):
    return "".join(line[len(margin):] if line.startswith(margin) else line for line in lines)


def _parse_function_lines(def_lines, shift=True):
    """Parses the lines of a (possibly indented) def without altering its string literals.

    Without `shift`, the locations of an indented def are left one line down and its
    indentation to the right (what _LOCATION_SHIFT gives back): the caller moves them."""
    first = def_lines[0]
    indent = first[:len(first) - len(first.lstrip(" \t"))]
    text = "".join(def_lines)
    if indent:
        # A wrapping block instead of dedenting: dedenting would change the value of
        # multi-line string literals.
        tree = ast.parse("if 1:\n" + text)
        node = tree.body[0].body[0]
        if shift:
            _shift_locations(node, -1, -len(indent))
    else:
        tree = ast.parse(text)
        node = tree.body[0]
    return node, indent


def _lambda_lines(lines, definition):
    selected = lines[definition.lineno - 1:definition.end_lineno]
    selected = [line.encode("utf-8") for line in selected]
    selected[-1] = selected[-1][:definition.end_col_offset]
    # Spaces keep the byte columns of the first line unchanged.
    selected[0] = b" " * definition.col_offset + selected[0][definition.col_offset:]
    return [line.decode("utf-8") for line in selected]


def _parse_lambda(lines, definition, shift=True):
    """(node, source, margin): without `shift`, the node's locations are one line down and
    `margin` to the right (the caller moves them)."""
    lambda_lines = _lambda_lines(lines, definition)
    margin = _common_indent(lambda_lines)
    tree = ast.parse("(\n" + "".join(lambda_lines) + "\n)", mode="eval")
    node = tree.body
    if not isinstance(node, ast.Lambda):
        raise errors.SourceNotFoundError("internal error: the located text is not a lambda")
    if shift:
        _shift_locations(node, -1, -len(margin))
    source = _dedent_display(lambda_lines, margin)
    return node, source, len(margin)


def _getblock_fallback(entity, code, filename, lines):
    """For files that do not parse as a whole: the def's lines found by tokenizing."""
    if code.co_name == "<lambda>":
        raise errors.SourceNotFoundError(
            f"Cannot convert {_describe(entity)}: the lambda's file {filename!r} does not parse "
            "as a whole, so the lambda cannot be located in it.")
    try:
        block = inspect.getblock(lines[code.co_firstlineno - 1:])
        node, _ = _parse_function_lines(block)
    except (SyntaxError, IndentationError, IndexError) as e:
        raise errors.SourceNotFoundError(
            f"Cannot convert {_describe(entity)}: its source at {filename}:"
            f"{code.co_firstlineno} could not be parsed ({e}).") from None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != code.co_name:
        raise errors.SourceNotFoundError(
            f"Cannot convert {_describe(entity)}: the source at {filename}:{code.co_firstlineno} "
            "does not define it (was the file changed after it was loaded?).")
    # The decorators are not part of the converted source.
    def_offset = node.lineno - 1
    return block[def_offset:], code.co_firstlineno + def_offset


def _function_source(entity, code, shift=True):
    """(node, source, filename, lineno, col_offset, (line delta, column delta) still to be
    applied to the node's locations: (0, 0) with `shift`)."""
    filename, lines, definition = _find_definition(entity, code)
    if definition is None:
        if code.co_name == "<lambda>" or _file_index(filename, lines) is not None:
            raise errors.SourceNotFoundError(
                f"Cannot convert {_describe(entity)}: no definition of {code.co_name!r} starts "
                f"at {filename}:{code.co_firstlineno} (was the file changed after it was "
                "loaded?).")
        def_lines, lineno = _getblock_fallback(entity, code, filename, lines)
    elif code.co_name == "<lambda>":
        node, source, margin = _parse_lambda(lines, definition, shift)
        pending = (0, 0) if shift else (-1, -margin)
        return node, source, filename, definition.lineno, margin, pending
    else:
        def_lines = lines[definition.lineno - 1:definition.end_lineno]
        lineno = definition.lineno
        index = _file_indexes.get(filename)
        node = None if index is None or index.lines is not lines else index.take_tree(
            definition)
        if node is not None:
            # The same text parsed as part of the file: only its locations differ (file
            # lines, and columns of the file, where the def may be indented).
            first = def_lines[0]
            indent = first[:len(first) - len(first.lstrip(" \t"))]
            node.decorator_list = []
            pending = (1 - lineno, -len(indent))
            if shift:
                _shift_locations(node, *pending)
                pending = (0, 0)
            return node, _dedent_display(def_lines, indent), filename, lineno, len(indent), pending
    node, indent = _parse_function_lines(def_lines, shift)
    node.decorator_list = []
    pending = (0, 0) if shift or not indent else (-1, -len(indent))
    return node, _dedent_display(def_lines, indent), filename, lineno, len(indent), pending


def _class_source(entity):
    try:
        def_lines, lineno = inspect.getsourcelines(entity)
        filename = inspect.getsourcefile(entity) or inspect.getfile(entity)
    except (OSError, TypeError) as e:
        raise errors.SourceNotFoundError(
            f"Cannot convert class {_describe(entity)}: its source is not available ({e})."
        ) from None
    # getsourcelines includes decorators; the ClassDef starts after them.
    node, indent = _parse_function_lines(def_lines)
    skipped = node.lineno - 1
    if skipped:
        def_lines = def_lines[skipped:]
        lineno += skipped
        node, indent = _parse_function_lines(def_lines)
    node.decorator_list = []
    return node, _dedent_display(def_lines, indent), filename, lineno, len(indent)


def _entity_source(node, source, filename, lineno, col, pending, annotate_origins):
    if annotate_origins:
        node = _ast_to_gast_with_origins(node, source, filename, lineno, col, *pending)
    else:
        if pending != (0, 0):
            _shift_locations(node, *pending)
        node = ast_to_gast(node)
    return EntitySource(node, source, filename, lineno, col)


def parse_entity_with_location(entity, future_features=(), annotate_origins=False):
    """Like parse_entity, also saying where the source sits in its file (an EntitySource).

    With `annotate_origins`, the nodes carry their anno.Basic.ORIGIN as if the result had
    been passed to origin_info.resolve(node, source, filename, lineno, col_offset).
    """
    del future_features  # Python 3.11's grammar does not depend on __future__ imports.
    target = _unwrap_entity(entity)
    if inspect.isclass(target):
        return _entity_source(*_class_source(target), (0, 0), annotate_origins)
    code = getattr(target, "__code__", None)
    if not isinstance(code, types.CodeType):
        if inspect.isbuiltin(target) or inspect.ismethoddescriptor(target) or isinstance(
                target, (types.WrapperDescriptorType, types.MethodWrapperType)):
            why = "it is a built-in (implemented in C), so it has no Python source"
        else:
            why = (f"it is of type {type(target).__name__!r}, not a Python function, method, "
                   "lambda or class")
        raise errors.SourceNotFoundError(f"Cannot convert {_describe(entity)}: {why}.")
    # Annotating, the conversion to gast also moves the locations of an indented def (no
    # walk of its own).
    return _entity_source(*_function_source(target, code, shift=not annotate_origins),
                          annotate_origins)


def parse_entity(entity, future_features=()):
    """Returns (node, source) for a function, method, lambda or class.

    The node is a gast FunctionDef/AsyncFunctionDef, Lambda or ClassDef with its decorators
    removed; `source` is the definition's text, dedented (for lambdas, just the lambda).
    Raises errors.SourceNotFoundError when no source can be found.
    """
    found = parse_entity_with_location(entity, future_features)
    return found.node, found.source


# ---------------------------------------------------------------------------
# Parsing source text.
# ---------------------------------------------------------------------------


def _dedent(src):
    lines = src.splitlines(keepends=True)
    for line in lines:
        if line.strip():
            if line[0] in " \t":
                return _dedent_display(lines, _common_indent(lines))
            break
    return src


def parse(src, preamble_len=0, single_node=True):
    """Parses Python source into gast statement nodes.

    Skips the first `preamble_len` statements. With `single_node`, exactly one statement
    must remain and it is returned; otherwise the list of statements is returned.
    """
    module = ast_to_gast(ast.parse(_dedent(src)))
    nodes = module.body[preamble_len:]
    if single_node:
        if len(nodes) != 1:
            raise ValueError(f"expected exactly one statement, found {len(nodes)}")
        return nodes[0]
    return nodes


def parse_expression(src):
    """Parses a Python expression into a gast expression node."""
    src = src.strip()
    return ast_to_gast(ast.parse(src, mode="eval").body)


# ---------------------------------------------------------------------------
# Unparsing.
# ---------------------------------------------------------------------------


class _FallbackUnparser(ast._Unparser):  # pylint: disable=protected-access
    """The standard library's unparser, indenting like the astor code around it."""

    def __init__(self, indent_with="    ", base_level=0, **kwargs):
        # ast._Unparser makes nested instances (for f-strings) with keyword arguments.
        super().__init__(**kwargs)
        self._indent_with = indent_with
        self._base_level = base_level

    def fill(self, text=""):
        self.maybe_newline()
        self.write(self._indent_with * (self._base_level + self._indent) + text)


class _SourceGenerator(astor.code_gen.SourceGenerator):
    """astor's generator, with `ast.unparse` for the nodes astor 0.8.1 gets wrong or lacks."""

    def _fallback_statement(self, node):
        unparser = _FallbackUnparser(self.indent_with, self.indentation)
        unparser.traverse(ast.fix_missing_locations(node))
        text = "".join(unparser._source)  # pylint: disable=protected-access
        self.statement(node, text[len(self.indent_with * self.indentation):])

    visit_Match = _fallback_statement
    visit_TryStar = _fallback_statement

    def visit_JoinedStr(self, node):
        # astor mishandles nested quotes, format specs and `=` in f-strings.
        self.write(_ast_unparse(node))

    def visit_arguments(self, node):
        if node.posonlyargs:
            # astor 0.8.1 misplaces defaults around `/`.
            self.write(_ast_unparse(node))
        else:
            super().visit_arguments(node)


def _join_source(result):
    return "".join(result)


def _register_gast_operators():
    """astor looks operator precedences and symbols up by node class: make its tables
    answer for the gast classes too (entries are only added; ast lookups are unchanged)."""
    op_util = astor.op_util
    for table in (op_util.precedence_data, op_util.symbol_data):
        for ast_class, value in list(table.items()):
            gast_class = getattr(gast, getattr(ast_class, "__name__", ""), None)
            if isinstance(gast_class, type) and gast_class is not ast_class:
                table.setdefault(gast_class, value)


_register_gast_operators()


_MARKED_STATEMENTS = (gast.stmt, gast.excepthandler)


class _GastSourceGenerator(_SourceGenerator):
    """_SourceGenerator reading gast trees directly (no gast -> ast copy first): gast's
    differences from ast are handled where astor would see them (parameters are Names
    in the Param context, and astor's own isinstance tests name ast classes). The text is
    the same as unparsing gast_to_ast of the tree."""

    # While writing, it records where statements and lambdas start (as indices into
    # `result`, turned into lines and columns at the end): a source map and the positions
    # of lambdas then need no parse of the generated text. `exact` turns False where that
    # record could differ from what parsing the text gives (statements written by the
    # ast.unparse fallback, strings spanning lines inside a statement).

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.statement_marks = []  # (statement node, result index where its text starts)
        self.lambda_marks = []  # (Call or None, Lambda node, start index, end index)
        self.exact = True
        self._lambda_calls = {}  # id(lambda argument) -> its Call
        self._expression_statement_value = None

    def newline(self, node=None, extra=0):
        super().newline(node, extra)
        if node is not None and isinstance(node, _MARKED_STATEMENTS):
            # The text starts after the pending line breaks and the indentation. A node in
            # two places of the tree (shared) is marked at each.
            self.statement_marks.append((node, len(self.result) + 2))

    def _fallback_statement(self, node):
        self.exact = False
        super()._fallback_statement(gast_to_ast(node))

    visit_Match = _fallback_statement
    visit_TryStar = _fallback_statement

    def visit_JoinedStr(self, node):
        text = _joined_str_source(node)
        if "\n" in text:
            self.exact = False
        self.write(text)

    def _handle_string_constant(self, node, value, is_joined=False):
        super()._handle_string_constant(node, value, is_joined)
        # A string spanning lines moves what follows it in its statement to later lines;
        # a statement that is just the string (a docstring) has nothing after it.
        if "\n" in self.result[-1] and node is not self._expression_statement_value:
            self.exact = False

    def visit_Expr(self, node):
        self._expression_statement_value = node.value
        super().visit_Expr(node)

    def visit_Call(self, node, len=len):
        for argument in node.args:
            if argument.__class__ is gast.Lambda:
                self._lambda_calls[id(argument)] = node
        super().visit_Call(node)

    def visit_Lambda(self, node):
        with self.delimit(node) as delimiters:
            astor.code_gen.set_precedence(delimiters.p, node.body)
            start = len(self.result)
            self.write("lambda ")
            self.visit_arguments(node.args)
            self.write(": ", node.body)
            end = len(self.result)
        self.lambda_marks.append((self._lambda_calls.get(id(node)), node, start, end))

    def visit_arguments(self, node):
        if node.posonlyargs:
            self.write(_ast_unparse(gast_to_ast(node)))
        else:
            astor.code_gen.SourceGenerator.visit_arguments(self, node)

    def visit_Name(self, node):
        self.write(node.id)
        # A parameter (astor's visit_arg).
        if node.annotation is not None and node.ctx.__class__ is gast.Param:
            self.write(": ", node.annotation)

    def visit_If(self, node):
        set_precedence = astor.code_gen.set_precedence
        set_precedence(node, node.test)
        self.statement(node, "if ", node.test, ":")
        self.body(node.body)
        while True:
            else_ = node.orelse
            if len(else_) == 1 and isinstance(else_[0], gast.If):
                node = else_[0]
                set_precedence(node, node.test)
                self.newline(node)
                self.write("elif ", node.test, ":")
                self.body(node.body)
            else:
                self.else_body(else_)
                break

    def visit_AnnAssign(self, node):
        set_precedence = astor.code_gen.set_precedence
        set_precedence(node, node.target, node.annotation)
        set_precedence(astor.op_util.Precedence.Comma, node.value)
        need_parens = isinstance(node.target, gast.Name) and not node.simple
        begin = "(" if need_parens else ""
        end = ")" if need_parens else ""
        self.statement(node, begin, node.target, end, ": ", node.annotation)
        self.conditional_write(" = ", node.value)

    def visit_BinOp(self, node):
        precedence = astor.op_util.Precedence
        op, left, right = node.op, node.left, node.right
        with self.delimit(node, op) as delimiters:
            is_pow = isinstance(op, gast.Pow)
            p = delimiters.p
            astor.code_gen.set_precedence((precedence.Pow + 1) if is_pow else p, left)
            astor.code_gen.set_precedence(precedence.PowRHS if is_pow else (p + 1), right)
            self.write(left, astor.op_util.get_op_symbol(op, " %s "), right)

    def visit_Slice(self, node):
        astor.code_gen.set_precedence(node, node.lower, node.upper, node.step)
        self.conditional_write(node.lower)
        self.write(":")
        self.conditional_write(node.upper)
        if node.step is not None:
            self.write(":")
            if not (isinstance(node.step, gast.Name) and node.step.id == "None"):
                self.visit(node.step)


# ---------------------------------------------------------------------------
# A fast unparser for generated modules.
# ---------------------------------------------------------------------------
# astor spends most of its time in generic machinery (a write() that type-tests every
# item, visitor lookup by name, a Delimit object and a `_pp` attribute per expression).
# _FastUnparser writes exactly what astor writes for a gast tree (the same rules,
# transcribed method by method from astor 0.8.1's code_gen, with the precedence passed as
# an argument instead of stored on the nodes), several times faster. Trees holding
# something it does not transcribe (match, except*, f-strings spanning lines, ...) raise
# _Unsupported and are written by _GastSourceGenerator instead. tests/pyct/test_parser.py
# compares the two on real code.


class _Unsupported(Exception):
    pass


_OP_PRECEDENCE = astor.op_util.precedence_data
_OP_SYMBOL = astor.op_util.symbol_data
_P = astor.op_util.Precedence
_HIGHEST = _P.highest
_COMMA = _P.Comma
_CALL_ONE_ARG = _P.call_one_arg
_EXPR = _P.Expr
_ASSIGN = _P.Assign
_POW = _P.Pow
_POW_RHS = _P.PowRHS
_COMPREHENSION_TARGET = _P.comprehension_target
_PRETTY_STRING = astor.code_gen.pretty_string


def _pretty_string(value, embedded, line_is_blank, current_line, unicode_literals):
    """astor's pretty_string(value, embedded, current_line(), unicode_literals) of a str,
    `line_is_blank` saying whether current_line() (the text before it on its line) is
    only whitespace. astor's work is skipped where its answer is plain:
    - after other text, a string without line breaks is its repr() unless the string is
      long (a repr of 20 characters or more), not embedded in an expression, and would
      make the line 100 characters or more (astor then tries the triple-quoted form);
    - on a line of its own (a docstring) astor writes the triple-quoted form when eval()
      of it gives the string back: it plainly does for ASCII without a backslash, double
      quote, carriage return or NUL (the characters its escaping changes or eval reads
      otherwise)."""
    if not line_is_blank:
        if "\n" not in value:
            text = repr(value)
            if embedded or len(text) < 20 or len(current_line()) + len(text) < 100:
                return text
    elif value.isascii() and not (
            "\\" in value or '"' in value or "\r" in value or "\0" in value):
        return '"""%s"""' % value
    return _PRETTY_STRING(value, embedded, current_line(), unicode_literals)


_NAME = gast.Name


class _FastUnparser:
    """Writes one top-level gast statement as astor does; records where statements and
    lambdas are as it writes them (no scan of the text afterwards): statement_lines, the
    line each statement starts on, and lambda_spans, [(Call or None, Lambda node, (line,
    end line, column, end column))] like UnparseRecord.call_lambdas (lines counted from the
    text's first line before run() strips it, columns in UTF-8 bytes). `exact` is False
    where those could differ from what parsing the text gives."""

    def __init__(self, indent_with):
        self.result = []
        self.indent_with = indent_with
        self.indentation = 0
        self.new_lines = 0
        self.colinfo = (0, 0)
        self.using_unicode_literals = False
        self.statement_lines = []  # (statement node, line its text starts on)
        self.line = 1  # the line being written: 1 + the line breaks written so far
        self.lambda_spans = []
        self.exact = True
        self._expression_statement_value = None
        self.write = self.result.append

    # -- output ---------------------------------------------------------------------

    def newline(self, extra=0):
        """astor's newline(): the line breaks are written by the next write (astor's
        write() of one string), here by `begin`."""
        if self.new_lines < 1 + extra:
            self.new_lines = 1 + extra

    def begin(self, node=None):
        """astor's newline(node), then the pending line breaks and the indentation. Every
        line starts here, at once (its text follows in the same writer, at the same
        indentation, as astor would write it): the rest of the text is appended with
        `write` (the list's append), without astor's per-string check (per-node cost).

        `node` is the statement starting on this line (astor marks a statement where its
        first line starts; a later line of it, such as `finally:`, passes none)."""
        new_lines = self.new_lines or 1
        self.line += new_lines
        if node is not None:
            self.statement_lines.append((node, self.line))
        result = self.result
        result.append("\n" * new_lines)
        self.colinfo = len(result), 0
        result.append(self.indent_with * self.indentation)
        self.new_lines = 0

    # -- statements -----------------------------------------------------------------

    def stmt(self, node):
        method = _STATEMENT_WRITERS.get(node.__class__)
        if method is None:
            raise _Unsupported(node.__class__.__name__)
        method(self, node)

    def body(self, statements):
        self.indentation += 1
        for statement in statements:  # stmt(statement), inlined
            method = _STATEMENT_WRITERS.get(statement.__class__)
            if method is None:
                raise _Unsupported(statement.__class__.__name__)
            method(self, statement)
        self.indentation -= 1

    def else_body(self, statements):
        if statements:
            self.begin()
            self.write("else:")
            self.body(statements)

    def statement(self, node, text):
        self.begin(node)
        self.write(text)

    def s_Assign(self, node):
        p = _OP_PRECEDENCE[node.__class__]
        self.begin(node)
        write = self.write
        for target in node.targets:
            if target.__class__ is _NAME and target.annotation is None:
                write(target.id)  # expr(target, p) of a name, inlined
            else:
                self.expr(target, p)
            write(" = ")
        self.expr(node.value, p)

    def s_AugAssign(self, node):
        p = _OP_PRECEDENCE[node.__class__]
        self.begin(node)
        self.expr(node.target, p)
        self.write(" %s= " % _OP_SYMBOL[node.op.__class__])
        self.expr(node.value, p)

    def s_AnnAssign(self, node):
        p = _OP_PRECEDENCE[node.__class__]
        need_parens = node.target.__class__ is gast.Name and not node.simple
        self.begin(node)
        if need_parens:
            self.write("(")
        self.expr(node.target, p)
        if need_parens:
            self.write(")")
        self.write(": ")
        self.expr(node.annotation, p)
        if node.value is not None:
            self.write(" = ")
            self.expr(node.value, _COMMA)

    def _aliases(self, names):
        for index, alias in enumerate(names):
            self.write(", " if index else "")
            self.write(alias.name)
            if alias.asname is not None:
                self.write(" as ")
                self.write(alias.asname)

    def s_ImportFrom(self, node):
        self.begin(node)
        self.write("from ")
        self.write(node.level * ".")
        self.write(node.module or "")
        self.write(" import ")
        self._aliases(node.names)
        if node.module == "__future__" and "unicode_literals" in (x.name for x in node.names):
            self.using_unicode_literals = True

    def s_Import(self, node):
        self.statement(node, "import ")
        self._aliases(node.names)

    def s_Expr(self, node):
        self._expression_statement_value = node.value
        self.begin(node)
        self.expr(node.value, _OP_PRECEDENCE[gast.Expr])

    def _decorators(self, node, extra):
        self.newline(extra=extra)
        for decorator in node.decorator_list:
            self.begin()
            self.write("@")
            self.expr(decorator, _HIGHEST)

    def s_FunctionDef(self, node):
        prefix = "async " if node.__class__ is gast.AsyncFunctionDef else ""
        self._decorators(node, 1 if self.indentation else 2)
        self.begin(node)
        self.write("%sdef %s" % (prefix, node.name))
        self.write("(")
        self.arguments(node.args)
        self.write(")")
        if node.returns is not None:
            self.write(" ->")
            self.expr(node.returns, _HIGHEST)
        self.write(":")
        self.body(node.body)
        if not self.indentation:
            self.newline(extra=2)

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, node):
        have_args = False

        def paren_or_comma():
            nonlocal have_args
            if have_args:
                self.write(", ")
            else:
                have_args = True
                self.write("(")

        self._decorators(node, 2)
        self.statement(node, "class %s" % node.name)
        for base in node.bases:
            paren_or_comma()
            self.expr(base, _HIGHEST)
        for keyword in node.keywords:
            paren_or_comma()
            self.write(keyword.arg or "")
            self.write("=" if keyword.arg else "**")
            self.expr(keyword.value, _HIGHEST)
        self.write("):" if have_args else ":")
        self.body(node.body)
        if not self.indentation:
            self.newline(extra=2)

    def s_If(self, node):
        p = _OP_PRECEDENCE[gast.If]
        self.begin(node)
        self.write("if ")
        self.expr(node.test, p)
        self.write(":")
        self.body(node.body)
        while True:
            else_ = node.orelse
            if len(else_) == 1 and else_[0].__class__ is gast.If:
                node = else_[0]
                self.begin(node)
                self.write("elif ")
                self.expr(node.test, p)
                self.write(":")
                self.body(node.body)
            else:
                self.else_body(else_)
                break

    def s_For(self, node):
        prefix = "async " if node.__class__ is gast.AsyncFor else ""
        self.begin(node)
        self.write("%sfor " % prefix)
        self.expr(node.target, _OP_PRECEDENCE[node.__class__])
        self.write(" in ")
        self.expr(node.iter, _HIGHEST)
        self.write(":")
        self.body(node.body)
        self.else_body(node.orelse)

    s_AsyncFor = s_For

    def s_While(self, node):
        self.begin(node)
        self.write("while ")
        self.expr(node.test, _OP_PRECEDENCE[gast.While])
        self.write(":")
        self.body(node.body)
        self.else_body(node.orelse)

    def s_With(self, node):
        prefix = "async " if node.__class__ is gast.AsyncWith else ""
        self.statement(node, "%swith " % prefix)
        for index, item in enumerate(node.items):
            self.write(", " if index else "")
            self.expr(item.context_expr, _HIGHEST)
            if item.optional_vars is not None:
                self.write(" as ")
                self.expr(item.optional_vars, _HIGHEST)
        self.write(":")
        self.body(node.body)

    s_AsyncWith = s_With

    def s_Pass(self, node):
        self.statement(node, "pass")

    def s_Break(self, node):
        self.statement(node, "break")

    def s_Continue(self, node):
        self.statement(node, "continue")

    def s_Delete(self, node):
        self.statement(node, "del ")
        for index, target in enumerate(node.targets):
            self.write(", " if index else "")
            self.expr(target, _COMMA)

    def s_Try(self, node):
        self.statement(node, "try:")
        self.body(node.body)
        for handler in node.handlers:
            self.s_ExceptHandler(handler)
        self.else_body(node.orelse)
        if node.finalbody:
            self.begin()  # astor marks the statement once, at `try:`
            self.write("finally:")
            self.body(node.finalbody)

    def s_ExceptHandler(self, node):
        self.statement(node, "except")
        if node.type is not None:
            self.write(" ")
            self.expr(node.type, _HIGHEST)
            if node.name is not None:
                self.write(" as ")
                self.expr(node.name, _HIGHEST)
        self.write(":")
        self.body(node.body)

    def s_Assert(self, node):
        p = _OP_PRECEDENCE[gast.Assert]
        self.statement(node, "assert ")
        self.expr(node.test, p)
        if node.msg is not None:
            self.write(", ")
            self.expr(node.msg, p)

    def s_Global(self, node):
        self.statement(node, "global ")
        self.write(", ".join(node.names))

    def s_Nonlocal(self, node):
        self.statement(node, "nonlocal ")
        self.write(", ".join(node.names))

    def s_Return(self, node):
        self.statement(node, "return")
        if node.value is not None:
            self.write(" ")
            self.expr(node.value, _OP_PRECEDENCE[gast.Return])

    def s_Raise(self, node):
        self.statement(node, "raise")
        if node.exc is not None:
            self.write(" ")
            self.expr(node.exc, _HIGHEST)
            if node.cause is not None:
                self.write(" from ")
                self.expr(node.cause, _HIGHEST)

    # -- expressions: `pp` is the precedence astor's parent would have set ------------
    # (a node whose own precedence is below it is parenthesized).

    def expr(self, node, pp):
        node_class = node.__class__
        if node_class is _NAME and node.annotation is None:
            self.write(node.id)  # e_Name, for the commonest node (no call)
            return
        try:
            method = _EXPRESSION_WRITERS[node_class]
        except KeyError:
            raise _Unsupported(node_class.__name__) from None
        method(self, node, pp)

    def e_Name(self, node, pp):
        self.write(node.id)
        if node.annotation is not None and node.ctx.__class__ is gast.Param:
            self.write(": ")
            self.expr(node.annotation, _HIGHEST)

    def e_Attribute(self, node, pp):
        value = node.value
        if value.__class__ is _NAME and value.annotation is None:
            self.write(value.id)  # expr(value, _HIGHEST) of a name (`ag__.`), inlined
        else:
            self.expr(value, _HIGHEST)
        self.write(".")
        self.write(node.attr)

    def e_Call(self, node, pp):
        args = node.args
        keywords = node.keywords
        p = _COMMA if len(args) + len(keywords) > 1 else _CALL_ONE_ARG
        write = self.write
        expr = self.expr
        expr(node.func, _HIGHEST)
        write("(")
        want_comma = False
        lambda_arguments = self._lambda_arguments
        for arg in args:
            if want_comma:
                write(", ")
            want_comma = True
            arg_class = arg.__class__
            if arg_class is _NAME and arg.annotation is None:
                write(arg.id)  # expr(arg, p) of a name, inlined
                continue
            if arg_class is gast.Lambda:
                lambda_arguments[id(arg)] = node
            expr(arg, p)
        for keyword in keywords:
            if want_comma:
                write(", ")
            want_comma = True
            arg = keyword.arg or ""
            write(arg)
            write("=" if arg else "**")
            expr(keyword.value, _COMMA)
        write(")")

    def e_Constant(self, node, pp):
        value = node.value
        value_class = value.__class__
        if value_class is str:  # the commonest kinds first, by their exact class
            self._string(node, value, pp)
        elif value is None:
            self.write("None")
        elif isinstance(value, (int, float, complex)):
            paren = _OP_PRECEDENCE[gast.Constant] < pp
            if paren:
                self.write("(")
            if value_class is int or value_class is bool:
                self.write(repr(value))  # _numeric(value) of a number that is never NaN
            else:
                self._numeric(value)
            if paren:
                self.write(")")
        elif isinstance(value, str):
            self._string(node, value, pp)
        elif value is Ellipsis:
            self.write("...")
        else:
            self.write(repr(value))

    def _numeric(self, value):
        text = _NUMERIC_REPRS.get(value.__class__)
        if text is not None and not (value != value or value in _INFINITIES):
            self.write(repr(value))
            return
        # Infinities, NaNs and complex numbers: astor's own spelling.
        generator = astor.code_gen.SourceGenerator("    ")
        generator._handle_numeric_constant(value)  # pylint: disable=protected-access
        self.write("".join(generator.result))

    def _current_line(self):
        """The text written so far on the line being written (astor's colinfo)."""
        res_index, str_index = self.colinfo
        current_line = "".join(self.result[res_index:])
        return current_line[str_index:] if str_index else current_line

    def _line_is_blank(self):
        """Whether _current_line() is only whitespace (looked at from its end: text
        written just before is what usually answers)."""
        res_index, str_index = self.colinfo
        result = self.result
        for index in range(len(result) - 1, res_index, -1):
            if result[index].strip():
                return False
        return not result[res_index][str_index:].strip() if result[res_index:] else True

    def _string(self, node, value, pp):
        embedded = (pp > _EXPR) + (pp >= _ASSIGN)
        result = self.result
        text = _pretty_string(value, embedded, self._line_is_blank(), self._current_line,
                              self.using_unicode_literals)
        kind = getattr(node, "kind", False)
        if kind:
            text = kind + text
        self.write(text)
        lf = text.rfind("\n") + 1
        if lf:
            self.line += text.count("\n")
            self.colinfo = len(result) - 1, lf
            if node is not self._expression_statement_value:
                self.exact = False

    def e_JoinedStr(self, node, pp):
        text = _joined_str_source(node)
        if "\n" in text:
            raise _Unsupported("an f-string spanning lines")
        self.write(text)

    def _comma_list(self, items, trailing=False):
        write = self.write
        for index, item in enumerate(items):
            write(", " if index else "")
            if item.__class__ is _NAME and item.annotation is None:
                write(item.id)  # expr(item, _COMMA) of a name, inlined
            else:
                self.expr(item, _COMMA)
        write("," if trailing else "")

    def e_Tuple(self, node, pp):
        elts = node.elts
        paren = not (_OP_PRECEDENCE[gast.Tuple] >= pp and elts)
        if paren:
            self.write("(")
        self._comma_list(elts, len(elts) == 1)
        if paren:
            self.write(")")

    def e_List(self, node, pp):
        self.write("[")
        self._comma_list(node.elts)
        self.result.append("]")

    def e_Set(self, node, pp):
        if node.elts:
            self.write("{")
            self._comma_list(node.elts)
            self.result.append("}")
        else:
            self.write("{1}.__class__()")

    def e_Dict(self, node, pp):
        self.write("{")
        for index, (key, value) in enumerate(zip(node.keys, node.values)):
            self.write(", " if index else "")
            if key is not None:
                self.expr(key, _HIGHEST)
                self.write(": ")
            else:
                self.write("**")
            self.expr(value, _COMMA)
        self.result.append("}")

    def e_BinOp(self, node, pp):
        op = node.op
        p = _OP_PRECEDENCE[op.__class__]
        paren = p < pp
        if paren:
            self.write("(")
        if op.__class__ is gast.Pow:
            self.expr(node.left, _POW + 1)
            self.write(" %s " % _OP_SYMBOL[op.__class__])
            self.expr(node.right, _POW_RHS)
        else:
            self.expr(node.left, p)
            self.write(" %s " % _OP_SYMBOL[op.__class__])
            self.expr(node.right, p + 1)
        if paren:
            self.write(")")

    def e_BoolOp(self, node, pp):
        op_class = node.op.__class__
        p = _OP_PRECEDENCE[op_class]
        paren = p < pp
        if paren:
            self.write("(")
        symbol = " %s " % _OP_SYMBOL[op_class]
        for index, value in enumerate(node.values):
            self.write(symbol if index else "")
            self.expr(value, p + 1)
        if paren:
            self.write(")")

    def e_Compare(self, node, pp):
        p = _OP_PRECEDENCE[node.ops[0].__class__]
        paren = p < pp
        if paren:
            self.write("(")
        left = node.left
        if left.__class__ is _NAME and left.annotation is None:
            self.write(left.id)  # expr(left, p + 1) of a name, inlined
        else:
            self.expr(left, p + 1)
        for op, right in zip(node.ops, node.comparators):
            self.write(" %s " % _OP_SYMBOL[op.__class__])
            self.expr(right, p + 1)
        if paren:
            self.write(")")

    def e_NamedExpr(self, node, pp):
        p = _OP_PRECEDENCE[gast.NamedExpr]
        paren = True
        self.write("(")
        self.expr(node.target, p)
        self.write(" := ")
        self.expr(node.value, p + 1)
        if paren:
            self.write(")")

    def e_UnaryOp(self, node, pp):
        op_class = node.op.__class__
        p = _OP_PRECEDENCE[op_class]
        paren = p < pp
        if paren:
            self.write("(")
        symbol = _OP_SYMBOL[op_class]
        self.write(symbol)
        self.write(" " if symbol.isalpha() else "")
        self.expr(node.operand, p)
        if paren:
            self.write(")")

    def e_Subscript(self, node, pp):
        self.expr(node.value, _HIGHEST)
        self.write("[")
        self.expr(node.slice, _OP_PRECEDENCE[gast.Subscript])
        self.write("]")

    def e_Slice(self, node, pp):
        p = _OP_PRECEDENCE[gast.Slice]
        if node.lower is not None:
            self.expr(node.lower, p)
        self.write(":")
        if node.upper is not None:
            self.expr(node.upper, p)
        step = node.step
        if step is not None:
            self.write(":")
            if not (step.__class__ is gast.Name and step.id == "None"):
                self.expr(step, p)

    def e_Yield(self, node, pp):
        p = _OP_PRECEDENCE[gast.Yield]
        paren = p < pp
        if paren:
            self.write("(")
        self.write("yield")
        if node.value is not None:
            self.write(" ")
            self.expr(node.value, p + 1)
        if paren:
            self.write(")")

    def e_YieldFrom(self, node, pp):
        paren = _OP_PRECEDENCE[gast.YieldFrom] < pp
        if paren:
            self.write("(")
        self.write("yield from ")
        self.expr(node.value, _HIGHEST)
        if paren:
            self.write(")")

    def e_Await(self, node, pp):
        paren = _OP_PRECEDENCE[gast.Await] < pp
        if paren:
            self.write("(")
        self.write("await ")
        self.expr(node.value, _HIGHEST)
        if paren:
            self.write(")")

    def e_Lambda(self, node, pp):
        p = _OP_PRECEDENCE[gast.Lambda]
        paren = p < pp
        if paren:
            self.write("(")
        line = self.line
        column = len(self._current_line().encode("utf-8"))
        self.write("lambda ")
        self.arguments(node.args)
        self.write(": ")
        self.expr(node.body, p)
        self.lambda_spans.append((self._lambda_arguments.get(id(node)), node, (
            line, self.line, column, len(self._current_line().encode("utf-8")))))
        if paren:
            self.write(")")

    def _generators(self, generators):
        for generator in generators:
            p = _OP_PRECEDENCE[gast.comprehension]
            self.write(" async for " if generator.is_async else " for ")
            self.expr(generator.target, _COMPREHENSION_TARGET)
            self.write(" in ")
            self.expr(generator.iter, p)
            for condition in generator.ifs:
                self.write(" if ")
                self.expr(condition, p)

    def e_ListComp(self, node, pp):
        self.write("[")
        self.expr(node.elt, _HIGHEST)
        self._generators(node.generators)
        self.result.append("]")

    def e_SetComp(self, node, pp):
        self.write("{")
        self.expr(node.elt, _HIGHEST)
        self._generators(node.generators)
        self.result.append("}")

    def e_DictComp(self, node, pp):
        self.write("{")
        self.expr(node.key, _HIGHEST)
        self.write(": ")
        self.expr(node.value, _HIGHEST)
        self._generators(node.generators)
        self.result.append("}")

    def e_GeneratorExp(self, node, pp):
        discard = _OP_PRECEDENCE[gast.GeneratorExp] >= pp or pp == _CALL_ONE_ARG
        paren = not discard
        if paren:
            self.write("(")
        self.expr(node.elt, _COMMA)
        self._generators(node.generators)
        if paren:
            self.write(")")

    def e_IfExp(self, node, pp):
        p = _OP_PRECEDENCE[gast.IfExp]
        paren = p < pp
        if paren:
            self.write("(")
        self.expr(node.body, p + 1)
        self.write(" if ")
        self.expr(node.test, p + 1)
        self.write(" else ")
        self.expr(node.orelse, p)
        if paren:
            self.write(")")

    def e_Starred(self, node, pp):
        self.write("*")
        self.expr(node.value, _HIGHEST)

    def arguments(self, node):
        if node.posonlyargs:
            text = ast.unparse(gast_to_ast(node))  # (an expression's parts only, as above)
            self.line += text.count("\n")  # default values may be strings spanning lines
            if "\n" in text or "lambda" in text:
                # Columns after it on its last line, and lambdas in it, are not recorded.
                self.exact = False
            self.write(text)
            return
        write = self.write
        want_comma = self._parameters(node.args, node.defaults, False)
        if node.vararg is not None:
            if want_comma:
                write(", ")
            want_comma = True
            write("*")
            self.expr(node.vararg, _HIGHEST)
        if node.kwonlyargs:
            if node.vararg is None:
                if want_comma:
                    write(", ")
                want_comma = True
                write("*")
            want_comma = self._parameters(node.kwonlyargs, node.kw_defaults, want_comma)
        if node.kwarg is not None:
            if want_comma:
                write(", ")
            write("**")
            self.expr(node.kwarg, _HIGHEST)

    def _parameters(self, args, defaults, want_comma):
        """Writes parameters with their defaults; returns whether a comma is due next."""
        write = self.write
        expr = self.expr
        padding = [None] * (len(args) - len(defaults))
        for arg, default in zip(args, padding + defaults):
            if want_comma:
                write(", ")
            want_comma = True
            expr(arg, _HIGHEST)
            if default is not None:
                write("=")
                expr(default, _COMMA)
        return want_comma

    _lambda_arguments = None

    def run(self, node):
        self._lambda_arguments = {}
        if isinstance(node, gast.stmt):
            self.stmt(node)
        else:
            self.expr(node, _COMMA)
        self.result.append("\n")
        if set(self.result[0]) == set("\n"):
            self.removed_lines = len(self.result[0])
            self.result[0] = ""

    removed_lines = 0  # line breaks run() took off the start (statement_lines count them)


_NUMERIC_REPRS = {int: True, float: True, bool: True}
_INFINITIES = (float("inf"), float("-inf"))
_STATEMENT_WRITERS = {
    getattr(gast, name[2:]): method for name, method in vars(_FastUnparser).items()
    if name.startswith("s_")}
_EXPRESSION_WRITERS = {
    getattr(gast, name[2:]): method for name, method in vars(_FastUnparser).items()
    if name.startswith("e_")}


class UnparseRecord:
    """Where things are in a text written by unparse_statements (1-based lines, columns in
    UTF-8 bytes, as the ast module counts them).

    statement_lines: [(statement node, line it starts on)], outer statements first;
    call_lambdas: [(Call node or None, Lambda node, (line, end line, column, end column))]
      for every lambda, with the call it is a positional argument of;
    exact: False when these could differ from what parsing the text gives (then parse it).
    """

    def __init__(self):
        self.statement_lines = []
        self.call_lambdas = []
        self.exact = True


def _positions(result, indices):
    """{index: (line, byte column)} of the start of result[index], for sorted `indices`."""
    positions = {}
    line = 1
    line_text = ""
    previous = 0
    join = "".join
    for index in indices:
        segment = join(result[previous:index])
        breaks = segment.count("\n")
        if breaks:
            line += breaks
            line_text = segment[segment.rfind("\n") + 1:]
        else:
            line_text += segment
        positions[index] = (line, line_text)
        previous = index
    return positions


def _record_positions(generator, record, first_line, text):
    """Records where `generator`'s statements and lambdas are; `text` is its result."""
    result = generator.result
    stripped = text.lstrip()
    leading = text[:len(text) - len(stripped)]
    if leading and not leading.endswith("\n"):
        record.exact = False  # the chunk's first line would lose its indentation
    line_shift = first_line - 1 - leading.count("\n")
    if not generator.exact:
        record.exact = False
    if isinstance(generator, _FastUnparser):
        # It counted lines and columns as it wrote them.
        if generator.line - generator.removed_lines != text.count("\n"):  # run() ends it
            record.exact = False  # some text with line breaks was not counted: parse it
        shift = line_shift - generator.removed_lines
        record.statement_lines.extend(
            [(node, line + shift) for node, line in generator.statement_lines])
        record.call_lambdas.extend(
            [(call, node, (line + shift, end_line + shift, column, end_column))
             for call, node, (line, end_line, column, end_column) in generator.lambda_spans])
        return
    wanted = set()
    for _, _, start, end in generator.lambda_marks:
        wanted.add(start)
        wanted.add(end)
    wanted.update(index for _, index in generator.statement_marks)
    positions = _positions(result, sorted(wanted))
    record.statement_lines.extend(
        [(node, positions[index][0] + line_shift) for node, index in generator.statement_marks])
    for call, node, start, end in generator.lambda_marks:
        line, line_text = positions[start]
        end_line, end_text = positions[end]
        record.call_lambdas.append((call, node, (
            line + line_shift, end_line + line_shift, len(line_text.encode("utf-8")),
            len(end_text.encode("utf-8")))))


def unparse_statements(nodes, indentation="    ", header="", record=None):
    """`header` followed by the source of a list of gast statements as `unparse` writes it,
    generated from the gast tree itself (faster: no ast copy). With `record` (an
    UnparseRecord), also says where statements and lambdas are in the result.

    The nodes keep astor's bookkeeping attributes (`_pp`): this is meant for trees that are
    unparsed once, as generated modules are; `unparse` is for everything else.
    """
    codes = [header + "# coding=utf-8"]
    line = codes[0].count("\n") + 2  # where the next chunk starts
    for n in nodes:
        if type(n) not in _GAST_TO_AST:
            code = unparse(n, indentation, include_encoding_marker=False).strip()
            if record is not None:
                record.exact = False
        else:
            try:
                generator = _FastUnparser(indentation)
                generator.run(n)
            except _Unsupported:
                if isinstance(n, ast.expr):
                    n._pp = astor.op_util.Precedence.Comma  # pylint: disable=protected-access
                # astor.to_source, keeping the generator for the record.
                generator = _GastSourceGenerator(
                    indentation, False, astor.code_gen.pretty_string)
                generator.visit(n)
                generator.result.append("\n")
                if set(generator.result[0]) == set("\n"):
                    generator.result[0] = ""
            code = "".join(generator.result)
            if record is not None:
                _record_positions(generator, record, line, code)
            code = code.strip()
        codes.append(code)
        line += code.count("\n") + 1
    return "\n".join(codes) + "\n"


def unparse(node, indentation="    ", include_encoding_marker=True):
    """Returns the source code of a gast or ast node, or of a list of them."""
    nodes = node if isinstance(node, (list, tuple)) else (node,)
    codes = ["# coding=utf-8"] if include_encoding_marker else []
    for n in nodes:
        if type(n) in _GAST_TO_AST:  # gast nodes; plain ast nodes are unparsed as they are
            n = gast_to_ast(n)
        if isinstance(n, ast.expr):
            # A lone expression: no parentheses around it, as if it were an argument.
            n._pp = astor.op_util.Precedence.Comma  # pylint: disable=protected-access
        code = astor.to_source(
            n, indent_with=indentation, pretty_source=_join_source,
            source_generator_class=_SourceGenerator)
        codes.append(code.strip())
    return "\n".join(codes) + "\n"
