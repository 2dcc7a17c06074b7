"""rt.function: trace a Python function into a graph per input signature, run it with an
executor, return NumPy values with the nesting the function returned.

Trace key: dtype and rank of every array leaf of the arguments (also inside tuples, lists,
dicts and namedtuples; shapes only with an input_signature), the type of every Python int
and float leaf (they are inputs too: runtime/specialise.py; their value where the trace
made them static), the value of every other Python scalar/str/None leaf, the identity of
every other object. Array leaves become placeholders, so `x.shape[0]` is symbolic and a new
length reuses the trace; a new learning rate does too.
"""

import functools
import inspect
import itertools
import math
import threading
import warnings
import weakref

import numpy as np

from runtime import errors, nest, path_kinds, random_state, specialise, state_guards
from runtime.api import holds_symbolic, record_raise
from runtime.conditionals import kind_tag
from runtime.executors import get_executor
from runtime.graph import Graph, _building, building, current_graph
from runtime.tensor import Tensor, is_ndarray, is_python_scalar, is_tensor, mark_ndarray

try:   # the per-call path in C (runtime/_fastcall.c; see _staged_call)
    from runtime import _fastcall
except ImportError:   # (not built: no C compiler at install; the Python path takes all calls)
    _fastcall = None

_PYTHON_SCALARS = (int, float, bool, str, complex, type(None))
_ARRAY = np.ndarray


class NoneUnless:
    """What a traced function returns when it returns `value` where `flag` (a bool tensor,
    or a Python bool) holds and None elsewhere (a function that falls off its end on some
    paths): the staged function returns None where the flag is false."""

    __slots__ = ("value", "flag")

    def __init__(self, value, flag):
        self.value = value
        self.flag = flag


# In a trace key, the second item of a Python number's entry where it is an input.
_SYMBOLIC = "symbolic"


class _Shapes:
    """The first item of a trace key that holds the shapes of the arrays (Function.
    _static_shapes), and their label in _key_change."""

    def __repr__(self):
        return "shapes"


_SHAPES = _Shapes()
def _is_number_input(x, t):
    """Is `x` (of type `t`) a Python number that can be a graph input (specialise.py)?"""
    return (t is float or t is int) and specialise.is_number_input(x)


def _leaf_key(x, arrays, numbers=False):
    """Key of one leaf; array leaves are appended to `arrays`, and so is `x` when it is a
    Python number and `numbers` (an argument's number is an input of the trace; numbers in
    the structures arguments hold are constants, as configurations are)."""
    t = type(x)
    if t is _ARRAY:
        arrays.append(x)
        return (x.dtype, x.ndim)
    if t in _PYTHON_SCALARS:
        if numbers and _is_number_input(x, t):
            arrays.append(x)
            return (t, _SYMBOLIC)
        return (t, _constant_key(x))
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
    if _array_like(t):
        raise TypeError(
            "an argument is a %s.%s, an array-like that is not a NumPy array: a graph takes "
            "NumPy arrays (what NumPy would do with it while tracing is not what the graph "
            "does on every call); convert it before the call: np.asarray(x), or x.compute() "
            "for a Dask array" % (t.__module__, t.__qualname__))
    return (_ID, id(x))


def _refuse_array_subclasses(arrays):
    """Raises TypeError for an instance of an ndarray subclass among `arrays` (a call's),
    but np.memmap (state_guards.subclass_refusal)."""
    for a in arrays:
        if isinstance(a, np.ndarray) and state_guards.refused_subclass(a):
            raise TypeError(state_guards.subclass_refusal("an argument", a))


# The first item of the key of an object held by identity (see Function._object_types).
_ID = "id"


class _NegativeZero:
    """The key of the constant -0.0, which equals 0.0 (and hashes alike) but is not the same
    constant: x / s gives -inf for it."""

    __slots__ = ()

    def __repr__(self):
        return "-0.0"


_NEGATIVE_ZERO = _NegativeZero()


def _constant_key(x):
    """What a key holds of the Python scalar `x`, a constant of the trace: `x`, but -0.0
    as _NEGATIVE_ZERO."""
    if type(x) is float and x == 0.0 and math.copysign(1.0, x) < 0:
        return _NEGATIVE_ZERO
    return x


def _array_like(t):
    """Is type `t` an array-like of another library (Dask, CuPy, pandas, xarray, JAX:
    `__array__` or `__array_function__`), not one of the runtime's (rt.Variable)?"""
    return (hasattr(t, "__array_function__") or hasattr(t, "__array__")) and not hasattr(
        t, "_rt_to_value") and t.__module__.split(".")[0] not in ("runtime", "autograph")


def _call_key(args, kwargs, numbers):
    """(trace key, graph inputs in order) of a call; `numbers(label)` says whether the
    Python numbers of an argument (label: its position, or its keyword's name) are inputs."""
    arrays = []
    key = tuple([_leaf_key(a, arrays, numbers(i)) for i, a in enumerate(args)])
    if kwargs:
        key = ("keywords", key,
               tuple([(k, _leaf_key(v, arrays, numbers(k))) for k, v in kwargs.items()]))
    return key, arrays


def _no_numbers(label):
    return False


def _objects_in(structure):
    """Non-array, non-scalar leaves: the objects a trace key holds by identity (see
    Function._cache_trace)."""
    return [x for x in nest.flatten(structure)
            if not isinstance(x, (_PYTHON_SCALARS, np.ndarray, np.generic))]


def _python_leaf(leaf, arguments):
    """How a trace holds a returned Python object (every call returns it): an argument
    (`return self`) weakly, as the cache holds the arguments it is keyed on (the trace goes
    when the argument dies), anything else as it is."""
    if any(leaf is a for a in arguments):
        try:
            return ("weak", weakref.ref(leaf))
        except TypeError:
            pass
    return ("py", leaf)


def _forget(function_ref, object_id, ref):
    """Weakref callback: the object `object_id` of Function `function_ref()` died; its
    cache entries go (see Function._cache_trace)."""
    function = function_ref()
    if function is not None:
        function._forget_object(object_id, ref)


def _is_tuple(value):
    """A plain tuple or a namedtuple: what a tuple the function leaves in its state may be
    (made again after each run: _TupleSet)."""
    return type(value) is tuple or nest.is_namedtuple(value)


def _tuple_leaves(value):
    """The leaves of `value` through tuples (_is_tuple), depth first; [value] for
    another."""
    if not _is_tuple(value):
        return [value]
    return [leaf for item in value for leaf in _tuple_leaves(item)]


class _TupleSet:
    """The nesting of a tuple holding tensors that a traced function left in its state
    (its tuples' types; its leaves numbered, depth first: _tuple_leaves): each run sets a
    new tuple there, of the values of its leaves."""

    __slots__ = ("structure",)

    def __init__(self, value):
        count = itertools.count()

        def skeleton(x):
            return (type(x), [skeleton(i) for i in x]) if _is_tuple(x) else next(count)
        self.structure = skeleton(value)

    def text(self, leaves, constant):
        """The expression making the tuple of `leaves` (their expressions);
        `constant(value)` names a global of the generated code holding `value`."""
        def made(node):
            if type(node) is int:
                return leaves[node]
            kind, items = node
            items = "(%s)" % "".join(made(item) + ", " for item in items)
            return items if kind is tuple else "%s._make(%s)" % (constant(kind), items)
        return made(self.structure)


def _replace_arrays(structure, replacement, numbers=False):
    """`structure` with its array leaves (and itself when it is a Python number that is an
    input, when `numbers`: see _leaf_key) replaced, in key order, by `replacement(leaf)`."""
    if type(structure) is _ARRAY or isinstance(structure, (np.ndarray, np.generic)):
        return replacement(structure)
    t = type(structure)
    if numbers and t in _PYTHON_SCALARS and _is_number_input(structure, t):
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

    def __init__(self, graph, output_structure, output_leaves, writebacks, backend,
                 owned_inputs, keepalive, ndarray_outputs=(), returned=None, kinds=(),
                 state=None, state_sets=(), numbers=_no_numbers, python_outputs=()):
        self.graph = graph
        # numbers(label): are the Python numbers of that argument inputs (see _call_key)?
        self._numbers = numbers
        self.inputs = list(graph.inputs)
        self.outputs = list(graph.outputs)
        self._output_structure = output_structure
        # ("out", index), ("py", object) or ("weak", weakref to an argument)
        self._output_leaves = output_leaves
        self._writebacks = writebacks          # [(input index, output index)]
        self._returned = returned              # output index of NoneUnless's flag, or None
        # [(output index, index of the output saying its kind)]: results whose kind depends
        # on the path (runtime/path_kinds.py), and the kinds the codes stand for.
        self._kinds = list(kinds)
        self._kinds_by_code = path_kinds.kinds_by_code()
        self._keepalive = keepalive
        self.guard = None   # what holds() on the function's state, when it captured some
        # The function's state as inputs (state_guards.StateInputs), read on each call, and
        # the values it sets there: [(place, output index or None, value)].
        self._state = state
        self._state_sets = list(state_sets)
        self.backend = backend
        if backend in ("numpy", "auto") and writebacks:
            # (The interpreter computes a mutated array's new version in place where it
            # may: `self.W -= lr * dW` as Python does it, with no copy back. On auto, when
            # the interpreter runs the graph.)
            executable = get_executor(backend)(graph, owned_inputs, copied_back=writebacks)
        else:
            executable = get_executor(backend)(graph, owned_inputs)
        # A returned array that is a mutated argument's new version, or a 0-d array argument
        # itself, is returned as the caller's array (as the plain function returns that same
        # object; executors return rank-0 values as scalars, and arrays of rank >= 1 that
        # are inputs as they are).
        final_versions = {id(graph.outputs[j]): i for i, j in writebacks}
        written = {i for i, _ in writebacks}
        for i, value in enumerate(graph.inputs):
            if owned_inputs[i] and not value.shape and i not in written:
                final_versions[id(value)] = i
        returned_arguments = {}
        for k, value in enumerate(graph.outputs[:len(graph.outputs) - len(writebacks)]):
            if id(value) in final_versions:
                returned_arguments[k] = final_versions[id(value)]
        self._returned_arguments = returned_arguments
        self._ndarray_outputs = ndarray_outputs
        self._python_outputs = python_outputs
        self._single = (len(output_leaves) == 1 and output_leaves[0][0] == "out"
                        and output_structure is None and not writebacks
                        and not returned_arguments and returned is None and not kinds
                        and not state_sets)
        self._bind(executable)

    def _bind(self, executable):
        """Makes `executable` run this trace's calls: the result fixes its outputs need (by
        what it owns) and `call_arrays`. On auto, the NumPy interpreter's executable comes
        first and the compiled graph's replaces it after the first call
        (runtime/executors/numba/pending.py: `when_replaced`)."""
        graph = self.graph
        owned = getattr(executable, "owned_outputs", [False] * len(graph.outputs))
        fixes = []
        returned_outputs = {i for kind, i in self._output_leaves if kind == "out"}
        for i, value in enumerate(graph.outputs):
            if i in self._returned_arguments or i not in returned_outputs:
                continue   # (outputs only set in the state or written back: see below)
            if value.kind != "tensor":
                fixes.append((i, _stack_tensor_array))
            elif not value.shape:
                fixes.append((i, _as_ndarray if i in self._ndarray_outputs else
                              _as_python if i in self._python_outputs else _as_scalar))
            elif not owned[i]:
                fixes.append((i, _copy_unless_input))
        # The values set in the state per call: (output index, how the function holds it or
        # None) or (None, the Python value); an owned array of rank >= 1 is set as it is
        # (as the function sets the object it made), a 0-d one in its own buffer, one that
        # shares storage with a constant copied (as returned values: _copy_unless_input).
        def state_value(j, value):
            if j is not None and value is _as_ndarray and graph.outputs[j].shape != ():
                value = None if owned[j] else _copy_unless_input
            return j, value

        # (A tuple, _TupleSet: (the _TupleSet, [(output index or None, value)] of its
        # leaves.)
        state_values = [(j, [state_value(*leaf) for leaf in value])
                        if type(j) is _TupleSet else state_value(j, value)
                        for _, j, value in self._state_sets]
        self.executable = executable
        self._fixes = fixes
        self._state_values = state_values
        self._single_unfixed = self._single and not fixes and self._state is None
        # `call_arrays(*flat_arrays) -> result`: the per-call path, specialised here once so
        # a call does only what this trace needs.
        if self._single_unfixed:
            bare = getattr(executable, "single_output_call", None)   # returns output 0 unboxed
            self.call_arrays = bare if bare is not None else (
                lambda *inputs: executable(*inputs)[0])
        else:
            self.call_arrays = self._generate_call()
        when_replaced = getattr(executable, "when_replaced", None)
        if when_replaced is not None:
            when_replaced(self._bind)

    def _generate_call(self, arguments=None):
        """`call(*flat_arrays) -> result`, generated once per trace: reads the state's
        arrays, runs the executable, copies the new versions of mutated arrays into them
        (writebacks), sets what the function left in its state, and makes the result from
        the outputs (fixes, kinds, the returned structure). One function with the trace's
        choices made: a model's step calls it on every call, and a loop over those lists
        cost it 3-4 us.

        With `arguments` (types, passed, given, check, transform): a fast entry instead
        (Function._fast_entry), `entry(*args)` for positional arguments of `types` of which
        those at the positions `passed` are the graph's inputs, checking the trace's guard
        first (raising _StaleTrace where it fails); `given`: {position: argument} of the
        arguments the fast key holds by identity (a root of the state that is one of them
        is read from the argument); `check(inputs)`, if not None, is called with the list
        of those inputs before the run (an input_signature's), and `transform(result)`, if
        not None, makes what the entry returns (an output_transform). The
        guard's reads of the state are the reads of the state's arrays, and the objects
        the writes start from: a model's step reads `self.layers[0]` once a call, not
        three times, in one function, not five (holds, fetch, call, the executable's
        __call__, the writes: 9 us of a 47 us step on the interpreter)."""
        graph, state = self.graph, self._state
        n_state = len(state.places) if state is not None else 0
        n_args = len(graph.inputs) - n_state
        namespace = {"copyto": np.copyto, "pack_as": nest.pack_as, "ndarray": np.ndarray,
                     "structure": self._output_structure, "as_shown": path_kinds.as_shown,
                     "kinds_by_code": self._kinds_by_code, "stale": _StaleTrace}
        lines = []
        guard = check = transform = None
        numbers = set()   # (inputs that are Python numbers on every call: no memory of their own)
        if arguments is None:
            params = ["a%d" % i for i in range(n_args)]
            inputs = list(params)
            places = state_guards.PlaceCode(namespace, lines)
        else:
            types, passed, given, check, transform = arguments
            params = ["a%d" % i for i in range(len(types))]
            inputs = [params[i] for i in passed]
            # (The fast key holds the type of a number that is an input; the guard, that of
            # a number of the state.)
            numbers = {k for k, i in enumerate(passed) if types[i] in (float, int)}
            if self.guard is not None and state is not None:
                numbers.update(n_args + k for k, place in enumerate(state.places)
                               if type(place[2]) is not np.ndarray)
            guard = self.guard
            places = state_guards.PlaceCode(namespace, lines, given=[
                (a, params[i]) for i, a in given.items()])
        if guard is not None and guard.checked is None:
            namespace["holds"] = guard.holds
            lines += ["if not holds():", "    raise stale"]
        elif guard is not None:
            places.lines = reads = []
            failing = places.failing(*guard.checked)
            places.lines = lines
            if reads:
                lines += ["try:"] + ["    " + line for line in reads] + [
                    "except Exception:", "    raise stale"]
            lines += ["if %s:" % " or ".join("(%s)" % test for test in failing),
                      "    raise stale"] if failing else []
        if check is not None:
            namespace["check"] = check
            lines.append("check([%s])" % ", ".join(inputs))
        if n_state:
            inputs += [places.local(root, steps) for root, steps, _, _ in state.places]
        executable = self.executable
        if self._writebacks:
            # (Checked before anything runs: see _SharedInputs. The owners of the arrays
            # it writes, each its own and none another input's, as in almost every call,
            # settle it: two sets, about 1 us for a model's 22 inputs. Other inputs may
            # share theirs: `layer.inputs` is the argument x; those the graph does not
            # read, a model's last outputs it replaces, need not be checked.)
            written = sorted({i for i, _ in self._writebacks})
            read = getattr(executable, "read_inputs", range(len(inputs)))
            namespace.update(shares=_shares_memory, shared=_SharedInputs,
                             written=tuple(written))
            owners = [_owner_text(k, name, value)
                      for k, (name, value) in enumerate(zip(inputs, graph.inputs))]
            others = [o for k, o in enumerate(owners)
                      if k not in written and k in read and k not in numbers]
            lines += ["w = {%s}" % "".join(owners[k] + ", " for k in written),
                      "if (len(w) != %d%s) and shares((%s), written):" % (
                          len(written), " or not w.isdisjoint((%s))" % "".join(
                              o + ", " for o in others) if others else "",
                          "".join(s + ", " for s in inputs)),
                      "    raise shared(%r)" % graph.name]
        run_at = len(lines)   # (where the tuple `inputs` is made, if the fixes need it)
        uses_inputs = False
        reraise = getattr(executable, "reraise", None)
        if reraise is not None:   # (the interpreter's generated function, called here)
            namespace.update(run=executable.run, reraise=reraise)
            lines += ["try:", "    o = run(%s)" % ", ".join(inputs),
                      "except Exception as error:", "    reraise(error)"]
        else:
            namespace["run"] = executable
            lines.append("o = run(%s)" % ", ".join(inputs))
        for i, j in self._writebacks:
            lines += ["n = o[%d]" % j, "if n is not %s:" % inputs[i],
                      "    copyto(%s, n)" % inputs[i]]
        if self._state_sets:
            made = {}   # (one value the function left in several places is one object there)
            count = itertools.count()

            def constant(value):
                name = "v%d" % next(count)
                namespace[name] = value
                return name

            def value_of(j, value):
                nonlocal uses_inputs
                if j is None:
                    return constant(value)   # (a Python value it sets)
                if j not in made:   # (value: how the function holds it, or None)
                    if value is None:
                        made[j] = "o[%d]" % j
                    else:
                        namespace["h%d" % j] = value
                        lines.append("m%d = h%d(o[%d], inputs)" % (j, j, j))
                        made[j] = "m%d" % j
                        uses_inputs = True
                return made[j]

            values = [j.text([value_of(*leaf) for leaf in value], constant)
                      if type(j) is _TupleSet else value_of(j, value)
                      for j, value in self._state_values]
            ks = [k for k, _, _ in self._state_sets]
            paths = state.write_paths(ks)
            if paths is not None:
                places.write(*paths, values)
            else:
                namespace["write_state"] = state.setter(ks)
                lines.append("write_state(%s)" % ", ".join(values))
        returned = "return %s"
        if transform is not None:
            namespace["transform"] = transform
            returned = "return transform(%s)"
        if self._returned is not None:
            lines += ["if not o[%d]:" % self._returned, "    " + returned % "None"]
        results = {}   # output index -> the expression of the result's value
        for i, fix in self._fixes:
            if fix is _as_scalar:   # (written out: a loss, on every step)
                lines += ["r%d = o[%d]" % (i, i), "if type(r%d) is ndarray:" % i,
                          "    r%d = r%d[()]" % (i, i)]
            else:
                namespace["f%d" % i] = fix
                lines.append("r%d = f%d(o[%d], inputs)" % (i, i, i))
                uses_inputs = True
            results[i] = "r%d" % i
        for k, i in self._returned_arguments.items():
            results[k] = inputs[i]
        for i, tag in self._kinds:
            lines.append("r%d = as_shown(%s, kinds_by_code[int(o[%d])])"
                         % (i, results.get(i, "o[%d]" % i), tag))
            results[i] = "r%d" % i
        leaves = []
        for k, (kind, x) in enumerate(self._output_leaves):
            if kind == "out":
                leaves.append(results.get(x, "o[%d]" % x))
            else:
                namespace["x%d" % k] = x
                leaves.append("x%d()" % k if kind == "weak" else "x%d" % k)
        if self._output_structure is None:
            lines.append(returned % leaves[0])
        else:
            lines.append(returned % ("pack_as(structure, [%s])" % ", ".join(leaves)))
        if uses_inputs:
            lines.insert(run_at, "inputs = (%s)" % "".join(s + ", " for s in inputs))
        name = "entry" if arguments is not None else "call"
        source = "def %s(%s):\n" % (name, ", ".join(params)) + "".join(
            "    %s\n" % line for line in lines)
        exec(compile(source, "<rt.function %s %s>" % (name, graph.name), "exec"), namespace)
        return namespace[name]

    def fast_entry(self, args, passed, given, check=None, transform=None):
        """`entry(*args)` for calls like `args` (see _generate_call's `arguments`)."""
        return self._generate_call(([type(a) for a in args], passed, given, check, transform))

    def direct_entry(self):
        """(callable, translate) when the executor can be called with the flat inputs and no
        Python layer (see NumbaCompiledGraph.direct; inputs must be arrays of rank >= 1 or
        NumPy scalars), `translate(error)` giving the exception to raise; else None."""
        direct = getattr(self.executable, "direct", None)
        if not self._single_unfixed or direct is None:
            return None
        call = direct()
        return None if call is None else (call, self.executable.translate)

    def unchecked_entry(self, array):
        """The compiled code itself for calls with the one array argument `array` (see
        NumbaCompiledGraph.unchecked_entry: the caller checks dtype, rank and
        `array.flags.carray` before each call), or None."""
        unchecked = getattr(self.executable, "unchecked_entry", None)
        if not self._single_unfixed or unchecked is None:
            return None
        return unchecked(array)

    def __call__(self, *args, **kwargs):
        if not kwargs:
            for a in args:
                if type(a) is not _ARRAY:
                    break
            else:   # only plain arrays: they are the graph inputs, in order
                return self.call_arrays(*args)
        _, arrays = _call_key(args, kwargs, self._numbers)
        return self.call_arrays(*arrays)

    def __repr__(self):
        return "<ConcreteFunction %s>" % self.graph.name


class _SharedInputs(ValueError):
    """Raised by a trace's call, before it runs anything, when an array the graph changes
    in place shares memory with another of its inputs: one array passed as two arguments,
    an argument that is a view of another or of an array of the function's state, a state
    array that is a view of another (`self.V = self.W[:2]`).

    A trace holds each input as an array of its own. Python changes the one memory all of
    them see, so a read of the other input after the change sees the new contents, where
    the graph would read the old ones: a wrong answer, silently. rt.Function runs such a
    call as the plain function (Function._shared_inputs_call); a ConcreteFunction, which
    has no plain function, raises this."""

    def __init__(self, name):
        super().__init__(
            "%s %s, and its graph holds each input as an array of its own: call the staged "
            "function itself, which runs such a call as plain Python, or pass separate "
            "arrays" % (name, _SHARED_WHAT))


# A trace comparing more bytes of its state's arrays than this on every call says so
# (Function._warn_contents): a trainer holding a 16 MB data set in a tuple, which its step
# never reads, took 5.6 ms a call instead of 1.6 us.
_CONTENTS_WARN_BYTES = 2**20

# What a call does that a graph cannot (_SharedInputs, Function._shared_inputs_call).
_SHARED_WHAT = ("changes an array in place that shares memory with another of its inputs "
                "(one array passed as two arguments, or an argument or an array of its "
                "state that is a view of another)")


def _shares_memory(inputs, written):
    """Does an array of `inputs` at the positions `written` share memory with another of
    them? Called where the owner of such an array's memory (NumPy makes a view's base the
    array that owns the memory, or the buffer object it was made from) may be another
    input's too (the generated call tests that first, cheaply); np.shares_memory decides,
    so a view of the other half of an array does not count, nor one number passed twice."""
    for w in written:
        array = inputs[w]
        for k, a in enumerate(inputs):
            if k != w and isinstance(a, np.ndarray) and (
                    a is array or np.shares_memory(array, a)):
                return True
    return False


def _owner_text(k, name, value):
    """The expression, in a generated call, of the id of what owns the memory of the input
    `name` (graph input `value`, at position k): its base, or itself; for a rank-0 input
    that is not an array (a number), k, which no id is. Arrays made from two memoryview
    objects of one buffer have two owners here."""
    if value.shape:
        return "id(%s if %s.base is None else %s.base)" % (name, name, name)
    return "(id(%s if %s.base is None else %s.base) if isinstance(%s, ndarray) else %d)" % (
        name, name, name, name, k)


def _result_paths(result):
    """Each leaf's path in the function's result ("the result", "the result[0]['a']")."""
    if not nest.is_nested(result):
        return ["the result"]
    return ["the result" + path for path, _ in nest.flatten_with_paths(result)]


def _kind_tag(leaf, path):
    """For a returned value whose kind depends on the path (a bool on one path and a number
    on another, an int or a float, a 0-d array or a scalar: runtime/path_kinds.py), the
    Value saying which when the graph runs; None for others. A TypeError at trace time
    when the graph cannot say (the value combines several such joins)."""
    found = path_kinds.mixed(leaf._value)
    if found is None:
        return None
    tag = kind_tag(leaf._value, is_ndarray(leaf)) if found.tag is not None else None
    if tag is None:
        raise TypeError(path_kinds.refusal(leaf._value, path))
    return tag


def _as_scalar(value, inputs):
    if type(value) is np.ndarray:
        return value[()]
    return value


def _as_python(value, inputs):
    # A result the function holds as a Python scalar (a Python number argument, a range
    # item, what Python's operators make of them: runtime/path_kinds.py).
    return value.item() if isinstance(value, (np.generic, np.ndarray)) else value


def _as_ndarray(value, inputs):
    # A result the function holds as a 0-d array (not a NumPy scalar), in its own buffer.
    return np.array(value)


def _copy_unless_input(value, inputs):
    # Outputs that share storage with graph constants or variables are copied, so the
    # caller can never modify the graph's state through them.
    for x in inputs:
        if value is x:
            return value
    return np.array(value, copy=True)


def _stack_tensor_array(value, inputs):
    return value.stack()


_run_eagerly = False

# Held while tracing (re-entrant: a trace may trace other functions): threads trace one at
# a time; running traced functions never waits for it.
_tracing = threading.RLock()


def run_functions_eagerly(flag):
    """Debugging switch: when true, every staged function runs its Python function eagerly
    (no tracing, no graph); breakpoints and pdb work."""
    global _run_eagerly
    _run_eagerly = bool(flag)
    if _fastcall is not None:
        _fastcall.set_eager(_run_eagerly)


def functions_run_eagerly():
    """Whether staged functions currently run eagerly (see run_functions_eagerly)."""
    return _run_eagerly


def _fast_key(args, static, object_types):
    """The dispatch key of positional arguments that are all plain leaves (exact ndarrays,
    NumPy scalars, Python scalars) or objects of `object_types` (types whose instances
    the trace key holds by identity: a model, a layer), built without generic flattening;
    None otherwise. `static`: the positions whose Python numbers are constants of the
    trace (not inputs), or _ALL_STATIC.

    Per argument two items: (dtype, ndim) for an array, (dtype, -1) for a NumPy scalar,
    (type, _SYMBOLIC) for a Python number that is an input, (value, type) for another
    Python scalar, (_OBJECT, id) for an object. The order differs on purpose: a dtype
    compares equal to a Python type (np.dtype("f8") == float), never to a value paired
    with a type, nor to _SYMBOLIC, nor to _OBJECT.
    """
    key = []
    append = key.append
    i = -1
    for a in args:
        t = type(a)
        i += 1
        if t is _ARRAY:
            append(a.dtype)
            append(a.ndim)
        elif t in _KEY_SCALARS:
            if (t is float or t is int) and static is not _ALL_STATIC and i not in static \
                    and _is_number_input(a, t):
                append(t)
                append(_SYMBOLIC)
            else:
                append(_constant_key(a) if t is float else a)
                append(t)
        elif t in object_types:
            append(_OBJECT)
            append(id(a))
        elif isinstance(a, np.generic):
            append(a.dtype)
            append(-1)
        else:
            return None
    return tuple(key)


class _Object:
    """The first item of an object's entry in a fast key (see _fast_key): equal to nothing
    but itself."""

    __slots__ = ()

    def __repr__(self):
        return "object"


_OBJECT = _Object()

if _fastcall is not None:
    _fastcall.setup(np.ndarray, _building, _SYMBOLIC, _OBJECT, specialise.INT_INPUT_BOUND)


# Python scalars that can be in a fast key (hashable; str hashes are cached by Python).
_KEY_SCALARS = frozenset(_PYTHON_SCALARS)

# Function._static when every Python number is a constant of the trace (not an input).
_ALL_STATIC = None


def staging_refusal(fn, decorator="rt.function"):
    """Why `fn` cannot be staged (None if it can): calling a generator function or an
    `async def` makes an object whose body runs later, so a trace would hold one such
    object, made while tracing, and every call would return that same object."""
    if inspect.isasyncgenfunction(fn):
        kind, made, when = "an async generator function", "an async generator", "iterated"
        advice = "stage the function that iterates over it instead"
    elif inspect.iscoroutinefunction(fn):
        kind, made, when = "an async function (async def)", "a coroutine", "awaited"
        advice = "stage the computation it awaits, written as a plain function, instead"
    elif inspect.isgeneratorfunction(fn):
        kind, made, when = "a generator function", "a generator", "iterated"
        advice = ("stage the function that iterates over the generator instead (its loop "
                  "over the generator then runs while tracing)")
    else:
        return None
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    code = getattr(inspect.unwrap(fn), "__code__", None)
    where = "" if code is None else " at %s" % errors.format_location(
        (code.co_filename, code.co_firstlineno, name))
    return ("%s cannot stage %s%s, %s: calling it makes %s whose body runs only when it is "
            "%s, after the call, so a graph would return one %s made while tracing on "
            "every call. Call %s without %s, and %s"
            % (decorator, name, where, kind, made, when, made.split(" ", 1)[1], name,
               decorator, advice))


# Earlier traces kept per trace key whose guards failed (Function._retrace_stale).
_MAX_GUARDED = 8

# Traces of one function after which a warning says what keeps changing.
_WARN_AFTER = 5


def _labelled(key):
    """[(label, entry)] of a trace key made by _call_key: per argument, its position (or
    keyword's name) and its key entry."""
    if len(key) == 3 and key[0] is _SHAPES:
        return _labelled(key[1]) + [(_SHAPES, key[2])]
    if len(key) == 3 and key[0] == "keywords":
        return list(enumerate(key[1])) + list(key[2])
    return list(enumerate(key))


def _key_change(old, new, fn):
    """What differs between trace keys `old` and `new` (made by _call_key), in the user's
    terms, or None."""
    if not isinstance(old, tuple) or not isinstance(new, tuple):
        return None
    old, new = dict(_labelled(old)), _labelled(new)
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    for label, b in new:
        a = old.get(label)
        if a == b:
            continue
        if isinstance(label, int):
            what = "argument %r" % names[label] if label < len(names) else \
                "argument %d" % label
        else:
            what = "argument %r" % label
        if label is _SHAPES:
            return ("the shapes of its arrays changed (%s, then %s), and they are constants "
                    "of the trace (a recursion whose end depends on a shape needed them)"
                    % (_shapes_text(a), _shapes_text(b)))
        if a is None:
            return "%s was passed another way (by position or by keyword)" % what
        python = [len(x) == 2 and any(x[0] is t for t in _PYTHON_SCALARS) for x in (a, b)]
        if all(python) and a[0] is b[0]:
            if _SYMBOLIC in (a[1], b[1]):
                return "%s, a Python %s, is a constant of the trace (Python needed its " \
                    "value), so each value traces" % (what, a[0].__name__)
            return "%s, a Python %s, changed value (%r, then %r)" % (
                what, a[0].__name__, a[1], b[1])
        if all(python):
            return "%s changed type (a Python %s, then a Python %s)" % (
                what, a[0].__name__, b[0].__name__)
        if len(a) == 2 and len(b) == 2 and isinstance(a[0], np.dtype) \
                and isinstance(b[0], np.dtype):
            return "%s changed dtype or rank (%s of rank %s, then %s of rank %s)" % (
                what, a[0], a[1], b[0], b[1])
        return "%s changed type, structure or identity" % what
    return None


def _shapes_text(shapes):
    return "unknown" if shapes is None else ", ".join(
        str(shape) for shape in shapes if shape != ())


class _StateRefused(Exception):
    """Tracing with the function's state as inputs was refused (Function._trace_locked)."""


class _StaleTrace(Exception):
    """Raised by a fast entry whose trace's guard failed (runtime/state_guards.py)."""


def _static_labels(fn, argnums, argnames):
    """The labels (positions and keyword names) of the arguments of `fn` named in
    `argnums` and `argnames` (static_argnums=, static_argnames=)."""
    labels = set()
    try:
        parameters = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        parameters = []
    for i in ([argnums] if isinstance(argnums, int) else argnums):
        labels.add(i)
        if 0 <= i < len(parameters):
            labels.add(parameters[i])
    for name in ([argnames] if isinstance(argnames, str) else argnames):
        labels.add(name)
        if name in parameters:
            labels.add(parameters.index(name))
        elif parameters:
            raise ValueError("static_argnames names %r, which is not a parameter of %s"
                             % (name, getattr(fn, "__qualname__", fn)))
    return frozenset(labels)


def _unset(*args, **kwargs):
    raise TypeError("rt.Function called before it was initialised")


def _staged_call(self):
    """(call, forget): the per-call path of Function `self` (see Function), a callable
    closing over `self`, installed as the function of the functools.partial that `self`
    is; and forget(fast_key=None), which drops a record of the fast table, or all.

    Where the C extension runtime._fastcall is built, that callable is a FastCall: a call
    with the last signature seen (positional arguments with the same fast key) calls that
    signature's entry with no Python frame (runtime/_fastcall.c says what it checks); every
    other call is `__call__` below, which tells the FastCall the signatures it finds in the
    fast table. Without the extension, `__call__` takes every call, with the same results.
    The FastCall forgets its signature whenever the table drops or replaces a record, or
    the keys change (`_specialise`): it calls a record only where `__call__` would.

    Threads: the fast table holds one record per signature, written as one dict item; the
    FastCall's last signature is replaced as a whole under the GIL."""

    def forget(fast_key=None):
        """Drops the record of `fast_key` (its executable changed: see when_compiled), or
        all records."""
        if fast_key is None:
            self._fast.clear()
        else:
            self._fast.pop(fast_key, None)
        if fast is not None:
            fast.forget()

    def failed(error, record, args):
        """The call of `args` whose fast-table entry (in `record`) raised `error`, called
        outside the handler of `error`: as Python raises the user's exception, with no
        context."""
        if type(error) is _StaleTrace:   # (its guard failed: the general path traces again)
            for key, value in list(self._fast.items()):
                if value is record:
                    forget(key)
            return __call__(*args)
        if type(error) is _SharedInputs:
            return self._shared_inputs_call(args, {})
        translate = record[-1]
        # (A direct call into compiled code: the error to raise for its own.)
        translated = None if translate is None else translate(error)
        if translated is None:
            translated = error
        if self._on_error is not None:
            self._on_error(translated)
        raise translated

    def __call__(*args, **kwargs):
        if not (kwargs or _building or _run_eagerly):
            if len(args) == 1 and type(args[0]) is _ARRAY:
                a = args[0]
                fast_key = (a.dtype, a.ndim)
                record = self._fast.get(fast_key)
                entry = None
                if record is not None:
                    entry = record[1]
                    if entry is None or not a.flags.carray:
                        entry = record[0]
            else:
                fast_key = _fast_key(args, self._static, self._object_types)
                record = self._fast.get(fast_key)
                # (None: a new signature, or no fast key)
                entry = None if record is None else record[0]
            if entry is not None:
                if fast is not None:
                    fast.remember(args, fast_key, record)
                try:
                    return entry(*args)
                except Exception as error:
                    failure = error
                return failed(failure, record, args)
        elif _run_eagerly:
            return self._eager_call(args, kwargs)
        elif current_graph() is not None:
            # Called while this thread traces another function: trace through it (inline).
            # (Another thread tracing changes nothing here.)
            return self._inline_call(args, kwargs)
        # The general path, in the same frame (a traceback through a staged function shows
        # one entry): keywords, nested arguments, other objects, new signatures, and calls
        # where the guard of the trace failed.
        try:
            key, arrays = self._key(args, kwargs)
            try:
                concrete = self._cache.get(key)
            except TypeError:   # an unhashable Python leaf: trace every time
                concrete, key = None, None
            if concrete is not None and concrete.guard is not None \
                    and not concrete.guard.holds():
                # An array the trace captured was rebound (runtime/state_guards.py).
                concrete = self._retrace_stale(args, kwargs, key, arrays, concrete)
                if fast is not None:
                    fast.forget()   # (it may hold the stale trace)
            if concrete is None:
                static = self._static
                concrete = self._trace(args, kwargs, key, arrays)
                if self._static is not static:   # (the trace specialised on numbers)
                    key, arrays = self._key(args, kwargs)
            elif self.input_signature is not None:
                self._check_signature(arrays)
            try:
                result = concrete.call_arrays(*arrays)
            except _SharedInputs:
                return self._shared_inputs_call(args, kwargs)
            if key is not None and not kwargs and not self._static_shapes:
                fast_key = self._fast_key_of(args, key)
                if fast_key is not None:
                    new = fast_key not in self._fast
                    record = self._fast[fast_key] = self._fast_record(concrete, args)
                    if fast is not None:
                        fast.forget()   # (it may hold the record this one replaces)
                    when_compiled = getattr(concrete.executable, "when_compiled", None)
                    if new and record[-1] is None and when_compiled is not None:
                        # Compiling in the background: once it is done, the next call
                        # makes the record again, with the compiled code's direct entry.
                        when_compiled(functools.partial(forget, fast_key))
            if self.output_transform is not None:
                result = self.output_transform(result)
            return result
        except Exception as error:
            if self._on_error is None:
                raise
            self._on_error(error)
            raise

    fast = None if _fastcall is None else _fastcall.FastCall(__call__, failed)
    return (__call__ if fast is None else fast), forget


class Function(functools.partial):
    """A staged callable: traces `fn` once per input signature, then runs the graph.

    A functools.partial subclass: calling it runs `_staged_call(self)` with no Python layer
    in between. The per-call path: when every argument is positional and a plain leaf
    (exact ndarray, NumPy scalar, Python scalar, or an object the traces hold by identity)
    and no graph is being built, the key is a flat tuple built without generic flattening
    (`_fast_key`; one array: `(dtype, ndim)`, and before that, in C, a test against the
    last signature seen: runtime/_fastcall.c), one dict lookup finds the trace's entry,
    and the entry calls the compiled graph (for
    the Numba executor often the Numba dispatcher itself: `ConcreteFunction.direct_entry`;
    its errors are translated by `failed`). Everything else (keywords, nested
    structures, other objects, the first call of a signature) takes the general path,
    which also fills the fast table.

    Hooks for wrappers that subclass it (ag.function), so that they add no call layer:
      `_function_to_trace()`       the function traced (default: `python_function`);
      `_inline_call(args, kwargs)`  called instead when invoked while another graph is built
                                   (default: run `python_function`, its ops join that graph);
      `_eager_call(args, kwargs)`   called instead while functions run eagerly (default:
                                   `python_function`);
      `_on_error(error)`            if set, called with an exception from tracing or running
                                   (must raise); default None: the exception propagates;
      `output_transform`            if set, applied to every result (set it while tracing:
                                   entries made after it is set apply it).
    """

    _on_error = None
    _warned = False   # (the warning after _WARN_AFTER traces was given)
    _warned_shared = False   # (the warning of _shared_inputs_call was given)
    _warned_contents = False   # (the warning of _warn_contents was given)
    _stale_because = None   # (while a failed guard traces again: what changed)
    output_transform = None
    # Are the arrays of the function's state (its arguments' attributes, closure, globals)
    # inputs of its traces (runtime/state_guards.py)? Functional code written for rt
    # states them with rt.constant / rt.Variable: there they are constants, guarded where
    # they sit and by their contents (state_guards.ConstantsGuard).
    state_inputs = False
    # ... and its Python numbers too (until a trace needs the value of one: then they are
    # constants, guarded by value)?
    _state_numbers = True
    # Are the shapes of array arguments constants of the traces, in their keys (after a
    # trace recursed without end on symbolic shapes: runtime/specialise.py)? Those calls
    # then take the general path (no entry in the fast table, whose keys hold ranks).
    _static_shapes = False
    # Are instances of ndarray subclasses (np.matrix, np.ma.MaskedArray, a user's) taken as
    # the arrays they hold? rt's functions take them as tf.function converts its inputs;
    # ag.function, whose results are Python's, refuses those whose operations differ
    # (_refuse_array_subclasses).
    array_subclasses = True

    def __new__(cls, *args, **kwargs):
        del args, kwargs   # __init__'s
        # A functools.partial whose function is the per-call path: a C-level __call__
        # forwarding to a FastCall or one plain function (see _staged_call). It closes
        # over the instance,
        # so it is installed once the instance exists (__setstate__ replaces the function).
        self = super().__new__(cls, _unset)
        call, forget = _staged_call(self)
        self.__setstate__((call, (), None, None))
        self._forget_fast = forget   # (forget(): drops the fast table's records)
        return self

    def __init__(self, fn, backend="numpy", input_signature=None, static_argnums=(),
                 static_argnames=()):
        refusal = staging_refusal(fn)
        if refusal is not None:
            raise TypeError(refusal)
        # (First: it copies the attributes of `fn` too, which those set below must not
        # take from it: a staged callable object's own `backend`, an ag gradient's.)
        functools.update_wrapper(self, fn)
        self.python_function = fn
        self.backend = backend
        self.input_signature = None if input_signature is None else list(input_signature)
        self.trace_count = 0
        self._cache = {}
        self._guarded = {}   # key -> earlier traces whose guards failed (_retrace_stale)
        # The labels (positions, keyword names) of the arguments whose Python numbers are
        # constants of the trace, not inputs (runtime/specialise.py): those named static,
        # and those a trace needed the values of; _ALL_STATIC for all of them (also with an
        # input_signature, which lists the inputs).
        self._static = _ALL_STATIC if input_signature is not None else \
            _static_labels(fn, static_argnums, static_argnames)
        # Objects that keys of _cache hold by identity, held weakly (see _cache_trace):
        # id -> (weakref, the keys holding it); key -> the ids of the objects it holds.
        self._watched = {}
        self._key_objects = {}
        # The types of the objects (not arrays, scalars nor containers) that trace keys
        # hold by identity, seen as positional arguments: _fast_key keys them by id.
        self._object_types = set()
        # _fast_key(args) -> (entry, unchecked, translate): entry(*args) returns the result;
        # unchecked is the compiled code for one C-contiguous, aligned, writeable array
        # (see ConcreteFunction.unchecked_entry) or None; translate(error) gives the
        # exception to raise when entry calls compiled code directly, else None.
        self._fast = {}

    def __get__(self, instance, owner):
        if instance is None:
            return self
        return BoundFunction(self, instance)

    def __reduce__(self):
        # Pickled by reference, like the function it stages: unpickling finds it by name in
        # its module (as multiprocessing needs). Traces and compiled code are not pickled.
        return self.__qualname__

    def _key(self, args, kwargs):
        key, arrays = _call_key(args, kwargs, self._numbers)
        if not self.array_subclasses:
            _refuse_array_subclasses(arrays)
        if self._static_shapes:
            # (The shapes of the arrays are constants of the trace: runtime/specialise.py.)
            key = (_SHAPES, key, tuple([getattr(a, "shape", ()) for a in arrays]))
        return key, arrays

    def _numbers(self, label):
        """Are the Python numbers of the argument `label` (a position or a keyword's name)
        inputs of the trace?"""
        static = self._static
        return static is not _ALL_STATIC and label not in static

    def _specialise(self, labels):
        """Makes the Python numbers of the arguments `labels` (or all: specialise.ALL)
        constants of later traces (runtime/specialise.py)."""
        if labels is specialise.ALL or self._static is _ALL_STATIC:
            self._static = _ALL_STATIC
        else:
            self._static = self._static | labels
        self._forget_fast()   # (the keys of its numbers changed: the records are unreachable)

    def _warn_after_many_traces(self, key):
        """After _WARN_AFTER traces, once: a RuntimeWarning naming the argument whose
        change made the last one, and what changed (as tf.function warns)."""
        if self.trace_count != _WARN_AFTER or self._warned:
            return
        self._warned = True
        name = getattr(self.python_function, "__qualname__", "function")
        reason = self._stale_because or "its state changed, or a cache entry was dropped"
        others = [k for k in list(self._cache) if isinstance(k, tuple) and k != key] \
            if isinstance(key, tuple) and self._stale_because is None else []
        if others:   # (the nearest: the fewest arguments differ)
            entries = dict(_labelled(key))

            def differing(other):
                other = dict(_labelled(other))
                return sum(other.get(label) != entry for label, entry in entries.items())
            reason = _key_change(min(others, key=differing), key,
                                 self.python_function) or reason
        warnings.warn(
            "%s has been traced %d times: %s. Each trace takes time (and on numba a "
            "compile): keep the dtype and rank of array arguments, and the type of number "
            "arguments, the same; a number Python needs the value of (a list index, a "
            "size) traces per value" % (name, self.trace_count, reason),
            RuntimeWarning, stacklevel=errors.user_stacklevel())

    def _retrace_stale(self, args, kwargs, key, arrays, stale):
        """The trace for a call where `stale`, the cached trace, captured an array that its
        place (`layer.W`) no longer holds, or a number of the state another value: an
        earlier trace of the key whose guard holds (a value that comes back, as an epoch
        counter's parity does; the last _MAX_GUARDED are kept), else traced again (once,
        when threads race)."""
        with _tracing:
            concrete = self._cache.get(key)
            if concrete is not stale and concrete is not None:
                return concrete
            earlier = self._guarded.setdefault(key, [])
            for i, other in enumerate(earlier):
                if other.guard.holds():
                    earlier[i] = stale
                    self._cache[key] = other
                    return other
            self._cache.pop(key, None)
            earlier.insert(0, stale)
            del earlier[_MAX_GUARDED:]
            self._stale_because = stale.guard.what_changed()
            try:
                return self._trace_locked(args, kwargs, key, arrays)
            finally:
                self._stale_because = None

    def _fast_key_of(self, args, key):
        """The fast key of positional arguments `args` whose trace key is `key`, None where
        the fast table cannot hold it. An object in it is keyed by its id, as in the trace
        key, only while the function watches it (it is then weakly referenced, and its
        death drops the records keyed by its id: _drop_fast); a call with an object that
        cannot be weakly referenced takes the general path."""
        for a, entry in zip(args, key):
            if type(entry) is tuple and entry[0] is _ID:
                watched = self._watched.get(id(a))
                if watched is None or watched[0]() is not a:
                    return None
                self._object_types.add(type(a))
        return _fast_key(args, self._static, self._object_types)

    def _drop_fast(self, object_id):
        """Drops the fast table's records keyed by the object `object_id` (it died, or is
        not watched any more: its id may become another object's)."""
        for fast_key in list(self._fast):
            if any(fast_key[i] is _OBJECT and fast_key[i + 1] == object_id
                   for i in range(0, len(fast_key), 2)):
                self._forget_fast(fast_key)

    def _fast_record(self, concrete, args):
        """The fast table's record for calls with the same fast key as `args` (see
        __init__): (entry, unchecked, translate)."""
        entry, translate = self._fast_entry(concrete, args)
        unchecked = None
        if len(args) == 1 and type(args[0]) is _ARRAY and translate is not None:
            unchecked = concrete.unchecked_entry(args[0])
        return entry, unchecked, translate

    def _fast_entry(self, concrete, args):
        """(entry, translate): entry(*args) -> result for calls with the same fast key as
        `args`, passing the arrays and the Python numbers that are inputs (other Python
        scalars are constants of the trace) to the graph; translate(error) -> exception to
        raise, when entry calls compiled code directly (else None). A trace with a guard
        (runtime/state_guards.py) checks it first, and raises _StaleTrace where it fails
        (the caller takes the general path); an input_signature is checked, and an
        output_transform applied, in the entry too (ConcreteFunction.fast_entry)."""
        run = concrete.call_arrays
        arrays = [i for i, a in enumerate(args)
                  if type(a) not in _KEY_SCALARS and type(a) not in self._object_types
                  or type(a) in _KEY_SCALARS and self._numbers(i)
                  and _is_number_input(a, type(a))]
        check = self.input_signature is not None
        transform = self.output_transform
        guard = concrete.guard
        if len(arrays) == len(args) and not check and transform is None and guard is None:
            # 0-d arrays go through the executor's Python layer (it makes them scalars).
            if not any(type(a) is _ARRAY and a.ndim == 0 for a in args):
                direct = concrete.direct_entry()
                if direct is not None:
                    return direct
            return run, None
        # (The guard's reads and checks, the state's and the run in one function.)
        given = {i: a for i, a in enumerate(args) if type(a) in self._object_types}
        return concrete.fast_entry(args, arrays, given,
                                   self._check_signature if check else None, transform), None

    def _eager_call(self, args, kwargs):
        return self.python_function(*args, **kwargs)

    def _shared_inputs_call(self, args, kwargs):
        """A call whose arrays share memory where the graph changes one in place
        (_SharedInputs): runs the plain function, as the graph's answer could differ from
        Python's. Warns once: the call is as slow as Python."""
        if not self._warned_shared:
            self._warned_shared = True
            warnings.warn(
                "%s %s, so the call runs as plain Python: a graph holds each input as an "
                "array of its own, and would read the old contents of the other. Pass "
                "separate arrays (a copy), or keep no view of a changed array in the state, "
                "to run the graph" % (getattr(self.python_function, "__qualname__",
                                              "the function"), _SHARED_WHAT),
                RuntimeWarning, stacklevel=errors.user_stacklevel())
        return self._eager_call(args, kwargs)

    def _inline_call(self, args, kwargs):
        return self.python_function(*args, **kwargs)

    def _function_to_trace(self):
        return self.python_function

    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments (tracing if needed): `.graph`, `.inputs`,
        `.outputs`, callable with the same arguments."""
        try:
            key, arrays = self._key(args, kwargs)
            try:
                concrete = self._cache.get(key)
            except TypeError:
                concrete, key = None, None
            if concrete is None:
                concrete = self._trace(args, kwargs, key, arrays)
            return concrete
        except Exception as error:
            if self._on_error is None:
                raise
            self._on_error(error)
            raise

    def _trace(self, args, kwargs, key, arrays):
        # One trace at a time in the process: tracing is rare and short next to running,
        # and the converted code's trace-time bookkeeping is shared (see _tracing).
        with _tracing:
            if key is not None:
                # Another thread may have traced this signature while this one waited.
                concrete = self._cache.get(key)
                if concrete is not None:
                    if self.input_signature is not None:
                        self._check_signature(arrays)
                    return concrete
            return self._trace_locked(args, kwargs, key, arrays)

    def _trace_locked(self, args, kwargs, key, arrays):
        while True:
            try:
                return self._trace_state(args, kwargs, key, arrays)
            except specialise.Specialise as needed:
                # Python needed the value of a Python number argument: the trace is made
                # again with it a constant (its value then in the key: the guard); of a
                # number of the state: the state's numbers are constants (guarded).
                self.trace_count -= 1
                if needed.shapes:
                    self._static_shapes = True
                    self._forget_fast()
                labels = needed.labels
                if labels is specialise.ALL or any(type(label) is tuple for label in labels):
                    self._state_numbers = False
                    if labels is not specialise.ALL:
                        labels = frozenset(l for l in labels if type(l) is not tuple)
                self._specialise(labels)
                key, arrays = self._key(args, kwargs)
                try:
                    concrete = self._cache.get(key)
                except TypeError:   # (an unhashable Python leaf: not cached)
                    concrete, key = None, None
                if concrete is not None:
                    return concrete

    def _trace_state(self, args, kwargs, key, arrays):
        if not self.state_inputs:
            return self._trace_with(args, kwargs, key, arrays, state_inputs=False)
        try:
            return self._trace_with(args, kwargs, key, arrays, state_inputs=True)
        except _StateRefused as refused:
            # The function does with its state what a graph cannot (a NumPy function with
            # no graph op, on a weight): its state is read while tracing, as constants, and
            # each array in reach of it is guarded where it sits.
            self.trace_count -= 1
            warnings.warn(
                "%s: its state is read while tracing, as constants (a call finding an "
                "array of it rebound or changed in place traces again), because the graph "
                "refused it as an input: %s" % (
                    getattr(self.python_function, "__qualname__", "function"),
                    str(refused.__cause__).split("\n")[0]), RuntimeWarning,
                stacklevel=errors.user_stacklevel())
            return self._trace_with(args, kwargs, key, arrays, state_inputs=False,
                                    refused=str(refused.__cause__).split("\n")[0])

    def _trace_with(self, args, kwargs, key, arrays, state_inputs, refused=None):
        if self.input_signature is not None:
            specs = self._check_signature(arrays)
        else:
            specs = None
        self.trace_count += 1
        self._warn_after_many_traces(key)
        graph = Graph(getattr(self.python_function, "__name__", "function"))
        handles = []
        numbers = {}   # {the Value of a Python number argument: its label}
        with building(graph):
            position = iter(range(len(arrays)))

            def placeholder(array, label):
                i = next(position, None)   # (None: a number of the state)
                if type(array) is int or type(array) is float:
                    # A Python number: a weakly typed scalar (runtime/specialise.py).
                    value = graph.add_input(np.dtype(np.int64 if type(array) is int
                                                     else np.float64), ())
                    path_kinds.mark_python(value)
                    numbers[value] = label
                    handles.append(Tensor(value))
                    return handles[-1]
                shape = np.shape(array) if self._static_shapes else (None,) * np.ndim(array)
                if specs is not None and specs[i].shape is not None:
                    shape = specs[i].shape
                handle = Tensor(graph.add_input(np.asarray(array).dtype, shape))
                if isinstance(array, np.ndarray):
                    mark_ndarray(handle)   # a 0-d array argument is mutable, as arrays are
                handles.append(handle)
                return handle

            traced_args = tuple([
                _replace_arrays(a, functools.partial(placeholder, label=i), self._numbers(i))
                for i, a in enumerate(args)])
            traced_kwargs = {
                k: _replace_arrays(v, functools.partial(placeholder, label=k), self._numbers(k))
                for k, v in kwargs.items()}
            state = None
            if state_inputs:
                # The arrays of the function's state are inputs too (runtime/state_guards.py).
                def state_input(array, k):
                    if not isinstance(array, np.ndarray):   # (a Python number)
                        placeholder(array, ("state", k))
                        return handles[-1], len(handles) - 1
                    # (Of its dtype and rank, as an argument: another size reuses the trace.)
                    handle = Tensor(graph.add_input(array.dtype, (None,) * array.ndim))
                    mark_ndarray(handle)
                    handles.append(handle)
                    return handle, len(handles) - 1
                state = state_guards.StateInputs.swap_in(
                    state_guards.roots_of(self.python_function, args, kwargs),
                    state_input, numbers=self._state_numbers,
                    subclasses=self.array_subclasses)
            # (Random draws find their generators from the function's roots, and are
            # guarded where they sit: runtime/random_state.py.)
            draws = random_state.tracing(self.python_function, args, kwargs)
            iterators = state_guards.outside_objects(
                state_guards.roots_of(self.python_function, args, kwargs), (args, kwargs))
            # (The arrays of the state the trace holds as constants, all of them for
            # rt.function and where the graph `refused` the state as inputs, are read-only
            # while it is traced.)
            read_only = state_guards.ReadOnly(
                state_guards.roots_of(self.python_function, args, kwargs),
                getattr(self.python_function, "__qualname__", "function"),
                refused, inputs=self.state_inputs)
            try:
                with specialise.inputs(numbers), draws, iterators, read_only, \
                        state_guards.read_lengths() as lengths:
                    result = self._function_to_trace()(*traced_args, **traced_kwargs)
            except Exception as error:
                read_only.check(error)   # (NumPy refused to write into one: refused)
                if state is not None:
                    state.restore(is_tensor, finished=False)
                recursed = isinstance(error, RecursionError)
                shapes = recursed and not self._static_shapes and any(
                    None in v.shape for v in graph.inputs)
                # (A gradient through an op without a derivative rule is no better with
                # the numbers, shapes or state constants: it is raised as it is.)
                final = isinstance(error, errors.NotDifferentiableError)
                if (numbers or shapes) and not isinstance(error, specialise.Specialise) and (
                        self._refusal(error) or recursed) and not final:
                    # Refused, or recursing without end (a base case testing a number or a
                    # shape), with Python numbers or shapes as inputs: traced again with
                    # them constants.
                    raise specialise.Specialise(specialise.ALL if numbers else frozenset(),
                                                error, shapes=shapes) from error
                if isinstance(error, specialise.Specialise):
                    raise
                if state is not None and self._refusal(error) and state.places and not final \
                        and not isinstance(error, state_guards.OutsideObjectError):
                    raise _StateRefused() from error
                if not self._raise_when_run(graph, error):
                    raise
                # Not cached: the next call traces again, as Python runs it again.
                key, result = None, None
                state_left = []
            else:
                state_left = state.restore(is_tensor, lengths=lengths) \
                    if state is not None else []
            returned = None
            if isinstance(result, NoneUnless):
                result, returned = (result.value, result.flag) if result.flag is not False \
                    else (None, None)
                if not is_tensor(returned):
                    returned = None

            output_values = []
            returned_outputs = {}   # id(tensor) -> its output index
            leaves = []
            key_objects = _objects_in((args, kwargs))
            ndarray_outputs = set()   # rank-0 outputs that the function holds as 0-d arrays
            python_outputs = set()    # ... and those it holds as Python scalars
            from runtime.tensor_array import TensorArray
            flat = nest.flatten(result) if nest.is_nested(result) else [result]
            kind_tags = []   # (output index, its kind tag): see _kind_tag
            for path, leaf in zip(_result_paths(result), flat):
                if is_tensor(leaf):
                    tag = _kind_tag(leaf, path)
                    if tag is not None:
                        kind_tags.append((len(output_values), tag))
                    leaves.append(("out", len(output_values)))
                    returned_outputs.setdefault(id(leaf), len(output_values))
                    if is_ndarray(leaf):
                        ndarray_outputs.add(len(output_values))
                    elif tag is None and is_python_scalar(leaf):
                        python_outputs.add(len(output_values))
                    output_values.append(graph.localize(leaf._value))
                elif isinstance(leaf, TensorArray) and leaf._value is not None:
                    leaves.append(("out", len(output_values)))
                    output_values.append(graph.localize(leaf._value))
                else:
                    leaves.append(_python_leaf(leaf, key_objects))
            kinds = []
            for index, tag in kind_tags:
                kinds.append((index, len(output_values)))
                output_values.append(graph.localize(tag))
            if returned is not None:   # (NoneUnless's flag: after the result's outputs)
                output_values.append(graph.localize(returned._value))
                returned = len(output_values) - 1
            # What the function left in the places of its state: another value there is
            # set there after each run, as the function sets it (`self.W = self.W - d`).
            state_sets = []   # (place, output index or None, value)
            # id(tensor) -> its output index: a returned array the function also left in
            # its state is one output (one object in both, as in Python).
            left_outputs = dict(returned_outputs)

            def left_value(left):
                """(output index, how the function holds it) of a tensor it left."""
                if id(left) not in left_outputs:
                    left_outputs[id(left)] = len(output_values)
                    output_values.append(graph.localize(left._value))
                return left_outputs[id(left)], (
                    _as_ndarray if is_ndarray(left) else
                    _as_python if is_python_scalar(left) else None)

            for k, left in enumerate(state_left):
                index = state.input_of(k)
                if index is not None and left is handles[index] \
                        and k not in state.set_itself or k in state.kept:
                    continue
                if is_tensor(left):
                    state_sets.append((k,) + left_value(left))
                    continue
                # (A tuple holding tensors, `self.params = (W - d, b)`: a new tuple of
                # their arrays, made after each run, as Python makes one.)
                parts = _tuple_leaves(left)
                tensors = [is_tensor(leaf) for leaf in parts]
                if any(holds_symbolic(leaf) for leaf, t in zip(parts, tensors) if not t):
                    raise TypeError(
                        "%s sets %s to %r, which holds symbolic tensors: a graph can leave "
                        "arrays and numbers in its state, and tuples of them, not other "
                        "objects holding them" % (graph.name, state.describe(k), left))
                if any(tensors):
                    state_sets.append((k, _TupleSet(left), [
                        left_value(leaf) if t else (None, leaf)
                        for leaf, t in zip(parts, tensors)]))
                else:
                    state_sets.append((k, None, left))
            if state is not None and not state:
                state = None   # (nothing of the state is an input or set: no work per call)
            all_arrays = list(arrays) + [place[2] for place in state.places] if state \
                else arrays
            writebacks = []
            for i, handle in enumerate(handles):
                if handle._value is not graph.inputs[i] and isinstance(all_arrays[i],
                                                                       np.ndarray):
                    writebacks.append((i, len(output_values)))
                    output_values.append(graph.localize(handle._value))
        graph.outputs = output_values
        graph.prune_unused_queries()
        owned_inputs = [isinstance(a, np.ndarray) for a in all_arrays]
        # (The result's nesting, without its leaves: a trace holds no object it need not.)
        structure = nest.pack_as(result, [None] * len(flat)) if nest.is_nested(result) \
            else None
        static = self._static
        concrete = ConcreteFunction(graph, structure, leaves, writebacks, self.backend,
                                    owned_inputs, key_objects, ndarray_outputs, returned,
                                    kinds, state, state_sets,
                                    lambda label: static is not _ALL_STATIC
                                    and label not in static, python_outputs)
        # A call finding an array of another dtype or rank in the place of a state input
        # traces again (and what the guards below find changed).
        guards = [state] if state is not None else []
        guards.append(draws.guard())
        roots = state_guards.roots_of(self.python_function, args, kwargs)
        # The Python scalars of the state that are constants of this trace (flags, strings,
        # None; numbers too unless they are inputs): guarded by value.
        guards.append(state_guards.value_guard(
            roots, numbers=not (state_inputs and self._state_numbers)))
        # The arrays of the state that are not inputs (all of them for rt.function and
        # where state inputs were refused, those in tuples the state cannot swap otherwise)
        # where they sit and by their contents: what the trace computed from one while
        # tracing is a constant.
        constants = state_guards.constants_guard(roots, state if state_inputs else None)
        if constants is not None and constants.nbytes > _CONTENTS_WARN_BYTES:
            self._warn_contents(constants, state_inputs)
        guards.append(constants)
        concrete.guard = state_guards.combined(guards)
        if key is not None:
            self._cache_trace(key, concrete, key_objects)
        return concrete

    def _warn_contents(self, constants, state_inputs):
        """Warns, once, that a trace compares more than _CONTENTS_WARN_BYTES of its state's
        arrays with copies of their bytes on every call (state_guards.ConstantsGuard)."""
        if self._warned_contents:
            return
        self._warned_contents = True
        where, size = constants.largest()
        warnings.warn(
            "%s: each call compares %.1f MB of arrays of its state with the copies its trace "
            "keeps (the largest, %s, %.1f MB), because the trace holds them as constants: "
            "what it computed from them while tracing would be stale after a change. %s" % (
                getattr(self.python_function, "__qualname__", "function"),
                constants.nbytes / 2**20, where, size / 2**20,
                "Hold large arrays in attributes, lists, dicts, plain tuples or "
                "namedtuples of an object, a closure or a global (the graph then reads them "
                "as inputs, with no copy), pass them as arguments, or keep them out of the "
                "function's reach"
                if state_inputs else "Pass large arrays as arguments, or stage the function "
                "with ag.function, which makes its state's arrays inputs of the graph"),
            RuntimeWarning, stacklevel=errors.user_stacklevel())

    def _cache_trace(self, key, concrete, objects):
        """Caches `concrete` under `key`. The key holds `objects` (the arguments that are
        neither arrays nor Python scalars: a model, a layer) by identity, and the cache
        holds them weakly: a trace never keeps a model alive. When one dies, the entries
        whose keys hold it go (its id may be another object's next, and a dead object's
        traces are never called again). An object that cannot be weakly referenced (a
        class with __slots__ and no __weakref__) is held by the trace while it is cached,
        so its id stays its own."""
        strong = []
        ids = []
        for obj in objects:
            watched = self._watched.get(id(obj))
            if watched is None:
                try:
                    ref = weakref.ref(obj, functools.partial(
                        _forget, weakref.ref(self), id(obj)))
                except TypeError:
                    strong.append(obj)
                    continue
                watched = self._watched[id(obj)] = (ref, set())
            watched[1].add(key)
            ids.append(id(obj))
        concrete._keepalive = strong
        if ids:
            self._key_objects[key] = ids
        self._cache[key] = concrete

    def _forget_object(self, object_id, ref):
        """The watched object `object_id` died (weakref `ref` says so): its entries go, and
        the other objects of their keys stop counting them."""
        watched = self._watched.get(object_id)
        if watched is None or watched[0] is not ref:
            return
        del self._watched[object_id]
        self._drop_fast(object_id)
        for key in watched[1]:
            self._cache.pop(key, None)
            self._guarded.pop(key, None)
            for other in self._key_objects.pop(key, ()):
                entry = self._watched.get(other)
                if entry is not None and other != object_id:
                    entry[1].discard(key)
                    if not entry[1]:   # (no entry holds it: it is not watched any more)
                        del self._watched[other]
                        self._drop_fast(other)

    def _raise_when_run(self, graph, error):
        """Records that `graph` raises `error`, raised while tracing, when it runs, and
        returns True, if the ops traced before it may raise first, or have effects (as
        Python runs them first: an index out of range, a failed assert, a print); False
        (raise it now) for a refusal of graph mode (`_refusal`)."""
        if current_graph() is not graph or not graph.may_fail_when_run() \
                or self._refusal(error):
            return False
        record_raise(error, traceback=error.__traceback__)
        return True

    def _refusal(self, error):
        """Is `error` a refusal of graph mode (raised while tracing, never deferred), not
        an error Python raised on the user's code (errors.raised_by_python)?"""
        return not errors.raised_by_python(error)

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


# A staged function accessed through an instance (a method): `self` is an argument of the
# trace (its identity is part of the trace key). A functools.partial of the staged function
# with the instance first: making one (`model.train_step`) and calling it add no Python
# frame to the call (Function's per-call path keys the instance by id: see _fast_key).
class BoundFunction(functools.partial):

    @property
    def _function(self):
        return self.func

    @property
    def _instance(self):
        return self.args[0]

    @property
    def python_function(self):
        return self.func.python_function.__get__(self.args[0])

    @property
    def __name__(self):
        return getattr(self.func.python_function, "__name__", "method")

    @property
    def __doc__(self):   # (the method's: this class's docstring is a comment above)
        return getattr(self.func.python_function, "__doc__", None)

    def __getattr__(self, name):
        if name == "__qualname__":   # (a class body cannot define it as a property)
            return getattr(self.func.python_function, "__qualname__", self.__name__)
        raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))

    def get_concrete_function(self, *args, **kwargs):
        return self.func.get_concrete_function(self.args[0], *args, **kwargs)

    @property
    def trace_count(self):
        return self.func.trace_count

    def __reduce__(self):
        return (BoundFunction, (self.func, self.args[0]))

    def __repr__(self):
        return "<bound %s of %r>" % (repr(self.func).strip("<>"), self.args[0])


def function(fn=None, *, backend="numpy", input_signature=None, static_argnums=(),
             static_argnames=()):
    """Stage `fn`: `rt.function(fn)` or `@rt.function(backend=..., input_signature=...,
    static_argnums=..., static_argnames=...)` (arguments whose Python numbers are
    constants of the trace, their values in its key: runtime/specialise.py).

    The Python body runs while tracing only; the arrays of the function's state (its
    closure, globals and the objects it reaches) are constants of the trace, guarded where
    they sit and by their contents: a call finding one rebound or changed in place traces
    again, and each call compares their bytes (pass large or changing arrays as arguments;
    ag.function makes them inputs instead)."""
    def stage(f):
        return Function(f, backend=backend, input_signature=input_signature,
                        static_argnums=static_argnums, static_argnames=static_argnames)
    return stage if fn is None else stage(fn)
