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
