"""Snapshots everything the project generates, to check that a refactoring changes none of it.

    python tools/snapshot_generated.py record OUT [--no-tests] [--no-stdlib] [-k EXPR]
    python tools/snapshot_generated.py compare OLD NEW

`record` writes, into the directory OUT, one text file per kind of output:

  conversions.txt   every function converted while the test suite runs, while the
                    standard-library modules of tools/stdlib_conformance.py are converted,
                    and while the examples run: the generated module's source, its code
                    object (bytecode, line table, positions, exception table, constants,
                    names, recursively) and its source map;
  graphs.txt        the printed IR of every graph traced in those runs;
  numba.txt         the Numba source generated for every graph compiled in those runs;
  cli.txt           `autograph FILE:FN --graph --numba-source` for each example.

Each file is sorted by entry, so the order in which tests run does not matter; paths of the
checkout and of the cache directory are replaced by `<root>` and `<cache>`, so two checkouts
in different directories compare equal. Run it with the same Python, NumPy and Numba, and
with PYTHONHASHSEED set (the tool sets it to 0 and re-executes itself if it is not set).

`compare` prints, per file, how many distinct entries are only in OLD or only in NEW, and the first
differing entries as a diff; it exits with status 1 when anything differs.
"""

import argparse
import collections
import difflib
import io
import os
import re
import subprocess
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("conversions", "graphs", "numba", "cli")
EXAMPLES = (
    ("dtw.py:dtw_distance", ["float64[120]", "float64[100]", "30"]),
    ("greedy_decode.py:greedy_decode",
     ["float64[16]", "float64[12,16]", "float64[16,16]", "float64[16,16]", "float64[12,16]",
      "40"]),
    ("kmeans.py:kmeans", ["float64[300,2]", "float64[4,2]", "20"]),
    ("pagerank.py:pagerank", ["float64[64,64]", "0.85", "1e-9", "100"]),
    ("rnn.py:rnn_classify",
     ["float64[50,16,8]", "float64[32,16]", "float64[32,32]", "float64[32,1]",
      "float64[4,32]"]),
)


def _code_text(code, indent=""):
    """Everything that makes two code objects behave (and report errors) alike."""
    lines = [f"{indent}code {code.co_qualname} ({code.co_name}) flags={code.co_flags:#x} "
             f"args={code.co_argcount}/{code.co_posonlyargcount}/{code.co_kwonlyargcount} "
             f"stack={code.co_stacksize} firstline={code.co_firstlineno}",
             f"{indent}  file {code.co_filename}",
             f"{indent}  bytecode {code.co_code.hex()}",
             f"{indent}  linetable {code.co_linetable.hex()}",
             f"{indent}  exceptiontable {code.co_exceptiontable.hex()}",
             f"{indent}  positions {list(code.co_positions())}",
             f"{indent}  names {code.co_names} varnames {code.co_varnames}",
             f"{indent}  freevars {code.co_freevars} cellvars {code.co_cellvars}"]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            lines.append(_code_text(const, indent + "  "))
        else:
            lines.append(f"{indent}  const {const!r}")
    return "\n".join(lines)


class _Recorder:
    """Wraps the transpiler and the executors' generators to record what they produce."""

    def __init__(self):
        self.entries = {kind: [] for kind in KINDS}

    def install(self):
        from autograph.pyct import transpiler
        from runtime import trace

        recorder = self
        convert_node = transpiler.PyToPy._convert_node

        def recording_convert_node(self, fn, found, user_context):
            conversion = convert_node(self, fn, found, user_context)
            # io.open: a test may replace builtins.open and count its calls.
            with io.open(conversion.module.__file__, encoding="utf-8") as f:
                source = f.read()
            source_map = "\n".join(
                f"  {key} -> {value.loc} {value.function_name!r} {value.source_code_line!r}"
                for key, value in sorted((conversion.source_map or {}).items()))
            recorder.entries["conversions"].append(
                f"=== {fn.__module__}:{fn.__qualname__}\n{source}\n"
                f"{_code_text(conversion.code)}\nsource map\n{source_map}\n")
            return conversion

        transpiler.PyToPy._convert_node = recording_convert_node

        concrete_init = trace.ConcreteFunction.__init__

        def recording_init(self, graph, *args, **kwargs):
            concrete_init(self, graph, *args, **kwargs)
            recorder.entries["graphs"].append(f"=== {graph.name}\n{graph}\n")

        trace.ConcreteFunction.__init__ = recording_init

        module = _numba_codegen_module()
        generate_source = module.generate_source

        def recording_generate_source(graph, *args, **kwargs):
            result = generate_source(graph, *args, **kwargs)
            recorder.entries["numba"].append(f"=== {graph.name}\n{result[0]}\n")
            return result

        module.generate_source = recording_generate_source


def _numba_codegen_module():
    """The module defining `generate_source` (it moved in the redesign of issue 14)."""
    import importlib
    for name in ("runtime.executors.numba.codegen", "runtime.executors.numba_exec"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "generate_source"):
            return module
    raise ImportError("no module of the Numba backend defines generate_source")


_VARIABLE_PARTS = (
    (re.compile(r"/tmp/pytest-of-[^/]+/pytest-\d+/"), "<pytest tmp>/"),
    (re.compile(r"__autograph_generated_[0-9a-f]{32}"), "__autograph_generated_<hash>"),
)


def _normalise(text, cache_dir):
    text = text.replace(cache_dir, "<cache>").replace(ROOT, "<root>")
    for pattern, replacement in _VARIABLE_PARTS:
        text = pattern.sub(replacement, text)
    # The support module's hash and location are the generated code's cache key, not its
    # behaviour; the backend's files moved in issue 14.
    lines = []
    for line in text.split("\n"):
        if line.startswith("# support "):
            line = "# support <hash>"
        elif line.startswith('"""Generated by runtime/executors/'):
            line = '"""Generated by runtime/executors/<numba backend> ..."""'
        elif line.startswith("from runtime.executors") and line.endswith(" as _rt"):
            line = "from <numba support module> import ... as _rt"
        lines.append(line)
    return "\n".join(lines)


def _stdlib_conversions():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import stdlib_conformance
    for spec in stdlib_conformance.DEFAULT_MODULES:
        stdlib_conformance.convert_module(spec.split(":")[0])


def _cli_outputs():
    from autograph import cli
    outputs = []
    for target, args in EXAMPLES:
        argv = [os.path.join(ROOT, "examples", target), "--graph", "--numba-source",
                "--color", "never"]
        for arg in args:
            argv += ["--arg", arg]
        out = io.StringIO()
        saved = sys.stdout
        sys.stdout = out
        try:
            status = cli.main(argv)
        finally:
            sys.stdout = saved
        outputs.append(f"=== autograph {target} --graph --numba-source (exit {status})\n"
                       f"{out.getvalue()}\n")
    return outputs


def record(out_dir, run_tests=True, run_stdlib=True, test_filter=None):
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        return subprocess.call([sys.executable] + sys.argv, env=env)
    sys.path.insert(0, ROOT)
    from tools.scratch import scratch_dir
    cache_dir = scratch_dir("autograph-snapshot-")
    os.environ["AUTOGRAPH_CACHE_DIR"] = cache_dir
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    recorder = _Recorder()
    recorder.install()
    if run_tests:
        import pytest
        args = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", os.path.join(ROOT, "tests")]
        if test_filter:
            args += ["-k", test_filter]
        status = pytest.main(args)
        print(f"pytest exit status {status}")
    if run_stdlib:
        _stdlib_conversions()
    recorder.entries["cli"] = _cli_outputs()
    os.makedirs(out_dir, exist_ok=True)
    for kind, entries in recorder.entries.items():
        texts = sorted(_normalise(entry, cache_dir) for entry in entries)
        with open(os.path.join(out_dir, kind + ".txt"), "w", encoding="utf-8") as f:
            f.write("".join(texts))
        print(f"{kind}: {len(texts)} entries")
    return 0


def _entries(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for pattern, replacement in _VARIABLE_PARTS:  # also for snapshots recorded without them
        text = pattern.sub(replacement, text)
    return collections.Counter("=== " + part for part in text.split("=== ")[1:])


def compare(old_dir, new_dir, shown=3):
    differs = False
    for kind in KINDS:
        old = _entries(os.path.join(old_dir, kind + ".txt"))
        new = _entries(os.path.join(new_dir, kind + ".txt"))
        # Distinct entries decide: how often one function is converted can vary between runs
        # (tests that race threads to convert one function).
        only_old, only_new = set(old) - set(new), set(new) - set(old)
        print(f"{kind}: {len(old)} vs {len(new)} distinct entries; "
              f"{len(only_old)} only in old, {len(only_new)} only in new")
        if not (only_old or only_new):
            continue
        differs = True
        new_by_title = {entry.split("\n", 1)[0]: entry for entry in only_new}
        for entry in list(only_old)[:shown]:
            title = entry.split("\n", 1)[0]
            other = new_by_title.get(title, "")
            sys.stdout.writelines(difflib.unified_diff(
                entry.splitlines(True), other.splitlines(True), "old", "new", n=2))
            sys.stdout.flush()
    return 1 if differs else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record")
    rec.add_argument("out")
    rec.add_argument("--no-tests", action="store_true")
    rec.add_argument("--no-stdlib", action="store_true")
    rec.add_argument("-k", dest="test_filter")
    cmp_ = commands.add_parser("compare")
    cmp_.add_argument("old")
    cmp_.add_argument("new")
    options = parser.parse_args(argv)
    if options.command == "record":
        return record(options.out, not options.no_tests, not options.no_stdlib,
                      options.test_filter)
    return compare(options.old, options.new)


if __name__ == "__main__":
    sys.exit(main())
