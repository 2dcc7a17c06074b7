"""np.random in traced code: a call of a method of a Generator or RandomState (the legacy
np.random functions included) draws its numbers when the graph runs, on every call
(rt.draw); generators made while tracing are recorded, since a graph cannot draw from them
as Python does (Python makes a new one on every call). OVERLOADS is part of
py_builtins.BUILTIN_OVERLOADS; `method_overload` is consulted for bound methods."""

import functools

import numpy as np

import runtime as rt


def method_overload(method):
    """What converted code calls instead of `method`, a method drawing random numbers
    (rt.is_random_method), while tracing: rt.draw, a draw when the graph runs; None
    otherwise (the method itself)."""
    if rt.current_graph() is None:
        return None
    return functools.partial(rt.draw, method)


def _made_while_tracing(make):
    def made(*args, **kwargs):
        return rt.made_while_tracing(make(*args, **kwargs))
    made.__name__ = made.__qualname__ = make.__name__
    made.__doc__ = "%s, recorded when it is made while tracing." % make.__name__
    return made


OVERLOADS = {
    np.random.default_rng: _made_while_tracing(np.random.default_rng),
    np.random.Generator: _made_while_tracing(np.random.Generator),
    np.random.RandomState: _made_while_tracing(np.random.RandomState),
    np.random.seed: functools.partial(rt.draw, np.random.seed),
}
