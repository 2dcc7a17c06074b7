"""The compiled graph: the generated module loaded through its disk cache
(runtime/executors/numba/module_cache.py), its Numba dispatcher, and the Python call
wrapper around it (failures become the NumPy interpreter's errors: failures.py).

Calls
  `call` is a Python function generated per graph (scalar conversions, variables, the
  first-call compile, the NumPy fallback). Once compiled, a graph with one array output and
  no variables also offers `direct()`: the Numba dispatcher itself (constants and `err`
  come first in its parameters, bound with functools.partial), which rt.function's fast path
  calls without any Python layer, translating GraphFail in its except clause.

Compiles in the background (backend "auto")
  Built after the graph's first call (pending.py), with the argument types of that call
  (`compile_in_background`). Nothing here imports Numba until the compiled code is wanted:
  the generated module is written, not run. The worker process compiles, and a thread of
  this process then imports Numba, runs the module and loads the compiled code from the
  disk cache (`_load_compiled`), while calls run on the NumPy interpreter. Importing Numba
  takes 0.2-0.3 s, more than most first calls: a process whose calls end before the
  compile never pays it on its calling thread.

Measuring (backend "auto", graphs no static rule decides: policy.py)
  Once compiled, calls take turns on the compiled code and the NumPy interpreter, timed,
  and the faster runs the calls after them (`_measuring`, `_decide`).
"""

import functools
import logging
import threading
import time
import weakref

import numpy as np

from runtime.executors.numba import background as _background
from runtime.executors.numba import codegen, module_cache
from runtime.executors.numba.failures import GraphFail, failure_error, located_error
from runtime.executors.numba.pending import describe, to_scalar
from runtime.graph import TENSOR_ARRAY
from runtime.tensor_array_buffer import TensorArrayBuffer

logger = logging.getLogger("autograph")

# Entries of the `err` buffer (written by generated code just before it raises GraphFail):
# the index and axis size of a failed bounds check, both shapes of a put_shape failure, the
# shapes of index arrays that do not broadcast together (index_broadcast).
_ERR_SIZE = 72


class NumbaLoweringError(NotImplementedError):
    """backend="numba" was asked to run a graph that has ops without a Numba lowering."""


class NumbaCompiledGraph:
    """Executor interface: `compiled(*flat_inputs) -> tuple of flat outputs`;
    `.owned_outputs`, `.source` (the generated code), `.module_file`."""

    def __init__(self, graph, owned_inputs=None, fallback=None, background=False,
                 measure=False):
        self.graph = graph
        self.owned_inputs = owned_inputs
        self.fallback = fallback     # a zero-argument function making the NumPy executor
        # Compile in the worker process (background.py: `compile_in_background`), the NumPy
        # executor running the calls meanwhile (needs `fallback`).
        self.background = background and fallback is not None
        # Once compiled, time calls on both executors and keep the faster (`_measuring`):
        # for graphs where no static rule can tell (policy.py).
        self.measure = measure and fallback is not None
        self._samples = {"numba": [], "numpy": []}
        self._timing_fallback = False
        self.source, gen = codegen.generate_source(graph, owned_inputs)
        self.sites = gen.sites
        self.module_name = module_cache.module_name_for(self.source)
        self.module = self.dispatcher = None
        if self.background:       # the module is run when its compiled code is wanted
            self.module_file = module_cache.write_module(self.source)
        else:
            self._load()
        self.owned_outputs = list(gen.plan.owned_outputs)
        self._constants = [array for _, array in gen.constants]
        self._variables = [variable for _, variable in gen.variables]
        self._output_values = list(graph.outputs)
        self._single_return = gen.single_return
        self._uses_err = gen.uses_err
        # Does an error Numba raises name a node (err's marker, or the one node that may
        # raise: codegen.CodeGen.generate)?
        self._locates_errors = gen.uses_err or any(site.info.get("unmarked")
                                                   for site in gen.sites)
        # Failing values of bounds checks (one buffer per compiled graph: concurrent
        # failures in several threads may mix up the numbers in their messages).
        self._err = np.zeros(_ERR_SIZE, np.int64)
        self._fallback_exec = None
        self._compiled = False
        self._job = None             # the background compile, while there is one
        self._signature = None
        self._reported = 0.0         # when a background compile was last logged
        self._switch = threading.Lock()
        self._when_compiled = []     # callbacks for when compiled code takes over
        self._replaced = []          # callbacks for when the NumPy executor does (for good)
        self._build_call()

    def _load(self):
        """Runs the generated module (importing Numba) and registers its callbacks."""
        from runtime.executors.numba import support
        module, self.module_file = module_cache.load_module(self.source)
        for index, site in enumerate(self.sites):
            if "callback" in site.info:
                support.register_site(module.__name__, index, site.info["callback"])
        self.dispatcher = module.run_graph
        self.module = module

    def _build_call(self):
        """A Python function specialised to this graph's inputs and outputs: the per-call
        path is one Numba dispatch plus only the conversions this graph needs."""
        inputs = self.graph.all_inputs
        params = ["a%d" % i for i in range(len(inputs))]
        args = ["_k[%d]" % i for i in range(len(self._constants))]
        if self._uses_err:
            args.append("_err")
        lines = ["def call(%s):" % ", ".join(params)]
        if self._variables:
            lines.append("    _bufs = [_var_in(v) for v in _vars]")
            args += ["_bufs[%d]" % i for i in range(len(self._variables))]
        for name, value in zip(params, inputs):
            if value.shape == ():
                args.append("_scalar(%s)" % name)     # 0-d arrays become scalars
            else:
                args.append(name)
        # The error the graph raises is raised after the try statement, outside the handler
        # of the compiled code's error, as Python raises it: with no context (_raise).
        lines.append("    _e = None")
        lines.append("    try:")
        lines.append("        r = _disp(%s)" % ", ".join(args))
        lines.append("    except _GraphFail as e:")
        lines.append("        _e = e")
        lines.append("    except _Fallback:")
        if self._variables:
            lines.append("        _bufs = ()   # the NumPy interpreter updated the variables")
        lines.append("        return _fallback(%s)" % ", ".join(params))
        if self._locates_errors:
            lines.append("    except Exception as e:")
            lines.append("        _e = e")
        if self._variables:
            lines.append("    finally:")
            lines.append("        for v, b in zip(_vars, _bufs):")
            lines.append("            _var_out(v, b)")
        lines.append("    if _e is not None:")
        lines.append("        _raise(_e)")
        # The dispatcher returns a bare value when the graph has one (boxing a 1-tuple in
        # nopython code costs ~0.5 us per call), else a tuple.
        outs = []
        position = 0
        for i, value in enumerate(self._output_values):
            if value.kind == TENSOR_ARRAY:
                outs.append("_ta(r[%d], r[%d], r[%d], r[%d], _out[%d])" % (
                    position, position + 1, position + 2, position + 3, i))
                position += 4
            else:
                part = "r" if self._single_return else "r[%d]" % position
                outs.append(("_t%d(%s)" % (i, part)) if value.shape == () else part)
                position += 1
        body = lines[1:]
        if self._single_return or outs != ["r[%d]" % i for i in range(len(outs))]:
            lines.append("    return (%s)" % "".join(o + ", " for o in outs))
        else:
            lines.append("    return r")
        # `call_single`: the same call returning output 0 itself, for callers that want the
        # one output of a single-output graph (rt.function's per-call path).
        if len(outs) == 1:
            lines.append("")
            lines.append("def call_single(%s):" % ", ".join(params))
            lines += [line.replace("return _fallback(%s)" % ", ".join(params),
                                   "return _fallback(%s)[0]" % ", ".join(params))
                      for line in body]
            lines.append("    return %s" % outs[0])
        namespace = {
            "_disp": self._first_dispatch,
            "_GraphFail": GraphFail, "_Fallback": _Fallback, "_raise": self._raise,
            "_fallback": self._run_fallback,
            "_k": self._constants, "_vars": self._variables, "_var_in": _variable_in,
            "_var_out": _variable_out, "_scalar": to_scalar, "_ta": _tensor_array_out,
            "_out": self._output_values, "_err": self._err,
        }
        for i, value in enumerate(self._output_values):
            if value.kind != TENSOR_ARRAY and value.shape == ():
                namespace["_t%d" % i] = value.dtype.type
        self._namespace = namespace
        self.call_source = "\n".join(lines) + "\n"
        exec(compile(self.call_source, "<numba-call %s>" % self.graph.name, "exec"), namespace)
        call = namespace["call"]
        if "call_single" in namespace:
            call.single_output_call = namespace["call_single"]
        call.owned_outputs = self.owned_outputs
        call.direct = self.direct
        call.unchecked_entry = self.unchecked_entry
        call.translate = self.translate
        call.when_compiled = self.when_compiled
        call.when_replaced = self.when_replaced
        call.source = self.source
        call.compiled_graph = self
        self.call = call

    def _first_dispatch(self, *args):
        """The first call compiles explicitly, so a compile failure is told apart from an
        error the graph raises at run time; later calls go straight to the dispatcher.
        (In the background, `compile_in_background` comes first instead.)"""
        with self._switch:
            if self._namespace["_disp"] != self._first_dispatch:   # another thread switched
                return self._namespace["_disp"](*args)
            import numba
            start = time.perf_counter()
            try:
                self.dispatcher.compile(tuple(numba.typeof(a) for a in args))
            except Exception as error:
                reason = "%s: %s" % (type(error).__name__,
                                     str(error).strip().splitlines()[0] if str(error) else "")
                if self.fallback is None:
                    raise NumbaLoweringError("Numba could not compile graph %r: %s\n(use "
                                             "backend='numpy' or 'auto')" % (self.graph.name,
                                                                             reason))
                self._give_up(reason)
            hits = sum(self.dispatcher.stats.cache_hits.values())
            logger.info("autograph: graph %r compiled by Numba in %.3f s (%s)", self.graph.name,
                        time.perf_counter() - start,
                        "loaded from the on-disk cache" if hits else "not in the on-disk cache")
            self._take_over()
        return self.dispatcher(*args)

    def compile_in_background(self, stand_ins):
        """Hands the compile to the worker (unless the disk cache has the code already) for
        calls whose graph inputs are like `stand_ins` (pending.describe, scalars for inputs
        of shape (): the first call's), and a thread here loads the code
        (`_load_compiled`); the NumPy executor runs the calls meanwhile."""
        # The dispatcher's arguments, as `call` passes them: the constants, the error
        # buffer, the variables' buffers, then the graph inputs.
        prefix = list(self._constants) + ([self._err] if self._uses_err else [])
        prefix += [_variable_in(variable) for variable in self._variables]
        self._signature = describe(prefix) + tuple(stand_ins)
        self._submit()
        self._namespace["_disp"] = self._pending

    def _submit(self):
        saved = module_cache.has_saved_code(self.module_file)
        self._job = _background.submit(
            weakref.WeakMethod(self._load_compiled), self.module_file, self.module_name,
            self._signature, compile=not saved)
        logger.info("autograph: graph %r is %s; until it is ready, calls run on the NumPy "
                    "interpreter", self.graph.name,
                    "loading its compiled code from the on-disk cache in the background"
                    if saved else "compiling with Numba in a background process")
        self._reported = time.perf_counter()

    def _load_compiled(self):
        """In background.py's loader thread, once the compiled code is in the disk cache
        (or cannot be: then compiled here): imports Numba, runs the module, loads the code.
        Returns how it went, for the log."""
        start = time.perf_counter()
        self._load()
        self.dispatcher.compile(_background.numba_signature(self._signature))
        hits = sum(self.dispatcher.stats.cache_hits.values())
        return "%s in %.3f s" % ("loaded here" if hits else "compiled here",
                                 time.perf_counter() - start)

    def _pending(self, *args):
        """`_disp` during a background compile: the NumPy executor runs the call (_Fallback)
        until the job is done; then the compiled code takes over."""
        job = self._job
        if job is None:                      # (another thread is switching)
            raise _Fallback()
        if not job.done.is_set():
            now = time.perf_counter()
            if now - self._reported > 2.0:
                self._reported = now
                logger.info("autograph: graph %r is still compiling with Numba (%.0f s so "
                            "far); calls run on the NumPy interpreter", self.graph.name,
                            now - job.started)
            raise _Fallback()
        with self._switch:
            if self._namespace["_disp"] != self._pending:    # another thread switched
                return self._namespace["_disp"](*args)
            self._job = None
            if job.error is not None:
                self._give_up(job.error)
            logger.info("autograph: graph %r compiled by Numba %s (%s); %s", self.graph.name,
                        "in %.3f s in a background process" % job.seconds
                        if job.seconds is not None else "earlier", job.loaded,
                        self._next_step())
            self._take_over()
        return self._namespace["_disp"](*args)

    def _give_up(self, reason):
        """The NumPy executor runs this graph from now on (this call too: raises
        _Fallback)."""
        logger.info("autograph: graph %r runs on the NumPy interpreter: Numba could not "
                    "compile it (%s)", self.graph.name, reason)
        self._numpy_keeps()
        raise _Fallback()

    def _next_step(self):
        if self.measure:
            return ("the next calls (%d to %d) take turns on it and on the NumPy interpreter, "
                    "timed, and the faster runs the calls after them"
                    % (2 * self._MEASURED_CALLS + 2, 2 * self._MOST_MEASURED_CALLS + 2))
        return "calls run the compiled code from now on"

    def _take_over(self):
        if self.measure and not self._samples["numba"]:
            self._namespace["_disp"] = self._measuring
            return
        self._namespace["_disp"] = self.dispatcher
        self._compiled = True
        self._replaced = []
        callbacks, self._when_compiled = self._when_compiled, []
        for callback in callbacks:
            callback()

    # Calls timed on each executor, after one call each to warm up, before choosing: at
    # least _MEASURED_CALLS, and more, up to _MOST_MEASURED_CALLS, until the timed calls of
    # each took _MEASURED_TIME. (A call of a few microseconds, `x * self.w + self.b`, is
    # timed within 0.1 us of perf_counter's own cost: three could pick either side.)
    _MEASURED_CALLS = 3
    _MOST_MEASURED_CALLS = 200
    _MEASURED_TIME = 2e-4

    def _measuring(self, *args):
        """`_disp` while the compiled code and the NumPy executor take turns, each call timed
        (the NumPy executor's by `_run_fallback`), until the faster one is known."""
        numba_samples, numpy_samples = self._samples["numba"], self._samples["numpy"]
        if len(numba_samples) <= len(numpy_samples):
            start = time.perf_counter()
            result = self.dispatcher(*args)
            numba_samples.append(time.perf_counter() - start)
            return result
        self._timing_fallback = True
        raise _Fallback()

    def _measured_enough(self):
        numba_samples, numpy_samples = self._samples["numba"], self._samples["numpy"]
        if len(numpy_samples) < self._MEASURED_CALLS + 1:
            return False
        return (len(numpy_samples) >= self._MOST_MEASURED_CALLS + 1
                or min(sum(numba_samples[1:]), sum(numpy_samples[1:])) >= self._MEASURED_TIME)

    def _decide(self):
        """Keeps the faster executor, by the fastest of the timed calls of each (the first
        of each left out: it warms up caches). On a shared machine a call is only ever
        slowed down, by another process taking the core: the fastest call is the one least
        disturbed. (The median of three was misled where two calls of one executor were
        slowed: jacobi_2d of tools/vectorised_workloads.py, 30 choices with two other
        processes busy, measured Numba 0.15x to 1.84x NumPy's time, and chose NumPy once,
        at 2x Numba's time for good; the fastest calls measured it 0.54x to 0.57x.)"""
        numba_time = min(self._samples["numba"][1:])
        numpy_time = min(self._samples["numpy"][1:])
        faster = "Numba" if numba_time <= numpy_time else "the NumPy interpreter"
        logger.info("autograph: graph %r runs on %s: %s per call compiled, %s on the NumPy "
                    "interpreter (fastest of %d calls each)", self.graph.name, faster,
                    _duration(numba_time), _duration(numpy_time),
                    len(self._samples["numpy"]) - 1)
        with self._switch:
            if numba_time <= numpy_time:
                self.measure = False
                self._take_over()
            else:
                self._numpy_keeps()

    def _numpy_keeps(self):
        """The NumPy executor runs the calls from now on (under `_switch`): callers that
        hold this graph's call take the executor itself (`when_replaced`: else each call
        would raise _Fallback, about 1 us), and drop what they made of the call
        (`when_compiled`)."""
        self._namespace["_disp"] = _raise_fallback
        self._compiled = False
        if self._fallback_exec is None:
            self._fallback_exec = self.fallback()
        replaced, self._replaced = self._replaced, []
        changed, self._when_compiled = self._when_compiled, []
        for callback in replaced:
            callback(self._fallback_exec)
        for callback in changed:
            callback()

    def when_replaced(self, callback):
        """Calls `callback(executable)` when the NumPy executor `executable` takes over this
        graph for good (a failed compile, or it won the timing); never if compiled code
        did, or without a NumPy executor (backend="numba")."""
        with self._switch:
            if self.fallback is None or self._compiled:
                return
            if self._namespace["_disp"] is not _raise_fallback:
                self._replaced.append(callback)
                return
        callback(self._fallback_exec)

    def when_compiled(self, callback):
        """Calls `callback()` when another executor takes over from this graph's Python
        call: its compiled code (what `direct()` gives changes then), or the NumPy executor
        for good (`when_replaced`); never if one has already."""
        if not self._compiled and self._namespace["_disp"] is not _raise_fallback:
            self._when_compiled.append(callback)

    @property
    def settled(self):
        """Whether one executor runs the calls from now on: the compiled code took over, or
        the NumPy interpreter keeps the graph (a failed compile, or it won the timing)."""
        dispatch = self._namespace["_disp"]
        return dispatch is self.dispatcher or dispatch is _raise_fallback

    def wait(self, timeout=None):
        """Waits for a background compile (tests, benchmarks); True when none is running."""
        job = self._job
        return job is None or job.done.wait(timeout)

    def direct(self):
        """A callable taking the graph inputs that is the Numba dispatcher itself (or a
        functools.partial binding constants and the error buffer), for callers that pass
        inputs exactly as Numba takes them (arrays of rank >= 1, NumPy scalars for rank 0),
        want the single array output as returned, and turn errors with `translate`.
        None when the graph needs the Python layer (variables, tuple or scalar outputs, no
        successful compile yet)."""
        if not self._compiled or self._variables or not self._single_return:
            return None
        out = self._output_values[0]
        if len(self._output_values) != 1 or out.kind == TENSOR_ARRAY or out.shape == ():
            return None
        prefix = list(self._constants) + ([self._err] if self._uses_err else [])
        return functools.partial(self.dispatcher, *prefix) if prefix else self.dispatcher

    def unchecked_entry(self, array):
        """direct(), calling the compiled function itself, for calls with one array like
        `array` (same dtype and rank, C-contiguous, aligned, writeable: `array.flags.carray`):
        Numba's type dispatch is skipped (about 0.1 us of a call). None when there is no
        direct() or nothing was compiled for such arrays. The caller checks dtype, rank and
        `flags.carray` before every call: the compiled code assumes them."""
        direct = self.direct()
        if direct is None or not array.flags.carray:
            return None
        import numba
        prefix = () if direct is self.dispatcher else direct.args
        signature = tuple(numba.typeof(value) for value in prefix + (array,))
        if signature not in self.dispatcher.overloads:
            return None
        compiled = self.dispatcher.get_overload(signature)
        return functools.partial(compiled, *prefix) if prefix else compiled

    def translate(self, error):
        """The exception to raise for `error` from a direct call (GraphFail becomes the NumPy
        interpreter's error; Numba's own errors name the node that raised them)."""
        if isinstance(error, GraphFail):
            return failure_error(error, self.sites, self.graph, self._err)
        return located_error(error, self.sites, self.graph, self._err)

    def _raise(self, error):
        """Raises the exception for `error` from the compiled code (translate), called
        outside its handler: Python's exception has no context."""
        raise self.translate(error)

    def _run_fallback(self, *inputs):
        if self._fallback_exec is None:
            self._fallback_exec = self.fallback()
        timing, self._timing_fallback = self._timing_fallback, False
        if not timing:
            return self._fallback_exec(*inputs)
        # Timed as the trace calls it once it keeps the graph (`when_replaced`): its
        # generated function itself, with no call layer (ConcreteFunction._generate_call).
        # Through __call__, 0.3 us more: x * self.w + self.b, 1.2 us on the interpreter
        # and 1.4 us compiled, was timed 1.5 us on the interpreter and went to Numba.
        executable = self._fallback_exec
        reraise = getattr(executable, "reraise", None)
        run = executable if reraise is None else executable.run
        start = time.perf_counter()
        try:
            result = run(*inputs)
        except Exception as error:
            if reraise is None:
                raise
            reraise(error)
        self._samples["numpy"].append(time.perf_counter() - start)
        if self._measured_enough():
            self._decide()
        return result

    def __call__(self, *inputs):
        return self.call(*inputs)

    def __repr__(self):
        return "<NumbaCompiledGraph %s %s>" % (self.graph.name, self.module_name)


class _Fallback(Exception):
    pass


def _duration(seconds):
    return "%.3g ms" % (seconds * 1e3) if seconds >= 1e-3 else "%.3g µs" % (seconds * 1e6)


def _raise_fallback(*args):
    raise _Fallback()


def _variable_in(variable):
    """A private buffer holding the variable's value: the graph updates it in place, and
    the variable gets it back after the run (the NumPy interpreter replaces the array too)."""
    array = variable._array
    if array.ndim == 0:
        return array.reshape(1).copy()
    return array.copy()


def _variable_out(variable, buffer):
    variable._array = buffer.reshape(()) if variable._array.ndim == 0 else buffer


def _tensor_array_out(buf, written, size, dynamic, value):
    # (empty flags: every element below the size is written; support.py)
    items = [(np.array(buf[i]) if buf.ndim > 1 else value.dtype.type(buf[i]))
             if not written.shape[0] or written[i] else None for i in range(size)]
    element_shape = buf.shape[1:] if buf.ndim > 1 or value.shape is None else value.shape
    return TensorArrayBuffer(items, value.dtype, element_shape, bool(dynamic))
