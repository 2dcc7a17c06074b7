"""Questions about live Python objects that converters and the transpiler need answered:
is it a builtin or a lambda, which class defines a method, which name reaches it, which
`__future__` features its code was compiled with.
"""

import __future__
import builtins
import collections
import inspect
import linecache
import sys
import types

_BUILTIN_FUNCTION_TYPES = (
    types.BuiltinFunctionType, types.BuiltinMethodType, types.WrapperDescriptorType,
    types.MethodWrapperType, types.MethodDescriptorType, types.ClassMethodDescriptorType)


def _is_optional_feature(feature):
    mandatory = feature.getMandatoryRelease()
    return mandatory is None or mandatory > sys.version_info


# Only features that are not yet always on: the flags of mandatory ones (e.g. nested_scopes)
# coincide with ordinary code flags.
_FUTURE_FEATURES = tuple(
    (name, getattr(__future__, name).compiler_flag) for name in __future__.all_feature_names
    if _is_optional_feature(getattr(__future__, name)))


def isbuiltin(obj):
    """True for built-in functions and for builtins-module callables (`len`, `range`, `int`)."""
    if isinstance(obj, _BUILTIN_FUNCTION_TYPES):
        return True
    name = getattr(obj, "__name__", None)
    return name is not None and getattr(builtins, name, None) is obj


def islambda(obj):
    """True for functions created by a lambda expression."""
    return inspect.isfunction(obj) and obj.__name__ == "<lambda>"


def isnamedtuple(obj):
    """True for classes made by collections.namedtuple or typing.NamedTuple."""
    if not inspect.isclass(obj) or not issubclass(obj, tuple):
        return False
    fields = getattr(obj, "_fields", None)
    return isinstance(fields, tuple) and all(isinstance(f, str) for f in fields) and hasattr(
        obj, "_make")


def isconstructor(obj):
    """True for classes (calling them constructs an object)."""
    return inspect.isclass(obj)


def getunboundmethodclass(method):
    """The class a bound method's function was found on, or None."""
    if inspect.ismethod(method):
        owner = method.__self__
        return owner if inspect.isclass(owner) else type(owner)
    return None


def _class_from_qualname(fn):
    """Resolves 'Outer.Inner.method' through the function's module; None for locals."""
    qualname = getattr(fn, "__qualname__", "")
    if "<locals>" in qualname or "." not in qualname:
        return None
    module = sys.modules.get(getattr(fn, "__module__", None))
    owner = module
    for part in qualname.split(".")[:-1]:
        owner = getattr(owner, part, None)
        if owner is None:
            return None
    return owner if inspect.isclass(owner) else None


def getmethodclass(method):
    """The class that defines `method` (bound, static or class method, or a plain function
    defined in a class body), or None if it is not a method."""
    if inspect.ismethod(method):
        owner = method.__self__
        cls = owner if inspect.isclass(owner) else type(owner)
        name = method.__func__.__name__
        for klass in cls.__mro__:
            attribute = klass.__dict__.get(name)
            if attribute is None:
                continue
            if getattr(attribute, "__func__", attribute) is method.__func__:
                return klass
        return cls
    if inspect.isfunction(method):
        return _class_from_qualname(method)
    return None


def getdefiningclass(member, owner_class):
    """The class in owner_class's MRO whose __dict__ holds `member` (by its name)."""
    name = getattr(member, "__name__", None)
    target = getattr(member, "__func__", member)
    for klass in owner_class.__mro__:
        attribute = klass.__dict__.get(name)
        if attribute is not None and getattr(attribute, "__func__", attribute) is target:
            return klass
    return owner_class


def getqualifiedname(namespace, obj, max_depth=3, visited=None):
    """A dotted name under which `obj` can be reached from `namespace`, or None.

    Looks at top-level names first, then (breadth first, up to `max_depth` levels) inside
    the modules those names refer to: `getqualifiedname(globals(), np.sum)` -> 'np.sum'.
    """
    if visited is None:
        visited = set()
    namespace = dict(namespace)
    for name, value in namespace.items():
        if value is obj:
            return name
    # The object may be reachable under a canonical module name: np.sum -> numpy.sum.
    module_name = getattr(obj, "__module__", None)
    obj_name = getattr(obj, "__name__", None)
    if module_name and obj_name and module_name in sys.modules:
        module = sys.modules[module_name]
        if getattr(module, obj_name, None) is obj:
            for name, value in namespace.items():
                if value is module:
                    return f"{name}.{obj_name}"
    if max_depth <= 0:
        return None
    for name, value in namespace.items():
        if inspect.ismodule(value) and id(value) not in visited:
            visited.add(id(value))
            inner = getqualifiedname(value.__dict__, obj, max_depth - 1, visited)
            if inner is not None:
                return f"{name}.{inner}"
    return None


def getfutureimports(entity):
    """Names of the `__future__` features the entity's code was compiled with."""
    entity = getattr(entity, "__func__", entity)
    code = getattr(entity, "__code__", None)
    if code is None:
        return ()
    return tuple(name for name, flag in _FUTURE_FEATURES if flag and code.co_flags & flag)


def getnamespace(fn):
    """The names a function can see besides its locals: its globals, overlaid by the
    values of its closure variables (empty cells are left out)."""
    fn = getattr(fn, "__func__", fn)
    namespace = collections.ChainMap(getclosurevars(fn), fn.__globals__)
    return namespace


def getclosurevars(fn):
    """{free variable name: value} of a function's closure, without empty cells."""
    fn = getattr(fn, "__func__", fn)
    values = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # not assigned yet
            pass
    return values


def getimmediatesource(obj):
    """The source lines of `obj` as written, without following `__wrapped__` (unlike
    inspect.getsource, which would return the decorated function's source)."""
    code = getattr(getattr(obj, "__func__", obj), "__code__", None)
    if code is None:
        return inspect.getsource(obj)
    lines = linecache.getlines(code.co_filename, getattr(obj, "__globals__", None))
    if not lines:
        raise OSError(f"could not get source code of {obj!r}")
    return "".join(inspect.getblock(lines[code.co_firstlineno - 1:]))

