"""Random numbers in traced functions: `draw(method, *args, **kwargs)` calls a method of a
np.random.Generator or RandomState (the legacy np.random functions are methods of NumPy's
global RandomState, `np.random.seed` its seed) as Python does, eagerly; in a trace it
records a `draw` op (runtime/ops/random.py), which draws when the graph runs, on every
call, from the generator itself: the numbers are fresh on each call and the generator
advances as plain Python advances it, draws in loops, branches and unused ones included.

The graph holds the generator by reference, so the trace must know where the function
finds it, to trace again when that place holds another one (`self.rng = default_rng(1)`):
`tracing(...)`, entered by rt.function around each trace, keeps the roots of the
function's state (runtime/state_guards.py), and each draw looks for every place holding
its generator within reach of them and of the function that draws (its arguments, the
objects its locals hold, the globals it names): `guard()` checks after the trace that they
still hold it. A draw is refused, at the user's line, from a generator the trace made
itself (`np.random.default_rng(0)` in the function: Python makes a new one on every call)
or that it found nowhere (its rebinding would go unseen), as are methods and arguments it
cannot draw with (a graph would otherwise reuse numbers drawn once while tracing).
`tracing` also warns when a generator within reach of the function advanced while it was
traced: code that runs as Python while tracing (not converted) drew numbers the graph
then reuses on every call.
"""

import inspect
import threading
import warnings

import numpy as np

from runtime import errors, ops, path_kinds, state_guards
from runtime.graph import current_graph
from runtime.markers import SLOT
from runtime.ops.random import METHODS, STATIC, result_type
from runtime.ops.state import fill
from runtime.tensor import Tensor, is_tensor, mark_ndarray

SOURCES = (np.random.Generator, np.random.RandomState)

# NumPy's global RandomState: the legacy np.random functions are its methods.
_GLOBAL = np.random.mtrand._rand

_local = threading.local()


def is_random_method(f):
    """Is `f` a method of a Generator or RandomState (np.random.normal included)?"""
    return isinstance(getattr(f, "__self__", None), SOURCES)


def _is_source(value):
    return isinstance(value, SOURCES)


def draw(method, *args, **kwargs):
    """`method(*args, **kwargs)` for a method of a np.random.Generator or RandomState (or
    np.random.seed): called as it is eagerly; in a trace, a `draw` op made on every run of
    the graph (sizes may be symbolic: `rng.random(x.shape)`)."""
    if method is np.random.seed:
        source, name = _GLOBAL, "seed"
    else:
        source, name = getattr(method, "__self__", None), getattr(method, "__name__", "")
        if not isinstance(source, SOURCES):
            raise TypeError("rt.draw needs a method of a np.random.Generator or RandomState, "
                            "got %r" % (method,))
    if current_graph() is None:
        return method(*args, **kwargs)
    what = _spelled(source, name)
    if name not in METHODS:
        raise TypeError(
            "%s(...) cannot be called in a staged function: a graph would draw its numbers "
            "once, while tracing, and reuse them on every call. Graphs draw with %s; call "
            "%s(...) outside the function and pass its result in"
            % (what, ", ".join(m for m in sorted(METHODS) if hasattr(source, m)), what))
    try:
        params = dict(inspect.signature(method).bind(*args, **kwargs).arguments)
    except TypeError as error:   # (Python's error for the call as written)
        raise errors.mark_python_error(TypeError("%s(): %s" % (what, error))) from None
    label = _check_source(source, what)
    inputs = []
    if "args" in params:   # rand(d0, d1, ...), randn(...)
        params = {"dims": _size_template(params.pop("args"), inputs, what)}
    for param, value in params.items():
        if param == "dims":
            continue
        if param == "size":
            params[param] = _size_template(value, inputs, what)
        elif param in STATIC:
            if param == "out" and value is not None:
                raise TypeError("%s(..., out=...) is not supported in graphs: use the "
                                "result" % what)
            if _holds_symbolic(value):
                raise TypeError("%s(..., %s=...) needs a Python value in graphs, not a "
                                "symbolic tensor" % (what, param))
        elif not isinstance(value, (bool, int, float, type(None))):
            inputs.append(value)   # (arrays and tensors: the op's inputs)
            params[param] = SLOT
    return _record(source, name, params, inputs, what, label)


def _record(source, name, params, inputs, what, label):
    if name == "shuffle":
        shuffled = inputs[[k for k, v in params.items() if v is SLOT].index("x")]
        if not is_tensor(shuffled):
            raise TypeError("%s of a %s is not supported in graphs: shuffle an array the "
                            "function computes or reads from its state"
                            % (what, type(shuffled).__name__))
    values = [ops.to_value(x) for x in inputs]
    filled = fill(params, iter(values))
    found = result_type(name, filled)
    outputs = ops.get("draw").bind(values, source=source, method=name, params=params,
                                   label=label, dtype=None if found is None else found[0])
    if not outputs:
        return None
    result = Tensor(outputs[0])
    if name == "shuffle":   # (in place: the array is now its shuffled copy)
        shuffled._update(lambda current: result)
        return None
    if not found[1]:
        if filled.get("size") is not None:
            mark_ndarray(result)   # (size=(): a 0-d array)
        elif _python_scalar(name, filled):
            path_kinds.mark_python(result._value)
    return result


def _python_scalar(name, filled):
    """Does NumPy give a Python scalar for this draw of one number: a float, the int of
    randint with its default dtype, or of choice from a range?"""
    family = METHODS[name][0]
    if family == "float":
        return True
    if family == "integers":
        return name == "randint" and filled.get("dtype", int) is int
    if family == "choice":
        a = filled["a"]
        return isinstance(a, int) or a.shape == ()
    return False


def _size_template(size, inputs, what):
    """`size` (or rand's dims) as the op's template: ints stay, symbolic dims are SLOTs."""
    if size is None or isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        return None if size is None else int(size)
    if is_tensor(size):
        if size.ndim != 0 or size.dtype.kind not in "iu":
            raise TypeError("%s(..., size=...) needs an int or a tuple of ints, got a "
                            "symbolic %s tensor of rank %d" % (what, size.dtype, size.ndim))
        inputs.append(size)
        return SLOT
    if isinstance(size, (tuple, list)):
        return tuple(_size_template(d, inputs, what) for d in size)
    raise TypeError("%s(..., size=%r) is not supported in graphs: give an int or a tuple "
                    "of ints" % (what, size))


def _holds_symbolic(value):
    if isinstance(value, (tuple, list)):
        return any(_holds_symbolic(v) for v in value)
    return is_tensor(value)


def _spelled(source, name):
    """The call as the user wrote it, near enough: np.random.normal, Generator.normal."""
    if source is _GLOBAL:
        return "np.random.%s" % name
    return "%s.%s" % (type(source).__name__, name)


# --- where the function finds its generators ----------------------------------------------

class _Trace:
    """The bookkeeping of one trace: the roots of the function's state, the generators
    made while it is traced, and the places of the generators it draws from."""

    def __init__(self, roots):
        self.roots = roots
        self.made = {}   # id -> the generators made while tracing (kept while it lasts)
        self.places = []
        self._drawn = {}   # id(generator) -> its name in printed graphs
        self._found = None

    def places_of(self, source, frame):
        """The places holding `source` within reach of the function's roots and of
        `frame`'s function (not its locals holding the generator itself: no place)."""
        if self._found is None:
            self._found = state_guards.places_of(self.roots, _is_source)
        places = [p for p in self._found if p[2] is source]
        if frame is not None:
            places += [p for p in state_guards.places_of(state_guards.roots_of_frame(frame),
                                                         _is_source)
                       if p[2] is source and (p[1] or p[0].set is not None)]
        return places


def _current():
    stack = getattr(_local, "traces", None)
    return stack[-1] if stack else None


def _check_source(source, what):
    """Refuses a draw from a generator the trace cannot guard; records where it sits.
    Returns the generator's name in printed graphs: where it sits (`self.rng`)."""
    trace = _current()
    if source is _GLOBAL:
        return "np.random"
    if trace is None:
        return type(source).__name__
    if id(source) in trace._drawn:
        return trace._drawn[id(source)]
    if id(source) in trace.made:
        raise TypeError(
            "%s(...) draws from a generator made while the function is traced "
            "(np.random.default_rng(...) in it): Python makes a new one on every call, "
            "which a graph cannot. Make the generator outside the "
            "function and pass it as an argument, or keep it in a global, a closure "
            "variable or an attribute" % what)
    places = trace.places_of(source, errors._user_frame())
    if not places:
        raise TypeError(
            "%s(...) draws from a generator the function reaches neither through its "
            "arguments, closure variables and globals nor through objects they hold (up "
            "to %d steps), nor through the locals and globals of the function making the "
            "draw: a graph holds on to the generator, and would not see it rebound. Pass "
            "the generator as an argument, or keep it in a global, a closure variable or "
            "an attribute" % (what, state_guards._MAX_DEPTH))
    # (A place that is an argument itself is part of the trace's key: nothing to check.)
    trace.places += [place for place in places if place[1] or place[0].set is not None]
    label = trace._drawn[id(source)] = state_guards._path_text(*places[0][:2])
    return label


def made_while_tracing(generator):
    """Records a generator made while a function is traced (refused as a draw's source)."""
    trace = _current()
    if trace is not None and isinstance(generator, SOURCES):
        trace.made[id(generator)] = generator
    return generator


class tracing:
    """Entered by rt.function around each trace of `fn` called with `args`, `kwargs`:
    the draws of the trace find their generators from its roots; `guard()` is then the
    StateGuard of their places (None without draws). On leaving it normally, warns if a
    generator within reach (or NumPy's global one) advanced while tracing."""

    def __init__(self, fn, args, kwargs):
        self._roots = state_guards.roots_of(fn, args, kwargs)
        self._name = getattr(fn, "__qualname__", "function")
        self._trace = None
        self._states = None

    def __enter__(self):
        self._trace = _Trace(self._roots)
        generators = {id(g): g for _, _, g in
                      state_guards.places_of(self._roots, _is_source)}
        generators[id(_GLOBAL)] = _GLOBAL
        self._states = [(g, _state(g)) for g in generators.values()]
        stack = getattr(_local, "traces", None)
        if stack is None:
            stack = _local.traces = []
        stack.append(self._trace)
        return self

    def __exit__(self, kind, error, traceback):
        _local.traces.pop()
        if kind is None:
            advanced = [g for g, state in self._states if not _same(_state(g), state)]
            if advanced:
                warnings.warn(
                    "%s drew random numbers while it was traced, from %s, in code that "
                    "runs as Python while tracing (not converted by autograph: "
                    "autograph=False, rt.function, a function marked do_not_convert or a "
                    "library's): the graph reuses those numbers on every call. Draw in "
                    "converted code (rng.normal(...) in the function), or with rt.draw"
                    % (self._name, " and ".join(
                        "np.random's global state" if g is _GLOBAL else "a %s"
                        % type(g).__name__ for g in advanced)),
                    RuntimeWarning, stacklevel=errors.user_stacklevel())
        return False

    def guard(self):
        if not self._trace.places:
            return None
        return state_guards.StateGuard(list(self._trace.places))


def _state(source):
    if isinstance(source, np.random.RandomState):
        return source.get_state(legacy=False)
    return source.bit_generator.state


def _same(a, b):
    """Are two generator states (dicts of ints, strings and arrays) equal?"""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    return a == b
