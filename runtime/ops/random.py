"""Random draws: `draw`, a call of a method of a np.random.Generator or RandomState (the
legacy np.random functions are methods of NumPy's global RandomState), made when the graph
runs, on every run, so the generator advances as plain Python advances it.

The node holds the generator itself (attribute `source`, by reference: the front end,
runtime/random_state.py, guards where it sits) and the call's arguments as a template
(`params`, a dict of the parameters passed, by name; rand and randn take their dims as
`dims`) whose SLOTs are the node's inputs, filled in order: distribution parameters that
are arrays or tensors, and symbolic sizes. The NumPy kernel makes the user's call itself,
so the numbers, their dtype and NumPy's errors are NumPy's. A draw is an effect: it stays
where the program made it, runs however its result is used, and is never merged with
another.

Numba: a Generator is an argument of the compiled function (Numba shares its BitGenerator's
state with NumPy), and the methods Numba implements with NumPy's algorithms run natively
(`_NATIVE`: scalar parameters, float64 / int64 results); every other draw, and every draw
from NumPy's global RandomState (Numba's np.random has a state of its own), calls NumPy in
an object-mode block, from the same generator: the stream is Python's on both backends.
"""

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.markers import SLOT
from runtime.ops.inference import broadcast_shapes
from runtime.ops.registry import defop, get
from runtime.ops.state import _template_text, fill, slot_count

# The methods a graph can draw with, by result: "float" (a float64 by default, or `dtype`),
# "integers", "choice", "permutation", "shuffle" (the shuffled copy of `x`), "seed" (none);
# and the parameters of each that may be arrays or tensors (the others must be Python
# values, but `size`, whose dims may be symbolic).
METHODS = {
    "random": ("float", ()), "random_sample": ("float", ()), "sample": ("float", ()),
    "rand": ("float", ()), "randn": ("float", ()), "standard_normal": ("float", ()),
    "normal": ("float", ("loc", "scale")), "uniform": ("float", ("low", "high")),
    "exponential": ("float", ("scale",)),
    "integers": ("integers", ("low", "high")), "randint": ("integers", ("low", "high")),
    "choice": ("choice", ("a", "p")), "permutation": ("permutation", ("x",)),
    "shuffle": ("shuffle", ("x",)), "seed": ("seed", ("seed",)),
}

# Parameters that only say how to draw (never arrays: `out` is refused by the front end).
STATIC = frozenset({"size", "dtype", "endpoint", "replace", "axis", "shuffle", "out"})


def _size_shape(size):
    """The shape `size` (None, an int or Value, or a tuple of them) asks for."""
    if size is None:
        return None
    if not isinstance(size, tuple):
        size = (size,)
    return tuple(_dim(d) for d in size)


def _dim(d):
    if isinstance(d, (int, np.integer)):
        return int(d)
    return int(d.literal) if d.is_literal else None


def _shape_of(value):
    return value.shape if hasattr(value, "shape") else ()


def result_type(method, params):
    """(dtype, shape) of the draw `method(**params)` (`params` holding Values where the
    node's inputs are; for shuffle, of the shuffled copy of `x`), or None for seed."""
    family, array_params = METHODS[method]
    if family == "seed":
        return None
    if "dims" in params:
        return np.dtype(np.float64), tuple(_dim(d) for d in params["dims"])
    size = _size_shape(params.get("size"))
    if family == "float":
        dtype = np.dtype(params.get("dtype", np.float64))
    elif family == "integers":
        dtype = np.dtype(params.get("dtype", np.int64))
    elif family == "choice":
        a = params["a"]
        if isinstance(a, (int, np.integer)) or not _shape_of(a):
            return np.dtype(np.int64), size if size is not None else ()
        if params.get("axis", 0) != 0:
            raise TypeError("choice(..., axis=%r) is not supported in graphs yet (axis=0 "
                            "is)" % (params["axis"],))
        element = _shape_of(a)[1:]
        return a.dtype, (size if size is not None else ()) + element
    else:   # permutation, shuffle
        x = params["x"]
        if family == "permutation" and (isinstance(x, (int, np.integer)) or not _shape_of(x)):
            return np.dtype(np.int64), (_dim(x),)
        if params.get("axis", 0) != 0:
            raise TypeError("%s(..., axis=%r) is not supported in graphs yet (axis=0 is)"
                            % (method, params["axis"]))
        if not _shape_of(x):
            raise TypeError("%s needs an array, not a scalar" % method)
        return x.dtype, x.shape
    if size is not None:
        return dtype, size
    shapes = [_shape_of(params[name]) for name in array_params if name in params]
    shape = broadcast_shapes(*shapes) if shapes else ()
    if family == "float" and not shape:
        dtype = np.dtype(np.float64)   # (one number: a Python float, whatever `dtype`)
    return dtype, shape


def _draw_infer(*inputs, source, method, params, label, dtype):
    found = result_type(method, fill(params, iter(inputs)))
    return [] if found is None else [found]


def make_call(method, params, dtype):
    """`call(source, *values)`: the draw on `source`, the SLOTs of `params` filled with
    `values`; a scalar result as a NumPy scalar of `dtype`, the result's dtype (as the
    executors give rank-0 values); for shuffle, the shuffled copy of `x`."""
    family = METHODS[method][0]

    def call(source, *values):
        filled = fill(params, iter(values))
        if family == "shuffle":
            x = np.array(filled.pop("x"))
            source.shuffle(x, **filled)
            return x
        if "dims" in filled:
            result = getattr(source, method)(*filled["dims"])
        else:
            result = getattr(source, method)(**filled)
        if dtype is not None and not isinstance(result, np.ndarray):
            return dtype.type(result)
        return result
    return call


def _draw_kernel(source, method, params, label, dtype):
    call = make_call(method, params, dtype)
    return lambda *values: call(source, *values)


def _draw_format(node, namer):
    inputs = iter(node.inputs)
    params = node.attrs["params"]
    if "dims" in params:
        shown = [_template_text(d, inputs, namer) for d in params["dims"]]
    else:
        shown = ["%s=%s" % (name, _template_text(value, inputs, namer))
                 for name, value in params.items()]
    return "draw %s.%s(%s)" % (node.attrs["label"], node.attrs["method"], ", ".join(shown))


draw = defop("draw", infer=_draw_infer, make_kernel=_draw_kernel, effect=True,
             format=_draw_format,
             doc="source.method(**params) when the graph runs: random numbers drawn from "
                 "the generator `source`, advancing it; the SLOTs of params are the inputs")


# --- Numba lowering (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

# Generator methods Numba implements with NumPy's algorithms (the same numbers from the same
# state: tests/api/test_random_state.py), with their parameters in Numba's order and
# defaults.
_NATIVE = {
    "random": (), "standard_normal": (), "normal": (("loc", 0.0), ("scale", 1.0)),
    "uniform": (("low", 0.0), ("high", 1.0)), "exponential": (("scale", 1.0),),
    "integers": (("low", None), ("high", None)), "permutation": (), "shuffle": (),
}


def _native_call(g, node, generator):
    """The Numba text of the draw as a method call on `generator`, or None where Numba
    cannot make it as NumPy does (other methods, array parameters, other dtypes)."""
    method = node.attrs["method"]
    if not isinstance(node.attrs["source"], np.random.Generator) or method not in _NATIVE:
        return None
    values = fill(node.attrs["params"], iter(node.inputs))
    family = METHODS[method][0]
    if family in ("permutation", "shuffle"):
        x = values["x"]
        if values.get("axis", 0) != 0 or isinstance(x, (int, np.integer)):
            return None
        if not x.shape:
            return "%s.permutation(np.int64(%s))" % (generator, g.expr(x))
        if family == "permutation":
            return "%s.permutation(%s)" % (generator, g.expr(x))
        copy = g.tmp("v")
        g.emit("%s = %s.copy()" % (copy, g.expr(x)))
        g.emit("%s.shuffle(%s)" % (generator, copy))
        return copy
    default = np.int64 if family == "integers" else np.float64
    if np.dtype(values.get("dtype", default)) != default or values.get("out") is not None:
        return None
    arguments = []
    for name, fallback in _NATIVE[method]:
        value = values.get(name, fallback)
        if value is not None and hasattr(value, "shape") and value.shape:
            return None   # (array parameters: Numba takes scalars)
        arguments.append(value)
    if method == "integers":
        if arguments[1] is None:
            arguments = [0, arguments[0]]
        arguments = ["np.int64(%s)" % _scalar_text(g, v, np.int64) for v in arguments]
    else:
        arguments = ["np.float64(%s)" % _scalar_text(g, v, np.float64) for v in arguments]
    size = values.get("size")
    if size is not None:
        arguments.append(_size_text(g, size))
    elif method == "integers":
        arguments.append("None")
    if method == "integers":
        arguments += ["np.int64", "True" if values.get("endpoint", False) else "False"]
    return "%s.%s(%s)" % (generator, method, ", ".join(arguments))


def _scalar_text(g, value, dtype):
    if isinstance(value, (bool, int, float, np.generic)):
        return nl.literal_text(value, dtype)
    return g.expr(value)


def _size_text(g, size):
    if not isinstance(size, tuple):
        return _scalar_text(g, size, np.int64)
    return "(%s)" % "".join("%s, " % _scalar_text(g, d, np.int64) for d in size)


def _callback(method, params, dtype, dtypes, from_argument):
    """The object-mode callback of a draw: the NumPy call, on the Generator Numba passes
    (`from_argument`) or on NumPy's global RandomState; array results C-contiguous."""
    call = make_call(method, params, dtype)
    dtypes = tuple(dtypes)

    def draw_(*values):
        if from_argument:
            source, values = values[0], values[1:]
        else:
            source = np.random.mtrand._rand
        out = call(source, *nl.numpy_values(values, dtypes))
        return np.ascontiguousarray(out) if isinstance(out, np.ndarray) else out
    return draw_


@get("draw").def_numba
def _numba_draw(g, node, ins):
    source = node.attrs["source"]
    if isinstance(source, np.random.Generator):
        generator = g.object_arg(source)
        native = _native_call(g, node, generator)
        if native is not None:
            return native
        arguments = [generator] + ins
    elif source is np.random.mtrand._rand:
        arguments = ins
    else:
        raise nl.Unlowerable("a draw from a RandomState other than NumPy's global one "
                             "(np.random's functions); Numba takes Generators")
    result = node.outputs[0] if node.outputs else None
    if result is not None:
        nl.np_dtype(result.dtype)
    dtypes = [v.dtype for v in node.inputs]
    callback = _callback(node.attrs["method"], node.attrs["params"], node.attrs["dtype"],
                         dtypes, source is not np.random.mtrand._rand)
    key = (node.attrs["method"], repr(node.attrs["params"]), tuple(str(d) for d in dtypes),
           source is np.random.mtrand._rand)
    text = nl.objmode_call(g, node, "draw", callback, key, arguments,
                           [] if result is None else [(result.dtype, len(result.shape))])
    if result is None:
        g.emit(text)
        return None
    return text
