"""Test-suite setup: the repository root is importable (tools.workloads, examples)."""

import os
import sys

_ROOT = os.path.dirname(os.path.abspath(__file__))
for path in (_ROOT, os.path.join(_ROOT, "examples")):
    if path not in sys.path:
        sys.path.insert(0, path)
