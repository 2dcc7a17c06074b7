"""Benchmark: advanced indexing (integer arrays, masks) through ag.function against NumPy
itself, 10,000 elements each, printed as a table.

    python tools/bench_indexing.py           # every form
    python tools/bench_indexing.py --quick   # fewer calls per sample

Each form is a function as a user writes it; "numpy" calls it as plain Python, "ag-numpy"
and "ag-numba" through ag.function. The Numba backend runs these indices as explicit loops
(runtime/executors/numba/advanced_indexing.py); the graph of a form is its one indexing op
(plus a copy for the writes), so the figures are the op's own, with the call's overhead.
Median time per call, the samples of the three taken round-robin
(tools/bench_workloads.py, `sample_round_robin`).
"""

import argparse
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
from tools.bench_workloads import _fmt, print_table, sample_round_robin  # noqa: E402

N = 10_000


def gather(probs, rows, labels):
    """The cross-entropy's read: one element per row."""
    return probs[rows, labels]


def gather_grad(probs, rows, labels):
    """The cross-entropy's backward: a copy, then one element per row decreased."""
    grad = probs.copy()
    grad[rows, labels] -= 1.0
    return grad


def take(x, idx):
    """One integer array on a 1-d array."""
    return x[idx]


def columns(x, cols):
    """A slice, then an integer array: whole columns."""
    return x[:, cols]


def masked_column(x, mask):
    """A boolean mask with an int."""
    return x[mask, 0]


def _inputs():
    rng = np.random.default_rng(0)
    probs = rng.random((N, 10))
    rows, labels = np.arange(N), rng.integers(0, 10, N)
    x = rng.random(N)
    wide = rng.random((10, N // 10))
    return {
        "probs[rows, labels]": (gather, (probs, rows, labels)),
        "grad[rows, labels] -= 1": (gather_grad, (probs, rows, labels)),
        "x[idx]": (take, (x, rng.integers(-N, N, N))),
        "x[:, cols] (10 x 1000)": (columns, (wide, rng.integers(0, N // 10, N // 10))),
        "probs[mask, 0]": (masked_column, (probs, rng.random(N) < 0.5)),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls per sample")
    args = parser.parse_args(argv)
    budget = 0.05 if args.quick else 0.3
    rows = []
    for name, (fn, inputs) in _inputs().items():
        calls = {"numpy": fn, "ag-numpy": ag.function(fn, backend="numpy"),
                 "ag-numba": ag.function(fn, backend="numba")}
        expected = fn(*inputs)
        for kind, f in calls.items():
            np.testing.assert_array_equal(f(*inputs), expected, err_msg=kind)
        timed = {}
        for kind, f in calls.items():
            f(*inputs)
            once = sample_round_robin({kind: (f, inputs, 20)}, 1)[kind]
            timed[kind] = (f, inputs, max(1, int(budget / 7 / once)))
        medians = sample_round_robin(timed)
        rows.append([name] + [_fmt(medians[kind]) for kind in calls]
                    + ["%.2f" % (medians["ag-numba"] / medians["numpy"])])
    print_table("Advanced indexing, %d elements (median per call)" % N,
                ["form", "numpy", "ag-numpy", "ag-numba", "numba / numpy"], rows)


if __name__ == "__main__":
    main()
