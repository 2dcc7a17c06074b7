"""autograph: converts Python/NumPy functions into graphs run by NumPy or Numba.

    import autograph as ag

    @ag.function
    def f(x): ...

See API.md for the public surface; everything else in the package is internal.
"""

from autograph.core.ag_logging import set_verbosity
from autograph.core.directives import set_loop_options
from autograph.errors import AutoGraphError, ConversionError, StagingError
from autograph.impl.api import convert, do_not_convert, to_code, to_graph
from autograph.impl.gradients import grad, value_and_grad
from autograph.impl.function import function, functions_run_eagerly, run_functions_eagerly
from runtime.errors import NotDifferentiableError
from runtime.variables import Variable

__all__ = [
    "AutoGraphError",
    "ConversionError",
    "StagingError",
    "Variable",
    "convert",
    "do_not_convert",
    "function",
    "NotDifferentiableError",
    "grad",
    "functions_run_eagerly",
    "run_functions_eagerly",
    "set_loop_options",
    "set_verbosity",
    "to_code",
    "to_graph",
    "value_and_grad",
]
