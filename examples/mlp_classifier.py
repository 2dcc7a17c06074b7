"""An MLP classifier written as layer objects (weights built on the first call, dropout
from a Generator, a hand-written backward pass) whose compiled train step updates the
weights in place; the learning rate, a Python float, changes every epoch.

Run: python examples/mlp_classifier.py [--backend numpy|numba|auto]
"""

import numpy as np

import autograph as ag
from models.layers import Dense, Dropout, softmax_cross_entropy
from models.training import chosen_backend, run_program

BACKEND = chosen_backend(__name__)


class MLPClassifier:
    def __init__(self, hidden=32, classes=3, dropout=0.2, seed=0):
        self.layers = [Dense(hidden, "relu", seed=seed)]
        if dropout:
            self.layers.append(Dropout(dropout, seed=seed + 1))
        self.layers.append(Dense(hidden, "tanh", seed=seed + 2))
        self.layers.append(Dense(classes, seed=seed + 3))

    def __call__(self, x, training=False):
        for layer in self.layers:
            x = layer(x, training=training)
        return x

    @ag.function(backend=BACKEND)
    def train_step(self, x, y, lr):
        logits = self(x, training=True)
        loss, grad = softmax_cross_entropy(logits, y)
        for layer in reversed(self.layers):
            grad = layer.backward(grad)
        for layer in self.layers:
            layer.update(lr)
        return loss

    @ag.function(backend=BACKEND)
    def predict(self, x):
        return np.argmax(self(x), axis=1)

    def weights(self):
        return [w for layer in self.layers for w in layer.weights]


def make_inputs(seed=0, n=200, features=8, classes=3):
    """Points around `classes` random centres, labelled by their centre."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((classes, features))
    labels = rng.integers(0, classes, size=n)
    x = centres[labels] + rng.standard_normal((n, features))
    return x, labels


if __name__ == "__main__":
    x, y = make_inputs()
    run_program("mlp_classifier", BACKEND, MLPClassifier, (x,), y, epochs=5)
