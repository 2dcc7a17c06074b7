"""Ops that are one NumPy function each (np.sort, np.linalg.solve, np.searchsorted, ...),
declared with `defcall`.

Such an op's inputs are the arrays; its attrs are the function's static arguments (axis,
kind, side, ...). The NumPy executor calls the function itself, so values, dtypes and
errors are NumPy's by construction. Numba-generated code calls it natively where `native`
says Numba compiles it for these attrs and dtypes, and otherwise calls NumPy in object mode
(one callback, a few microseconds a call): every such op runs on both executors, natively
where Numba can.

What an op needs that NumPy cannot tell without computing is declared beside it: the
output shapes (`shape`), with None for sizes the data decides (np.nonzero). The output
dtypes are, by default, what the function gives on tiny stand-ins of the inputs' dtypes.
"""

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.ops.inference import dummy
from runtime.ops.registry import defop

def defcall(name, function, shape, *, dtype=None, outputs=1, native=None,
            numpy_on_error=False, doc=None, **op_options):
    """Declare op `name` computing `function(*inputs, **attrs)`.

    outputs: how many arrays `function` returns: a number, or a function of the input
    Values and the attrs (np.nonzero returns one per dim, np.unique one per return_ flag).
    shape(*input_shapes, **attrs) -> the output shape (a tuple), or a list of them, one per
    output.
    dtype(*input_dtypes, **attrs) -> the output dtype(s); default: `function` on stand-ins
    of the inputs (one element per dim, or the literal itself).
    native(g, node, ins) -> the nopython expression(s) where Numba compiles the call as NumPy
    computes it, else None (then object mode).
    numpy_on_error: Numba's native call raises where NumPy raises another error or none
    (np.linalg: Numba refuses non-finite entries where NumPy gives NaNs, and words its
    errors its own way); generated code then runs NumPy in object mode wherever the native
    call raises (see `native_or_numpy`), so values and errors are NumPy's. `native` then
    gives the statements computing `result` (a list of lines; or one expression) of
    exactly the outputs' types: C-contiguous arrays, scalars of the outputs' dtypes, a
    tuple of them for several outputs."""

    def infer(*inputs, **attrs):
        count = outputs(*inputs, **attrs) if callable(outputs) else outputs
        shapes = shape(*[v.shape for v in inputs], **attrs)
        if dtype is not None:
            dtypes = dtype(*[v.dtype for v in inputs], **attrs)
        else:
            with np.errstate(all="ignore"):
                result = as_outputs(function(*[dummy(v) for v in inputs], **attrs))
            dtypes = ([np.asarray(r).dtype for r in result] if count > 1
                      else np.asarray(result).dtype)
        if count == 1:
            return [(dtypes, tuple(shapes[0] if isinstance(shapes, list) else shapes))]
        return [(d, tuple(s)) for d, s in zip(dtypes, shapes)]

    def make_kernel(**attrs):
        return lambda *arrays: as_outputs(function(*arrays, **attrs))

    op = defop(name, infer=infer, make_kernel=make_kernel, doc=doc or _doc(function),
               **op_options)

    @op.def_numba
    def lowering(g, node, ins):
        if native is not None and numpy_on_error:
            parameters = ["p%d" % i for i in range(len(ins))]
            text = native(g, node, parameters)
            if text is not None:
                return native_or_numpy(g, node, ins, parameters, text, function)
        elif native is not None:
            text = native(g, node, ins)
            if text is not None:
                return text
        return object_mode(g, node, ins, function)
    return op


def as_outputs(result):
    """The outputs of a call op, as executors take them: one array itself, several as a
    tuple (a tuple of one, np.nonzero's of a vector, is its array)."""
    if isinstance(result, tuple):
        return result[0] if len(result) == 1 else tuple(result)
    return result


def _doc(function):
    module = function.__module__ or ""
    prefix = "np.linalg." if "linalg" in module else "np."
    return prefix + function.__name__


def native_or_numpy(g, node, ins, parameters, text, function):
    """`text` (native code on `parameters`, see defcall), run from generated code by a
    helper that, where it raises, calls `function` in object mode instead (NumPy's result
    or error). The try lives in its own jitted function, as object-mode blocks do (lowering.py); an
    exception that an object-mode call raises inside an except clause does not reach the
    caller (Numba 0.68 returns a broken array instead), hence the flag."""
    helper = g.tmp("_native")
    # (Its own kind of site: tools/numpy_coverage.py tells such calls from object-mode ones.)
    fallback = _object_mode_call(g, node, parameters, function, kind="fallback")
    lines = ["result = %s" % text] if isinstance(text, str) else list(text)
    g.add_function([
        "@_jit",
        "def %s(%s):" % (helper, ", ".join(parameters)),
        "    failed = False",
        "    try:"] + ["        " + line for line in lines] + [
        "    except Exception:",
        "        failed = True",
        "    if failed:",
        "        result = %s" % fallback,
        "    return result"])
    return _outputs(g, node, "%s(%s)" % (helper, ", ".join(ins)))


def object_mode(g, node, ins, function):
    """`function` on the node's inputs, run by NumPy from generated code in object mode."""
    return _outputs(g, node, _object_mode_call(g, node, ins, function))


def _outputs(g, node, text):
    """The expressions of the node's outputs, given the call `text` returning them (a
    tuple of them when there are several)."""
    if len(node.outputs) == 1:
        return text
    name = g.tmp("c")
    g.emit("%s = %s" % (name, text))
    return ["%s[%d]" % (name, i) for i in range(len(node.outputs))]


def _object_mode_call(g, node, ins, function, kind="call"):
    """The expression calling `function` on `ins` in object mode (a tuple of the outputs
    when there are several)."""
    dtypes = tuple(v.dtype for v in node.inputs)
    results = [(v.dtype, len(v.shape)) for v in node.outputs]
    attrs = dict(node.attrs)
    count = len(results)

    def call_(*values):
        result = as_outputs(function(*nl.numpy_values(values, dtypes), **attrs))
        result = (result,) if count == 1 else result
        result = tuple(np.ascontiguousarray(r, dtype) if ndim else dtype.type(r)
                       for r, (dtype, ndim) in zip(result, results))
        return result[0] if count == 1 else result

    key = (node.op.name, repr(sorted(attrs.items())), tuple(str(d) for d in dtypes))
    return nl.objmode_call(g, node, kind, call_, key, ins, results)
