"""Elman RNN classifier: a Python `for` over time steps, converted into one graph loop.

Run: python examples/rnn.py
"""

import numpy as np

import autograph as ag


@ag.function
def rnn_classify(xs, W, U, b, V):
    """Runs h_t = tanh(W @ x_t + U @ h_{t-1} + b) over xs (T, in, batch); returns class scores."""
    h = np.zeros((U.shape[0], xs.shape[2]))
    for t in range(xs.shape[0]):
        h = np.tanh(W @ xs[t] + U @ h + b)
    logits = V @ h
    logits = logits - np.max(logits, axis=0, keepdims=True)
    e = np.exp(logits)
    return e / np.sum(e, axis=0, keepdims=True)


def make_inputs(seed=0, steps=50, n_in=16, hidden=32, batch=8, classes=4):
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((steps, n_in, batch))
    W = rng.standard_normal((hidden, n_in)) / np.sqrt(n_in)
    U = rng.standard_normal((hidden, hidden)) * (0.9 / np.sqrt(hidden))
    b = rng.standard_normal((hidden, 1)) * 0.1
    V = rng.standard_normal((classes, hidden)) / np.sqrt(hidden)
    return xs, W, U, b, V


if __name__ == "__main__":
    from _main import run_example
    run_example(rnn_classify, make_inputs())
