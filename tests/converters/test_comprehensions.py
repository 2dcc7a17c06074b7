"""Comprehensions and generator expressions (autograph/converters/comprehensions.py): as
Python runs them on Python values (scope, order of evaluation, conditions, nested loops,
laziness of generators), and over symbolic arrays graph loops with Python's results, on
both backends and next to other converted constructs."""

import itertools

import numpy as np
import pytest

from autograph.errors import StagingError
from autograph.impl.function import function
from converter_testing import assert_same_behaviour, assert_same_in_graphs, code


# --- as Python, on Python values -----------------------------------------------------------

def scopes_and_order(items):
    i = "outer"
    log = []

    def seen(tag, value):
        log.append((tag, value))
        return value
    squares = [seen("elt", i * i) for i in seen("iter", items) if seen("test", i % 2)]
    pairs = [(a, b) for a in range(3) if a for b in range(a) if b != 1]
    nested = [[a * b for b in range(a)] for a in items]
    table = {k: seen("value", k * 2) for k in seen("keys", items) if seen("key", k) > 1}
    unique = {v % 3 for v in items}
    return i, squares, pairs, nested, table, unique, log


def laziness(items):
    log = []
    first_big = next(v for v in itertools.count() if v * v > 50)
    found = any(log.append(v) or v > 1 for v in items)
    generator = (v * 2 for v in items)
    head = next(generator)
    return first_big, found, log, head, list(generator), sum(v for v in items if v)


def errors_where_python_raises_them(items):
    return [10 // v for v in items]


def comprehension_in_a_lambda_and_a_walrus(items):
    total = 0
    doubled = list(map(lambda row: [v * 2 for v in row], [items]))
    running = [total := total + v for v in items]
    return doubled, running, total


def test_comprehensions_run_as_python_runs_them():
    assert_same_behaviour(scopes_and_order, [1, 2, 3, 4], [], [5])
    assert_same_behaviour(laziness, [0, 1, 2, 3], [3])
    assert_same_behaviour(errors_where_python_raises_them, [1, 2], [1, 0, 2])
    assert_same_behaviour(comprehension_in_a_lambda_and_a_walrus, [1, 2, 3])


def test_comprehensions_become_functions_with_loops():
    text = code(scopes_and_order)
    assert "[" not in text.split("squares =")[1].split("\n")[0]   # a call, no ListComp
    assert "def listcomp" in text
    assert "for v in items}" in text   # (set and dict ones as written)
    text = code(laziness)
    assert "ag__.generator_expression(" in text
    # (Left as written: in a lambda, with a walrus.)
    text = code(comprehension_in_a_lambda_and_a_walrus)
    assert "for v in row]" in text and ":= total + v) for v in items]" in text


# --- over symbolic arrays, on both backends ---------------------------------------------------

def rows_and_columns(X, n):
    sums = np.array([row.sum() for row in X])
    squares = [X[0, i] ** 2 for i in range(n)]
    dot = sum(a * b for a, b in zip(X[0], X[1]))
    largest = max(abs(v) for v in X[1])
    positives = [v for v in X[0] if v > 0]
    scaled = np.array([[v * 2.0 for v in X[0]] for k in range(2)])
    return sums, squares, dot, largest, positives, scaled


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_comprehensions_over_symbolic_arrays_are_graph_loops(backend):
    assert_same_in_graphs(rows_and_columns,
                          (np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]), 3),
                          (np.array([[-1.0, 2.0], [3.0, -4.0], [5.0, 6.0]]), 1),
                          backends=(backend,))


class Model:
    def __init__(self):
        self.w = np.array([[1.0, 2.0], [3.0, -4.0]])

    def __eq__(self, other):
        return np.array_equal(self.w, other.w)

    def step(self, x):
        if x[0] > 0:                                   # a graph branch around one
            out = [r.sum() * 2.0 for r in self.w]
        else:
            out = [r.max() for r in self.w]
        self.w = np.array([row * 0.5 for row in self.w])   # state on an object
        return x, out


def comprehension_in_a_loop(x, w):
    for k in range(x.shape[0]):
        x[k] = sum(v * x[k] for v in w[k % 2])
    return x


def early_return_nearby(x):
    if x[0] > 2:
        return sum([v + 1 for v in x])
    ys = [v * v for v in x if v < 3]
    for y in ys:
        if y > 4:
            return y
    return sum(y - 1 for y in ys)


def test_comprehensions_next_to_loops_branches_returns_and_state():
    def step(model, x):
        return model.step(x), model.w
    assert_same_in_graphs(step, (Model(), np.array([0.5, -1.0, 2.0])),
                          (Model(), np.array([-3.0, 1.0])))
    assert_same_in_graphs(comprehension_in_a_loop, (np.array([0.5, -1.0, 2.0]),
                                                    np.array([[1.0, 2.0], [3.0, -4.0]])))
    assert_same_in_graphs(early_return_nearby, np.array([3.0, 1.0]), np.array([1.0, 2.5]),
                          np.array([0.5, 1.0, 2.0]), np.array([2.5, -2.5]))


def test_the_first_iterable_is_evaluated_where_the_comprehension_is():
    def shifted(x):
        x = x + 1.0
        result = [v * 2 for v in x]
        x = x * 0.0   # (read before: the comprehension saw x + 1)
        return result, x
    assert_same_in_graphs(shifted, np.array([1.0, 2.0]))


def test_a_list_of_lists_of_unknown_lengths_is_refused():
    def nested(X):
        return [[v * 2.0 for v in row] for row in X]
    with pytest.raises(StagingError, match="cannot become a tensor array"):
        function(nested, backend="numpy")(np.ones((2, 2)))


def test_a_set_comprehension_over_a_symbolic_array_is_refused():
    # (A set needs its items' hashes, which a graph does not have: left as written.)
    def keys(x):
        return {v for v in x}
    with pytest.raises(TypeError, match="set and dict comprehensions"):
        function(keys, backend="numpy")(np.array([1.0, 2.0]))
