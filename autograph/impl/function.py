"""ag.function: convert a Python function (recursively), trace it per input signature into a
graph with rt.function, and run the graph with the chosen executor."""

import runtime as rt
from runtime import errors as rt_errors
from runtime import trace as rt_trace
from autograph.core import ag_logging
from autograph.errors import ConversionError, tracebacks
from autograph.impl import api
from autograph.operators import graph as graph_paths


def run_functions_eagerly(flag):
    """Debugging switch: when true, ag.function runs the original Python function eagerly
    (breakpoints and pdb work); no conversion, no graph."""
    rt_trace.run_functions_eagerly(flag)


def functions_run_eagerly():
    """Whether ag.function currently runs functions eagerly (see run_functions_eagerly)."""
    return rt_trace.functions_run_eagerly()


class NotStageableError(ConversionError, TypeError):
    """ag.function was given a function it cannot stage (a generator function, an async
    def): an ag.ConversionError, and a TypeError as rt.function raises for it."""


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


def _restore_lists(result):
    return _map_leaves(_restore_list, result)


class Function(rt.Function):
    """A function staged by ag.function: converted once, traced once per input signature,
    its graph run on every later call with the same signature. The per-call path (and
    methods: rt's BoundFunction) is rt.Function's; this class only supplies its hooks: what
    is traced, in-graph calls, error rewriting, list outputs."""

    # Model code keeps its weights on objects: they are inputs of the graph.
    state_inputs = True
    # Its results are Python's: an ndarray subclass's own operations are not the graph's.
    array_subclasses = False

    def __init__(self, fn, backend="auto", input_signature=None, autograph=True,
                 static_argnums=(), static_argnames=()):
        if not callable(fn):
            raise TypeError("ag.function needs a function, got %r" % (fn,))
        refusal = rt_trace.staging_refusal(fn, "ag.function")
        if refusal is not None:
            raise NotStageableError(refusal)
        super().__init__(fn, backend=backend, input_signature=input_signature,
                         static_argnums=static_argnums, static_argnames=static_argnames)
        self.autograph = bool(autograph)
        self._converted = None
        self._traced = None
        self._name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))

    def _converted_function(self):
        if self._converted is None:
            fn = self.python_function
            self._converted = api.to_graph(fn, recursive=True) if self.autograph else fn
        return self._converted

    # -- rt.Function hooks ----------------------------------------------------------------------
    def _function_to_trace(self):
        if self._traced is None:
            converted = self._converted_function()

            def traced(*args, **kwargs):
                ag_logging.log(2, "Tracing %s (trace %d): its input signature is not in the "
                               "trace cache", self._name, self.trace_count)
                graph_paths.common.forget_return_placeholders()
                try:
                    with self._front_end():
                        result = converted(*args, **kwargs)
                    returned = graph_paths.common.check_returned(result)
                finally:
                    graph_paths.common.forget_return_placeholders()
                result = _map_leaves(self._mark_list, result)
                if returned is not None:
                    # (Where no `return` ran, Python returns None: so does the graph.)
                    result = rt_trace.NoneUnless(result, returned)
                return result

            graph_paths.common.register_tracing_caller(traced.__code__)
            self._traced = traced
        return self._traced

    def _inline_call(self, args, kwargs):
        # Called while another function is traced: becomes part of that graph.
        with self._front_end():
            return self._converted_function()(*args, **kwargs)

    def _front_end(self):
        """While the (converted) function is traced: refusals say what the user runs."""
        if not self.autograph:
            return rt_errors.converted_code(tracebacks.advise_without_conversion)
        return rt_errors.converted_code(tracebacks.advise, tracebacks.expression_at)

    def _on_error(self, error):
        # Only on the error path: the error as the user should see it (their source lines).
        with tracebacks.rewriting_errors():
            raise error

    def _refusal(self, error):
        # Refusals of graph mode are raised while tracing; Python's own errors wait for
        # what the graph runs before them (rt.Function).
        return not graph_paths.common.is_pythons_error(error)

    def _mark_list(self, leaf):
        if isinstance(leaf, graph_paths.TensorList):
            self.output_transform = _restore_lists
            return _ListOutput(items=leaf.stack())
        return leaf

    def __repr__(self):
        return "<ag.function %s>" % self._name


def function(fn=None, *, backend="auto", input_signature=None, autograph=True,
             static_argnums=(), static_argnames=()):
    """Decorator: `@ag.function` or `@ag.function(backend=..., input_signature=...,
    autograph=..., static_argnums=..., static_argnames=...)`. Converts `fn` (unless
    autograph=False), traces it per input signature and runs the graph with `backend`
    ("numpy", "numba" or "auto"). Python int and float arguments are inputs of the trace
    (a new value reuses it) but those named static, which are constants of it."""
    if backend not in ("auto", "numpy", "numba"):
        raise ValueError("unknown backend %r (use 'numpy', 'numba' or 'auto')" % (backend,))

    def decorate(f):
        return Function(f, backend=backend, input_signature=input_signature, autograph=autograph,
                        static_argnums=static_argnums, static_argnames=static_argnames)

    if fn is None:
        return decorate
    return decorate(fn)
