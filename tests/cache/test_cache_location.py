"""The cache root: where it is, who may write there, and what happens when it cannot be
used (one warning line, a private temporary directory deleted at exit, or memory)."""

import errno
import logging
import os
import stat
import textwrap

import numpy as np
import pytest

import agcache
import autograph as ag
from agcache import location
from autograph.pyct import loader

from cache_helpers import OTHER_UID, as_root, run_python


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def _load(text):
    return loader.load_source(text + "  # %s\n" % os.urandom(8).hex())


def _warnings(caplog):
    return [r for r in caplog.records if r.name == "autograph" and r.levelno >= logging.WARNING]


def test_the_root_is_the_environment_variable_else_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(agcache.ENV_DIR, str(tmp_path / "here"))
    assert agcache.configured_root() == str(tmp_path / "here")
    monkeypatch.delenv(agcache.ENV_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert agcache.configured_root() == str(tmp_path / "xdg" / "autograph-numpy")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert agcache.configured_root() == str(tmp_path / "home" / ".cache" / "autograph-numpy")


def test_directories_are_0700_and_files_0600(cache_root, monkeypatch):
    monkeypatch.setattr(os, "umask", os.umask)     # (restored: the test changes the umask)
    old = os.umask(0o002)                           # a permissive umask must not leak
    try:
        module, filename = _load("x = 1")
    finally:
        os.umask(old)
    assert module.x == 1
    assert filename.startswith(str(cache_root / "modules") + os.sep)
    assert _mode(cache_root) == 0o700 and _mode(cache_root / "modules") == 0o700
    assert _mode(filename) == 0o600


def test_an_existing_root_only_others_can_read_is_made_private(cache_root):
    cache_root.mkdir(mode=0o755)
    os.chmod(cache_root, 0o755)
    _load("y = 2")
    assert _mode(cache_root) == 0o700


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_root_group_or_others_can_write_is_refused(cache_root, caplog, mode):
    cache_root.mkdir()
    os.chmod(cache_root, mode)
    planted = cache_root / "modules"
    planted.mkdir(mode=0o700)
    module, filename = _load("z = 3")
    assert module.z == 3
    assert not filename.startswith(str(cache_root))
    assert _mode(cache_root) == mode                 # refused, not taken over
    [warning] = _warnings(caplog)
    assert "writable by group or others" in warning.getMessage()
    assert str(cache_root) in warning.getMessage()
    # The fallback is private and used for the rest of the process, without a new warning.
    fallback = os.path.dirname(os.path.dirname(filename))
    assert _mode(fallback) == 0o700 and os.stat(fallback).st_uid == os.getuid()
    _load("z = 4")
    assert len(_warnings(caplog)) == 1


def test_a_subdirectory_others_can_write_is_refused(cache_root, caplog):
    (cache_root / "modules").mkdir(parents=True)
    os.chmod(cache_root, 0o700)
    os.chmod(cache_root / "modules", 0o777)
    (cache_root / "modules" / (loader.module_name_for("w = 1\n") + ".py")).write_text(
        "w = 'planted'\n")
    module, filename = loader.load_source("w = 1\n")
    assert module.w == 1 and not filename.startswith(str(cache_root))
    assert "writable by group or others" in _warnings(caplog)[0].getMessage()


def test_a_link_in_place_of_a_directory_is_refused(cache_root, tmp_path, caplog):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    cache_root.mkdir(mode=0o700)
    os.symlink(elsewhere, cache_root / "modules")
    module, filename = _load("v = 1")
    assert module.v == 1 and not filename.startswith(str(cache_root))
    assert not os.listdir(elsewhere)
    assert "symbolic link" in _warnings(caplog)[0].getMessage()


def test_a_file_in_place_of_the_root_falls_back(cache_root, caplog):
    cache_root.write_text("not a directory")
    module, filename = _load("u = 1")
    assert module.u == 1 and not filename.startswith(str(cache_root))
    assert len(_warnings(caplog)) == 1


@as_root
def test_a_root_owned_by_another_user_is_refused(cache_root, caplog):
    cache_root.mkdir(mode=0o700)
    os.chown(cache_root, OTHER_UID, OTHER_UID)
    module, filename = _load("t = 1")
    assert module.t == 1 and not filename.startswith(str(cache_root))
    [warning] = _warnings(caplog)
    assert "owned by uid %d" % OTHER_UID in warning.getMessage()


@as_root
def test_a_subdirectory_owned_by_another_user_is_refused(cache_root, caplog):
    (cache_root / "numba").mkdir(parents=True, mode=0o700)
    os.chmod(cache_root, 0o700)
    os.chown(cache_root / "numba", OTHER_UID, OTHER_UID)
    assert agcache.directory("numba") != str(cache_root / "numba")
    assert "owned by uid %d" % OTHER_UID in _warnings(caplog)[0].getMessage()


@as_root
def test_a_root_inside_another_users_directory_is_refused(tmp_path, monkeypatch, caplog):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, OTHER_UID, OTHER_UID)
    monkeypatch.setenv(agcache.ENV_DIR, str(theirs / "cache"))
    location.reset()
    try:
        module, filename = _load("s = 1")
    finally:
        location.reset()
    assert module.s == 1 and not filename.startswith(str(theirs))
    assert not (theirs / "cache").exists()          # not even created there
    assert "owned by uid %d, another user" % OTHER_UID in _warnings(caplog)[0].getMessage()


def test_a_root_under_a_shared_directory_needs_its_sticky_bit(tmp_path, monkeypatch, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setenv(agcache.ENV_DIR, str(shared / "cache"))
    try:
        os.chmod(shared, 0o1777)                     # like /tmp: others cannot move our root
        location.reset()
        assert _load("r = 1")[1].startswith(str(shared / "cache"))
        assert not _warnings(caplog)
        os.chmod(shared, 0o777)                      # anyone could replace it
        location.reset()
        assert not _load("r = 2")[1].startswith(str(shared / "cache"))
        assert "writable by group or others" in _warnings(caplog)[0].getMessage()
    finally:
        location.reset()


def _read_only_file_system(monkeypatch, root):
    """os.open for writing, mkdir and mkstemp under `root` fail as on a read-only mount
    (root ignores permission bits, so a chmod would not do)."""
    real_open, real_mkdir = os.open, os.mkdir
    root = str(root)

    def under(path):
        return os.fspath(path).startswith(root)

    def fake_open(path, flags, *args, **kwargs):
        if under(path) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            if flags & os.O_EXCL and os.path.lexists(path):    # as Linux: EEXIST first
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        return real_open(path, flags, *args, **kwargs)

    def fake_mkdir(path, *args, **kwargs):
        if under(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "mkdir", fake_mkdir)


def test_an_empty_read_only_root_falls_back_on_both_backends(cache_root, monkeypatch, caplog):
    cache_root.mkdir(mode=0o700)
    _read_only_file_system(monkeypatch, cache_root)

    def clip_sum(x):
        total = 0.0
        for v in x:
            if v > 1.0:
                v = 1.0
            total += v
        return total

    x = np.array([0.5, 2.0, -1.0, 3.0])
    for backend in ("numpy", "numba"):
        assert ag.function(clip_sum, backend=backend)(x) == clip_sum(x)
    [warning] = _warnings(caplog)
    assert "Read-only file system" in warning.getMessage()
    assert str(cache_root) in warning.getMessage()
    assert os.listdir(cache_root) == []


def test_a_read_only_root_with_the_module_in_it_is_used(cache_root, monkeypatch, caplog):
    source = "q = 'shared'\n"
    module_dir = cache_root / "modules"
    module_dir.mkdir(parents=True, mode=0o700)
    os.chmod(cache_root, 0o700)
    (module_dir / (loader.module_name_for(source) + ".py")).write_text(source)
    _read_only_file_system(monkeypatch, cache_root)
    module, filename = loader.load_source(source)
    assert module.q == "shared" and filename.startswith(str(module_dir))
    assert not _warnings(caplog)


@pytest.mark.skipif(os.getuid() == 0, reason="root writes to read-only directories")
def test_a_read_only_directory_falls_back(cache_root, caplog):
    cache_root.mkdir(mode=0o700)
    os.chmod(cache_root, 0o500)
    try:
        module, filename = _load("p = 1")
    finally:
        os.chmod(cache_root, 0o700)
    assert module.p == 1 and not filename.startswith(str(cache_root))
    assert len(_warnings(caplog)) == 1


FALLBACK_SCRIPT = textwrap.dedent("""
    import numpy as np, autograph as ag

    @ag.function(backend="numba")
    def f(x):
        s = 0.0
        for i in range(x.shape[0]):
            if x[i] > 0:
                s += x[i]
        return s

    print(f(np.arange(-2.0, 3.0)))
    if {fail!r} == "raise":
        raise ZeroDivisionError("after the compile")
""")


@pytest.mark.parametrize("fail", ["no", "raise"])
def test_the_temporary_directory_is_deleted_at_exit(tmp_path, fail):
    temp = tmp_path / "tmp"
    temp.mkdir(mode=0o700)
    unusable = tmp_path / "file"
    unusable.write_text("")
    result = run_python(FALLBACK_SCRIPT.format(fail=fail), tmp_path, check=False,
                        env={"TMPDIR": str(temp), agcache.ENV_DIR: str(unusable)})
    assert result.stdout.split()[0] == "3.0", result.stderr
    assert result.returncode == (0 if fail == "no" else 1)
    warnings = [line for line in result.stderr.splitlines() if "autograph:" in line]
    assert len(warnings) == 1 and "private temporary directory" in warnings[0]
    assert os.listdir(temp) == []


def test_leftovers_of_killed_processes_are_deleted(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir(mode=0o700)
    dead = temp / "autograph-999999999-abcd"      # no such process
    dead.mkdir(mode=0o700)
    (dead / "modules").mkdir()
    young = temp / "autograph-999999998-abcd"
    young.mkdir(mode=0o700)
    os.utime(dead, (1, 1))
    unusable = tmp_path / "file"
    unusable.write_text("")
    run_python("import agcache; print(agcache.directory('modules'))", tmp_path,
               env={"TMPDIR": str(temp), agcache.ENV_DIR: str(unusable)})
    # The old one is gone; a recent one may belong to a process in another PID namespace.
    assert sorted(os.listdir(temp)) == [young.name]


def test_without_any_writable_directory_code_is_kept_in_memory(tmp_path, monkeypatch, caplog):
    temp = tmp_path / "tmp"
    temp.mkdir()
    os.chmod(temp, 0o777)                        # no sticky bit: refused
    unusable = tmp_path / "file"
    unusable.write_text("")
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setenv(agcache.ENV_DIR, str(unusable))
    monkeypatch.setattr("tempfile.tempdir", None)
    location.reset()
    try:
        def scaled(x, k):
            if k > 2:
                raise ValueError("k too large")
            return x * k

        module, filename = _load("o = 1")
        assert module.o == 1 and filename.startswith("<autograph ")
        import inspect
        assert "o = 1" in inspect.getsource(module)
        x = np.arange(3.0)
        for backend in ("numpy", "numba"):
            f = ag.function(scaled, backend=backend)
            np.testing.assert_array_equal(f(x, 2), scaled(x, 2))
        assert "def scaled" in ag.to_code(scaled)
        with pytest.raises(ValueError, match="k too large"):
            ag.to_graph(scaled)(x, 3)
    finally:
        location.reset()
    assert os.listdir(temp) == []
    [warning] = _warnings(caplog)
    assert "is not a directory" in warning.getMessage()
    assert "no temporary directory either" in warning.getMessage()
    assert "in memory" in warning.getMessage()


def test_a_write_failure_moves_to_the_fallback_once(cache_root, monkeypatch, caplog):
    _load("n = 1")
    real_open = os.open

    def full(path, flags, *args, **kwargs):
        if os.fspath(path).startswith(str(cache_root)) and flags & os.O_CREAT:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", full)
    module, filename = _load("n = 2")
    assert module.n == 2 and not filename.startswith(str(cache_root))
    [warning] = _warnings(caplog)
    assert "No space left on device" in warning.getMessage()


def test_a_deleted_directory_is_made_again(cache_root):
    _load("m = 1")
    import shutil
    shutil.rmtree(cache_root)
    module, filename = _load("m = 2")
    assert module.m == 2 and filename.startswith(str(cache_root / "modules"))
    assert _mode(cache_root) == 0o700
