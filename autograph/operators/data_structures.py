"""List and item overloads: list.append/pop and item writes, exact on Python objects.

On symbolic values (a list turned into a tensor array in a graph loop) they take the graph path.
"""

import collections

import runtime as rt
from autograph.operators.graph import lists as graph_lists
from autograph.operators.symbolic import is_tensor

ListPopOpts = collections.namedtuple("ListPopOpts", ("element_dtype", "element_shape"))


def list_append(target, element):
    """`target.append(element)`; returns the (possibly new) target."""
    if type(target) is list:
        graph = rt.current_graph()
        if graph is not None:
            rt.check_list_change(target, "append", graph.parent is not None)
        target.append(element)
        return target
    if is_tensor(target):
        return graph_lists.list_append(target, element)
    target.append(element)
    return target


def list_pop(target, index=None, opts=None):
    """`target.pop()` / `target.pop(index)`; returns (target, popped element)."""
    if is_tensor(target):
        return graph_lists.list_pop(target, index, opts)
    graph = rt.current_graph()
    if graph is not None and type(target) is list:
        rt.check_list_change(target, "pop", graph.parent is not None)
    if index is None:
        return target, target.pop()
    return target, target.pop(index)


def set_item(target, index, value):
    """`target[index] = value`; returns the (possibly new) target."""
    if is_tensor(target):
        return graph_lists.set_item(target, index, value)
    target[index] = value
    return target


def list_method(method, *args, **kwargs):
    """A call of `method`, a method of a list bound to it (`self.history.append(loss)`),
    from converted code: checked while tracing (rt.check_list_change: a list from outside
    the function is appended to on every call, and refused other changes)."""
    graph = rt.current_graph()
    if graph is not None:
        rt.check_list_change(method.__self__, method.__name__, graph.parent is not None)
    return method(*args, **kwargs)


# The methods of a list that change it (list_method checks their calls while tracing).
LIST_CHANGES = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort",
                          "reverse", "__setitem__", "__delitem__", "__iadd__", "__imul__"})
