"""The files of the cache: written 0600 and whole, read back only to be verified, marked
when used (for eviction), and generated modules loaded from the text in memory.

System calls go through os.open/os.read/os.write, never the builtin open (user code may
have replaced it), and as few as possible: each costs tens of microseconds on a busy disk,
a good part of a small conversion.
"""

import importlib.machinery
import linecache
import os
import sys
import tempfile
import threading
import time
import types

from agcache import location, usage

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
TEMPORARY_PREFIX = ".tmp-"       # the temporary names of files being written
_WRITER_AT_WORK = 10.0            # seconds a file may be incomplete because it is being written

_lock = threading.RLock()         # held while a module executes (see load_module)


def read(path, mark_used=True):
    """The bytes of the file at `path`, or None if it cannot be read. Marks it used (a file
    of the cache)."""
    try:
        fd = os.open(path, os.O_RDONLY | _O_CLOEXEC)
    except OSError:
        return None
    try:
        if mark_used:
            usage.mark_used(fd)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


def _differs(path, data):
    """None if the file at `path` holds exactly `data`, else when it was last written (0 if
    it cannot be read)."""
    try:
        written = os.stat(path).st_mtime
    except OSError:
        return 0
    return None if read(path) == data else written


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def replace(path, data):
    """Makes `path` hold `data`, mode 0600: written under a temporary name in the same
    directory, then renamed, so readers (other threads or processes) see the old file or
    the whole new one. Raises OSError if it cannot be written."""
    fd, temp_path = tempfile.mkstemp(dir=os.path.dirname(path), prefix=TEMPORARY_PREFIX)
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
    usage.note_written(len(data))


def ensure(path, data):
    """Makes `path` hold exactly `data`, mode 0600, for content-named files.

    The usual case, a new name, is created exclusively and written in place: three system
    calls, no temporary file. A file that already exists (an earlier process, or another
    thread or process writing it right now) is read: if it differs (a crash left it partly
    written, someone changed it, or it is still being written) it is replaced atomically.
    So a complete file is what every writer leaves behind, and a file with the right
    content is never touched. A wrong file written more than a few seconds ago (not by a
    writer still at work) was damaged or changed: that is logged.
    Raises OSError if it cannot be written.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o600)
    except FileExistsError:
        written = _differs(path, data)
        if written is not None:
            if time.time() - written > _WRITER_AT_WORK:
                location.logger.warning("autograph: the cached file %s was damaged or "
                                        "changed; it is written again.", path)
            replace(path, data)
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
    usage.note_written(len(data))


def delete(path):
    try:
        os.unlink(path)
    except OSError:
        pass


class _GeneratedSourceLoader(importlib.machinery.SourceFileLoader):
    """The __loader__ of generated modules (get_source, for linecache and inspect). It
    never writes .pyc files next to them: each file is loaded about once per process, and
    compiling it is cheaper than writing bytecode."""

    def __init__(self, name, path, source):
        super().__init__(name, path)
        self.source = source

    def set_data(self, path, data, *, _mode=0o666):
        del path, data, _mode

    def get_data(self, path):
        # The text the module was made from, also when the file is gone (evicted).
        if path == self.path:
            return self.source.encode("utf-8")
        return super().get_data(path)


def load_module(kind, name, source, tree=None):
    """Runs `source` as the module `name`, registered in sys.modules, with a content-named
    file `<name>.py` in the cache directory of `kind` (what tracebacks, inspect, pdb and
    Numba's cache need).

    Returns (module, filename). A module already loaded under `name` is returned as it
    is, so `name` must name the content (a hash of it). The module is compiled from the
    text in memory, never from what is on disk: the file is for others to read. If the
    cache cannot be written, the file is left out (the filename is then a `<...>` name
    that linecache knows). `tree`, if given, is `ast.parse(source)`: compiled instead of
    the text.
    """
    module = sys.modules.get(name)
    if module is not None:
        return module, module.__file__
    path = write_module_file(kind, name, source)
    if path is None:
        path = "<autograph %s>" % name
        linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    code = compile(source if tree is None else tree, path, "exec", dont_inherit=True)

    # Held while executing too, so another thread never sees a half-initialised module.
    # Generated modules only define functions, so this is short.
    with _lock:
        existing = sys.modules.get(name)
        if existing is not None:
            return existing, existing.__file__
        loader = _GeneratedSourceLoader(name, path, source)
        spec = importlib.machinery.ModuleSpec(name, loader, origin=path)
        spec.has_location = not path.startswith("<")
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


def write_module_file(kind, name, source):
    """The path of the file `name`.py holding `source` in the directory of `kind` (the
    file `load_module` writes, for a process that runs it later or not at all), or None
    if nothing can be written (after the fallbacks of location.give_up)."""
    data = source.encode("utf-8")
    while True:
        directory = location.directory(kind)
        if directory is None:
            return None
        path = os.path.join(directory, name + ".py")
        try:
            ensure(path, data)
            return path
        except FileNotFoundError as error:
            if not location.restore(directory):
                location.give_up("cannot write %s (%s)" % (path, error.strerror or error))
        except OSError as error:
            location.give_up("cannot write %s (%s)" % (path, error.strerror or error))
