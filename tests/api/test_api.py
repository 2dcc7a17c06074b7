"""The public conversion API: to_graph, to_code, convert, do_not_convert, converted_call."""

import asyncio
import functools
import logging
import pickle
import sys

import pytest

import api_testing_module
from autograph import errors
from autograph.core import ag_logging
from autograph.impl import api


def annotated(a: int, b: str = "x", *, c=3) -> str:
    """Doc of annotated."""
    if a:
        return b * a
    return str(c)


annotated.custom_attribute = "kept"


def test_converted_function_keeps_its_identity():
    converted = api.to_graph(annotated)
    assert converted is not annotated
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__", "__defaults__",
                      "__kwdefaults__", "__annotations__"):
        assert getattr(converted, attribute) == getattr(annotated, attribute), attribute
    assert converted.custom_attribute == "kept"
    assert converted(2) == "xx" and converted(0, c=7) == "7"


def test_wrapped_attribute_is_kept():
    def inner(x):
        return x

    @functools.wraps(inner)
    def wrapper(x):
        return inner(x)

    assert api.to_graph(wrapper).__wrapped__ is inner


def test_conversion_is_cached():
    assert api.to_graph(annotated).__code__ is api.to_graph(annotated).__code__


def test_tracebacks_point_at_the_users_file_and_line():
    import traceback

    def failing(values):
        total = 0
        for v in values:
            if v:
                total += 10 // v
            else:
                total += 1 // v  # the failing line
        return total

    try:
        api.to_graph(failing)([1, 0])
    except ZeroDivisionError as e:
        last = traceback.extract_tb(e.__traceback__)[-1]
    assert last.filename == __file__
    assert last.line == "total += 1 // v  # the failing line"


def test_to_code_returns_readable_source():
    source = api.to_code(annotated)
    # The user's own signature, not the generated module's placeholders.
    assert source.startswith("def annotated(a: int, b: str='x', *, c=3) -> str:\n")
    assert "ag__.if_form(" in source
    assert "create_converted_entity" not in source


def test_to_code_shows_the_users_defaults_for_methods_too():
    class Scaler:
        def scale(self, x, factor=0.5, *, offset=2):
            if x:
                return x * factor + offset
            return offset

    source = api.to_code(Scaler().scale)
    assert source.startswith("def scale(self, x, factor=0.5, *, offset=2):\n")
    assert api.to_graph(Scaler().scale)(4) == 4.0


def test_convert_decorator_and_pickling_by_reference():
    assert api_testing_module.decorated_square(-3) == 9
    assert api_testing_module.decorated_square.__doc__ == "Squares x."
    restored = pickle.loads(pickle.dumps(api_testing_module.decorated_square))
    assert restored is api_testing_module.decorated_square


def test_do_not_convert_calls_the_function_as_it_is():
    seen = []

    @api.do_not_convert
    def untouched(x):
        seen.append(sys._getframe(0).f_code)
        return x

    def f(x):
        return untouched(x)

    assert api.to_graph(f)(5) == 5
    assert seen[0] is untouched.__code__


def test_converted_call_contract():
    def f(a, b=0):
        if a:
            return a + b
        return b

    assert api.converted_call(f, (1,), {"b": 2}) == 3
    assert api.converted_call(len, ([1, 2],), None) == 2


def test_resolver_fast_path_uses_the_builtin_overload():
    from autograph.operators import py_builtins
    namespace = api.namespace_for(api._user_options(True))
    assert namespace.converted(len) is py_builtins.len_
    assert namespace.converted(sorted) is sorted
    assert namespace.converted(len) is namespace.converted(len)


def test_generators_and_coroutines_are_left_unconverted_with_a_log(caplog):
    def gen(n):
        for i in range(n):
            yield i

    async def coro():
        return 1

    def uses(n):
        return list(gen(n)), asyncio.run(coro())

    ag_logging.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger="autograph"):
            assert api.to_graph(gen) is gen
            assert api.to_graph(uses)(3) == ([0, 1, 2], 1)
    finally:
        ag_logging.set_verbosity(0)
    assert any("generators and coroutines are not converted" in r.getMessage()
               for r in caplog.records)


def test_errors():
    assert issubclass(errors.ConversionError, errors.AutoGraphError)
    assert issubclass(errors.StagingError, errors.AutoGraphError)
    with pytest.raises(errors.ConversionError, match="built-in"):
        api.to_graph(len)
    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)
    with pytest.raises(errors.ConversionError, match="no_source"):
        api.to_graph(namespace["no_source"])
    # Called from converted code, such a function simply runs as it is.
    def f(x):
        return namespace["no_source"](x)
    assert api.to_graph(f)(4) == 4


def _bad_loop_options(values):
    for v in values:
        api.set_loop_options(no_such_option=1)
    return values


def test_conversion_errors_name_the_file_and_line():
    with pytest.raises(errors.ConversionError) as info:
        api.to_graph(_bad_loop_options)
    message = str(info.value)
    assert "_bad_loop_options" in message and "no_such_option" in message
    assert f"{__file__}:{_bad_loop_options.__code__.co_firstlineno}" in message


class _Unhashable:
    __hash__ = None

    def __eq__(self, other):
        return self is other

    def __call__(self, x):
        return x + 1 if x else 0


_unhashable = _Unhashable()


def _calls_unhashable(x):
    return _unhashable(x) + _unhashable(x)


def test_unhashable_callable_objects_are_called_and_converted():
    # `ag__.converted` looks callees up in a dict: an unhashable one is decided per call.
    assert api.to_graph(_calls_unhashable)(2) == 6
    assert "ag__.if_exp(" in api.to_code(_Unhashable.__call__)


def test_methods_and_callable_objects():
    class Scaler:
        def __init__(self, k):
            self.k = k

        def scale(self, x):
            if x:
                return x * self.k
            return 0

        def __call__(self, x):
            return self.scale(x) + 1

    s = Scaler(3)
    assert api.to_graph(s.scale)(2) == 6
    assert api.to_graph(s)(2) == 7
    assert api.to_graph(functools.partial(s.scale, 4))() == 12


def test_recursion_depth():
    # Recursion through a converted `if` costs two frames per level (the function and the
    # branch it calls), so 400 levels fit the default limit; through a conditional
    # expression too (if_exp returns the branch's lambda, which the function calls).
    limit = sys.getrecursionlimit()
    assert api.to_graph(api_testing_module.factorial)(400) == api_testing_module.factorial(400)
    assert api.to_graph(api_testing_module.plain_recursion)(400) == 400
    assert sys.getrecursionlimit() == limit


pick = lambda x, y=2: (x or y) if x > 0 else len([x])  # noqa: E731


def test_lambdas_convert_and_print():
    converted = api.to_graph(pick)
    assert [converted(v) for v in (0, 3)] == [pick(v) for v in (0, 3)]
    assert api.to_code(pick).startswith("lambda x, y")
    assert "ag__.if_exp(" in api.to_code(pick)
