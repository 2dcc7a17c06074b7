"""K-means clustering: a convergence `while` loop, per-point assignment, counting with `c[k] += 1`.

Run: python examples/kmeans.py
"""

import numpy as np

import autograph as ag


@ag.function
def kmeans(points, centers, max_iter):
    """Lloyd's algorithm; returns (centers, labels, iterations). Stops when labels stop changing."""
    n = points.shape[0]
    k = centers.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    iterations = 0
    changed = True
    while changed and iterations < max_iter:
        changed = False
        for i in range(n):
            d = np.sum((centers - points[i]) ** 2, axis=1)
            best = np.argmin(d)
            if best != labels[i]:
                labels[i] = best
                changed = True
        sums = np.zeros_like(centers)
        counts = np.zeros(k, dtype=np.int64)
        for i in range(n):
            sums[labels[i]] += points[i]
            counts[labels[i]] += 1
        for c in range(k):
            if counts[c] > 0:
                centers[c] = sums[c] / counts[c]
        iterations += 1
    return centers, labels, iterations


def make_inputs(seed=6, n=300, k=4):
    rng = np.random.default_rng(seed)
    true_centers = rng.uniform(-5, 5, (k, 2))
    points = true_centers[rng.integers(0, k, n)] + rng.standard_normal((n, 2)) * 0.7
    return points, points[:k].copy(), np.int64(50)


if __name__ == "__main__":
    from _main import run_example
    run_example(kmeans, make_inputs())
