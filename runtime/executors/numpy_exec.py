"""The NumPy interpreter: compiles a Graph once into a flat plan of (kernel, input slots,
output slots) and runs it as one generated Python function whose locals are the slots.

Buffers are updated in place (set_item, tensor-array writes) when the old version is dead
and owned by this run: a 100k-iteration `out[i] = v` loop then costs O(1) per write. An
intermediate array is deleted after the last step that reads it (`_dead_after`), so NumPy
reuses its memory instead of faulting in new pages.
Runtime errors name the failing node and the user line that created it.
"""

import itertools
import weakref

import numpy as np

from runtime import errors, path_kinds
from runtime.executors.planning import Ownership
from runtime.graph import describe_node
# id of a generated code object -> CompiledGraph (to locate failing nodes); entries go with
# the graph. Keyed by identity: code objects compare equal by content (not filename), so two
# graphs generating the same source would otherwise share an entry.
_code_registry = weakref.WeakValueDictionary()
_counter = itertools.count()


class Step:
    """One planned node: its kernel, input slots and output slots (names of locals)."""

    __slots__ = ("node", "kernel", "inputs", "outputs", "inplace")

    def __init__(self, node, kernel, inputs, outputs, inplace=False):
        self.node = node
        self.kernel = kernel
        self.inputs = inputs
        self.outputs = outputs
        self.inplace = inplace

    def __repr__(self):
        return "Step(%s, %s -> %s%s)" % (self.node.op.name, self.inputs, self.outputs,
                                         ", inplace" if self.inplace else "")


class _Context:
    def __init__(self, root):
        self.root = root

    def compile(self, graph, owned_inputs=None, scalar_return=False):
        return CompiledGraph(graph, owned_inputs, scalar_return=scalar_return, _context=self)


class CompiledGraph:
    """A graph ready to run: `compiled(*flat_inputs) -> tuple of flat outputs`.

    `owned_inputs[i]` says input i's buffer may be updated in place (the caller will not
    read it again); `copied_back` ([(input index, output index)]) that the caller copies
    output j into input i after the run (rt.function's writebacks of mutated arrays): that
    output may then be computed in the input's buffer (planning.Ownership.into). After
    compiling, `owned_outputs[i]` says output i is a buffer nobody else sees, and
    `written_inputs[i]` says input i may be written in place.
    """

    def __init__(self, graph, owned_inputs=None, scalar_return=False, _context=None,
                 copied_back=()):
        self.graph = graph
        self.copied_back = list(copied_back)
        self._context = _context or _Context(graph)
        inputs = graph.all_inputs
        self.owned_inputs = list(owned_inputs) if owned_inputs is not None else [False] * len(inputs)
        self.steps = []
        self._plan()
        self.run = self._generate(scalar_return)
        if len(graph.outputs) == 1 and not scalar_return:
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
        ownership = Ownership(graph, self.owned_inputs, self.copied_back)
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
            if op.name == "constant":
                name = "c%d" % len(self.constants)
                self.constants[name] = node.attrs["value"]
                slot[node.outputs[0]] = name
                ownership.op_outputs(node, index)   # a root nobody owns
                continue
            if op.control_flow:
                flags = ownership.handover_flags(node, index)
                kernel, owned_outputs, written_inputs = op.make_control_kernel(
                    node, self._context, flags)
                ownership.control_flow_outputs(node, owned_outputs, written_inputs)
            else:
                inplace = ownership.op_outputs(node, index)
                if inplace and op.inplace_input is None:   # (`x -= y`: Ownership.into)
                    kernel = op.into_kernel
                else:
                    kernel = op.kernel_for(node, inplace=inplace)
                if node.errstate is not None:
                    kernel = _under_errstate(kernel, node.errstate)
            self.steps.append(Step(node, kernel, [slot[v] for v in node.inputs],
                                   [slot[v] for v in node.outputs], inplace))

        for value in graph.outputs:
            if value not in slot:
                bind_literal(value, "graph output %r is not defined in the graph")
        self.owned_outputs = ownership.owned_outputs()
        self.written_inputs = ownership.written_inputs()
        self.output_slots = [slot[v] for v in graph.outputs]

    # -- code generation -----------------------------------------------------------------
    def _generate(self, scalar_return):
        n_inputs = len(self.graph.all_inputs)
        params = ", ".join("a%d" % i for i in range(n_inputs))
        lines = ["def run(%s):" % params]
        namespace = dict(self.constants)
        if self._context.root is self.graph:
            # Python numbers the trace made inputs (runtime/specialise.py) are run as NumPy
            # scalars of their graph dtype, as every kernel expects.
            for i, value in enumerate(self.graph.inputs):
                if not value.shape and path_kinds.is_python(value):
                    namespace["t%d" % i] = value.dtype.type
                    lines.append("    a%d = t%d(a%d)" % (i, i, i))
        namespace["__compiled_graph__"] = self   # keeps the registry entry alive with `run`
        self.line_to_step = {}
        dead_after = self._dead_after()
        for index, step in enumerate(self.steps):
            kernel_name = "k%d" % index
            namespace[kernel_name] = step.kernel
            call = "%s(%s)" % (kernel_name, ", ".join(step.inputs))
            if step.node.op.control_flow:
                targets = "".join(o + ", " for o in step.outputs)
                line = "%s = %s" % (targets.rstrip(" "), call) if step.outputs else call
            elif len(step.outputs) == 1:
                line = "%s = %s" % (step.outputs[0], call)
            elif step.outputs:
                line = "%s = %s" % (", ".join(step.outputs), call)
            else:
                line = call
            lines.append("    " + line)
            self.line_to_step[len(lines)] = step
            if index in dead_after:
                lines.append("    del " + ", ".join(dead_after[index]))
        if scalar_return and len(self.output_slots) == 1:
            lines.append("    return %s" % self.output_slots[0])
        else:
            lines.append("    return (%s)" % "".join(s + ", " for s in self.output_slots))
        self.source = "\n".join(lines) + "\n"
        filename = "<rt-graph-%d %s>" % (next(_counter), self.graph.name)
        code = compile(self.source, filename, "exec")
        exec(code, namespace)
        run = namespace["run"]
        self._run_code = run.__code__
        _code_registry[id(run.__code__)] = self
        return run

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
            raise_with_node(error, self._context.root)

    def plan_text(self):
        return "\n".join(repr(s) for s in self.steps)


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


def _under_errstate(kernel, errstate):
    """`kernel` run under the NumPy error handling the function set around its op."""
    def run(*args):
        with np.errstate(**errstate):
            return kernel(*args)
    return run
