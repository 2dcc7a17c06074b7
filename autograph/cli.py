"""The `autograph` command (also `python -m autograph`): convert a function from a file or
module and show its converted source, a diff, its traced graph (text, Numba source or a
Graphviz picture), or run it on sample inputs with timings."""

import argparse
import ast
import difflib
import importlib
import importlib.util
import inspect
import io
import keyword
import os
import re
import shutil
import statistics
import subprocess
import sys
import textwrap
import time
import tokenize

DESCRIPTION = """\
Convert a Python function with autograph and inspect the result.

FUNCTION names the function to convert, as

  path/to/file.py:qualname     a function in a source file (the file is imported as a
                               module whose __name__ is the file's stem, so code under
                               `if __name__ == "__main__":` does not run)
  package.module:qualname      a function in an importable module (the current directory
                               is on the import path)

qualname may be dotted to reach a method (Model.forward) or a function stored on an
object. An @ag.function-decorated object stands for the Python function it decorates.

By default the converted source is printed (what ag.to_code returns). The other outputs:

  --diff             unified diff from the original source to the converted source
  --graph            the graph traced for the inputs given with --arg
  --numba-source     the Python source the Numba executor generates for that graph
  --dot FILE         the graph as a Graphviz picture: loop and branch bodies are drawn as
                     nested clusters. FILE.dot/.gv: DOT text; FILE.svg/.png/.pdf: rendered
                     by Graphviz's `dot` when it is installed (else FILE.dot is written and
                     the command says so)
  --run              call the traced function on the --arg inputs with --backend, print
                     the results and the time of the first call (convert + trace +
                     compile) and of later calls (median over --repeat calls)

Several outputs may be combined; they are printed in the order listed above.

Inputs (--arg, one per positional parameter, in order):

  DTYPE[d0,d1,...]   a NumPy array of that dtype and shape filled with deterministic
                     sample values (see --seed): float64[3,4], int32[10], bool[5]
  DTYPE[]            a NumPy scalar of that dtype: float64[], int64[]
  LITERAL            any Python literal, passed as it is: 3, 2.5, True, "name", (2, 3)

  Sample values: floats and complex numbers are standard normal, integers are in
  [0, 10), booleans are random; the same --seed gives the same values.

Output is coloured when it goes to a terminal (--color). Bad input (a missing file, a
name that is not a function, a malformed --arg) gives a one-line error and exit status 2;
an error raised by the function itself while tracing or running gives exit status 1.
"""

EPILOG = """\
examples:
  autograph examples/rnn.py:rnn_forward
  autograph --diff mypkg.layers:Dense.__call__
  autograph model.py:step --graph --arg float64[8,3] --arg int64[]
  autograph model.py:step --run --backend numba --arg float64[1000] --arg 3
  autograph model.py:step --dot step.svg --arg float64[8,3] --arg int64[]
  python -m autograph --help
"""

EXIT_BAD_INPUT = 2
EXIT_FUNCTION_FAILED = 1


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


# --- finding the function --------------------------------------------------------------------


def _import_file(path):
    if not os.path.exists(path):
        raise UsageError("no such file: %s" % path)
    if not os.path.isfile(path):
        raise UsageError("not a file: %s" % path)
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)  # the file's own imports of its neighbours work
    name = os.path.splitext(os.path.basename(path))[0]
    existing = sys.modules.get(name)
    if existing is not None:
        if os.path.abspath(getattr(existing, "__file__", "") or "") == path:
            return existing
        name = "__autograph_cli__" + re.sub(r"\W", "_", name)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError("cannot import %s (is it a Python source file?)" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as error:
        del sys.modules[name]
        if isinstance(error, KeyboardInterrupt):
            raise
        raise UsageError("importing %s failed: %s: %s"
                         % (path, type(error).__name__, _one_line(error))) from None
    return module


def _import_module(name):
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and name.startswith(error.name):
            raise UsageError("no module named %r (give a file as path/to/file.py:name, or "
                             "run from the directory that contains the package)"
                             % error.name) from None
        raise UsageError("importing %s failed: ModuleNotFoundError: %s"
                         % (name, _one_line(error))) from None
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        raise UsageError("importing %s failed: %s: %s"
                         % (name, type(error).__name__, _one_line(error))) from None


def _describe(obj):
    if inspect.isclass(obj):
        return "a class"
    if inspect.ismodule(obj):
        return "a module"
    name = type(obj).__name__
    return "%s %s object" % ("an" if name[:1].lower() in "aeiou" else "a", name)


def resolve_function(target):
    """The Python function named by `target` ('file.py:qualname' or 'module:qualname')."""
    location, sep, qualname = target.rpartition(":")
    if not sep or not location or not qualname:
        raise UsageError("expected path/to/file.py:qualname or package.module:qualname, got %r"
                         % target)
    if location.endswith(".py") or os.sep in location or "/" in location:
        module = _import_file(location)
    else:
        module = _import_module(location)
    obj = module
    walked = []
    for part in qualname.split("."):
        if not part.isidentifier():
            raise UsageError("%r is not a valid qualified name" % qualname)
        try:
            obj = inspect.getattr_static(obj, part) if inspect.isclass(obj) else getattr(
                obj, part)
        except AttributeError:
            where = ".".join(walked) or module.__name__
            raise UsageError("%s has no attribute %r" % (where, part)) from None
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        walked.append(part)
    # An ag.function (or rt.function) object stands for the function it decorates.
    python_function = getattr(obj, "python_function", None)
    if python_function is not None and not inspect.isclass(obj):
        obj = python_function
    if isinstance(obj, property):
        raise UsageError("%s is a property; give its getter's function instead" % qualname)
    if inspect.ismethod(obj):
        obj = obj.__func__
    if not inspect.isfunction(obj):
        raise UsageError("%s is %s, not a function (give a function or a method, e.g. "
                         "Model.forward)" % (qualname, _describe(obj)))
    return obj


# --- inputs ----------------------------------------------------------------------------------

_ARRAY_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[([^\]]*)\]\s*$")


def parse_arg(text, rng):
    """A sample input from a --arg spec (see --help); raises UsageError when malformed."""
    import numpy as np

    match = _ARRAY_SPEC.match(text)
    if match:
        dtype_name, dims_text = match.groups()
        try:
            dtype = np.dtype(dtype_name)
        except TypeError:
            raise UsageError("--arg %s: unknown dtype %r (use e.g. float64, float32, int64, "
                             "int32, bool)" % (text, dtype_name)) from None
        dims = [d.strip() for d in dims_text.split(",")] if dims_text.strip() else []
        if any(not d.isdigit() for d in dims):
            raise UsageError("--arg %s: dimensions must be non-negative integers separated "
                             "by commas, e.g. float64[3,4]" % text)
        shape = tuple(int(d) for d in dims)
        return _sample(dtype, shape, rng)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise UsageError("--arg %s: not DTYPE[dims] (e.g. float64[3,4], int64[]) nor a Python "
                         "literal (e.g. 3, 2.5, True, 'text')" % text) from None


def _sample(dtype, shape, rng):
    import numpy as np

    kind = dtype.kind
    if kind == "b":
        values = rng.random(shape) < 0.5
    elif kind in "iu":
        values = rng.integers(0, 10, size=shape)
    elif kind == "f":
        values = rng.standard_normal(shape)
    elif kind == "c":
        values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        raise UsageError("dtype %s is not supported for sample inputs (use a bool, integer, "
                         "float or complex dtype)" % dtype)
    values = np.asarray(values).astype(dtype)
    if shape == ():
        return values[()]  # a NumPy scalar
    return values


def make_inputs(specs, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    return [parse_arg(spec, rng) for spec in specs]


# --- colouring -------------------------------------------------------------------------------

_RESET = "\033[0m"
_STYLES = {
    "keyword": "\033[1;34m",     # bold blue
    "builtin": "\033[36m",       # cyan
    "string": "\033[32m",        # green
    "number": "\033[35m",        # magenta
    "comment": "\033[2;37m",     # dim grey
    "generated": "\033[33m",     # yellow: the ag__ overloads and generated helpers
    "definition": "\033[1m",     # bold: names being defined
}
_BUILTINS = frozenset(name for name in dir(__import__("builtins")) if not name.startswith("_"))


def colour_python(source):
    """`source` with ANSI colours, token by token (the stdlib tokenizer; no dependency)."""
    lines = source.splitlines(keepends=True)
    out = []
    row, column = 1, 0
    previous_name = None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    for token in tokens:
        (start_row, start_col), (end_row, end_col) = token.start, token.end
        if token.type == tokenize.ENDMARKER:
            break
        # Copy the text between tokens (spaces, line continuations) as it is.
        out.append(_slice(lines, (row, column), (start_row, start_col)))
        text = _slice(lines, (start_row, start_col), (end_row, end_col))
        style = _token_style(token, previous_name)
        out.append(_STYLES[style] + text + _RESET if style and text else text)
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                              tokenize.INDENT, tokenize.DEDENT):
            previous_name = token.string if token.type == tokenize.NAME else None
        row, column = end_row, end_col
    out.append(_slice(lines, (row, column), (len(lines) + 1, 0)))
    return "".join(out)


def _slice(lines, start, end):
    (start_row, start_col), (end_row, end_col) = start, end
    if start_row > len(lines):
        return ""
    if start_row == end_row:
        return lines[start_row - 1][start_col:end_col]
    parts = [lines[start_row - 1][start_col:]]
    parts.extend(lines[start_row:end_row - 1])
    if end_row <= len(lines):
        parts.append(lines[end_row - 1][:end_col])
    return "".join(parts)


def _token_style(token, previous_name):
    if token.type == tokenize.COMMENT:
        return "comment"
    if token.type == tokenize.STRING:
        return "string"
    if token.type == tokenize.NUMBER:
        return "number"
    if token.type == tokenize.NAME:
        name = token.string
        if keyword.iskeyword(name) or keyword.issoftkeyword(name) and name != "_":
            return "keyword"
        if previous_name in ("def", "class"):
            return "definition"
        if name.startswith("ag__"):
            return "generated"
        if name in _BUILTINS:
            return "builtin"
    return None


def colour_diff(diff_text):
    """A unified diff with removed lines red, added lines green and hunk headers cyan."""
    out = []
    for line in diff_text.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append("\033[1m" + line.rstrip("\n") + _RESET + "\n")
        elif line.startswith("+"):
            out.append("\033[32m" + line.rstrip("\n") + _RESET + "\n")
        elif line.startswith("-"):
            out.append("\033[31m" + line.rstrip("\n") + _RESET + "\n")
        elif line.startswith("@@"):
            out.append("\033[36m" + line.rstrip("\n") + _RESET + "\n")
        else:
            out.append(line)
    return "".join(out)


def _use_colour(choice, stream):
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


# --- graphs ----------------------------------------------------------------------------------


def stage(fn, backend):
    """`fn` converted and staged on `backend` (ag.function)."""
    from autograph.impl import function as function_module
    return function_module.function(fn, backend=backend)


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def graph_to_dot(graph):
    """Graphviz DOT text for a runtime Graph: one box per op, ellipses for inputs, and each
    nested graph (branch, loop condition, loop body) as a cluster inside its parent."""
    from runtime import errors as runtime_errors
    from runtime import graph as graph_module

    namer = graph_module.Namer(graph.numbering())
    lines = ["digraph %s {" % _quote(graph.name), "  compound=true;", "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];',
             "  label=%s; labelloc=t;" % _quote("graph " + graph.name)]
    ids = {}  # id(Value) -> dot node id producing it
    counter = [0]

    def new_id(prefix):
        counter[0] += 1
        return "%s%d" % (prefix, counter[0])

    def source_of(value):
        return ids.get(id(value))

    def where(node):
        location = runtime_errors.map_location(node.location)
        if not location:
            return ""
        filename, lineno, function_name = location
        return "\n%s:%s" % (os.path.basename(filename), lineno)

    def emit_graph(sub, indent, owner_id):
        pad = "  " * indent
        for value in sub.inputs:
            node_id = new_id("in")
            ids[id(value)] = node_id
            lines.append('%s%s [shape=ellipse, style=filled, fillcolor="#e8f0fe", label=%s];'
                         % (pad, node_id, _quote(namer.typed(value))))
            if owner_id is not None:
                lines.append('%s%s -> %s [style=dotted, arrowhead=none];'
                             % (pad, owner_id, node_id))
        for outer, inner in sub.captured:
            node_id = new_id("cap")
            ids[id(inner)] = node_id
            lines.append('%s%s [shape=ellipse, style=dashed, label=%s];'
                         % (pad, node_id, _quote(namer.typed(inner))))
            producer = source_of(outer)
            if producer is not None:
                lines.append('%s%s -> %s [style=dashed, label="capture"];'
                             % (pad, producer, node_id))
        for node in sub.nodes:
            node_id = new_id("op")
            outputs = ", ".join(namer.typed(v) for v in node.outputs)
            label = "%s%s%s" % (node.op.name, "\n" + outputs if outputs else "", where(node))
            control = bool(node.subgraphs)
            shape = "box, style=\"rounded,filled\", fillcolor=\"#fff4d6\"" if control else \
                "box"
            lines.append("%s%s [shape=%s, label=%s];" % (pad, node_id, shape, _quote(label)))
            for position, value in enumerate(node.inputs):
                producer = source_of(value)
                if producer is not None:
                    lines.append("%s%s -> %s;" % (pad, producer, node_id))
                elif value.is_literal:
                    literal_id = new_id("lit")
                    lines.append('%s%s [shape=plaintext, label=%s];'
                                 % (pad, literal_id, _quote(namer(value))))
                    lines.append("%s%s -> %s;" % (pad, literal_id, node_id))
            for value in node.outputs:
                ids[id(value)] = node_id
            for key, nested in node.subgraphs:
                lines.append("%ssubgraph %s {" % (pad, _quote("cluster_" + new_id("g"))))
                lines.append("%s  label=%s; style=rounded; color=\"#888888\";"
                             % (pad, _quote("%s: %s" % (node.op.name, key))))
                return_id = emit_graph(nested, indent + 1, node_id)
                lines.append("%s}" % pad)
                lines.append('%s%s -> %s [style=dotted];' % (pad, return_id, node_id))
        return_id = new_id("ret")
        lines.append('%s%s [shape=box, style=filled, fillcolor="#e6f4ea", label="return"];'
                     % (pad, return_id))
        for value in sub.outputs:
            producer = source_of(value)
            if producer is not None:
                lines.append("%s%s -> %s;" % (pad, producer, return_id))
        return return_id

    emit_graph(graph, 1, None)
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(graph, path, out):
    """Writes the picture of `graph` to `path`; renders with Graphviz when asked and found."""
    dot_text = graph_to_dot(graph)
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
                         % (_one_line(result.stderr.strip() or result.returncode), dot_path))
    print("wrote %s" % path, file=out)


def _write_text(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as error:
        raise UsageError("cannot write %s: %s" % (path, error.strerror or error)) from None


def numba_source(graph):
    """The source the Numba executor generates for `graph` (raises UsageError if none)."""
    from runtime.executors.numba import codegen as numba_exec
    try:
        source, _ = numba_exec.generate_source(graph)
    except Exception as error:
        report = getattr(numba_exec, "unsupported_report", None)
        detail = "; ".join(report(graph)) if report else _one_line(error)
        raise UsageError("--numba-source: this graph cannot be lowered to Numba: %s"
                         % _one_line(detail or error)) from None
    return source


# --- running ---------------------------------------------------------------------------------


def _format_result(value):
    import numpy as np

    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=50, separator=", ")
    return repr(value)


def _seconds(t):
    if t >= 1:
        return "%.3f s" % t
    if t >= 1e-3:
        return "%.3f ms" % (t * 1e3)
    return "%.1f us" % (t * 1e6)


def run_function(staged, inputs, repeat, out):
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
        print("%s = %s" % (label, _format_result(value)), file=out)
    print("first call (convert + trace + compile): %s" % _seconds(first), file=out)
    if times:
        print("later calls: median %s over %d calls (min %s)"
              % (_seconds(statistics.median(times)), len(times), _seconds(min(times))),
              file=out)
    trace_count = getattr(staged, "trace_count", None)
    if trace_count is not None:
        print("traces: %d" % trace_count, file=out)


# --- main ------------------------------------------------------------------------------------


def _one_line(error):
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    return first if first else type(error).__name__


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line and exit status 2 (argparse's own status)."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, "%s: error: %s (see --help)\n" % (self.prog, message))


def build_parser(prog="autograph"):
    parser = _Parser(prog=prog, description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("function", metavar="FUNCTION",
                        help="path/to/file.py:qualname or package.module:qualname")
    parser.add_argument("--diff", action="store_true",
                        help="print a unified diff from the original to the converted source "
                             "instead of the converted source")
    parser.add_argument("--graph", action="store_true",
                        help="print the graph traced for the --arg inputs")
    parser.add_argument("--numba-source", action="store_true",
                        help="print the Numba source generated for that graph")
    parser.add_argument("--dot", metavar="FILE",
                        help="draw the graph: FILE.dot/.gv (DOT text) or FILE.svg/.png/.pdf "
                             "(rendered with Graphviz's dot when installed)")
    parser.add_argument("--run", action="store_true",
                        help="run the traced function on the --arg inputs; print results and "
                             "timings")
    parser.add_argument("--arg", action="append", default=[], metavar="SPEC",
                        help="an input, once per positional parameter, in order: "
                             "DTYPE[d0,d1,...] (sample array), DTYPE[] (NumPy scalar) or a "
                             "Python literal")
    parser.add_argument("--backend", choices=("numpy", "numba", "auto"), default="auto",
                        help="executor for --run (default: auto)")
    parser.add_argument("--repeat", type=int, default=10, metavar="N",
                        help="--run: time N calls after the first (default: 10)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the sample values of --arg arrays (default: 0)")
    parser.add_argument("--no-recursive", dest="recursive", action="store_false",
                        help="do not convert the functions it calls (ag.to_code(..., "
                             "recursive=False)); affects the converted source only")
    parser.add_argument("--color", "--colour", choices=("auto", "always", "never"),
                        default="auto",
                        help="colour the output: auto (when stdout is a terminal), always, "
                             "never (also: the NO_COLOR environment variable)")
    parser.add_argument("-v", "--verbosity", type=int, default=None, metavar="LEVEL",
                        help="autograph log level (ag.set_verbosity): 1 what is converted and "
                             "why not, 2 trace/compile events, 3 generated code")
    return parser


def _check_arity(fn, inputs):
    signature = inspect.signature(fn)
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    takes_more = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    if len(inputs) < len(required) or (len(inputs) > len(positional) and not takes_more):
        raise UsageError("%s%s needs %d --arg (got %d): one per parameter, in order"
                         % (fn.__qualname__, signature, len(required), len(inputs)))


def _converted_source(fn, recursive):
    from autograph.impl import api
    return api.to_code(fn, recursive=recursive)


def _original_source(fn):
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as error:
        raise UsageError("cannot read the source of %s: %s" % (fn.__qualname__, error)) from None


def _emit(text, out, colour, colourer):
    if colour:
        text = colourer(text)
    out.write(text if text.endswith("\n") else text + "\n")


def _run(options, out):
    fn = resolve_function(options.function)
    if options.verbosity is not None:
        from autograph.core import ag_logging
        ag_logging.set_verbosity(options.verbosity)
    colour = _use_colour(options.color, out)
    wants_graph = options.graph or options.numba_source or options.dot or options.run
    if options.arg and not wants_graph:
        raise UsageError("--arg is only used with --graph, --numba-source, --dot or --run")
    inputs = make_inputs(options.arg, options.seed) if wants_graph else []
    if options.repeat < 0:
        raise UsageError("--repeat must be 0 or more")
    if wants_graph:
        _check_arity(fn, inputs)

    show_source = not (options.diff or wants_graph)
    if show_source:
        _emit(_converted_source(fn, options.recursive), out, colour, colour_python)
    if options.diff:
        original = _original_source(fn)
        converted = _converted_source(fn, options.recursive)
        filename = inspect.getsourcefile(fn) or fn.__qualname__
        diff = "".join(difflib.unified_diff(
            original.splitlines(keepends=True), converted.splitlines(keepends=True),
            fromfile="%s (original)" % filename, tofile="%s (converted)" % fn.__qualname__))
        _emit(diff or "(no changes)\n", out, colour, colour_diff)
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
        _emit(numba_source(graph), out, colour, colour_python)
    if options.dot:
        write_dot(graph, options.dot, out)
    out.write(run_report.getvalue())
    return 0


def main(argv=None, prog=None):
    """Entry point of the `autograph` command; returns the exit status."""
    parser = build_parser(prog or os.path.basename(sys.argv[0] or "autograph"))
    if prog is None and parser.prog in ("__main__.py", "-m", "-c"):
        parser.prog = "python -m autograph"
    options = parser.parse_args(argv)
    out = sys.stdout
    try:
        return _run(options, out)
    except UsageError as error:
        print("%s: error: %s" % (parser.prog, error), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        # An error of the user's function (or of the conversion): its message names the
        # user's file and line; the traceback (user frames) is shown from verbosity 1 on.
        from autograph.errors import tracebacks
        error = tracebacks.rewrite(error)
        if options.verbosity:
            import traceback
            traceback.print_exception(error, file=sys.stderr)
        print("%s: error: %s: %s" % (parser.prog, type(error).__name__, error),
              file=sys.stderr)
        return EXIT_FUNCTION_FAILED
