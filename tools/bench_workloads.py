"""Benchmark: workloads through every backend, printed as tables, in three groups: the
scalar loops of tools/workloads.py, the vectorised NumPy kernels of
tools/vectorised_workloads.py, and the train steps of the model programs of examples/.

    python tools/bench_workloads.py                          # every group, every backend
    python tools/bench_workloads.py --group vectorised       # some groups
    python tools/bench_workloads.py -w collatz ema softmax   # some workloads
    python tools/bench_workloads.py --quick                  # fewer repeats
    python tools/bench_workloads.py --tiny                   # tiny kernels: a smoke run (the tests)

Steady state is the median time per call, the samples of all backends taken round-robin
(so load changes on a shared machine shift them alike). Ratios are against plain Python/NumPy
(the undecorated function; for a train step the undecorated method), against `numba.njit(fn)`
and against the faster of the two ("best"), all measured in the same run; njit cannot take a
method on a class, so the train steps have no njit figure, and where njit refuses a kernel
its reason is a footnote. A backend whose result or arguments after the first call differ
from plain Python's is marked WRONG. The model programs run in the setup "prebuilt, no
dropout" of tools/bench_models.py, which measures them further.

"first" is the first call of a fresh function (convert + trace + compile + run). For the
scalar workloads it is measured in a fresh process with empty compile caches after Numba's
own start-up (which any jitted code pays once per process, reported apart;
`--first-in-process` measures it in this process instead, where a graph compiled for one
backend is reused by the next); for the vectorised kernels in this process unless
`--fresh-first-vectorised`; for the train steps in this process (tools/bench_models.py
measures them in fresh processes). tf.function and jax.jit are not measured here (their
figures are in ../shared/bench/README.md).

BLAS runs on one thread unless the environment says otherwise (OPENBLAS_NUM_THREADS, as
tools/bench_grad.py): on a loaded machine BLAS threads waiting for each other made the
matmuls of every backend 10-80x slower, which hid the differences between backends. The
first line printed says how it was set, and the load average.
"""

import argparse
import copy
import gc
import os
import re
import statistics
import subprocess
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# BLAS on one thread, and cold compile caches, unless the caller chose (see the
# docstring): first-call figures must include compiling.
from tools.scratch import benchmark_environment, scratch_dir  # noqa: E402

benchmark_environment("ag-bench-")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
from tools import vectorised_workloads  # noqa: E402
from tools.workloads import WORKLOADS  # noqa: E402

BACKENDS = ("python", "ag-numpy", "ag-numba", "ag-auto", "njit")
GROUPS = ("scalar", "vectorised", "models")
MODEL_SETUP = "prebuilt, no dropout"   # (of tools/bench_models.py)


def _make_callable(kind, fn):
    if kind == "python":
        return fn
    if kind == "njit":
        return numba.njit(fn)
    backend = kind.split("-", 1)[1]
    return ag.function(fn, backend=backend)


def settle(f, inputs, timeout=600):
    """Calls `f` (any callable) until, if it is an ag.function, it traces no more and, if
    backend "auto" compiles its graph in the background (a small graph once called
    often), one executor runs its calls for good: the compile done and, for a graph auto
    times on both executors, the timed turns taken (runtime/executors/numba/compiled.py).
    Steady-state figures then time what it settled on, and samples are sized from a
    settled call; the first call is timed before this. A train step traces again on its
    second call (its layers set new attributes on the first)."""
    get_concrete = getattr(f, "get_concrete_function", None)
    if get_concrete is None:
        return
    for _ in range(100):
        traces = f.trace_count
        f(*inputs)
        executable = get_concrete(*inputs).executable
        # (On auto, the code of a graph it compiles is generated after its first call, and
        # the call after that hands the trace over: runtime/executors/numba/pending.py.)
        built = getattr(executable, "built", None)
        for _ in range(getattr(executable, "calls_to_build", 0)):
            f(*inputs)    # (a small graph is compiled once called often: policy.py)
        graph = built(timeout) if built is not None else getattr(executable,
                                                                 "compiled_graph", None)
        if f.trace_count == traces and built is None and (graph is None or graph.settled):
            return
        if graph is not None:
            graph.wait(timeout)


def time_calls(f, inputs, budget):
    """(first call seconds, median seconds per call, result) of f(*inputs)."""
    start = time.perf_counter()
    result = f(*inputs)
    first = time.perf_counter() - start
    settle(f, inputs)
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


def measure_interleaved(kinds, prepare, budget, samples=7):
    """{kind: (first call seconds, median seconds per call, result) or an error string},
    the samples of all kinds taken round-robin (`sample_round_robin`). `prepare(kind)` gives
    (callable, arguments) of a kind; the result is what the first call returned and the
    arguments after it (copies: later calls may change them)."""
    setup = {}
    results = {}
    for kind in kinds:
        try:
            f, inputs = prepare(kind)
            start = time.perf_counter()
            returned = f(*inputs)
            first = time.perf_counter() - start
            result = copy.deepcopy((returned, inputs))
            settle(f, inputs)
            start = time.perf_counter()
            f(*inputs)
            once = max(time.perf_counter() - start, 1e-7)
        except Exception as e:  # reported in the table: a failing backend is a finding
            results[kind] = error_text(e)
            continue
        setup[kind] = (f, inputs, max(1, int(budget / samples / once)), first, result)
    medians = sample_round_robin({kind: (f, inputs, n) for kind, (f, inputs, n, _, _)
                                  in setup.items()}, samples)
    for kind, (_, _, _, first, result) in setup.items():
        results[kind] = (first, medians[kind], result)
    return {kind: results[kind] for kind in kinds}


def prepare_function(fn, make_inputs):
    """`prepare` of measure_interleaved for a plain function: it, as `kind` runs it, on the
    inputs the kinds before it had where their calls left them as made, else on new ones.
    The same arrays for every kind: ista's time changed by up to 2x with the memory a new
    input set got (same values, same code), which made the ratios of kinds with separate
    sets noise."""
    shared = make_inputs()
    made = copy.deepcopy(shared)

    def prepare(kind):
        unchanged = all(_identical(a, b) for a, b in zip(shared, made))
        return _make_callable(kind, fn), shared if unchanged else make_inputs()
    return prepare


def _identical(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(
            a, b, equal_nan=True)
    return type(a) is type(b) and a == b


def prepare_train_step(program):
    """`prepare` of measure_interleaved for a model program's train step: a new model of its
    own for each kind (tools/bench_models.py's setup MODEL_SETUP), the undecorated method for
    "python" (njit cannot take a method on a class: `measure_group` leaves it out)."""
    from tools import bench_models   # (it imports this module: here, not at the top)

    def prepare(kind):
        return bench_models.new_step(program, MODEL_SETUP,
                                     "python" if kind == "python" else kind.split("-", 1)[1])
    return prepare


def group_workloads(group, tiny=False):
    """{name: prepare} of a group's workloads (`tiny`: the vectorised kernels' tiny inputs)."""
    if group == "scalar":
        return {name: prepare_function(fn, make_inputs)
                for name, (fn, make_inputs) in WORKLOADS.items()}
    if group == "vectorised":
        return {name: prepare_function(fn, vectorised_workloads.TINY[name] if tiny
                                       else make_inputs)
                for name, (fn, make_inputs) in vectorised_workloads.WORKLOADS.items()}
    from tools.bench_models import PROGRAMS
    return {name: prepare_train_step(name) for name in PROGRAMS}


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def error_text(e):
    """An error as a table shows it: its type and first line; for Numba's typing errors,
    whose first line only names the compiler stage, the call it could not type and why."""
    lines = [line.strip() for line in _ANSI.sub("", str(e)).splitlines() if line.strip()]
    text = lines[0] if lines else ""
    if isinstance(e, numba.core.errors.TypingError):
        call = next((line[4:] for line in lines if line.startswith(">>> ")), None)
        why = next((line.split("Error: ", 1)[1] for line in lines[1:] if "Error: " in line),
                   None)
        text = ": ".join(part for part in (call, why) if part) or text
    return f"{type(e).__name__}: {text[:160]}"


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


def _fmt(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def _equal(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_equal, a, b))
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


def print_table(title, head, rows):
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    print(f"\n{title}")
    for r in [head] + rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))


class Footnotes:
    """Errors shown in a table as [n], each written out once below it (paths relative to the
    repository)."""

    def __init__(self):
        self.notes = {}

    def __call__(self, error):
        error = error.replace(_ROOT + os.sep, "")
        return "error [%d]" % self.notes.setdefault(error, len(self.notes) + 1)

    def print(self):
        for error, number in self.notes.items():
            print(f"[{number}] {error}")


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


def call_overhead(budget, footnote=str):
    """Per-call time on 16 floats of f(x) = x + 1; of a step taking a Python float (a
    learning rate: an input of the trace); and of a method reading two weights held on
    its object (njit: the weights passed as arguments, which it cannot find itself). An
    error is shown as `footnote` gives it."""
    x = np.arange(16.0)
    layer = _Layer()
    cases = [("x + 1", _plus_one, _plus_one, (x,)),
             ("x - lr * x, lr a Python float", _scaled, _scaled, (x, 0.5)),
             ("x * self.w + self.b (state)", layer.apply, _affine, None)]
    rows = []
    for name, fn, njit_fn, inputs in cases:
        def prepare(kind, fn=fn, njit_fn=njit_fn, inputs=inputs):
            if kind == "njit":
                return _make_callable(kind, njit_fn), inputs or (x, layer.w, layer.b)
            return _make_callable(kind, fn), inputs or (x,)
        # (Sampled round-robin: a load change on this shared machine shifts all alike.)
        got = measure_interleaved(_KINDS, prepare, budget)
        rows.append([name] + [footnote(f"{name}, {kind}: {got[kind]}")
                              if isinstance(got[kind], str) else _fmt(got[kind][1])
                              for kind in _KINDS])
    return rows


_FIRST_CALL = r"""
import sys, time
sys.path.insert(0, {root!r})
import numba
import autograph as ag
from runtime.executors.numba import support
from {module} import WORKLOADS
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


def fresh_process_environment():
    """The environment of a process whose first call is measured: this one's, with Python
    writing and reading bytecode caches (.pyc), as in an installed package. Without them
    (PYTHONDONTWRITEBYTECODE, set on some machines) every module a first call imports is
    compiled from source: the runtime's Numba modules take 20-30 ms instead of 5."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def first_call_fresh(kind, name, cache_dirs=None, cache=False, module="tools.workloads"):
    """(first-call seconds, Numba start-up seconds) of the workload `name` of `module` in a
    fresh process; empty caches unless `cache_dirs` (autograph, numba) are given."""
    env = fresh_process_environment()
    if cache_dirs is None:
        cache_dirs = (scratch_dir("ag-first-"), scratch_dir("nb-first-"))
    env["AUTOGRAPH_CACHE_DIR"], env["NUMBA_CACHE_DIR"] = cache_dirs
    code = _FIRST_CALL.format(root=_ROOT, name=name, kind=kind, cache=cache, module=module)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=900)
    if out.returncode != 0:
        return "error: %s" % (out.stderr.strip().splitlines()
                              or ["exit status %d" % out.returncode])[-1][:160]
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


_TITLES = {
    "scalar": "Scalar workloads (tools/workloads.py)",
    "vectorised": "Vectorised kernels (tools/vectorised_workloads.py)",
    "models": f"Train steps (examples/, {MODEL_SETUP}, a batch of 32)",
}
_AG = ("ag-numpy", "ag-numba", "ag-auto")


def _ratio_columns(backends):
    """(header, ag kind, reference) of the ratio columns: each ag backend against plain
    Python and against njit, then auto and numba against the faster of the two."""
    columns = [(f"{kind[3:]}/{reference[:2] if reference == 'python' else reference}",
                kind, reference)
               for reference in ("python", "njit") for kind in _AG
               if kind in backends and reference in backends]
    return columns + [(f"{kind[3:]}/best", kind, "best") for kind in ("ag-auto", "ag-numba")
                      if kind in backends]


def measure_group(group, names, backends, budget, samples, first, footnote, tiny=False):
    """(steady-state rows, first-call rows) of a group's workloads `names`; `first` says where
    first calls are measured: "fresh" (a process each) or "process" (this one)."""
    prepares = group_workloads(group, tiny)
    # (njit cannot take a method on a class: the train steps have no njit figure, "-")
    kinds = [kind for kind in backends if not (group == "models" and kind == "njit")]
    ratios = _ratio_columns(backends)
    steady_rows, first_rows = [], []
    for name in names:
        results = measure_interleaved(kinds, prepares[name], budget, samples)
        fresh_errors = {}
        if first == "fresh":
            module = ("tools.workloads" if group == "scalar"
                      else vectorised_workloads.__name__)
            for kind in kinds:
                if isinstance(results[kind], str):
                    continue
                fresh = first_call_fresh(kind, name, module=module)
                if isinstance(fresh, str):
                    fresh_errors[kind] = footnote(f"{name}, {kind}, first call: {fresh}")
                else:
                    results[kind] = (fresh[0],) + tuple(results[kind][1:])
        reference = results.get("python")
        steady, first_row = [name], [name]
        for kind in backends:
            r = results.get(kind)
            if r is None:                       # (njit on a train step)
                steady.append("-")
                first_row.append("-")
            elif isinstance(r, str):
                steady.append(footnote(f"{name}, {kind}: {r}"))
                first_row.append("-")
            else:
                ok = (reference is None or isinstance(reference, str)
                      or _equal(reference[2], r[2]))
                steady.append(_fmt(r[1]) + ("" if ok else " WRONG"))
                first_row.append(fresh_errors.get(kind, _fmt(r[0])))
        seconds = {kind: r[1] for kind, r in results.items() if isinstance(r, tuple)}
        if "python" in seconds or "njit" in seconds:
            seconds["best"] = min(seconds[k] for k in ("python", "njit") if k in seconds)
        for _, kind, reference in ratios:
            steady.append(f"{seconds[kind] / seconds[reference]:.2f}x"
                          if kind in seconds and reference in seconds else "-")
        steady_rows.append(steady)
        first_rows.append(first_row)
        print(f"  measured {name}", file=sys.stderr)
    return steady_rows, first_rows


def _machine():
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"numpy {np.__version__}, numba {numba.__version__}, python "
            f"{sys.version.split()[0]}; {os.cpu_count()} cores, load average {load:.2f}; "
            f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-g", "--group", nargs="*", default=list(GROUPS), choices=GROUPS)
    parser.add_argument("-w", "--workloads", nargs="*",
                        help="only these workloads (of any group; default: all)")
    parser.add_argument("-b", "--backends", nargs="*", default=list(BACKENDS),
                        choices=BACKENDS)
    parser.add_argument("--quick", action="store_true", help="shorter measurements")
    parser.add_argument("--tiny", action="store_true",
                        help="tiny vectorised kernels, one short sample, first calls in this "
                             "process, no cache probe: checks the tool runs (the tests)")
    parser.add_argument("--no-cache-probe", action="store_true",
                        help="skip the fresh-process Numba cache measurement")
    parser.add_argument("--first-in-process", action="store_true",
                        help="measure the scalar workloads' first calls in this process "
                             "(faster, less honest)")
    parser.add_argument("--fresh-first-vectorised", action="store_true",
                        help="measure the vectorised kernels' first calls in fresh processes "
                             "(a process per kernel and backend: slow)")
    args = parser.parse_args(argv)
    budget, samples = (0.01, 1) if args.tiny else (0.3, 7) if args.quick else (1.0, 7)
    names = {group: list(group_workloads(group)) for group in args.group}
    if args.workloads is not None:
        known = [name for group in GROUPS for name in group_workloads(group)]
        unknown = sorted(set(args.workloads) - set(known))
        if unknown:
            parser.error("unknown workloads: %s (known: %s)" % (", ".join(unknown),
                                                                 ", ".join(known)))
        names = {group: [n for n in group_names if n in args.workloads]
                 for group, group_names in names.items()}

    print(_machine())
    footnote = Footnotes()
    header = list(args.backends) + [column for column, _, _ in _ratio_columns(args.backends)]
    tables = {}
    for group in args.group:
        if not names[group]:
            continue
        first = ("process" if args.tiny or (group == "scalar" and args.first_in_process)
                 or (group == "vectorised" and not args.fresh_first_vectorised)
                 or group == "models" else "fresh")
        steady_rows, first_rows = measure_group(group, names[group], args.backends, budget,
                                                samples, first, footnote, args.tiny)
        tables[group] = {"steady": steady_rows, "first": first_rows}
        print_table(f"{_TITLES[group]}, steady state (median time per call; ratios to plain "
                    "Python (py), to njit and to the faster of the two (best))",
                    ["workload"] + header, steady_rows)
        print_table(f"{_TITLES[group]}, first call (convert + trace + compile + run; %s)" % (
            "fresh process, cold caches, after Numba's start-up" if first == "fresh" else
            "this process, in the columns' order: a backend reuses what one before it "
            "converted, traced or compiled"), ["workload"] + list(args.backends), first_rows)
        if group == "models" and "njit" in args.backends:
            print("(njit cannot take a method on a class: its column shows -)")
    if "scalar" in args.group:
        tables["overhead"] = call_overhead(budget, footnote)
        print_table("Call overhead on 16 floats (median time per call)",
                    ["call"] + list(_KINDS), tables["overhead"])
        if not (args.no_cache_probe or args.tiny) and names["scalar"]:
            print(f"\nFresh process, {names['scalar'][0]}, first call: "
                  f"{cache_hit_time(names['scalar'][0])}")
    if footnote.notes:
        print("\nErrors:")
        footnote.print()
    return tables


if __name__ == "__main__":
    main()
