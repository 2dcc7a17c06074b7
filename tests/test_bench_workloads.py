"""tools/bench_workloads.py on tiny kernels, so it cannot rot: every group runs, every
backend gives plain Python's result (a WRONG would show in the table), every cell is a
figure, njit's refusals are footnotes with Numba's reason, and the train steps, methods on
a class, have no njit figure."""

import re

from tools import bench_workloads, vectorised_workloads

TIME = re.compile(r"^[0-9.]+ (µs|ms|s)$")
RATIO = re.compile(r"^[0-9.]+x$")


def test_every_kernel_and_train_step_on_the_numpy_backend(capsys):
    tables = bench_workloads.main(["--tiny", "-g", "vectorised", "models",
                                   "-b", "python", "ag-numpy"])
    out = capsys.readouterr().out
    assert "Vectorised kernels" in out and "Train steps" in out and "Errors" not in out
    assert [r[0] for r in tables["vectorised"]["steady"]] == list(vectorised_workloads.WORKLOADS)
    assert [r[0] for r in tables["models"]["steady"]] == ["mlp_classifier", "rnn_classifier"]
    assert "WRONG" not in out
    for group in ("vectorised", "models"):
        for name, python, numpy, numpy_to_python in tables[group]["steady"]:
            assert TIME.match(python) and TIME.match(numpy), (name, python, numpy)
            assert RATIO.match(numpy_to_python), (name, numpy_to_python)
        for name, python, numpy in tables[group]["first"]:
            assert TIME.match(python) and TIME.match(numpy), (name, python, numpy)


def test_every_backend_on_a_few_workloads(capsys):
    tables = bench_workloads.main(["--tiny", "-w", "piecewise16", "bouncing_balls", "softmax"])
    out = capsys.readouterr().out
    assert set(tables) == {"scalar", "vectorised", "overhead"}
    # Numba's np.max takes no axis: njit refuses softmax, and the footnote says why.
    assert re.search(r"softmax, njit: TypingError: max\(.*\): .*'axis'", out), out
    assert "WRONG" not in out
    for group in ("scalar", "vectorised"):
        for row in tables[group]["steady"]:
            name, python, numpy, numba, auto, njit = row[:6]
            assert all(TIME.match(cell) for cell in (python, numpy, numba, auto)), row
            if name == "softmax":
                assert re.match(r"^error \[\d\]$", njit), row
            else:
                assert TIME.match(njit), row
            assert all(RATIO.match(cell) or cell == "-" for cell in row[6:]), row
    assert [r[0] for r in tables["overhead"]] == ["x + 1", "x - lr * x, lr a Python float",
                                                  "x * self.w + self.b (state)"]


def test_a_train_step_has_no_njit_figure(capsys):
    tables = bench_workloads.main(["--tiny", "-w", "mlp_classifier", "-b", "python", "njit"])
    out = capsys.readouterr().out
    [(name, python, njit)] = tables["models"]["steady"]
    assert name == "mlp_classifier" and TIME.match(python) and njit == "-"
    assert "(njit cannot take a method on a class: its column shows -)" in out
