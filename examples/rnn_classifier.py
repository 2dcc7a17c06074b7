"""An RNN classifier over sequences of different lengths padded to T (the state stops
changing after each sequence's length), with backpropagation through time written by hand
and a compiled train step that updates the weights in place; the learning rate, a Python
float, changes every epoch.

Run: python examples/rnn_classifier.py [--backend numpy|numba|auto]
"""

import numpy as np

import autograph as ag
from models.layers import Dense, Dropout, SimpleRNN, softmax_cross_entropy
from models.training import chosen_backend, run_program

BACKEND = chosen_backend(__name__)


class RNNClassifier:
    def __init__(self, units=16, classes=2, dropout=0.1, seed=0):
        self.rnn = SimpleRNN(units, seed=seed)
        self.dropout = Dropout(dropout, seed=seed + 1) if dropout else None
        self.head = Dense(classes, seed=seed + 2)

    def __call__(self, xs, lengths, training=False):
        h = self.rnn(xs, lengths, training=training)
        if self.dropout is not None:
            h = self.dropout(h, training=training)
        return self.head(h)

    @ag.function(backend=BACKEND)
    def train_step(self, xs, lengths, y, lr):
        logits = self(xs, lengths, training=True)
        loss, grad = softmax_cross_entropy(logits, y)
        grad = self.head.backward(grad)
        if self.dropout is not None:
            grad = self.dropout.backward(grad)
        self.rnn.backward(grad)
        self.head.kernel -= lr * self.head.dkernel
        self.head.bias -= lr * self.head.dbias
        self.rnn.kernel -= lr * self.rnn.dkernel
        self.rnn.recurrent_kernel -= lr * self.rnn.drecurrent_kernel
        self.rnn.bias -= lr * self.rnn.dbias
        return loss

    @ag.function(backend=BACKEND)
    def predict(self, xs, lengths):
        return np.argmax(self(xs, lengths), axis=1)

    def weights(self):
        return self.rnn.weights + self.head.weights


def make_inputs(seed=0, n=120, steps=12, features=4):
    """Sequences of 3 to `steps` noisy steps padded with zeros; the label says whether the
    first feature's mean over the sequence's own steps is positive."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, steps + 1, size=n)
    labels = rng.integers(0, 2, size=n)
    xs = rng.standard_normal((n, steps, features))
    xs[:, :, 0] += np.where(labels == 1, 0.5, -0.5)[:, None]
    xs[np.arange(steps)[None, :] >= lengths[:, None]] = 0.0
    return xs, lengths, labels


if __name__ == "__main__":
    xs, lengths, y = make_inputs()
    run_program("rnn_classifier", BACKEND, RNNClassifier, (xs, lengths), y, epochs=5)
