"""return inside if/loops lowered into a flag and a single return."""

from converter_testing import assert_same_behaviour, code


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


def index_of(values, target):
    for i, v in enumerate(values):
        if v == target:
            return i
    return -1


def in_try(x):
    log = []
    try:
        if x:
            return "early", log
        log.append("body")
    except ValueError:
        return "except", log
    else:
        log.append("else")
    finally:
        log.append("finally")
    return "end", log


def test_generated_code_has_a_single_return():
    source = code(sign)
    assert "return 1" not in source and "return -1" not in source
    assert [line.strip() for line in source.splitlines()].count(
        "return ag__.function_result(retval_)") == 1
    assert "do_return = True" in source
    assert "retval_ = 1" in source


def test_return_behaves_like_python():
    assert_same_behaviour(sign, 5, -2, 0)
    assert_same_behaviour(index_of, ([1, 2, 3], 2), ([1, 2, 3], 7), ([], 1))


def test_return_inside_try_except_else_finally():
    assert_same_behaviour(in_try, True, False)


def test_return_value_that_raises_is_not_a_return():
    def f(x):
        if x:
            try:
                return 1 // 0
            except ZeroDivisionError:
                pass
        return "after"

    assert_same_behaviour(f, True, False)


def test_functions_without_nested_returns_keep_them():
    def plain(x):
        y = x + 1
        return y

    assert "do_return" not in code(plain)


def test_implicit_none_and_bare_return():
    def f(x):
        if x:
            return
        print("fell through")

    assert_same_behaviour(f, True, False)


def test_early_return_from_while_loop():
    def f(n):
        i = 0
        while True:
            i += 1
            if i * i > n:
                return i
    assert_same_behaviour(f, 0, 50)


# --- raise, lowered with the returns ---------------------------------------------------------

def checked_sum(values, limit):
    total = 0
    for i, v in enumerate(values):
        if v < 0:
            raise ValueError("negative value at %d" % i)
        if v > limit:
            raise OverflowError(f"{v} > {limit}") from None
        total += v
    if total == 0:
        raise ZeroDivisionError
    return total


def reraised(x):
    try:
        if x:
            raise KeyError(x)       # inside try: stays a raise statement
    except KeyError as error:
        if x > 1:
            raise ValueError("wrapped") from error
        raise
    return "no error"


def test_generated_code_lowers_raises_outside_try():
    source = code(checked_sum)
    assert "ag__.raised(" in source and "raise exception\n" in source
    assert "ag__.raised(ag__.converted_1(OverflowError)(" in source and ", None)" in source
    assert "raise ag__.converted_1(KeyError)(x)" in code(reraised)


def _causes(fn, *args):
    try:
        fn(*args)
    except Exception as error:
        return (type(error), str(error), type(error.__cause__), error.__suppress_context__,
                type(error.__context__))
    return None


def test_raise_behaves_like_python():
    from autograph.impl import api
    assert_same_behaviour(checked_sum, ([1, 2], 5), ([1, -2], 5), ([1, 9], 5), ([], 5))
    assert_same_behaviour(reraised, 0, 1, 2)
    converted = api.to_graph(reraised)
    for x in (1, 2):
        assert _causes(converted, x) == _causes(reraised, x)
    assert _causes(api.to_graph(checked_sum), [9], 1) == _causes(checked_sum, [9], 1)


def test_the_traceback_of_a_raise_ends_at_the_users_line():
    import traceback
    from autograph.impl import api
    try:
        api.to_graph(checked_sum)([-1], 1)
    except ValueError as error:
        last = traceback.extract_tb(error.__traceback__)[-1]
    assert last.line == 'raise ValueError("negative value at %d" % i)'
    assert last.name == "checked_sum"


def test_raising_something_else_is_pythons_type_error():
    def f(x):
        if x:
            raise "not an exception"
        return x

    assert_same_behaviour(f, 0, 1)


def validated(x, y):
    if x[0] < 0:
        raise ValueError(f"x[0] is {x[0]}, must be >= 0")
    else:
        scale = 2.0            # defined on the path that does not raise only
    for i in range(x.shape[0]):
        if x[i] > y:
            raise IndexError("x[%d] = %s > %s" % (i, x[i], y))
        while x[i] > 100.0:    # a raise in a graph while
            raise RuntimeError("unreachable when x[i] <= y")
    return x.sum() * scale


def test_raise_in_graph_branches_and_loops_raises_when_the_graph_runs():
    import numpy as np
    from converter_testing import ALL_BACKENDS, assert_same_in_graphs
    limit, high = np.float64(5.0), np.float64(500.0)
    staged = assert_same_in_graphs(
        validated, (np.array([1.0, 2.0]), limit), (np.array([-1.0, 2.0]), limit),
        (np.array([1.0, 6.0]), limit), (np.array([1.0, 200.0]), high), backends=ALL_BACKENDS)
    assert staged["numpy"].trace_count == 1


def raise_in_nested_helper(x):
    def check(v):
        if v < 0:
            raise ValueError("negative: %s" % v)
        return v

    total = 0.0
    for i in range(x.shape[0]):
        total += check(x[i])
    return total


def test_raise_in_a_helper_called_in_a_graph_loop():
    import numpy as np
    from converter_testing import assert_same_in_graphs
    assert_same_in_graphs(raise_in_nested_helper, np.array([1.0, 2.0]),
                          np.array([1.0, -2.0]))


def fuzz_seed_11(x):
    # Minimised fuzzer program (seed 11): raised while tracing a loop that runs zero times.
    for i2 in range(x.shape[0], 1, -1):
        raise ValueError('bad value %d')


def test_fuzzer_raise_in_a_loop_that_does_not_run():
    import numpy as np
    from converter_testing import assert_same_in_graphs
    assert_same_in_graphs(fuzz_seed_11, np.zeros(0), np.zeros(3))
