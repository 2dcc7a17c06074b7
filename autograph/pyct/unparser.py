"""Writing gast (or ast) trees back to source: unparse (astor, with `ast.unparse` for what
astor lacks), and unparse_statements for generated modules (fast_unparser, recording where
statements and lambdas went).
"""

import ast

import astor

from autograph.pyct import fast_unparser
from autograph.pyct import gast_bridge


def _ast_unparse(tree):
    """ast.unparse of a tree that may hold generated nodes without positions (ast.unparse
    reads `lineno` of assignments, for type comments)."""
    return ast.unparse(ast.fix_missing_locations(tree))


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


def unparse(node, indentation="    ", include_encoding_marker=True):
    """Returns the source code of a gast or ast node, or of a list of them."""
    nodes = node if isinstance(node, (list, tuple)) else (node,)
    codes = ["# coding=utf-8"] if include_encoding_marker else []
    for n in nodes:
        if gast_bridge.is_gast_node(n):  # plain ast nodes are unparsed as they are
            n = gast_bridge.gast_to_ast(n)
        if isinstance(n, ast.expr):
            # A lone expression: no parentheses around it, as if it were an argument.
            n._pp = astor.op_util.Precedence.Comma  # pylint: disable=protected-access
        code = astor.to_source(
            n, indent_with=indentation, pretty_source=_join_source,
            source_generator_class=_SourceGenerator)
        codes.append(code.strip())
    return "\n".join(codes) + "\n"


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


def unparse_statements(nodes, indentation="    ", header="", record=None):
    """`header` followed by the source of a list of gast statements as `unparse` writes it,
    written by fast_unparser where it can. With `record` (an UnparseRecord), also says
    where statements and lambdas are in the result.
    """
    codes = [header + "# coding=utf-8"]
    line = codes[0].count("\n") + 2  # where the next chunk starts
    for n in nodes:
        writer = None
        if gast_bridge.is_gast_node(n):
            writer = fast_unparser.FastUnparser(indentation)
            try:
                writer.run(n)
            except fast_unparser.Unsupported:
                writer = None
        if writer is None:
            code = unparse(n, indentation, include_encoding_marker=False).strip()
            if record is not None:
                record.exact = False  # nothing recorded: parse the text
        else:
            code = "".join(writer.result)
            if record is not None:
                writer.record_positions(record, line, code)
            code = code.strip()
        codes.append(code)
        line += code.count("\n") + 1
    return "\n".join(codes) + "\n"
