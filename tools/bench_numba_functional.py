"""Benchmark of the Numba executor on functional forms of the workloads (rt.function +
rt.while_loop/rt.cond), against numba.njit of the original function and the NumPy
interpreter, plus per-call overhead and the on-disk cache hit time in a fresh process.

    python tools/bench_numba_functional.py [-w collatz ema] [--quick]

First-call figures use empty compile caches (fresh temporary cache directories).
"""

import argparse
import os
import subprocess
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
# BLAS on one thread, and cold compile caches, unless the caller chose.
from tools.scratch import benchmark_environment, scratch_dir  # noqa: E402

benchmark_environment("ag-bench-numba-")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from tools.bench_workloads import _fmt, time_calls as measure  # noqa: E402
from tools.numba_functional_workloads import FUNCTIONAL  # noqa: E402


def _close(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and all(_close(x, y) for x, y in zip(a, b))
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9)


_PROBE = r"""
import sys, time
sys.path.insert(0, {root!r})
import numba
import runtime as rt
from tools.numba_functional_workloads import FUNCTIONAL
fn, original, make_inputs = FUNCTIONAL[{name!r}]
args = make_inputs()
t0 = time.perf_counter()
from runtime.executors.numba import support
support.check_mask(1, 1, 0)   # Numba's own start-up (any jitted code pays it once)
t1 = time.perf_counter()
rt.function(fn, backend="numba")(*args)
t2 = time.perf_counter()
numba.njit(cache=True)(original)(*args)
t3 = time.perf_counter()
print(t2 - t1, t1 - t0, t3 - t2)
"""


def cache_probe(name):
    """(first-call time in a cold process, in a process with a warm on-disk cache)."""
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = scratch_dir("ag-probe-numba-")
    env["AUTOGRAPH_CACHE_DIR"] = scratch_dir("ag-probe-ag-")
    times = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _PROBE.format(root=_ROOT, name=name)],
                             capture_output=True, text=True, env=env, timeout=600)
        if out.returncode:
            return "error: %s" % out.stderr.strip().splitlines()[-1]
        times.append([float(t) for t in out.stdout.split()])
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--workloads", nargs="*", default=list(FUNCTIONAL))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    budget = 0.3 if args.quick else 1.0
    print("numpy %s, numba %s, python %s" % (np.__version__, numba.__version__,
                                             sys.version.split()[0]))
    head = ["workload", "plain NumPy", "njit(fn)", "rt numpy", "rt numba", "numba/best",
            "first njit", "first rt numba", "first ratio"]
    rows = []
    for name in args.workloads:
        functional, original, make_inputs = FUNCTIONAL[name]
        inputs = make_inputs()
        py = measure(original, inputs, budget)
        nj = measure(numba.njit(original), inputs, budget)
        rn = measure(rt.function(functional, backend="numpy"), inputs, budget)
        rb = measure(rt.function(functional, backend="numba"), inputs, budget)
        ok = all(_close(r[2], py[2]) for r in (nj, rn, rb))
        best = min(py[1], nj[1])
        rows.append([name, _fmt(py[1]), _fmt(nj[1]), _fmt(rn[1]),
                     _fmt(rb[1]) + ("" if ok else " WRONG"), "%.2fx" % (rb[1] / best),
                     _fmt(nj[0]), _fmt(rb[0]), "%.2fx" % (rb[0] / nj[0])])
        print("  measured %s" % name, file=sys.stderr)
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    print("\nSteady state (median per call) and first call (trace + compile + run, cold caches)")
    for r in [head] + rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))

    def plus_one(x):
        return x + 1

    def plus_one_loop(x):
        return rt.while_loop(lambda i, y: i < 1, lambda i, y: (i + 1, y + 1), (0, x))[1]

    x = np.arange(16.0)
    print("\nCall overhead, f(x) = x + 1 on 16 floats (median per call)")
    for label, f in (("njit", numba.njit(plus_one)),
                     ("rt numpy", rt.function(plus_one, backend="numpy")),
                     ("rt numba", rt.function(plus_one, backend="numba")),
                     ("rt auto", rt.function(plus_one, backend="auto")),
                     ("rt numba, one-trip loop", rt.function(plus_one_loop, backend="numba")),
                     ("rt numpy, one-trip loop", rt.function(plus_one_loop, backend="numpy"))):
        print("  %-24s %s" % (label, _fmt(measure(f, (x,), budget)[1])))
    def straight_line(x):
        y = np.exp(-x * x) * 0.5 + np.sin(x)
        z = np.sqrt(np.abs(y)) - x / 3.0
        return np.where(z > 0, z, 0.0) + np.tanh(y) * 2.0

    print("\nAuto policy evidence: a straight-line graph of 14 vectorised ops, no loop")
    for n in (16, 10000):
        x = np.linspace(-3.0, 3.0, n)
        rows = []
        for label in ("numpy", "numba"):
            first, steady, _ = measure(rt.function(straight_line, backend=label), (x,), budget)
            rows.append("%s %s (first call %s)" % (label, _fmt(steady), _fmt(first)))
        print("  n=%-6d %s" % (n, "; ".join(rows)))
    if args.workloads:
        name = args.workloads[0]
        probe = cache_probe(name)
        if isinstance(probe, str):
            print("\nNumba on-disk cache (%s): %s" % (name, probe))
        else:
            print("\nFresh process, %s: Numba start-up %s; first call of rt.function(numba): "
                  "cold cache %s, warm cache %s; numba.njit(cache=True)(fn): cold %s, warm %s"
                  % (name, _fmt(probe[1][1]), _fmt(probe[0][0]), _fmt(probe[1][0]),
                     _fmt(probe[0][2]), _fmt(probe[1][2])))


if __name__ == "__main__":
    main()
