"""examples/mlp_grad.py and examples/rnn_grad.py train the models of the model programs
(mlp_classifier.py, rnn_classifier.py) with a train step whose gradients come from
ag.value_and_grad(self.loss, wrt=self.weights()) instead of the layers' hand-written
backward passes. From the same seeds, both steps give the same training: losses and weights
within 1e-9 (relative; the two sum the gradients in other orders), the same dropout masks
(the dropout Generators end in the same state)."""

import functools
import os
import subprocess
import sys

import numpy as np
import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_EXAMPLES = os.path.join(_ROOT, "examples")
_PROGRAMS = {"mlp_grad": "MLPGradClassifier", "rnn_grad": "RNNGradClassifier"}


@functools.cache
def program(name, backend):
    from models.training import load_program
    module = load_program(os.path.join(_EXAMPLES, name + ".py"), backend)
    assert module.BACKEND == backend and module.classifier.BACKEND == backend
    return module


def generator_states(model):
    layers = getattr(model, "layers", None) or vars(model).values()
    return [layer.rng.bit_generator.state for layer in layers if hasattr(layer, "rng")]


def assert_same_training(reference, reference_losses, model, losses):
    assert len(losses) == len(reference_losses) > 0
    np.testing.assert_allclose(losses, reference_losses, rtol=1e-9, atol=0)
    assert [type(loss) for loss in losses] == [type(loss) for loss in reference_losses]
    weights, reference_weights = model.weights(), reference.weights()
    assert len(weights) == len(reference_weights) > 0
    for weight, reference_weight in zip(weights, reference_weights):
        assert type(weight) is np.ndarray and weight.dtype == reference_weight.dtype
        scale = np.max(np.abs(reference_weight))
        np.testing.assert_allclose(weight, reference_weight, rtol=1e-9, atol=1e-9 * scale)
    assert generator_states(model) == generator_states(reference)


@pytest.mark.parametrize("name, backend, epochs, samples", [
    ("mlp_grad", "numpy", 3, 200), ("rnn_grad", "numpy", 3, 120),
    ("mlp_grad", "numba", 1, 64), ("rnn_grad", "numba", 1, 64)],
    ids=lambda value: str(value))
def test_value_and_grad_trains_as_the_hand_written_backward_pass(name, backend, epochs,
                                                                    samples, capsys):
    """The program's own comparison, its printout, and its trace counts: the first call
    builds the weights (one trace), the second traces with them and the forward pass's
    caches on the layers as inputs; later steps (a new learning rate every epoch, a last
    batch of another size, the timed calls) reuse it."""
    module = program(name, backend)
    step = getattr(module, _PROGRAMS[name]).train_step
    traces = step.trace_count
    (reference, reference_losses), (model, losses) = module.main(epochs, samples)
    assert step.trace_count - traces == 2
    assert_same_training(reference, reference_losses, model, losses)
    assert isinstance(model, getattr(module, _PROGRAMS[name]))
    assert not isinstance(reference, getattr(module, _PROGRAMS[name]))
    layers = getattr(model, "layers", None) or [model.rnn, model.head]
    assert not any(hasattr(layer, "dkernel") for layer in layers)   # no backward() ran
    out = capsys.readouterr().out
    assert f"{name}, backend {backend}" in out
    assert "loss (hand-written)  | loss (value_and_grad)" in out
    assert "train step per call (steady state): hand-written" in out
    assert f"{name}: losses and weights of value_and_grad equal the hand-written ones" in out


@pytest.mark.parametrize("name", list(_PROGRAMS))
def test_one_trace_when_the_weights_are_built(name):
    """A model whose weights (and the caches its forward pass leaves on the layers) exist
    before training, built by a plain call, traces its value_and_grad step once."""
    from models.training import train
    module = program(name, "numpy")
    cls = getattr(module, _PROGRAMS[name])
    reference_cls = cls.__mro__[1]
    *inputs, labels = module.classifier.make_inputs(n=80)

    def prebuilt(cls):
        def make_model():
            model = cls(dropout=0.0)
            model(*(x[:1] for x in inputs))
            return model
        return make_model

    traces = cls.train_step.trace_count
    reference, reference_losses, _ = train(prebuilt(reference_cls), inputs, labels, epochs=3)
    model, losses, _ = train(prebuilt(cls), inputs, labels, epochs=3)
    assert cls.train_step.trace_count - traces == 1
    assert_same_training(reference, reference_losses, model, losses)


@pytest.mark.filterwarnings("ignore:.*has been traced 5 times:RuntimeWarning")  # (new models)
def test_the_comparison_fails_when_the_trainings_differ(capsys):
    from models.training import compare_training
    module = program("mlp_grad", "numpy")
    x, y = module.classifier.make_inputs(n=64)
    with pytest.raises(SystemExit) as exit_info:
        compare_training("mlp_grad", "numpy", module.classifier.MLPClassifier,
                         lambda: module.MLPGradClassifier(seed=1), (x,), y, epochs=1)
    assert exit_info.value.code == 1
    assert "MISMATCH in mlp_grad" in capsys.readouterr().err


@pytest.mark.parametrize("name, arguments, epochs", [
    ("mlp_grad", [], 5), ("rnn_grad", ["--epochs", "3", "--samples", "60"], 3)])
def test_the_program_runs_as_a_script(name, arguments, epochs):
    result = subprocess.run(
        [sys.executable, os.path.join(_EXAMPLES, name + ".py"), "--backend", "numpy",
         *arguments],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")))
    assert result.returncode == 0, result.stderr
    assert f"{name}, backend numpy" in result.stdout
    assert f"{name}: losses and weights of value_and_grad equal" in result.stdout
    assert len([line for line in result.stdout.splitlines() if line[:5].strip().isdigit()]) == epochs
