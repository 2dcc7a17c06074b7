"""What the command shows, in this order: the converted source or a diff, then for the --arg
inputs the traced graph, its Numba source, its picture, and the results of running it."""

import difflib
import inspect
import io
import os
import shutil
import statistics
import subprocess
import textwrap
import time

from autograph.cli import inputs as inputs_module
from autograph.cli import render
from autograph.cli.errors import UsageError, one_line
from autograph.cli.resolve import resolve_function


def show(options, out):
    """Prints every output `options` asks for to `out`; returns the exit status."""
    fn = resolve_function(options.function)
    if options.verbosity is not None:
        from autograph.core import ag_logging
        ag_logging.set_verbosity(options.verbosity)
    colour = render.use_colour(options.color, out)
    wants_graph = options.graph or options.numba_source or options.dot or options.run
    if options.arg and not wants_graph:
        raise UsageError("--arg is only used with --graph, --numba-source, --dot or --run")
    inputs = inputs_module.make_inputs(options.arg, options.seed) if wants_graph else []
    if options.repeat < 0:
        raise UsageError("--repeat must be 0 or more")
    if options.dot_depth is not None and options.dot_depth < 0:
        raise UsageError("--dot-depth must be 0 or more")
    if wants_graph:
        inputs_module.check_arity(fn, inputs)

    show_source = not (options.diff or wants_graph)
    if show_source:
        render.emit(converted_source(fn, options.recursive), out, colour, render.colour_python)
    if options.diff:
        render.emit(diff(fn, options.recursive), out, colour, render.colour_diff)
    if not wants_graph:
        return 0
    staged = stage(fn, options.backend)
    run_report = io.StringIO()
    if options.run:
        # First, so that the first call's time includes tracing and compiling.
        run_function(staged, inputs, options.repeat, run_report)
    graph = staged.get_concrete_function(*inputs).graph
    if options.graph:
        out.write(str(graph) + "\n")
    if options.numba_source:
        render.emit(numba_source(graph), out, colour, render.colour_python)
    if options.dot:
        write_dot(graph, options.dot, out, options.dot_depth)
    out.write(run_report.getvalue())
    return 0


def converted_source(fn, recursive):
    """What ag.to_code returns for `fn`."""
    from autograph.impl import api
    return api.to_code(fn, recursive=recursive)


def diff(fn, recursive):
    """A unified diff from `fn`'s source to its converted source ('(no changes)' if none)."""
    original = _original_source(fn)
    converted = converted_source(fn, recursive)
    filename = inspect.getsourcefile(fn) or fn.__qualname__
    text = "".join(difflib.unified_diff(
        original.splitlines(keepends=True), converted.splitlines(keepends=True),
        fromfile="%s (original)" % filename, tofile="%s (converted)" % fn.__qualname__))
    return text or "(no changes)\n"


def _original_source(fn):
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as error:
        raise UsageError("cannot read the source of %s: %s" % (fn.__qualname__, error)) from None


def stage(fn, backend):
    """`fn` converted and staged on `backend` (ag.function)."""
    from autograph.impl import function as function_module
    return function_module.function(fn, backend=backend)


def numba_source(graph):
    """The source the Numba executor generates for `graph` (raises UsageError if none)."""
    from runtime.executors.numba import codegen
    try:
        source, _ = codegen.generate_source(graph)
    except Exception as error:
        detail = "; ".join(codegen.unsupported_report(graph))
        raise UsageError("--numba-source: this graph cannot be lowered to Numba: %s"
                         % one_line(detail or error)) from None
    return source


def write_dot(graph, path, out, depth=None):
    """Writes the picture of `graph` (bodies `depth` levels deep; None: as deep as fits) to
    `path`; renders it with Graphviz when asked and found."""
    from runtime import graph_dot

    dot_text = graph_dot.graph_to_dot(graph, depth)
    base, extension = os.path.splitext(path)
    extension = extension.lower().lstrip(".")
    if extension in ("dot", "gv", ""):
        _write_text(path, dot_text)
        print("wrote %s" % path, file=out)
        return
    if extension not in ("svg", "png", "pdf"):
        raise UsageError("--dot %s: use a .dot, .gv, .svg, .png or .pdf file name" % path)
    dot_binary = shutil.which("dot")
    dot_path = base + ".dot"
    if dot_binary is None:
        _write_text(dot_path, dot_text)
        print("Graphviz `dot` is not installed: wrote %s instead of %s (render it with "
              "`dot -T%s %s -o %s`)" % (dot_path, path, extension, dot_path, path), file=out)
        return
    result = subprocess.run([dot_binary, "-T" + extension, "-o", path], input=dot_text,
                            text=True, capture_output=True)
    if result.returncode != 0:
        _write_text(dot_path, dot_text)
        raise UsageError("dot failed (%s); the DOT text is in %s"
                         % (one_line(result.stderr.strip() or result.returncode), dot_path))
    print("wrote %s" % path, file=out)


def _write_text(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as error:
        raise UsageError("cannot write %s: %s" % (path, error.strerror or error)) from None


def run_function(staged, inputs, repeat, out):
    """Calls `staged` on copies of `inputs`, 1 + `repeat` times; prints results and timings."""
    import copy

    start = time.perf_counter()
    result = staged(*copy.deepcopy(inputs))
    first = time.perf_counter() - start
    times = []
    for _ in range(max(repeat, 0)):
        call_inputs = copy.deepcopy(inputs)  # a function that mutates its inputs sees fresh ones
        start = time.perf_counter()
        staged(*call_inputs)
        times.append(time.perf_counter() - start)
    results = result if isinstance(result, tuple) else (result,)
    for i, value in enumerate(results):
        label = "result" if len(results) == 1 else "result[%d]" % i
        print("%s = %s" % (label, render.format_result(value)), file=out)
    print("first call (convert + trace + compile): %s" % render.seconds(first), file=out)
    if times:
        print("later calls: median %s over %d calls (min %s)"
              % (render.seconds(statistics.median(times)), len(times),
                 render.seconds(min(times))), file=out)
    trace_count = getattr(staged, "trace_count", None)
    if trace_count is not None:
        print("traces: %d" % trace_count, file=out)
