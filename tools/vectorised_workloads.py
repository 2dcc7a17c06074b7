"""Vectorised benchmark workloads: NumPy code as users write it (whole-array expressions,
broadcasting, masks, matmuls, inside Python loops), at sizes where plain NumPy takes about
0.1-10 ms a call, for tools/bench_workloads.py (issue 20: array-heavy code on every backend).

The kernels tools/numpy_kernels.py already has (its correctness survey, at small sizes) are
imported from there; only the missing ones are written here. `WORKLOADS` maps a name to
(function, input factory) as tools/workloads.py does; `TINY` maps it to a factory of tiny
inputs (the tests run the benchmark on those). Everything is float64/int64; the functions
are plain Python and NumPy, given unchanged to ag.function and to numba.njit (which refuses
some of them: the benchmark shows why).
"""

import numpy as np

from tools.numpy_kernels import (attention, jacobi_2d, kmeans, pairwise_euclidean,
                                 softmax, squared_euclidean_dot)


def bouncing_balls(height, velocity, dt, steps):
    """Balls falling onto the floor: a step under gravity, then the ones below the floor
    bounced back up, losing some speed (boolean-mask updates inside a loop)."""
    for _ in range(steps):
        velocity -= 9.81 * dt
        height += dt * velocity
        below = height < 0.0
        height[below] = -height[below]
        velocity[below] = -0.9 * velocity[below]
    return height, velocity


def ista(A, b, lam, step, iterations):
    """Sparse least squares by iterative soft thresholding: a gradient step, then np.where
    shrinks every coefficient toward zero and zeroes the small ones."""
    x = np.zeros(A.shape[1])
    for _ in range(iterations):
        x = x - step * (A.T @ (A @ x - b))
        x = np.where(np.abs(x) > lam * step, x - lam * step * np.sign(x), 0.0)
    return x


def _rng(seed=0):
    return np.random.default_rng(seed)


def _jacobi_2d(n, steps):
    return steps, _rng().random((n, n)), _rng(1).random((n, n))


def _two_sets(m, n, d):
    return _rng().random((m, d)), _rng(1).random((n, d))


def _kmeans(n, k, iterations):
    return _rng().standard_normal((n, 2)), _rng(1).standard_normal((k, 2)), iterations


def _softmax(n, d):
    return (_rng().standard_normal((n, d)) * 5,)


def _attention(n, d):
    return tuple(_rng(seed).standard_normal((n, d)) for seed in range(3))


def _balls(n, steps):
    return _rng().random(n) * 10.0, _rng(1).standard_normal(n), 0.05, steps


def _ista(m, n, iterations):
    A = _rng().standard_normal((m, n)) / np.sqrt(m)
    truth = np.where(_rng(1).random(n) < 0.1, _rng(2).standard_normal(n), 0.0)
    return A, A @ truth, 0.05, 0.5, iterations


WORKLOADS = {
    "jacobi_2d": (jacobi_2d, lambda: _jacobi_2d(128, 20)),
    "pairwise_euclidean": (pairwise_euclidean, lambda: _two_sets(300, 200, 3)),
    "squared_euclidean": (squared_euclidean_dot, lambda: _two_sets(500, 400, 16)),
    "bouncing_balls": (bouncing_balls, lambda: _balls(5000, 50)),
    "ista": (ista, lambda: _ista(200, 100, 50)),
    "kmeans": (kmeans, lambda: _kmeans(2000, 8, 5)),
    "softmax": (softmax, lambda: _softmax(1000, 100)),
    "attention": (attention, lambda: _attention(256, 64)),
}

TINY = {
    "jacobi_2d": lambda: _jacobi_2d(8, 3),
    "pairwise_euclidean": lambda: _two_sets(5, 4, 3),
    "squared_euclidean": lambda: _two_sets(5, 4, 3),
    "bouncing_balls": lambda: _balls(10, 3),
    "ista": lambda: _ista(6, 4, 3),
    "kmeans": lambda: _kmeans(20, 3, 2),
    "softmax": lambda: _softmax(4, 5),
    "attention": lambda: _attention(4, 3),
}
