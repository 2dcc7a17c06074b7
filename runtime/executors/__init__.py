"""Executors: each compiles a Graph once and then runs it on flat NumPy inputs.

Interface: `get_executor(backend)(graph, owned_inputs=None)` returns a callable
`compiled(*flat_inputs) -> tuple of flat outputs`, optionally with `.owned_outputs`
(list of bool: output i is a fresh buffer nobody else sees) and `.when_replaced(callback)`
(`callback(executable)` when another executable takes over: `auto` runs a graph it compiles
on the NumPy interpreter until its code is generated, numba/pending.py; rt.function's trace
then calls the new one). `owned_inputs[i]` says input i may be updated in place (the
caller wants the new contents, as with a mutated NumPy argument). The NumPy interpreter
(also as `auto`'s) takes `copied_back` too: the (input, output) pairs the caller copies
back, whose new versions it may compute in place.
"""

_EXECUTORS = {}


def register_executor(name, compile_graph):
    _EXECUTORS[name] = compile_graph


def get_executor(backend):
    if backend in _EXECUTORS:
        return _EXECUTORS[backend]
    if backend == "numpy":
        from runtime.executors import numpy_exec
        register_executor("numpy", numpy_exec.compile_graph)
        return numpy_exec.compile_graph
    if backend in ("numba", "auto"):
        from runtime.executors.numba import policy
        compile_graph = policy.compile_graph if backend == "numba" else policy.compile_graph_auto
        register_executor(backend, compile_graph)
        return compile_graph
    raise ValueError("unknown backend %r (use 'numpy', 'numba' or 'auto')" % (backend,))
