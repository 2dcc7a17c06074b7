"""Conversion of one function: the converters in their fixed order, run by a pyct PyToPy
transpiler, and the policy deciding what may be converted at all."""

import inspect
import threading
import types

from autograph.converters import (
    asserts, break_statements, call_trees, conditional_expressions, continue_statements,
    control_flow, directives, functions, lists, logical_expressions, return_statements,
    slices, variables)
from autograph.core import ag_logging, config, converter
from autograph.core.errors import ConversionError
from autograph.pyct import parser, transpiler
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


def owner_class_name(fn):
    qualname = getattr(fn, "__qualname__", "")
    parts = [p for p in qualname.split(".")[:-1] if p != "<locals>"]
    return parts[-1] if parts else None


_renamed_codes = {}  # id(generated code) -> (generated code, same code under the user's name)


def convert_function(transpiler_, fn, options):
    """The converted version of a plain Python function (types.FunctionType).

    Raises ConversionError (with the cause attached) when fn cannot be converted.
    """
    context = converter.ProgramContext(options, entity=fn, owner_class_name=owner_class_name(fn))
    try:
        converted, module, _ = transpiler_.transform(fn, context)
    except ConversionError:
        raise
    except PyCTError as e:
        raise ConversionError(str(e)) from e
    except Exception as e:
        raise ConversionError(
            f"Cannot convert {getattr(fn, '__qualname__', fn)!r}: "
            f"{type(e).__name__}: {e}") from e
    code = converted.__code__
    if code.co_name != fn.__code__.co_name:
        entry = _renamed_codes.get(id(code))
        if entry is None or entry[0] is not code:
            entry = _renamed_codes[id(code)] = (code, code.replace(
                co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname))
        converted.__code__ = entry[1]
    ag_logging.log(1, "Converted %s (module %s)", getattr(fn, "__qualname__", fn),
                   module.__name__)
    return converted


def generated_source(converted_fn):
    """The source of a converted function, as the user would read it (no factory wrapper)."""
    import textwrap
    source = textwrap.dedent(inspect.getsource(converted_fn))
    return source.replace("def " + GENERATED_NAME_PREFIX, "def ", 1)


def is_plain_function(obj):
    return isinstance(obj, types.FunctionType)
