"""Fixtures of the cache tests: a fresh cache root per test."""

import pytest

import agcache
from agcache import location


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    """An unused cache root (not created yet) for this test; the process's settled root is
    forgotten before and after."""
    root = tmp_path / "cache"
    monkeypatch.setenv(agcache.ENV_DIR, str(root))
    monkeypatch.delenv(agcache.ENV_LIMIT, raising=False)
    location.reset()
    yield root
    location.reset()
