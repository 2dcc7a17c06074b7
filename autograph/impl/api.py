"""Public conversion API (to_graph, to_code, convert, do_not_convert) and the run-time
decision of converted code: what to call instead of each callee.

Converted code calls `ag__.converted(f)(args...)`: `converted` returns the callable to use
(the converted function, a builtin's overload, or f itself) and the call happens in the
user's own function. So a converted call adds no stack frame: `warnings.warn(stacklevel=n)`,
`sys._getframe(1)` (namedtuple's module), `super()`, deep recursion all see what they saw
before. `converted_call(f, args, kwargs, ...)` is the same decision as a function call.
"""

import functools
import inspect
import types
import weakref

from autograph import operators
from autograph.core import ag_logging, converter, directives, function_wrappers
from autograph.errors import AutoGraphError, ConversionError, StagingError  # noqa: F401
from autograph.impl import conversion
from autograph.operators import py_builtins

# Functions marked with do_not_convert (weak: marking a function never keeps it alive).
_do_not_convert = weakref.WeakSet()
# convert()-decorated wrappers -> the function they wrap, so converted code calling one
# converts the target directly instead of converting the wrapper.
_convert_wrappers = weakref.WeakKeyDictionary()

# Identity-keyed caches of `converted` keep at most this many callees per options, so
# closures created anew on every call of their parent cannot grow them without bound.
_CACHE_LIMIT = 4096

_FUNCTION_TYPES = (types.FunctionType,)
_UNCONVERTED_TYPES = (types.BuiltinFunctionType, types.BuiltinMethodType,
                      types.WrapperDescriptorType, types.MethodWrapperType,
                      types.MethodDescriptorType, types.ClassMethodDescriptorType, type)

_transpiler = None


def _is_long_lived(f):
    """Callees the identity cache may hold: ones that hold no per-call or per-object state.

    Closures are made anew per call of their parent, and builtin methods of objects
    (`items.append`) hold their object: keeping them would keep what they capture alive.
    """
    kind = type(f)
    if kind in _FUNCTION_TYPES:
        return f.__closure__ is None
    if kind is types.BuiltinFunctionType:
        owner = f.__self__
        return owner is None or isinstance(owner, types.ModuleType)
    return kind in _UNBOUND_TYPES or isinstance(f, type)


_UNBOUND_TYPES = (types.WrapperDescriptorType, types.MethodDescriptorType,
                  types.ClassMethodDescriptorType)


def _get_transpiler():
    global _transpiler
    if _transpiler is None:
        _transpiler = conversion.AutoGraphTranspiler(namespace_for)
    return _transpiler


class _Resolver:
    """Decides, for one set of conversion options, what converted code calls instead of f."""

    def __init__(self, options):
        self.options = options
        # Decided once: the resolver must not run code it might itself convert (enum's).
        self.use_overloads = options.uses(converter.Feature.BUILTIN_FUNCTIONS)
        self.recursive = options.recursive
        # callee -> what to call (plain functions, builtins, classes); exact dicts, whose
        # lookups are the cheapest there are.
        self.cache = {}
        self.converted_functions = {}  # function -> converted function (or itself)
        self.converted = _make_converted(self.cache, self.resolve_and_remember, self.resolve)
        # The same for calls passing exactly 1 to 3 positional arguments: builtins get their
        # fixed-arity overloads, every other callee the same target as above.
        self.fixed_arity = {}
        for arity, overloads in py_builtins.FIXED_ARITY_OVERLOADS.items():
            cache = {}
            resolve = functools.partial(self.resolve_fixed_arity, overloads)
            remember = functools.partial(self.resolve_and_remember, cache=cache,
                                         resolve=resolve)
            self.fixed_arity[arity] = _make_converted(cache, remember, resolve)

    def __call__(self, f):
        return self.converted(f)

    def resolve_fixed_arity(self, overloads, f):
        if self.use_overloads:
            try:
                overload = overloads.get(f)
            except TypeError:  # unhashable callables are never builtins
                overload = None
            if overload is not None:
                return overload
        return self.resolve(f)

    def resolve_and_remember(self, f, cache=None, resolve=None):
        target = (resolve or self.resolve)(f)
        cache = self.cache if cache is None else cache
        # Closures are not kept: they are made anew per call of their parent, and holding
        # them would keep what they capture alive (their conversion is cached by code).
        if _is_long_lived(f):
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[f] = target
        return target

    def resolve(self, f):
        if self.use_overloads:
            overload = py_builtins.overload_of(f)
            if overload is not None:
                return overload
        if type(f) is type:
            return self.constructor(f)
        if isinstance(f, _UNCONVERTED_TYPES):
            return f
        if type(f) in _FUNCTION_TYPES:
            return self.function(f)
        if isinstance(f, types.MethodType):
            function = f.__func__
            converted = self.function(function) if type(function) in _FUNCTION_TYPES else function
            if converted is function:
                return f
            return types.MethodType(converted, f.__self__)
        if isinstance(f, functools.partial):
            converted = self(f.func)
            if converted is f.func:
                return f
            return functools.partial(converted, *f.args, **f.keywords)
        call = getattr(type(f), "__call__", None)
        if type(call) in _FUNCTION_TYPES:
            # A callable object: its __call__, bound to it, is what runs.
            converted = self.function(call)
            if converted is not call:
                return types.MethodType(converted, f)
        return f

    def constructor(self, cls):
        """What converted code calls to make an instance of the class `cls`: one whose
        `__init__` is converted, when that is all the class's call does (plain metaclass,
        object's own __new__, a Python __init__ that converts); else `cls` itself."""
        init = getattr(cls, "__init__", None)
        if cls.__new__ is not object.__new__ or type(init) not in _FUNCTION_TYPES:
            return cls
        converted_init = self.function(init)
        if converted_init is init:
            return cls
        return _converted_constructor(cls, converted_init)

    def function(self, fn):
        """The converted version of a plain function, or fn if it must run as it is."""
        converted = self.converted_functions.get(fn)
        if converted is not None:
            return converted
        converted = self._convert_if_allowed(fn)
        if fn.__closure__ is None:
            if len(self.converted_functions) >= _CACHE_LIMIT:
                self.converted_functions.clear()
            self.converted_functions[fn] = converted
        return converted

    def _convert_if_allowed(self, fn):
        wrapped = _convert_wrappers.get(fn)
        if wrapped is not None:
            return self.function(wrapped) if self.recursive else fn
        if fn in _do_not_convert:
            ag_logging.log(1, "Not converting %s: marked do_not_convert", fn.__qualname__)
            return fn
        if not self.recursive:
            return fn
        if conversion.is_denied(fn):
            return fn
        reason = conversion.unconvertible_reason(fn)
        if reason is not None:
            ag_logging.log(1, "Not converting %s: %s", fn.__qualname__, reason)
            return fn
        try:
            return conversion.convert_function(_get_transpiler(), fn, self.options)
        except ConversionError as e:
            ag_logging.log(1, "Not converting %s, it runs as it is: %s", fn.__qualname__, e)
            return fn


def _converted_constructor(cls, converted_init):
    """`cls(...)` with the converted `__init__` (as type.__call__ makes the instance)."""

    def construct(*args, **kwargs):
        instance = object.__new__(cls)
        result = converted_init(instance, *args, **kwargs)
        if result is not None:
            raise TypeError("__init__() should return None, not '%s'" % type(result).__name__)
        return instance

    construct.__name__ = construct.__qualname__ = cls.__name__
    construct.__wrapped__ = cls
    return construct


def _make_converted(cache, resolve_and_remember, resolve):
    """`ag__.converted`: a plain function (cheaper to call than an object's __call__) whose
    fast path, for a callee seen before, is one lookup in an exact dict."""

    def converted(f):
        try:
            return cache[f]
        except KeyError:
            return resolve_and_remember(f)
        except TypeError:  # an unhashable callable object: decided on every call
            return resolve(f)

    return converted


_resolvers = {}  # options caching key -> _Resolver
_namespaces = {}  # options caching key -> the ag__ namespace for code converted with them


def _resolver_for(options):
    key = options.caching_key()
    resolver = _resolvers.get(key)
    if resolver is None:
        resolver = _resolvers.setdefault(key, _Resolver(options.call_options()))
    return resolver


def namespace_for(options):
    """The `ag__` namespace seen by code converted with `options`: the overloads, plus
    `converted` deciding about callees with the options of that conversion."""
    key = options.caching_key()
    namespace = _namespaces.get(key)
    if namespace is None:
        members = {name: getattr(operators, name) for name in dir(operators)
                   if not name.startswith("_")}
        resolver = _resolver_for(options)
        members.update(
            converted=resolver.converted,
            converted_1=resolver.fixed_arity[1],
            converted_2=resolver.fixed_arity[2],
            converted_3=resolver.fixed_arity[3],
            converted_call=converted_call,
            FunctionScope=function_wrappers.FunctionScope,
            ConversionOptions=converter.ConversionOptions,
        )
        # A module object: generated code reads `ag__.x` on every statement, and attribute
        # reads of a module are cheaper than those of other objects.
        namespace = types.ModuleType("ag__", "Overloads seen by converted code.")
        namespace.__dict__.update(members)
        namespace = _namespaces.setdefault(key, namespace)
    return namespace


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """Calls f(*args, **kwargs), converting f first when the conversion policy says so.

    `options` (a ConversionOptions) defaults to those of `caller_fn_scope` (a FunctionScope)
    or to recursive conversion.
    """
    if options is None:
        options = getattr(caller_fn_scope, "options", None) or converter.STANDARD_OPTIONS
    target = _resolver_for(options)(f)
    if kwargs:
        return target(*args, **kwargs)
    return target(*args)


# Public API ---------------------------------------------------------------------------


def _user_options(recursive):
    return converter.ConversionOptions(recursive=recursive, user_requested=True)


def _convert_requested(entity, options):
    """What to_graph returns for `entity`; raises ConversionError when it cannot."""
    if isinstance(entity, types.MethodType):
        converted = _convert_requested(entity.__func__, options)
        return types.MethodType(converted, entity.__self__)
    if isinstance(entity, (staticmethod, classmethod)):
        return type(entity)(_convert_requested(entity.__func__, options))
    if isinstance(entity, functools.partial):
        return functools.partial(_convert_requested(entity.func, options), *entity.args,
                                 **entity.keywords)
    if type(entity) in _FUNCTION_TYPES:
        wrapped = _convert_wrappers.get(entity)
        if wrapped is not None:
            entity = wrapped
        reason = conversion.unconvertible_reason(entity)
        if reason is not None:
            ag_logging.log(1, "Not converting %s: %s", entity.__qualname__, reason)
            return entity
        return conversion.convert_function(_get_transpiler(), entity, options)
    if inspect.isclass(entity):
        raise ConversionError(f"Cannot convert class {entity.__qualname__}: convert its "
                              "methods, or the functions that use it, instead")
    call = getattr(type(entity), "__call__", None)
    if type(call) in _FUNCTION_TYPES:
        return types.MethodType(_convert_requested(call, options), entity)
    raise ConversionError(
        f"Cannot convert {entity!r}: it is not a Python function, method or callable object "
        "with Python source")


def converted_callable(f):
    """What converted code calls instead of `f` (`ag__.converted(f)`): its converted version,
    or `f` itself where it runs as it is (code converted already, such as a function defined
    inside a converted one; builtins; do_not_convert)."""
    return _resolver_for(_user_options(True))(f)


def to_graph(entity, recursive=True):
    """The converted version of a function, method, lambda, partial or callable object.

    Called with plain Python/NumPy values it behaves exactly like `entity`. With
    `recursive`, the functions it calls are converted too, at run time.
    """
    return _convert_requested(entity, _user_options(recursive))


def _original_function(entity):
    """The Python function whose source to_graph converts for `entity` (or None)."""
    while True:
        if isinstance(entity, (types.MethodType, staticmethod, classmethod)):
            entity = entity.__func__
        elif isinstance(entity, functools.partial):
            entity = entity.func
        elif type(entity) in _FUNCTION_TYPES:
            return _convert_wrappers.get(entity, entity)
        elif inspect.isclass(entity):
            return None
        else:
            call = getattr(type(entity), "__call__", None)
            return call if type(call) in _FUNCTION_TYPES else None


def _with_user_signature(source, original):
    """`source` (a converted function) with the header of the user's own definition.

    The generated module has placeholders for defaults and annotations (the user's were
    evaluated where the function was defined, and the converted function takes those
    values): showing `threshold=None` for `threshold=0.5` would mislead a reader.
    """
    import ast
    import textwrap
    if source.startswith("lambda"):
        return _lambda_with_user_signature(source, original)
    try:
        generated = ast.parse(source).body[0]
        user = ast.parse(textwrap.dedent(inspect.getsource(original))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return source
    lines = source.splitlines(keepends=True)
    # The generated header is one line (the unparser writes it so), as is the user's
    # once unparsed.
    if not (isinstance(generated, (ast.FunctionDef, ast.AsyncFunctionDef))
            and type(user) is type(generated) and user.name == generated.name
            and not generated.decorator_list and generated.body
            and generated.body[0].lineno > generated.lineno
            and lines[generated.lineno - 1].rstrip().endswith(":")):
        return source
    user.decorator_list = []
    user.body = [ast.Pass()]
    header = ast.unparse(user).split("\n", 1)[0]
    lines[generated.lineno - 1] = header + "\n"
    return "".join(lines)


def _lambda_with_user_signature(source, original):
    """_with_user_signature for a converted lambda: the user's parameters (with their
    defaults) instead of the generated ones (`y=None` placeholders)."""
    import ast
    from autograph.pyct import parser
    from autograph.pyct.errors import PyCTError
    try:
        user_source = parser.parse_entity(original)[1]
        # Parenthesized: a lambda's text may span lines.
        user = ast.parse(f"({user_source.strip()})", mode="eval").body
        generated = ast.parse(f"({source.strip()})", mode="eval").body
    except (OSError, TypeError, SyntaxError, ValueError, PyCTError):
        return source
    if not (isinstance(user, ast.Lambda) and isinstance(generated, ast.Lambda)):
        return source
    user_args, generated_args = user.args, generated.args
    if [a.arg for a in ast.walk(user_args) if isinstance(a, ast.arg)] != [
            a.arg for a in ast.walk(generated_args) if isinstance(a, ast.arg)]:
        return source
    if not user_args.defaults and not any(user_args.kw_defaults):
        return source  # no placeholders to replace
    # Lambda parameters have no annotations and the generated defaults are `None`: the
    # first colon ends the generated parameters.
    return f"lambda {ast.unparse(user_args)}{source[source.index(':'):]}"


def to_code(entity, recursive=True):
    """The converted source of `entity`, as a string (with the user's own signature)."""
    converted = to_graph(entity, recursive=recursive)
    while isinstance(converted, (types.MethodType, functools.partial)):
        converted = getattr(converted, "__func__", None) or converted.func
    if converted is entity or getattr(converted, "__code__", None) is getattr(
            entity, "__code__", None):
        raise ConversionError(f"{entity!r} is not converted (see the log at verbosity 1)")
    source = conversion.generated_source(converted)
    original = _original_function(entity)
    return source if original is None else _with_user_signature(source, original)


def convert(recursive=True):
    """Decorator: the function is converted when called (once; the result is cached)."""
    options = _user_options(recursive)

    def decorator(fn):
        converted_fn = None

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            nonlocal converted_fn
            if converted_fn is None:
                converted_fn = _convert_requested(fn, options)
            return converted_fn(*args, **kwargs)

        _convert_wrappers[wrapper] = fn
        return wrapper

    return decorator


def do_not_convert(fn):
    """Decorator: converted code calls `fn` as it is, never converting it."""
    target = getattr(fn, "__func__", fn)
    try:
        _do_not_convert.add(target)
    except TypeError:
        raise ValueError(f"do_not_convert needs a function, got {fn!r}") from None
    return fn


set_loop_options = directives.set_loop_options
set_verbosity = ag_logging.set_verbosity
get_verbosity = ag_logging.get_verbosity
