"""Every Python 3.11 statement kind through all analyses, and real standard-library code."""

import inspect
import textwrap

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct.static_analysis import loop_vars

S = anno.Static

EVERY_STATEMENT = """
async def f(a, /, b, *args, c=1, **kwargs):
    global g
    import os.path
    from collections import deque as dq
    x: int = a
    y = z = b
    x += 1
    del z
    assert x, "message"
    nonlocal_holder = 0
    def inner(p=x) -> None:
        nonlocal nonlocal_holder
        nonlocal_holder = p
        yield p
        yield from range(p)
    class K(dq, metaclass=type):
        attr = 1
    lam = lambda q=y: q + x
    for i in range(x):
        if i:
            continue
        elif i > 3:
            break
        else:
            pass
    else:
        pass
    while x > 0:
        x -= 1
    else:
        pass
    async for j in args:
        await j
    async with a as w1, b:
        pass
    with a as (w2, w3):
        pass
    try:
        raise ValueError(a) from None
    except ValueError as e:
        pass
    except (TypeError, KeyError):
        pass
    else:
        pass
    finally:
        pass
    try:
        pass
    except* OSError as eg:
        pass
    match x:
        case 0 | 1:
            pass
        case [m1, *ms]:
            pass
        case {"k": mv, **mrest}:
            pass
        case K(attr=ka) as kk:
            pass
        case str() if x:
            pass
        case _:
            pass
    s = f"{x!r:>{y}}" + str([v for v in args]) + str({v: v for v in args})
    t = (g := a) if a else b[1:2]
    g = [*args]
    return x, y, s, t, lam, inner, K, os, e
"""


def _analyzed(source):
    module = gast.parse(textwrap.dedent(source))
    graphs = loop_vars.analyze(module)
    return module, graphs


def test_every_statement_kind_is_analyzed():
    module, graphs = _analyzed(EVERY_STATEMENT)
    fn = module.body[0]
    assert {type(k).__name__ for k in graphs} == {
        "AsyncFunctionDef", "FunctionDef", "Lambda"}
    compound = (gast.If, gast.For, gast.AsyncFor, gast.While, gast.With, gast.AsyncWith,
                gast.Try, gast.TryStar, gast.Match)
    checked = 0
    for node in gast.walk(fn):
        if isinstance(node, compound):
            assert anno.hasanno(node, S.LIVE_VARS_IN), type(node).__name__
            assert anno.hasanno(node, S.LIVE_VARS_OUT), type(node).__name__
            assert anno.hasanno(node, S.DEFINED_VARS_IN), type(node).__name__
            assert anno.hasanno(node, S.DEFINED_FNS_IN), type(node).__name__
            checked += 1
        if isinstance(node, (gast.While, gast.For, gast.AsyncFor)):
            loop_vars.loop_variables(node)
    assert checked == 10  # two ifs (if and elif), eight other compound statements
    scope = anno.getanno(fn, S.SCOPE)
    names = {str(s) for s in scope.modified}
    assert {"os", "dq", "x", "y", "z", "inner", "K", "lam", "i", "j", "w1", "w2", "w3",
            "e", "eg", "m1", "ms", "mv", "mrest", "ka", "kk", "s", "t", "g"} <= names
    assert not {"v", "q", "p", "attr"} & names
    while_loop = next(n for n in fn.body if isinstance(n, gast.While))
    assert [str(s) for s in loop_vars.loop_variables(while_loop)[0]] == ["x"]
    ret = fn.body[-1]
    assert {"x", "y", "s", "t", "lam", "inner", "K", "os"} <= {
        str(s) for s in anno.getanno(ret, S.DEFINED_VARS_IN)}


def _stdlib_sources():
    import argparse
    import json.decoder
    import textwrap as textwrap_module
    import difflib
    import tokenize
    for module in (argparse, json.decoder, textwrap_module, difflib, tokenize):
        yield module.__name__, inspect.getsource(module)


@pytest.mark.parametrize("name,source", list(_stdlib_sources()),
                         ids=lambda value: value if "\n" not in value else "")
def test_standard_library_modules_analyze_without_errors(name, source):
    module, graphs = _analyzed(source)
    assert graphs
    loops = 0
    for node in gast.walk(module):
        # Module-level code has no graph; only loops in functions are analyzed.
        if isinstance(node, (gast.While, gast.For)) and anno.hasanno(node, S.LIVE_VARS_IN):
            loop, undefined = loop_vars.loop_variables(node)
            assert set(undefined) <= set(loop)
            loops += 1
        if isinstance(node, gast.If) and anno.hasanno(node, S.LIVE_VARS_OUT):
            loop_vars.branch_outputs(node)
    assert loops > 0
    for graph in graphs.values():
        for node in graph.index.values():
            assert all(node in n.prev for n in node.next)
            assert all(node in n.next for n in node.prev)
