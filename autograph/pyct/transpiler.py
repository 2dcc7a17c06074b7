"""Generic source-to-source conversion of live functions: parse, transform (subclass hook),
unparse, load as a module, and rebuild a function that shares the original's globals and
closure cells. Conversions are cached per code object, source and options.
"""

import threading
import types

import gast

from autograph.pyct import inspect_utils
from autograph.pyct import loader
from autograph.pyct import naming
from autograph.pyct import origin_info
from autograph.pyct import parser
from autograph.pyct import transformer
from autograph.pyct.errors import PyCTError

FACTORY_NAME = "create_converted_entity"


def _code_names(code, names):
    """Every identifier a code object and its nested code objects use."""
    names.update(code.co_varnames, code.co_cellvars, code.co_freevars, code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_names(const, names)
    return names


def _mangled(name, class_name):
    if not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    return f"_{class_name}{name}"


class _PrivateNameMangler(gast.NodeVisitor):
    """Applies the class-private name mangling the compiler did for code written in a
    class body: the generated function is not in a class, so `self.__x` must be written
    as `self._Cls__x` to keep its meaning."""

    def __init__(self, class_name):
        self.class_name = class_name

    def visit_Name(self, node):
        node.id = _mangled(node.id, self.class_name)
        self.generic_visit(node)

    def visit_Attribute(self, node):
        node.attr = _mangled(node.attr, self.class_name)
        self.generic_visit(node)

    def _visit_names(self, node):
        node.names = [_mangled(n, self.class_name) for n in node.names]

    visit_Global = _visit_names
    visit_Nonlocal = _visit_names

    def _visit_definition(self, node):
        node.name = _mangled(node.name, self.class_name)
        self.generic_visit(node)

    visit_FunctionDef = _visit_definition
    visit_AsyncFunctionDef = _visit_definition
    visit_ClassDef = _visit_definition

    def visit_Import(self, node):
        for alias in node.names:
            if alias.asname is not None:
                alias.asname = _mangled(alias.asname, self.class_name)
            else:
                alias.name = _mangled(alias.name, self.class_name)

    def visit_ImportFrom(self, node):
        for alias in node.names:
            bound = alias.asname or alias.name
            if _mangled(bound, self.class_name) != bound:
                alias.asname = _mangled(bound, self.class_name)

    def _visit_pattern_name(self, node):
        for field in ("name", "rest"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                setattr(node, field, _mangled(value, self.class_name))
        self.generic_visit(node)

    visit_MatchAs = _visit_pattern_name
    visit_MatchStar = _visit_pattern_name
    visit_MatchMapping = _visit_pattern_name


def _lexical_class_name(qualname):
    """The innermost class a function is lexically inside of (through any nesting of
    functions), from its __qualname__: 'A.m.<locals>.g' -> 'A'."""
    parts = qualname.split(".")
    innermost = None
    for index, part in enumerate(parts[:-1]):
        if part == "<locals>":
            continue
        is_function = parts[index + 1] == "<locals>"
        if not is_function:
            innermost = part
    return innermost


def _without_signature_expressions(node):
    """Replaces the top-level function's defaults and annotations with placeholders.

    They were already evaluated when the original function was defined; the rebuilt
    function takes the original's values, and evaluating them again in the generated
    module (whose globals are not the user's) would fail.
    """
    args = node.args
    args.defaults = [gast.Constant(None, None) for _ in args.defaults]
    args.kw_defaults = [None if d is None else gast.Constant(None, None)
                        for d in args.kw_defaults]
    for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None
    if not isinstance(node, gast.Lambda):
        node.returns = None


class _Conversion:
    """The result of converting one code object: a code object to rebuild functions from."""

    def __init__(self, code, module, source_map, extra_cells, original_code):
        self.code = code
        self.module = module
        self.source_map = source_map
        self.extra_cells = extra_cells  # name -> cell holding an extra local (e.g. ag__)
        self.original_code = original_code  # keeps the identity-cache key alive

    def instantiate(self, fn):
        """A function running the converted code with fn's globals, closure and defaults."""
        original_cells = {}
        if fn.__closure__:
            original_cells = dict(zip(fn.__code__.co_freevars, fn.__closure__))
        closure = []
        for name in self.code.co_freevars:
            cell = self.extra_cells.get(name)
            if cell is None:
                cell = original_cells.get(name)
            if cell is None:
                raise PyCTError(
                    f"internal error: converted {fn.__qualname__} needs a free variable "
                    f"{name!r} that is neither in the original closure nor an extra local")
            closure.append(cell)
        converted = types.FunctionType(
            self.code, fn.__globals__, fn.__name__, fn.__defaults__, tuple(closure) or None)
        if fn.__kwdefaults__:
            converted.__kwdefaults__ = dict(fn.__kwdefaults__)
        converted.__qualname__ = fn.__qualname__
        converted.__module__ = fn.__module__
        converted.__doc__ = fn.__doc__
        converted.__annotations__ = dict(fn.__annotations__)
        if fn.__dict__:
            converted.__dict__.update(fn.__dict__)
        return converted


class PyToPy:
    """A generic Python-to-Python transpiler for functions.

    Subclasses override:
      transform_ast(node, ctx): the transformation (default: none, an identity conversion);
      get_transformed_name(node): the name of the generated function (default: unchanged);
      get_extra_locals(): {name: value} visible to the generated code, e.g. {'ag__': ...};
      get_caching_key(user_context): a hashable summary of the options that change the
        generated code (default: None, i.e. no options).

    transform(fn, user_context) -> (converted_function, module, source_map).
    """

    def __init__(self):
        self._cache_lock = threading.Lock()
        self._by_code_identity = {}  # (id(code), options key) -> _Conversion
        self._by_content = {}  # (code, file, source, options key) -> _Conversion
        self._extra_locals = None

    # -- hooks ------------------------------------------------------------------------

    def get_transformed_name(self, node):
        return node.name

    def get_extra_locals(self):
        return {}

    def get_caching_key(self, user_context):
        del user_context
        return None

    def transform_ast(self, node, ctx):
        del ctx
        return node

    # -- conversion -------------------------------------------------------------------

    def transform(self, obj, user_context):
        """Converts a function or bound method; returns (converted, module, source_map).

        A bound method comes back bound to the same object.
        """
        if isinstance(obj, types.MethodType):
            converted, module, source_map = self.transform_function(obj.__func__, user_context)
            return types.MethodType(converted, obj.__self__), module, source_map
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if not isinstance(obj, types.FunctionType):
            parser.parse_entity(obj)  # raises the explanatory SourceNotFoundError if any
            raise PyCTError(f"Cannot convert {obj!r}: only functions and methods are supported")
        return self.transform_function(obj, user_context)

    def transform_function(self, fn, user_context):
        options_key = self.get_caching_key(user_context)
        code = fn.__code__
        conversion = self._by_code_identity.get((id(code), options_key))
        if conversion is None or conversion.original_code is not code:
            conversion = self._convert(fn, user_context, options_key)
        return conversion.instantiate(fn), conversion.module, conversion.source_map

    def _convert(self, fn, user_context, options_key):
        code = fn.__code__
        found = parser.parse_entity_with_location(fn)
        content_key = (code, code.co_filename, found.source, options_key)
        conversion = self._by_content.get(content_key)
        if conversion is None:
            conversion = self._convert_node(fn, found, user_context)
            with self._cache_lock:
                conversion = self._by_content.setdefault(content_key, conversion)
        with self._cache_lock:
            self._by_code_identity[(id(code), options_key)] = _Conversion(
                conversion.code, conversion.module, conversion.source_map,
                conversion.extra_cells, code)
        return conversion

    def _make_context(self, fn, found, user_context, extra_locals):
        future_features = inspect_utils.getfutureimports(fn)
        namespace = inspect_utils.getnamespace(fn)
        namer = naming.Namer(namespace)
        namer.reserve(_code_names(fn.__code__, set()))
        namer.reserve(extra_locals)
        info = transformer.EntityInfo(
            name=fn.__name__, source_code=found.source, source_file=found.filename,
            future_features=future_features, namespace=namespace)
        return transformer.Context(info, namer, user_context)

    def _convert_node(self, fn, found, user_context):
        node = found.node
        origin_info.resolve(node, found.source, found.filename, found.lineno, found.col_offset)
        class_name = _lexical_class_name(fn.__qualname__)
        if class_name and class_name.lstrip("_"):
            own_name = getattr(node, "name", None)
            _PrivateNameMangler(class_name.lstrip("_")).visit(node)
            if own_name is not None:
                node.name = own_name  # the function keeps its name; only its body changes

        extra_locals = dict(self.get_extra_locals())
        clashes = set(extra_locals) & set(fn.__code__.co_freevars)
        if clashes:
            raise PyCTError(
                f"Cannot convert {fn.__qualname__}: its free variables {sorted(clashes)} "
                "have the names of the converter's own symbols")
        ctx = self._make_context(fn, found, user_context, extra_locals)
        node = self.transform_ast(node, ctx)
        is_lambda = isinstance(node, gast.Lambda)
        _without_signature_expressions(node)
        extra_names = list(extra_locals)
        if is_lambda:
            code_name = "<lambda>"
            module, source, source_map, converted_code = self._generate(
                node, fn, found, ctx, extra_names, code_name)
        else:
            code_name = node.name = self.get_transformed_name(node)
            module, source, source_map, converted_code = self._generate(
                node, fn, found, ctx, extra_names, code_name)
            if code_name in converted_code.co_freevars and code_name not in (
                    fn.__code__.co_freevars):
                # The function refers to itself through a global (recursion): in the
                # factory, its own `def` would capture that name. Define it under a fresh
                # name and give the code object the intended one.
                node.name = ctx.namer.new_symbol(code_name, ())
                module, source, source_map, converted_code = self._generate(
                    node, fn, found, ctx, extra_names, node.name)
        converted_code = converted_code.replace(co_name=code_name, co_qualname=fn.__qualname__)
        extra_cells = {name: types.CellType(value) for name, value in extra_locals.items()}
        return _Conversion(converted_code, module, source_map, extra_cells, fn.__code__)

    def _generate(self, node, fn, found, ctx, extra_names, def_name):
        """Writes and loads the module for `node`; returns (module, source, source_map,
        the converted code object)."""
        module_nodes = self._module_nodes(node, fn, found, ctx.info.future_features, extra_names)
        source = self._module_header(fn, found) + parser.unparse(module_nodes)
        module, filename = loader.load_source(source)
        source_map = origin_info.create_source_map(module_nodes, source, filename)
        factory_code = getattr(module, FACTORY_NAME).__code__
        converted_code = next(c for c in factory_code.co_consts
                              if isinstance(c, types.CodeType) and c.co_name == def_name)
        return module, source, source_map, converted_code

    def _module_header(self, fn, found):
        return (f"# Generated by autograph from {fn.__qualname__} "
                f"({found.filename}:{found.lineno}); edits are not read back.\n")

    def _module_nodes(self, node, fn, found, future_features, extra_local_names):
        """The generated module: a factory whose parameters are named like the free
        variables of the original, so the converted code's free variables line up with
        the original's closure cells (and the extra locals') when the function is rebuilt."""
        parameters = [gast.Name(name, gast.Param(), None, None)
                      for name in extra_local_names + list(fn.__code__.co_freevars)]
        if isinstance(node, gast.Lambda):
            body = [gast.Return(node)]
        else:
            body = [node, gast.Return(gast.Name(node.name, gast.Load(), None, None))]
        factory = gast.FunctionDef(
            name=FACTORY_NAME,
            args=gast.arguments(args=parameters, posonlyargs=[], vararg=None, kwonlyargs=[],
                                kw_defaults=[], kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None, type_params=[])
        nodes = []
        if future_features:
            nodes.append(gast.ImportFrom(
                module="__future__",
                names=[gast.alias(name=name, asname=None) for name in future_features],
                level=0))
        nodes.append(factory)
        return nodes
