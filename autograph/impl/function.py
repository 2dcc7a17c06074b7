"""ag.function: convert a Python function (recursively), trace it per input signature into a
graph with rt.function, and run the graph with the chosen executor."""

import functools
import types

import runtime as rt
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


def _mark_lists(result):
    """(result with TensorLists replaced by _ListOutput markers, whether there were any)."""
    found = []

    def visit(x):
        if isinstance(x, graph_paths.TensorList):
            found.append(True)
            return _ListOutput(items=x.stack())
        if type(x) is tuple:
            return tuple(visit(i) for i in x)
        if type(x) is list:
            return [visit(i) for i in x]
        if type(x) is dict:
            return {k: visit(v) for k, v in x.items()}
        if isinstance(x, tuple) and hasattr(type(x), "_fields"):
            return type(x)(*[visit(i) for i in x])
        return x

    marked = visit(result)
    return marked, bool(found)


def _restore_lists(result):
    if isinstance(result, _ListOutput):
        return list(result["items"])
    if type(result) is tuple:
        return tuple(_restore_lists(i) for i in result)
    if type(result) is list:
        return [_restore_lists(i) for i in result]
    if type(result) is dict:
        return {k: _restore_lists(v) for k, v in result.items()}
    if isinstance(result, tuple) and hasattr(type(result), "_fields"):
        return type(result)(*[_restore_lists(i) for i in result])
    return result


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
                result, has_lists = _mark_lists(converted(*args, **kwargs))
                if has_lists:
                    self._list_outputs = True
                return result

            for attribute in ("__name__", "__qualname__", "__module__"):
                setattr(traced, attribute, getattr(self.python_function, attribute, "function"))
            self._staged = rt.function(traced, backend=self.backend,
                                       input_signature=self.input_signature)
        return self._staged

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
            result = _restore_lists(result)
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
        return "<ag.function %s>" % getattr(self.python_function, "__qualname__", "?")


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
