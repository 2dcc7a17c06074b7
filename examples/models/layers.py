"""Layers written the way a NumPy user writes them, with no library: weights built on the
first call from the input's shape, a forward `call`, a hand-written `backward`, and SGD
updates in place. The model programs (mlp_classifier.py, rnn_classifier.py) stage their
train steps with ag.function; nothing here knows about it."""

import numpy as np


class GlorotUniform:
    """Weights drawn uniformly in +-sqrt(6 / (fan_in + fan_out)) from the layer's own
    Generator, so two models made with the same seed start with the same weights."""

    def __init__(self, rng):
        self.rng = rng

    def __call__(self, shape):
        limit = np.sqrt(6.0 / (shape[0] + shape[1]))
        return self.rng.uniform(-limit, limit, size=shape)


def zeros(shape):
    return np.zeros(shape)


class Layer:
    """Builds its weights on the first call, when the input's shape is known (Keras's
    contract): subclasses write `build(input_shape)` and `call(x, training)`."""

    def __init__(self):
        self.built = False
        self.weights = []

    def add_weight(self, shape, initializer):
        weight = initializer(shape)
        self.weights.append(weight)
        return weight

    def build(self, input_shape):
        pass

    def __call__(self, x, *args, training=False):
        if not self.built:
            self.build(x.shape)
            self.built = True
        return self.call(x, *args, training=training)

    def call(self, x, training=False):
        raise NotImplementedError

    def update(self, lr):
        """SGD step on the gradients the last `backward` left (a layer without weights has none)."""


class Dense(Layer):
    """y = activation(x @ kernel + bias); `backward` keeps dL/dkernel and dL/dbias."""

    def __init__(self, units, activation=None, seed=0):
        super().__init__()
        self.units = units
        self.activation = activation
        self.rng = np.random.default_rng(seed)

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], self.units), GlorotUniform(self.rng))
        self.bias = self.add_weight((self.units,), zeros)

    def call(self, x, training=False):
        self.inputs = x
        z = x @ self.kernel + self.bias
        if self.activation == "relu":
            self.outputs = np.maximum(z, 0.0)
        elif self.activation == "tanh":
            self.outputs = np.tanh(z)
        else:
            self.outputs = z
        return self.outputs

    def backward(self, grad):
        if self.activation == "relu":
            grad = grad * (self.outputs > 0)
        elif self.activation == "tanh":
            grad = grad * (1.0 - self.outputs ** 2)
        self.dkernel = self.inputs.T @ grad
        self.dbias = grad.sum(axis=0)
        return grad @ self.kernel.T

    def update(self, lr):
        self.kernel -= lr * self.dkernel
        self.bias -= lr * self.dbias


class Dropout(Layer):
    """Inverted dropout: while training, zeroes each unit with probability `rate` (a new
    mask from the layer's Generator on every call) and scales the others by 1/keep."""

    def __init__(self, rate, seed=0):
        super().__init__()
        self.rate = rate
        self.rng = np.random.default_rng(seed)

    def call(self, x, training=False):
        if not training:
            return x
        keep = 1.0 - self.rate
        self.mask = (self.rng.random(x.shape) < keep) / keep
        return x * self.mask

    def backward(self, grad):
        return grad * self.mask


class SimpleRNN(Layer):
    """h_t = tanh(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias) over inputs (batch, T,
    features) padded to T: a sequence's state stops changing after its length, so the
    last state is each sequence's own. `backward` runs back through time."""

    def __init__(self, units, seed=0):
        super().__init__()
        self.units = units
        self.rng = np.random.default_rng(seed)

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], self.units), GlorotUniform(self.rng))
        self.recurrent_kernel = self.add_weight((self.units, self.units),
                                                GlorotUniform(self.rng))
        self.bias = self.add_weight((self.units,), zeros)

    def call(self, xs, lengths, training=False):
        batch, steps = xs.shape[0], xs.shape[1]
        h = np.zeros((batch, self.units))
        # The states before each step and the new states each step computes (before
        # masking), for the backward pass.
        self.states = np.zeros((steps, batch, self.units))
        self.candidates = np.zeros((steps, batch, self.units))
        for t in range(steps):
            self.states[t] = h
            candidate = np.tanh(xs[:, t] @ self.kernel + h @ self.recurrent_kernel + self.bias)
            self.candidates[t] = candidate
            running = (t < lengths)[:, None]
            h = np.where(running, candidate, h)
        self.xs = xs
        self.lengths = lengths
        return h

    def backward(self, grad_h):
        """Gradients of the weights from dL/dh of the last state; returns nothing (the
        inputs are data)."""
        self.dkernel = np.zeros_like(self.kernel)
        self.drecurrent_kernel = np.zeros_like(self.recurrent_kernel)
        self.dbias = np.zeros_like(self.bias)
        for t in reversed(range(self.xs.shape[1])):
            running = (t < self.lengths)[:, None]
            dz = np.where(running, grad_h, 0.0) * (1.0 - self.candidates[t] ** 2)
            self.dkernel += self.xs[:, t].T @ dz
            self.drecurrent_kernel += self.states[t].T @ dz
            self.dbias += dz.sum(axis=0)
            grad_h = np.where(running, 0.0, grad_h) + dz @ self.recurrent_kernel.T


def softmax_cross_entropy(logits, labels):
    """Mean cross-entropy of softmax(logits) against integer labels, and its gradient with
    respect to the logits."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    probs = exp / exp.sum(axis=1, keepdims=True)
    n = logits.shape[0]
    rows = np.arange(n)
    loss = -np.mean(np.log(probs[rows, labels]))
    grad = probs.copy()
    grad[rows, labels] -= 1.0
    return loss, grad / n
