"""Each program in examples/ gives its eager result through ag.function (the same check
examples/_main.py makes when an example runs as a script)."""

import copy
import importlib

import numpy as np
import pytest

from autograph.impl import function as function_module

from _main import _same  # examples/_main.py, on sys.path via conftest


def _cases(module_name):
    module = importlib.import_module(module_name)
    if module_name == "mlp_layers":
        model = module.Model()
        rows, threshold = module.make_inputs()
        return [(model.scan_until_confident, (rows, threshold)),
                (model.scan_until_confident, (rows, np.float64(0.7), True))]
    staged = [v for v in vars(module).values() if isinstance(v, function_module.Function)]
    assert len(staged) == 1
    return [(staged[0], module.make_inputs())]


@pytest.mark.parametrize("module_name",
                         ["dtw", "greedy_decode", "kmeans", "mlp_layers", "pagerank", "rnn"])
def test_example_gives_the_eager_result(module_name):
    for fn, args in _cases(module_name):
        function_module.run_functions_eagerly(True)
        try:
            expected = fn(*copy.deepcopy(args))
        finally:
            function_module.run_functions_eagerly(False)
        traces = fn.trace_count
        result = fn(*copy.deepcopy(args))
        assert _same(expected, result), (expected, result)
        assert fn.trace_count == traces + 1
        assert "while" in str(fn.get_concrete_function(*copy.deepcopy(args)).graph)


def test_example_driver_runs(capsys):
    from _main import run_example
    module = importlib.import_module("rnn")
    run_example(module.rnn_classify, module.make_inputs(), show_graph=True)
    out = capsys.readouterr().out
    assert "graph result equals the plain Python result" in out and "--- graph of" in out
