"""Every example in docs/*.md runs, and prints what the docs say it prints.

Conventions of the Markdown files:
- ```python blocks run in order, in one namespace per file, with the file's directory (a
  fresh temporary directory) as the working directory. Each block is saved as a real file
  first, so functions defined in it have source (conversion needs it).
- A ```text block right after a ```python block is the output it must print; a
  ```console block holds `$ command` lines (the `autograph` command only) followed by
  their expected output. In expected output, `...` matches any text (as doctest's
  ELLIPSIS), and trailing spaces are ignored.
- ```python file=NAME blocks are not run: they are written to NAME in the working
  directory, for the console examples to use.
- Any other block (```bash, no language) is not run; docs keep those for non-examples.
"""

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
DOC_FILES = sorted(name for name in os.listdir(DOCS) if name.endswith(".md")) if os.path.isdir(
    DOCS) else []

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def blocks_of(text):
    """[(info string, body, line number of the opening fence)]."""
    return [(m.group(1).strip(), m.group(2), text.count("\n", 0, m.start()) + 1)
            for m in _FENCE.finditer(text)]


def matches(expected, actual):
    """True when `actual` is `expected`, where `...` in `expected` matches any text."""
    def normal(text):
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())

    pattern = ".*?".join(re.escape(part) for part in normal(expected).split("..."))
    return re.fullmatch(pattern, normal(actual), re.DOTALL) is not None


@pytest.fixture
def public_api(monkeypatch):
    """The public names the docs use, if autograph/__init__.py does not export them yet
    (the same objects it will export)."""
    import autograph
    from autograph.core import ag_logging, errors
    from autograph.impl import api, function

    names = dict(
        function=function.function, to_graph=api.to_graph, to_code=api.to_code,
        convert=api.convert, do_not_convert=api.do_not_convert,
        run_functions_eagerly=function.run_functions_eagerly,
        functions_run_eagerly=function.functions_run_eagerly,
        set_verbosity=ag_logging.set_verbosity, set_loop_options=api.set_loop_options,
        AutoGraphError=errors.AutoGraphError, ConversionError=errors.ConversionError,
        StagingError=errors.StagingError)
    for name, value in names.items():
        if not hasattr(autograph, name):
            monkeypatch.setattr(autograph, name, value, raising=False)
    yield
    ag_logging.set_verbosity(0)
    function.run_functions_eagerly(False)


def _run_console(body, cwd, where):
    commands = []
    for line in body.splitlines():
        if line.startswith("$ "):
            commands.append([line[2:], []])
        elif commands:
            commands[-1][1].append(line)
        else:
            raise AssertionError("%s: console block must start with '$ '" % where)
    for command, expected_lines in commands:
        argv = shlex.split(command)
        if argv[0] == "autograph":
            # What the console script runs (it may not be installed in this environment).
            argv = [sys.executable, "-c", "import sys; from autograph.cli import main; "
                    "sys.exit(main(prog='autograph'))"] + argv[1:]
        elif argv[:3] == ["python", "-m", "autograph"]:
            argv = [sys.executable] + argv[1:]
        else:
            raise AssertionError("%s: only autograph commands run in docs: %s" % (where, command))
        environment = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + cwd, NO_COLOR="1")
        result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120,
                                env=environment)
        output = result.stdout + result.stderr
        expected = "\n".join(expected_lines)
        assert matches(expected, output), (
            "%s: `%s` printed:\n%s\nexpected:\n%s" % (where, command, output, expected))


@pytest.mark.parametrize("doc", DOC_FILES)
def test_doc_examples(doc, tmp_path, monkeypatch, public_api):
    path = os.path.join(DOCS, doc)
    with open(path) as f:
        blocks = blocks_of(f.read())
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace = {"__name__": "docs_" + re.sub(r"\W", "_", doc[:-3])}
    ran = 0
    for index, (info, body, line) in enumerate(blocks):
        where = "%s:%d" % (doc, line)
        if info.startswith("python") and "file=" in info:
            name = info.split("file=", 1)[1].split()[0]
            (tmp_path / name).write_text(body)
            continue
        if info == "console":
            _run_console(body, str(tmp_path), where)
            ran += 1
            continue
        if info != "python":
            continue
        source_file = tmp_path / ("%s_block%d.py" % (doc[:-3].replace("-", "_"), index))
        source_file.write_text(body)
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            exec(compile(body, str(source_file), "exec"), namespace)
        ran += 1
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if following is not None and following[0] == "text":
            assert matches(following[1], output.getvalue()), (
                "%s printed:\n%s\nexpected:\n%s" % (where, output.getvalue(), following[1]))
    assert ran, "%s has no runnable example" % doc


def test_ellipsis_matching():
    assert matches("a ... c", "a b b c")
    assert matches("first\n...\nlast", "first\nx\ny\nlast")
    assert not matches("a ... c", "a b d")
    assert not matches("exact", "exact but longer")


def test_every_doc_is_tested():
    assert DOC_FILES, "docs/ has no Markdown files"
