"""The graph paths of the overloads: what if/while/for, and/or/not, the builtins, lists and
NumPy array creation do when a value is a symbolic runtime tensor.

`autograph.operators.symbolic.graph_path(name, ...)` dispatches to GRAPH_PATHS[name].
Importing this package also registers the NumPy array-creation overloads.
"""

from autograph.operators.graph import arrays, builtins, conditionals, iterables, lists, loops
from autograph.operators.graph.common import LoopVariableError, UndefinedInBranchError
from autograph.operators.graph.lists import TensorList
from autograph.operators.graph.registry import GRAPH_PATHS, graph_path_of

arrays.register()

__all__ = ["GRAPH_PATHS", "LoopVariableError", "TensorList", "UndefinedInBranchError",
           "graph_path_of"]
