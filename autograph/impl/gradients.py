"""ag.grad and ag.value_and_grad: reverse-mode gradients of Python functions, through their
loops and branches, as part of a graph.

Called while a function is traced (inside an ag.function, or inside another gradient), a
gradient adds the forward and the backward ops to that graph (runtime/differentiation.py,
runtime/autodiff.py). Called on its own, it is staged as a function of its own
(`_Staged`: an ag.function of the gradient, traced per input signature and run by the
chosen backend). The function differentiated is converted like any other, so its Python
`if`, `while`, `for`, `break` and `return` become graph control flow that the gradient goes
through.

While functions run eagerly (ag.run_functions_eagerly), a gradient is still computed: it is
traced and run by the NumPy interpreter, since a gradient needs the graph.
"""

import dataclasses

import runtime as rt
from runtime import differentiation
from autograph.impl import api
from autograph.impl import function as function_module


class Gradient:
    """What ag.grad / ag.value_and_grad return: a callable computing the gradient."""

    def __init__(self, fn, argnums, has_aux, wrt, with_value, backend):
        if not callable(fn):
            raise TypeError("ag.grad needs a function, got %r" % (fn,))
        if argnums is None:
            argnums = 0 if wrt is None else ()
        self._single = isinstance(argnums, int)
        self.argnums = (argnums,) if self._single else tuple(argnums)
        for i in self.argnums:
            if not isinstance(i, int):
                raise TypeError("argnums must be an int or a tuple of ints, got %r" % (argnums,))
        self.fn = fn
        self.has_aux = bool(has_aux)
        self.wrt = wrt
        self.with_value = with_value
        self.backend = backend
        self._converted = None
        self._staged = None
        self.__name__ = "%s_of_%s" % ("value_and_grad" if with_value else "grad",
                                      getattr(fn, "__name__", "function"))
        self.__doc__ = getattr(fn, "__doc__", None)

    def _function(self):
        """The function differentiated, converted (its control flow becomes graph ops)."""
        if self._converted is None:
            fn = self.fn
            if isinstance(fn, function_module.Function):
                fn = fn.python_function
            self._converted = fn if isinstance(fn, Gradient) else api.converted_callable(fn)
        return self._converted

    def traced_call(self, args, kwargs):
        """The gradient while a function is traced: its ops join that graph."""
        value, arg_grads, wrt_grads = differentiation.value_and_grad(
            self._function(), args, kwargs, self.argnums, self.has_aux, self.wrt,
            name=getattr(self.fn, "__qualname__", None))
        if self._single:
            grads = arg_grads[0]
        else:
            grads = tuple(arg_grads)
        if self.wrt is not None:
            grads = wrt_grads if not self.argnums else (grads, wrt_grads)
        if self.with_value:
            return value, grads
        if self.has_aux:
            return grads, value[1]
        return grads

    def __call__(self, *args, **kwargs):
        if rt.current_graph() is not None:
            return self.traced_call(args, kwargs)
        if self._staged is None:
            self._staged = _Staged(self)
        return self._staged(*args, **kwargs)

    def __repr__(self):
        return "<ag gradient %s>" % self.__name__


class _Staged(function_module.Function):
    """A gradient called on its own: an ag.function of it, so it is traced once per input
    signature, its state (the weights the function reads from objects) becomes graph
    inputs as in any ag.function, and it runs compiled."""

    def __init__(self, gradient):
        fn = gradient.fn
        if isinstance(fn, function_module.Function):
            fn = fn.python_function
        super().__init__(fn, backend=gradient.backend)
        self._gradient = gradient

    def _function_to_trace(self):
        if self._traced is None:
            gradient = self._gradient

            def traced(*args, **kwargs):
                with self._front_end():
                    result = gradient.traced_call(args, kwargs)
                # (The gradient of a dataclass argument is a dataclass: rebuilt per call.)
                self.output_transform = _restore_dataclasses
                return function_module._map_leaves(_mark_dataclass, result)

            self._traced = traced
        return self._traced

    def _inline_call(self, args, kwargs):
        with self._front_end():
            return self._gradient.traced_call(args, kwargs)

    def _eager_call(self, args, kwargs):
        # A gradient needs the graph: traced, and run by the NumPy interpreter.
        if self._gradient.backend != "numpy":
            eager = Gradient(self._gradient.fn, self._gradient.argnums[0]
                             if self._gradient._single else self._gradient.argnums,
                             self._gradient.has_aux, self._gradient.wrt,
                             self._gradient.with_value, "numpy")
            return _Staged(eager).get_concrete_function(*args, **kwargs)(*args, **kwargs)
        return self.get_concrete_function(*args, **kwargs)(*args, **kwargs)


class _DataclassOutput(dict):
    """Marks, in a staged gradient's result, a dataclass instance (the gradient of a
    dataclass argument): rt.function keeps dict subclasses through its output packing, and
    the call rebuilds the instance from its fields."""


def _mark_dataclass(leaf):
    if dataclasses.is_dataclass(leaf) and not isinstance(leaf, type):
        fields = {f.name: function_module._map_leaves(_mark_dataclass, getattr(leaf, f.name))
                  for f in dataclasses.fields(leaf)}
        return _DataclassOutput(fields, __dataclass__=leaf)
    return leaf


def _restore_dataclass(leaf):
    if isinstance(leaf, _DataclassOutput):
        fields = dict(leaf)
        instance = fields.pop("__dataclass__")
        return dataclasses.replace(instance, **{
            k: function_module._map_leaves(_restore_dataclass, v) for k, v in fields.items()})
    return leaf


def _restore_dataclasses(result):
    return function_module._map_leaves(_restore_dataclass, result)


def grad(fn, argnums=None, has_aux=False, wrt=None, backend="auto"):
    """The gradient of `fn`, a function returning a float scalar.

    `argnums` (default 0, or none when `wrt` is given): the positional arguments to
    differentiate with respect to, an int or a tuple of ints; each argument is a float array
    or a nested structure (tuple, list, dict, namedtuple, dataclass) of them, and its
    gradient has the same structure. `wrt`: state the function reads, such as a model's
    weights: an object (the gradient is a dict of its float arrays by attribute name,
    following lists, dicts and other objects it holds), or, inside an ag.function, a
    structure of the arrays read from objects (`[self.W, self.b]`). With both, the result
    is `(argument gradients, wrt gradients)`. `has_aux=True`: `fn` returns `(value, aux)`,
    and the result is `(gradients, aux)`.

    Inside an ag.function the gradient is part of its graph; called on its own, it is
    staged and compiled with `backend`.
    """
    return Gradient(fn, argnums, has_aux, wrt, with_value=False, backend=backend)


def value_and_grad(fn, argnums=None, has_aux=False, wrt=None, backend="auto"):
    """Like ag.grad, but returns `(value, gradients)` (`((value, aux), gradients)` with
    has_aux), from one forward pass."""
    return Gradient(fn, argnums, has_aux, wrt, with_value=True, backend=backend)
