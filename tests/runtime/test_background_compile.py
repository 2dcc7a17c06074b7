"""backend="auto" compiles in a worker process (runtime/executors/numba/background.py):
calls run on the NumPy interpreter meanwhile, give what plain Python gives before and after
the compiled code takes over, and a compile that fails or a worker that dies leaves the
graph on the NumPy interpreter."""

import inspect
import logging
import os
import re
import signal
import sys
import time
import weakref

import numpy as np
import pytest

import autograph as ag
from runtime.executors.numba import background, pending
from runtime.executors.numba.compiled import NumbaCompiledGraph

WAIT = 240        # seconds a background compile may take on a loaded machine


def clipped_sum(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if v > limit:
            v = limit
        total += v
    return total


def shifted(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] + 1.5
    return out


def _compiled_graph(f, *args):
    """The compiled graph of the trace of f(*args), once the builder thread made it after the
    first call (runtime/executors/numba/pending.py)."""
    executable = f.get_concrete_function(*args).executable
    built = getattr(executable, "built", None)     # (before the second call hands over)
    return built(WAIT) if built is not None else executable.compiled_graph


def _sum_above(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > limit:
            total += x[i]
    return total


def _scaled(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0
    return out


def _sum_below(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] < limit:
            total += x[i]
    return total


def _sum_squares(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] < limit:
            total += x[i] * x[i]
    return total


@pytest.fixture(autouse=True)
def _background_on(monkeypatch, tmp_path):
    # A fresh cache: nothing of these graphs is compiled yet, so the worker compiles them.
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(pending.ENV_SWITCH, raising=False)


def test_calls_run_on_numpy_until_the_worker_is_done_then_compiled(caplog):
    x = np.array([0.5, 3.0, -1.0, 2.5, 0.25])
    f = ag.function(clipped_sum)
    with caplog.at_level(logging.INFO, logger="autograph"):
        first = f(x, 1.0)
        graph = _compiled_graph(f, x, 1.0)
        assert graph.dispatcher is None                 # the module is not even run here
        expected = clipped_sum(x, 1.0)
        assert type(first) is type(expected) and first == expected
        assert graph.wait(WAIT)
        for limit in (1.0, 0.3, 10.0):                  # after the switch
            result, expected = f(x, limit), clipped_sum(x, limit)
            assert type(result) is type(expected) and result == expected
    assert graph.dispatcher.overloads and graph._compiled
    assert sum(graph.dispatcher.stats.cache_hits.values()) == 1    # the worker's code
    assert f.trace_count == 1
    messages = [m for m in caplog.messages if "'clipped_sum'" in m]
    assert "is compiling with Numba in a background process" in messages[0]
    assert "calls run the compiled code from now on" in messages[-1]


def test_the_fast_path_calls_the_compiled_code_once_it_is_ready():
    x = np.arange(6.0)
    f = ag.function(shifted)
    np.testing.assert_array_equal(f(x), shifted(x))
    graph = _compiled_graph(f, x)
    assert graph.wait(WAIT)
    np.testing.assert_array_equal(f(x), shifted(x))     # the switch
    np.testing.assert_array_equal(f(x), shifted(x))
    [record] = f._fast.values()
    assert record[0] is graph.dispatcher                # no Python layer left


def test_every_way_of_calling_the_trace_hands_over_to_the_compiled_graph():
    """The first call runs on the NumPy interpreter's executable; the next call after the
    code is generated hands the trace over (pending.py) and runs the compiled graph, and so
    do the general path (the fast path's record was dropped), the fast path (its new
    record) and the trace called itself."""
    x = np.array([0.5, 3.0, -1.0, 2.5])
    f = ag.function(clipped_sum)
    expected = clipped_sum(x, 1.0)
    result = f(x, 1.0)
    assert type(result) is type(expected) and result == expected
    concrete = f.get_concrete_function(x, 1.0)
    pending = concrete.executable
    graph = _compiled_graph(f, x, 1.0)
    assert graph.wait(WAIT) and concrete.executable is pending     # (not handed over yet)
    for call in ("hand-over", "general path", "fast path", "trace"):
        result = concrete(x, 1.0) if call == "trace" else f(x, 1.0)
        assert type(result) is type(expected) and result == expected, call
        assert concrete.executable is graph.call and graph._compiled, call
        assert not f._fast if call == "hand-over" else list(f._fast.values())[0][0] in (
            concrete.call_arrays, graph.dispatcher), call
    assert f.trace_count == 1


class Counter:
    def __init__(self):
        self.total = np.zeros(3)
        self.calls = 0

    def add(self, x):
        for i in range(x.shape[0]):
            if x[i] > 0:
                self.total[i % 3] += x[i]
        self.calls += 1
        return self.total.sum()


def test_state_on_objects_is_the_same_across_the_switch():
    x = np.array([1.0, -2.0, 3.0, 4.0, -0.5])
    plain, staged = Counter(), Counter()
    step = ag.function(staged.add)
    results = [step(x)]
    assert _compiled_graph(step, x).wait(WAIT)
    results += [step(x), step(x)]
    expected = [plain.add(x) for _ in range(3)]
    assert results == expected and [type(r) for r in results] == [type(r) for r in expected]
    np.testing.assert_array_equal(staged.total, plain.total)
    assert staged.calls == plain.calls == 3


def out_of_range(x, k):
    total = 0.0
    for i in range(k):
        total += x[i]
    return total


def test_errors_are_the_same_before_and_after_the_switch():
    x = np.arange(4.0)
    f = ag.function(out_of_range)
    with pytest.raises(IndexError) as before:
        f(x, 6)
    assert _compiled_graph(f, x, 6).wait(WAIT)
    assert f(x, 3) == out_of_range(x, 3)
    with pytest.raises(IndexError) as after:
        f(x, 6)
    assert type(before.value) is type(after.value)
    assert "index 4 is out of bounds for axis 0 with size 4" in str(after.value)


def test_code_already_in_the_disk_cache_is_loaded_without_the_worker():
    x = np.array([0.5, 3.0])
    first = ag.function(_sum_above)
    first(x, 1.0)
    assert _compiled_graph(first, x, 1.0).wait(WAIT)
    second = ag.function(_sum_above)      # the same graph: the same module
    assert second(x, 1.0) == _sum_above(x, 1.0)
    graph = _compiled_graph(second, x, 1.0)
    job = graph._job
    assert graph.wait(WAIT) and job.error is None
    assert job.seconds is None            # the worker was not asked
    assert second(x, 1.0) == _sum_above(x, 1.0)
    assert graph._compiled


FIRST_CALL = """
import sys
import numpy as np
import autograph as ag

%s
# This thread keeps the GIL until it blocks (the print): the builder thread, which the
# first call wakes when it is done, runs only after the modules are listed.
sys.setswitchinterval(1000)
f = ag.function(clipped_sum)
x = np.array([0.5, 3.0, -1.0])
result = f(x, 1.0)
backend = set(name for name in sys.modules if name.startswith("runtime.executors.numba."))
print(result == clipped_sum(x, 1.0), "numba" in sys.modules, sorted(
    backend - {"runtime.executors.numba." + name for name in ("lowering", "pending", "policy")}))
sys.setswitchinterval(0.005)
graph = f.get_concrete_function(x, 1.0).executable.built(%d)
print(graph.wait(%d), f(x, 1.0) == clipped_sum(x, 1.0), graph._compiled)
""" % (inspect.getsource(clipped_sum), WAIT, WAIT)


def test_the_first_call_does_not_import_numba_nor_generate_code(tmp_path):
    """Importing Numba takes 0.2-0.3 s, more than the first call of most graphs: a thread
    imports it once the worker is done, and only then. Importing the code generator and the
    compiled graph's modules (2-3 ms) and generating the code (1-2 ms) come after the first
    call too, in the builder thread (pending.py): on the NumPy interpreter's first call
    they would be a third of it (tools/bench_workloads.py's rnn, piecewise16). Op modules
    import lowering.py (their lowerings), so `import autograph` has it."""
    import subprocess
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    script = tmp_path / "first_call.py"
    script.write_text(FIRST_CALL)
    for run in ("compiled by the worker", "loaded from the disk cache"):
        done = subprocess.run([sys.executable, str(script)], env=env, text=True,
                              capture_output=True, timeout=WAIT + 60)
        assert done.stdout.split() == ["True", "False", "[]", "True", "True", "True"], (
            run, done.stdout, done.stderr)


@pytest.mark.parametrize("value", [
    np.zeros((2, 3)), np.zeros((2, 3), order="F"), np.zeros((4, 3))[::2],
    np.zeros(5, np.float32), np.zeros((1, 1)), np.zeros(()), np.zeros(0, np.int8),
    np.zeros(3, np.complex64), np.zeros((2, 2), bool)[:, :1], np.arange(3).reshape(3, 1).T,
    3, 2.5, True, 1j, np.float32(1.5), np.int16(3), np.bool_(False), np.uint64(7)])
def test_argument_stand_ins_have_the_types_numba_gives(value):
    import numba
    values = [value]
    if isinstance(value, np.ndarray):
        readonly = value.view()          # the same layout
        readonly.setflags(write=False)
        values.append(readonly)
    for v in values:
        assert background.numba_signature(pending.describe([v])) == (numba.typeof(v),)


def test_switched_off_it_compiles_on_the_first_call(monkeypatch):
    monkeypatch.setenv(pending.ENV_SWITCH, "0")
    x = np.array([0.5, 3.0, -1.0])
    f = ag.function(_sum_squares)
    assert f(x, 1.0) == _sum_squares(x, 1.0)
    assert _compiled_graph(f, x, 1.0)._compiled


def test_a_worker_that_dies_leaves_the_graph_on_numpy(monkeypatch, caplog):
    server = background._server()
    if server.process is not None and server.process.poll() is None:
        server.process.kill()
        server.process.wait()
    real_start = background._start_worker

    def dying_worker():
        import subprocess
        return subprocess.Popen([sys.executable, "-c",
                                 "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    monkeypatch.setattr(background, "_start_worker", dying_worker)
    x = np.array([2.0, -1.0, 0.5])
    f = ag.function(_sum_below)
    with caplog.at_level(logging.INFO, logger="autograph"):
        assert f(x, 1.0) == _sum_below(x, 1.0)
        graph = _compiled_graph(f, x, 1.0)
        assert graph.wait(WAIT)
        assert f(x, 1.0) == _sum_below(x, 1.0)
    assert not graph._compiled
    assert ("Numba could not compile it (the compile worker stopped (killed by signal %d))"
            % signal.SIGKILL) in caplog.text
    # The next compile starts a worker again.
    monkeypatch.setattr(background, "_start_worker", real_start)
    g = ag.function(_scaled)
    np.testing.assert_array_equal(g(x), _scaled(x))
    assert _compiled_graph(g, x).wait(WAIT)
    np.testing.assert_array_equal(g(x), _scaled(x))
    assert _compiled_graph(g, x)._compiled


def test_compiles_of_freed_graphs_are_dropped():
    class Owner:
        pass

    owner = Owner()
    reference = weakref.ref(owner)
    del owner
    job = background.submit(reference, os.devnull, "nothing", ())
    assert job.done.wait(WAIT) and job.error == "dropped: the graph was freed"


def _write_until(x, out, limit):
    """An early return next to item writes, and a loop inside a branch."""
    for i in range(x.shape[0]):
        if x[i] > limit:
            return x[i] * 0.5
        out[i] = x[i] * 2.0
        if x[i] < 0:
            for j in range(i):
                out[j] += 1.0
    return out.sum()


def _index_above(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            return i
    return -1


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_an_index_returned_early_from_a_graph_loop_is_a_python_int(backend):
    # (The return value's stand-in on the paths that have not returned yet is a Python
    # zero, so the joined value stays a Python int: common.dummy_like.)
    x = np.array([0.5, 2.0])
    staged = ag.function(_index_above, backend=backend)
    for limit in (1.0, 5.0):
        result, expected = staged(x, limit), _index_above(x, limit)
        assert type(result) is int and result == expected


def test_returns_writes_and_nested_loops_match_python_across_the_switch():
    x = np.array([0.5, -1.0, 2.0, -0.5, 9.0, 1.0])
    staged = {backend: ag.function(_write_until, backend=backend)
              for backend in ("numpy", "numba", "auto")}
    for round_ in range(2):          # auto: on NumPy, then (after the wait) compiled
        for limit in (5.0, 1.0, 100.0):
            expected_out = np.zeros(6)
            expected = _write_until(x, expected_out, limit)
            for backend, f in staged.items():
                out = np.zeros(6)
                result = f(x, out, limit)
                assert type(result) is type(expected) and result == expected, backend
                np.testing.assert_array_equal(out, expected_out, err_msg=backend)
        if round_ == 0:
            graph = _compiled_graph(staged["auto"], x, np.zeros(6), 5.0)
            assert graph.wait(WAIT)
    assert graph._compiled


class Smoother:
    """Array work in a loop (what no static rule decides: policy.py), on state held by an
    object; exact operations, so both executors give the same bits."""

    def __init__(self):
        self.w = np.linspace(-1.0, 1.0, 8)

    def step(self, x, n):
        for _ in range(n):
            self.w = np.maximum(self.w * 0.5 + x, -0.25)
        return self.w.sum()


# Calls enough for the timing to end, however fast the calls (the most it makes of each
# executor, and each's first).
_TURNS = 2 * NumbaCompiledGraph._MOST_MEASURED_CALLS + 4


def _measured(step, *args):
    graph = _compiled_graph(step, *args)
    assert graph.measure
    return graph


def test_array_loops_take_turns_on_both_executors_then_the_faster_runs_them(caplog):
    x = np.linspace(0.0, 0.5, 8)
    plain, staged = Smoother(), Smoother()
    step = ag.function(staged.step)
    with caplog.at_level(logging.INFO, logger="autograph"):
        for call in range(2 + _TURNS):    # on NumPy; after the wait: turns; then the faster
            result, expected = step(x, 3), plain.step(x, 3)
            assert type(result) is type(expected) and result == expected, call
            np.testing.assert_array_equal(staged.w, plain.w)
            if call == 0:
                assert _measured(step, x, 3).wait(WAIT)
    assert step.trace_count == 1
    [decision] = [m for m in caplog.messages if re.search(r"fastest of \d+ calls each", m)]
    assert "'step' runs on " in decision and " per call compiled, " in decision


def test_measuring_goes_by_the_fastest_calls():
    """Another process taking the core slows some calls down, never speeds one up: two
    slowed calls of the faster executor do not make it the slower."""
    x = np.linspace(0.0, 0.5, 8)
    step = ag.function(Smoother().step)
    step(x, 2)
    graph = _measured(step, x, 2)
    assert graph.wait(WAIT)
    graph._samples = {"numba": [9.0, 1.0, 5.0, 5.0], "numpy": [9.0, 2.0, 2.0, 2.0]}
    graph._namespace["_disp"] = graph._measuring
    graph._decide()
    assert graph._compiled and graph._namespace["_disp"] is graph.dispatcher


def test_fast_calls_are_timed_more_often():
    """Calls of a few microseconds are timed within perf_counter's own cost: the timing
    takes turns until each executor's timed calls add up to _MEASURED_TIME (or it timed
    _MOST_MEASURED_CALLS of each); slower calls are timed three times each."""
    x = np.linspace(0.0, 0.5, 8)
    step = ag.function(Smoother().step)
    step(x, 2)
    graph = _measured(step, x, 2)
    assert graph.wait(WAIT)
    fast, slow = 2e-6, graph._MEASURED_TIME
    for numba, numpy, enough in [([9.0] + [fast] * 3, [9.0] + [fast] * 3, False),
                                 ([9.0] + [fast] * 200, [9.0] + [fast] * 200, True),
                                 ([9.0] + [slow] * 3, [9.0] + [slow] * 2, False),
                                 ([9.0] + [slow] * 3, [9.0] + [slow] * 3, True),
                                 ([9.0] + [slow] * 3, [9.0] + [fast] * 3, False)]:
        graph._samples = {"numba": numba, "numpy": numpy}
        assert graph._measured_enough() == enough, (len(numba), numpy[1])


def _timed_smoothers():
    """(x, a plain Smoother, a staged one, its step on auto, the step's compiled graph
    compiled and about to be timed), after one call of each step."""
    x = np.linspace(0.0, 0.5, 8)
    plain, staged = Smoother(), Smoother()
    step = ag.function(staged.step)
    step(x, 2)
    plain.step(x, 2)
    graph = _measured(step, x, 2)
    assert graph.wait(WAIT)
    return x, plain, staged, step, graph


def _slowed(run):
    def run_slowly(*args):
        time.sleep(0.005)
        return run(*args)
    return run_slowly


@pytest.mark.parametrize("slow", ["numpy", "numba"])
def test_measuring_keeps_the_faster_executor(slow):
    x, plain, staged, step, graph = _timed_smoothers()
    if slow == "numpy":
        graph._fallback_exec = _slowed(graph.fallback())
    else:
        graph.dispatcher = _slowed(graph.dispatcher)
    for call in range(_TURNS):
        assert step(x, 2) == plain.step(x, 2), call
        np.testing.assert_array_equal(staged.w, plain.w)
    assert graph._compiled == (slow == "numpy")
    assert not graph.measure or slow == "numba"


def _plus_half(x):
    return x + 0.5


class Layer:
    """A small loopless step on state held by an object: two array ops."""

    def __init__(self):
        self.w = np.linspace(-1.0, 1.0, 16)

    def apply(self, x, lr):
        self.w = self.w - lr * x
        return self.w


@pytest.mark.parametrize("program", ["function", "method"])
def test_small_graphs_are_compiled_once_called_often_and_timed(monkeypatch, caplog, program):
    """A loopless graph of fewer than 3 array ops runs on the NumPy interpreter for its
    first HOT_CALLS calls, then is compiled in the background and timed (policy.py); the
    calls give what Python gives all along."""
    from runtime.executors.numba import policy
    monkeypatch.setattr(policy, "HOT_CALLS", 5)
    x = np.arange(16.0)
    if program == "function":
        plain, staged = _plus_half, ag.function(_plus_half)
        state = lambda f: ()    # noqa: E731
    else:
        plain_layer, staged_layer = Layer(), Layer()
        plain, staged = (lambda x: plain_layer.apply(x, 0.25)), None
        step = ag.function(staged_layer.apply)
        staged = lambda x: step(x, 0.25)    # noqa: E731
        state = lambda f: (plain_layer.w if f is plain else staged_layer.w,)    # noqa: E731

    def check(call):
        result, expected = staged(x), plain(x)
        assert type(result) is type(expected) and result.dtype == expected.dtype, call
        np.testing.assert_array_equal(result, expected)
        for got, want in zip(state(staged), state(plain)):
            np.testing.assert_array_equal(got, want)

    concrete = lambda: (step if program == "method" else staged).get_concrete_function(  # noqa
        *((x, 0.25) if program == "method" else (x,)))
    with caplog.at_level(logging.INFO, logger="autograph"):
        for call in range(4):
            check(call)
        pending_graph = concrete().executable
        assert pending_graph.calls_to_build == 1 and pending_graph.built() is None
        check(4)                                 # the fifth call starts the build
        assert pending_graph.calls_to_build == 0
        graph = pending_graph.built(WAIT)
        assert graph is not None and graph.measure and graph.wait(WAIT)
        for call in range(5, 5 + _TURNS):
            check(call)
    assert graph.settled
    assert any("ran 5 calls on the NumPy interpreter: compiling it with Numba too" in m
               for m in caplog.messages)
    assert sum(bool(re.search(r"fastest of \d+ calls each", m)) for m in caplog.messages) == 1


def test_a_graph_the_numpy_interpreter_keeps_is_called_without_the_compiled_layer():
    """Where the timing chooses the NumPy interpreter, the trace and the fast table call its
    executable itself, not the compiled graph's call (which would raise and catch an
    exception to reach it on every call)."""
    x, plain, staged, step, graph = _timed_smoothers()
    graph.dispatcher = _slowed(graph.dispatcher)
    for call in range(_TURNS):
        assert step(x, 2) == plain.step(x, 2), call
        np.testing.assert_array_equal(staged.w, plain.w)
    assert not graph._compiled
    concrete = step.get_concrete_function(x, 2)
    assert concrete.executable is graph.fallback()
    graph.dispatcher = graph._namespace["_disp"] = None    # never called again
    for call in range(3):
        assert step(x, 3) == plain.step(x, 3), call
        np.testing.assert_array_equal(staged.w, plain.w)


def test_numbas_messages_are_plain_off_the_main_thread_once_the_loader_loaded(tmp_path):
    # With colorama installed, Numba highlights a message by swapping sys.stdout for
    # colorama's wrapper and back; the loader thread makes such messages while Numba loads
    # its registries, racing with the user's redirect_stdout in the calling thread (pytest
    # saw a graph's prints land outside the redirect of a later test). In a fresh process:
    # the loader is this process's first user of Numba's registries.
    pytest.importorskip("colorama")
    script = tmp_path / "plain.py"
    script.write_text(
        "import sys, threading\n"
        "import numpy as np\n"
        "import autograph as ag\n"
        "def f(x):\n"
        "    total = 0.0\n"
        "    for i in range(x.shape[0]):\n"
        "        total += x[i] * 2.0\n"
        "    return total\n"
        "staged = ag.function(f)\n"
        "x = np.ones(3)\n"
        "staged(x)\n"
        "graph = staged.get_concrete_function(x).executable.built(%d)\n"
        "assert graph.wait(%d)\n"
        "from numba.core import errors\n"
        "texts = []\n"
        "thread = threading.Thread(target=lambda: texts.append(str(errors.TypingError('m'))))\n"
        "thread.start(); thread.join()\n"
        "print(repr(texts[0]))\n" % (WAIT, WAIT))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", None)
    import subprocess
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=WAIT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr("m")   # (no escape codes: no stream swapped)
