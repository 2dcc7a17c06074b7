"""Formatting of texts as overloads: f-strings, `'...' % x`, str.format, and the builtins
str, repr and format. On Python values, Python's own formatting; while tracing, when an
argument holds a symbolic value, an rt.Text, formatted when the graph runs from the NumPy
values (what print, raise and assert take)."""

import runtime as rt


def format_(template, *args, **kwargs):
    """`template.format(*args, **kwargs)` (an f-string becomes one: `f"{x:.3f}"` is
    `format_("{:.3f}", x)`)."""
    if rt.current_graph() is None:
        return template.format(*args, **kwargs)
    return rt.format_text("format", template, args, kwargs)


def percent_format(template, args):
    """`template % args` for a str `template` (converted code only uses it on literals)."""
    if rt.current_graph() is None or type(template) is not str:
        return template % args
    return rt.format_text("%", template, args)


def str_(*args, **kwargs):
    """`str(x)` of converted code."""
    if len(args) == 1 and not kwargs and rt.current_graph() is not None:
        value = args[0]
        if type(value) is rt.Text:
            return value
        return rt.format_text("format", "{!s}", (value,))
    return str(*args, **kwargs)


def repr_(value):
    """`repr(x)` of converted code."""
    if rt.current_graph() is None:
        return repr(value)
    return rt.format_text("format", "{!r}", (value,))


def format_builtin(value, spec=""):
    """`format(x, spec)` of converted code."""
    if rt.current_graph() is None:
        return format(value, spec)
    return rt.format_text("format", "{:{}}", (value, spec))


# builtin -> overload (converted_call routes calls of these to them).
OVERLOADS = {str: str_, repr: repr_, format: format_builtin, str.format: format_}
