"""Errors point at the user's code: rewritten messages and tracebacks, kept error types,
graph-run failures naming the op and the user line, and the common mistakes' messages."""

import inspect
import math
import os
import traceback

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph.errors import tracebacks

THIS_FILE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(THIS_FILE)))
PACKAGE_DIRS = tuple(os.path.join(ROOT, d) + os.sep for d in ("autograph", "runtime"))


def line_of(fn, text):
    """The file line number of the first line of fn's source that contains `text`."""
    lines, start = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return start + offset
    raise AssertionError("%r not in the source of %s" % (text, fn.__name__))


def located(fn, text):
    """How a rewritten message names a user line: the traceback-style 'File' entry."""
    return 'File "%s", line %d, in %s' % (THIS_FILE, line_of(fn, text), fn.__name__)


def raised(fn, *args):
    """The exception fn(*args) raises, as a user of an entry point sees it (rewritten)."""
    with pytest.raises(Exception) as info:
        with tracebacks.rewriting_errors():
            fn(*args)
    return info.value


def frames_of(error):
    return traceback.extract_tb(error.__traceback__)


@pytest.fixture(autouse=True)
def location_mapper():
    previous = tracebacks.install_location_mapper()
    yield
    if previous is not tracebacks.location_mapper:
        rt.errors.set_location_mapper(previous)


# --- user code used below --------------------------------------------------------------------


def check_positive(v):
    if v < 0:
        raise ValueError("negative value: %s" % v)
    return v


def sum_checked(values):
    total = 0.0
    for v in values:
        total = total + check_positive(v)
    return total


def lookup_all(table):
    found = []
    for key in ("a", "b"):
        found.append(table[key])
    return found


class TwoArgumentError(Exception):
    def __init__(self, code, detail):
        super().__init__(code, detail)
        self.code = code


def raises_two_argument_error(x):
    if x > 0:
        raise TwoArgumentError(7, "detail")
    return x


# --- rewriting: messages, types, tracebacks --------------------------------------------------


def test_value_error_keeps_its_type_and_names_the_user_line():
    error = raised(ag.to_graph(sum_checked), [1.0, -2.0])
    assert type(error) is ValueError
    message = str(error)
    assert message.startswith("negative value: -2.0\n")
    assert "in user code (converted by autograph):" in message
    assert located(sum_checked, "total = total + check_positive(v)") in message
    assert located(check_positive, 'raise ValueError("negative value') in message
    assert 'raise ValueError("negative value: %s" % v)' in message  # the source line


def test_traceback_shows_user_frames_only():
    error = raised(ag.to_graph(sum_checked), [1.0, -2.0])
    frames = frames_of(error)
    last = frames[-1]
    assert (last.filename, last.lineno, last.name) == (
        THIS_FILE, line_of(check_positive, "raise ValueError"), "check_positive")
    # The loop body is generated code: it shows as the user's function at the user's line.
    names = [(f.name, f.lineno) for f in frames if f.filename == THIS_FILE]
    assert ("sum_checked", line_of(sum_checked, "total = total +")) in names
    for frame in frames:
        assert "__autograph_generated_" not in frame.filename
        assert not frame.filename.startswith(PACKAGE_DIRS), frame


def test_rewritten_frames_keep_the_user_variables_for_post_mortem():
    error = raised(ag.to_graph(sum_checked), [1.0, -2.0])
    tb = error.__traceback__
    user_frames = []
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "sum_checked":
            user_frames.append(tb.tb_frame)
        tb = tb.tb_next
    assert any(frame.f_locals.get("v") == -2.0 for frame in user_frames)


def test_key_error_stays_a_key_error_with_a_readable_message():
    error = raised(ag.to_graph(lookup_all), {"a": 1})
    assert isinstance(error, KeyError)
    assert str(error).startswith("'b'\n")
    assert located(lookup_all, "found.append(table[key])") in str(error)


def test_an_unrebuildable_error_keeps_its_type_with_the_user_frames_as_a_note():
    error = raised(ag.to_graph(raises_two_argument_error), 1)
    assert type(error) is TwoArgumentError
    assert error.code == 7 and error.args == (7, "detail")
    assert located(raises_two_argument_error, "raise TwoArgumentError") in \
        "\n".join(error.__notes__)


def test_errors_outside_converted_code_keep_their_message():
    def plain(x):
        raise ValueError("plain message")

    error = raised(plain, 1)
    assert type(error) is ValueError and str(error) == "plain message"


def test_nested_entry_points_rewrite_once():
    converted = ag.to_graph(sum_checked)

    def outer():
        with tracebacks.rewriting_errors():
            return converted([-1.0])

    error = raised(outer)
    assert str(error).count("in user code (converted by autograph)") == 1
    assert error.ag_error_metadata.original_message == "negative value: -1.0"
    assert error.ag_error_metadata.innermost.function_name == "check_positive"


def test_generated_files_are_mapped_when_code_is_not_remapped(monkeypatch):
    from autograph.impl import conversion
    monkeypatch.setattr(conversion, "MAP_LOCATIONS_TO_SOURCE", False)

    def halve_all(values):
        out = []
        for v in values:
            if v % 2:
                raise ValueError("odd value %d" % v)
            out.append(v // 2)
        return out

    converted = ag.to_graph(halve_all)
    assert "__autograph_generated_" in converted.__code__.co_filename
    error = raised(converted, [2, 3])
    assert located(halve_all, 'raise ValueError("odd value') in str(error)
    last = frames_of(error)[-1]
    assert (last.filename, last.name) == (THIS_FILE, "halve_all")
    assert last.line == 'raise ValueError("odd value %d" % v)'


def test_framework_frames_are_kept_with_full_traceback(monkeypatch):
    def spectrum_of(x):
        return np.fft.fft(x)

    error = raised(ag.function(spectrum_of, backend="numpy"), np.ones(3))
    assert not any(f.filename.startswith(PACKAGE_DIRS) for f in frames_of(error))
    monkeypatch.setenv(tracebacks.TRACEBACK_ENV, "full")
    error = raised(ag.function(spectrum_of, backend="numpy"), np.ones(3))
    assert any(f.filename.startswith(PACKAGE_DIRS) for f in frames_of(error))
    assert located(spectrum_of, "return np.fft.fft(x)") in str(error)


# --- graph runs: which op failed, and the user's line ----------------------------------------


def assert_in_graph_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        assert x[i] > 0, "values must be positive"
        total = total + x[i]
    return total


def reads_out_of_range(x):
    y = x * 2.0
    return y[7]


def test_graph_assert_names_the_op_and_the_user_line():
    f = ag.function(assert_in_graph_loop, backend="numpy")
    error = raised(f, np.array([1.0, -1.0, 2.0]))
    assert isinstance(error, rt.errors.InvalidArgumentError)
    message = str(error)
    assert "values must be positive" in message
    assert "While executing raise AssertionFailedError" in message
    assert "%s:%d in assert_in_graph_loop" % (
        THIS_FILE, line_of(assert_in_graph_loop, "assert x[i] > 0")) in message


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_out_of_range_read_names_the_op_and_line(backend):
    f = ag.function(reads_out_of_range, backend=backend)
    error = raised(f, np.arange(3.0))
    assert isinstance(error, IndexError)
    assert isinstance(error, rt.errors.InvalidArgumentError)
    assert "While executing" in str(error) and "get_item" in str(error)
    assert "%s:%d in reads_out_of_range" % (THIS_FILE, line_of(reads_out_of_range, "y[7]")) in (
        str(error))
    assert not any(f.filename.startswith(PACKAGE_DIRS) for f in frames_of(error))


def test_location_mapper_names_the_user_function_of_a_loop_body():
    converted = ag.to_graph(sum_checked)
    converted([1.0])
    body_line = line_of(sum_checked, "total = total + check_positive(v)")
    assert tracebacks.location_mapper(THIS_FILE, body_line, "loop_body") == (
        THIS_FILE, body_line, "sum_checked")
    assert tracebacks.location_mapper(THIS_FILE, body_line, "sum_checked") is None
    assert tracebacks.location_mapper("/elsewhere.py", 3, "g") is None


# --- the common mistakes ---------------------------------------------------------------------


def defined_in_one_branch(x):
    if x[0] > 0:
        scaled = x * 2.0
    return scaled


def loop_variable_changes_type(x):
    acc = 0
    for i in range(x.shape[0]):
        acc = [acc]
    return acc


def list_item_written_in_graph_loop(x):
    items = []
    for i in range(x.shape[0]):
        items.append(x[i])
        items[0] = 1.0
    return items


def list_inserted_in_graph_loop(x):
    items = [1.0]
    for i in range(x.shape[0]):
        items.insert(0, x[i])
    return items


class Counter:
    def __init__(self):
        self.total = 0.0

    def add(self, value):
        self.total += value


def method_mutates_in_graph_loop(x):
    counter = Counter()
    for i in range(x.shape[0]):
        counter.add(x[i])
    return counter.total


@ag.do_not_convert
def plain_sign(x):
    if x[0] > 0:
        return x
    return -x


def calls_unconverted_helper(x):
    return plain_sign(x)


def python_if_on_tensor(x):
    if x[0] > 0:
        return x
    return -x


_namespace = {}
exec("def sourceless(x):\n    if x[0] > 0:\n        return x\n    return -x\n", _namespace)
sourceless = _namespace["sourceless"]


def calls_sourceless(x):
    return sourceless(x)


def uses_fft(x):
    return np.fft.fft(x)


def test_variable_defined_in_one_branch():
    # Defined on the path taken: Python's value; not defined: Python's error, when the
    # graph runs, naming the variable and the if statement.
    staged = ag.function(defined_in_one_branch, backend="numpy")
    np.testing.assert_array_equal(staged(np.ones(3)), np.full(3, 2.0))
    error = raised(staged, -np.ones(3))
    message = str(error)
    assert isinstance(error, UnboundLocalError)
    assert "'scaled'" in message and "if branch only" in message
    assert "%s:%d" % (THIS_FILE, line_of(defined_in_one_branch, "if x[0] > 0")) in message


def test_loop_variable_whose_type_changes():
    error = raised(ag.function(loop_variable_changes_type, backend="numpy"), np.ones(3))
    message = str(error)
    assert "'acc'" in message and "int" in message and "list" in message
    assert "%s:%d" % (THIS_FILE, line_of(loop_variable_changes_type, "for i in")) in message


def test_list_item_assignment_in_graph_loop_is_supported():
    # Once a mistake (TensorFlow needs a TensorArray by hand); now it matches Python.
    f = ag.function(list_item_written_in_graph_loop, backend="numpy")
    assert [float(v) for v in f(np.full(3, 5.0))] == [1.0, 5.0, 5.0]


def test_list_insert_in_graph_loop():
    error = raised(ag.function(list_inserted_in_graph_loop, backend="numpy"), np.ones(3))
    assert isinstance(error, TypeError)
    message = str(error)
    assert message.startswith("items.insert(...) is not supported on a list built in a graph "
                              "loop")
    assert "supports append, pop" in message  # what to use instead
    assert located(list_inserted_in_graph_loop, "items.insert(0, x[i])") in message


def test_attribute_mutated_in_a_called_method_in_graph_loop_is_supported():
    # Once a mistake (TensorFlow raises InaccessibleTensorError); now it matches Python.
    x = np.array([1.0, 2.5, 4.0])
    f = ag.function(method_mutates_in_graph_loop, backend="numpy")
    assert f(x) == method_mutates_in_graph_loop(x) == 7.5
    assert f(np.arange(5.0)) == 10.0  # same trace, a graph loop over a new length
    assert f.trace_count == 1


def test_symbolic_bool_in_an_unconverted_helper():
    error = raised(ag.function(calls_unconverted_helper, backend="numpy"), np.ones(3))
    assert isinstance(error, TypeError)
    message = str(error)
    assert "truth value of a symbolic tensor" in message
    # What happened, and what to do: the helper is not converted, not the ag.function.
    assert "an `if` statement needs it at %s:%d in plain_sign" % (
        THIS_FILE, line_of(plain_sign, "if x[0] > 0")) in message
    assert "plain_sign runs as Python (not converted: marked ag.do_not_convert)" in message
    assert "remove ag.do_not_convert" in message and "rt.cond" in message
    assert "decorate" not in message and "stage the function with ag.function" not in message
    assert located(calls_unconverted_helper, "return plain_sign(x)") in message
    assert located(plain_sign, "if x[0] > 0") + "  (not converted: marked ag.do_not_convert)" \
        in message


def test_symbolic_bool_without_conversion():
    error = raised(ag.function(python_if_on_tensor, backend="numpy", autograph=False),
                   np.ones(3))
    assert isinstance(error, TypeError)
    assert "ag.function(autograph=False) runs Python as it is written" in str(error)
    assert "rt.cond" in str(error) and "leave out autograph=False" in str(error)
    last = frames_of(error)[-1]
    assert (last.filename, last.lineno) == (THIS_FILE, line_of(python_if_on_tensor, "if x[0]"))


def halved_while_large(x):
    while sum([v for v in x]) > 1.0:   # (a comprehension in a while test stays as written)
        x = x / 2
    return x


def sum_of_generated(x):
    def rows():
        for i in range(x.shape[0]):
            yield x[i]
    return sum(rows())


def first_as_python_float(x):
    return x[0].item() + 1.0


def python_if_in_a_library_call(x):
    return sorted([x[0], x[1]])


def _identity(v):
    return v


def root_of_a_call(x):
    return x[0] + math.gamma(_identity(x[1]))   # (a math function graphs do not compute)


def weighted_total(x):
    # (A generator expression over a Python range runs as Python, lazily: its inner loop
    # cannot be over a tensor.)
    return sum(x[j] * i for i in range(2) for j in range(x.shape[0]))


@pytest.mark.parametrize("fn, construct, where, advice", [
    (halved_while_large, "a comprehension or generator expression", "while sum(",
     "in the test of a while loop or in a default value): write the loop out as a for "
     "statement"),
    (sum_of_generated, "the call `range(...)`", "for i in range(x.shape[0])",
     "rows is a generator, which autograph does not convert"),
    (first_as_python_float, "Python", "x[0].item()",
     "first_as_python_float is converted by autograph, but a tensor's value is known only "
     "when the graph runs; keep it a tensor"),
    (root_of_a_call, "the call `math.gamma(...)`", "math.gamma(",
     "root_of_a_call is converted by autograph, but `math.gamma(...)` runs as Python"),
    (weighted_total, "a comprehension or generator expression", "return sum(",
     "make it a list comprehension (sum([...])), which autograph converts"),
    (python_if_in_a_library_call, "the call `sorted(...)`", "sorted(",
     "python_if_in_a_library_call is converted by autograph, but `sorted(...)` runs as "
     "Python, which needs the value while tracing: compute it with tensor operations"),
])
def test_refusals_in_converted_code_say_what_happened_and_never_to_decorate(
        fn, construct, where, advice):
    error = raised(ag.function(fn, backend="numpy"), np.ones(3))
    assert isinstance(error, TypeError)
    message = str(error)
    assert "%s needs it at %s:%d in " % (construct, THIS_FILE, line_of(fn, where)) in message
    assert advice in message
    assert "decorate" not in message and "stage the function with ag.function" not in message


def test_a_refusal_under_rt_function_suggests_ag_function():
    with pytest.raises(TypeError) as info:
        rt.function(python_if_on_tensor)(np.ones(3))
    message = str(info.value)
    assert "an `if` statement needs it at %s:%d in python_if_on_tensor (`if x[0] > 0:`)" % (
        THIS_FILE, line_of(python_if_on_tensor, "if x[0]")) in message
    assert "rt.function runs Python as it is written" in message
    assert "stage the function with ag.function" in message


def test_converting_a_function_without_source():
    with pytest.raises(ag.ConversionError) as info:
        ag.to_graph(sourceless)
    message = str(info.value)
    assert "sourceless" in message and "<string>" in message
    assert "define the function in a file" in message


def test_calling_a_function_without_source_from_a_graph():
    error = raised(ag.function(calls_sourceless, backend="numpy"), np.ones(3))
    message = str(error)
    assert located(calls_sourceless, "return sourceless(x)") in message
    assert 'File "<string>", line 2, in sourceless  (not converted: its source cannot be ' \
           'found' in message


def test_numpy_function_without_graph_op():
    error = raised(ag.function(uses_fft, backend="numpy"), np.ones(3))
    assert isinstance(error, TypeError)
    message = str(error)
    assert "np.fft.fft is not supported in graphs yet" in message
    assert located(uses_fft, "return np.fft.fft(x)") in message


# --- wiring: what users get without calling the tracebacks module themselves -----------------------


def test_ag_function_rewrites_errors_by_itself():
    with pytest.raises(TypeError) as info:
        ag.function(uses_fft, backend="numpy")(np.ones(3))
    assert located(uses_fft, "return np.fft.fft(x)") in str(info.value)


def test_importing_autograph_installs_the_location_mapper():
    import subprocess
    import sys
    code = ("import autograph, runtime\n"
            "from autograph.errors import tracebacks as e\n"
            "assert runtime.errors.get_location_mapper() is e.location_mapper\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr


def test_a_refusal_under_rt_function_names_the_call_among_several_on_the_line():
    with pytest.raises(TypeError) as info:
        rt.function(root_of_a_call)(np.ones(3))
    assert "the call `math.gamma(...)` needs it" in str(info.value)
