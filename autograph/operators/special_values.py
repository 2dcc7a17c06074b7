"""Sentinel values of converted code: variables not yet defined, returns not yet taken."""


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
