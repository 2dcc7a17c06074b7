"""Debugging converted code: pdb through ag.run_functions_eagerly and through ag.to_graph
(driven in a subprocess on stdin), and conversion logging (ag.set_verbosity,
AUTOGRAPH_VERBOSITY) on the `logging` logger "autograph"."""

import logging
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRELUDE = "import numpy as np\nimport autograph as ag\n"


def run_script(tmp_path, body, stdin="", env=None):
    script = tmp_path / "user_script.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    environment = dict(os.environ)
    environment.pop("PYTHONBREAKPOINT", None)  # breakpoint() must enter pdb
    environment.update(env or {})
    environment["PYTHONPATH"] = ROOT + os.pathsep + environment.get("PYTHONPATH", "")
    result = subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True,
                            text=True, timeout=120, cwd=str(tmp_path), env=environment)
    return str(script), PRELUDE.count("\n"), result


def test_pdb_inside_an_ag_function_run_eagerly(tmp_path):
    script, offset, result = run_script(tmp_path, """\
        @ag.function
        def step(x):
            y = x * 2.0
            breakpoint()
            return y + 1.0

        ag.run_functions_eagerly(True)
        print("result", step(np.arange(3.0)))
        """, stdin="p y\np float(x.sum())\nc\n")
    assert result.returncode == 0, result.stderr
    # pdb stops in the user's function, at the line after breakpoint(), in the user's file.
    assert "> %s(%d)step()" % (script, offset + 5) in result.stdout
    assert "-> return y + 1.0" in result.stdout
    assert "(Pdb) array([0., 2., 4.])" in result.stdout
    assert "(Pdb) 3.0" in result.stdout
    assert "result [1. 3. 5.]" in result.stdout


def test_pdb_in_converted_code_lands_in_user_code(tmp_path):
    script, offset, result = run_script(tmp_path, """\
        def count_up(n):
            total = 0
            for i in range(n):
                total = total + i
            import pdb; pdb.set_trace()
            return total

        converted = ag.to_graph(count_up)
        print("result", converted(4))
        """, stdin="p total\nwhere\nc\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "> %s(%d)count_up()" % (script, offset + 6) in out
    assert "-> return total" in out
    assert "(Pdb) 6" in out
    # `where`: the caller's line, then the user's function; no frame of the package between.
    stack = out.split("(Pdb) ", 2)[2].split("(Pdb)")[0]
    assert "%s(%d)<module>()" % (script, offset + 9) in stack
    assert "autograph" + os.sep not in stack and "__autograph_generated_" not in stack
    assert "result 6" in out


# --- verbosity ---------------------------------------------------------------------------------


@pytest.fixture
def verbosity():
    """Sets the verbosity for one test; restores silence afterwards."""
    yield ag.set_verbosity
    ag.set_verbosity(0)


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "autograph"]


def test_level_1_logs_what_is_converted_and_what_is_not(verbosity, caplog):
    def produce(n):
        for i in range(n):
            yield i

    def consume(n):
        return sum(produce(n))

    verbosity(1)
    with caplog.at_level(logging.INFO, logger="autograph"):
        assert ag.to_graph(consume)(3) == 3
    messages = _messages(caplog)
    assert any(m.startswith("Converted") and "consume" in m for m in messages), messages
    assert any("Not converting" in m and "produce" in m and "generators" in m
               for m in messages), messages
    assert not any("def consume" in m for m in messages)  # the code is level 3


def test_level_2_logs_traces_and_cache_hits(verbosity, caplog):
    @ag.function(backend="numpy")
    def traced_twice(x):
        return x * 2.0

    verbosity(2)
    with caplog.at_level(logging.INFO, logger="autograph"):
        traced_twice(np.ones(2))
        traced_twice(np.ones(3))
    messages = [m.replace("traced_twice", "F") for m in _messages(caplog) if "traced_twice" in m]
    assert any(re.search(r"\btrac(e|ed|es|ing)\b", m, re.I) for m in messages), messages
    assert any(re.search(r"\bcache\b", m, re.I) for m in messages), messages


def test_level_2_logs_numba_compiles_and_disk_cache_use(verbosity, caplog):
    @ag.function(backend="numba")
    def running_sum(x):
        total = 0.0
        for i in range(x.shape[0]):
            total += x[i]
        return total

    verbosity(2)
    with caplog.at_level(logging.INFO, logger="autograph"):
        assert running_sum(np.ones(4)) == 4.0
    compiles = [m for m in _messages(caplog) if "compiled by Numba" in m]
    assert len(compiles) == 1, _messages(caplog)
    assert "running_sum" in compiles[0] and "on-disk cache" in compiles[0]


def test_level_3_logs_the_generated_code(verbosity, caplog):
    def clipped(x, limit):
        if x > limit:
            x = limit
        return x

    verbosity(3)
    with caplog.at_level(logging.INFO, logger="autograph"):
        assert ag.to_graph(clipped)(5, 2) == 2
    code = [m for m in _messages(caplog) if "ag__.if_form(" in m]
    assert code and "def clipped(x, limit):" in code[0]


def test_level_0_is_silent(verbosity, caplog):
    def quiet(x):
        return -x if x < 0 else x

    verbosity(0)
    with caplog.at_level(logging.INFO, logger="autograph"):
        assert ag.to_graph(quiet)(-2) == 2
    assert _messages(caplog) == []


def test_alsologtostdout(verbosity, capsys):
    def echoed(x):
        while x > 1:
            x = x // 2
        return x

    verbosity(1, alsologtostdout=True)
    try:
        assert ag.to_graph(echoed)(9) == 1
    finally:
        verbosity(1, alsologtostdout=False)
    out = capsys.readouterr().out
    assert "Converted" in out and "echoed" in out


def test_environment_variable_sets_the_level(tmp_path):
    _, _, result = run_script(tmp_path, """\
        def twice(x):
            return x * 2 if x else 0

        print("result", ag.to_graph(twice)(3))
        """, env={"AUTOGRAPH_VERBOSITY": "1"})
    assert result.returncode == 0, result.stderr
    assert "result 6" in result.stdout
    assert "Converted twice" in result.stderr


def test_environment_variable_unset_is_silent(tmp_path):
    environment = {"AUTOGRAPH_VERBOSITY": "0"}
    _, _, result = run_script(tmp_path, """\
        def twice(x):
            return x * 2 if x else 0

        print("result", ag.to_graph(twice)(3))
        """, env=environment)
    assert result.returncode == 0
    assert result.stderr == ""
