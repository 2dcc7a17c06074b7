"""A `raise` in graph code on the Numba backend: an exception of scalar values travels as a
GraphFail and is made by failures.py (no object-mode block: cheaper to compile), one with
array values through an object-mode callback; both give what plain Python and the NumPy
interpreter give."""

import numpy as np
import pytest

import autograph as ag


def first_above(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            raise ValueError(f"element {i} is {x[i]}, above {limit}")
    return x.sum()


def wraps(x, k):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i % k]
    return total


def caused(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise KeyError(i) from None
        total += x[i]
    return total


def with_array(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise ValueError("negative in", x)
    return x.sum()


def _raised(f, *args):
    with pytest.raises(Exception) as info:
        f(*args)
    return info.value


@pytest.mark.parametrize("fn, args", [
    (first_above, (np.array([0.5, 2.5, 1.0]), 2.0)),
    (wraps, (np.arange(3.0), 0)),
    (caused, (np.array([1.0, -1.0]),)),
    (with_array, (np.array([1.0, -1.0]),)),
], ids=["values", "modulo_by_zero", "from_none", "array_value"])
def test_raise_in_a_graph_loop_is_what_python_raises(fn, args):
    expected = _raised(fn, *args)
    errors = {backend: _raised(ag.function(fn, backend=backend), *args)
              for backend in ("numpy", "numba")}
    for backend, error in errors.items():
        assert type(error) is type(expected), backend
        if fn is with_array:
            assert error.args[0] == expected.args[0], backend
            np.testing.assert_array_equal(error.args[1], expected.args[1])
        else:
            assert error.args == expected.args, backend
        assert error.__cause__ is None, backend
        assert error.__suppress_context__ == expected.__suppress_context__, backend
        assert error.__context__ is None, backend
    numpy_error, numba_error = errors["numpy"], errors["numba"]
    assert getattr(numba_error, "__notes__", None) == getattr(numpy_error, "__notes__", None)
    assert "test_numba_raise.py" in "".join(getattr(numba_error, "__notes__", []))


@pytest.mark.parametrize("fn", [first_above, ag.function(first_above, backend="numpy"),
                                ag.function(first_above, backend="numba")],
                         ids=["python", "numpy", "numba"])
def test_a_raise_while_the_caller_handles_an_error_has_that_error_as_context(fn):
    # (As in Python: the graph's exception is raised outside the handler of the compiled
    # code's own, so the context is the caller's.)
    args = (np.array([0.5, 2.5, 1.0]), 2.0)
    try:
        raise KeyError("handled")
    except KeyError as e:
        handled, error = e, _raised(fn, *args)
    assert type(error) is ValueError
    assert error.__context__ is handled and not error.__suppress_context__


def test_a_raise_of_scalars_compiles_without_object_mode():
    x = np.array([0.5, 2.5])
    f = ag.function(first_above, backend="numba")
    with pytest.raises(ValueError):
        f(x, 2.0)
    source = f.get_concrete_function(x, 2.0).executable.source
    assert "objmode" not in source and "raise _rt.GraphFail(" in source


def _divide(a, b, op):
    total = a
    for _ in range(2):
        if op == 0:
            total = a / b
        elif op == 1:
            total = a // b
        elif op == 2:
            total = a % b
        else:
            total = divmod(a, b)[0]
    return total


@pytest.mark.parametrize("a, b", [(7, 0), (7.0, 0), (7, 0.0), (True, False)],
                         ids=["ints", "float_int", "int_float", "bools"])
def test_division_by_a_zero_python_number_raises_pythons_message(a, b):
    for op in range(4):
        expected = _raised(_divide, a, b, op)
        for backend in ("numpy", "numba"):
            error = _raised(ag.function(_divide, backend=backend), a, b, op)
            assert type(error) is ZeroDivisionError and error.args == expected.args, (
                backend, op)
