"""Conversion of one function: the converters in their fixed order, run by a pyct PyToPy
transpiler, and the policy deciding what may be converted at all."""

import ast
import dis
import gc
import inspect
import itertools
import threading
import types

import gast

from autograph.converters import (
    asserts, break_statements, call_trees, comprehensions, conditional_expressions,
    continue_statements, control_flow, directives, formatted_strings, functions, lists, logical_expressions,
    return_statements, slices, variables)
from autograph.core import ag_logging, config, converter, marks
from autograph.errors import ConversionError, code_lines
from autograph.operators import py_builtins
from autograph.impl import census
from autograph.pyct import anno, ast_util, transpiler, unparser
from autograph.pyct.errors import PyCTError

# The fixed order of the converters (see docs/architecture.md). Each lowers one construct;
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
    formatted_strings,         # f"..." and '...' % x -> ag__.format_ / ag__.percent_format
    call_trees,                # f(x) -> ag__.converted(f)(x)
    comprehensions,            # [e for t in it] -> a function with the loop, called
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

    def parse_observer(self, fn):
        # The census of the tree, taken while it is parsed (no walk of its own).
        return census.Census(root_is_function=fn.__code__.co_name != "<lambda>")

    def transform_ast(self, node, ctx):
        present = anno.getanno(node, anno.Basic.PARSE_OBSERVER, None) or census.Census.of(node)
        for converter_module in CONVERTERS:
            check = _CONVERTER_NEEDS.get(converter_module)
            if check is not None and not check(present, node):
                continue
            node = converter_module.transform(node, ctx)
        if ag_logging.has_verbosity(3):
            ag_logging.log(3, "Converted %s:\n%s", ctx.info.name,
                           unparser.unparse(node, include_encoding_marker=False))
        return node

    def transform_function(self, fn, user_context):
        self._current.options = user_context.options
        return super().transform_function(fn, user_context)

    def inspect_generated(self, tree, filename, record):
        if tree is not None:
            thunk_lines = _thunk_lambda_lines(tree)
        else:
            thunk_lines = _recorded_thunk_lambda_lines(record)
        if thunk_lines:
            _thunk_lines[filename] = thunk_lines


# converter module -> whether it would change the tree `root` with census `c` (absent:
# always). A converter whose construct is absent would walk the whole tree and change
# nothing, so it is skipped (conversion speed). The census is taken before any converter
# runs: this is sound because no converter creates the construct an earlier-skipped one
# would look for (breaks, continues, asserts, nested user functions, appends, loop
# directives), and the checks for the converters after control_flow look at the tree as
# it is then.
_CONVERTER_NEEDS = {
    # Nested functions and classes are what it marks.
    functions: lambda c, root: c.nested_scopes,
    # set_loop_options(...) is the first statement of a loop body, as a call.
    directives: lambda c, root: c.loop_starts_with_call,
    # Loops with an else are rewritten even without a break (the else moves after them).
    break_statements: lambda c, root: gast.Break in c.types or c.loop_else,
    continue_statements: lambda c, root: gast.Continue in c.types,
    return_statements: lambda c, root: c.return_in_block,
    asserts: lambda c, root: gast.Assert in c.types,
    formatted_strings: lambda c, root: gast.JoinedStr in c.types or c.percent_format,
    lists: lambda c, root: "append" in c.attributes or "pop" in c.attributes,
    # Item writes to lists the function appends to (after lists: ag__.list_append).
    slices: lambda c, root: c.subscript_store and (
        "append" in c.attributes or "list_append" in c.attributes),
    # The only IfExp a converter makes (control_flow's `test if <flags are False> else
    # ...` for a loop with a lowered break) has a Python-valued test, which
    # conditional_expressions leaves as it is: without the user's own, it changes nothing.
    conditional_expressions: lambda c, root: gast.IfExp in c.types,
    comprehensions: lambda c, root: c.comprehensions,
    # It rewrites functions that control_flow annotated with MAYBE_UNDEFINED: only the
    # user's own functions (the ones it generates are made after its visit).
    # (comprehensions: the functions made for them are nested scopes control_flow marks.)
    variables: lambda c, root: (c.nested_scopes or c.comprehensions
                                or bool(marks.maybe_undefined(root))),
}


# Overloads that return the function to call (`ag__.if_exp(c, lambda: a, lambda: b, r)()`):
# their lambda arguments run directly from converted code, and their frames exist only
# because of the conversion (frame-counting overloads skip them).
_THUNK_OVERLOADS = frozenset({"if_exp", "and_", "or_"})
# generated file -> {line: True when every lambda starting on it is a thunk, else the
# (line, end line, column, end column) of the thunks among them} for the lines with thunks.
_thunk_lines = {}
_LOAD_CONST = dis.opmap["LOAD_CONST"]
_CODE_TYPE = types.CodeType
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]


def _lines_of_thunks(thunk_spans, other_lines):
    """The _thunk_lines entry of a module, from its thunks' spans and the lines where its
    other lambdas start: a lambda's code object knows its line (co_firstlineno) but not its
    column, so only lambdas sharing a line with other lambdas need their positions."""
    lines = {}
    for span in thunk_spans:
        line = span[0]
        if line not in other_lines:
            lines[line] = True
        else:
            lines[line] = lines.get(line, frozenset()) | {span}
    return lines


def _thunk_lambda_lines(tree):
    spans = set()
    lambda_spans = set()
    for node in ast_util.walk(tree):
        node_class = node.__class__
        if node_class is ast.Lambda:
            lambda_spans.add((node.lineno, node.end_lineno, node.col_offset,
                              node.end_col_offset))
        elif (node_class is ast.Call and node.func.__class__ is ast.Attribute
                and node.func.attr in _THUNK_OVERLOADS
                and node.func.value.__class__ is ast.Name
                and node.func.value.id == GENERATED_NAME_PREFIX):
            for argument in node.args:
                if argument.__class__ is ast.Lambda:
                    spans.add((argument.lineno, argument.end_lineno, argument.col_offset,
                               argument.end_col_offset))
    return _lines_of_thunks(spans, {span[0] for span in lambda_spans - spans})


def _recorded_thunk_lambda_lines(record):
    """_thunk_lambda_lines, from the lambdas the unparser recorded (no parse)."""
    spans = set()
    other_lines = set()
    for call, _, span in record.call_lambdas:
        if call is not None:
            func = call.func
            if (func.__class__ is gast.Attribute and func.attr in _THUNK_OVERLOADS
                    and func.value.__class__ is gast.Name
                    and func.value.id == GENERATED_NAME_PREFIX):
                spans.add(span)
                continue
        other_lines.add(span[0])
    return _lines_of_thunks(spans, other_lines)


def _thunk_constants(code, nested, thunk_lines):
    """Indices in code.co_consts of the thunk lambdas' code objects; `nested` are the
    indices of its code objects, `thunk_lines` the module's _thunk_lines entry."""
    found = set()
    shared_lines = []
    constants = code.co_consts
    for index in nested:
        const = constants[index]
        if const.co_name == "<lambda>":
            on_line = thunk_lines.get(const.co_firstlineno)
            if on_line is True:
                found.add(index)
            elif on_line is not None:
                shared_lines.append((index, on_line))
    if shared_lines:
        found.update(_thunk_constants_at(code, shared_lines))
    return found


def _thunk_constants_at(code, candidates):
    """The indices of `candidates` [(constant index, spans)] whose lambda is made at one of
    its spans: a lambda's LOAD_CONST carries the position of the lambda expression."""
    spans_of = dict(candidates)
    # (offset of a LOAD_CONST, constant index) of the candidate lambdas.
    loads = []
    raw = code.co_code
    for index, _ in candidates:
        if index > 255:  # needs EXTENDED_ARG: rare, read the instructions one by one
            offsets = _load_offsets(raw, index)
        else:
            # Searched in C; a match at an odd offset straddles two instructions.
            pattern = bytes((_LOAD_CONST, index))
            offsets = []
            offset = raw.find(pattern)
            while offset >= 0:
                if not offset & 1 and (offset == 0 or raw[offset - 2] != _EXTENDED_ARG):
                    offsets.append(offset)
                offset = raw.find(pattern, offset + 1)
        loads.extend((offset, index) for offset in offsets)
    found = set()
    if not loads:
        return found
    # One pass of the positions iterator up to the last load (in C; no list of them all).
    loads.sort()
    positions = code.co_positions()
    unit = 0
    for offset, index in loads:
        target = offset >> 1
        position = next(itertools.islice(positions, target - unit, None))
        unit = target + 1
        if position in spans_of[index]:
            found.add(index)
    return found


def _load_offsets(raw, index):
    """Offsets of the LOAD_CONST instructions of constant `index` in bytecode `raw`."""
    offsets = []
    extended = 0
    for offset in range(0, len(raw), 2):
        opcode, argument = raw[offset], raw[offset + 1] | extended
        extended = (argument << 8) if opcode == _EXTENDED_ARG else 0
        if opcode == _LOAD_CONST and argument == index:
            offsets.append(offset)
    return offsets


# id(generated code) -> (generated code, the code run instead: the user's name, file and
# lines); and id(that code) -> (that code, generated file, first line), for to_code. Keyed
# by id: hashing a code object hashes all the code objects nested in it.
_rebuilt_codes = {}
_generated_locations = {}

# Converted code reports the user's file and lines (tracebacks, warnings, frames); False
# leaves the generated module's locations.
MAP_LOCATIONS_TO_SOURCE = True


class _Rebuild:
    """One pass over a converted code object and its nested ones: the user's file and lines
    (errors/code_lines.py; `line_map` None keeps the generated ones), nested block functions
    renamed after the user function they belong to (tracebacks read `in f`, not
    `in if_body`), and the block functions, lambdas and generated thunk lambdas collected
    for the frame-counting overloads (warnings.warn, sys._getframe)."""

    __slots__ = ("block_names", "remapper", "thunk_lines", "blocks", "lambdas", "thunks")

    def __init__(self, block_names, line_map, filename, thunk_lines):
        self.block_names = block_names
        self.remapper = (None if line_map is None
                         else code_lines.Remapper(line_map, filename))
        self.thunk_lines = thunk_lines
        self.blocks = []
        self.lambdas = []
        self.thunks = []

    def code(self, code, names, is_thunk=False, rename=None):
        """`code` rebuilt; `names` (co_name, co_qualname) are what its blocks are named;
        `rename`, if given, is the code's own new (co_name, co_qualname)."""
        changes = {}
        if rename is not None:
            changes["co_name"], changes["co_qualname"] = rename
        name = code.co_name if rename is None else rename[0]
        is_block = name in self.block_names
        if is_block:
            changes["co_name"], changes["co_qualname"] = names
        else:
            names = (name, code.co_qualname if rename is None else rename[1])
        # One look at the constants (in C): most code objects (state getters, setters,
        # branch bodies) have no nested code at all.
        constants = code.co_consts
        if _CODE_TYPE in map(type, constants):
            nested = [index for index, c in enumerate(constants) if c.__class__ is _CODE_TYPE]
            thunks = ()
            if self.thunk_lines:
                thunks = _thunk_constants(code, nested, self.thunk_lines)
            new_constants = list(constants)
            changed = False
            for index in nested:
                new = self.code(constants[index], names, index in thunks)
                if new is not constants[index]:
                    new_constants[index] = new
                    changed = True
            if changed:
                changes["co_consts"] = tuple(new_constants)
        if self.remapper is not None:
            changes.update(self.remapper.fields(code))
        if changes:
            code = code.replace(**changes)
        if is_block:
            self.blocks.append(code)
        elif name == "<lambda>":
            self.lambdas.append(code)
        if is_thunk:
            self.thunks.append(code)
        return code


def _rebuilt_code(fn, code, module, source_map, context):
    entry = _rebuilt_codes.get(id(code))
    if entry is not None and entry[0] is code:
        return entry[1]
    generated_file = getattr(module, "__file__", None)
    line_map = original_file = None
    if MAP_LOCATIONS_TO_SOURCE and generated_file:
        line_map, original_file = code_lines.line_map_from(source_map, generated_file)
        if not (line_map and original_file):
            line_map = None
    rebuild = _Rebuild(context.generated_function_names, line_map, original_file,
                       _thunk_lines.get(generated_file))
    user_code = fn.__code__
    new_code = rebuild.code(code, (user_code.co_name, user_code.co_qualname),
                            rename=(user_code.co_name, user_code.co_qualname))
    py_builtins.register_generated_code(rebuild.blocks, rebuild.lambdas, rebuild.thunks)
    _rebuilt_codes[id(code)] = (code, new_code)
    _generated_locations[id(new_code)] = (new_code, generated_file, code.co_firstlineno)
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
    code = converted_fn.__code__
    entry = _generated_locations.get(id(code))
    if entry is None or entry[0] is not code or entry[1] is None:
        source = textwrap.dedent(inspect.getsource(converted_fn))
    else:
        _, generated_file, first_line = entry
        lines = linecache.getlines(generated_file)
        source = textwrap.dedent("".join(inspect.getblock(lines[first_line - 1:])))
    if source.startswith("return lambda"):  # the factory returns a converted lambda
        source = source[len("return "):]
    return source.replace("def " + GENERATED_NAME_PREFIX, "def ", 1)
