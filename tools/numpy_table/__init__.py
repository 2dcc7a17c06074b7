"""The table of NumPy calls graphs cover: every covered function, with the calls that test it,
compared with NumPy on both backends (tests/operators/test_numpy_table.py) and listed in
docs/numpy.md (written by `python tools/numpy_coverage.py --write`).

One module per family in this package (sorting.py, linalg.py, ...), each with `CASES`, a
list of `case(...)`: the NumPy function covered, a call of it (a lambda: it is what runs as
plain Python and through ag.function), and argument tuples of several shapes and dtypes.
A call runs on the numba backend with its first argument tuple (compiles are slow) unless
`numba=False` says that backend refuses it.

`run(case, backend)` compares, for each argument tuple: the result's Python type, dtype,
shape and values (bit-equal; `rtol` where the numba backend computes natively in another
order than NumPy, or every backend does: `reordered`), the exception type where NumPy raises
(or a subclass of it), and the arguments afterwards.
"""

import copy
import dataclasses
import importlib
import pkgutil

import numpy as np

FLOATS = (np.float64, np.float32)
INTS = (np.int64, np.int32)


@dataclasses.dataclass
class Case:
    function: object          # the NumPy function covered: np.sort
    call: object              # what runs: lambda x: np.sort(x, axis=0)
    arguments: list           # argument tuples
    numba: bool = True        # does the numba backend run it (else: it must refuse clearly)
    rtol: float = 0.0         # tolerance on the numba backend (numpy: exact)
    name: str = ""
    reordered: bool = False   # the graph sums in another order on every backend: rtol too

    @property
    def id(self):
        return self.name or function_name(self.function)


def case(function, call, *arguments, numba=True, rtol=0.0, name="", reordered=False):
    """A case; `arguments` are tuples (a bare array is a 1-tuple). `reordered`: the graph
    computes the call in another order than NumPy does on every backend (np.einsum, by
    matmul), so `rtol` applies on the numpy backend too."""
    arguments = [a if isinstance(a, tuple) else (a,) for a in arguments]
    return Case(function, call, arguments, numba, rtol, name, reordered)


def function_name(function):
    """np.sort, np.linalg.solve, np.add.at: the name users write."""
    if isinstance(function, str):
        return function
    module = getattr(function, "__module__", None) or "numpy"
    name = getattr(function, "__name__", str(function))
    if isinstance(function, np.ufunc):
        return "np." + name
    parts = [p for p in module.split(".")[1:] if not p.startswith("_")]
    return ".".join(["np"] + parts + [name])


# --- arguments ------------------------------------------------------------------------------

def rand(*shape, dtype=np.float64, seed=0):
    """Standard normal values of `dtype` (ints: -9..9, bools: random)."""
    rng = np.random.default_rng(seed + 7 * len(shape) + sum(shape))
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -9, 10, size=shape).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def each(shapes, dtypes=FLOATS, count=1):
    """Argument tuples: `count` arrays of each shape and dtype (shapes x dtypes)."""
    return [tuple(rand(*shape, dtype=dtype, seed=i) for i in range(count))
            for shape in shapes for dtype in dtypes]


# --- running --------------------------------------------------------------------------------

def cases():
    """Every family's cases, in module order."""
    result = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module("%s.%s" % (__name__, info.name))
        result.extend(module.CASES)
    return result


def covered():
    """The names of the covered functions, sorted."""
    return sorted({function_name(c.function) for c in cases()})


def _outcome(fn, arguments):
    arguments = copy.deepcopy(arguments)
    try:
        return fn(*arguments), None, arguments
    except Exception as error:   # compared with the other run's
        return None, error, arguments


def mismatch(expected, actual, rtol=0.0):
    """Why `actual` differs from `expected` (None when it does not): types, dtypes, shapes,
    values (NaNs equal); texts and None by equality."""
    if isinstance(expected, (tuple, list)):
        if type(actual) is not type(expected) or len(actual) != len(expected):
            return "%s of %d != %s" % (type(expected).__name__, len(expected),
                                       type(actual).__name__)
        for i, (e, a) in enumerate(zip(expected, actual)):
            why = mismatch(e, a, rtol)
            if why:
                return "[%d]: %s" % (i, why)
        return None
    if type(actual) is not type(expected):
        return "type %s != %s" % (type(actual).__name__, type(expected).__name__)
    if isinstance(expected, (str, type(None))):   # (a dtype's name, where values are not)
        return None if actual == expected else "%r != %r" % (actual, expected)
    if isinstance(expected, (bool, int, float, complex)) and not isinstance(expected, np.generic):
        expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.dtype != actual.dtype:
        return "dtype %s != %s" % (actual.dtype, expected.dtype)
    if np.shape(expected) != np.shape(actual):
        return "shape %s != %s" % (np.shape(actual), np.shape(expected))
    nan = expected.dtype.kind in "fc"
    if np.array_equal(expected, actual, equal_nan=nan):
        return None
    if rtol and np.allclose(actual, expected, rtol=rtol, atol=rtol, equal_nan=nan):
        return None
    return "values %r != %r" % (actual, expected)


def run(case, backend, function=None):
    """Problems (a list of texts, empty when the case holds) running `case` on `backend`
    against plain NumPy; `function` is ag.function (passed in: this package imports no
    project code)."""
    if backend == "numba" and not case.numba:
        backend = "auto"   # (numba refuses it: auto runs the graph on NumPy)
    argument_sets = case.arguments if backend == "numpy" else case.arguments[:1]
    rtol = case.rtol if backend != "numpy" or case.reordered else 0.0
    problems = []
    for arguments in argument_sets:
        label = ", ".join("%s%s" % (np.asarray(a).dtype, list(np.shape(a))) for a in arguments)
        expected, error, after = _outcome(case.call, arguments)
        staged = function(case.call, backend=backend)   # (one trace per argument tuple)
        actual, graph_error, graph_after = _outcome(staged, arguments)
        if error is not None or graph_error is not None:
            # (The graph may raise a subclass of NumPy's error: an out-of-range index is
            # an rt.errors.OutOfRangeError, an IndexError.)
            if error is None or not isinstance(graph_error, type(error)):
                problems.append("(%s): NumPy raised %r, the graph %r" % (label, error, graph_error))
            continue
        why = mismatch(expected, actual, rtol) or mismatch(after, graph_after, rtol)
        if why:
            problems.append("(%s): %s" % (label, why))
    return problems
