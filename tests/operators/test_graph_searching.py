"""Sorting, searching, counting and indexing functions in graph code, combined as model code
combines them: inside loops and branches, on arrays whose length the data decides (the
results of np.nonzero, np.unique, np.bincount), writing into arguments (np.add.at,
np.put_along_axis). Each runs as plain Python and through ag.function on both backends
(tools/numpy_table has the single calls)."""

import copy
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.executors.numba.compiled import NumbaLoweringError

BACKENDS = ["numpy", "numba"]


def _same(expected, actual):
    if isinstance(expected, tuple):
        assert type(actual) is tuple and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            _same(e, a)
        return
    assert type(actual) is type(expected)
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(actual, expected)


def check(fn, backend, *argument_sets):
    """fn on each argument tuple, as plain Python and through one ag.function: results and
    the arguments afterwards equal, bit for bit."""
    staged = ag.function(fn, backend=backend)
    for arguments in argument_sets:
        plain, graph = copy.deepcopy(arguments), copy.deepcopy(arguments)
        _same(fn(*plain), staged(*graph))
        for before, after in zip(plain, graph):
            _same(before, after)


def histogram_by_bincount(samples, bins):
    """Counts of each of `bins` equal bins of [0, 1), a row of samples at a time."""
    counts = np.zeros(bins, np.int64)
    for i in range(samples.shape[0]):
        which = np.floor(samples[i] * bins).astype(np.int64)
        counts += np.bincount(which, minlength=bins)
    return counts


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_histogram_by_bincount_in_a_loop(backend):
    rng = np.random.default_rng(1)
    check(histogram_by_bincount, backend, (rng.random((6, 50)), 8), (rng.random((1, 3)), 4))


def nearest_labels(train, labels, queries, k):
    """k-nearest-neighbour votes: a stable argsort of the distances for each query."""
    predicted = np.zeros(queries.shape[0], np.int64)
    for i in range(queries.shape[0]):
        distances = np.sum((train - queries[i]) ** 2, axis=1)
        nearest = np.argsort(distances, kind="stable")[:k]
        votes = np.bincount(labels[nearest], minlength=3)
        predicted[i] = np.argmax(votes)
    return predicted


@pytest.mark.parametrize("backend", BACKENDS)
def test_k_nearest_by_argsort_over_rows(backend):
    rng = np.random.default_rng(2)
    train = rng.standard_normal((40, 3))
    labels = rng.integers(0, 3, 40)
    check(nearest_labels, backend, (train, labels, rng.standard_normal((7, 3)), 5))


def train_embeddings(table, tokens, targets, lr, steps):
    """Embedding rows pulled towards targets: the gradient of a token seen twice in a batch
    gets both contributions (np.add.at), which `grad[tokens] += err` would not."""
    for _ in range(steps):
        err = table[tokens] - targets
        grad = np.zeros_like(table)
        np.add.at(grad, tokens, err)
        table -= lr * grad
    return grad


@pytest.mark.parametrize("backend", BACKENDS)
def test_scatter_add_in_a_training_loop(backend):
    rng = np.random.default_rng(3)
    tokens = np.array([1, 4, 1, 1, 0, 4])
    for dtype in (np.float64, np.float32):
        table = rng.standard_normal((5, 3)).astype(dtype)
        targets = rng.standard_normal((6, 3)).astype(dtype)
        check(train_embeddings, backend, (table, tokens, targets, 0.1, 4))


def scatter_both_ways(x, index, add):
    """`x[i] += v` writes a repeated element once, np.add.at once per time it is indexed;
    np.maximum.at under a branch."""
    buffered = x.copy()
    buffered[index] += 1.0
    if add:
        np.add.at(x, index, 1.0)
    else:
        np.maximum.at(x, index, np.arange(index.shape[0], dtype=x.dtype))
    return buffered


@pytest.mark.parametrize("backend", BACKENDS)
def test_buffered_and_unbuffered_writes_in_a_branch(backend):
    check(scatter_both_ways, backend, (np.zeros(4), np.array([0, 2, 2, 2, 3]), True),
          (np.zeros(4), np.array([3, 3, 0]), False))


class Votes:
    """State written by ufunc.at and np.put_along_axis: the graph writes it back."""

    def __init__(self):
        self.table = np.zeros((4, 2))

    def step(self, rows, amounts):
        np.add.at(self.table, rows, amounts)
        np.put_along_axis(self.table, np.argmax(self.table, axis=1, keepdims=True), 0.0, axis=1)
        counts = np.zeros(5)
        for i in range(rows.shape[0]):
            np.add.at(counts, rows[i:], 1.0)
            if counts[0] > 2:
                np.maximum.at(counts, rows[:i], 10.0)
        return self.table.sum(), counts


@pytest.mark.parametrize("backend", BACKENDS)
def test_ufunc_at_on_state_and_on_a_loop_variable(backend):
    plain, graph = Votes(), Votes()
    staged = ag.function(graph.step, backend=backend)
    rows, amounts = np.array([0, 0, 3, 0]), np.array([[1.0, 2.0]])
    for _ in range(3):
        _same(plain.step(rows, amounts), staged(rows, amounts))
        _same(plain.table, graph.table)


def positive_summary(x):
    """Work on arrays whose length the data decides."""
    rows, cols = np.nonzero(x > 0)
    values = x[rows, cols]
    levels, counts = np.unique(np.round(values), return_counts=True)
    where = np.argwhere(x > 0)
    total = 0.0
    for r in range(where.shape[0]):
        total += x[where[r, 0], where[r, 1]]
    return values.sum(), levels, counts, levels.shape[0], total, np.flatnonzero(x < 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_data_dependent_lengths_flow_into_later_ops(backend):
    rng = np.random.default_rng(4)
    check(positive_summary, backend, (rng.standard_normal((4, 5)) * 2,),
          (np.array([[1.0, -1.0], [0.0, 2.6]]),))


def sample_and_top(p, u, k):
    """Inverse-CDF sampling by searchsorted, the top k by argpartition (sorted, so defined
    whatever order the partition leaves), bins by digitize."""
    cdf = np.cumsum(p) / np.sum(p)
    draws = np.searchsorted(cdf, u, side="right")
    top = np.sort(p[np.argpartition(-p, k)[:k]])
    bins = np.digitize(u, np.array([0.25, 0.5, 0.75]))
    return draws, top, np.bincount(bins, minlength=4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sampling_and_top_k(backend):
    rng = np.random.default_rng(5)
    check(sample_and_top, backend, (rng.random(9), rng.random(20), 3))


def test_refusals_name_the_call():
    x = np.arange(6.0).reshape(2, 3)
    for fn, text in [(lambda x: np.unique(x, axis=0), r"np.unique\(..., axis=\)"),
                     (lambda x: np.histogram(x, bins=np.array([0.0, 1.0])),
                      r"np.histogram\(..., bins=<edges"),
                     (lambda x: np.negative.at(x, [0]), "np.negative.at")]:
        with pytest.raises(TypeError, match=text + ".* not supported in graphs"):
            ag.function(fn, backend="numpy")(x)


def divide_at(x, i):
    np.divide.at(x, i, 2.0)
    return x


def test_ufunc_at_without_numba_code_runs_on_numpy_under_auto():
    x, i = np.arange(1.0, 5.0), np.array([0, 0, 3])
    with pytest.raises(NumbaLoweringError, match="np.divide.at"):
        ag.function(divide_at, backend="numba")(x.copy(), i)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(ag.function(divide_at, backend="auto")(x.copy(), i),
                                      divide_at(x.copy(), i))


def bad_counts(x):
    total = 0
    for i in range(x.shape[0]):
        total += np.bincount(x[i:]).shape[0]
    return total


def take_far(x, i):
    return np.take(x, i + 10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_errors_are_numpys_at_the_users_line(backend):
    for fn, arguments, error in [(bad_counts, (np.array([2, -1, 3]),), ValueError),
                                 (take_far, (np.arange(3.0), np.array([0])), IndexError)]:
        with pytest.raises(error) as expected:
            fn(*arguments)
        with pytest.raises(error) as raised:
            ag.function(fn, backend=backend)(*arguments)
        text = "\n".join([str(raised.value)] + getattr(raised.value, "__notes__", []))
        assert str(expected.value) in text
        assert "test_graph_searching.py" in text and "in %s" % fn.__name__ in text


def weighted_counts(x, w):
    return np.bincount(x, w, minlength=2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_weighted_counts_of_nothing_are_floats(backend):
    """(NumPy gives int64 zeros for an empty x with weights, float64 otherwise: the graph's
    dtype cannot depend on the values, and is float64.)"""
    result = ag.function(weighted_counts, backend=backend)(np.array([], np.int64),
                                                            np.array([1.0]))
    assert result.dtype == np.float64 and list(result) == [0.0, 0.0]
