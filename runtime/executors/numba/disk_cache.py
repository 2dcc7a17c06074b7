"""Numba's on-disk cache of the code the runtime compiles, kept in the private cache root
(`agcache`) and checked before it is used.

Every function the runtime compiles is made with `jit` (the generated modules' `run_graph`
and their helpers, the kernels of support.py), not with `numba.njit(cache=True)`:

- **Where.** The compiled code of a generated module sits beside the module in
  `<root>/numba/`; that of the runtime's own kernels in `<root>/kernels/`, never next to
  the installed sources (a read-only install works).
- **Checked.** Each file starts with a header and the SHA-256 of what follows. A file that
  is truncated, corrupt, written by another Numba version or by an older format, or whose
  code Numba cannot rebuild, is logged once with its name, deleted, and the function is
  compiled again (and saved). Numba's own cache would raise on such a file in every later
  process. The hash detects damage; who may write is decided by the directory checks of
  `agcache.location` (only this user).
- **Private and whole.** Files are written 0600 under a temporary name and renamed.
- **Never fatal.** A file that cannot be written is skipped (the code still runs) and the
  process moves to `agcache`'s fallback, where the kernels' code goes from then on; a
  generated module kept in memory (no cache directory) is compiled without a disk cache.
- **Counted.** Reads mark files used and writes count towards the size limit
  (`agcache.usage`).

The file names are Numba's (`<module>.<qualname>-<line>.py311.nbi` for the index of a
function, `...1.nbc` for the code of one signature) with the full module name, so the
kernels of different modules never share a name.
"""

import hashlib
import io
import logging
import os
import pickle
import sys

import numba
from numba import types
from numba.core import caching

import agcache
from runtime.executors.numba import module_cache

logger = logging.getLogger("autograph")

_HEADER = b"autograph numba cache 1\n"
_DIGEST_SIZE = hashlib.sha256().digest_size
_reported = set()          # files already logged in this process


def jit(function=None, **options):
    """`numba.njit(**options)` with the compiled code cached as this module describes:
    `@jit` or `@jit(error_model="numpy")`."""
    def decorate(fn):
        dispatcher = numba.njit(**options)(fn)
        # What Dispatcher.enable_caching() does (numba.njit(cache=True)), with this cache.
        dispatcher._cache = _cache_for(fn)
        if not fn.__module__.startswith(module_cache.MODULE_PREFIX):
            _typed_without_literals(dispatcher)
        return dispatcher
    return decorate if function is None else decorate(function)


def _typed_without_literals(dispatcher):
    """Calls of a kernel from compiled code type its arguments without their literal values
    (an int 16 as int64, not Literal[int](16)). Numba otherwise compiles the kernel, and
    caches it, once per literal value a caller passes: generated code passes site numbers
    and table rows as literals, and the MLP's train step compiled support.check_indices ten
    times, once per site. (Calls from Python are typed without literals anyway.)"""
    get_call_template = dispatcher.get_call_template

    def without_literals(args, kws):
        return get_call_template(tuple(types.unliteral(a) for a in args),
                                 {k: types.unliteral(v) for k, v in kws.items()})
    dispatcher.get_call_template = without_literals


def _cache_for(fn):
    if fn.__module__.startswith(module_cache.MODULE_PREFIX):
        path = fn.__code__.co_filename
        directory = os.path.dirname(path) if os.path.isfile(path) else None
        kind = None
    else:
        kind = "kernels"
        directory = agcache.directory(kind)
    if directory is None:
        return caching.NullCache()
    try:
        return _Cache(fn, directory, kind)
    except OSError:      # the module's file is gone (evicted or cleared meanwhile)
        return caching.NullCache()


class _Locator(caching._CacheLocator):
    """The cache directory chosen by `_cache_for`; the stamp is the source's hash."""

    def __init__(self, py_func, directory):
        self._py_file = py_func.__code__.co_filename
        self._lineno = py_func.__code__.co_firstlineno
        self._directory = directory

    def ensure_cache_path(self):
        pass                    # agcache made it (private, checked)

    def get_cache_path(self):
        return self._directory

    def get_source_stamp(self):
        source = agcache.read(self._py_file, mark_used=False)
        if source is None:
            raise OSError("cannot read %s" % self._py_file)
        return hashlib.sha256(source).digest()

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        raise NotImplementedError("made by _cache_for")


class _Impl(caching.CompileResultCacheImpl):
    """Numba's serialisation of compile results; the locator and names are ours."""

    def __init__(self, py_func, directory):    # pylint: disable=super-init-not-called
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = _Locator(py_func, directory)
        qualname = getattr(py_func, "__qualname__", py_func.__name__)
        self._filename_base = self.get_filename_base(
            "%s.%s" % (py_func.__module__, qualname), getattr(sys, "abiflags", ""))


class _Cache(caching.Cache):
    _impl_class = _Impl

    def __init__(self, py_func, directory, kind=None):  # pylint: disable=super-init-not-called
        self._name = repr(py_func)
        self._py_func = py_func
        self._kind = kind        # "kernels": the directory follows the root in use
        self._use(directory)
        self.enable()

    def _use(self, directory):
        self._impl = _Impl(self._py_func, directory)
        self._cache_path = directory
        self._cache_file = _CheckedFile(directory, self._impl.filename_base,
                                        self._impl.locator.get_source_stamp())

    def _follow(self):
        """Whether there is a directory to use. The kernels' is that of the root in use
        now, not when support.py was imported: after a failure moved this process to a
        fallback, writing to the old directory would fail again (and move it to memory)."""
        if self._kind is not None:
            directory = agcache.directory(self._kind)
            if directory is None:
                return False
            if directory != self._cache_path:
                try:
                    self._use(directory)
                except OSError:
                    return False
        return True

    def load_overload(self, sig, target_context):
        if not self._follow():
            return None
        try:
            return super().load_overload(sig, target_context)
        except Exception as error:     # a verified file Numba cannot rebuild
            self._cache_file.discard(self._cache_file.index_path,
                                     "Numba cannot load it (%s: %s)" % (type(error).__name__,
                                                                         error))
            return None

    def save_overload(self, sig, data):
        if not self._follow():
            return
        try:
            try:
                super().save_overload(sig, data)
            except FileNotFoundError:
                # The directory was deleted (`autograph cache clear` in another process).
                if not agcache.restore(self._cache_path):
                    raise
                super().save_overload(sig, data)
        except OSError as error:
            # Beside a generated module of a root this process already gave up: no news.
            if os.path.dirname(self._cache_path) == agcache.location.place().path:
                agcache.give_up("cannot write the compiled code of %s to %s (%s)"
                                % (self._py_func.__qualname__, self._cache_path,
                                   error.strerror or error))


class _Corrupt(Exception):
    pass


class _CheckedFile(caching.IndexDataCacheFile):
    """Numba's index and data files, each behind a header and the hash of its contents."""

    @property
    def index_path(self):
        return self._index_path

    def discard(self, path, reason, level=logging.WARNING):
        if path not in _reported:
            _reported.add(path)
            logger.log(level, "autograph: the cached compiled code %s %s; it is deleted and "
                       "compiled again.", path, reason)
        agcache.delete(path)

    def _read(self, path):
        """The verified contents of `path` after the header, or None if it is missing."""
        data = agcache.read(path)
        if data is None:
            return None
        start = len(_HEADER) + _DIGEST_SIZE
        if not data.startswith(_HEADER):
            raise _Corrupt("has no autograph header (written by another version?)")
        if len(data) < start or hashlib.sha256(data[start:]).digest() != data[len(_HEADER):start]:
            raise _Corrupt("is truncated or corrupt (its hash does not match)")
        return data[start:]

    def _write(self, path, payload):
        agcache.replace(path, _HEADER + hashlib.sha256(payload).digest() + payload)

    def _load_index(self):
        try:
            payload = self._read(self._index_path)
            if payload is None:
                return {}
            stream = io.BytesIO(payload)
            version = pickle.load(stream)
            if version != self._version:
                self.discard(self._index_path, "was made by Numba %s" % (version,),
                             logging.INFO)
                return {}
            stamp, overloads = pickle.loads(stream.read())
        except _Corrupt as error:
            self.discard(self._index_path, str(error))
            return {}
        except Exception as error:     # unpickling a damaged file can raise anything
            self.discard(self._index_path, "cannot be read (%s: %s)" % (
                type(error).__name__, error))
            return {}
        # Another source (it changed): stale, overwritten by the next save.
        return overloads if stamp == self._source_stamp else {}

    def _save_index(self, overloads):
        self._write(self._index_path, pickle.dumps(self._version, protocol=-1)
                    + self._dump((self._source_stamp, overloads)))

    def load(self, key):
        name = self._load_index().get(key)
        if name is None:
            return None
        path = self._data_path(name)
        try:
            payload = self._read(path)
            return None if payload is None else pickle.loads(payload)
        except _Corrupt as error:
            self.discard(path, str(error))
        except Exception as error:
            self.discard(path, "cannot be read (%s: %s)" % (type(error).__name__, error))
        return None

    def _save_data(self, name, data):
        self._write(self._data_path(name), self._dump(data))
