"""The runtime's functional forms of the eight benchmark workloads lower completely to Numba
and give the plain-Python result on the Numba backend."""

import numpy as np
import pytest

import runtime as rt
from runtime.executors import numba_exec

forms = pytest.importorskip("test_rt_workloads", reason="the runtime's workload forms")


@pytest.mark.parametrize("name", sorted(forms.CASES))
def test_workload_runs_natively_with_the_plain_python_result(name):
    reference, args = forms._small(name)
    expected = reference(*args)
    staged = rt.function(forms.CASES[name], backend="numba")
    graph = staged.get_concrete_function(*args).graph
    assert numba_exec.numba_unsupported_ops(graph) == []
    got = staged(*args)
    if isinstance(expected, tuple):
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, rtol=1e-12)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert "while True:" in staged.get_concrete_function(*args).executable.source
