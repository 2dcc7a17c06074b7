"""The graph runtime: symbolic tensors, graph ops, tracing, control flow and executors.

Usable on its own (`import runtime as rt`), without autograph: rt.function traces
hand-written functional code that uses rt.cond / rt.while_loop.
"""

from runtime import errors
from runtime.api import (MATH_FUNCTIONS, Assert, Raise, TensorSpec, Text, arange, cast,
                         constant, empty, empty_like, format_text, full, full_like,
                         holds_symbolic, is_none, linspace, make_complex, math_call, ndim,
                         none_unless, ones, ones_like, print, raised_when_run, range,
                         range_item, range_length, shape,
                         size, zeros, zeros_like)
from runtime.conditionals import cond
from runtime.control_flow import while_loop
from runtime.graph import Graph, current_graph
from runtime.random_state import draw, is_random_method, made_while_tracing
from runtime.state_guards import (READING_LENGTHS, check_iteration, check_list_change,
                                   read_length)
from runtime.tensor import (Tensor, as_python_scalar, hold_by_value, is_ndarray,
                            is_python_scalar, is_tensor)
from runtime.tensor_array import TensorArray
from runtime.trace import (ConcreteFunction, Function, function, functions_run_eagerly,
                           run_functions_eagerly)
from runtime.variables import Variable
from runtime import numpy_api  # noqa: E402,F401 (plugs NumPy's protocols into rt.Tensor)
from runtime.numpy_api import numpy_overload  # noqa: E402

InvalidArgumentError = errors.InvalidArgumentError

__all__ = [
    "arange", "as_python_scalar", "numpy_overload", "Assert", "cast", "check_iteration", "check_list_change", "read_length", "READING_LENGTHS",
    "ConcreteFunction", "cond", "constant", "current_graph", "draw", "empty", "empty_like",
    "errors", "format_text", "full", "full_like", "Function", "function",
    "functions_run_eagerly", "Graph", "hold_by_value", "holds_symbolic",
    "InvalidArgumentError", "is_ndarray", "is_none", "is_python_scalar", "is_random_method",
    "is_tensor", "linspace", "made_while_tracing", "make_complex", "math_call",
    "MATH_FUNCTIONS", "ndim", "none_unless", "ones", "ones_like", "print", "Raise", "raised_when_run", "range",
    "range_item", "range_length",
    "run_functions_eagerly", "shape", "size", "Tensor", "TensorArray", "TensorSpec", "Text",
    "Variable", "while_loop", "zeros", "zeros_like",
]
