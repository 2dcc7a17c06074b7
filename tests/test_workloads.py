"""Every benchmark workload (tools/workloads.py), exactly as a user wrote it, gives the
plain-Python result through ag.function (a graph with real graph loops, traced once)."""

import copy
import importlib.util

import numpy as np
import pytest

from autograph.impl.function import function
from tools import vectorised_workloads
from tools.workloads import WORKLOADS

BACKENDS = ["numpy"]
if importlib.util.find_spec("runtime.executors.numba.policy") is not None:
    BACKENDS += ["numba", "auto"]


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=0)


def _same_typed(a, b):
    """`_same`, and the same Python types and dtypes."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same_typed, a, b))
    return (type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype
            and (a is None or _same(a, b)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_workload_gives_the_plain_python_result(name, backend):
    fn, make_inputs = WORKLOADS[name]
    args = make_inputs()
    expected = fn(*copy.deepcopy(args))
    staged = function(fn, backend=backend)
    assert _same(expected, staged(*copy.deepcopy(args)))
    assert _same(expected, staged(*copy.deepcopy(args)))
    assert staged.trace_count == 1


@pytest.mark.parametrize("name", ["collatz", "mandelbrot", "edit_distance", "ema", "rnn"])
def test_workload_loops_are_graph_loops_not_unrolled(name):
    fn, make_inputs = WORKLOADS[name]
    graph = str(function(fn, backend="numpy").get_concrete_function(*make_inputs()).graph)
    assert "while" in graph
    assert len(graph.splitlines()) < 400


# The vectorised workloads (tools/vectorised_workloads.py) at tiny sizes, their results and
# their arguments after the call; on the numba backend only the two written there (the
# others are tools/numpy_kernels.py's, tested by tests/test_numpy_kernels.py).
_VECTORISED = [(name, "numpy") for name in vectorised_workloads.TINY]
if "numba" in BACKENDS:
    _VECTORISED += [("bouncing_balls", "numba"), ("ista", "numba")]


@pytest.mark.parametrize("name,backend", _VECTORISED)
def test_vectorised_workload_gives_the_plain_python_result(name, backend):
    fn, _ = vectorised_workloads.WORKLOADS[name]
    args = vectorised_workloads.TINY[name]()
    python_args, staged_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = fn(*python_args)
    got = function(fn, backend=backend)(*staged_args)
    assert _same_typed(expected, got)
    assert _same_typed(python_args, staged_args)
