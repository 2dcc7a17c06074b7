"""What converters share (core/converter.py): the names a function binds, and the Base
transformer's skipping of what it would leave unchanged."""

import textwrap

import gast

from autograph.core import converter, marks
from autograph.pyct import naming, transformer


def _function(source):
    return gast.parse(textwrap.dedent(source)).body[0]


_EVERY_BINDING = """
    def f(a, *args, k=1, **kw):
        global g
        x = y = 1
        (p, [q, *r]) = a
        s.attr, t[0] = 1, 2
        u += 1
        v: int
        w: int = 2
        del z
        for i, (j, m) in a:
            with open(i) as (h1, h2), open(j):
                import os.path, json as js
                from re import sub as rsub
        try:
            pass
        except ValueError as error:
            pass
        match a:
            case [1, *rest] | {"k": _, **others} if a:
                pass
            case Point(x=px, y=[py]) as pt:
                pass
        def inner(b=(lambda c: c)):
            hidden = 1
        class Local:
            hidden_too = 1
        squares = [n * n for n in a]
        return lambda e: e
"""


def test_own_bindings_are_the_names_the_function_itself_binds():
    assert converter.own_bindings(_function(_EVERY_BINDING)) == {
        "x", "y", "p", "q", "r", "u", "v", "w", "z", "i", "j", "m", "h1", "h2", "os", "js",
        "rsub", "error", "rest", "others", "px", "py", "pt", "inner", "Local", "squares"}


def test_own_bindings_without_walrus_walk_only_binding_places_and_agree():
    node = _function(_EVERY_BINDING)
    assert converter.own_bindings(node, walrus=False) == converter.own_bindings(node)


def test_walrus_binds_wherever_it_is():
    node = _function("""
        def f(a):
            print([y := v for v in a], (z := 2) + 1)
            if (w := a):
                pass
    """)
    assert converter.own_bindings(node) == {"y", "z", "w"}


class _Renamer(converter.Base):
    """Renames every name `a` to `b`: its visit must still reach every Name."""

    target_types = (gast.Name,)

    def visit_Name(self, node):
        if node.id == "a":
            node.id = "b"
        return node


class _StatementCounter(converter.Base):
    statements_only = True

    def visit_Pass(self, node):
        self.passes += 1
        return node


def _context():
    info = transformer.EntityInfo(name="f", source_code="", source_file="<test>",
                                  future_features=(), namespace={})
    return transformer.Context(info, naming.Namer({}), user_context=None)


def test_skipping_children_without_targets_still_reaches_every_target():
    node = _function("""
        def f(x):
            y = [x for x in range(3)] + [a.z(a[1], k=a) for _ in x]
            if y:
                return {a: 1}
    """)
    _Renamer(_context()).visit(node)
    assert "a" not in {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
    assert sum(1 for n in gast.walk(node)
               if isinstance(n, gast.Name) and n.id == "b") == 4


def test_relevance_counts_only_the_nodes_is_target_accepts():
    node = _function("""
        def f(x):
            y = -x
            return not x
    """)
    assign, ret = node.body
    is_not = lambda n: isinstance(n.op, gast.Not)  # noqa: E731
    relevant = marks.nodes_containing(node, (gast.UnaryOp,), is_target=is_not)
    assert id(ret) in relevant and id(ret.value) in relevant and id(node) in relevant
    assert id(assign) not in relevant and id(assign.value) not in relevant
    assert id(assign) in marks.nodes_containing(node, (gast.UnaryOp,))


def test_statements_only_converters_reach_nested_statements():
    node = _function("""
        def f(x):
            if x:
                pass
            try:
                pass
            except ValueError:
                pass
            with x:
                for i in x:
                    pass
    """)
    counter = _StatementCounter(_context())
    counter.passes = 0
    counter.visit(node)
    assert counter.passes == 4


def test_local_names_without_walrus_agree():
    node = _function(_EVERY_BINDING)
    expected = {"a", "args", "k", "kw"} | converter.own_bindings(node)
    assert converter.local_names(node) == expected
    assert converter.local_names(node, walrus=False) == expected
    assert "g" not in converter.LazyLocalNames(node, walrus=False)
    assert "squares" in converter.LazyLocalNames(node, walrus=False)


def test_only_a_source_with_walrus_may_hold_one():
    ctx = _context()
    assert not converter.may_hold_walrus(ctx)
    ctx.info = ctx.info._replace(source_code="def f(x):\n    return (y := x)\n")
    assert converter.may_hold_walrus(ctx)


# Statements in every kind of block (statements-only converters visit blocks only) ------

def _nested_statements(items, d):
    out = []
    for i in items:
        if i is None:
            continue
        try:
            for j in i:
                if j:
                    continue
                out.append(j)
        except ValueError:
            while d:
                x = out.pop()
                if x:
                    continue
                out.append(x)
        else:
            out.append(i)
        finally:
            d = out.pop(0)

        def inner(values):
            acc = []
            for v in values:
                if v:
                    continue
                acc.append(v)
            return acc
        match i:
            case [a]:
                for k in a:
                    continue
            case _:
                out.append(i)
    return out


def _parse_nested_statements():
    from autograph.pyct import parser
    return parser.parse_entity_with_location(_nested_statements, annotate_origins=True).node


def _program_context():
    info = transformer.EntityInfo(name="f", source_code="", source_file="<test>",
                                  future_features=(), namespace={})
    return transformer.Context(info, naming.Namer({}), user_context=converter.ProgramContext(
        converter.STANDARD_OPTIONS))


def test_statements_in_every_kind_of_block_are_converted():
    from autograph.converters import continue_statements, lists
    from autograph.pyct import anno
    parse = _parse_nested_statements

    lowered = continue_statements.transform(parse(), _program_context())
    assert not any(isinstance(n, gast.Continue) for n in gast.walk(lowered))
    assert "continue__2" in gast.dump(lowered)  # every loop lowered, innermost first

    # After continue lowering too (statements nested in the generated guards).
    for make in (parse, lambda: continue_statements.transform(parse(), _program_context())):
        converted = lists.transform(make(), _program_context())
        assert gast.dump(converted).count("list_append") == 5
        assert gast.dump(converted).count("list_pop") == 2
        rewritten = [n for n in gast.walk(converted) if isinstance(n, gast.Assign)
                     and isinstance(n.value, gast.Call)
                     and getattr(n.value.func, "attr", None) in ("list_append", "list_pop")]
        assert len(rewritten) == 7
        assert all(anno.hasanno(n, anno.Basic.ORIGIN) for n in rewritten)
