"""Every benchmark workload (tools/workloads.py), exactly as a user wrote it, gives the
plain-Python result through ag.function (a graph with real graph loops, traced once)."""

import copy
import importlib.util

import numpy as np
import pytest

from autograph.impl.function import function
from tools.workloads import WORKLOADS

BACKENDS = ["numpy"]
if importlib.util.find_spec("runtime.executors.numba.policy") is not None:
    BACKENDS += ["numba", "auto"]


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=0)


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
