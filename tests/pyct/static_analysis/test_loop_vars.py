"""The loop-variable rule and branch outputs, on every statement kind that can change them."""

import textwrap

import gast
import pytest

from autograph.pyct.static_analysis import loop_vars


def _function(source):
    fn = gast.parse(textwrap.dedent(source)).body[0]
    loop_vars.analyze(fn)
    return fn


def _first(fn, kind):
    for node in gast.walk(fn):
        if isinstance(node, kind):
            return node
    raise AssertionError(f"no {kind.__name__}")


def _loop(source, kind=(gast.While, gast.For, gast.AsyncFor)):
    fn = _function(source)
    loop, undefined = loop_vars.loop_variables(_first(fn, kind))
    return [str(s) for s in loop], [str(s) for s in undefined]


def _branch(source):
    fn = _function(source)
    outputs, undefined = loop_vars.branch_outputs(_first(fn, gast.If))
    return [str(s) for s in outputs], [str(s) for s in undefined]


def test_classic_case():
    # a: read by the condition and modified; b: only read; c: overwritten before any
    # read in the body and unused after.
    assert _loop("""
        def f(a, b):
            while a > 0:
                c = b * 2
                a = a - c
            return a
    """) == (["a"], [])


def test_classic_case_with_c_used_after_the_loop():
    assert _loop("""
        def f(a, b):
            while a > 0:
                c = b * 2
                a = a - c
            return c
    """) == (["a", "c"], ["c"])


def test_loop_var_not_used_after_the_loop_is_still_carried():
    assert _loop("""
        def f(n):
            i = 0
            while i < n:
                i += 1
    """) == (["i"], [])


def test_for_loop_accumulator_and_target():
    assert _loop("""
        def f(xs):
            total = 0
            for x in xs:
                total += x
            return total
    """) == (["total"], [])
    assert _loop("""
        def f(xs):
            for x in xs:
                pass
            return x
    """) == (["x"], ["x"])


def test_iterable_modified_in_body_but_not_read_again_is_local():
    assert _loop("""
        def f(xs):
            for x in xs:
                xs = None
    """) == ([], [])


def test_break_continue_return_inside():
    assert _loop("""
        def f(n):
            found = -1
            i = 0
            while i < n:
                i += 1
                if i % 2:
                    continue
                tmp = i * i
                if tmp > 50:
                    found = tmp
                    break
                if tmp == 49:
                    return tmp
            return found
    """) == (["found", "i"], [])


def test_variable_first_defined_in_loop_and_read_after_break():
    assert _loop("""
        def f(g):
            while True:
                x = g()
                if x:
                    break
            return x
    """) == (["x"], ["x"])


def test_try_finally_inside_loop():
    assert _loop("""
        def f(xs):
            count = 0
            for x in xs:
                try:
                    scratch = int(x)
                    count += scratch
                except ValueError:
                    errors = 1
                finally:
                    count += 1
            return count
    """) == (["count"], [])


def test_nested_loops():
    source = """
        def f(n, m):
            total = 0
            i = 0
            while i < n:
                j = 0
                while j < m:
                    total += i * j
                    j += 1
                i += 1
            return total
    """
    fn = _function(source)
    outer = fn.body[2]
    inner = outer.body[1]
    assert [str(s) for s in loop_vars.loop_variables(outer)[0]] == ["i", "total"]
    assert [str(s) for s in loop_vars.loop_variables(inner)[0]] == ["j", "total"]


def test_for_else_and_while_else():
    assert _loop("""
        def f(xs):
            best = None
            for x in xs:
                if x > 3:
                    best = x
                    break
            else:
                best = 0
                fallback = 1
            return best
    """) == (["best"], [])
    assert _loop("""
        def f(n):
            while n > 0:
                n -= 1
            else:
                done = True
            return done
    """) == (["n"], [])


def test_comprehension_variables_do_not_leak():
    assert _loop("""
        def f(rows):
            acc = []
            for row in rows:
                acc = acc + [v * 2 for v in row]
            return acc
    """) == (["acc"], [])


def test_global_and_nonlocal():
    assert _loop("""
        def f(n):
            global counter
            while n > 0:
                counter = n
                n -= 1
    """) == (["counter", "n"], [])
    fn = _function("""
        def f(n):
            total = 0
            def bump():
                nonlocal total
                for i in range(n):
                    total = i
            return bump
    """)
    loop = _first(fn.body[1], gast.For)
    assert [str(s) for s in loop_vars.loop_variables(loop)[0]] == ["total"]
    assert loop_vars.loop_variables(loop)[1] == ()


def test_walrus_in_condition_and_comprehension():
    assert _loop("""
        def f(read):
            while (chunk := read()):
                last = chunk
            return last
    """) == (["last"], ["last"])
    assert _loop("""
        def f(read):
            while (chunk := read()):
                pass
            return chunk
    """) == (["chunk"], ["chunk"])
    assert _loop("""
        def f(rows):
            for row in rows:
                any([(hit := v) for v in row])
            return hit
    """) == (["hit"], ["hit"])


def test_match_inside_loop():
    assert _loop("""
        def f(cmds):
            state = 0
            for cmd in cmds:
                match cmd:
                    case ["add", n]:
                        state += n
                    case ["reset"]:
                        state = 0
                    case _:
                        pass
            return state
    """) == (["state"], [])


def test_del_in_loop():
    assert _loop("""
        def f(xs):
            buf = None
            for x in xs:
                buf = x
                del buf
    """) == ([], [])


def test_augmented_assignment():
    assert _loop("""
        def f(n):
            s = 1
            while n:
                s *= n
                n -= 1
            return s
    """) == (["n", "s"], [])


def test_attribute_and_subscript_composites():
    assert _loop("""
        def f(self, d, n):
            i = 0
            while i < n:
                self.count += 1
                d["last"] = i
                i += 1
    """) == (["d['last']", "i", "self.count"], [])


def test_composites_of_objects_created_in_the_loop_stay_local():
    assert _loop("""
        def f(n, make):
            while n:
                o = make()
                o.x = n
                n -= 1
    """) == (["n"], [])


def test_subscript_with_loop_local_index_is_not_carried_but_is_visible_as_mutation():
    fn = _function("""
        def f(d, xs):
            for x in xs:
                d[x] = 1
    """)
    loop = fn.body[0]
    assert loop_vars.loop_variables(loop) == ((), ())
    from autograph.pyct import anno
    assert anno.getanno(loop, anno.Static.BODY_SCOPE).is_mutated("d")


def test_variable_defined_in_one_branch_before_the_loop_is_undefined():
    assert _loop("""
        def f(c, n):
            if c:
                x = 0
            while n:
                x = n
                n -= 1
            return x
    """) == (["n", "x"], ["x"])


def test_variable_read_only_by_a_closure_made_in_the_loop():
    assert _loop("""
        def f(xs):
            fns = []
            scale = 1
            for x in xs:
                def g():
                    return scale
                fns.append(g)
                scale = scale + 1
            return fns
    """) == (["scale"], [])


def test_branch_outputs():
    assert _branch("""
        def f(c):
            if c:
                x = 1
                tmp = 2
            else:
                x = 3
            return x
    """) == (["x"], ["x"])
    assert _branch("""
        def f(c, x):
            if c:
                x = 1
            return x
    """) == (["x"], [])
    assert _branch("""
        def f(c, self):
            if c:
                self.a = 1
    """) == (["self.a"], [])


def test_branch_variables_list_outputs_first_then_modified_inputs():
    fn = _function("""
        def f(c, x, y):
            if c:
                x = x + 1
                y = 2
                tmp = 3
            return y
    """)
    symbols, undefined, nouts = loop_vars.branch_variables(fn.body[0])
    assert [str(s) for s in symbols] == ["y", "x"]
    assert nouts == 1 and undefined == ()


def test_helpers_reject_wrong_nodes():
    fn = _function("def f(c):\n    if c:\n        pass\n")
    with pytest.raises(TypeError):
        loop_vars.loop_variables(fn.body[0])
    with pytest.raises(TypeError):
        loop_vars.branch_outputs(fn)
