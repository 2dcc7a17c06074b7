"""Numba compiles off the calling thread, so `backend="auto"` never waits on one.

On `auto`, the first call of a graph that earns a compile (policy.py) runs on the NumPy
interpreter; after it, pending.py's builder thread generates the graph's code and hands the
compile to a worker: a second Python process, started for the first such graph and reused
for every later one, that imports the generated module and compiles it with Numba, which
saves the machine code in the on-disk cache (disk_cache.py). Then a loader thread of this
process imports Numba, runs the module and loads the machine code from the cache
(compiled.py, `_load_compiled`); code already in the cache goes straight to the loader.
Calls run on the NumPy interpreter until the code is loaded, and on it from the next call
on. So:

- the first call costs what the NumPy interpreter's first call costs, not a compile of
  0.3-10 s nor Numba's import (0.2-0.3 s): nothing on the calling thread imports Numba.
  The compile runs on another core, without taking this process's GIL (a thread would:
  most of Numba's compiler is Python); the loader's import and load (tens of ms once
  Numba is imported) share the GIL with the calls meanwhile;
- a compile that crashes or fails in the worker leaves the graph on the NumPy interpreter
  (logged), and the worker is started again for the next one;
- when the process exits, the worker finishes the compile it is running (the next process
  finds it in the cache) and exits: compiles still queued are dropped, as are those of
  graphs that were freed meanwhile.

Requests and replies are pickles over the worker's stdin and stdout (the worker prints
nothing else there); argument types travel as stand-ins (pending.describe), since this
process may not have imported Numba. `AUTOGRAPH_BACKGROUND_COMPILE=0` makes `auto` compile
in the calling thread instead, as `backend="numba"` always does.
"""
import os
import pickle
import queue
import struct
import sys
import threading
import time

import agcache
from runtime.executors.numba import module_cache
from runtime.executors.numba.pending import ENV_SWITCH, _Array, per_process

_NICENESS = 10


class Job:
    """One compile: `done` is set when the compiled code is loaded in this process (or
    cannot be); then `error` is None or why not, `seconds` how long the worker took (None
    if it had nothing to do) and `loaded` what loading took."""

    def __init__(self, load, path, name, signature, root):
        self.load = load              # a weakref.WeakMethod: what loads the code here
        self.request = (path, name, signature, root)
        self.done = threading.Event()
        self.error = None
        self.seconds = None
        self.loaded = None
        self.started = time.perf_counter()

    def finish(self, error=None):
        self.error = error
        self.done.set()


def submit(load, path, name, signature, compile=True):
    """Queues the compile of `run_graph` in the module `name` (the file `path`) for the
    argument types `signature` (pending.describe) in the worker, unless not `compile` (the disk
    cache has it) or there is no file (then `load` compiles); then `load()` runs in this
    process's loader thread, off the calling thread. `load` is a weakref.WeakMethod: a job
    whose graph is freed by its turn is dropped. Returns the Job."""
    job = Job(load, path, name, signature, agcache.location.place().path)
    server = _server()
    (server.jobs if compile and path is not None else server.loads).put(job)
    return job


def numba_signature(stand_ins):
    """The Numba types of the arguments pending.describe stood in for (imports Numba)."""
    import numba
    return tuple(numba.types.Array(numba.from_dtype(s.dtype), s.ndim, s.layout,
                                   readonly=s.readonly)
                 if isinstance(s, _Array) else numba.typeof(s) for s in stand_ins)


_server = per_process(lambda: _Server())   # (a forked child gets a worker of its own)


class _Server:
    """The worker process, the thread that feeds it one job at a time (its blocking reads
    and writes release the GIL), and the thread that loads the compiled code of finished
    jobs in this process."""

    def __init__(self):
        self.jobs = queue.Queue()
        self.loads = queue.Queue()
        self.process = None
        for target, name in ((self._compile, "autograph-numba-compiles"),
                             (self._load, "autograph-numba-loads")):
            threading.Thread(target=target, name=name, daemon=True).start()

    def _compile(self):
        while True:
            job = self.jobs.get()
            if job.load() is None:
                job.finish("dropped: the graph was freed")
                continue
            reply, reason = None, "no reply"
            try:
                if self.process is None or self.process.poll() is not None:
                    self.process = _start_worker()
                _write(self.process.stdin, job.request)
                reply = _read(self.process.stdout)
            except (OSError, EOFError, pickle.UnpicklingError) as error:
                reason = "%s: %s" % (type(error).__name__, error)
            if reply is None:
                if self.process is not None:
                    if self.process.poll() is None:
                        self.process.kill()
                    code = self.process.wait()
                    reason = "exit status %d" % code if code > 0 else (
                        "killed by signal %d" % -code if code < 0 else reason)
                job.finish("the compile worker stopped (%s)" % reason)
                self.process = None
                continue
            error, job.seconds = reply
            if error is not None:
                job.finish(error)
            else:
                self.loads.put(job)

    def _load(self):
        plain = False
        while True:
            job = self.loads.get()
            load = job.load()
            if load is None:
                job.finish("dropped: the graph was freed")
                continue
            if not plain:   # (before this thread's first use of Numba)
                _plain_numba_messages_off_the_main_thread()
                plain = True
            try:
                job.loaded = load()
            except Exception as error:      # the graph stays on the NumPy interpreter
                text = str(error).strip().splitlines()
                job.finish("%s: %s" % (type(error).__name__, text[0] if text else ""))
            else:
                job.finish()
            del load


class _PlainOffTheMainThread:
    """Numba's highlighting of its messages (numba.core.errors.termcolor()) made plain
    off the main thread. With colorama installed, Numba highlights a message by swapping
    sys.stdout for colorama's wrapper and back (init, reinit, deinit), and it makes such
    messages while it loads its registries (numba/cpython/listobj.py makes a TypingError
    when imported): done in the loader thread, that races with the user's
    `contextlib.redirect_stdout` in the calling thread and can leave sys.stdout on a
    stale stream, so that later prints are lost (pytest saw a graph's prints land outside
    the redirect of the test after a background load)."""

    def __init__(self, scheme):
        self._scheme = scheme

    def __getattr__(self, name):
        attribute = getattr(self._scheme, name)
        if callable(attribute) and threading.current_thread() is not threading.main_thread():
            return _plain
        return attribute


def _plain(message, *args, **kwargs):
    return message


def _plain_numba_messages_off_the_main_thread():
    from numba.core import errors
    scheme = errors.termcolor()
    if not isinstance(scheme, _PlainOffTheMainThread):
        errors._termcolor_inst = _PlainOffTheMainThread(scheme)


def _start_worker():
    import subprocess   # (here: 3 ms of the first call on "auto" otherwise)
    env = dict(os.environ)
    env[ENV_SWITCH] = "0"
    # The same modules as this process: the generated module imports the runtime.
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    return subprocess.Popen([sys.executable, "-m", "runtime.executors.numba.background"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, close_fds=True)


def _write(stream, value):
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _read(stream):
    """The next value on `stream`, or None at its end."""
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack("<Q", header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


# --- the worker ---------------------------------------------------------------------------


def serve(requests, replies):
    """The worker's loop: compiles each requested module's `run_graph` (the disk cache
    saves it) and replies (error or None, seconds)."""
    while True:
        request = _read(requests)
        if request is None:
            return
        path, name, signature, root = request
        start = time.perf_counter()
        try:
            if root is not None:
                os.environ[agcache.ENV_DIR] = root      # the root the caller uses now
            source = agcache.read(path)
            if source is None:
                raise OSError("cannot read %s" % path)
            source = source.decode("utf-8")
            if module_cache.module_name_for(source) != name:
                raise ValueError("%s does not hold the module %s" % (path, name))
            module, _ = module_cache.load_module(source)
            module.run_graph.compile(numba_signature(signature))
            error = None
        except Exception as failure:      # the caller runs the graph on NumPy and says why
            text = str(failure).strip().splitlines()
            error = "%s: %s" % (type(failure).__name__, text[0] if text else "")
        _write(replies, (error, time.perf_counter() - start))


def _main():
    # Behind the process it compiles for: on a busy machine the calls it runs meanwhile get
    # the CPU first (a compile is what may wait).
    os.nice(_NICENESS)
    # The replies go on the real stdout; whatever else prints goes to stderr.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    _main()
