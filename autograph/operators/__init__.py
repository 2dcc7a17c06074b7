"""Overloads called by converted code (the `ag__` namespace): Python semantics on Python
values, graph ops on symbolic runtime tensors (graph paths land with the runtime)."""

from autograph.operators.conditional_expressions import if_exp
from autograph.operators.control_flow import (
    GraphForms, for_form, for_needs_graph, for_stmt, function_result, generator_expression,
    if_form, if_stmt, while_form, while_graph, while_graph_form, while_stmt)
from autograph.operators.data_structures import ListPopOpts, list_append, list_pop, set_item
from autograph.operators.exceptions import assert_stmt, raised
from autograph.operators.formatting import format_, percent_format
from autograph.operators.logical import and_, is_none, is_not_none, not_, or_
from autograph.operators.py_builtins import BUILTIN_OVERLOADS, overload_of
from autograph.operators.special_values import (
    MaybeUndefined, Undefined, UndefinedReturnValue, is_undefined, is_undefined_return,
    value_or_undefined)
from autograph.operators.symbolic import (
    PLAIN_TYPES, GraphPathNotImplemented, is_plain, is_plain_iterable,
    is_symbolic_iterable, is_tensor, iter_, locals_, type_)
from autograph.operators.variables import ld
