"""What the model programs share around their models: the backend they stage with, the
training loop, and the check that a staged training run is the plain Python run."""

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
