"""Guards on the arrays a trace captured from the function's state.

An array the traced function reaches through its arguments, closure or globals
(`layer.W`, `self.layers[1].b`, `params["W"]`, a module-level `TABLE`) becomes a constant of
the graph, held by reference: the executors read it on every call, so an in-place change
(`layer.W -= 0.1`) is seen. Rebinding (`layer.W = new`) puts another object in that place.
`guard_for` finds, once per trace, where each such array sits (a path of attributes and
items from one of the function's roots); `StateGuard.holds()` follows the paths again on
each call, and the function traces again where another object is found there, as the trace
may depend on the array's shape and dtype.

What the search follows: the attributes of instances (their `__dict__`), dataclass fields
among them, and the items of dicts (string and int keys), lists and tuples, at most
_MAX_DEPTH steps from a root and _MAX_ITEMS items per container; not modules, classes,
functions or arrays. An array found nowhere (one the function computed from Python values
while tracing, or one reached some other way) gets no guard.
"""

import types

import numpy as np

_MAX_DEPTH = 4
_MAX_ITEMS = 256
_NOT_SEARCHED = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                 types.MethodType, np.ndarray, np.generic, str, bytes, int, float, complex,
                 bool, type(None))

_ATTR, _ITEM = 0, 1


class StateGuard:
    """The places ((root, steps, array) each) where a trace found the arrays it captured."""

    __slots__ = ("places",)

    def __init__(self, places):
        self.places = places

    def holds(self):
        """Does each place still hold the array the trace captured from it?"""
        for root, steps, array in self.places:
            try:
                obj = root()
                for kind, key in steps:
                    obj = getattr(obj, key) if kind == _ATTR else obj[key]
            except Exception:   # (gone: deleted, or no longer a container)
                return False
            if obj is not array:
                return False
        return True

    def describe(self):
        """Where the arrays were found, for messages: `layer.W`, `params['b']`."""
        return [_path_text(name, steps) for name, steps in (
            (getattr(root, "name", "?"), steps) for root, steps, _ in self.places)]


class _Root:
    """A getter of one root of the search: a fixed object (an argument, the instance of a
    method), a closure cell's contents, or a module global."""

    __slots__ = ("name", "get")

    def __init__(self, name, get):
        self.name = name
        self.get = get

    def __call__(self):
        return self.get()


def roots_of(fn, args, kwargs):
    """The roots of the search for a call of `fn`: its arguments that are objects, its
    instance (a bound method), its closure cells and the globals its code names."""
    roots = []
    for i, value in enumerate(args):
        if not isinstance(value, _NOT_SEARCHED):
            roots.append((_Root("argument %d" % i, lambda value=value: value), value))
    for name, value in kwargs.items():
        if not isinstance(value, _NOT_SEARCHED):
            roots.append((_Root(name, lambda value=value: value), value))
    instance = getattr(fn, "__self__", None)
    if instance is not None and not isinstance(instance, types.ModuleType):
        roots.append((_Root("self", lambda: instance), instance))
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return roots
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:   # an empty cell
            continue
        roots.append((_Root(name, lambda cell=cell: cell.cell_contents), value))
    namespace = fn.__globals__
    for name in _global_names(code):
        if name in namespace:
            roots.append((_Root(name, lambda name=name: namespace[name]), namespace[name]))
    return roots


def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def guard_for(arrays, roots):
    """A StateGuard over the places, reached from `roots` ((_Root, its value) each), of the
    `arrays` or the arrays they are views of; None when none is found."""
    wanted = {}
    for array in arrays:
        while isinstance(array, np.ndarray):   # (a view, `W.T`: where its base sits)
            wanted[id(array)] = array
            array = array.base
    places = []
    seen = set()
    level = []
    for root, value in roots:
        if isinstance(value, np.ndarray):
            if id(value) in wanted:
                places.append((root, (), wanted.pop(id(value))))
            continue
        level.append((root, (), value))
    for _ in range(_MAX_DEPTH):
        if not wanted or not level:
            break
        following = []
        for root, steps, obj in level:
            if id(obj) in seen or isinstance(obj, _NOT_SEARCHED):
                continue
            seen.add(id(obj))
            for step, child in _children(obj):
                if isinstance(child, np.ndarray):
                    if id(child) in wanted:
                        places.append((root, steps + (step,), wanted.pop(id(child))))
                elif not isinstance(child, _NOT_SEARCHED):
                    following.append((root, steps + (step,), child))
        level = following
    return StateGuard(places) if places else None


def _children(obj):
    """(step, child) for the attributes and items the search follows from `obj`."""
    if isinstance(obj, dict):
        items = list(obj.items())[:_MAX_ITEMS]
        return [((_ITEM, k), v) for k, v in items if isinstance(k, (str, int))]
    if isinstance(obj, (list, tuple)):
        return [((_ITEM, i), v) for i, v in enumerate(obj[:_MAX_ITEMS])]
    attributes = getattr(obj, "__dict__", None)
    if not isinstance(attributes, dict):
        return []
    return [((_ATTR, k), v) for k, v in list(attributes.items())[:_MAX_ITEMS]]


def _path_text(name, steps):
    text = name
    for kind, key in steps:
        text += ".%s" % key if kind == _ATTR else "[%r]" % (key,)
    return text
