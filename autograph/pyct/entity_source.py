"""Finding the source of live entities (functions, methods, lambdas, classes): the file,
the definition in it (indexed per file, by the line its code object starts on), its text,
and its ast tree, with where that text sits in the file.
"""

import ast
import inspect
import linecache
import threading
import types
from typing import NamedTuple

from autograph.pyct import errors

_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS
_AST_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


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


class FoundSource(NamedTuple):
    """The source of an entity: its ast node, its text, and where that text sits.

    Line `n` of `source` is line `lineno + n - 1` of `filename`, and a column `c` of
    `source` is column `c + col_offset` there. The node's locations, moved by `shift` (line
    delta, column delta), count from 1 at the first line of `source`, with columns
    relative to `source` (gast_bridge.ast_to_gast moves them while converting the tree).
    """

    node: ast.AST
    source: str
    filename: str
    lineno: int
    col_offset: int
    shift: tuple


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


def _dedent_display(lines, margin):
    return "".join(line[len(margin):] if line.startswith(margin) else line for line in lines)


def _parse_function_lines(def_lines):
    """(node, indent, shift): the node of the lines of a (possibly indented) def, parsed
    without altering its string literals. The locations of an indented def are one line
    down and its indentation to the right: `shift` moves them back."""
    first = def_lines[0]
    indent = first[:len(first) - len(first.lstrip(" \t"))]
    text = "".join(def_lines)
    if indent:
        # A wrapping block instead of dedenting: dedenting would change the value of
        # multi-line string literals.
        tree = ast.parse("if 1:\n" + text)
        return tree.body[0].body[0], indent, (-1, -len(indent))
    tree = ast.parse(text)
    return tree.body[0], indent, (0, 0)


def _lambda_lines(lines, definition):
    selected = lines[definition.lineno - 1:definition.end_lineno]
    selected = [line.encode("utf-8") for line in selected]
    selected[-1] = selected[-1][:definition.end_col_offset]
    # Spaces keep the byte columns of the first line unchanged.
    selected[0] = b" " * definition.col_offset + selected[0][definition.col_offset:]
    return [line.decode("utf-8") for line in selected]


def _parse_lambda(lines, definition):
    """(node, source, margin): the node's locations are one line down and `margin` to the
    right (the caller moves them)."""
    lambda_lines = _lambda_lines(lines, definition)
    margin = _common_indent(lambda_lines)
    tree = ast.parse("(\n" + "".join(lambda_lines) + "\n)", mode="eval")
    node = tree.body
    if not isinstance(node, ast.Lambda):
        raise errors.SourceNotFoundError("internal error: the located text is not a lambda")
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
        node, _, shift = _parse_function_lines(block)
    except (SyntaxError, IndentationError, IndexError) as e:
        raise errors.SourceNotFoundError(
            f"Cannot convert {_describe(entity)}: its source at {filename}:"
            f"{code.co_firstlineno} could not be parsed ({e}).") from None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != code.co_name:
        raise errors.SourceNotFoundError(
            f"Cannot convert {_describe(entity)}: the source at {filename}:{code.co_firstlineno} "
            "does not define it (was the file changed after it was loaded?).")
    # The decorators are not part of the converted source.
    def_offset = node.lineno + shift[0] - 1
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
        return FoundSource(node, source, filename, definition.lineno, margin, (-1, -margin))
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
            return FoundSource(node, _dedent_display(def_lines, indent), filename, lineno,
                               len(indent), (1 - lineno, -len(indent)))
    node, indent, shift = _parse_function_lines(def_lines)
    node.decorator_list = []
    return FoundSource(node, _dedent_display(def_lines, indent), filename, lineno, len(indent),
                       shift)


def _class_source(entity):
    try:
        def_lines, lineno = inspect.getsourcelines(entity)
        filename = inspect.getsourcefile(entity) or inspect.getfile(entity)
    except (OSError, TypeError) as e:
        raise errors.SourceNotFoundError(
            f"Cannot convert class {_describe(entity)}: its source is not available ({e})."
        ) from None
    # getsourcelines includes decorators; the ClassDef starts after them.
    node, indent, shift = _parse_function_lines(def_lines)
    skipped = node.lineno + shift[0] - 1
    if skipped:
        def_lines = def_lines[skipped:]
        lineno += skipped
        node, indent, shift = _parse_function_lines(def_lines)
    node.decorator_list = []
    return FoundSource(node, _dedent_display(def_lines, indent), filename, lineno, len(indent),
                       shift)


def find_source(entity):
    """The FoundSource of a function, method, lambda or class: its definition without
    decorators, as an ast FunctionDef/AsyncFunctionDef, Lambda or ClassDef. Raises
    errors.SourceNotFoundError when no source can be found."""
    target = _unwrap_entity(entity)
    if inspect.isclass(target):
        return _class_source(target)
    code = getattr(target, "__code__", None)
    if not isinstance(code, types.CodeType):
        if inspect.isbuiltin(target) or inspect.ismethoddescriptor(target) or isinstance(
                target, (types.WrapperDescriptorType, types.MethodWrapperType)):
            why = "it is a built-in (implemented in C), so it has no Python source"
        else:
            why = (f"it is of type {type(target).__name__!r}, not a Python function, method, "
                   "lambda or class")
        raise errors.SourceNotFoundError(f"Cannot convert {_describe(entity)}: {why}.")
    return _function_source(target, code)


def dedent(src):
    """`src` without the indentation all its lines share (string literals unchanged)."""
    lines = src.splitlines(keepends=True)
    for line in lines:
        if line.strip():
            if line[0] in " \t":
                return _dedent_display(lines, _common_indent(lines))
            break
    return src
