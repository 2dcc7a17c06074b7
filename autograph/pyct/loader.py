"""Loads generated source as a real module: a content-named file in a private per-user cache
directory, executed as a module registered in sys.modules.

A real file (instead of only `exec`) is what tracebacks, `inspect.getsource`, pdb, to_code
(through linecache, which reads it when asked) and Numba's on-disk cache (`cache=True`)
need. The module is compiled from the text in memory: nothing reads the file back while
loading.
"""

import atexit
import hashlib
import importlib.machinery
import os
import stat
import sys
import tempfile
import threading
import types
import warnings

from autograph.pyct import origin_info
from autograph.pyct import unparser

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


# os.open/os.read/os.write, never the builtin open (user code may have replaced it), and as
# few system calls as possible: each file system call costs tens of microseconds (more on a
# busy disk), as much as a good part of a small conversion.
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _file_has(path, data):
    try:
        fd = os.open(path, os.O_RDONLY | _O_CLOEXEC)
    except OSError:
        return False
    try:
        # One byte more than expected: a longer file differs too.
        wanted = len(data) + 1
        chunks = []
        while wanted > 0:
            chunk = os.read(fd, wanted)
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
        return b"".join(chunks) == data
    except OSError:
        return False
    finally:
        os.close(fd)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_atomically(path, data):
    """Writes to a temporary name in the same directory, then renames: readers (other
    threads or processes converting the same code) see either the old file or the whole
    new one."""
    directory = os.path.dirname(path)
    fd, temp_path = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".py")
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(temp_path, path)
    except BaseException:
        try:
            os.unlink(temp_path)
        except OSError:
            pass
        raise


def _write_file(path, data):
    """Makes `path` hold exactly `data`.

    The usual case, a new name, is created exclusively and written in place: three system
    calls, no temporary file. A file that already exists (an earlier process, or another
    thread or process writing it right now) is read: if it differs (a crash left it
    partly written, someone changed it, or it is still being written) it is replaced
    atomically. So a complete file is what every writer leaves behind; an existing file
    with the right content is never touched (its modification time, which Numba's cache
    checks, stays the same across processes).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o600)
    except FileExistsError:
        if not _file_has(path, data):
            _write_atomically(path, data)
        return
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except BaseException:
        try:
            os.unlink(path)
        except OSError:
            pass
        raise


class _GeneratedSourceLoader(importlib.machinery.SourceFileLoader):
    """The __loader__ of generated modules (get_source, for linecache and inspect). It
    never writes .pyc files next to them: each file is loaded about once per process, and
    compiling it is cheaper than writing bytecode."""

    def set_data(self, path, data, *, _mode=0o666):
        del path, data, _mode


def _delete_files_at_exit():
    for path in list(_files_to_delete):
        try:
            os.unlink(path)
        except OSError:
            pass


atexit.register(_delete_files_at_exit)


def load_source(source, delete_on_exit=False, tree=None):
    """Writes `source` to a content-named file and runs it as a module.

    Returns (module, filename). Loading the same source again in this process returns the
    already loaded module; an existing file with the same content is reused untouched.
    The module is made directly (what importlib would make for the file, without its
    machinery) from the text in memory. `tree`, if given, is `ast.parse(source)`: it is
    compiled instead of the text.
    """
    name = module_name_for(source)
    module = sys.modules.get(name)
    if module is not None:
        return module, module.__file__

    data = source.encode("utf-8")
    path = os.path.join(cache_dir(), name + ".py")
    _write_file(path, data)
    if delete_on_exit:
        _files_to_delete.add(path)
    code = compile(source if tree is None else tree, path, "exec", dont_inherit=True)

    # Held while executing too, so another thread never sees a half-initialised module.
    # Generated modules only define functions, so this is short.
    with _lock:
        existing = sys.modules.get(name)
        if existing is not None:
            return existing, existing.__file__
        loader = _GeneratedSourceLoader(name, path)
        spec = importlib.machinery.ModuleSpec(name, loader, origin=path)
        spec.has_location = True
        module = types.ModuleType(name)
        module.__file__ = path
        module.__loader__ = loader
        module.__spec__ = spec
        module.__package__ = ""
        sys.modules[name] = module
        try:
            exec(code, module.__dict__)  # pylint: disable=exec-used
        except BaseException:
            sys.modules.pop(name, None)
            raise
    return module, path


def load_ast(nodes, indentation="    ", include_source_map=False, delete_on_exit=False):
    """Unparses `nodes` and loads them with load_source.

    Returns (module, source, source_map); source_map is None unless `include_source_map`,
    in which case it maps generated lines to the nodes' ORIGIN annotations.
    """
    if not isinstance(nodes, (list, tuple)):
        nodes = (nodes,)
    source = unparser.unparse(nodes, indentation=indentation)
    module, filename = load_source(source, delete_on_exit)
    source_map = None
    if include_source_map:
        source_map = origin_info.create_source_map(nodes, source, filename)
    return module, source, source_map
