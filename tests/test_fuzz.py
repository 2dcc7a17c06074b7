"""The differential fuzzer's fixed-seed subset (tools/fuzz/): generated programs over NumPy
scalars and 1-d arrays must run through `ag.to_graph` and `ag.function` (numpy and numba
backends) as they run as plain Python (results with their dtypes and Python types, printed
output, exception types, argument contents: the rule is tools/fuzz/compare.py's docstring),
or be refused with an error docs/guide.md documents (compare.DOCUMENTED_REFUSALS).

The seeds that fail today are in XFAIL, with their class and message, strict: a fix turns
them into XPASS, and the entry goes. The long run is tools/fuzz_graph_mode.py; it prints the
entries of a backend's list (after a change of the generator, every seed's program changes):

    python tools/fuzz_graph_mode.py --in-process --xfail-list --backends numpy --count 400
"""

import linecache
import os

import numpy as np
import pytest

from tools.fuzz import compare
from tools.fuzz import generator
from tools.fuzz.minimise import minimise

SEEDS = {"to_graph": range(400), "numpy": range(400), "numba": range(40)}

# Failing today: seed -> class: kind: message.
XFAIL = {
    'to_graph': {
    },
    'numpy': {
    },
    'numba': {
    },
}


def _seeds(target):
    failing = XFAIL[target]
    return [pytest.param(seed, id="seed%d" % seed,
                         marks=[pytest.mark.xfail(strict=True, reason=failing[seed])] if seed in failing else [])
            for seed in SEEDS[target]]


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    """The programs' files, and compile caches out of the user's cache."""
    directory = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRAPH_CACHE_DIR", str(directory / "cache"))
        yield str(directory)


def _check(seed, target, directory, focus=()):
    program = generator.generate(seed, focus=focus)
    verdict = compare.check_source(program.source, target, directory, "fuzz_%s_%d" % (target, seed))
    assert compare.acceptable(verdict), "%s\n%s" % (verdict.describe(), program.source)


@pytest.mark.parametrize("seed", _seeds("to_graph"))
def test_to_graph(seed, fuzz_dir):
    _check(seed, "to_graph", fuzz_dir)


@pytest.mark.parametrize("seed", _seeds("numpy"))
def test_numpy(seed, fuzz_dir):
    _check(seed, "numpy", fuzz_dir)


@pytest.mark.parametrize("seed", _seeds("numba"))
def test_numba(seed, fuzz_dir):
    _check(seed, "numba", fuzz_dir)


# One array passed as both x and y (in the second call): before graphs checked that the
# arrays they write do not share memory with another input (trace._SharedInputs), 7 of
# these 150 programs left other argument contents than Python.
@pytest.mark.parametrize("seed", range(70000, 70150))
def test_numpy_one_array_as_two_arguments(seed, fuzz_dir):
    _check(seed, "numpy", fuzz_dir, focus=("shared_args",))


# -- the fuzzer itself ----------------------------------------------------------------------------

def test_same_seed_same_program():
    assert generator.generate(7).source == generator.generate(7).source
    assert generator.generate(7).source != generator.generate(8).source


def test_focus_puts_the_construct_in_every_program():
    for seed in range(20):
        program = generator.generate(seed, focus=("chained_compare",))
        assert "chained_compare" in program.constructs


def test_narrow_dtypes_makes_float32_and_int32_arguments(tmp_path):
    dtypes = set()
    for seed in range(30):
        program = generator.generate(seed, focus=("narrow_dtypes",))
        module = compare.load(program.source, str(tmp_path / "p.py"), "fuzz_narrow_check")
        try:
            first, second = module.ARGS
            narrow = {np.asarray(a).dtype for a in first if isinstance(a, (np.ndarray, np.generic))}
            assert narrow & {np.dtype(np.float32), np.dtype(np.int32)}, program.source
            # Both calls get the same types (the second reuses the first's trace).
            assert [np.asarray(a).dtype if isinstance(a, (np.ndarray, np.generic)) else type(a) for a in first] == \
                [np.asarray(a).dtype if isinstance(a, (np.ndarray, np.generic)) else type(a) for a in second]
            dtypes |= narrow
        finally:
            compare.unload("fuzz_narrow_check")
    assert {np.dtype(np.float32), np.dtype(np.int32)} <= dtypes
    # The construct changes only the arguments' dtypes: the programs of the seeds that do not
    # draw it keep their text.
    off = [generator.generate(seed, weights={"narrow_dtypes": 0}).source for seed in range(40)]
    assert sum(off[seed] == generator.generate(seed).source for seed in range(40)) >= 30
    assert all("float32" not in text and "int32" not in text for text in off)


def test_float32_values_compare_within_a_few_of_their_ulps():
    one = np.float32(1.0)
    assert compare.difference_of(one, np.nextafter(one, np.float32(2)), False, "result") is None
    assert compare.difference_of(one, one + np.float32(1e-4), False, "result")
    assert compare.difference_of(np.float64(1.0), np.float64(1.0 + 1e-7), False, "result")
    # The dtype still has to be the same.
    assert compare.difference_of(one, np.float64(1.0), False, "result")
    assert compare.difference_of(np.ones(2, np.float32), np.ones(2), False, "result")


def test_a_weight_of_zero_switches_a_construct_off():
    for seed in range(50):
        assert "print(" not in generator.generate(seed, weights={"print": 0}).source


def test_plain_python_runs_every_program_or_raises_an_expected_error(tmp_path):
    # Programs are valid: Python raises only what constructs raise on purpose (failed
    # asserts, raise statements, reads of empty arrays and lists, names a loop or branch
    # left unbound, reductions of empty arrays).
    expected = (AssertionError, ValueError, RuntimeError, IndexError, UnboundLocalError)
    for seed in range(300):
        module = compare.load(generator.generate(seed).source, str(tmp_path / "p.py"), "fuzz_python_check")
        try:
            for args in module.ARGS:
                outcome = compare.call(module.f, args)
                assert outcome.error is None or isinstance(outcome.error, expected), (seed, outcome.error)
        finally:
            compare.unload("fuzz_python_check")


def test_results_keep_their_kind():
    # A Python bool must stay a bool (issue 15, cause 7); an int may come back as int64.
    assert compare.difference_of((True, 1), (np.int64(1), np.int64(1)), False, "result")
    assert compare.difference_of((True, 1), (np.True_, np.int64(1)), False, "result") is None
    assert compare.difference_of(0, np.float64(0.0), False, "result")
    assert compare.difference_of(np.float64(1.0), 1.0, False, "result")  # a NumPy value stays one
    assert compare.difference_of(np.arange(3.0), np.arange(3), False, "result")
    assert compare.difference_of([1.0], (1.0,), False, "result")
    # to_graph promises the same Python types.
    assert compare.difference_of(1, np.int64(1), True, "result")


def test_printed_numbers_compare_as_values_of_the_same_kind():
    assert compare.printed_difference("s 0.30000000000000004\n", "s 0.3\n", False) is None
    assert compare.printed_difference("n 1\n", "n 1.0\n", False)
    assert compare.printed_difference("b True\n", "b 1\n", False)
    assert compare.printed_difference("a\nb\n", "a\n", False)


def test_errors_are_classified_by_who_raised_them():
    import runtime as rt

    def user_line():
        return "%d" % "not a number"

    user = compare.call(user_line, ()).error
    assert compare.classify_error(user, None, "numpy").kind.endswith("(user code), Python returned")
    # A deliberate TypeError of the runtime: rt.function does not convert control flow.
    refused = compare.call(rt.function(lambda x: 1.0 if x > 0 else 0.0, backend="numpy"), (np.float64(1.0),))
    assert compare.classify_error(refused.error, None, "numpy").cls == "refusal"
    # The runtime no longer says "decorate the function with ag.function" to converted code
    # (issue 15); the class stays, judged on a refusal raised from a framework file.
    fake = os.path.join(os.path.dirname(rt.__file__), "_fuzz_test_refusal.py")
    text = "raise TypeError('decorate the function with ag.function')\n"
    linecache.cache[fake] = (len(text), None, [text], fake)
    try:
        exec(compile(text, fake, "exec"), {})
    except TypeError as error:
        assert compare.classify_error(error, None, "numpy").cls == "misleading refusal"
    finally:
        del linecache.cache[fake]
    # Python's own TypeError inside the runtime (it calls None): not a refusal, a crash.
    crashed = compare.call(rt.cond, (rt.constant(True), None, None)).error
    assert isinstance(crashed, TypeError)
    assert compare.classify_error(crashed, None, "numpy").cls == "internal error"


def test_the_minimiser_keeps_the_failure_and_loop_bounds():
    source = generator.generate(3).source
    assert "np.concatenate" in source

    def fails(text):
        return "np.concatenate" in text and "ARGS" in text

    small = minimise(source, fails, max_checks=400)
    assert fails(small) and small.count("\n") < source.count("\n")
    # A while loop keeps the counter that bounds it.
    looping = "def f(x):\n    c = 0\n    while c < 3:\n        c += 1\n        x = x + 1.0\n    return x\n\nARGS = [(1.0,)]\n"
    small = minimise(looping, lambda text: "while" in text)
    assert "c += 1" in small and "c < 3" in small
    looping = looping.replace("while c < 3:", "while True:").replace("c += 1", "c += 1\n        if c > 3:\n            break")
    small = minimise(looping, lambda text: "while" in text)
    assert "c += 1" in small and "if c > 3:\n            break" in small


def test_the_minimiser_keeps_no_edit_that_leaves_the_text_as_it_was():
    # (Deleting the `pass` of the helper's body puts one back: the same program.)
    source = ("def h(a):\n    pass\n\ndef f(x):\n    h(x)\n    y = x + 1.0\n    return y\n\n"
              "ARGS = [(1.0,)]\n")
    kept = []

    def fails(text):
        if "h(x)" in text:
            kept.append(text)
            return True
        return False

    small = minimise(source, fails, max_checks=50)
    assert len(kept) == len(set(kept)) < 10
    assert "y = " not in small and "h(x)" in small
