"""Python lists in graph code: a list appended to inside a graph loop becomes a TensorList
(a tensor array that behaves like the list of its values: len, indexing, iteration,
np.stack); lists mutated under a symbolic condition are detected, never silently
mutated at trace time."""

import numpy as np

import runtime as rt
from runtime import errors as rt_errors
from autograph.errors import StagingError
from autograph.operators.graph import common


def is_tensor_list(value):
    return isinstance(value, TensorList)


class TensorList(rt.Tensor):
    """A Python list of same-typed values held as a graph tensor array.

    A handle like rt.Tensor: `append` records a new version and rebinds the handle, so
    branches and loops carry it out like item assignments on arrays."""

    __slots__ = ("name",)

    def __init__(self, value, name=None):
        super().__init__(value)
        self.name = name

    @classmethod
    def from_elements(cls, elements, dtype, element_shape, name=None):
        array = rt.TensorArray(dtype, size=0, dynamic_size=True, element_shape=element_shape)
        for index, element in enumerate(elements):
            array = array.write(index, element)
        return cls(array.graph_value, name)

    def _unsupported(self, method):
        raise TypeError(
            "%s.%s(...) is not supported on a list built in a graph loop: there it is a tensor "
            "array, which supports append, pop, len, reading and writing items, iteration "
            "and np.stack" % (self.name or "list", method))

    def insert(self, index, element):
        self._unsupported("insert")

    def extend(self, elements):
        if rt.is_tensor(elements) or isinstance(elements, TensorList):
            self._unsupported("extend")
        for element in elements:
            self.append(element)

    def __iadd__(self, elements):
        self.extend(elements)
        return self

    def remove(self, element):
        self._unsupported("remove")

    def clear(self):
        self._unsupported("clear")

    def sort(self, *args, **kwargs):
        self._unsupported("sort")

    def reverse(self):
        self._unsupported("reverse")

    def index(self, *args):
        self._unsupported("index")

    def count(self, element):
        self._unsupported("count")

    def __delitem__(self, index):
        self._unsupported("__delitem__")

    @property
    def _array(self):
        return rt.TensorArray.from_graph_value(self.graph_value, True)

    def _check_type(self, element):
        """Python's list keeps each item's own type; a tensor array holds one dtype: an item
        of another (a Python float into a list of float32 values, a float into a list of
        ints) would come back converted."""
        found = element_type(element)
        if found is not None and found[0] != self.dtype:
            raise TypeError(_different_types_message(
                "the list '%s'" % self.name if self.name else "a list", self.dtype, found[0]))

    # -- list behaviour -------------------------------------------------------------------
    def append(self, element):
        self._check_type(element)
        array = self._array
        self.rebind(array.write(array.size(), element).graph_value)
        # (Python's list holds the array itself: a later write into it is refused.)
        rt.hold_by_value(element, "%s, a list built in a graph loop" % (self.name or "a list"))
        return None

    def pop(self, index=None):
        size = self._array.size()
        if index is None:
            index = size - 1
        else:
            index = _normalize_index(index, size)
        element = self._array.read(index)
        stacked = self.stack()
        rest = np.concatenate([stacked[:index], stacked[index + 1:]], axis=0)
        remaining = rt.TensorArray(self.dtype, size=0, dynamic_size=True,
                                   element_shape=self.graph_value.shape).unstack(rest)
        self.rebind(remaining.graph_value)
        return element

    def length(self):
        return self._array.size()

    def stack(self):
        return self._array.stack()

    def loop_length(self):
        return self.length()

    def loop_element(self, index):
        return self._array.read(index)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self.stack()[index]
        return self._array.read(_normalize_index(index, self.length()))

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            self._unsupported("__setitem__ with a slice")
        self._check_type(value)
        array = self._array
        self.rebind(array.write(_normalize_index(index, array.size()), value).graph_value)

    def __len__(self):
        raise TypeError(rt_errors.concrete_value_refusal(
            "the length of a list built in a graph loop is only known when the graph runs",
            "len(l) in a converted function gives it as a symbolic int"))

    def __iter__(self):
        raise TypeError(rt_errors.concrete_value_refusal(
            "a list built in a graph loop cannot be iterated over by Python while tracing",
            "a for loop over it in a converted function becomes a graph loop"))

    def __bool__(self):
        raise TypeError(rt_errors.concrete_value_refusal(
            "the truth value of a list built in a graph loop is only known when the graph "
            "runs", "test len(l) > 0 in a converted function instead"))

    def __array_function__(self, func, types, args, kwargs):
        args, kwargs = _stacked((args, kwargs))
        return func(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs, kwargs = _stacked((inputs, kwargs))
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __repr__(self):
        return "<list %sin a graph: %s>" % ("%s " % self.name if self.name else "",
                                            self.graph_value.type_str())


def _normalize_index(index, size):
    if rt.is_tensor(index):
        return common.select(index < 0, index + size, index)
    if index < 0:
        return size + index
    return index


def _stacked(structure):
    """`structure` with TensorLists replaced by their stacked values."""
    if isinstance(structure, TensorList):
        return structure.stack()
    if isinstance(structure, tuple) and not hasattr(type(structure), "_fields"):
        return tuple(_stacked(x) for x in structure)
    if type(structure) is list:
        return [_stacked(x) for x in structure]
    if type(structure) is dict:
        return {k: _stacked(v) for k, v in structure.items()}
    return structure


def stacked_if_list(value):
    """The stacked array of a TensorList, other values unchanged (np.stack/np.array of a
    list built in a graph loop)."""
    return value.stack() if isinstance(value, TensorList) else value


# --- Python lists meeting graph statements ----------------------------------------------

def element_type(value):
    """(dtype, shape) of a value that can be a tensor-array element, or None."""
    if rt.is_tensor(value) and not isinstance(value, TensorList):
        return value.dtype, value.static_shape
    if isinstance(value, (bool, int, float, complex, np.generic, np.ndarray)):
        array = np.asarray(value)
        return array.dtype, array.shape
    return None


def _different_types_message(what, dtype, other):
    return ("%s built in a graph holds values of different types (%s and %s): a graph holds "
            "a list as a tensor array, of one dtype, where Python keeps each item's own type "
            "(it would come back converted). Make the items one type (`float(v)`, "
            "`np.float32(v)`, `int(v)`)" % (what, _type_text(dtype), _type_text(other)))


def _type_text(dtype):
    python = {np.dtype(bool): "bool", np.dtype(np.int64): "int", np.dtype(np.float64): "float"}
    return "%s (or Python %s)" % (dtype.name, python[dtype]) if dtype in python else dtype.name


def join_element_types(types, what):
    dtypes = {t[0] for t in types}
    if len(dtypes) > 1:
        first, second = sorted(dtypes, key=str)[:2]
        raise TypeError(_different_types_message(what, first, second))
    dtype = dtypes.pop()
    shapes = [t[1] for t in types if t[1] is not None]
    if not shapes:
        return dtype, None
    shape = shapes[0]
    for other in shapes[1:]:
        if len(other) != len(shape):
            raise TypeError("%s holds values of different ranks (%s and %s); a list built in a "
                            "graph loop holds values of one rank" % (what, shape, other))
        shape = tuple(a if a == b else None for a, b in zip(shape, other))
    return dtype, shape


def to_tensor_list(python_list, extra_types, name):
    """A TensorList with the items of `python_list` (recorded in the current graph), able to
    also hold values of `extra_types`; None when the items are not numbers or arrays."""
    types = []
    for item in python_list:
        t = element_type(item)
        if t is None:
            return None
        types.append(t)
    types += list(extra_types)
    if not types:
        return None
    dtype, shape = join_element_types(types, "the list '%s'" % name)
    return TensorList.from_elements(list(python_list), dtype, shape, name)


class ListSnapshot:
    """The contents of a Python list before a branch or loop body is traced."""

    __slots__ = ("name", "target", "items")

    def __init__(self, name, target):
        self.name = name
        self.target = target
        self.items = list(target)

    def changed(self):
        return len(self.items) != len(self.target) or any(
            a is not b for a, b in zip(self.items, self.target))

    def added_types(self):
        """(dtype, shape) of the items the trace added (None if one is not a number or
        array)."""
        before = {id(item) for item in self.items}
        types = [element_type(item) for item in self.target if id(item) not in before]
        return None if any(t is None for t in types) else types

    def restore(self):
        self.target[:] = self.items


def snapshot_python_lists(state, names, blocks=()):
    """Snapshots of the Python lists among a statement's state values and in the closure
    cells of its blocks (lists mutated through methods are not assignments: the analysis
    does not list them as outputs)."""
    snapshots = [ListSnapshot(name, value) for name, value in zip(names, state)
                 if type(value) is list]
    seen = {id(s.target) for s in snapshots}
    for name, cell in common.closure_cells(*blocks, deep=True).items():
        content = common.cell_value(cell)
        if type(content) is list and id(content) not in seen:
            seen.add(id(content))
            snapshots.append(ListSnapshot(name, content))
    return snapshots


class ListChangedInBranch(StagingError):
    """A Python list was changed under a symbolic condition. An enclosing graph loop turns
    the list into a TensorList (`target`, with items of `added_types`) and traces again."""

    def __init__(self, message, target, added_types, name=None):
        super().__init__(message)
        self.target = target
        self.added_types = added_types
        self.name = name


def check_no_list_became_tensor_list(pairs, label, location):
    """Raises ListChangedInBranch for a Python list that a branch made a TensorList (a loop
    in it appended to the list): [(value before the branch, value after it)]."""
    for before, now in pairs:
        if type(before) is list and is_tensor_list(now):
            raise ListChangedInBranch(
                "the Python list '%s' is built in a loop in the %s branch of the if statement "
                "at %s, whose condition is symbolic" % (now.name, label,
                                                        rt_errors.format_location(location)),
                before, [(now.dtype, now.static_shape)])


def to_tensor_list_in(error, get_state, set_state, blocks):
    """After `error` (ListChangedInBranch) of a graph if: makes the Python list it names a
    TensorList (in the graph around the if) wherever the statement's state and its blocks'
    closure cells hold it; False if it cannot be one, or is not there."""
    values = list(get_state())
    cells = [cell for cell in common.closure_cells(*blocks, deep=True).values()
             if common.cell_value(cell) is error.target]
    if error.added_types is None or not (cells or any(v is error.target for v in values)):
        return False
    converted = to_tensor_list(error.target, error.added_types, error.name)
    if converted is None:
        return False
    for cell in cells:
        cell.cell_contents = converted
    set_state(tuple(converted if v is error.target else v for v in values))
    return True


def check_python_lists_unchanged(snapshots, label, location):
    """Raises if a branch changed one of the Python lists of its state (restoring it)."""
    for snapshot in snapshots:
        if snapshot.changed():
            types = snapshot.added_types()
            snapshot.restore()
            raise ListChangedInBranch(
                "the Python list '%s' is changed in the %s branch of the if statement at %s, "
                "whose condition is symbolic: a Python list cannot change when the graph "
                "runs. Build the list in a loop (it becomes a tensor array there) or use an "
                "array" % (snapshot.name, label, rt_errors.format_location(location)),
                snapshot.target, types, snapshot.name)


def rewrap_like(result, *branch_values):
    """A cond/loop output that was a TensorList in a branch comes back as an rt.TensorArray:
    make it a TensorList again."""
    if isinstance(result, rt.TensorArray) and result.graph_value is not None and any(
            isinstance(v, TensorList) for v in branch_values):
        return TensorList(result.graph_value)
    return result


# --- list_append / list_pop graph paths -------------------------------------------------

def list_append(target, element):
    if isinstance(target, TensorList):
        target.append(element)
        return target
    raise TypeError("'%s' object has no attribute 'append' (%r is a symbolic array, not a "
                    "list)" % ("numpy.ndarray", target))


def set_item(target, index, value):
    """`target[index] = value` on a symbolic array or a list built in a graph loop."""
    target[index] = value
    return target


def list_pop(target, index=None, opts=None):
    if isinstance(target, TensorList):
        element = target.pop(index)
        return target, element
    raise TypeError("'%s' object has no attribute 'pop' (%r is a symbolic array, not a "
                    "list)" % ("numpy.ndarray", target))
