"""tools/bench_grad.py on tiny sizes, so it cannot rot: it runs, its hand-written gradients
agree with ag's (a disagreement would be an AssertionError in the table instead of a
figure), and every cell it prints is a figure."""

import re

from tools import bench_grad

TIME = re.compile(r"^[0-9.]+ (µs|ms|s)$")
RATIO = re.compile(r"^[0-9.]+x$")


def _check_speed(rows, njit_workloads):
    for workload, backend, fwd, vg, vg_fwd, hand, vg_hand, njit, vg_njit in rows:
        assert TIME.match(fwd) and TIME.match(hand), (workload, backend, fwd, hand)
        if workload in njit_workloads:
            assert TIME.match(njit), (workload, njit)
        else:
            assert njit == "-"
        assert TIME.match(vg), (workload, backend, vg)
        assert RATIO.match(vg_fwd) and RATIO.match(vg_hand), (workload, vg_fwd, vg_hand)
        assert RATIO.match(vg_njit) if workload in njit_workloads else vg_njit == "-"


def test_every_workload_on_the_numpy_backend(capsys):
    result = bench_grad.main(["--tiny", "-b", "numpy"])
    out = capsys.readouterr().out
    assert "Speed" in out and "Memory, RNN" in out
    assert [r[0] for r in result["speed"]] == list(bench_grad.WORKLOADS)
    _check_speed(result["speed"], {"rnn", "ema"})
    assert [r[0] for r in result["memory"]] == ["5", "10"]
    for T, pushed, numba_stacks, extra, h in result["memory"]:
        assert pushed.endswith("x h per step)") and numba_stacks.endswith("KiB"), pushed
        assert extra.endswith("KiB") and h.endswith("KiB")


def test_ema_on_the_numba_backend():
    result = bench_grad.main(["--tiny", "-w", "ema", "-b", "numba"])
    _check_speed(result["speed"], {"ema"})
