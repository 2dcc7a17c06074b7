"""Memory of staged functions over their lifetime: what stays resident when functions are
made, called and dropped, when one function is called with many Python numbers, and
whether a dropped model instance is freed.

    python tools/bench_memory.py [--functions N] [--scalars N] [--budget SECONDS]

Each row runs in a fresh process, with a fresh, empty on-disk cache of compiled code (so
a Numba compile is a real compile, as on a first run), and reports:

  made      how many functions (or calls with distinct numbers) the row made; a Numba row
            that compiles a new graph per function stops after --budget seconds
  compiles  Numba compiles (new generated modules: equal graphs share one)
  traces    traces made (the "scalars" rows: one per distinct number until Python numbers
            are graph inputs)
  RSS MB    growth of the resident set (/proc/self/statm) over the row, after gc
  KB each   that growth per function (or per distinct number)
  kept KB   Python heap (tracemalloc, in a second run of the row: its own tables would
            count in RSS) still allocated after everything was dropped, per function: what
            our tables keep, and ~0.07 KB per trace that tracemalloc itself keeps (the name
            of each graph's generated function); numpy rows only
  freed     whether every function, trace (and model; for "numba.njit alone", every
            dispatcher) of the row was freed (weak references)

Rows:
  functions           `def make(k): @ag.function def f(x): return x * k + 1`, called and
                      dropped: distinct function objects with the same code, and a
                      distinct constant `k` in each graph
  functions, one graph  the same with one `k`: equal graphs
  scalars             one function called with distinct Python numbers, then dropped
  distinct code       functions made from distinct code objects (exec, as a notebook
                      re-running a cell makes them)
  model               a model with a staged method `step(self, x)`: freed after `del`?
  numba.njit alone    the "functions" row without autograph: `numba.njit` functions with
                      a distinct constant each, called and dropped (what Numba keeps of
                      each dispatcher it compiled: its target context registers every
                      compiled function, and the machine code is never unloaded)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _numba_modules():
    return sum(name.startswith("_ag_numba_") for name in sys.modules)


def _measure(scenario, backend, count, budget, heap):
    """Runs one row in this process; returns its figures as a dict (with `heap`, the Python
    heap kept, measured with tracemalloc, else the RSS growth)."""
    import gc
    import linecache
    import time
    import tracemalloc
    import warnings
    import weakref

    import numpy as np

    sys.path.insert(0, ROOT)
    import autograph as ag

    warnings.simplefilter("ignore", RuntimeWarning)   # (the warning after five traces)
    x = np.arange(4.0)

    def make(k):
        @ag.function(backend=backend)
        def f(x):
            return x * k + 1
        return f

    def from_distinct_code(i):
        source = "def f(x):\n    return x * 2 + 1\n"
        name = "<cell-%d>" % i
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        namespace = {}
        exec(compile(source, name, "exec"), namespace)
        f = ag.function(namespace["f"], backend=backend)
        f(x)
        del linecache.cache[name]   # (as after a notebook's cell history is cleared)
        return f

    class Model:
        def __init__(self):
            self.W = np.ones(4)

        @ag.function(backend=backend)
        def step(self, x):
            return x * self.W + 1

    def njit_alone(k):
        import numba
        namespace = {"numba": numba}
        exec("@numba.njit\ndef f(x):\n    return x * %d + 1\n" % k, namespace)
        f = namespace["f"]
        f(x)
        return f

    # Warm up: imports, the conversion of each function's code, first compiles.
    for k in range(3):
        make(k)(x)
        make(0)(x)
    from_distinct_code(-1)
    Model().step(x)
    if backend == "numba":
        njit_alone(-1)
    traces_before = Model.step.trace_count
    gc.collect()

    if heap:
        tracemalloc.start()
    heap_before = tracemalloc.get_traced_memory()[0] if heap else 0
    rss_before = _rss_mb()
    modules_before = _numba_modules()
    start = time.perf_counter()
    made = traces = 0
    refs = []
    if scenario in ("functions", "functions, one graph", "distinct code"):
        for i in range(count):
            if scenario == "distinct code":
                f = from_distinct_code(i)
            else:
                f = make(1000 + i if scenario == "functions" else 3)
                f(x)
            refs.append(weakref.ref(f))
            refs.append(weakref.ref(f.get_concrete_function(x)))
            traces += f.trace_count
            del f
            made += 1
            if time.perf_counter() - start > budget:
                break
    elif scenario == "numba.njit alone":
        for i in range(count):
            refs.append(weakref.ref(njit_alone(1000 + i)))
            made += 1
            if time.perf_counter() - start > budget:
                break
    elif scenario == "scalars":
        @ag.function(backend=backend)
        def scaled(x, k):
            return x * k + 1

        for k in range(count):
            scaled(x, k + 0.5)
            made += 1
            if time.perf_counter() - start > budget:
                break
        traces = scaled.trace_count
        refs = [weakref.ref(scaled), weakref.ref(scaled.get_concrete_function(x, 0.5))]
        del scaled
    elif scenario == "model":
        model = Model()
        model.step(x)
        refs = [weakref.ref(model), weakref.ref(Model.step.get_concrete_function(model, x))]
        traces = Model.step.trace_count - traces_before
        del model
        made = 1
    gc.collect()
    seconds = time.perf_counter() - start
    freed = all(r() is None for r in refs)
    del refs   # (not counted as kept)
    gc.collect()
    rss_growth = _rss_mb() - rss_before
    kept = (tracemalloc.get_traced_memory()[0] - heap_before) / 1024 if heap \
        else None
    compiles = _numba_modules() - modules_before if backend == "numba" else None
    return {"scenario": scenario, "backend": backend, "made": made, "traces": traces,
            "compiles": compiles, "rss_mb": rss_growth,
            "kb_each": rss_growth * 1024 / max(made, 1),
            "kept_kb_each": None if kept is None else kept / max(made, 1),
            "freed": freed, "seconds": seconds}


def _run_row(scenario, backend, count, budget):
    """Runs one row in a fresh process with an empty on-disk cache of compiled code (the
    numpy rows twice: for the RSS, then for the heap kept)."""
    def run(heap):
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as cache:
            environment = dict(os.environ, AUTOGRAPH_CACHE_DIR=cache)
            output = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--row", scenario, "--backend",
                 backend, "--count", str(count), "--budget", str(budget)]
                + (["--heap"] if heap else []),
                env=environment, check=True, capture_output=True, text=True).stdout
        return json.loads(output.strip().splitlines()[-1])

    row = run(heap=False)
    if backend == "numpy":
        with_heap = run(heap=True)
        row["kept_kb_each"] = with_heap["kept_kb_each"]
        row["freed"] = row["freed"] and with_heap["freed"]
    return row


def _cell(value, form):
    return "-" if value is None else form % value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=2000,
                        help="functions made, called and dropped per row (default 2000)")
    parser.add_argument("--scalars", type=int, default=200,
                        help="distinct Python numbers passed to one function (default 200)")
    parser.add_argument("--budget", type=float, default=30.0,
                        help="seconds after which a row stops making functions (default 30)")
    parser.add_argument("--row", help=argparse.SUPPRESS)
    parser.add_argument("--backend", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--heap", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.row:
        print(json.dumps(_measure(options.row, options.backend, options.count,
                                  options.budget, options.heap)))
        return
    rows = []
    for backend in ("numpy", "numba"):
        rows.append(("functions", backend, options.functions))
        rows.append(("functions, one graph", backend, options.functions))
        rows.append(("scalars", backend, options.scalars))
        rows.append(("model", backend, 1))
    rows.append(("distinct code", "numpy", min(options.functions, 500)))
    rows.append(("numba.njit alone", "numba", options.functions))
    header = "%-21s %-7s %6s %8s %6s %8s %9s %8s %6s %7s" % (
        "row", "backend", "made", "compiles", "traces", "RSS MB", "KB each", "kept KB",
        "freed", "seconds")
    print(header)
    print("-" * len(header))
    for scenario, backend, count in rows:
        r = _run_row(scenario, backend, count, options.budget)
        print("%-21s %-7s %6d %8s %6s %8.1f %9.1f %8s %6s %7.1f" % (
            r["scenario"], r["backend"], r["made"], _cell(r["compiles"], "%d"),
            _cell(r["traces"] if scenario != "numba.njit alone" else None, "%d"),
            r["rss_mb"], r["kb_each"], _cell(r["kept_kb_each"], "%.2f"),
            "yes" if r["freed"] else "NO", r["seconds"]), flush=True)


if __name__ == "__main__":
    main()
