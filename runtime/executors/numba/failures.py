"""Failures of compiled graphs, in the NumPy interpreter's terms.

Failing checks in generated code raise `GraphFail(site, ...)` (the generated modules reach
it as `_rt.GraphFail`, support.py); `failure_error` turns it into the exception the NumPy
interpreter raises for the node of that site (InvalidArgumentError for asserts,
OutOfRangeError for out-of-range indices, NumPy's own ValueError texts), with "While
executing <node> created at <user line>". `located_error` does the same for errors Numba's
own code raises inside a graph. Numba-free: the call wrapper catches GraphFail before any
compiled code exists (background compiles, compiled.py).
"""

import numpy as np

from runtime import errors
from runtime.executors.numba import codegen, lowering, module_cache
from runtime.graph import describe_node
from runtime.markers import SLOT


class GraphFail(Exception):
    """Raised by generated code: args are (site, *scalars); the executor turns it into the
    error the NumPy executor raises for the node of that site."""


def _shape_text(shape):
    """A shape as NumPy's broadcasting errors print it: (3,) or (3,2)."""
    return "(%s%s)" % (",".join(str(d) for d in shape), "," if len(shape) == 1 else "")


def located_error(error, sites, graph, err):
    """`error`, raised by Numba's own code inside a compiled graph (not a GraphFail), as the
    NumPy interpreter reports a failing node: "While executing <node> created at <user
    line>" (the node that was running: codegen's err[NODE_SLOT]), an IndexError as an
    OutOfRangeError, Numba's lines about its generated file left out."""
    marker = int(err[codegen.NODE_SLOT]) if err is not None else 0
    if marker == 0:   # (the graph's one such node goes unmarked: codegen.CodeGen.generate)
        marker = next((i + 1 for i, site in enumerate(sites) if site.info.get("unmarked")), 0)
    if marker <= 0 or marker > len(sites) or getattr(error, "_rt_node_reported", False):
        return error
    where = "While executing %s" % describe_node(sites[marker - 1].node, graph)
    message = "\n".join(line for line in str(error).splitlines()
                        if module_cache.MODULE_PREFIX not in line).strip()
    if isinstance(error, IndexError):
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    else:
        if len(error.args) == 1 and isinstance(error.args[0], str):
            error.args = (message,)
        error.add_note(where)
    error._rt_node_reported = True
    return error.with_traceback(None)   # Numba's implementation of NumPy is not the user's


def failure_error(failure, sites, graph, err=None):
    """The NumPy interpreter's exception for a GraphFail from generated code."""
    args = failure.args
    site = sites[args[0]]
    kind = site.kind
    if kind == "raise":     # the user's exception (its message names the node)
        values = lowering.numpy_values(args[1:], site.info["dtypes"])
        return site.info["exception"].made(iter(values))
    where = "While executing %s" % describe_node(site.node, graph)
    if kind == "index":
        index, size = (args[1], args[2]) if len(args) > 2 else (int(err[0]), int(err[1]))
        message = "index %d is out of bounds for axis %d with size %d" % (
            index, site.info["axis"], size)
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "mask":
        message = ("boolean index did not match indexed array along axis %d; size of axis "
                   "is %d but size of corresponding boolean axis is %d"
                   % (site.info["axis"], args[2], args[1]))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "index_broadcast":
        shapes = []
        slot = 1
        for _ in range(int(err[0])):
            rank = int(err[slot])
            shapes.append(tuple(int(d) for d in err[slot + 1:slot + 1 + rank]))
            slot += 1 + rank
        message = ("shape mismatch: indexing arrays could not be broadcast together with "
                   "shapes %s" % "".join(_shape_text(shape) + " " for shape in shapes))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "mask_values":
        error = ValueError("NumPy boolean array indexing assignment cannot assign %d input "
                           "values to the %d output values where the mask is true"
                           % (args[1], args[2]))
        error.add_note(where)
    elif kind == "mask_value_rank":
        error = TypeError("NumPy boolean array indexing assignment requires a 0 or "
                          "1-dimensional input, input has %d dimensions" % site.info["rank"])
        error.add_note(where)
    elif kind == "assert":
        values = args[1:]
        items = site.info["items"]
        text = site.node.attrs["message"]
        if items:
            it = iter(zip(values, site.info["dtypes"]))
            parts = []
            for item in items:
                if item is SLOT:
                    value, dtype = next(it)
                    parts.append(str(np.dtype(dtype).type(value)))
                else:
                    parts.append(str(item))
            text = " ".join(parts)
        error = errors.InvalidArgumentError("%s\n%s" % (text, where))
    elif kind == "ta_write":
        message = ("TensorArray write index %d is out of range for size %d (create it with "
                   "dynamic_size=True to grow)" % (args[1], args[2]))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind in ("ta_read", "ta_stack"):
        index, size, reason = args[1], args[2], args[3]
        if reason == 0:
            error = errors.OutOfRangeError(
                "TensorArray read index %d is out of range for size %d\n%s" % (index, size, where))
        elif reason == 1:
            error = errors.InvalidArgumentError(
                "TensorArray element %d was read before it was written\n%s" % (index, where))
        else:
            error = errors.InvalidArgumentError(
                "TensorArray element %d was never written; cannot stack\n%s" % (index, where))
    elif kind == "put_shape":
        q = int(err[0])
        value_shape = tuple(int(d) for d in err[1:1 + q])
        r = int(err[1 + q])
        target_shape = tuple(int(d) for d in err[2 + q:2 + q + r])
        error = ValueError("shape mismatch: value array of shape %s could not be broadcast to "
                           "indexing result of shape %s" % (_shape_text(value_shape),
                                                            _shape_text(target_shape)))
        error.add_note(where)
    elif kind == "product":
        ranks_and_dims = [int(d) for d in err[:2 + int(err[0]) + int(err[1 + int(err[0])])]]
        shape_a = tuple(ranks_and_dims[1:1 + ranks_and_dims[0]])
        shape_b = tuple(ranks_and_dims[2 + ranks_and_dims[0]:])
        inner_a, inner_b = site.info["axes"]
        if shape_a[inner_a] != shape_b[inner_b] and site.info["name"] == "dot":
            message = "shapes %s and %s not aligned: %d (dim %d) != %d (dim %d)" % (
                _shape_text(shape_a), _shape_text(shape_b), shape_a[inner_a], inner_a,
                shape_b[inner_b], inner_b)
        elif shape_a[inner_a] != shape_b[inner_b]:
            message = ("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                       "gufunc signature (n?,k),(k,m?)->(n?,m?) (size %d is different from %d)"
                       % (shape_b[inner_b], shape_a[inner_a]))
        else:
            message = ("operands could not be broadcast together with remapped shapes "
                       "[original->remapped]: %s->(%d,newaxis,newaxis) %s->(%d,newaxis,newaxis)"
                       "  and requested shape (%d,%d)" % (
                           _shape_text(shape_a), shape_a[0], _shape_text(shape_b),
                           shape_b[0], shape_a[1], shape_b[2]))
        error = ValueError(message)
        error.add_note(where)
    elif kind == "negative_power":
        error = ValueError("Integers to negative integer powers are not allowed.")
        error.add_note(where)
    elif kind == "squeeze":
        error = ValueError("cannot select an axis to squeeze out which has size not equal to one")
        error.add_note(where)
    else:
        error = errors.InvalidArgumentError("graph failure at %s\n%s" % (kind, where))
    error._rt_node_reported = True
    return error
