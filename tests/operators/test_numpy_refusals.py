"""NumPy calls graphs do not compute are refused at the user's line, naming the function and
what to write instead; never a wrong result, never advice that does not apply."""

import numpy as np
import pytest

import autograph as ag


def spectrum(x):
    y = x * 2.0
    return np.fft.fft(y)


def row_sums(x):
    return np.apply_along_axis(np.sum, 0, x)


def tofile(x, path):
    x.tofile(path)


@pytest.mark.parametrize("fn, name, advice", [
    (spectrum, "np.fft.fft", "complex arithmetic"),
    (row_sums, "np.apply_along_axis", "a loop over the other axis"),
])
def test_an_unsupported_function_is_named_at_the_users_line_with_an_alternative(fn, name, advice):
    with pytest.raises(TypeError) as info:
        ag.function(fn)(np.ones(4))
    message = str(info.value)
    assert "%s is not supported in graphs yet" % name in message
    assert advice in message
    assert "test_numpy_refusals.py" in message and fn.__name__ in message
    assert "decorate" not in message


def test_an_unsupported_ndarray_method_says_so():
    with pytest.raises(AttributeError, match=r"ndarray\.tofile is not supported on arrays in "
                                             r"graphs yet.*docs/numpy\.md"):
        ag.function(tofile)(np.ones(4), "/dev/null")


def test_a_missing_attribute_stays_pythons_error():
    def typo(x):
        return x.sumx()

    with pytest.raises(AttributeError, match="has no attribute 'sumx'"):
        ag.function(typo)(np.ones(4))
