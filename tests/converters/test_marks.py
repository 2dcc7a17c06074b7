"""The marks converters leave for the converters after them (autograph/core/marks.py)."""

import gast

from autograph.converters import call_trees, control_flow
from autograph.core import converter, marks
from autograph.pyct import naming, parser, transformer


def _parsed(fn):
    return parser.parse_entity_with_location(fn, annotate_origins=True).node


def _context(fn):
    info = transformer.EntityInfo(name=fn.__name__, source_code="", source_file="<test>",
                                  future_features=(), namespace={})
    return transformer.Context(info, naming.Namer({}), user_context=converter.ProgramContext(
        converter.STANDARD_OPTIONS, entity=fn))


def _through_control_flow(fn):
    ctx = _context(fn)
    return control_flow.transform(call_trees.transform(_parsed(fn), ctx), ctx)


class _RenameNames(converter.Base):
    def visit_Name(self, node):
        node.id = node.id.upper()
        return node


def _with_left_alone_parts(a):
    b = a

    def nested():
        return a
    return b


def test_no_converter_enters_what_is_left_alone():
    node = _parsed(_with_left_alone_parts)
    skipped, nested = node.body[0], node.body[1]
    marks.leave_alone(skipped)
    marks.mark_unconvertible(nested)
    assert marks.is_left_alone(skipped) and marks.is_left_alone(nested)
    assert not marks.is_left_alone(node.body[2])
    _RenameNames(_context(_with_left_alone_parts)).visit(node)
    assert skipped.targets[0].id == "b" and nested.body[0].value.id == "a"
    assert node.body[2].value.id == "B"


def maybe_defined(x):
    if x > 0:
        y = x + 1
    return y


def always_defined(x):
    y = 0
    if x > 0:
        y = x + 1
    return y


def _graph_forms_and_python_form(node):
    graph_forms = next(s for s in node.body if isinstance(s, gast.FunctionDef))
    python_form = [s for s in node.body if s is not graph_forms]
    return ({id(n) for n in gast.walk(graph_forms)},
            {id(n) for s in python_form for n in gast.walk(s)})


def test_names_a_statement_may_leave_undefined_are_marked_and_not_shared():
    node = _through_control_flow(maybe_defined)
    assert marks.maybe_undefined(node) == {"y"}
    # variables rewrites the reads of `y` in place in the Python form only: the graph
    # forms have nodes of their own.
    graph_nodes, python_nodes = _graph_forms_and_python_form(node)
    assert not graph_nodes & python_nodes


def test_the_two_forms_share_what_holds_no_choice():
    node = _through_control_flow(always_defined)
    assert marks.maybe_undefined(node) == frozenset()
    graph_nodes, python_nodes = _graph_forms_and_python_form(node)
    shared = [n for n in gast.walk(node) if id(n) in graph_nodes & python_nodes]
    assert any(isinstance(n, gast.Assign) for n in shared)  # `y = x + 1`
    # Only what is marked as holding no choice (with what is below it) is shared.
    covered = {id(below) for n in shared if marks.holds_no_choice(n) for below in gast.walk(n)}
    assert all(id(n) in covered for n in shared)
