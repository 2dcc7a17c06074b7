"""Errors from code typed into IPython or Jupyter name the cell as IPython does ("Cell In[7],
line 3"), not the made-up file the kernel compiled the cell under.

IPython compiles each cell under a file name of its own (`<ipython-input-7-...>`; ipykernel:
`/tmp/ipykernel_<pid>/<hash>.py`), puts the cell's lines in linecache under that name, and
its compiler's `format_code_name(name)` gives the label its tracebacks show. The tests run
cells the same way with a stand-in for IPython (so they run without it), and once with the
real IPython when it is installed.
"""

import linecache
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import autograph as ag
from autograph.errors import tracebacks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Compiler:
    """IPython's CachingCompiler, as far as naming cells goes."""

    def __init__(self):
        self.filename_map = {}

    def format_code_name(self, name):
        if name in self.filename_map:
            return "Cell", "In[%s]" % self.filename_map[name]
        return None


@pytest.fixture
def run_cell(monkeypatch):
    """run_cell(source, number) -> the cell's namespace, run as ipykernel runs a cell."""
    shell = types.SimpleNamespace(compile=_Compiler())
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    names = []
    namespace = {"np": np, "ag": ag, "__name__": "__main__"}

    def run(source, number):
        source = textwrap.dedent(source)
        name = "/tmp/ipykernel_4242/%d.py" % (abs(hash(source)) % 10 ** 8)
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        shell.compile.filename_map[name] = number
        names.append(name)
        exec(compile(source, name, "exec"), namespace)
        return namespace

    yield run
    for name in names:
        linecache.cache.pop(name, None)


def test_a_conversion_error_names_the_cell(run_cell):
    cell = run_cell('''
        @ag.function(backend="numpy")
        def scaled(x):
            if x[0] > 0:
                y = x * 2.0
            return y
        ''', 7)
    with pytest.raises(UnboundLocalError) as info:
        with tracebacks.rewriting_errors():
            cell["scaled"](-np.ones(3))   # y is not defined on this path
    message = str(info.value)
    assert "the if statement at Cell In[7], line 4 in scaled" in message
    assert "created at Cell In[7], line 6 in scaled" in message   # the read of y
    assert "ipykernel_4242" not in message


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_graph_failure_names_the_cell(run_cell, backend):
    cell = run_cell('''
        def product(a, b):
            c = a * 2.0
            return np.dot(c, b)
        ''', 3)
    staged = ag.function(cell["product"], backend=backend)
    with pytest.raises(ValueError) as info:
        staged(np.ones(3), np.ones(4))
    assert info.value.__notes__[-1].endswith("created at Cell In[3], line 4 in product")


def test_a_refusal_names_the_cell(run_cell):
    cell = run_cell('''
        def positives(x):
            return x[0].item() + 1.0
        ''', 12)
    with pytest.raises(TypeError) as info:
        ag.function(cell["positives"], backend="numpy")(np.ones(3))
    assert "needs it at Cell In[12], line 3 in positives" in str(info.value)


def test_names_outside_cells_stay_file_names(run_cell):
    from runtime import errors
    assert errors.format_location((__file__, 3, "f")) == "%s:3 in f" % __file__
    assert errors.cell_name(__file__) is None


_IPYTHON_SESSION = r'''
import numpy as np
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
cells = ["import numpy as np\nimport autograph as ag",
         "@ag.function(backend='numpy')\ndef scaled(x):\n    if x[0] > 0:\n        y = x * 2.0\n"
         "    return y",
         "scaled(-np.ones(3))"]   # y is not defined on this path
for cell in cells:
    result = shell.run_cell(cell, store_history=True)
print("MESSAGE:", str(result.error_in_exec).replace("\n", "|"))
'''


def test_with_ipython_itself():
    pytest.importorskip("IPython")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", _IPYTHON_SESSION], capture_output=True,
                          text=True, env=env, timeout=120)
    message = [line for line in done.stdout.splitlines() if line.startswith("MESSAGE:")]
    assert message, done.stdout + done.stderr
    assert "the if statement at Cell In[2], line 3 in scaled" in message[0]
    assert "ipython-input" not in message[0]
