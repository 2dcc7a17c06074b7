"""Dynamic time warping: a dynamic-programming alignment with item assignment in nested loops.

Run: python examples/dtw.py
"""

import numpy as np

import autograph as ag


@ag.function
def dtw_distance(a, b, window):
    """DTW distance between 1-D series a and b, with a Sakoe-Chiba band of half-width `window`."""
    n = a.shape[0]
    m = b.shape[0]
    cost = np.full((n + 1, m + 1), np.inf)
    cost[0, 0] = 0.0
    for i in range(1, n + 1):
        lo = max(1, i - window)
        hi = min(m, i + window)
        for j in range(lo, hi + 1):
            d = abs(a[i - 1] - b[j - 1])
            cost[i, j] = d + min(cost[i - 1, j], cost[i, j - 1], cost[i - 1, j - 1])
    return cost[n, m]


def make_inputs(seed=4, n=120, m=100):
    rng = np.random.default_rng(seed)
    a = np.sin(np.linspace(0, 6, n)) + 0.1 * rng.standard_normal(n)
    b = np.sin(np.linspace(0.3, 6.3, m)) + 0.1 * rng.standard_normal(m)
    return a, b, np.int64(30)


if __name__ == "__main__":
    from _main import run_example
    run_example(dtw_distance, make_inputs())
