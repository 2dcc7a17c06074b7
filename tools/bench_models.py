"""Benchmark: the train steps of the model programs (examples/mlp_classifier.py and
examples/rnn_classifier.py) through every backend against plain Python, printed as tables.

    python tools/bench_models.py                     # both programs, all backends
    python tools/bench_models.py -p mlp_classifier   # one program
    python tools/bench_models.py --quick             # shorter measurements

Each program is measured in two setups: "as written" (the weights built by the first
train step, dropout from a Generator), and "prebuilt, no dropout" (the weights built by a
plain call before the first step, dropout=0), which leaves out the parts of issue 16 still
in progress so the rest can be measured today. A setup that fails on a backend shows the
error: that is a finding.

Steady state is the median time per train step on one batch with one learning rate, the
samples of all backends taken round-robin (tools/bench_workloads.py's convention) after two
warm-up steps; plain Python is the undecorated method (`Class.train_step.python_function`)
on a model of its own, measured in the same run, and the ratios are against it. A backend
whose first two losses differ from plain Python's is marked WRONG. "traces" is how often
the train step traced over its first call and a two-epoch training run whose Python float
learning rate changes every epoch (2 is the goal: the first call builds, the second traces
with the weights as inputs). "first" is the first train step of a new model (convert +
trace + compile + run) in a fresh process with empty compile caches, after Numba's own
start-up (reported apart).
"""

import argparse
import json
import logging
import os
import subprocess
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_EXAMPLES = os.path.join(_ROOT, "examples")
for _path in (_ROOT, _EXAMPLES):
    if _path not in sys.path:
        sys.path.insert(0, _path)

# BLAS on one thread, and cold compile caches, unless the caller chose.
from tools.scratch import benchmark_environment, scratch_dir  # noqa: E402

benchmark_environment("ag-bench-models-")

import numba  # noqa: E402
import numpy as np  # noqa: E402

from models.training import load_program as _load  # noqa: E402
from tools.bench_workloads import (Footnotes, _fmt, fresh_process_environment,  # noqa: E402
                                   print_table, sample_round_robin, settle)

PROGRAMS = {"mlp_classifier": "MLPClassifier", "rnn_classifier": "RNNClassifier"}
SETUPS = {"as written": {"prebuilt": False, "model_args": {}},
          "prebuilt, no dropout": {"prebuilt": True, "model_args": {"dropout": 0.0}}}
BACKENDS = ("numpy", "numba", "auto")
LEARNING_RATE = 0.1
BATCH = 32


def load_program(name, backend):
    return _load(os.path.join(_EXAMPLES, name + ".py"), backend)


def new_model(module, name, setup):
    """(model, batch arguments, whole-dataset inputs and labels) of a new model of the program."""
    *inputs, labels = module.make_inputs()
    model = getattr(module, PROGRAMS[name])(**SETUPS[setup]["model_args"])
    if SETUPS[setup]["prebuilt"]:
        model(*(x[:1] for x in inputs))
    batch = tuple(x[:BATCH] for x in inputs) + (labels[:BATCH], LEARNING_RATE)
    return model, batch, inputs, labels


def new_step(name, setup, kind):
    """(train step, batch) of a new model of the program: for kind "python" the undecorated
    method on a model of its own (plain Python), else the staged one on backend `kind`."""
    module = load_program(name, "numpy" if kind == "python" else kind)
    model, batch, _, _ = new_model(module, name, setup)
    step = (type(model).train_step.python_function.__get__(model) if kind == "python"
            else model.train_step)
    return step, batch


def _error(e):
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text[:160]}"


class _AutoReasons(logging.Handler):
    """Collects why backend="auto" ran the train step's graph on the NumPy interpreter (its
    INFO log, where it gives one)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.reasons = []

    def emit(self, record):
        message = record.getMessage()
        if "'train_step'" in message:
            self.reasons.append(message.split(": ", 2)[-1])


def _executor(step, batch):
    """What runs the trace of `step(*batch)` (on auto, once it settled: bench_workloads.
    settle): Numba's compiled code or the NumPy interpreter."""
    executable = step.get_concrete_function(*batch).executable
    graph = getattr(executable, "compiled_graph", None)
    return "Numba" if graph is not None and graph._compiled else "the NumPy interpreter"


def steady_state(name, setup, backends, budget, samples=7):
    """{kind: seconds per step or an error string} for plain Python and `backends`, and what
    auto chose."""
    steps, first_losses = {}, {}
    auto = "-"
    reasons = _AutoReasons()
    logger = logging.getLogger("autograph")
    logger.addHandler(reasons)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        for kind in ("python",) + tuple(backends):
            step, batch = new_step(name, setup, kind)
            try:
                first_losses[kind] = [step(*batch) for _ in range(2)]
                settle(step, batch)
                start = time.perf_counter()
                step(*batch)
                once = max(time.perf_counter() - start, 1e-7)
                if kind == "auto":
                    auto = _executor(step, batch)
            except Exception as e:  # reported in the table
                steps[kind] = _error(e)
                continue
            steps[kind] = (step, batch, max(1, int(budget / samples / once)))
    finally:
        logger.removeHandler(reasons)
        logger.setLevel(level)
    calls = {kind: value for kind, value in steps.items() if isinstance(value, tuple)}
    medians = sample_round_robin(calls, samples)
    results = {}
    for kind in steps:
        if kind not in medians:
            results[kind] = steps[kind]
            continue
        same = np.allclose(first_losses[kind], first_losses["python"], rtol=1e-12, atol=0)
        results[kind] = (medians[kind], same)
    if reasons.reasons:
        auto += " (%s)" % "; ".join(dict.fromkeys(reasons.reasons))
    return results, auto


_FIRST_CALL = r"""
import json, os, sys, time
sys.path[:0] = [{root!r}, {examples!r}]
from runtime.executors.numba import support
t0 = time.perf_counter()
support.check_mask(1, 1, 0)      # Numba's own start-up, paid once by any jitted code
startup = time.perf_counter() - t0
from tools.bench_models import load_program, new_model
from models.training import fit
module = load_program({name!r}, {backend!r})
model, batch, inputs, labels = new_model(module, {name!r}, {setup!r})
try:
    start = time.perf_counter()
    model.train_step(*batch)
    first = time.perf_counter() - start
    fit(model.train_step, inputs, labels, epochs=2)
    out = {{"first": first, "startup": startup, "traces": model.train_step.trace_count}}
except Exception as e:
    out = {{"error": "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:160])}}
print(json.dumps(out))
"""


def first_call_fresh(name, setup, backend):
    """{"first", "startup", "traces"} or {"error"} of a new model's first train step and a
    two-epoch training run, in a fresh process with empty compile caches."""
    env = fresh_process_environment()
    env["AUTOGRAPH_CACHE_DIR"] = scratch_dir("ag-first-")
    env["NUMBA_CACHE_DIR"] = scratch_dir("nb-first-")
    code = _FIRST_CALL.format(root=_ROOT, examples=_EXAMPLES, name=name, setup=setup,
                              backend=backend)
    out = subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", "-c", code],
                         capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1][:160]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-p", "--programs", nargs="*", default=list(PROGRAMS),
                        choices=list(PROGRAMS))
    parser.add_argument("-b", "--backends", nargs="*", default=list(BACKENDS),
                        choices=list(BACKENDS))
    parser.add_argument("--quick", action="store_true", help="shorter measurements")
    args = parser.parse_args(argv)
    budget = 0.3 if args.quick else 1.0

    print(f"numpy {np.__version__}, numba {numba.__version__}, python {sys.version.split()[0]}")
    steady_rows, first_rows, auto_lines = [], [], []
    footnote = Footnotes()
    startup = None
    for name in args.programs:
        for setup in SETUPS:
            label = f"{name} ({setup})"
            results, auto = steady_state(name, setup, args.backends, budget)
            python = results["python"]
            row = [label, _fmt(python[0]) if isinstance(python, tuple) else footnote(python)]
            ratios = []
            for backend in args.backends:
                r = results[backend]
                if isinstance(r, str):
                    row.append(footnote(r))
                    ratios.append("-")
                    continue
                row.append(_fmt(r[0]) + ("" if r[1] else " WRONG"))
                ratios.append(f"{r[0] / python[0]:.2f}x" if isinstance(python, tuple) else "-")
            steady_rows.append(row + ratios)
            first_row = [label]
            for backend in args.backends:
                fresh = first_call_fresh(name, setup, backend)
                if "error" in fresh:
                    first_row += [footnote(fresh["error"]), "-"]
                    continue
                startup = fresh["startup"]
                first_row += [_fmt(fresh["first"]), str(fresh["traces"])]
            first_rows.append(first_row)
            if "auto" in args.backends:
                auto_lines.append(f"  {label}: {auto}")
            print(f"  measured {label}", file=sys.stderr)

    print_table("Steady state (median time per train step, batch of %d; ratios vs plain Python)"
                % BATCH, ["program (setup)", "python"] + list(args.backends)
                + [f"{b}/python" for b in args.backends], steady_rows)
    print_table("First call (convert + trace + compile + run; fresh process, cold caches, after "
                "Numba's start-up%s) and traces over it and two epochs (goal: 2)"
                % (f", {_fmt(startup)}" if startup is not None else ""),
                ["program (setup)"] + [c for b in args.backends for c in (f"{b} first",
                                                                          f"{b} traces")],
                first_rows)
    if auto_lines:
        print("\nWhat backend='auto' ran the train step on:")
        print("\n".join(auto_lines))
    if footnote.notes:
        print("\nErrors:")
        footnote.print()


if __name__ == "__main__":
    main()
