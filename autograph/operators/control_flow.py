"""if/while/for as overloads: plain Python statements on Python values, graph ops on tensors.

Generated code passes the statement's parts as functions. The body functions assign the
user's variables through `nonlocal`, so on the Python path an overload only calls them.
`symbol_names` (the loop variables, or a branch's outputs) and `get_state`/`set_state` exist
for the graph path: the state functions are generated for statements whose outputs include
attribute or item targets (`self.total`, `d[k]`); for variables only they are None, and the
graph path reaches the variables through the block functions' closure cells.
"""

import functools

from autograph.operators.graph.common import function_result  # noqa: F401 (ag__'s)
from autograph.operators.graph import conditionals as graph_conditionals
from autograph.operators.graph import loops as graph_loops
from autograph.operators.symbolic import PLAIN_TYPES, is_symbolic_iterable, is_tensor


class GraphForms:
    """The block functions of a converted function's graph forms, by name: its
    `graph_forms()` returns `ag__.GraphForms(ag__.locals_())`, and generated code reads
    them as attributes (the user's variables the factory passes on to them come along,
    under names no generated code reads)."""

    def __init__(self, functions):
        self.__dict__.update(functions)


# What runs for an `if` without an else block when its condition is false: calling
# NoneType does nothing and returns None, at C speed (no Python frame).
_no_branch = type(None)


def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """`if cond: body() else: orelse()`; `orelse` is None when there is no else block.

    Returns the function to call next, and generated code calls it:
    `ag__.if_stmt(...)()`. On Python values that is the chosen branch itself, so the branch
    runs one frame above the user's function, not two (deep recursion through an `if`
    stays close to Python's limit). On a symbolic condition the graph path has built both
    branches, and a function that does nothing is returned.
    """
    if type(cond) not in PLAIN_TYPES and is_tensor(cond):
        graph_conditionals.if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)
        return _no_branch
    if cond:
        return body
    return _no_branch if orelse is None else orelse


def _options_after(opts, python_iterations):
    """The loop options of a graph loop that takes over a Python loop after
    `python_iterations` iterations: `maximum_iterations` bounds the whole loop."""
    maximum = opts.get("maximum_iterations")
    if maximum is None or not python_iterations:
        return opts
    import numpy as np  # the bound may be symbolic: np.maximum records a graph op then
    return dict(opts, maximum_iterations=np.maximum(maximum - python_iterations, 0))


def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """`while test(): body()`."""
    cond = test()
    if type(cond) not in PLAIN_TYPES and is_tensor(cond):
        return graph_loops.while_stmt(test, body, get_state, set_state, symbol_names, opts)
    iterations = 0
    while cond:
        body()
        iterations += 1
        cond = test()
        if type(cond) not in PLAIN_TYPES and is_tensor(cond):
            # A Python loop whose condition became symbolic in its body.
            return graph_loops.while_stmt(test, body, get_state, set_state, symbol_names,
                                          _options_after(opts, iterations))
    return None


def while_graph(test, body, get_state, set_state, symbol_names, opts):
    """The graph loop of a `while` whose condition, computed inline by the Python form of
    the loop, is symbolic (from the start or after some Python iterations): the graph loop
    runs from there and traces `test` itself, as while_stmt's does."""
    return graph_loops.while_stmt(test, body, get_state, set_state, symbol_names, opts)


# The graph forms of statements, as functions of what the statement computes first (its
# condition or iterable). Generated code makes them among the graph forms,
# `if_stmt_2 = ag__.if_form(if_body_2, None, ...)`, and calls them: `if_stmt_2(cond)`.
# (A statement whose loop options hold the user's expressions gets a `def` instead, so that
# they are evaluated when the loop runs.)

def _run_if(body, orelse, get_state, set_state, symbol_names, nouts, cond):
    if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)()


def _run_for(extra_test, body, get_state, set_state, symbol_names, opts, iterated):
    for_stmt(iterated, extra_test, body, get_state, set_state, symbol_names, opts)


def if_form(body, orelse, get_state, set_state, symbol_names, nouts):
    """`cond -> if_stmt(cond, body, orelse, ...)()`."""
    return functools.partial(_run_if, body, orelse, get_state, set_state, symbol_names, nouts)


def for_form(extra_test, body, get_state, set_state, symbol_names, opts):
    """`iterated -> for_stmt(iterated, extra_test, body, ...)`."""
    return functools.partial(_run_for, extra_test, body, get_state, set_state, symbol_names,
                             opts)


def while_form(test, body, get_state, set_state, symbol_names, opts):
    """`() -> while_stmt(test, body, ...)`."""
    return functools.partial(while_stmt, test, body, get_state, set_state, symbol_names, opts)


def while_graph_form(test, body, get_state, set_state, symbol_names, opts):
    """`() -> while_graph(test, body, ...)`."""
    return functools.partial(while_graph, test, body, get_state, set_state, symbol_names, opts)


def generator_expression(iterated, eager, lazy):
    """A converted generator expression whose first iterable is `iterated`: the generator
    `lazy(iterated)` (the expression as written, lazy as Python's) over a Python iterable;
    over a symbolic one, `eager(iterated)`, the list of its items that a graph loop
    computes (a consumer such as sum, min, max, any, all or np.array takes it whole)."""
    if type(iterated) in PLAIN_TYPES or not is_symbolic_iterable(iterated):
        return lazy(iterated)
    return eager(iterated)


def for_needs_graph(iterated, keep_going):
    """After the inline Python form of a `for` with a break/return test: True when the loop
    must (still) run as a graph loop, because `iterated` is symbolic or the test
    `keep_going` turned symbolic (then `iterated` is the partly consumed iterator)."""
    if type(iterated) not in PLAIN_TYPES and is_symbolic_iterable(iterated):
        return True
    return type(keep_going) not in PLAIN_TYPES and is_tensor(keep_going)


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """`for target in iter_: body(target)`, stopping when `extra_test()` turns false.

    `extra_test` (None when absent) is how lowered `break`/`return` end the loop; it is checked
    before the first iteration and after each body, never by fetching one more element.
    When it becomes symbolic (a break on a tensor condition inside a Python loop), the rest
    of the loop, with the partly consumed iterator, goes to the graph path.
    """
    if type(iter_) not in PLAIN_TYPES and is_symbolic_iterable(iter_):
        return graph_loops.for_stmt(iter_, extra_test, body, get_state, set_state,
                                    symbol_names, opts)
    if extra_test is None:
        for target in iter_:
            body(target)
        return None
    keep_going = extra_test()
    if type(keep_going) not in PLAIN_TYPES and is_tensor(keep_going):
        return graph_loops.for_stmt(iter(iter_), extra_test, body, get_state, set_state,
                                    symbol_names, opts)
    if not keep_going:
        return None
    iterator = iter(iter_)
    for target in iterator:
        body(target)
        keep_going = extra_test()
        if type(keep_going) not in PLAIN_TYPES and is_tensor(keep_going):
            return graph_loops.for_stmt(iterator, extra_test, body, get_state, set_state,
                                        symbol_names, opts)
        if not keep_going:
            break
    return None
