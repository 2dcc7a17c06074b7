"""`a if cond else b` runs as itself when `cond` is a Python value, and otherwise becomes
`ag__.if_exp(cond, lambda: a, lambda: b, 'a if cond else b')()` (the overload returns the
branch to run, so it adds no frame of its own):

    (a if v else b) if (v := cond) is True or v is False or ag__.type_(v) in ag__.PLAIN_TYPES
    else ag__.if_exp(v, lambda: a, lambda: b, 'a if cond else b')()

A condition whose value is certainly a Python bool (`x is y`) needs no test: the
expression stays as it is. The overload's branches keep the overload form (see
logical_expressions for where only that form is used)."""

import re

import gast

from autograph.converters import logical_expressions
from autograph.core import converter, marks
from autograph.pyct import templates, unparser


# Line breaks of str.splitlines other than \n (ast.get_source_segment splits on \r\n, \r
# and \n only).
_OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _split_lines(source):
    """The lines of `source` as ast.get_source_segment splits them (on \r\n, \r and \n
    only; it splits again, character by character, on every call)."""
    if not _OTHER_LINE_BREAKS.search(source):
        # Only \n: splitlines gives the same lines, about 25 times faster than the regex.
        return source.splitlines(True)
    lines = re.split(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", source)
    if lines and not lines[-1]:
        lines.pop()
    return lines


def _source_segment(lines, node):
    """ast.get_source_segment(source, node) for the pre-split `lines` of source."""
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    lineno = node.lineno - 1
    end_lineno = node.end_lineno - 1
    col_offset = node.col_offset
    end_col_offset = node.end_col_offset
    if end_lineno == lineno:
        return lines[lineno].encode()[col_offset:end_col_offset].decode()
    first = lines[lineno].encode()[col_offset:].decode()
    last = lines[end_lineno].encode()[:end_col_offset].decode()
    return "".join([first, *lines[lineno + 1:end_lineno], last])


class ConditionalExpressionTransformer(converter.Base):
    """The overload form only (`functional_depth` > 0) or the inline form too (see
    logical_expressions.InlineScopes, mixed in below)."""

    target_types = (gast.IfExp,)

    _source_lines = None

    def _source_of(self, node):
        """The user's own text of the expression (for messages), else its unparsed form."""
        try:
            if self._source_lines is None:
                self._source_lines = _split_lines(self.ctx.info.source_code)
            text = _source_segment(self._source_lines, node)
        except (AttributeError, TypeError, IndexError):
            text = None
        if text is None:
            text = unparser.unparse(node, include_encoding_marker=False).strip()
        return " ".join(text.split())

    def visit_IfExp(self, node):
        result = self._converted_if_exp(node)
        new_trees = self.__dict__.get("new_trees")
        if new_trees is not None and result is not node:
            new_trees.append(result)
        return result

    def is_target(self, node):
        return is_rewritten(node, self.walrus, self.generated)

    def _converted_if_exp(self, node):
        if not is_rewritten(node, self.walrus, self.generated):
            return self.generic_visit(node)
        # The parts of the replaced node, and the nodes made here, are moved into the
        # result, not copied.
        moved = templates.moved
        expr_repr = moved(gast.Constant(value=self._source_of(node), kind=None))
        template = "ag__.if_exp(test, lambda: true_value, lambda: false_value, expr_repr)()"
        if self.functional_depth:
            node = self.generic_visit(node)
            return templates.replace_as_expression(
                template, test=moved(node.test), true_value=moved(node.body),
                false_value=moved(node.orelse), expr_repr=expr_repr)
        body_graph = logical_expressions.functional_copy(self, node.body)
        orelse_graph = logical_expressions.functional_copy(self, node.orelse)
        # A copy drops the marks of the inline tests made for conditional expressions
        # nested in a branch (and/or conversion, which runs next, then converts those
        # tests too): such a branch is still copied, so that the code stays the same.
        relevant = self.relevant
        original_test, body, orelse = node.test, node.body, node.orelse
        node = self.generic_visit(node)
        true_value = node.body if id(body) in relevant else moved(node.body)
        false_value = node.orelse if id(orelse) in relevant else moved(node.orelse)
        test, read = self.python_test(node.test, move=id(original_test) not in relevant)
        return self.mark_inline_test(templates.replace_as_expression(
            "(true_value if read else false_value) if test else "
            "ag__.if_exp(read, lambda: true_graph, lambda: false_graph, expr_repr)()",
            true_value=true_value, false_value=false_value, read=read, test=moved(test),
            true_graph=moved(body_graph), false_graph=moved(orelse_graph),
            expr_repr=expr_repr))


def is_rewritten(node, walrus=True, generated=frozenset()):
    """True when ConditionalExpressionTransformer replaces the IfExp `node`, False when it
    leaves it as it is but for its parts (walrus=False: the tree holds no walrus operator
    of the user's; `generated`: the converters' temporaries, see
    logical_expressions.has_named_expr)."""
    has_named_expr = logical_expressions.has_named_expr
    return not (walrus and (has_named_expr(node.body, generated)
                            or has_named_expr(node.orelse, generated))
                or logical_expressions.is_python_valued(node.test))


def transform(node, ctx):
    if not ctx.user.options.uses(converter.Feature.CONDITIONAL_EXPRESSIONS):
        return node
    walrus = converter.may_hold_walrus(ctx)
    generated = ctx.namer.generated_names
    transformer = logical_expressions.inline_transformer(ConditionalExpressionTransformer,
                                                         ctx, walrus)
    # One walk finds what this converter and logical_expressions (which runs next) visit.
    relevant, logical_relevant = marks.nodes_containing_each(
        node, ConditionalExpressionTransformer.target_types,
        logical_expressions.LogicalExpressionTransformer.target_types,
        is_first=transformer.is_target,
        is_second=lambda n: logical_expressions.is_rewritten(n, walrus, False, generated))
    transformer.relevant = relevant
    if not transformer.has_targets(node):
        logical_expressions.hand_over_relevance(ctx, node, logical_relevant, walrus)
        return node
    transformer.new_trees = []
    result = transformer.visit(node)
    # What logical_expressions would find in the tree now: the nodes it found before,
    # those above a rewritten expression (they held an IfExp), and what holds its targets
    # in the new expressions (the nested ones were copied into the outer ones, and are
    # walked again there), or would in a copy of them (its functional copies of what
    # holds no target are not visited). A superset only makes it look at nodes it leaves
    # unchanged.
    logical_types = logical_expressions.LogicalExpressionTransformer.target_types
    # (The walruses of the inline forms made here bind temporaries: they do not count.)
    logical_relevant |= relevant
    for tree in transformer.new_trees:
        logical_relevant |= marks.nodes_containing(
            tree, logical_types,
            lambda n: logical_expressions.is_rewritten(n, walrus, True, generated))
    logical_expressions.hand_over_relevance(ctx, result, logical_relevant, walrus)
    return result
