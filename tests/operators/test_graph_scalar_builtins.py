"""Python's builtins on symbolic scalars, and in the generator expressions and
comprehensions that feed them, computed as Python computes them: the values to the last
bit, the types Python gives (a Python int, float, complex or bool where Python makes one,
a NumPy scalar where NumPy's own method answers) and Python's errors, on both backends."""

import sys

import numpy as np
import pytest

from autograph.impl.function import function

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/converters")
from converter_testing import assert_same_in_graphs  # noqa: E402


def conversions(x, lr):
    """int, float, complex, abs, divmod and pow of array items (NumPy scalars) and of a
    Python float argument."""
    return (int(x[0]), float(x[1]), complex(x[0], x[1]), complex(x[1]), complex(lr),
            complex(lr, x[0]), abs(x[1]), abs(lr), divmod(x[0], 0.7), pow(x[0], 2),
            pow(lr, 3), int(lr * 10), float(int(x[0])))


def roundings(x, lr, n):
    """round of a NumPy scalar (np.round, its dtype; round(x) a Python int), a Python float
    (correctly rounded: round(2.675, 2) is 2.67), a Python int (half to even at tens), a
    Python bool."""
    return (round(x[0]), round(x[0], 2), round(x[1], 0), round(lr), round(lr, 2),
            round(lr * 100, -1), round(n), round(n, 2), round(n * 5, -1), round(n > 1),
            round(x.astype(np.float32)[0], 1), round(x.astype(np.int32)[1] * 5, 1))


def reductions(x, lr):
    """min, max (of several, of an array, with key= and default=), sum (with a start),
    any, all: Python's results and types."""
    return (min(x[0], x[1], x[2]), max(x), max(x, key=abs), min(x, default=lr),
            max(lr, 1.0), sum(x), sum(x, 0.5), any(x > 1), all(x > -5),
            any(x > 100), all(x < 0))


PYTHON_FLOATS = [(np.array([1.5, -2.5, 0.25]), 2.675), (np.array([2.5, 0.5, -7.0]), 0.285),
                 (np.array([-0.5, 3.5, 1.0]), -1.5)]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_conversions_and_roundings_give_pythons_values_and_types(backend):
    assert_same_in_graphs(conversions, *PYTHON_FLOATS, backends=(backend,),
                          python_types=True)
    assert_same_in_graphs(roundings, *[args + (n,) for args, n in zip(PYTHON_FLOATS,
                                                                      (25, 35, -15))],
                          backends=(backend,), python_types=True)


def test_reductions_give_pythons_values_and_types():
    assert_same_in_graphs(reductions, *PYTHON_FLOATS, python_types=True)


def test_round_of_nan_and_inf_is_pythons_error_and_of_arrays_too():
    def rounded(x):
        return round(x[0])
    for bad, error in ((np.nan, ValueError), (np.inf, OverflowError), (-np.inf, OverflowError)):
        assert_same_in_graphs(rounded, np.array([bad]))
    staged = function(rounded, backend="numpy")
    with pytest.raises(error):
        staged(np.array([-np.inf]))
    for fn in (lambda x: round(x), lambda x: round(x[0] > 0), lambda x: round(x[0], 1.5),
               lambda x: round(x.astype(complex)[0])):
        assert_same_in_graphs(fn, np.array([1.5]))
    # (NumPy's: np.round, which the numba backend leaves to NumPy for negative decimals.)
    assert_same_in_graphs(lambda x: round(x.astype(np.int32)[0] * 5, -1),
                          np.array([5.0]), np.array([7.0]), python_types=True)


def test_sum_adds_left_to_right_in_pythons_type():
    # Pairwise summation (np.sum) of these gives other last bits than Python's left to
    # right; int8 items add in int8 (wrapping), bools in int64; no items: the start.
    rng = np.random.default_rng(0)
    values = rng.standard_normal(1000) * 10.0 ** rng.integers(-8, 8, 1000)
    assert sum(values) != np.sum(values)
    assert_same_in_graphs(lambda x: sum(x), values, values.astype(np.float32),
                          np.arange(200, dtype=np.int8), values > 0, np.zeros(0),
                          python_types=True)
    # (Of no items, the start: a Python float where the graph's value on the other path is
    # an np.float64, which the graph shows alike: python_types=False.)
    assert_same_in_graphs(lambda x: sum(x, 0.1), values, np.zeros(0))
    assert_same_in_graphs(lambda x: sum(x), values.reshape(10, 100))
    assert_same_in_graphs(lambda x: sum(x, np.ones(3)), values[:30].reshape(10, 3))


def test_sum_of_no_rows_is_refused_where_python_gives_the_start():
    with pytest.raises(ValueError, match="sum\\(\\) of an array with no rows"):
        function(lambda x: sum(x), backend="numpy")(np.zeros((0, 3)))


def test_complex_arguments_python_refuses_and_complex_pairs():
    for fn in (lambda x: complex(x), lambda x: complex(x[0], "1"),
               lambda x: complex("1", x[0]), lambda x: complex(x[0], None),
               lambda x: complex(x[0], np.float64(-0.0)), lambda x: complex(-x[0], np.inf)):
        assert_same_in_graphs(fn, np.array([0.0, 1.0]), python_types=True)
    with pytest.raises(TypeError, match="write real \\+ imag \\* 1j"):
        function(lambda x: complex(x[0], x[1]), backend="numpy")(np.array([1j, 2.0]))


def scores(x, y, n):
    """Builtins consuming generator expressions and comprehensions over symbolic arrays
    and ranges."""
    return (max(abs(v) for v in x), min(v * v for v in y), sum(x[i] * y[i] for i in range(n)),
            sum(a * b for a, b in zip(x, y)), any(v > 2 for v in x), all(v < 9 for v in y),
            max((v for v in x), default=-1.0), sum([v for v in x if v > 0], 1.5),
            max(x[i] for i in range(n)), round(float(sum(abs(v) for v in y)), 2))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_builtins_of_generator_expressions_over_arrays(backend):
    assert_same_in_graphs(scores, (np.array([1.5, -3.0, 2.5]), np.array([2.0, 0.5, -1.0]), 3),
                          (np.array([0.5, -0.25]), np.array([4.0, 8.0]), 1),
                          backends=(backend,), python_types=True)


def largest(x):
    return max(v for v in x)


def largest_or_zero(x):
    return max((v for v in x), default=0.0)


def test_an_empty_generator_is_pythons_error_or_default():
    assert_same_in_graphs(largest, np.zeros(0), np.ones(2))
    assert_same_in_graphs(largest_or_zero, np.zeros(0), np.ones(2))


def test_a_generator_over_a_python_range_is_consumed_as_python_consumes_it():
    def first_positive(x):
        return any(x[i] > 0 for i in range(3)), all(i < 1 for i in range(10 ** 9)), \
            max(x[i] * 2 for i in range(2))
    assert_same_in_graphs(first_positive, np.array([-1.0, 2.0, 3.0]), python_types=True)


def test_round_of_a_value_whose_type_depends_on_the_path_is_refused():
    def rounded_total(x):
        return round(sum(v for v in x), 2)   # (no items: the int 0, else an np.float64)
    with pytest.raises(TypeError, match="Python number on some paths"):
        function(rounded_total, backend="numpy")(np.ones(3))
