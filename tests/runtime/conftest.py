"""Fixtures of the runtime tests: the helpers of equivalence.py (run a function eagerly and
through rt.function and compare everything)."""

import pytest

from equivalence import assert_same, run_both


@pytest.fixture
def both():
    return run_both


@pytest.fixture
def same():
    return assert_same
