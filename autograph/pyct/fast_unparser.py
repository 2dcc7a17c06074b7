"""The writer of generated modules (unparser.unparse_statements): writes a gast statement
exactly as astor does (unparser.unparse), about five times faster, and records where
statements and lambdas went, so that the source map and the thunk lambdas need no parse of
the text. Measured on the typical function of tools/bench_conversion.py (full pipeline):
conversion takes about 40% less time than with unparser.unparse and a parse of the text
(median 4.0 ms instead of 6.7 ms; the unparse step 0.45 ms instead of 2.3 ms).

astor spends most of its time in generic machinery (a write() that type-tests every item,
visitor lookup by name, a Delimit object and a `_pp` attribute per expression). FastUnparser
follows the same rules, transcribed method by method from astor 0.8.1's code_gen, with the
precedence passed as an argument instead of stored on the nodes. Trees holding something
it does not transcribe (match, except*, f-strings spanning lines) raise Unsupported and are
written by unparser.unparse instead. tests/pyct/test_unparser.py checks that both write the
same text, on real code.
"""

import ast

import astor
import gast

from autograph.pyct import gast_bridge


class Unsupported(Exception):
    """The tree holds something FastUnparser does not write."""


def _by_gast_class(table):
    """One of astor's tables (keyed by ast node classes), keyed by the gast classes."""
    by_gast_class = {}
    for ast_class, value in table.items():
        gast_class = getattr(gast, getattr(ast_class, "__name__", ""), None)
        if isinstance(gast_class, type):
            by_gast_class[gast_class] = value
    return by_gast_class


_OP_PRECEDENCE = _by_gast_class(astor.op_util.precedence_data)
_OP_SYMBOL = _by_gast_class(astor.op_util.symbol_data)
_P = astor.op_util.Precedence
_HIGHEST = _P.highest
_COMMA = _P.Comma
_CALL_ONE_ARG = _P.call_one_arg
_EXPR = _P.Expr
_ASSIGN = _P.Assign
_POW = _P.Pow
_POW_RHS = _P.PowRHS
_COMPREHENSION_TARGET = _P.comprehension_target
_NAME = gast.Name


class FastUnparser:
    """Writes one top-level gast statement as astor does; records where statements and
    lambdas are as it writes them (no scan of the text afterwards): statement_lines, the
    line each statement starts on, and lambda_spans, [(Call or None, Lambda node, (line,
    end line, column, end column))] like unparser.UnparseRecord.call_lambdas (lines from the
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
            raise Unsupported(node.__class__.__name__)
        method(self, node)

    def body(self, statements):
        self.indentation += 1
        for statement in statements:
            self.stmt(statement)
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
            raise Unsupported(node_class.__name__) from None
        method(self, node, pp)

    def e_Name(self, node, pp):
        self.write(node.id)
        if node.annotation is not None and node.ctx.__class__ is gast.Param:
            self.write(": ")
            self.expr(node.annotation, _HIGHEST)

    def e_Attribute(self, node, pp):
        self.expr(node.value, _HIGHEST)
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
        for arg in args:
            if want_comma:
                write(", ")
            want_comma = True
            if arg.__class__ is gast.Lambda:
                self._lambda_arguments[id(arg)] = node
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
        if value.__class__ in _REAL_TYPES and not (value != value or value in _INFINITIES):
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

    def _string(self, node, value, pp):
        embedded = (pp > _EXPR) + (pp >= _ASSIGN)
        result = self.result
        text = astor.code_gen.pretty_string(value, embedded, self._current_line(),
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
        # astor mishandles f-strings: unparser.unparse writes them with ast.unparse too.
        text = ast.unparse(gast_bridge.gast_to_ast(node))
        if "\n" in text:
            raise Unsupported("an f-string spanning lines")
        self.write(text)

    def _comma_list(self, items, trailing=False):
        write = self.write
        for index, item in enumerate(items):
            write(", " if index else "")
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
        self.expr(node.left, p + 1)
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
            # (an expression's parts only, as above)
            text = ast.unparse(gast_bridge.gast_to_ast(node))
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

    def record_positions(self, record, first_line, text):
        """Adds where the statements and lambdas are to `record` (an
        unparser.UnparseRecord), `text` being what run() wrote (from line `first_line`)."""
        stripped = text.lstrip()
        leading = text[:len(text) - len(stripped)]
        if leading and not leading.endswith("\n"):
            record.exact = False  # the chunk's first line would lose its indentation
        if not self.exact or self.line - self.removed_lines != text.count("\n"):
            record.exact = False  # some text with line breaks was not counted: parse it
        shift = first_line - 1 - leading.count("\n") - self.removed_lines
        record.statement_lines.extend(
            [(node, line + shift) for node, line in self.statement_lines])
        record.call_lambdas.extend(
            [(call, node, (line + shift, end_line + shift, column, end_column))
             for call, node, (line, end_line, column, end_column) in self.lambda_spans])


_REAL_TYPES = frozenset({int, float, bool})
_INFINITIES = (float("inf"), float("-inf"))
_STATEMENT_WRITERS = {
    getattr(gast, name[2:]): method for name, method in vars(FastUnparser).items()
    if name.startswith("s_")}
_EXPRESSION_WRITERS = {
    getattr(gast, name[2:]): method for name, method in vars(FastUnparser).items()
    if name.startswith("e_")}
