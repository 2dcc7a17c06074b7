"""Builtin overloads equal the builtins on Python values, errors and messages included."""

import io

import pytest

from autograph.operators import py_builtins

CASES = [
    ("len", ([1, 2, 3],), {}),
    ("len", (5,), {}),
    ("len", (), {}),
    ("range", (1, 10, 3), {}),
    ("range", (), {}),
    ("range", (1.5,), {}),
    ("abs", (-3,), {}),
    ("abs", ("x",), {}),
    ("int", ("12",), {}),
    ("int", ("ff",), {"base": 16}),
    ("int", ("zz",), {}),
    ("int", (), {}),
    ("float", ("1.5",), {}),
    ("float", ("nan?",), {}),
    ("bool", ([],), {}),
    ("min", ([3, 1, 2],), {}),
    ("min", ([],), {}),
    ("min", ([],), {"default": 7}),
    ("max", (1, 5, 2), {"key": lambda v: -v}),
    ("max", (), {}),
    ("sum", ([1, 2, 3], 10), {}),
    ("sum", (["a"],), {}),
    ("any", ([0, 0, 1],), {}),
    ("all", ([1, 0],), {}),
    ("isinstance", (1, int), {}),
    ("isinstance", (1, 5), {}),
    ("next", (iter([]), "default"), {}),
    ("next", (iter([]),), {}),
]


def outcome(fn, args, kwargs):
    try:
        result = fn(*args, **kwargs)
    except Exception as e:  # compare type and message
        return ("raised", type(e), str(e))
    if isinstance(result, (range, map, zip, enumerate)) or hasattr(result, "__next__"):
        result = list(result)
    return ("returned", result)


@pytest.mark.parametrize("name,args,kwargs", CASES)
def test_overload_equals_builtin(name, args, kwargs):
    builtin = getattr(__builtins__, name) if hasattr(__builtins__, name) else __builtins__[name]
    overload = py_builtins.BUILTIN_OVERLOADS[builtin]
    assert outcome(overload, args, kwargs) == outcome(builtin, args, kwargs)


def test_zip_enumerate_iter_are_lazy_like_builtins():
    assert list(py_builtins.enumerate_("ab", start=3)) == [(3, "a"), (4, "b")]
    assert list(py_builtins.zip_([1, 2], "ab")) == [(1, "a"), (2, "b")]
    with pytest.raises(ValueError):
        list(py_builtins.zip_([1, 2], "a", strict=True))
    iterator = py_builtins.iter_([1])
    assert next(iterator) == 1


def test_print_passes_keywords_and_file():
    buffer = io.StringIO()
    py_builtins.print_(1, "a", sep="-", end="!", file=buffer)
    assert buffer.getvalue() == "1-a!"
    with pytest.raises(TypeError) as overload_error:
        py_builtins.print_(1, bogus=True)
    with pytest.raises(TypeError) as builtin_error:
        print(1, bogus=True)
    assert str(overload_error.value) == str(builtin_error.value)


def test_overload_of():
    assert py_builtins.overload_of(len) is py_builtins.len_
    assert py_builtins.overload_of(sorted) is None
    assert py_builtins.overload_of({}.get) is None


def test_overloads_pass_every_call_shape_to_the_builtin():
    # The overloads take up to three positional arguments as parameters (fast path): calls
    # with fewer, more, keywords or none must behave, and fail, exactly like the builtin.
    from autograph.operators import py_builtins
    assert py_builtins.range_(5) == range(5)
    assert py_builtins.range_(1, 9, 2) == range(1, 9, 2)
    assert py_builtins.min_(4, 2, 3, 1) == 1
    assert py_builtins.min_([3, 1], key=lambda v: -v) == 3
    assert py_builtins.max_((), default=7) == 7
    assert list(py_builtins.enumerate_("ab", start=1)) == [(1, "a"), (2, "b")]
    assert py_builtins.abs_(-2) == 2
    assert py_builtins.int_("ff", 16) == 255
    assert py_builtins.int_() == 0
    for overload, builtin, args, kwargs in (
            (py_builtins.abs_, abs, (), {}), (py_builtins.abs_, abs, (1, 2), {}),
            (py_builtins.abs_, abs, (), {"x": 1}), (py_builtins.len_, len, (), {}),
            (py_builtins.range_, range, (), {}), (py_builtins.range_, range, (1, 2, 3, 4), {}),
            (py_builtins.min_, min, (), {}), (py_builtins.zip_, zip, (1,), {})):
        with pytest.raises(TypeError) as expected:
            builtin(*args, **kwargs)
        with pytest.raises(TypeError) as got:
            overload(*args, **kwargs)
        assert str(got.value) == str(expected.value)
