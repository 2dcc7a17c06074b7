"""Scratch directories of the tools: private temporary directories (0700, tempfile.mkdtemp)
deleted when the process that made them exits, also after an exception, so benchmarks,
fuzzers and the tests that run them leave nothing in the temporary directory. (A process
killed by a signal still leaves its own behind.)"""

import atexit
import os
import shutil
import tempfile


def scratch_dir(prefix):
    """A new private temporary directory, deleted at the exit of this process."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(_remove, path, os.getpid())
    return path


def _remove(path, pid):
    if os.getpid() == pid:       # not in a forked child: its parent still uses it
        shutil.rmtree(path, ignore_errors=True)


def benchmark_environment(cache_prefix=None):
    """What a benchmark sets before NumPy and Numba are imported, unless the caller chose:
    BLAS on one thread (on two shared cores, BLAS threads waiting for each other made a
    100 us matmul take 1-40 ms from call to call); with `cache_prefix`, Numba's and
    autograph's caches in a new scratch directory, so first calls include compiling.
    Returns that directory (or None)."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    if cache_prefix is None:
        return None
    root = scratch_dir(cache_prefix)
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(root, "numba"))
    os.environ.setdefault("AUTOGRAPH_CACHE_DIR", os.path.join(root, "autograph"))
    return root
