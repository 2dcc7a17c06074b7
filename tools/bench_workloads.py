"""Benchmark: the workloads of tools/workloads.py through every backend, printed as a table.

    python tools/bench_workloads.py                 # all workloads, all backends
    python tools/bench_workloads.py -w collatz ema  # a subset
    python tools/bench_workloads.py --quick         # fewer repeats

Steady state is the median time per call, the samples of all backends taken round-robin
(so load changes on a shared machine shift them alike); "first" is the first call of a
fresh function (convert + trace + compile + run), measured in a fresh process with empty
compile caches after Numba's own start-up (which any jitted code pays once per process,
reported apart; `--first-in-process` measures it in this process instead, where a graph
compiled for one backend is reused by the next). Ratios are against the faster of
`numba.njit(fn)` and plain Python/NumPy, measured in the same run. tf.function and jax.jit
are not measured here
(their figures are in ../shared/bench/README.md).
"""

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# Cold compile caches unless the caller chose directories: first-call figures must include compiling.
from tools.scratch import scratch_dir  # noqa: E402

_CACHE_ROOT = scratch_dir("ag-bench-")
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_CACHE_ROOT, "numba"))
os.environ.setdefault("AUTOGRAPH_CACHE_DIR", os.path.join(_CACHE_ROOT, "autograph"))

import numba  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
from tools.workloads import WORKLOADS  # noqa: E402

BACKENDS = ("python", "ag-numpy", "ag-numba", "ag-auto", "njit")


def _make_callable(kind, fn):
    if kind == "python":
        return fn
    if kind == "njit":
        return numba.njit(fn)
    backend = kind.split("-", 1)[1]
    return ag.function(fn, backend=backend)


def time_calls(f, inputs, budget):
    """(first call seconds, median seconds per call, result) of f(*inputs)."""
    start = time.perf_counter()
    result = f(*inputs)
    first = time.perf_counter() - start
    # Calibrate the number of calls per sample so a sample takes ~budget/7 s.
    start = time.perf_counter()
    f(*inputs)
    once = max(time.perf_counter() - start, 1e-7)
    per_sample = max(1, int(budget / 7 / once))
    samples = []
    gc.disable()
    try:
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(per_sample):
                f(*inputs)
            samples.append((time.perf_counter() - start) / per_sample)
    finally:
        gc.enable()
    return first, statistics.median(samples), result


def measure_interleaved(kinds, fn, make_inputs, budget, samples=7):
    """{kind: (first call seconds, median seconds per call, result) or an error string},
    the samples of all kinds taken round-robin (`sample_round_robin`)."""
    setup = {}
    results = {}
    for kind in kinds:
        inputs = make_inputs()
        try:
            f = _make_callable(kind, fn)
            start = time.perf_counter()
            result = f(*inputs)
            first = time.perf_counter() - start
            start = time.perf_counter()
            f(*inputs)
            once = max(time.perf_counter() - start, 1e-7)
        except Exception as e:  # reported in the table: a failing backend is a finding
            results[kind] = f"{type(e).__name__}: {str(e).splitlines()[0][:60] if str(e) else ''}"
            continue
        setup[kind] = (f, inputs, max(1, int(budget / samples / once)), first, result)
    medians = sample_round_robin({kind: (f, inputs, n) for kind, (f, inputs, n, _, _)
                                  in setup.items()}, samples)
    for kind, (_, _, _, first, result) in setup.items():
        results[kind] = (first, medians[kind], result)
    return {kind: results[kind] for kind in kinds}


def sample_round_robin(calls, samples=7):
    """{kind: median seconds per call} of `calls` ({kind: (f, inputs, calls per sample)}),
    the samples of all kinds taken round-robin (sample 1 of each kind, then sample 2, ...)
    so a load change on this shared machine shifts every kind alike and the ratios hold;
    each round starts one kind later than the one before."""
    kinds = list(calls)
    times = {kind: [] for kind in kinds}
    gc.disable()
    try:
        for round_index in range(samples):
            # The order turns every round: a kind measured right after another compiled
            # copy of the same loop starts slower while the CPU's branch predictors
            # relearn (on edit_distance, tens of calls), and turning the order shares that
            # alike.
            turn = round_index % len(kinds) if kinds else 0
            for kind in kinds[turn:] + kinds[:turn]:
                f, inputs, n = calls[kind]
                start = time.perf_counter()
                for _ in range(n):
                    f(*inputs)
                times[kind].append((time.perf_counter() - start) / n)
    finally:
        gc.enable()
    return {kind: statistics.median(t) for kind, t in times.items()}


def measure(kind, fn, make_inputs, budget):
    """Returns (first_call_seconds, median_seconds_per_call, result) or an error string."""
    inputs = make_inputs()
    try:
        return time_calls(_make_callable(kind, fn), inputs, budget)
    except Exception as e:  # reported in the table: a failing backend is a finding, not a crash
        return f"{type(e).__name__}: {str(e).splitlines()[0][:60] if str(e) else ''}"


def _fmt(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def _equal(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_equal, a, b))
    return np.allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                       rtol=1e-9, atol=1e-12)


def print_table(title, head, rows):
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    print(f"\n{title}")
    for r in [head] + rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))


class _Layer:
    """Two weights held on an object: what a staged method reads on every call."""

    def __init__(self):
        self.w = np.ones(16)
        self.b = np.zeros(16)

    def apply(self, x):
        return x * self.w + self.b


def _plus_one(x):
    return x + 1


def _scaled(x, lr):
    return x - lr * x


def _affine(x, w, b):   # (what njit is given for the layer: its weights as arguments)
    return x * w + b


_KINDS = ("python", "ag-numpy", "ag-numba", "ag-auto", "njit")


def call_overhead(budget):
    """Per-call time on 16 floats of f(x) = x + 1; of a step taking a Python float (a
    learning rate: an input of the trace); and of a method reading two weights held on
    its object (njit: the weights passed as arguments, which it cannot find itself)."""
    x = np.arange(16.0)
    layer = _Layer()
    cases = [("x + 1", _plus_one, _plus_one, lambda: (x,)),
             ("x - lr * x, lr a Python float", _scaled, _scaled, lambda: (x, 0.5)),
             ("x * self.w + self.b (state)", layer.apply, _affine, None)]
    rows = []
    for name, fn, njit_fn, make_inputs in cases:
        row = [name]
        for kind in _KINDS:
            if make_inputs is None:
                inputs = (lambda: (x, layer.w, layer.b)) if kind == "njit" else (lambda: (x,))
            else:
                inputs = make_inputs
            got = measure(kind, njit_fn if kind == "njit" else fn, inputs, budget)
            row.append(got if isinstance(got, str) else _fmt(got[1]))
        rows.append(row)
    return rows


_FIRST_CALL = r"""
import sys, time
sys.path.insert(0, {root!r})
import numba
import autograph as ag
from runtime.executors.numba import support
from tools.workloads import WORKLOADS
t0 = time.perf_counter()
support.check_mask(1, 1, 0)      # Numba's own start-up, paid once by any jitted code
startup = time.perf_counter() - t0
fn, make_inputs = WORKLOADS[{name!r}]
inputs = make_inputs()
kind = {kind!r}
start = time.perf_counter()
if kind == "python":
    f = fn
elif kind == "njit":
    f = numba.njit(cache={cache!r})(fn)
else:
    f = ag.function(fn, backend=kind.split("-", 1)[1])
f(*inputs)
print(time.perf_counter() - start, startup)
"""


def first_call_fresh(kind, name, cache_dirs=None, cache=False):
    """(first-call seconds, Numba start-up seconds) in a fresh process; empty caches unless
    `cache_dirs` (autograph, numba) are given."""
    env = dict(os.environ)
    if cache_dirs is None:
        cache_dirs = (scratch_dir("ag-first-"), scratch_dir("nb-first-"))
    env["AUTOGRAPH_CACHE_DIR"], env["NUMBA_CACHE_DIR"] = cache_dirs
    code = _FIRST_CALL.format(root=_ROOT, name=name, kind=kind, cache=cache)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=900)
    if out.returncode != 0:
        return "error: %s" % out.stderr.strip().splitlines()[-1][:70]
    first, startup = out.stdout.strip().splitlines()[-1].split()
    return float(first), float(startup)


def cache_hit_time(name):
    """First call of a workload in a fresh process with a cold, then a warm on-disk cache,
    for ag.function(backend="numba") and numba.njit(cache=True)(fn)."""
    parts = []
    for kind in ("ag-numba", "njit"):
        dirs = (scratch_dir("ag-probe-"), scratch_dir("nb-probe-"))
        runs = [first_call_fresh(kind, name, dirs, cache=True) for _ in range(2)]
        if any(isinstance(r, str) for r in runs):
            return "%s: %s" % (kind, [r for r in runs if isinstance(r, str)][0])
        parts.append("%s: cold %s, warm %s" % ("ag.function(numba)" if kind == "ag-numba"
                                               else "njit(cache=True)",
                                               _fmt(runs[0][0]), _fmt(runs[1][0])))
    return "; ".join(parts) + " (after Numba's start-up, %s)" % _fmt(runs[1][1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--workloads", nargs="*", default=list(WORKLOADS))
    parser.add_argument("-b", "--backends", nargs="*", default=list(BACKENDS))
    parser.add_argument("--quick", action="store_true", help="shorter measurements")
    parser.add_argument("--no-cache-probe", action="store_true",
                        help="skip the fresh-process Numba cache measurement")
    parser.add_argument("--first-in-process", action="store_true",
                        help="measure first calls in this process (faster, less honest)")
    args = parser.parse_args(argv)
    budget = 0.3 if args.quick else 1.0

    print(f"numpy {np.__version__}, numba {numba.__version__}, python {sys.version.split()[0]}")
    header = ["workload"] + args.backends + ["auto/best", "numba/best"]
    steady_rows, first_rows = [], []
    for name in args.workloads:
        fn, make_inputs = WORKLOADS[name]
        results = measure_interleaved(args.backends, fn, make_inputs, budget)
        if not args.first_in_process:
            for kind in args.backends:
                if isinstance(results[kind], str):
                    continue
                fresh = first_call_fresh(kind, name)
                if not isinstance(fresh, str):
                    results[kind] = (fresh[0],) + tuple(results[kind][1:])
        reference = results.get("python")
        steady, first = [name], [name]
        for kind in args.backends:
            r = results[kind]
            if isinstance(r, str):
                steady.append(r)
                first.append("-")
                continue
            ok = (reference is None or isinstance(reference, str)
                  or _equal(reference[2], r[2]))
            steady.append(_fmt(r[1]) + ("" if ok else " WRONG"))
            first.append(_fmt(r[0]))
        best = [results[k][1] for k in ("python", "njit")
                if k in results and not isinstance(results[k], str)]
        for kind in ("ag-auto", "ag-numba"):
            r = results.get(kind)
            steady.append(f"{r[1] / min(best):.2f}x" if best and r and not isinstance(r, str)
                          else "-")
        steady_rows.append(steady)
        first_rows.append(first)
        print(f"  measured {name}", file=sys.stderr)

    print_table("Steady state (median time per call; ratios vs the faster of njit and plain Python)",
          header, steady_rows)
    print_table("First call (convert + trace + compile + run; %s)" % (
        "this process" if args.first_in_process else
        "fresh process, cold caches, after Numba's start-up"),
          ["workload"] + args.backends, first_rows)
    print_table("Call overhead on 16 floats (median time per call)", ["call"] + list(_KINDS),
                call_overhead(budget))
    if not args.no_cache_probe and args.workloads:
        print(f"\nFresh process, {args.workloads[0]}, first call: {cache_hit_time(args.workloads[0])}")


if __name__ == "__main__":
    main()
