"""Functional forms (rt.function + rt.while_loop / rt.cond) of some benchmark workloads, for
measuring the Numba executor before autograph's ag.function exists. Same results as
tools/workloads.py."""

import numpy as np

import runtime as rt
from tools import workloads


def collatz_total(ns):
    def outer_cond(i, total):
        return i < ns.shape[0]

    def outer_body(i, total):
        def cond(n, steps):
            return n != 1

        def body(n, steps):
            n = rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
            return n, steps + 1

        _, steps = rt.while_loop(cond, body, (ns[i], 0))
        return i + 1, total + steps

    return rt.while_loop(outer_cond, outer_body, (0, 0))[1]


def ema_clipped(x, alpha, threshold):
    n = x.shape[0]
    out = rt.empty((n,), np.float64)

    def cond(i, s, out):
        return i < n

    def body(i, s, out):
        v = x[i]
        d = v - s
        v = rt.cond(d > threshold, lambda: s + threshold,
                    lambda: rt.cond(d < -threshold, lambda: s - threshold, lambda: v))
        s = alpha * v + (1.0 - alpha) * s
        out[i] = s
        return i + 1, s, out

    return rt.while_loop(cond, body, (0, x[0], out))[2]


def edit_distance(a, b):
    m = a.shape[0]
    n = b.shape[0]
    D = rt.zeros((m + 1, n + 1), np.int64)

    def first_col(i, D):
        D[i, 0] = i
        return i + 1, D

    _, D = rt.while_loop(lambda i, D: i < m + 1, first_col, (0, D))

    def first_row(j, D):
        D[0, j] = j
        return j + 1, D

    _, D = rt.while_loop(lambda j, D: j < n + 1, first_row, (0, D))

    def outer(i, D):
        def inner(j, D):
            cost = rt.cond(a[i - 1] == b[j - 1], lambda: 0, lambda: 1)
            D[i, j] = np.minimum(np.minimum(D[i - 1, j] + 1, D[i, j - 1] + 1),
                                 D[i - 1, j - 1] + cost)
            return j + 1, D

        _, D = rt.while_loop(lambda j, D: j < n + 1, inner, (1, D))
        return i + 1, D

    _, D = rt.while_loop(lambda i, D: i < m + 1, outer, (1, D))
    return D[m, n]


def mandelbrot(xs, ys, max_iter):
    h = ys.shape[0]
    w = xs.shape[0]
    out = rt.zeros((h, w), np.int64)

    def row(i, out):
        ci = ys[i]

        def col(j, out):
            cr = xs[j]

            def cond(k, zr, zi, done):
                return (k < max_iter) & ~done

            def body(k, zr, zi, done):
                zr2 = zr * zr
                zi2 = zi * zi
                escaped = zr2 + zi2 > 4.0

                def step():
                    return k + 1, zr2 - zi2 + cr, 2.0 * zr * zi + ci, False

                return rt.cond(escaped, lambda: (k, zr, zi, True), step)

            k, _, _, _ = rt.while_loop(cond, body, (0, 0.0, 0.0, False))
            out[i, j] = k
            return j + 1, out

        _, out = rt.while_loop(lambda j, out: j < w, col, (0, out))
        return i + 1, out

    _, out = rt.while_loop(lambda i, out: i < h, row, (0, out))
    return out


FUNCTIONAL = {
    "collatz": (collatz_total, workloads.collatz_total, workloads.collatz_inputs),
    "ema": (ema_clipped, workloads.ema_clipped, workloads.ema_inputs),
    "edit_distance": (edit_distance, workloads.edit_distance, workloads.edit_inputs),
    "mandelbrot": (mandelbrot, workloads.mandelbrot, workloads.mandelbrot_inputs),
}


def _add_runtime_test_forms():
    """The runtime's own functional forms of the other workloads (tests/runtime), if present."""
    try:
        from tests.runtime import test_rt_workloads as forms
    except Exception:   # the test tree or pytest is not available: the four above only
        return
    for name, attr, original, make_inputs in (
            ("primes", "count_primes", workloads.count_primes, workloads.primes_inputs),
            ("rnn", "rnn", workloads.rnn, workloads.rnn_inputs),
            ("power_iter", "power_iteration", workloads.power_iteration, workloads.power_inputs),
            ("piecewise16", "piecewise", workloads.piecewise, workloads.piecewise_inputs)):
        if hasattr(forms, attr):
            FUNCTIONAL[name] = (getattr(forms, attr), original, make_inputs)


_add_runtime_test_forms()
