"""Conversion of one function: the converters in their fixed order, run by a pyct PyToPy
transpiler, and the policy deciding what may be converted at all."""

import ast
import dis
import gc
import inspect
import threading
import types

from autograph.converters import (
    asserts, break_statements, call_trees, conditional_expressions, continue_statements,
    control_flow, directives, functions, lists, logical_expressions, return_statements,
    slices, variables)
from autograph.core import ag_logging, code_locations, config, converter
from autograph.core.errors import ConversionError
from autograph.operators import py_builtins
from autograph.pyct import ast_util, parser, transpiler
from autograph.pyct.errors import PyCTError

# The fixed order of the converters (see ../shared/DESIGN.md). Each lowers one construct;
# later ones rely on earlier ones: jumps are flags before control flow moves blocks into
# functions, calls are wrapped before the generated overload calls appear, and and/or/if-else
# expressions are converted last so that the tests generated above are converted too.
CONVERTERS = (
    functions,                 # nested generators/classes stay as written
    directives,                # ag.set_loop_options(...) -> loop annotation
    break_statements,          # break -> flag, loop else -> guarded block after the loop
    continue_statements,       # continue -> flag
    return_statements,         # return inside if/loops -> flag + single return
    asserts,                   # assert -> ag__.assert_stmt
    lists,                     # l.append / l.pop on local lists -> overloads
    slices,                    # item writes on those lists -> ag__.set_item
    call_trees,                # f(x) -> ag__.converted(f)(x)
    control_flow,              # if/while/for -> ag__.if_stmt/while_stmt/for_stmt
    conditional_expressions,   # a if c else b -> ag__.if_exp
    logical_expressions,       # and/or/not -> ag__.and_/or_/not_
    variables,                 # reads of maybe-undefined outputs -> ag__.ld
)

GENERATED_NAME_PREFIX = "ag__"

_GENERATOR_FLAGS = (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
                    | inspect.CO_ITERABLE_COROUTINE)


def unconvertible_reason(fn):
    """Why a Python function must be called as it is (None if it can be converted)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return "it is not a Python function"
    if code.co_flags & _GENERATOR_FLAGS:
        return "generators and coroutines are not converted"
    return None


def is_denied(fn):
    """True when fn's module is on the do-not-convert list (config.CONVERSION_RULES)."""
    module = getattr(fn, "__module__", None)
    return isinstance(module, str) and config.is_denied_module(module)


class AutoGraphTranspiler(transpiler.PyToPy):
    """The PyToPy transpiler with the autograph converters and the `ag__` namespace."""

    def __init__(self, namespace_factory):
        super().__init__()
        self._namespace_factory = namespace_factory
        self._current = threading.local()

    def get_transformed_name(self, node):
        # The generated module defines the function inside a factory; under its own name it
        # would shadow the global a recursive function calls (so the recursive call would
        # need a closure cell the original does not have). The code object gets the user's
        # name back in convert_function.
        return GENERATED_NAME_PREFIX + node.name

    def get_extra_locals(self):
        return {"ag__": self._namespace_factory(self._current.options)}

    def get_caching_key(self, user_context):
        return user_context.options.caching_key()

    def transform_ast(self, node, ctx):
        for converter_module in CONVERTERS:
            node = converter_module.transform(node, ctx)
        if ag_logging.has_verbosity(3):
            ag_logging.log(3, "Converted %s:\n%s", ctx.info.name,
                           parser.unparse(node, include_encoding_marker=False))
        return node

    def transform_function(self, fn, user_context):
        self._current.options = user_context.options
        return super().transform_function(fn, user_context)

    def inspect_generated(self, tree, filename):
        spans = _thunk_lambda_spans(tree)
        if spans:
            _thunk_spans[filename] = spans


# Overloads that return the function to call (`ag__.if_exp(c, lambda: a, lambda: b, r)()`):
# their lambda arguments run directly from converted code, and their frames exist only
# because of the conversion (frame-counting overloads skip them).
_THUNK_OVERLOADS = frozenset({"if_exp", "and_", "or_"})
_thunk_spans = {}  # generated file -> {(line, end line, column, end column) of such lambdas}
_LOAD_CONST = dis.opmap["LOAD_CONST"]
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]


def _thunk_lambda_spans(tree):
    spans = set()
    for node in ast_util.walk(tree):
        if (node.__class__ is ast.Call and node.func.__class__ is ast.Attribute
                and node.func.attr in _THUNK_OVERLOADS
                and node.func.value.__class__ is ast.Name
                and node.func.value.id == GENERATED_NAME_PREFIX):
            for argument in node.args:
                if argument.__class__ is ast.Lambda:
                    spans.add((argument.lineno, argument.end_lineno, argument.col_offset,
                               argument.end_col_offset))
    return frozenset(spans)


def _thunk_paths(code, spans, path=(), found=None):
    """Paths (co_consts indices from `code`) of the lambda code objects made at `spans`: a
    lambda's LOAD_CONST carries the position of the lambda expression."""
    if found is None:
        found = []
    positions = None
    raw = code.co_code if any(
        isinstance(const, types.CodeType) and const.co_name == "<lambda>"
        for const in code.co_consts) else b""
    extended = 0
    for offset in range(0, len(raw), 2):
        opcode, argument = raw[offset], raw[offset + 1] | extended
        extended = (argument << 8) if opcode == _EXTENDED_ARG else 0
        if opcode != _LOAD_CONST:
            continue
        const = code.co_consts[argument]
        if isinstance(const, types.CodeType) and const.co_name == "<lambda>":
            if positions is None:
                positions = list(code.co_positions())
            if positions[offset // 2] in spans:
                found.append(path + (argument,))
    for index, const in enumerate(code.co_consts):
        if isinstance(const, types.CodeType):
            _thunk_paths(const, spans, path + (index,), found)
    return found


def _code_at(code, path):
    for index in path:
        code = code.co_consts[index]
    return code


# id(generated code) -> (generated code, the code run instead: the user's name, file and
# lines); and that code -> (generated file, first line), for to_code.
_rebuilt_codes = {}
_generated_locations = {}

# Converted code reports the user's file and lines (tracebacks, warnings, frames); False
# leaves the generated module's locations.
MAP_LOCATIONS_TO_SOURCE = True


def _mark_blocks(code, block_names, owner_names, blocks, lambdas):
    """`code` with its nested block functions renamed after the user function they belong
    to (tracebacks read `in f`, not `in if_body`), collecting the block functions and the
    lambdas for the frame-counting overloads (warnings.warn, sys._getframe)."""
    is_block = code.co_name in block_names
    names = owner_names if is_block else (code.co_name, code.co_qualname)
    constants = tuple(
        _mark_blocks(c, block_names, names, blocks, lambdas)
        if isinstance(c, types.CodeType) else c for c in code.co_consts)
    changes = {"co_consts": constants}
    if is_block:
        changes.update(co_name=names[0], co_qualname=names[1])
    code = code.replace(**changes)
    if is_block:
        blocks.append(code)
    elif code.co_name == "<lambda>":
        lambdas.append(code)
    return code


def _rebuilt_code(fn, code, module, source_map, context):
    entry = _rebuilt_codes.get(id(code))
    if entry is not None and entry[0] is code:
        return entry[1]
    new_code = code.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)
    generated_file = getattr(module, "__file__", None)
    spans = _thunk_spans.get(generated_file)
    thunk_paths = _thunk_paths(code, spans) if spans else ()
    if MAP_LOCATIONS_TO_SOURCE and generated_file:
        line_map, original_file = code_locations.line_map_from(source_map, generated_file)
        if line_map and original_file:
            new_code = code_locations.remap(new_code, line_map, original_file)
    blocks, lambdas = [], []
    new_code = _mark_blocks(new_code, context.generated_function_names,
                            (new_code.co_name, new_code.co_qualname), blocks, lambdas)
    py_builtins.register_generated_code(blocks, lambdas,
                                        [_code_at(new_code, path) for path in thunk_paths])
    _rebuilt_codes[id(code)] = (code, new_code)
    _generated_locations[new_code] = (generated_file, code.co_firstlineno)
    return new_code


def _location_of(fn):
    """'file:line' where fn is defined, for error messages ('' if unknown)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return ""
    return f"{code.co_filename}:{code.co_firstlineno}"


def convert_function(transpiler_, fn, options):
    """The converted version of a plain Python function (types.FunctionType).

    Raises ConversionError (with the cause attached) when fn cannot be converted.
    """
    context = converter.ProgramContext(options, entity=fn)
    # A conversion allocates tens of thousands of short-lived, partly cyclic objects (trees,
    # annotations, CFGs): with the collector running, every few hundred allocations it
    # rescans all of them (and, as the heap grows, the whole heap). Pausing it for the
    # conversion and letting it run once afterwards costs a fraction of that.
    pause_gc = gc.isenabled()
    if pause_gc:
        gc.disable()
    try:
        try:
            converted, module, source_map = transpiler_.transform(fn, context)
        except ConversionError:
            raise
        except PyCTError as e:
            message = str(e)
            where = _location_of(fn)
            if where and where.rsplit(":", 1)[0] not in message:
                message = f"{message} (defined at {where})"
            raise ConversionError(message) from e
        except Exception as e:
            where = _location_of(fn)
            raise ConversionError(
                f"Cannot convert {getattr(fn, '__qualname__', fn)!r}"
                f"{f' (defined at {where})' if where else ''}: "
                f"{type(e).__name__}: {e}") from e
        converted.__code__ = _rebuilt_code(fn, converted.__code__, module, source_map,
                                           context)
    finally:
        if pause_gc:
            gc.enable()
    ag_logging.log(1, "Converted %s (module %s)", getattr(fn, "__qualname__", fn),
                   module.__name__)
    return converted


def generated_source(converted_fn):
    """The source of a converted function, as the user would read it (no factory wrapper)."""
    import linecache
    import textwrap
    generated_file, first_line = _generated_locations.get(converted_fn.__code__, (None, None))
    if generated_file is None:
        source = textwrap.dedent(inspect.getsource(converted_fn))
    else:
        lines = linecache.getlines(generated_file)
        source = textwrap.dedent("".join(inspect.getblock(lines[first_line - 1:])))
    if source.startswith("return lambda"):  # the factory returns a converted lambda
        source = source[len("return "):]
    return source.replace("def " + GENERATED_NAME_PREFIX, "def ", 1)
