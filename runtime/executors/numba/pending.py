"""On `auto`, a graph's calls before its Numba code exists: the calling thread pays nothing
of the Numba backend for them.

A graph `auto` compiles (policy.py) gets a `PendingGraph` as its executable: the NumPy
interpreter runs its calls, and after the first call's run a thread of this process (the
builder) imports the backend's modules, generates the graph's code, writes its module and
hands the compile to the worker (background.py). The next call hands the trace over to the
compiled graph (`when_replaced`: rt.function's trace then calls it; it runs the calls on
the NumPy interpreter until the compiled code is loaded), or, where Numba cannot take the
graph, to the NumPy interpreter's executable itself. So a first call costs what the NumPy
interpreter's first call costs: importing the code generator and the compiled graph's
modules (2-3 ms), generating the code (1-2 ms for a small graph, more for a model's) and
starting the worker come after it, beside the calls that follow (sharing the GIL).

This module is what a first call on `auto` loads of the backend: it imports none of the
rest. It also holds what the calling thread needs of background compiles without them: the
switch (`enabled`) and the argument stand-ins (`describe`).
"""

import _thread
import collections
import logging
import os
import threading
import weakref

import numpy as np

logger = logging.getLogger("autograph")

ENV_SWITCH = "AUTOGRAPH_BACKGROUND_COMPILE"


def enabled():
    """Whether `auto` compiles in the background (else in the calling thread, on the first
    call, as `backend="numba"` does)."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


class _Array(collections.namedtuple("_Array", "dtype ndim layout readonly")):
    """An array argument, as Numba types it (numba.typeof: dtype, rank, layout,
    read-only), known without importing Numba."""


def describe(values):
    """Stand-ins for call arguments that background.numba_signature turns into their Numba
    types, in a process that has not imported Numba: arrays by `_Array`, scalars (and
    stand-ins) by themselves."""
    stand_ins = []
    for value in values:
        if isinstance(value, np.ndarray):
            flags = value.flags
            # numba.np.numpy_support.map_layout's rule
            layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
            value = _Array(value.dtype, value.ndim, layout, not flags.writeable)
        stand_ins.append(value)
    return tuple(stand_ins)


def to_scalar(x):
    """A graph input of shape () as compiled code takes it: a 0-d array as its scalar."""
    if type(x) is np.ndarray and x.ndim == 0:
        return x[()]
    return x


class PendingGraph:
    """Executor interface (runtime/executors/__init__.py) of a graph `auto` compiles, until
    its compiled graph is built: the NumPy executor `reference` runs the calls; after the
    first one (or the `start_after`-th: a small graph compiled once it is called often, see
    policy.py), the builder thread calls `build(stand_ins)` (the argument types of that
    call: `describe`), which returns the compiled graph, its compile handed to the worker,
    or None (the graph stays on the NumPy interpreter; `build` logs why). The next call
    hands over (`when_replaced`, `when_compiled`)."""

    def __init__(self, graph, reference, build, start_after=1):
        self.graph = graph
        self.reference = reference
        self.owned_outputs = reference.owned_outputs
        self._build = build
        # (Compiled code takes the graph inputs of shape () as scalars.)
        self._scalars = [value.shape == () for value in graph.all_inputs]
        self._lock = threading.Lock()
        self._started = False          # the build was handed to the builder
        self._start_after = start_after
        self._calls_left = start_after   # calls before the build starts
        self._built = threading.Event()
        self.compiled_graph = None     # once built (None if the NumPy interpreter keeps it)
        self._successor = None         # the executable taking over, once built
        self._handed_over = False
        self._replaced = []            # callbacks(successor): when_replaced
        self._changed = []             # callbacks(): when_compiled
        if hasattr(reference, "single_output_call"):
            self.single_output_call = self._single_output_call

    def __call__(self, *inputs):
        return self._run(self.reference, inputs, "__call__")

    def _single_output_call(self, *inputs):
        return self._run(self.reference.single_output_call, inputs, "single_output_call")

    def _run(self, run, inputs, name):
        if self._successor is not None:
            self._hand_over()
            successor = getattr(self._successor, name, None)
            if successor is not None and self._successor.owned_outputs == self.owned_outputs:
                # (It runs this call too where the trace that called needs no other fixes
                # of the outputs.)
                return successor(*inputs)
        try:
            return run(*inputs)
        finally:
            if not self._started:
                self._calls_left -= 1     # (threads may race here: a call more or less)
                if self._calls_left <= 0:
                    self._start(inputs)

    def _start(self, inputs):
        """After the first call's run (a call that raised too, as Python's next call may
        not), or the `start_after`-th: the build goes to the builder thread."""
        with self._lock:
            if self._started:
                return
            self._started = True
        if self._start_after > 1:
            logger.info("autograph: graph %r ran %d calls on the NumPy interpreter: compiling "
                        "it with Numba too, to time the two", self.graph.name,
                        self._start_after)
        stand_ins = describe([to_scalar(x) if scalar else x
                              for x, scalar in zip(inputs, self._scalars)])
        _builder().put(self, stand_ins)

    def _build_now(self, stand_ins):
        """In the builder thread."""
        compiled = None
        try:
            compiled = self._build(stand_ins)
        finally:
            self.compiled_graph = compiled
            self._successor = compiled.call if compiled is not None else self.reference
            self._built.set()

    def _hand_over(self):
        """The successor runs the calls after this one."""
        with self._lock:
            replaced, self._replaced = self._replaced, []
            changed, self._changed = self._changed, []
            self._handed_over = True
        for callback in replaced:
            callback(self._successor)
        for callback in changed:
            callback()

    def when_replaced(self, callback):
        """Calls `callback(executable)` when `executable` takes over from this one."""
        if not self._keep(self._replaced, callback):
            callback(self._successor)

    def when_compiled(self, callback):
        """Calls `callback()` when another executable takes over from this one (what
        `direct()` gives changes then: compiled.py)."""
        if not self._keep(self._changed, callback):
            callback()

    def _keep(self, callbacks, callback):
        """Keeps `callback` for the hand-over; False if that happened already."""
        with self._lock:
            if self._handed_over:
                return False
            callbacks.append(callback)
            return True

    @property
    def calls_to_build(self):
        """How many calls run before the build starts (0 once it has)."""
        return 0 if self._started else max(self._calls_left, 0)

    def built(self, timeout=None):
        """Waits until the builder is done with this graph (tests, benchmarks; after the
        call that starts the build: `calls_to_build`): the compiled graph, or None if the
        NumPy interpreter keeps the graph (or the timeout passed, or the build has not
        started)."""
        if self._started:
            self._built.wait(timeout)
        return self.compiled_graph

    def __repr__(self):
        return "<PendingGraph %s>" % self.graph.name


class _Builder:
    """The thread that builds the compiled graphs of pending graphs, one at a time, in the
    order of their first calls. The first call that needs it starts it, without waiting for
    it to run (threading.Thread.start waits: milliseconds on a loaded machine, a third of a
    small first call); it waits on a semaphore, and a first call that hands it a build goes
    on with the GIL until that call blocks or its switch interval ends. (Like a daemon
    thread, it does not keep the process from exiting.)"""

    def __init__(self):
        self._builds = collections.deque()
        self._ready = threading.Semaphore(0)
        _thread.start_new_thread(self._run, ())

    def put(self, pending, stand_ins):
        self._builds.append((weakref.ref(pending), stand_ins))
        self._ready.release()

    def _run(self):
        while True:
            self._ready.acquire()
            reference, stand_ins = self._builds.popleft()
            pending = reference()
            if pending is not None:    # (else its trace was freed meanwhile)
                pending._build_now(stand_ins)
            del pending


def per_process(make):
    """A function returning the one object `make()` made for this process, made on its
    first call: a forked child makes its own (the parent's threads and pipes are not its
    own). The builder here; the compile worker's server (background.py)."""
    lock = threading.Lock()
    made = {}   # pid -> the object

    def get():
        with lock:
            found = made.get(os.getpid())
            if found is None:
                found = made[os.getpid()] = make()
            return found
    return get


_builder = per_process(_Builder)   # (a forked child starts its own thread)
