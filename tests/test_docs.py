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

# A fence may be indented (a block inside a list item); its body is dedented as much.
_FENCE = re.compile(r"^([ \t]*)```([^\n`]*)\n(.*?)^\1```[ \t]*$", re.MULTILINE | re.DOTALL)


def blocks_of(text):
    """[(info string, body, line number of the opening fence)]."""
    blocks = []
    for match in _FENCE.finditer(text):
        indent, info, body = match.groups()
        if indent:
            body = "".join(line[len(indent):] if line.startswith(indent) else line.lstrip()
                           for line in body.splitlines(keepends=True))
        blocks.append((info.strip(), body, text.count("\n", 0, match.start()) + 1))
    return blocks


def matches(expected, actual):
    """True when `actual` is `expected`, where `...` in `expected` matches any text."""
    def normal(text):
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())

    pattern = ".*?".join(re.escape(part) for part in normal(expected).split("..."))
    return re.fullmatch(pattern, normal(actual), re.DOTALL) is not None


@pytest.fixture
def quiet_and_staged():
    """Examples may change global switches; each doc starts and ends with the defaults."""
    import autograph as ag
    yield
    ag.set_verbosity(0)
    ag.run_functions_eagerly(False)


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
            # What the console script runs, in this process (fast; the console script and
            # `python -m autograph` themselves are tested in tests/test_cli.py).
            from autograph import cli
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                cli.main(argv[1:], prog="autograph")
            output = out.getvalue() + err.getvalue()
        elif argv[:3] == ["python", "-m", "autograph"]:
            result = subprocess.run([sys.executable] + argv[1:], cwd=cwd, capture_output=True,
                                    text=True, timeout=120,
                                    env=dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1"))
            output = result.stdout + result.stderr
        else:
            raise AssertionError("%s: only autograph commands run in docs: %s" % (where, command))
        expected = "\n".join(expected_lines)
        assert matches(expected, output), (
            "%s: `%s` printed:\n%s\nexpected:\n%s" % (where, command, output, expected))


@pytest.mark.parametrize("doc", DOC_FILES)
def test_doc_examples(doc, tmp_path, monkeypatch, quiet_and_staged):
    path = os.path.join(DOCS, doc)
    with open(path) as f:
        blocks = blocks_of(f.read())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path)] + sys.path)
    modules_before = set(sys.modules)
    try:
        _run_doc(doc, blocks, tmp_path)
    finally:
        for name in set(sys.modules) - modules_before:  # the docs' own files, e.g. model.py
            if str(tmp_path) in (getattr(sys.modules[name], "__file__", None) or ""):
                del sys.modules[name]


def _run_doc(doc, blocks, tmp_path):
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


def test_indented_blocks_are_found():
    text = "1. step\n\n   ```python\n   print(1)\n   ```\n\n   ```text\n   1\n   ```\n"
    assert blocks_of(text) == [("python", "print(1)\n", 3), ("text", "1\n", 7)]


def test_ellipsis_matching():
    assert matches("a ... c", "a b b c")
    assert matches("first\n...\nlast", "first\nx\ny\nlast")
    assert not matches("a ... c", "a b d")
    assert not matches("exact", "exact but longer")


def test_every_doc_is_tested():
    assert DOC_FILES, "docs/ has no Markdown files"


# `path/to/module.py`, `package/`, `module.py` in backquotes (not `<placeholders>`).
_FILE_MENTION = re.compile(r"`([\w./]*\w\.py|[\w./]*\w/)`")


def file_mentions(text):
    return sorted(set(_FILE_MENTION.findall(text)))


def test_file_mentions_are_found():
    text = "`pyct/parser.py` and `ops/<family>.py`, `runtime/`, `x + 1`, `loader.py` (`a.b`)"
    assert file_mentions(text) == ["loader.py", "pyct/parser.py", "runtime/"]


def test_the_architecture_names_only_files_that_exist():
    """docs/architecture.md describes the code as it is: every file or folder it names is
    in the repository (named from the root, or by its trailing path parts)."""
    paths = set()
    for directory, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__")) and d != "build"]
        relative = os.path.relpath(directory, ROOT)
        paths.update(os.path.join(relative, d) + "/" for d in dirs)
        paths.update(os.path.join(relative, f) for f in files)
    paths = {p[2:] if p.startswith("./") else p for p in paths}
    with open(os.path.join(DOCS, "architecture.md")) as f:
        mentions = file_mentions(f.read())
    missing = [m for m in mentions
               if not any(p == m or p.endswith("/" + m) for p in paths)]
    assert mentions and missing == []
