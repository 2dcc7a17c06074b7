"""Shared driver of the examples: run eagerly and as a graph, compare, show the graph and
timings, measured in one run: plain Python, the example's `ag.function` as written (its
backend, "auto" by default), the same function compiled by Numba (backend="numba"), and
`numba.njit` of the plain function where njit can take it."""

import copy
import re
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


def _first_and_steady(fn, args, repeat):
    """(result, first call seconds, best of `repeat` later calls)."""
    result, first = _timed(fn, args)
    _, steady = _timed(fn, args, repeat)
    return result, first, steady


def _settle(fn, args, timeout=600):
    """On backend "auto", waits for what the first call started: the Numba compile in the
    background and the calls that time both executors (runtime/executors/numba/
    compiled.py). Returns the seconds waited, or None if there was nothing to wait for."""
    start = time.perf_counter()
    for _ in range(100):
        executable = fn.get_concrete_function(*copy.deepcopy(args)).executable
        # (The code is generated after the first call, and the call after that hands the
        # trace over to the compiled graph: runtime/executors/numba/pending.py.)
        built = getattr(executable, "built", None)
        graph = built(timeout) if built is not None else getattr(executable,
                                                                 "compiled_graph", None)
        if built is None and (graph is None or graph.settled):
            return None if graph is None else time.perf_counter() - start
        if graph is not None:
            graph.wait(timeout)
        fn(*copy.deepcopy(args))
    return time.perf_counter() - start


def _seconds(t):
    return f"{t:.2f} s" if t >= 1 else f"{t * 1e3:.1f} ms"


def _njit(python_function, args, repeat):
    """(result, first, steady) of numba.njit(python_function), or why njit refuses it."""
    import numba
    try:
        return _first_and_steady(numba.njit(python_function), args, repeat)
    except Exception as e:   # njit's refusal is part of the comparison
        lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines()]
        lines = [line for line in lines if line] or [""]
        reason = next((line for key in ("unexpected keyword", "Unknown attribute",
                                        "No implementation") for line in lines if key in line),
                      lines[0])
        prefix = type(e).__name__ + ": "
        return prefix + (reason[len(prefix):] if reason.startswith(prefix) else reason)[:100]


def run_example(fn, args, show_graph=True, repeat=20):
    """Runs `fn` (an ag.function) eagerly and as a graph on copies of `args`, and the same
    function on backend="numba" and numba.njit; prints the timings of one run; exits 1 on
    a mismatch."""
    name = getattr(fn, "__name__", None) or fn.python_function.__name__
    ag.run_functions_eagerly(True)
    try:
        expected, eager_time = _timed(fn, args, repeat=repeat)
    finally:
        ag.run_functions_eagerly(False)
    result, first_time = _timed(fn, args)
    _, while_compiling = _timed(fn, args, repeat)
    waited = _settle(fn, args)
    _, steady_time = _timed(fn, args, repeat)
    compiled = ag.function(fn.python_function, backend="numba")
    compiled_result, compiled_first, compiled_time = _first_and_steady(compiled, args, repeat)
    njit = _njit(fn.python_function, args, repeat)
    if show_graph:
        graph = fn.get_concrete_function(*copy.deepcopy(args)).graph
        print(f"--- graph of {name} ---")
        print(graph)
    backend = getattr(fn, "backend", "auto")
    if waited is None:
        note = "convert + trace" if backend == "auto" else "convert + trace + compile"
    else:
        note = ("convert + trace; then %.3f ms per call on the NumPy interpreter while Numba "
                "compiled in the background (%s), and the faster of the two kept"
                % (while_compiling * 1e3, _seconds(waited)))
    rows = [("plain Python", eager_time, None, ""),
            (f"ag.function(backend={backend!r})", steady_time, first_time, note),
            ("ag.function(backend='numba')", compiled_time, compiled_first,
             "convert + trace + compile; Numba's disk cache makes the next run's faster")]
    if isinstance(njit, str):
        rows.append(("numba.njit", None, None, f"cannot compile it ({njit})"))
    else:
        rows.append(("numba.njit", njit[2], njit[1], "compile"))
    njit_time = None if isinstance(njit, str) else njit[2]
    print(f"{name}, timed in this run (per call: the best of {repeat} after the first; "
          f"speed-up: the time of plain Python, or njit, over this one's):")
    for label, steady, first, note in rows:
        if steady is None:
            print(f"  {label:30s} {note}")
            continue
        speedup = "" if first is None else f"  speed-up {eager_time / steady:5.1f}x"
        if njit_time is not None and label.startswith("ag."):
            speedup += f", {njit_time / steady:4.2f}x njit"
        first_text = "" if first is None else f"  | first call {_seconds(first)} ({note})"
        print(f"  {label:30s} {steady * 1e3:7.3f} ms{speedup}{first_text}")
    print(f"{name}: traces: {fn.trace_count}")
    for label, got in (("graph", result), ("numba graph", compiled_result)):
        if not _same(expected, got):
            print(f"MISMATCH in {name}:\n  eager: {expected!r}\n  {label}: {got!r}",
                  file=sys.stderr)
            sys.exit(1)
    print(f"{name}: graph result equals the plain Python result")
    return result
