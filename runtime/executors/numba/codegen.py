"""The Numba code generator: the source of one Python function per graph, for `numba.njit`
(runtime/executors/numba/compiled.py loads, compiles and calls it).

Code generation
  Every graph becomes one function `run_graph(a0, a1, ..., k0, ...)` in a module file named
  by the hash of its source (runtime/executors/numba/module_cache.py), compiled with
  `disk_cache.jit(error_model="numpy")` (numba.njit with its on-disk cache in the
  project's cache root) so a second process loads it from the cache. `while` nodes
  become real `while` loops, `cond` nodes real `if`s; nested graphs are inlined (their
  placeholders are the outer names). Rank-0 values are Numba scalars, so scalar loops compile to native code. Array constants, variables and the
  Generators of random draws are extra arguments (`k*`), never globals. Tensor arrays are
  growable buffers (data, written flags, size, dynamic_size), the buffers in one-element
  lists that a loop never rebinds (runtime/executors/numba/support.py says why). Each op's code comes from its
  lowering, `op.numba(g, node, ins)`, defined next to the op in runtime/ops/*.py with
  `@get(name).def_numba` (shared helpers: runtime/executors/numba/lowering.py): it returns
  an expression, a list of expressions (one per output), or None after emitting statements
  itself; it raises `Unlowerable` for attribute combinations it cannot handle. `cond` and `while` are generated here.
  The code is generic over dimension sizes: Numba specialises it on dtype, rank and layout.
  Chains of elementwise float ops (comparisons and np.where among them) become one loop
  each (runtime/executors/numba/fusion.py, which says why and when); their nodes are
  skipped here and emitted with the chain's last.
  This module imports no op module: it reaches each op's lowering through `node.op.numba`.

Buffers
  set_item and tensor-array writes update their buffer in place when the old version is
  dead and owned by this run (the same ownership rules as the NumPy interpreter: owned
  arguments, fresh allocations, loop variables handed from iteration to iteration), and
  copy first otherwise.

Checks
  Failing checks raise `support.GraphFail(site, ...)` (compiled.py turns it into the NumPy
  interpreter's exception). Code Numba itself may raise in (array ops whose shapes may not
  fit, reductions of empty arrays, dims that may be negative) is preceded by
  `err[NODE_SLOT] = site + 1`, so an exception from Numba names the node that raised it
  too (scalar code, element reads and writes, and ops that keep their one array
  operand's shape cannot raise there, and go without; the one such node of a graph with
  no object-mode callback goes without too: an error of Numba's can only be its). Bounds checks are explicit (inline, with NumPy's messages);
  measured on edit_distance: about as fast as `boundscheck=True` (~1.4x the unchecked
  loop), which cannot say which node failed. Checks the bounds analysis
  (runtime/executors/numba/bounds.py) proves unneeded are left out: an index known >= 0
  skips the negative-index normalisation, one also known below its axis size (e.g. `x[i]`
  in `for i in range(x.shape[0])`, `D[i - 1, j]` with `D = zeros((m + 1, n + 1))`) has no
  check at all; edit_distance then compiles ~2x faster. `rt.print` runs in a
  `with numba.objmode():` block (in its own small jitted function) that prints through the
  same formatting as the NumPy kernel, to the `sys.stdout` of that moment.
"""

import collections
import hashlib
import importlib.util
import itertools
import os
import re
import sys

import numpy as np

from runtime.executors import planning
from runtime.executors.numba import advanced_indexing, fusion
from runtime.executors.numba.bounds import Bounds, lower_bound
from runtime.executors.numba.lowering import (TA_PARTS, Unlowerable, literal_text, loop_index,
                                              np_dtype, numpy_loops)
from runtime.executors.planning import Ownership
from runtime.graph import TENSOR_ARRAY, describe_node


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

class Site:
    """A place in generated code that can fail or call back into Python."""

    __slots__ = ("kind", "node", "info")

    def __init__(self, kind, node, info):
        self.kind = kind
        self.node = node
        self.info = info


# The `err` entry that holds 1 + the site of the node running Numba code that may raise.
NODE_SLOT = 71


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
      g.object_arg(obj)            an object (a Generator) passed as an extra argument
      g.numpy_loop(ufunc, dtype)   (table argument, row) of NumPy's loop of a ufunc, or None
      g.fresh_temporary(value)     may the node being lowered write its result into value?
      g.outputs(node)              the names the node's outputs get (for statement lowerings)
      g.checked_index(...)         a scalar index, bounds-checked (see its docstring)
      g.known_lower_bound(value)   what an int scalar is proven >= (bounds.py), or None
      g.gather(node, entries, x)   x[index] with integer arrays or masks (advanced_indexing.py)
      g.scatter(node, entries, x, value, val)   x[index] = value, likewise
    """

    # The `err` entries before NODE_SLOT hold what a failed check reports.
    node_slot = NODE_SLOT

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
        self._reads = None
        self._readers = None      # id of a value -> the nodes that read it
        self._loop_bodies = set()
        self._bounds = None
        self._fresh = set()       # outputs of fused loops (fusion.py)
        self._uses = {}           # value -> number of reads in its graph
        self._uncertain = None    # values whose rank the graph may not know (fusion.py)
        # Locals holding a scalar that a pure expression computes -> their line in
        # self.lines: dropped where nothing reads them (_drop_unread).
        self._pure_locals = {}
        # The pure scalar expressions of scalars computed in the blocks enclosing the
        # current line: text -> (local, depth). See _reuse.
        self._available = {}
        # Inside the body of a loop whose break flag is left out (_break_flag): what says
        # whether the iteration breaks, in the code being emitted (a _Break), else None.
        self._break = None
        # The innermost loop being emitted (a _Loop), else None.
        self._loop = None
        # The counters of the counted loops (_counter) starting at literals >= 0: id of the
        # body's loop variable -> the loop's stop (_counted_product).
        self._counted = {}

    @property
    def depth(self):
        return self._depth

    @depth.setter
    def depth(self, depth):
        # Leaving a block (a branch, a loop body) forgets what was computed in it: it may
        # not have run, or read loop variables that the next iteration rebinds.
        if depth < getattr(self, "_depth", depth):
            self._available = {text: (name, d) for text, (name, d) in self._available.items()
                               if d <= depth}
        self._depth = depth

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

    def known_lower_bound(self, value):
        """A lower bound of int scalar Value `value` that bounds.py proves (a literal, a
        dim, a loop counter plus one...), or None."""
        if self._bounds is None:
            self._bounds = Bounds(self.graph)
        lin = self._bounds.lin(value)
        return None if lin is None else lower_bound(lin)

    def checked_index(self, node, index, array, axis, value=None):
        """An expression for `index` normalised for `array`'s axis, after an inline bounds
        check (inline with a constant-argument raise: measured ~2x cheaper to compile than a
        helper or runtime-valued exception arguments; the failing values go to `err`).
        The normalisation is explicit on purpose: leaving negative indices to Numba's own
        wraparound compiles ~15% faster but runs edit_distance 3x slower (measured).
        `value` (the index Value or int of get_item / set_item `node`) lets the bounds
        analysis (runtime/executors/numba/bounds.py) drop what it proves: the normalisation
        of an index known >= 0, the whole check of one also known below the axis size."""
        nonneg = below = False
        if value is not None:
            if self._bounds is None:
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

    def gather(self, node, entries, source):
        return advanced_indexing.gather(self, node, entries, source)

    def scatter(self, node, entries, target, value, val, combine=None):
        advanced_indexing.scatter(self, node, entries, target, value, val, combine)

    def fresh_temporary(self, value):
        """Is `value` an array a fused loop wrote (new, C-contiguous) that nothing reads but
        the node being lowered (which may then write its result into it)?"""
        return value in self._fresh and self._uses.get(value) == 1

    def is_used(self, value):
        """Does any node or graph output read `value`?"""
        return self.reads(value) > 0

    def reads(self, value):
        """How many times nodes and graph outputs read `value`."""
        if self._reads is None:
            reads = collections.Counter()
            for node in self.graph.walk():
                reads.update(id(v) for v in node.inputs)
                for _, sub in node.subgraphs:
                    reads.update(id(v) for v in sub.outputs)
            reads.update(id(v) for v in self.graph.outputs)
            self._reads = reads
        return self._reads[id(value)]

    def add_function(self, lines):
        """Add a module-level function (e.g. a jitted helper) before the graph function."""
        self.functions.append(list(lines))

    def constant_arg(self, array):
        name = "k%d" % len(self.constants)
        self.constants.append((name, array))
        return name

    def object_arg(self, obj):
        """An object the graph holds (a np.random.Generator) as an extra argument, passed
        like the array constants (one per object)."""
        for name, held in self.constants:
            if held is obj:
                return name
        return self.constant_arg(obj)

    def numpy_loop(self, ufunc, dtype):
        """(name of the argument holding lowering.numpy_loops(), row) of NumPy's own loop
        for `ufunc` (of lowering.NUMPY_UNARY or NUMPY_REDUCE) on arrays of `dtype`, or None."""
        row = loop_index(ufunc, dtype)
        if row is None:
            return None
        return self.object_arg(numpy_loops()), row

    def variable_arg(self, variable):
        name = self._variable_args.get(id(variable))
        if name is None:
            name = "var%d" % len(self.variables)
            self.variables.append((name, variable))
            self._variable_args[id(variable)] = name
        return name

    # -- generation ------------------------------------------------------------------------
    def _bind_new(self, value):
        """A fresh local for `value`; for a tensor array, a tuple of four (TA_PARTS)."""
        if value.kind == TENSOR_ARRAY:
            base = self.tmp("ta")
            name = tuple(base + part for part in TA_PARTS)
        else:
            name = self.tmp("v")
        self.names[value] = name
        return name

    def generate(self):
        """The function's source lines (body only) and its parameter names."""
        params = ["a%d" % i for i in range(len(self.graph.all_inputs))]
        for name, value in zip(params, self.graph.all_inputs):
            if value.kind == TENSOR_ARRAY:
                raise Unlowerable("a tensor array as a graph input")
        outputs = self._graph(self.graph, self.plan, params)
        self._drop_unread(outputs)
        marked = [i for i, site in enumerate(self.sites) if site.kind == "node"]
        if len(marked) == 1 and not any("callback" in site.info for site in self.sites):
            # The one node whose code Numba may raise in: every error Numba raises is its
            # (failures.located_error), with no marker to set (~5% of mandelbrot's compile,
            # whose np.zeros it is, measured: tools/bench_compile.py); an object-mode
            # callback, which may raise too, keeps it.
            marker = "err[%d] = %d" % (NODE_SLOT, marked[0] + 1)
            self.lines = [line for line in self.lines if line.strip() != marker]
            self.sites[marked[0]].info["unmarked"] = True
            self.uses_err = any(_ERR.search(line) for line in self.lines)
        elif marked:
            # A failure before the first marked node must not name a node of an earlier call.
            self.lines.insert(0, "    err[%d] = 0" % NODE_SLOT)
        parts = []
        for value, text in zip(self.graph.outputs, outputs):
            if value.kind == TENSOR_ARRAY:   # (the arrays out of their holders)
                b, w, n, d = text
                parts += [b + "[0]", w + "[0]", n, d]
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
        if self._uncertain is None:
            self._uncertain = fusion.uncertain_ranks(self.graph)
        trees, members, uses = fusion.plan(graph, self._uncertain)
        self._uses.update(uses)
        updates = {}
        for node, (gather, root) in fusion.masked_updates(graph, trees, uses,
                                                          self._uncertain).items():
            updates[node] = (gather, trees.pop(root))
            members = members | {gather} | set(updates[node][1])   # (in the update's loop)
        for node in graph.nodes:
            if node in updates:
                self._masked_update(node, *updates[node])
            elif node in trees:
                self._fused(node, trees[node])
            elif node not in members:   # (computed in a later node's loop)
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
            if node.errstate is not None and "raise" in node.errstate.values():
                # (Numba code neither raises nor warns on floating-point errors.)
                raise Unlowerable("np.errstate(...='raise') around it")
            folded = self._fold(node)
            if folded is not None:
                self.names[node.outputs[0]] = folded
                return
            if op.name == "raise" and node.attrs["conditional"] \
                    and self.expr(node.inputs[0]) == "True":
                return   # (its check holds: _fold)
            ins = [self.expr(v) for v in node.inputs]
            if _numba_may_raise(node):
                self.uses_err = True
                self.emit("err[%d] = %d" % (NODE_SLOT, self.site(node, "node") + 1))
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
        pure = not op.effect and not _numba_may_raise(node)
        of_scalars = all(self.is_scalar(v) for v in node.inputs)
        for value, text in zip(node.outputs, result):
            if value.kind == TENSOR_ARRAY:
                self.names[value] = tuple(self._local(sub, "ta%s" % part)
                                          for part, sub in zip(TA_PARTS, text))
                continue
            scalar = pure and self.is_scalar(value) and not _CHECKS.search(text)
            if scalar and of_scalars and text not in self._available \
                    and _nesting(text) < _MAX_NESTING and not _BRANCHES.search(text) \
                    and self._read_once_by_scalars(value):
                self.names[value] = _operand(text)
            elif scalar and of_scalars:
                self.names[value] = self._reuse(text)
            else:
                self.names[value] = self._local(text, "v", scalar)

    def _fused(self, root, tree):
        """`root` and the elementwise nodes of its tree as one loop (fusion.py)."""
        out = root.outputs[0]
        name = fusion.emit(self, root, tree)
        if name is not None:
            self.names[out] = name
            self._fresh.add(out)

    def _masked_update(self, node, gather, tree):
        """x[m] = f(x[m]) as one loop over the mask (fusion.masked_updates), in x's buffer
        where set_item may write it in place, else in a copy."""
        target = self.expr(node.inputs[0])
        if not self.inplace(node):
            copy = self.tmp()
            self.emit("%s = %s.copy()" % (copy, target))
            target = copy
        fusion.emit_masked_update(self, node, gather, tree, target)
        self.names[node.outputs[0]] = target

    def _local(self, text, prefix, pure=False):
        """A local holding `text`: `text` itself when it is a name already (an array
        updated in place, a tensor array's holders): a copy `v2 = v1` of an array-typed
        loop variable costs a Numba incref and decref on every iteration."""
        if text.isidentifier():
            return text
        name = self.tmp(prefix)
        if pure:
            self._pure_locals[name] = len(self.lines)
        self.emit("%s = %s" % (name, text))
        return name

    def _read_once_by_scalars(self, value):
        """Is `value` read once, by a node of its own graph whose inputs and outputs are all
        scalars and that is no `cond` or `while` (not as a capture, nor as a graph's
        result)? Its pure expression then goes into that node's text, not in a local of
        its own: `(v9 / (1.0 + abs(v4)))`, as the user wrote it. Numba makes a variable
        of every local: measured on loop100, ~2% of its compile (tools/bench_compile.py)."""
        if self._readers is None:
            self._readers = collections.defaultdict(list)
            for node in self.graph.walk():
                for v in node.inputs:
                    self._readers[id(v)].append(node)
        readers = self._readers[id(value)]
        if len(readers) != 1 or self.reads(value) != 1:
            return False
        reader = readers[0]
        return reader.graph is value.node.graph and not reader.op.control_flow and all(
            self.is_scalar(v) for v in reader.inputs + reader.outputs)

    def _reuse(self, text):
        """The local holding `text`, a pure expression of scalars: one computed already in
        this block or an enclosing one, else a new one. Index arithmetic repeats (`i - 1`
        three times in edit_distance's body, `n + 1` in each loop's bound); Numba types
        every local it is given: measured on edit_distance, ~5% of its compile
        (tools/bench_compile.py). Text is a safe key: scalar locals are bound once, but
        for loop variables and cond outputs, whose assignments end their blocks."""
        known = self._available.get(text)
        if known is not None:
            return known[0]
        name = self._local(text, "v", pure=True)
        self._available[text] = (name, self.depth)
        return name

    def _drop_unread(self, outputs):
        """Drops the lines of pure scalar locals (see _local) that nothing reads, again
        until none is left: a comparison whose `where` became Python's `max`, a value only
        a dropped one read. Numba types and lowers every local it is given; in a 100-op loop
        body the dead ones cost about a tenth of the compile (tools/bench_compile.py)."""
        lines = self.lines
        returned = {name for text in outputs for name in _parts(text)}
        while True:
            reads = collections.Counter(_NAME.findall("\n".join(filter(None, lines))))
            dead = [i for name, i in self._pure_locals.items()
                    if lines[i] is not None and reads[name] == 1 and name not in returned]
            if not dead:
                break
            for i in dead:
                lines[i] = None
        kept = []
        for i, line in enumerate(lines):
            if line is None:
                continue
            kept.append(line)
            if line.endswith(":"):   # (a block: not left empty)
                indent = len(line) - len(line.lstrip())
                following = next((l for l in lines[i + 1:] if l is not None), "")
                if len(following) - len(following.lstrip()) <= indent:
                    kept.append(" " * (indent + 4) + "pass")
        self.lines = kept
        self._pure_locals = {}

    def _assign_like(self, target, source_value, text, dtype_value):
        """`target = text` converting literals / scalars to the target's type."""
        if dtype_value.kind == TENSOR_ARRAY:
            for part, target_part, source_part in zip(TA_PARTS, target, text):
                if part == "_b" and source_value.dtype != dtype_value.dtype:
                    # A list-like tensor array whose dtype was promoted (ints, then floats).
                    self.emit("%s = [%s[0].astype(%s)]" % (target_part, source_part,
                                                           np_dtype(dtype_value.dtype)))
                elif target_part != source_part:
                    self.emit("%s = %s" % (target_part, source_part))
            return
        if target == text:
            return
        if source_value.is_literal:
            text = literal_text(source_value.literal, dtype_value.dtype)
        elif self.is_scalar(dtype_value) and source_value.dtype != dtype_value.dtype:
            text = self.scalar_cast(text, dtype_value.dtype)
        elif not self.is_scalar(dtype_value) and source_value.dtype != dtype_value.dtype:
            text = "%s.astype(%s)" % (text, np_dtype(dtype_value.dtype))
        self.emit("%s = %s" % (target, text))

    def _cond(self, node):
        pred_value = node.inputs[0]
        pred = self.expr(pred_value)
        if not self.is_scalar(pred_value):
            raise Unlowerable("a cond on a non-scalar predicate")
        captures = [self.expr(v) for v in node.inputs[1:]]
        branches = list(zip((node.attrs["then_branch"], node.attrs["else_branch"]),
                            self._current_plan.children[node]))
        flag = self._break.value if self._break is not None \
            and self._break.value in node.outputs else None
        breaking = [i for i, (graph, _) in enumerate(branches)
                    if flag is not None and _is_true(graph.outputs[node.outputs.index(flag)])]
        continuing = self._continues(node)
        if pred in _BOOLS:   # (the break flag decides it: _fold)
            self._inline(node, *branches[pred == "False"], captures)
        elif breaking:
            # `if c: ...; break`, then the other branch, as the user wrote it.
            self.emit(("if %s:" if breaking[0] == 0 else "if not %s:") % pred)
            self.depth += 1
            self._inline(node, *branches[breaking[0]], captures)
            self.depth -= 1
            self._inline(node, *branches[1 - breaking[0]], captures)
        elif continuing is not None:
            # `if c: continue`, then the other branch, as the user wrote it.
            self.emit(("if %s:" if continuing == 0 else "if not %s:") % pred)
            self.emit("    continue")
            self._inline(node, *branches[1 - continuing], captures)
        else:
            outs = [self._bind_new(v) for v in node.outputs]
            self.emit("if %s:" % pred)
            for graph, plan in branches:
                self.depth += 1
                start = len(self.lines)
                results = self._branch(node, graph, plan, captures)
                for out_name, out_value, inner, text in zip(outs, node.outputs, graph.outputs,
                                                            results or ()):
                    if self.is_used(out_value) and out_value is not flag:   # (Numba types
                        self._assign_like(out_name, inner, text, out_value)  # every assignment)
                if len(self.lines) == start:
                    self.emit("pass")
                self.depth -= 1
                if graph is node.attrs["then_branch"]:
                    self.emit("else:")
        if flag is not None:   # (the code that follows runs where the iteration goes on)
            self.names[flag] = "False"

    def _continues(self, node):
        """0 or 1 when that branch of cond `node` can be a `continue`, else None: `node` is
        in the body of the loop being emitted, and the branch has no nodes and leaves every
        loop variable as it was (a break flag False) where the body's results are those of
        `node`, of nodes before it, or pure scalar nodes after it (the counter step of a
        `for`, which needs no assignment). `if c: continue` then leaves the rest of the body
        in the other branch, without a copy of every loop variable (`v9 = v3`, `v3 = v9`):
        measured, ~2% of count_primes' compile (tools/bench_compile.py)."""
        loop = self._loop
        if loop is None or node.graph is not loop.body:
            return None
        after = loop.body.nodes[loop.body.nodes.index(node) + 1:]
        if any(_has_effect(n) or n.subgraphs or _numba_may_raise(n) for n in after):
            return None
        for b, branch in enumerate((node.attrs["then_branch"], node.attrs["else_branch"])):
            if not branch.nodes and all(
                    i == loop.counter or _kept(end, start, node, branch)
                    or i == loop.flag and end in node.outputs and _is_false(
                        branch.outputs[node.outputs.index(end)])
                    for i, (end, start) in enumerate(zip(loop.body.outputs,
                                                         loop.body.all_inputs))):
                return b
        return None

    def _inline(self, node, graph, plan, captures):
        """Branch `graph` of cond `node` emitted at the current depth, its results taken as
        the cond's outputs (where it breaks, none: nothing after it runs)."""
        results = self._branch(node, graph, plan, captures)
        for out, inner, text in zip(node.outputs, graph.outputs, results or ()):
            if inner.is_literal and self.is_scalar(out):
                self.names[out] = literal_text(inner.literal, out.dtype)
            elif inner.dtype == out.dtype:
                self.names[out] = text
            elif self.is_used(out):
                self._assign_like(self._bind_new(out), inner, text, out)

    def _branch(self, node, graph, plan, captures):
        """The results of branch `graph` of cond `node`, emitted; None where it breaks (the
        loop variables read after the loop are assigned first)."""
        outer = self._break
        if outer is not None and outer.value in node.outputs:
            # Inside the branch, its results stand for the cond's outputs.
            inner = {id(out): value for out, value in zip(node.outputs, graph.outputs)}
            self._break = _Break(inner[id(outer.value)],
                                 [(name, out, inner.get(id(end), end))
                                  for name, out, end in outer.ends])
        else:
            self._break = None
        results = self._graph(graph, plan, captures)
        broke = self._break_here()
        self._break = outer
        return None if broke else results

    def _break_here(self):
        """`break` where the flag of the loop being emitted is true here, after assigning the
        loop variables read after the loop; whether it did."""
        if self._break is None or self.expr(self._break.value) != "True":
            return False
        self._assign_all([(name, out, end, self.expr(end)) for name, out, end in self._break.ends])
        self.emit("break")
        return True

    def _assign_all(self, pending):
        """Assigns every (name, value, inner, text) at once, `name = text`: through
        temporaries when a text reads a name assigned before it."""
        changes = [(target, source) for name, _, _, text in pending
                   for target, source in zip(_parts(name), _parts(text)) if target != source]
        assigned = {target for target, _ in changes}
        if any(source in assigned for _, source in changes):
            temps = []
            for name, value, inner, text in pending:
                temp = self._bind_temp(value, inner, name, text)
                self._assign_like(temp, inner, text, value)
                temps.append((name, temp))
            for name, temp in temps:
                for target, source in zip(_parts(name), _parts(temp)):
                    if target != source:
                        self.emit("%s = %s" % (target, source))
        else:
            for name, value, inner, text in pending:
                self._assign_like(name, inner, text, value)

    def _fold(self, node):
        """The text of `node`'s output where bool constants among its inputs decide it, else
        None: `not False` is True, `c and True` is c (the break flag reads False inside its
        loop: _break_flag)."""
        name = node.op.name
        if name == "int_fits":
            return "True" if self._counted_product(node) else None
        if name not in ("logical_not", "logical_and", "cast") or not all(
                self.is_scalar(v) and v.dtype == np.bool_ for v in node.inputs + node.outputs):
            return None
        texts = [self.expr(v) for v in node.inputs]
        if name == "logical_not":
            return {"True": "False", "False": "True"}.get(texts[0])
        if name == "cast":
            return texts[0] if texts[0] in _BOOLS else None
        if "False" in texts:
            return "False"
        if "True" in texts:
            return texts[texts[0] == "True"]
        return None

    def _counted_product(self, node):
        """Is int_fits `node` a product i * c of the counter i of a counted loop (_counter)
        over range(start, max(0, x // d)) with literals start >= 0 and 0 < |c| <= d (a
        `for`, or a `while True` that breaks)? Then
        0 <= i * c < (x // d) * d <= x: it fits (`for i in range(n // 2): x[2 * i]`). The
        OverflowError check of that product (runtime/path_kinds.py) cost ~6% of
        count_primes' compile (tools/bench_compile.py). (A range with a step computes its
        items with no check: range_item.)"""
        if node.attrs["operator_name"] != "multiply" or len(node.inputs) != 2:
            return False
        for counter, factor in (node.inputs, node.inputs[::-1]):
            stop = self._counted.get(id(_outside(counter)))
            if stop is None or not factor.is_literal or factor.dtype.kind not in "iu":
                continue
            clamp = stop.node
            if clamp is not None and clamp.op.name == "maximum" and len(clamp.inputs) == 2 \
                    and any(_is_zero(v) for v in clamp.inputs):
                stop = next(v for v in clamp.inputs if not _is_zero(v))
            quotient = stop.node
            divisor = 1
            if quotient is not None and quotient.op.name == "floor_divide" \
                    and quotient.inputs[1].is_literal:
                divisor = quotient.inputs[1].literal
            if 0 < abs(int(factor.literal)) <= divisor:
                return True
        return False

    def _while(self, node):
        cond_plan, body_plan = self._current_plan.children[node]
        copy = self._current_plan.copy_at_entry[node]
        n = node.attrs["n_loop_vars"]
        body = node.attrs["body"]
        loop_names = []
        for i, value in enumerate(node.outputs):
            name = self._initial_local(node, i)
            if name is None:
                name = self._bind_new(value)
            self.names[value] = name
            loop_names.append(name)
        flag = self._break_flag(node)
        counted = self._counter(node, flag)
        if counted is not None:
            start = node.inputs[counted[0]]
            if start.is_literal and start.literal >= 0:
                self._counted[id(body.all_inputs[counted[0]])] = node.inputs[counted[1]]
            if flag is not None:
                # A `for` that breaks runs slower than `while True` and its test (Numba
                # keeps a range's iterator in memory then): count_primes' trial division,
                # 2.40 vs 2.08 ms, measured.
                counted = None
        for i, (name, value, init) in enumerate(zip(loop_names, node.outputs, node.inputs[:n])):
            text = self.expr(init)
            if counted is not None and i == counted[0] or i == flag:
                continue   # (the range's start; a flag left out)
            if i in copy:
                if value.kind == TENSOR_ARRAY:
                    self.emit("%s = [%s[0].astype(%s)]" % (name[0], text[0],
                                                           np_dtype(value.dtype)))
                    self.emit("%s = [%s[0].copy()]" % (name[1], text[1]))
                    self.emit("%s = %s" % (name[2], text[2]))
                    self.emit("%s = %s" % (name[3], text[3]))
                    continue
                text = "%s.copy()" % text
                self.emit("%s = %s" % (name, text))
                continue
            self._assign_like(name, init, text, value)
        captures = [self.expr(v) for v in node.inputs[n:]]
        inputs = loop_names + captures
        outer = self._break   # (a break in this loop leaves this loop only)
        self._break = None
        outer_loop = self._loop
        self._loop = _Loop(node, body, loop_names, counted[0] if counted is not None else None, flag)
        if flag is not None:
            inputs[flag] = "False"
        if counted is not None:
            k, bound = counted
            stop = _unclamped(node.inputs[k], node.inputs[bound])
            self.emit("for %s in range(%s, %s):" % (
                loop_names[k], self.expr(node.inputs[k]),
                self.expr(stop) if stop is not None else inputs[bound]))
            self.depth += 1
        else:
            self.emit("while True:")
            self.depth += 1
            test = self._graph(node.attrs["cond"], cond_plan, inputs)[0]
            test_value = node.attrs["cond"].outputs[0]
            if not self.is_scalar(test_value):
                raise Unlowerable("a while condition that is not a scalar")
            if test != "True":
                self.emit("if not %s:" % test)
                self.emit("    break")
        if flag is not None:
            self._break = _Break(body.outputs[flag], [
                (name, value, end) for i, (name, value, end)
                in enumerate(zip(loop_names, node.outputs, body.outputs))
                if i != flag and self.is_used(value)])
        self._loop_bodies.add(body)
        results = self._graph(body, body_plan, inputs)
        self._break_here()
        self._break = outer
        self._loop = outer_loop
        for i in (counted[0] if counted is not None else None, flag):
            if i is not None:   # (the range steps the counter; a flag is left out)
                results[i] = loop_names[i]
        # The next iteration's loop variables: only the locals that change are assigned (a
        # tensor array written in place keeps its holders, an array updated in place its
        # name).
        self._assign_all([(name, value, inner, text) for name, value, inner, text
                          in zip(loop_names, node.outputs, body.outputs, results)
                          if text != name])
        self.depth -= 1

    def _initial_local(self, node, i):
        """The local of loop variable i's initial value where the loop variable may take it
        over, else None: an array of its type that nothing else reads, in a local that no
        other value holds but the versions it was written in place from (dead), or that of
        a loop variable, of the loop around (whose next value is then this loop's) or of a
        loop before (done). No `v5 = v2` before the loop: Numba increfs and decrefs an array
        local copied; measured, ~4% of mandelbrot's compile and of edit_distance's
        (tools/bench_compile.py)."""
        init, value = node.inputs[i], node.outputs[i]
        name = self.names.get(init)
        if value.kind == TENSOR_ARRAY or self.is_scalar(value) or init.is_literal \
                or init.dtype != value.dtype or len(init.shape) != len(value.shape) \
                or i in self._current_plan.copy_at_entry[node] or self.reads(init) != 1 \
                or not isinstance(name, str) or not name.isidentifier():
            return None
        versions = [init]
        while versions[-1].node is not None and versions[-1].node.op.inplace_input is not None:
            written = versions[-1].node.inputs[versions[-1].node.op.inplace_input]
            if self.names.get(written) != name:
                break
            versions.append(written)
        first = versions[-1]
        if first.graph in self._loop_bodies and first in first.graph.inputs \
                or first.node is not None and first.node.op.name == "while" \
                or first.node is not None \
                and list(self.names.values()).count(name) == len(versions):
            return name
        return None

    def _break_flag(self, node):
        """b when loop variable b of `while` node is a break flag the code can leave out,
        else None: a bool starting False that nothing reads after the loop, which the body
        sets True only in branches where the iteration ends (_breaks). In the loop it reads
        False; where it becomes true, the code assigns the loop variables read after the
        loop and breaks, as Python does, instead of carrying a flag through an if/else that
        copies every loop variable: measured, ~7% of mandelbrot's compile and ~8% of
        count_primes' (tools/bench_compile.py)."""
        n = node.attrs["n_loop_vars"]
        body = node.attrs["body"]
        for b, (init, out) in enumerate(zip(node.inputs[:n], node.outputs)):
            if not (init.is_literal and init.dtype == np.bool_ and not init.literal
                    and out.shape == ()) or self.is_used(out):
                continue
            ends = [end for i, (end, value) in enumerate(zip(body.outputs, node.outputs))
                    if i != b and self.is_used(value)]
            if _stops(node.attrs["cond"].outputs[0], node.attrs["cond"].all_inputs[b]) \
                    and _breaks(body.outputs[b], body, ends, body.all_inputs[b]):
                return b
        return None

    def _counter(self, node, flag=None):
        """(k, j) when the `while` node is a counted loop, `for` over `range(start, stop)`:
        its condition is only `i < stop` (and `not flag` where loop variable `flag` is a
        break flag left out: _break_flag; such a loop stays `while True`, its counter's
        bounds known: _counted_product), i its loop variable k, an int that the body
        steps by 1, stop its loop-invariant input j of i's dtype (a capture, or a loop
        variable the body leaves as it is), and nothing reads i after the loop (where a
        `for` leaves the last value, not stop). Else None.

        Numba types a `for` over a range at once; a `while True` whose counter starts at a
        literal it types again until the counter's type settles: a tenth of the compile of
        a 100-op loop body (tools/bench_compile.py)."""
        cond, body = node.attrs["cond"], node.attrs["body"]
        n = node.attrs["n_loop_vars"]
        inputs = cond.all_inputs
        test, read = _test_past_flag(cond.outputs[0], None if flag is None else inputs[flag])
        if test is None or test.op.name != "less" or test.graph is not cond \
                or read != {id(v) for v in cond.nodes}:
            return None
        counter, stop = test.inputs
        if counter not in inputs[:n] or stop not in inputs:
            return None
        k, j = inputs.index(counter), inputs.index(stop)
        ints = (node.inputs[k], node.outputs[k], node.inputs[j])
        if any(not self.is_scalar(v) or v.dtype != ints[0].dtype or v.dtype.kind != "i"
               for v in ints) \
                or j < n and body.outputs[j] is not body.all_inputs[j] \
                or self.is_used(node.outputs[k]):
            return None
        step = body.outputs[k].node
        if step is None or step.op.name != "add" or step.graph is not body:
            return None
        one = [v for v in step.inputs if v is not body.all_inputs[k]]
        if len(one) != 1 or not one[0].is_literal or one[0].literal != 1 \
                or len(step.inputs) != 2:
            return None
        return k, j

    def _bind_temp(self, value, inner, name, text):
        """Temporaries for the parts of loop variable `name` that change (to `text`, the
        body's `inner`)."""
        if value.kind != TENSOR_ARRAY:
            return self.tmp("n")
        promoted = inner.dtype != value.dtype
        return tuple(target if target == source and not (part == "_b" and promoted)
                     else self.tmp("n") for part, target, source in zip(TA_PARTS, name, text))


# In the text of a pure op's value, what may still check and raise: a support kernel
# (`_rt.`), the error buffer, an object-mode block.
_CHECKS = re.compile(r"\b_rt\.|\berr\b|objmode")
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
_ERR = re.compile(r"\berr\b")


# Where a loop's break flag is left out (CodeGen._break_flag): `value`, true where the
# iteration breaks, and `ends`, (local, loop output, value) of each loop variable read after
# the loop.
_Break = collections.namedtuple("_Break", "value ends")
# A loop being emitted: its `while` node, its body graph, the locals of its loop variables,
# and the indices of the two the code does not assign: the counter a `for` steps
# (CodeGen._counter), the break flag left out (CodeGen._break_flag); each may be None.
_Loop = collections.namedtuple("_Loop", "node body names counter flag")
_BOOLS = ("True", "False")


def _is_true(value):
    return value.is_literal and value.dtype == np.bool_ and bool(value.literal)


def _is_false(value):
    return value.is_literal and value.dtype == np.bool_ and not value.literal


def _kept(end, start, cond, branch):
    """Is loop variable `start`'s next value, `end`, `start` itself where `branch` of
    `cond` runs?"""
    if end in cond.outputs:
        end = _outside(branch.outputs[cond.outputs.index(end)])
    return end is start


def _stops(value, flag, truth=False):
    """Is bool `value` of a while's cond graph `truth` wherever the loop variable `flag` is
    true (False: the loop stops once the flag is set, as a break flag's does:
    `not flag and i < n`)?"""
    value = _outside(value)
    if value is flag or value.is_literal:
        return (value is flag or bool(value.literal)) == truth
    node = value.node
    name = node.op.name if node is not None else None
    if name == "logical_not":
        return _stops(node.inputs[0], flag, not truth)
    if name == "cast" and node.inputs[0].dtype == np.bool_:
        return _stops(node.inputs[0], flag, truth)
    if name == "logical_and" and not truth:
        return any(_stops(v, flag) for v in node.inputs)
    if name == "cond":   # (`a and b` of a test that must not run, `ag.and_`)
        index = node.outputs.index(value)   # (each branch gives it, or does not run)
        return all(_stops(branch.outputs[index], flag, truth)
                   or _stops(node.inputs[0], flag, branch is node.attrs["else_branch"])
                   for branch in (node.attrs["then_branch"], node.attrs["else_branch"]))
    return False


def _test_past_flag(value, flag):
    """(node, ids of the nodes read) of the test a while's cond graph gives as `value` where
    its loop variable `flag` is False, when `value` is that node's output or `test and not
    flag` (_stops' form of a break flag's condition); else (None, None)."""
    node = value.node
    if node is None:
        return None, None
    if flag is not None and node.op.name == "logical_and" and len(node.inputs) == 2:
        for a, b in (node.inputs, node.inputs[::-1]):
            unless = _unless_flag(b, flag)
            if unless is not None:
                test, read = _test_past_flag(a, None)
                if test is not None:
                    return test, read | unless | {id(node)}
    return node, {id(node)}


def _unless_flag(value, flag):
    """The ids of the nodes of `not flag` (through bool casts) when `value` is that, else
    None."""
    node = value.node
    if node is None:
        return None
    if node.op.name == "cast" and node.inputs[0].dtype == np.bool_:
        inner = _unless_flag(node.inputs[0], flag)
        return None if inner is None else inner | {id(node)}
    if node.op.name == "logical_not" and node.inputs[0] is flag:
        return {id(node)}
    return None


def _breaks(value, graph, ends, flag):
    """Can the code follow bool `value` of `graph` (a loop body or a branch in it) as the
    break flag's value (CodeGen._break_flag)? Yes where it is a literal, the flag itself (False
    in the body), or an output of a cond of `graph` whose branches' values are so in turn,
    with `ends` (the values of the loop variables read after the loop) outputs of that cond
    or computed before it, and nothing with an effect after it (where it breaks, the code
    that follows does not run, as in Python)."""
    value = _outside(value)
    if value.is_literal or value is flag:
        return True
    cond = value.node
    if cond is None or cond.op.name != "cond" or cond.graph is not graph:
        return False
    index = graph.nodes.index(cond)
    before = set(map(id, graph.nodes[:index]))
    if any(_has_effect(node) for node in graph.nodes[index + 1:]) or any(
            end.graph is graph and end.node is not None and id(end.node) not in before
            and end not in cond.outputs for end in ends):
        return False
    q = cond.outputs.index(value)
    for branch in (cond.attrs["then_branch"], cond.attrs["else_branch"]):
        inner = {id(out): result for out, result in zip(cond.outputs, branch.outputs)}
        if not _breaks(branch.outputs[q], branch, [inner.get(id(end), end) for end in ends],
                       flag):
            return False
    return True


def _outside(value):
    """The value outside a nested graph that `value`, its capture, holds (else `value`)."""
    while value.node is None and value.graph is not None:
        outer = [o for o, inner in value.graph.captured if inner is value]
        if not outer:
            break
        value = outer[0]
    return value


def _has_effect(node):
    return node.op.effect or any(_has_effect(inner) for _, sub in node.subgraphs
                                 for inner in sub.nodes)


def _operand(text):
    """`text`, an expression, as an operand of another: in parentheses unless it is a name,
    a call or in parentheses already."""
    if text.isidentifier() or re.fullmatch(r"[\w.]+\(.*\)|\(.*\)", text) and _closes_at_end(text):
        return text
    return "(%s)" % text


# The deepest parentheses of an expression that takes in the one it reads
# (_read_once_by_scalars): Python's parser refuses 200 (a long chain of ops otherwise).
_MAX_NESTING = 16
# Expressions that branch are not taken into others: Numba's analysis of the bytecode
# follows every path through the branches of one statement (`a and (b or c)` nested a
# few levels deep took minutes to compile, fuzz seed 7196).
_BRANCHES = re.compile(r"\b(and|or|if)\b")


def _nesting(text):
    """How deep the parentheses of `text` go."""
    depth = deepest = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
    return deepest


def _closes_at_end(text):
    """Does the first parenthesis of `text` close at its last character?"""
    depth = 0
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


def _parts(name):
    """The locals of a value: one name, or a tensor array's four (a tuple)."""
    return name if isinstance(name, tuple) else (name,)


def _numba_may_raise(node):
    """Can Numba raise an exception of its own in `node`'s code (see Checks)? Scalar code
    cannot (error_model="numpy"); array code can, except element reads and writes (their
    bounds are checked or proven) and ops that keep the shape of their one array operand
    (elementwise with scalars, casts, copies, *_like)."""
    if node.op.name in ("dim", "size", "ta_size", "ta_read"):   # (ta_read's check is explicit)
        return False
    arrays = [v for v in node.inputs if v.kind == TENSOR_ARRAY or v.shape]
    if not arrays and not any(v.kind == TENSOR_ARRAY or v.shape for v in node.outputs):
        return False
    if node.op.name in ("get_item", "set_item"):
        scalar_indices = all(not v.shape for v in node.inputs[2 if node.op.name == "set_item"
                                                              else 1:])
        if node.op.name == "get_item":
            return not scalar_indices
        value = node.inputs[1]
        return not (scalar_indices and not value.shape
                    and not any(isinstance(i, slice) for i in node.attrs.get("index", ())))
    return not (len(arrays) == 1 and arrays[0].kind != TENSOR_ARRAY
                and all(v.kind != TENSOR_ARRAY and v.shape == arrays[0].shape
                        for v in node.outputs))


def _unclamped(start, stop):
    """x when `stop` is np.maximum(0, x) of x of its dtype and `start` a literal >= 0 (a
    range's length, as the graph computes it): range(start, x) has the same iterations.
    Else None. Its `max` then goes unread (and unemitted, _drop_unread): measured on
    edit_distance (three such loops), ~4% of its compile, ~2% on mandelbrot."""
    clamp = stop.node
    if not start.is_literal or start.literal < 0 or clamp is None \
            or clamp.op.name != "maximum" or len(clamp.inputs) != 2:
        return None
    a, b = clamp.inputs
    x = b if _is_zero(a) else a if _is_zero(b) else None
    if x is None or x.dtype != stop.dtype or x.shape != ():
        return None
    return x


def _is_zero(value):
    return value.is_literal and value.literal == 0


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
    """Part of every generated module's identity: Numba bakes the callees of support.py
    into a module's cached code, so that code is stale when support.py or the versions
    change. From support.py's text and that of Numba's _version.py (its version and
    revision), without importing Numba (0.2-0.3 s, which a first call on backend "auto"
    does not pay: compiled.py) nor importlib.metadata (8 ms)."""
    numba_init = importlib.util.find_spec("numba").origin
    texts = []
    for path in (os.path.join(os.path.dirname(__file__), "support.py"),
                 os.path.join(os.path.dirname(numba_init), "_version.py")):
        with open(path, "rb") as file:
            texts.append(file.read().decode("utf-8"))
    text = "|".join(texts + [np.__version__, sys.version])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_SUPPORT_HASH = None


def generate_source(graph, owned_inputs=None):
    """(source, CodeGen) for `graph`; raises Unlowerable naming the first unsupported op."""
    global _SUPPORT_HASH
    gen = CodeGen(graph, owned_inputs)
    params = gen.generate()
    # Constants and the error buffer first: a direct call binds them with functools.partial
    # and passes the graph inputs after them (compiled.py, NumbaCompiledGraph.direct).
    all_params = [name for name, _ in gen.constants] + (["err"] if gen.uses_err else [])
    all_params += [name for name, _ in gen.variables] + params
    if _SUPPORT_HASH is None:
        _SUPPORT_HASH = _support_hash()
    header = [
        '"""Generated by runtime/executors/numba/codegen.py from graph %r (do not edit)."""'
        % graph.name,
        "# support %s" % _SUPPORT_HASH,
        "import math",
        "import numba",
        "import numpy as np",
        "from runtime.executors.numba import support as _rt",
        "from runtime.executors.numba.disk_cache import jit as _jit",
        "",
        "",
    ]
    for function in gen.functions:
        header += function + ["", ""]
    # Not nogil: releasing and retaking the GIL costs ~60 ns per call (measured on
    # piecewise16, a 16-element loop: ~10% of its time).
    header += [
        '@_jit(error_model="numpy")',
        "def run_graph(%s):" % ", ".join(all_params),
    ]
    # Callback sites (print, raise) carry what their callback does in the module's identity
    # (they are registered by module name), so two graphs differing only in printed text
    # get different modules.
    site_keys = ["# site %d %s %r" % (i, s.kind, s.info["key"]) for i, s in enumerate(gen.sites)
                 if "callback" in s.info]
    source = "\n".join(header + gen.lines + [""] + site_keys) + "\n"
    return source, gen


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
