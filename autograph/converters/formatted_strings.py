"""f-strings and `'...' % x` on a literal become overload calls, so that a text holding
symbolic values is formatted when the graph runs (print, raise and assert take it):
`f"step {i}: {x:.3f}"` becomes `'step ' + ag__.format_('{}', i) + ': ' +
ag__.format_('{:.3f}', x)` (each value formatted right after it is computed, as Python
does, by str.format's rules, which are an f-string's), and `'bad %d' % i` becomes
`ag__.percent_format('bad %d', i)`. An f-string whose format spec holds a field with a
conversion or a spec of its own (which str.format cannot nest) stays as it is.
(`text.format(...)` is a call: converted_call routes it to its overload.)"""

import gast

from autograph.core import converter
from autograph.pyct import templates

_CONVERSIONS = {-1: "", ord("s"): "!s", ord("r"): "!r", ord("a"): "!a"}


def _escaped(text):
    return text.replace("{", "{{").replace("}", "}}")


def _field(part):
    """(the str.format template of the f-string field `part`, the expressions it formats:
    its value, then those of its spec), or None when str.format cannot express it."""
    conversion = _CONVERSIONS.get(part.conversion)
    if conversion is None:
        return None
    values = [part.value]
    spec = ""
    if part.format_spec is not None:
        pieces = [":"]
        for piece in part.format_spec.values:
            if isinstance(piece, gast.Constant):
                pieces.append(_escaped(piece.value))
            elif piece.conversion == -1 and piece.format_spec is None:
                pieces.append("{}")
                values.append(piece.value)
            else:
                return None
        spec = "".join(pieces)
    return "{%s%s}" % (conversion, spec), values


def is_percent_format(node):
    """`'...' % x`: a str literal on the left of %."""
    return (node.op.__class__ is gast.Mod and node.left.__class__ is gast.Constant
            and isinstance(node.left.value, str))


class FormattedStringTransformer(converter.Base):

    target_types = (gast.JoinedStr, gast.BinOp)

    def is_target(self, node):
        if node.__class__ is gast.BinOp:
            return is_percent_format(node)
        return any(isinstance(part, gast.FormattedValue) for part in node.values)

    def visit_JoinedStr(self, node):
        fields = [None if isinstance(part, gast.Constant) else _field(part)
                  for part in node.values]
        if any(field is None and not isinstance(part, gast.Constant)
               for field, part in zip(fields, node.values)):
            self._visit_values(node)
            return node
        terms = []
        for part, field in zip(node.values, fields):
            if field is None:
                terms.append(gast.Constant(value=part.value, kind=None))
                continue
            template, values = field
            terms.append(templates.replace_as_expression(
                "ag__.format_(text, values)", text=gast.Constant(value=template, kind=None),
                values=templates.moved([self.visit(value) for value in values])))
        # Left to right, as Python formats them.
        result = terms[0]
        for term in terms[1:]:
            result = gast.BinOp(left=result, op=gast.Add(), right=term)
        return result

    def _visit_values(self, joined):
        """Visits the expressions of an f-string left as it is (its format specs are parts
        of it, not f-strings of their own)."""
        for part in joined.values:
            if isinstance(part, gast.FormattedValue):
                part.value = self.visit(part.value)
                if part.format_spec is not None:
                    self._visit_values(part.format_spec)

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        if not is_percent_format(node):
            return node
        return templates.replace_as_expression(
            "ag__.percent_format(text, args)", text=templates.moved(node.left),
            args=templates.moved(node.right))


def transform(node, ctx):
    return FormattedStringTransformer(ctx).visit(node)
