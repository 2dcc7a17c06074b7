"""Python's math module on symbolic scalars: computed when the graph runs by the math module
itself (numba: Numba's math, which calls the same libm), so the values are Python's to the
last bit; Python's errors where math raises them; a Python float (an int for floor, ceil
and trunc, a bool for isnan...) as the result; a Python number argument stays an input."""

import math

import numpy as np
import pytest

import autograph as ag


def uses_math(x, lr):
    a = math.sqrt(lr) + math.exp(x[0]) + math.log(x[1]) + math.log2(x[1]) + math.log10(x[1])
    b = math.sin(x[0]) + math.cos(x[0]) + math.tan(x[0]) + math.atan(x[0]) + math.tanh(lr)
    c = math.asin(x[0] / 4) + math.acos(x[0] / 4) + math.log1p(x[0]) + math.expm1(x[0])
    d = math.sinh(x[0]) + math.cosh(x[0]) + math.fabs(-x[0])
    return (a, b, c, d, math.floor(x[0] * 10), math.ceil(x[0]), math.trunc(-x[0]),
            math.isnan(x[1]), math.isinf(x[1]), math.isfinite(lr), math.sqrt(len(x)))


def _outcome(fn, *args):
    try:
        return "returned", fn(*args)
    except Exception as error:
        return "raised", type(error), str(error)


GOOD = [(np.array([0.3, 2.0]), 0.5), (np.array([1.7, 3.0]), 2), (np.array([-0.5, 1e300]), 1.5)]
BAD = [(np.array([0.3, -2.0]), 0.5),        # log of a negative: ValueError
       (np.array([1000.0, 2.0]), 0.5),      # exp overflows: OverflowError
       (np.array([np.nan, 2.0]), 0.5),      # floor of nan: ValueError
       (np.array([np.inf, 2.0]), 0.5),      # sin of inf: ValueError
       (np.array([0.3, 2.0]), -1.0)]        # sqrt of a negative Python float


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_math_functions_give_pythons_values_types_and_errors(backend):
    staged = ag.function(uses_math, backend=backend)
    for args in GOOD + BAD:
        expected, actual = _outcome(uses_math, *args), _outcome(staged, *args)
        assert expected == actual, (args, expected, actual)
        if expected[0] == "returned":
            assert [type(v) for v in actual[1]] == [type(v) for v in expected[1]]
    assert staged.trace_count == 2    # (a Python int, then a Python float, as lr)


def test_math_of_an_array_or_a_complex_is_pythons_type_error():
    for fn in (lambda x: math.sqrt(x), lambda x: math.exp(x.astype(complex)[0])):
        with pytest.raises(TypeError):
            ag.function(fn, backend="numpy")(np.ones(2))
