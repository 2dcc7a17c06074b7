"""f-strings and `'...' % x` on a literal become overload calls, so that a text holding
symbolic values is formatted when the graph runs (print, raise and assert take it):
`f"step {i}: {x:.3f}"` becomes `ag__.format_('step {}: {:.3f}', i, x)` (str.format's own
rules are an f-string's: the values and their conversions and specs, in order), and
`'bad %d' % i` becomes `ag__.percent_format('bad %d', i)`. An f-string whose format spec
holds a field with a conversion or a spec of its own (which str.format cannot nest) stays
as it is. (`text.format(...)` is a call: converted_call routes it to its overload.)"""

import gast

from autograph.core import converter
from autograph.pyct import templates

_CONVERSIONS = {-1: "", ord("s"): "!s", ord("r"): "!r", ord("a"): "!a"}


def _escaped(text):
    return text.replace("{", "{{").replace("}", "}}")


def _template(joined, values, nested=False):
    """The str.format template of the f-string `joined` (its values appended to
    `values`), or None when str.format cannot express it."""
    parts = []
    for part in joined.values:
        if isinstance(part, gast.Constant):
            parts.append(_escaped(part.value))
            continue
        conversion = _CONVERSIONS.get(part.conversion)
        if conversion is None or nested and (conversion or part.format_spec is not None):
            return None
        values.append(part.value)
        spec = ""
        if part.format_spec is not None:
            spec = _template(part.format_spec, values, nested=True)
            if spec is None:
                return None
            spec = ":" + spec
        parts.append("{%s%s}" % (conversion, spec))
    return "".join(parts)


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
        values = []
        template = _template(node, values)
        if template is None:
            self._visit_values(node)
            return node
        return templates.replace_as_expression(
            "ag__.format_(text, values)",
            text=gast.Constant(value=template, kind=None),
            values=templates.moved([self.visit(value) for value in values]))

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
