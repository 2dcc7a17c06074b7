"""The size of the cache: last-use marks, least-recently-used eviction, info and clear.

An *entry* is what is used together: a generated module with the compiled code of its
functions (`NAME.py`, `NAME.run_graph-12.py311.nbi`, `NAME.run_graph-12.py311.1.nbc`), or
the compiled kernels of one package. Its last use is the latest access time of its files:
reading a file marks it (its access time is set, its modification time kept, at most once
an hour per file), so eviction does not depend on how the file system updates access times.

The limit is `$AUTOGRAPH_CACHE_LIMIT` (bytes, or with a unit: `512MiB`, `2GB`), 1 GiB by
default. A process that writes to the cache looks at the size when it first writes, and
again after writing a sixteenth of the limit; the scan runs in a background thread, at most
every ten minutes across processes (the modification time of `<root>/.lock` says when it
last ran), under an exclusive lock. Over the limit, entries are deleted, least recently used first, down to
90% of it; an entry used in the last minute is kept (another process may be loading it).
"""

import os
import re
import shutil
import stat
import threading
import time

from agcache import location

ENV_LIMIT = "AUTOGRAPH_CACHE_LIMIT"
DEFAULT_LIMIT = 1 << 30
LOCK_NAME = ".lock"

_MARK_EVERY = 3600.0         # seconds between two marks of one file
_SCAN_EVERY = 600.0          # seconds between two scans, across processes
_GRACE = 60.0                # an entry used this recently is never evicted
_TEMPORARY_AGE = 3600.0      # a temporary file this old was left by a killed writer
_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "kib": 1 << 10, "m": 1000 ** 2,
          "mb": 1000 ** 2, "mib": 1 << 20, "g": 1000 ** 3, "gb": 1000 ** 3, "gib": 1 << 30,
          "t": 1000 ** 4, "tb": 1000 ** 4, "tib": 1 << 40}

_lock = threading.Lock()
_written = 0                 # bytes this process wrote since it last looked at the size
_looked = False              # whether this process has looked at the size yet
_limit = (None, DEFAULT_LIMIT)   # (the variable's text, the limit it gives)


def parse_size(text):
    """Bytes from `text` such as "1GiB", "500 MB", "123456"; ValueError if it is not one."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError("not a size: %r (use bytes, or a unit such as 512MiB or 2GB)" % text)
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def limit():
    """The size limit in bytes (`$AUTOGRAPH_CACHE_LIMIT`, else 1 GiB)."""
    global _limit
    text = os.environ.get(ENV_LIMIT)
    if text != _limit[0]:
        value = DEFAULT_LIMIT
        if text:
            try:
                value = parse_size(text)
            except ValueError as error:
                location.logger.warning("autograph: %s=%s ignored: %s; the limit is 1 GiB",
                                        ENV_LIMIT, text, error)
        _limit = (text, value)
    return _limit[1]


def mark_used(fd):
    """Marks the open file `fd` used now (for eviction)."""
    try:
        info = os.fstat(fd)
        now = time.time()
        if now - info.st_atime > _MARK_EVERY:
            os.utime(fd, ns=(time.time_ns(), info.st_mtime_ns))
    except OSError:
        pass


def note_written(size):
    """Called after writing `size` bytes to the cache: may evict (see the module doc)."""
    global _written, _looked
    with _lock:
        _written += size
        due = not _looked or _written >= limit() // 16
        if due:
            _looked = True
            written, _written = _written, 0
    if due:
        root = location.place().path
        if root is not None and (written >= limit() // 16 or _scan_is_due(root)):
            # In the background: scanning a full cache takes a few tenths of a second.
            threading.Thread(target=trim, args=(root,), name="autograph-cache-trim",
                             daemon=True).start()


def _scan_is_due(root):
    try:
        return time.time() - os.stat(os.path.join(root, LOCK_NAME)).st_mtime > _SCAN_EVERY
    except OSError:
        return True


class Entry:
    __slots__ = ("kind", "size", "last_used", "paths")

    def __init__(self, kind):
        self.kind = kind
        self.size = 0
        self.last_used = 0.0
        self.paths = []


def scan(root):
    """(entries, temporary files as (path, lstat)) under `root`; links are not followed."""
    entries = {}
    temporaries = []
    for directory, _, names in os.walk(root):
        relative = os.path.relpath(directory, root)
        kind = relative.split(os.sep, 1)[0] if relative != os.curdir else ""
        for name in names:
            if not kind and name == LOCK_NAME:
                continue
            path = os.path.join(directory, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if name.startswith(".tmp-") or ".tmp." in name:
                temporaries.append((path, info))
                continue
            entry = entries.get((directory, name.split(".", 1)[0]))
            if entry is None:
                entry = entries[(directory, name.split(".", 1)[0])] = Entry(kind)
            entry.size += info.st_size
            entry.last_used = max(entry.last_used, info.st_atime, info.st_mtime)
            entry.paths.append(path)
    return list(entries.values()), temporaries


def trim(root, size_limit=None):
    """Evicts least-recently-used entries of the cache at `root` down to 90% of the limit
    if it is over it; returns the number of bytes deleted (None if another process holds
    the lock)."""
    size_limit = limit() if size_limit is None else size_limit
    with _exclusive(os.path.join(root, LOCK_NAME)) as locked:
        if not locked:
            return None
        entries, temporaries = scan(root)
        now = time.time()
        deleted = 0
        for path, info in temporaries:
            if now - info.st_mtime > _TEMPORARY_AGE:
                deleted += _delete(path, info.st_size)
        total = sum(entry.size for entry in entries)
        if total > size_limit:
            for entry in sorted(entries, key=lambda e: e.last_used):
                if total <= size_limit * 0.9:
                    break
                if now - entry.last_used < _GRACE:
                    continue
                for path in entry.paths:
                    deleted += _delete(path, 0)
                total -= entry.size
                deleted += entry.size
        try:
            os.utime(os.path.join(root, LOCK_NAME))
        except OSError:
            pass
        return deleted


def _delete(path, size):
    try:
        os.unlink(path)
        return size
    except OSError:
        return 0


class _exclusive:
    """A non-blocking exclusive lock on the file at `path` (fcntl.flock); `with` gives
    whether it was taken. Without fcntl (Windows), it is always taken."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:
            return True
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0),
                              0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)      # releases the lock


class Info:
    """What `autograph cache info` shows."""

    def __init__(self, root, problem, size, entries, files, limit_bytes):
        self.root = root
        self.problem = problem          # why the root is not used, or None
        self.size = size
        self.entries = entries          # {kind, or "other" (older layouts): entries}
        self.files = files
        self.limit = limit_bytes


def info():
    """The configured cache: its location, whether it is usable, its size and entries."""
    root = location.configured_root()
    problem = location.problem(root)
    entries = {kind: 0 for kind in location.KINDS}
    size = files = 0
    if problem is None and os.path.isdir(root):
        found, temporaries = scan(root)
        for entry in found:
            kind = entry.kind if entry.kind in entries else "other"
            entries[kind] = entries.get(kind, 0) + 1
            size += entry.size
            files += len(entry.paths)
        size += sum(info.st_size for _, info in temporaries)
        files += len(temporaries)
    return Info(root, problem, size, entries, files, limit())


def clear():
    """Deletes everything in the configured cache; returns (files, bytes) deleted. Raises
    OSError if the root is not this user's private directory (nothing is deleted)."""
    root = location.configured_root()
    problem = location.problem(root)
    if problem is not None:
        raise OSError(problem)
    if not os.path.isdir(root):
        return 0, 0
    entries, temporaries = scan(root)
    files = sum(len(entry.paths) for entry in entries) + len(temporaries)
    size = sum(entry.size for entry in entries) + sum(i.st_size for _, i in temporaries)
    for name in os.listdir(root):
        path = os.path.join(root, name)
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            _delete(path, 0)
    location.reset()
    return files, size
