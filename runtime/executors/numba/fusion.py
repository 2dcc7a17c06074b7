"""Loop fusion for the Numba code generator: a tree of elementwise float ops (a + b * c,
0.2 * (x[1:-1] + x[2:] + x[:-2]), np.where(np.abs(x) > t, x - t * np.sign(x), 0.0))
becomes one explicit loop over the broadcast shape that writes one new array, with no
temporaries.

Why explicit loops: Numba's own array operators allocate a result per op, and its
array-expression rewrite, which fuses operators written in one statement, runs its loops
through a generic strided iterator: on slices (arrays of layout "A") it is as slow as op by
op. Measured (float64): a * b + c scaled, 1000x100 C arrays: op by op 72 us, NumPy 50 us,
one loop 35 us; jacobi_2d's five-point sums of slices, 128x128, 20 steps: op by op 1.55 ms,
NumPy 0.95 ms, one loop over the slices 0.82 ms.

Which nodes (`plan`): an op of ELEMENT_TEXT whose array operands have one float dtype,
that of its output (a comparison: its output is bool; np.where: its condition is a bool
array), so NumPy's loop for them is that dtype's and the element expression computes
exactly what it computes, and whose scalar operands convert to that dtype without changing
the result type. A producer joins a tree when the tree's nodes read its output and nothing
else does, and every node between it and them is in the tree or inert (`_inert`: slicing,
dims, scalar arithmetic): the tree's reads move to the root's place, so nothing may write in
between, and its broadcast checks run there in node order, so nothing else may raise in
between. A value the tree reads twice (`x` in np.where(x > 0, x, 0.0)) is one local of the
loop body, computed once per element.

Errors: before the loop, the broadcast of each node's operands is checked in node order,
its node marked as running (codegen's err[NODE_SLOT]), so a misfit names that node and the
user's line, as the op-by-op code did.
"""

import heapq

import numpy as np

from runtime.executors.numba.lowering import broadcast_step, literal_text, np_dtype
from runtime.graph import TENSOR_ARRAY
from runtime.markers import DYN

# The element expression of each fusable op ({0}, {1}: its operands' elements). Numba's
# scalar arithmetic of two float64 (float32) values is IEEE's, as NumPy's loops are; sqrt
# is correctly rounded in both; np.maximum / np.minimum are Numba's, as its array ufuncs.
ELEMENT_TEXT = {
    "add": "({0} + {1})", "subtract": "({0} - {1})", "multiply": "({0} * {1})",
    "divide": "({0} / {1})", "negative": "(-{0})", "absolute": "abs({0})",
    "sqrt": "np.sqrt({0})", "square": "({0} * {0})", "maximum": "np.maximum({0}, {1})",
    "minimum": "np.minimum({0}, {1})",
    # NumPy's sign of a float; `{one}`, `{zero}`: constants of the operand's dtype (a
    # float64 1.0 would make a float32 chain float64).
    "sign": "_rt.sign({0}, {one}, {zero})",
    # IEEE comparisons, as NumPy's loops (False with a NaN, but != True).
    "greater": "({0} > {1})", "greater_equal": "({0} >= {1})", "less": "({0} < {1})",
    "less_equal": "({0} <= {1})", "equal": "({0} == {1})", "not_equal": "({0} != {1})",
    "where": "_rt.select({0}, {1}, {2})",
}
_COMPARISONS = frozenset(("greater", "greater_equal", "less", "less_equal", "equal",
                          "not_equal"))
# Ops that get a loop only with others (their own lowering calls NumPy's function, as fast
# alone): a loop of one np.where of three operands that may broadcast adds about 20 blocks
# of checks and steps to compile (examples/rnn_classifier.py's train step: 544 blocks, 15.7
# s to compile, against 455 and 13.0 s without such loops).
_IN_CHAINS_ONLY = _COMPARISONS | {"where", "sign"}
_FLOATS = (np.dtype(np.float64), np.dtype(np.float32))
_SCALAR_OPS = frozenset(ELEMENT_TEXT) | {"floor_divide", "remainder", "less", "less_equal",
                                         "greater", "greater_equal", "equal", "not_equal",
                                         "logical_and", "logical_or", "logical_not",
                                         "cast"}   # (a Python float as float32: np.float32(s))


def _is_array(value):
    return value.kind != TENSOR_ARRAY and value.shape is not None and value.shape != ()


def uncertain_ranks(graph):
    """The loop variables and cond outputs (of `graph` and its nested graphs) whose Values
    disagree on their rank with what flows into them: generated code holds whatever came
    (an array), so a loop must not read them as scalars. (A gradient's accumulator loop
    variable can be typed f64[] while it starts as, and becomes, an f64[?].)"""
    uncertain = set()
    for node in graph.walk():
        if node.op.name == "while":
            body, cond = node.attrs["body"], node.attrs["cond"]
            for i in range(node.attrs["n_loop_vars"]):
                group = [node.inputs[i], node.outputs[i], body.outputs[i],
                         body.all_inputs[i], cond.all_inputs[i]]
                if len({_rank(v) for v in group}) > 1:
                    uncertain.update(group)
        elif node.op.name == "cond":
            branches = (node.attrs["then_branch"], node.attrs["else_branch"])
            for i, out in enumerate(node.outputs):
                group = [out] + [branch.outputs[i] for branch in branches]
                if len({_rank(v) for v in group}) > 1:
                    uncertain.update(group)
    return uncertain


def _rank(value):
    return None if value.kind == TENSOR_ARRAY or value.shape is None else len(value.shape)


def elementwise(node, uncertain=()):
    """Can `node` be computed element by element in a fused loop (not with an operand whose
    rank is `uncertain`)?"""
    name = node.op.name
    if name not in ELEMENT_TEXT and name != "power":
        return False
    if node.errstate is not None and "raise" in node.errstate.values():
        return False
    if len(node.outputs) != 1:
        return False
    out = node.outputs[0]
    if not _is_array(out):
        return False
    dtype = operand_dtype(node)
    if dtype is None or dtype not in _FLOATS or out.dtype != (
            np.bool_ if name in _COMPARISONS else dtype):
        return False
    if name == "power":   # x ** 2: NumPy's power squares (x * x) for an exponent of 2
        exponent = node.inputs[1]
        if not (exponent.is_literal and exponent.dtype.kind in "biuf"
                and float(exponent.literal) == 2.0):
            return False
    for position, value in enumerate(node.inputs):
        if value.kind == TENSOR_ARRAY or value.shape is None or value in uncertain:
            return False
        if name == "where" and position == 0:   # the condition: a bool array
            if not _is_array(value) or value.dtype != np.bool_ \
                    or len(value.shape) > len(out.shape):
                return False
        elif _is_array(value):
            if value.dtype != dtype or len(value.shape) > len(out.shape):
                return False
        elif not (value.weak or np.result_type(dtype, value.dtype) == dtype):
            return False
        elif value.dtype.kind not in "biuf":
            return False
    return True


def operand_dtype(node):
    """The dtype `node`'s loop computes in: a comparison's, that of its first array
    operand (elementwise() checks the others have it too); other ops', their output's."""
    if node.op.name in _COMPARISONS:
        arrays = [value for value in node.inputs if _is_array(value)]
        return arrays[0].dtype if arrays else None
    return node.outputs[0].dtype


def _inert(node, uncertain):
    """Does `node` neither write, nor raise, nor have effects (so a fused tree's reads and
    checks may move past it)?"""
    op = node.op
    if any(v in uncertain for v in node.inputs):
        return False
    if op.control_flow or op.effect or op.inplace_input is not None:
        return False
    if op.name in ("dim", "size"):
        return True
    if op.name == "get_item":   # basic slicing: a view, never out of bounds
        index = node.attrs["index"]
        return all(isinstance(entry, slice) or entry is None or entry is Ellipsis
                   for entry in index) and all(not _is_array(v) for v in node.inputs[1:])
    return (op.name in _SCALAR_OPS and not any(_is_array(v) for v in node.inputs)
            and not any(_is_array(v) or v.kind == TENSOR_ARRAY for v in node.outputs))


def plan(graph, uncertain=()):
    """({root node: its tree's nodes in graph order}, the set of nodes computed inside a
    later root's loop, {value: its number of reads}) for the nodes of `graph` (not its
    nested graphs); `uncertain`: uncertain_ranks() of the outermost graph."""
    position = {node: i for i, node in enumerate(graph.nodes)}
    producer = {}
    uses = {}
    for node in graph.nodes:
        for value in node.outputs:
            producer[value] = node
        for value in node.inputs:
            uses[value] = uses.get(value, 0) + 1
    for value in graph.outputs:
        uses[value] = uses.get(value, 0) + 1
    nodes = graph.nodes
    trees, members = {}, set()
    for root in reversed(nodes):
        if root in members or not elementwise(root, uncertain):
            continue
        tree = {root}
        reads = {}           # value -> its number of reads by the tree's nodes
        candidates = []
        offered = set()

        def offer(node):
            for value in node.inputs:
                reads[value] = reads.get(value, 0) + 1
                source = producer.get(value)
                if (source is not None and source not in members and source not in offered
                        and elementwise(source, uncertain)):
                    offered.add(source)
                    heapq.heappush(candidates, (-position[source], id(source), source))

        offer(root)
        end = position[root]
        while candidates:
            # Nearest first: each node popped is before every node popped earlier, so its
            # readers in the tree have all joined by then, and what lies between is decided.
            _, _, node = heapq.heappop(candidates)
            value = node.outputs[0]
            if reads.get(value) == uses.get(value) and all(
                    n in tree or _inert(n, uncertain) for n in nodes[position[node] + 1:end]):
                tree.add(node)
                offer(node)
        if len(tree) == 1 and root.op.name in _IN_CHAINS_ONLY:
            continue
        members.update(tree - {root})
        trees[root] = sorted(tree, key=position.get)
    # Numba's compile time grows faster than the code: its SSA reconstruction is about
    # quadratic in a function's blocks, and each loop adds several. The gradient of 40
    # unary ops (tests/gradients/test_elementwise_rules.py, unary_mix) fused into 92 loops
    # took 266 s to compile against 100 s op by op. So a graph body gets at most MAX_LOOPS
    # loops, for its longest chains. (A single op is worth one too where it broadcasts:
    # softmax's `x - max` and `e / sum` run 0.70x NumPy's time in loops, 1.14x as Numba's
    # ufuncs.) A tree whose result nothing reads costs no loop (emit: only its checks)
    # and is always kept.
    def dead(root):
        return all(uses.get(value, 0) == 0 for value in root.outputs)

    chains = sorted((root for root in trees if not dead(root)),
                    key=lambda root: (-len(trees[root]), position[root]))[:MAX_LOOPS]
    kept = chains + [root for root in trees if dead(root)]
    trees = {root: trees[root] for root in sorted(kept, key=position.get)}
    members = {node for tree in trees.values() for node in tree[:-1]}
    return trees, members, uses


MAX_LOOPS = 16


def masked_updates(graph, trees, uses, uncertain=()):
    """{set_item node: (get_item node, tree root)} of the updates `x[m] = f(x[m])` among
    `graph`'s nodes (of `plan`'s trees and uses): x and the mask m 1-d, f a tree whose only
    array operand is the gather x[m], read by nothing else, and nothing but the tree or
    inert nodes between the gather and the write. Each is one loop over the mask
    (`emit_masked_update`): where it is True, the element is read, f computed and written
    back, where the gather, f's loop and the write each make an array and index through
    the mask (bouncing_balls of tools/vectorised_workloads.py: 0.08x njit's time, from
    1.04x)."""
    position = {node: i for i, node in enumerate(graph.nodes)}
    producer = {value: node for node in graph.nodes for value in node.outputs}
    found = {}
    for node in graph.nodes:
        if node.op.name != "set_item" or node.attrs["index"] != (DYN,) \
                or len(node.inputs) != 3:
            continue
        x, value, mask = node.inputs
        root = producer.get(value)
        if (root not in trees or uses.get(value) != 1 or not _is_array(x)
                or len(x.shape) != 1 or value.dtype != x.dtype or x in uncertain
                or mask in uncertain or not _is_array(mask) or mask.dtype != np.bool_
                or len(mask.shape) != 1):
            continue
        tree = trees[root]
        results = {member.outputs[0] for member in tree}
        operands = [v for member in tree for v in member.inputs
                    if _is_array(v) and v not in results]
        gather = producer.get(operands[0]) if operands else None
        if (gather is None or any(v is not operands[0] for v in operands)
                or uses.get(operands[0]) != len(operands)
                or gather.op.name != "get_item" or gather.attrs["index"] != (DYN,)
                or len(gather.inputs) != 2 or gather.inputs[0] is not x
                or gather.inputs[1] is not mask):
            continue
        between = graph.nodes[position[gather] + 1:position[node]]
        if all(n in tree or _inert(n, uncertain) for n in between):
            found[node] = (gather, root)
    return found


def emit_masked_update(g, node, gather, tree, target):
    """The loop of a masked update (`masked_updates`) writing into `target` (x's buffer, or
    its copy): the gather's check that the mask fits x, then, where the mask is True, the
    tree's element of x's element. (The write's own checks cannot fail then: the same mask
    on the same x, a value of one element per True.)"""
    x, _, mask = node.inputs
    mask_name = g.expr(mask)
    g.emit("_rt.check_mask(%s.shape[0], %s.shape[0], %d)" % (
        mask_name, g.expr(x), g.site(gather, "mask", axis=0)))
    held = g.tmp("fc")     # (NumPy reads the mask as it was: it may be a view of x)
    g.emit("%s = %s" % (held, mask_name))
    g.emit("if _rt.may_share_memory(%s, %s):" % (held, target))
    g.emit("    %s = %s.copy()" % (held, held))
    index = g.tmp("j")
    g.emit("for %s in range(%s.shape[0]):" % (index, held))
    g.emit("    if %s[%s]:" % (held, index))
    g.depth += 2
    in_tree = {member.outputs[0]: member for member in tree}
    leaves = {gather.outputs[0]: (target, [""])}
    text = _element(g, tree[-1], in_tree, leaves, [index], {})
    g.emit("%s[%s] = %s" % (target, index, text))
    g.depth -= 2


def emit(g, root, tree):
    """Emits the loop computing `root` (and the rest of `tree`); returns its result's name
    (None for a result nothing reads: then only the checks are emitted)."""
    out = root.outputs[0]
    rank = len(out.shape)
    dtype = out.dtype
    in_tree = {node.outputs[0]: node for node in tree}
    leaves = {}      # array Value -> (name, per-axis multiplier text)
    dims = {}        # Value -> dims (texts, one per axis)
    for node in tree:
        operand_dims = []
        for value in node.inputs:
            if not _is_array(value):
                continue
            if value not in in_tree and value not in dims:
                name = g.expr(value)
                dims[value] = [str(d) if d is not None else "%s.shape[%d]" % (name, axis)
                               for axis, d in enumerate(value.shape)]
            operand_dims.append(dims[value])
        dims[node.outputs[0]] = _broadcast(g, node, operand_dims, len(node.outputs[0].shape))
    if not g.is_used(out):   # dead: only NumPy's errors remain to give
        return None
    shape = dims[out]
    for value, value_dims in dims.items():
        if value in in_tree:
            continue
        name = g.expr(value)
        multipliers = []
        for axis, d in enumerate(value.shape):
            if d == 1:
                multipliers.append("0")
            elif d is not None or shape[rank - len(value.shape) + axis] == value_dims[axis]:
                multipliers.append("")      # (equal to the loop's dim)
            else:
                multipliers.append(broadcast_step(g, name, axis))
        leaves[value] = (name, multipliers)
    result = g.tmp("f")
    g.emit("%s = np.empty((%s), %s)" % (result, "".join(d + ", " for d in shape),
                                        np_dtype(dtype)))
    loop_vars = [g.tmp("i") for _ in range(rank)]
    for axis, var in enumerate(loop_vars):
        g.emit("    " * axis + "for %s in range(%s):" % (var, shape[axis]))
    g.depth += rank
    text = _element(g, root, in_tree, leaves, loop_vars, {})
    g.emit("%s[%s] = %s" % (result, ", ".join(loop_vars), text))
    g.depth -= rank
    return result


def _broadcast(g, node, operand_dims, rank):
    """The dims of `node`'s output from its array operands' dims, after emitting NumPy's
    check that they broadcast (with `node` marked as running)."""
    aligned = [[None] * (rank - len(d)) + list(d) for d in operand_dims]
    result = []
    marked = [False]
    for axis in range(rank):
        present = [d[axis] for d in aligned if d[axis] is not None]
        dim = present[0]
        for other in present[1:]:
            dim = _combine(g, node, dim, other, marked)
        result.append(dim)
    return result


def _combine(g, node, a, b, marked):
    """The text of the broadcast of dims a and b, after a check where they may differ
    (the first check of a node marks it as running). Inline, not a call of a support
    helper, which would compile faster (fewer blocks) but makes the loop slower
    (lowering.broadcast_step says why)."""
    if a == b or b == "1":
        return a
    if a == "1":
        return b
    if not marked[0]:
        marked[0] = True
        g.uses_err = True
        g.emit("err[%d] = %d" % (g.node_slot, g.site(node, "node") + 1))
    name = g.tmp("d")
    g.emit("if %s != %s and %s != 1 and %s != 1:" % (a, b, a, b))
    g.emit("    raise ValueError(\"operands could not be broadcast together\")")
    g.emit("%s = %s if %s == 1 else %s" % (name, a, b, b))
    return name


def _element(g, node, in_tree, leaves, loop_vars, locals_):
    """The expression of one element of `node`'s output, after emitting (in the loop body)
    the elements of the tree's nodes it reads, one local each (`locals_`: {value: its local}
    of those emitted already)."""
    rank = len(loop_vars)
    dtype = operand_dtype(node)
    parts = []
    for position, value in enumerate(node.inputs[:1] if node.op.name == "power"
                                     else node.inputs):
        if value in in_tree:
            local = locals_.get(value)
            if local is None:
                text = _element(g, in_tree[value], in_tree, leaves, loop_vars, locals_)
                local = locals_[value] = g.tmp("e")
                g.emit("%s = %s" % (local, text))
            parts.append(local)
        elif _is_array(value):
            name, multipliers = leaves[value]
            first = rank - len(multipliers)
            index = [m if m == "0" else loop_vars[first + axis] + (" * " + m if m else "")
                     for axis, m in enumerate(multipliers)]
            parts.append("%s[%s]" % (name, ", ".join(index)))
        elif value.is_literal:
            parts.append(literal_text(value.literal, dtype))
        else:
            text = g.expr(value)
            parts.append(text if value.dtype == dtype else g.scalar_cast(text, dtype))
    template = "({0} * {0})" if node.op.name == "power" else ELEMENT_TEXT[node.op.name]
    return template.format(*parts, one=literal_text(1, dtype), zero=literal_text(0, dtype))
