"""Benchmark: ag.value_and_grad against the forward and hand-written backward passes.

    python tools/bench_grad.py               # all workloads, numpy and numba backends
    python tools/bench_grad.py -w ema rnn    # a subset
    python tools/bench_grad.py --quick       # fewer repeats
    python tools/bench_grad.py --tiny        # tiny sizes: a smoke run (tests/gradients)

BLAS runs on one thread (the environment can say otherwise). The workloads of issue 18, written as a user writes them (Python loops and branches over
NumPy): an RNN (T=200) whose loss is the squared error of its last state's readout, an MLP
train step (two layers, batch 128, squared error), an EMA with branches over 1e5 steps
(gradient with respect to the data and alpha), and power iteration with a convergence
test. Each has a backward pass written by hand in plain NumPy (forward and backward, as a
user writes it without ag), and the loop-shaped ones (EMA, RNN) the same function compiled
by `numba.njit`; at start-up each hand-written gradient is checked against ag's on both
backends.

Per workload and backend: the forward (`ag.function` of the loss), `ag.value_and_grad`,
their ratio, and value_and_grad over each hand-written pass (value and gradient too). All
the figures of one workload are medians of samples taken round-robin
(tools/bench_workloads.py's `sample_round_robin`), so a load change on this shared machine
shifts them alike and the ratios hold. Compile times are not in these figures (each
callable is called before it is timed).

Memory: the RNN's backward keeps what each step needs, O(T x hidden). Reported for T=200
and T=400: the bytes pushed onto the gradient's stacks (counted: every tensor-array write
of a NumPy-backend run, the element sizes summed), and the peak memory of value_and_grad
over that of the forward, traced by tracemalloc (NumPy backend: tracemalloc sees NumPy's
allocations, not Numba's). The Numba backend pushes the same elements into buffers that
grow by doubling, so it holds up to twice the counted bytes (the capacity is computed, not
measured).
"""

import argparse
import os
import sys
import time
import tracemalloc

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tools.scratch import benchmark_environment  # noqa: E402

benchmark_environment()   # (BLAS on one thread unless the caller chose)

import numba  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
from runtime.tensor_array_buffer import TensorArrayBuffer  # noqa: E402
from tools.bench_workloads import _fmt, print_table, sample_round_robin  # noqa: E402

BACKENDS = ("numpy", "numba")


# --- the workloads, as a user writes them ---------------------------------------------------

def rnn_loss(W, U, b, V, xs, y):
    """Elman RNN over xs (T, in, batch); squared error of the last state's readout."""
    h = np.zeros((U.shape[0], xs.shape[2]))
    for t in range(xs.shape[0]):
        h = np.tanh(W @ xs[t] + U @ h + b)
    err = V @ h - y
    return np.sum(err * err)


def rnn_hand(W, U, b, V, xs, y):
    """rnn_loss and its gradient with respect to (W, U, b, V), backpropagation through
    time written by hand (the states kept on the way forward)."""
    T = xs.shape[0]
    hs = np.zeros((T + 1, U.shape[0], xs.shape[2]))
    for t in range(T):
        hs[t + 1] = np.tanh(W @ xs[t] + U @ hs[t] + b)
    err = V @ hs[T] - y
    loss = np.sum(err * err)
    g_out = 2.0 * err
    gV = g_out @ hs[T].T
    gh = V.T @ g_out
    gW = np.zeros_like(W)
    gU = np.zeros_like(U)
    gb = np.zeros_like(b)
    for t in range(T - 1, -1, -1):
        ga = gh * (1.0 - hs[t + 1] * hs[t + 1])
        gW += ga @ xs[t].T
        gU += ga @ hs[t].T
        gb += np.sum(ga, axis=1).reshape(b.shape)
        gh = U.T @ ga
    return loss, (gW, gU, gb, gV)


def rnn_inputs(T=200, n_in=16, hidden=48, batch=16, n_out=4, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((hidden, n_in)) / np.sqrt(n_in),
            rng.standard_normal((hidden, hidden)) * (0.9 / np.sqrt(hidden)),
            rng.standard_normal((hidden, 1)) * 0.1,
            rng.standard_normal((n_out, hidden)) / np.sqrt(hidden),
            rng.standard_normal((T, n_in, batch)),
            rng.standard_normal((n_out, batch)))


def mlp_loss(W1, b1, W2, b2, x, y):
    """Two layers, tanh between them; mean squared error over the batch."""
    h = np.tanh(x @ W1 + b1)
    err = h @ W2 + b2 - y
    return np.sum(err * err) / x.shape[0]


def mlp_hand(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    err = h @ W2 + b2 - y
    loss = np.sum(err * err) / x.shape[0]
    g_out = (2.0 / x.shape[0]) * err
    gW2 = h.T @ g_out
    gb2 = g_out.sum(axis=0)
    ga = (g_out @ W2.T) * (1.0 - h * h)
    gW1 = x.T @ ga
    gb1 = ga.sum(axis=0)
    return loss, (gW1, gb1, gW2, gb2)


def mlp_inputs(batch=128, n_in=64, hidden=128, n_out=10, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, hidden)) / np.sqrt(n_in), np.zeros(hidden),
            rng.standard_normal((hidden, n_out)) / np.sqrt(hidden), np.zeros(n_out),
            rng.standard_normal((batch, n_in)), rng.standard_normal((batch, n_out)))


def ema_loss(x, alpha):
    """An EMA that follows rises at rate alpha and falls at half of it; the loss is the
    sum of its states."""
    s = x[0]
    total = 0.0
    for t in range(1, x.shape[0]):
        d = x[t] - s
        if d > 0.0:
            s = s + alpha * d
        else:
            s = s + 0.5 * alpha * d
        total = total + s
    return total


def ema_hand(x, alpha):
    """ema_loss and its gradient with respect to (x, alpha): the rates and innovations
    kept on the way forward, the adjoint of s carried backward."""
    n = x.shape[0]
    rate = np.empty(n)
    innovation = np.empty(n)
    s = x[0]
    total = 0.0
    for t in range(1, n):
        d = x[t] - s
        k = 1.0 if d > 0.0 else 0.5
        rate[t] = k
        innovation[t] = d
        s = s + k * alpha * d
        total = total + s
    gx = np.zeros(n)
    g_alpha = 0.0
    gs = 0.0
    for t in range(n - 1, 0, -1):
        gs = gs + 1.0
        c = rate[t] * alpha
        gx[t] = gs * c
        g_alpha = g_alpha + gs * rate[t] * innovation[t]
        gs = gs * (1.0 - c)
    gx[0] = gs
    return total, (gx, g_alpha)


def ema_inputs(n=100_000, seed=2):
    rng = np.random.default_rng(seed)
    return (np.cumsum(rng.standard_normal(n)), 0.05)


def power_loss(A):
    """The dominant eigenvalue of symmetric A by power iteration, until it converges."""
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for i in range(1000):
        w = A @ v
        lam_new = np.sqrt(np.sum(w * w))
        v = w / lam_new
        converged = abs(lam_new - lam) < 1e-10 * lam_new
        lam = lam_new
        if converged:
            break
    return lam


def power_hand(A):
    n = A.shape[0]
    vs = [np.ones(n) / np.sqrt(n)]
    ws, lams = [], []
    lam = 0.0
    for i in range(1000):
        w = A @ vs[-1]
        lam_new = np.sqrt(np.sum(w * w))
        ws.append(w)
        lams.append(lam_new)
        vs.append(w / lam_new)
        converged = abs(lam_new - lam) < 1e-10 * lam_new
        lam = lam_new
        if converged:
            break
    gA = np.zeros_like(A)
    g_lam = 1.0                  # the loss is the last lam
    gv = np.zeros(n)
    for i in range(len(ws) - 1, -1, -1):
        w, norm = ws[i], lams[i]
        g_norm = g_lam - np.dot(gv, w) / (norm * norm)     # v = w / norm
        gw = gv / norm + g_norm * w / norm                  # norm = |w|
        gA += np.outer(gw, vs[i])                           # w = A @ v
        gv = A.T @ gw
        g_lam = 0.0
    return lam, (gA,)


def power_inputs(n=128, seed=3):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    eigs = np.concatenate([[1.0, 0.9], np.linspace(0.8, 0.0, n - 2)])
    A = (q * eigs) @ q.T
    return (0.5 * (A + A.T),)


class Workload:
    """A loss, the arguments it is differentiated with respect to, its input factories
    (full size and tiny), its hand-written value-and-gradient, and whether numba.njit
    compiles that unchanged (the loop-shaped ones)."""

    def __init__(self, name, loss, argnums, inputs, tiny, hand, njit):
        self.name, self.loss, self.argnums = name, loss, argnums
        self.inputs, self.tiny, self.hand, self.njit = inputs, tiny, hand, njit


WORKLOADS = {w.name: w for w in [
    Workload("rnn", rnn_loss, (0, 1, 2, 3), rnn_inputs,
             lambda: rnn_inputs(T=5, n_in=3, hidden=4, batch=2, n_out=2), rnn_hand, True),
    Workload("mlp", mlp_loss, (0, 1, 2, 3), mlp_inputs,
             lambda: mlp_inputs(batch=8, n_in=4, hidden=6, n_out=3), mlp_hand, False),
    Workload("ema", ema_loss, (0, 1), ema_inputs, lambda: ema_inputs(n=50), ema_hand, True),
    Workload("power_iter", power_loss, (0,), power_inputs, lambda: power_inputs(n=8),
             power_hand, False),
]}


# --- measuring ------------------------------------------------------------------------------

def _as_tuple(grads):
    return grads if isinstance(grads, tuple) else (grads,)


def check_hand(workload, inputs, value_and_grad):
    """The hand-written gradient must be ag's (value too), to the last few digits."""
    value, grads = value_and_grad(*inputs)
    hand_value, hand_grads = workload.hand(*inputs)
    np.testing.assert_allclose(value, hand_value, rtol=1e-9, atol=1e-12,
                               err_msg="%s: value" % workload.name)
    for i, (got, want) in zip(workload.argnums, zip(_as_tuple(grads), hand_grads)):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10,
                                   err_msg="%s: gradient of argument %d" % (workload.name, i))


def _calibrated(f, inputs, budget, samples):
    """(f, inputs, calls per sample) for sample_round_robin, after a call (compiling)."""
    f(*inputs)
    start = time.perf_counter()
    f(*inputs)
    once = max(time.perf_counter() - start, 1e-7)
    return f, inputs, max(1, int(budget / samples / once))


def _error(e):
    text = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    return text if len(text) <= 60 else text[:57] + "..."


def measure(workload, backends, budget, samples, tiny):
    """{kind: median seconds per call or an error string}; kinds "fwd-<backend>",
    "vg-<backend>", "hand-numpy", "hand-njit"."""
    inputs = (workload.tiny if tiny else workload.inputs)()
    calls, results = {}, {}
    candidates = []
    for backend in backends:
        candidates.append(("fwd-" + backend, lambda b=backend: ag.function(workload.loss,
                                                                           backend=b)))
        candidates.append(("vg-" + backend, lambda b=backend: ag.value_and_grad(
            workload.loss, argnums=workload.argnums, backend=b)))
    candidates.append(("hand-numpy", lambda: workload.hand))
    if workload.njit:
        candidates.append(("hand-njit", lambda: numba.njit(workload.hand)))
    for kind, make in candidates:
        try:
            f = make()
            if kind.startswith("vg-") or kind == "hand-njit":
                check_hand(workload, inputs, f)
            calls[kind] = _calibrated(f, inputs, budget, samples)
        except Exception as e:   # reported in the table: a failing kind is a finding
            results[kind] = _error(e)
    results.update(sample_round_robin(calls, samples))
    return results


def _ratio(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return "%.2fx" % (a / b)
    return "-"


def _time(r):
    return _fmt(r) if isinstance(r, float) else r


def speed_rows(name, results, backends):
    rows = []
    for backend in backends:
        fwd, vg = results.get("fwd-" + backend), results.get("vg-" + backend)
        hand, njit = results.get("hand-numpy"), results.get("hand-njit", "-")
        rows.append([name, backend, _time(fwd), _time(vg), _ratio(vg, fwd), _time(hand),
                     _ratio(vg, hand), _time(njit), _ratio(vg, njit)])
    return rows


# --- memory: the RNN's stacks ---------------------------------------------------------------

def counted_stack_bytes(f, inputs):
    """Bytes written into tensor arrays while `f` (a NumPy-backend function) runs: every
    element a gradient stack is pushed, summed (the RNN has no tensor arrays of its own)."""
    total = [0]
    write = TensorArrayBuffer.write

    def counting(self, index, value):
        total[0] += np.asarray(value, dtype=self.dtype).nbytes
        return write(self, index, value)

    TensorArrayBuffer.write = counting
    try:
        f(*inputs)
    finally:
        TensorArrayBuffer.write = write
    return total[0]


def traced_peak(f, inputs):
    """Peak bytes traced by tracemalloc during a call of `f` (after one untraced call)."""
    f(*inputs)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        f(*inputs)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def numba_capacity(n):
    """The length of a Numba stack after n pushes: doubling from 4
    (runtime/executors/numba/support.py's ta_grow)."""
    cap = 4
    while cap < n:
        cap *= 2
    return cap if n else 0


def memory_rows(steps, tiny):
    rows = []
    for T in steps:
        inputs = rnn_inputs(T=T) if not tiny else rnn_inputs(T=T, n_in=3, hidden=4, batch=2,
                                                              n_out=2)
        hidden_bytes = inputs[1].shape[0] * inputs[4].shape[2] * 8
        fwd = ag.function(rnn_loss, backend="numpy")
        vg = ag.value_and_grad(rnn_loss, argnums=(0, 1, 2, 3), backend="numpy")
        try:
            pushed = counted_stack_bytes(vg, inputs)
            extra = traced_peak(vg, inputs) - traced_peak(fwd, inputs)
        except Exception as e:
            rows.append([str(T), _error(e), "-", "-", "-"])
            continue
        rows.append([str(T), "%.1f KiB (%.2f x h per step)" % (pushed / 1024,
                                                                pushed / T / hidden_bytes),
                     "%.1f KiB" % (pushed * numba_capacity(T) / T / 1024),
                     "%.1f KiB" % (extra / 1024), "%.1f KiB" % (hidden_bytes / 1024)])
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--workloads", nargs="*", default=list(WORKLOADS),
                        choices=list(WORKLOADS))
    parser.add_argument("-b", "--backends", nargs="*", default=list(BACKENDS),
                        choices=list(BACKENDS))
    parser.add_argument("--quick", action="store_true", help="shorter measurements")
    parser.add_argument("--tiny", action="store_true",
                        help="tiny sizes and one sample each: checks the tool runs")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory table")
    args = parser.parse_args(argv)
    budget, samples = (0.01, 1) if args.tiny else (0.3, 5) if args.quick else (1.0, 7)

    print(f"numpy {np.__version__}, numba {numba.__version__}, python {sys.version.split()[0]}"
          + (" (tiny sizes)" if args.tiny else ""))
    rows = []
    for name in args.workloads:
        results = measure(WORKLOADS[name], args.backends, budget, samples, args.tiny)
        rows += speed_rows(name, results, args.backends)
        print(f"  measured {name}", file=sys.stderr)
    print_table("Speed (median time per call; vg = ag.value_and_grad, fwd = ag.function of "
                "the loss, hand = a hand-written value and gradient)",
                ["workload", "backend", "fwd", "vg", "vg/fwd", "hand NumPy", "vg/hand NumPy",
                 "hand njit", "vg/hand njit"], rows)
    memory = []
    if not args.no_memory and "rnn" in args.workloads:
        memory = memory_rows((5, 10) if args.tiny else (200, 400), args.tiny)
        print_table("Memory, RNN (hidden 48, batch 16): the gradient's stacks (counted, NumPy "
                    "backend; Numba: the same grown by doubling, computed) and the peak of "
                    "value_and_grad over the forward's (tracemalloc, NumPy backend)",
                    ["T", "pushed", "Numba stacks", "peak vg - peak fwd", "h (one step)"],
                    memory)
    return {"speed": rows, "memory": memory}


if __name__ == "__main__":
    main()
