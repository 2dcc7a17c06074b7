"""Tests for transpiler.PyToPy: converted functions behave like the originals and share
their globals, closures and metadata; conversions are cached."""

import inspect
import linecache
import sys
import traceback

import gast
import pytest

from autograph.pyct import errors
from autograph.pyct import transpiler

counter = 0
shadowed_builtin_calls = []


def min(x):  # pylint: disable=redefined-builtin
    """Shadows the builtin in this module, so the converted code must see it too."""
    shadowed_builtin_calls.append(x)
    return -1


class Identity(transpiler.PyToPy):
    pass


class AddsOne(transpiler.PyToPy):
    """Rewrites every integer constant n to n + 1, renames the function, uses an extra local."""

    def __init__(self):
        super().__init__()
        self.transform_calls = 0

    def get_transformed_name(self, node):
        return "converted__" + node.name

    def get_extra_locals(self):
        return {"ag__": sys.modules[__name__]}

    def get_caching_key(self, user_context):
        return user_context

    def transform_ast(self, node, ctx):
        self.transform_calls += 1
        assert ctx.info.source_file in (__file__, "<test-transpiler-cell>")
        assert ctx.namer.new_symbol("ag__", ()) != "ag__"

        class Increment(gast.NodeTransformer):
            def visit_Constant(self, constant):
                if type(constant.value) is int:
                    constant.value += 1
                return constant

        return Increment().visit(node)


def global_writer(x):
    global counter
    counter += x
    return counter


def uses_shadowed_min(values):
    return min(values)


def make_counter(start):
    count = start

    def increment(step=1, *, twice=False):
        """Adds to the enclosing count."""
        nonlocal count
        count += step * (2 if twice else 1)
        return count
    return increment


class Base:
    def greet(self):
        return "base"


class Child(Base):
    def __init__(self):
        self.__secret = 7

    def greet(self, punctuation="!"):
        return super().greet() + punctuation + str(self.__secret)

    @staticmethod
    def static(x):
        return x * 3

    @classmethod
    def make(cls):
        return cls.__name__


def annotated(x: int, y: "str" = "a") -> list:
    return [x, y]


def generator(n):
    for i in range(n):
        yield i * i


async def coroutine(x):
    return x + 1


def raises_on_line_two(x):
    y = x + 1
    raise ValueError(y)


def test_identity_conversion_behaves_like_the_original():
    converted, module, _ = Identity().transform(generator, None)
    assert list(converted(4)) == [0, 1, 4, 9]
    assert module.__file__ == converted.__code__.co_filename
    assert converted is not generator


def test_global_writes_reach_the_original_module():
    global counter
    counter = 0
    converted, _, _ = Identity().transform(global_writer, None)
    converted(5)
    assert counter == 5
    assert converted.__globals__ is global_writer.__globals__


def test_shadowed_builtins_are_resolved_like_the_original():
    converted, _, _ = Identity().transform(uses_shadowed_min, None)
    assert converted([1, 2]) == -1
    assert shadowed_builtin_calls[-1] == [1, 2]


def test_closure_cells_are_shared_with_the_original():
    increment = make_counter(10)
    converted, _, _ = Identity().transform(increment, None)
    assert converted() == 11
    assert increment() == 12  # the original sees the converted function's nonlocal write
    assert converted(2, twice=True) == 16


def test_metadata_is_kept():
    increment = make_counter(0)
    increment.custom_attribute = "kept"
    converted, _, _ = Identity().transform(increment, None)
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__", "__defaults__",
                      "__kwdefaults__", "custom_attribute"):
        assert getattr(converted, attribute) == getattr(increment, attribute), attribute
    assert inspect.signature(converted) == inspect.signature(increment)


def test_annotations_and_defaults_are_the_originals_objects():
    converted, module, _ = Identity().transform(annotated, None)
    assert converted.__annotations__ == {"x": int, "y": "str", "return": list}
    assert converted(1) == [1, "a"]
    # The generated module cannot evaluate the user's annotations or defaults itself.
    assert "-> list" not in inspect.getsource(module)


def test_methods_super_and_private_names():
    child = Child()
    converted, _, _ = Identity().transform(child.greet, None)
    assert converted() == "base!7"
    assert converted.__self__ is child
    static, _, _ = Identity().transform(Child.static, None)
    assert static(2) == 6
    make, _, _ = Identity().transform(Child.make, None)
    assert make() == "Child"


def test_mangling_private_names_drops_what_the_parse_observer_saw():
    from autograph.pyct import anno

    class Observes(transpiler.PyToPy):
        def transform_ast(self, node, ctx):
            self.observer = anno.getanno(node, anno.Basic.PARSE_OBSERVER, None)
            return node

    convert = Observes()
    convert.parse_observer = lambda fn: _NameRecorder()  # (defined at the end of this file)
    convert.transform(Child().greet, None)  # reads self.__secret: mangled
    assert convert.observer is None
    assert convert.transform(Child.static, None) and convert.observer.names == {"x"}


def test_lambdas():
    scale = 3
    convert = Identity()
    converted, _, _ = convert.transform(lambda x, y=2: x * y * scale, None)
    assert converted(2) == 12
    assert converted.__name__ == "<lambda>"


def test_coroutines_stay_coroutines():
    import asyncio
    converted, _, _ = Identity().transform(coroutine, None)
    assert inspect.iscoroutinefunction(converted)
    assert asyncio.run(converted(1)) == 2


def test_transform_hook_name_extra_locals_and_options():
    converter = AddsOne()
    converted, module, _ = converter.transform(make_counter(0), "options-a")
    assert converted() == 2  # count += 1*(2 if twice else 1) -> constants incremented
    assert converted.__code__.co_name == "converted__increment"
    assert converted.__name__ == "increment"
    converter.transform(make_counter(5), "options-a")
    assert converter.transform_calls == 1  # same code object and options: cached
    converter.transform(make_counter(5), "options-b")
    assert converter.transform_calls == 2


def test_extra_locals_reach_the_converted_code():
    class UsesExtraLocal(transpiler.PyToPy):
        def get_extra_locals(self):
            return {"ag__": {"marker": "extra"}}

        def transform_ast(self, node, ctx):
            node.body = [gast.Return(gast.Subscript(
                gast.Name("ag__", gast.Load(), None, None), gast.Constant("marker", None),
                gast.Load()))]
            return node

    converted, _, _ = UsesExtraLocal().transform(make_counter(0), None)
    assert converted() == "extra"


def test_conversion_cache_per_code_object():
    converter = AddsOne()
    first, _, _ = converter.transform(generator, None)
    second, _, _ = converter.transform(generator, None)
    assert converter.transform_calls == 1
    assert first.__code__ is second.__code__


def test_equal_code_from_exec_is_converted_once():
    converter = AddsOne()
    source = "def from_cell(x):\n    return x + 10\n"
    filename = "<test-transpiler-cell>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    for _ in range(2):
        namespace = {}
        exec(compile(source, filename, "exec"), namespace)
        converted, _, _ = converter.transform(namespace["from_cell"], None)
        assert converted(0) == 11
    assert converter.transform_calls == 1


def test_source_map_points_to_the_original_lines():
    converted, _, source_map = Identity().transform(raises_on_line_two, None)
    with pytest.raises(ValueError) as info:
        converted(1)
    frame = traceback.extract_tb(info.tb)[-1]
    origin = source_map[(frame.filename, frame.lineno)]
    _, first_line = inspect.getsourcelines(raises_on_line_two)
    assert origin.loc.filename == __file__
    assert origin.loc.lineno == first_line + 2
    assert origin.function_name == "raises_on_line_two"
    assert origin.source_code_line.strip() == "raise ValueError(y)"


def test_builtins_are_rejected_with_a_clear_error():
    with pytest.raises(errors.SourceNotFoundError, match="built-in"):
        Identity().transform(sorted, None)


def test_free_variable_named_like_an_extra_local_is_reported():
    ag__ = 1

    def uses_ag():
        return ag__

    with pytest.raises(errors.PyCTError, match="ag__"):
        AddsOne().transform(uses_ag, None)


def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


def test_recursive_global_function_refers_to_the_module_global():
    global factorial
    converted, _, _ = Identity().transform(factorial, None)
    assert converted(5) == 120
    assert converted.__code__.co_name == "factorial"
    assert converted.__code__.co_freevars == ()  # `factorial` stays a global lookup
    original = factorial
    factorial = lambda n: -1  # noqa: E731
    try:
        assert converted(5) == -5  # like the original: the global is looked up at call time
    finally:
        factorial = original


def test_transform_ast_must_return_one_function():
    class ReturnsStatements(transpiler.PyToPy):
        def transform_ast(self, node, ctx):
            return [gast.Pass(), node]

    with pytest.raises(errors.PyCTError, match="one function"):
        ReturnsStatements().transform(generator, None)


def test_generated_source_is_readable_with_inspect():
    converted, module, _ = Identity().transform(raises_on_line_two, None)
    assert inspect.getsource(converted) == (
        "    def raises_on_line_two(x):\n"
        "        y = x + 1\n"
        "        raise ValueError(y)\n")
    assert inspect.getsource(module).startswith("# Generated by autograph from raises_on_line_two")


def test_concurrent_conversions_of_one_function_agree():
    import threading
    converter = Identity()
    results = []

    def convert():
        results.append(converter.transform(make_counter(0), None)[0].__code__)

    threads = [threading.Thread(target=convert) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8
    assert len({id(code) for code in results}) == 1


class Outer:
    def __init__(self):
        self.__hidden = "outer"

    def make_inner(self):
        outer_value = self.__hidden

        class Inner:
            def __init__(self):
                self.__hidden = "inner"

            def both(self):
                return outer_value, self.__hidden, self._Inner__hidden

        return Inner().both()


def test_private_names_of_nested_classes_use_their_own_class():
    converted, _, _ = Identity().transform(Outer().make_inner, None)
    assert converted() == ("outer", "inner", "inner")


def test_is_converted():
    converted, _, _ = Identity().transform(generator, None)
    assert transpiler.is_converted(converted)
    assert not transpiler.is_converted(generator)
    assert not transpiler.is_converted(len)


def test_is_converted_survives_a_replaced_code_object_and_source_maps_are_listed():
    converter = Identity()
    converted, _, source_map = converter.transform(generator, None)
    converted.__code__ = generator.__code__
    assert transpiler.is_converted(converted)
    assert source_map in converter.source_maps()


class _NameRecorder:
    """A parse observer: the names of the Name nodes it is shown."""

    node_classes = frozenset({gast.Name})

    def __init__(self):
        self.names = set()

    def enter(self, node):
        pass

    def leave(self, node):
        self.names.add(node.id)
