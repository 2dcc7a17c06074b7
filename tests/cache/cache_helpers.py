"""Helpers of the cache tests (tests/cache/conftest.py has the fixtures)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OTHER_UID = 12345        # a user that is not us, for chown (as root only)

as_root = pytest.mark.skipif(os.getuid() != 0, reason="needs root to chown to another user")


def run_python(script, directory, env=None, timeout=240, check=True):
    """Runs `script` (written to a file in `directory`: converted functions need their
    source) in a fresh interpreter with the repository importable."""
    path = os.path.join(str(directory), "script_%s.py" % os.urandom(4).hex())
    with open(path, "w") as f:
        f.write(script)
    full_env = dict(os.environ, **(env or {}))
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    result = subprocess.run([sys.executable, path], capture_output=True, text=True,
                            env=full_env, timeout=timeout)
    if check:
        assert result.returncode == 0, result.stderr
    return result
