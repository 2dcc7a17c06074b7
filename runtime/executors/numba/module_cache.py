"""Generated modules for Numba: loaded through the private cache (`agcache`, directory
`numba/`) under a name that is the hash of their source, so Numba's on-disk cache of their
compiled code (disk_cache.py, beside the module's file) works across processes."""

import glob
import hashlib

import agcache

MODULE_PREFIX = "_ag_numba_"   # generated module names (and files) start with it
CACHE_KIND = "numba"


def module_name_for(source, salt=""):
    digest = hashlib.sha256((salt + "\0" + source).encode("utf-8")).hexdigest()[:32]
    return MODULE_PREFIX + digest


def load_module(source, salt=""):
    """Import `source` as a module named by its hash (reused if already imported).

    Returns (module, filename). The module is compiled from the text in memory; its file
    (what Numba's cache is keyed on) is written once and never rewritten while it is right.
    """
    return agcache.load_module(CACHE_KIND, module_name_for(source, salt), source)


def write_module(source, salt=""):
    """The file `load_module` would run `source` from, written but not run (no Numba
    import: compiled.py's background compiles); None when the cache keeps nothing on
    disk."""
    return agcache.write_module_file(CACHE_KIND, module_name_for(source, salt), source)


def has_saved_code(path):
    """Whether Numba's disk cache holds compiled code of the module at `path`'s
    `run_graph` (an index file beside it: disk_cache.py names them
    `<module>.run_graph-<line>.py311.nbi`), seen without importing Numba. The code may be
    for other argument types; loading then compiles."""
    if path is None:
        return False
    return bool(glob.glob(glob.escape(path[:-len(".py")]) + ".run_graph-*.nbi"))
