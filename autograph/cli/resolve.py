"""Finding the function FUNCTION names: `path/to/file.py:qualname` or `package.module:qualname`."""

import importlib
import importlib.util
import inspect
import os
import re
import sys

from autograph.cli.errors import UsageError, one_line


def resolve_function(target):
    """The Python function named by `target` ('file.py:qualname' or 'module:qualname')."""
    location, sep, qualname = target.rpartition(":")
    if not sep or not location or not qualname:
        raise UsageError("expected path/to/file.py:qualname or package.module:qualname, got %r"
                         % target)
    if location.endswith(".py") or os.sep in location or "/" in location:
        module = _import_file(location)
    else:
        module = _import_module(location)
    obj = module
    walked = []
    for part in qualname.split("."):
        if not part.isidentifier():
            raise UsageError("%r is not a valid qualified name" % qualname)
        try:
            obj = inspect.getattr_static(obj, part) if inspect.isclass(obj) else getattr(
                obj, part)
        except AttributeError:
            where = ".".join(walked) or module.__name__
            raise UsageError("%s has no attribute %r" % (where, part)) from None
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        walked.append(part)
    # An ag.function (or rt.function) object stands for the function it decorates.
    python_function = getattr(obj, "python_function", None)
    if python_function is not None and not inspect.isclass(obj):
        obj = python_function
    if isinstance(obj, property):
        raise UsageError("%s is a property; give its getter's function instead" % qualname)
    if inspect.ismethod(obj):
        obj = obj.__func__
    if not inspect.isfunction(obj):
        raise UsageError("%s is %s, not a function (give a function or a method, e.g. "
                         "Model.forward)" % (qualname, _describe(obj)))
    return obj


def _import_file(path):
    if not os.path.exists(path):
        raise UsageError("no such file: %s" % path)
    if not os.path.isfile(path):
        raise UsageError("not a file: %s" % path)
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)  # the file's own imports of its neighbours work
    name = os.path.splitext(os.path.basename(path))[0]
    existing = sys.modules.get(name)
    if existing is not None:
        if os.path.abspath(getattr(existing, "__file__", "") or "") == path:
            return existing
        name = "__autograph_cli__" + re.sub(r"\W", "_", name)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError("cannot import %s (is it a Python source file?)" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as error:
        del sys.modules[name]
        if isinstance(error, KeyboardInterrupt):
            raise
        raise UsageError("importing %s failed: %s: %s"
                         % (path, type(error).__name__, one_line(error))) from None
    return module


def _import_module(name):
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and name.startswith(error.name):
            raise UsageError("no module named %r (give a file as path/to/file.py:name, or "
                             "run from the directory that contains the package)"
                             % error.name) from None
        raise UsageError("importing %s failed: ModuleNotFoundError: %s"
                         % (name, one_line(error))) from None
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        raise UsageError("importing %s failed: %s: %s"
                         % (name, type(error).__name__, one_line(error))) from None


def _describe(obj):
    if inspect.isclass(obj):
        return "a class"
    if inspect.ismodule(obj):
        return "a module"
    name = type(obj).__name__
    return "%s %s object" % ("an" if name[:1].lower() in "aeiou" else "a", name)
