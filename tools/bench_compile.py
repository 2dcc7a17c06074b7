"""Benchmark: how long Numba takes to compile the code the numba backend generates for a
graph, against `numba.njit` of the plain function where njit can take it, printed as a
table with what dominates each compile.

    python tools/bench_compile.py                  # the default workloads
    python tools/bench_compile.py -w loop100 mlp   # some workloads
    python tools/bench_compile.py --repeat 7       # more compiles per figure
    python tools/bench_compile.py --big            # also the gradient of 40 unary ops (~1-2 min
                                                   # per compile)

Workloads: `loop100`, a loop whose body is 100 scalar ops (generated below: arithmetic,
abs, min/max, an index modulo the length); the scalar loops of tools/workloads.py; the
train steps of examples/mlp_classifier.py and examples/rnn_classifier.py (the setup
"prebuilt, no dropout" of tools/bench_models.py; njit cannot take a method, so they have no
njit figure); with `--big`, `ag.value_and_grad` of tests/gradients/test_elementwise_rules.py's
`unary_mix`.

How it measures: each workload runs once on backend "numba" (which also compiles the
runtime's kernels, support.py, that generated code calls), then its generated `run_graph`
and the plain function are compiled `--repeat` times each by fresh dispatchers
(`numba.njit(...)(fn).compile(signature)`, no disk cache), taking turns so load changes on
a shared machine shift both alike, after a garbage collection. Figures are medians of the
process's CPU time (time.process_time: a compile runs on one thread, and on a machine
shared with other work its wall time follows the load). The passes are Numba's own
timings (wall time) of the last compile (`overloads[sig].metadata["pipeline_times"]`),
grouped: front end (bytecode to SSA IR), typing, lowering (Numba IR to LLVM IR, LLVM's
optimisation and machine code), other. "blocks" is the number of basic blocks of the
Numba IR after the pipeline (Numba's SSA reconstruction is about quadratic in it), "LLVM
lines" the size of the optimised module (with the kernels it calls).
"""

import argparse
import gc
import importlib.util
import os
import statistics
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:   # (tools.bench_models puts examples/ there for the train steps)
    sys.path.insert(0, _ROOT)

from tools.scratch import benchmark_environment, scratch_dir  # noqa: E402

benchmark_environment("ag-bench-compile-")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
from tools.bench_workloads import print_table  # noqa: E402
from tools.workloads import WORKLOADS  # noqa: E402

# --- the 100-op loop body ---------------------------------------------------------------------

_TEMPLATES = ("{a} * 1.01 + {b}", "{a} - {b} * 0.5", "{a} / (1.0 + abs({b}))",
              "max({a}, {b}) - 0.1", "min({a}, {b}) + 0.2", "{a} * {b} * 0.001",
              "abs({a} - {b})", "{a} + 0.3 * {b}")


def loop100_source():
    """A loop whose body has 100 scalar ops (each line one or two), written as a user
    would: element reads, one of them modulo the length (a check and a bounds check in
    generated code), arithmetic, abs, min and max."""
    lines = ["def loop100(x):",
             "    n = x.shape[0]",
             "    s = 0.0",
             "    for i in range(n):",
             "        c0 = x[i]",
             "        c1 = x[(i + 1) % n]"]
    for k in range(2, 48):
        template = _TEMPLATES[k % len(_TEMPLATES)]
        text = template.format(a="c%d" % (k - 1), b="c%d" % (k - 2))
        lines.append("        c%d = %s" % (k, text))
    lines += ["        s += c47", "    return s", ""]
    return "\n".join(lines)


def _load_source(name, source):
    """A function defined in a real file (both njit and ag.function read its source)."""
    path = os.path.join(scratch_dir("ag-bench-compile-src-"), name + ".py")
    with open(path, "w") as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


# --- workloads: name -> () -> (staged callable, its arguments, plain function or None) ----------

def _loop100():
    fn = _load_source("loop100", loop100_source())
    return ag.function(fn, backend="numba"), (np.linspace(0.1, 1.0, 1000),), fn


def _scalar(name):
    def make():
        fn, inputs = WORKLOADS[name]
        return ag.function(fn, backend="numba"), inputs(), fn
    return make


def _train_step(program):
    def make():
        from tools.bench_models import new_step
        step, batch = new_step(program, "prebuilt, no dropout", "numba")
        step(*batch)           # the first step sets the layers' attributes: the next traces again
        return step, batch, None
    return make


def _unary_mix_value_and_grad(x):
    from tests.gradients.test_elementwise_rules import unary_mix
    return ag.value_and_grad(unary_mix)(x)


def _unary_mix_grad():
    sys.path.insert(0, os.path.join(_ROOT, "tests", "gradients"))   # (its helpers' home)
    step = ag.function(_unary_mix_value_and_grad, backend="numba")
    return step, (np.array([[0.23, 0.41, 0.77], [0.62, 0.18, 0.55]]),), None


WORKLOADS_COMPILED = {
    "loop100": _loop100,
    "collatz": _scalar("collatz"),
    "primes": _scalar("primes"),
    "mandelbrot": _scalar("mandelbrot"),
    "edit_distance": _scalar("edit_distance"),
    "mlp": _train_step("mlp_classifier"),
    "rnn": _train_step("rnn_classifier"),
}
BIG = {"unary_mix_grad": _unary_mix_grad}

# --- measuring ---------------------------------------------------------------------------------

_GROUPS = (("front end", ("translate_bytecode", "fixup_args", "ir_processing",
                          "with_lifting", "inline_closure_likes", "rewrite_semantic_constants",
                          "dead_branch_prune", "generic_rewrites",
                          "make_function_op_code_to_jit_function", "inline_inlinables",
                          "find_literally", "literal_unroll", "reconstruct_ssa",
                          "literal_propagation_subpipeline")),
           ("typing", ("nopython_type_inference",)),
           ("lowering", ("native_lowering",)))


def _generated(step, args):
    """(py_func of the generated run_graph, its Numba signature, number of source lines)."""
    graph = step.get_concrete_function(*args).executable.compiled_graph
    dispatcher = graph.dispatcher
    return dispatcher.py_func, dispatcher.signatures[0], graph.source.count("\n")


def _compile(fn, signature, **options):
    """(seconds, compile result) of a fresh dispatcher's compile of `fn`."""
    dispatcher = numba.njit(**options)(fn)
    gc.collect()
    start = time.process_time()
    dispatcher.compile(signature)
    seconds = time.process_time() - start
    return seconds, dispatcher.overloads[dispatcher.signatures[0]]


def _passes(result):
    """{group: seconds} of Numba's pass timings of a compile."""
    times = {}
    for passes in result.metadata["pipeline_times"].values():
        for name, t in passes.items():
            name = name.split("_", 1)[1]            # "12_nopython_type_inference"
            group = next((g for g, names in _GROUPS if name in names), "other")
            times[group] = times.get(group, 0.0) + t.init + t.run + t.finalize
    return times


def _size(result):
    blocks = len(result.type_annotation.blocks)
    llvm = result.library.get_llvm_str().count("\n")
    return blocks, llvm


def measure(name, make, repeat):
    step, args, plain = make()
    step(*args)
    fn, signature, lines = _generated(step, args)
    plain_signature = tuple(numba.typeof(a) for a in args)
    kinds = {"generated": (fn, signature, {"error_model": "numpy"})}
    if plain is not None:
        kinds["njit"] = (plain, plain_signature, {})
    times = {kind: [] for kind in kinds}
    results = {}
    for _ in range(repeat):
        for kind, (function, sig, options) in kinds.items():
            seconds, results[kind] = _compile(function, sig, **options)
            times[kind].append(seconds)
    row = {"name": name, "lines": lines}
    for kind in kinds:
        row[kind] = statistics.median(times[kind])
        row[kind + " passes"] = _passes(results[kind])
        row[kind + " size"] = _size(results[kind])
    return row


def _fmt(seconds):
    return "%.2f s" % seconds if seconds >= 0.995 else "%.0f ms" % (seconds * 1000)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-w", "--workloads", nargs="+",
                        choices=sorted(WORKLOADS_COMPILED) + sorted(BIG))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--big", action="store_true")
    options = parser.parse_args(argv)
    table = dict(WORKLOADS_COMPILED, **BIG)
    names = options.workloads or list(WORKLOADS_COMPILED) + (list(BIG) if options.big else [])
    numba.njit(lambda a: a + 1)(1.0)         # Numba's own start-up, paid once per process
    print("numba %s, %d compiles per figure (median), load average %.2f"
          % (numba.__version__, options.repeat, os.getloadavg()[0]))
    rows = []
    for name in names:
        row = measure(name, table[name], 1 if name in BIG else options.repeat)
        rows.append(row)
        cells = [name, str(row["lines"]), _fmt(row["generated"])]
        if "njit" in row:
            cells += [_fmt(row["njit"]), "%.2fx" % (row["generated"] / row["njit"])]
        else:
            cells += ["-", "-"]
        passes = row["generated passes"]
        cells += [" ".join("%s %s" % (g, _fmt(passes.get(g, 0.0)))
                           for g in ("front end", "typing", "lowering", "other"))]
        blocks, llvm = row["generated size"]
        cells += ["%d / %d" % (blocks, llvm)]
        if "njit" in row:
            passes = row["njit passes"]
            cells += [" ".join("%s %s" % (g, _fmt(passes.get(g, 0.0)))
                               for g in ("front end", "typing", "lowering", "other")),
                      "%d / %d" % row["njit size"]]
        else:
            cells += ["-", "-"]
        rows[-1]["cells"] = cells
        print(" | ".join(cells), flush=True)
    print()
    print_table("Compile time of the generated code against numba.njit of the plain function",
                ["workload", "lines", "generated", "njit", "ratio", "generated: passes",
                 "blocks / LLVM lines", "njit: passes", "blocks / LLVM lines"],
                [row["cells"] for row in rows])


if __name__ == "__main__":
    main()
