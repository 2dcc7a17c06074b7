"""NumPy's out= on symbolic arrays in graphs (runtime/numpy_api.py): the result, computed
in the dtype NumPy computes it in, is written into the out array in place (its aliases and
views see it, a written argument is the caller's array after the call, a weight on an
object is updated where it sits), and out itself is returned. Each case runs as plain
Python and through ag.function, on copies of the same arguments, and compares the results
(values, dtypes, types, `is` tests made inside the function), the arguments after the call
and the exceptions.

The last tests are about the state read as constants (the graph refused it as inputs):
its arrays are read-only while the function is traced, so an in-place call on one is
refused at its line instead of changing the weight once, while tracing."""

import copy
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def _outcome(fn, args):
    """(what fn returned or the type of what it raised, the arguments after the call)."""
    args = copy.deepcopy(args)
    try:
        result = ("returned", fn(*args))
    except Exception as error:
        result = ("raised", type(error))
    return result, args


def _same(expected, actual):
    if isinstance(expected, (tuple, list)):
        return type(actual) is type(expected) and len(actual) == len(expected) and all(
            _same(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, np.ndarray):
        return type(actual) is np.ndarray and actual.dtype == expected.dtype and \
            actual.shape == expected.shape and np.array_equal(actual, expected, equal_nan=True)
    if isinstance(expected, Model):
        return _same(vars(expected), vars(actual))
    if isinstance(expected, dict):
        return expected.keys() == actual.keys() and all(
            _same(expected[k], actual[k]) for k in expected)
    return type(actual) is type(expected) and (actual == expected or actual != actual)


def _check(fn, *args, backend="numpy"):
    expected = _outcome(fn, args)
    actual = _outcome(ag.function(fn, backend=backend), args)
    assert _same(expected, actual), (expected, actual)
    return expected


# --- ufuncs ---------------------------------------------------------------------------------

def subtract_into_the_first(W, d):
    r = np.subtract(W, d, out=W)
    return r is W, W


def scale_in_place(w):
    np.multiply(w, 0.5, out=w)
    return w.sum()


def exp_in_place(x):
    y = np.exp(x, out=x)
    return y is x


def add_into_another(a, b, c):
    y = np.add(a, b, out=c)
    return y is c, y, c is a


def positional_out(a, b, c):
    return np.add(a, b, c) is c


def one_entry_tuple(a, c):
    return np.negative(a, out=(c,)) is c


def two_outputs(x, q):
    quotient, remainder = np.divmod(x, 3, out=(q, None))
    return quotient is q, remainder


def masked(x, o, m):
    y = np.add(x, 1, out=o, where=m)
    return y is o


def masked_by_a_column(x, o):
    np.multiply(x, 10, out=o, where=np.array([[True], [False]]))


def masked_nowhere(x, o):
    np.add(x, 1, out=o, where=False)


def into_a_larger_out(x, o):
    np.add(x, 1, out=o)


def overlapping_shifted(x):
    np.add(x[1:], x[:-1], out=x[1:])


def overlapping_reversed(x):
    np.subtract(x[::-1], x, out=x)


def into_a_row_and_a_column(x):
    np.multiply(x[0], 2, out=x[0])
    np.add(x[:, 1], 100, out=x[:, 1])
    return x


def in_a_loop_and_a_branch(acc, x, flag):
    for i in range(x.shape[0]):
        np.add(acc, x[i], out=acc)
    if flag > 0:
        np.multiply(acc, 2, out=acc)
    return acc.sum()


def returns_out(a, b):
    return np.add(a, b, out=a)


def alias_sees_the_write(w):
    alias = w
    np.square(w, out=w)
    return alias.sum()


def weak_learning_rate(w, g, lr):
    np.multiply(w, lr, out=w)            # (lr, a Python float, is weak: float32 stays)
    np.subtract(w, g * lr, out=w)
    return w


def weak_int_into_int8(x, n):
    np.add(x, n, out=x)
    return x


def arrays_made_here(a, b):
    c = np.zeros(3)
    d = np.add(a, b, out=c)
    o = np.zeros(())                     # (a 0-d array, not a scalar)
    s = np.sum(a, out=o)
    return c, d is c, o, s is o


def into_a_zero_d_argument(s):
    np.add(s, 1, out=s)
    return s


def rows_in_a_graph_loop(W):
    for i in range(W.shape[0]):
        np.multiply(W[i], i, out=W[i])
    return W


def masked_by_a_tensor(x, o):
    np.sqrt(x, out=o, where=x > 0)
    return o


def test_where_takes_a_mask_the_graph_computes():
    # (The graph computes the elements the mask leaves alone too, and drops them: NumPy
    # warns about sqrt(-1) there, which NumPy with where= does not compute.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _check(masked_by_a_tensor, np.array([4.0, -1.0, 9.0]), np.full(3, 7.0))


@pytest.mark.parametrize("fn,args", [
    (weak_learning_rate, (np.ones(3, np.float32), np.arange(3, dtype=np.float32), 0.1)),
    (weak_int_into_int8, (np.array([100, 1], np.int8), 100)),
    (arrays_made_here, (np.ones(3), np.arange(3.0))),
    (into_a_zero_d_argument, (np.array(2.0),)),
    (rows_in_a_graph_loop, (np.ones((3, 2)),)),
    (subtract_into_the_first, (np.ones(3), np.full(3, 0.25))),
    (scale_in_place, (np.arange(4.0),)),
    (exp_in_place, (np.arange(3.0),)),
    (add_into_another, (np.ones(3), np.arange(3.0), np.zeros(3))),
    (add_into_another, (np.ones(3), np.arange(3.0), np.zeros(3, np.float32))),
    (add_into_another, (np.full(2, 100, np.int8), np.full(2, 100, np.int8),
                        np.zeros(2, np.int16))),   # (adds in int8: NumPy's loop)
    (add_into_another, (np.ones(3, int), 0.5 * np.ones(3), np.zeros(3, int))),   # cast
    (add_into_another, (np.ones(3), np.ones(3), np.zeros(4))),                   # shapes
    (positional_out, (np.ones(2), np.ones(2), np.zeros(2))),
    (one_entry_tuple, (np.arange(3.0), np.zeros(3))),
    (two_outputs, (np.arange(7), np.zeros(7, int))),
    (masked, (np.arange(3.0), np.full(3, -1.0), np.array([True, False, True]))),
    (masked, (np.arange(3.0), np.full(3, -1.0), np.array([1, 0, 1]))),   # not bool
    (masked_by_a_column, (np.arange(3.0), np.zeros((2, 3)))),
    (masked_nowhere, (np.arange(3.0), np.full(3, 7.0))),
    (into_a_larger_out, (np.arange(3.0), np.zeros((2, 3)))),
    (into_a_larger_out, (np.arange(3.0), np.zeros(1))),
    (into_a_larger_out, (np.ones((2, 3)), np.zeros(3))),
    (overlapping_shifted, (np.arange(6.0),)),
    (overlapping_reversed, (np.arange(5.0),)),
    (into_a_row_and_a_column, (np.arange(6.0).reshape(2, 3),)),
    (in_a_loop_and_a_branch, (np.zeros(2), np.arange(6.0).reshape(3, 2), 1)),
    (in_a_loop_and_a_branch, (np.zeros(2), np.arange(6.0).reshape(3, 2), 0)),
    (alias_sees_the_write, (np.arange(3.0),)),
], ids=lambda x: x.__name__ if callable(x) else "")
def test_ufuncs_write_into_out_as_numpy_does(fn, args):
    _check(fn, *args)


def test_the_result_written_into_an_argument_is_the_callers_array():
    staged = ag.function(returns_out, backend="numpy")
    a = np.ones(2)
    assert staged(a, np.arange(2.0)) is a and a.tolist() == [1.0, 2.0]


def exp_into_ints(x, o):
    np.exp(x, out=o)


def add_a_float_into_ints(x):
    np.add(x, 1.5, out=x)


def into_a_scalar(x):
    np.add(x, 1, out=x[0])


def into_a_smaller_rank(x, o):
    np.add(x, 1, out=o)


def computes_in_dtype(a, b):
    return np.add(a, b, dtype=np.int16), np.multiply(a, 3, dtype=np.float32)


def dtype_and_out(a, o):
    np.add(a, 0.5, out=o, dtype=np.float32)
    return o


def float_dtype_for_ints(a, o):
    np.add(a, 0.5, out=o, dtype=np.int64)


@pytest.mark.parametrize("fn,args,error", [
    (exp_into_ints, (np.ones(2), np.zeros(2, int)), TypeError),
    (add_a_float_into_ints, (np.ones(2, int),), TypeError),
    (into_a_scalar, (np.ones(2),), TypeError),
    (into_a_smaller_rank, (np.ones((2, 2)), np.zeros(2)), ValueError),
    (float_dtype_for_ints, (np.ones(2), np.zeros(2, int)), TypeError),
    (computes_in_dtype, (np.full(2, 100, np.int8), np.full(2, 100, np.int8)), None),
    (dtype_and_out, (np.arange(3), np.zeros(3)), None),
], ids=lambda x: x.__name__ if callable(x) else "")
def test_casting_errors_and_dtypes_are_numpys(fn, args, error):
    expected = _check(fn, *args)
    raised = expected[0][1] if expected[0][0] == "raised" else None
    assert raised is error or issubclass(raised, error)


# --- reductions, np.clip, np.matmul -----------------------------------------------------------

def sum_into(x, o):
    r = np.sum(x, axis=0, out=o)
    return r is o


def method_reductions(x, s, m, a, i):
    return (x.sum(axis=1, out=s) is s, x.max(axis=0, out=m) is m,
            np.any(x > 2, axis=1, out=a) is a, np.argmax(x, axis=1, out=i) is i)


def sum_of_everything(x, o):
    return np.sum(x, out=o) is o


def keepdims_into(x, o):
    np.prod(x, axis=1, keepdims=True, out=o)


def ufunc_reduce_and_accumulate(x, o, c):
    np.add.reduce(x, axis=0, out=o)
    np.multiply.accumulate(x, axis=1, out=c)


def cumulative_into(x, o):
    return np.cumsum(x, out=o) is o


def clip_into(w):
    r = np.clip(w, 0, 0.5, out=w)
    return r is w


def clip_into_another(a, o):
    np.clip(a, 2, 6, out=o)


def clip_method_one_sided(w):
    w.clip(0.25, None, out=w)
    return w


def matmul_into(a, b, c):
    return np.matmul(a, b, out=c) is c


X23 = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("fn,args", [
    (sum_into, (X23, np.zeros(3))),
    (sum_into, (X23, np.zeros(3, int))),                       # (a float sum truncated)
    (sum_into, (X23 + 0.5, np.zeros(3, int))),
    (sum_into, (np.array([[16777216.0], [1.0], [1.0]], np.float32), np.zeros(1))),  # (f64)
    (sum_into, (X23, np.zeros(4))),                            # shape, when the graph runs
    (sum_into, (X23, np.zeros((1, 3)))),                       # rank, now
    (method_reductions, (X23, np.zeros(2), np.zeros(3, int), np.zeros(2, bool),
                         np.zeros(2, np.int32))),
    (sum_of_everything, (X23, np.zeros((), np.float32))),
    (keepdims_into, (X23 + 1, np.zeros((2, 1)))),
    (ufunc_reduce_and_accumulate, (X23, np.zeros(3), np.zeros((2, 3)))),
    (cumulative_into, (np.array([16777216.0, 1.0, 1.0], np.float32), np.zeros(3))),
    (cumulative_into, (np.array([1.5, 2.0]), np.zeros(2, int))),
    (clip_into, (np.linspace(-1, 1, 5),)),
    (clip_into, (np.arange(-2, 3),)),                           # (0.5 into ints: refused)
    (clip_into_another, (np.array([1, 5, 9]), np.zeros(3))),
    (clip_into_another, (np.array([1.0, 5, 9]), np.zeros(3, int))),
    (clip_method_one_sided, (np.linspace(0, 1, 5),)),
    (matmul_into, (np.ones((2, 3)), np.arange(6.0).reshape(3, 2), np.zeros((2, 2)))),
    (matmul_into, (np.ones((2, 3)), np.arange(6.0).reshape(3, 2), np.zeros((4, 2, 2)))),
    (matmul_into, (np.ones((2, 3)), np.arange(3.0), np.zeros(2))),
    (matmul_into, (np.ones((2, 3)), np.arange(6.0).reshape(3, 2), np.zeros((2, 3)))),
    (matmul_into, (np.ones((2, 3)), np.arange(6.0).reshape(3, 2), np.zeros((2, 2), int))),
], ids=lambda x: x.__name__ if callable(x) else "")
def test_reductions_clip_and_matmul_write_into_out_as_numpy_does(fn, args):
    _check(fn, *args)


def copy_into_an_argument(dst, src):
    return np.copyto(dst, src)


def copy_where(dst, src, m):
    np.copyto(dst[1:], src, where=m)


def copy_unsafely(dst, src):
    np.copyto(dst, src, casting="unsafe")


@pytest.mark.parametrize("fn,args", [
    (copy_into_an_argument, (np.zeros((2, 3)), np.arange(3.0))),
    (copy_into_an_argument, (np.zeros(3, int), np.arange(3.0))),      # (same_kind refuses)
    (copy_into_an_argument, (np.zeros(3, int), 1.5)),
    (copy_into_an_argument, (np.zeros(3), np.arange(4.0))),
    (copy_where, (np.zeros(3), np.array([5.0, 6.0]), np.array([False, True]))),
    (copy_unsafely, (np.zeros(3, int), np.array([1.5, -2.5, 3.9]))),
], ids=lambda x: x.__name__ if callable(x) else "")
def test_copyto_writes_as_numpy_does(fn, args):
    _check(fn, *args)


def dot_into(a, b, c):
    np.dot(a, b, out=c)


def mean_into(x, o):
    np.mean(x, axis=0, out=o)


@pytest.mark.parametrize("fn,name", [(dot_into, r"np\.dot\(\.\.\., out=\)"),
                                     (mean_into, r"np\.mean\(\.\.\., out=\)")])
def test_out_where_the_graph_cannot_follow_numpy_is_refused(fn, name):
    with pytest.raises(TypeError, match=name + ".*not supported in graphs"):
        ag.function(fn, backend="numpy")(np.ones((2, 2)), np.ones((2, 2)), np.zeros((2, 2)))[
            :0] if fn is dot_into else ag.function(fn, backend="numpy")(np.ones((2, 2)),
                                                                        np.zeros(2))


CONSTANT = np.zeros(3)


def test_an_out_the_graph_holds_as_a_constant_is_refused():
    # (rt.function keeps the arrays of the function's state constants.)
    with pytest.raises(TypeError, match=r"np\.add\(\.\.\., out=\) writes into a NumPy array "
                                        r"that the graph holds as a constant"):
        rt.function(lambda x: np.add(x, 1, out=CONSTANT))(np.ones(3))
    assert CONSTANT.tolist() == [0.0, 0.0, 0.0]


# --- weights on objects --------------------------------------------------------------------

class Model:
    def __init__(self):
        self.W = np.arange(6.0).reshape(2, 3) / 10
        self.b = np.ones(3)
        self.params = [self.W, self.b]
        self.steps = np.zeros((), np.int64)

    def train_step(self, x, lr):
        y = x @ self.W + self.b
        grad = x.T @ (y - 1.0)
        np.subtract(self.W, lr * grad, out=self.W)
        np.clip(self.W, -0.5, 0.5, out=self.W)
        np.multiply(self.params[1], 0.5, out=self.params[1])
        np.add(self.steps, 1, out=self.steps)
        return np.sum(y), self.params[0] is self.W


def train(model, x, steps, train_step):
    losses = [train_step(model, x, 0.1) for _ in range(steps)]
    return losses, model


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_weights_on_an_object_are_updated_in_place(backend):
    staged = ag.function(Model.train_step, backend=backend)
    x = np.arange(4.0).reshape(2, 2)
    expected = train(Model(), x, 3, Model.train_step)
    model = Model()
    W, b = model.W, model.b
    actual = train(model, x, 3, staged)
    assert _same(expected, actual), (expected, actual)
    assert model.W is W and model.b is b and model.params[0] is W and model.params[1] is b
    assert model.steps.shape == () and model.steps == 3


@pytest.mark.parametrize("fn,args", [
    (overlapping_shifted, (np.arange(6.0),)),
    (masked, (np.arange(3.0), np.full(3, -1.0), np.array([True, False, True]))),
    (method_reductions, (X23, np.zeros(2), np.zeros(3, int), np.zeros(2, bool),
                         np.zeros(2, np.int32))),
    (sum_into, (X23, np.zeros(4))),
    (matmul_into, (np.ones((2, 3)), np.arange(6.0).reshape(3, 2), np.zeros((4, 2, 2)))),
    (in_a_loop_and_a_branch, (np.zeros(2), np.arange(6.0).reshape(3, 2), 1)),
    (weak_learning_rate, (np.ones(3, np.float32), np.arange(3, dtype=np.float32), 0.1)),
    (arrays_made_here, (np.ones(3), np.arange(3.0))),
], ids=lambda x: x.__name__ if callable(x) else "")
def test_out_on_numba(fn, args):
    _check(fn, *args, backend="numba")


# --- the state as constants ------------------------------------------------------------------

class Layer:
    def __init__(self):
        self.w = np.array([3.0, 1.0, 2.0])


LAYER = Layer()


def fill(x):
    LAYER.w.fill(0.0)


def copy_into(x):
    np.copyto(LAYER.w, 1.0)


def sort(x):
    LAYER.w.sort()


def set_an_item(x):
    LAYER.w[0] = 5.0


def add_into(x):
    np.add(LAYER.w, 1.0, out=LAYER.w)


def read_then_change(x, change):
    # np.fft has no graph op: the graph refuses the state as inputs, and the trace reads it
    # as constants.
    y = x * LAYER.w + np.fft.fft(LAYER.w)[1].real
    change(x)
    return y


@pytest.mark.parametrize("change,line,problem", [
    (fill, r"LAYER\.w\.fill\(0\.0\)", "assignment destination is read-only"),
    (copy_into, r"np\.copyto\(LAYER\.w, 1\.0\)", "assignment destination is read-only"),
    (sort, r"LAYER\.w\.sort\(\)", "sort array is read-only"),
    (set_an_item, r"LAYER\.w\[0\] = 5\.0", "assignment destination is read-only"),
    (add_into, r"np\.add\(LAYER\.w, 1\.0, out=LAYER\.w\)", "output array is read-only"),
], ids=lambda x: x.__name__ if callable(x) else "")
def test_an_in_place_change_of_the_state_read_as_constants_is_refused(change, line, problem):
    staged = ag.function(read_then_change, backend="numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # (the fallback's warning)
        with pytest.raises(TypeError, match=(
                r"(?s)read_then_change changes an array of its state in place while it is "
                r"traced \(NumPy: %s\) at .*test_out_argument\.py:\d+ in %s: `%s`.*refused "
                r"its state as inputs \(np\.fft\.fft is not supported in graphs yet.*"
                r"\(LAYER\.w\)" % (problem, change.__name__, line))):
            staged(np.ones(3), change)
    assert LAYER.w.tolist() == [3.0, 1.0, 2.0] and LAYER.w.flags.writeable


def add_a_tensor_into(x):
    np.add(LAYER.w, x, out=LAYER.w)


def test_an_out_of_the_state_read_as_constants_is_refused():
    staged = ag.function(read_then_change, backend="numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(TypeError, match=r"np\.add\(\.\.\., out=\) writes into a NumPy "
                                            r"array that the graph holds as a constant"):
            staged(np.ones(3), add_a_tensor_into)
    assert LAYER.w.tolist() == [3.0, 1.0, 2.0] and LAYER.w.flags.writeable


class Cache:
    def __init__(self):
        self.w = np.arange(4.0)
        self.row = None


def keeps_a_view(cache, x):
    cache.row = cache.w[1:]
    return x * np.i0(cache.w)[0]


def test_the_state_read_as_constants_is_writeable_after_the_trace():
    cache = Cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = ag.function(keeps_a_view, backend="numpy")(cache, np.ones(2))
    assert result.tolist() == [1.0, 1.0]
    assert cache.w.flags.writeable and cache.row.flags.writeable
    cache.row[0] = 7.0
    assert cache.w.tolist() == [0.0, 7.0, 2.0, 3.0]


class Pair(tuple):
    """A tuple subclass: the state cannot copy it to hold tensors, so a trace holds its
    arrays as constants (a plain tuple's are inputs: tests/api/test_tuple_state.py)."""


PAIR = Pair((np.array([1.0, 2.0]), np.array([3.0, 4.0])))


def changes_an_array_in_a_tuple(x):
    y = x * PAIR[0]
    PAIR[0].fill(0.0)
    return y


def test_an_in_place_change_of_an_array_held_as_a_constant_is_refused():
    with pytest.raises(TypeError, match=(
            r"(?s)changes_an_array_in_a_tuple changes an array of its state in place while "
            r"it is traced \(NumPy: assignment destination is read-only\) at .*: "
            r"`PAIR\[0\]\.fill\(0\.0\)`.*holds as constants, not inputs \(PAIR\[0\], "
            r"PAIR\[1\]: arrays in tuples that are neither plain tuples nor namedtuples")):
        ag.function(changes_an_array_in_a_tuple, backend="numpy")(np.ones(2))
    assert PAIR[0].tolist() == [1.0, 2.0] and PAIR[0].flags.writeable
