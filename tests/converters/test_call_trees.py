"""Every call goes through ag__.converted; the callee is converted when it is user code."""

import collections
import functools
import sys
import warnings

from autograph.impl import api
import numpy as np

from converter_testing import assert_same_behaviour, assert_same_in_graphs, code


def helper(x):
    if x > 0:
        return x * 2
    return -x


def caller(x, *rest, **kw):
    return helper(x) + len(rest) + sum(kw.values()) + max(x, *rest, 0)


def test_generated_code_wraps_every_call_and_keeps_arguments():
    source = code(caller)
    # One or two plain positional arguments: the fixed-arity resolvers.
    assert "ag__.converted_1(helper)(x)" in source
    assert "ag__.converted(max)(x, *rest, 0)" in source
    assert "ag__.converted_1(sum)(ag__.converted(kw.values)())" in source


def test_fixed_arity_calls_behave_like_the_builtins():
    def f(values, n):
        out = [abs(n), len(values), min(n, 3), max(values), isinstance(n, int),
               next(iter(values)), int("7"), sum(values, 10), list(range(n)),
               list(enumerate(values, 1)), list(zip(values, values))]
        print(n, values)
        return out

    assert_same_behaviour(f, ([3, 1, 2], 5), ([], -2), ([1], "x"))

    def wrong_arity(n):
        return abs(n, n)

    assert_same_behaviour(wrong_arity, (1,))


def test_rebound_builtins_and_callees_are_resolved_on_every_call():
    import builtins

    def f(x):
        return min(x, 0) + helper_target(x)

    converted = api.to_graph(f)
    global helper_target
    helper_target = lambda x: 1  # noqa: E731
    assert converted(-2) == -1
    helper_target = lambda x: 10  # noqa: E731
    assert converted(-2) == 8
    original_min = builtins.min
    builtins.min = lambda x, y: 100
    try:
        assert converted(-2) == 110 == f(-2)
    finally:
        builtins.min = original_min


helper_target = None


def test_calls_behave_like_python():
    assert_same_behaviour(caller, (1,), (-3, 4, 5), lambda: (2,))
    converted = api.to_graph(caller)
    assert converted(1, 2, a=5) == caller(1, 2, a=5)


def test_user_callees_are_converted_at_run_time():
    codes = []

    def spy(x):
        codes.append(sys._getframe(0).f_code)
        return x

    def f(x):
        return spy(x)

    api.to_graph(f)(1)
    assert codes[0] is not spy.__code__  # the converted spy ran
    assert codes[0].co_filename == spy.__code__.co_filename  # reporting the user's file
    codes.clear()
    api.to_graph(f, recursive=False)(1)
    assert codes[0] is spy.__code__


class Base:
    def greet(self):
        return "base"


class Child(Base):
    def greet(self):
        if True:
            return "child+" + super().greet()

    @staticmethod
    def static(x):
        return x + 1

    @classmethod
    def klass(cls, x):
        return cls.__name__, x


def test_methods_super_static_and_class_methods():
    def f(obj):
        return obj.greet(), obj.static(1), Child.klass(2), obj.klass(3)

    assert_same_behaviour(f, lambda: (Child(),))
    assert api.to_graph(Child().greet)() == "child+base"


def test_lambdas_partials_callable_objects_and_decorators():
    class Adder:
        def __init__(self, n):
            self.n = n

        def __call__(self, x):
            if x:
                return x + self.n
            return self.n

    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            print("calling", fn.__name__)
            return fn(*args)
        return wrapper

    @logged
    def decorated(x):
        return x * 3

    def f(x):
        square = lambda v: v * v  # noqa: E731
        add = functools.partial(lambda a, b: a + b, 10)
        return square(x), add(x), Adder(5)(x), decorated(x)

    assert_same_behaviour(f, 0, 4)


def test_frames_are_not_added():
    def depth():
        return len([f for f in _frames()])

    def f():
        return depth()

    plain = f()
    assert api.to_graph(f)() == plain


def _frames():
    frame = sys._getframe(1)
    while frame is not None:
        yield frame
        frame = frame.f_back


def test_namedtuple_gets_the_callers_module():
    def make():
        return collections.namedtuple("Point", "x y")

    assert api.to_graph(make)().__module__ == make().__module__ == __name__


def test_warning_stacklevel_counts_the_same_frames():
    def warn_caller():
        warnings.warn("careful", UserWarning, stacklevel=2)

    def f():
        warn_caller()

    with warnings.catch_warnings(record=True) as plain:
        warnings.simplefilter("always")
        f()
    with warnings.catch_warnings(record=True) as converted:
        warnings.simplefilter("always")
        api.to_graph(f)()
    # The warning is attributed to f in both cases (same function name, same module).
    assert [w.message.args for w in converted] == [w.message.args for w in plain]
    assert converted[0].filename.endswith(".py")


def test_builtins_resolve_like_the_original():
    import builtins

    def uses_default(x, len=len):
        return len(x)

    def uses_shadow(x):
        return round(x)

    assert_same_behaviour(uses_default, ([1, 2],))
    converted = api.to_graph(uses_shadow)
    original_round = builtins.round
    builtins.round = lambda v: "patched"
    try:
        assert converted(-1.2) == uses_shadow(-1.2) == "patched"
    finally:
        builtins.round = original_round
    assert converted(-1.2) == -1


def abs(x):  # a global shadowing a builtin  # noqa: A001
    return "global abs"


def test_global_shadowing_builtin():
    def f(x):
        return abs(x)

    assert api.to_graph(f)(-1) == "global abs"


# The tree call_trees makes, and the marks it leaves for the converters after it ---------

import gast as _gast

from autograph.converters import call_trees
from autograph.core import converter, marks
from autograph.pyct import anno, parser, templates, transformer, naming


def _parsed(fn):
    return parser.parse_entity_with_location(fn, annotate_origins=True).node


def _context(fn):
    info = transformer.EntityInfo(name=fn.__name__, source_code="", source_file="<test>",
                                  future_features=(), namespace={})
    return transformer.Context(info, naming.Namer({}),
                               user_context=converter.ProgramContext(
                                   converter.STANDARD_OPTIONS, entity=fn))


# _Child.method holds a call of every kind the converter meets: in decorators, defaults and
# annotations (evaluated in the enclosing scope), in a lambda and in a comprehension, a
# zero-argument super(), starred and keyword arguments, a call of a call's result, and
# calls inside if-else, `or` and `not`, whose enclosing expressions hold a choice (they
# stay unmarked, while the expressions and statements holding none are marked as
# holding none).
class _Base:
    def method(self, x):
        return x


class _Child(_Base):
    def method(self, x, y: "int" = len("ab")):
        @staticmethod
        def decorated(z=abs(-1)) -> type(None):
            return z
        square = lambda v, w=min(1, 2): pow(v, 2, *()) + w  # noqa: E731
        values = [square(v) for v in range(x) if bool(v)]
        return super().method(sum(values, **{})) + (f(x) if callable(f) else -x) + (
            not x or g(y)(z=1))


def f(x):
    return x


def g(y):
    return lambda z: z


def test_every_user_call_is_wrapped_and_keeps_its_origin():
    node = call_trees.transform(_parsed(_Child.method), _context(_Child.method))
    wrapped = [n for n in _gast.walk(node) if isinstance(n, _gast.Call)
               and isinstance(n.func, _gast.Call) and isinstance(n.func.func, _gast.Attribute)
               and n.func.func.attr.startswith("converted")]
    # len, abs, type, min, pow, square, range, bool, super, .method, sum, f, callable, g,
    # g(y)
    assert len(wrapped) == 15
    explicit_super = next(n for n in wrapped if isinstance(n.func.args[0], _gast.Name)
                          and n.func.args[0].id == "super")
    assert [a.id for a in explicit_super.args] == ["__class__", "self"]
    assert anno.getanno(explicit_super, anno.Basic.ORIGIN).loc.lineno == (
        _Child.method.__code__.co_firstlineno + 6)
    source = code(_Child.method)
    assert "ag__.converted_2(super)(__class__, self).method" in source
    assert "ag__.converted_3(pow)(v, 2, *())" not in source  # starred: the generic one
    assert "ag__.converted(pow)(v, 2, *())" in source


def test_expressions_and_statements_without_choices_are_marked():
    node = call_trees.transform(_parsed(_Child.method), _context(_Child.method))
    marked = [n for n in _gast.walk(node) if marks.holds_no_choice(n)]
    assert marked
    for n in marked:
        assert not any(isinstance(m, marks.CHOICE_TYPES) for m in _gast.walk(n))
    holding = [n for n in _gast.walk(node) if isinstance(n, (_gast.Return, _gast.BinOp))
               and any(isinstance(m, marks.CHOICE_TYPES) for m in _gast.walk(n))]
    assert holding
    for n in holding:
        assert not marks.holds_no_choice(n)
    # Copies keep the mark; the relevance walk for choices skips what is marked.
    copied = templates.copy_tree(marked[0])
    assert marks.holds_no_choice(copied)
    sneaked = _gast.UnaryOp(op=_gast.Not(), operand=_gast.Constant(value=1, kind=None))
    statement = next(n for n in marked if isinstance(n, _gast.Assign))
    statement.value = sneaked
    assert id(sneaked) not in marks.nodes_containing(node, marks.CHOICE_TYPES)
    assert id(sneaked) in marks.nodes_containing(node, (_gast.UnaryOp, _gast.Call))


# --- instances of the user's classes: __init__ is converted --------------------------------

class Buffer:
    def __init__(self, n, fill=0.0):
        self.data = np.full(n, fill)
        if fill > 1.0:                # on a symbolic fill: a graph if
            self.data[0] = -1.0

    def total(self):
        return self.data.sum()


class Sized(Buffer):
    def __init__(self, n):
        super().__init__(n, 2.0)


class Returns:
    def __init__(self):
        return 1


def uses_classes(x):
    buffer = Buffer(x.shape[0], x[0])
    return buffer.total(), Sized(x.shape[0]).total(), isinstance(buffer, Buffer)


def test_classes_made_in_converted_code_run_a_converted_init():
    assert_same_behaviour(uses_classes, np.array([0.5, 2.0]), np.array([3.0]))
    assert_same_in_graphs(uses_classes, np.array([0.5, 2.0]), np.array([3.0]))
    assert_same_behaviour(lambda: Returns())


def test_classes_with_their_own_construction_are_called_as_they_are():
    import collections
    import dataclasses
    from autograph.impl import api

    @dataclasses.dataclass
    class Point:
        x: float

    Pair = collections.namedtuple("Pair", "a b")
    resolver = api._resolver_for(api.converter.STANDARD_OPTIONS)
    assert resolver.converted(Point) is Point and resolver.converted(Pair) is Pair
    assert resolver.converted(ValueError) is ValueError
    assert resolver.converted(Buffer) is not Buffer


class FuzzBuf:
    def __init__(self, n):
        self.data = np.zeros(n)

    def total(self):
        pass


def fuzz_seed_22(x):
    # Minimised fuzzer program: np.zeros of a symbolic size in the __init__ of a class.
    buf1 = FuzzBuf(x.shape[0])
    return buf1.data


def test_fuzzer_class_made_with_a_symbolic_size():
    assert_same_in_graphs(fuzz_seed_22, np.array([-0.5]), np.array([1.0, 2.0]))
