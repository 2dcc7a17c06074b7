"""The RNN classifier of rnn_classifier.py trained with gradients from ag.value_and_grad
instead of the hand-written backpropagation through time: the train step differentiates
the loss of the model's forward pass (a loop over the time steps) with respect to the
model's weights and updates them in place with SGD. Run as a script, it trains one model
with each step from the same seeds and checks that their losses and weights agree.

Run: python examples/rnn_grad.py [--backend numpy|numba|auto] [--epochs N] [--samples N]
"""

import os

import autograph as ag
from models.layers import softmax_cross_entropy
from models.training import chosen_backend, compare_training, load_program, program_arguments

BACKEND = chosen_backend(__name__)

# The hand-written program, its train steps staged for the same backend.
classifier = load_program(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                       "rnn_classifier.py"), BACKEND)


class RNNGradClassifier(classifier.RNNClassifier):
    """RNNClassifier's layers and forward pass; the gradients come from ag.value_and_grad."""

    def loss(self, xs, lengths, y):
        loss, _ = softmax_cross_entropy(self(xs, lengths, training=True), y)
        return loss

    @ag.function(backend=BACKEND)
    def train_step(self, xs, lengths, y, lr):
        if not self.weights():
            self(xs, lengths)   # the layers build their weights on their first call
        weights = self.weights()
        loss, grads = ag.value_and_grad(self.loss, wrt=weights)(xs, lengths, y)
        for weight, grad in zip(weights, grads):
            weight -= lr * grad
        return loss


def main(epochs=5, samples=120, **model_args):
    """Trains RNNClassifier (hand-written backward pass) and RNNGradClassifier from the same
    seeds; exits 1 when they differ. Returns both runs, (model, epoch losses) each."""
    xs, lengths, y = classifier.make_inputs(n=samples)
    return compare_training("rnn_grad", BACKEND,
                            lambda: classifier.RNNClassifier(**model_args),
                            lambda: RNNGradClassifier(**model_args), (xs, lengths), y,
                            epochs=epochs)


if __name__ == "__main__":
    arguments = program_arguments(epochs=5, samples=120)
    main(arguments.epochs, arguments.samples)
