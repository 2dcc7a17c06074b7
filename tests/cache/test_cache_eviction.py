"""The size limit: last-use marks, least-recently-used eviction of whole entries, and when
a process looks at the size."""

import fcntl
import logging
import os
import threading
import time

import pytest

import agcache
from agcache import usage
from autograph.pyct import loader

HOUR = 3600.0


def _entry(directory, name, size, last_used, suffixes=(".py",)):
    """Files of one entry (`name` + each suffix), `size` bytes each, last used then."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    paths = []
    for suffix in suffixes:
        path = directory / (name + suffix)
        path.write_bytes(b"x" * size)
        os.utime(path, (last_used, last_used))
        paths.append(path)
    return paths


@pytest.fixture
def filled(cache_root):
    """A cache of four entries of 3000 bytes each, used 4, 3, 2 and 1 hours ago; the
    oldest is a Numba module with its compiled code."""
    now = time.time()
    cache_root.mkdir(mode=0o700)
    entries = {
        "oldest": _entry(cache_root / "numba", "_ag_numba_a", 1000, now - 4 * HOUR,
                         (".py", ".run_graph-9.py311.nbi", ".run_graph-9.py311.1.nbc")),
        "old": _entry(cache_root / "modules", "__autograph_generated_b", 3000, now - 3 * HOUR),
        "recent": _entry(cache_root / "kernels", "runtime", 1000, now - 2 * HOUR,
                         (".a-1.py311.nbi", ".a-1.py311.1.nbc", ".b-2.py311.nbi")),
        "newest": _entry(cache_root / "modules", "__autograph_generated_c", 3000,
                         now - HOUR),
    }
    return cache_root, entries


def _left(entries):
    return sorted(name for name, paths in entries.items() if all(p.exists() for p in paths))


def test_sizes_parse_with_units():
    assert usage.parse_size("1GiB") == 1 << 30
    assert usage.parse_size("512 MiB") == 512 << 20
    assert usage.parse_size("2GB") == 2 * 10 ** 9
    assert usage.parse_size("1.5k") == 1500
    assert usage.parse_size("123") == 123
    with pytest.raises(ValueError, match="not a size"):
        usage.parse_size("lots")


def test_the_limit_is_1_gib_unless_configured(monkeypatch, caplog):
    monkeypatch.delenv(agcache.ENV_LIMIT, raising=False)
    assert agcache.limit() == 1 << 30
    monkeypatch.setenv(agcache.ENV_LIMIT, "200MiB")
    assert agcache.limit() == 200 << 20
    monkeypatch.setenv(agcache.ENV_LIMIT, "big")
    assert agcache.limit() == 1 << 30
    assert "AUTOGRAPH_CACHE_LIMIT=big ignored" in caplog.text


def test_under_the_limit_nothing_is_evicted(filled):
    root, entries = filled
    assert agcache.trim(str(root), 12000) == 0
    assert _left(entries) == ["newest", "old", "oldest", "recent"]


def test_least_recently_used_entries_go_first_and_whole(filled):
    root, entries = filled
    # 12000 bytes over a limit of 9000: down to 8100, so the two oldest entries go.
    assert agcache.trim(str(root), 9000) == 6000
    assert _left(entries) == ["newest", "recent"]
    assert not any(p.exists() for p in entries["oldest"])   # the module and its code


def test_using_an_entry_makes_it_recent(filled):
    root, entries = filled
    oldest_module = entries["oldest"][0]
    assert agcache.read(str(oldest_module)) == b"x" * 1000
    assert os.stat(oldest_module).st_mtime < time.time() - 3 * HOUR   # content time kept
    agcache.trim(str(root), 9000)
    assert _left(entries) == ["newest", "oldest"]      # "old" and "recent" went instead


def test_loading_a_module_marks_its_file_used(cache_root):
    source = "used = True\n"
    module_dir = cache_root / "modules"
    module_dir.mkdir(parents=True, mode=0o700)
    os.chmod(cache_root, 0o700)
    path = module_dir / (loader.module_name_for(source) + ".py")
    path.write_text(source)
    os.utime(path, (time.time() - 5 * HOUR, time.time() - 5 * HOUR))
    loader.load_source(source)
    assert os.stat(path).st_atime > time.time() - 60
    assert os.stat(path).st_mtime < time.time() - 4 * HOUR


def test_entries_used_in_the_last_minute_are_kept(filled):
    root, entries = filled
    for path in entries["oldest"] + entries["old"]:
        os.utime(path, None)                       # another process is using them
    agcache.trim(str(root), 1000)
    assert _left(entries) == ["old", "oldest"]


def test_temporary_files_of_killed_writers_are_deleted(filled):
    root, _ = filled
    stale = root / "numba" / ".tmp-stale"
    stale.write_bytes(b"partial")
    os.utime(stale, (time.time() - 2 * HOUR,) * 2)
    fresh = root / "numba" / ".tmp-being-written"
    fresh.write_bytes(b"partial")
    agcache.trim(str(root), 1 << 30)
    assert not stale.exists() and fresh.exists()


def test_one_process_evicts_at_a_time(filled):
    root, entries = filled
    with open(root / usage.LOCK_NAME, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert agcache.trim(str(root), 1000) is None
    assert _left(entries) == ["newest", "old", "oldest", "recent"]


def test_writing_over_the_limit_evicts_in_the_background(filled, monkeypatch):
    root, entries = filled
    monkeypatch.setenv(agcache.ENV_LIMIT, "9000")
    monkeypatch.setattr(usage, "_looked", False)
    loader.load_source("fresh = %r\n" % os.urandom(8).hex())      # this process's first write
    for thread in threading.enumerate():
        if thread.name == "autograph-cache-trim":
            thread.join(30)
    assert _left(entries) == ["newest", "recent"]


def test_processes_look_at_the_size_at_most_every_ten_minutes(filled, monkeypatch):
    root, entries = filled
    (root / usage.LOCK_NAME).touch()                   # another process just looked
    monkeypatch.setenv(agcache.ENV_LIMIT, "9000")
    monkeypatch.setattr(usage, "_looked", False)
    loader.load_source("fresh = %r\n" % os.urandom(8).hex())
    time.sleep(0.2)
    assert _left(entries) == ["newest", "old", "oldest", "recent"]


def test_info_counts_entries_by_kind(filled):
    root, _ = filled
    (root / "cpython-311").mkdir(mode=0o700)
    (root / "cpython-311" / "old_layout.py").write_text("")
    found = agcache.info()
    assert found.root == str(root) and found.problem is None
    assert found.size == 12000 and found.files == 9
    assert found.entries == {"modules": 2, "numba": 1, "kernels": 1, "other": 1}


def test_clear_deletes_everything(filled, caplog):
    root, _ = filled
    assert agcache.clear() == (8, 12000)
    assert os.listdir(root) == []
    with caplog.at_level(logging.WARNING):
        module, filename = loader.load_source("after_clear = 1\n")
    assert filename.startswith(str(root)) and not caplog.records
