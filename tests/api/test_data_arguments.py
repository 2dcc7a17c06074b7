"""Data a staged function gets from outside: a Python iterator is never consumed while
tracing (refused at the line that iterates it), a list of arrays is a structure of inputs,
and an array-like of another library (Dask, pandas...) is refused at the call, never run
as Python by NumPy's dispatch while tracing (issue 16 item 8), and so is an instance of an
ndarray subclass (np.matrix, a masked array, a user's: their operations and result types are
not ndarray's), np.memmap aside."""

import numpy as np
import pytest

import autograph as ag


def _batches(n):
    for i in range(n):
        yield np.ones(3) * i


def total_until(batches, limit):
    t = 0.0
    for b in batches:
        t += b.sum()
        if t > limit:
            break
    return t


def test_a_for_loop_over_an_outside_iterator_is_refused_at_its_line():
    staged = ag.function(total_until, backend="numpy")
    batches = _batches(5)
    with pytest.raises(TypeError, match=r"a for loop over a Python iterator from outside the "
                       r"staged function \(a generator\)") as info:
        staged(batches, 10.0)
    assert "for b in batches:" in str(info.value)
    assert next(batches)[0] == 0.0          # (not consumed: the first item is still there)


def test_an_iterator_in_the_state_and_next_are_refused():
    class Loader:
        def __init__(self):
            self.items = iter([np.ones(2), np.zeros(2)])

    loader = Loader()

    @ag.function(backend="numpy")
    def first(x):
        return x + next(loader.items)

    with pytest.raises(TypeError, match=r"next\(\) of a Python iterator from outside"):
        first(np.ones(2))
    np.testing.assert_array_equal(next(loader.items), np.ones(2))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_lists_of_arrays_and_iterators_made_inside_run_as_python(backend):
    staged = ag.function(total_until, backend=backend)
    batches = [np.ones(3) * i for i in range(5)]
    assert staged(batches, 10.0) == total_until(batches, 10.0)
    assert staged(batches[:2], 0.5) == total_until(batches[:2], 0.5)

    def rows_total(x):
        s = 0.0
        for v in (x[i] for i in range(2)):   # (a generator made while tracing)
            s += v
        return s

    x = np.arange(3.0)
    assert ag.function(rows_total, backend=backend)(x) == rows_total(x)


class _DaskLike:
    """Dispatches NumPy functions to itself, as Dask arrays do."""

    def __init__(self, values):
        self.values = values

    def __array_function__(self, func, types, args, kwargs):
        return "lazy"


class _Convertible:
    def __init__(self, values):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return self.values


@pytest.mark.parametrize("kind", [_DaskLike, _Convertible])
def test_array_likes_of_other_libraries_are_refused_at_the_call(kind):
    staged = ag.function(lambda x: np.sum(x) * 2, backend="numpy")
    with pytest.raises(TypeError, match="an array-like that is not a NumPy array"):
        staged(kind(np.ones(3)))
    assert staged(np.asarray(_Convertible(np.ones(3)))) == 6.0


def sum_and_first(x):
    return x.sum() + x[0]


class _Tagged(np.ndarray):
    pass


@pytest.mark.parametrize("backend", ["numpy", "numba", "auto"])
@pytest.mark.parametrize("make", [
    lambda: np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]),   # Python 5.0; the graph gave 7.0
    lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]]),           # Python a (1, 2) matrix; numba (2,)
    lambda: np.arange(3.0).view(_Tagged),                  # Python's result is a _Tagged
], ids=["masked", "matrix", "subclass"])
def test_ndarray_subclasses_are_refused_at_the_call(make, backend):
    staged = ag.function(sum_and_first, backend=backend)
    x = make()
    for _ in range(2):   # (then the fast path of the plain array's signature)
        np.testing.assert_array_equal(staged(np.asarray(x)), sum_and_first(np.asarray(x)))
        with pytest.raises(TypeError, match=r"an argument is a [\w.]+, a subclass of "
                           r"np.ndarray: .*Hold or pass np.asarray\(x\)"):
            staged(make())


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_memmap_is_an_array(tmp_path, backend):
    x = np.memmap(tmp_path / "x.dat", dtype=np.float64, mode="w+", shape=(4,))
    x[:] = [1.0, 2.0, 3.0, 4.0]
    got = ag.function(sum_and_first, backend=backend)(x)
    assert type(got) is np.float64 and got == sum_and_first(x) == 11.0


class _MaskedModel:
    def __init__(self):
        self.w = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
        self.layers = [(np.ones(3), np.matrix([[1.0, 2.0, 3.0]]))]

    def scaled(self, x):
        return (self.w * x).sum()   # Python 4.0; the graph gave 6.0 on numpy


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_ndarray_subclasses_in_the_state_are_refused_naming_their_place(backend):
    model = _MaskedModel()
    with pytest.raises(TypeError, match=r"self.w is a numpy.ma.MaskedArray, a subclass of "
                       r"np.ndarray"):
        ag.function(_MaskedModel.scaled, backend=backend)(model, np.ones(3))
    model.w = np.asarray(model.w)
    with pytest.raises(TypeError, match=r"self.layers\[0\]\[1\] is a numpy.matrix"):
        ag.function(_MaskedModel.scaled, backend=backend)(model, np.ones(3))
    model.layers = []
    assert ag.function(_MaskedModel.scaled, backend=backend)(model, np.ones(3)) == 6.0


class _GrowingModel:
    def __init__(self):
        self.ws = [np.ones(2), np.full(2, 2.0)]
        self.biases = {"a": np.ones(2)}
        self.history = []

    def step(self, x):
        for w in self.ws:
            x = x * w
        for i in range(len(self.ws)):
            x = x + self.ws[i]
        for w, v in zip(self.ws, reversed(self.ws)):
            x = x - w * v
        for k in self.biases:
            x = x + self.biases[k]
        for k, b in self.biases.items():
            x = x * b
        self.history.append(x.sum())
        return x


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_list_or_dict_of_the_state_that_grows_between_calls_traces_again(backend):
    # (Loops over self.ws are unrolled while tracing: after `model.ws.append(w3)` main gave
    # the two-layer result, silently.)
    staged, plain = _GrowingModel(), _GrowingModel()
    step = ag.function(_GrowingModel.step, backend=backend)
    for grow in (False, False, True, False):
        if grow:
            for model in (staged, plain):
                model.ws.append(np.full(2, 3.0))
                model.biases["b"] = np.full(2, 0.5)
        got, expected = step(staged, np.ones(2)), _GrowingModel.step(plain, np.ones(2))
        np.testing.assert_array_equal(got, expected)
    assert staged.history == plain.history
    assert step.trace_count == 2   # (the list the step appends to is no reason to trace)
