"""The op registry: every op is declared once (`defop`), with its rules beside it (JAX style),
and looked up by name (`get`).

An `Op` has
  - `infer(*inputs, **attrs)`: the output types, from the input Values' dtype/shape
    (returns a list of `(dtype, shape)` or `(dtype, shape, kind)`);
  - a NumPy kernel: `kernel(*input_arrays)` when attrs do not matter, or
    `make_kernel(**attrs)` returning one (attrs are bound once, at executor compile time);
    ops with `inplace_input` get an extra `inplace=` argument in `make_kernel`;
  - `numba`: the slot for its Numba lowering (None until the op's module fills it;
    register one with `@get("add").def_numba`; the lowering's signature is the Numba
    executor's: `lowering(generator, node, input_expressions)`, see
    runtime/executors/numba/lowering.py);
  - `vjp`: the slot for its derivative rule (reverse mode, runtime/autodiff.py), registered
    with `@get("add").def_vjp`: `rule(inputs, outputs, cotangents, **attrs)` gets the
    node's input and output Values and one cotangent Value (or None) per output, records
    ops in the graph being built, and returns one cotangent Value (or None: no gradient)
    per input (runtime/ops/gradients.py has the helpers rules share);
  - aliasing facts the executors need: `view` (output may share memory with input 0),
    `inplace_input` (index of an input the op may update in place when that value is dead),
    `unowned_output` (output shares storage with something outside the graph, e.g. a
    variable), `effect` (has side effects: never reordered or removed);
  - `into_kernel`: for an elementwise op, a NumPy kernel computing its output into the
    buffer of input 0 and returning it (`x -= y`), which the NumPy interpreter uses where
    planning.Ownership says it may (a weight update copied back into the weight), and
    `augmented`, the augmented assignment it is (`-=`, set with it), which the interpreter
    writes;
  - `expression(node)`: for an op whose kernel is one Python expression of its inputs, that
    expression with `{0}`, `{1}`, ... for them (`{0} + {1}`, `{0}[:, {1}]`), or None for a
    node that needs its kernel: the NumPy interpreter writes it in place of a call of the
    kernel (a call costs more than a small array's `a + b` does in NumPy).

Use `op.bind(inputs, **attrs)` while tracing to record a node in the current graph; it
returns the output Values.
"""

import numpy as np

from runtime import errors, path_kinds
from runtime.graph import TENSOR, Value, current_graph, literal

REGISTRY = {}


class Op:
    def __init__(self, name, infer, kernel=None, make_kernel=None, *, view=False,
                 inplace_input=None, unowned_output=False, effect=False, control_flow=False,
                 format=None, doc=None):
        self.name = name
        self.infer = infer
        self.kernel = kernel
        self.make_kernel = make_kernel
        self.view = view
        self.inplace_input = inplace_input
        self.unowned_output = unowned_output
        self.effect = effect
        self.control_flow = control_flow
        if format is not None:
            self.format = format
        self.doc = doc
        self.into_kernel = None   # (see the module doc)
        self.augmented = None
        self.expression = None    # (see the module doc)
        # Numba lowering slot, filled by the Numba executor's author next to the op.
        self.numba = None
        # Derivative rule slot (reverse mode), filled next to the op: see def_vjp.
        self.vjp = None

    def def_vjp(self, rule):
        """Decorator: register `rule` as this op's derivative rule (see the module doc)."""
        self.vjp = rule
        return rule

    def def_numba(self, lowering):
        """Decorator: register `lowering` as this op's Numba lowering."""
        self.numba = lowering
        return lowering

    def is_view(self, node):
        """May the output of `node` share memory with its input 0?"""
        return self.view(node) if callable(self.view) else self.view

    def kernel_for(self, node, inplace=False):
        """The NumPy callable for `node` (attrs bound), taking the input values positionally."""
        if self.make_kernel is not None:
            attrs = {k: v for k, v in node.attrs.items()}
            if self.inplace_input is not None:
                attrs["inplace"] = inplace
            return self.make_kernel(**attrs)
        return self.kernel

    def bind(self, inputs, **attrs):
        """Record this op in the graph being built; returns its output Values."""
        graph = current_graph()
        if graph is None:
            raise RuntimeError(
                "a symbolic tensor was used outside the trace that created it (op %r); "
                "return it from the rt.function / ag.function to get its value" % self.name)
        inputs = [to_value(x) for x in inputs]
        # (Where an input is None, Python raises: so does the graph, before this op.)
        path_kinds.raise_where_none(self.name, inputs, attrs, _bind)
        out_types = self.infer(*inputs, **attrs)
        node = graph.add_node(self, inputs, attrs, [_norm_type(t) for t in out_types],
                              location=errors.capture_location())
        # (An input whose kind depends on the path: so may the outputs' kinds.)
        path_kinds.propagate(self.name, self.infer, inputs, attrs, node.outputs, _bind)
        return node.outputs

    def bind1(self, inputs, **attrs):
        return self.bind(inputs, **attrs)[0]

    def __repr__(self):
        return "<Op %s>" % self.name


def _bind(name, inputs):
    """Records op `name` on `inputs`; its output Value."""
    return get(name).bind1(inputs)


def _norm_type(t):
    if len(t) == 2:
        return (np.dtype(t[0]), tuple(t[1]), TENSOR)
    dtype, shape, kind = t
    return (np.dtype(dtype), tuple(shape) if shape is not None else None, kind)


def defop(name, infer, kernel=None, make_kernel=None, **kwargs):
    """Declare an op once; returns it."""
    if name in REGISTRY:
        raise ValueError("op %r is defined twice" % name)
    op = Op(name, infer, kernel, make_kernel, **kwargs)
    REGISTRY[name] = op
    return op


def get(name):
    return REGISTRY[name]


def all_ops():
    return dict(REGISTRY)


# --- operands ---------------------------------------------------------------------------------

def to_value(x):
    """Turn an operand into a Value: tensors give theirs, scalars become literals,
    arrays become constants in the current graph."""
    if isinstance(x, Value):
        return x
    hook = getattr(type(x), "_rt_to_value", None)
    if hook is not None:
        return hook(x)
    if isinstance(x, (bool, int, float, complex, np.generic)):
        if isinstance(x, np.generic) and not _supported_dtype(x.dtype):
            raise TypeError("values of dtype %s are not supported in graphs yet" % x.dtype)
        return literal(x)
    if isinstance(x, np.ndarray):
        if x.ndim == 0 and _supported_dtype(x.dtype):
            return literal(x[()])
        return constant_value(x)
    if isinstance(x, (list, tuple)):
        try:
            return constant_value(np.asarray(x))
        except (TypeError, ValueError):
            pass
        if x and any(_holds_tensor(item) for item in x):
            # `[t, 1.0]` with t symbolic: the array NumPy would make of it.
            return get("stack").bind1([to_value(item) for item in x], axis=0)
    raise TypeError("cannot use a %s value (%r) as a tensor in a graph"
                    % (type(x).__name__, x))


def _holds_tensor(x):
    if isinstance(x, (list, tuple)):
        return any(_holds_tensor(item) for item in x)
    return getattr(type(x), "_rt_to_value", None) is not None


def _supported_dtype(dtype):
    return dtype.kind in "biufc"


def constant_value(array):
    """A constant node for `array` (by reference), one per array object and graph."""
    array = np.asarray(array)
    if not _supported_dtype(array.dtype):
        raise TypeError("arrays of dtype %s are not supported in graphs yet" % array.dtype)
    graph = current_graph()
    key = ("constant", id(array))
    cached = graph._cache.get(key) if graph is not None else None
    if cached is not None and cached.node.attrs["value"] is array:
        return cached
    value = get("constant").bind1([], value=array)
    graph._cache[key] = value
    return value
