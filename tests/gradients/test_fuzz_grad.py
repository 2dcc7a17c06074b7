"""The gradient fuzzer's fixed-seed subset (tools/fuzz_grad.py): generated differentiable
programs must be differentiated by ag.value_and_grad (numpy backend) with plain Python's
value and gradients that agree with central differences (tools/fuzz/grad_check.py's rule),
or be refused clearly. Seeds that failed once stay in the set (FOUND: what they found,
fixed since); the minimised finds are tests/gradients/test_fuzz_grad_finds.py. The long
run:

    python tools/fuzz_grad.py --count 300 --backends numpy,numba
"""

import numpy as np
import pytest

from tools.fuzz import grad_check, grad_programs

SEEDS = range(50)
# Seeds that failed before a fix: seed -> what they found (test_fuzz_grad_finds.py).
FOUND = {
    139: "crash: IndexError 0-dimensional (runtime/autodiff.py _cond_vjp: a tensor array through a cond)",
    160: "crash: sum_to: ranks differ (runtime/autodiff.py _cond_vjp: a tensor array through a cond)",
    346: "crash: broadcast_like (runtime/autodiff.py _cond_vjp: a tensor array through a cond)",
    570: "mismatch gradient: d/dt is 0.0 (a refused trace retried with the float t a constant)",
    1764: "crash: AxisError (runtime/autodiff.py _cond_vjp: a tensor array through a cond)",
}


def _seeds():
    return [pytest.param(seed, id="seed%d" % seed) for seed in list(SEEDS) + sorted(FOUND)]


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("fuzz_grad")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRAPH_CACHE_DIR", str(directory / "cache"))
        yield str(directory)


@pytest.mark.parametrize("seed", _seeds())
def test_numpy(seed, fuzz_dir):
    program = grad_programs.generate(seed)
    verdict = grad_check.check_source(program.source, "numpy", fuzz_dir, "fuzz_grad_%d" % seed)
    assert verdict.cls in ("ok", "refusal"), "%s\n%s" % (verdict.describe(), program.source)


# -- the fuzzer itself ---------------------------------------------------------------------------

def test_same_seed_same_program():
    assert grad_programs.generate(7).source == grad_programs.generate(7).source
    assert grad_programs.generate(7).source != grad_programs.generate(8).source


def test_focus_puts_the_construct_in_every_program():
    for seed in range(10):
        assert "while" in grad_programs.generate(seed, focus=("while",)).constructs


def test_plain_python_returns_a_finite_float_loss(tmp_path):
    from tools.fuzz import compare
    for seed in range(150):
        module = compare.load(grad_programs.generate(seed).source, str(tmp_path / "p.py"), "fuzz_grad_plain")
        try:
            for args in module.ARGS:
                assert grad_check.invalid(compare.call(module.f, args)) is None, seed
        finally:
            compare.unload("fuzz_grad_plain")


def branchy(x):
    if x[0] > 0.5:
        return float(np.sum(x * x))
    return float(np.sum(x)) * 3.0


def test_a_wrong_gradient_is_a_mismatch_and_a_right_one_is_not():
    x = np.array([0.2, -0.7])
    args, filename = (x,), branchy.__code__.co_filename
    right = (np.array([3.0, 3.0]),)
    verdict, compared, skipped = grad_check.gradient_verdict(branchy, args, (0,), right, branchy(x), filename, ["x"])
    assert verdict is None and (compared, skipped) == (2, 0)
    wrong = (np.array([3.0, 3.001]),)
    verdict, _, _ = grad_check.gradient_verdict(branchy, args, (0,), wrong, branchy(x), filename, ["x"])
    assert verdict.cls == "mismatch gradient" and "d/dx[1]" in verdict.message


def test_an_element_whose_branch_flips_within_the_step_is_not_compared():
    x = np.array([0.5 + 1e-7, -0.7])   # x[0] + -1e-6 takes the other branch
    args, filename = (x,), branchy.__code__.co_filename
    anything = (np.array([123.0, -1.4]),)
    verdict, compared, skipped = grad_check.gradient_verdict(branchy, args, (0,), anything, branchy(x), filename, ["x"])
    assert verdict is None and (compared, skipped) == (1, 1)


def kinked(x):
    return float(np.sum(np.abs(x - 0.3)))


def test_a_kink_inside_an_op_between_the_steps_is_not_compared():
    x = np.array([0.3 + 1e-5, 0.9])   # |x - 0.3| bends between h = 1e-6 and h = 1e-4
    verdict, compared, skipped = grad_check.gradient_verdict(
        kinked, (x,), (0,), (np.array([-7.0, 1.0]),), kinked(x), kinked.__code__.co_filename, ["x"])
    assert verdict is None and (compared, skipped) == (1, 1)


def test_gradients_of_the_wrong_kind_are_named():
    assert grad_check.gradient_kind_difference(np.zeros(2), np.zeros(2, np.float32))
    assert grad_check.gradient_kind_difference(1.5, np.zeros(1))
    assert grad_check.gradient_kind_difference(np.float64(1.5), 2.0)
    assert grad_check.gradient_kind_difference(1.5, 2.0) is None
