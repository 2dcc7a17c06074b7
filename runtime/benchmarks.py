"""Micro-benchmarks of the runtime itself: per-call overhead of a staged function, per-op
overhead of an executor inside a long graph loop, and resident memory over many calls.

    python -m runtime.benchmarks [--backend numpy|numba] [--memory-calls N]
"""

import argparse
import gc
import resource
import time

import numpy as np

from runtime.control_flow import while_loop
from runtime.trace import function


def call_overhead(backend="numpy", size=16, calls=20000, repeats=5):
    """Seconds per call of the staged `f(x) = x + 1` on `size` floats, minus the time of
    `x + 1` itself: (staged, plain, overhead)."""
    staged = function(lambda x: x + 1, backend=backend)
    x = np.ones(size)
    staged(x)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            staged(x)
        best = min(best, (time.perf_counter() - start) / calls)
    plain = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            x + 1
        plain = min(plain, (time.perf_counter() - start) / calls)
    return best, plain, best - plain


def _chain(ops_per_iteration):
    def f(n):
        def body(i, s):
            for _ in range(ops_per_iteration // 2):
                s = s * 0.5 + 1.0
            return i + 1, s
        return while_loop(lambda i, s: i < n, body, (0, 0.0))
    return f


def per_op_time(backend="numpy", iterations=20000, ops_per_iteration=40, repeats=3):
    """Seconds per scalar op (kernel included) in a long graph loop, and seconds of loop
    overhead per iteration (an empty-bodied loop): (per_op, per_iteration)."""
    long_body = function(_chain(ops_per_iteration), backend=backend)
    empty_body = function(_chain(0), backend=backend)
    n = np.int64(iterations)
    long_body(np.int64(2))
    empty_body(np.int64(2))

    def best(staged):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            staged(n)
            times.append(time.perf_counter() - start)
        return min(times)

    t_long, t_empty = best(long_body), best(empty_body)
    return (t_long - t_empty) / (iterations * ops_per_iteration), t_empty / iterations


def scalar_op_time(repeats=200000):
    """Seconds for one `np.float64 * float` in plain Python (the kernel cost alone)."""
    s = np.float64(1.5)
    start = time.perf_counter()
    for _ in range(repeats):
        s * 0.5
    return (time.perf_counter() - start) / repeats


def _rss_bytes():
    """Current resident set size (Linux /proc; elsewhere the peak from getrusage)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_growth(backend="numpy", calls=100000, warmup=2000):
    """Resident memory before and after `calls` calls of a staged function with a graph
    loop, a bounds-checked read and a fresh output array: (rss_before, rss_after) bytes."""
    def body(x):
        out = x * 2.0
        total = while_loop(lambda i, s: i < x.shape[0], lambda i, s: (i + 1, s + x[i]),
                           (0, 0.0))[1]
        return out, total

    staged = function(body, backend=backend)
    x = np.arange(16.0)
    for _ in range(warmup):
        staged(x)
    gc.collect()
    before = _rss_bytes()
    for _ in range(calls):
        staged(x)
    gc.collect()
    return before, _rss_bytes()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy", choices=("numpy", "numba"))
    parser.add_argument("--memory-calls", type=int, default=0,
                        help="also measure resident memory over this many calls")
    options = parser.parse_args()
    staged, plain, overhead = call_overhead(options.backend)
    print("call overhead (f(x) = x + 1, 16 floats, %s): %.2f us per call, %.2f us above "
          "x + 1 alone (%.2f us)" % (options.backend, staged * 1e6, overhead * 1e6, plain * 1e6))
    if options.memory_calls:
        before, after = memory_growth(options.backend, options.memory_calls)
        print("resident memory over %d calls (%s): %.1f MB -> %.1f MB (%+.1f kB)"
              % (options.memory_calls, options.backend, before / 2**20, after / 2**20,
                 (after - before) / 1024))
    per_op, per_iteration = per_op_time(options.backend)
    print("per op in a graph loop: %.3f us (plain np.float64 op: %.3f us); loop iteration "
          "overhead %.3f us" % (per_op * 1e6, scalar_op_time() * 1e6, per_iteration * 1e6))
