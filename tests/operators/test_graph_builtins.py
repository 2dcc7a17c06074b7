"""Graph paths of print, assert and the builtin overloads, and NumPy array creation with
symbolic sizes: the same results, printed text and errors as plain Python."""

import sys

import numpy as np
import pytest

import runtime as rt
from autograph.impl.function import function
from graph_equivalence import check, check_raises, graph_text

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/converters")
from converter_testing import ALL_BACKENDS, assert_same_in_graphs  # noqa: E402


def prints_in_a_loop(x):
    print("start", x.shape[0] > 0)
    for i in range(x.shape[0]):
        print("item", i, x[i], sep=":")
    print(x, end="!\n")


def test_print_of_symbolic_values_prints_when_the_graph_runs(capsys):
    staged = check(prints_in_a_loop, np.array([1.5, -2.0]), capsys=capsys)
    staged(np.array([3.0]))  # the second call runs the graph only
    assert capsys.readouterr().out == "start True\nitem:0:3.0\n[3.]!\n"


def asserts(x):
    assert x > 0, "x must be positive"
    assert x < 100
    return x


def test_assert_on_symbolic_condition_raises_invalid_argument_with_message():
    check(asserts, np.float64(3.0))
    with pytest.raises(AssertionError):
        asserts(np.float64(-1.0))
    staged = function(asserts, backend="numpy")
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive"):
        staged(np.float64(-1.0))
    with pytest.raises(rt.errors.InvalidArgumentError):
        staged(np.float64(500.0))
    assert staged.trace_count == 1


def lengths(x, m):
    return len(x), len(m), len(range(2, x.shape[0], 2))


def test_len_is_symbolic():
    staged = check(lengths, np.arange(5.0), np.zeros((3, 4)))
    check(lengths, np.arange(9.0), np.zeros((0, 4)), staged=staged)
    assert staged.trace_count == 1


def test_len_of_a_scalar_is_pythons_error():
    check_raises(TypeError, lambda x: len(x), np.float64(1.0), match="unsized")


def conversions(x):
    return abs(x), int(x), float(x), bool(x), bool(x - x)


@pytest.mark.parametrize("x", [-2.7, 3.2])
def test_abs_int_float_bool(x):
    check(conversions, np.float64(x))


def test_int_of_an_integer_tensor_keeps_its_value():
    check(lambda n: int(n) + 1, np.int64(41))


def extremes(x, a, b):
    return min(a, b), max(a, b, 0.5), min(x), max(x), sum(x), sum(x, 10.0), any(x > 2), all(x > 0)


def test_min_max_sum_any_all():
    # (min of a float and an int is refused: Python's result type depends on the values)
    check(extremes, np.array([3.0, 1.0, 2.0]), np.float64(1.5), np.float64(-4.0))


def integer_extremes(n, k, flag):
    return min(n, k), max(n, 3, k), min(n, n), max(k, 0), min(flag, n > 2), max(flag, True)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_min_max_of_integers_and_bools(backend):
    # (One np.minimum / np.maximum op each: the same value as Python's comparisons.)
    staged = None
    for args in ((np.int64(5), np.int64(-2), np.True_), (np.int64(1), np.int64(1), np.False_)):
        staged = check(integer_extremes, *args, backend=backend, staged=staged)
    text = str(staged.get_concrete_function(*args).graph)
    assert "minimum" in text and "where" not in text


def test_sum_of_rows_is_elementwise_like_python():
    check(lambda m: sum(m), np.arange(6.0).reshape(3, 2))


def type_checks(x, s):
    return (isinstance(x, np.ndarray), isinstance(s, np.ndarray), isinstance(s, np.floating),
            isinstance(s, float), isinstance(s, (int, np.integer)), isinstance(x, list))


def test_isinstance_follows_the_eager_value():
    check(type_checks, np.arange(3.0), np.float64(1.0))


def symbolic_creation(x, n):
    m = x.shape[0]
    a = np.zeros((m, 2))
    b = np.ones(m, dtype=np.int64)
    c = np.full((2, m), 7.5)
    d = np.empty(m)
    d[:] = 1.0
    e = np.arange(n)
    f = np.arange(1, n, 2)
    g = np.linspace(0.0, 1.0, m)
    h = np.eye(m)
    return a, b, c, d, e, f, g, h


def test_array_creation_with_symbolic_sizes():
    staged = check(symbolic_creation, np.arange(4.0), np.int64(7))
    check(symbolic_creation, np.arange(6.0), np.int64(3), staged=staged)
    assert staged.trace_count == 1


def static_size_array_is_writable(x):
    out = np.zeros(3)
    for i in range(x.shape[0]):
        out[i % 3] += x[i]
    return out


def test_arrays_created_with_python_sizes_take_symbolic_writes():
    check(static_size_array_is_writable, np.arange(7.0))


def writes_symbolic_values_into_arrays_of_python_values(x, c):
    grown = np.array([1.0, 2.0])
    grown[-1] += c           # (fuzzer seeds 1760, 3126, 6129)
    counted = np.arange(3) * 1.0
    for e in x:
        counted[2] = e       # (8828)
    picked = np.arange(3)[x.shape[0] % 3]   # a symbolic index (8158)
    summed = np.arange(3) * 1.0
    summed += np.ones(3)     # a tensor operand (9830)
    steps = np.linspace(0.0, 1.0, 3)
    steps[1] = c
    eye = np.eye(2)
    eye[0, 1] = c
    kept = np.asarray(grown)
    kept[0] = c              # np.asarray of an array is that array
    return grown, counted, picked, summed, steps, eye


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_arrays_of_python_values_take_symbolic_writes_and_indices(backend):
    for x in (np.array([]), np.array([1.0, 4.0])):
        check(writes_symbolic_values_into_arrays_of_python_values, x, np.float64(0.5),
              backend=backend)


def creation_outside_a_trace_is_numpy():
    return np.zeros((2, 2)), np.arange(3), np.linspace(0, 1, 3), np.eye(2)


def test_creation_overloads_are_numpy_without_symbolic_values():
    from autograph.operators.graph import arrays
    assert isinstance(arrays.zeros((2, 2)), np.ndarray)
    assert np.array_equal(arrays.arange(1, 7, 2), np.arange(1, 7, 2))
    assert np.array_equal(arrays.eye(3, k=1), np.eye(3, k=1))


def negative_step_range(n):
    out = 0
    for i in range(n, -1, -3):
        out = out * 10 + i
    return out


def test_range_with_negative_step():
    check(negative_step_range, np.int64(10))


def float_range(x):
    for i in range(x):
        pass
    return x


def test_range_of_a_float_is_pythons_error():
    check_raises(TypeError, float_range, np.float64(3.0), match="cannot be interpreted")


def truth_of_array(x):
    if x:
        return 1
    return 0


def test_truth_value_of_an_array_is_ambiguous_as_in_numpy():
    check_raises(ValueError, truth_of_array, np.arange(3.0), match="ambiguous")


def test_graph_has_no_unrolled_loop():
    staged = function(negative_step_range, backend="numpy")
    text = graph_text(staged, np.int64(1000))
    assert text.count("while") == 1 and len(text.splitlines()) < 40


def first_two_rows(m):
    rows = iter(m)
    first = next(rows)
    second = next(rows)
    return first + second


def test_iter_and_next_on_a_symbolic_array():
    check(first_two_rows, np.arange(6.0).reshape(3, 2))


def assert_on_array(x):
    assert x > 0
    return x


def test_assert_on_an_array_is_ambiguous_as_in_python():
    check_raises(ValueError, assert_on_array, np.arange(1.0, 3.0), match="ambiguous")


def runtime_range_loop(n):
    total = 0
    for i in rt.range(n):
        total += i
    for i in rt.range(2, n, 3):
        total += 10 * i
    return total


def test_rt_range_loops_count_without_materialising_the_range():
    staged = function(runtime_range_loop, backend="numpy")
    assert staged(np.int64(10)) == sum(range(10)) + 10 * sum(range(2, 10, 3))
    assert staged(np.int64(0)) == 0
    assert "arange" not in graph_text(staged, np.int64(5))


# --- print, raise and assert happen when the graph runs, every time -------------------------

def prints_python_values(x, log):
    print("start", [1, "a"], None, sep="|")
    for i in range(x.shape[0]):
        print("iteration")               # Python values only: still printed per iteration
        if x[i] > 0:
            print("positive", (x[i], 2), {"v": x[i]}, end=";\n")
        else:
            print("other", [x[i], -x[i]])
    log_copy = list(log)
    log.append(1)
    print(log_copy, log)                 # the text they have now, not when the graph runs
    log.pop()
    return x


def test_print_of_python_values_while_tracing_prints_every_time_the_graph_runs():
    assert_same_in_graphs(prints_python_values, (np.array([1.0, -2.0]), [0]),
                          (np.array([3.0]), [0]), backends=ALL_BACKENDS)


def prints_to_stderr(x):
    import sys
    print("to stderr", x[0], file=sys.stderr)
    print("to stdout", x[0], file=sys.stdout)
    return x


def test_print_to_stderr_and_stdout_when_the_graph_runs(capsys):
    staged = function(prints_to_stderr, backend="numpy")
    staged(np.array([1.5]))
    captured = capsys.readouterr()
    assert captured.err == "to stderr 1.5\n" and captured.out == "to stdout 1.5\n"


def prints_to_a_file(x, f):
    print(x[0], file=f)
    return x


def test_print_to_another_file_in_a_graph_is_refused():
    import io
    with pytest.raises(TypeError, match="sys.stdout or sys.stderr only"):
        function(prints_to_a_file, backend="numpy")(np.array([1.0]), io.StringIO())


def python_assert_in_a_graph_branch(x, strict):
    if x[0] > 0:
        assert not strict, "strict mode"   # a Python test, failing only on this path
    return x[0]


def test_a_failing_python_assert_in_a_graph_branch_fails_when_the_branch_runs():
    assert function(python_assert_in_a_graph_branch, backend="numpy")(np.array([-1.0]), True) == -1.0
    with pytest.raises(AssertionError, match="strict mode"):
        function(python_assert_in_a_graph_branch, backend="numpy")(np.array([1.0]), True)


def test_a_failing_graph_assert_is_an_assertion_error_too():
    staged = function(asserts, backend="numpy")
    with pytest.raises(AssertionError, match="x must be positive") as info:
        staged(np.float64(-1.0))
    assert isinstance(info.value, rt.errors.AssertionFailedError)
    assert str(info.value).splitlines()[0] == "x must be positive"


# --- builtins with symbolic arguments: Python's values, dtypes and errors ------------------

def builtin_values(x, n):
    return (abs(x[0]), abs(n), abs(-x), int(x[0]), float(n), bool(x[0]), bool(n),
            round(x[0]), round(x[0], 1), round(x[2]), divmod(x[0], 2.0), divmod(n, 3),
            divmod(-7, n), pow(x[0], 2), pow(n, 2), x[0] ** n, len(x), len(x[1:]),
            sum(x), sum(x, 10.0), sum([x[0], x[1]]), isinstance(n, (int, np.integer)))


def extremes_as_python(x, n):
    return (min(x[0], x[1]), max(x[0], x[1], x[2]), min(x), max(x), min(n, 3),
            max(n, -2, 0), min(x[0], x[1], key=abs), max(x[1], x[0], key=lambda v: -v),
            max(x, default=0.5), min(x[:0], default=-1.0), max(x[1:], key=abs, default=0.0),
            min(x, key=lambda v: (v - 1.0) ** 2), min([x[0], x[2]]), max((x[1], 1.0)),
            min(np.nan, x[0]), min(x[0], np.nan), any([x[0] > 0, x[1] > 0]),
            all((x[0] > 0, True)), any(x > 3), all(x))


def loops_over_builtins(x, n):
    total = 0.0
    for i in range(n):
        total += i
    for i in range(n, -1, -2):
        total += 10 * i
    for i in range(n, 0, -1):
        total -= i
    for i, v in enumerate(x, 5):
        total += i * v
    for a, b in zip(x, x[1:]):
        total += a * b
    return total


def loops_over_reversed(x, n):
    total = 0.0
    for t in reversed(range(n)):
        total = total * 0.5 + t
    for t in reversed(range(n, -1, -2)):
        total -= t
    for i, t in enumerate(reversed(range(2, n))):
        total += i * t
    for a, b in zip(reversed(x), x):
        total += a * b
    for v in reversed(x):
        total = total * 0.5 - v
    backwards = reversed(range(n))    # made before the branch its loop is in
    if total > 0:
        for t in backwards:
            if t % 2:
                for s in reversed(range(t)):
                    total += s * 0.25
    return total


@pytest.mark.parametrize("fn", [builtin_values, extremes_as_python, loops_over_builtins,
                                loops_over_reversed])
def test_builtins_of_symbolic_values_equal_python(fn):
    assert_same_in_graphs(fn, (np.array([1.25, -2.5, 3.5]), np.int64(7)),
                          (np.array([-0.5, 2.5, -3.25]), np.int64(-4)))


def test_builtins_on_every_backend():
    assert_same_in_graphs(extremes_as_python, (np.array([1.25, -2.5, 3.5]), np.int64(7)),
                          backends=ALL_BACKENDS)


def nan_aware_extremes(x):
    return min(x), max(x), min(x, key=abs), max(x[0], x[1]), min(x[0], x[2], x[1])


def empty_min(x):
    return min(x)


def test_min_and_max_keep_pythons_nan_rule_and_empty_error():
    for x in (np.array([np.nan, 1.0, 0.0]), np.array([1.0, np.nan, 0.0]),
              np.array([3.0, 2.0, 1.0])):
        assert_same_in_graphs(nan_aware_extremes, x)
    assert_same_in_graphs(empty_min, np.array([1.0]), np.array([]))


def scalar_extremes(x):
    return max(x[0], x[1]), min(x[0], x[1]), max(x[1], x[0]), min(x[1], x[0])


def test_min_and_max_of_two_scalars_keep_pythons_rule_on_numba():
    # (The numba backend computes these with Numba's builtins max and min: elementwise.py,
    # _python_extreme.) A NaN is kept only where it comes first; of equal values of different
    # signs, the first.
    for pair in ([np.nan, 1.0], [1.0, np.nan], [-0.0, 0.0], [0.0, -0.0], [2.0, 1.0]):
        x = np.array(pair)
        assert_same_in_graphs(scalar_extremes, x, backends=("numpy", "numba"))
        got = function(scalar_extremes, backend="numba")(x)
        assert [str(v) for v in got] == [str(v) for v in scalar_extremes(x)]


def writes_into_the_max_of_arrays(a, b):
    best = max(a, b)         # a or b itself, as Python returns one of the candidates
    best += 1.0
    same = max(a, a)         # (fuzzer seed 7098)
    same *= 2.0
    low = min(b, a, key=lambda v: -v)
    low -= 0.5
    return best, low


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_min_and_max_of_arrays_are_one_of_them_and_writes_land_in_it(backend):
    for a, b in ((2.0, 3.0), (5.0, 1.0), (1.0, 1.0)):
        check(writes_into_the_max_of_arrays, np.array(a), np.array(b), backend=backend)


def mixed_extreme(x):
    return max(x[0], 0)


def test_min_and_max_of_different_types_are_refused():
    with pytest.raises(TypeError, match=r"max\(\) of values of different types"):
        function(mixed_extreme, backend="numpy")(np.array([1.0]))


def numpy_scalar_types(x, n):
    y = x.copy()
    y[0] -= np.float64(x[1])
    return (np.float64(x[0]), np.int64(x[1]), np.int32(n), np.float32(x), np.bool_(x[0]),
            np.float64(2), y, np.int8(n))


def test_numpy_scalar_types_convert_symbolic_values():
    assert_same_in_graphs(numpy_scalar_types, (np.array([1.5, -2.7]), np.int64(3)),
                          backends=ALL_BACKENDS)


def fuzz_seed_121(x, t):
    # Minimised fuzzer program: the print of a Python value came out while tracing, before
    # the print of the tensor that the graph made when it ran.
    print('p2', x)
    print('p5', t)


def fuzz_seed_32(x, y):
    # Minimised fuzzer program: np.float64 of a tensor was refused (and on empty arrays
    # must raise Python's IndexError).
    x[0] -= np.float64(y[0])


def test_fuzzer_print_order_and_numpy_scalar_type():
    assert_same_in_graphs(fuzz_seed_121, (np.array([]), 0.25), (np.array([1.0]), 0.5))
    assert_same_in_graphs(fuzz_seed_32, (np.array([]), np.array([])),
                          (np.array([1.0]), np.array([0.5])))


def assert_with_a_message_read_only_when_it_fails(y, n):
    assert n <= n, y[0]          # (Python computes the message only for a failing assert)
    assert y.shape[0] < n, "too long: %s" % y[-1]
    return n


def test_an_asserts_message_is_computed_only_where_it_fails():
    # (fuzzer seed 31667: `y[0]` of an empty y was read, and raised, where n <= n held)
    check(assert_with_a_message_read_only_when_it_fails, np.zeros(0), 3)
    check_raises(AssertionError, assert_with_a_message_read_only_when_it_fails,
                 np.arange(4.0), 2, match="too long: 3.0")


def int_of_a_bool_or_an_int(y, flag):
    for _ in y:
        flag -= -1           # (a bool before the loop, an int after an iteration)
    return int(flag), float(flag)


def test_int_of_a_value_that_is_a_bool_or_an_int_by_the_path_is_a_python_int():
    # (fuzzer seed 40066: int() gave the bool back where the loop did not run)
    for y in (np.zeros(0), np.zeros(2)):
        staged = check(int_of_a_bool_or_an_int, y, False)
        result = staged(y, True)
        assert (type(result[0]), type(result[1])) == (int, float)


def test_a_reversed_range_computes_its_length_once_not_per_iteration():
    staged = check(loops_over_reversed, np.array([1.25, -2.5, 3.5]), np.int64(7))
    graph = staged.get_concrete_function(np.array([1.25, -2.5, 3.5]), np.int64(7)).graph
    loop = [n for n in graph.nodes if n.op.name == "while"][0]
    ops_in_body = {n.op.name for n in loop.attrs["body"].walk()}
    assert not {"floor_divide", "maximum", "range_length"} & ops_in_body


# Ranges whose bounds are further apart than int64 holds: `stop - start` wraps in int64.
BIG = 2 ** 63


def first_items_of_a_range(start, stop, step):
    count = first = last = 0
    for i in range(start, stop, step):
        if count == 0:
            first = i
        last = i
        count += 1
        if count == 3:
            break
    return count, first, last


def first_items_of_ranges_with_literal_steps(start, stop):
    counts = []
    for rng in (range(start, stop), range(3, stop, 2), range(start, -3, -1),
                range(start, stop, 2 ** 62)):
        count = last = 0
        for i in rng:
            last = i
            count += 1
            if count == 3:
                break
        counts.append((count, last))
    return counts


def length_of_a_range(start, stop, step):
    return len(range(start, stop, step))


def test_ranges_with_bounds_far_apart_run_as_pythons():
    # (range(3, n, 2) with n near -2**63 ran where Python's range is empty)
    bounds = [(3, -BIG, 2), (-BIG, BIG - 1, 2 ** 62), (BIG - 1, -BIG, -2 ** 62),
              (BIG - 1, -BIG, -1), (-BIG, BIG - 1, 1), (5, -BIG, 1), (-5, BIG - 1, -1),
              (BIG - 1, -BIG, BIG - 1), (-1, BIG - 1, BIG - 1), (1, -BIG, -BIG),
              (0, 5, -BIG), (5, 0, -BIG), (0, 10, 3), (10, 0, -3), (4, 4, 1)]
    assert_same_in_graphs(first_items_of_a_range,
                          *[tuple(map(np.int64, b)) for b in bounds],
                          backends=("numpy", "numba"))
    assert_same_in_graphs(first_items_of_ranges_with_literal_steps,
                          *[(np.int64(a), np.int64(b)) for a, b in
                            [(-BIG, BIG - 1), (BIG - 1, -BIG), (-1, BIG - 1), (3, 9),
                             (-BIG + 1, -BIG)]],
                          backends=("numpy", "numba"))


def test_len_of_a_range_is_pythons_also_past_int64_and_for_a_zero_step():
    bounds = [(-BIG, 0, 1), (-BIG, -1, 1), (-BIG, BIG - 1, 2), (-BIG, BIG - 1, 3),
              (BIG - 1, -BIG, -1), (0, 5, 0), (3, -BIG, 2), (-BIG, BIG - 1, 2 ** 62)]
    assert_same_in_graphs(length_of_a_range, *[tuple(map(np.int64, b)) for b in bounds],
                          backends=("numpy", "numba"))


def last_item_of_a_reversed_range(start, stop):
    for i in reversed(range(start, stop)):
        return i
    return None


def test_a_reversed_range_longer_than_a_graph_counts_is_refused():
    check(last_item_of_a_reversed_range, np.int64(-BIG), np.int64(-1))
    staged = function(last_item_of_a_reversed_range, backend="numpy")
    with pytest.raises(OverflowError, match="reversed"):
        staged(np.int64(-BIG), np.int64(3))


def len_of_a_zip(x):
    return len(zip(x, range(x.shape[0])))


def test_len_of_a_zip_is_pythons_type_error():
    check_raises(TypeError, len_of_a_zip, np.arange(3.0), match="has no len")


def sum_of_a_range_of_narrow_ints(start, stop):
    total = 0
    for i in range(start, stop, 3):
        total += i
    return total


def test_a_range_of_other_int_types_counts_in_int64_or_refuses_past_it():
    check(sum_of_a_range_of_narrow_ints, np.int32(-5), np.uint8(200))
    check(sum_of_a_range_of_narrow_ints, np.uint64(3), np.int16(100))
    staged = function(sum_of_a_range_of_narrow_ints, backend="numpy")
    with pytest.raises(OverflowError, match="beyond int64's range"):
        staged(np.uint64(2 ** 64 - 1), np.int16(5))
