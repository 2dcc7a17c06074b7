"""The state of a staged function: the arrays within reach of its arguments, closure and
globals (`layer.W`, `self.layers[1].b`, `params["W"]`, a module-level `TABLE`).

`StateInputs` makes them inputs of a trace (ag.function; rt.function keeps them constants):
while the function is traced, each place holding one holds a tensor for a graph input
instead, so every computation on them is a graph op; on each call the arrays are read from
their places again (an in-place change and a rebinding are seen), and what the function
left there is written back (in place, or set there). An array in a tuple (`self.data =
(X, y)`) is an input at its place in the tuple (`self.data[0]`): while tracing, the
tuple's place holds a copy of the tuple holding tensors. `ConstantsGuard` checks, on each
call, that the arrays of the state a trace holds as constants (all of them for
rt.function, and for a trace whose state inputs were refused; otherwise those in tuples
that cannot be copied, or whose place cannot be set: _rebuilt_tuple, a namedtuple's `self`)
are still in their places with the same contents; the function traces again where not.
`ReadOnly` makes them read-only while it is traced, so that tracing never changes them.
`StateGuard` checks that places still hold the same objects (random generators).

What the search follows: the attributes of instances (their `__dict__` and slots),
dataclass fields among them, the data attributes of their classes (`class M: lr = 0.01`, read through
`self.lr`), the data attributes of classes reached themselves (a global `M`: `M.w`), and
the items of dicts (string and int keys), lists and tuples, at most _MAX_DEPTH steps from
a root, _MAX_ITEMS items per container and _MAX_OBJECTS objects in all; not modules,
functions, arrays, rt.Variables, builtin classes, nor the objects and classes of the
framework (staged functions, Numba dispatchers). A tuple holding arrays is swapped as a
whole, in its place (its items cannot be set).

A class's data attributes (_class_attributes) are its arrays, Python and NumPy scalars and
plain dicts, lists and tuples, its own and its bases' (not dunder names, functions,
descriptors or other objects). From an instance they are places of the instance
(`self.w`), read with getattr like every place (the instance's own where it shadows the
class's, else the class's), and set as Python sets `self.w = v` (in the instance's
`__dict__` or slot, the class's left as it is; from a class reached, `cls.w = v` in a
classmethod of a subclass, on that class); while a trace is built, an inherited one holds
its tensor in the class that defines it (StateInputs.swap_in), so that the instance (or
subclass) is left as it was. One set on some paths only (in a graph branch or loop: Python
makes the instance's attribute only where it is set) is refused (_may_be).
"""

import collections.abc
import contextlib
import enum
import inspect
import itertools
import keyword
import linecache
from math import copysign
import threading
import types
import weakref

import numpy as np

from runtime import errors, nest, specialise
from runtime.thread_values import ThreadValue

_MAX_DEPTH = 4
_MAX_ITEMS = 256
_MAX_OBJECTS = 4096   # objects entered per search (a trace's cost stays bounded)
_NOT_SEARCHED = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                 types.MethodType, np.ndarray, np.generic, str, bytes, int, float, complex,
                 bool, type(None))

_ATTR, _ITEM = 0, 1

# The types of a class's data attributes the search follows (and np.ndarray, np.generic).
_CLASS_DATA = frozenset({bool, int, float, complex, str, bytes, type(None), dict, list, tuple})

# Objects of these packages hold no user state (a staged function's traces, a compiled
# dispatcher): the search does not enter them.
_FRAMEWORKS = frozenset({"runtime", "autograph", "numba", "functools"})


def _followed_class(cls):
    """Does the search follow the data attributes of class `cls` (a class of the user's:
    not a builtin one, not one of the framework, not an enum)?"""
    module = getattr(cls, "__module__", None)
    return (isinstance(module, str) and module != "builtins"
            and module.split(".")[0] not in _FRAMEWORKS
            and not isinstance(cls, enum.EnumMeta))


def _searched(value):
    """Does the search enter `value` (an object, a container, a class of the user's)?"""
    return not isinstance(value, _NOT_SEARCHED) or (
        isinstance(value, type) and _followed_class(value))


class StateGuard:
    """The places ((root, steps, a getter of the object) each) where a trace found the
    generators it draws from (runtime/random_state.py), held weakly where Python allows
    it."""

    __slots__ = ("places", "holds", "checked", "nbytes")

    def __init__(self, places):
        self.places = [(root, steps, _getter(obj)) for root, steps, obj in places]
        # holds(): does each place still hold the object the trace captured from it?
        self.checked = ([(root, steps) for root, steps, _ in self.places],
                        [("object", get) for _, _, get in self.places])
        self.holds = _compile_places(*self.checked)

    def what_changed(self):
        """Where holds() fails, in the user's terms (None where it holds)."""
        for root, steps, get in self.places:
            if _read(root, steps) is not get():
                return "%s was rebound to another object" % _path_text(root, steps)
        return None


class ConstantsGuard:
    """The arrays of the state a trace holds as constants (all of them for rt.function, and
    where the graph refused them as inputs; those in tuples StateInputs cannot swap
    otherwise), each where it sits
    and by its contents ((root, steps, a getter of the array, its bytes or None) each): a
    call finding one rebound, or changed in place (also through a view), traces again. The
    trace may hold more than the array: what it computed from one while tracing (`w.sum()`,
    `w * 2` outside a graph op) is a constant of its own. The check copies each array's
    bytes (`tobytes`) on every call, and the guard keeps a copy of them.

    An array in a tuple that is also an input of the trace elsewhere (`self.params =
    (self.W, self.b)`) changes in every call that updates the input: it is checked where
    it sits only (its bytes None), and what the trace computes from it through the tuple
    outside graph ops is not followed."""

    __slots__ = ("places", "holds", "checked", "nbytes")

    def __init__(self, places):
        self.places = [(root, steps, _getter(array), array.tobytes() if contents else None)
                       for root, steps, array, contents in places]
        self.checked = ([(root, steps) for root, steps, _, _ in self.places],
                        [("object", get) if data is None
                         else ("contents", get, array.dtype, array.shape, data)
                         for (_, _, get, data), (_, _, array, _) in zip(self.places, places)])
        self.holds = _compile_places(*self.checked)
        self.nbytes = sum(len(data) for _, _, _, data in self.places if data is not None)

    def largest(self):
        """(the place, its bytes) of the largest array checked by its contents."""
        root, steps, _, data = max((p for p in self.places if p[3] is not None),
                                   key=lambda p: len(p[3]))
        return _path_text(root, steps), len(data)

    def what_changed(self):
        """Where holds() fails, in the user's terms (None where it holds)."""
        for (root, steps, get, data), check in zip(self.places, self.checked[1]):
            current = _read(root, steps)
            if current is not get():
                return "%s, a constant of the trace, was rebound to another object" % (
                    _path_text(root, steps))
            if data is not None and (current.dtype != check[2] or current.shape != check[3]
                                     or current.tobytes() != data):
                return "%s, a constant of the trace, was changed in place" % (
                    _path_text(root, steps))
        return None


def constants_guard(roots, inputs=None):
    """A ConstantsGuard over the arrays within reach of `roots` ((_Root, its value) each),
    at every place holding one, but the places of `inputs` (a StateInputs: its places and
    aliases, whose arrays elsewhere are checked where they sit only); None when there is
    none."""
    taken, input_arrays = set(), set()
    if inputs is not None:
        paths = [place[:2] for place in inputs.places] + [
            alias[:2] for alias in inputs.aliases]
        taken = {(root.name, tuple(steps)) for root, steps in paths}
        input_arrays = {id(_read(root, steps)) for root, steps in paths}
    places = [(root, steps, array, id(array) not in input_arrays)
              for root, steps, array in _search(roots, every_place=True)
              if (root.name, tuple(steps)) not in taken and type(array) is np.ndarray]
    return ConstantsGuard(places) if places else None


_ABSENT = object()   # (a place that did not exist: an attribute or key the function added)


class StateInputs:
    """The arrays of the function's state (see _search) as inputs of a trace: while it is
    traced, each place holding one holds a tensor for a graph input instead (`swap_in`;
    `restore` puts the arrays back); when the trace runs, they are read from their places
    again (the trace's generated call: runtime/trace.py), so a rebound one (`layer.W = new`, of the same dtype and shape) is read
    as it is, and `holds` says whether the places still hold arrays of the dtypes and
    ranks traced (another size reuses the trace, as for arguments). `places`: [(root,
    steps, array, input index)], the array an empty one of its dtype and rank after
    `restore` (a trace keeps no array of the state alive).

    A tensor the function left in another place of its state (`self.W = np.zeros(...)` in
    a lazy build, `self.h = h`) is found by `restore`, which puts back what the place held
    (or removes what the function added): those `new_places` ([(root, steps, what it held
    or _ABSENT)]) are set after each run, and `holds` checks that they still hold what
    they held (a built layer then traces again, with its weights as inputs)."""

    __slots__ = ("places", "aliases", "tuples", "new_places", "appended", "set_itself",
                 "kept", "_in_tuples", "_sized_checks", "_swapped", "_roots", "_before",
                 "_holds", "_checked", "_inherited")

    def __init__(self, places, aliases, swapped, roots, before, tuples=(), in_tuples=(),
                 tuple_checks=()):
        self.places = places
        # [(root, steps, k)]: other places holding the array of place k (`layer.kernel`
        # and `layer.weights[0]`): they hold the same tensor while tracing, and a call
        # finding another array there traces again.
        self.aliases = aliases
        # [(root, steps, the tuple)]: the places holding tuples of arrays (`self.data =
        # (X, y)`), which held copies of them holding the tensors of their arrays while
        # tracing (the arrays' places are `places` and `aliases` through them:
        # `self.data[0]`); the tuple None after `restore` (a trace keeps none).
        self.tuples = list(tuples)
        # {k}: the places of `places` and `aliases` in tuples (set with their tuple).
        self._in_tuples = set(in_tuples)
        # [(root, steps, type, length)]: the tuples (those of `tuples`, and tuples in them
        # holding arrays), and the lists and dicts whose length the trace read
        # (`read_lengths`), that a call must find as they were traced.
        self._sized_checks = list(tuple_checks)
        # {k}: the places of `tuples` the function left holding what was swapped in.
        self.kept = set()
        self.new_places = []
        # [(root, steps)]: a list of the state and one item the function appended to it
        # (`self.history.append(loss)`), appended after each run, in order.
        self.appended = []
        # {k}: the inherited places (of `places`, then `aliases`) the function set to what
        # they held (`self.s = self.s`, a number): Python makes an attribute of the
        # instance of it, so they are set after each run though the value is the input's.
        self.set_itself = set()
        self._swapped = swapped   # [(root, steps, the object swapped in)] until restored
        self._roots = roots
        self._before = before     # {id(container): (container, a shallow copy)}
        # [(instance or class, name, the class defining it, the graph input)]: the
        # inherited places, their tensor in the defining class
        self._inherited = []

    @classmethod
    def swap_in(cls, roots, make_input, numbers=False, subclasses=True):
        """Swaps the arrays within reach of `roots` (and, with `numbers`, the Python
        numbers: runtime/specialise.py, but those in tuples) for the tensors
        `make_input(value, place)` gives (a graph input each); an array in a tuple through
        the tuple's place (see `tuples`). An array that is also an argument
        (`model.step(model.W)`) is an input of its own too: when the graph changes one of
        them, the call sees they share memory and runs as Python (trace._SharedInputs).
        Unless `subclasses`, an array of an ndarray subclass in reach is refused
        (subclass_refusal), before anything is swapped."""
        if not subclasses:
            for root, steps, array in _search(roots, every_place=True):
                if refused_subclass(array):
                    raise TypeError(subclass_refusal(_path_text(root, steps), array))
        before = {}

        def visited(obj, root, steps):
            before[id(obj)] = (obj, _copy_of(obj), root, steps)

        leaf = _is_array_or_number if numbers else None
        places, aliases, swapped, first = [], [], [], {}
        inherited = []   # (see _inherited)

        def swap(root, steps, tensor, array):
            owner = _defining_class(root, steps)
            if owner is None:
                _set(root, steps, tensor)
            else:   # (inherited: the tensor in the class, the instance left as it is)
                setattr(owner, steps[-1][1], tensor)
                inherited.append((_get(root, steps[:-1]), steps[-1][1], owner,
                                  getattr(tensor, "_value", None)))

        # (The tuples of arrays, found before any place is swapped.)
        tuples = [(root, steps, value) for root, steps, value in _search(
            roots, leaf=_holds_arrays, every_place=True)
                  if _tuples_in(value, steps) and _settable(root, steps)]
        for root, steps, array in list(_search(roots, leaf=leaf, visited=visited,
                                               every_place=True)):
            if not _settable(root, steps):
                continue   # (in a tuple: below, with the tuple)
            if not isinstance(array, np.ndarray):   # (a number: each place its own input)
                tensor, index = make_input(array, len(places))
                swap(root, steps, tensor, array)
                places.append((root, steps, array, index))
                swapped.append((root, steps, tensor))
                continue
            k = first.get(id(array))
            if k is not None:   # (an array seen at another place: the same tensor)
                swap(root, steps, swapped[k][2], array)
                aliases.append((root, steps, k))
                continue
            first[id(array)] = len(places)
            tensor, index = make_input(array, len(places))
            swap(root, steps, tensor, array)
            places.append((root, steps, array, index))
            swapped.append((root, steps, tensor))
        # An array in a tuple (`self.data = (X, y)`, nested tuples and namedtuples too) is
        # an input at its place in the tuple (`self.data[0]`), as others are; the tuple
        # cannot hold its tensor, so its place holds a copy of it holding the tensors of
        # its arrays (one copy per tuple, at every place holding it).
        in_places, in_aliases, checks, copies = [], [], [], {}
        for root, steps, value in tuples:
            for at, array in _arrays_in(value, steps):
                k = first.get(id(array))
                if k is not None:
                    in_aliases.append(len(aliases))
                    aliases.append((root, at, k))
                    continue
                in_places.append(len(places))
                first[id(array)] = len(places)
                tensor, index = make_input(array, len(places))
                places.append((root, at, array, index))
                swapped.append((root, at, tensor))
            checks += [(root, at, type(t), len(t)) for at, t in _tuples_in(value, steps)]
        tensors = {id(place[2]): tensor for place, (_, _, tensor) in zip(places, swapped)
                   if isinstance(place[2], np.ndarray)}
        for root, steps, value in tuples:
            copy = _with_tensors(value, tensors, copies, len(steps))
            swap(root, steps, copy, value)
            swapped.append((root, steps, copy))
        # (The places in tuples, numbered as `places` then `aliases`.)
        in_tuples = in_places + [len(places) + j for j in in_aliases]
        state = cls(places, aliases, swapped, roots, before, tuples, in_tuples, checks)
        state._inherited = inherited
        return state

    def restore(self, is_tensor, finished=True, lengths=None):
        """Puts the arrays back; returns, per place, what the traced function left there
        (the tensor swapped in, perhaps updated in place; another value it set there);
        then finds the tensors (`is_tensor`) it left elsewhere: returns those too, after
        putting back what their places held (see new_places); and, where the trace
        `finished`, the scalars of the state it set to other values while tracing (`self.
        steps += 1` where the trace holds `steps` as a constant, `self.mode = "eval"`):
        Python sets them on every call, so they are new places too. `lengths` ({id: the
        object}, read_lengths): the lists and dicts of the state whose length the trace
        read (a for loop over `self.layers`, `len(self.ws)`), which a call must find of
        that length (with what the function appends taken out)."""
        swapped = [(root, steps, array, tensor) for (root, steps, array, _), (_, _, tensor)
                   in zip(self.places, self._swapped)] + [
                   (root, steps, self.places[k][2], self._swapped[k][2])
                   for root, steps, k in self.aliases] + [
                   (root, steps, value, copy) for (root, steps, value), (_, _, copy)
                   in zip(self.tuples, self._swapped[len(self.places):])]
        # (All read before any is put back: places sharing an inherited array share the
        # class's attribute. A tuple's item is what was swapped in: a tuple's items cannot
        # be set, and its array's new contents are the tensor's.)
        left = [tensor if k in self._in_tuples else _read(root, steps)
                for k, (root, steps, _, tensor) in enumerate(swapped)]
        # (_ABSENT: the function deleted it: Python's state has none.)
        left = [None if value is _ABSENT else value for value in left]
        inherited = {(id(obj), name): (owner, value)
                     for obj, name, owner, value in self._inherited}
        parents = [_read(root, steps[:-1]) if steps else _ABSENT
                   for root, steps, _, _ in swapped]
        # (Where each inherited place's attribute is now found, and what it is there.)
        holders = [_holder(parent, steps[-1][1])
                   if (id(parent), steps[-1][1] if steps else None) in inherited else None
                   for parent, (_, steps, _, _) in zip(parents, swapped)]
        refused = None
        for k, (root, steps, array, tensor) in enumerate(swapped):
            if k in self._in_tuples:
                continue   # (put back with its tuple)
            parent = parents[k]
            owner, value = inherited.get((id(parent), steps[-1][1]), (None, None)) \
                if steps else (None, None)
            if owner is None:
                _set(root, steps, array)
                continue
            # An inherited place: its tensor was in the class. What the function set on the
            # instance (`self.w = ...`) is taken off it (set after each run: StateInputs.set).
            setattr(owner, steps[-1][1], array)
            own = _take_own(parent, steps[-1][1])
            if refused is not None:
                continue
            if own is _ABSENT:
                holder, held = holders[k]
                if (holder is not owner or held is not tensor) and holder is not parent:
                    # The function set a class's attribute (`type(self).w = ...`): the
                    # place of that class sets it, not this one; refused where there is
                    # none (the class is not a root of the state, nor reached itself).
                    left[k] = tensor
                    if not any(j != k and parents[j] is holder and s[-1][1] == steps[-1][1]
                               for j, (_, s, _, _) in enumerate(swapped)):
                        refused = _class_set_refusal(root, steps, holder)
                continue
            own_value = getattr(own, "_value", None)
            if own is tensor and isinstance(array, np.ndarray):
                refused = _class_array_refusal(root, steps, owner)
            elif own_value is not None and own_value is not value and value is not None \
                    and _may_be(own_value, value):
                refused = _some_paths_refusal(root, steps, owner)
            elif own is tensor:
                self.set_itself.add(k)
        first_tuple = len(self.places) + len(self.aliases)
        self.kept = {k for k in range(first_tuple, first_tuple + len(self.tuples))
                     if left[k] is swapped[k][3] and k not in self.set_itself}
        self._swapped = []
        self._inherited = []
        for obj, copy, root, steps in self._before.values():
            # A list of the state the function appended to (and did nothing else with):
            # its new items are taken out, and appended again after each run.
            if type(obj) is list and len(obj) > len(copy) and all(
                    a is b for a, b in zip(obj, copy)) and _reachable(root, steps):
                for item in obj[len(copy):]:
                    self.appended.append((root, steps))
                    left.append(item)
                del obj[len(copy):]
            if lengths and lengths.get(id(obj)) is obj and type(obj) in (list, dict):
                self._sized_checks.append((root, steps, type(obj), len(copy)))

        def left_tensors(value):   # (tensors, and tuples holding some: `self.h = (h, c)`)
            return is_tensor(value) or _rebuilt_tuple(value) and any(
                left_tensors(item) for item in value)

        for root, steps, tensor in list(_search(self._roots, leaf=left_tensors,
                                                every_place=True)):
            held = self._held_before(root, steps)
            if held is not None:
                _put_back(root, steps, held[0])
                self.new_places.append((root, steps, held[0]))
                left.append(tensor)
        for root, steps, value in list(_search(self._roots, leaf=_is_scalar,
                                               every_place=True)) if finished else ():
            if _defining_class(root, steps) is not None:
                continue   # (read from a class: its place is the class's, if reached)
            held = self._held_before(root, steps)
            if held is not None and not _same_constant(held[0], value):
                _put_back(root, steps, held[0])
                self.new_places.append((root, steps, held[0]))
                left.append(value)
        if refused is not None:   # (after the state is as it was)
            raise refused
        # What the trace keeps: the places, the dtype and rank of the arrays in them (an
        # empty array of each: `holds` compares them), nothing of what it searched.
        self.places = [(root, steps, _stand_in(array), index)
                       for root, steps, array, index in self.places]
        self.tuples = [(root, steps, None) for root, steps, _ in self.tuples]
        self._roots = self._before = None
        self._compile()
        return left

    def _compile(self):
        """The checks of `holds` but those of new places (see _compile_places)."""
        checks = [("array", value.dtype, value.ndim) if type(value) is np.ndarray
                  else ("number", type(value)) for _, _, value, _ in self.places]
        checks += [("same", k) for _, _, k in self.aliases]
        checks += [("list",)] * len(self.appended)
        checks += [("tuple", kind, length) for _, _, kind, length in self._sized_checks]
        self._checked = ([place[:2] for place in self.places]
                         + [alias[:2] for alias in self.aliases] + list(self.appended)
                         + [check[:2] for check in self._sized_checks], checks)
        self._holds = _compile_places(*self._checked)

    @property
    def checked(self):
        """(paths, checks) of _compile_places that are all of holds(), or None where
        holds() checks more (new places: one may be absent)."""
        return None if self.new_places else self._checked

    def _held_before(self, root, steps):
        return _held_before(self._before, root, steps)

    def what_changed(self):
        """Where holds() fails, in the user's terms (None where it holds)."""
        for root, steps, array, _ in self.places:
            current = _read(root, steps)
            if type(array) is np.ndarray:
                if type(current) is not np.ndarray or current.dtype != array.dtype or \
                        current.ndim != array.ndim:
                    return "%s changed from an array of %s of rank %d to %s" % (
                        _path_text(root, steps), array.dtype, array.ndim,
                        _describe(current))
            elif type(current) is not type(array) or not specialise.is_number_input(
                    current):
                return "%s changed from a Python %s to %s" % (
                    _path_text(root, steps), type(array).__name__, _describe(current))
        for root, steps, k in self.aliases:
            if _read(root, steps) is not _read(*self.places[k][:2]):
                return "%s is no longer the array of %s" % (
                    _path_text(root, steps), _path_text(*self.places[k][:2]))
        for root, steps, held in self.new_places:
            if _read(root, steps) is not held:
                return "%s was set by the function (%s)" % (
                    _path_text(root, steps), "a new place of its state" if held is _ABSENT
                    else "it held %s" % _describe(held))
        for root, steps in self.appended:
            if type(_read(root, steps)) is not list:
                return "%s is no longer a list" % _path_text(root, steps)
        for root, steps, kind, length in self._sized_checks:
            current = _read(root, steps)
            if type(current) is not kind or len(current) != length:
                return "%s changed from a %s of %d items to %s" % (
                    _path_text(root, steps), kind.__name__, length,
                    "a %s of %d items" % (type(current).__name__, len(current))
                    if isinstance(current, (tuple, list, dict)) else _describe(current))
        return None

    def holds(self):
        """Do the places still hold arrays of the dtypes and ranks traced (numbers of the
        types traced, the same array where one was in several places, lists where the
        function appended), and the new places what they held?"""
        if not self._holds():
            return False
        for root, steps, held in self.new_places:
            try:
                current = _get(root, steps)
            except Exception:
                current = _ABSENT
            if current is not held:
                return False
        return True

    def _place(self, k):
        """(root, steps) of place `k`, of `places`, then `aliases`, then `tuples`, then
        `appended` (the list's), then `new_places`."""
        for group in (self.places, self.aliases, self.tuples, self.appended,
                      self.new_places):
            if k < len(group):
                return group[k][:2]
            k -= len(group)
        raise IndexError(k)

    def input_of(self, k):
        """The input index of the array place `k` held when traced (None for a new
        place)."""
        if k < len(self.places):
            return self.places[k][3]
        if k < len(self.places) + len(self.aliases):
            return self.places[self.aliases[k - len(self.places)][2]][3]
        return None

    def set(self, k, value):
        """Sets place `k` to `value` (a rebinding the function does, done after each run),
        or appends it to its list (`appended`)."""
        start = len(self.places) + len(self.aliases) + len(self.tuples)
        if start <= k < start + len(self.appended):
            _get(*self.appended[k - start]).append(value)
            return
        _set(*self._place(k), value)

    def setter(self, ks):
        """`write(*values)`: does `set(k, value)` for the places `ks` and `values` in order.
        Generated once per trace (a model's step sets a dozen places on every call: one
        by one, 12 us of a 46 us step), reading each object on the places' paths once;
        one by one where a place set is on the path of another (setting it changes what
        that path reaches)."""
        paths = self.write_paths(ks)
        if paths is None:
            return self._set_one_by_one(ks)
        return _compile_writes(*paths)

    def write_paths(self, ks):
        """(paths, is_set) of PlaceCode.write doing `set(k, value)` for the places `ks`, or
        None where one set is on the path of another (the places are then set one by one)."""
        start = len(self.places) + len(self.aliases) + len(self.tuples)
        paths, is_set = [], []
        for k in ks:
            if start <= k < start + len(self.appended):
                paths.append(self.appended[k - start])
                is_set.append(False)
            else:
                paths.append(self._place(k))
                is_set.append(True)
        set_places = {(id(root), tuple(steps)) for (root, steps), s in zip(paths, is_set) if s}
        for (root, steps), s in zip(paths, is_set):
            read = steps[:-1] if s else steps
            if any((id(root), tuple(read[:n])) in set_places for n in range(len(read) + 1)):
                return None
        return paths, is_set

    def _set_one_by_one(self, ks):
        ks = list(ks)

        def write(*values):
            for k, value in zip(ks, values):
                self.set(k, value)
        return write

    def describe(self, k):
        """Place `k` as the user writes it: `layer.W`, `params['b']`."""
        return _path_text(*self._place(k))

    def __bool__(self):
        return bool(self.places or self.new_places or self.appended)


def _class_array_refusal(root, steps, owner):
    name = steps[-1][1]
    return TypeError(
        "%s is set to the array of the class attribute %s.%s (as `self.%s += ...` or "
        "`self.%s = self.%s` does: Python changes the class's array in place, shared by "
        "every instance, and makes that same array an attribute of the instance too): a "
        "graph cannot make an instance attribute hold the class's array. Set the "
        "attribute on the instance (in __init__), or change the class's array through the "
        "class" % (_path_text(root, steps), owner.__name__, name, name, name, name))


def _class_set_refusal(root, steps, holder):
    name = steps[-1][1]
    return TypeError(
        "the function sets the class attribute %s.%s, which it reads as %s, through a "
        "class it does not name (`type(self).%s = ...`): a graph sets what the function "
        "leaves in its state after each run at the places it found, and this class is not "
        "one. Name the class (a global `%s.%s = ...`), or keep the value on the instance"
        % (holder.__name__, name, _path_text(root, steps), name, holder.__name__, name))


def _holder(obj, name):
    """(the object or class `obj.name` is found in: `obj` itself, or a class of its MRO;
    what it holds there), or (None, None)."""
    if isinstance(obj, type):
        if name in vars(obj):
            return obj, vars(obj)[name]
        classes = obj.__mro__[1:]
    else:
        own = _own_attributes(obj)
        if name in own:
            return obj, own[name]
        classes = type(obj).__mro__
    for klass in classes:
        if name in vars(klass):
            return klass, vars(klass)[name]
    return None, None


def _some_paths_refusal(root, steps, owner):
    name = steps[-1][1]
    return TypeError(
        "%s is set in a graph branch or loop, on some paths only, where it is the class "
        "attribute %s.%s: Python makes it an attribute of %s only on the paths that set "
        "it (not where the branch is not taken, nor where the loop runs no times), the "
        "class's showing through on the others, which a graph cannot do. Set it on every "
        "path (before the branch or loop too), or on the instance in __init__"
        % (_path_text(root, steps), owner.__name__, name, _path_text(root, steps[:-1])))


def _held_before(before, root, steps):
    """(what the place held before the trace, or _ABSENT), or None where that is not known
    (a place the search did not see, an item of a tuple), from `before` ({id(object): (the
    object, a shallow copy, ...)})."""
    if not steps:
        return None
    parent = _get(root, steps[:-1])
    entry = before.get(id(parent))
    if entry is None or entry[0] is not parent or isinstance(parent, tuple):
        return None
    kind, key = steps[-1]
    copy = entry[1]
    if isinstance(copy, list):
        return (copy[key] if key < len(copy) else _ABSENT,)
    return (copy.get(key, _ABSENT),)


def _reachable(root, steps):
    """Can the object at (root, steps) be found again after the trace (the root is not
    gone)?"""
    try:
        _get(root, steps)
    except Exception:
        return False
    return True


class ReadOnly:
    """Context manager: the arrays within reach of `roots` are read-only while a function
    is traced, where the trace holds them as constants: arrays the state's search cannot
    swap for inputs (in tuples it cannot copy), and all of them where the graph refused the
    state as inputs (runtime/trace.py; `refused` says why).

    A graph cannot change a constant. A NumPy call changing one while tracing (an out= the
    graph cannot record, `w.sort()`, `np.copyto(w, ...)`, `w.fill(0)`) would change the
    user's array once, now, and the graph's reads of it would see the new contents when it
    runs: a wrong result, silently. Read-only, NumPy refuses the write at the user's line,
    and `check` turns that into a refusal that says why. (Copies of the arrays compared
    after the trace would miss a change undone before its end, cost a copy of every array
    in reach, and could not say where the change happened.) The flags are restored when the
    function returns, also on the views it made of the arrays and left in its state."""

    __slots__ = ("_roots", "_name", "_refused", "_inputs", "_frozen", "_found")

    def __init__(self, roots, name, refused=None, inputs=True):
        self._roots = roots
        self._name = name         # the function's, for messages
        self._refused = refused   # why the graph refused the state as inputs, or None
        self._inputs = inputs     # may the state be inputs (not for rt.function)?
        self._frozen = []         # [(root, steps, array)] made read-only here
        self._found = set()       # ids of the arrays in reach before the trace

    def __enter__(self):
        for root, steps, array in _search(self._roots):
            self._found.add(id(array))
            if array.flags.writeable and _bases_writeable(array):
                array.flags.writeable = False
                self._frozen.append((root, steps, array))
        return self

    def __exit__(self, *exc):
        # (Bases before their views: a view can be made writeable only over a writeable
        # base.)
        frozen = {id(a) for _, _, array in self._frozen for a in _with_bases(array)}
        for _, _, array in sorted(self._frozen, key=lambda place: _base_depth(place[2])):
            array.flags.writeable = True
        if frozen:
            made = [array for _, _, array in _search(self._roots)
                    if id(array) not in self._found and not array.flags.writeable
                    and _is_view_of(array, frozen)]
            for array in sorted(made, key=_base_depth):
                array.flags.writeable = True
        return False

    def check(self, error):
        """Raises the refusal for `error`, raised while tracing, when it is NumPy refusing
        to write into a read-only array (one of these, as far as NumPy says)."""
        if not self._frozen or not isinstance(error, ValueError) \
                or "read-only" not in str(error):
            return
        location = errors.traceback_location(error.__traceback__)
        where = ""
        if location is not None:
            line = linecache.getline(*errors.map_location(location)[:2]).strip()
            where = " at %s%s" % (errors.format_location(location),
                                  ": `%s`" % line if line else "")
        places = [_path_text(root, steps) for root, steps, _ in self._frozen]
        places = ", ".join(places[:6]) + (", ..." if len(places) > 6 else "")
        if not self._inputs:
            why = ("rt.function holds the arrays of its state (%s) as constants of the "
                   "trace, read-only while it is traced: a graph cannot change a constant. "
                   "Pass the array as an argument (the caller's array then holds what the "
                   "graph wrote), hold it in an rt.Variable, use ag.function (its state "
                   "as inputs), or change it outside the staged function." % places)
        elif self._refused is not None:
            why = ("The graph refused its state as inputs (%s), so the arrays of its state "
                   "(%s) are constants of the trace, read-only while it is traced: a graph "
                   "cannot change a constant. Avoid what the graph refused, or change the "
                   "array outside the staged function." % (self._refused, places))
        else:
            why = ("The arrays of its state the graph holds as constants, not inputs (%s: "
                   "arrays in tuples that are neither plain tuples nor namedtuples, or "
                   "that are the method's `self`, are), are read-only while it is traced: "
                   "a graph cannot change a constant. Hold the array in an attribute, a "
                   "list, a dict or a plain tuple, or change it outside the staged "
                   "function." % places)
        raise TypeError("%s changes an array of its state in place while it is traced "
                        "(NumPy: %s)%s. %s" % (self._name, str(error).split("\n")[0],
                                               where, why)) from None


def _bases_writeable(array):
    base = array.base
    while isinstance(base, np.ndarray):
        if not base.flags.writeable:
            return False
        base = base.base
    return True


def _base_depth(array):
    depth = 0
    while isinstance(array.base, np.ndarray):
        array, depth = array.base, depth + 1
    return depth


def _with_bases(array):
    """`array` and the arrays it is a view of."""
    arrays = [array]
    while isinstance(arrays[-1].base, np.ndarray):
        arrays.append(arrays[-1].base)
    return arrays


def _is_view_of(array, ids):
    """Is `array` a view of an array whose id is in `ids` (or of its base: NumPy makes a
    view of a view a view of the base)?"""
    return any(id(base) in ids for base in _with_bases(array)[1:])


def refused_subclass(array):
    """Is ndarray `array` of a subclass whose operations and results are its own (all but
    np.memmap's, whose operations are ndarray's)?"""
    return type(array) is not np.ndarray and not isinstance(array, np.memmap)


def subclass_refusal(what, array):
    """The message refusing `array` (refused_subclass), which `what` is or holds."""
    t = type(array)
    return ("%s is a %s.%s, a subclass of np.ndarray: a graph computes as NumPy does on "
            "plain arrays, where the subclass's own operations (a mask, matrix products, its "
            "own methods) and result types may differ. Hold or pass np.asarray(x) (the array "
            "it holds, no copy), or run the function as plain Python"
            % (what, t.__module__, t.__qualname__))


def _rebuilt_tuple(value):
    """Can a copy of `value` hold tensors while tracing: is it a plain tuple or a
    namedtuple (with no attributes of its own)?"""
    return type(value) is tuple or (nest.is_namedtuple(value)
                                    and not getattr(value, "__dict__", None))


def _tuples_in(value, steps):
    """[(steps, tuple)]: `value` (at `steps`) and the tuples in it, through tuples that
    _rebuilt_tuple accepts, holding arrays within the search's reach (_MAX_DEPTH steps of
    the root, _MAX_ITEMS items per tuple), each at its steps."""
    found = []
    if _rebuilt_tuple(value) and len(steps) < _MAX_DEPTH:
        inner = [_tuples_in(item, steps + ((_ITEM, i),))
                 for i, item in enumerate(value[:_MAX_ITEMS])]
        if any(isinstance(item, np.ndarray) for item in value[:_MAX_ITEMS]) or any(inner):
            found.append((steps, value))
            for tuples in inner:
                found += tuples
    return found


def _holds_arrays(value):
    """Is `value` a tuple holding arrays (see _tuples_in; at the root's place)?"""
    return _rebuilt_tuple(value) and bool(_tuples_in(value, ()))


def _arrays_in(value, steps):
    """[(steps, array)]: the arrays in the tuples of _tuples_in(value, steps)."""
    return [(at + ((_ITEM, i),), item) for at, t in _tuples_in(value, steps)
            for i, item in enumerate(t[:_MAX_ITEMS]) if isinstance(item, np.ndarray)]


def _with_tensors(value, tensors, copies, depth):
    """A copy of `value` (a tuple of _tuples_in, `depth` steps from its root) holding the
    tensors {id(array): tensor} in place of its arrays, and copies of its tuples holding
    arrays in place of those (`copies`: {id(tuple): its copy}, one per tuple, made where it
    is nearest the root)."""
    key = id(value)
    if key not in copies:
        items = list(value)
        for i, item in enumerate(items[:_MAX_ITEMS]):
            if isinstance(item, np.ndarray):
                items[i] = tensors.get(id(item), item) if depth < _MAX_DEPTH else item
            elif _tuples_in(item, ((_ITEM, 0),) * (depth + 1)):
                items[i] = _with_tensors(item, tensors, copies, depth + 1)
        copies[key] = tuple(items) if type(value) is tuple else type(value)._make(items)
    return copies[key]


def _stand_in(array):
    """An empty array of the dtype and rank of `array` (an array), a zero of the type of a
    Python number, or `array` itself."""
    if type(array) is np.ndarray:
        return np.empty((0,) * array.ndim, array.dtype)
    if type(array) in (int, float):
        return type(array)()
    return array


def _is_array_or_number(value):
    return isinstance(value, np.ndarray) or specialise.is_number_input(value)


class ValueGuard:
    """The places ((root, steps, value) each) of the Python scalars of a function's state
    that a trace holds as constants (a flag `self.training`, a mode string, None; the
    numbers too for rt.function, or where a trace needed their values): a call finding
    another value, or another type, there traces again."""

    __slots__ = ("places", "holds", "checked", "nbytes")

    def __init__(self, places):
        self.places = places
        # holds(): does each place still hold its value (of its type)?
        self.checked = ([(root, steps) for root, steps, _ in places],
                        [("value", value) for _, _, value in places])
        self.holds = _compile_places(*self.checked)

    def what_changed(self):
        """Where holds() fails, in the user's terms (None where it holds)."""
        for root, steps, value in self.places:
            current = _read(root, steps)
            if type(current) is not type(value) or not (current is value or
                                                        current == value) \
                    or _negative_zero_differs(value) and copysign(1.0, current) != copysign(
                        1.0, value):
                return "%s, a constant of the trace, changed (%r, then %r)" % (
                    _path_text(root, steps), value,
                    "absent" if current is _ABSENT else current)
        return None


_SCALARS = frozenset({bool, int, float, complex, str, bytes, type(None)})


def _is_scalar(value):
    """Is `value` a Python scalar or a NumPy scalar (a constant of a trace, by value)?"""
    return type(value) in _SCALARS or isinstance(value, np.generic)


def _same_constant(a, b):
    """Are `a` and `b` one constant for a trace (of one type, equal, zeros of one sign)?"""
    return type(a) is type(b) and (a is b or bool(a == b) and not (
        _negative_zero_differs(a) and copysign(1.0, a) != copysign(1.0, b)))


def _negative_zero_differs(value):
    """Is the constant `value` a float zero, whose guard also checks the sign (-0.0 == 0.0)?"""
    return isinstance(value, (float, np.floating)) and value == 0.0


def value_guard(roots, numbers=True):
    """A ValueGuard over the Python and NumPy scalars within reach of `roots` ((_Root, its
    value) each), but, unless `numbers`, the Python numbers (ints and floats) that
    StateInputs.swap_in makes inputs (not those in tuples: `self.shape = (3, 4)`); None
    when there is none."""
    places = [(root, steps, value) for root, steps, value in _search(
        roots, leaf=_is_scalar, every_place=True)
              if numbers or not specialise.is_number_input(value)
              or not _settable(root, steps)]
    return ValueGuard(places) if places else None


def _copy_of(obj):
    if isinstance(obj, dict):
        return dict(obj)
    if isinstance(obj, list):
        return list(obj)
    if isinstance(obj, type):   # (a class's own attributes, as a place of it sees them)
        return dict(vars(obj))
    return _own_attributes(obj)


def _put_back(root, steps, held):
    """Puts `held` back in the place (removes the attribute or key for _ABSENT)."""
    if held is not _ABSENT:
        _set(root, steps, held)
        return
    parent = _get(root, steps[:-1])
    kind, key = steps[-1]
    if isinstance(parent, type):
        if key in vars(parent):
            delattr(parent, key)
    elif kind == _ATTR:
        slot = _slot(type(parent), key)
        if slot is None:
            vars(parent).pop(key, None)
        elif hasattr(parent, key):
            slot.__delete__(parent)
    elif isinstance(parent, dict):
        parent.pop(key, None)


def _get(root, steps):
    obj = root.get()
    for kind, key in steps:
        obj = getattr(obj, key) if kind == _ATTR else obj[key]
    return obj


def _set(root, steps, value):
    if not steps:
        root.set(value)
        return
    parent = _get(root, steps[:-1])
    kind, key = steps[-1]
    if isinstance(parent, type):
        setattr(parent, key, value)
    elif kind == _ATTR:
        _set_attribute(parent, key, value)
    else:
        parent[key] = value


def _settable(root, steps):
    if not steps:
        return root.set is not None
    parent = _get(root, steps[:-1])
    kind, key = steps[-1]
    if kind == _ITEM:
        return isinstance(parent, (dict, list))
    return isinstance(parent, type) or isinstance(getattr(parent, "__dict__", None), dict) \
        or _slot(type(parent), key) is not None or _defining_class(root, steps) is not None


class _Root:
    """A getter of one root of the search: a fixed object (an argument, the instance of a
    method), a closure cell's contents, or a module global; the last two with a setter."""

    __slots__ = ("name", "get", "set")

    def __init__(self, name, get, set=None):
        self.name = name
        self.get = get
        self.set = set


def roots_of(fn, args, kwargs):
    """The roots of the search for a call of `fn`: its arguments that are objects, its
    instance (a bound method), its closure cells and the globals its code names."""
    roots = []
    instance = getattr(fn, "__self__", None)
    if isinstance(instance, types.ModuleType):
        instance = None
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    names = _parameter_names(code, len(args), instance is not None)
    for name, value in zip(names, args):
        roots += _argument_roots(name, value)
    for name, value in kwargs.items():
        roots += _argument_roots(name, value)
    if instance is not None:
        roots.append((_Root("self", lambda: instance), instance))
    if code is None:
        return roots
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:   # an empty cell
            continue
        roots.append((_Root(name, lambda cell=cell: cell.cell_contents,
                            lambda value, cell=cell: setattr(cell, "cell_contents", value)),
                      value))
    namespace = fn.__globals__
    for name in _global_names(code):
        if name in namespace:
            roots.append((_Root(name, lambda name=name: namespace[name],
                                lambda value, name=name: namespace.__setitem__(name, value)),
                          namespace[name]))
    return roots


def _parameter_names(code, count, bound):
    """The names of `count` positional arguments of a function of code object `code` (of a
    method, `bound` to its instance) as its code names them (`self`, `data`, `args[2]`
    for one of *args): what messages call the places in them (`self.data[0]`)."""
    if code is None:
        return ["argument %d" % i for i in range(count)]
    names = list(code.co_varnames[:code.co_argcount])
    if code.co_flags & inspect.CO_VARARGS:
        star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
        names += ["%s[%d]" % (star, i) for i in range(bound + count - len(names))]
    names = names[bound:]
    return names + ["argument %d" % i for i in range(len(names), count)]


def roots_of_frame(frame):
    """The roots of the search from a running function's frame: the objects its locals
    (arguments, closure variables) hold, fixed, and the globals its code names."""
    roots = []
    for name, value in frame.f_locals.items():
        if _searched(value):
            roots.append((_Root(name, _getter(value)), value))
    namespace = frame.f_globals
    for name in _global_names(frame.f_code):
        if name in namespace:
            roots.append((_Root(name, lambda name=name: namespace[name],
                                lambda value, name=name: namespace.__setitem__(name, value)),
                          namespace[name]))
    return roots


def places_of(roots, leaf):
    """[(root, steps, value)]: every place within reach of `roots` ((_Root, its value)
    each) holding a value that `leaf(value)` accepts (the places a StateGuard checks)."""
    return list(_search(roots, leaf=leaf, every_place=True))


def _argument_roots(name, value):
    """The roots of an argument: the object itself, or the objects a tuple, list or dict
    argument holds (the traced function sees copies of those containers, holding the same
    objects). Each is held weakly where Python allows it, so that a trace (cached as long
    as its arguments live: runtime/trace.py) never keeps one alive."""
    if nest.is_nested(value):
        return [(_Root(name + path, _getter(leaf)), leaf)
                for path, leaf in nest.flatten_with_paths(value)
                if _searched(leaf)]
    if not _searched(value):
        return []
    return [(_Root(name, _getter(value)), value)]


def _getter(value):
    """A function returning `value`: a weak reference where it can be one (it returns
    None once `value` is gone, and the places under it are then not found)."""
    try:
        return weakref.ref(value)
    except TypeError:
        return lambda: value


def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _search(roots, leaf=None, visited=None, every_place=False):
    """(root, steps, value) for each place holding a leaf (an array, or what `leaf(value)`
    says) within reach of `roots` ((_Root, its value) each), breadth first: each leaf once,
    at its nearest place (`every_place`: at every place the search passes). `visited(obj,
    root, steps)`
    is called with each object the search enters."""
    is_leaf = leaf or (lambda value: isinstance(value, np.ndarray))
    found = set()
    seen = set()
    level = []
    for root, value in roots:
        if is_leaf(value):
            if id(value) not in found or every_place:
                found.add(id(value))
                yield root, (), value
            continue
        level.append((root, (), value))
    for _ in range(_MAX_DEPTH):
        following = []
        for root, steps, obj in level:
            if id(obj) in seen or not _searched(obj):
                continue
            if len(seen) >= _MAX_OBJECTS:
                return
            seen.add(id(obj))
            if visited is not None:
                visited(obj, root, steps)
            for step, child in _children(obj):
                if is_leaf(child):
                    if id(child) not in found or every_place:
                        found.add(id(child))
                        yield root, steps + (step,), child
                elif _searched(child):
                    following.append((root, steps + (step,), child))
        if not following:
            return
        level = following


def _children(obj):
    """(step, child) for the attributes and items the search follows from `obj` (not
    those of an rt.Variable: its state is its own)."""
    if isinstance(obj, dict):
        items = list(obj.items())[:_MAX_ITEMS]
        return [((_ITEM, k), v) for k, v in items if isinstance(k, (str, int))]
    if isinstance(obj, (list, tuple)):
        return [((_ITEM, i), v) for i, v in enumerate(obj[:_MAX_ITEMS])]
    if isinstance(obj, type):
        return [((_ATTR, k), v) for k, v in _class_attributes(obj, obj, ())]
    if getattr(type(obj), "_rt_to_value", None) \
            or type(obj).__module__.split(".")[0] in _FRAMEWORKS:
        return []
    own = _own_attributes(obj)   # (its __dict__'s and its slots')
    if not own and not isinstance(getattr(obj, "__dict__", None), dict) \
            and not _slots(type(obj)):
        return []
    return [((_ATTR, k), v) for k, v in list(own.items())[:_MAX_ITEMS]] + [
        ((_ATTR, k), v) for k, v in _class_attributes(obj, type(obj), own)]


def _class_attributes(obj, cls, shadowed):
    """[(name, value)]: the data attributes of class `cls` and its bases that `obj` (an
    instance of `cls`, or `cls`) reads (those of its classes the search follows: arrays,
    Python and NumPy scalars, plain dicts, lists and tuples; not dunder names, nor names
    in `shadowed`, the instance's own, or defined by a class before in the MRO)."""
    found = []
    seen = set(shadowed)
    for klass in cls.__mro__:
        names = vars(klass)
        if not _followed_class(klass):
            seen.update(names)
            continue
        for name, value in list(names.items()):
            if name in seen:
                continue
            seen.add(name)
            if name[:2] == "__" == name[-2:] or not (
                    type(value) in _CLASS_DATA or isinstance(value, (np.ndarray, np.generic))):
                continue
            try:   # (what obj.name gives: not another thing a metaclass or __getattr__ made)
                if getattr(obj, name) is not value:
                    continue
            except Exception:
                continue
            found.append((name, value))
            if len(found) >= _MAX_ITEMS:
                return found
    return found


def _defining_class(root, steps):
    """The class defining the attribute at (root, steps) where the object there (an
    instance, or a class) reads it from a class (not its own `__dict__` or slot): that of
    its class or bases, of its bases for a class; else None."""
    if not steps or steps[-1][0] != _ATTR:
        return None
    parent = _get(root, steps[:-1])
    holder, value = _holder(parent, steps[-1][1])
    if holder is parent or type(value) is types.MemberDescriptorType:
        return None   # (its own, or a slot not set)
    return holder


def _slot(cls, name):
    """The member descriptor of slot `name` of class `cls` (one of its own, or of a
    base, in a class the search follows), or None where `name` is not a slot of it."""
    for klass in cls.__mro__:
        descriptor = vars(klass).get(name)
        if descriptor is not None:
            return descriptor if type(descriptor) is types.MemberDescriptorType and \
                _followed_class(klass) else None
    return None


def _slots(cls):
    """[(name, member descriptor)]: the slots of `cls` and its bases (classes the search
    follows), as `__slots__` made them (a private name mangled)."""
    found = []
    for klass in cls.__mro__:
        if "__slots__" in vars(klass) and _followed_class(klass):
            found += [(name, value) for name, value in vars(klass).items()
                      if type(value) is types.MemberDescriptorType]
    return found


def _own_attributes(obj):
    """{name: value}: the attributes an instance holds itself, in its `__dict__` and in its
    slots that are set."""
    attributes = getattr(obj, "__dict__", None)
    own = dict(attributes) if isinstance(attributes, dict) else {}
    for name, descriptor in _slots(type(obj)):
        try:
            own.setdefault(name, descriptor.__get__(obj, type(obj)))
        except AttributeError:   # (not set)
            pass
    return own


def _set_attribute(obj, name, value):
    """Sets an instance's attribute where Python keeps it (its slot, or its `__dict__`),
    not through `__setattr__` (a frozen dataclass too)."""
    slot = _slot(type(obj), name)
    if slot is not None:
        slot.__set__(obj, value)
    else:
        vars(obj)[name] = value


def _take_own(obj, name):
    """Removes the attribute `name` that `obj` (an instance or a class) holds itself, and
    returns it (_ABSENT where it holds none)."""
    if isinstance(obj, type):
        own = vars(obj).get(name, _ABSENT)
        if own is not _ABSENT:
            delattr(obj, name)
        return own
    attributes = getattr(obj, "__dict__", None)
    return attributes.pop(name, _ABSENT) if isinstance(attributes, dict) else _ABSENT


def _may_be(value, target):
    """May graph Value `value` be `target` unchanged on some path: `target` itself, or a
    `cond` output one of whose branches gives it, or a `while` output whose loop may run
    no times with it as the initial value (through the captures of nested graphs)?"""
    while value is not target:
        node = value.node
        if node is None:   # (a placeholder: the outer value a nested graph captured)
            graph = value.graph
            outer = next((o for o, inner in graph.captured if inner is value), None) \
                if graph is not None else None
            if outer is None:
                return False
            value = outer
        elif node.op.name == "while":
            value = node.inputs[node.outputs.index(value)]
        elif node.op.name == "cond":
            j = node.outputs.index(value)
            return any(_may_be(node.attrs[branch].outputs[j], target)
                       for branch in ("then_branch", "else_branch"))
        else:
            return False
    return True


def _path_text(root, steps):
    """The place as the user writes it: `self.layers[0].W`, `self.batch.X` (a namedtuple's
    item by its field's name)."""
    text = root.name
    for n, (kind, key) in enumerate(steps):
        if kind == _ITEM and type(key) is int:
            parent = _read(root, steps[:n])
            if nest.is_namedtuple(parent) and key < len(type(parent)._fields):
                kind, key = _ATTR, type(parent)._fields[key]
        text += ".%s" % key if kind == _ATTR else "[%r]" % (key,)
    return text


class _Guards:
    """Guards that hold together. Where each says what it checks (`checked`: the paths and
    checks of _compile_places), `holds` is one function generated for all of them, so an
    object on the paths of several (`self`, `self.layers[0]`) is read once: a model's step
    checks its weights, its random generators and its flags on every call."""

    __slots__ = ("guards", "holds", "checked")

    def __init__(self, guards):
        self.guards = guards
        checked = [getattr(guard, "checked", None) for guard in guards]
        if all(c is not None for c in checked):
            paths, checks = [], []
            for guard_paths, guard_checks in checked:
                offset = len(paths)   # ("same", k) names a path of its own guard's
                paths += guard_paths
                checks += [("same", check[1] + offset) if check and check[0] == "same"
                           else check for check in guard_checks]
            self.checked = (paths, checks)
            self.holds = _compile_places(paths, checks)
        else:
            self.checked = None
            self.holds = lambda: all(guard.holds() for guard in guards)

    def what_changed(self):
        for guard in self.guards:
            if not guard.holds():
                return guard.what_changed()
        return None


def _read(root, steps):
    """What the place holds, or _ABSENT where it is gone."""
    try:
        return _get(root, steps)
    except Exception:
        return _ABSENT


def _describe(value):
    if value is _ABSENT:
        return "nothing"
    if type(value) is np.ndarray:
        return "an array of %s of rank %d" % (value.dtype, value.ndim)
    return "a %s" % type(value).__name__


def combined(guards):
    """One guard holding where all of `guards` (None among them: nothing) hold; None when
    there is none."""
    guards = [g for g in guards if g is not None]
    if not guards:
        return None
    return guards[0] if len(guards) == 1 else _Guards(guards)


# The Python iterators (generators, file objects, map objects...) and lists within reach of
# the function being traced from outside it (its arguments, closure, globals, state): {id:
# object}, per thread, while a trace is built. A trace must not consume such an iterator
# (the graph would give the items read while tracing on every call), nor append to such a
# list in a graph branch or loop body (Python appends only on the paths taken).
_outside = ThreadValue()


# The lists and dicts within reach of the function being traced whose length the trace
# read: {id: object}, per thread, while a trace is built (read_lengths).
_lengths = ThreadValue()


# How many read_lengths blocks are active in the process: [count]. Converted code's len(),
# zip()... of a list call read_length only while one is (a thread-local read costs a
# microsecond where it has no value).
READING_LENGTHS = _reading = [0]
_reading_lock = threading.Lock()


@contextlib.contextmanager
def read_lengths():
    """Context manager, while a trace is built: records the lists and dicts whose length
    the trace reads (read_length); gives the record ({id: object}) for
    StateInputs.restore, which keeps those of the function's state."""
    with _reading_lock:
        _reading[0] += 1
    try:
        with _lengths.set({}) as lengths:
            yield lengths
    finally:
        with _reading_lock:
            _reading[0] -= 1


def read_length(value):
    """A trace reads the length of `value` (a for loop over it, len(), zip(),
    enumerate()...): where it is a list or dict of the function's state, its traces hold
    for that length only (their loops over it are unrolled)."""
    if _reading[0] and type(value) in (list, dict):
        lengths = _lengths.get()
        if lengths is not None:
            lengths[id(value)] = value


class OutsideObjectError(TypeError):
    """A trace would consume an iterator, or change a list, from outside the function
    (check_iteration, check_list_change): refused whatever the function's state is."""


def _is_iterator_or_list(value):
    return type(value) is list or isinstance(value, collections.abc.Iterator)


def outside_objects(roots, arguments):
    """Context manager, while a trace is built: records the iterators and lists within
    reach of `roots` ((_Root, its value) each) and the iterators in the structures of
    `arguments`, for `check_iteration` and `check_list_change`."""
    found = [leaf for leaf in nest.flatten(arguments)
             if isinstance(leaf, collections.abc.Iterator)]
    found += [value for _, _, value in _search(roots, leaf=_is_iterator_or_list)]
    return _outside.set({id(x): x for x in found} or None)


def check_iteration(value, construct):
    """Refuses, while a trace is built, to iterate `value` (by `construct`) when it is a Python iterator from outside the function (see
    outside_iterators): tracing would consume it once, and the graph would give those
    items on every call. `construct` starts the message: "a for loop over", "next() of"."""
    read_length(value)
    found = _outside.get()
    if found and found.get(id(value)) is value and type(value) is not list:
        raise OutsideObjectError(
            "%s a Python iterator from outside the staged function (a %s): tracing "
            "would consume it once, and the graph would give those items on every call. "
            "Iterate over it outside the staged function and pass each item as an argument "
            "(a training loop calling a staged train step), or pass a list or an array of "
            "the items" % (construct, type(value).__name__))


# Methods of a list that add items at its end: the function's calls of them on a list of
# its state, outside graph branches and loops, are replayed on every call
# (StateInputs.appended); other changes would happen once, while tracing.
_APPENDING = frozenset({"append", "extend"})


def check_list_change(target, method, in_branch_or_loop):
    """Refuses, while a trace is built, to change a list from outside the function (see
    outside_objects) by `method` (a list method's name) where a graph cannot do what
    Python does: anything but an append or extend, and those too inside a graph branch or
    loop body (`in_branch_or_loop`: Python appends only on the paths it takes, which the
    graph decides when it runs)."""
    found = _outside.get()
    if not found or found.get(id(target)) is not target:
        return
    if method not in _APPENDING:
        raise OutsideObjectError(
            "list.%s() on a list from outside the staged function (held on an object, in a "
            "global or passed in): it would change the list once, while tracing, not on "
            "every call. Change the list outside the staged function; inside it, appending "
            "(list.append, list.extend) is replayed on every call" % method)
    if in_branch_or_loop:
        raise OutsideObjectError(
            "list.%s() on a list from outside the staged function (held on an object, in a "
            "global or passed in) inside a graph branch or loop (code after a `return` or "
            "`break` that a graph loop or branch may take is in one too): Python appends only "
            "on the paths it takes, which a graph decides when it runs. Append after the "
            "branch or "
            "loop (collect the values in a local list there, then `extend`), or keep the "
            "list outside the staged function" % method)


class PlaceCode:
    """Generated code reading places of the state ([(root, steps)] each), each object on a
    shared path read once (`self.layers[0]` for `self.layers[0].W` and `self.layers[0].b`),
    and testing or setting them: what _compile_places and _compile_writes generate, and
    what a trace's per-call function (runtime/trace.py) writes into its own body.

    `local(root, steps)` names a local holding the object there, appending the statements
    reading it to `lines` (a list the caller may swap between calls) and the roots'
    getters to `namespace`. Roots with one getter are one root (the trace's state and its
    value guard find the same argument, held by one weak reference). `given`: [(object,
    the name of a parameter holding it)] (a fast entry's arguments): a root held by a weak
    reference (an argument's object: fixed) to one of them is read from that parameter.
    The names it makes start with t (locals), g or p (globals)."""

    def __init__(self, namespace, lines, given=None):
        self.namespace = namespace
        self.lines = lines
        self._given = given or ()
        self._names = {}   # (id(the root's getter), steps prefix) -> the local holding it
        self._getters = {}  # id(getter) -> its name in namespace
        self._count = itertools.count()

    def _constant(self, prefix, value):
        """The name of a new global of the generated code holding `value`."""
        name = "%s%d" % (prefix, next(self._count))
        self.namespace[name] = value
        return name

    def local(self, root, steps):
        steps = tuple(steps)
        key = (id(root.get), steps)
        name = self._names.get(key)
        if name is not None:
            return name
        if not steps and type(root.get) is weakref.ref:
            obj = root.get()
            for given, name in self._given:
                if given is obj:
                    self._names[key] = name
                    return name
        name = self._names[key] = "t%d" % len(self._names)
        if not steps:
            getter = self._getters.get(id(root.get))
            if getter is None:
                getter = self._getters[id(root.get)] = "g%d" % len(self._getters)
                self.namespace[getter] = root.get
            self.lines.append("%s = %s()" % (name, getter))
            return name
        parent = self.local(root, steps[:-1])
        kind, step = steps[-1]
        if kind == _ATTR:
            if step.isidentifier() and not keyword.iskeyword(step):
                self.lines.append("%s = %s.%s" % (name, parent, step))
            else:
                self.lines.append("%s = getattr(%s, %r)" % (name, parent, step))
        else:
            self.lines.append("%s = %s[%r]" % (name, parent, step))
        return name

    def failing(self, paths, checks):
        """The tests, one per check that is not None (see _compile_places), each true where
        its place does not hold what the check expects, reading the places as needed."""
        self.namespace.update(ndarray=np.ndarray, pbound=specialise.INT_INPUT_BOUND)
        values = [self.local(root, steps) for root, steps in paths]
        tests = []
        for value, check in zip(values, checks):
            if check is None:
                continue
            kind = check[0]
            if kind == "array":
                dtype = self._constant("pd", check[1])
                tests.append("type(%s) is not ndarray or (%s.dtype is not %s and %s.dtype "
                             "!= %s) or %s.ndim != %d" % (value, value, dtype, value, dtype,
                                                          value, check[2]))
            elif kind == "number":
                tests.append("type(%s) is not %s" % (value, check[1].__name__) + (
                    " or not -pbound <= %s <= pbound" % value if check[1] is int else ""))
            elif kind == "same":
                tests.append("%s is not %s" % (value, values[check[1]]))
            elif kind == "list":
                tests.append("type(%s) is not list" % value)
            elif kind == "tuple":
                tests.append("type(%s) is not %s or len(%s) != %d" % (
                    value, self._constant("pt", check[1]), value, check[2]))
            elif kind == "value":
                constant = self._constant("pc", check[1])
                kind = self._constant("pk", type(check[1]))
                tests.append("type(%s) is not %s or not (%s is %s or %s == %s)"
                             % (value, kind, value, constant, value, constant))
                if _negative_zero_differs(check[1]):
                    # (-0.0 equals 0.0 but is another constant: x / s is -inf, not inf.)
                    tests.append("%s(1.0, %s) != %r" % (self._constant("pf", copysign), value,
                                                         copysign(1.0, check[1])))
            elif kind == "object":
                tests.append("%s is not %s()" % (value, self._constant("po", check[1])))
            elif kind == "contents":
                dtype = self._constant("pd", check[2])
                tests.append("%s is not %s() or (%s.dtype is not %s and %s.dtype != %s) or "
                             "%s.shape != %r or %s.tobytes() != %s" % (
                                 value, self._constant("po", check[1]), value, dtype, value,
                                 dtype, value, check[3], value,
                                 self._constant("pb", check[4])))
        return tests

    def write(self, paths, is_set, values):
        """Appends the statements that, per path in order, set the place to its value (the
        name of a local, of `values`) where `is_set`, or append the value to the list
        there: all the objects on the paths read first (a place set must not be on the
        path of another: StateInputs.write_paths)."""
        writes = []
        dicts = {}   # the local of an object -> the local of its __dict__
        for (root, steps), s, value in zip(paths, is_set, values):
            steps = tuple(steps)
            if not s:
                writes.append("%s.append(%s)" % (self.local(root, steps), value))
            elif not steps:
                writes.append("%s(%s)" % (self._constant("ps", root.set), value))
            else:
                parent = self.local(root, steps[:-1])
                kind, key = steps[-1]
                key = repr(key) if type(key) in (str, int) else self._constant("pk", key)
                obj = _read(root, steps[:-1])
                if kind == _ATTR and isinstance(obj, type):
                    writes.append("setattr(%s, %s, %s)" % (parent, key, value))
                    continue
                slot = _slot(type(obj), steps[-1][1]) if kind == _ATTR else None
                if slot is not None:   # (its slot's descriptor, as _set_attribute)
                    writes.append("%s.__set__(%s, %s)" % (self._constant("pm", slot),
                                                           parent, value))
                    continue
                if kind == _ATTR:
                    # (An attribute through the object's __dict__, not __setattr__, as _set.)
                    if parent not in dicts:
                        dicts[parent] = "t%d_dict" % len(dicts)
                        self.lines.append("%s = vars(%s)" % (dicts[parent], parent))
                    parent = dicts[parent]
                writes.append("%s[%s] = %s" % (parent, key, value))
        self.lines += writes


def _compile_writes(paths, is_set):
    """`write(*values)` (see StateInputs.setter): per path ([(root, steps)]) in order, sets
    the place to its value (`is_set`), or appends the value to the list there."""
    namespace = {}
    lines = []
    values = ["v%d" % i for i in range(len(paths))]
    PlaceCode(namespace, lines).write(paths, is_set, values)
    source = "def write(%s):\n" % ", ".join(values) + "".join(
        "    %s\n" % line for line in lines or ["pass"])
    exec(compile(source, "<state writes>", "exec"), namespace)
    return namespace["write"]


def _compile_places(paths, checks):
    """`holds()`: reading the places `paths` ([(root, steps)]) of the state at once, each
    object on a shared path read once (`self.layers[0]` for `self.layers[0].W` and
    `self.layers[0].b`), does every place still hold what its check expects (`checks`, per
    path: ("array", dtype, ndim), ("number", type), ("same", index of an earlier path),
    ("list",), ("tuple", type, length), ("value", value), ("object", getter of it),
    ("contents", getter of the array, its dtype, shape and bytes) or None)?

    Generated once per trace, because a guard and the state's reads run on every call of
    a model's step: read one by one (_get), 22 weights and their checks took 17 us a call,
    more than the step's graph; read at once, about 2 us."""
    namespace = {}
    lines = []
    tests = PlaceCode(namespace, lines).failing(paths, checks)
    body = ["try:"] + ["    " + line for line in lines] + [
        "except Exception:", "    return False"] if lines else []
    for test in tests:
        body += ["if %s:" % test, "    return False"]
    body.append("return True")
    source = "def holds():\n" + "".join("    %s\n" % line for line in body)
    exec(compile(source, "<state guard>", "exec"), namespace)
    return namespace["holds"]
