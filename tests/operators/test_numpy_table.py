"""Every NumPy call the graphs cover (tools/numpy_table), compared with NumPy: values, dtypes,
shapes, Python types, errors and arguments, on the numpy backend for every argument tuple,
on numba for the first."""

import os

import pytest

import autograph as ag
from runtime import numpy_api
from tools import numpy_table

CASES = numpy_table.cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_numpy_backend(case):
    assert numpy_table.run(case, "numpy", ag.function) == []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_numba_backend(case):
    assert numpy_table.run(case, "numba", ag.function) == []


def test_every_supported_function_is_in_the_table():
    handled = {numpy_table.function_name(f) for f in numpy_api.HANDLERS}
    missing = handled - set(numpy_table.covered())
    assert not missing, "NumPy functions without a case in tools/numpy_table: %s" % sorted(missing)


def test_the_docs_page_lists_the_table():
    """docs/numpy.md is generated from the table (python tools/numpy_coverage.py --write)."""
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "numpy.md")) as f:
        listed = {line.split("`")[1] for line in f if line.startswith("| `")}
    assert listed == set(numpy_table.covered()), "regenerate: python tools/numpy_coverage.py --write"
