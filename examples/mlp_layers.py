"""A model written as classes: a list of layer objects, `if training:` behaviour, early `break`.

Python objects, lists of layers and config flags run at trace time; only the array
computation ends up in the graph (code that numba.njit rejects as written).
Run: python examples/mlp_layers.py
"""

import numpy as np

import autograph as ag


class Dense:
    def __init__(self, rng, n_in, n_out, activation=None):
        self.W = rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)
        self.b = np.zeros(n_out)
        self.activation = activation

    def __call__(self, x, training):
        y = self.W @ x + self.b
        if self.activation == "relu":
            y = np.maximum(y, 0.0)
        elif self.activation == "tanh":
            y = np.tanh(y)
        return y


class Dropout:
    """Inverted dropout with a fixed keep-mask, so training runs are reproducible."""

    def __init__(self, keep_mask, rate):
        self.keep_mask = keep_mask
        self.rate = rate

    def __call__(self, x, training):
        if training:
            return x * self.keep_mask / (1.0 - self.rate)
        return x


class Model:
    def __init__(self, seed=2, n_in=8, hidden=32, n_out=3):
        rng = np.random.default_rng(seed)
        self.layers = [
            Dense(rng, n_in, hidden, "relu"),
            Dropout((rng.random(hidden) > 0.25).astype(np.float64), 0.25),
            Dense(rng, hidden, hidden, "tanh"),
            Dense(rng, hidden, n_out),
        ]

    def forward(self, x, training=False):
        for layer in self.layers:
            x = layer(x, training)
        return x

    @ag.function
    def scan_until_confident(self, rows, threshold, training=False):
        """Scores rows in order and stops at the first confident one."""
        scores = np.zeros((rows.shape[0], 3))
        found = -1
        for i in range(rows.shape[0]):
            logits = self.forward(rows[i], training)
            p = np.exp(logits - np.max(logits))
            p = p / np.sum(p)
            scores[i] = p
            if np.max(p) > threshold:
                found = i
                break
        return scores, found


def make_inputs(seed=5, n=200):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 8)) * 2.0, np.float64(0.85)


if __name__ == "__main__":
    from _main import run_example
    model = Model()
    rows, threshold = make_inputs()
    run_example(model.scan_until_confident, (rows, threshold))
    run_example(model.scan_until_confident, (rows, np.float64(0.7), True))
