"""The compiled graph: the generated module loaded through its disk cache
(runtime/executors/numba/module_cache.py), its Numba dispatcher, the Python call wrapper
around it, and the translation of failures into the NumPy interpreter's errors.

Errors
  Failing checks in generated code raise `support.GraphFail(site, ...)`; the wrapper turns
  it into the exception the NumPy interpreter raises (InvalidArgumentError for asserts,
  OutOfRangeError for out-of-range indices), with "While executing <node> created at <user
  line>".

Calls
  `call` is a Python function generated per graph (scalar conversions, variables, the
  first-call compile, the NumPy fallback). Once compiled, a graph with one array output and
  no variables also offers `direct()`: the Numba dispatcher itself (constants and `err`
  come first in its parameters, bound with functools.partial), which rt.function's fast path
  calls without any Python layer, translating GraphFail in its except clause.
"""

import functools
import logging
import os
import threading
import time
import weakref

import numpy as np

from runtime import errors
from runtime.executors.numba import background, codegen, disk_cache, module_cache
from runtime.graph import TENSOR_ARRAY, describe_node
from runtime.markers import SLOT
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
        from runtime.executors.numba import support   # imports numba (codegen._support_hash)
        self.graph = graph
        self.owned_inputs = owned_inputs
        self.fallback = fallback     # a zero-argument function making the NumPy executor
        # Compile in the worker process (background.py), the NumPy executor running the
        # calls meanwhile (needs `fallback`).
        self.background = background and fallback is not None
        # Once compiled, time calls on both executors and keep the faster (`_measuring`):
        # for graphs where no static rule can tell (policy.py).
        self.measure = measure and fallback is not None
        self._samples = {"numba": [], "numpy": []}
        self._timing_fallback = False
        self.source, gen = codegen.generate_source(graph, owned_inputs)
        self.sites = gen.sites
        self.module, self.module_file = module_cache.load_module(self.source)
        self.dispatcher = self.module.run_graph
        for index, site in enumerate(self.sites):
            if "callback" in site.info:
                support.register_site(self.module.__name__, index, site.info["callback"])
        self.owned_outputs = list(gen.plan.owned_outputs)
        self._constants = [array for _, array in gen.constants]
        self._variables = [variable for _, variable in gen.variables]
        self._output_values = list(graph.outputs)
        self._single_return = gen.single_return
        self._uses_err = gen.uses_err
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
        self._build_call()

    def _build_call(self):
        """A Python function specialised to this graph's inputs and outputs: the per-call
        path is one Numba dispatch plus only the conversions this graph needs."""
        from runtime.executors.numba.support import GraphFail
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
        lines.append("    try:")
        lines.append("        r = _disp(%s)" % ", ".join(args))
        lines.append("    except _GraphFail as e:")
        lines.append("        _fail(e)")
        lines.append("    except _Fallback:")
        if self._variables:
            lines.append("        _bufs = ()   # the NumPy interpreter updated the variables")
        lines.append("        return _fallback(%s)" % ", ".join(params))
        if self._uses_err:
            lines.append("    except Exception as e:")
            lines.append("        _locate(e)")
        if self._variables:
            lines.append("    finally:")
            lines.append("        for v, b in zip(_vars, _bufs):")
            lines.append("            _var_out(v, b)")
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
            "_GraphFail": GraphFail, "_Fallback": _Fallback, "_fail": self._raise_failure,
            "_locate": self._raise_located,
            "_fallback": self._run_fallback,
            "_k": self._constants, "_vars": self._variables, "_var_in": _variable_in,
            "_var_out": _variable_out, "_scalar": _to_scalar, "_ta": _tensor_array_out,
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
        call.source = self.source
        call.compiled_graph = self
        self.call = call

    def _first_dispatch(self, *args):
        """The first call compiles explicitly, so a compile failure is told apart from an
        error the graph raises at run time; later calls go straight to the dispatcher. In
        the background (a worker process), unless Numba's disk cache has the code already:
        then loading it here takes less than handing it over."""
        import numba
        signature = tuple(numba.typeof(a) for a in args)
        with self._switch:
            if self._namespace["_disp"] != self._first_dispatch:   # another thread switched
                return self._namespace["_disp"](*args)
            if (self.background and background.enabled() and os.path.isfile(self.module_file)
                    and not disk_cache.has_code(self.dispatcher)):
                self._signature = signature
                self._job = background.submit(weakref.ref(self), self.module_file,
                                              self.module.__name__, signature)
                logger.info("autograph: graph %r is compiling with Numba in a background "
                            "process; until it is ready, calls run on the NumPy interpreter",
                            self.graph.name)
                self._reported = time.perf_counter()
                self._namespace["_disp"] = self._pending
                raise _Fallback()
            start = time.perf_counter()
            try:
                self.dispatcher.compile(signature)
            except Exception as error:
                reason = "%s: %s" % (type(error).__name__,
                                     str(error).strip().splitlines()[0] if str(error) else "")
                if self.fallback is None:
                    raise NumbaLoweringError("Numba could not compile graph %r: %s\n(use "
                                             "backend='numpy' or 'auto')" % (self.graph.name,
                                                                             reason))
                self._give_up(reason)
            hits = sum(self.dispatcher.stats.cache_hits.values())
            logger.info("autograph: graph %r compiled by Numba in %.3f s (%s)%s", self.graph.name,
                        time.perf_counter() - start,
                        "loaded from the on-disk cache" if hits else "not in the on-disk cache",
                        "; " + self._next_step() if self.measure else "")
            self._take_over()
        return self.dispatcher(*args)

    def _pending(self, *args):
        """`_disp` while the worker compiles: the NumPy executor runs the call (_Fallback)
        until the job is done; then the compiled code takes over."""
        job = self._job
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
            start = time.perf_counter()
            try:
                self.dispatcher.compile(self._signature)   # from the disk cache
            except Exception as error:
                self._give_up("%s: %s" % (type(error).__name__, error))
            hits = sum(self.dispatcher.stats.cache_hits.values())
            logger.info("autograph: graph %r compiled by Numba in %.3f s in a background "
                        "process (%s, %.3f s here); %s", self.graph.name, job.seconds,
                        "loaded" if hits else "not saved to the on-disk cache, compiled again",
                        time.perf_counter() - start, self._next_step())
            self._take_over()
        return self.dispatcher(*args)

    def _give_up(self, reason):
        """The NumPy executor runs this graph from now on (this call too: raises
        _Fallback)."""
        logger.info("autograph: graph %r runs on the NumPy interpreter: Numba could not "
                    "compile it (%s)", self.graph.name, reason)
        self._namespace["_disp"] = _raise_fallback
        raise _Fallback()

    def _next_step(self):
        if self.measure:
            return ("the next %d calls take turns on it and on the NumPy interpreter, timed, "
                    "and the faster runs the calls after them" % (2 * self._MEASURED_CALLS + 2))
        return "calls run the compiled code from now on"

    def _take_over(self):
        if self.measure and not self._samples["numba"]:
            self._namespace["_disp"] = self._measuring
            return
        self._namespace["_disp"] = self.dispatcher
        self._compiled = True
        callbacks, self._when_compiled = self._when_compiled, []
        for callback in callbacks:
            callback()

    # Calls timed on each executor, after one call each to warm up, before choosing.
    _MEASURED_CALLS = 3

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
        if len(numpy_samples) == self._MEASURED_CALLS:   # this one is the last sample
            self._timing_fallback = "decide"
        raise _Fallback()

    def _decide(self):
        """Keeps the faster executor, by the median of the timed calls (the first of each
        left out: it warms up caches)."""
        numba_time = sorted(self._samples["numba"][1:])[self._MEASURED_CALLS // 2]
        numpy_time = sorted(self._samples["numpy"][1:])[self._MEASURED_CALLS // 2]
        faster = "Numba" if numba_time <= numpy_time else "the NumPy interpreter"
        logger.info("autograph: graph %r runs on %s: %s per call compiled, %s on the NumPy "
                    "interpreter (median of %d calls each)", self.graph.name, faster,
                    _duration(numba_time), _duration(numpy_time), self._MEASURED_CALLS)
        with self._switch:
            if numba_time <= numpy_time:
                self.measure = False
                self._take_over()
            else:
                self._namespace["_disp"] = _raise_fallback
                self._compiled = False
                self._when_compiled = []

    def when_compiled(self, callback):
        """Calls `callback()` when compiled code takes over from the NumPy executor (what
        `direct()` gives changes then); never if it already has, or never will."""
        if not self._compiled and self._namespace["_disp"] is not _raise_fallback:
            self._when_compiled.append(callback)

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
        from runtime.executors.numba.support import GraphFail
        if isinstance(error, GraphFail):
            return failure_error(error, self.sites, self.graph, self._err)
        return located_error(error, self.sites, self.graph, self._err)

    def _raise_located(self, error):
        new = located_error(error, self.sites, self.graph, self._err)
        if new is error:
            raise error
        raise new from None

    def _run_fallback(self, *inputs):
        if self._fallback_exec is None:
            self._fallback_exec = self.fallback()
        timing, self._timing_fallback = self._timing_fallback, False
        if not timing:
            return self._fallback_exec(*inputs)
        start = time.perf_counter()
        result = self._fallback_exec(*inputs)
        self._samples["numpy"].append(time.perf_counter() - start)
        if timing == "decide":
            self._decide()
        return result

    def __call__(self, *inputs):
        return self.call(*inputs)

    def _raise_failure(self, failure):
        raise_failure(failure, self.sites, self.graph, self._err)

    def __repr__(self):
        return "<NumbaCompiledGraph %s %s>" % (self.graph.name, self.module.__name__)


class _Fallback(Exception):
    pass


def _duration(seconds):
    return "%.3g ms" % (seconds * 1e3) if seconds >= 1e-3 else "%.3g µs" % (seconds * 1e6)


def _raise_fallback(*args):
    raise _Fallback()


def _to_scalar(x):
    if type(x) is np.ndarray and x.ndim == 0:
        return x[()]
    return x


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


def raise_failure(failure, sites, graph, err=None):
    """Turn a GraphFail from generated code into the NumPy interpreter's exception."""
    raise failure_error(failure, sites, graph, err) from None


def _shape_text(shape):
    """A shape as NumPy's broadcasting errors print it: (3,) or (3,2)."""
    return "(%s%s)" % (",".join(str(d) for d in shape), "," if len(shape) == 1 else "")


def located_error(error, sites, graph, err):
    """`error`, raised by Numba's own code inside a compiled graph (not a GraphFail), as the
    NumPy interpreter reports a failing node: "While executing <node> created at <user
    line>" (the node that was running: codegen's err[NODE_SLOT]), an IndexError as an
    OutOfRangeError, Numba's lines about its generated file left out."""
    marker = int(err[codegen.NODE_SLOT]) if err is not None else 0
    if marker <= 0 or marker > len(sites) or getattr(error, "_rt_node_reported", False):
        return error
    where = "While executing %s" % describe_node(sites[marker - 1].node, graph)
    message = "\n".join(line for line in str(error).splitlines()
                        if module_cache.MODULE_PREFIX not in line).strip()
    if isinstance(error, IndexError):
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    else:
        if len(error.args) == 1 and isinstance(error.args[0], str):
            error.args = (message,)
        error.add_note(where)
    error._rt_node_reported = True
    return error.with_traceback(None)   # Numba's implementation of NumPy is not the user's


def failure_error(failure, sites, graph, err=None):
    """The NumPy interpreter's exception for a GraphFail from generated code."""
    args = failure.args
    site = sites[args[0]]
    where = "While executing %s" % describe_node(site.node, graph)
    kind = site.kind
    if kind == "index":
        index, size = (args[1], args[2]) if len(args) > 2 else (int(err[0]), int(err[1]))
        message = "index %d is out of bounds for axis %d with size %d" % (
            index, site.info["axis"], size)
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "mask":
        message = ("boolean index did not match indexed array along axis %d; size of axis "
                   "is %d but size of corresponding boolean axis is %d"
                   % (site.info["axis"], args[2], args[1]))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "index_broadcast":
        shapes = []
        slot = 1
        for _ in range(int(err[0])):
            rank = int(err[slot])
            shapes.append(tuple(int(d) for d in err[slot + 1:slot + 1 + rank]))
            slot += 1 + rank
        message = ("shape mismatch: indexing arrays could not be broadcast together with "
                   "shapes %s" % "".join(_shape_text(shape) + " " for shape in shapes))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind == "mask_values":
        error = ValueError("NumPy boolean array indexing assignment cannot assign %d input "
                           "values to the %d output values where the mask is true"
                           % (args[1], args[2]))
        error.add_note(where)
    elif kind == "mask_value_rank":
        error = TypeError("NumPy boolean array indexing assignment requires a 0 or "
                          "1-dimensional input, input has %d dimensions" % site.info["rank"])
        error.add_note(where)
    elif kind == "assert":
        values = args[1:]
        items = site.info["items"]
        text = site.node.attrs["message"]
        if items:
            it = iter(zip(values, site.info["dtypes"]))
            parts = []
            for item in items:
                if item is SLOT:
                    value, dtype = next(it)
                    parts.append(str(np.dtype(dtype).type(value)))
                else:
                    parts.append(str(item))
            text = " ".join(parts)
        error = errors.InvalidArgumentError("%s\n%s" % (text, where))
    elif kind == "ta_write":
        message = ("TensorArray write index %d is out of range for size %d (create it with "
                   "dynamic_size=True to grow)" % (args[1], args[2]))
        error = errors.OutOfRangeError("%s\n%s" % (message, where))
    elif kind in ("ta_read", "ta_stack"):
        index, size, reason = args[1], args[2], args[3]
        if reason == 0:
            error = errors.OutOfRangeError(
                "TensorArray read index %d is out of range for size %d\n%s" % (index, size, where))
        elif reason == 1:
            error = errors.InvalidArgumentError(
                "TensorArray element %d was read before it was written\n%s" % (index, where))
        else:
            error = errors.InvalidArgumentError(
                "TensorArray element %d was never written; cannot stack\n%s" % (index, where))
    elif kind == "put_shape":
        q = int(err[0])
        value_shape = tuple(int(d) for d in err[1:1 + q])
        r = int(err[1 + q])
        target_shape = tuple(int(d) for d in err[2 + q:2 + q + r])
        error = ValueError("shape mismatch: value array of shape %s could not be broadcast to "
                           "indexing result of shape %s" % (_shape_text(value_shape),
                                                            _shape_text(target_shape)))
        error.add_note(where)
    elif kind == "product":
        ranks_and_dims = [int(d) for d in err[:2 + int(err[0]) + int(err[1 + int(err[0])])]]
        shape_a = tuple(ranks_and_dims[1:1 + ranks_and_dims[0]])
        shape_b = tuple(ranks_and_dims[2 + ranks_and_dims[0]:])
        inner_a, inner_b = site.info["axes"]
        if shape_a[inner_a] != shape_b[inner_b] and site.info["name"] == "dot":
            message = "shapes %s and %s not aligned: %d (dim %d) != %d (dim %d)" % (
                _shape_text(shape_a), _shape_text(shape_b), shape_a[inner_a], inner_a,
                shape_b[inner_b], inner_b)
        elif shape_a[inner_a] != shape_b[inner_b]:
            message = ("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                       "gufunc signature (n?,k),(k,m?)->(n?,m?) (size %d is different from %d)"
                       % (shape_b[inner_b], shape_a[inner_a]))
        else:
            message = ("operands could not be broadcast together with remapped shapes "
                       "[original->remapped]: %s->(%d,newaxis,newaxis) %s->(%d,newaxis,newaxis)"
                       "  and requested shape (%d,%d)" % (
                           _shape_text(shape_a), shape_a[0], _shape_text(shape_b),
                           shape_b[0], shape_a[1], shape_b[2]))
        error = ValueError(message)
        error.add_note(where)
    elif kind == "negative_power":
        error = ValueError("Integers to negative integer powers are not allowed.")
        error.add_note(where)
    elif kind == "squeeze":
        error = ValueError("cannot select an axis to squeeze out which has size not equal to one")
        error.add_note(where)
    else:
        error = errors.InvalidArgumentError("graph failure at %s\n%s" % (kind, where))
    error._rt_node_reported = True
    return error
