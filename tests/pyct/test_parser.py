"""Tests for parser and entity_source: finding the source of live entities, parsing it and
source text into gast."""

import functools
import linecache
import textwrap

import gast
import pytest

from autograph.pyct import entity_source
from autograph.pyct import errors
from autograph.pyct import parser
from autograph.pyct import unparser


def decorator(fn):
    return fn


def wrapping_decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def plain_function(x):
    return x + 1


@decorator
@decorator
def decorated_function(x):
    return x * 2


class Methods:

    @decorator
    def method(self, x):
        text = """
        kept as written
"""
        return text, x

    @staticmethod
    def static(y):
        return y

    @classmethod
    def klass(cls, z):
        return z


def make_closure(offset):
    def closure(x):
        return x + offset
    return closure


two_lambdas = [lambda x: x + 1, lambda x: x * 2]
nested_lambdas = (lambda y: lambda y: y + 3)
same_text_lambdas = (lambda a: a, lambda a: a)


def with_default_lambdas(f=lambda q: q + 1, g=lambda q: q - 1):
    return f, g


called_with_lambda = list(map(lambda z: z * 10, [1]))
multi_line_lambda = (lambda a,
                     b: a + b)


def _unparsed(node):
    return unparser.unparse(node, include_encoding_marker=False)


def test_plain_function():
    node, source = parser.parse_entity(plain_function)
    assert isinstance(node, gast.FunctionDef)
    assert node.name == "plain_function"
    assert source == "def plain_function(x):\n    return x + 1\n"


def test_decorators_are_not_part_of_the_node_or_source():
    node, source = parser.parse_entity(decorated_function)
    assert node.decorator_list == []
    assert source.startswith("def decorated_function(x):")


def test_methods_bound_static_and_class():
    for entity, name in ((Methods.method, "method"), (Methods().method, "method"),
                         (Methods.static, "static"), (Methods.klass, "klass"),
                         (Methods.__dict__["static"], "static")):
        node, source = parser.parse_entity(entity)
        assert node.name == name
        assert source.startswith(f"def {name}(")


def test_indented_source_keeps_multiline_strings_unchanged():
    node, _ = parser.parse_entity(Methods.method)
    text_value = node.body[0].value.value
    assert text_value == "\n        kept as written\n"


def test_closure_source():
    node, source = parser.parse_entity(make_closure(1))
    assert node.name == "closure"
    assert source == "def closure(x):\n    return x + offset\n"


@pytest.mark.parametrize("entity, expected", [
    (two_lambdas[0], "lambda x: x + 1"),
    (two_lambdas[1], "lambda x: x * 2"),
    (nested_lambdas, "lambda y: lambda y: y + 3"),
    (nested_lambdas(0), "lambda y: y + 3"),
    (same_text_lambdas[0], "lambda a: a"),
    (with_default_lambdas.__defaults__[0], "lambda q: q + 1"),
    (with_default_lambdas.__defaults__[1], "lambda q: q - 1"),
])
def test_lambdas_pick_the_right_one(entity, expected):
    node, source = parser.parse_entity(entity)
    assert isinstance(node, gast.Lambda)
    assert source == expected


def test_lambdas_with_the_same_text_on_one_line_map_to_their_own_columns():
    first = parser.parse_entity_with_location(same_text_lambdas[0])
    second = parser.parse_entity_with_location(same_text_lambdas[1])
    assert first.lineno == second.lineno
    assert first.col_offset < second.col_offset


def test_lambda_inside_a_call_and_multi_line_lambda():
    mapped = [None]
    mapper = map(lambda z: z - 5, mapped)
    node, source = parser.parse_entity(mapper.__reduce__()[1][0])
    assert source == "lambda z: z - 5"
    node, source = parser.parse_entity(multi_line_lambda)
    assert isinstance(node, gast.Lambda)
    assert [n.id for n in node.args.args] == ["a", "b"]
    assert "a + b" in source


def test_lambda_location_maps_back_to_file():
    found = parser.parse_entity_with_location(two_lambdas[1])
    line = linecache.getline(found.filename, found.lineno)
    assert line[found.col_offset:].startswith("lambda x: x * 2")


def test_function_location_maps_back_to_file():
    found = parser.parse_entity_with_location(Methods.static)
    line = linecache.getline(found.filename, found.lineno)
    assert line.strip() == "def static(y):"
    assert found.col_offset == 4


def test_functions_wrapped_by_functools_wraps_give_the_wrapper():
    wrapped = wrapping_decorator(plain_function)
    node, _ = parser.parse_entity(wrapped)
    assert node.name == "wrapper"


def test_nested_function_defined_locally():
    def local(a, *, b=2):
        def deeper():
            return a
        return deeper
    node, source = parser.parse_entity(local)
    assert node.name == "local"
    assert source.startswith("def local(a, *, b=2):")
    node, _ = parser.parse_entity(local(1))
    assert node.name == "deeper"


def test_class_source():
    node, source = parser.parse_entity(Methods)
    assert isinstance(node, gast.ClassDef)
    assert source.startswith("class Methods:")


def test_source_registered_in_linecache_is_found():
    source = "def from_cell(x):\n    return x - 1\n"
    filename = "<notebook-cell-test-parser>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    node, found_source = parser.parse_entity(namespace["from_cell"])
    assert node.name == "from_cell"
    assert found_source == source


def test_exec_without_source_raises_a_clear_error():
    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)
    with pytest.raises(errors.SourceNotFoundError, match=r"no_source.*<string>"):
        parser.parse_entity(namespace["no_source"])


@pytest.mark.parametrize("entity", [len, [].append, str.join, object.__init__, 42])
def test_no_source_entities_raise_source_not_found(entity):
    with pytest.raises(errors.SourceNotFoundError, match="Cannot convert"):
        parser.parse_entity(entity)


def test_source_not_found_is_not_an_os_error():
    assert not issubclass(errors.SourceNotFoundError, OSError)
    assert issubclass(errors.SourceNotFoundError, errors.PyCTError)


def test_deleted_source_file(tmp_path, monkeypatch):
    module_file = tmp_path / "vanishing_module.py"
    module_file.write_text("def vanish(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import vanishing_module
    module_file.unlink()
    linecache.checkcache(str(module_file))
    with pytest.raises(errors.SourceNotFoundError, match="cannot be read"):
        parser.parse_entity(vanishing_module.vanish)


def test_parse_and_parse_expression():
    node = parser.parse("x = 1")
    assert isinstance(node, gast.Assign)
    nodes = parser.parse("    a = 1\n    b = 2\n", single_node=False)
    assert [type(n).__name__ for n in nodes] == ["Assign", "Assign"]
    assert len(parser.parse("import os\nx = 1", preamble_len=1, single_node=False)) == 1
    with pytest.raises(ValueError):
        parser.parse("a = 1\nb = 2")
    expression = parser.parse_expression("  a + b  ")
    assert isinstance(expression, gast.BinOp)


def test_parse_entity_round_trip_behaves_like_the_original():
    node, _ = parser.parse_entity(Methods.method)
    namespace = {}
    exec(_unparsed(node), namespace)
    assert namespace["method"](None, 3) == Methods().method(3)


def test_lambdas_without_column_information_are_reported_as_ambiguous():
    code = same_text_lambdas[0].__code__
    # What a code object looks like under `python -X no_debug_ranges`.
    stripped = code.replace(co_linetable=b"")
    ambiguous = type(same_text_lambdas[0])(stripped, globals())
    positions = list(stripped.co_positions())
    if any(p[2] is not None for p in positions):
        pytest.skip("this Python still reports columns")
    with pytest.raises(errors.SourceNotFoundError, match="look alike"):
        parser.parse_entity(ambiguous)


def _exec_registered(source, filename):
    """Runs `source` as if it came from a file (its text registered in linecache)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"decorator": decorator}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


TRICKY_SOURCE = (
    "@decorator(lambda d: d)\n"
    "def after_decorator_lambda(x):\n"
    "    return x\n"
    "table = {'é': lambda e: e + 1, 'ü': lambda e: e + 2}\n"
    "if True:\n"
    "\tdef tab_indented(a, \\\n"
    "\t\t\tb):\n"
    "\t\treturn a + b\n"
    "nested_in_comprehension = [lambda n=n: n * 2 for n in range(2)]\n"
    "lambda_with_lambda_default = lambda f=lambda: 1: f\n"
)


def test_tricky_layouts():
    namespace = _exec_registered(TRICKY_SOURCE, "<tricky-layouts>")
    node, source = parser.parse_entity(namespace["after_decorator_lambda"])
    assert node.name == "after_decorator_lambda" and node.decorator_list == []
    assert parser.parse_entity(namespace["table"]["é"])[1] == "lambda e: e + 1"
    found = parser.parse_entity_with_location(namespace["table"]["ü"])
    assert found.source == "lambda e: e + 2"
    line = linecache.getline("<tricky-layouts>", found.lineno)
    assert line.encode()[found.col_offset:].startswith(b"lambda e: e + 2")
    node, source = parser.parse_entity(namespace["tab_indented"])
    assert source == "def tab_indented(a, \\\n\t\tb):\n\treturn a + b\n"
    assert parser.parse_entity(namespace["nested_in_comprehension"][1])[1] == "lambda n=n: n * 2"
    assert parser.parse_entity(namespace["lambda_with_lambda_default"])[1] == (
        "lambda f=lambda: 1: f")
    assert parser.parse_entity(namespace["lambda_with_lambda_default"]())[1] == "lambda: 1"


def test_stale_source_is_reported(tmp_path, monkeypatch):
    module_file = tmp_path / "edited_module.py"
    module_file.write_text("def edited(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import edited_module
    linecache.getlines(str(module_file))
    module_file.write_text("\n\n\ndef renamed(x):\n    return x\n")
    linecache.checkcache(str(module_file))
    with pytest.raises(errors.SourceNotFoundError, match="changed"):
        parser.parse_entity(edited_module.edited)


# Grammar-heavy files of the standard library and its test suite: every construct they use
# must survive the round trip (the whole library does; this sample keeps the test fast).

def test_functions_come_from_their_files_parse_once_then_are_parsed_again():
    from autograph.pyct import anno, ast_util

    def parsed(entity):
        found = parser.parse_entity_with_location(entity, annotate_origins=True)
        origins = [anno.getanno(n, anno.Basic.ORIGIN, None) for n in ast_util.walk(found.node)]
        return found[1:], gast.dump(found.node, include_attributes=True), origins

    entities = (decorated_function, Methods.method, Methods.static, make_closure(1),
                plain_function)
    entity_source._file_indexes.pop(__file__, None)  # pylint: disable=protected-access
    from_file = [parsed(entity) for entity in entities]
    index = entity_source._file_indexes[__file__]  # pylint: disable=protected-access
    # Handed out (closures are inside a function: never stored; they are parsed alone).
    assert (decorated_function.__code__.co_firstlineno + 2, 0) not in index.trees
    assert (Methods.method.__code__.co_firstlineno + 1, 4) not in index.trees
    assert (Methods.static.__code__.co_firstlineno + 1, 4) not in index.trees
    assert (make_closure.__code__.co_firstlineno, 0) in index.trees
    assert [parsed(entity) for entity in entities] == from_file  # parsed alone this time
    (source, _, lineno, col_offset), dump, origins = from_file[1]
    assert source.startswith("def method(self, x):") and "decorator" not in dump
    assert (lineno, col_offset) == (Methods.method.__code__.co_firstlineno + 1, 4)
    assert origins[0].loc.lineno == lineno and origins[0].source_code_line == (
        "def method(self, x):")


def test_only_the_file_indexed_last_keeps_its_untaken_functions():
    import textwrap

    entity_source._file_indexes.pop(__file__, None)  # pylint: disable=protected-access
    parser.parse_entity_with_location(plain_function, annotate_origins=True)
    index = entity_source._file_indexes[__file__]  # pylint: disable=protected-access
    assert (make_closure.__code__.co_firstlineno, 0) in index.trees
    entity_source._file_indexes.pop(textwrap.__file__, None)  # pylint: disable=protected-access
    found = parser.parse_entity_with_location(textwrap.dedent, annotate_origins=True)
    assert found.node.name == "dedent"
    assert index.trees == {}  # memory: one file's parse at most
    assert parser.parse_entity(make_closure)[0].name == "make_closure"  # parsed alone


def test_parsing_with_origins_leaves_no_cyclic_garbage():
    import gc
    parser.parse_entity_with_location(plain_function, annotate_origins=True)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        parser.parse_entity_with_location(plain_function, annotate_origins=True)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
