"""Helpers for converter tests: run a function converted and unconverted, compare everything."""

import contextlib
import io

from autograph.impl import api


def outcome(fn, *args, **kwargs):
    """(result or exception type and message, printed output) of one call."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = ("returned", fn(*args, **kwargs))
        except Exception as e:  # the type and message are part of the behaviour
            result = ("raised", type(e), str(e))
    return result, out.getvalue()


def assert_same_behaviour(fn, *arg_tuples, recursive=True):
    """The converted fn returns, prints and raises exactly what fn does, for each args tuple.

    An entry may be a function returning the args tuple, for arguments the call mutates:
    each run then gets fresh ones.
    """
    converted = api.to_graph(fn, recursive=recursive)
    assert converted is not fn
    for args in arg_tuples:
        make_args = args if callable(args) else (lambda args=args: args)
        fresh = [make_args(), make_args()]
        fresh = [a if isinstance(a, tuple) else (a,) for a in fresh]
        assert outcome(converted, *fresh[0]) == outcome(fn, *fresh[1]), f"args={fresh[1]!r}"
    return converted


def code(fn):
    return api.to_code(fn)
