"""The one cheap question every overload asks first: is this value a symbolic runtime tensor?

Graph paths are not written yet: they land with the runtime (issue 4) inside the hooks below.
"""

try:
    # runtime is optional while it is being written; without it nothing is symbolic.
    from runtime import is_tensor
except ImportError:  # pragma: no cover - depends on the runtime being present
    def is_tensor(value):
        """No runtime: nothing is symbolic."""
        return False


# Values of these exact types are never symbolic: overloads test `type(x) in PLAIN_TYPES`
# first (a C-level set lookup) and only call is_tensor for anything else.
PLAIN_TYPES = frozenset({bool, int, float, complex, str, bytes, type(None), list, tuple,
                         dict, set, frozenset, range})
try:  # NumPy arrays and scalars are eager values too (runtime depends on NumPy anyway).
    import numpy as _np
    PLAIN_TYPES = PLAIN_TYPES | {_np.ndarray} | frozenset(
        t for t in _np.sctypeDict.values() if isinstance(t, type))
except ImportError:  # pragma: no cover
    pass


try:
    from runtime import TensorArray as _TensorArray
except ImportError:  # pragma: no cover - depends on the runtime being present
    _TensorArray = ()


def is_symbolic_iterable(value):
    """What a graph loop iterates: a symbolic tensor or a runtime TensorArray."""
    return is_tensor(value) or isinstance(value, _TensorArray)


class GraphPathNotImplemented(NotImplementedError):
    """An overload met a symbolic tensor, but its graph path is not written yet."""


def graph_path(overload_name, *args, **kwargs):
    """The graph path of `overload_name` (autograph/operators/graph), or
    GraphPathNotImplemented for overloads that have none."""
    from autograph.operators.graph.registry import GRAPH_PATHS  # late: it imports runtime
    handler = GRAPH_PATHS.get(overload_name)
    if handler is None:
        raise GraphPathNotImplemented(
            f"{overload_name}: symbolic tensors are not supported by this overload yet")
    return handler(*args, **kwargs)
