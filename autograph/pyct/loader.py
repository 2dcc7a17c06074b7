"""Loads generated source as a real module: a content-named file in a private per-user cache
directory, imported with importlib and registered in sys.modules.

A real file (instead of `exec`) is what tracebacks, `inspect.getsource`, pdb and Numba's
on-disk cache (`cache=True`) need.
"""

import atexit
import hashlib
import importlib.machinery
import io
import importlib.util
import os
import stat
import sys
import tempfile
import threading
import warnings

MODULE_NAME_PREFIX = "__autograph_generated_"
CACHE_DIR_ENV = "AUTOGRAPH_CACHE_DIR"

_lock = threading.RLock()
_cache_dir = None
_files_to_delete = set()


def _default_cache_dir():
    tag = sys.implementation.cache_tag or "python"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "autograph-numpy", tag)


def _is_private_dir(path):
    info = os.lstat(path)
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _make_private_dir(path):
    """Creates `path` with mode 0700 if needed; True if it is a directory only we can write to."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        if not _is_private_dir(path):
            info = os.lstat(path)
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
                os.chmod(path, 0o700)
        return _is_private_dir(path)
    except OSError:
        return False


def cache_dir():
    """The directory generated modules are written to (created on first use, mode 0700).

    `$AUTOGRAPH_CACHE_DIR` if set, else `~/.cache/autograph-numpy/<python tag>`. If that
    directory cannot be made private to the current user, a fresh temporary directory is
    used instead: generated code is imported, so nobody else may be able to write there.
    """
    global _cache_dir
    wanted = os.environ.get(CACHE_DIR_ENV) or _default_cache_dir()
    if _cache_dir is not None and _cache_dir[0] == wanted:
        return _cache_dir[1]
    with _lock:
        if _make_private_dir(wanted):
            actual = wanted
        else:
            actual = tempfile.mkdtemp(prefix="autograph-")
            warnings.warn(
                f"autograph: {wanted} is not a directory private to this user (mode 0700, "
                f"owned by uid {os.getuid()}); generated code goes to {actual} instead",
                RuntimeWarning, stacklevel=3)
        _cache_dir = (wanted, actual)
    return actual


def source_hash(source):
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:32]


def module_name_for(source):
    """The stable sys.modules name of the module generated from `source`."""
    return MODULE_NAME_PREFIX + source_hash(source)


def _file_has(path, data):
    try:
        # io.open, not the builtin: user code may have replaced builtins.open.
        with io.open(path, "rb") as f:
            return f.read() == data
    except OSError:
        return False


def _write_atomically(path, data):
    """Writes to a temporary name in the same directory, then renames: readers (other
    threads or processes converting the same code) see either no file or the whole file."""
    directory = os.path.dirname(path)
    fd, temp_path = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp_path, path)
    except BaseException:
        try:
            os.unlink(temp_path)
        except OSError:
            pass
        raise


class _GeneratedSourceLoader(importlib.machinery.SourceFileLoader):
    """Imports generated files without writing .pyc files next to them: each file is
    imported about once per process, and compiling it is cheaper than writing bytecode."""

    def __init__(self, fullname, path, tree=None, source=None):
        super().__init__(fullname, path)
        self._tree = tree
        self._source = source

    def set_data(self, path, data, *, _mode=0o666):
        del path, data, _mode

    def get_code(self, fullname):
        # The caller just wrote this source (and may have parsed it): compiling what it
        # holds gives the same code object without looking for bytecode, reading the file
        # back, or parsing the text a second time.
        tree, self._tree = self._tree, None
        source, self._source = self._source, None
        if tree is not None:
            return compile(tree, self.get_filename(fullname), "exec", dont_inherit=True)
        if source is not None:
            return compile(source, self.get_filename(fullname), "exec", dont_inherit=True)
        return super().get_code(fullname)


def _delete_files_at_exit():
    for path in list(_files_to_delete):
        try:
            os.unlink(path)
        except OSError:
            pass


atexit.register(_delete_files_at_exit)


def load_source(source, delete_on_exit=False, tree=None):
    """Writes `source` to a content-named file and imports it as a module.

    Returns (module, filename). Loading the same source again in this process returns the
    already imported module; an existing file with the same content is reused untouched,
    so its modification time (which Numba's cache checks) stays the same across processes.
    `tree`, if given, is `ast.parse(source)`: it is compiled instead of the text (which is
    compiled as it is otherwise, never read back from the file).
    """
    name = module_name_for(source)
    module = sys.modules.get(name)
    if module is not None:
        return module, module.__file__

    data = source.encode("utf-8")
    path = os.path.join(cache_dir(), name + ".py")
    if not _file_has(path, data):
        _write_atomically(path, data)
    if delete_on_exit:
        _files_to_delete.add(path)

    # Held while executing too, so another thread never sees a half-initialised module.
    # Generated modules only define functions, so this is short.
    with _lock:
        existing = sys.modules.get(name)
        if existing is not None:
            return existing, existing.__file__
        spec = importlib.util.spec_from_file_location(
            name, path, loader=_GeneratedSourceLoader(name, path, tree, source))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    return module, path


def load_ast(nodes, indentation="    ", include_source_map=False, delete_on_exit=False):
    """Unparses `nodes` and loads them with load_source.

    Returns (module, source, source_map); source_map is None unless `include_source_map`,
    in which case it maps generated lines to the nodes' ORIGIN annotations.
    """
    from autograph.pyct import origin_info
    from autograph.pyct import parser

    if not isinstance(nodes, (list, tuple)):
        nodes = (nodes,)
    source = parser.unparse(nodes, indentation=indentation)
    module, filename = load_source(source, delete_on_exit)
    source_map = None
    if include_source_map:
        source_map = origin_info.create_source_map(nodes, source, filename)
    return module, source, source_map
