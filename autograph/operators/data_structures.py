"""List and item overloads: list.append/pop and item writes, exact on Python objects.

On symbolic values (a list turned into a tensor array in a graph loop) they take the graph path.
"""

import collections

from autograph.operators.graph import lists as graph_lists
from autograph.operators.symbolic import is_tensor

ListPopOpts = collections.namedtuple("ListPopOpts", ("element_dtype", "element_shape"))


def list_append(target, element):
    """`target.append(element)`; returns the (possibly new) target."""
    if type(target) is list:
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
    if index is None:
        return target, target.pop()
    return target, target.pop(index)


def set_item(target, index, value):
    """`target[index] = value`; returns the (possibly new) target."""
    if is_tensor(target):
        return graph_lists.set_item(target, index, value)
    target[index] = value
    return target
