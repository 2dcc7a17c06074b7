"""What the model programs share around their models: the backend they stage with, the
training loop, the check that a staged training run is the plain Python run, and the check
that a train step differentiated by ag.value_and_grad trains as the hand-written one."""

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

import autograph as ag


def chosen_backend(module_name):
    """The backend of a model program's ag.functions: `--backend` on the command line when
    the program runs as a script, else the MODEL_BACKEND environment variable, else auto.
    Read once, where the program's classes are defined."""
    if module_name == "__main__":
        parser = argparse.ArgumentParser(add_help=False)
        parser.add_argument("--backend", choices=("numpy", "numba", "auto"))
        chosen = parser.parse_known_args()[0].backend
        if chosen is not None:
            return chosen
    return os.environ.get("MODEL_BACKEND", "auto")


def program_arguments(epochs, samples):
    """The command line of a program comparing two train steps: `--backend` (read where
    its classes are defined, by chosen_backend), `--epochs` and `--samples` (shorter runs)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=("numpy", "numba", "auto"), default="auto")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--samples", type=int, default=samples)
    return parser.parse_args()


def load_program(path, backend):
    """The model program at `path` with its ag.functions staged for `backend`, as a module of
    its own (named after the file and the backend): the program reads MODEL_BACKEND where
    its classes are defined, so one process can hold it for several backends."""
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(f"{name}__{backend}", path)
    module = importlib.util.module_from_spec(spec)
    before = os.environ.get("MODEL_BACKEND")
    os.environ["MODEL_BACKEND"] = backend
    try:
        spec.loader.exec_module(module)
    finally:
        if before is None:
            del os.environ["MODEL_BACKEND"]
        else:
            os.environ["MODEL_BACKEND"] = before
    return module


def fit(train_step, inputs, labels, epochs=5, lr=0.5, decay=0.5, batch_size=32, seed=0):
    """Mini-batch SGD over shuffled batches of (inputs..., labels); the learning rate is a
    Python float that changes every epoch (lr / (1 + decay * epoch)). Returns each epoch's
    mean loss."""
    rng = np.random.default_rng(seed)
    n = len(labels)
    losses = []
    for epoch in range(epochs):
        rate = lr / (1.0 + decay * epoch)
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch_size):
            batch = order[start:start + batch_size]
            loss = train_step(*(x[batch] for x in inputs), labels[batch], rate)
            total += loss * len(batch)
        losses.append(total / n)
    return losses


def train(make_model, inputs, labels, eagerly=False, **fit_args):
    """(model, epoch losses, seconds) of a new model trained by `fit`, as plain Python when
    `eagerly` (ag.run_functions_eagerly), else through its staged train step."""
    model = make_model()
    ag.run_functions_eagerly(eagerly)
    try:
        start = time.perf_counter()
        losses = fit(model.train_step, inputs, labels, **fit_args)
        seconds = time.perf_counter() - start
    finally:
        ag.run_functions_eagerly(False)
    return model, losses, seconds


def run_program(name, backend, make_model, inputs, labels, **fit_args):
    """Trains a model through ag.function and another as plain Python, prints the losses of
    every epoch and the trace counts; exits 1 when the losses or the weights differ."""
    model, losses, seconds = train(make_model, inputs, labels, **fit_args)
    plain, plain_losses, plain_seconds = train(make_model, inputs, labels, eagerly=True,
                                               **fit_args)
    print(f"{name}, backend {backend}")
    print("epoch | loss (ag.function)   | loss (plain Python)")
    for epoch, (loss, plain_loss) in enumerate(zip(losses, plain_losses)):
        print(f"{epoch:5d} | {loss:20.16f} | {plain_loss:20.16f}")
    accuracy = np.mean(model.predict(*inputs) == labels)
    print(f"training accuracy {accuracy:.3f}; ag.function {seconds:.3f} s (first call "
          f"included), plain Python {plain_seconds:.3f} s; traces: train_step "
          f"{model.train_step.trace_count}, predict {model.predict.trace_count}")
    weights, plain_weights = model.weights(), plain.weights()
    same_weights = len(weights) == len(plain_weights) and all(
        np.allclose(w, p, rtol=1e-12, atol=1e-15) for w, p in zip(weights, plain_weights))
    if not (np.allclose(losses, plain_losses, rtol=1e-12, atol=1e-15) and same_weights):
        print(f"MISMATCH in {name}: the staged training differs from plain Python",
              file=sys.stderr)
        sys.exit(1)
    print(f"{name}: losses and weights equal the plain Python run")


def relative_difference(actual, desired):
    """The largest difference between two arrays relative to the largest magnitude of
    `desired` (an element near 0, such as a bias, is not compared with itself alone)."""
    actual, desired = np.asarray(actual), np.asarray(desired)
    scale = np.max(np.abs(desired))
    return float(np.max(np.abs(actual - desired)) / scale) if scale else float(
        np.max(np.abs(actual)))


def step_seconds(model, inputs, labels, batch_size=32, calls=30):
    """Seconds per call of the model's staged train step in steady state (traced and
    compiled): the median of `calls` calls on the first batch after one to warm up, with a
    learning rate of 0.0 (a Python float as in training: the same trace; the weights stay)."""
    batch = [x[:batch_size] for x in inputs] + [labels[:batch_size]]
    model.train_step(*batch, 0.0)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        model.train_step(*batch, 0.0)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def compare_training(name, backend, make_reference, make_model, inputs, labels, rtol=1e-9,
                     **fit_args):
    """Trains a model with its hand-written train step (`make_reference`) and one with a
    step differentiated by ag.value_and_grad (`make_model`) by `fit`, from the same seeds;
    prints both runs' losses of every epoch, the largest relative difference of their weights
    and both steps' time per call. Exits 1 when a loss or a weight differs by more than
    `rtol` (relative): the two sum the gradients in other orders, so they are not bit-equal.
    Returns the runs, (model, epoch losses) each."""
    reference, reference_losses, _ = train(make_reference, inputs, labels, **fit_args)
    model, losses, _ = train(make_model, inputs, labels, **fit_args)
    weights, reference_weights = model.weights(), reference.weights()
    print(f"{name}, backend {backend}")
    print("epoch | loss (hand-written)  | loss (value_and_grad)")
    for epoch, (reference_loss, loss) in enumerate(zip(reference_losses, losses)):
        print(f"{epoch:5d} | {reference_loss:20.16f} | {loss:20.16f}")
    loss_difference = relative_difference(losses, reference_losses)
    weight_difference = max((relative_difference(w, r) for w, r in zip(weights,
                                                                        reference_weights)),
                            default=float("inf"))
    print(f"max relative difference: weights {weight_difference:.1e}, losses "
          f"{loss_difference:.1e}")
    reference_time = step_seconds(reference, inputs, labels)
    time_per_call = step_seconds(model, inputs, labels)
    print(f"train step per call (steady state): hand-written {reference_time * 1e3:.3f} ms, "
          f"value_and_grad {time_per_call * 1e3:.3f} ms ({time_per_call / reference_time:.2f}x); "
          f"traces: hand-written {type(reference).train_step.trace_count}, value_and_grad "
          f"{type(model).train_step.trace_count}")
    if not (len(weights) == len(reference_weights) > 0 and len(losses) == len(reference_losses)
            and max(weight_difference, loss_difference) <= rtol):
        print(f"MISMATCH in {name}: the value_and_grad training differs from the hand-written "
              f"one by more than {rtol:g} (relative)", file=sys.stderr)
        sys.exit(1)
    print(f"{name}: losses and weights of value_and_grad equal the hand-written ones within "
          f"{rtol:g} (relative)")
    return (reference, reference_losses), (model, losses)
