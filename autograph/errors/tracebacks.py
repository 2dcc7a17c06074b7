"""Errors from converted code and graph runs, rewritten to point at the user's source: the
message names the original file, line and function, and the traceback shows the user's frames.

How it works: the transpiler keeps, per generated file, a source map from generated lines to
the user's lines (pyct/origin_info.create_source_map). Converted code objects already run
under the user's file and lines (errors/code_lines.py); each traceback entry in converted
code is matched to the generated code it was rebuilt from, and so to its OriginInfo (the
user's line and function). An entry whose function is a generated helper (a loop body, a
branch) is replaced by a frame whose code object has the user's file, line and function
name (a real frame, made by running a one-line code object compiled with that file name and
line), so tracebacks, `traceback` and `pdb.post_mortem` show user code. Entries in generated
files (code not remapped) are replaced the same way. Frames of the autograph and runtime
packages are dropped (AUTOGRAPH_TRACEBACK=full keeps them). The exception keeps its type
(where its message cannot be extended, the user frames are a note on it).

Entry points (ag.function's __call__ and get_concrete_function) wrap their work in
`rewriting_errors()` (or call `rewrite`); importing this module installs `location_mapper`
as the runtime's hook, so graph-run failures name the user's function.
"""

import ast
import linecache
import os
import sys
import sysconfig
import threading
import types
from typing import NamedTuple

from autograph.errors import code_lines
from autograph.pyct import loader
from runtime import errors as runtime_errors

MARKER = "(converted by autograph)"
TRACEBACK_ENV = "AUTOGRAPH_TRACEBACK"

_PACKAGE_DIRS = ()
_lock = threading.Lock()
_source_maps = {}  # generated file name -> {generated line: OriginInfo}
_sorted_lines = {}  # generated file name -> sorted generated lines that have an origin
_user_functions = {}  # (user file, user line) -> name of the user function of that line
_discovered_size = -1


def _package_dirs():
    """The directories whose frames are framework internals (autograph and runtime)."""
    global _PACKAGE_DIRS
    if not _PACKAGE_DIRS:
        autograph_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        dirs = [autograph_dir + os.sep]
        runtime = sys.modules.get("runtime")
        runtime_file = getattr(runtime, "__file__", None)
        if runtime_file:
            dirs.append(os.path.dirname(os.path.abspath(runtime_file)) + os.sep)
        else:
            dirs.append(os.path.join(os.path.dirname(autograph_dir), "runtime") + os.sep)
        _PACKAGE_DIRS = tuple(dirs)
    return _PACKAGE_DIRS


# --- source maps -----------------------------------------------------------------------------


def register_source_map(source_map):
    """Records a {LineLocation: OriginInfo} map (as returned by the transpiler's transform)."""
    if not source_map:
        return
    with _lock:
        touched = set()
        for location, origin in source_map.items():
            _source_maps.setdefault(location.filename, {})[location.lineno] = origin
            _user_functions[(origin.loc.filename, origin.loc.lineno)] = origin.function_name
            touched.add(location.filename)
        for filename in touched:
            _sorted_lines[filename] = sorted(_source_maps[filename])


def is_generated_file(filename):
    """True for the files autograph generates (converted functions)."""
    return os.path.basename(filename or "").startswith(loader.MODULE_NAME_PREFIX)


def _discover_source_maps():
    """Registers the source maps the live transpiler holds (pyct's PyToPy.source_maps), so
    the conversion path does not have to register them itself."""
    global _discovered_size
    api = sys.modules.get("autograph.impl.api")
    transpiler = getattr(api, "_transpiler", None)
    source_maps = getattr(transpiler, "source_maps", None)
    if source_maps is None:
        return
    maps = source_maps()
    if len(maps) == _discovered_size:
        return
    _discovered_size = len(maps)
    for source_map in maps:
        if source_map:
            first = next(iter(source_map))
            if first.filename not in _source_maps:
                register_source_map(source_map)


def original_origin(filename, lineno):
    """The OriginInfo of a line of generated code, or None when it is not generated code.

    A generated line without an origin of its own (a `nonlocal`, a state getter's body)
    takes the origin of the closest line above it that has one.
    """
    if not is_generated_file(filename):
        return None
    if filename not in _source_maps:
        _discover_source_maps()
    lines = _sorted_lines.get(filename)
    if not lines:
        return None
    origins = _source_maps[filename]
    origin = origins.get(lineno)
    if origin is not None:
        return origin
    # Binary search for the last mapped line above `lineno`.
    low, high = 0, len(lines)
    while low < high:
        middle = (low + high) // 2
        if lines[middle] < lineno:
            low = middle + 1
        else:
            high = middle
    return origins[lines[low - 1]] if low else None


def location_mapper(filename, lineno, function_name):
    """The runtime hook (runtime.errors.set_location_mapper): maps a frame in generated code
    to the user's (filename, lineno, function_name); None for any other frame."""
    if not is_generated_file(filename):
        # Converted code already runs under the user's file and lines; only the function
        # name of a generated helper (a loop body, a branch) needs to become the user's.
        _discover_source_maps()
        user_function = _user_functions.get((filename, lineno))
        if user_function is None or user_function == function_name:
            return None
        return (filename, lineno, user_function)
    origin = original_origin(filename, lineno)
    if origin is None:
        return None
    return (origin.loc.filename, origin.loc.lineno, origin.function_name or function_name)


def install_location_mapper():
    """Makes graph nodes report the user's lines (idempotent). Returns the previous mapper."""
    previous = runtime_errors.get_location_mapper()
    if previous is not location_mapper:
        runtime_errors.set_location_mapper(location_mapper)
    return previous


class UserFrame(NamedTuple):
    """A frame of the user's code in a rewritten error: converted, or called from converted
    code without conversion (then `note` says why, when known)."""

    filename: str
    lineno: int
    function_name: str
    source_line: str
    converted: bool
    note: str = None

    @classmethod
    def from_origin(cls, origin):
        return cls(origin.loc.filename, origin.loc.lineno, origin.function_name,
                   origin.source_code_line, True)


# --- frames ----------------------------------------------------------------------------------


class _FrameMaker(Exception):
    """Raised by the one-line code objects that stand for user frames."""


_fake_codes = {}  # (filename, lineno, function name) -> code object


def _fake_code(filename, lineno, function_name):
    key = (filename, lineno, function_name)
    code = _fake_codes.get(key)
    if code is None:
        source = "\n" * (lineno - 1) + "raise __autograph_frame_maker__\n"
        code = compile(source, filename, "exec", dont_inherit=True)
        name = function_name or "<converted code>"
        code = code.replace(co_name=name, co_qualname=name)
        # Without column positions, tracebacks draw no `^^^` under the user's line (the
        # columns would be those of the `raise` above, not of the user's code).
        code = code_lines.remap(code, {lineno: lineno}, filename)
        _fake_codes[key] = code
    return code


def _user_frame(origin, real_frame):
    """A real frame object at the user's file and line (origin), for a traceback entry.

    Its namespace holds the generated frame's globals and locals, so `pdb.post_mortem`
    on the rewritten traceback can still print the user's variables.
    """
    code = _fake_code(origin.loc.filename, origin.loc.lineno, origin.function_name)
    namespace = dict(real_frame.f_globals) if real_frame is not None else {}
    if real_frame is not None:
        namespace.update(real_frame.f_locals)
    namespace["__file__"] = origin.loc.filename
    namespace["__autograph_frame_maker__"] = _FrameMaker
    try:
        exec(code, namespace)
    except _FrameMaker as made:
        entry = made.__traceback__.tb_next
        frame, lasti, lineno = entry.tb_frame, entry.tb_lasti, entry.tb_lineno
        made.__traceback__ = None
        return frame, lasti, lineno
    return None


# Code the runtime's executors generate in memory ("<rt-graph-0 f>", "<numba-call f>").
_RUNTIME_PSEUDO_FILES = ("<rt-", "<numba-")


def _is_internal(filename):
    return filename.startswith(_package_dirs()) or filename.startswith(_RUNTIME_PSEUDO_FILES)


def _keep_internal_frames():
    return os.environ.get(TRACEBACK_ENV, "").lower() == "full"


def _tb_entries(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


# Converted code objects carry the user's file and lines themselves (errors/code_lines.py
# remaps them); they are found by identity, and mapped back to the generated code object
# they were rebuilt from, whose line at the failing instruction gives the OriginInfo.
_converted_codes = {}  # id(code run) -> (code run, generated code, generated file)
_indexed_pairs = 0


def _index_pair(run_code, generated_code, generated_file):
    _converted_codes[id(run_code)] = (run_code, generated_code, generated_file)
    nested_run = [c for c in run_code.co_consts if isinstance(c, types.CodeType)]
    nested_generated = [c for c in generated_code.co_consts if isinstance(c, types.CodeType)]
    if len(nested_run) == len(nested_generated):
        for run, generated in zip(nested_run, nested_generated):
            _index_pair(run, generated, generated_file)


def _index_converted_codes():
    """Indexes the code objects conversion has rebuilt (autograph/impl/conversion.py)."""
    global _indexed_pairs
    conversion = sys.modules.get("autograph.impl.conversion")
    rebuilt = getattr(conversion, "_rebuilt_codes", None)
    if not isinstance(rebuilt, dict) or len(rebuilt) == _indexed_pairs:
        return
    with _lock:
        for generated_code, run_code in list(rebuilt.values()):
            if run_code is not generated_code and not is_generated_file(run_code.co_filename):
                _index_pair(run_code, generated_code, generated_code.co_filename)
        _indexed_pairs = len(rebuilt)


def _line_at(code, offset):
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return None


def frame_origin(code, lineno, lasti):
    """The OriginInfo of a traceback entry in converted code (None for any other code)."""
    if is_generated_file(code.co_filename):
        return original_origin(code.co_filename, lineno)
    entry = _converted_codes.get(id(code))
    if entry is None or entry[0] is not code:
        _index_converted_codes()
        entry = _converted_codes.get(id(code))
        if entry is None or entry[0] is not code:
            return None
    _, generated_code, generated_file = entry
    generated_line = _line_at(generated_code, lasti) if lasti >= 0 else None
    if generated_line is None:
        generated_line = generated_code.co_firstlineno
    return original_origin(generated_file, generated_line)


_LIBRARY_DIRS = None


def _is_library(filename):
    """True for the standard library and installed packages (NumPy, ...): not user code."""
    global _LIBRARY_DIRS
    if _LIBRARY_DIRS is None:
        paths = sysconfig.get_paths()
        _LIBRARY_DIRS = tuple(sorted({os.path.join(paths[key], "") for key in
                                      ("stdlib", "platstdlib", "purelib", "platlib")
                                      if paths.get(key)}))
    return filename.startswith(_LIBRARY_DIRS) or filename.startswith("<frozen ")


def _not_converted_note(code):
    """Why a user function called from converted code ran without conversion, if known."""
    if code.co_filename.startswith("<") and not linecache.getlines(code.co_filename):
        return ("not converted: its source cannot be found (defined in %s); define it in a "
                "file" % code.co_filename)
    api = sys.modules.get("autograph.impl.api")
    for function in list(getattr(api, "_do_not_convert", ())):
        if getattr(function, "__code__", None) is code:
            return "not converted: marked ag.do_not_convert"
    return "not converted"


# --- what to do where a symbolic tensor needed a concrete value -------------------------------

_GENERATOR_CODE = 0x20 | 0x80 | 0x100 | 0x200   # CO_GENERATOR, COROUTINE, ITERABLE_, ASYNC_GEN


def advise(frame, construct):
    """ag.function's advice for a refusal (runtime.errors.converted_code): what to do at the
    user's `frame`, where `construct` (or Python) needed a concrete value of a tensor."""
    code = frame.f_code
    comprehension = code.co_name in ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
    # (A comprehension's caller is the function it is in; a generator expression's is
    # whoever iterates over it: that it is converted code is told by its own code.)
    owner = frame.f_back if comprehension and frame.f_back is not None \
        and code.co_name != "<genexpr>" else frame
    converted = frame_origin(owner.f_code, owner.f_lineno, owner.f_lasti) is not None
    name = owner.f_code.co_name
    if converted and owner.f_code.co_flags & _GENERATOR_CODE and not comprehension:
        return ("%s is a generator, which autograph does not convert: its Python control flow "
                "runs while tracing and cannot depend on a tensor; loop in the function that "
                "consumes it instead (that loop is converted), or make %s return a list"
                % (name, name))
    if converted and (comprehension or construct and construct.startswith("a comprehension")):
        if code.co_name == "<genexpr>":
            return ("a generator expression whose first iterable is a Python one runs lazily "
                    "as Python (autograph makes a graph loop of one over a tensor only), so "
                    "its other loops cannot be over a tensor: make it a list comprehension "
                    "(sum([...])), which autograph converts, or write the loop out as a for "
                    "statement")
        return ("autograph leaves this comprehension as Python runs it (set and dict "
                "comprehensions, and list comprehensions with `:=`, inside a lambda, in the "
                "test of a while loop or in a default value): write the loop out as a for "
                "statement (a list it appends to becomes a tensor array in a graph loop), or "
                "move a list comprehension into a statement of its own")
    if converted and construct and construct.startswith("the chained comparison"):
        return ("autograph does not convert chained comparisons of tensors: write them out "
                "(`a < x and x < b`), which it converts")
    if converted and construct and construct.startswith(("the call", "a call")):
        called = construct[len("the call "):] if construct.startswith("the") else \
            "the function called"
        return ("%s is converted by autograph, but %s runs as Python, which needs the value "
                "while tracing: compute it with tensor operations instead (NumPy functions "
                "on tensors record graph ops)" % (name, called))
    if converted and construct:
        return ("%s is converted by autograph, which turns `if`, `while`, `for`, `and`/`or`/"
                "`not` and `x if c else y` on tensors into graph control flow, but not %s: "
                "compute the value with tensor operations (np.where, rt.cond), or use it in "
                "one of those statements" % (name, construct))
    if converted:
        return ("%s is converted by autograph, but a tensor's value is known only when the "
                "graph runs" % name)
    note = _not_converted_note(owner.f_code)
    if _is_library(owner.f_code.co_filename):
        note = "library code is not converted"
    return ("%s runs as Python (%s), so its Python control flow cannot depend on a tensor: "
            "%s, or use rt.cond / rt.while_loop there"
            % (name, note, _conversion_fix(note)))


def expression_at(frame):
    """The user's source of the expression a frame of converted code evaluates at its
    current instruction (runtime.errors.converted_code's `locate`): converted code objects
    have no columns, so they come from the generated code, with `ag__.converted(f)(...)`
    written as `f(...)` again. None when not known."""
    entry = _converted_codes.get(id(frame.f_code))
    if entry is None or entry[0] is not frame.f_code:
        _index_converted_codes()
        entry = _converted_codes.get(id(frame.f_code))
        if entry is None or entry[0] is not frame.f_code:
            return None
    _, generated_code, generated_file = entry
    try:
        line, end_line, column, end_column = list(generated_code.co_positions())[
            frame.f_lasti // 2]
        text = linecache.getline(generated_file, line)[column:end_column]
        tree = ast.parse(text, mode="eval")
    except (IndexError, TypeError, ValueError, SyntaxError):
        return None
    if line != end_line:
        return None
    return ast.unparse(_Unconverted().visit(tree).body)


class _Unconverted(ast.NodeTransformer):
    """`ag__.converted_1(f)(args)` -> `f(args)`: the call as the user wrote it."""

    def visit_Call(self, node):
        self.generic_visit(node)
        inner = node.func
        if (isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords
                and isinstance(inner.func, ast.Attribute)
                and isinstance(inner.func.value, ast.Name)
                and inner.func.value.id == "ag__" and inner.func.attr.startswith("converted")):
            node.func = inner.args[0]
        return node


def _conversion_fix(note):
    if "do_not_convert" in note:
        return "remove ag.do_not_convert to have it converted"
    if "source" in note:
        return "define it in a file to have it converted"
    if "library" in note:
        return "compute the value with tensor operations instead"
    return "call it from converted code to have it converted"


def advise_without_conversion(frame, construct):
    """The advice of ag.function(autograph=False), which traces Python as it is written."""
    return ("ag.function(autograph=False) runs Python as it is written, so control flow on "
            "tensors must be rt.cond / rt.while_loop; or leave out autograph=False to have "
            "Python control flow on tensors converted")


def rewrite_traceback(tb):
    """(new traceback, [UserFrame, outermost first]).

    Frames of converted code show the user's file, line and function (a generated helper
    such as a loop body shows as the user function it came from); autograph/runtime frames
    are dropped unless AUTOGRAPH_TRACEBACK=full; everything else is kept as it is. The
    UserFrames are the converted frames and, after the first of them, the frames of user
    functions that ran unconverted (not the standard library or installed packages).
    """
    keep_internal = _keep_internal_frames()
    entries = []  # (frame, lasti, lineno)
    frames = []
    for entry in _tb_entries(tb):
        code = entry.tb_frame.f_code
        filename = code.co_filename
        origin = frame_origin(code, entry.tb_lineno, entry.tb_lasti)
        if origin is not None:
            frames.append(UserFrame.from_origin(origin))
            if (code.co_filename == origin.loc.filename and entry.tb_lineno == origin.loc.lineno
                    and code.co_name == origin.function_name):
                entries.append((entry.tb_frame, entry.tb_lasti, entry.tb_lineno))
                continue
            made = _user_frame(origin, entry.tb_frame)
            if made is not None:
                entries.append(made)
                continue
        internal = _is_internal(filename)
        if frames and origin is None and not internal and not _is_library(filename):
            line = linecache.getline(filename, entry.tb_lineno).strip() or None
            frames.append(UserFrame(filename, entry.tb_lineno, code.co_name, line, False,
                                    _not_converted_note(code)))
        if internal and not keep_internal:
            continue
        entries.append((entry.tb_frame, entry.tb_lasti, entry.tb_lineno))
    new_tb = None
    for frame, lasti, lineno in reversed(entries):
        new_tb = types.TracebackType(new_tb, frame, lasti, lineno)
    return new_tb, frames


# --- exceptions ------------------------------------------------------------------------------


class ErrorMetadata:
    """What rewriting knew about an error: its original type, message, arguments and
    traceback, and the user frames (UserFrame, outermost first) it went through."""

    def __init__(self, error, frames):
        self.original_type = type(error)
        self.original_message = str(error)
        self.original_args = error.args
        self.original_traceback = error.__traceback__
        self.frames = frames

    @property
    def innermost(self):
        """The innermost UserFrame: the user line where the error happened."""
        return self.frames[-1] if self.frames else None


def format_user_frames(frames):
    """The 'in user code' block of a rewritten message, one traceback-style entry per frame."""
    lines = ["", "", "in user code %s:" % MARKER]
    for frame in frames:
        note = "" if frame.note is None else "  (%s)" % frame.note
        cell = runtime_errors.cell_name(frame.filename)   # as IPython's tracebacks name it
        where = 'File "%s"' % frame.filename if cell is None else cell
        lines.append("  %s, line %d, in %s%s" % (where, frame.lineno, frame.function_name,
                                                 note))
        if frame.source_line:
            lines.append("    " + frame.source_line.strip())
    return "\n".join(lines)


class _MultilineKeyError(KeyError):
    """KeyError whose str() is its message (KeyError's str() is the repr of its key).
    Named KeyError so tracebacks read "KeyError: ..."."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


_MultilineKeyError.__name__ = _MultilineKeyError.__qualname__ = "KeyError"
_MultilineKeyError.__module__ = "builtins"


def _with_message_in_place(error, message):
    """Gives `error` the message by replacing its args; False when its str() does not
    follow its args (a custom __str__, KeyError's repr), leaving it unchanged."""
    if type(error) is KeyError or len(error.args) > 1:
        return False  # several arguments: only the constructor knows what they mean
    saved_args = error.args
    saved_message = error.__dict__.get("message", _MISSING)
    try:
        error.args = (message,)
        if saved_message is not _MISSING:
            error.message = message  # rt.errors.InvalidArgumentError formats .message
        if str(error) == message:
            return True
    except Exception:
        pass
    error.args = saved_args
    if saved_message is not _MISSING:
        error.message = saved_message
    return False


_MISSING = object()


def _same_type_error(error, message):
    """A new exception of error's type with `message`, or None if the type cannot be rebuilt."""
    kind = type(error)
    try:
        new = _MultilineKeyError(message) if kind is KeyError else kind(message)
    except Exception:  # a constructor with other required arguments
        return None
    if kind is not KeyError and type(new) is not kind:
        return None
    try:
        for name, value in error.__dict__.items():
            if name not in new.__dict__:
                setattr(new, name, value)
        if str(new) != message:  # a __str__ that ignores args would lose the location
            return None
    except Exception:
        return None
    # The new error stands for the original: keep its chain, not the original itself.
    new.__cause__ = error.__cause__ if error.__cause__ is not None else error.__context__
    new.__suppress_context__ = True
    return new


def _filter_chain(error):
    """Drops framework frames from the tracebacks of the exceptions `error` was caused by."""
    seen = {id(error)}
    linked = error.__cause__ or error.__context__
    while linked is not None and id(linked) not in seen:
        seen.add(id(linked))
        new_tb, frames = rewrite_traceback(linked.__traceback__)
        if new_tb is not None or not frames:
            linked.__traceback__ = new_tb
        linked = linked.__cause__ or linked.__context__


def rewrite(error):
    """The exception to raise instead of `error` (raised from converted code or a graph run).

    When its traceback went through converted code: the message becomes the original one
    followed by the user frames ("in user code (converted by autograph): File ..., line
    ..., in ..."), and the traceback shows those user frames instead of generated ones.
    The type is kept: the same object with new args when its str() follows its args (most
    exceptions), else a new exception of the same type (KeyError), else the same object
    with the user frames as a note (PEP 678: shown after the message in tracebacks). Without converted code in the traceback, only framework frames are dropped.
    The result carries `ag_error_metadata` (ErrorMetadata) and is not rewritten twice.
    """
    if not isinstance(error, Exception) or getattr(error, "ag_error_metadata", None) is not None:
        return error  # KeyboardInterrupt, SystemExit, or already rewritten
    new_tb, frames = rewrite_traceback(error.__traceback__)
    if not _keep_internal_frames():
        _filter_chain(error)
    if not frames:
        if not _keep_internal_frames():
            error.__traceback__ = new_tb
        return error
    metadata = ErrorMetadata(error, frames)
    message = metadata.original_message + format_user_frames(frames)
    if _with_message_in_place(error, message):
        new = error
    else:
        new = _same_type_error(error, message)
        if new is None:
            # (A type whose constructor takes other arguments, NumPy's UFuncTypeError: the
            # error itself, its type kept for `except`, with the user frames as a note.)
            error.add_note(format_user_frames(frames).strip("\n"))
            new = error
    new.ag_error_metadata = metadata
    new.__traceback__ = new_tb
    return new


_state = threading.local()


class rewriting_errors:
    """Context manager around an entry point into converted code (an ag.function call, a
    trace, a convert() wrapper): an exception leaving it is rewritten by `rewrite`.

    Nested entries (an ag.function called while another traces) rewrite only once, at the
    outermost one, so the message lists every user frame.
    """

    __slots__ = ()

    def __enter__(self):
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, kind, error, tb):
        _state.depth -= 1
        if error is None or _state.depth > 0 or not isinstance(error, Exception):
            return False
        new = rewrite(error)
        if new is error:
            return False
        raise new


def call(fn, *args, **kwargs):
    """fn(*args, **kwargs) with errors rewritten (for call sites that are not a `with`)."""
    with rewriting_errors():
        return fn(*args, **kwargs)


# Graph nodes record where the user created them; with this hook their messages name the
# user's function rather than a generated loop or branch body. Installed on import: the
# autograph package imports this module when it loads (impl/function.py).
install_location_mapper()
