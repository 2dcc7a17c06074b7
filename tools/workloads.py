# Vendored copy of ../shared/bench/workloads.py (the canonical benchmark workloads), so the
# benchmark and the tests run from a clone alone. Keep it identical to the shared file.
"""Benchmark workloads: plain Python/NumPy functions, the canonical input of `@ag.function`.

Each workload is written the way a user writes it: Python control flow (if/while/for,
break/continue, early return, item assignment) over NumPy values. `numba.njit` accepts
every body unchanged, so `numba.njit(fn)` is the reference for native-loop speed.
`WORKLOADS` maps a name to (function, input factory). Everything is float64/int64.
"""

import numpy as np


def collatz_total(ns):
    """Sum of Collatz total stopping times of every n in ``ns``."""
    total = 0
    for i in range(ns.shape[0]):
        n = ns[i]
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        total += steps
    return total


def collatz_inputs():
    return (np.arange(1, 6001, dtype=np.int64),)


def count_primes(limit):
    """Number of primes < limit, by trial division."""
    count = 0
    for n in range(2, limit):
        if n > 2 and n % 2 == 0:
            continue
        is_prime = True
        for d in range(3, n, 2):
            if d * d > n:
                break
            if n % d == 0:
                is_prime = False
                break
        if is_prime:
            count += 1
    return count


def primes_inputs():
    return (np.int64(50000),)


def mandelbrot(xs, ys, max_iter):
    """Escape-time counts over the grid ys x xs."""
    h = ys.shape[0]
    w = xs.shape[0]
    out = np.zeros((h, w), dtype=np.int64)
    for i in range(h):
        ci = ys[i]
        for j in range(w):
            cr = xs[j]
            zr = 0.0
            zi = 0.0
            k = 0
            while k < max_iter:
                zr2 = zr * zr
                zi2 = zi * zi
                if zr2 + zi2 > 4.0:
                    break
                zi = 2.0 * zr * zi + ci
                zr = zr2 - zi2 + cr
                k += 1
            out[i, j] = k
    return out


def mandelbrot_inputs():
    xs = np.linspace(-2.0, 0.6, 64)
    ys = np.linspace(-1.2, 1.2, 48)
    return (xs, ys, np.int64(80))


def rnn(xs, W, U, b):
    """Elman RNN: h_t = tanh(W @ x_t + U @ h_{t-1} + b); xs is (T, in, batch)."""
    h = np.zeros((U.shape[0], xs.shape[2]))
    for t in range(xs.shape[0]):
        h = np.tanh(W @ xs[t] + U @ h + b)
    return h


def rnn_inputs():
    rng = np.random.default_rng(4)
    T, n_in, hidden, batch = 200, 64, 64, 32
    xs = rng.standard_normal((T, n_in, batch))
    W = rng.standard_normal((hidden, n_in)) * (1.0 / np.sqrt(n_in))
    U = rng.standard_normal((hidden, hidden)) * (0.9 / np.sqrt(hidden))
    b = rng.standard_normal((hidden, 1)) * 0.1
    return (xs, W, U, b)


def power_iteration(A, v0, tol, max_iter):
    """Dominant eigenvalue of A; returns (eigenvalue, iterations used)."""
    v = v0 / np.sqrt(np.sum(v0 * v0))
    lam = 0.0
    it = 0
    while it < max_iter:
        w = A @ v
        lam_new = np.sqrt(np.sum(w * w))
        v = w / lam_new
        it += 1
        if abs(lam_new - lam) <= tol * lam_new:
            return lam_new, it          # early exit
        lam = lam_new
    return lam, it


def power_inputs():
    rng = np.random.default_rng(5)
    n = 256
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    eigs = np.concatenate([[1.0, 0.998], np.linspace(0.9, 0.0, n - 2)])
    A = (q * eigs) @ q.T
    A = 0.5 * (A + A.T)
    v0 = rng.standard_normal(n)
    return (A, v0, np.float64(1e-10), np.int64(20000))


def edit_distance(a, b):
    """Levenshtein distance between int sequences a and b."""
    m = a.shape[0]
    n = b.shape[0]
    D = np.zeros((m + 1, n + 1), dtype=np.int64)
    for i in range(m + 1):
        D[i, 0] = i
    for j in range(n + 1):
        D[0, j] = j
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                cost = 0
            else:
                cost = 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[m, n]


def edit_inputs():
    rng = np.random.default_rng(6)
    a = rng.integers(0, 4, 250).astype(np.int64)
    b = rng.integers(0, 4, 230).astype(np.int64)
    return (a, b)


def ema_clipped(x, alpha, threshold):
    """Exponential moving average whose per-step innovation is clipped."""
    n = x.shape[0]
    out = np.empty(n)
    s = x[0]
    for i in range(n):
        v = x[i]
        d = v - s
        if d > threshold:
            v = s + threshold
        elif d < -threshold:
            v = s - threshold
        s = alpha * v + (1.0 - alpha) * s
        out[i] = s
    return out


def ema_inputs():
    rng = np.random.default_rng(7)
    n = 100_000
    x = np.cumsum(rng.standard_normal(n))
    spikes = rng.random(n) < 0.01
    x[spikes] += rng.standard_normal(spikes.sum()) * 20.0
    return (x, np.float64(0.05), np.float64(3.0))


def piecewise(x):
    """Smooth saturating piecewise polynomial, element by element."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        if v < -2.0:
            out[i] = -1.0
        elif v < 0.0:
            out[i] = v + 0.25 * v * v
        elif v < 2.0:
            out[i] = v - 0.25 * v * v
        else:
            out[i] = 1.0
    return out


def piecewise_inputs():
    rng = np.random.default_rng(8)
    return (rng.uniform(-4.0, 4.0, 16),)


WORKLOADS = {
    "collatz": (collatz_total, collatz_inputs),
    "primes": (count_primes, primes_inputs),
    "mandelbrot": (mandelbrot, mandelbrot_inputs),
    "rnn": (rnn, rnn_inputs),
    "power_iter": (power_iteration, power_inputs),
    "edit_distance": (edit_distance, edit_inputs),
    "ema": (ema_clipped, ema_inputs),
    "piecewise16": (piecewise, piecewise_inputs),
}
