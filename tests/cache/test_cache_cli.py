"""`autograph cache info` and `autograph cache clear`."""

import os

import agcache
from autograph import cli
from autograph.pyct import loader

from cache_helpers import OTHER_UID, as_root, run_python


def _run(capsys, *argv):
    status = cli.main(["cache", *argv], prog="autograph")
    out, err = capsys.readouterr()
    return status, out, err


def test_info_shows_location_size_and_entries(cache_root, capsys, monkeypatch):
    monkeypatch.setenv(agcache.ENV_LIMIT, "2GiB")
    loader.load_source("info_a = 1  # %s\n" % os.urandom(4).hex())
    loader.load_source("info_b = 2  # %s\n" % os.urandom(4).hex())
    size = sum(os.path.getsize(cache_root / "modules" / name)
               for name in os.listdir(cache_root / "modules"))
    status, out, err = _run(capsys, "info")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "location: %s ($AUTOGRAPH_CACHE_DIR)" % cache_root
    assert lines[1] == "size:     %d bytes of 2.0 GiB (limit: $AUTOGRAPH_CACHE_LIMIT)" % size
    assert lines[2] == "entries:  2 in 2 files"
    assert lines[3].split()[:2] == ["modules", "2"]
    assert [line.split()[:2] for line in lines[4:]] == [["numba", "0"], ["kernels", "0"]]


def test_info_on_an_empty_default_location(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(agcache.ENV_DIR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    status, out, _ = _run(capsys, "info")
    assert status == 0
    assert out.splitlines()[0] == "location: %s (default)" % (tmp_path / "autograph-numpy")
    assert "entries:  0 in 0 files" in out


def test_info_says_why_a_location_is_not_used(cache_root, capsys):
    cache_root.mkdir()
    os.chmod(cache_root, 0o777)
    status, out, _ = _run(capsys, "info")
    assert status == 0
    assert out.splitlines()[1] == (
        "status:   not used: %s is writable by group or others (mode 777); processes use a "
        "private temporary directory instead" % cache_root)


def test_clear_empties_the_cache(cache_root, capsys):
    _, filename = loader.load_source("cleared = 1  # %s\n" % os.urandom(4).hex())
    size = os.path.getsize(filename)
    status, out, err = _run(capsys, "clear")
    assert status == 0 and err == ""
    assert out == "cleared %s: 1 files, %d bytes\n" % (cache_root, size)
    assert os.listdir(cache_root) == []
    status, out, _ = _run(capsys, "info")
    assert "entries:  0 in 0 files" in out


@as_root
def test_clear_refuses_a_directory_that_is_not_ours(cache_root, capsys):
    cache_root.mkdir(mode=0o700)
    (cache_root / "keep").write_text("someone else's")
    os.chown(cache_root, OTHER_UID, OTHER_UID)
    status, out, err = _run(capsys, "clear")
    assert status == 2 and out == ""
    assert err == ("autograph cache: error: not clearing the cache: %s is owned by uid %d, "
                   "not by this user (uid 0)\n" % (cache_root, OTHER_UID))
    assert (cache_root / "keep").exists()


def test_usage_errors_and_help(capsys):
    status, _, err = _run(capsys, "bogus")
    assert status == 2 and "invalid choice: 'bogus'" in err
    status, out, _ = _run(capsys, "--help")
    assert status == 0 and "AUTOGRAPH_CACHE_LIMIT" in out and "clear" in out


def test_the_command_line_entry_point(cache_root, tmp_path):
    result = run_python("import sys\nfrom autograph.cli import main\n"
                        "sys.exit(main(['cache', 'info']))\n", tmp_path,
                        env={agcache.ENV_DIR: str(cache_root)})
    assert result.stdout.startswith("location: %s" % cache_root)
    result = run_python("import runpy, sys\nsys.argv = ['autograph', 'cache', 'clear']\n"
                        "runpy.run_module('autograph', run_name='__main__')\n", tmp_path,
                        env={agcache.ENV_DIR: str(cache_root)}, check=False)
    assert result.returncode == 0 and result.stdout.startswith("cleared %s" % cache_root)
