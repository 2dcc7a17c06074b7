"""Where generated code came from: origin annotations on AST nodes, and maps from lines of
generated code back to the user's file, line and function (used to rewrite errors).
"""

import ast
import re
from typing import NamedTuple

import gast

from autograph.pyct import anno
from autograph.pyct import ast_util


class LineLocation(NamedTuple):
    """A line in a file; the key of source maps."""

    filename: str
    lineno: int


class Location(NamedTuple):
    """A position in a file: 1-based line, 0-based column."""

    filename: str
    lineno: int
    col_offset: int

    @property
    def line_loc(self):
        return LineLocation(self.filename, self.lineno)


class OriginInfo(NamedTuple):
    """Where a node came from in the user's code."""

    loc: Location
    function_name: str
    source_code_line: str
    comment: str  # the comment at the end of that line, without '#'; None if none

    def as_frame(self):
        """The origin as a traceback.extract_tb-style (filename, lineno, name, line) tuple."""
        return (self.loc.filename, self.loc.lineno, self.function_name, self.source_code_line)

    def __repr__(self):
        filename = self.loc.filename.rsplit("/", 1)[-1]
        return f"{filename}:{self.loc.lineno}:{self.loc.col_offset}"


# A string literal (any prefix; triple-quoted ones may span lines), a comment, or a quote
# that starts no complete string (a partial source, e.g. a lambda cut out of a longer line:
# nothing after it is reliable). Python 3.11 f-strings cannot hold a quote of their own kind
# or a `#` in their expressions, so they are strings like the others here.
_STRING_OR_COMMENT = re.compile(r"""
    (?P<string>
        [rRbBuUfF]{0,2}
        (?: \'\'\'(?:[^'\\]|\\[\s\S]|'(?!''))*\'\'\'
          | \"\"\"(?:[^"\\]|\\[\s\S]|"(?!""))*\"\"\"
          | '(?:[^'\\\n]|\\[\s\S])*'
          | "(?:[^"\\\n]|\\[\s\S])*" ))
  | (?P<comment>\#[^\r\n]*)
  | (?P<unclosed>['"])
""", re.VERBOSE)


def line_comments(source):
    """Maps line numbers of `source` to the comment text ending that line (what the
    tokenize module reports as COMMENT tokens, found by one regular expression scan:
    tokenizing in Python costs about as much as converting a small function)."""
    comments = {}
    if "#" not in source:
        return comments
    line = 1
    position = 0
    count = source.count
    for match in _STRING_OR_COMMENT.finditer(source):
        kind = match.lastgroup
        if kind == "comment":
            start = match.start()
            line += count("\n", position, start)
            position = start
            comments[line] = match.group()[1:].strip()
        elif kind == "unclosed":
            break
    return comments


_FUNCTION_NODES = (gast.FunctionDef, gast.AsyncFunctionDef, ast.FunctionDef, ast.AsyncFunctionDef)
_LAMBDA_NODES = (gast.Lambda, ast.Lambda)


def resolve(node, source, context_filepath, context_lineno, context_col_offset,
            function_name=None):
    """Annotates every node under `node` with anno.Basic.ORIGIN.

    `node` was parsed from `source`, whose line 1 is line `context_lineno` of
    `context_filepath` and whose columns are `context_col_offset` less than the file's
    (see parser.EntitySource). `function_name` is the function `node` itself is in (None:
    `node` is the function, or outside any).

    (gast_bridge.ast_to_gast(..., origins_from=...) annotates the tree it builds the same
    way, without a walk of its own.)
    """
    source_lines = source.splitlines()
    line_count = len(source_lines)
    comments = line_comments(source)
    outer_name = function_name
    if isinstance(node, _FUNCTION_NODES):
        outer_name = node.name
    elif isinstance(node, _LAMBDA_NODES):
        outer_name = "<lambda>"
    line_delta = context_lineno - 1
    # This runs on every node of every converted function: kept tight on purpose
    # (tuple.__new__ skips the NamedTuple constructor's argument handling).
    new_tuple = tuple.__new__
    setanno = anno.setanno
    origin_key = anno.Basic.ORIGIN
    # Expression contexts carry no location, so leaving them out changes nothing.
    iter_child_nodes = ast_util.child_nodes

    stack = [(node, outer_name)]
    pop = stack.pop
    push = stack.append
    while stack:
        n, function_name = pop()
        lineno = getattr(n, "lineno", None)
        if lineno is not None:
            code_line = source_lines[lineno - 1] if 0 < lineno <= line_count else None
            loc = new_tuple(Location, (context_filepath, lineno + line_delta,
                                       (n.col_offset or 0) + context_col_offset))
            setanno(n, origin_key, new_tuple(
                OriginInfo, (loc, function_name, code_line, comments.get(lineno))))
        if isinstance(n, _FUNCTION_NODES):
            # Decorators, defaults and annotations run in the enclosing function.
            for child in n.decorator_list:
                push((child, function_name))
            push((n.args, function_name))
            if n.returns is not None:
                push((n.returns, function_name))
            for child in n.body:
                push((child, n.name))
        elif isinstance(n, _LAMBDA_NODES):
            for child in iter_child_nodes(n.args):
                push((child, function_name))
            push((n.body, "<lambda>"))
        else:
            for child in iter_child_nodes(n):
                push((child, function_name))


_STATEMENT_LIST_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _parallel_pairs(generated, original):
    """Yields (generated_ast_node, original_node) pairs, walking both trees in step.

    `original` is the (gast or ast) tree that was unparsed; `generated` is the ast parsed
    back from the result. Subtrees whose shapes differ are skipped. Expressions are only
    entered in statements spanning several lines: elsewhere the statement already gives
    the line its origin.
    """
    stack = [(generated, original)]
    while stack:
        gen, orig = stack.pop()
        if type(gen).__name__ != type(orig).__name__ and not (
                isinstance(gen, ast.arg) and isinstance(orig, gast.Name)):
            continue
        yield gen, orig
        children = []
        if isinstance(gen, (ast.stmt, ast.excepthandler, ast.match_case)):
            first_child_line = None
            for field in _STATEMENT_LIST_FIELDS:
                gen_block = getattr(gen, field, None)
                orig_block = getattr(orig, field, None)
                if gen_block and orig_block and len(gen_block) == len(orig_block):
                    children.extend(zip(gen_block, orig_block))
                    if first_child_line is None:
                        first_child_line = getattr(gen_block[0], "lineno", None)
            header_end = gen.end_lineno if first_child_line is None else first_child_line - 1
            if header_end is None or header_end <= getattr(gen, "lineno", header_end):
                stack.extend(reversed(children))
                continue
        for field in gen._fields:
            if field in _STATEMENT_LIST_FIELDS:
                continue
            gen_value = getattr(gen, field, None)
            orig_value = getattr(orig, field, None)
            if isinstance(gen_value, ast.AST) and isinstance(orig_value, (ast.AST, gast.AST)):
                children.append((gen_value, orig_value))
            elif isinstance(gen_value, list) and isinstance(orig_value, list):
                if len(gen_value) == len(orig_value):
                    children.extend(
                        (g, o) for g, o in zip(gen_value, orig_value)
                        if isinstance(g, ast.AST) and isinstance(o, (ast.AST, gast.AST)))
        stack.extend(reversed(children))


def create_source_map(nodes, code, filepath, generated_tree=None):
    """Maps lines of generated `code` (written to `filepath`) to where they came from.

    `nodes` are the statements that were unparsed to produce `code`. Returns a dict
    {LineLocation(filepath, line): OriginInfo}; each generated line takes the origin of
    the outermost node starting on it that has one. `generated_tree`, if given, is
    `ast.parse(code)` (saves parsing it again).
    """
    if not isinstance(nodes, (list, tuple)):
        nodes = [nodes]
    generated = ast.parse(code) if generated_tree is None else generated_tree
    if len(generated.body) != len(nodes):
        raise ValueError(
            f"code has {len(generated.body)} top-level statements but {len(nodes)} nodes "
            "were given; pass the nodes that were unparsed into this code")
    source_map = {}
    for gen_stmt, orig_stmt in zip(generated.body, nodes):
        for gen, orig in _parallel_pairs(gen_stmt, orig_stmt):
            origin = anno.getanno(orig, anno.Basic.ORIGIN, None)
            if origin is None:
                continue
            lineno = getattr(gen, "lineno", None)
            if lineno is None:
                continue
            source_map.setdefault(LineLocation(filepath, lineno), origin)
    return source_map


def source_map_from_lines(statement_lines, filepath):
    """The source map create_source_map gives, from the lines the unparser recorded for
    each statement (unparser.UnparseRecord.statement_lines, when exact): a generated line
    takes the origin of the statement starting on it."""
    source_map = {}
    origin_key = anno.Basic.ORIGIN
    annotations_field = anno._ANNO_FIELD  # pylint: disable=protected-access
    new_tuple = tuple.__new__  # the NamedTuple constructor's argument handling costs more
    for node, line in statement_lines:
        annotations = node.__dict__.get(annotations_field)
        origin = annotations.get(origin_key) if annotations else None
        if origin is not None:
            source_map.setdefault(new_tuple(LineLocation, (filepath, line)), origin)
    return source_map
