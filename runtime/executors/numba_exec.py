"""The Numba executor: one Python function generated per graph, compiled by `numba.njit`.

Code generation
  Every graph becomes one function `run_graph(a0, a1, ..., k0, ...)` in a module file named
  by the hash of its source (runtime/executors/numba_modules.py), compiled with
  `numba.njit(cache=True, error_model="numpy")` so a second process loads it from Numba's
  on-disk cache. `while` nodes become real `while` loops, `cond` nodes real `if`s; nested
  graphs are inlined (their placeholders are the outer names). Rank-0 values are Numba
  scalars, so scalar loops compile to native code. Array constants and variables are extra
  arguments (`k*`), never globals. Tensor arrays are growable buffers (data, written flags,
  size, dynamic_size). Each op's code comes from its lowering, `op.numba(g, node, ins)`,
  defined next to the op in runtime/ops/*.py with `@get(name).def_numba` (shared helpers:
  runtime/executors/numba_lowerings.py): it returns an expression, a list of expressions
  (one per output), or None after emitting statements itself; it raises `Unlowerable` for
  attribute combinations it cannot handle. `cond` and `while` are generated here.
  The code is generic over dimension sizes: Numba specialises it on dtype, rank and layout.

Buffers
  set_item and tensor-array writes update their buffer in place when the old version is
  dead and owned by this run (the same ownership rules as the NumPy interpreter: owned
  arguments, fresh allocations, loop variables handed from iteration to iteration), and
  copy first otherwise.

Errors
  Failing checks raise `numba_support.GraphFail(site, ...)`; the wrapper turns it into the
  exception the NumPy interpreter raises (InvalidArgumentError for asserts, OutOfRangeError
  for out-of-range indices), with "While executing <node> created at <user line>".
  Bounds checks are explicit (inline, with NumPy's messages); measured on edit_distance:
  about as fast as `boundscheck=True` (~1.4x the unchecked loop), which cannot say which
  node failed. Checks the bounds analysis (runtime/executors/bounds.py) proves unneeded
  are left out: an index known >= 0 skips the negative-index normalisation, one also known
  below its axis size (e.g. `x[i]` in `for i in range(x.shape[0])`, `D[i - 1, j]` with
  `D = zeros((m + 1, n + 1))`) has no check at all; edit_distance then compiles ~2x
  faster. `rt.print` runs in a `with numba.objmode():` block (in its own small jitted
  function) that prints through the same formatting as the NumPy kernel, to the
  `sys.stdout` of that moment.

Calls
  `call` is a Python function generated per graph (scalar conversions, variables, the
  first-call compile, the NumPy fallback). Once compiled, a graph with one array output and
  no variables also offers `direct()`: the Numba dispatcher itself (constants and `err`
  come first in its parameters, bound with functools.partial), which rt.function's fast path
  calls without any Python layer, translating GraphFail in its except clause.

Backend policy (`compile_graph_auto`, the `backend="auto"` executor)
  - a graph with any op that has no lowering (or an attribute combination its lowering
    refuses) runs on the NumPy interpreter; the reason is logged at INFO on the
    "autograph" logger;
  - a graph without a `while` node runs on the NumPy interpreter: vectorised ops cost the
    same or less in NumPy and a Numba compile costs 0.3-6 s, which such a graph does not
    earn back. Measured (tools/bench_numba_functional.py), 14 vectorised ops, no loop:
    16 elements 14 us (NumPy) vs 8 us (Numba) per call after a 5.8 s compile; 10,000
    elements 444 us vs 658 us. f(x) = x + 1: ~2 us per call on either backend;
  - a graph whose loops do mostly array work (ops on rank >= 1 arrays, matrix-matrix
    products weighted 10, outweigh the scalar ops; `loop_work`) runs on the NumPy
    interpreter: each such op is one optimised NumPy call (threaded BLAS, SIMD ufuncs) and
    the interpreter's ~1 us per op is noise. Measured (ag.function, same process,
    interleaved): rnn (two 64x64 @ 64x32 products and a tanh per step) 3.9 ms with NumPy
    vs 4.2 ms compiled (njit of the original: 10.3 ms, its libm tanh loop being 10x
    slower than NumPy's SIMD one, which our code calls for large arrays), so compiling
    (~1 s more on the first call) buys nothing; power_iter (a 256x256
    matrix-vector product and ~10 scalar ops per step) 18.3 ms with NumPy vs 10.0 ms
    compiled, so matrix-vector products count 1;
  - any other graph with a loop (scalar loops: collatz, primes, mandelbrot, edit_distance,
    ema, piecewise: 100-8000x faster than the interpreter) is compiled with Numba on its
    first call; if compilation fails, the NumPy interpreter runs it (logged at INFO).
  `backend="numba"` raises `NumbaLoweringError` naming the ops without a lowering and the
  user lines that created them.
"""

import functools
import hashlib
import inspect
import itertools
import logging
import sys
import time

import numpy as np

from runtime import errors
from runtime.executors import planning
from runtime.executors.planning import Ownership
from runtime.graph import TENSOR_ARRAY, describe_node

logger = logging.getLogger("autograph")

_INFINITY = float("inf")


# A tensor array is four locals: data buffer, written flags, size, dynamic_size.
TA_PARTS = ("_b", "_w", "_n", "_d")


# Entries of the `err` buffer (written by generated code just before it raises GraphFail):
# the index and axis size of a failed bounds check, or both shapes of a put_shape failure.
_ERR_SIZE = 72


class Unlowerable(Exception):
    """Raised by a lowering (or the generator) for a node that cannot run under Numba."""


class NumbaLoweringError(NotImplementedError):
    """backend="numba" was asked to run a graph that has ops without a Numba lowering."""


# --- ownership planning (which writes may happen in place) -----------------------------------

class Plan:
    """In-place decisions for one graph and, recursively, its nested graphs."""

    def __init__(self):
        self.inplace = {}         # node -> bool (ops with inplace_input)
        self.children = {}        # node -> (Plan, Plan) for cond / while
        self.copy_at_entry = {}   # while node -> set of loop-variable indices
        self.owned_outputs = []
        self.written_inputs = []


def plan_graph(graph, owned_inputs):
    """Decide in-place updates with the NumPy interpreter's rules (runtime/executors/
    planning.py); nested graphs of cond / while are planned recursively here."""
    plan = Plan()
    ownership = Ownership(graph, owned_inputs)
    for index, node in enumerate(graph.nodes):
        op = node.op
        if not op.control_flow:
            inplace = ownership.op_outputs(node, index)
            if op.inplace_input is not None:
                plan.inplace[node] = inplace
            continue
        flags = ownership.handover_flags(node, index)
        if op.name == "cond":
            then_plan, else_plan, out_owned, in_written = planning.cond_ownership(
                node, flags, plan_graph)
            plan.children[node] = (then_plan, else_plan)
        else:
            body_plan, copy, out_owned, in_written = planning.while_ownership(
                node, flags, plan_graph)
            cond_plan = plan_graph(node.attrs["cond"], [False] * len(node.inputs))
            plan.children[node] = (cond_plan, body_plan)
            plan.copy_at_entry[node] = set(copy)
        ownership.control_flow_outputs(node, out_owned, in_written)
    plan.owned_outputs = ownership.owned_outputs()
    plan.written_inputs = ownership.written_inputs()
    return plan


# --- code generation -------------------------------------------------------------------------

def np_dtype(dtype):
    """Source text for a NumPy dtype usable in nopython code."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return "np.bool_"
    if dtype.kind not in "biufc" or dtype == np.float16:
        raise Unlowerable("dtype %s is not supported by Numba" % dtype)
    return "np." + dtype.name


def literal_text(value, dtype):
    """A typed scalar constant of `dtype` holding `value`."""
    dtype = np.dtype(dtype)
    v = np.asarray(value).astype(dtype)[()]
    if dtype == np.bool_:
        return "True" if v else "False"
    if dtype.kind in "iu":
        text = str(int(v))
        return text if dtype == np.int64 else "%s(%s)" % (np_dtype(dtype), text)
    if dtype.kind == "f":
        f = float(v)
        if f != f:
            text = "np.nan"
        elif f in (_INFINITY, -_INFINITY):
            text = "np.inf" if f > 0 else "(-np.inf)"
        else:
            text = repr(f)
        return text if dtype == np.float64 else "%s(%s)" % (np_dtype(dtype), text)
    if dtype.kind == "c":
        c = complex(v)
        text = "complex(%s, %s)" % (literal_text(c.real, np.float64), literal_text(c.imag, np.float64))
        return text if dtype == np.complex128 else "%s(%s)" % (np_dtype(dtype), text)
    raise Unlowerable("literal of dtype %s" % dtype)


class Site:
    """A place in generated code that can fail or call back into Python."""

    __slots__ = ("kind", "node", "info")

    def __init__(self, kind, node, info):
        self.kind = kind
        self.node = node
        self.info = info


class CodeGen:
    """Generates the source of one graph's Numba function. Lowerings use:

      g.emit(line)                 add a statement at the current indentation
      g.tmp(prefix)                a fresh local name
      g.expr(value)                the expression for a Value (literals typed by dtype)
      g.arg(node, i, dtype=None)   input i, a weak literal typed as `dtype` if given
      g.is_scalar(value)           rank-0 values are Numba scalars
      g.scalar_cast(expr, dtype)   `expr` converted to the scalar type `dtype`
      g.inplace(node)              may this set_item / ta_write update its buffer in place?
      g.site(node, kind, **info)   a site number for GraphFail / object-mode callbacks
      g.outputs(node)              the names the node's outputs get (for statement lowerings)
    """

    def __init__(self, graph, owned_inputs=None, collect=False):
        self.graph = graph
        self.collect = collect
        self.unsupported = []     # (node, reason)
        self.lines = []
        self.depth = 1
        self.names = {}
        self.counter = itertools.count()
        self.sites = []
        self.constants = []       # (arg name, array)
        self.variables = []       # (arg name, variable)
        self._variable_args = {}
        self.assigned_variables = {id(n.attrs["variable"]) for n in graph.walk()
                                   if n.op.name == "assign_variable"}
        self.plan = plan_graph(graph, owned_inputs)
        self.ta_shapes = _tensor_array_shapes(graph)
        self.uses_objmode = False
        self.uses_err = False
        self.functions = []
        self._used = None
        self._bounds = None

    # -- API for lowerings ---------------------------------------------------------------
    def emit(self, line):
        self.lines.append("    " * self.depth + line)

    def tmp(self, prefix="t"):
        return "%s%d" % (prefix, next(self.counter))

    def is_scalar(self, value):
        return value.kind != TENSOR_ARRAY and value.shape == ()

    def expr(self, value, dtype=None):
        if value.is_literal:
            if dtype is None or not value.weak:
                dtype = value.dtype
            return literal_text(value.literal, dtype)
        try:
            return self.names[value]
        except KeyError:
            raise Unlowerable("value %r used before it is defined" % value)

    def arg(self, node, i, dtype=None):
        return self.expr(node.inputs[i], dtype)

    def scalar_cast(self, expr, dtype):
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return "bool(%s)" % expr
        return "%s(%s)" % (np_dtype(dtype), expr)

    def inplace(self, node):
        return self._current_plan.inplace.get(node, False)

    def site(self, node, kind, **info):
        self.sites.append(Site(kind, node, info))
        return len(self.sites) - 1

    def outputs(self, node):
        return [self._bind_new(v) for v in node.outputs]

    def checked_index(self, node, index, array, axis, value=None):
        """An expression for `index` normalised for `array`'s axis, after an inline bounds
        check (inline with a constant-argument raise: measured ~2x cheaper to compile than a
        helper or runtime-valued exception arguments; the failing values go to `err`).
        The normalisation is explicit on purpose: leaving negative indices to Numba's own
        wraparound compiles ~15% faster but runs edit_distance 3x slower (measured).
        `value` (the index Value or int of get_item / set_item `node`) lets the bounds
        analysis (runtime/executors/bounds.py) drop what it proves: the normalisation of
        an index known >= 0, the whole check of one also known below the axis size."""
        nonneg = below = False
        if value is not None:
            if self._bounds is None:
                from runtime.executors.bounds import Bounds
                self._bounds = Bounds(self.graph)
            nonneg, below = self._bounds.index_facts(node, value, axis)
        if nonneg and below:
            return index
        site = self.site(node, "index", axis=axis)
        self.uses_err = True
        size = "%s.shape[%d]" % (array, axis)
        if nonneg:
            self.emit("if %s >= %s:" % (index, size))
            name = index
        else:
            name = self.tmp("i")
            self.emit("%s = %s" % (name, index))
            self.emit("if %s < 0:" % name)
            self.emit("    %s += %s" % (name, size))
            self.emit("if %s < 0 or %s >= %s:" % (name, name, size))
        self.emit("    err[0] = %s" % index)
        self.emit("    err[1] = %s" % size)
        self.emit("    raise _rt.GraphFail(%d)" % site)
        return name

    def is_used(self, value):
        """Does any node or graph output read `value`?"""
        if self._used is None:
            used = set()
            for node in self.graph.walk():
                used.update(id(v) for v in node.inputs)
                for _, sub in node.subgraphs:
                    used.update(id(v) for v in sub.outputs)
            used.update(id(v) for v in self.graph.outputs)
            self._used = used
        return id(value) in self._used

    def add_function(self, lines):
        """Add a module-level function (e.g. a jitted helper) before the graph function."""
        self.functions.append(list(lines))

    def constant_arg(self, array):
        name = "k%d" % len(self.constants)
        self.constants.append((name, array))
        return name

    def variable_arg(self, variable):
        name = self._variable_args.get(id(variable))
        if name is None:
            name = "var%d" % len(self.variables)
            self.variables.append((name, variable))
            self._variable_args[id(variable)] = name
        return name

    # -- generation ------------------------------------------------------------------------
    def _bind_new(self, value):
        name = self.tmp("ta" if value.kind == TENSOR_ARRAY else "v")
        self.names[value] = name
        return name

    def generate(self):
        """The function's source lines (body only) and its parameter names."""
        params = ["a%d" % i for i in range(len(self.graph.all_inputs))]
        for name, value in zip(params, self.graph.all_inputs):
            if value.kind == TENSOR_ARRAY:
                raise Unlowerable("a tensor array as a graph input")
        outputs = self._graph(self.graph, self.plan, params)
        parts = []
        for value, text in zip(self.graph.outputs, outputs):
            if value.kind == TENSOR_ARRAY:
                parts += [text + p for p in TA_PARTS]
            else:
                parts.append(text)
        # A bare value when there is one: boxing a 1-tuple costs ~0.5 us per call.
        self.single_return = len(parts) == 1
        if self.single_return:
            self.emit("return %s" % parts[0])
        else:
            self.emit("return (%s)" % "".join(p + ", " for p in parts))
        return params

    def _graph(self, graph, plan, input_exprs):
        previous = getattr(self, "_current_plan", None)
        self._current_plan = plan
        for value, text in zip(graph.all_inputs, input_exprs):
            self.names[value] = text
        for node in graph.nodes:
            self._node(node)
        result = [self.expr(v) for v in graph.outputs]
        self._current_plan = previous
        return result

    def _node(self, node):
        op = node.op
        try:
            if op.name == "cond":
                return self._cond(node)
            if op.name == "while":
                return self._while(node)
            lowering = op.numba
            if lowering is None:
                raise Unlowerable("no Numba lowering")
            ins = [self.expr(v) for v in node.inputs]
            result = lowering(self, node, ins)
        except Unlowerable as error:
            if not self.collect:
                raise Unlowerable(_describe_unsupported(node, str(error)))
            self.unsupported.append((node, str(error)))
            for value in node.outputs:
                self._bind_new(value)
            return
        if result is None:
            return
        if isinstance(result, str):
            result = [result]
        for value, text in zip(node.outputs, result):
            if value.kind == TENSOR_ARRAY:
                name = self._bind_new(value)
                for part, sub in zip(TA_PARTS, text):
                    self.emit("%s%s = %s" % (name, part, sub))
            else:
                self.emit("%s = %s" % (self._bind_new(value), text))

    def _assign_like(self, target, source_value, text, dtype_value):
        """`target = text` converting literals / scalars to the target's type."""
        if dtype_value.kind == TENSOR_ARRAY:
            for part in TA_PARTS:
                if part == "_b" and source_value.dtype != dtype_value.dtype:
                    # A list-like tensor array whose dtype was promoted (ints, then floats).
                    self.emit("%s_b = %s_b.astype(%s)" % (target, text,
                                                          np_dtype(dtype_value.dtype)))
                    continue
                self.emit("%s%s = %s%s" % (target, part, text, part))
            return
        if source_value.is_literal:
            text = literal_text(source_value.literal, dtype_value.dtype)
        elif self.is_scalar(dtype_value) and source_value.dtype != dtype_value.dtype:
            text = self.scalar_cast(text, dtype_value.dtype)
        elif not self.is_scalar(dtype_value) and source_value.dtype != dtype_value.dtype:
            text = "%s.astype(%s)" % (text, np_dtype(dtype_value.dtype))
        self.emit("%s = %s" % (target, text))

    def _cond(self, node):
        then_plan, else_plan = self._current_plan.children[node]
        outs = [self._bind_new(v) for v in node.outputs]
        pred_value = node.inputs[0]
        pred = self.expr(pred_value)
        if not self.is_scalar(pred_value):
            raise Unlowerable("a cond on a non-scalar predicate")
        captures = [self.expr(v) for v in node.inputs[1:]]
        self.emit("if %s:" % pred)
        for graph, plan in ((node.attrs["then_branch"], then_plan),
                            (node.attrs["else_branch"], else_plan)):
            self.depth += 1
            start = len(self.lines)
            results = self._graph(graph, plan, captures)
            for out_name, out_value, inner, text in zip(outs, node.outputs, graph.outputs, results):
                self._assign_like(out_name, inner, text, out_value)
            if len(self.lines) == start:
                self.emit("pass")
            self.depth -= 1
            if graph is node.attrs["then_branch"]:
                self.emit("else:")

    def _while(self, node):
        cond_plan, body_plan = self._current_plan.children[node]
        copy = self._current_plan.copy_at_entry[node]
        n = node.attrs["n_loop_vars"]
        loop_names = [self._bind_new(v) for v in node.outputs]
        for i, (name, value, init) in enumerate(zip(loop_names, node.outputs, node.inputs[:n])):
            text = self.expr(init)
            if i in copy:
                if value.kind == TENSOR_ARRAY:
                    self.emit("%s_b = %s_b.astype(%s)" % (name, text, np_dtype(value.dtype)))
                    self.emit("%s_w = %s_w.copy()" % (name, text))
                    self.emit("%s_n = %s_n" % (name, text))
                    self.emit("%s_d = %s_d" % (name, text))
                    continue
                text = "%s.copy()" % text
                self.emit("%s = %s" % (name, text))
                continue
            self._assign_like(name, init, text, value)
        captures = [self.expr(v) for v in node.inputs[n:]]
        self.emit("while True:")
        self.depth += 1
        test = self._graph(node.attrs["cond"], cond_plan, loop_names + captures)[0]
        test_value = node.attrs["cond"].outputs[0]
        if not self.is_scalar(test_value):
            raise Unlowerable("a while condition that is not a scalar")
        self.emit("if not %s:" % test)
        self.emit("    break")
        results = self._graph(node.attrs["body"], body_plan, loop_names + captures)
        pending = [(name, value, inner, text) for name, value, inner, text
                   in zip(loop_names, node.outputs, node.attrs["body"].outputs, results)
                   if text != name]
        crossing = any(text in loop_names for _, _, _, text in pending)
        if crossing and pending:
            temps = []
            for name, value, inner, text in pending:
                temp = self.tmp("n")
                self._assign_like(temp, inner, text, value)
                temps.append((name, temp, value))
            for name, temp, value in temps:
                if value.kind == TENSOR_ARRAY:
                    for part in TA_PARTS:
                        self.emit("%s%s = %s%s" % (name, part, temp, part))
                else:
                    self.emit("%s = %s" % (name, temp))
        else:
            for name, value, inner, text in pending:
                self._assign_like(name, inner, text, value)
        self.depth -= 1


def _tensor_array_shapes(graph):
    """{tensor-array Value: element shape} for every tensor array whose element shape some
    version of it knows (a `ta_new` without element_shape= learns it from later writes)."""
    parent = {}

    def find(v):
        while parent.get(v, v) is not v:
            v = parent[v]
        return v

    def union(a, b):
        if a.kind == TENSOR_ARRAY and b.kind == TENSOR_ARRAY:
            ra, rb = find(a), find(b)
            if ra is not rb:
                parent[ra] = rb

    values = []
    for node in graph.walk():
        values.extend(v for v in node.outputs if v.kind == TENSOR_ARRAY)
        if node.op.name == "ta_write":
            union(node.inputs[0], node.outputs[0])
        elif node.op.name == "cond":
            for sub in (node.attrs["then_branch"], node.attrs["else_branch"]):
                for outer, inner in zip(node.inputs[1:], sub.all_inputs):
                    union(outer, inner)
                for out, inner in zip(node.outputs, sub.outputs):
                    union(out, inner)
        elif node.op.name == "while":
            n = node.attrs["n_loop_vars"]
            for sub in (node.attrs["cond"], node.attrs["body"]):
                for outer, inner in zip(node.inputs, sub.all_inputs):
                    union(outer, inner)
            for i, out in enumerate(node.outputs):
                union(node.inputs[i], out)
                union(node.attrs["body"].outputs[i], out)
    known = {}
    for v in values + list(parent):
        if v.shape is not None:
            known.setdefault(find(v), v.shape)
    return {v: known.get(find(v)) for v in values + list(parent)}


def _describe_unsupported(node, reason):
    root = node.graph
    while root is not None and root.parent is not None:
        root = root.parent
    return "op '%s' (%s): %s" % (node.op.name, describe_node(node, root), reason)


def _support_hash():
    from runtime.executors import numba_support
    source = inspect.getsource(numba_support)
    import numba
    text = "|".join([source, numba.__version__, np.__version__, sys.version])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_SUPPORT_HASH = None


def generate_source(graph, owned_inputs=None):
    """(source, CodeGen) for `graph`; raises Unlowerable naming the first unsupported op."""
    global _SUPPORT_HASH
    gen = CodeGen(graph, owned_inputs)
    params = gen.generate()
    # Constants and the error buffer first: a direct call binds them with functools.partial
    # and passes the graph inputs after them (NumbaCompiledGraph.direct).
    all_params = [name for name, _ in gen.constants] + (["err"] if gen.uses_err else [])
    all_params += [name for name, _ in gen.variables] + params
    if _SUPPORT_HASH is None:
        _SUPPORT_HASH = _support_hash()
    header = [
        '"""Generated by runtime/executors/numba_exec.py from graph %r (do not edit)."""'
        % graph.name,
        "# support %s" % _SUPPORT_HASH,
        "import numba",
        "import numpy as np",
        "from runtime.executors import numba_support as _rt",
        "",
        "",
    ]
    for function in gen.functions:
        header += function + ["", ""]
    # Not nogil: releasing and retaking the GIL costs ~60 ns per call (measured on
    # piecewise16, a 16-element loop: ~10% of its time).
    header += [
        '@numba.njit(cache=True, error_model="numpy")',
        "def run_graph(%s):" % ", ".join(all_params),
    ]
    # Print sites carry their formatting in the module's identity (they are registered by
    # module name), so two graphs differing only in printed text get different modules.
    site_keys = ["# site %d %s %r" % (i, s.kind, _site_key(s)) for i, s in enumerate(gen.sites)
                 if s.kind == "print"]
    source = "\n".join(header + gen.lines + [""] + site_keys) + "\n"
    return source, gen


def _site_key(site):
    if site.kind == "print":
        return (tuple(repr(i) for i in site.node.attrs["items"]), site.node.attrs["sep"],
                site.node.attrs["end"])
    return None


def numba_unsupported_ops(graph):
    """Names of the ops in `graph` (nested graphs included) that cannot be lowered to Numba."""
    gen = CodeGen(graph, collect=True)
    try:
        gen.generate()
    except Unlowerable as error:   # a structural problem outside any single op
        return ["<graph: %s>" % error]
    names = []
    for node, _ in gen.unsupported:
        if node.op.name not in names:
            names.append(node.op.name)
    return names


def unsupported_report(graph):
    """Human-readable lines: each unsupported op, why, and the user line that created it."""
    gen = CodeGen(graph, collect=True)
    try:
        gen.generate()
    except Unlowerable as error:
        return [str(error)]
    return [_describe_unsupported(node, reason) for node, reason in gen.unsupported]


def has_loop(graph):
    return any(node.op.name == "while" for node in graph.walk())


_PRODUCTS = ("matmul", "dot", "outer")


def loop_work(graph):
    """(array work, scalar work) of the ops inside loop bodies: an op counts as array work
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
            if not in_loop or node.op.is_view(node) or node.op.name in ("dim", "size"):
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


# --- the compiled executable -----------------------------------------------------------------

class NumbaCompiledGraph:
    """Executor interface: `compiled(*flat_inputs) -> tuple of flat outputs`;
    `.owned_outputs`, `.source` (the generated code), `.module_file`."""

    def __init__(self, graph, owned_inputs=None, fallback=None):
        from runtime.executors import numba_modules, numba_support
        self.graph = graph
        self.owned_inputs = owned_inputs
        self.fallback = fallback     # a zero-argument function making the NumPy executor
        self.source, gen = generate_source(graph, owned_inputs)
        self.sites = gen.sites
        self.module, self.module_file = numba_modules.load_module(self.source)
        self.dispatcher = self.module.run_graph
        for index, site in enumerate(self.sites):
            if site.kind == "print":
                numba_support.register_site(self.module.__name__, index, site.info["printer"])
        self.owned_outputs = list(gen.plan.owned_outputs)
        self._constants = [array for _, array in gen.constants]
        self._variables = [variable for _, variable in gen.variables]
        self._output_values = list(graph.outputs)
        self._single_return = gen.single_return
        self._uses_err = gen.uses_err
        # Failing values of bounds checks (one buffer per compiled graph: concurrent
        # failures in several threads may mix up the numbers in their messages).
        self._err = np.zeros(_ERR_SIZE, np.int64)
        self._fallback_exec = None
        self._compiled = False
        self._build_call()

    def _build_call(self):
        """A Python function specialised to this graph's inputs and outputs: the per-call
        path is one Numba dispatch plus only the conversions this graph needs."""
        from runtime.executors.numba_support import GraphFail
        inputs = self.graph.all_inputs
        params = ["a%d" % i for i in range(len(inputs))]
        args = ["_k[%d]" % i for i in range(len(self._constants))]
        if self._uses_err:
            args.append("_err")
        lines = ["def call(%s):" % ", ".join(params)]
        if self._variables:
            lines.append("    _bufs = [_var_in(v) for v in _vars]")
            args += ["_bufs[%d]" % i for i in range(len(self._variables))]
        for name, value in zip(params, inputs):
            if value.shape == ():
                args.append("_scalar(%s)" % name)     # 0-d arrays become scalars
            else:
                args.append(name)
        lines.append("    try:")
        lines.append("        r = _disp(%s)" % ", ".join(args))
        lines.append("    except _GraphFail as e:")
        lines.append("        _fail(e)")
        lines.append("    except _Fallback:")
        if self._variables:
            lines.append("        _bufs = ()   # the NumPy interpreter updated the variables")
        lines.append("        return _fallback(%s)" % ", ".join(params))
        if self._variables:
            lines.append("    finally:")
            lines.append("        for v, b in zip(_vars, _bufs):")
            lines.append("            _var_out(v, b)")
        # The dispatcher returns a bare value when the graph has one (boxing a 1-tuple in
        # nopython code costs ~0.5 us per call), else a tuple.
        outs = []
        position = 0
        for i, value in enumerate(self._output_values):
            if value.kind == TENSOR_ARRAY:
                outs.append("_ta(r[%d], r[%d], r[%d], r[%d], _out[%d])" % (
                    position, position + 1, position + 2, position + 3, i))
                position += 4
            else:
                part = "r" if self._single_return else "r[%d]" % position
                outs.append(("_t%d(%s)" % (i, part)) if value.shape == () else part)
                position += 1
        body = lines[1:]
        if self._single_return or outs != ["r[%d]" % i for i in range(len(outs))]:
            lines.append("    return (%s)" % "".join(o + ", " for o in outs))
        else:
            lines.append("    return r")
        # `call_single`: the same call returning output 0 itself, for callers that want the
        # one output of a single-output graph (rt.function's per-call path).
        if len(outs) == 1:
            lines.append("")
            lines.append("def call_single(%s):" % ", ".join(params))
            lines += [line.replace("return _fallback(%s)" % ", ".join(params),
                                   "return _fallback(%s)[0]" % ", ".join(params))
                      for line in body]
            lines.append("    return %s" % outs[0])
        namespace = {
            "_disp": self._first_dispatch,
            "_GraphFail": GraphFail, "_Fallback": _Fallback, "_fail": self._raise_failure,
            "_fallback": self._run_fallback,
            "_k": self._constants, "_vars": self._variables, "_var_in": _variable_in,
            "_var_out": _variable_out, "_scalar": _to_scalar, "_ta": _tensor_array_out,
            "_out": self._output_values, "_err": self._err,
        }
        for i, value in enumerate(self._output_values):
            if value.kind != TENSOR_ARRAY and value.shape == ():
                namespace["_t%d" % i] = value.dtype.type
        self._namespace = namespace
        self.call_source = "\n".join(lines) + "\n"
        exec(compile(self.call_source, "<numba-call %s>" % self.graph.name, "exec"), namespace)
        call = namespace["call"]
        if "call_single" in namespace:
            call.single_output_call = namespace["call_single"]
        call.owned_outputs = self.owned_outputs
        call.direct = self.direct
        call.unchecked_entry = self.unchecked_entry
        call.translate = self.translate
        call.source = self.source
        call.compiled_graph = self
        self.call = call

    def _first_dispatch(self, *args):
        """The first call compiles explicitly, so a compile failure is told apart from an
        error the graph raises at run time; later calls go straight to the dispatcher."""
        import numba
        start = time.perf_counter()
        try:
            self.dispatcher.compile(tuple(numba.typeof(a) for a in args))
        except Exception as error:
            reason = "%s: %s" % (type(error).__name__,
                                 str(error).strip().splitlines()[0] if str(error) else "")
            if self.fallback is None:
                raise NumbaLoweringError("Numba could not compile graph %r: %s\n(use "
                                         "backend='numpy' or 'auto')" % (self.graph.name, reason))
            logger.info("autograph: graph %r runs on the NumPy interpreter: Numba could not "
                        "compile it (%s)", self.graph.name, reason)
            self._fallback_exec = self.fallback()
            self._namespace["_disp"] = _raise_fallback
            raise _Fallback()
        hits = sum(self.dispatcher.stats.cache_hits.values())
        logger.info("autograph: graph %r compiled by Numba in %.3f s (%s)", self.graph.name,
                    time.perf_counter() - start,
                    "loaded from the on-disk cache" if hits else "not in the on-disk cache")
        self._namespace["_disp"] = self.dispatcher
        self._compiled = True
        return self.dispatcher(*args)

    def direct(self):
        """A callable taking the graph inputs that is the Numba dispatcher itself (or a
        functools.partial binding constants and the error buffer), for callers that pass
        inputs exactly as Numba takes them (arrays of rank >= 1, NumPy scalars for rank 0),
        want the single array output as returned, and turn errors with `translate`.
        None when the graph needs the Python layer (variables, tuple or scalar outputs, no
        successful compile yet)."""
        if not self._compiled or self._variables or not self._single_return:
            return None
        out = self._output_values[0]
        if len(self._output_values) != 1 or out.kind == TENSOR_ARRAY or out.shape == ():
            return None
        prefix = list(self._constants) + ([self._err] if self._uses_err else [])
        return functools.partial(self.dispatcher, *prefix) if prefix else self.dispatcher

    def unchecked_entry(self, array):
        """direct(), calling the compiled function itself, for calls with one array like
        `array` (same dtype and rank, C-contiguous, aligned, writeable: `array.flags.carray`):
        Numba's type dispatch is skipped (about 0.1 us of a call). None when there is no
        direct() or nothing was compiled for such arrays. The caller checks dtype, rank and
        `flags.carray` before every call: the compiled code assumes them."""
        direct = self.direct()
        if direct is None or not array.flags.carray:
            return None
        import numba
        prefix = () if direct is self.dispatcher else direct.args
        signature = tuple(numba.typeof(value) for value in prefix + (array,))
        if signature not in self.dispatcher.overloads:
            return None
        compiled = self.dispatcher.get_overload(signature)
        return functools.partial(compiled, *prefix) if prefix else compiled

    def translate(self, error):
        """The exception to raise for `error` from a direct call (GraphFail becomes the NumPy
        interpreter's error; anything else is returned unchanged)."""
        from runtime.executors.numba_support import GraphFail
        if isinstance(error, GraphFail):
            return failure_error(error, self.sites, self.graph, self._err)
        return error

    def _run_fallback(self, *inputs):
        return self._fallback_exec(*inputs)

    def __call__(self, *inputs):
        return self.call(*inputs)

    def _raise_failure(self, failure):
        raise_failure(failure, self.sites, self.graph, self._err)

    def __repr__(self):
        return "<NumbaCompiledGraph %s %s>" % (self.graph.name, self.module.__name__)


class _Fallback(Exception):
    pass


def _raise_fallback(*args):
    raise _Fallback()


def _to_scalar(x):
    if type(x) is np.ndarray and x.ndim == 0:
        return x[()]
    return x


def _variable_in(variable):
    """A private buffer holding the variable's value: the graph updates it in place, and
    the variable gets it back after the run (the NumPy interpreter replaces the array too)."""
    array = variable._array
    if array.ndim == 0:
        return array.reshape(1).copy()
    return array.copy()


def _variable_out(variable, buffer):
    variable._array = buffer.reshape(()) if variable._array.ndim == 0 else buffer


def _tensor_array_out(buf, written, size, dynamic, value):
    from runtime.ops.state import TensorArrayBuffer
    items = [(np.array(buf[i]) if buf.ndim > 1 else value.dtype.type(buf[i])) if written[i]
             else None for i in range(size)]
    element_shape = buf.shape[1:] if buf.ndim > 1 or value.shape is None else value.shape
    return TensorArrayBuffer(items, value.dtype, element_shape, bool(dynamic))


def raise_failure(failure, sites, graph, err=None):
    """Turn a GraphFail from generated code into the NumPy interpreter's exception."""
    raise failure_error(failure, sites, graph, err) from None


def _shape_text(shape):
    """A shape as NumPy's broadcasting errors print it: (3,) or (3,2)."""
    return "(%s%s)" % (",".join(str(d) for d in shape), "," if len(shape) == 1 else "")


def failure_error(failure, sites, graph, err=None):
    """The NumPy interpreter's exception for a GraphFail from generated code."""
    args = failure.args
    site = sites[args[0]]
    where = "While executing %s" % describe_node(site.node, graph)
    kind = site.kind
    if kind == "index":
        index, size = (args[1], args[2]) if len(args) > 2 else (int(err[0]), int(err[1]))
        message = "index %d is out of bounds for axis %d with size %d" % (
            index, site.info["axis"], size)
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "mask":
        message = ("boolean index did not match indexed array along axis %d; size of axis "
                   "is %d but size of corresponding boolean axis is %d"
                   % (site.info["axis"], args[2], args[1]))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "assert":
        values = args[1:]
        items = site.info["items"]
        text = site.node.attrs["message"]
        if items:
            from runtime.ops.state import SLOT
            it = iter(zip(values, site.info["dtypes"]))
            parts = []
            for item in items:
                if item is SLOT:
                    value, dtype = next(it)
                    parts.append(str(np.dtype(dtype).type(value)))
                else:
                    parts.append(str(item))
            text = " ".join(parts)
        error = errors.InvalidArgumentError("%s\n%s" % (text, where))
    elif kind == "ta_write":
        message = ("TensorArray write index %d is out of range for size %d (create it with "
                   "dynamic_size=True to grow)" % (args[1], args[2]))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind in ("ta_read", "ta_stack"):
        index, size, reason = args[1], args[2], args[3]
        if reason == 0:
            error = errors.OutOfRangeError(
                "TensorArray read index %d is out of range for size %d\n%s" % (index, size, where))
        elif reason == 1:
            error = errors.InvalidArgumentError(
                "TensorArray element %d was read before it was written\n%s" % (index, where))
        else:
            error = errors.InvalidArgumentError(
                "TensorArray element %d was never written; cannot stack\n%s" % (index, where))
    elif kind == "put_shape":
        q = int(err[0])
        value_shape = tuple(int(d) for d in err[1:1 + q])
        r = int(err[1 + q])
        target_shape = tuple(int(d) for d in err[2 + q:2 + q + r])
        error = ValueError("shape mismatch: value array of shape %s could not be broadcast to "
                           "indexing result of shape %s" % (_shape_text(value_shape),
                                                            _shape_text(target_shape)))
        error.add_note(where)
    elif kind == "squeeze":
        error = ValueError("cannot select an axis to squeeze out which has size not equal to one")
        error.add_note(where)
    else:
        error = errors.InvalidArgumentError("graph failure at %s\n%s" % (kind, where))
    error._rt_node_reported = True
    return error


# --- executor entry points -------------------------------------------------------------------

def compile_graph(graph, owned_inputs=None):
    """backend="numba": compile `graph` with Numba, or raise NumbaLoweringError naming the ops
    without a lowering and where the user created them."""
    report = unsupported_report(graph)
    if report:
        raise NumbaLoweringError(
            "backend='numba' cannot run graph %r: %s\n(use backend='numpy' or 'auto')"
            % (graph.name, "; ".join(report)))
    return NumbaCompiledGraph(graph, owned_inputs).call


def compile_graph_auto(graph, owned_inputs=None):
    """backend="auto": Numba for graphs with loops whose every op lowers (falling back to the
    NumPy interpreter if Numba cannot compile them), the NumPy interpreter otherwise."""
    from runtime.executors import numpy_exec

    def numpy_executor():
        return numpy_exec.compile_graph(graph, owned_inputs)

    if not has_loop(graph):
        return numpy_executor()
    array_work, scalar_work = loop_work(graph)
    if array_work > scalar_work:
        logger.info("autograph: graph %r runs on the NumPy interpreter: its loops do mostly "
                    "array work (%d array vs %d scalar op units), where NumPy is as fast",
                    graph.name, array_work, scalar_work)
        return numpy_executor()
    report = unsupported_report(graph)
    if report:
        logger.info("autograph: graph %r runs on the NumPy interpreter: %s",
                    graph.name, "; ".join(report))
        return numpy_executor()
    try:
        compiled = NumbaCompiledGraph(graph, owned_inputs, fallback=numpy_executor)
    except Exception as error:   # code generation or module loading failed
        logger.info("autograph: graph %r runs on the NumPy interpreter: %s: %s",
                    graph.name, type(error).__name__, error)
        return numpy_executor()
    # The NumPy interpreter may take over after a failed compile: promise only what both own.
    reference = numpy_executor()
    compiled.owned_outputs[:] = [a and b for a, b in zip(compiled.owned_outputs,
                                                         reference.owned_outputs)]
    compiled.fallback = lambda: reference
    return compiled.call
