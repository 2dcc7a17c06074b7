"""Parsing live Python entities (functions, lambdas, methods, classes) into gast ASTs,
and unparsing ASTs back to source (astor, with `ast.unparse` for what astor lacks).
"""

import ast
import inspect
import linecache
import threading
import types
from typing import NamedTuple

import astor
import gast

from autograph.pyct import errors

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


def _gast_name_to_arg(name):
    source = name.__dict__
    annotation = source.get("annotation")
    new = ast.arg(source["id"], None if annotation is None else gast_to_ast(annotation),
                  source.get("type_comment"))
    _copy_location(source, new.__dict__)
    return new


# Expression contexts carry no data; ast.parse shares one instance of each as well.
_AST_CONTEXTS = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}


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

    def __init__(self, lines, by_line):
        self.lines = lines  # the linecache list this index was built from (checked by identity)
        self.by_line = by_line


_index_lock = threading.Lock()
_file_indexes = {}  # filename -> _FileIndex


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


def _file_index(filename, lines):
    """The index of `filename` for this exact `lines` list; None if the file does not parse."""
    index = _file_indexes.get(filename)
    if index is not None and index.lines is lines:
        return index
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    index = _FileIndex(lines, _build_index(tree))
    with _index_lock:
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


def _parse_function_lines(def_lines):
    """Parses the lines of a (possibly indented) def without altering its string literals."""
    first = def_lines[0]
    indent = first[:len(first) - len(first.lstrip(" \t"))]
    text = "".join(def_lines)
    if indent:
        # A wrapping block instead of dedenting: dedenting would change the value of
        # multi-line string literals.
        tree = ast.parse("if 1:\n" + text)
        node = tree.body[0].body[0]
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


def _parse_lambda(lines, definition):
    lambda_lines = _lambda_lines(lines, definition)
    margin = _common_indent(lambda_lines)
    tree = ast.parse("(\n" + "".join(lambda_lines) + "\n)", mode="eval")
    node = tree.body
    if not isinstance(node, ast.Lambda):
        raise errors.SourceNotFoundError("internal error: the located text is not a lambda")
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


def _function_source(entity, code):
    filename, lines, definition = _find_definition(entity, code)
    if definition is None:
        if code.co_name == "<lambda>" or _file_index(filename, lines) is not None:
            raise errors.SourceNotFoundError(
                f"Cannot convert {_describe(entity)}: no definition of {code.co_name!r} starts "
                f"at {filename}:{code.co_firstlineno} (was the file changed after it was "
                "loaded?).")
        def_lines, lineno = _getblock_fallback(entity, code, filename, lines)
    elif code.co_name == "<lambda>":
        node, source, margin = _parse_lambda(lines, definition)
        return node, source, filename, definition.lineno, margin
    else:
        def_lines = lines[definition.lineno - 1:definition.end_lineno]
        lineno = definition.lineno
    node, indent = _parse_function_lines(def_lines)
    node.decorator_list = []
    return node, _dedent_display(def_lines, indent), filename, lineno, len(indent)


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


def parse_entity_with_location(entity, future_features=()):
    """Like parse_entity, also saying where the source sits in its file (an EntitySource)."""
    del future_features  # Python 3.11's grammar does not depend on __future__ imports.
    target = _unwrap_entity(entity)
    if inspect.isclass(target):
        node, source, filename, lineno, col = _class_source(target)
        return EntitySource(ast_to_gast(node), source, filename, lineno, col)
    code = getattr(target, "__code__", None)
    if not isinstance(code, types.CodeType):
        if inspect.isbuiltin(target) or inspect.ismethoddescriptor(target) or isinstance(
                target, (types.WrapperDescriptorType, types.MethodWrapperType)):
            why = "it is a built-in (implemented in C), so it has no Python source"
        else:
            why = (f"it is of type {type(target).__name__!r}, not a Python function, method, "
                   "lambda or class")
        raise errors.SourceNotFoundError(f"Cannot convert {_describe(entity)}: {why}.")
    node, source, filename, lineno, col = _function_source(target, code)
    return EntitySource(ast_to_gast(node), source, filename, lineno, col)


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
        unparser.traverse(node)
        text = "".join(unparser._source)  # pylint: disable=protected-access
        self.statement(node, text[len(self.indent_with * self.indentation):])

    visit_Match = _fallback_statement
    visit_TryStar = _fallback_statement

    def visit_JoinedStr(self, node):
        # astor mishandles nested quotes, format specs and `=` in f-strings.
        self.write(ast.unparse(node))

    def visit_arguments(self, node):
        if node.posonlyargs:
            # astor 0.8.1 misplaces defaults around `/`.
            self.write(ast.unparse(node))
        else:
            super().visit_arguments(node)


def _join_source(result):
    return "".join(result)


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
