"""rt.function: trace a Python function into a graph per input signature, run it with an
executor, return NumPy values with the nesting the function returned.

Trace key: dtype and rank of every array leaf of the arguments (also inside tuples, lists,
dicts and namedtuples; shapes only with an input_signature), the value of every Python
scalar/str/None leaf, the identity of every other object. Array leaves become placeholders,
so `x.shape[0]` is symbolic and a new length reuses the trace.
"""

import functools

import numpy as np

from runtime import nest
from runtime.executors import get_executor
from runtime.graph import Graph, building, current_graph
from runtime.tensor import Tensor, is_tensor

_PYTHON_SCALARS = (int, float, bool, str, complex, type(None))
_ARRAY = np.ndarray


class _Placeholder:
    """Marks an array leaf in a structure key."""
    __slots__ = ()


def _leaf_key(x, arrays):
    """Key of one leaf; array leaves are appended to `arrays`."""
    t = type(x)
    if t is _ARRAY:
        arrays.append(x)
        return (x.dtype, x.ndim)
    if t in _PYTHON_SCALARS:
        return (t, x)
    if isinstance(x, np.generic):
        arrays.append(x)
        return (x.dtype, -1)
    if isinstance(x, np.ndarray):
        arrays.append(x)
        return (x.dtype, x.ndim)
    if isinstance(x, tuple):
        if nest.is_namedtuple(x):
            return (t, tuple(_leaf_key(i, arrays) for i in x))
        return ("tuple", tuple(_leaf_key(i, arrays) for i in x))
    if isinstance(x, list):
        return ("list", tuple(_leaf_key(i, arrays) for i in x))
    if isinstance(x, dict):
        return ("dict", t, tuple((k, _leaf_key(v, arrays)) for k, v in x.items()))
    return ("id", id(x))


def _objects_in(x, out):
    """Non-array, non-scalar leaves (kept alive by the cache entry so ids stay valid)."""
    if isinstance(x, (tuple, list)):
        for i in x:
            _objects_in(i, out)
    elif isinstance(x, dict):
        for v in x.values():
            _objects_in(v, out)
    elif not isinstance(x, (_PYTHON_SCALARS, np.ndarray, np.generic)):
        out.append(x)
    return out


def _replace_arrays(structure, replacement):
    """`structure` with its array leaves replaced, in key order, by `replacement(array)`."""
    if type(structure) is _ARRAY or isinstance(structure, (np.ndarray, np.generic)):
        return replacement(structure)
    if nest.is_namedtuple(structure):
        return type(structure)(*[_replace_arrays(i, replacement) for i in structure])
    if isinstance(structure, tuple):
        return tuple(_replace_arrays(i, replacement) for i in structure)
    if isinstance(structure, list):
        return [_replace_arrays(i, replacement) for i in structure]
    if isinstance(structure, dict):
        return {k: _replace_arrays(v, replacement) for k, v in structure.items()}
    return structure


class ConcreteFunction:
    """One trace: `.graph` (print it), `.inputs` / `.outputs` (graph Values), callable."""

    def __init__(self, graph, arg_handles, output_structure, output_leaves, writebacks,
                 backend, owned_inputs, keepalive):
        self.graph = graph
        self.inputs = list(graph.inputs)
        self.outputs = list(graph.outputs)
        self._output_structure = output_structure
        self._output_leaves = output_leaves    # ("out", index) or ("py", object)
        self._writebacks = writebacks          # [(input index, output index)]
        self._keepalive = keepalive
        self.backend = backend
        self.executable = get_executor(backend)(graph, owned_inputs)
        run = self.executable
        owned = getattr(self.executable, "owned_outputs", [False] * len(graph.outputs))
        fixes = []
        # A returned array that is also a mutated argument's new version is returned as the
        # caller's array itself (as the plain function would return that same object).
        returned_arguments = {}
        for i, j in writebacks:
            for k, value in enumerate(graph.outputs[:len(graph.outputs) - len(writebacks)]):
                if value is graph.outputs[j]:
                    returned_arguments[k] = i
        self._returned_arguments = returned_arguments
        for i, value in enumerate(graph.outputs):
            if i in returned_arguments:
                continue
            if value.kind != "tensor":
                fixes.append((i, _stack_tensor_array))
            elif not value.shape:
                fixes.append((i, _as_scalar))
            elif not owned[i]:
                fixes.append((i, _copy_unless_input))
        self._fixes = fixes
        single = (len(output_leaves) == 1 and output_leaves[0][0] == "out"
                  and output_structure is None and not writebacks)
        if single and not fixes:
            self._call_flat = lambda inputs: run(*inputs)[0]
        elif single:
            fix = fixes[0][1]
            self._call_flat = lambda inputs: fix(run(*inputs)[0], inputs)
        else:
            self._call_flat = self._call_general

    def _call_general(self, inputs):
        outputs = self.executable(*inputs)
        for i, j in self._writebacks:
            target, new = inputs[i], outputs[j]
            if new is not target:
                np.copyto(target, new)
        if self._fixes or self._returned_arguments:
            outputs = list(outputs)
            for i, fix in self._fixes:
                outputs[i] = fix(outputs[i], inputs)
            for k, i in self._returned_arguments.items():
                outputs[k] = inputs[i]
        leaves = [outputs[x] if kind == "out" else x for kind, x in self._output_leaves]
        if self._output_structure is None:
            return leaves[0]
        return nest.pack_as(self._output_structure, leaves)

    def __call__(self, *args, **kwargs):
        arrays = []
        _leaf_key((args, kwargs), arrays)
        return self._call_flat(arrays)

    def __repr__(self):
        return "<ConcreteFunction %s>" % self.graph.name


def _as_scalar(value, inputs):
    if type(value) is np.ndarray:
        return value[()]
    return value


def _copy_unless_input(value, inputs):
    # Outputs that share storage with graph constants or variables are copied, so the
    # caller can never modify the graph's state through them.
    for x in inputs:
        if value is x:
            return value
    return np.array(value, copy=True)


def _stack_tensor_array(value, inputs):
    return value.stack()


class Function:
    """A staged callable: traces `fn` once per input signature, then runs the graph."""

    def __init__(self, fn, backend="numpy", input_signature=None):
        self.python_function = fn
        self.backend = backend
        self.input_signature = None if input_signature is None else list(input_signature)
        self.trace_count = 0
        self._cache = {}
        functools.update_wrapper(self, fn)

    def __get__(self, instance, owner):
        if instance is None:
            return self
        return _BoundFunction(self, instance)

    def _key(self, args, kwargs):
        arrays = []
        if kwargs:
            key = _leaf_key((args, kwargs), arrays)
        else:
            key = tuple([_leaf_key(a, arrays) for a in args])
        return key, arrays

    def __call__(self, *args, **kwargs):
        if current_graph() is not None:
            # Called while tracing another function: trace through it (inline).
            return self.python_function(*args, **kwargs)
        key, arrays = self._key(args, kwargs)
        try:
            concrete = self._cache.get(key)
        except TypeError:   # an unhashable Python leaf: trace every time
            concrete, key = None, None
        if concrete is None:
            concrete = self._trace(args, kwargs, key, arrays)
        elif self.input_signature is not None:
            self._check_signature(arrays)
        return concrete._call_flat(arrays)

    def get_concrete_function(self, *args, **kwargs):
        key, arrays = self._key(args, kwargs)
        try:
            concrete = self._cache.get(key)
        except TypeError:
            concrete, key = None, None
        if concrete is None:
            concrete = self._trace(args, kwargs, key, arrays)
        return concrete

    def _trace(self, args, kwargs, key, arrays):
        if self.input_signature is not None:
            specs = self._check_signature(arrays)
        else:
            specs = None
        self.trace_count += 1
        graph = Graph(getattr(self.python_function, "__name__", "function"))
        handles = []
        with building(graph):
            position = iter(range(len(arrays)))

            def placeholder(array):
                i = next(position)
                shape = (None,) * np.ndim(array)
                if specs is not None and specs[i].shape is not None:
                    shape = specs[i].shape
                handle = Tensor(graph.add_input(np.asarray(array).dtype, shape))
                handles.append(handle)
                return handle

            traced_args = _replace_arrays(args, placeholder)
            traced_kwargs = _replace_arrays(kwargs, placeholder)
            result = self.python_function(*traced_args, **traced_kwargs)

            output_values = []
            leaves = []
            from runtime.tensor_array import TensorArray
            flat = nest.flatten(result) if nest.is_nested(result) else [result]
            for leaf in flat:
                if is_tensor(leaf):
                    leaves.append(("out", len(output_values)))
                    output_values.append(graph.localize(leaf._value))
                elif isinstance(leaf, TensorArray) and leaf._value is not None:
                    leaves.append(("out", len(output_values)))
                    output_values.append(graph.localize(leaf._value))
                else:
                    leaves.append(("py", leaf))
            writebacks = []
            for i, handle in enumerate(handles):
                if handle._value is not graph.inputs[i] and isinstance(arrays[i], np.ndarray):
                    writebacks.append((i, len(output_values)))
                    output_values.append(graph.localize(handle._value))
        graph.outputs = output_values
        graph.prune_unused_queries()
        owned_inputs = [isinstance(a, np.ndarray) for a in arrays]
        keepalive = _objects_in((args, kwargs), [])
        concrete = ConcreteFunction(graph, handles, result if nest.is_nested(result) else None,
                                    leaves, writebacks, self.backend, owned_inputs, keepalive)
        if key is not None and self.input_signature is None:
            self._cache[key] = concrete
        elif key is not None:
            self._cache[key] = concrete
        return concrete

    def _check_signature(self, arrays):
        specs = nest.flatten(self.input_signature)
        if len(specs) != len(arrays):
            raise TypeError("input_signature has %d entries but the call has %d array "
                            "arguments" % (len(specs), len(arrays)))
        for spec, array in zip(specs, arrays):
            dtype = np.asarray(array).dtype
            if dtype != spec.dtype:
                raise TypeError("argument of dtype %s does not match %r" % (dtype, spec))
            if spec.shape is not None:
                shape = np.shape(array)
                if len(shape) != len(spec.shape) or any(
                        s is not None and s != d for s, d in zip(spec.shape, shape)):
                    raise ValueError("argument of shape %s does not match %r" % (shape, spec))
        return specs

    def __repr__(self):
        return "<rt.function %s>" % getattr(self.python_function, "__name__", "?")


class _BoundFunction:
    """`Function` accessed through an instance: `self` is part of the trace key."""

    def __init__(self, function, instance):
        self._function = function
        self._instance = instance
        self.python_function = function.python_function.__get__(instance)

    def __call__(self, *args, **kwargs):
        return self._function(self._instance, *args, **kwargs)

    def get_concrete_function(self, *args, **kwargs):
        return self._function.get_concrete_function(self._instance, *args, **kwargs)

    @property
    def trace_count(self):
        return self._function.trace_count


def function(fn=None, *, backend="numpy", input_signature=None):
    """Stage `fn`: `rt.function(fn)` or `@rt.function(backend=..., input_signature=...)`."""
    if fn is None:
        return lambda f: Function(f, backend=backend, input_signature=input_signature)
    return Function(fn, backend=backend, input_signature=input_signature)
