"""The runtime's functional forms of the eight benchmark workloads lower completely to Numba
and give the plain-Python result on the Numba backend."""

import pytest

import runtime as rt
from runtime.executors.numba import codegen

forms = pytest.importorskip("test_rt_workloads", reason="the runtime's workload forms")


@pytest.mark.parametrize("name", sorted(forms.CASES))
def test_workload_runs_natively_with_the_plain_python_result(name):
    reference, args = forms._small(name)
    expected = reference(*args)
    staged = rt.function(forms.CASES[name], backend="numba")
    graph = staged.get_concrete_function(*args).graph
    assert codegen.numba_unsupported_ops(graph) == []
    forms.assert_same_result(staged(*args), expected)
    source = staged.get_concrete_function(*args).executable.source
    assert "while True:" in source or " in range(" in source   # (a loop in Numba's code)
