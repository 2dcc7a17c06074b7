"""Numba compiles in a worker process, so `backend="auto"` never waits on one.

On `auto`, the first call of a graph that earns a compile (policy.py) runs on the NumPy
interpreter and hands the compile to a worker: a second Python process, started on the
first such call and reused for every later one, that imports the generated module and
compiles it with Numba, which saves the machine code in the on-disk cache
(disk_cache.py). Calls run on the NumPy interpreter until the worker is done; the next
call then loads the machine code from the cache (tens of milliseconds) and runs it from
then on (compiled.py). So:

- the first call costs what the NumPy interpreter's first call costs, not a compile of
  0.3-10 s; the compile runs on another core, without taking this process's GIL (a thread
  would: most of Numba's compiler is Python);
- a compile that crashes or fails in the worker leaves the graph on the NumPy interpreter
  (logged), and the worker is started again for the next one;
- when the process exits, the worker finishes the compile it is running (the next process
  finds it in the cache) and exits: compiles still queued are dropped, as are those of
  graphs that were freed meanwhile.

Requests and replies are pickles over the worker's stdin and stdout (the worker prints
nothing else there). `AUTOGRAPH_BACKGROUND_COMPILE=0` makes `auto` compile in the calling
thread instead, as `backend="numba"` always does.
"""

import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time

import agcache
from runtime.executors.numba import module_cache

ENV_SWITCH = "AUTOGRAPH_BACKGROUND_COMPILE"


def enabled():
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


class Job:
    """One compile: `done` is set when the worker replied (or could not); then `error` is
    None or why it failed, and `seconds` how long the worker took."""

    def __init__(self, owner, path, name, signature, root):
        self.owner = owner            # a weak reference to what asked for it
        self.request = (path, name, signature, root)
        self.done = threading.Event()
        self.error = None
        self.seconds = None
        self.started = time.perf_counter()

    def finish(self, error=None, seconds=None):
        self.error = error
        self.seconds = seconds
        self.done.set()


def submit(owner, path, name, signature):
    """Queues the compile of `run_graph` in the module `name` (the file `path`) for the
    Numba `signature`; returns its Job. `owner` is a weak reference: a job whose owner is
    gone by its turn is dropped."""
    job = Job(owner, path, name, signature, agcache.location.place().path)
    _server().jobs.put(job)
    return job


_lock = threading.Lock()
_servers = {}        # pid -> _Server (a forked child gets a worker of its own)


def _server():
    with _lock:
        server = _servers.get(os.getpid())
        if server is None:
            server = _servers[os.getpid()] = _Server()
        return server


class _Server:
    """The worker process and the thread that feeds it one job at a time (in this process:
    its blocking reads and writes release the GIL)."""

    def __init__(self):
        self.jobs = queue.Queue()
        self.process = None
        thread = threading.Thread(target=self._run, name="autograph-numba-compiles",
                                  daemon=True)
        thread.start()

    def _run(self):
        while True:
            job = self.jobs.get()
            if job.owner() is None:
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
            error, seconds = reply
            job.finish(error, seconds)


def _start_worker():
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
            module.run_graph.compile(signature)
            error = None
        except Exception as failure:      # the caller runs the graph on NumPy and says why
            text = str(failure).strip().splitlines()
            error = "%s: %s" % (type(failure).__name__, text[0] if text else "")
        _write(replies, (error, time.perf_counter() - start))


def _main():
    # The replies go on the real stdout; whatever else prints goes to stderr.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    _main()
