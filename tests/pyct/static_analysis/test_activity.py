"""Activity analysis: reads, modifications, bindings and declarations per scope."""

import textwrap
import types

import gast

from autograph.pyct import anno
from autograph.pyct import qual_names
from autograph.pyct.static_analysis import activity

S = anno.Static


def _ctx():
    # A stand-in for transformer.Context: activity needs nothing from it.
    return types.SimpleNamespace(info=types.SimpleNamespace(namespace={}))


def _analyze(source):
    node = gast.parse(textwrap.dedent(source)).body[0]
    activity.resolve(node, _ctx())
    return node


def _names(symbols):
    return {str(s) for s in symbols}


def test_classic_loop_body_reads_and_modifications():
    fn = _analyze("""
        def f(a, b):
            while a > 0:
                c = b * 2
                a = a - c
    """)
    loop = fn.body[0]
    body = anno.getanno(loop, S.BODY_SCOPE)
    cond = anno.getanno(loop, S.COND_SCOPE)
    assert _names(body.modified) == {"a", "c"}
    assert _names(body.read) == {"a", "b", "c"}
    assert _names(cond.read) == {"a"} and not cond.modified
    scope = anno.getanno(fn, S.SCOPE)
    assert _names(scope.params) == {"a", "b"}
    assert _names(scope.modified) == {"a", "c"}
    assert anno.getanno(fn, S.BODY_SCOPE) is scope
    assert anno.getanno(fn.args.args[0], S.IS_PARAM)


def test_function_name_and_decorators_belong_to_the_parent():
    outer = _analyze("""
        def outer(deco, d):
            @deco
            def inner(x=d):
                return x
    """)
    outer_scope = anno.getanno(outer, S.SCOPE)
    inner_scope = anno.getanno(outer.body[0], S.SCOPE)
    assert "inner" in _names(outer_scope.modified)
    assert {"deco", "d"} <= _names(outer_scope.read)
    assert _names(inner_scope.params) == {"x"}
    assert "x" not in _names(outer_scope.read)
    assert inner_scope.parent is outer_scope and inner_scope.isolated


def test_closure_reads_propagate_to_the_loop_that_defines_them():
    fn = _analyze("""
        def f(n):
            for i in range(n):
                y = i
                def g(z):
                    return y + z + i
                h = lambda: w
    """)
    body = anno.getanno(fn.body[0], S.BODY_SCOPE)
    assert {"y", "i", "w"} <= _names(body.read)
    assert "z" not in _names(body.read)
    assert {"g", "h", "y"} <= _names(body.modified)


def test_augmented_assignment_reads_and_modifies():
    fn = _analyze("""
        def f(x, self):
            x += 1
            self.a += 1
    """)
    scope = anno.getanno(fn, S.SCOPE)
    assert {"x", "self.a"} <= _names(scope.modified)
    assert {"x", "self", "self.a"} <= _names(scope.read)
    assert "self" not in _names(scope.modified)


def test_composite_mutations_are_recorded_and_queryable():
    fn = _analyze("""
        def f(d, k, v, o, e):
            d[k] = v
            o.x.y = 1
            e[k + 1] = 2
    """)
    scope = anno.getanno(fn, S.SCOPE)
    assert {"d[k]", "o.x.y"} <= _names(scope.modified)
    assert not {"d", "o", "e"} & _names(scope.modified)
    assert _names(scope.mutations_of("d")) == {"d[k]"}
    assert _names(scope.mutations_of("o")) == {"o.x.y"}
    assert scope.is_mutated("o.x") and scope.is_mutated("d") and scope.is_mutated("e")
    assert not scope.is_mutated("v")
    assert _names(scope.indirectly_modified) == {"e"}
    assert {"d", "k", "v", "o", "o.x", "e"} <= _names(scope.read)


def test_comprehensions_do_not_leak_but_walrus_does():
    fn = _analyze("""
        def f(xs, ys):
            a = [x for x in xs if x]
            b = {k: v for k, v in ys}
            c = [(last := y) for y in ys]
            d = [[(deep := z) for z in row] for row in xs]
    """)
    scope = anno.getanno(fn, S.SCOPE)
    assert not {"x", "k", "v", "y", "z", "row"} & _names(scope.modified)
    assert {"a", "b", "c", "d", "last", "deep"} <= _names(scope.modified)
    assert {"xs", "ys"} <= _names(scope.read)
    assert not {"x", "y", "z"} & _names(scope.read)
    comp = fn.body[0].value
    comp_scope = anno.getanno(comp, S.SCOPE)
    assert comp_scope.isolated and _names(comp_scope.bound) == {"x"}


def test_comprehension_first_iterable_is_read_outside():
    fn = _analyze("""
        def f(x):
            return [x for x in x]
    """)
    assert "x" in _names(anno.getanno(fn, S.SCOPE).read)


def test_walrus_in_condition():
    fn = _analyze("""
        def f(g):
            while (n := g()) > 0:
                pass
    """)
    cond = anno.getanno(fn.body[0], S.COND_SCOPE)
    assert _names(cond.modified) == {"n"} and _names(cond.read) == {"g"}


def test_global_and_nonlocal_declarations():
    fn = _analyze("""
        def f():
            x = 0
            def g():
                nonlocal x
                global y
                x = 1
                y = 2
    """)
    inner = anno.getanno(fn.body[1], S.SCOPE)
    assert _names(inner.nonlocals) == {"x"} and _names(inner.globals) == {"y"}
    assert _names(inner.modified) == {"x", "y"}
    assert not inner.local_names


def test_if_branches_get_their_own_scopes():
    fn = _analyze("""
        def f(c):
            if c > 0:
                x = 1
            else:
                y = 2
    """)
    node = fn.body[0]
    assert _names(anno.getanno(node, S.BODY_SCOPE).modified) == {"x"}
    assert _names(anno.getanno(node, S.ORELSE_SCOPE).modified) == {"y"}
    assert _names(anno.getanno(node, S.COND_SCOPE).read) == {"c"}
    assert {"x", "y"} <= _names(anno.getanno(fn, S.SCOPE).modified)


def test_for_iterate_scope_holds_target_and_iterable():
    fn = _analyze("""
        def f(xs):
            for i, (j, k) in enumerate(xs):
                s = i
            else:
                t = 1
    """)
    loop = fn.body[0]
    iterate = anno.getanno(loop, S.ITERATE_SCOPE)
    assert _names(iterate.modified) == {"i", "j", "k"}
    assert {"enumerate", "xs"} <= _names(iterate.read)
    assert _names(anno.getanno(loop, S.BODY_SCOPE).modified) == {"s"}
    assert _names(anno.getanno(loop, S.ORELSE_SCOPE).modified) == {"t"}


def test_call_arguments_scope():
    fn = _analyze("""
        def f(g, a, b):
            g(a, key=b)
    """)
    call = fn.body[0].value
    assert _names(anno.getanno(call, S.ARGS_SCOPE).read) == {"a", "b"}


def test_without_call_scopes_the_other_scopes_are_the_same():
    source = textwrap.dedent("""
        def f(g, a, b, xs):
            if g(a, key=b, fn=lambda y: y + a):
                c = g([w := x for x in xs], h(b, (d := a)))
            return c, d, w
    """)
    trees = [gast.parse(source).body[0] for _ in range(2)]
    activity.resolve(trees[0], _ctx())
    activity.resolve(trees[1], _ctx(), call_scopes=False)
    with_calls, without = trees
    scopes = []
    for fn in trees:
        branch = fn.body[0]
        scopes.append([anno.getanno(fn, S.BODY_SCOPE), anno.getanno(branch, S.COND_SCOPE),
                       anno.getanno(branch, S.BODY_SCOPE)])
    for kept, other in zip(*scopes):
        assert (_names(kept.read), _names(kept.modified), _names(kept.bound)) == (
            _names(other.read), _names(other.modified), _names(other.bound))
    assert _names(scopes[1][2].modified) == {"c", "d", "w"}
    assert anno.hasanno(with_calls.body[0].test, S.ARGS_SCOPE)
    assert not anno.hasanno(without.body[0].test, S.ARGS_SCOPE)


def test_binding_statements():
    fn = _analyze("""
        def f(m, cm, err):
            import os.path
            import numpy as np
            from collections import OrderedDict as od, deque
            with cm() as (w1, w2), cm():
                pass
            try:
                pass
            except err as e:
                pass
            class K(m):
                z = 1
            del m
            ann: int = 3
            only_annotated: SomeType
    """)
    scope = anno.getanno(fn, S.SCOPE)
    assert {"os", "np", "od", "deque", "w1", "w2", "e", "K", "m", "ann"} <= _names(
        scope.modified)
    assert "z" not in _names(scope.modified)
    assert _names(scope.deleted) == {"m"}
    assert "only_annotated" not in _names(scope.modified)
    assert {"int", "SomeType"} <= _names(scope.annotations)
    assert "SomeType" not in _names(scope.read)


def test_match_patterns_bind_names():
    fn = _analyze("""
        def f(cmd, Point, LIMIT):
            match cmd:
                case [first, *rest] if first > LIMIT:
                    pass
                case {"k": v, **others}:
                    pass
                case Point(x=px, y=0) as pt:
                    pass
                case Point.ORIGIN | None:
                    pass
                case _:
                    pass
    """)
    scope = anno.getanno(fn, S.SCOPE)
    assert {"first", "rest", "v", "others", "px", "pt"} <= _names(scope.modified)
    assert {"cmd", "Point", "LIMIT", "first", "Point.ORIGIN"} <= _names(scope.read)
    assert "_" not in _names(scope.modified)


def test_lambda_is_isolated_with_params():
    fn = _analyze("""
        def f(d):
            g = lambda x, y=d: x + y + z
    """)
    lam = fn.body[0].value
    lam_scope = anno.getanno(lam, S.SCOPE)
    assert _names(lam_scope.params) == {"x", "y"}
    scope = anno.getanno(fn, S.SCOPE)
    assert {"d", "z"} <= _names(scope.read)
    assert not {"x", "y"} & _names(scope.read)


def test_parameter_annotations_read_in_parent_but_local_annotations_not_evaluated():
    fn = _analyze("""
        def outer():
            def inner(a: Alpha, *args: Beta, k: Gamma = 1, **kw: Delta) -> Ret:
                b: Local = a
    """)
    outer_scope = anno.getanno(fn, S.SCOPE)
    assert {"Alpha", "Beta", "Gamma", "Delta", "Ret"} <= _names(outer_scope.read)
    assert "Local" not in _names(outer_scope.read)
    inner_scope = anno.getanno(fn.body[0], S.SCOPE)
    assert _names(inner_scope.params) == {"a", "args", "k", "kw"}


def test_effects_of_a_def_statement_only_cover_its_outside():
    fn = _analyze("""
        def f(d):
            def g(x=d):
                y = x + free
                return y
    """)
    effects = activity.effects(fn.body[0])
    assert _names(effects.modified) == {"g"}
    assert _names(effects.read) == {"d", "free"}


def test_parent_scope_argument_links_scopes():
    parent = activity.Scope(None)
    node = gast.parse("def f(): return q").body[0]
    activity.resolve(node, _ctx(), parent_scope=parent)
    assert anno.getanno(node, S.SCOPE).parent.parent is parent


def test_qualified_names_can_be_queried_with_from_str():
    fn = _analyze("""
        def f(self):
            self.a.b = 1
    """)
    scope = anno.getanno(fn, S.SCOPE)
    assert qual_names.from_str("self.a.b") in scope.modified


def _effect_sets(scope):
    return {field: _names(getattr(scope, field))
            for field in ("read", "modified", "deleted", "bound", "globals", "nonlocals",
                          "indirectly_modified", "walrus_escapes")}


def test_effects_recorded_while_resolving_are_those_of_each_cfg_node():
    from autograph.pyct import cfg
    fn = gast.parse(textwrap.dedent("""
        def f(items, d, total=0):
            global g
            for i, v in enumerate(items):
                if (w := v * 2) > d.limit:
                    d[i] = [w + k for k in range(i) if (z := k)]
                    del d.old
                elif v:
                    total += v
                else:
                    continue
            while total > 0:
                total -= 1
            def inner(a=total):
                return a + g
            with open(d.path) as handle:
                text = handle.read()
            try:
                g = inner()
            except ValueError as error:
                raise RuntimeError(error)
            finally:
                d.x.y = text
            return total, z
    """)).body[0]
    effects = activity.Effects()
    activity.resolve(fn, _ctx(), effects=effects)
    assert not effects.lambdas
    graphs = cfg.build(fn, find_lambdas=False)
    # Without lambdas to find, the same graph is built.
    assert repr(graphs[fn]) == repr(cfg.build(fn)[fn])
    activity.record_effects(graphs, effects)
    recorded = 0
    for graph in graphs.values():
        for ast_node, cfg_node in graph.index.items():
            expected = _effect_sets(activity.effects(ast_node))
            assert _effect_sets(activity.node_effects(cfg_node)) == expected, cfg.describe(
                ast_node)
            recorded += ast_node in effects
    # Simple statements, if/while tests and the parts of the for loop were recorded.
    assert recorded >= 14


def test_resolving_with_effects_lists_the_lambdas_met():
    fn = gast.parse("def f(x, key=lambda v: -v):\n    return sorted(x, key=lambda v: v)").body[0]
    effects = activity.Effects()
    activity.resolve(fn, _ctx(), effects=effects)
    assert len(effects.lambdas) == 2


def test_scopes_are_the_same_without_name_annotations():
    source = textwrap.dedent("""
        def f(self, d, i):
            self.a.b += d[i].c
            d[i + 1] = d['k']
            del self.x[0]
            for k, v in d.items():
                if (w := v.z) > k:
                    self.total = [w for _ in d]
    """)
    annotated = gast.parse(source).body[0]
    activity.resolve(annotated, _ctx())
    plain = gast.parse(source).body[0]
    activity.resolve(plain, _ctx(), annotate_names=False)
    assert not any(anno.hasanno(n, anno.Basic.QN) for n in gast.walk(plain))
    pairs = zip(gast.walk(annotated), gast.walk(plain))
    for with_names, without_names in pairs:
        for key in (S.SCOPE, S.BODY_SCOPE, S.ORELSE_SCOPE, S.COND_SCOPE, S.ITERATE_SCOPE):
            if anno.hasanno(with_names, key):
                assert _effect_sets(anno.getanno(with_names, key)) == _effect_sets(
                    anno.getanno(without_names, key))
