"""Runs one generated differentiable program (tools/fuzz/grad_programs.py) as plain Python
and through `ag.value_and_grad(f, argnums, backend=target)`, and classifies the outcome.

`argnums` are the positions of f's float arguments (arrays and scalars; an int `n` is
not differentiated). Each argument tuple of `ARGS` is checked with the same gradient
function, the second after the first: a staged gradient must not have kept the first
call's values.

Classes (`CLASSES`):
  ok                  the value equals plain Python's (rtol 1e-9, widened by what the
                      inputs' rounding explains, 1e-13 * sum |gradient * x|; the same
                      Python kind as tools/fuzz/compare.py demands), the arguments are as in
                      Python, each gradient has its argument's type, shape and dtype, and
                      every element compared agrees with the central differences;
  mismatch value      the value, its kind, or an argument after the call differs;
  mismatch gradient   a gradient's type, shape or dtype, or an element's value, differs;
  crash               an exception that is not a refusal: raised inside autograph/ or
                      runtime/ by something other than a `raise` of a TypeError,
                      NotImplementedError or AutoGraphError (compare.classify_error), or
                      by the user's code or a graph run where Python returned;
  refusal             NotDifferentiableError, or another deliberate TypeError (or
                      NotImplementedError, AutoGraphError) of autograph/ or runtime/;
                      counted by message;
  timeout             no result in time (tools/fuzz/workers.py decides);
  invalid program     plain Python raised, returned something that is not a finite float
                      scalar, or overflowed on the way (np.errstate(over="raise")) or
                      held a value above 1e12: a generator bug, not a finding.

The gradient check. For each element of each differentiated argument, the function is
run at x + h and x - h for h = 1e-6 and 1e-4 (float64). Where the function is not smooth
near x the differences say nothing, so the element is not compared (the verdict counts
it) when
  - the path plain Python takes changes: each run records the bytecode offsets it
    executes in the program's own code (sys.settrace with opcode events), which tells every
    branch, ternary, `and`/`or`, loop trip, `break`, `continue` and `return`; a branch that
    flips or a loop that runs once more within h is seen exactly;
  - the two differences disagree (a kink of abs/max/np.where inside an op, which the path
    does not see, lies between h = 1e-6 and 1e-4 of x), or one is not finite.
An element is a mismatch when the gradient differs from the difference at h = 1e-6, and
from one at h = 1e-5 (confirming, on the same path), by more than
1e-6 * (1 + |value|) + 1e-4 * max(|gradient|, |difference|). The difference's own errors
are far below that: rounding ~1e-10 * |value| at h = 1e-6, truncation ~h^2 f'''/6 at 1e-4.
Ties are safe: at a point where two smooth branches of max/min/abs cross exactly, JAX's
convention (split the gradient equally; abs'(0) = 0) equals the central difference.
"""

import copy
import inspect
import math
import sys

import numpy as np

from tools.fuzz import compare
from tools.fuzz.compare import Verdict

CLASSES = ("ok", "mismatch value", "mismatch gradient", "crash", "refusal", "timeout",
           "invalid program")
FAILING = ("mismatch value", "mismatch gradient", "crash")
STEPS = (1e-6, 1e-4)
CONFIRM_STEP = 1e-5
RTOL = 1e-4
ATOL = 1e-6  # times 1 + |value|
VALUE_LIMIT = 1e8


def differentiable_argnums(args, names, wrt=None):
    """Positions of the float arguments (float arrays, Python floats, NumPy floats); of
    those named in `wrt` (a program's WRT) when any of them is still there."""
    floats = tuple(i for i, a in enumerate(args)
                   if (isinstance(a, np.ndarray) and a.dtype.kind == "f")
                   or (isinstance(a, (float, np.floating)) and not isinstance(a, bool)))
    chosen = tuple(i for i in floats if wrt and names[i] in wrt)
    return chosen or floats


# -- the path plain Python takes ----------------------------------------------------------------

def run_with_path(fn, args, filename):
    """(value or None, path): `fn(*args)` on copies of `args`, and the bytecode offsets it
    executed in the code of `filename`; an exception makes the path ('raised', type)."""
    path = []

    def local(frame, event, arg):
        if event == "opcode":
            path.append((frame.f_code.co_name, frame.f_lasti))
        return local

    def start(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        frame.f_trace_opcodes = True
        path.append((frame.f_code.co_name, "call"))
        return local

    args = copy.deepcopy(args)
    previous = sys.gettrace()
    sys.settrace(start)
    try:
        with np.errstate(all="ignore"):
            value = fn(*args)
    except Exception as e:
        return None, ("raised", type(e).__name__)
    finally:
        sys.settrace(previous)
    return value, tuple(path)


def _shifted(args, argnum, flat_index, step):
    args = list(args)
    arg = args[argnum]
    if isinstance(arg, np.ndarray):
        arg = arg.copy()
        arg.reshape(-1)[flat_index] += step
    else:
        arg = type(arg)(arg + step)
    args[argnum] = arg
    return tuple(args)


def _difference(fn, args, argnum, index, step, filename, path):
    """The central difference along one element at `step`, or None where the path at
    x + step or x - step is not `path`, or the difference is not finite."""
    values = []
    for sign in (1, -1):
        value, shifted_path = run_with_path(fn, _shifted(args, argnum, index, sign * step), filename)
        if shifted_path != path:
            return None
        values.append(float(value))
    difference = (values[0] - values[1]) / (2 * step)
    return difference if math.isfinite(difference) else None


def _close(a, b, scale):
    return abs(a - b) <= ATOL * scale + RTOL * max(abs(a), abs(b))


def gradient_verdict(fn, args, argnums, grads, value, filename, names):
    """None when every compared element agrees, else a 'mismatch gradient' Verdict; also
    (compared, skipped) counts."""
    _, path = run_with_path(fn, args, filename)
    scale = 1.0 + abs(float(value))
    compared = skipped = 0
    for argnum, grad in zip(argnums, grads):
        given = np.asarray(grad, dtype=np.float64).reshape(-1)
        for index in range(np.size(args[argnum])):
            differences = [_difference(fn, args, argnum, index, h, filename, path) for h in STEPS]
            if None in differences or not _close(differences[0], differences[1], scale):
                skipped += 1
                continue
            compared += 1
            if math.isfinite(given[index]) and _close(given[index], differences[0], scale):
                continue
            confirm = _difference(fn, args, argnum, index, CONFIRM_STEP, filename, path)
            if confirm is not None and math.isfinite(given[index]) and _close(given[index], confirm, scale):
                continue
            where = names[argnum] + (str([int(i) for i in np.unravel_index(index, np.shape(args[argnum]))])
                                     if np.ndim(args[argnum]) else "")
            return Verdict("mismatch gradient", "gradient value",
                           "d/d%s: gradient %r, central differences %r (h=1e-6), %r (h=1e-4)" % (
                               where, float(given[index]), differences[0], differences[1])), compared, skipped
    return None, compared, skipped


def gradient_kind_difference(arg, grad):
    """None, or what is wrong with the type, shape or dtype of `grad` for `arg`."""
    if isinstance(arg, np.ndarray):
        if not isinstance(grad, np.ndarray):
            return "array argument, gradient is %s" % type(grad).__name__
        if grad.shape != arg.shape or grad.dtype != arg.dtype:
            return "argument %s %s, gradient %s %s" % (arg.dtype, arg.shape, grad.dtype, grad.shape)
        return None
    if not isinstance(grad, (float, np.floating)) or np.ndim(grad) != 0:
        return "%s argument, gradient is %s %r" % (type(arg).__name__, type(grad).__name__, grad)
    if isinstance(arg, np.floating) and type(grad) is not type(arg):
        return "%s argument, gradient is %s" % (type(arg).__name__, type(grad).__name__)
    return None


# -- one program ------------------------------------------------------------------------------

def classify(error, target):
    """refusal or crash, from compare.classify_error's judgement of who raised what."""
    from runtime.errors import NotDifferentiableError
    message = compare._first_line(error)
    if isinstance(error, NotDifferentiableError):
        return Verdict("refusal", type(error).__name__, message)
    verdict = compare.classify_error(error, None, target)
    if verdict.cls in ("refusal", "misleading refusal"):
        return verdict._replace(cls="refusal")
    if verdict.cls == "internal error":
        return verdict._replace(cls="crash")
    return Verdict("crash", verdict.kind.replace(", Python returned", ""), verdict.message)


def invalid(outcome):
    """Why plain Python's outcome is no loss to differentiate, or None."""
    if outcome.error is not None:
        return compare._first_line(outcome.error)
    value = outcome.result
    if not isinstance(value, (float, np.floating)) or np.ndim(value) != 0:
        return "the loss is %s %s, not a float scalar" % (type(value).__name__, compare._short(value))
    if not math.isfinite(value) or abs(value) > VALUE_LIMIT:
        return "the loss is %r" % value
    return None


INTERMEDIATE_LIMIT = 1e12


def overflows(fn, args):
    """Why plain Python's run is no point to take differences at: an intermediate value
    overflowed, became NaN, or grew past 1e12 (a loop squaring a value), which the loss may
    hide (arctan(1e264), 0 * inf in a branch not taken) but which makes the differences
    and the gradient meaningless. The names of the program's frames are looked at on
    every line."""
    filename = fn.__code__.co_filename
    largest = [0.0]

    def local(frame, event, arg):
        if event in ("line", "return"):
            for value in frame.f_locals.values():
                if isinstance(value, (np.ndarray, float, np.floating)) and np.size(value) \
                        and np.asarray(value).dtype.kind == "f":
                    largest[0] = max(largest[0], float(np.max(np.abs(value))))
        return local

    def start(frame, event, arg):
        return local if frame.f_code.co_filename == filename else None

    previous = sys.gettrace()
    sys.settrace(start)
    try:
        with np.errstate(over="raise", invalid="raise"):
            fn(*copy.deepcopy(args))
    except (FloatingPointError, OverflowError) as e:
        return "an intermediate value overflows: %s" % compare._first_line(e)
    except Exception:
        return None
    finally:
        sys.settrace(previous)
    if largest[0] > INTERMEDIATE_LIMIT:
        return "an intermediate value reaches %.3g" % largest[0]
    return None


def _close_for_its_condition(expected, value, args, argnums, grads):
    """Whether the value is within the rounding its inputs' rounding explains: a loss with
    a gradient of 1e9 (u = u + u * u four times, then sin) moves by 1e-7 when a sum of the
    inputs is rounded another way (np.einsum against a graph's dot)."""
    amplification = 0.0
    for argnum, grad in zip(argnums, grads):
        g = np.abs(np.asarray(grad, dtype=np.float64)) * np.maximum(1.0, np.abs(np.asarray(args[argnum], dtype=np.float64)))
        if not np.all(np.isfinite(g)):
            return False
        amplification += float(np.sum(g))
    error = abs(float(value) - float(expected))
    return error <= 1e-12 + 1e-9 * abs(float(expected)) + 1e-13 * amplification


def check_module(module, target):
    """The Verdict of differentiating `module.f` at each tuple of `module.ARGS` on `target`."""
    with compare.framework_frames():
        return _check_module(module, target)


def _check_module(module, target):
    import autograph as ag
    filename = module.f.__code__.co_filename
    names = list(inspect.signature(module.f).parameters)
    staged = None
    compared = skipped = 0
    for number, args in enumerate(module.ARGS[:2], 1):
        argnums = differentiable_argnums(args, names, getattr(module, "WRT", None))
        if not argnums:
            return Verdict("invalid program", "no float argument", call=number)
        compare.running = "python"
        expected = compare.call(module.f, args)
        problem = invalid(expected) or overflows(module.f, args)
        if problem:
            return Verdict("invalid program", "plain Python", problem, call=number)
        compare.running = "target"
        if staged is None:
            staged = ag.value_and_grad(module.f, argnums=argnums, backend=target)
        actual = compare.call(staged, args)
        compare.running = None
        if actual.error is not None:
            return classify(actual.error, target)._replace(call=number)
        value, grads = actual.result
        difference = compare.difference_of(expected.result, value, False, "value")
        if difference and difference[0] == "value: value" and _close_for_its_condition(
                expected.result, value, args, argnums, grads):
            difference = None
        if difference:
            return Verdict("mismatch value", difference[0], difference[1], call=number)
        for position, (e, a) in enumerate(zip(expected.args, actual.args)):
            if isinstance(e, np.ndarray):
                difference = compare.difference_of(e, a, False, names[position])
                if difference:
                    return Verdict("mismatch value", "argument contents after the call", difference[1], call=number)
        if not isinstance(grads, tuple) or len(grads) != len(argnums):
            return Verdict("mismatch gradient", "gradient structure",
                           "a tuple of %d expected, got %s" % (len(argnums), compare._short(grads)), call=number)
        for argnum, grad in zip(argnums, grads):
            wrong = gradient_kind_difference(args[argnum], grad)
            if wrong:
                return Verdict("mismatch gradient", "gradient type, shape or dtype",
                               "d/d%s: %s" % (names[argnum], wrong), call=number)
        verdict, c, s = gradient_verdict(module.f, args, argnums, grads, expected.result, filename, names)
        compared, skipped = compared + c, skipped + s
        if verdict:
            return verdict._replace(call=number)
    if skipped:
        return Verdict("ok", "non-smooth" if compared else "nothing compared",
                       "%d of %d elements not compared (not smooth there)" % (skipped, skipped + compared))
    return Verdict("ok", "")


def check_source(source, target, directory, name="grad_fuzz_program"):
    """The Verdict of the program in `source` (a module defining f and ARGS) on `target`;
    the checker tools/fuzz/workers.py runs."""
    import os
    path = os.path.join(directory, name + ".py")
    try:
        module = compare.load(source, path, name)
    except Exception as e:
        return Verdict("invalid program", type(e).__name__, compare._first_line(e))
    try:
        return check_module(module, target)
    finally:
        compare.unload(name)


def key(verdict):
    """What 'fails the same way' means when shrinking: class and kind, and for an
    exception its message with digits blotted out (the numbers of a mismatch change as
    the program shrinks)."""
    if verdict.cls in ("crash", "refusal"):
        return verdict.cls, verdict.kind, compare.normalise(verdict.message)
    return verdict.cls, verdict.kind
