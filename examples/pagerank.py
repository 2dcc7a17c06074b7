"""PageRank by power iteration with a convergence test and an early `return` from the loop.

Run: python examples/pagerank.py
"""

import numpy as np

import autograph as ag


@ag.function
def pagerank(adjacency, damping, tol, max_iter):
    """Returns (ranks, iterations used); stops as soon as the L1 change drops below tol."""
    n = adjacency.shape[0]
    out_degree = np.sum(adjacency, axis=1)
    # Dangling nodes link to every node.
    for i in range(n):
        if out_degree[i] == 0:
            adjacency[i, :] = 1.0
            out_degree[i] = n
    transition = (adjacency / out_degree[:, None]).T
    ranks = np.full(n, 1.0 / n)
    for it in range(max_iter):
        new_ranks = (1.0 - damping) / n + damping * (transition @ ranks)
        change = np.sum(np.abs(new_ranks - ranks))
        ranks = new_ranks
        if change < tol:
            return ranks, it + 1
    return ranks, max_iter


def make_inputs(seed=1, n=64):
    rng = np.random.default_rng(seed)
    adjacency = (rng.random((n, n)) < 0.08).astype(np.float64)
    adjacency[3, :] = 0.0  # a dangling node
    return adjacency, 0.85, np.float64(1e-10), np.int64(1000)


if __name__ == "__main__":
    from _main import run_example
    run_example(pagerank, make_inputs())
