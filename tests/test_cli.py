"""The `autograph` command line: converted source, diff, graph, Numba source, DOT, --run,
and one-line errors with exit status 2 for bad input."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from autograph import cli
from autograph.cli import inputs, render

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL = textwrap.dedent("""\
    import numpy as np
    import autograph as ag


    def scaled_sum(x, factor):
        total = 0.0
        for i in range(x.shape[0]):
            total = total + x[i] * factor
        return total


    def double(x):
        return np.tanh(x) * 2.0


    @ag.function(backend="numpy")
    def staged(x):
        return x + 1.0


    class Model:
        def forward(self, x):
            if x > 0:
                return x
            return -x


    NOT_A_FUNCTION = 3

    if __name__ == "__main__":
        raise SystemExit("the CLI must not run the file's main block")
    """)


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "cli_model.py"
    path.write_text(MODEL)
    return str(path)


def run_cli(capsys, *argv):
    status = cli.main(list(argv), prog="autograph")
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_prints_converted_source_by_default(capsys, model_file):
    status, out, err = run_cli(capsys, model_file + ":scaled_sum")
    assert status == 0, err
    assert out.startswith("def scaled_sum(x, factor):")
    assert "ag__.for_form(" in out
    assert "\033[" not in out  # not a terminal: no colour


def test_dotted_qualname_reaches_a_method(capsys, model_file):
    status, out, _ = run_cli(capsys, model_file + ":Model.forward")
    assert status == 0
    assert out.startswith("def forward(self, x):")
    assert "ag__.if_form(" in out


def test_ag_function_object_shows_its_python_function(capsys, model_file):
    status, out, err = run_cli(capsys, model_file + ":staged", "--diff")
    assert status == 0, err
    assert '-@ag.function(backend="numpy")' in out  # the converted function, undecorated
    assert " def staged(x):" in out
    status, out, err = run_cli(capsys, model_file + ":staged", "--graph", "--arg", "float64[2]")
    assert status == 0, err
    assert out.startswith("graph staged(%0:f64[?])") and "add %0, 1.0" in out


def test_module_form(capsys, tmp_path, monkeypatch):
    package = tmp_path / "cli_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "layers.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    status, out, err = run_cli(capsys, "cli_pkg.layers:double")
    assert status == 0, err
    assert out.startswith("def double(x):")


def test_diff_against_the_original(capsys, model_file):
    status, out, _ = run_cli(capsys, "--diff", model_file + ":Model.forward")
    assert status == 0
    assert "--- " + model_file + " (original)" in out
    assert "+++ Model.forward (converted)" in out
    assert "-    if x > 0:" in out
    assert any(line.startswith("+") and "ag__.if_form(" in line for line in out.splitlines())


def test_colour_always_uses_ansi_and_keeps_the_text(capsys, model_file):
    status, out, _ = run_cli(capsys, "--color", "always", model_file + ":scaled_sum")
    assert status == 0
    assert "\033[1;34mdef\033[0m" in out
    plain = render.colour_python(out)  # colouring is idempotent on the visible text
    strip = __import__("re").compile(r"\033\[[0-9;]*m").sub
    assert strip("", out) == strip("", plain)
    _, uncoloured, _ = run_cli(capsys, "--color", "never", model_file + ":scaled_sum")
    assert strip("", out) == uncoloured


def test_colour_python_keeps_every_character():
    source = 'def f(x):  # comment\n    s = "a\\"b" + f"{x}"\n    return 0x1F + len(s)\n'
    coloured = render.colour_python(source)
    strip = __import__("re").compile(r"\033\[[0-9;]*m").sub
    assert strip("", coloured) == source
    assert "\033[32m" in coloured and "\033[35m" in coloured and "\033[2;37m" in coloured


def test_graph_for_example_inputs(capsys, model_file):
    status, out, err = run_cli(capsys, model_file + ":double", "--graph", "--arg", "float64[3,4]")
    assert status == 0, err
    assert out.startswith("graph double(%0:f64[?,?])")
    assert "tanh %0" in out


def test_run_prints_results_and_timings(capsys, model_file):
    status, out, err = run_cli(capsys, model_file + ":double", "--run", "--backend", "numpy",
                               "--arg", "float64[3]", "--repeat", "3")
    assert status == 0, err
    assert out.startswith("result = [")
    assert "first call (convert + trace + compile):" in out
    assert "later calls: median" in out and "over 3 calls" in out


def test_sample_inputs_are_deterministic():
    first = inputs.make_inputs(["float64[2,3]", "int32[4]", "bool[2]", "int64[]", "3", "'a'"], 0)
    second = inputs.make_inputs(["float64[2,3]", "int32[4]", "bool[2]", "int64[]", "3", "'a'"], 0)
    for a, b in zip(first, second):
        assert repr(a) == repr(b)
    assert first[0].shape == (2, 3) and first[0].dtype == "float64"
    assert first[1].dtype == "int32" and first[2].dtype == bool
    assert type(first[3]).__name__ == "int64"  # DTYPE[] is a NumPy scalar
    assert first[4] == 3 and first[5] == "a"


def test_numba_source(capsys, model_file):
    status, out, err = run_cli(capsys, model_file + ":double", "--numba-source",
                               "--arg", "float64[3]")
    assert status == 0, err
    # (np.tanh runs as NumPy's own loop: lowering.NUMPY_UNARY)
    assert "@_jit(" in out and "_rt.numpy_unary(" in out


def test_dot_writes_clusters_for_nested_graphs(capsys, tmp_path):
    source = tmp_path / "cli_loop.py"
    source.write_text(textwrap.dedent("""\
        import runtime as rt

        def loop(x):
            def cond(i, s):
                return i < x.shape[0]

            def body(i, s):
                s = rt.cond(x[i] > 0, lambda: s + x[i], lambda: s)
                return i + 1, s

            return rt.while_loop(cond, body, (0, 0.0))[1]
        """))
    target = tmp_path / "loop.dot"
    status, out, err = run_cli(capsys, str(source) + ":loop", "--dot", str(target),
                               "--arg", "float64[4]")
    assert status == 0, err
    dot = target.read_text()
    assert dot.startswith('digraph "loop" {')
    assert 'label="while: body"' in dot and 'label="cond: then_branch"' in dot
    assert dot.count("subgraph ") >= 4  # cond, body, then, else
    assert "cli_loop.py:" in dot  # nodes say which user line created them


def test_dot_depth_collapses_bodies(capsys, tmp_path):
    source = tmp_path / "cli_loop2.py"
    source.write_text(LOOP_WITH_BRANCH)
    target = tmp_path / "total.dot"
    status, out, err = run_cli(capsys, str(source) + ":total", "--dot", str(target),
                               "--dot-depth", "0", "--arg", "float64[4]")
    assert status == 0, err
    dot = target.read_text()
    assert "subgraph" not in dot and "\\nbody: " in dot  # the loop is one box
    status, out, err = run_cli(capsys, str(source) + ":total", "--dot", str(target),
                               "--dot-depth", "1", "--arg", "float64[4]")
    assert status == 0, err
    dot = target.read_text()
    assert 'label="while: body"' in dot and "cond: then_branch" not in dot


def test_dot_without_graphviz_writes_dot_and_says_so(capsys, model_file, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    status, out, _ = run_cli(capsys, model_file + ":double", "--dot", str(tmp_path / "g.svg"),
                             "--arg", "float64[3]")
    assert status == 0
    assert "Graphviz `dot` is not installed" in out
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


def _graphviz_dot():
    """Graphviz's `dot`. Without it the render tests skip, unless AUTOGRAPH_REQUIRE_GRAPHVIZ
    is set: CI sets it after installing Graphviz, so that they fail rather than skip there."""
    dot = shutil.which("dot")
    if dot is None:
        if os.environ.get("AUTOGRAPH_REQUIRE_GRAPHVIZ"):
            pytest.fail("AUTOGRAPH_REQUIRE_GRAPHVIZ is set but Graphviz's `dot` is not on PATH")
        pytest.skip("Graphviz's `dot` is not installed (set AUTOGRAPH_REQUIRE_GRAPHVIZ to fail)")
    return dot


LOOP_WITH_BRANCH = textwrap.dedent("""\
    def total(x):
        s = 0.0
        for i in range(x.shape[0]):
            if x[i] > 0:
                s += x[i]
        return s * 2.0
    """)

# A decoder's shape: a Python loop of 40 steps, each a branch that reads the weights W.
UNROLLED_STEPS = textwrap.dedent("""\
    import numpy as np

    def steps(h, W):
        for _ in range(40):
            if np.sum(h) > 0:
                h = np.tanh(W @ h)
        return h
    """)


@pytest.mark.parametrize("depth", [[], ["--dot-depth", "0"], ["--dot-depth", "1"]])
def test_graphviz_renders_the_picture(capsys, tmp_path, depth):
    _graphviz_dot()  # the command runs it
    source = tmp_path / "cli_render.py"
    source.write_text(LOOP_WITH_BRANCH)
    status, out, err = run_cli(capsys, str(source) + ":total", "--dot",
                               str(tmp_path / "total.svg"), *depth, "--arg", "float64[4]")
    assert status == 0, err
    assert out == "wrote %s\n" % (tmp_path / "total.svg")
    assert "<svg" in (tmp_path / "total.svg").read_text()


def test_model_sized_picture_is_a_narrow_column(capsys, tmp_path):
    dot = _graphviz_dot()
    source = tmp_path / "cli_steps.py"
    source.write_text(UNROLLED_STEPS)
    target = tmp_path / "steps.dot"
    status, _, err = run_cli(capsys, str(source) + ":steps", "--dot", str(target),
                             "--arg", "float64[3]", "--arg", "float64[3,3]")
    assert status == 0, err
    text = target.read_text()
    assert "subgraph" not in text  # 40 branches with their bodies: too many boxes to draw
    assert "(used 40 times)" in text  # W: named by its 40 readers, not 40 edges from the top
    result = subprocess.run([dot, "-Tplain", str(target)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    width, height = map(float, result.stdout.split("\n", 1)[0].split()[2:4])
    assert width < 15 < height  # inches: a column to scroll down, not a wide band


@pytest.mark.parametrize("argv, message", [
    (["missing_file.py:f"], "no such file: missing_file.py"),
    (["{model}:NOT_A_FUNCTION"], "NOT_A_FUNCTION is an int object, not a function"),
    (["{model}:Model"], "Model is a class, not a function"),
    (["{model}:nothing_here"], "has no attribute 'nothing_here'"),
    (["{model}"], "expected path/to/file.py:qualname"),
    (["no_such_module_xyz:f"], "no module named 'no_such_module_xyz'"),
    (["{model}:double", "--graph", "--arg", "float99[3]"], "unknown dtype 'float99'"),
    (["{model}:double", "--graph", "--arg", "float64[3"], "--arg float64[3: not DTYPE[dims]"),
    (["{model}:double", "--graph", "--arg", "float64[-1]"], "non-negative integers"),
    (["{model}:scaled_sum", "--graph", "--arg", "float64[3]"], "needs 2 --arg (got 1)"),
    (["{model}:double", "--arg", "float64[3]"], "--arg is only used with"),
    (["{model}:double", "--dot", "g.dot", "--dot-depth", "-1", "--arg", "float64[3]"],
     "--dot-depth must be 0 or more"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, model_file, argv, message):
    argv = [a.replace("{model}", model_file) for a in argv]
    status, out, err = run_cli(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("autograph: error: ")
    assert message in err
    assert "Traceback" not in err


def test_python_dash_m_and_help():
    result = subprocess.run([sys.executable, "-m", "autograph", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for option in ("--diff", "--graph", "--numba-source", "--dot", "--dot-depth", "--run",
                   "--arg", "--backend", "path/to/file.py:qualname", "package.module:qualname"):
        assert option in result.stdout
    assert result.stdout.startswith("usage: python -m autograph")


def test_python_dash_m_bad_input_has_no_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-m", "autograph", str(tmp_path / "nope.py:f")],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "no such file" in result.stderr and "Traceback" not in result.stderr


def test_function_error_is_reported_with_the_user_line(capsys, tmp_path):
    source = tmp_path / "cli_fails.py"
    source.write_text("def fails(x):\n    y = x + 1\n    raise ValueError('bad input %s' % y)\n")
    status, _, err = run_cli(capsys, str(source) + ":fails", "--run", "--backend", "numpy",
                             "--arg", "3")
    assert status == 1
    assert "ValueError: bad input 4" in err
    assert 'cli_fails.py", line 3, in fails' in err
    assert "Traceback" not in err


@pytest.mark.skipif(shutil.which("autograph") is None, reason="console script not installed")
def test_console_script(model_file):
    result = subprocess.run(["autograph", model_file + ":double"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("def double(x):")
