"""The kernels of tools/numpy_kernels.py (NumPy code as users write it: stencils, distances,
simulations, filters, ML blocks, dynamic programming) give Python's results through graphs,
or are refused as listed here: a new refusal, and one that goes away, show up as failures
(update the lists: they are the issue's progress)."""

import pytest

from tools import numpy_kernels

# kernel -> what the numpy backend's refusal names (the first NumPy call graphs lack).
EXPECTED_REFUSALS = {
    "covariance": "np.cov",
}

# kernel -> the error it raises where it should run or be refused clearly (open bugs).
EXPECTED_ERRORS = {}

# The numba backend runs a few (compiles are slow): a stencil in place, a scalar DP loop,
# reductions with keepdims in float32.
NUMBA_KERNELS = ["jacobi_1d", "edit_distance", "softmax_f32"]


def _check(name, status, detail):
    assert status != "MISMATCH", "%s gives another result than Python: %s" % (name, detail)
    if name in EXPECTED_REFUSALS:
        assert status == "refused" and EXPECTED_REFUSALS[name] in detail, (
            "%s: expected a refusal naming %s, got %s: %s (update EXPECTED_REFUSALS)"
            % (name, EXPECTED_REFUSALS[name], status, detail))
    elif name in EXPECTED_ERRORS:
        assert status == "error" and EXPECTED_ERRORS[name] in detail, (
            "%s: expected the known error %s, got %s: %s (update EXPECTED_ERRORS)"
            % (name, EXPECTED_ERRORS[name], status, detail))
    else:
        assert status == "ok", "%s: %s: %s" % (name, status, detail)


@pytest.mark.parametrize("name", list(numpy_kernels.KERNELS))
def test_kernel_on_the_numpy_backend(name):
    status, detail = numpy_kernels.run(numpy_kernels.KERNELS[name], "numpy", timeout=0)
    _check(name, status, detail)


@pytest.mark.parametrize("name", NUMBA_KERNELS)
def test_kernel_on_the_numba_backend(name):
    status, detail = numpy_kernels.run(numpy_kernels.KERNELS[name], "numba", timeout=0)
    _check(name, status, detail)


def test_the_lists_name_kernels():
    listed = set(EXPECTED_REFUSALS) | set(EXPECTED_ERRORS) | set(NUMBA_KERNELS)
    assert listed <= set(numpy_kernels.KERNELS)
