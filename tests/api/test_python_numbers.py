"""Python int and float arguments are inputs of the trace, weakly typed (NEP 50); where
Python needs their values the trace specialises on them (runtime/specialise.py). Each case
runs as plain Python and through ag.function, and compares results, types, printed output
and exceptions."""

import contextlib
import io
import math

import numpy as np
import pytest

import autograph as ag


def _outcome(fn, *args):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            result = fn(*args)
    except Exception as error:   # (compared by type)
        return ("raised", type(error)), out.getvalue()
    return ("returned", result), out.getvalue()


def _same(expected, actual):
    if isinstance(expected, tuple) and expected and expected[0] == "returned":
        expected, actual = expected[1], actual[1]
        if isinstance(expected, tuple):
            return len(expected) == len(actual) and all(
                _same(("returned", e), ("returned", a)) for e, a in zip(expected, actual))
        if isinstance(expected, np.ndarray):
            return isinstance(actual, np.ndarray) and actual.dtype == expected.dtype and \
                np.array_equal(actual, expected)
        return type(actual) is type(expected) and actual == expected
    return expected == actual


def _check(fn, staged, *args):
    expected, printed = _outcome(fn, *args)
    actual, printed_by_graph = _outcome(staged, *args)
    assert _same(expected, actual), (args, expected, actual)
    assert printed_by_graph == printed


LAYERS = [np.ones(2), 2 * np.ones(2), 3 * np.ones(2)]
TABLE = {1: 10.0, 2: 20.0, 3: 30.0}


def step(w, g, lr):
    return w - lr * g


def list_index(x, n):
    return x * LAYERS[n]


def dict_key(x, n):
    return x * TABLE[n]


def _factorial(n):
    return 1 if n <= 1 else n * _factorial(n - 1)


def recursion(x, n):
    return x * _factorial(n)


def loop_over_layers(x, n):
    for i in range(n):
        x = x * LAYERS[i]
    return x


def square_root(x, n):
    return x * math.sqrt(n)


def types_and_printing(x, n):
    print(n, repr(n), [n], f"{n!r} {n / 3:.3f}", "%d" % n)
    if isinstance(n, int) and not isinstance(n, float):
        return x + n, n + 1, n / 2, n // 2
    return x - n, n, n, n


def weak_float(x, lr):
    return x.astype(np.float32) * (lr * 0.5)


def branch_on_a_number(x, n):
    if n > 1:
        return x + n
    return x - n


CASES = [list_index, dict_key, recursion, loop_over_layers, square_root,
         types_and_printing, weak_float, branch_on_a_number]


@pytest.mark.parametrize("fn", CASES, ids=lambda fn: fn.__name__)
def test_python_numbers_give_what_python_gives(fn):
    staged = ag.function(fn, backend="numpy")
    for n in (1, 2, 3):
        _check(fn, staged, np.arange(2.0), n)


@pytest.mark.parametrize("fn", [list_index, types_and_printing, loop_over_layers],
                         ids=lambda fn: fn.__name__)
def test_python_numbers_give_what_python_gives_on_numba(fn):
    staged = ag.function(fn, backend="numba")
    for n in (1, 3):
        _check(fn, staged, np.arange(2.0), n)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_fifty_learning_rates_trace_once(backend):
    staged = ag.function(step, backend=backend)
    w, g = np.ones(3), np.arange(3.0)
    for k in range(50):
        lr = 0.01 * (k + 1)
        np.testing.assert_array_equal(staged(w, g, lr), step(w, g, lr))
    assert staged.trace_count == 1


def test_a_value_python_needs_specialises_the_trace_on_that_argument_only():
    def scaled_layer(x, n, lr):
        return x * LAYERS[n] * lr

    staged = ag.function(scaled_layer, backend="numpy")
    for n in (0, 1):
        for lr in (0.5, 0.25, 0.125):
            _check(scaled_layer, staged, np.arange(2.0), n, lr)
    assert staged.trace_count == 2           # one per layer index, not per learning rate
    staged(np.arange(2.0), 1, 4.0)
    assert staged.trace_count == 2


def test_static_argnames_and_argnums_make_numbers_constants():
    for options in ({"static_argnames": ["lr"]}, {"static_argnums": [2]}):
        staged = ag.function(step, backend="numpy", **options)
        staged(np.ones(2), np.ones(2), 0.5)
        staged(np.ones(2), np.ones(2), 0.25)
        assert staged.trace_count == 2
        graph = str(staged.get_concrete_function(np.ones(2), np.ones(2), 0.25).graph)
        assert "0.25" in graph
    with pytest.raises(ValueError, match="'rate', which is not a parameter"):
        ag.function(step, static_argnames=["rate"])


def test_bools_strings_and_big_ints_stay_static():
    def pick(x, flag, name, big):
        return x + (big % 7) if flag and name == "a" else x

    staged = ag.function(pick, backend="numpy")
    for flag, name in ((True, "a"), (False, "a"), (True, "b")):
        _check(pick, staged, np.ones(2), flag, name, 2 ** 60)
    assert staged.trace_count == 3
    _check(pick, staged, np.ones(2), True, "a", 2 ** 60 + 1)   # (a new value: constant)
    assert staged.trace_count == 4


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_int_products_too_large_for_int64_and_negative_powers_are_refused(backend):
    @ag.function(backend=backend)
    def product(n):
        return n * 2 ** 62

    assert product(1) == 2 ** 62
    with pytest.raises(OverflowError, match="too large for a graph"):
        product(2)

    @ag.function(backend=backend)
    def power(n):
        return 2 ** n

    assert power(3) == 8 and type(power(3)) is int
    with pytest.raises(ValueError, match="negative Python int power"):
        power(-1)


# A Python number on some paths and a narrow NumPy value on others (found by the fuzzer's
# narrow_dtypes): next to float32 (int32) values the Python number is converted to float32
# (int32) and the NumPy value is one already, so the operation is float32 (int32) on every
# path, though the join itself is a float64 (int64) graph value.
def sum_in_a_loop_then_subtracted(y, t):
    for _ in range(len(y)):
        t = np.sum(np.abs(y))
    return t - y[0], t


def halved_and_added_in_a_loop(y, t):
    for i in range(len(y)):
        t = t * 0.5 + y[i]
    return t, t + y


def element_or_number_in_ufuncs(y, t):
    if len(y) > 1:
        t = y[1]
    return np.maximum(t, y), np.where(y > 0, t, y), t * y


def int32_element_or_number(xi, n):
    if len(xi) > 1:
        n = xi[1]
    return n + xi, xi - n


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("fn, narrow, number", [
    (sum_in_a_loop_then_subtracted, np.array([0.1, -2.5, 1.0], np.float32), 0.1),
    (halved_and_added_in_a_loop, np.array([1.0, 0.3, -2.0], np.float32), 0.1),
    (element_or_number_in_ufuncs, np.array([1.0, 0.1, -3.0], np.float32), 0.7),
    (int32_element_or_number, np.array([1, -2, 3], np.int32), 3),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_python_number_on_some_paths_is_weak_next_to_narrow_values(backend, fn, narrow, number):
    staged = ag.function(fn, backend=backend)
    for y in (narrow, narrow[:1]):
        _check(fn, staged, y, number)


def python_float_next_to_an_array_of_either_dtype(x, t):
    if x[0] > 0:
        x = np.ones(len(x))
    return np.where(x > 0.5, x, t), x + t


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_python_number_is_weak_next_to_an_array_whose_dtype_depends_on_the_path(backend):
    # x is float32 or float64 depending on the path: next to it the Python float t is too.
    staged = ag.function(python_float_next_to_an_array_of_either_dtype, backend=backend)
    for first in (-1.0, 1.0):
        _check(python_float_next_to_an_array_of_either_dtype, staged,
               np.array([first, 0.25], np.float32), 0.1)
