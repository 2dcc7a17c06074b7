"""Reaching definitions on names, defined-on-every-path symbols, reaching local functions."""

import textwrap

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis import reaching_definitions
from autograph.pyct.static_analysis import reaching_fndefs

S = anno.Static


def _analyze(source):
    fn = gast.parse(textwrap.dedent(source)).body[0]
    activity.resolve(fn, None)
    graphs = cfg.build(fn)
    reaching_definitions.resolve(fn, None, graphs)
    reaching_fndefs.resolve(fn, None, graphs)
    return fn


def _loads(fn, name):
    return [n for n in gast.walk(fn)
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)]


def _defined_in(node):
    return {str(s) for s in anno.getanno(node, S.DEFINED_VARS_IN)}


def test_each_read_sees_the_assignments_that_reach_it():
    fn = _analyze("""
        def f(a, c):
            b = 1
            if c:
                b = 2
            return a + b
    """)
    first, branch, ret = fn.body
    (a_read,) = _loads(ret, "a")
    (b_read,) = _loads(ret, "b")
    (a_def,) = anno.getanno(a_read, S.DEFINITIONS)
    assert a_def.param_of is fn
    assert anno.getanno(fn.args.args[0], S.DEFINITIONS) == (a_def,)
    b_defs = anno.getanno(b_read, S.DEFINITIONS)
    assert {d.ast_node for d in b_defs} == {first, branch.body[0]}
    assert anno.getanno(first.targets[0], S.DEFINITIONS)[0] in b_defs


def test_defined_vars_in_requires_every_path():
    fn = _analyze("""
        def f(c):
            if c:
                x = 1
            else:
                x = 2
                y = 3
            while c:
                z = 1
            return x
    """)
    branch, loop, ret = fn.body
    assert _defined_in(branch) == {"c"}
    assert _defined_in(loop) == {"c", "x"}
    assert _defined_in(ret) == {"c", "x"}  # z: the loop may not run
    assert _defined_in(branch.orelse[1]) == {"c", "x"}


def test_loop_back_edges_do_not_count_as_defined_before_the_loop():
    fn = _analyze("""
        def f(n):
            while n:
                s = n
                n = n - 1
            return n
    """)
    loop = fn.body[0]
    assert _defined_in(loop) == {"n"}
    (n_read,) = _loads(loop.test, "n")
    assert len(anno.getanno(n_read, S.DEFINITIONS)) == 2  # parameter and n = n - 1


def test_del_undefines():
    fn = _analyze("""
        def f(x):
            del x
            return 1
    """)
    assert _defined_in(fn.body[1]) == set()


def test_composites_and_owners():
    fn = _analyze("""
        def f(o):
            o.a = 1
            p = 1
            o = g()
            return o
    """)
    assert _defined_in(fn.body[1]) == {"o", "o.a"}
    assert _defined_in(fn.body[3]) == {"o", "p"}


def test_closure_sees_definitions_of_the_enclosing_function():
    fn = _analyze("""
        def f():
            k = 1
            def g(a):
                return a + k
            return g
    """)
    inner = fn.body[1]
    (k_read,) = _loads(inner, "k")
    assert [d.ast_node for d in anno.getanno(k_read, S.DEFINITIONS)] == [fn.body[0]]
    assert _defined_in(inner.body[0]) == {"a", "k", "g"}


def test_local_of_nested_function_shadows_outer_definition():
    fn = _analyze("""
        def f():
            k = 1
            def g():
                if True:
                    pass
                k = 2
                return k
            return g
    """)
    assert "k" not in _defined_in(fn.body[1].body[0])


def test_comprehension_variables_get_no_outer_definitions():
    fn = _analyze("""
        def f(xs):
            x = 0
            return [x for x in xs], x
    """)
    reads = _loads(fn.body[1], "x")
    with_defs = [r for r in reads if anno.getanno(r, S.DEFINITIONS, None)]
    assert len(with_defs) == 1 and with_defs[0] is fn.body[1].value.elts[1]


def test_for_target_and_handler_names_are_definitions():
    fn = _analyze("""
        def f(xs):
            for i in xs:
                pass
            try:
                pass
            except ValueError as e:
                r = e
            return i
    """)
    (i_read,) = _loads(fn.body[2], "i")
    (i_def,) = anno.getanno(i_read, S.DEFINITIONS)
    assert i_def.ast_node is fn.body[0].target
    (e_read,) = _loads(fn.body[1], "e")
    (e_def,) = anno.getanno(e_read, S.DEFINITIONS)
    assert e_def.ast_node is fn.body[1].handlers[0]


def test_custom_definition_factory():
    class Tagged(reaching_definitions.Definition):
        pass

    fn = gast.parse("def f(a):\n    return a\n").body[0]
    activity.resolve(fn, None)
    reaching_definitions.resolve(fn, None, cfg.build(fn), Tagged)
    (a_read,) = _loads(fn, "a")
    assert isinstance(anno.getanno(a_read, S.DEFINITIONS)[0], Tagged)


def test_reaching_local_function_definitions():
    fn = _analyze("""
        def f(c):
            def g():
                return 1
            if c:
                def h():
                    return 2
            x = 1
            g = None
            return x
    """)
    g_def, branch, assign_x, rebind_g, ret = fn.body
    h_def = branch.body[0]
    assert anno.getanno(g_def, S.DEFINED_FNS_IN) == frozenset()
    assert anno.getanno(assign_x, S.DEFINED_FNS_IN) == {g_def, h_def}
    assert anno.getanno(ret, S.DEFINED_FNS_IN) == {h_def}
    # Closures see the local functions of their parent, and themselves.
    fn = _analyze("""
        def f():
            def helper():
                return 1
            def user():
                return helper()
            return user
    """)
    helper, user, _ = fn.body
    assert anno.getanno(user.body[0], S.DEFINED_FNS_IN) == {helper, user}


_DEFINED_VARS_CASES = [
    """
    def f(a, b):
        if a:
            x = 1
        else:
            del b
        while x:
            y = x
            if y:
                break
        else:
            z = 1
        return x, y, z
    """,
    """
    def f(items):
        total = 0
        for i, v in enumerate(items):
            try:
                w = v / i
            except ZeroDivisionError as e:
                continue
            finally:
                done = True
            total += w
        g = lambda k=total: k + i
        def inner(q):
            if q:
                r = q
            return r, total, [t for t in items if (s := t)]
        return inner, g
    """,
    """
    def f(obj, n):
        obj.a = 1
        match n:
            case 1:
                obj.b = obj.a
            case [m, *rest]:
                obj = m
        with open(n) as h:
            data = h.read()
        return obj.a, obj.b, data
    """,
]


def test_resolve_defined_vars_matches_full_reaching_definitions():
    # The cheap must-analysis the control-flow converter uses gives the same
    # DEFINED_VARS_IN as the full reaching-definitions analysis, statement by statement.
    for source in _DEFINED_VARS_CASES:
        full = _analyze(source)
        cheap = gast.parse(textwrap.dedent(source)).body[0]
        activity.resolve(cheap, None)
        reaching_definitions.resolve_defined_vars(cheap, cfg.build(cheap))
        full_sets = [anno.getanno(n, S.DEFINED_VARS_IN, None) for n in gast.walk(full)
                     if isinstance(n, gast.stmt)]
        cheap_sets = [anno.getanno(n, S.DEFINED_VARS_IN, None) for n in gast.walk(cheap)
                      if isinstance(n, gast.stmt)]
        assert cheap_sets == full_sets
        assert any(cheap_sets) and not any(
            anno.hasanno(n, S.DEFINITIONS) for n in gast.walk(cheap))


def test_defined_vars_of_the_statement_types_asked_for_only():
    source = textwrap.dedent("""
        def f(a, b):
            if a:
                c = 1
            for i in b:
                d = c
                if i:
                    del c
            while a:
                e = d
            return e
    """)
    everything = _analyze(source)
    some = gast.parse(source).body[0]
    activity.resolve(some, None)
    reaching_definitions.resolve_defined_vars(some, cfg.build(some),
                                              statement_types=(gast.If, gast.While))
    for full, partial in zip(gast.walk(everything), gast.walk(some)):
        if isinstance(partial, (gast.If, gast.While)):
            assert _defined_in(partial) == _defined_in(full)
        elif isinstance(partial, gast.stmt):
            assert not anno.hasanno(partial, S.DEFINED_VARS_IN)
