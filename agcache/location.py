"""Where the cache lives: the root, its private directories, and the fallbacks.

The root is `$AUTOGRAPH_CACHE_DIR`, else `$XDG_CACHE_HOME/autograph-numpy`, else
`~/.cache/autograph-numpy`. Code is imported from it, so only this user may be able to
write there:

- the root and every directory in it are created 0700, and an existing one is used only if
  it is a real directory (not a link) owned by this user and not writable by group or
  others (one that only others can read is made 0700);
- every directory above the root must be owned by this user or by root, and if others can
  write to it, it must have the sticky bit (as /tmp has), so nobody else can move the root
  away and put another in its place.

A root that fails these checks, or that cannot be written (read-only, full), is given up
for the rest of the process with one warning line; the process then uses a private
temporary directory, deleted at exit (also after an exception; a process killed by a signal
leaves it behind, and the next process that falls back deletes it). If no temporary
directory can be made either, nothing is written: `directory()` returns None and the
callers keep everything in memory.
"""

import atexit
import logging
import os
import shutil
import stat
import tempfile
import threading
import time

logger = logging.getLogger("autograph")

ENV_DIR = "AUTOGRAPH_CACHE_DIR"

# The directories of the root, and what each holds.
KINDS = {
    "modules": "converted Python functions (generated modules)",
    "numba": "generated Numba modules and their compiled code",
    "kernels": "compiled code of the runtime's own Numba kernels",
}

_TEMPORARY_PREFIX = "autograph-"
# A leftover temporary root is deleted only if its process is gone and it is this old: a
# process in another PID namespace sharing /tmp may look gone.
_LEFTOVER_AGE = 3600.0


class Place:
    """The root this process uses. `path` is None when nothing can be written (in memory);
    `reason` says why the configured root is not used."""

    def __init__(self, configured, path, temporary=False, reason=None):
        self.configured = configured
        self.path = path
        self.temporary = temporary
        self.reason = reason


_lock = threading.RLock()
_place = None
_directories = {}        # (root path, kind) -> checked directory


def configured_root():
    """The root the configuration asks for (it may not be usable)."""
    path = os.environ.get(ENV_DIR)
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
        path = os.path.join(base, "autograph-numpy")
    return os.path.abspath(os.path.expanduser(path))


def configured_by_environment():
    return bool(os.environ.get(ENV_DIR))


def place():
    """The Place of this process for the current configuration (settled on first use)."""
    configured = configured_root()
    current = _place
    if current is not None and current.configured == configured:
        return current
    with _lock:
        if _place is None or _place.configured != configured:
            _settle(configured)
        return _place


def directory(kind):
    """The private directory of `kind` (see KINDS) under the root in use, created if
    needed; None if this process keeps everything in memory."""
    current = place()
    if current.path is None:
        return None
    path = _directories.get((current.path, kind))
    if path is not None:
        return path
    with _lock:
        path = os.path.join(current.path, kind)
        problem = _make_private(path)
        if problem is None:
            _directories[(current.path, kind)] = path
            return path
        give_up(problem)
    return directory(kind)


def restore(path):
    """Makes the root in use, or the directory `path` of it, again after someone deleted it
    (`autograph cache clear` in another process); True if it is there and private."""
    with _lock:
        current = _place
        if current is None or current.path is None:
            return False
        if path != current.path and os.path.dirname(path) != current.path:
            return False
        return _make_private(current.path) is None and _make_private(path) is None


def give_up(problem):
    """Stops using the current root for this process (`problem` says why, in one line):
    warns once and moves to a private temporary directory, or to memory."""
    with _lock:
        current = _place
        if current is None or current.path is None:
            return
        if current.temporary:
            _place_in_memory(current.configured, problem)
            return
        _fall_back(current.configured, problem)


def _settle(configured):
    global _place
    problem = _unsafe_ancestor(configured) or _make_private(configured)
    if problem is None:
        _place = Place(configured, configured)
    else:
        _fall_back(configured, problem)


def _fall_back(configured, problem):
    global _place
    try:
        path = _temporary_root()
    except OSError as error:
        _place_in_memory(configured, "%s; no temporary directory either (%s)" % (problem, error))
        return
    logger.warning("autograph: not using the cache at %s: %s. This process uses the private "
                   "temporary directory %s, deleted at exit.", configured, problem, path)
    _place = Place(configured, path, temporary=True, reason=problem)


def _place_in_memory(configured, problem):
    global _place
    logger.warning("autograph: not using the cache at %s: %s. This process keeps generated "
                   "code in memory (nothing is cached across processes).", configured, problem)
    _place = Place(configured, None, reason=problem)


# --- checks ------------------------------------------------------------------------------


def _unsafe_ancestor(path):
    """Why a directory above `path` lets someone else replace it, or None."""
    uid = os.getuid()
    parent = os.path.dirname(path)
    while True:
        try:
            info = os.stat(parent)
        except FileNotFoundError:
            info = None          # created by us, 0700
        except OSError as error:
            return "cannot inspect %s (%s)" % (parent, error.strerror or error)
        if info is not None:
            if info.st_uid not in (uid, 0):
                return "%s is owned by uid %d, another user" % (parent, info.st_uid)
            if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
                return "%s is writable by group or others (mode %03o)" % (
                    parent, stat.S_IMODE(info.st_mode))
        above = os.path.dirname(parent)
        if above == parent:
            return None
        parent = above


def unsafe_directory(path, info):
    """Why the directory at `path` (its lstat `info`) may not hold code we import, or None."""
    if stat.S_ISLNK(info.st_mode):
        return "%s is a symbolic link" % path
    if not stat.S_ISDIR(info.st_mode):
        return "%s is not a directory" % path
    if info.st_uid != os.getuid():
        return "%s is owned by uid %d, not by this user (uid %d)" % (path, info.st_uid,
                                                                    os.getuid())
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "%s is writable by group or others (mode %03o)" % (path,
                                                                  stat.S_IMODE(info.st_mode))
    return None


def problem(path):
    """Why the directory `path` would not be used as a root (not creating anything), or
    None."""
    found = _unsafe_ancestor(path)
    if found is None:
        try:
            found = unsafe_directory(path, os.lstat(path))
        except FileNotFoundError:
            pass
        except OSError as error:
            found = "cannot inspect %s (%s)" % (path, error.strerror or error)
    return found


def _make_private(path):
    """Creates `path` (and missing parents) mode 0700, or checks the existing directory;
    None if it is private to this user, else why not."""
    try:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            os.makedirs(path, mode=0o700, exist_ok=True)
            info = os.lstat(path)
        problem = unsafe_directory(path, info)
        if problem is not None:
            return problem
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.chmod(path, 0o700)
        return None
    except OSError as error:
        return "cannot create %s (%s)" % (path, error.strerror or error)


# --- the temporary root -------------------------------------------------------------------

_temporary = []          # (pid, path) of the temporary roots this process made


def _temporary_root():
    base = tempfile.gettempdir()
    problem = _unsafe_ancestor(os.path.join(base, "x"))
    if problem is not None:
        raise OSError(problem)
    path = tempfile.mkdtemp(prefix="%s%d-" % (_TEMPORARY_PREFIX, os.getpid()), dir=base)
    _temporary.append((os.getpid(), path))
    _delete_leftovers(base)
    return path


@atexit.register
def _delete_temporary_roots():
    for pid, path in _temporary:
        if pid == os.getpid():     # not in a forked child: the parent still uses it
            shutil.rmtree(path, ignore_errors=True)


def _delete_leftovers(base):
    """Deletes the temporary roots of processes that are gone (killed by a signal)."""
    now = time.time()
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        if not name.startswith(_TEMPORARY_PREFIX):
            continue
        pid = name[len(_TEMPORARY_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        path = os.path.join(base, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
                and now - info.st_mtime > _LEFTOVER_AGE):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def reset():
    """Forgets the settled place (tests; the next use settles it again)."""
    global _place
    with _lock:
        _place = None
        _directories.clear()
