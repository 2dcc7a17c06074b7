"""Runs one generated program as plain Python and through one graph-mode target, and
classifies the outcome.

Targets: `to_graph` (the converted function, called with plain values), and `numpy`,
`numba`, `auto` (`ag.function(f, backend=...)`). Each run gets deep copies of the same
arguments. A program's module holds `f` and `ARGS`, one or two argument tuples of the same
types: the first call is made with `ARGS[0]`, the second with `ARGS[1]` on the same function
object, so a traced target runs its graph again on new values (same dtypes and ranks) and
must not have baked the first values in.

Classes (`CLASSES`):
  match               everything compared below is equal
  mismatch            a result, printed output, exception type or argument differs: the
                      silent wrong answers, and exceptions Python does not raise that come
                      from the user's own line (`"%d" % tensor`) or from a graph run
                      (rt.errors.InvalidArgumentError where Python returned or raised
                      something else)
  internal error      the target raised from inside autograph/, runtime/, generated code, or
                      a library they called (Numba's TypingError), an exception that is not a
                      refusal or a graph-run failure report, and Python did not raise its type
                      (the ValueError "a symbolic tensor ... from another trace", an
                      AssertionError, AttributeError, KeyError...)
  refusal             a TypeError, NotImplementedError or ag.AutoGraphError raised by a
                      `raise` statement of autograph/ or runtime/ (a StagingError is judged by
                      its cause), where Python did not raise that type; the detail is the
                      message's first line
  misleading refusal  a refusal telling the user to "decorate the function with
                      ag.function": it already is
  timeout             the run did not finish in time (decided by tools/fuzz/workers.py)

The comparison rule (plain Python is the reference):
  * Exceptions. When Python raises T, the target must raise an instance of T. API.md
    documents one substitution: an `assert` on a symbolic condition raises
    rt.errors.InvalidArgumentError, accepted for AssertionError. Messages are not compared.
  * Results, recursively. Tuples stay tuples and lists lists, of the same length; None stays
    None; strings are equal.
    - A Python bool must come back as a Python bool or np.bool_ (cause 7 of issue 15: a bool
      must stay a bool); a Python int as an int or a NumPy int64; a Python float as a float
      or np.float64 (API.md: Python numbers a graph computes come back as NumPy scalars of
      the same kind). Never a wider or different kind: int -> float64 is a mismatch.
    - A NumPy scalar or 0-d array must come back as a NumPy scalar or 0-d array (not a
      Python number) of the same dtype; an array with ndim >= 1 as an ndarray of the same
      dtype and shape.
    - Values: integers and bools exactly; float64 with rtol=1e-9, atol=1e-12 (NaN equals
      NaN), since Numba may sum in a different order; float32, float16 and complex64 with
      four float32 ulps (rtol=atol=4 * np.finfo(np.float32).eps), since Numba's float32 exp
      or sqrt may round differently from NumPy's by one ulp. Dtypes are compared exactly.
      `to_graph` promises to behave exactly like the function, so for it every Python type
      must be identical and floats equal bit for bit.
  * Printed output of the first call, line by line; numbers in it are compared as values
    with rtol=1e-6, but a number printed as an int ("1") never equals one printed as a
    float ("1.0"). The second call's printed output is not compared for traced
    targets: Python side effects run while tracing only (API.md, as tf.function); for
    `to_graph` it is.
  * Array arguments after each call: same dtype, shape and values as after the Python call.
  * When both raise the same exception type, nothing else is compared: an error raised while
    tracing comes before anything the graph prints or writes when it runs.
A program's class is the first call's, or the second call's when the first matches.
"""

import contextlib
import copy
import importlib.util
import io
import linecache
import math
import os
import re
import sys
import traceback
import warnings
from typing import NamedTuple

import numpy as np

TARGETS = ("to_graph", "numpy", "numba", "auto")
CLASSES = ("match", "mismatch", "internal error", "refusal", "misleading refusal", "timeout")
FAILING = CLASSES[1:]
RTOL, ATOL = 1e-9, 1e-12  # float64
RTOL32 = ATOL32 = 4 * float(np.finfo(np.float32).eps)  # float32 and narrower
running = None  # "python" or "target": what runs now (a timeout says which did not finish)


# Refusals docs/guide.md documents as limits: (exception type, text in the message, where).
# tests/test_fuzz.py accepts them; every other refusal is a failure.
DOCUMENTED_REFUSALS = (
    ("UndefinedInBranchError", "must also be defined in the", "docs/guide.md, 'Undefined names'"),
    ("TypeError", "() of values of different types", "docs/guide.md, '`min` and `max` of values of different types'"),
    ("LoopVariableError", "which a graph loop cannot do", "docs/guide.md, 'Aliases of an array that a graph loop writes in place'"),
    ("StagingError", "which a graph loop cannot carry under another name", "docs/guide.md, 'A Python value ... that only one branch of a graph `if` defines'"),
    ("TypeError", "which a graph cannot return or print as Python does: it combines values whose kinds depend on different choices", "docs/guide.md, 'Combining many values whose type depends on the path'"),
    ("NumbaLoweringError", "is not supported by Numba", "docs/guide.md, 'Running' (backend='numba' refuses a graph that does not lower)"),
    ("TypeError", "whose result Python defines on None", "docs/guide.md, 'A called function that returns None on some paths'"),
    ("TypeError", "which a graph cannot give its caller", "docs/guide.md, 'A called function that returns None on some paths'"),
    ("TypeError", "built in a graph holds values of different types", "docs/guide.md, 'Items of different types in a list built in a graph'"),
    ("TypeError", "when it is a Python number on some paths and a NumPy scalar on others", "docs/guide.md, 'A Python number on some paths and a NumPy scalar on others, next to narrower values'"),
    ("LoopVariableError", "when it is a Python number on some paths and a NumPy scalar on others", "docs/guide.md, 'A Python number on some paths and a NumPy scalar on others, next to narrower values'"),
    ("TypeError", "a list built in a graph loop, is changed in place afterwards", "docs/guide.md, 'An array appended to a list built in a graph loop, then changed in place'"),
)


def acceptable(verdict):
    """A match, or a refusal docs/guide.md documents."""
    if verdict.cls == "match":
        return True
    return verdict.cls == "refusal" and any(
        verdict.kind == kind and text in verdict.message for kind, text, _ in DOCUMENTED_REFUSALS)


class Verdict(NamedTuple):
    cls: str  # one of CLASSES
    kind: str  # a short stable description: what differed, or the exception type
    message: str = ""  # the details (first line of the exception message, values)
    call: int = 1
    python: str = ""  # what plain Python did: "returned" or the type of its exception

    def key(self):
        """What 'fails the same way' means for the minimiser: class, kind, what Python did,
        and the message with digits blotted out (of a mismatch only when it is an error's:
        differing values change as a program shrinks)."""
        about_error = self.cls != "mismatch" or "raised" in self.kind or "exception" in self.kind
        return (self.cls, self.kind, self.python, normalise(self.message) if about_error else "")

    def reason(self, limit=110):
        """One line: class, kind and the start of the message (the xfail reasons of tests)."""
        message = re.sub(r"(/[\w.+-]+)+/([\w.+-]+\.py)", r"\2", self.message.replace("\n", " "))
        if message.startswith(self.kind + ":"):  # the kind is the exception's type
            text = "%s: %s" % (self.cls, message)
        else:
            text = "%s: %s" % (self.cls, self.kind) + (": " + message if message else "")
        text += "" if self.call == 1 else " (second call)"
        return text if len(text) <= limit else text[:limit - 3] + "..."

    def describe(self):
        text = "%s: %s" % (self.cls, self.kind)
        if self.message:
            text += ": " + self.message
        return text + ("" if self.call == 1 else " (second call)")


def normalise(message):
    return re.sub(r"\d+", "#", re.sub(r"(/[\w.+-]+)+\.py", "<file>", message))


class Outcome(NamedTuple):
    result: object
    error: object  # the exception, or None
    printed: str
    args: tuple  # the arguments after the call


# -- running ------------------------------------------------------------------------------------

def load(source, path, module_name):
    """The program as a module, from a real file (conversion needs the source)."""
    with open(path, "w") as f:
        f.write(source)
    linecache.checkcache(path)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def unload(module_name):
    sys.modules.pop(module_name, None)


def call(fn, args):
    args = copy.deepcopy(args)
    out = io.StringIO()
    result = error = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            result = fn(*args)
        except Exception as e:  # compared by the caller
            error = e
    return Outcome(result, error, out.getvalue(), args)


def target_function(fn, target):
    import autograph as ag
    if target == "to_graph":
        return ag.to_graph(fn)
    if target == "python":
        return fn
    return ag.function(fn, backend=target)


@contextlib.contextmanager
def framework_frames():
    """Errors leaving ag.function keep the frames of autograph and runtime (AUTOGRAPH_TRACEBACK
    =full, read when an error is rewritten): `origin` needs them to tell who raised."""
    before = os.environ.get("AUTOGRAPH_TRACEBACK")
    os.environ["AUTOGRAPH_TRACEBACK"] = "full"
    try:
        yield
    finally:
        if before is None:
            del os.environ["AUTOGRAPH_TRACEBACK"]
        else:
            os.environ["AUTOGRAPH_TRACEBACK"] = before


def check_module(module, target):
    """The Verdict of running `module.f` on `module.ARGS` as `target`."""
    with framework_frames():
        return _check_module(module, target)


def _check_module(module, target):
    global running
    verdict = None
    for number, args in enumerate(module.ARGS[:2], 1):
        running = "python"
        expected = call(module.f, args)
        running = "target"
        python = "returned" if expected.error is None else type(expected.error).__name__
        if number == 1:
            try:
                staged = target_function(module.f, target)
            except Exception as e:  # conversion refused or crashed before any call
                return classify_error(e, None, target)._replace(python=python)
        actual = call(staged, args)
        verdict = compare(expected, actual, target, compare_printed=number == 1 or target == "to_graph")
        verdict = verdict._replace(call=number, python=python)
        if verdict.cls != "match":
            return verdict
    return verdict


def check_source(source, target, directory, name="fuzz_program"):
    path = os.path.join(directory, name + ".py")
    try:
        module = load(source, path, name)
    except Exception as e:
        return Verdict("invalid program", type(e).__name__, _first_line(e))
    try:
        return check_module(module, target)
    finally:
        unload(name)


# -- comparing ----------------------------------------------------------------------------------

def compare(expected, actual, target, compare_printed=True):
    strict = target == "to_graph"
    if expected.error is not None:
        if actual.error is None:
            return Verdict("mismatch", "Python raised %s, %s returned" % (type(expected.error).__name__, target),
                           "%s; returned %s" % (_first_line(expected.error), _short(actual.result)))
        if not _same_exception(expected.error, actual.error):
            verdict = classify_error(actual.error, expected.error, target)
            if verdict.cls != "mismatch":
                return verdict
            return Verdict("mismatch", "exception type: Python %s, %s %s" % (
                type(expected.error).__name__, target, type(actual.error).__name__), verdict.message)
        # Both raised the same type. Output and arguments are not compared: an error raised
        # while tracing comes before anything the graph would print or write when it runs.
        return Verdict("match", "")
    elif actual.error is not None:
        return classify_error(actual.error, None, target)
    else:
        difference = difference_of(expected.result, actual.result, strict, "result")
        if difference:
            return Verdict("mismatch", difference[0], difference[1])
    for number, (e, a) in enumerate(zip(expected.args, actual.args)):
        if isinstance(e, np.ndarray):
            difference = difference_of(e, a, strict, "argument %d" % number)
            if difference:
                return Verdict("mismatch", "argument contents after the call (%d-d array)" % e.ndim,
                               difference[1])
    if compare_printed:
        difference = printed_difference(expected.printed, actual.printed, strict)
        if difference:
            return Verdict("mismatch", "printed output", difference)
    return Verdict("match", "")


def _same_exception(expected, actual):
    if isinstance(actual, type(expected)):
        return True
    from runtime.errors import InvalidArgumentError
    return isinstance(expected, AssertionError) and isinstance(actual, InvalidArgumentError)


def _first_line(error):
    text = str(error).strip()
    return "%s: %s" % (type(error).__name__, text.splitlines()[0] if text else "")


def _short(value):
    text = repr(value)
    return text if len(text) < 120 else text[:117] + "..."


def _kind_of_python_scalar(value):
    return {bool: "b", int: "i", float: "f"}.get(type(value))


def difference_of(expected, actual, strict, path):
    """None, or (kind, message) of the first difference of `actual` from `expected`."""
    if isinstance(expected, (tuple, list)) or expected is None or isinstance(expected, str):
        if type(actual) is not type(expected):
            return ("%s: Python type" % _base(path),
                    "%s: %s expected, got %s (%s)" % (path, type(expected).__name__, type(actual).__name__,
                                                      _short(actual)))
        if expected is None or isinstance(expected, str):
            return None if expected == actual else ("%s: value" % _base(path), "%s: %r != %r" % (path, expected, actual))
        if len(expected) != len(actual):
            return ("%s: structure" % _base(path), "%s: length %d expected, got %d" % (path, len(expected), len(actual)))
        for index, (e, a) in enumerate(zip(expected, actual)):
            found = difference_of(e, a, strict, "%s[%d]" % (path, index))
            if found:
                return found
        return None
    python_kind = _kind_of_python_scalar(expected)
    if python_kind:
        allowed = {"b": (bool, np.bool_), "i": (int, np.int64), "f": (float, np.float64)}[python_kind]
        if strict:
            allowed = (type(expected),)
        if type(actual) not in allowed:
            return ("%s: Python type" % _base(path), "%s: Python %s %r expected, got %s %s" % (
                path, type(expected).__name__, expected, type(actual).__name__, _short(actual)))
        return _value_difference(np.asarray(expected), np.asarray(actual), strict, path)
    if isinstance(expected, (np.generic, np.ndarray)):
        if isinstance(expected, np.generic) or expected.ndim == 0:
            ok = isinstance(actual, np.generic) or (isinstance(actual, np.ndarray) and actual.ndim == 0)
        else:
            ok = isinstance(actual, np.ndarray)
        if strict:
            ok = type(actual) is type(expected)
        if not ok:
            return ("%s: Python type" % _base(path), "%s: %s expected, got %s %s" % (
                path, type(expected).__name__, type(actual).__name__, _short(actual)))
        e, a = np.asarray(expected), np.asarray(actual)
        if e.dtype != a.dtype:
            return ("%s: dtype" % _base(path), "%s: dtype %s expected, got %s (%s)" % (path, e.dtype, a.dtype,
                                                                                      _short(actual)))
        if e.shape != a.shape:
            return ("%s: shape" % _base(path), "%s: shape %s expected, got %s" % (path, e.shape, a.shape))
        return _value_difference(e, a, strict, path)
    if type(actual) is not type(expected):
        return ("%s: Python type" % _base(path), "%s: %s expected, got %s" % (
            path, type(expected).__name__, type(actual).__name__))
    return None


def _base(path):
    return path.split("[")[0]


def _value_difference(e, a, strict, path):
    if e.dtype.kind in "fc":
        if strict:
            equal = np.array_equal(e, a, equal_nan=True)
        else:
            narrow = np.finfo(e.dtype).bits <= 32  # (complex64's parts are float32)
            rtol, atol = (RTOL32, ATOL32) if narrow else (RTOL, ATOL)
            equal = e.shape == a.shape and np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        equal = np.array_equal(e, a)
    if equal:
        return None
    return ("%s: value" % _base(path), "%s: %s expected, got %s" % (path, _short(e), _short(a)))


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def printed_difference(expected, actual, strict):
    """None, or the first line that differs (numbers compared as values)."""
    if expected == actual:
        return None
    e_lines, a_lines = expected.splitlines(), actual.splitlines()
    for number, (e, a) in enumerate(zip(e_lines, a_lines), 1):
        if not _same_line(e, a, strict):
            return "line %d: %r expected, got %r" % (number, e, a)
    if len(e_lines) != len(a_lines):
        return "%d lines expected, got %d (first extra: %r)" % (
            len(e_lines), len(a_lines), (e_lines[len(a_lines):] or a_lines[len(e_lines):])[0])
    if expected.endswith("\n") != actual.endswith("\n"):
        return "the last newline differs: %r vs %r" % (expected[-40:], actual[-40:])
    return None


def _same_line(e, a, strict):
    if e == a:
        return True
    if strict or _NUMBER.split(e) != _NUMBER.split(a):
        return False
    for x, y in zip(_NUMBER.findall(e), _NUMBER.findall(a)):
        if _looks_float(x) != _looks_float(y):
            return False
        fx, fy = float(x), float(y)
        if not (fx == fy or (math.isnan(fx) and math.isnan(fy))
                or math.isclose(fx, fy, rel_tol=1e-6, abs_tol=1e-9)):
            return False
    return True


def _looks_float(token):
    return any(c in token for c in ".eEni")


# -- classifying exceptions ---------------------------------------------------------------------

def _framework_dirs():
    import autograph
    import runtime
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (autograph, runtime))


def _is_library(filename):
    if filename.startswith("<"):
        return True
    lib = os.path.dirname(os.__file__)
    return filename.startswith(lib) or "site-packages" in filename or "dist-packages" in filename


def _is_framework(filename):
    base = os.path.basename(filename)
    if filename.endswith(os.path.join("autograph", "operators", "exceptions.py")):
        # The overload of `assert` raises the user's AssertionError on the user's behalf:
        # it stands for the user's line.
        return False
    return (filename.startswith(_framework_dirs()) or base.startswith("__autograph_generated_")
            or base.startswith("_ag_numba_"))


def origin(error):
    """('framework' | 'user', filename, line text) of where `error` was raised: the innermost
    frame outside libraries (NumPy, Numba, the standard library)."""
    entries = traceback.extract_tb(error.__traceback__)
    for entry in reversed(entries):
        if _is_library(entry.filename):
            continue
        where = "framework" if _is_framework(entry.filename) else "user"
        return where, entry.filename, (entry.line or "").strip()
    return "library", entries[-1].filename if entries else "", ""


def classify_error(error, python_error, target):
    """The Verdict of a target raising `error` where Python raised `python_error` (None:
    Python returned, or raised a different type)."""
    from autograph.errors import AutoGraphError, StagingError
    from runtime.errors import InvalidArgumentError
    judged = error
    if isinstance(error, StagingError) and error.__cause__ is not None and not _is_refusal_type(error):
        judged = error.__cause__
    where, filename, line = origin(judged)
    message = _first_line(error)
    if where == "framework":
        refusal_type = isinstance(judged, (TypeError, NotImplementedError, AutoGraphError))
        if refusal_type and line.startswith("raise"):
            text = str(error).lower()
            if "decorate" in text and "ag.function" in text:
                return Verdict("misleading refusal", type(error).__name__, message)
            return Verdict("refusal", type(error).__name__, message)
        if not isinstance(judged, InvalidArgumentError):
            return Verdict("internal error", type(judged).__name__,
                           "%s (at %s: %s)" % (message, _package_path(filename), line))
    return Verdict("mismatch", "%s raised %s (%s code), Python returned" % (target, type(error).__name__, where),
                   message)


def _is_refusal_type(error):
    # UndefinedInBranchError and LoopVariableError are StagingErrors that are refusals in
    # their own right (they name the variable and the line).
    return isinstance(error, (TypeError, NameError))


def _package_path(filename):
    for directory in _framework_dirs():
        if filename.startswith(directory):
            return os.path.join(os.path.basename(directory.rstrip(os.sep)), filename[len(directory):])
    return os.path.basename(filename)
