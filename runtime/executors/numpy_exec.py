"""The NumPy interpreter: compiles a Graph once into a flat plan of (kernel, input slots,
output slots) and runs it as one generated Python function whose locals are the slots.

Control flow is written into that function: a `cond` node becomes an `if` and a `while`
node a Python `while` whose cond and body graphs' steps are inlined, their slots named
with a prefix, so an iteration calls no function of its own and passes no arguments (a
loop body nested deeper than _MAX_DEPTH is called as a function of its own instead).
Buffers are updated in place (set_item, tensor-array writes) when the old version is dead
and owned by this run: a 100k-iteration `out[i] = v` loop then costs O(1) per write. An
intermediate array is deleted after the last step that reads it (`_dead_after`), so NumPy
reuses its memory instead of faulting in new pages.
Runtime errors name the failing node and the user line that created it.
"""

import functools
import itertools
import weakref

import numpy as np

from runtime import errors, path_kinds
from runtime.executors.planning import Ownership
from runtime.graph import describe_node
from runtime.ops.control import CondPlan, copy_buffer
# id of a generated code object -> CompiledGraph (to locate failing nodes); entries go with
# the graph. Keyed by identity: code objects compare equal by content (not filename), so two
# graphs generating the same source would otherwise share an entry.
_code_registry = weakref.WeakValueDictionary()
_counter = itertools.count()


# Indentation levels of generated code up to which nested graphs are inlined (Python
# allows 20 nested loops in a function); deeper ones are called as functions of their own.
_MAX_DEPTH = 12


class Step:
    """One planned node: its kernel (or, for control flow, its planned nested graphs:
    ops/control.py's CondPlan or WhilePlan), input slots and output slots (names of
    locals)."""

    __slots__ = ("node", "kernel", "inputs", "outputs", "inplace", "expression")

    def __init__(self, node, kernel, inputs, outputs, inplace=False, expression=None):
        self.node = node
        self.kernel = kernel
        self.inputs = inputs
        self.outputs = outputs
        self.inplace = inplace
        self.expression = expression   # written in place of a call (Op.expression)

    def __repr__(self):
        return "Step(%s, %s -> %s%s)" % (self.node.op.name, self.inputs, self.outputs,
                                         ", inplace" if self.inplace else "")


class _Context:
    def __init__(self, root):
        self.root = root

    def compile(self, graph, owned_inputs=None, carried=(), private_inputs=None):
        """Plan a nested graph (its code is written into the root's)."""
        return CompiledGraph(graph, owned_inputs, _context=self, carried=carried,
                             private_inputs=private_inputs)


class _Source:
    """The generated function being written: its lines, the names its code reads
    (kernels, constants) and the step each line runs (to name a failing node)."""

    def __init__(self, header):
        self.lines = [header]
        self.namespace = {}
        self.line_to_step = {}

    def add(self, depth, text, step=None):
        self.lines.append("    " * depth + text)
        if step is not None:
            self.line_to_step[len(self.lines)] = step


def _targets(names):
    """An assignment's target list (`a, b, ` unpacks a tuple of two; `a, ` of one)."""
    return "".join(name + ", " for name in names)


class CompiledGraph:
    """A graph ready to run: `compiled(*flat_inputs) -> tuple of flat outputs`.

    `owned_inputs[i]` says input i's buffer may be updated in place (the caller will not
    read it again); `copied_back` ([(input index, output index)]) that the caller copies
    output j into input i after the run (rt.function's writebacks of mutated arrays): that
    output may then be computed in the input's buffer (planning.Ownership.into). After
    compiling, `owned_outputs[i]` says output i is a buffer nobody else sees, and
    `written_inputs[i]` says input i may be written in place. `carried` is the same as
    `copied_back` for a loop body, whose output j is the next iteration's input i: an
    update of a loop variable (`dkernel += ...`) is then computed in its buffer where that
    is private (`private_inputs`, planning.py), falling back to a new array where the
    result's shape does not fit it (a loop variable may change shape); `private_outputs`
    says which outputs are private.
    """

    def __init__(self, graph, owned_inputs=None, _context=None, copied_back=(), carried=(),
                 private_inputs=None):
        self.graph = graph
        self.copied_back = list(copied_back)
        self.carried = list(carried)
        self.private_inputs = private_inputs
        self._context = _context or _Context(graph)
        inputs = graph.all_inputs
        self.owned_inputs = list(owned_inputs) if owned_inputs is not None else [False] * len(inputs)
        self.steps = []
        self._plan()
        if self._context.root is graph:
            # The inputs the run reads (or returns): a caller may check only those where
            # its check is about what the graph reads (runtime/trace.py: _SharedInputs).
            read = {name for step in self.steps for name in step.inputs}
            read.update(self.output_slots)
            self.read_inputs = frozenset(i for i in range(len(graph.all_inputs))
                                         if "a%d" % i in read)
            self.run   # (a nested graph's own function is made only where one is called)
            if len(graph.outputs) == 1:
                self.single_output_call = self._single_output_call()

    def _single_output_call(self):
        """call(*inputs) -> the one output itself (rt.function's per-call path)."""
        run, root = self.run, self._context.root

        def single_output_call(*inputs):
            try:
                return run(*inputs)[0]
            except Exception as error:
                raise_with_node(error, root)
        return single_output_call

    # -- planning: slots, liveness, ownership, kernels -----------------------------------
    def _plan(self):
        graph = self.graph
        slot = {}
        for i, value in enumerate(graph.all_inputs):
            slot[value] = "a%d" % i
        ownership = Ownership(graph, self.owned_inputs, self.copied_back, self.carried,
                              self.private_inputs)
        self.constants = {}

        def bind_literal(value, error):
            # A literal input becomes a constant slot; anything else must be defined already.
            if not value.is_literal:
                raise ValueError(error % (value,))
            slot[value] = "c%d" % len(self.constants)
            self.constants[slot[value]] = value.literal

        for index, node in enumerate(graph.nodes):
            for value in node.inputs:
                if value not in slot:
                    bind_literal(value, "value %r used before it is defined")
            for j, value in enumerate(node.outputs):
                slot[value] = "v%d_%d" % (index, j)
            op = node.op
            inplace = False
            expression = None
            if op.name == "constant":
                name = "c%d" % len(self.constants)
                self.constants[name] = node.attrs["value"]
                slot[node.outputs[0]] = name
                ownership.op_outputs(node, index)   # a root nobody owns
                continue
            if op.control_flow:
                flags = ownership.handover_flags(node, index)
                kernel, owned_outputs, written_inputs, private_outputs = op.plan_control(
                    node, self._context, flags, ownership.private_flags(node))
                ownership.control_flow_outputs(node, owned_outputs, written_inputs,
                                               private_outputs)
            else:
                inplace = ownership.op_outputs(node, index)
                if (op.expression is not None and not inplace and node.errstate is None
                        and len(node.outputs) == 1):
                    expression = op.expression(node)
                if inplace and op.inplace_input is None:   # (`x -= y`: Ownership.into)
                    # Written as `v = x; v -= y` (_emit_augmented), or under its errstate
                    # a call of the kernel.
                    written = node.errstate is None
                    expression = op.augmented if written else None
                    kernel = op.into_kernel
                    if self.carried:
                        # (Where NumPy refuses to broadcast into x, a new array.)
                        kernel = _new_unless_fits(op.kernel_for(node))
                        if not written:
                            kernel = _into_or_new(op.into_kernel, kernel)
                else:
                    kernel = op.kernel_for(node, inplace=inplace)
                if node.errstate is not None:
                    kernel = _under_errstate(kernel, node.errstate)
            self.steps.append(Step(node, kernel, [slot[v] for v in node.inputs],
                                   [slot[v] for v in node.outputs], inplace, expression))

        for value in graph.outputs:
            if value not in slot:
                bind_literal(value, "graph output %r is not defined in the graph")
        self.owned_outputs = ownership.owned_outputs()
        self.private_outputs = ownership.private_outputs()
        self.written_inputs = ownership.written_inputs()
        self.output_slots = [slot[v] for v in graph.outputs]

    # -- code generation -----------------------------------------------------------------
    @functools.cached_property
    def run(self):
        """This graph as one Python function: run(*flat inputs) -> tuple of outputs."""
        params = ["a%d" % i for i in range(len(self.graph.all_inputs))]
        source = _Source("def run(%s):" % ", ".join(params))
        if self._context.root is self.graph:
            # Python numbers the trace made inputs (runtime/specialise.py) are run as NumPy
            # scalars of their graph dtype, as every kernel expects (those it reads: a
            # model's state holds numbers a step need not read, `layer.units`).
            for i, value in enumerate(self.graph.inputs):
                if not value.shape and path_kinds.is_python(value) and i in self.read_inputs:
                    source.namespace["t%d" % i] = value.dtype.type
                    source.add(1, "a%d = t%d(a%d)" % (i, i, i))
        outputs = self._emit(source, "", params, 1)
        source.add(1, "return (%s)" % _targets(outputs))
        source.namespace["__compiled_graph__"] = self   # keeps the registry entry alive
        self.line_to_step = source.line_to_step
        self.source = "\n".join(source.lines) + "\n"
        filename = "<rt-graph-%d %s>" % (next(_counter), self.graph.name)
        code = compile(self.source, filename, "exec")
        exec(code, source.namespace)
        run = source.namespace["run"]
        self._run_code = run.__code__
        _code_registry[id(run.__code__)] = self
        return run

    def _emit(self, source, prefix, inputs, depth):
        """Write this graph's steps into `source` at indentation `depth`, its slots named
        with `prefix` and its inputs bound to the names `inputs`; returns the names of its
        outputs."""
        def name(slot):
            return inputs[int(slot[1:])] if slot[0] == "a" else prefix + slot

        for slot, value in self.constants.items():
            source.namespace[prefix + slot] = value
        dead_after = self._dead_after()
        for index, step in enumerate(self.steps):
            args = [name(s) for s in step.inputs]
            outs = [prefix + s for s in step.outputs]
            if step.node.op.control_flow:
                emit = _emit_cond if isinstance(step.kernel, CondPlan) else _emit_while
                emit(source, step, "%ss%d_" % (prefix, index), args, outs, depth)
            elif step.inplace and step.node.op.inplace_input is None and step.expression:
                _emit_augmented(source, step, "%sk%d" % (prefix, index), args, outs[0],
                                depth, self.carried)
            else:
                if step.expression is not None:
                    call = step.expression.format(*args)
                else:
                    kernel = "%sk%d" % (prefix, index)
                    source.namespace[kernel] = step.kernel
                    call = "%s(%s)" % (kernel, ", ".join(args))
                if len(outs) > 1:
                    call = "%s = %s" % (", ".join(outs), call)
                elif outs:
                    call = "%s = %s" % (outs[0], call)
                source.add(depth, call, step)
            if index in dead_after:
                source.add(depth, "del " + ", ".join(prefix + s for s in dead_after[index]))
        return [name(s) for s in self.output_slots]

    def _dead_after(self):
        """{step index: the slots no later step reads}: they are deleted after that step,
        so an intermediate array is freed as soon as it is dead, not when the graph
        returns. NumPy then reuses its memory for the next result (squared distances by
        a @ b.T and broadcasting: 2.5x fewer page faults and 1/3 of the time), and the
        peak memory of a run is that of the live values."""
        last_use = {}
        for index, step in enumerate(self.steps):
            for name in step.inputs:
                last_use[name] = index
        kept = set(self.output_slots)
        dead = {}
        for index, step in enumerate(self.steps):
            for name, value in zip(step.outputs, step.node.outputs):
                # (A scalar frees nothing worth a statement: scalar loops on the
                # interpreter ran 6% slower deleting theirs.)
                if name not in kept and value.shape != ():
                    dead.setdefault(last_use.get(name, index), []).append(name)
        return dead

    def __call__(self, *inputs):
        try:
            return self.run(*inputs)
        except Exception as error:
            self.reraise(error)

    def reraise(self, error):
        """Re-raises `error`, raised by `run`, naming the node that failed. A caller that
        generates code of its own may call `run` there, as `try: outputs = run(*inputs)
        except Exception as error: reraise(error)`, a frame less than calling this object
        (runtime/trace.py: ConcreteFunction._generate_call)."""
        raise_with_node(error, self._context.root)

    def plan_text(self):
        return "\n".join(repr(s) for s in self.steps)


def _emit_nested(source, compiled, prefix, inputs, depth):
    """Write nested graph `compiled` into `source` (CompiledGraph._emit), or a call of its
    own function where it would be nested too deep; returns the names of its outputs."""
    if depth <= _MAX_DEPTH:
        return compiled._emit(source, prefix, inputs, depth)
    source.namespace[prefix + "run"] = compiled.run
    outs = ["%so%d" % (prefix, j) for j in range(len(compiled.output_slots))]
    source.add(depth, "%s = %srun(%s)" % (_targets(outs) or "_", prefix, ", ".join(inputs)))
    return outs


def _emit_block(source, depth, write):
    """Lines `write()` adds at `depth`, or `pass` if it adds none."""
    start = len(source.lines)
    write()
    if len(source.lines) == start:
        source.add(depth, "pass")


def _emit_cond(source, step, prefix, args, outs, depth):
    """`if pred:` the then branch's steps `else:` the else branch's, each ending by
    binding the node's outputs."""
    pred, captures = args[0], args[1:]
    for branch, label in ((step.kernel.then_branch, "t"), (step.kernel.else_branch, "e")):
        if label == "t":
            source.add(depth, "if %s:" % pred, step)
        else:
            source.add(depth, "else:", step)

        def write(branch=branch, label=label):
            results = _emit_nested(source, branch, prefix + label, captures, depth + 1)
            if outs:
                source.add(depth + 1, "%s= %s" % (_targets(outs), _targets(results)), step)
        _emit_block(source, depth + 1, write)


def _emit_while(source, step, prefix, args, outs, depth):
    """The node's outputs are its loop variables: bound to the initial values (copied
    where the plan says so), then `while True:` the cond graph's steps, `break` unless it
    holds, the body's steps and the rebinding of the loop variables to its results."""
    plan = step.kernel
    n = plan.n_loop_vars
    if n:
        source.add(depth, "%s= %s" % (_targets(outs), _targets(args[:n])), step)
    for i in plan.copy_at_entry:
        source.namespace["copy_buffer"] = copy_buffer
        source.add(depth, "%s = copy_buffer(%s)" % (outs[i], outs[i]), step)
    inner = outs + args[n:]
    source.add(depth, "while True:", step)
    test, = _emit_nested(source, plan.cond, prefix + "c", inner, depth + 1)
    source.add(depth + 1, "if not %s:" % test, step)
    source.add(depth + 2, "break")
    results = _emit_nested(source, plan.body, prefix + "b", inner, depth + 1)
    if n:
        source.add(depth + 1, "%s= %s" % (_targets(outs), _targets(results)), step)


def failing_step(traceback):
    """The innermost generated-graph frame of a traceback, as (CompiledGraph, Step)."""
    found = None
    while traceback is not None:
        code = traceback.tb_frame.f_code
        compiled = _code_registry.get(id(code))
        if compiled is not None and compiled._run_code is code:
            step = compiled.line_to_step.get(traceback.tb_lineno)
            if step is not None:
                found = (compiled, step)
        traceback = traceback.tb_next
    return found


def raise_with_node(error, root):
    """Re-raise `error` saying which node failed and where the user created it."""
    if getattr(error, "_rt_node_reported", False):
        raise error
    found = failing_step(error.__traceback__)
    if found is None:
        raise error
    _, step = found
    where = "While executing %s" % describe_node(step.node, root)
    if isinstance(error, errors.InvalidArgumentError):
        error.message = "%s\n%s" % (error.message, where)
        error.args = (error.message,) + error.args[1:]
        error._rt_node_reported = True
        raise error
    if isinstance(error, IndexError):
        new = errors.OutOfRangeError("%s\n%s" % (error, where))
        new._rt_node_reported = True
        raise new.with_traceback(error.__traceback__) from error
    error.add_note(where)
    error._rt_node_reported = True
    raise error


def compile_graph(graph, owned_inputs=None, copied_back=()):
    """Executor interface: compile once, then call with flat NumPy inputs, get a tuple of
    flat NumPy outputs (`copied_back`: see CompiledGraph)."""
    return CompiledGraph(graph, owned_inputs, copied_back=copied_back)


def _emit_augmented(source, step, kernel, args, out, depth, carried):
    """`out = x; out -= y`: an update computed in x's buffer (Ownership.into). In a loop
    body (`carried`), where NumPy refuses to broadcast the result into x (a loop variable
    may change shape), the step's kernel (_new_unless_fits) decides."""
    x, y = args
    source.add(depth, "%s = %s" % (out, x), step)
    if not carried:
        source.add(depth, "%s %s %s" % (out, step.expression, y), step)
        return
    source.namespace[kernel] = step.kernel
    source.add(depth, "try:", step)
    source.add(depth + 1, "%s %s %s" % (out, step.expression, y), step)
    source.add(depth, "except ValueError:", step)
    source.add(depth + 1, "%s = %s(%s, %s)" % (out, kernel, x, y), step)


def _new_unless_fits(kernel):
    """Called where NumPy refused to compute `x op= y` (a ValueError, raised before it
    writes anything): that error again where the result has x's shape, else `kernel(x,
    y)`, a new array, as Python's `x = x op y` makes (or NumPy's error for it, raised as
    Python raises it, with no other error as its context)."""
    def new_unless_fits(x, y):
        try:
            fits = np.broadcast_shapes(x.shape, np.shape(y)) == x.shape
        except ValueError:
            fits = False
        if fits:
            raise   # (the error being handled)
        try:
            return kernel(x, y)
        except Exception as error:
            error.__context__ = None
            raise
    return new_unless_fits


def _into_or_new(into, new_unless_fits):
    """`into(x, y)`, or where NumPy refuses it, `new_unless_fits(x, y)`: an update the
    interpreter does not write as an augmented assignment (_emit_augmented)."""
    def run(x, y):
        try:
            return into(x, y)
        except ValueError:
            return new_unless_fits(x, y)
    return run


def _under_errstate(kernel, errstate):
    """`kernel` run under the NumPy error handling the function set around its op."""
    def run(*args):
        with np.errstate(**errstate):
            return kernel(*args)
    return run
