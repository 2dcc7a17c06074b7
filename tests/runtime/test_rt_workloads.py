"""The benchmark workloads, hand-written in functional form (rt.while_loop / rt.cond), give
the plain-Python result: the runtime can express all of them without autograph."""

import importlib.util
import os

import numpy as np
import pytest

import runtime as rt

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "bench", "workloads.py")
if not os.path.exists(_PATH):
    _PATH = "/work/shared/bench/workloads.py"
if not os.path.exists(_PATH):
    pytest.skip("benchmark workloads not available", allow_module_level=True)
_spec = importlib.util.spec_from_file_location("bench_workloads", _PATH)
workloads = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(workloads)


def for_range(n, body, loop_vars):
    """for i in range(n): loop_vars = body(i, *loop_vars) — as a while loop."""
    def step(i, *state):
        result = body(i, *state)
        return (i + 1,) + tuple(result)
    return rt.while_loop(lambda i, *state: i < n, step, (0,) + tuple(loop_vars))[1:]


def collatz_total(ns):
    def outer(i, total):
        def test(n, steps):
            return n != 1

        def step(n, steps):
            n = rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
            return n, steps + 1
        _, steps = rt.while_loop(test, step, (ns[i], 0))
        return (total + steps,)
    (total,) = for_range(ns.shape[0], outer, (0,))
    return total


def ema_clipped(x, alpha, threshold):
    n = x.shape[0]
    out = rt.empty(n)

    def step(i, s):
        v = x[i]
        d = v - s
        v = rt.cond(d > threshold, lambda: s + threshold,
                    lambda: rt.cond(d < -threshold, lambda: s - threshold, lambda: v))
        s = alpha * v + (1.0 - alpha) * s
        out[i] = s
        return (s,)
    for_range(n, step, (x[0],))
    return out


def piecewise(x):
    out = np.empty_like(x)

    def step(i):
        v = x[i]

        def low():
            out[i] = -1.0

        def middle_low():
            out[i] = v + 0.25 * v * v

        def middle_high():
            out[i] = v - 0.25 * v * v

        def high():
            out[i] = 1.0
        rt.cond(v < -2.0, low, lambda: rt.cond(
            v < 0.0, middle_low, lambda: rt.cond(v < 2.0, middle_high, high)))
        return ()
    for_range(x.shape[0], step, ())
    return out


def mandelbrot(xs, ys, max_iter):
    h, w = ys.shape[0], xs.shape[0]
    out = rt.zeros((h, w), dtype=np.int64)

    def row(i):
        ci = ys[i]

        def column(j):
            cr = xs[j]

            def test(zr, zi, k, escaped):
                return (k < max_iter) & ~escaped

            def step(zr, zi, k, escaped):
                zr2, zi2 = zr * zr, zi * zi
                return rt.cond(zr2 + zi2 > 4.0,
                               lambda: (zr, zi, k, True),
                               lambda: (zr2 - zi2 + cr, 2.0 * zr * zi + ci, k + 1, False))
            _, _, k, _ = rt.while_loop(test, step, (0.0, 0.0, 0, False))
            out[i, j] = k
            return ()
        for_range(w, column, ())
        return ()
    for_range(h, row, ())
    return out


def edit_distance(a, b):
    m, n = a.shape[0], b.shape[0]
    D = rt.zeros((m + 1, n + 1), dtype=np.int64)

    def first_column(i):
        D[i, 0] = i
        return ()

    def first_row(j):
        D[0, j] = j
        return ()
    for_range(m + 1, first_column, ())
    for_range(n + 1, first_row, ())

    def row(i):
        i = i + 1

        def column(j):
            j = j + 1
            cost = rt.cond(a[i - 1] == b[j - 1], lambda: 0, lambda: 1)
            D[i, j] = np.minimum(np.minimum(D[i - 1, j] + 1, D[i, j - 1] + 1),
                                 D[i - 1, j - 1] + cost)
            return ()
        for_range(n, column, ())
        return ()
    for_range(m, row, ())
    return D[m, n]


def power_iteration(A, v0, tol, max_iter):
    v = v0 / np.sqrt(np.sum(v0 * v0))

    def test(v, lam, it, done):
        return (it < max_iter) & ~done

    def step(v, lam, it, done):
        w = A @ v
        lam_new = np.sqrt(np.sum(w * w))
        v = w / lam_new
        it = it + 1
        converged = abs(lam_new - lam) <= tol * lam_new
        return v, lam_new, it, converged
    v, lam, it, done = rt.while_loop(test, step, (v, 0.0, 0, False))
    return lam, it


def rnn(xs, W, U, b):
    h = rt.zeros((U.shape[0], xs.shape[2]))
    (h,) = for_range(xs.shape[0], lambda t, h: (np.tanh(W @ xs[t] + U @ h + b),), (h,))
    return h


def count_primes(limit):
    def outer(n, count):
        def check():
            def test(d, is_prime, stop):
                return (d < n) & ~stop

            def step(d, is_prime, stop):
                too_big = d * d > n
                divides = n % d == 0
                return d + 2, is_prime & ~(divides & ~too_big), too_big | divides
            _, is_prime, _ = rt.while_loop(test, step, (3, True, False))
            return rt.cond(is_prime, lambda: count + 1, lambda: count)
        skip = (n > 2) & (n % 2 == 0)
        return (rt.cond(skip, lambda: count, check),)
    (count,) = rt.while_loop(lambda n, c: n < limit, lambda n, c: (n + 1,) + outer(n, c),
                             (2, 0))[1:]
    return count


def _small(name):
    fn, make_inputs = workloads.WORKLOADS[name]
    args = make_inputs()
    if name == "collatz":
        args = (args[0][:300],)
    elif name == "primes":
        args = (np.int64(2000),)
    elif name == "mandelbrot":
        args = (args[0][::4], args[1][::4], args[2])
    elif name == "edit_distance":
        args = (args[0][:40], args[1][:30])
    elif name == "ema":
        args = (args[0][:3000],) + args[1:]
    elif name == "rnn":
        args = (args[0][:20],) + args[1:]
    return fn, args


CASES = {
    "collatz": collatz_total, "primes": count_primes, "mandelbrot": mandelbrot,
    "rnn": rnn, "power_iter": power_iteration, "edit_distance": edit_distance,
    "ema": ema_clipped, "piecewise16": piecewise,
}


def assert_same_result(got, expected):
    """The workload's result (an array, a scalar, or a tuple of them) up to rounding."""
    if isinstance(expected, tuple):
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, rtol=1e-12)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_workload_matches_plain_python(name):
    reference, args = _small(name)
    expected = reference(*args)
    staged = rt.function(CASES[name])
    got = staged(*args)
    assert_same_result(got, expected)
    if not isinstance(expected, tuple):
        assert np.asarray(got).dtype == np.asarray(expected).dtype or name == "collatz"
    # A second call with different sizes reuses the trace.
    staged(*args)
    assert staged.trace_count == 1


def test_workload_graph_is_generic_over_lengths():
    staged = rt.function(ema_clipped)
    x = np.cumsum(np.random.default_rng(1).standard_normal(50))
    for n in (10, 50):
        np.testing.assert_array_equal(staged(x[:n], 0.05, 3.0),
                                      workloads.ema_clipped(x[:n], 0.05, 3.0))
    assert staged.trace_count == 1
