"""Tried as a new user would: identity-convert (parse -> unparse -> load, no converter) every
function and method of pure-Python standard library modules, put the converted versions in
place of the originals, and run the standard library's own tests against them. A few modules
are also run with every call routed through an extra local, like autograph's call wrapping.
"""

import contextlib
import importlib
import io
import types
import unittest

import pytest

import gast

from autograph.pyct import transformer
from autograph.pyct import transpiler

# (module, its test module in the `test` package, the attribute of the test module holding
# the pure-Python variant of the module when the tests import a fresh copy of it).
STDLIB_CASES = [
    ("textwrap", "test.test_textwrap", None),
    ("colorsys", "test.test_colorsys", None),
    ("fnmatch", "test.test_fnmatch", None),
    ("shlex", "test.test_shlex", None),
    ("heapq", "test.test_heapq", "py_heapq"),
    ("bisect", "test.test_bisect", "py_bisect"),
    ("string", "test.test_string", None),
    ("difflib", "test.test_difflib", None),
    ("html", "test.test_html", None),
    ("base64", "test.test_base64", None),
    ("posixpath", "test.test_posixpath", None),
    ("copy", "test.test_copy", None),
    ("fractions", "test.test_fractions", None),
    ("ipaddress", "test.test_ipaddress", None),
    ("graphlib", "test.test_graphlib", None),
    ("quopri", "test.test_quopri", None),
    ("urllib.parse", "test.test_urlparse", None),
    ("calendar", "test.test_calendar", None),
    ("statistics", "test.test_statistics", None),
    # The pure-Python json: its decoder, encoder and scanner submodules, closures included.
    ("json", "test.test_json", "pyjson"),
]
SUBMODULES = {"json": ("decoder", "encoder", "scanner")}


class IdentityTranspiler(transpiler.PyToPy):
    """No converter at all: what comes out must behave exactly like what went in."""


class _CallThrough:
    """The extra local of CallWrappingTranspiler: counts the calls made through it."""

    def __init__(self):
        self.calls = 0

    def passthrough(self, function):
        self.calls += 1
        return function


class _WrapCalls(transformer.Base):
    def visit_Call(self, node):
        node = self.generic_visit(node)
        wrapper = gast.Attribute(gast.Name("ag__", gast.Load(), None, None), "passthrough",
                                 gast.Load())
        node.func = gast.Call(wrapper, [node.func], [])
        return node


class CallWrappingTranspiler(transpiler.PyToPy):
    """Routes every call through an extra local, the way autograph's call_trees does:
    exercises transformer.Base, extra locals and closures on real code."""

    def __init__(self):
        super().__init__()
        self.call_through = _CallThrough()

    def get_extra_locals(self):
        return {"ag__": self.call_through}

    def transform_ast(self, node, ctx):
        return _WrapCalls(ctx).visit(node)


def _defined_in(fn, module):
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code is None:
        return False
    # Modules frozen into the interpreter (posixpath) report '<frozen name>' as file.
    return code.co_filename in (getattr(module, "__file__", None), f"<frozen {module.__name__}>")


class _Patcher:
    """Replaces a module's functions and its classes' methods with converted versions and
    puts everything back afterwards."""

    def __init__(self, converter):
        self.converter = converter
        self.undo = []
        self.replacements = {}  # original function -> converted function
        self.converted_count = 0
        self.visited_classes = set()

    def _convert(self, fn):
        if fn in self.replacements:  # aliases (bisect = bisect_right) stay identical
            return self.replacements[fn]
        converted, _, _ = self.converter.transform(fn, None)
        self.replacements[fn] = converted
        self.converted_count += 1
        return converted

    def _set(self, owner, name, value):
        self.undo.append((owner, name, owner.__dict__[name] if isinstance(owner, type)
                          else getattr(owner, name)))
        setattr(owner, name, value)

    def _patch_class(self, cls, module):
        if cls in self.visited_classes:
            return
        self.visited_classes.add(cls)
        for name, member in list(vars(cls).items()):
            if isinstance(member, (staticmethod, classmethod)):
                if _defined_in(member.__func__, module):
                    self._set(cls, name, type(member)(self._convert(member.__func__)))
            elif isinstance(member, property):
                accessors = [member.fget, member.fset, member.fdel]
                if any(_defined_in(a, module) for a in accessors):
                    new_accessors = [self._convert(a) if _defined_in(a, module) else a
                                     for a in accessors]
                    self._set(cls, name, property(*new_accessors, member.__doc__))
            elif _defined_in(member, module):
                self._set(cls, name, self._convert(member))
            elif isinstance(member, type) and member.__module__ == cls.__module__:
                self._patch_class(member, module)

    def patch_module(self, module):
        for name, value in list(vars(module).items()):
            if _defined_in(value, module):
                self._set(module, name, self._convert(value))
            elif isinstance(value, type) and value.__module__ == module.__name__:
                self._patch_class(value, module)

    def patch_references(self, namespace_owner):
        """Test modules often did `from module import function` or stored functions in
        test-case class attributes: update those references too."""
        for name, value in list(vars(namespace_owner).items()):
            if isinstance(value, types.FunctionType) and value in self.replacements:
                self._set(namespace_owner, name, self.replacements[value])
            elif isinstance(value, staticmethod) and value.__func__ in self.replacements:
                self._set(namespace_owner, name, staticmethod(self.replacements[value.__func__]))
            elif isinstance(value, type) and issubclass(value, unittest.TestCase):
                self.patch_references(value)

    def restore(self):
        for owner, name, value in reversed(self.undo):
            setattr(owner, name, value)
        self.undo.clear()


@contextlib.contextmanager
def converted_module(modules, test_module, converter):
    patcher = _Patcher(converter)
    try:
        for module in modules:
            patcher.patch_module(module)
        patcher.patch_references(test_module)
        yield patcher
    finally:
        patcher.restore()


def _run_tests(test_module):
    suite = unittest.defaultTestLoader.loadTestsFromModule(test_module)
    stream = io.StringIO()
    result = unittest.TextTestRunner(stream=stream, verbosity=0).run(suite)
    return result, stream.getvalue()


@pytest.fixture(scope="module")
def converter():
    return IdentityTranspiler()


converted_totals = {}


@pytest.mark.parametrize("module_name, test_module_name, variant",
                         STDLIB_CASES, ids=[case[0] for case in STDLIB_CASES])
def test_stdlib_module_behaves_the_same_when_converted(module_name, test_module_name, variant,
                                                       converter):
    test_module = importlib.import_module(test_module_name)
    module = getattr(test_module, variant) if variant else importlib.import_module(module_name)
    modules = [module] + [getattr(module, name) for name in SUBMODULES.get(module_name, ())]
    with converted_module(modules, test_module, converter) as patcher:
        assert patcher.converted_count > 0
        converted_totals[module_name] = patcher.converted_count
        sample = next(iter(patcher.replacements.values()))
        assert sample.__code__.co_filename != module.__file__  # really the generated code
        result, output = _run_tests(test_module)
    assert result.testsRun > 0
    assert result.wasSuccessful(), output[-5000:]


def test_a_few_hundred_functions_were_converted():
    if len(converted_totals) < len(STDLIB_CASES):
        pytest.skip("needs the whole module (run all the parametrized cases)")
    assert sum(converted_totals.values()) >= 300, converted_totals


WRAPPED_CASES = ["textwrap", "difflib", "fractions", "json"]


@pytest.mark.parametrize("module_name", WRAPPED_CASES)
def test_stdlib_module_behaves_the_same_with_every_call_wrapped(module_name):
    module_name, test_module_name, variant = next(
        case for case in STDLIB_CASES if case[0] == module_name)
    test_module = importlib.import_module(test_module_name)
    module = getattr(test_module, variant) if variant else importlib.import_module(module_name)
    modules = [module] + [getattr(module, name) for name in SUBMODULES.get(module_name, ())]
    converter = CallWrappingTranspiler()
    with converted_module(modules, test_module, converter):
        result, output = _run_tests(test_module)
    assert result.testsRun > 0
    assert converter.call_through.calls > 0
    assert result.wasSuccessful(), output[-5000:]
