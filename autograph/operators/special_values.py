"""Sentinel values of converted code: variables not yet defined, returns not yet taken, and
graph values of variables that some paths did not define."""

import runtime as rt
from runtime import conditionals as rt_conditionals
from runtime import control_flow as rt_control_flow


class Undefined:
    """The value of a variable that is not defined on some path (used by graph paths).

    `symbol_name` is the user's name of the variable, for error messages.
    """

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def __repr__(self):
        return f"Undefined({self.symbol_name!r})"


class UndefinedReturnValue:
    """The return value of a function whose `return` has not been reached on some path."""

    __slots__ = ()

    def __repr__(self):
        return "UndefinedReturnValue()"


def is_undefined(value):
    return isinstance(value, Undefined)


def is_undefined_return(value):
    return isinstance(value, UndefinedReturnValue)


def value_or_undefined(read_value, symbol_name):
    """`read_value()`, or Undefined(symbol_name) if the variable it reads is not bound yet.

    Used by the get_state functions of converted code (graph paths only): a variable that a
    branch or loop creates may not exist before the statement runs.
    """
    try:
        return read_value()
    except NameError:
        return Undefined(symbol_name)


# The graph error where Python raises each builtin error on reading something undefined.
_GRAPH_ERRORS = {UnboundLocalError: rt.errors.UndefinedVariableError,
                 AttributeError: rt.errors.UndefinedAttributeError,
                 KeyError: rt.errors.UndefinedKeyError}


class MaybeUndefined(rt.Tensor):
    """The graph value of a variable (or `obj.attribute`, `d[key]`) that the path a graph
    run takes may not have defined: a graph `if` that defines it in one branch only, a
    graph loop that defines it and may run zero times.

    `defined` (a bool tensor, symbolic or constant) says whether the path taken defined it. Using the value in an
    op (arithmetic, indexing, printing...), reading it through `ag__.ld` or returning it
    asserts `defined` when the graph runs: it raises what Python raises at that read
    (UnboundLocalError; AttributeError, KeyError for attributes and items, as
    rt.errors.Undefined*Error). Graph statements carry it, and its flag, unchecked, as
    Python carries an unbound name it does not read.

    `symbol` is the user's name ('x', 'obj.a', "d['k']"), `error` the builtin error Python
    raises, `reason` says which statement left it undefined ("the if statement at f.py:3
    defines it in the if branch only")."""

    __slots__ = ("defined", "symbol", "error", "reason")

    def __init__(self, value, defined, symbol, error, reason):
        super().__init__(value)
        self.defined = defined
        self.symbol = symbol
        self.error = error
        self.reason = reason

    def _rt_to_value(self):
        self.check()
        return self._value

    def check(self):
        """Asserts (in the graph being built) that the value is defined; returns a plain
        handle on it."""
        if self.error is UnboundLocalError:
            message = ("cannot access local variable %s where it is not associated with a "
                       "value" % self.symbol)
        else:
            message = "%s is not set" % self.symbol
        rt_control_flow.assert_defined(self.defined, "%s (%s)" % (message, self.reason),
                                       _GRAPH_ERRORS[self.error])
        return rt.Tensor(self._value)

    def __repr__(self):
        return "<rt.Tensor %s, maybe undefined>" % self._value.type_str()


class MaybeUndefinedAlias(MaybeUndefined):
    """A MaybeUndefined that is, on the paths that define it, an array from before the
    statement (`if c: b = a`, with no else): `alias`, the handle rt.cond gives such an
    output (a runtime CondAlias), is what it reads and what a write into it goes to, so
    `b += 1` after the `if` lands in `a` where c held, as in Python."""

    __slots__ = ("alias",)

    def __init__(self, alias, defined, symbol, error, reason):
        super().__init__(alias.graph_value, defined, symbol, error, reason)
        self.alias = alias
        self._ndarray = rt.is_ndarray(alias)

    @property
    def _value(self):
        return self.alias.graph_value

    @_value.setter
    def _value(self, value):
        # (Control flow pointing the handle at a version: as the alias takes it.)
        self.alias._value = value

    def rebind(self, new):
        self.alias.rebind(new)
        return self


def maybe_undefined(value, defined, symbol, error, reason):
    """`value` (a handle, or a number) as the value of a variable the path taken may not
    have defined: a MaybeUndefinedAlias where it is rt.cond's alias of an earlier array."""
    if isinstance(value, rt_conditionals.CondAlias):
        return MaybeUndefinedAlias(value, defined, symbol, error, reason)
    return MaybeUndefined(rt.constant(value).graph_value, defined, symbol, error, reason)


def defined_part(value):
    """The handle a MaybeUndefined stands for on the paths that define it, unchecked (the
    alias itself for a MaybeUndefinedAlias)."""
    if isinstance(value, MaybeUndefinedAlias):
        return value.alias
    return rt.Tensor(value.graph_value)


class Unbound(MaybeUndefined):
    """What a graph branch or loop body reads for a variable that is not defined before the
    statement: reading it raises Python's error when the graph runs that path (not while
    tracing, when Python might not run it at all)."""

    __slots__ = ()

    def __init__(self, symbol, error, reason):
        super().__init__(rt.constant(0.0).graph_value, rt.constant(False), symbol, error,
                         reason)
