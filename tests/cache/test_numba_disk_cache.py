"""Numba's compiled code in the private cache root (runtime/executors/numba/disk_cache.py,
agcache/): reused by the next process, private, self-healing, safe with concurrent writers
and with the cache being cleared while a process runs.

Every run is a fresh subprocess (a fresh Numba dispatcher, so its cache statistics say
whether the code came from disk) with AUTOGRAPH_CACHE_DIR pointing into tmp_path. One
process fills a template cache; the tests that damage files work on copies of it.
"""

import hashlib
import io
import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = b"autograph numba cache 1\n"      # the documented format: header, sha256, payload
DIGEST = hashlib.sha256().digest_size
KERNELS = ("ta_new", "ta_grow", "ta_check_stack")   # support.py kernels of the list graph

# Two tiny graphs, each checked against plain Python: a scalar loop with an `if`, and a list
# appended in a loop (tensor-array kernels of support.py). argv: the graphs to run, in
# order; between them, "clear" empties the cache as `autograph cache clear` does, in this
# process (agcache.clear), "wipe" deletes the whole root as another process may, and
# "block_kernels" puts a file where the kernels' directory was (it cannot be written).
_SCRIPT = textwrap.dedent('''
    import json
    import logging
    import os
    import shutil
    import sys

    import numpy as np

    import agcache
    import autograph as ag
    from runtime.executors.numba import support

    # The log on stderr, INFO included (a file of another Numba version is logged at INFO).
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logging.getLogger("autograph").addHandler(handler)
    logging.getLogger("autograph").setLevel(logging.INFO)


    def scalar_loop(n):
        s = 0.0
        i = 0
        while i < n:
            if i % 3 == 0:
                s += i * 0.5
            else:
                s -= 1.0
            i += 1
        return s


    def list_loop(x):
        out = []
        for i in range(x.shape[0]):
            out.append(x[i] * 2.0 + 1.0)
        return np.stack(out)


    GRAPHS = {"scalar": (scalar_loop, (11,)), "list": (list_loop, (np.arange(6.0),))}

    report = {"graphs": {}}
    for name in sys.argv[1:]:
        if name == "clear":
            agcache.clear()
            continue
        if name == "wipe":
            shutil.rmtree(os.environ["AUTOGRAPH_CACHE_DIR"])
            continue
        if name == "block_kernels":
            kernels = os.path.join(os.environ["AUTOGRAPH_CACHE_DIR"], "kernels")
            shutil.rmtree(kernels)
            with open(kernels, "w"):
                pass
            continue
        fn, args = GRAPHS[name]
        staged = ag.function(fn, backend="numba")
        got = staged(*args)
        want = fn(*args)
        compiled = staged.get_concrete_function(*args).executable.compiled_graph
        stats = compiled.dispatcher.stats
        report["graphs"][name] = {
            "equal": type(got) is type(want) and np.array_equal(got, want)
                     and np.asarray(got).dtype == np.asarray(want).dtype,
            "got": repr(got), "want": repr(want),
            "hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
            "module_file": compiled.module_file}
    report["kernels"] = {k: [sum(getattr(support, k).stats.cache_hits.values()),
                             sum(getattr(support, k).stats.cache_misses.values())]
                         for k in KERNELS}
    report["root"] = agcache.location.place().path
    kernels = os.path.join(report["root"] or "", "kernels")
    report["kernel_files"] = sorted(os.listdir(kernels)) if os.path.isdir(kernels) else []
    print(json.dumps(report))
''').replace("KERNELS", repr(KERNELS))


def _env(root, tmp_path):
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(root), PYTHONPATH=ROOT,
               # Numba's own cache=True location: nothing of ours may go there.
               NUMBA_CACHE_DIR=str(tmp_path / "numba_default"))
    env.pop("AUTOGRAPH_CACHE_LIMIT", None)
    return env


def _script(tmp_path):
    path = tmp_path / "cache_probe.py"
    if not path.exists():
        path.write_text(_SCRIPT)
    return str(path)


def _start(root, tmp_path, *graphs):
    return subprocess.Popen([sys.executable, _script(tmp_path), *graphs],
                            env=_env(root, tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(process):
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    for name, graph in report["graphs"].items():
        assert graph["equal"], (name, graph["got"], graph["want"])
    return report, err


def _run(root, tmp_path, *graphs):
    return _finish(_start(root, tmp_path, *graphs))


def _cache_messages(err):
    """The lines of the log about cache files or the cache root, and every warning."""
    return [line for line in err.splitlines()
            if "cached compiled code" in line or "not using the cache" in line
            or line.startswith(("WARNING", "ERROR"))]


def _assert_all_hit(report, err):
    assert _cache_messages(err) == [], err
    for name, graph in report["graphs"].items():
        assert (graph["hits"], graph["misses"]) == (1, 0), (name, graph)


def _compiled_files(report, graph):
    """{"nbi": path, "nbc": path} of the run_graph of a graph (one signature)."""
    module = report["graphs"][graph]["module_file"][:-len(".py")]
    directory = os.path.dirname(module)
    found = {}
    for name in os.listdir(directory):
        if name.startswith(os.path.basename(module) + ".run_graph-"):
            found.setdefault(name.rsplit(".", 1)[1], []).append(os.path.join(directory, name))
    assert sorted(found) == ["nbc", "nbi"] and all(len(v) == 1 for v in found.values()), found
    return {kind: paths[0] for kind, paths in found.items()}


def _kernel_files(root, kernel):
    directory = os.path.join(root, "kernels")
    prefix = "runtime.executors.numba.support.%s-" % kernel
    found = {name.rsplit(".", 1)[1]: os.path.join(directory, name)
             for name in os.listdir(directory) if name.startswith(prefix)}
    assert sorted(found) == ["nbc", "nbi"], found
    return found


def _payload(path):
    """The verified payload of a cache file; fails if the header or the hash is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    assert data.startswith(HEADER), (path, data[:40])
    digest, payload = data[len(HEADER):len(HEADER) + DIGEST], data[len(HEADER) + DIGEST:]
    assert hashlib.sha256(payload).digest() == digest, path
    return payload


def _framed(payload):
    return HEADER + hashlib.sha256(payload).digest() + payload


# --- the ways a file goes bad --------------------------------------------------------------

def _truncated(path):
    with open(path, "rb") as f:
        data = f.read()
    return data[:len(data) // 2]          # the header survives, the hash does not match


def _flipped(path):
    """One bit changed in the middle (in the machine code): the pickle still loads."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 2] ^= 0x01
    return bytes(data)


def _garbage(path):
    with open(path, "rb") as f:
        size = len(f.read())
    return (bytes(range(256)) * (size // 256 + 1))[:size]


def _unpicklable(path):
    """A correct header and hash around a payload that is not a pickle."""
    del path
    return _framed(b"\x80\x05this is not a pickle" * 8)


def _other_numba_version(path):
    """An index as another Numba version writes it: header and hash correct."""
    stream = io.BytesIO(_payload(path))
    version = pickle.load(stream)
    assert isinstance(version, str)
    return _framed(pickle.dumps("0.1.0", protocol=-1) + stream.read())


def _plain_numba(path):
    """The file as numba.njit(cache=True) writes it: the payload without our header."""
    return _payload(path)


def _damage(path, how):
    data = how(path)
    with open(path, "wb") as f:
        f.write(data)


# What the log line of each damage says (the reason, a fragment).
REASONS = {_truncated: "hash does not match", _flipped: "hash does not match",
           _garbage: "no autograph header", _plain_numba: "no autograph header",
           _unpicklable: "cannot be read", _other_numba_version: "made by Numba 0.1.0"}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A cache filled by one process that compiled both graphs: (root, report, stderr,
    start time, tmp dir)."""
    tmp_path = tmp_path_factory.mktemp("numba_disk_cache")
    root = tmp_path / "cache"
    start = time.time()
    report, err = _run(root, tmp_path, "scalar", "list")
    return root, report, err, start, tmp_path


@pytest.fixture
def filled(template, tmp_path):
    """A copy of the template cache (modes and times kept): (root, report)."""
    source, report, _, _, template_tmp = template
    root = tmp_path / "cache"
    shutil.copytree(source, root)
    # The paths in the report, for this copy.
    report = json.loads(json.dumps(report).replace(str(source), str(root)))
    return root, report


def test_first_process_compiles_and_a_second_loads_from_the_cache(template, filled, tmp_path):
    _, first, first_err, _, _ = template
    assert _cache_messages(first_err) == [], first_err
    for name, graph in first["graphs"].items():
        assert (graph["hits"], graph["misses"]) == (0, 1), (name, graph)
    assert first["kernels"]["ta_grow"][1] >= 1       # the kernels were compiled too

    root, _ = filled
    report, err = _run(root, tmp_path, "scalar", "list")
    _assert_all_hit(report, err)
    # The graphs' code came whole from the cache: no kernel was even looked at.
    assert report["kernels"] == {k: [0, 0] for k in KERNELS}


def test_every_directory_is_0700_and_every_file_0600(template):
    root, report, _, start, tmp_path = template
    for directory, dirnames, filenames in os.walk(root):
        assert stat.S_IMODE(os.lstat(directory).st_mode) == 0o700, directory
        for name in filenames:
            path = os.path.join(directory, name)
            assert stat.S_ISREG(os.lstat(path).st_mode), path
            assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600, path
            assert not name.startswith(".tmp-"), path
    assert sorted(os.listdir(root)) == [".lock", "kernels", "modules", "numba"]
    for graph in report["graphs"]:
        for path in _compiled_files(report, graph).values():
            assert os.path.dirname(path) == os.path.join(str(root), "numba")
            _payload(path)
    for kernel in KERNELS:
        for path in _kernel_files(root, kernel).values():
            _payload(path)

    # Nothing next to the installed sources, nothing in Numba's own cache directory.
    import runtime
    stray = []
    for directory, _, filenames in os.walk(os.path.dirname(runtime.__file__)):
        stray += [os.path.join(directory, name) for name in filenames
                  if name.endswith((".nbi", ".nbc"))
                  and os.stat(os.path.join(directory, name)).st_mtime >= start - 1]
    assert stray == []
    assert not os.path.exists(tmp_path / "numba_default")


# (a file of the scalar graph, how), (a file of the list graph, how)
DAMAGES = {
    "truncated": (("nbc", _truncated), ("nbi", _truncated)),
    "garbage": (("nbi", _garbage), ("nbc", _unpicklable)),
    "other_numba_version": (("nbi", _other_numba_version), ("nbi", _other_numba_version)),
    "plain_numba": (("nbc", _plain_numba), ("nbi", _plain_numba)),
}


def _assert_named_once(err, path, how):
    level = "INFO" if how is _other_numba_version else "WARNING"
    lines = [line for line in err.splitlines() if path in line]
    assert len(lines) == 1 and lines[0].startswith(level + " "), (path, err)
    assert REASONS[how] in lines[0] and "deleted and compiled again" in lines[0], lines[0]


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_file_is_logged_once_deleted_and_written_again(filled, tmp_path, damage):
    root, report = filled
    damaged = {}
    for graph, (kind, how) in zip(("scalar", "list"), DAMAGES[damage]):
        path = _compiled_files(report, graph)[kind]
        _damage(path, how)
        damaged[path] = how

    healed, err = _run(root, tmp_path, "scalar", "list")
    for path, how in damaged.items():
        _assert_named_once(err, path, how)
        _payload(path)                          # rewritten whole, with the header
    assert [line for line in _cache_messages(err) if not any(p in line for p in damaged)] == []
    for name, graph in healed["graphs"].items():
        assert (graph["hits"], graph["misses"]) == (0, 1), (name, graph)
    # The index and the data of each graph agree again.
    for graph in ("scalar", "list"):
        for path in _compiled_files(healed, graph).values():
            _payload(path)

    again, err = _run(root, tmp_path, "scalar", "list")
    _assert_all_hit(again, err)


def test_a_damaged_kernel_file_is_logged_once_deleted_and_written_again(filled, tmp_path):
    root, report = filled
    damaged = {_kernel_files(root, "ta_grow")["nbc"]: _truncated,
               _kernel_files(root, "ta_new")["nbi"]: _plain_numba,
               _kernel_files(root, "ta_check_stack")["nbc"]: _flipped}
    for path, how in damaged.items():
        _damage(path, how)

    def forget_the_list_graph():
        # A new graph calling the kernels: its own code is compiled, the kernels' loaded.
        for path in _compiled_files(report, "list").values():
            os.unlink(path)

    forget_the_list_graph()
    healed, err = _run(root, tmp_path, "list")
    for path, how in damaged.items():
        _assert_named_once(err, path, how)
        _payload(path)
    assert [line for line in _cache_messages(err) if not any(p in line for p in damaged)] == []
    assert healed["kernels"] == {k: [0, 1] for k in KERNELS}

    forget_the_list_graph()
    again, err = _run(root, tmp_path, "list")
    assert _cache_messages(err) == [], err
    assert again["kernels"] == {k: [1, 0] for k in KERNELS}


def test_concurrent_processes_share_one_empty_cache(tmp_path):
    root = tmp_path / "cache"
    processes = [_start(root, tmp_path, "scalar", "list") for _ in range(4)]
    for process in processes:
        report, err = _finish(process)
        assert _cache_messages(err) == [], err
        assert all(graph["hits"] + graph["misses"] == 1
                   for graph in report["graphs"].values()), report
    leftovers = [os.path.join(d, n) for d, _, names in os.walk(root) for n in names
                 if n.startswith(".tmp-") or ".tmp." in n]
    assert leftovers == []

    report, err = _run(root, tmp_path, "scalar", "list")
    _assert_all_hit(report, err)
    for graph in report["graphs"]:
        for path in _compiled_files(report, graph).values():
            _payload(path)


@pytest.mark.parametrize("how", ["clear", "wipe"])
def test_a_cache_cleared_while_a_process_runs_is_made_again(tmp_path, how):
    root = tmp_path / "cache"
    report, err = _run(root, tmp_path, "scalar", how, "list")
    assert _cache_messages(err) == [], err
    # The scalar graph's files went with the clear; the list graph's code and its kernels'
    # were written to the directories made again, private.
    assert not os.path.exists(report["graphs"]["scalar"]["module_file"])
    for path in _compiled_files(report, "list").values():
        _payload(path)
    for kernel in KERNELS:
        for path in _kernel_files(root, kernel).values():
            _payload(path)
    for directory, _, filenames in os.walk(root):
        assert stat.S_IMODE(os.lstat(directory).st_mode) == 0o700, directory
        for name in filenames:
            assert stat.S_IMODE(os.lstat(os.path.join(directory, name)).st_mode) == 0o600


def test_a_kernels_directory_that_cannot_be_written_moves_the_process_once(tmp_path):
    # The kernels were made (support.py imported) while the root was fine; then their
    # directory fails: one warning, and the process goes on in a temporary root, where the
    # kernels' code is saved too (not a second failure in the old directory, and memory).
    root = tmp_path / "cache"
    report, err = _run(root, tmp_path, "scalar", "block_kernels", "list")
    assert len(_cache_messages(err)) == 1, err
    assert "not using the cache at %s" % root in err and "temporary directory" in err
    temporary = report["root"]
    assert temporary is not None and not temporary.startswith(str(root))
    # The kernels compiled after the one whose save failed (and moved the process).
    saved = [k for k in KERNELS if any(n.startswith("runtime.executors.numba.support.%s-" % k)
                                       and n.endswith(".nbc") for n in report["kernel_files"])]
    assert len(saved) >= len(KERNELS) - 1, report["kernel_files"]
    assert not os.path.exists(temporary)            # deleted at exit
