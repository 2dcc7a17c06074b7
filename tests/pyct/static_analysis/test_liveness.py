"""Liveness at compound statements and functions."""

import textwrap

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis import liveness

S = anno.Static


def _analyze(source):
    fn = gast.parse(textwrap.dedent(source)).body[0]
    activity.resolve(fn, None)
    liveness.resolve(fn, None, cfg.build(fn))
    return fn


def _live_in(node):
    return {str(s) for s in anno.getanno(node, S.LIVE_VARS_IN)}


def _live_out(node):
    return {str(s) for s in anno.getanno(node, S.LIVE_VARS_OUT)}


def test_classic_loop():
    fn = _analyze("""
        def f(a, b):
            while a > 0:
                c = b * 2
                a = a - c
            return a
    """)
    loop = fn.body[0]
    assert _live_in(loop) == {"a", "b"}
    assert _live_out(loop) == {"a"}
    assert _live_in(fn) == {"a", "b"}


def test_variable_overwritten_before_use_is_dead_at_entry():
    fn = _analyze("""
        def f(x):
            if x:
                y = 1
            else:
                y = 2
            return y
    """)
    branch = fn.body[0]
    assert _live_in(branch) == {"x"}
    assert _live_out(branch) == {"y"}


def test_variable_assigned_in_one_branch_stays_live_through_the_other():
    fn = _analyze("""
        def f(x, y):
            if x:
                y = 1
            return y
    """)
    assert _live_in(fn.body[0]) == {"x", "y"}


def test_for_loop_iterable_target_and_body():
    fn = _analyze("""
        def f(xs, s):
            for x in xs:
                s = s + x
            return s
    """)
    loop = fn.body[0]
    assert _live_in(loop) == {"xs", "s"}
    assert _live_out(loop) == {"s"}
    # At the start of an iteration the iterable itself is no longer needed.
    assert {str(s) for s in anno.getanno(loop, S.LIVE_VARS_IN_BODY)} == {"s"}


def test_for_target_read_after_the_loop_is_live_through_it():
    fn = _analyze("""
        def f(xs):
            x = None
            for x in xs:
                pass
            return x
    """)
    # An empty iterable leaves x untouched.
    assert "x" in _live_in(fn.body[1])


def test_break_makes_values_live_after_the_loop():
    fn = _analyze("""
        def f(n):
            while n > 0:
                found = n
                if n % 7 == 0:
                    break
                n = n - 1
            else:
                found = None
            return found
    """)
    loop = fn.body[0]
    assert _live_out(loop) == {"found"}
    assert _live_in(loop) == {"n"}


def test_read_only_in_a_nested_function_is_live():
    fn = _analyze("""
        def f(xs, k):
            fns = []
            for x in xs:
                def g():
                    return k + x
                fns.append(g)
            return fns
    """)
    loop = fn.body[1]
    assert {"k", "xs", "fns"} <= _live_in(loop)
    assert "k" in {str(s) for s in anno.getanno(loop, S.LIVE_VARS_IN_BODY)}


def test_nested_function_gets_its_own_liveness():
    fn = _analyze("""
        def f(a):
            def g(b):
                while b:
                    b = b - a
                return b
            return g
    """)
    inner = fn.body[0]
    assert _live_in(inner) == {"a", "b"}
    assert _live_in(inner.body[0]) == {"a", "b"}
    assert _live_out(inner) == {"g"}


def test_composites_are_live_when_read_and_die_with_their_owner():
    fn = _analyze("""
        def f(self, other):
            if self.flag:
                self.total = self.total + 1
            other.x = 1
            if other:
                pass
            return self.total
    """)
    first, _, second, _ = fn.body
    assert {"self", "self.flag", "self.total"} <= _live_in(first)
    assert "self.total" in _live_out(first)
    # other.x was written, never read: not live.
    assert "other.x" not in _live_in(second)
    fn = _analyze("""
        def f(o):
            if o.a:
                pass
            o = make()
            return o.a
    """)
    assert not {"o", "o.a"} & _live_out(fn.body[0])


def test_try_except_finally_keep_handler_reads_live_in_the_body():
    fn = _analyze("""
        def f(a, backup):
            try:
                backup = a
                r = risky(a)
            except ValueError:
                r = backup
            finally:
                log(a)
            return r
    """)
    statement = fn.body[0]
    # backup: an exception may come before `backup = a` completes.
    assert {"a", "risky", "log", "backup", "ValueError"} <= _live_in(statement)
    # (One finally block serves all paths, so `r` also looks live at the entry.)
    assert _live_out(statement) == {"r"}


def test_with_statement():
    fn = _analyze("""
        def f(lock, x):
            with lock as held:
                y = x + held
            return y
    """)
    assert _live_in(fn.body[0]) == {"lock", "x"}
    assert _live_out(fn.body[0]) == {"y"}


def test_match_statement():
    fn = _analyze("""
        def f(cmd, default):
            match cmd:
                case [x]:
                    r = x
                case _:
                    r = default
            return r
    """)
    assert _live_in(fn.body[0]) == {"cmd", "default"}
    assert _live_out(fn.body[0]) == {"r"}


def test_globals_and_nonlocals_are_live_at_exit():
    fn = _analyze("""
        def f(n):
            counter = 0
            def bump():
                nonlocal counter
                global total
                while n:
                    counter = n
                    total = n
            return bump
    """)
    loop = fn.body[1].body[2]
    assert {"counter", "total"} <= _live_out(loop)


def test_deleted_variable_is_dead_before_delete():
    fn = _analyze("""
        def f(x):
            if x:
                pass
            del x
    """)
    assert _live_out(fn.body[0]) == set()


def test_walrus_in_comprehension_defines_outer_variable():
    fn = _analyze("""
        def f(xs, last):
            if xs:
                ys = [(last := x) for x in xs]
            return last
    """)
    assert "last" in _live_in(fn.body[0])  # the comprehension may not run
    fn = _analyze("""
        def f(xs, x):
            if xs:
                pass
            return [x for x in xs]
    """)
    assert _live_out(fn.body[0]) == {"xs"}


def test_lambda_graph_live_in():
    fn = _analyze("""
        def f(k):
            g = lambda a: a + k
            return g
    """)
    lam = fn.body[0].value
    assert {str(s) for s in anno.getanno(lam, S.LIVE_VARS_IN)} == {"a", "k"}
    assert "k" in {str(s) for s in anno.getanno(fn.body[0], S.LIVE_VARS_IN)}


_MIXED = """
    def f(a, b):
        c = a
        for i in b:
            if i > c:
                c = i
                continue
            try:
                b = b[1:]
            finally:
                a += 1
        while a:
            a -= 1
        return c
"""


def test_only_the_statement_types_asked_for_are_annotated_with_the_same_sets():
    everything = _analyze(_MIXED)
    some = gast.parse(textwrap.dedent(_MIXED)).body[0]
    activity.resolve(some, None)
    liveness.resolve(some, None, cfg.build(some), statement_types=(gast.If, gast.For))
    for full, partial in zip(gast.walk(everything), gast.walk(some)):
        if isinstance(partial, (gast.If, gast.For)):
            assert _live_out(partial) == _live_out(full)
            assert _live_in(partial) == _live_in(full)
        elif isinstance(partial, gast.stmt) and partial is not some:
            assert not anno.hasanno(partial, S.LIVE_VARS_OUT)
