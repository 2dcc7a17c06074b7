"""Test helper: run a function as plain Python and through ag.function on copies of the same
NumPy inputs; compare results, printed output, mutated arguments and raised errors."""

import copy
import os

import numpy as np
import pytest

from autograph.impl.function import function

# The executor the equivalence checks use (AG_TEST_BACKEND=numba runs them on Numba).
BACKEND = os.environ.get("AG_TEST_BACKEND", "numpy")


def same(a, b):
    """Equal values with the same nesting (lists stay lists, tuples tuples)."""
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if a is None or b is None or isinstance(a, str):
        return a == b
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and (np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
                                   or np.allclose(a, b, rtol=1e-12, atol=1e-12))


def check(fn, *args, capsys=None, backend=BACKEND, staged=None):
    """Asserts that `fn(*args)` and `ag.function(fn)(*args)` agree; returns the staged
    function (traced once for these arguments)."""
    staged = staged or function(fn, backend=backend)
    eager_args, graph_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = fn(*eager_args)
    expected_out = capsys.readouterr().out if capsys else None
    result = staged(*graph_args)
    result_out = capsys.readouterr().out if capsys else None
    assert same(expected, result), "eager %r != graph %r" % (expected, result)
    assert same(list(eager_args), list(graph_args)), "arguments mutated differently"
    if capsys:
        assert expected_out == result_out
    return staged


def check_raises(error, fn, *args, match=None, backend=BACKEND, graph_error=None):
    """Both runs raise `error` (the graph run `graph_error` if given: a subclass or the
    documented graph error); returns the graph run's exception info."""
    with pytest.raises(error):
        fn(*copy.deepcopy(args))
    with pytest.raises(graph_error or error, match=match) as info:
        function(fn, backend=backend)(*copy.deepcopy(args))
    return info


def graph_text(staged, *args):
    return str(staged.get_concrete_function(*copy.deepcopy(args)).graph)


def check_either(fn, *args, backend=BACKEND):
    """check(...) where Python returns; check_raises(the error Python raises) where it
    raises."""
    try:
        fn(*copy.deepcopy(args))
    except Exception as error:   # compared below
        return check_raises(type(error), fn, *args, backend=backend)
    return check(fn, *args, backend=backend)
