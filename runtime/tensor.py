"""rt.Tensor: the symbolic value user code sees while a function is traced.

A Tensor is a Python *handle* on an SSA value. Item assignment (`t[i] = v`) and in-place
operators on arrays record a new version and rebind the handle, so every Python alias of the
handle sees the write, as with NumPy arrays. A rank-0 tensor is a NumPy scalar (immutable:
`m -= 1` makes a new value) unless it is known to be a 0-d array: an ndarray argument of
the trace, a view `a[..., i]` made with an Ellipsis, or what a NumPy function that returns
arrays made (np.where, np.copy, np.zeros_like...: `mark_ndarray`). `t.rebind(new)`
points a handle at a new version (control flow uses it after a loop or branch);
`t.graph_value` is the version it points at now.

A tensor made by basic indexing (ints, slices, None, ...) of rank >= 1 remembers its base,
as a NumPy view does: writing to it (`out[i][j] = v`, `row = out[i]; row[j] = v`,
`out[i] += 1`) also writes the base, and reading it after the base was written reads the
base again. So do the views NumPy always makes whatever the layout (x.T, np.swapaxes,
np.moveaxis, np.expand_dims, np.squeeze, np.flip: `make_view` with a ViewLink saying how
to read the view from its base and write it back); views NumPy makes read-only
(np.broadcast_to, np.diagonal) follow their base and refuse writes with NumPy's
ValueError. (Reshape and ravel are views or copies as the memory layout decides, which a
graph does not know: their results do not track their base.)
"""

import functools
import weakref

import numpy as np

from runtime import errors, ops, path_kinds, specialise
from runtime.graph import Value, building, current_graph, literal
from runtime.markers import DYN
from runtime.ops import broadcast_shapes, prod_or_none
from runtime.ops.elementwise import UFUNC_OPS

# NumPy's functions, ufuncs and the ndarray-like methods on tensors are implemented in
# runtime/numpy_api.py, which builds Tensors and so imports this module; it plugs itself in
# here when imported (runtime/__init__.py imports it), so this module never imports it back.
_numpy_api = None


def use_numpy_api(module):
    """Called once by runtime/numpy_api.py: the module NumPy's protocols on tensors use."""
    global _numpy_api
    _numpy_api = module



def _refuse(tensor, problem, rewrite=None):
    """The TypeError for Python needing a concrete value of a symbolic tensor: `problem`,
    then where, which construct needed it and what to do (errors.concrete_value_refusal).
    Where the value was computed from Python numbers the trace made inputs, the trace
    specialises on them instead (runtime/specialise.py raises Specialise)."""
    error = TypeError(errors.concrete_value_refusal(problem, rewrite,
                                                    tracing=current_graph() is not None))
    specialise.check(tensor._value, error)
    return error


class Tensor:
    """A symbolic array or scalar: `.dtype`, `.shape`, `.static_shape`, `.ndim`."""

    __slots__ = ("_raw", "_view", "_ndarray", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, value):
        if not isinstance(value, Value):
            raise TypeError("Tensor wraps a graph Value; use rt.constant(...) to make one")
        self._raw = value
        # For views: [base Tensor, ViewLink, the base Value this handle's contents were
        # read from].
        self._view = None
        # True when a rank-0 tensor stands for a 0-d ndarray, not a NumPy scalar (see
        # mark_ndarray); rank >= 1 tensors are arrays anyway.
        self._ndarray = False

    @property
    def _value(self):
        """The current version; a view re-reads its base when the base has a new version.
        A subclass that skips Tensor.__init__ gets its value from `materialize()` on first
        use."""
        view = _view_of(self)
        if view is not None:
            base_value = view[0]._value
            link = view[1]
            if base_value is not view[2] and _usable([base_value] + list(link.values)):
                view[2] = base_value
                # Read in the innermost graph that defines the base or an index, so the new
                # contents stay usable after a branch or loop body being traced ends.
                with building(_defining_graph([base_value] + list(link.values))):
                    self._raw = link.read(base_value)
            # (A view whose index or base version a finished branch or loop body made,
            # `d = q[:, :j]` in a loop over j, `v = out[1:]` of a loop's own `out`, is read
            # no more outside it: it reads as it was, as plain handles made there do.)
        try:
            return self._raw
        except AttributeError:
            self._raw = value = self.materialize()._value
            return value

    @_value.setter
    def _value(self, value):
        self._raw = value
        view = _view_of(self)
        if view is not None:
            view[2] = view[0]._value

    @property
    def graph_value(self):
        """The graph Value (SSA version) this handle points at now."""
        return self._value

    def materialize(self):
        """The Tensor whose value a handle made without one takes on first use: subclasses
        that skip Tensor.__init__ override it (autograph's symbolic range becomes an arange
        only where it is used as an array). A plain Tensor always has a value."""
        raise AttributeError("%s has no graph value" % type(self).__name__)

    def _rt_to_value(self):
        return self._value

    def rebind(self, new):
        """Point this handle at a new version (a Tensor, Value or scalar).

        Inside a branch or loop body, the first rebind of a handle from an outer graph is
        logged in the graph being built (`graph.rebound`), so rt.cond / rt.while_loop can
        carry the new version out.
        """
        value = new if isinstance(new, Value) else ops.to_value(new)
        graph = current_graph()
        if graph is not None:
            old = self._value
            if old.graph is not graph and id(self) not in graph.rebound:
                graph.rebound[id(self)] = (self, old)
            journal = graph.journal
            if journal is not None and id(self) not in journal:
                journal[id(self)] = (self, old)
        self._value = value
        return self

    # -- types ---------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._value.dtype

    @property
    def static_shape(self):
        return self._value.shape

    @property
    def ndim(self):
        return len(self._value.shape)

    @property
    def shape(self):
        """Python ints where known, symbolic int64 scalar Tensors where not."""
        value = self._value
        return tuple(d if d is not None else _dim(value, axis) for axis, d in enumerate(value.shape))

    @property
    def size(self):
        total = prod_or_none(self._value.shape)
        if total is not None:
            return total
        size = ops.get("size").bind1([self])
        path_kinds.mark_python(size)   # (x.size is a Python int)
        return Tensor(size)

    @property
    def T(self):
        return self.transpose()

    def __repr__(self):
        return "<rt.Tensor %s>" % self._value.type_str()

    def __hash__(self):
        # (A dict key or set item computed from a Python number argument: the trace
        # specialises on it, as Python looks its value up.)
        if specialise.active():
            specialise.check(self._value, None)
        return object.__hash__(self)

    # -- things a symbolic value cannot do -----------------------------------------------
    def __bool__(self):
        raise _refuse(self, "the truth value of a symbolic tensor (%s) is not known while tracing"
                      % self._value.type_str())

    def _no_conversion(self, kind):
        raise _refuse(self, "a symbolic tensor (%s) has no %s value while tracing"
                      % (self._value.type_str(), kind),
                      "keep it a tensor (use it in arithmetic, return it) to get its value "
                      "when the graph runs")

    def __int__(self):
        self._no_conversion("int")

    def __float__(self):
        self._no_conversion("float")

    def __complex__(self):
        self._no_conversion("complex")

    def __index__(self):
        raise _refuse(self, "a symbolic tensor (%s) cannot be used as a Python int while tracing "
                      "(e.g. in range(), a shape or a list index)" % self._value.type_str(),
                      "use rt.range / rt.zeros(shape) with symbolic dims, or index a tensor "
                      "(rt.constant(values)[i]) instead of a Python list")

    def item(self, *args):
        self._no_conversion("Python scalar")

    def tolist(self):
        self._no_conversion("list")

    def __array__(self, dtype=None, copy=None):
        raise _refuse(self, "a symbolic tensor (%s) cannot be converted to a NumPy array while "
                      "tracing" % self._value.type_str(),
                      "NumPy functions that support tensors record graph ops; to index a "
                      "NumPy array with a symbolic index, wrap the array first "
                      "(rt.constant(array)[i])")

    def __len__(self):
        shape = self._value.shape
        if not shape:
            raise TypeError("len() of unsized object")
        if shape[0] is None:
            raise _refuse(self, "len() of a tensor whose first dimension is unknown while tracing",
                          "use x.shape[0] (a symbolic int)")
        return shape[0]

    def __iter__(self):
        shape = self._value.shape
        if not shape:
            raise TypeError("iteration over a 0-d tensor")
        if shape[0] is None:
            raise _refuse(self, "cannot iterate over a tensor whose first dimension is unknown "
                          "while tracing", "loop over range(x.shape[0]) instead")
        return (self[i] for i in range(shape[0]))

    # -- indexing ------------------------------------------------------------------------
    def __getitem__(self, index):
        template, dynamic = normalize_index(index)
        dynamic = [ops.to_value(d) for d in dynamic]
        result = Tensor(ops.get("get_item").bind1([self] + dynamic, index=template))
        # NumPy gives an array (with no dim left: a 0-d one) when there is an Ellipsis, a
        # scalar without one; basic indexing of an array makes a view.
        if result.ndim or Ellipsis in template:
            result._ndarray = True
            if all(d.shape == () and d.dtype != np.bool_ for d in dynamic):
                link = ViewLink(
                    lambda base: ops.get("get_item").bind1([base] + dynamic, index=template),
                    lambda base, region: ops.get("set_item").bind1(
                        [base, region] + dynamic, index=template),
                    dynamic)
                _link(result, self, link)
        return result

    def __setitem__(self, index, value):
        if value is None:
            # NumPy stores None as nan in a float array, as False in a bool one, and an
            # int array refuses it (Python's TypeError, raised where the graph runs).
            try:
                value = np.array(None, dtype=self.dtype)
            except TypeError as error:
                raise errors.mark_python_error(error)
        template, dynamic = normalize_index(index)
        self._update(lambda current: ops.get("set_item").bind1(
            [current, value] + dynamic, index=template))

    def _update(self, compute):
        """Rebind this handle to `compute(current contents)`; for a view, the new contents
        are also written into the base (re-reading the base, so its other writes stay)."""
        if _held_by_value:
            _check_not_held(self)
        if _view_of(self) is None:
            self.rebind(compute(self))
            return
        base, link, _ = self._view
        link.check_write()
        new_region = compute(Tensor(self._value))
        base._update(lambda current: link.write(current, new_region))
        self.rebind(new_region)

    # -- NumPy protocols -----------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _numpy_api.apply_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _numpy_api.apply_function(func, args, kwargs)

    # -- methods like ndarray's -----------------------------------------------------------
    def astype(self, dtype, copy=True):
        return cast(self, dtype)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return _numpy_api.reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)) or axes == (None,):
            axes = axes[0]
        return _numpy_api.transpose(self, axes or None)

    def _method(name):
        def method(self, *args, **kwargs):
            return getattr(_numpy_api, name)(self, *args, **kwargs)
        method.__name__ = name
        return method

    sum = _method("sum")
    prod = _method("prod")
    mean = _method("mean")
    min = _method("min")
    max = _method("max")
    std = _method("std")
    var = _method("var")
    any = _method("any")
    all = _method("all")
    argmin = _method("argmin")
    argmax = _method("argmax")
    cumsum = _method("cumsum")
    cumprod = _method("cumprod")
    squeeze = _method("squeeze")
    ravel = _method("ravel")
    clip = _method("clip")
    dot = _method("dot")
    swapaxes = _method("swapaxes")
    round = _method("round")
    del _method

    def __getattr__(self, name):
        # ndarray's other methods and attributes, declared by the NumPy families next to
        # their functions (runtime/numpy_api: `method`, `attribute`).
        entry = _numpy_api.ATTRIBUTES.get(name) if not name.startswith("_") else None
        if entry is None:
            if hasattr(np.ndarray, name):
                raise AttributeError("ndarray.%s is not supported on arrays in graphs yet: use "
                                     "the NumPy functions graphs compute (docs/numpy.md)" % name)
            raise AttributeError("'%s' object has no attribute '%s'"
                                 % (type(self).__name__, name))
        getter, is_property = entry
        if is_property:
            return getter(self)
        return functools.partial(getter, self)

    def copy(self, order="C"):
        # (np.copy gives an array; the method keeps a NumPy scalar a scalar.)
        copied = _numpy_api.copy(self, order)
        copied._ndarray = is_ndarray(self)
        return copied

    def flatten(self, order="C"):
        return Tensor(ops.get("flatten").bind1([self]))

    # -- operators -----------------------------------------------------------------------
    def _binary(ufunc, reflected=False):
        op = UFUNC_OPS[ufunc]
        if reflected:
            def method(self, other):
                return _apply(op, other, self)
        else:
            def method(self, other):
                return _apply(op, self, other)
        return method

    def _inplace(ufunc):
        op = UFUNC_OPS[ufunc]

        def method(self, other):
            return _apply_inplace(self, op, other)
        return method

    __add__, __radd__, __iadd__ = _binary(np.add), _binary(np.add, True), _inplace(np.add)
    __sub__, __rsub__, __isub__ = (_binary(np.subtract), _binary(np.subtract, True),
                                   _inplace(np.subtract))
    __mul__, __rmul__, __imul__ = (_binary(np.multiply), _binary(np.multiply, True),
                                   _inplace(np.multiply))
    __truediv__, __rtruediv__, __itruediv__ = (_binary(np.divide), _binary(np.divide, True),
                                               _inplace(np.divide))
    __floordiv__, __rfloordiv__, __ifloordiv__ = (
        _binary(np.floor_divide), _binary(np.floor_divide, True), _inplace(np.floor_divide))
    __mod__, __rmod__, __imod__ = (_binary(np.remainder), _binary(np.remainder, True),
                                   _inplace(np.remainder))
    __rpow__, __ipow__ = _binary(np.power, True), _inplace(np.power)
    __and__, __rand__, __iand__ = (_binary(np.bitwise_and), _binary(np.bitwise_and, True),
                                   _inplace(np.bitwise_and))
    __or__, __ror__, __ior__ = (_binary(np.bitwise_or), _binary(np.bitwise_or, True),
                                _inplace(np.bitwise_or))
    __xor__, __rxor__, __ixor__ = (_binary(np.bitwise_xor), _binary(np.bitwise_xor, True),
                                   _inplace(np.bitwise_xor))
    __lshift__, __rlshift__, __ilshift__ = (_binary(np.left_shift), _binary(np.left_shift, True),
                                            _inplace(np.left_shift))
    __rshift__, __rrshift__, __irshift__ = (
        _binary(np.right_shift), _binary(np.right_shift, True), _inplace(np.right_shift))
    __lt__, __le__ = _binary(np.less), _binary(np.less_equal)
    __gt__, __ge__ = _binary(np.greater), _binary(np.greater_equal)
    __eq__, __ne__ = _binary(np.equal), _binary(np.not_equal)
    del _binary, _inplace

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            raise TypeError("pow() with a modulo is not supported in graphs yet")
        return _apply(UFUNC_OPS[np.power], self, other)

    def __matmul__(self, other):
        return _apply(ops.get("matmul"), self, other)

    def __rmatmul__(self, other):
        return _apply(ops.get("matmul"), other, self)

    def __imatmul__(self, other):
        return _apply_inplace(self, ops.get("matmul"), other)

    def __divmod__(self, other):
        return _apply(UFUNC_OPS[np.divmod], self, other)

    def __rdivmod__(self, other):
        return _apply(UFUNC_OPS[np.divmod], other, self)

    def __neg__(self):
        return _apply(UFUNC_OPS[np.negative], self)

    def __pos__(self):
        return _apply(UFUNC_OPS[np.positive], self)

    def __abs__(self):
        if self.dtype.kind == "c" and not is_ndarray(self):
            # abs() of a complex scalar is C's hypot of its parts (NumPy's scalar math, as
            # Python's complex), which NumPy's loop for arrays is not in the last bit.
            parts = [Tensor(ops.get(name).bind1([self])) for name in ("real", "imag")]
            return _apply(UFUNC_OPS[np.hypot], *parts)
        return _apply(UFUNC_OPS[np.absolute], self)

    def __invert__(self):
        return _apply(UFUNC_OPS[np.invert], self)

    def __round__(self, ndigits=None):
        # (As Python rounds what it stands for: runtime/api.py's round_scalar.)
        return _numpy_api.round_scalar(self, ndigits)


def is_tensor(x):
    """True only for symbolic tensors."""
    return type(x) is Tensor or isinstance(x, Tensor)


def wrap(values):
    """Tensors for the outputs of an elementwise op or matmul (a single Tensor for one
    output, a tuple otherwise). (Ops with tensor-array outputs are bound by TensorArray.)"""
    if len(values) == 1:
        return Tensor(values[0])
    return tuple(Tensor(v) for v in values)


def _apply(op, *args):
    try:
        values = [ops.to_value(a) for a in args]
    except TypeError:
        return NotImplemented
    # (A Python bool is an int here: -True is -1.)
    return wrap(path_kinds.bind_python_operator(op.name, values, op.bind, _bind))


def _bind(name, inputs, **attrs):
    return ops.get(name).bind1(inputs, **attrs)


def is_ndarray(x):
    """True for a tensor that stands for an ndarray (rank >= 1, or a 0-d array: see
    mark_ndarray), false for one that stands for a NumPy scalar."""
    return x.ndim > 0 or getattr(x, "_ndarray", False)


def mark_ndarray(tensor):
    """Says that the rank-0 `tensor` stands for a 0-d ndarray, not a NumPy scalar: in-place
    operators then write it (and every alias sees the write), and a result holding it is
    returned as a 0-d array. Returns `tensor`."""
    tensor._ndarray = True
    return tensor


# Values that an augmented operator (`x += y`) was applied to as scalars (a new value, the
# name rebound), where an array would have been written in place: a graph loop whose
# variable is such a scalar when the loop starts but an array from before the loop in
# later iterations refuses it (runtime/loop_aliases.py).
augmented_scalars = weakref.WeakSet()


def _apply_inplace(target, op, other):
    """`target op= other` with NumPy's rules: NumPy scalars are immutable (a new value is
    returned); arrays, also 0-d ones, keep their dtype (same_kind casting) and shape, and
    the handle is rebound, so its aliases see the write."""
    # (A value that is a 0-d array on some paths only is written on those: path_kinds.)
    array = is_ndarray(target) or path_kinds.partly_0d_array(target._value)
    if not is_ndarray(target) and not target._value.is_literal:
        augmented_scalars.add(target._value)
    if array:
        if _held_by_value:
            _check_not_held(target)
        with path_kinds.inplace_into(target._value):
            result = _apply(op, target, other)
    else:
        result = _apply(op, target, other)
    if result is NotImplemented or not array:
        return result
    _check_inplace_result(target, op, other, result)
    if _view_of(target) is None:
        target.rebind(result if result.dtype == target.dtype else cast(result, target.dtype))
    else:
        # Recompute on the base's current contents so the write lands in the base too.
        def compute(current):
            new = _apply(op, current, other)
            return (new if new.dtype == target.dtype else cast(new, target.dtype))._value
        target._update(compute)
    return target


def _usable(values):
    """Can the graph being built, or the graphs around it, use `values`?"""
    graph = current_graph()
    return graph is None or all(v.graph is None or v.graph.is_ancestor_of(graph)
                                for v in values)


def _defining_graph(values):
    """The innermost graph, on the current chain of graphs, that defines one of `values`."""
    owners = {id(v.graph) for v in values if v.graph is not None}
    graph = current_graph()
    while graph is not None:
        if id(graph) in owners:
            return graph
        graph = graph.parent
    return current_graph()


# Array handles that a list built in a graph loop holds by value (a tensor array write
# copies the contents), where Python's list holds the array itself: {id(handle): (weak
# reference, what holds it)}. A later write into one would show in Python's list, not in
# the graph's: it is refused (_check_not_held).
_held_by_value = {}


def hold_by_value(x, holder):
    """Records that `holder` (a text: "a list built in a graph loop") keeps the contents of
    array handle `x` (and of the arrays it is a view of) as they are now."""
    while is_tensor(x) and is_ndarray(x):
        key = id(x)
        if key not in _held_by_value:
            _held_by_value[key] = (weakref.ref(x, lambda _, key=key: _held_by_value.pop(
                key, None)), holder)
        view = _view_of(x)
        x = view[0] if view is not None else None


def _check_not_held(target):
    """Refuses a write into array handle `target` that a list holds by value."""
    entry = _held_by_value.get(id(target))
    if entry is not None and entry[0]() is target:
        raise TypeError(
            "an array appended to %s, is changed in place afterwards: Python's list holds the "
            "array itself, so the change shows in it, but a graph's list holds the values "
            "appended. Append a copy (`items.append(a.copy())`) if the list should keep the "
            "values, or change the array before appending it" % entry[1])


class ViewLink:
    """How a view follows its base: `read(base Value)` records the view's contents;
    `write(base Value, the view's new contents Value)` records the base's new contents.
    `values` are the other Values `read` uses (an index's). A view that cannot be written
    has no `write`: `refusal()` is the error a write raises (NumPy's ValueError for a
    read-only view)."""

    __slots__ = ("read", "write", "values", "refusal")

    def __init__(self, read, write=None, values=(), refusal=None):
        self.read = read
        self.write = write
        self.values = tuple(values)
        self.refusal = refusal or (lambda: errors.mark_python_error(
            ValueError("assignment destination is read-only")))

    def check_write(self):
        if self.write is None:
            raise self.refusal()


def make_view(base, compute, write=None, refusal=None, values=()):
    """`compute(base)` (a Tensor function of the Tensor `base`), as a view of `base`: it
    re-reads `base` after a write to it, and a write to it writes `base` through
    `write(base Tensor, new contents Tensor)` (a Tensor of the base's shape), or raises
    `refusal()` (default: NumPy's ValueError for a read-only array) where `write` is None.
    `values`: the Values other than the base `compute` uses (symbolic sizes). A NumPy
    scalar is not written in place, so a view of one only refuses writes."""
    result = compute(base)
    if result is base:
        result = Tensor(base._value)
        result._ndarray = base._ndarray
    link = ViewLink(
        lambda value: ops.to_value(compute(_handle(value))),
        None if write is None else
        lambda value, region: ops.to_value(write(_handle(value), _handle(region))),
        values, refusal)
    _link(result, base if is_ndarray(base) else Tensor(base._value), link)
    return result


def _handle(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _link(view, base, link):
    """Makes the Tensor `view` a view of the Tensor `base` through `link`, when `base` is
    an ndarray (a NumPy scalar is rebound by `+=`, not written: nothing to follow)."""
    if is_ndarray(base) or link.write is None:
        view._view = [base, link, base._value]


def _view_of(tensor):
    try:
        return tensor._view
    except AttributeError:   # a subclass that did not run Tensor.__init__
        return None


def _check_inplace_result(target, op, other, result):
    value = result._value
    if value.dtype != target.dtype:
        if not np.can_cast(value.dtype, target.dtype, "same_kind"):
            # Let NumPy raise its own error (a UFuncTypeError) on stand-in operands.
            ufunc = getattr(np, op.name)
            stand_in = np.ones((1,) * target.ndim, dtype=target.dtype)
            with np.errstate(all="ignore"):
                ufunc(stand_in, ops.dummy(ops.to_value(other)), out=stand_in)
            raise TypeError("Cannot cast ufunc '%s' output from dtype('%s') to dtype('%s') with "
                            "casting rule 'same_kind'" % (op.name, value.dtype, target.dtype))
    combined = broadcast_shapes(target.static_shape, value.shape)
    if len(combined) != target.ndim or any(
            t is not None and c is not None and t != c
            for t, c in zip(target.static_shape, combined)):
        raise ValueError("non-broadcastable output operand with shape %s doesn't match the "
                         "broadcast shape %s" % (target.static_shape, combined))


def cast(x, dtype):
    dtype = np.dtype(dtype)
    value = ops.to_value(x)
    if value.is_literal:
        return Tensor(ops.to_value(np.asarray(value.literal).astype(dtype)[()]))
    return Tensor(ops.get("cast").bind1([value], dtype=dtype))


def is_python_scalar(x):
    """Does tensor `x` stand for a Python scalar (bool, int, float) on every path: a
    Python number argument of the trace, a range item, a shape dim, `int(t)`...
    (runtime/path_kinds.py)?"""
    return is_tensor(x) and not x.ndim and not is_ndarray(x) and path_kinds.is_python(x._value)


def as_python_scalar(x, positive=False):
    """Rank-0 tensor `x` as the Python scalar Python has where it makes one (`not t`,
    `bool(t)`, the items of `range`): a Python bool then acts as the int it is in Python
    operators (`True + True` is 2; runtime/path_kinds.py). `x` itself stays what it is.
    `positive`: the caller knows it is positive on every path (a range item counting up
    from 1: dividing by it needs no check for zero)."""
    if not is_tensor(x) or x.ndim or (path_kinds.is_python(x._value) and not positive
                                      and path_kinds.mixed(x._value) is None):
        return x
    value = x._value
    if value.is_literal:
        return Tensor(literal(value.literal.item()))
    if not path_kinds.is_python(value) or path_kinds.mixed(value) is not None:
        # (A Value of its own: one kind, the Python scalar, on every path.)
        value = ops.get("cast").bind1([value], dtype=value.dtype)
        path_kinds.mark_python(value)
    if positive:
        path_kinds.mark_positive(value)
    return Tensor(value)


def _dim(value, axis):
    """The symbolic size of `value` along `axis`, recorded once in the graph defining it."""
    graph = value.graph
    if graph is None:
        graph = current_graph()
    key = ("dim", value, axis)
    cached = graph._cache.get(key)
    if cached is None:
        with building(graph):
            cached = ops.get("dim").bind1([value], axis=axis)
        path_kinds.mark_python(cached)   # (x.shape[0] is a Python int)
        graph._cache[key] = cached
    return Tensor(cached)


def normalize_index(index):
    """(template, dynamic operands) for a NumPy-style index; see runtime/ops/indexing.py."""
    if not isinstance(index, tuple):
        index = (index,)
    template = []
    dynamic = []
    for entry in index:
        if entry is None or entry is Ellipsis:
            template.append(entry)
        elif isinstance(entry, bool):
            raise TypeError("Python bool indices are not supported in graphs yet")
        elif isinstance(entry, (int, np.integer)):
            template.append(int(entry))
        elif isinstance(entry, slice):
            parts = []
            for part in (entry.start, entry.stop, entry.step):
                if part is None:
                    parts.append(None)
                elif isinstance(part, (int, np.integer)) and not isinstance(part, bool):
                    parts.append(int(part))
                else:
                    parts.append(DYN)
                    dynamic.append(part)
            template.append(slice(*parts))
        else:
            if isinstance(entry, (list, np.ndarray)):
                entry = np.asarray(entry)
                if entry.dtype.kind not in "iub":
                    raise IndexError("arrays used as indices must be of integer (or boolean) type")
            template.append(DYN)
            dynamic.append(entry)
    return tuple(template), dynamic
