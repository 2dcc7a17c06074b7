"""The MLP classifier of mlp_classifier.py trained with gradients from ag.value_and_grad
instead of its layers' hand-written backward passes: the train step differentiates the
loss of the model's forward pass with respect to the model's weights and updates them in
place with SGD. Run as a script, it trains one model with each step from the same seeds
and checks that their losses and weights agree.

Run: python examples/mlp_grad.py [--backend numpy|numba|auto] [--epochs N] [--samples N]
"""

import os

import autograph as ag
from models.layers import softmax_cross_entropy
from models.training import chosen_backend, compare_training, load_program, program_arguments

BACKEND = chosen_backend(__name__)

# The hand-written program, its train steps staged for the same backend.
classifier = load_program(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                       "mlp_classifier.py"), BACKEND)


class MLPGradClassifier(classifier.MLPClassifier):
    """MLPClassifier's layers and forward pass; the gradients come from ag.value_and_grad."""

    def loss(self, x, y):
        loss, _ = softmax_cross_entropy(self(x, training=True), y)
        return loss

    @ag.function(backend=BACKEND)
    def train_step(self, x, y, lr):
        if not self.weights():
            self(x)   # the layers build their weights on their first call (the first trace only)
        weights = self.weights()
        loss, grads = ag.value_and_grad(self.loss, wrt=weights)(x, y)
        for weight, grad in zip(weights, grads):
            weight -= lr * grad
        return loss


def main(epochs=5, samples=200, **model_args):
    """Trains MLPClassifier (hand-written backward pass) and MLPGradClassifier from the same
    seeds; exits 1 when they differ. Returns both runs, (model, epoch losses) each."""
    x, y = classifier.make_inputs(n=samples)
    return compare_training("mlp_grad", BACKEND,
                            lambda: classifier.MLPClassifier(**model_args),
                            lambda: MLPGradClassifier(**model_args), (x,), y, epochs=epochs)


if __name__ == "__main__":
    arguments = program_arguments(epochs=5, samples=200)
    main(arguments.epochs, arguments.samples)
