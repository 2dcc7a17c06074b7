"""Shared driver of the examples: run eagerly and as a graph, compare, show the graph and timings."""

import copy
import sys
import time

import numpy as np

import autograph as ag


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b)) or np.allclose(a, b, rtol=1e-12, atol=1e-12)


def _timed(fn, args, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        call_args = copy.deepcopy(args)
        start = time.perf_counter()
        result = fn(*call_args)
        best = min(best, time.perf_counter() - start)
    return result, best


def run_example(fn, args, show_graph=True):
    """Runs `fn` (an ag.function) eagerly and as a graph on copies of `args`; exits 1 on mismatch."""
    name = getattr(fn, "__name__", None) or fn.python_function.__name__
    ag.run_functions_eagerly(True)
    try:
        expected, eager_time = _timed(fn, args, repeat=3)
    finally:
        ag.run_functions_eagerly(False)
    result, first_time = _timed(fn, args)
    result, steady_time = _timed(fn, args, repeat=20)
    if show_graph:
        graph = fn.get_concrete_function(*copy.deepcopy(args)).graph
        print(f"--- graph of {name} ---")
        print(graph)
    print(f"{name}: plain Python {eager_time * 1e3:.3f} ms | first call (convert+trace+compile) "
          f"{first_time * 1e3:.1f} ms | graph {steady_time * 1e3:.3f} ms per call "
          f"({eager_time / steady_time:.1f}x) | traces: {fn.trace_count}")
    if not _same(expected, result):
        print(f"MISMATCH in {name}:\n  eager: {expected!r}\n  graph: {result!r}", file=sys.stderr)
        sys.exit(1)
    print(f"{name}: graph result equals the plain Python result")
    return result
