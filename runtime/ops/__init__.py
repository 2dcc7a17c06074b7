"""The graph ops, one module per family, each op declared once with its rules beside it
(inference, NumPy kernel, Numba lowering). Importing the package registers every family.

The package's API is the registry's (runtime/ops/registry.py: `ops.get("add")`,
`ops.to_value(x)`, `ops.defop`) and the inference helpers' (runtime/ops/inference.py); op
modules import those two modules directly, never this package.
"""

from runtime.ops.inference import (broadcast_shapes, dummy, normalize_axes,  # noqa: F401
                                   normalize_axis, prod_or_none)
from runtime.ops.registry import (REGISTRY, Op, all_ops, constant_value, defop, get,  # noqa: F401
                                  to_value)

# Op definitions register themselves on import.
from runtime.ops import (core, elementwise, reductions, shapes, creation, indexing,  # noqa: F401
                         linalg, state, control, random, calls, sorting, signal,
                         statistics, complex, gradients)
