"""Runtime error types, and the user-source locations that graph nodes carry for error messages."""

import ast
import dis
import io
import linecache
import os
import sys
import threading
import tokenize

import numpy as np


class InvalidArgumentError(Exception):
    """A graph hit a runtime failure (failed assertion, impossible loop, out-of-range read, ...)."""

    def __init__(self, message="", *args):
        super().__init__(message, *args)
        self.message = message

    def __str__(self):
        return str(self.message)


class NotDifferentiableError(TypeError):
    """A gradient was asked for through something that has none: an op without a derivative
    rule, an integer input, a random draw that a backward loop would recompute
    (runtime/autodiff.py)."""


class AssertionFailedError(InvalidArgumentError, AssertionError):
    """A failed `assert` statement in a graph: both an InvalidArgumentError, as every
    failure of a running graph, and the AssertionError Python raises."""


class OutOfRangeError(InvalidArgumentError, IndexError):
    """An out-of-range read in a graph: both an InvalidArgumentError and an IndexError,
    so user code that catches IndexError keeps working."""


class UndefinedVariableError(InvalidArgumentError, UnboundLocalError):
    """A graph used a variable that the path it took did not define (a loop that had to
    iterate to define it did not): both an InvalidArgumentError and the UnboundLocalError
    Python raises there."""


class UndefinedAttributeError(InvalidArgumentError, AttributeError):
    """The same for an attribute of a Python object (`obj.last` set in a loop)."""


class UndefinedKeyError(InvalidArgumentError, KeyError):
    """The same for an item of a Python dict (`d["last"]` set in a loop)."""

    def __str__(self):
        return str(self.message)


# --- where nodes come from -------------------------------------------------------------------

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_AUTOGRAPH_DIR = os.path.join(os.path.dirname(_RUNTIME_DIR.rstrip(os.sep)), "autograph") + os.sep
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__)) + os.sep
_SKIPPED_PREFIXES = (_RUNTIME_DIR, _AUTOGRAPH_DIR, _NUMPY_DIR)

_location_mapper = None


def set_location_mapper(mapper):
    """Install a process-wide hook mapping raw frames to user locations.

    ``mapper(filename, lineno, function_name)`` returns a ``(filename, lineno,
    function_name)`` triple, or None to keep the raw frame. The autograph layer uses it
    to map frames of generated files back to the original source lines. Pass None to
    remove the hook. Returns the previous mapper.
    """
    global _location_mapper
    previous = _location_mapper
    _location_mapper = mapper
    return previous


def get_location_mapper():
    return _location_mapper


def user_stacklevel():
    """The `stacklevel` of warnings.warn, called by its caller, that names the first frame
    outside the framework (the user's call)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _is_internal(filename):
    if filename.startswith(_SKIPPED_PREFIXES):
        return True
    # An installed autograph package elsewhere on sys.path is framework code too.
    autograph = sys.modules.get("autograph")
    ag_file = getattr(autograph, "__file__", None)
    if ag_file:
        ag_dir = os.path.dirname(os.path.abspath(ag_file)) + os.sep
        if filename.startswith(ag_dir):
            return True
    return filename.startswith("<frozen ")


_LIBRARY_PREFIXES = (_NUMPY_DIR, os.path.dirname(os.path.abspath(os.__file__)) + os.sep)


def mark_python_error(error):
    """Marks `error` as Python's or NumPy's own, though the runtime or autograph raised it
    on the user's behalf (NumPy's TypeError from an op's inference rule, which runs NumPy
    on stand-ins: the error NumPy raises when it runs that code; a failed `assert`): see
    raised_by_python. Returns `error`."""
    error._rt_python_error = True
    return error


def raised_by_python(error):
    """Did Python or NumPy raise `error` on the user's code, rather than the runtime or
    autograph refusing something? True when it is marked so (mark_python_error), or when
    the innermost frame of its traceback outside NumPy and the standard library is the
    user's code (or code converted from it) and the error it was raised from, if any, is
    Python's too (NumPy's "setting an array element with a sequence" comes from the
    refusal of float() of a symbolic value)."""
    if getattr(error, "_rt_python_error", False):
        return True
    raiser = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(_LIBRARY_PREFIXES) and not filename.startswith("<frozen "):
            raiser = filename
        tb = tb.tb_next
    if raiser is None or _is_internal(raiser):
        return False
    linked = error.__cause__ if error.__cause__ is not None or error.__suppress_context__ \
        else error.__context__
    return linked is None or linked is error or raised_by_python(linked)


def capture_location():
    """The raw (filename, lineno, function_name) of the first frame outside the framework."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not _is_internal(code.co_filename):
            return (code.co_filename, frame.f_lineno, code.co_name)
        frame = frame.f_back
    return None


def traceback_location(tb):
    """The raw (filename, lineno, function_name) of the innermost frame of traceback `tb`
    in the user's code (outside the framework, NumPy and the standard library), or None:
    where the user's code called what raised."""
    location = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if not _is_internal(code.co_filename) and not code.co_filename.startswith(
                _LIBRARY_PREFIXES):
            location = (code.co_filename, tb.tb_lineno, code.co_name)
        tb = tb.tb_next
    return location


def map_location(location):
    """Apply the location mapper (if any) to a raw location."""
    if location is None or _location_mapper is None:
        return location
    try:
        mapped = _location_mapper(*location)
    except Exception:  # a broken mapper must not hide the user's real error
        mapped = None
    return tuple(mapped) if mapped else location


def format_location(location):
    """`file:line in function` (mapped to the user's line), or `Cell In[5], line 4 in
    function` for the code of an IPython or Jupyter cell, as IPython names it."""
    location = map_location(location)
    if location is None:
        return "<unknown location>"
    filename, lineno, function_name = location
    cell = cell_name(filename)
    if cell is not None:
        return "%s, line %s in %s" % (cell, lineno, function_name)
    return "%s:%s in %s" % (filename, lineno, function_name)


def cell_name(filename):
    """What IPython calls the code it compiled under `filename` in its own tracebacks
    ("Cell In[5]"), or None when it is not the code of a cell.

    IPython (and ipykernel, whose files look like /tmp/ipykernel_123/456.py) compiles each
    cell under a made-up file name, registers the cell's lines in linecache under that
    name, and remembers its execution count: `get_ipython().compile.format_code_name(name)`
    gives the label and name its tracebacks show. IPython is not imported here: a process
    that never imported it ran no cells."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    if get_ipython is None or filename not in linecache.cache:
        return None
    try:
        named = get_ipython().compile.format_code_name(filename)
    except Exception:   # no shell running, an IPython without format_code_name
        return None
    return "%s %s" % tuple(named) if named else None


# --- refusals: a symbolic tensor where Python needs a concrete value ---------------------------

_front_end = threading.local()


class converted_code:
    """Context manager a front end enters while it traces code it converted (autograph's
    ag.function does), so that refusals say what the user runs: `advise(frame, construct)`
    gives what to do at the user's `frame`, where `construct` (see python_construct, or
    None) needed a concrete value of a symbolic tensor; None leaves the runtime's advice."""

    __slots__ = ("advise", "locate")

    def __init__(self, advise, locate=None):
        self.advise = advise
        # locate(frame): the source text of the expression the frame's current instruction
        # evaluates, for code objects without column positions (converted code), or None.
        self.locate = locate

    def __enter__(self):
        stack = getattr(_front_end, "stack", None)
        if stack is None:
            stack = _front_end.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _front_end.stack.pop()
        return False


def _user_frame():
    """The innermost frame outside the framework (the user's code, or a library's)."""
    frame = sys._getframe(2)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
_COMPREHENSION_NODES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_STATEMENTS = {ast.If: "an `if` statement", ast.While: "a `while` loop",
               ast.Assert: "an `assert`", ast.Match: "a `match` statement",
               ast.For: "a `for` loop"}


def _statement_at(source_line):
    """The statement a source line starts, parsed on its own (None if it is not whole)."""
    text = _without_comment(source_line.strip())
    if text.startswith("elif "):
        text = text[2:]
    if text.endswith(":"):
        text += " pass"
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return None
    return body[0] if len(body) == 1 else None


def _without_comment(text):
    """`text` (one line of code) without a comment ending it (a block's header then ends
    with its colon)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    comments = [t for t in tokens if t.type == tokenize.COMMENT]
    return text[:comments[0].start[1]].rstrip() if comments else text


def _instruction(frame):
    for instruction in dis.get_instructions(frame.f_code):
        if instruction.offset == frame.f_lasti:
            return instruction.opname
    return ""


def _expression_at(frame):
    """The source text of the expression `frame`'s current instruction evaluates, from the
    column positions of its code (None without them, or when it spans lines)."""
    try:
        line, end_line, column, end_column = list(frame.f_code.co_positions())[
            frame.f_lasti // 2]
    except (IndexError, ValueError):
        return None
    if line is None or line != end_line or column is None or end_column is None:
        return None
    return linecache.getline(frame.f_code.co_filename, line)[column:end_column] or None


def python_construct(frame, source_line, expression=None):
    """A few words naming the Python construct that runs `frame`'s current instruction (the
    one that asked a symbolic tensor for a concrete value), or None if unknown.
    `expression`: the source of the expression that instruction evaluates, if known."""
    if frame.f_code.co_name in _COMPREHENSIONS:
        return "a comprehension or generator expression"
    statement = _statement_at(source_line) if source_line else None
    if statement is not None:
        for node in ast.walk(statement):
            if isinstance(node, ast.Compare) and len(node.ops) > 1:
                return "the chained comparison `%s`" % ast.unparse(node)
    opname = _instruction(frame)
    if opname == "GET_ITER" and statement is not None and any(
            isinstance(node, _COMPREHENSION_NODES) for node in ast.walk(statement)):
        return "a comprehension or generator expression"
    if "JUMP" in opname and "IF" in opname and "NONE" not in opname:
        if type(statement) in _STATEMENTS and type(statement) is not ast.For:
            return _STATEMENTS[type(statement)]
        return "a condition (`and`, `or`, `not`, `x if c else y` or an `if`)"
    if opname in ("GET_ITER", "FOR_ITER", "UNPACK_SEQUENCE", "UNPACK_EX"):
        return "a `for` loop or an unpacking"
    if opname == "FORMAT_VALUE":
        return "an f-string"
    if opname == "BINARY_OP" and "%" in (source_line or ""):
        return "`%` formatting"
    if opname in ("CALL", "PRECALL", "CALL_FUNCTION_EX"):
        try:
            called = ast.parse(expression, mode="eval").body if expression else None
        except SyntaxError:
            called = None
        if not isinstance(called, ast.Call):   # the one call of the line, if it has one
            calls = [node for node in ast.walk(statement) if isinstance(node, ast.Call)] \
                if statement is not None else []
            called = calls[0] if len(calls) == 1 else None
        if called is not None:
            return "the call `%s(...)`" % ast.unparse(called.func)
        return "a call"
    return None


def concrete_value_refusal(problem, rewrite=None, tracing=True):
    """The message of the TypeError raised where Python needs a concrete value of a symbolic
    tensor: `problem` (e.g. "the truth value of a symbolic tensor (f64[]) is not known while
    tracing"), then which Python construct needed it at the user's line, and what to do
    there: the front end's advice (see converted_code) if it has some, else the runtime's,
    then `rewrite` (a way out specific to the problem) if given. `tracing`: whether this
    thread is building a graph (if not, the tensor outlived its trace)."""
    frame = _user_frame()
    parts = [problem]
    construct = None
    if frame is not None:
        filename, lineno, name = map_location(
            (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        source_line = linecache.getline(filename, lineno).strip()
        stack = getattr(_front_end, "stack", None)
        locate = stack[-1].locate if stack else None
        expression = _expression_at(frame) or (locate(frame) if locate else None)
        construct = python_construct(frame, source_line, expression)
        parts.append(": %s needs it at %s" % (construct or "Python",
                                               format_location((filename, lineno, name))))
        if source_line:
            parts.append(" (`%s`)" % source_line)
    stack = getattr(_front_end, "stack", None)
    advice = stack[-1].advise(frame, construct) if stack and frame is not None else None
    if advice is None:
        if not tracing:
            advice = ("a symbolic tensor exists only while its function is traced: return it "
                      "from the staged function to get its value")
        else:
            advice = ("rt.function runs Python as it is written, so control flow on tensors "
                      "must be rt.cond / rt.while_loop; or stage the function with "
                      "ag.function, which converts Python control flow on tensors into "
                      "graph control flow")
    parts.append(". " + advice)
    if rewrite:
        parts.append("; " + rewrite)
    return "".join(parts)
