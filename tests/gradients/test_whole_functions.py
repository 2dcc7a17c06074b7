"""Whole functions the issue names, differentiated through their Python control flow and
checked against central differences on both backends: an RNN, power iteration with a
convergence test, an EMA with branches, DTW with `min`, a Newton iteration with a
data-dependent `while` and `break`, a loop with an early `return`, item assignment into a
preallocated array, a loop variable whose dtype widens, and a `for` over an array's rows."""

import numpy as np
import pytest

from gradcheck import check_grad

rng = np.random.default_rng(0)


def rnn_loss(wx, wh, b, wo, xs, y):
    h = np.zeros(wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ wx + h @ wh + b)
    out = h @ wo
    return ((out - y) ** 2).sum()


def power_iteration(a):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    lam = 0.0
    for i in range(200):
        w = a @ v
        norm = np.linalg.norm(w)
        v = w / norm
        if abs(norm - lam) < 1e-13:
            break
        lam = norm
    return lam


def ema_with_branches(x, alpha):
    s = x[0]
    for t in range(1, x.shape[0]):
        if x[t] > s:
            s = s + alpha * (x[t] - s)
        else:
            s = s + 0.5 * alpha * (x[t] - s)
    return s


def dtw(a, b):
    n, m = a.shape[0], b.shape[0]
    cost = np.full((n + 1, m + 1), np.inf)
    cost[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d = (a[i - 1] - b[j - 1]) ** 2
            cost[i, j] = d + min(cost[i - 1, j], cost[i, j - 1], cost[i - 1, j - 1])
    return cost[n, m]


def newton_sqrt(a):
    y = a
    while True:
        step = (y * y - a) / (2.0 * y)
        y = y - step
        if np.abs(step) < 1e-12:
            break
    return y


def early_return(x):
    s = x
    for i in range(x.shape[0] * 3):
        s = np.tanh(s) * 1.5 + x
        if s.sum() > 4.0:
            return (s * s).sum()
    return s.sum()


def preallocated(x, w):
    out = np.zeros((x.shape[0], w.shape[1]))
    for i in range(x.shape[0]):
        out[i] = np.tanh(x[i] @ w)
    return (out * out).sum()


def widening(x):
    s = 0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
    return s


def rows(x):
    s = 0.0
    for row in x:
        s = s + np.tanh(row).sum() * row[0]
    return s


SYMMETRIC = rng.standard_normal((4, 4))
SYMMETRIC = SYMMETRIC @ SYMMETRIC.T + 4 * np.eye(4)

CASES = {
    "rnn": (rnn_loss, (rng.standard_normal((3, 5)) * 0.5, rng.standard_normal((5, 5)) * 0.3,
                       rng.standard_normal(5) * 0.1, rng.standard_normal((5, 2)),
                       rng.standard_normal((6, 3)), np.array([0.3, -0.2])), (0, 1, 2, 3)),
    "power_iteration": (power_iteration, (SYMMETRIC,), 0),
    "ema_with_branches": (ema_with_branches, (rng.standard_normal(12), 0.3), (0, 1)),
    "dtw": (dtw, (rng.standard_normal(5), rng.standard_normal(4)), (0, 1)),
    "newton_sqrt": (newton_sqrt, (2.0,), 0),
    "early_return": (early_return, (np.array([0.4, 0.9, 0.2]),), 0),
    "early_return_falls_off": (early_return, (np.array([-0.4, -0.9, 0.2]),), 0),
    "preallocated": (preallocated, (rng.standard_normal((4, 3)), rng.standard_normal((3, 2))),
                     (0, 1)),
    "widening": (widening, (rng.standard_normal(5),), 0),
    "rows": (rows, (rng.standard_normal((3, 4)),), 0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_whole_function(name):
    fn, args, argnums = CASES[name]
    check_grad(fn, *args, argnums=argnums, rtol=1e-5, atol=1e-6)
