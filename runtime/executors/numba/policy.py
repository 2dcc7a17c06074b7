"""The policy that picks a backend per graph: `backend="numba"` compiles every graph (or names
the ops it cannot lower), `backend="auto"` only those that earn their compile.

Backend policy (`compile_graph_auto`, the `backend="auto"` executor)
  - a graph with any op that has no lowering (or an attribute combination its lowering
    refuses) runs on the NumPy interpreter; the reason is logged at INFO on the
    "autograph" logger;
  - a graph without a `while` node and at least 3 array ops is timed like the graphs
    below: Numba may fuse them into one loop (pairwise distances by broadcasting: 0.21x
    NumPy's time compiled; 14 vectorised ops, tools/bench_numba_functional.py: 16
    elements 14 us (NumPy) vs 8 us (Numba), 10,000 elements 444 us vs 658 us);
  - a smaller graph without a `while` node (`x + 1`) runs on the NumPy interpreter for
    its first `HOT_CALLS` calls, and is then compiled in the background and timed like
    them: there is nothing to fuse, but on small arrays the compiled call costs less (x + 1
    on 16 floats: 1.0 us against the interpreter's 1.5 us, as much as numba.njit). The
    compile is not worth it for a function called a few times (a compile costs 0.2-0.5 s
    of the worker's time, and importing Numba that of this process: a call saves 0.5 us);
    a function called that often is likely to be called many more times;
  - a graph whose loops do mostly array work (ops on rank >= 1 arrays, matrix-matrix
    products weighted 10, outweigh the scalar ops; `loop_work`) is one no static rule
    decides: each such op is one optimised NumPy call (threaded BLAS, SIMD ufuncs), but
    Numba's loops save the temporaries and the interpreter's ~1 us per op (vectorised
    kernels of tools/bench_workloads.py: pairwise distances 0.21x NumPy's time compiled,
    softmax 1.12x; examples/rnn.py's small RNN about even). It is compiled in the
    background; then calls take turns on both executors, timed, and the faster keeps
    running it (`NumbaCompiledGraph.measure`, the choice logged with both times). Without
    background compiles (AUTOGRAPH_BACKGROUND_COMPILE=0) it runs on the NumPy
    interpreter, as a compile would stall the first call;
  - any other graph with a loop (scalar loops: collatz, primes, mandelbrot, edit_distance,
    ema, piecewise: 100-8000x faster than the interpreter) is compiled with Numba: in a
    worker process (background.py) while the NumPy interpreter runs its calls, unless the
    disk cache has it; if compilation fails, the NumPy interpreter keeps running it
    (logged at INFO).
  The graphs it compiles in the background run their first call on the NumPy interpreter
  before anything of Numba's code generation is imported or run (pending.py): the code is
  generated after that call, by a thread, which also finds the graphs with ops that do not
  lower (logged then).
  `backend="numba"` raises `NumbaLoweringError` naming the ops without a lowering and the
  user lines that created them.
"""

import functools
import logging

from runtime.executors import numpy_exec
from runtime.executors.numba import pending
from runtime.executors.numba.lowering import Unlowerable
from runtime.graph import TENSOR_ARRAY

logger = logging.getLogger("autograph")

# Calls of a small loopless graph on the NumPy interpreter before `auto` compiles it (the
# count of HotSpot's optimising compiler, a JIT's usual order of magnitude: about 15 ms of
# calls of x + 1).
HOT_CALLS = 10000


def compile_graph(graph, owned_inputs=None):
    """backend="numba": compile `graph` with Numba, or raise NumbaLoweringError naming the ops
    without a lowering and where the user created them."""
    # (Imported here: auto's first calls import this module, not the code generator.)
    from runtime.executors.numba.codegen import unsupported_report
    from runtime.executors.numba.compiled import NumbaCompiledGraph, NumbaLoweringError
    report = unsupported_report(graph)
    if report:
        raise NumbaLoweringError(
            "backend='numba' cannot run graph %r: %s\n(use backend='numpy' or 'auto')"
            % (graph.name, "; ".join(report)))
    return NumbaCompiledGraph(graph, owned_inputs).call


def compile_graph_auto(graph, owned_inputs=None, copied_back=()):
    """backend="auto": the executable of `graph`, by the policy of this module's docstring:
    the NumPy interpreter's, or one that hands its calls over to Numba's compiled code
    when the policy compiles the graph and Numba can (`copied_back`: see
    numpy_exec.CompiledGraph)."""
    def numpy_executor():
        return numpy_exec.compile_graph(graph, owned_inputs, copied_back=copied_back)

    background = pending.enabled()
    start_after = 1
    if not has_loop(graph):
        array_work, scalar_work = loop_work(graph, inside_loops=False)
        if not background or array_work + scalar_work == 0:
            return numpy_executor()
        measure = True
        if array_work < 3:     # (nothing to fuse: only a small call's cost to save)
            start_after = HOT_CALLS
    else:
        array_work, scalar_work = loop_work(graph)
        measure = array_work > scalar_work
        if measure and not background:
            logger.info("autograph: graph %r runs on the NumPy interpreter: its loops do "
                        "mostly array work (%d array vs %d scalar op units), where NumPy is "
                        "often as fast", graph.name, array_work, scalar_work)
            return numpy_executor()
    reference = numpy_executor()
    if background:
        return pending.PendingGraph(graph, reference, functools.partial(
            _compiled_graph, graph, owned_inputs, reference, measure=measure),
            start_after=start_after)
    compiled = _compiled_graph(graph, owned_inputs, reference)
    return reference if compiled is None else compiled.call


def _compiled_graph(graph, owned_inputs, reference, stand_ins=None, measure=False):
    """auto's compiled graph of `graph`, the NumPy executor `reference` running its calls
    where Numba does not (until the compiled code is loaded, where Numba fails, where the
    timing chooses NumPy): compiling in the background for arguments like `stand_ins`
    (pending.describe) if given, else on its first call; None, logged why, where Numba
    cannot take the graph."""
    from runtime.executors.numba.codegen import unsupported_report
    from runtime.executors.numba.compiled import NumbaCompiledGraph
    try:
        compiled = NumbaCompiledGraph(graph, owned_inputs, fallback=lambda: reference,
                                      background=stand_ins is not None, measure=measure)
        # The NumPy interpreter may take over after a failed compile: promise only what
        # both own.
        compiled.owned_outputs[:] = [a and b for a, b in zip(compiled.owned_outputs,
                                                             reference.owned_outputs)]
        if stand_ins is not None:
            compiled.compile_in_background(stand_ins)
    except Unlowerable:
        # (The report generates the code again, listing every op: only when one fails.)
        logger.info("autograph: graph %r runs on the NumPy interpreter: %s",
                    graph.name, "; ".join(unsupported_report(graph)))
        return None
    except Exception as error:   # code generation or module loading failed
        logger.info("autograph: graph %r runs on the NumPy interpreter: %s: %s",
                    graph.name, type(error).__name__, error)
        return None
    return compiled


def has_loop(graph):
    return any(node.op.name == "while" for node in graph.walk())


_PRODUCTS = ("matmul", "dot", "outer")


def loop_work(graph, inside_loops=True):
    """(array work, scalar work) of the ops inside loop bodies (of all ops if not
    `inside_loops`): an op counts as array work
    when an input or output has rank >= 1 (a matrix-matrix product counts 10: NumPy's
    threaded BLAS and SIMD ufuncs beside it beat Numba there), as scalar work when all its
    inputs and outputs are rank 0. Views and shape queries count as neither."""
    array = scalar = 0

    def visit(g, in_loop):
        nonlocal array, scalar
        for node in g.nodes:
            if node.op.control_flow:
                for key, sub in node.subgraphs:
                    visit(sub, in_loop or node.op.name == "while")
                continue
            if (inside_loops and not in_loop) or node.op.is_view(node) \
                    or node.op.name in ("dim", "size"):
                continue
            ranks = [len(v.shape) for v in node.inputs + node.outputs
                     if v.kind != TENSOR_ARRAY and v.shape is not None]
            if not any(ranks):
                scalar += 1
            elif node.op.name in _PRODUCTS and all(len(v.shape) >= 2 for v in node.inputs):
                array += 10
            else:
                array += 1
    visit(graph, False)
    return array, scalar
