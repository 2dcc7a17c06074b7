"""Tensor arrays under the Numba executor (buffers in holders, written inline, flags made
only once a write leaves a gap: runtime/executors/numba/support.py), against the same
function run eagerly (rt.TensorArray on Python lists) and by the NumPy executor: appends,
overwrites, writes past the end, versions kept alive next to their successors, a tensor
array returned from the graph, and the errors of reading or stacking what was never
written."""

import numpy as np
import pytest

import runtime as rt
from runtime import errors


def _loop(n, body, init):
    def cond(i, *state):
        return i < n

    def step(i, *state):
        return (i + 1,) + tuple(body(i, *state))
    return rt.while_loop(cond, step, (np.int64(0),) + tuple(init))[1:]


def appends_and_gaps(x):
    """Appended in a loop (scalars and rows), overwritten, then written past the end."""
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    rows = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    ta, rows = _loop(x.shape[0], lambda i, ta, rows: (ta.write(ta.size(), x[i] * 2.0),
                                                      rows.write(rows.size(), x[: 2] * x[i])),
                     (ta, rows))
    ta = ta.write(1, -1.0)                   # an overwrite keeps every element written
    dense = ta.stack()
    ta = ta.write(ta.size() + 2, 7.0)        # leaves two elements unwritten
    return dense, rows.stack(), ta.size(), ta.read(ta.size() - 1), ta.read(0)


def versions(x):
    """Two writes to the same version: the first must not touch what the second sees."""
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.write(0, x[0])
    a = ta.write(1, x[1])
    b = ta.write(1, x[2])
    return a.stack(), b.stack(), ta.stack()


def read_gap(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.write(0, x[0])
    ta = ta.write(3, x[1])
    return ta.read(2)


def stack_gap(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.write(2, x[0])
    return ta.stack()


def returned(x):
    ta = rt.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.write(0, x[0])
    return ta.write(1, x[1])


X = np.array([0.5, -1.5, 2.0, 3.0])


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            _same(p, q)
    else:
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)


def test_values_match_eager():
    expected = appends_and_gaps(X)
    for backend in ("numpy", "numba"):
        _same(tuple(np.asarray(v) for v in rt.function(appends_and_gaps, backend=backend)(X)),
              tuple(np.asarray(v) for v in expected))


def test_each_version_keeps_its_elements():
    # (Eagerly a write updates the TensorArray and returns it: all three would be one.)
    for backend in ("numpy", "numba"):
        _same(rt.function(versions, backend=backend)(X),
              (X[[0, 1]], X[[0, 2]], X[[0]]))


def test_a_returned_tensor_array_is_its_elements_stacked():
    for backend in ("numpy", "numba"):
        _same(rt.function(returned, backend=backend)(X), X[:2])


@pytest.mark.parametrize("fn, message", [
    (read_gap, "TensorArray element 2 was read before it was written"),
    (stack_gap, "TensorArray element 0 was never written; cannot stack")])
def test_unwritten_elements_fail_alike(fn, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        fn(X)
    for backend in ("numpy", "numba"):
        with pytest.raises(errors.InvalidArgumentError) as info:
            rt.function(fn, backend=backend)(X)
        assert str(info.value).splitlines()[0] == message
