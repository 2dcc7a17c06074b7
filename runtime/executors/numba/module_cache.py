"""Writes generated source to a content-hash named module file in a private per-user cache
dir and imports it under a stable name, so Numba's `cache=True` works across processes."""

import hashlib
import importlib.util
import os
import sys
import tempfile

MODULE_PREFIX = "_ag_numba_"   # generated module names (and files) start with it


def cache_dir():
    """$AUTOGRAPH_CACHE_DIR/numba, or ~/.cache/autograph-numpy/numba; created 0700.

    Falls back to a per-user directory under the temp dir when the home cache is not ours.
    """
    root = os.environ.get("AUTOGRAPH_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "autograph-numpy")
    for candidate in (os.path.join(root, "numba"),
                      os.path.join(tempfile.gettempdir(), "autograph-numpy-%d" % os.getuid(),
                                   "numba")):
        try:
            os.makedirs(candidate, mode=0o700, exist_ok=True)
            info = os.stat(candidate)
            if info.st_uid == os.getuid() and os.access(candidate, os.W_OK):
                return candidate
        except OSError:
            continue
    raise OSError("no writable private cache directory for generated Numba modules")


def module_name_for(source, salt=""):
    digest = hashlib.sha256((salt + "\0" + source).encode("utf-8")).hexdigest()[:32]
    return MODULE_PREFIX + digest


def load_module(source, salt=""):
    """Import `source` as a module named by its hash (reused if already imported).

    Returns (module, filename). The file is written atomically (temp file + rename) and
    never rewritten, so Numba's cache index (keyed on the file's stamp) stays valid.
    """
    name = module_name_for(source, salt)
    module = sys.modules.get(name)
    if module is not None:
        return module, module.__file__
    directory = cache_dir()
    filename = os.path.join(directory, name + ".py")
    data = source.encode("utf-8")
    try:
        with open(filename, "rb") as f:
            same = f.read() == data
    except OSError:
        same = False
    if not same:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".py")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, filename)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    spec = importlib.util.spec_from_file_location(name, filename)
    module = importlib.util.module_from_spec(spec)
    # Registered before executing: Numba's cache rebuilds environments by module name.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module, filename
