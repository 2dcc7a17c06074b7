"""Loads generated source as a real module: a content-named file in the private cache
(`agcache`, directory `modules/`), executed as a module registered in sys.modules.

A real file (instead of only `exec`) is what tracebacks, `inspect.getsource`, pdb, to_code
(through linecache, which reads it when asked) and Numba's on-disk cache (`cache=True`)
need. The module is compiled from the text in memory: nothing reads the file back while
loading. Where the cache cannot be written, the module has no file and linecache holds its
text.
"""

import hashlib

import agcache
from autograph.pyct import origin_info
from autograph.pyct import unparser

MODULE_NAME_PREFIX = "__autograph_generated_"
CACHE_KIND = "modules"       # the cache directory of generated modules


def source_hash(source):
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:32]


def module_name_for(source):
    """The stable sys.modules name of the module generated from `source`."""
    return MODULE_NAME_PREFIX + source_hash(source)


def load_source(source, tree=None):
    """Writes `source` to a content-named file and runs it as a module.

    Returns (module, filename). Loading the same source again in this process returns the
    already loaded module; an existing file with the same content is reused untouched.
    `tree`, if given, is `ast.parse(source)`: it is compiled instead of the text.
    """
    return agcache.load_module(CACHE_KIND, module_name_for(source), source, tree)


def load_ast(nodes, indentation="    ", include_source_map=False):
    """Unparses `nodes` and loads them with load_source.

    Returns (module, source, source_map); source_map is None unless `include_source_map`,
    in which case it maps generated lines to the nodes' ORIGIN annotations.
    """
    if not isinstance(nodes, (list, tuple)):
        nodes = (nodes,)
    source = unparser.unparse(nodes, indentation=indentation)
    module, filename = load_source(source)
    source_map = None
    if include_source_map:
        source_map = origin_info.create_source_map(nodes, source, filename)
    return module, source, source_map
