"""Advanced indexing in generated code: `x[index]` and `x[index] = value` where the index
holds integer arrays or boolean masks, alone or with ints, slices and None, as explicit
loops (Numba's own fancy indexing takes one advanced index, with nothing else). The
indexing op's lowering (runtime/ops/indexing.py) reaches it through `CodeGen.gather` and
`CodeGen.scatter`, with the index as `lowering.index_entries` reads it.

NumPy's rules, and how the code keeps them:
- the index arrays broadcast together; a mask of rank k counts as the k integer arrays of
  its nonzero(); the broadcast dims go where the first advanced index was when the advanced
  indices (ints among them) are adjacent, else first (None and slices separate them);
- errors come in NumPy's order, all before anything is written: masks whose shape does not
  fit, ints out of range, index arrays that do not broadcast together, (writes) a value
  that does not broadcast to the indexing result, then index arrays out of range, one array
  after the other (`support.check_indices`);
- writes go in the C order of the result, so of repeated indices the last write wins; an
  augmented `x[i, j] -= v` is traced as a read, a subtraction and a write, so, as in
  NumPy, it subtracts once however often an element is indexed; `np.subtract.at(x, (i, j),
  v)` (the ufunc_at op) combines each element written with its current value instead, so
  it subtracts as often.

The code: a basic view of x takes the ints, slices and Nones (`x[i, :, None, 1:]`, each
advanced axis taken whole), then one loop per dim of the result; once the loops of the
broadcast dims are open, each index array's element is read (and a negative one
normalised: the checks ran before), and the innermost loop moves one element. An index
array that may be broadcast (a dim of 1 against a longer one) is read through a 0/1
multiplier. A write first copies the index arrays and the value where they may be views
of the array it writes (`support.may_share_memory`), as NumPy does.

Measured by tools/bench_indexing.py (10,000 elements, per call, against NumPy itself):
`probs[rows, labels]` 0.66x, `grad[rows, labels] -= 1` 0.7x, `x[:, cols]` 0.6x,
`probs[mask, 0]` 0.35x, a one-array `x[idx]` 1.2x (NumPy's take is one tight loop; here
the bounds are checked in a pass of their own first).
"""

import numpy as np

from runtime.executors.numba.lowering import Unlowerable, broadcast_step, np_dtype, scalar_index
from runtime.markers import DYN


class _Array:
    """One integer index array of the broadcast: a user's array, or one of the parts of a
    mask's nonzero() (those are in range and not negative: no check, no normalisation)."""

    def __init__(self, text, dims, x_axis, dtype, checked):
        self.text = text
        self.dims = dims            # static dims (None where unknown)
        self.x_axis = x_axis
        self.dtype = dtype
        self.checked = checked
        self.size = None            # the local holding the size of the axis it indexes
        self.site = None            # the site of its IndexError
        self.steps = None           # per dim: None (the loop index), "0" or a 0/1 local
        self.element = None         # the local holding the element the loops are at


class _Plan:
    """What both directions share: the basic view, the index arrays, the broadcast dims
    and the layout of the result."""

    def __init__(self):
        self.view = None
        self.view_axes = []         # per view axis: None (basic) or the _Array indexing it
        self.arrays = []
        self.broadcast = []         # the locals holding the broadcast dims
        self.result = []            # per result dim: ("basic", view axis) or ("advanced", d)

    def result_sizes(self):
        return ["%s.shape[%d]" % (self.view, which) if kind == "basic"
                else self.broadcast[which] for kind, which in self.result]


def gather(g, node, entries, source):
    """x[index] for node's get_item: returns the local holding the result."""
    x = node.inputs[0]
    plan = _prepare(g, node, entries, source)
    _axis_sizes(g, node, plan)
    _check_indices(g, plan)
    out = g.tmp("fx")
    sizes = plan.result_sizes()
    g.emit("%s = np.empty((%s), %s)" % (out, "".join(s + ", " for s in sizes),
                                         np_dtype(x.dtype)))

    def move(view_index, loop_vars):
        g.emit("%s[%s] = %s[%s]" % (out, ", ".join(loop_vars), plan.view, view_index))
    _loops(g, plan, move)
    return out


def scatter(g, node, entries, target, value, val, combine=None):
    """x[index] = value for node's set_item, on `target` (the buffer the result is in);
    `val` is the expression of the value, already of x's dtype. With `combine` (ufunc.at),
    each element written is `combine(element, value's element)` instead, x's dtype:
    elements indexed more than once are combined again each time (unbuffered)."""
    if (combine is None and node.attrs["index"] == (DYN,) and not g.is_scalar(value)
            and [kind for kind, _ in entries] == ["mask"] and len(entries[0][1].shape) == 1
            and len(node.inputs[0].shape) == 1):
        _scatter_by_mask(g, node, entries[0][1], target, value, val)
        return
    plan = _prepare(g, node, entries, target)
    # NumPy reads the index arrays and the value as they were before the write, also where
    # they are views of the array written (`x[[1, 0]] = x[:2]` swaps two rows).
    for array in plan.arrays:
        if array.checked:
            array.text = _unshared(g, array.text, target)
    value_steps = None
    if not g.is_scalar(value):
        val = _unshared(g, val, target)
        if node.attrs["index"] == (DYN,) and [kind for kind, _ in entries] == ["mask"]:
            value_steps = _check_mask_values(g, node, plan.broadcast[0], value, val)
        else:
            value_steps = _check_value(g, node, plan, value, val)
    _axis_sizes(g, node, plan)
    _check_indices(g, plan)

    def move(view_index, loop_vars):
        element = "%s[%s]" % (plan.view, view_index)
        written = val
        if value_steps is not None:
            parts = []
            for step, dim in value_steps:
                parts.append("0" if dim is None or step == "0" else loop_vars[dim]
                             if step is None else "%s * %s" % (loop_vars[dim], step))
            written = "%s[%s]" % (val, ", ".join(parts))
        if combine is not None:
            written = combine(element, written)
        g.emit("%s = %s" % (element, written))
    _loops(g, plan, move)


def _scatter_by_mask(g, node, mask, target, value, val):
    """x[mask] = value of 1-d arrays x and mask: one pass over the mask writing the value's
    elements in turn where it is True (the general path makes the mask's nonzero() first,
    an array of indices, and indexes through it: `x[m] = v` of 10,000 floats, a random
    mask, ran 0.75-0.94x NumPy's time that way, 0.40-0.58x this way). The checks come
    first, in NumPy's order, as on the general path."""
    g.emit("_rt.check_mask(%s.shape[0], %s.shape[0], %d)" % (
        g.expr(mask), target, g.site(node, "mask", axis=0)))
    # (NumPy reads the mask and the value as they were: either may be a view of x.)
    held = _unshared(g, g.expr(mask), target)
    val = _unshared(g, val, target)
    count = g.tmp("b")
    g.emit("%s = np.count_nonzero(%s)" % (count, held))
    steps = _check_mask_values(g, node, count, value, val)
    written = g.tmp("q")
    parts = ["0" if dim is None or step == "0" else written if step is None
             else "%s * %s" % (written, step) for step, dim in steps]
    j = g.tmp("j")
    g.emit("%s = 0" % written)
    g.emit("for %s in range(%s.shape[0]):" % (j, held))
    g.emit("    if %s[%s]:" % (held, j))
    g.emit("        %s[%s] = %s[%s]" % (target, j, val, ", ".join(parts)))
    g.emit("        %s += 1" % written)


def _unshared(g, text, target):
    """A local holding `text`, copied when it may share memory with `target`."""
    held = g.tmp("fc")
    g.emit("%s = %s" % (held, text))
    g.emit("if _rt.may_share_memory(%s, %s):" % (held, target))
    g.emit("    %s = %s.copy()" % (held, held))
    return held


def _prepare(g, node, entries, source):
    """Check masks and ints, take the basic view, broadcast the index arrays (with NumPy's
    IndexError when they do not broadcast)."""
    plan = _Plan()
    x_axis = 0
    for kind, info in entries:
        if kind == "mask":
            rank = len(info.shape)
            for d in range(rank):
                g.emit("_rt.check_mask(%s.shape[%d], %s.shape[%d], %d)" % (
                    g.expr(info), d, source, x_axis + d,
                    g.site(node, "mask", axis=x_axis + d)))
            x_axis += rank
        elif kind != "none":
            x_axis += 1

    x = node.inputs[0]
    parts = []
    positions = []                  # of the advanced entries (ints among them)
    before = None                   # basic view axes before the first advanced entry
    x_axis = 0
    masks = []
    for position, (kind, info) in enumerate(entries):
        if kind in ("none", "slice"):
            parts.append("None" if kind == "none" else info)
            plan.view_axes.append(None)
            x_axis += kind == "slice"
            continue
        if before is None:
            before = sum(1 for axis in plan.view_axes if axis is None)
        positions.append(position)
        if kind == "int":
            parts.append(scalar_index(g, node, x, info, source, x_axis))
            x_axis += 1
        elif kind == "array":
            array = _Array(g.expr(info), info.shape, x_axis, info.dtype, True)
            plan.arrays.append(array)
            plan.view_axes.append(array)
            parts.append(":")
            x_axis += 1
        elif not info.shape:
            # A boolean scalar: a new axis, where NumPy reads [0] when it is True, [] when not.
            found = g.tmp("nz")
            masks.append((found, "(np.zeros(1 if %s else 0, np.int64),)" % g.expr(info)))
            array = _Array("%s[0]" % found, (None,), x_axis, np.dtype(np.int64), False)
            plan.arrays.append(array)
            plan.view_axes.append(array)
            parts.append("None")
        else:
            found = g.tmp("nz")
            masks.append((found, "np.nonzero(%s)" % g.expr(info)))
            for d in range(len(info.shape)):
                array = _Array("%s[%d]" % (found, d), (None,), x_axis, np.dtype(np.int64),
                               False)
                plan.arrays.append(array)
                plan.view_axes.append(array)
                parts.append(":")
                x_axis += 1
    if all(part == ":" for part in parts):
        plan.view = source
    else:
        plan.view = g.tmp("fv")
        g.emit("%s = %s[%s]" % (plan.view, source, ", ".join(parts)))
    for found, parts_of_mask in masks:
        g.emit("%s = %s" % (found, parts_of_mask))

    rank = max(len(a.dims) for a in plan.arrays)
    _broadcast(g, node, plan, rank)
    advanced = [("advanced", d) for d in range(rank)]
    basic = [("basic", axis) for axis, array in enumerate(plan.view_axes) if array is None]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    at = before if adjacent else 0
    plan.result = basic[:at] + advanced + basic[at:]
    return plan


def _broadcast(g, node, plan, rank):
    """The broadcast dims of the index arrays (NumPy's rules), and how each array is read:
    directly by the loop index, or through a 0/1 step where it may be broadcast."""
    for array in plan.arrays:
        array.steps = [None] * len(array.dims)
    for d in range(rank):
        readers = [(a, d - (rank - len(a.dims))) for a in plan.arrays
                   if d >= rank - len(a.dims)]
        dim = g.tmp("b")
        plan.broadcast.append(dim)
        first, e = readers[0]
        g.emit("%s = %s.shape[%d]" % (dim, first.text, e))
        for array, e in readers[1:]:
            size = "%s.shape[%d]" % (array.text, e)
            g.emit("if %s != %s:" % (size, dim))
            g.emit("    if %s == 1:" % dim)
            g.emit("        %s = %s" % (dim, size))
            g.emit("    elif %s != 1:" % size)
            g.depth += 2
            _fail_broadcast(g, node, plan)
            g.depth -= 2
        if len(readers) == 1:
            continue
        for array, e in readers:
            static = array.dims[e]
            if static == 1:
                array.steps[e] = "0"
            elif static is None:
                array.steps[e] = broadcast_step(g, array.text, e)


def _fail_broadcast(g, node, plan):
    """Raise NumPy's IndexError for index arrays that do not broadcast: their shapes go to
    `err` (count, then each rank and dims)."""
    needed = 1 + sum(1 + len(a.dims) for a in plan.arrays)
    if needed > g.node_slot:
        raise Unlowerable("%d index arrays of these ranks" % len(plan.arrays))
    g.uses_err = True
    g.emit("err[0] = %d" % len(plan.arrays))
    slot = 1
    for array in plan.arrays:
        g.emit("err[%d] = %d" % (slot, len(array.dims)))
        for e in range(len(array.dims)):
            g.emit("err[%d] = %s.shape[%d]" % (slot + 1 + e, array.text, e))
        slot += 1 + len(array.dims)
    g.emit("raise _rt.GraphFail(%d)" % g.site(node, "index_broadcast"))


def _check_value(g, node, plan, value, val):
    """NumPy's check that `value` broadcasts to the indexing result (ValueError, the shapes
    in `err`), and how the loops read it: (step, result dim) per value dim, the step None
    (the loop index), "0" or a 0/1 local, the result dim None for leading dims of 1."""
    sizes = plan.result_sizes()
    q, r = len(value.shape), len(sizes)
    if 2 + q + r > g.node_slot:
        raise Unlowerable("assigning a rank-%d value through a rank-%d advanced index"
                          % (q, r))
    tests = []
    steps = []
    for dv in range(q):
        static = value.shape[dv]
        dr = dv - (q - r)
        if dr < 0:
            if static != 1:
                tests.append("%s.shape[%d] != 1" % (val, dv))
            steps.append(("0", None))
            continue
        if static == 1:
            steps.append(("0", dr))
            continue
        tests.append("(%s.shape[%d] != 1 and %s.shape[%d] != %s)" % (val, dv, val, dv,
                                                                     sizes[dr]))
        if static is not None:      # not 1: the check makes it the result's dim
            steps.append((None, dr))
            continue
        steps.append((broadcast_step(g, val, dv), dr))
    if tests:
        g.uses_err = True
        g.emit("if %s:" % " or ".join(tests))
        g.emit("    err[0] = %d" % q)
        for dv in range(q):
            g.emit("    err[%d] = %s.shape[%d]" % (1 + dv, val, dv))
        g.emit("    err[%d] = %d" % (1 + q, r))
        for dr, size in enumerate(sizes):
            g.emit("    err[%d] = %s" % (2 + q + dr, size))
        g.emit("    raise _rt.GraphFail(%d)" % g.site(node, "put_shape"))
    return steps


def _axis_sizes(g, node, plan):
    """Each index array's axis size (a local, for the checks and the normalisation) and the
    site of its IndexError."""
    for array in plan.arrays:
        if array.checked:
            array.size = g.tmp("n")
            array.site = g.site(node, "index", axis=array.x_axis)
            g.emit("%s = %s.shape[%d]" % (array.size, plan.view,
                                          plan.view_axes.index(array)))


def _check_mask_values(g, node, count, value, val):
    """`x[mask] = value` with a mask of x's shape (and nothing else in the index) is
    NumPy's boolean assignment, with rules of its own: a value of rank 0 or 1 only
    (TypeError), of one element or one per True (ValueError; `count`: the local holding
    the number of Trues). Returns the value's steps as _check_value does."""
    if len(value.shape) > 1:
        g.emit("raise _rt.GraphFail(%d)" % g.site(node, "mask_value_rank",
                                                  rank=len(value.shape)))
        return [("0", None)] * len(value.shape)
    g.emit("if %s.shape[0] != 1 and %s.shape[0] != %s:" % (val, val, count))
    g.emit("    raise _rt.GraphFail(%d, %s.shape[0], %s)" % (
        g.site(node, "mask_values"), val, count))
    return [(broadcast_step(g, val, 0), 0)]


def _check_indices(g, plan):
    """NumPy's IndexError for index arrays out of range, array after array."""
    for array in plan.arrays:
        if array.checked:
            g.emit("_rt.check_indices(%s, %s, %d)" % (array.text, array.size, array.site))


def _loops(g, plan, move):
    """One loop per result dim, the index arrays read once the broadcast dims' loops are
    open; `move(view_index, loop_vars)` emits the innermost statement. (The checks ran
    before, for reads too: checking each element in the loop instead, with the ordered
    checks at the first one out of range, measured slower in generated code, 10-60%.)"""
    depth = g.depth
    loop_vars = []
    last = max(i for i, (kind, _) in enumerate(plan.result) if kind == "advanced")
    by_dim = {}
    for i, (size, (kind, which)) in enumerate(zip(plan.result_sizes(), plan.result)):
        var = g.tmp("q")
        loop_vars.append(var)
        by_dim[(kind, which)] = var
        g.emit("for %s in range(%s):" % (var, size))
        g.depth += 1
        if i == last:
            _read_elements(g, plan, by_dim)
    view_index = []
    for axis, array in enumerate(plan.view_axes):
        view_index.append(by_dim[("basic", axis)] if array is None else array.element)
    move(", ".join(view_index), loop_vars)
    g.depth = depth


def _read_elements(g, plan, by_dim):
    rank = len(plan.broadcast)
    for array in plan.arrays:
        parts = []
        for e, step in enumerate(array.steps):
            var = by_dim[("advanced", rank - len(array.dims) + e)]
            parts.append(var if step is None else "0" if step == "0"
                         else "%s * %s" % (var, step))
        read = "%s[%s]" % (array.text, ", ".join(parts))
        array.element = g.tmp("j")
        if not array.checked:
            g.emit("%s = %s" % (array.element, read))
            continue
        # (As int64: Numba would add a uint64 and the int64 size as floats.)
        g.emit("%s = %s" % (array.element, read if array.dtype == np.int64
                            else "np.int64(%s)" % read))
        if array.dtype.kind == "i":
            g.emit("if %s < 0:" % array.element)
            g.emit("    %s += %s" % (array.element, array.size))
