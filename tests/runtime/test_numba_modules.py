"""The generated-module writer: content-hash names, a private cache dir, reuse by name."""

import os
import stat
import sys
import uuid

from runtime.executors.numba import module_cache


def test_module_is_written_once_and_importable_by_its_stable_name(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path))
    source = "VALUE = %r\n" % uuid.uuid4().hex
    module, filename = module_cache.load_module(source)
    assert module.VALUE in source
    assert filename == os.path.join(str(tmp_path), "numba", module.__name__ + ".py")
    assert sys.modules[module.__name__] is module
    assert module_cache.module_name_for(source) == module.__name__
    again, _ = module_cache.load_module(source)
    assert again is module
    with open(filename) as f:
        assert f.read() == source
    mode = stat.S_IMODE(os.stat(os.path.dirname(filename)).st_mode)
    assert mode & 0o077 == 0
    assert not [n for n in os.listdir(os.path.dirname(filename)) if n.startswith(".tmp-")]


def test_different_sources_get_different_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path))
    a, _ = module_cache.load_module("X = 1  # %s\n" % uuid.uuid4().hex)
    b, _ = module_cache.load_module("X = 2  # %s\n" % uuid.uuid4().hex)
    assert a is not b and (a.X, b.X) == (1, 2)


def test_a_failing_module_is_not_left_registered(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path))
    source = "raise ValueError('boom')  # %s\n" % uuid.uuid4().hex
    try:
        module_cache.load_module(source)
    except ValueError:
        pass
    else:
        raise AssertionError("expected the module's error")
    assert module_cache.module_name_for(source) not in sys.modules
