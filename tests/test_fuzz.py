"""The differential fuzzer's fixed-seed subset (tools/fuzz/): generated programs over NumPy
scalars and 1-d arrays must run through `ag.to_graph` and `ag.function` (numpy and numba
backends) as they run as plain Python (results with their dtypes and Python types, printed
output, exception types, argument contents: the rule is tools/fuzz/compare.py's docstring),
or be refused with an error docs/guide.md documents (compare.DOCUMENTED_REFUSALS).

The seeds that fail today are in XFAIL, with their class and message, strict: a fix turns
them into XPASS, and the entry goes. The long run is tools/fuzz_graph_mode.py; it prints the
entries of a backend's list (after a change of the generator, every seed's program changes):

    python tools/fuzz_graph_mode.py --in-process --xfail-list --backends numpy --count 400
"""

import os

import numpy as np
import pytest

from tools.fuzz import compare
from tools.fuzz import generator
from tools.fuzz.minimise import minimise

SEEDS = {"to_graph": range(400), "numpy": range(400), "numba": range(40)}

# Failing at the start of issue 15 (main at 57fc4a7): seed -> class: kind: message.
XFAIL = {
    'to_graph': {
    },
    'numpy': {
        3: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        4: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        5: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        8: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        9: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        11: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 4',
        12: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        20: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        22: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        24: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        26: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        27: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        28: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        30: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        31: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        32: 'misleading refusal: TypeError: a symbolic tensor (f64[]) cannot be converted to a NumPy array while tracing...',
        34: 'mismatch: argument contents after the call (0-d array): argument 2: array(1.5) expected, got array(-1.5)',
        36: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 0',
        41: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        43: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        44: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        45: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        46: 'mismatch: exception type: Python IndexError, numpy RuntimeError: RuntimeError: bad value 2',
        47: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        48: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        49: 'mismatch: exception type: Python IndexError, numpy TypeError: TypeError: %d format: a real number is requir...',
        50: 'mismatch: argument contents after the call (0-d array): argument 4: array(2.25) expected, got array(1.)',
        51: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        52: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        57: 'mismatch: result: dtype: result[0]: dtype int64 expected, got float64 (np.float64(0.0))',
        62: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        63: 'mismatch: argument contents after the call (0-d array): argument 4: array(3.) expected, got array(1.)',
        65: 'mismatch: argument contents after the call (0-d array): argument 2: array(-50331648.) expected, got array(-...',
        66: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        67: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        69: 'mismatch: exception type: Python ValueError, numpy TypeError: TypeError: %d format: a real number is requir...',
        70: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        71: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        73: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        75: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        79: 'mismatch: numpy raised IndexError (user code), Python returned: IndexError: list index out of range (second...',
        80: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        81: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        82: 'mismatch: numpy raised AssertionError (user code), Python returned: AssertionError: value <rt.Tensor f64[]>...',
        84: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        86: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        87: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        89: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        90: 'mismatch: argument contents after the call (0-d array): argument 3: array(-3.) expected, got array(1.5)',
        91: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        92: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 0',
        93: 'mismatch: numpy raised RuntimeError (user code), Python returned: RuntimeError: bad value 4',
        94: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        96: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 0 (second call)',
        100: 'mismatch: exception type: Python ValueError, numpy TypeError: TypeError: %d format: a real number is requir...',
        106: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        107: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 1',
        116: 'mismatch: numpy raised AssertionError (user code), Python returned: AssertionError: bad value 2 (second call)',
        118: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        119: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        121: "mismatch: printed output: line 1: 'p2 1.5' expected, got 'p5 0.25'",
        122: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        124: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        125: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        126: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        127: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        129: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        135: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        136: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        138: 'mismatch: result: Python type: result[0]: Python bool False expected, got int64 np.int64(0)',
        141: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        142: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        144: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        147: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        151: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        152: 'mismatch: exception type: Python IndexError, numpy TypeError: TypeError: %d format: a real number is requir...',
        153: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        154: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        155: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        157: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        159: 'misleading refusal: TypeError: a symbolic tensor (f64[]) has no float value while tracing: use rt.cond / rt...',
        160: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        161: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        163: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        164: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        167: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        168: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        171: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        172: 'mismatch: argument contents after the call (0-d array): argument 2: array(0.30326533) expected, got array(0.5)',
        173: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        175: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        177: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        180: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        181: 'mismatch: numpy raised RuntimeError (user code), Python returned: RuntimeError: bad value 0 (second call)',
        182: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        188: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        189: 'mismatch: argument contents after the call (1-d array): argument 0: array([ 2., -3.]) expected, got array([...',
        190: 'refusal: TypeError: cannot use a list value ([<rt.Tensor f64[]>]) as a tensor in a graph',
        191: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        200: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        201: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        203: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        204: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        206: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: expected a sequence of integer...',
        208: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        209: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        211: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        212: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        213: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        214: 'mismatch: exception type: Python IndexError, numpy TypeError: TypeError: %d format: a real number is requir...',
        216: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        218: 'mismatch: argument contents after the call (0-d array): argument 5: array(-1.5) expected, got array(0.)',
        219: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        220: 'internal error: ValueError: a symbolic tensor (f64[]) from another trace, branch or loop body was used here...',
        221: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        224: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        225: 'misleading refusal: TypeError: a symbolic tensor (f64[]) has no float value while tracing: use rt.cond / rt...',
        226: 'mismatch: numpy raised RuntimeError (user code), Python returned: RuntimeError: bad value 4',
        232: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        234: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        235: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        237: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        238: 'mismatch: exception type: Python IndexError, numpy TypeError: TypeError: %d format: a real number is requir...',
        239: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        240: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        241: 'mismatch: numpy raised UnboundLocalError (user code), Python returned: UnboundLocalError: cannot access loc...',
        243: 'misleading refusal: TypeError: a symbolic tensor (f64[]) cannot be converted to a NumPy array while tracing...',
        246: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        248: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 3',
        249: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        250: "refusal: ListChangedInBranch: the Python list 'vals4' is changed in the if branch of the if statement at fu...",
        251: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        252: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        253: 'mismatch: numpy raised RuntimeError (user code), Python returned: RuntimeError: bad value 2',
        254: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        255: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        256: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        260: 'mismatch: result: Python type: result: Python bool True expected, got int64 np.int64(1)',
        262: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        263: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: value <rt.Tensor f64[]> here',
        267: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        268: 'internal error: ValueError: a symbolic tensor (bool[]) from another trace, branch or loop body was used her...',
        270: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        274: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        278: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        280: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        282: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        284: 'mismatch: exception type: Python RuntimeError, numpy TypeError: TypeError: %d format: a real number is requ...',
        285: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 0',
        286: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        290: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        293: 'misleading refusal: TypeError: a symbolic tensor (f64[]) has no float value while tracing: use rt.cond / rt...',
        296: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        297: 'mismatch: exception type: Python IndexError, numpy TypeError: TypeError: %d format: a real number is requir...',
        298: "refusal: LoopVariableError: loop variable 'retval_' of the for loop at fuzz_program_699.py:11 in f is a Pyt...",
        299: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        305: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        308: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        310: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        312: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        314: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        317: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        319: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 4 (second call)',
        320: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        323: 'misleading refusal: TypeError: a symbolic tensor (f64[]) cannot be converted to a NumPy array while tracing...',
        325: 'mismatch: argument contents after the call (1-d array): argument 0: array([6., 0.]) expected, got array([8....',
        329: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        330: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        331: 'refusal: TypeError: cannot use a list value ([<rt.Tensor f64[]>]) as a tensor in a graph',
        338: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        339: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 3',
        340: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        341: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        342: 'mismatch: argument contents after the call (0-d array): argument 3: array(-2.5) expected, got array(-1.5)',
        344: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        346: 'mismatch: result: value: result: array(-0.5) expected, got array(0.5)',
        347: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        348: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        349: 'mismatch: exception type: Python AssertionError, numpy TypeError: TypeError: %d format: a real number is re...',
        350: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        351: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 0',
        352: 'mismatch: exception type: Python UnboundLocalError, numpy TypeError: TypeError: expected a sequence of inte...',
        353: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        354: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        355: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        357: 'mismatch: exception type: Python IndexError, numpy TypeError: TypeError: expected a sequence of integers or...',
        362: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        365: 'mismatch: numpy raised ValueError (user code), Python returned: ValueError: bad value 2',
        368: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        370: 'mismatch: argument contents after the call (0-d array): argument 2: array(36.) expected, got array(0.)',
        374: 'mismatch: argument contents after the call (1-d array): argument 1: array([-24.5, -29.5, -27. ]) expected, ...',
        378: 'mismatch: argument contents after the call (1-d array): argument 0: array([1.5]) expected, got array([2.5])...',
        379: 'misleading refusal: TypeError: a symbolic tensor (f64[]) has no float value while tracing: use rt.cond / rt...',
        381: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        382: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        384: 'mismatch: numpy raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        386: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        387: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        388: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        389: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        390: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        393: 'mismatch: exception type: Python UnboundLocalError, numpy TypeError: TypeError: expected a sequence of inte...',
        394: 'mismatch: exception type: Python ValueError, numpy TypeError: TypeError: %d format: a real number is requir...',
        395: 'mismatch: argument contents after the call (0-d array): argument 3: array(1.) expected, got array(-1.) (sec...',
        397: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        399: 'mismatch: argument contents after the call (0-d array): argument 3: array(0.5) expected, got array(2.)',
    },
    'numba': {
        3: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        4: 'mismatch: exception type: Python AssertionError, numba TypeError: TypeError: %d format: a real number is re...',
        5: 'mismatch: numba raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        8: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        9: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        11: 'mismatch: numba raised ValueError (user code), Python returned: ValueError: bad value 4',
        12: 'mismatch: numba raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        20: 'mismatch: numba raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        22: 'mismatch: numba raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        24: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        26: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        27: 'mismatch: numba raised TypeError (user code), Python returned: TypeError: %d format: a real number is requi...',
        28: 'misleading refusal: TypeError: the truth value of a symbolic tensor is not known while tracing (bool() of b...',
        30: 'mismatch: numba raised TypeError (user code), Python returned: TypeError: expected a sequence of integers o...',
        31: 'refusal: TypeError: cannot use a list value ([<rt.Tensor i64[]>]) as a tensor in a graph',
        32: 'misleading refusal: TypeError: a symbolic tensor (f64[]) cannot be converted to a NumPy array while tracing...',
        34: 'mismatch: argument contents after the call (0-d array): argument 2: array(1.5) expected, got array(-1.5)',
        36: 'mismatch: numba raised ValueError (user code), Python returned: ValueError: bad value 0',
    },
}


def _seeds(target):
    failing = XFAIL[target]
    return [pytest.param(seed, id="seed%d" % seed,
                         marks=[pytest.mark.xfail(strict=True, reason=failing[seed])] if seed in failing else [])
            for seed in SEEDS[target]]


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    """The programs' files, and compile caches out of the user's cache."""
    directory = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRAPH_CACHE_DIR", str(directory / "cache"))
        yield str(directory)


def _check(seed, target, directory):
    program = generator.generate(seed)
    verdict = compare.check_source(program.source, target, directory, "fuzz_%s_%d" % (target, seed))
    assert compare.acceptable(verdict), "%s\n%s" % (verdict.describe(), program.source)


@pytest.mark.parametrize("seed", _seeds("to_graph"))
def test_to_graph(seed, fuzz_dir):
    _check(seed, "to_graph", fuzz_dir)


@pytest.mark.parametrize("seed", _seeds("numpy"))
def test_numpy(seed, fuzz_dir):
    _check(seed, "numpy", fuzz_dir)


@pytest.mark.parametrize("seed", _seeds("numba"))
def test_numba(seed, fuzz_dir):
    _check(seed, "numba", fuzz_dir)


# -- the fuzzer itself ----------------------------------------------------------------------------

def test_same_seed_same_program():
    assert generator.generate(7).source == generator.generate(7).source
    assert generator.generate(7).source != generator.generate(8).source


def test_focus_puts_the_construct_in_every_program():
    for seed in range(20):
        program = generator.generate(seed, focus=("chained_compare",))
        assert "chained_compare" in program.constructs


def test_a_weight_of_zero_switches_a_construct_off():
    for seed in range(50):
        assert "print(" not in generator.generate(seed, weights={"print": 0}).source


def test_plain_python_runs_every_program_or_raises_an_expected_error(tmp_path):
    # Programs are valid: Python raises only what constructs raise on purpose (failed
    # asserts, raise statements, reads of empty arrays and lists, names a loop or branch
    # left unbound, reductions of empty arrays).
    expected = (AssertionError, ValueError, RuntimeError, IndexError, UnboundLocalError)
    for seed in range(300):
        module = compare.load(generator.generate(seed).source, str(tmp_path / "p.py"), "fuzz_python_check")
        try:
            for args in module.ARGS:
                outcome = compare.call(module.f, args)
                assert outcome.error is None or isinstance(outcome.error, expected), (seed, outcome.error)
        finally:
            compare.unload("fuzz_python_check")


def test_results_keep_their_kind():
    # A Python bool must stay a bool (issue 15, cause 7); an int may come back as int64.
    assert compare.difference_of((True, 1), (np.int64(1), np.int64(1)), False, "result")
    assert compare.difference_of((True, 1), (np.True_, np.int64(1)), False, "result") is None
    assert compare.difference_of(0, np.float64(0.0), False, "result")
    assert compare.difference_of(np.float64(1.0), 1.0, False, "result")  # a NumPy value stays one
    assert compare.difference_of(np.arange(3.0), np.arange(3), False, "result")
    assert compare.difference_of([1.0], (1.0,), False, "result")
    # to_graph promises the same Python types.
    assert compare.difference_of(1, np.int64(1), True, "result")


def test_printed_numbers_compare_as_values_of_the_same_kind():
    assert compare.printed_difference("s 0.30000000000000004\n", "s 0.3\n", False) is None
    assert compare.printed_difference("n 1\n", "n 1.0\n", False)
    assert compare.printed_difference("b True\n", "b 1\n", False)
    assert compare.printed_difference("a\nb\n", "a\n", False)


def test_errors_are_classified_by_who_raised_them():
    import runtime as rt

    def user_line():
        return "%d" % "not a number"

    user = compare.call(user_line, ()).error
    assert compare.classify_error(user, None, "numpy").kind.endswith("(user code), Python returned")
    # A deliberate TypeError of the runtime telling the user to use ag.function.
    refused = compare.call(rt.function(lambda x: 1.0 if x > 0 else 0.0, backend="numpy"), (np.float64(1.0),))
    assert compare.classify_error(refused.error, None, "numpy").cls == "misleading refusal"
    # Python's own TypeError inside the runtime (it calls None): not a refusal, a crash.
    crashed = compare.call(rt.cond, (rt.constant(True), None, None)).error
    assert isinstance(crashed, TypeError)
    assert compare.classify_error(crashed, None, "numpy").cls == "internal error"


def test_the_minimiser_keeps_the_failure_and_loop_bounds():
    source = generator.generate(3).source
    assert "np.concatenate" in source

    def fails(text):
        return "np.concatenate" in text and "ARGS" in text

    small = minimise(source, fails, max_checks=400)
    assert fails(small) and small.count("\n") < source.count("\n")
    # A while loop keeps the counter that bounds it.
    looping = "def f(x):\n    c = 0\n    while c < 3:\n        c += 1\n        x = x + 1.0\n    return x\n\nARGS = [(1.0,)]\n"
    small = minimise(looping, lambda text: "while" in text)
    assert "c += 1" in small and "c < 3" in small
    looping = looping.replace("while c < 3:", "while True:").replace("c += 1", "c += 1\n        if c > 3:\n            break")
    small = minimise(looping, lambda text: "while" in text)
    assert "c += 1" in small and "if c > 3:\n            break" in small
