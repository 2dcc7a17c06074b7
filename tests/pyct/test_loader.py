"""Tests for loader: generated source becomes a real, importable, cacheable module."""

import inspect
import os
import stat
import subprocess
import sys
import textwrap
import traceback

import pytest

import agcache
from autograph.pyct import loader
from autograph.pyct import parser


def _subprocess_env(**variables):
    root = os.path.abspath(os.path.join(os.path.dirname(loader.__file__), "..", ".."))
    env = dict(os.environ, **variables)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """The directory of generated modules under a fresh cache root."""
    monkeypatch.setenv(agcache.ENV_DIR, str(tmp_path / "root"))
    return tmp_path / "root" / loader.CACHE_KIND


def test_load_source_makes_a_registered_module(cache_dir):
    source = "def answer():\n    return 42\n"
    module, filename = loader.load_source(source)
    assert module.answer() == 42
    assert os.path.dirname(filename) == str(cache_dir)
    assert os.path.basename(filename) == loader.module_name_for(source) + ".py"
    assert sys.modules[module.__name__] is module
    assert module.__name__.startswith(loader.MODULE_NAME_PREFIX)
    with open(filename) as f:
        assert f.read() == source


def test_cache_dir_is_private(cache_dir):
    loader.load_source("x = 'private'\n")
    mode = stat.S_IMODE(os.stat(cache_dir).st_mode)
    assert mode == 0o700


def test_loading_the_same_source_twice_returns_the_same_module(cache_dir):
    first, first_file = loader.load_source("y = [1]\n")
    second, second_file = loader.load_source("y = [1]\n")
    assert first is second and first_file == second_file


def test_existing_file_with_same_content_is_not_rewritten(cache_dir):
    source = "z = 'kept'\n"
    path = cache_dir / (loader.module_name_for(source) + ".py")
    cache_dir.mkdir(mode=0o700, parents=True)
    path.write_text(source)
    os.utime(path, (1_000_000, 1_000_000))
    module, filename = loader.load_source(source)
    assert module.z == "kept"
    assert os.stat(filename).st_mtime == 1_000_000


def test_corrupted_file_is_replaced_and_logged(cache_dir, caplog):
    source = "w = 'fresh'\n"
    cache_dir.mkdir(mode=0o700, parents=True)
    path = cache_dir / (loader.module_name_for(source) + ".py")
    path.write_text("w = 'tampered'\n")
    os.utime(path, (1_000_000, 1_000_000))
    module, _ = loader.load_source(source)
    assert module.w == "fresh" and path.read_text() == source
    assert caplog.messages == [
        "autograph: the cached file %s was damaged or changed; it is written again." % path]


def test_no_temporary_files_are_left(cache_dir):
    loader.load_source("v = 'no temp'\n")
    assert not [p for p in os.listdir(cache_dir) if p.startswith(".tmp-")]


def test_tracebacks_and_getsource_see_the_generated_code(cache_dir):
    source = "def fails():\n    raise ValueError('from generated code')\n"
    module, filename = loader.load_source(source)
    assert inspect.getsource(module.fails) == source
    with pytest.raises(ValueError) as info:
        module.fails()
    frames = traceback.extract_tb(info.tb)
    assert frames[-1].filename == filename
    assert frames[-1].line == "raise ValueError('from generated code')"


def test_load_ast_with_source_map(cache_dir):
    node = parser.parse("def f(a):\n    return a * 3\n")
    from autograph.pyct import origin_info
    origin_info.resolve(node, "def f(a):\n    return a * 3\n", "user.py", 10, 4)
    module, source, source_map = loader.load_ast(node, include_source_map=True)
    assert module.f(2) == 6
    lines = {loc.lineno: origin.loc.lineno for loc, origin in source_map.items()}
    generated_return_line = source.splitlines().index("    return a * 3") + 1
    assert lines[generated_return_line] == 11


NUMBA_SCRIPT = """
import numba
from autograph.pyct import loader
source = (
    "def triangle(n):\\n"
    "    total = 0\\n"
    "    for i in range(n):\\n"
    "        total += i\\n"
    "    return total\\n")
module, filename = loader.load_source(source)
compiled = numba.njit(cache=True)(module.triangle)
assert compiled(10) == 45
print(len(compiled.stats.cache_hits), len(compiled.stats.cache_misses))
"""


def test_numba_cache_works_across_processes_for_loaded_modules(tmp_path):
    pytest.importorskip("numba")
    env = _subprocess_env(AUTOGRAPH_CACHE_DIR=str(tmp_path / "root"),
                          NUMBA_CACHE_DIR=str(tmp_path / "numba"))

    def run():
        result = subprocess.run([sys.executable, "-c", NUMBA_SCRIPT], capture_output=True,
                                text=True, env=env, timeout=240)
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    hits, misses = run()
    assert (hits, misses) == ("0", "1")
    hits, misses = run()  # a second process loads the machine code from Numba's cache
    assert (hits, misses) == ("1", "0")


def test_a_cache_dir_others_can_write_to_is_not_used(tmp_path, monkeypatch, caplog):
    # (tests/cache/ checks every refusal; this is the loader's side of it.)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv(agcache.ENV_DIR, str(shared))
    monkeypatch.setattr(agcache.location, "_place", None)
    module, filename = loader.load_source("u = 'elsewhere'\n")
    assert module.u == "elsewhere"
    assert not filename.startswith(str(shared))
    assert "writable by group or others" in caplog.text
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o777    # refused, left as it was


CONCURRENT_SCRIPT = """
from autograph.pyct import loader
for i in range(40):
    module, _ = loader.load_source("value = %d\\n" % i + "# padding\\n" * 2000)
    assert module.value == i
print("ok")
"""


def test_processes_loading_the_same_sources_at_once_do_not_corrupt_files(tmp_path):
    env = _subprocess_env(AUTOGRAPH_CACHE_DIR=str(tmp_path / "shared"))
    processes = [subprocess.Popen([sys.executable, "-c", CONCURRENT_SCRIPT], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(4)]
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert out.strip() == "ok"
    files = os.listdir(tmp_path / "shared" / loader.CACHE_KIND)
    assert len(files) == 40 and not [p for p in files if p.startswith(".tmp-")]


def test_loading_does_not_use_a_replaced_builtin_open(cache_dir, monkeypatch):
    import builtins

    def no_open(*args, **kwargs):
        raise AssertionError("the user's open was called")

    fresh = "t = 'fresh'\n"
    existing = "t = 'existing'\n"
    cache_dir.mkdir(mode=0o700, parents=True)
    (cache_dir / (loader.module_name_for(existing) + ".py")).write_text(existing)
    monkeypatch.setattr(builtins, "open", no_open)
    assert loader.load_source(fresh)[0].t == "fresh"
    assert loader.load_source(existing)[0].t == "existing"


def test_a_partly_written_file_is_completed(cache_dir, caplog):
    # The start of the text: what a process killed while writing leaves behind, or what
    # another process writing it right now has written so far (so, just written, it is not
    # logged as damage).
    source = "def partial():\n    return 'complete'\n" + "# padding\n" * 100
    path = cache_dir / (loader.module_name_for(source) + ".py")
    cache_dir.mkdir(mode=0o700, parents=True)
    path.write_text(source[:len(source) // 2])
    module, filename = loader.load_source(source)
    assert module.partial() == "complete"
    assert open(filename).read() == source
    assert not [p for p in os.listdir(cache_dir) if p.startswith(".tmp-")]
    assert not caplog.messages


def test_loaded_modules_look_imported(cache_dir):
    source = "counter = [0]\ncounter[0] += 1\n"
    module, filename = loader.load_source(source)
    assert module.counter == [1]
    assert module.__spec__.name == module.__name__
    assert module.__spec__.origin == module.__file__ == filename
    assert module.__loader__.get_source(module.__name__) == source
    assert inspect.getsource(module) == source
    assert not os.path.exists(os.path.join(os.path.dirname(filename), "__pycache__"))


def test_threads_loading_the_same_source_get_one_module(cache_dir):
    import threading
    source = "import time\ntime.sleep(0.05)\nloaded = object()\n" + "# padding\n" * 500
    results = []
    barrier = threading.Barrier(6)

    def load():
        barrier.wait()
        results.append(loader.load_source(source))

    threads = [threading.Thread(target=load) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(module) for module, _ in results}) == 1
    assert len({id(module.loaded) for module, _ in results}) == 1
    assert open(results[0][1]).read() == source
