"""Buffer ownership planning shared by both executors: which writes (set_item, tensor-array
writes, loop variables) may update a buffer in place instead of copying it.

A value's storage ("root") may be written in place when this run owns it (an owned
argument, or a buffer an op allocated) and no value sharing that storage is used later.
Views share their base's root; an in-place write's output keeps its target's root.

An owned argument is the caller's array: it is written only where Python writes it (an item
assignment, the new version of a mutated array copied back into it). A buffer the run
allocated itself ("private") may also hold a value Python computes in a new array: a loop
variable's update (`dkernel += dk`, `h = h + b`) computed in its old buffer (`into`).
"""

import itertools

from runtime.graph import TENSOR_ARRAY

_INFINITY = float("inf")


def _type_of(value):
    """What a value passed through a nested graph keeps: its kind, and a tensor's dtype and
    rank."""
    if value.kind == TENSOR_ARRAY or value.shape is None:
        return (value.kind,)
    return (value.kind, value.dtype, len(value.shape))


class Ownership:
    """Walks one graph's nodes in order (the executor drives the walk):

        plan = Ownership(graph, owned_inputs)
        for index, node in enumerate(graph.nodes):
            if node.op.control_flow:
                flags = plan.handover_flags(node, index)   # inputs the nested graphs may own
                ...                                        # plan the nested graphs
                plan.control_flow_outputs(node, owned_outputs, written_inputs)
            else:
                inplace = plan.op_outputs(node, index)
        plan.owned_outputs(), plan.written_inputs()
    """

    def __init__(self, graph, owned_inputs=None, copied_back=(), carried=(),
                 private_inputs=None):
        self.graph = graph
        inputs = graph.all_inputs
        owned_inputs = list(owned_inputs) if owned_inputs is not None else [False] * len(inputs)
        private_inputs = private_inputs or [False] * len(inputs)
        self._last_use = last_use = {}
        for index, node in enumerate(graph.nodes):
            for value in node.inputs:
                last_use[value] = index
        for value in graph.outputs:
            last_use[value] = _INFINITY
        self._root = {}          # value -> storage root (an int)
        self._members = {}       # root -> values with that root
        self._owned = set()      # roots this run may write in place
        self._written = set()    # roots written in place
        self._private = set()    # owned roots no caller sees (the module doc)
        self._new_root = itertools.count()
        for flag, private, value in zip(owned_inputs, private_inputs, inputs):
            r = self._fresh(value)
            if flag:
                self._owned.add(r)
                if private:
                    self._private.add(r)
        self._input_roots = [self._root[v] for v in inputs]
        # {graph output: the root of the input it is copied into after the run}, from
        # `copied_back` ([(input index, output index)]: a mutated argument's new version),
        # and of a loop body, from `carried`: the input that the next iteration gets it as.
        self._copied_back = {graph.outputs[j]: self._input_roots[i] for i, j in copied_back}
        self._carried = {graph.outputs[j]: self._input_roots[i] for i, j in carried}

    def _assign(self, value, r):
        self._root[value] = r
        self._members.setdefault(r, []).append(value)

    def _fresh(self, value):
        r = next(self._new_root)
        self._assign(value, r)
        return r

    def _dead_after(self, value, index):
        last_use = self._last_use
        return all(last_use.get(m, -1) <= index for m in self._members[self._root[value]])

    def handover_flags(self, node, index):
        """Per input of a control-flow node: may the nested graph take its buffer over (owned,
        dead after this node, and passed only once)?"""
        root, owned = self._root, self._owned
        flags = []
        for value in node.inputs:
            r = root.get(value)
            flags.append(r is not None and r in owned and self._dead_after(value, index)
                         and sum(1 for v in node.inputs if root.get(v) == r) == 1)
        return flags

    def private_flags(self, node):
        """Per input of a control-flow node: is its buffer private (the module doc)?"""
        return [self._root.get(value) in self._private for value in node.inputs]

    def control_flow_outputs(self, node, owned_outputs, written_inputs, private_outputs=()):
        """Record a control-flow node's planned nested graphs: which inputs they write and
        which outputs are buffers of their own (and private)."""
        root = self._root
        for value, was_written in zip(node.inputs, written_inputs):
            if was_written and value in root:
                self._written.add(root[value])
        private_outputs = list(private_outputs) or [False] * len(node.outputs)
        for value, is_owned, private in zip(node.outputs, owned_outputs, private_outputs):
            r = self._fresh(value)
            if is_owned:
                self._owned.add(r)
                if private:
                    self._private.add(r)
        if not all(owned_outputs):
            # An output that is not a buffer of its own may be one of the inputs passed
            # through, one of its dtype and rank: pin those (a loop's scalar counter pins
            # no array the loop reads).
            kinds = {_type_of(v) for v, is_owned in zip(node.outputs, owned_outputs)
                     if not is_owned}
            for value in node.inputs:
                if _type_of(value) in kinds:
                    self._owned.discard(root.get(value))

    def op_outputs(self, node, index):
        """Assign the roots of an ordinary node's outputs; returns whether the node (an op
        with `inplace_input`, or one computed into its input 0: `into`) may write its
        target in place."""
        op = node.op
        root = self._root
        inplace = False
        target = None
        if op.inplace_input is not None:
            target = node.inputs[op.inplace_input]
            r = root.get(target)
            inplace = (r is not None and r in self._owned and self._dead_after(target, index)
                       and (target.kind == TENSOR_ARRAY or (target.shape or ()) != ()))
        elif (self._copied_back or self._carried) and self.into(node, index):
            target, inplace = node.inputs[0], True
        for value in node.outputs:
            if inplace:
                self._assign(value, root[target])
                self._written.add(root[target])
            elif op.is_view(node) and node.inputs and node.inputs[0] in root:
                self._assign(value, root[node.inputs[0]])
            else:
                r = self._fresh(value)
                if not op.unowned_output and op.name != "constant":
                    self._owned.add(r)
                    self._private.add(r)
        return inplace

    def into(self, node, index):
        """May elementwise `node` compute its output into the buffer of its input 0 (its
        op's `into_kernel`)? Where that is the output copied back into an input, input 0 is
        that input's array (or a version of it written in place), owned and dead after the
        node, and the output has its dtype and rank: the node is the user's `x -= y` on a
        mutated argument or array of the state, done in place as Python does it (NumPy
        raises for a shape `x` cannot hold, as for `x -= y`), and the copy back is none.
        In a loop body, where the output is a loop variable's next value and input 0 its
        value now, in a private buffer (the executor falls back to a new array where the
        shape does not fit: a loop variable may change shape)."""
        if node.op.into_kernel is None or len(node.outputs) != 1:
            return False
        out, first = node.outputs[0], node.inputs[0]
        r = self._root.get(first)
        target = self._copied_back.get(out)
        if target is None and r in self._private:
            target = self._carried.get(out)
        return (r is not None and target == r and r in self._owned
                and self._dead_after(first, index) and bool(first.shape)
                and out.shape is not None and len(out.shape) == len(first.shape)
                and out.dtype == first.dtype and first.kind != TENSOR_ARRAY)

    def owned_outputs(self):
        """Per graph output: is it a buffer nobody else sees (owned, returned once)?"""
        output_roots = [self._root.get(v) for v in self.graph.outputs]
        return [r is not None and r in self._owned and output_roots.count(r) == 1
                for r in output_roots]

    def private_outputs(self):
        """Per graph output: is it a private buffer, returned once?"""
        output_roots = [self._root.get(v) for v in self.graph.outputs]
        return [r in self._private and output_roots.count(r) == 1 for r in output_roots]

    def written_inputs(self):
        """Per graph input: may this run write its buffer in place?"""
        return [r in self._written for r in self._input_roots]


# --- control flow: the same rules for the NumPy kernels (runtime/ops/control.py) and the
# --- Numba code generator (numba/codegen.py, plan_graph); `plan(graph, owned_inputs)` plans or
# --- compiles a nested graph and returns something with .owned_outputs / .written_inputs.

def cond_ownership(node, flags, plan):
    """(then_plan, else_plan, owned_outputs, written_inputs) of a `cond` node whose inputs
    the branches may take over where `flags` says so."""
    then_plan = plan(node.attrs["then_branch"], flags[1:])
    else_plan = plan(node.attrs["else_branch"], flags[1:])
    owned = [a and b for a, b in zip(then_plan.owned_outputs, else_plan.owned_outputs)]
    written = [False] + [a or b for a, b in zip(then_plan.written_inputs,
                                                else_plan.written_inputs)]
    return then_plan, else_plan, owned, written


def while_ownership(node, flags, plan):
    """(body_plan, copy_at_entry, owned_outputs, written_inputs) of a `while` node.

    Loop variables may be updated in place inside the body when every iteration hands the
    next one a buffer nobody else sees: the largest such set is a fixpoint. A loop variable
    the body writes whose initial buffer the loop may not take over (flags) is copied once
    at loop entry (the indices in copy_at_entry).
    """
    n = node.attrs["n_loop_vars"]
    n_captures = len(node.inputs) - n
    assumed = [True] * n
    while True:
        body_plan = plan(node.attrs["body"], assumed + [False] * n_captures)
        narrowed = [a and o for a, o in zip(assumed, body_plan.owned_outputs)]
        if narrowed == assumed:
            break
        assumed = narrowed
    written_in_body = body_plan.written_inputs[:n]
    copy_at_entry = tuple(i for i in range(n)
                          if assumed[i] and written_in_body[i] and not flags[i])
    owned = [assumed[i] and (flags[i] or i in copy_at_entry) for i in range(n)]
    written = [flags[i] and written_in_body[i] for i in range(n)] + [False] * n_captures
    return body_plan, copy_at_entry, owned, written
