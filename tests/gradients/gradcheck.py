"""Test helper: gradients against central finite differences (float64), on each backend.

`check_grad(fn, *args, argnums=0)` runs `fn` as plain Python for the value, takes central
differences of it for the expected gradient, and asserts that `ag.value_and_grad(fn)` gives
the same value (to rounding) and gradient (to the differences' accuracy) on every backend,
with the gradient in each argument's dtype and shape, and the arguments left unchanged.
"""

import copy

import numpy as np

import autograph as ag

BACKENDS = ("numpy", "numba")


def numeric_grad(fn, args, argnum, eps=1e-6):
    """d fn / d args[argnum] by central differences, one element at a time."""
    x = np.array(args[argnum], dtype=np.float64)
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        saved = flat[i]
        values = []
        for step in (eps, -eps):
            flat[i] = saved + step
            shifted = list(copy.deepcopy(args))
            shifted[argnum] = x.copy() if np.ndim(args[argnum]) else float(x)
            values.append(float(fn(*shifted)))
        flat[i] = saved
        gflat[i] = (values[0] - values[1]) / (2 * eps)
    return grad


def check_grad(fn, *args, argnums=0, backends=BACKENDS, rtol=1e-5, atol=1e-6, eps=1e-6):
    """Asserts ag.value_and_grad(fn, argnums) equals plain Python's value and the central
    differences, on each backend; returns the gradients of the last backend."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    expected_value = fn(*copy.deepcopy(args))
    expected = [numeric_grad(fn, args, i, eps) for i in nums]
    grads = None
    for backend in backends:
        given = copy.deepcopy(args)
        value, grads = ag.value_and_grad(fn, argnums=argnums, backend=backend)(*given)
        for before, after in zip(args, given):
            np.testing.assert_array_equal(before, after, err_msg="%s: an argument changed"
                                          % backend)
        np.testing.assert_allclose(value, expected_value, rtol=1e-12, atol=1e-12,
                                   err_msg="%s: value" % backend)
        got = (grads,) if single else grads
        for i, g, e in zip(nums, got, expected):
            assert np.shape(g) == np.shape(args[i]), (backend, np.shape(g), np.shape(args[i]))
            if isinstance(args[i], np.ndarray):
                assert g.dtype == args[i].dtype, (backend, g.dtype, args[i].dtype)
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol,
                                       err_msg="%s: d/d argument %d" % (backend, i))
    return grads
