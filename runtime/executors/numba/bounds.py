"""Index bounds the Numba executor can prove at code-generation time: which scalar indices
are known >= 0 and which are known below the size of the axis they index, so their checks
(and the negative-index normalisation) can be left out of the generated code.

Integer scalars are tracked as linear forms over atoms (array dims, loop counters, opaque
values with a known lower bound); array shapes as tuples of such forms. A `while` loop
counter that starts at a known lower bound and only grows keeps it; inside the body, the
loop condition `i < n` gives the fact `i <= n - 1`. Loop assumptions are checked by
induction after the body (and dropped, re-analysing the loop, when they do not hold).
Sound up to int64 overflow of index arithmetic.
"""

import numpy as np

from runtime import path_kinds
from runtime.graph import TENSOR_ARRAY
from runtime.markers import DYN


class Atom:
    """An unknown integer: `lb` its lower bound (or None), `upper` the forms it is known to
    be <= (within the loop body that established them), `posmax` the form X when the atom
    is max(0, X)."""

    __slots__ = ("lb", "upper", "posmax")

    def __init__(self, lb=None, posmax=None):
        self.lb = lb
        self.upper = []
        self.posmax = posmax


class Lin:
    """const + sum(coeff * atom)."""

    __slots__ = ("const", "terms")

    def __init__(self, const=0, terms=None):
        self.const = const
        self.terms = {a: c for a, c in (terms or {}).items() if c}

    @staticmethod
    def atom(atom):
        return Lin(0, {atom: 1})

    def __add__(self, other):
        terms = dict(self.terms)
        for a, c in other.terms.items():
            terms[a] = terms.get(a, 0) + c
        return Lin(self.const + other.const, terms)

    def scale(self, k):
        return Lin(self.const * k, {a: c * k for a, c in self.terms.items()})

    def __sub__(self, other):
        return self + other.scale(-1)

    def __eq__(self, other):
        return (isinstance(other, Lin) and self.const == other.const
                and self.terms == other.terms)

    __hash__ = None

    def single_atom(self):
        """(atom, const) when this is atom + const, else None."""
        if len(self.terms) == 1:
            (a, c), = self.terms.items()
            if c == 1:
                return a, self.const
        return None


def lower_bound(lin, depth=4):
    """A lower bound of `lin` (int) or None: an atom with a negative coefficient is replaced
    by one of its upper facts (c * a >= c * fact for c < 0) and the bound of the whole
    result taken; atoms with a positive coefficient contribute their lower bound."""
    for a, c in lin.terms.items():
        if c < 0:
            best = None
            if depth > 0:
                for fact in a.upper:
                    bound = lower_bound(lin + (fact - Lin.atom(a)).scale(c), depth - 1)
                    if bound is not None and (best is None or bound > best):
                        best = bound
            return best
    total = lin.const
    for a, c in lin.terms.items():
        if a.lb is None:
            return None
        total += c * a.lb
    return total


def proves_less(index, size):
    """index < size for every value the atoms can take."""
    difference = size - index
    bound = lower_bound(difference)
    return bound is not None and bound >= 1


def _is_int_scalar(value):
    return (value.kind != TENSOR_ARRAY and value.shape == ()
            and value.dtype.kind in "iu")


class Bounds:
    """Facts for one root graph: `index_facts(node, index, array, axis)`."""

    def __init__(self, graph):
        self.sym = {}       # Value -> Lin (integer scalars)
        self.shapes = {}    # Value -> tuple of Lin (arrays)
        self.decisions = {}  # (node, index Value id or int, axis) -> (nonneg, below)
        self._graph(graph)

    # -- queries -------------------------------------------------------------------------
    def lin(self, value):
        if isinstance(value, (int, np.integer)):
            return Lin(int(value))
        if value.is_literal:
            literal = value.literal
            if isinstance(literal, (bool, np.bool_)) or not isinstance(
                    literal, (int, np.integer)):
                return None
            return Lin(int(literal))
        if not _is_int_scalar(value):
            return None
        found = self.sym.get(value)
        if found is None:
            found = self.sym[value] = Lin.atom(Atom())
        return found

    def shape(self, value):
        if value.kind == TENSOR_ARRAY or value.shape is None:
            return None
        found = self.shapes.get(value)
        if found is None:
            found = self.shapes[value] = tuple(
                Lin.atom(Atom(lb=0)) if d is None else Lin(int(d)) for d in value.shape)
        return found

    def index_facts(self, node, index, axis):
        """(known >= 0, known < size of the axis) for scalar index `index` (a Value or an
        int) on axis `axis` of get_item / set_item `node`; (False, False) when unknown."""
        return self.decisions.get((node, _key(index), axis), (False, False))

    def _decide(self, index, array, axis):
        lin = self.lin(index)
        if lin is None:
            return False, False
        nonneg = lower_bound(lin) is not None and lower_bound(lin) >= 0
        shape = self.shape(array)
        below = shape is not None and axis < len(shape) and proves_less(lin, shape[axis])
        return nonneg, below

    # -- analysis ------------------------------------------------------------------------
    def _graph(self, graph):
        for node in graph.nodes:
            name = node.op.name
            if name == "cond":
                self._cond(node)
            elif name == "while":
                self._while(node)
            else:
                self._op(node)

    def _alias(self, inner, outer):
        if outer in self.sym:
            self.sym[inner] = self.sym[outer]
        elif _is_int_scalar(outer) or outer.is_literal:
            lin = self.lin(outer)
            if lin is not None:
                self.sym[inner] = lin
        if outer.kind != TENSOR_ARRAY and outer.shape is not None and not outer.is_literal:
            self.shapes[inner] = self.shape(outer)

    def _op(self, node):
        name = node.op.name
        ins, outs = node.inputs, node.outputs
        if not outs:
            return
        out = outs[0]
        if name in ("get_item", "set_item"):
            self._record(node)
        if name == "dim":
            shape = self.shape(ins[0])
            if shape is not None:
                self.sym[out] = shape[node.attrs["axis"]]
            return
        if name == "size":
            self.sym[out] = Lin.atom(Atom(lb=0))
            return
        if _is_int_scalar(out):
            lin = self._int_op(name, ins, path_kinds.is_python(out))
            if lin is not None:
                self.sym[out] = lin
            return
        if out.kind == TENSOR_ARRAY or out.shape is None:
            return
        if name in ("zeros", "ones", "empty", "full"):
            dynamic = ins[node.attrs.get("_n_leading", 1):] if name == "full" else ins
            it = iter(dynamic)
            dims = []
            for d in node.attrs["shape"]:
                dims.append(self.lin(next(it)) if d is None else Lin(int(d)))
            if all(d is not None for d in dims) and len(dims) == len(out.shape):
                self.shapes[out] = tuple(dims)
        elif name in ("zeros_like", "ones_like", "empty_like", "full_like", "copy", "cast",
                      "set_item") and ins and len(ins[0].shape or ()) == len(out.shape):
            if not ins[0].is_literal:
                self.shapes[out] = self.shape(ins[0])

    def _record(self, node):
        """Decide the checks of a get_item / set_item node's scalar indices now: loop facts
        hold only while the body that established them is analysed."""
        x = node.inputs[0]
        if x.kind == TENSOR_ARRAY or x.shape is None or x.is_literal:
            return
        dynamic = node.inputs[1:] if node.op.name == "get_item" else node.inputs[2:]
        for index, axis in index_axes(node.attrs["index"], dynamic, len(x.shape)):
            self.decisions[(node, _key(index), axis)] = self._decide(index, x, axis)

    def _int_op(self, name, ins, python=False):
        if name in ("cast", "copy") and len(ins) == 1:
            return self.lin(ins[0]) if ins[0].dtype.kind in "iu" else None
        if name == "range_length":
            # len(range(start, stop)) is max(0, stop - start) (exactly: no int64 wraps).
            start, stop, step = (self.lin(v) for v in ins)
            posmax = stop - start if None not in (start, stop) and step == Lin(1) else None
            return Lin.atom(Atom(lb=0, posmax=posmax))
        if name == "range_item":   # start + index * step
            start, step, index = (self.lin(v) for v in ins)
            if None in (start, step, index) or step.terms:
                return None
            return start + index.scale(step.const)
        if len(ins) != 2:
            return None
        a, b = self.lin(ins[0]), self.lin(ins[1])
        if a is None or b is None:
            return None
        if name == "add":
            return a + b
        if name == "subtract":
            return a - b
        if name == "multiply":
            if not a.terms:
                return b.scale(a.const)
            if not b.terms:
                return a.scale(b.const)
            la, lb_ = lower_bound(a), lower_bound(b)
            if la is not None and lb_ is not None and la >= 0 and lb_ >= 0:
                return Lin.atom(Atom(lb=la * lb_))
            return None
        if name == "remainder":
            # An integer `a % b` takes b's sign: in [0, b - 1] for b >= 1. Where b is a size
            # (>= 0) and the operands Python ints (`python`), b == 0 raises Python's
            # ZeroDivisionError (the trace's check, before the op) before anything uses the
            # result, so `x[(i + 1) % n]` with n the size of x's axis needs no bounds check.
            # (NumPy's integers give 0 there: no bound.)
            lb_b = lower_bound(b)
            if not python or lb_b is None or lb_b < 0:
                return None
            atom = Atom(lb=0)
            atom.upper.append(b - Lin(1))
            return Lin.atom(atom)
        if name == "floor_divide" and not b.terms and b.const > 0:
            if b.const == 1:
                return a
            la = lower_bound(a)
            return Lin.atom(Atom(lb=None if la is None else la // b.const))
        if name in ("maximum", "minimum"):
            if name == "maximum" and not a.terms:
                a, b = b, a
            elif name == "minimum":
                la, lb_ = lower_bound(a), lower_bound(b)
                return Lin.atom(Atom(lb=None if la is None or lb_ is None else min(la, lb_)))
            # maximum(a, const)
            if b.terms:
                la, lb_ = lower_bound(a), lower_bound(b)
                lbs = [x for x in (la, lb_) if x is not None]
                return Lin.atom(Atom(lb=max(lbs) if lbs else None))
            la = lower_bound(a)
            if la is not None and la >= b.const:
                return a
            return Lin.atom(Atom(lb=b.const, posmax=a if b.const == 0 else None))
        return None

    def _cond(self, node):
        branches = (node.attrs["then_branch"], node.attrs["else_branch"])
        for sub in branches:
            for inner, outer in zip(sub.all_inputs, node.inputs[1:]):
                self._alias(inner, outer)
            self._graph(sub)
        for k, out in enumerate(node.outputs):
            inners = [sub.outputs[k] for sub in branches]
            if _is_int_scalar(out):
                lins = [self.lin(v) for v in inners]
                if any(v is None for v in lins):
                    continue
                if lins[0] == lins[1]:
                    self.sym[out] = lins[0]
                else:
                    lbs = [lower_bound(v) for v in lins]
                    self.sym[out] = Lin.atom(Atom(lb=None if None in lbs else min(lbs)))
            elif out.kind != TENSOR_ARRAY and out.shape is not None and all(
                    not v.is_literal and v.shape is not None
                    and len(v.shape) == len(out.shape) for v in inners):
                shapes = [self.shape(v) for v in inners]
                if shapes[0] == shapes[1]:
                    self.shapes[out] = shapes[0]

    def _while(self, node):
        n = node.attrs["n_loop_vars"]
        cond, body = node.attrs["cond"], node.attrs["body"]
        inits = node.inputs[:n]
        # Assumptions (dropped one by one when the body breaks them): an integer loop
        # variable never goes below its initial lower bound; an array keeps its shape.
        keep_lb = {i for i, v in enumerate(inits) if _is_int_scalar(node.outputs[i])
                   and self.lin(v) is not None and lower_bound(self.lin(v)) is not None}
        keep_shape = {i for i, v in enumerate(inits)
                      if v.kind != TENSOR_ARRAY and v.shape and not v.is_literal
                      and node.outputs[i].shape is not None
                      and len(node.outputs[i].shape) == len(v.shape)}
        while True:
            states = []
            for i, init in enumerate(inits):
                out = node.outputs[i]
                if _is_int_scalar(out):
                    lb = lower_bound(self.lin(init)) if i in keep_lb else None
                    states.append(("int", Lin.atom(Atom(lb=lb))))
                elif i in keep_shape:
                    states.append(("shape", self.shape(init)))
                elif out.kind != TENSOR_ARRAY and out.shape is not None:
                    states.append(("shape", tuple(Lin.atom(Atom(lb=0)) if d is None
                                                  else Lin(int(d)) for d in out.shape)))
                else:
                    states.append((None, None))
            for sub in (cond, body):
                for i, inner in enumerate(sub.all_inputs):
                    if i < n:
                        kind, info = states[i]
                        if kind == "int":
                            self.sym[inner] = info
                        elif kind == "shape":
                            self.shapes[inner] = info
                    else:
                        self._alias(inner, node.inputs[i])
            self._graph(cond)
            # Inside the body the condition held: record its facts (on any atom, loop
            # counter or not), and drop them after the body, the only place they hold.
            added = []
            self._facts(cond.outputs[0], added)
            self._graph(body)
            for atom, bound in added:
                atom.upper.remove(bound)
            broken_lb = set()
            for i in keep_lb:
                assumed = next(iter(states[i][1].terms)).lb
                lin = self.lin(body.outputs[i])
                bound = None if lin is None else lower_bound(lin)
                if bound is None or bound < assumed:
                    broken_lb.add(i)
            broken_shape = {i for i in keep_shape
                            if self.shape(body.outputs[i]) != states[i][1]}
            if not broken_lb and not broken_shape:
                break
            keep_lb -= broken_lb
            keep_shape -= broken_shape
        for i, out in enumerate(node.outputs):
            kind, info = states[i]
            if kind == "int":
                lb = next(iter(info.terms)).lb
                self.sym[out] = Lin.atom(Atom(lb=lb))
            elif kind == "shape":
                self.shapes[out] = info

    def _facts(self, test, added):
        """Record `atom <= bound` facts that hold when the boolean `test` is true (appended
        to `added` as (atom, bound) too)."""
        node = test.node
        if node is None:
            return
        name = node.op.name
        if name in ("logical_and", "bitwise_and") and test.dtype == np.bool_:
            for v in node.inputs:
                self._facts(v, added)
            return
        if name not in ("less", "less_equal", "greater", "greater_equal"):
            return
        a, b = (self.lin(v) for v in node.inputs)
        if a is None or b is None:
            return
        if name in ("greater", "greater_equal"):
            a, b = b, a
        strict = name in ("less", "greater")
        single = a.single_atom()
        if single is None:
            return
        atom, offset = single
        bound = b - Lin(offset + (1 if strict else 0))   # atom <= bound
        # atom <= max(0, X) + c with atom >= 0 and c <= -1 means max(0, X) >= 1, so it is X.
        hold = bound.single_atom()
        if (hold is not None and hold[0].posmax is not None and hold[1] <= -1
                and atom.lb is not None and atom.lb >= 0):
            bound = hold[0].posmax + Lin(hold[1])
        atom.upper.append(bound)
        added.append((atom, bound))


def _key(index):
    return ("int", index) if isinstance(index, int) else ("value", id(index))


def index_axes(template, dynamic, ndim):
    """(scalar index, axis) pairs of an index template (as lowering.index_entries reads it):
    a scalar index is a dynamic Value or an int; a boolean mask takes as many axes as its
    rank."""
    it = iter(dynamic)
    entries = []
    for entry in template:
        if entry is DYN:
            value = next(it)
            if value.dtype == np.bool_:
                entries.append(("mask", len(value.shape)))
            else:
                entries.append(("index", value))
        elif isinstance(entry, slice):
            for part in (entry.start, entry.stop, entry.step):
                if part is DYN:
                    next(it)
            entries.append(("slice", None))
        elif entry is None:
            entries.append(("none", None))
        elif entry is Ellipsis:
            entries.append(("ellipsis", None))
        else:
            entries.append(("index", int(entry)))
    consumed = sum(info if kind == "mask" else 1 for kind, info in entries
                   if kind in ("index", "slice", "mask"))
    result = []
    axis = 0
    for kind, info in entries:
        if kind == "ellipsis":
            axis += ndim - consumed
        elif kind == "slice":
            axis += 1
        elif kind == "mask":
            axis += info
        elif kind == "index":
            result.append((info, axis))
            axis += 1
    return result
