"""The graph paths of the overloads: what if/while/for, and/or/not, the builtins, lists and
NumPy array creation do when a value is a symbolic runtime tensor.

Each overload in autograph/operators imports its graph path from the module here.
"""

from autograph.operators.graph import common
from autograph.operators.graph.common import LoopVariableError, UndefinedInBranchError
from autograph.operators.graph.lists import TensorList

__all__ = ["LoopVariableError", "TensorList", "UndefinedInBranchError", "common"]
