"""The `autograph` command (also `python -m autograph`): convert a function from a file or
module and show its converted source, a diff, its traced graph (text, Numba source or a
Graphviz picture), or run it on sample inputs with timings.

Here: the help text, the options and `main`. The parts: resolve.py finds FUNCTION,
inputs.py makes the --arg inputs, outputs.py prints what the options ask for (in the order
of the help text), render.py colours and formats; the picture is runtime/graph_dot.py's.
"""

import argparse
import os
import sys

from autograph.cli import outputs
from autograph.cli.errors import EXIT_BAD_INPUT, EXIT_FUNCTION_FAILED, UsageError

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
  --dot FILE         the graph as a Graphviz picture, top to bottom: loop and branch
                     bodies are drawn as nested clusters, as many levels deep as fit in
                     about 150 boxes (or --dot-depth N); a deeper loop or branch is one box
                     that sums up its body. FILE.dot/.gv: DOT text; FILE.svg/.png/.pdf:
                     rendered by Graphviz's `dot` when it is installed (else FILE.dot is
                     written and the command says so)
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
  autograph cache info          where the private cache is, its size and entries
  autograph cache clear         empty it
  python -m autograph --help
"""


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
    parser.add_argument("--dot-depth", type=int, default=None, metavar="N",
                        help="--dot: draw loop and branch bodies N levels deep (0: only the "
                             "top level), deeper ones as one box each (default: as deep as "
                             "fits in about 150 boxes)")
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


def main(argv=None, prog=None):
    """Entry point of the `autograph` command; returns the exit status."""
    parser = build_parser(prog or os.path.basename(sys.argv[0] or "autograph"))
    if prog is None and parser.prog in ("__main__.py", "-m", "-c"):
        parser.prog = "python -m autograph"
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["cache"]:
        from autograph.cli import cache
        return cache.main(argv[1:], parser.prog, sys.stdout, sys.stderr)
    options = parser.parse_args(argv)
    out = sys.stdout
    try:
        return outputs.show(options, out)
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
