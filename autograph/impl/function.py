"""ag.function: convert a Python function (recursively), trace it per input signature into a
graph with rt.function, and run the graph with the chosen executor."""

import functools
import types

import runtime as rt
from autograph.core import ag_logging
from autograph.impl import api, error_rewriting
from autograph.operators import graph as graph_paths  # registers the graph paths & overloads

_run_eagerly = False


def run_functions_eagerly(flag):
    """Debugging switch: when true, ag.function runs the original Python function eagerly
    (breakpoints and pdb work); no conversion, no graph."""
    global _run_eagerly
    _run_eagerly = bool(flag)


def functions_run_eagerly():
    """Whether ag.function currently runs functions eagerly (see run_functions_eagerly)."""
    return _run_eagerly


class _ListOutput(dict):
    """Marks, in a traced function's result, a list built in a graph loop: rt.function keeps
    dict subclasses through its output packing, so the call can make it a list again."""


def _map_leaves(fn, structure):
    """`structure` (tuples, lists, dicts, namedtuples) with `fn` applied to every leaf."""
    if type(structure) is tuple:
        return tuple(_map_leaves(fn, x) for x in structure)
    if type(structure) is list:
        return [_map_leaves(fn, x) for x in structure]
    if type(structure) is dict:
        return {k: _map_leaves(fn, v) for k, v in structure.items()}
    if isinstance(structure, tuple) and hasattr(type(structure), "_fields"):
        return type(structure)(*[_map_leaves(fn, x) for x in structure])
    return fn(structure)


def _restore_list(leaf):
    return list(leaf["items"]) if isinstance(leaf, _ListOutput) else leaf


def _raise_rewritten(error):
    """Raises `error` as the user should see it: pointing at their source lines (only here
    on the error path, so that a call costs nothing extra)."""
    with error_rewriting.rewriting_errors():
        raise error


class Function:
    """A function staged by ag.function: converted once, traced once per input signature,
    its graph run on every later call with the same signature."""

    def __init__(self, fn, backend="auto", input_signature=None, autograph=True):
        if not callable(fn):
            raise TypeError("ag.function needs a function, got %r" % (fn,))
        self.python_function = fn
        self.backend = backend
        self.input_signature = input_signature
        self.autograph = bool(autograph)
        self._converted = None
        self._staged = None
        self._list_outputs = False
        self._name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
        functools.update_wrapper(self, fn)

    # -- staging ------------------------------------------------------------------------------
    def _converted_function(self):
        if self._converted is None:
            fn = self.python_function
            self._converted = api.to_graph(fn, recursive=True) if self.autograph else fn
        return self._converted

    def _stage(self):
        if self._staged is None:
            converted = self._converted_function()

            def traced(*args, **kwargs):
                # Runs only when rt.function traces (a signature not in its trace cache).
                ag_logging.log(2, "Tracing %s (trace %d): its input signature is not in the "
                               "trace cache", self._name, self._staged.trace_count)
                graph_paths.common.forget_return_placeholders()
                try:
                    result = converted(*args, **kwargs)
                    graph_paths.common.check_returned(result, self._name)
                finally:
                    graph_paths.common.forget_return_placeholders()
                return _map_leaves(self._mark_list, result)

            for attribute in ("__name__", "__qualname__", "__module__"):
                setattr(traced, attribute, getattr(self.python_function, attribute, "function"))
            self._staged = rt.function(traced, backend=self.backend,
                                       input_signature=self.input_signature)
        return self._staged

    def _mark_list(self, leaf):
        if isinstance(leaf, graph_paths.TensorList):
            self._list_outputs = True
            return _ListOutput(items=leaf.stack())
        return leaf

    # -- calling --------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _run_eagerly:
            return self.python_function(*args, **kwargs)
        if rt.current_graph() is not None:
            # Called while another function is traced: becomes part of that graph.
            return self._converted_function()(*args, **kwargs)
        try:
            result = (self._staged or self._stage())(*args, **kwargs)
        except Exception as error:
            _raise_rewritten(error)
        if self._list_outputs:
            result = _map_leaves(_restore_list, result)
        return result

    def get_concrete_function(self, *args, **kwargs):
        """The traced graph for these arguments (tracing if needed): `.graph`, `.inputs`,
        `.outputs`, callable."""
        try:
            return self._stage().get_concrete_function(*args, **kwargs)
        except Exception as error:
            _raise_rewritten(error)

    @property
    def trace_count(self):
        """How many times the function has been traced so far."""
        return 0 if self._staged is None else self._staged.trace_count

    def __get__(self, instance, owner):
        if instance is None:
            return self
        return BoundFunction(self, instance)

    def __repr__(self):
        return "<ag.function %s>" % self._name


class BoundFunction:
    """An ag.function method accessed on an instance: `self` is an argument of the trace (its
    identity is part of the trace key)."""

    def __init__(self, function, instance):
        self._function = function
        self._instance = instance
        self.python_function = types.MethodType(function.python_function, instance)
        self.__name__ = getattr(function.python_function, "__name__", "method")
        self.__qualname__ = getattr(function.python_function, "__qualname__", self.__name__)
        self.__doc__ = getattr(function.python_function, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self._function(self._instance, *args, **kwargs)

    def get_concrete_function(self, *args, **kwargs):
        return self._function.get_concrete_function(self._instance, *args, **kwargs)

    @property
    def trace_count(self):
        return self._function.trace_count

    def __repr__(self):
        return "<bound ag.function %s of %r>" % (self.__qualname__, self._instance)


def function(fn=None, *, backend="auto", input_signature=None, autograph=True):
    """Decorator: `@ag.function` or `@ag.function(backend=..., input_signature=...,
    autograph=...)`. Converts `fn` (unless autograph=False), traces it per input signature
    and runs the graph with `backend` ("numpy", "numba" or "auto")."""
    if backend not in ("auto", "numpy", "numba"):
        raise ValueError("unknown backend %r (use 'numpy', 'numba' or 'auto')" % (backend,))

    def decorate(f):
        return Function(f, backend=backend, input_signature=input_signature, autograph=autograph)

    if fn is None:
        return decorate
    return decorate(fn)
