"""Worker processes for the fuzzer: each checks programs on one target in a process of its
own, so a program that hangs (a graph loop that never ends, a Numba compile that does not
return) is killed after a per-program timeout and counted as `timeout`, and Numba's compiled
code and caches stay out of the parent and out of the user's cache.

Workers are started with the `spawn` method (a fresh interpreter: Numba and forked LLVM do not
mix) with `AUTOGRAPH_CACHE_DIR` and `NUMBA_CACHE_DIR` set to a private temporary directory,
deleted when the pool closes. A worker is restarted every `RECYCLE` programs to bound the
memory that loaded programs, traces and compiled functions hold.

What a worker runs is a checker, named "module:function" (imported in the worker): by
default the graph-mode comparison, `tools.fuzz.compare:check_source`; the gradient fuzzer
passes `tools.fuzz.grad_check:check_source`. A checker takes (source, target, directory,
module name) and returns a Verdict.
"""

import importlib
import multiprocessing
import os
import shutil
import tempfile
import time

from tools.fuzz.compare import Verdict

RECYCLE = 250
COMPARE = "tools.fuzz.compare:check_source"


def load_checker(name):
    """The function `name` ("module:function") names."""
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def _serve(conn, directory, checker):
    # In the worker: the environment is set before autograph and Numba are imported.
    os.environ["AUTOGRAPH_CACHE_DIR"] = os.path.join(directory, "autograph")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(directory, "numba")
    check_source = load_checker(checker)
    programs = os.path.join(directory, "programs")
    os.makedirs(programs, exist_ok=True)
    import autograph  # noqa: F401  (imported once, outside the per-program timing)
    conn.send("ready")
    number = 0
    while True:
        task = conn.recv()
        if task is None:
            return
        source, target = task
        number += 1
        start = time.perf_counter()
        try:
            verdict = check_source(source, target, programs, "fuzz_program_%d" % number)
        except BaseException as e:  # the harness itself failed: report, keep serving
            verdict = Verdict("harness error", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        conn.send((tuple(verdict), time.perf_counter() - start))


class Worker:
    """One worker process for one target; `check(source)` -> (Verdict, seconds)."""

    def __init__(self, target, timeout, root, checker=COMPARE):
        self.target = target
        self.timeout = timeout
        self.root = root
        self.checker = checker
        self.process = None
        self.served = 0

    def _start(self):
        context = multiprocessing.get_context("spawn")
        directory = tempfile.mkdtemp(prefix="worker-", dir=self.root)
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, directory, self.checker), daemon=True)
        self.process.start()
        child.close()
        if not self.conn.poll(120) or self.conn.recv() != "ready":
            raise RuntimeError("fuzz worker for %s did not start" % self.target)
        self.served = 0

    def check(self, source, timeout=None):
        timeout = timeout or self.timeout
        if self.process is None or self.served >= RECYCLE:
            self.stop()
            self._start()
        self.served += 1
        self.conn.send((source, self.target))
        if self.conn.poll(timeout):
            try:
                fields, seconds = self.conn.recv()
                return Verdict(*fields), seconds
            except EOFError:  # the worker died (a crash in compiled code)
                self.stop()
                return Verdict("internal error", "worker died", "the process exited while running"), 0.0
        self.stop()
        return Verdict("timeout", "no result in %g s" % timeout), timeout

    def stop(self):
        if self.process is None:
            return
        if self.process.is_alive():
            try:
                self.conn.send(None)
            except (OSError, BrokenPipeError):
                pass
            self.process.join(2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()
        self.process = None


class Pool:
    """Workers per target, sharing one temporary root directory (removed by `close`)."""

    def __init__(self, timeout, checker=COMPARE):
        self.timeout = timeout
        self.checker = checker
        self.root = tempfile.mkdtemp(prefix="ag-fuzz-")
        self.workers = {}

    def check(self, source, target, timeout=None):
        if target not in self.workers:
            self.workers[target] = Worker(target, self.timeout, self.root, self.checker)
        return self.workers[target].check(source, timeout)

    def close(self):
        for worker in self.workers.values():
            worker.stop()
        self.workers.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
