"""The on-disk cache shared by the transpiler and the runtime: one private, self-healing,
bounded root.

    <root>/                $AUTOGRAPH_CACHE_DIR, else ~/.cache/autograph-numpy (0700)
      modules/             converted Python functions, one content-named module each
      numba/               generated Numba modules, with Numba's compiled code beside them
      kernels/             Numba's compiled code of the runtime's own kernels
      .lock                held while evicting; its time says when the size was last checked

- location.py: where the root is, the privacy checks at every level, the fallbacks (a
  private temporary directory deleted at exit, or memory) with one warning line;
- files.py: writing files 0600 and whole, reading them back verified, loading generated
  modules from the text in memory;
- usage.py: last-use marks, least-recently-used eviction under a size limit, info, clear.

Standard library only: `autograph/pyct`, which knows nothing of the runtime, and the
runtime, which knows nothing of autograph, both use it.
"""

from agcache.files import delete, ensure, load_module, read, replace, write_module_file
from agcache.location import (ENV_DIR, KINDS, configured_by_environment, configured_root,
                              directory, give_up, restore)
from agcache.usage import ENV_LIMIT, clear, info, limit, parse_size, trim
