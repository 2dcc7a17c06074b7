"""What the graph paths share: the errors they raise, placeholder values for variables a
graph statement has yet to define, truth tests, and access to generated functions' state."""

import dis
import functools
import re
import sys
import types

import numpy as np

import runtime as rt
from autograph.errors import StagingError
from autograph.operators.special_values import MaybeUndefined, Undefined, UndefinedReturnValue


class UndefinedInBranchError(StagingError, UnboundLocalError):
    """A variable a graph `if` must output is defined in one branch only.

    An UnboundLocalError too: run as Python, the same code fails that way when it reads the
    variable on the path that did not define it."""


class UndefinedAttributeInBranchError(StagingError, AttributeError):
    """An attribute a graph `if` must output is set in one branch only (Python raises
    AttributeError when it reads it on the other path)."""


class UndefinedItemInBranchError(StagingError, KeyError):
    """An item a graph `if` must output is set in one branch only (Python raises KeyError
    when it reads it on the other path)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def undefined_in_branch_error(name, message):
    """The error for state `name` (a variable, `obj.attribute` or `d[key]`) that a graph `if`
    defines in one branch only: of the type Python raises when it reads it."""
    if name.endswith("]"):
        return UndefinedItemInBranchError(message)
    if "." in name:
        return UndefinedAttributeInBranchError(message)
    return UndefinedInBranchError(message)


def quoted(name):
    """A statement's symbol as messages show it: 'x', 'obj.a', "d['k']"."""
    return ('"%s"' if "'" in name else "'%s'") % name


def undefined_error_type(name):
    """The builtin error Python raises when it reads state `name` that is not defined."""
    if name.endswith("]"):
        return KeyError
    if "." in name:
        return AttributeError
    return UnboundLocalError


# Errors of Python itself that code in a graph branch or loop body raises while it is
# traced (a list index out of range, a missing key, a name never defined; and any error
# Python or NumPy raised on the user's code: rt.errors.raised_by_python): Python raises
# them only when it runs that path, so the graph does (defer_error).
_DEFERRED_ERRORS = (IndexError, KeyError, ZeroDivisionError, NameError)


def is_pythons_error(error):
    """Is `error` one that Python raises on the user's code (_DEFERRED_ERRORS,
    rt.errors.raised_by_python), not a refusal of graph mode?"""
    return not isinstance(error, StagingError) and (
        isinstance(error, _DEFERRED_ERRORS) or rt.errors.raised_by_python(error))


def defer_error(error):
    """Records, in the branch or loop body being traced, that it raises `error` when it
    runs; False (the caller re-raises) for an error that is not one of Python's own
    (is_pythons_error)."""
    if not is_pythons_error(error):
        return False
    graph = rt.current_graph()
    if graph is None or graph.parent is None:
        return False
    rt.Raise(error)
    return True


class LoopVariableError(StagingError, TypeError):
    """A graph loop variable changes in a way that cannot be reconciled."""


class StateMarker:
    """A placeholder object standing for state value `index` of a statement (a plain Python
    object, so rt.cond / rt.while_loop pass it through as a static value)."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return "<%s %d>" % (type(self).__name__.strip("_").lower(), self.index)


# The return-statement converter initialises its return value variable with None (or
# UndefinedReturnValue): before the `return` runs it means "no value yet", not a None value.
_RETVAL_NAME = re.compile(r"^retval_(_\d+)?$")


def is_return_value_name(name):
    """Is `name` the return-statement converter's return value variable?"""
    return name is not None and _RETVAL_NAME.match(name) is not None


class _Described(str):
    """A name for messages that is a description, not a variable: shown without quotes."""

    def __repr__(self):
        return str(self)


def display_names(names):
    """A statement's symbol names as rt.cond / rt.while_loop messages show them (the
    converter's return value variable is "the value returned")."""
    return [_Described("the value returned") if is_return_value_name(name) else name
            for name in names]


def is_return_placeholder(name, value):
    """True for the converter's return value variable while no `return` has set it."""
    if isinstance(value, UndefinedReturnValue):
        return True
    return value is None and is_return_value_name(name)


# Flags of lowered `return`, `break` and `continue` (set to True where the jump was).
_JUMP_FLAG_NAME = re.compile(r"^(do_return|break_|continue_)(_\d+)?$")


def jumps_away(branch_outputs, names):
    """True if a branch's outputs show it took a lowered return/break/continue."""
    return any(value is True and _JUMP_FLAG_NAME.match(name)
               for name, value in zip(names, branch_outputs))


# --- return values set on some paths only --------------------------------------------------------

_unset_returns = {}   # id(value) -> (the value, returned flag tensor); cleared per trace
_SCALARS = (str, bytes, bool, int, float, complex, np.generic, type(None))
_NUMBERS = (bool, int, float, complex, np.generic)
_UNCHANGING = (str, bytes, type(None))   # what a loop value may hold that stays as it is


def _tensor_leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _tensor_leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _tensor_leaves(item)]
    return [value] if rt.is_tensor(value) else []


def _placeholder_parts(value):
    """The tensors of a return value, or the value itself when it is a Python object that
    a graph statement passes through (see placeholder_like; a string too, which a return
    flag follows by its identity)."""
    if not is_loop_value(value):
        return [] if isinstance(value, _NUMBERS) or value is None else [value]
    return _tensor_leaves(value)


def note_loop_returns(names, values):
    """After a graph loop: its `do_return` flag (a loop variable, as the loop's test reads
    it) says whether a `return` ran, before or in the loop, where the return value is what
    it is now (see returned_flag)."""
    state = dict(zip(names, values))
    for name, value in state.items():
        if is_return_value_name(name):
            flag = state.get(return_flag_name(name))
            if rt.is_tensor(flag):
                note_returned(value, flag)


def forget_return_placeholders():
    _unset_returns.clear()
    _results.clear()


def note_returned(value, flag):
    """After a graph `if` whose paths differ in whether a `return` ran: `flag` (a bool
    tensor) says whether one ran before the return value reached `value` (see
    returned_flag)."""
    for part in _placeholder_parts(value):
        _unset_returns[id(part)] = (part, flag)


def return_flag_name(name):
    """The name of the `do_return` flag that goes with return value variable `name`."""
    return "do_return" + name[len("retval_"):]


def returned_flag(name, value, returned_here=False):
    """Whether a `return` ran on the path where the return value variable `name` is
    `value`: True where one ran in the block itself (`returned_here`: its flag is True;
    the value may be an object a placeholder also is), False for its placeholder, the flag
    noted for a value a statement gave a placeholder on some paths, else True."""
    if returned_here:
        return True
    if is_return_placeholder(name, value):
        return False
    for part in _placeholder_parts(value):
        entry = _unset_returns.get(id(part))
        if entry is not None and entry[0] is part and _in_reach(entry[1]):
            return entry[1]
    return True


def _in_reach(flag):
    """Can the graph being built use `flag`? (A flag noted in an earlier trace of a loop
    body, or in a branch that has ended, is stale: the statement around it noted its own.)"""
    if not rt.is_tensor(flag):
        return True
    defined_in = flag.graph_value.graph
    graph = rt.current_graph()
    return defined_in is None or (graph is not None and defined_in.is_ancestor_of(graph))


def check_returned(result):
    """The flag saying whether a `return` ran, for a traced function whose `result` is, on
    the paths where none ran, a placeholder (there Python returns None: so does the graph;
    the function's own, or a called function's result it returns as it is: see
    function_result), or None when a return ran on every path. A result that some path
    did not define (MaybeUndefined) asserts that it is."""
    for leaf in _tensor_leaves(result):
        if isinstance(leaf, MaybeUndefined):
            leaf.check()   # a value some path did not define
    entry = _results.get(id(result))
    return entry[1] if entry is not None and entry[0] is result else None


def function_result(value):
    """What a function whose `return`s the converter lowered returns (`return
    ag__.function_result(retval_)`): `value`. In a graph, where no `return` ran on the path
    taken (its flag: returned_flag), Python gives None, so its tensors are None there
    (rt.none_unless): ops on them raise Python's TypeError there, `is None` tells
    (is_none), and returning or printing them gives None."""
    if not _unset_returns or value is None:
        return value
    flag = returned_flag("retval_", value)
    if not rt.is_tensor(flag):
        return value
    frame = sys._getframe(1)
    name = frame.f_code.co_name   # (the converted function's: the user's name)
    description = ("the result of %s() is None where it falls off its end without a "
                   "`return`" % name)
    if frame.f_back is None or frame.f_back.f_code not in _TRACING_CALLERS:
        # Called by the function being traced: what it gets must say None where it is.
        leaves = _tensor_leaves(value)
        if not leaves or len(leaves) != _leaf_count(value) or any(
                leaf.graph_value.kind != "tensor" for leaf in leaves):
            raise TypeError(
                "%s() returns %s on some paths and None on others (where it falls off its "
                "end without a `return`), which a graph cannot give its caller: numbers and "
                "arrays, and tuples of them, can be None on some paths, other Python values "
                "cannot. Return a value on every path" % (name, _kind_of_result(value)))
        for leaf in leaves:
            rt.none_unless(leaf, flag, description)
    _results[id(value)] = (value, flag)
    return value


# {id: (a function's result, its flag)}: the results function_result saw that are None on
# some paths (check_returned: the traced function returns None there, not a structure
# holding None; is_none_flag); cleared with _unset_returns.
_results = {}

# The code of the functions that call the function being traced (autograph/impl/function.py
# registers its own): a converted function they call is not called by user code.
_TRACING_CALLERS = set()


def register_tracing_caller(code):
    _TRACING_CALLERS.add(code)


def is_none_flag(value):
    """For a structure a called function returned that is None on some paths (see
    function_result), a bool tensor: is it None on the path taken? Else False."""
    entry = _results.get(id(value))
    if entry is None or entry[0] is not value:
        return False
    return rt.is_none(_tensor_leaves(value)[0])


def _leaf_count(value):
    if isinstance(value, (tuple, list)):
        return sum(_leaf_count(item) for item in value)
    if isinstance(value, dict):
        return sum(_leaf_count(item) for item in value.values())
    return 1


def _kind_of_result(value):
    if isinstance(value, (tuple, list, dict)):
        return "a %s holding other values than numbers and arrays" % type(value).__name__
    return "a %s" % type(value).__name__


def is_undefined(value):
    return type(value) is Undefined


def dummy_like(value):
    """A concrete value of the same type as `value` (tensors: zeros of the same dtype, unknown
    dims as 0), for variables that a graph statement defines on some paths only and that
    are never read on the others (the return value before a `return`, loop outputs when the
    loop runs at least once). Nested structures keep their structure."""
    if rt.is_tensor(value):
        shape = tuple(d if d is not None else 0 for d in value.static_shape)
        zeros = np.zeros(shape, dtype=value.dtype)
        if shape or rt.is_ndarray(value):
            return zeros
        # (A Python number on the paths that set it, a range item returned early: a Python
        # zero, so that the joined value stays a Python number, as Python's is.)
        return zeros.item() if rt.is_python_scalar(value) else zeros[()]
    if isinstance(value, np.ndarray):
        return np.zeros_like(value)
    if isinstance(value, np.generic):
        return value.dtype.type(0)
    if isinstance(value, (bool, int, float, complex)):
        return type(value)(0)
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*[dummy_like(v) for v in value])
    if isinstance(value, (tuple, list)):
        return type(value)(dummy_like(v) for v in value)
    if isinstance(value, dict):
        return {k: dummy_like(v) for k, v in value.items()}
    return value  # other Python objects pass through a graph statement unchanged


def placeholder_like(value):
    """The value of a variable on the paths of a graph statement that do not set it, like
    `value` (set on the others): zeros for graph values (dummy_like); a Python object the
    graph passes through (a list, a tuple holding None) is itself, as such a value must be
    the same object on every path. Never read there: a loop asserts it ran, a function
    returns None there (check_returned). A Python number's is another Python number of its
    type (0, or 1 for a 0), so that the value joins into a graph value whose flag says where
    it was set, and that is a Python number on every path, as Python's is (a NumPy zero
    there would make it one on some paths only, refused next to float32 values:
    runtime/path_kinds.py)."""
    if isinstance(value, np.generic):
        return value.dtype.type(0)
    for python_type in (bool, int, float, complex):
        if isinstance(value, python_type):
            return python_type(0) if value != 0 else python_type(1)
    return dummy_like(value) if is_loop_value(value) else value


def is_loop_value(value):
    """True for what rt.while_loop carries as a graph loop variable (numbers, tensors, and
    tuples and dicts of them, which may also hold None or strings: those stay as they
    are), not for a Python object it passes through."""
    if rt.is_tensor(value):
        return not hasattr(value, "loop_length")   # lists built in loops, symbolic ranges
    if isinstance(value, rt.TensorArray):
        return value.graph_value is not None
    if type(value) is tuple or (isinstance(value, tuple) and hasattr(type(value), "_fields")):
        items = value
    elif type(value) is dict:
        items = list(value.values())
    else:
        return isinstance(value, (bool, int, float, complex, np.generic, np.ndarray))
    return any(is_loop_value(v) for v in items) and all(
        is_loop_value(v) or isinstance(v, _UNCHANGING) for v in items)


def same_immutable(a, b):
    """Are `a` and `b` equal immutable Python values (numbers, strings, None, and tuples
    of them), which a graph statement may pass through as one value? (A tuple a branch or
    loop body makes again each time it is traced is equal, not the same object.)"""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(map(same_immutable, a, b))
    return isinstance(a, _SCALARS) and not isinstance(a, np.generic) and a == b


def type_text(value):
    if rt.is_tensor(value):
        return "a tensor %s%s" % (value.dtype, list(value.static_shape)) if value.ndim else \
            "a tensor %s scalar" % value.dtype
    return "a Python %s" % type(value).__name__


def is_truthy_scalar_tensor(value, what):
    """The bool tensor Python's truth test of `value` would compute (rank 0 only; a list
    built in a graph loop or a symbolic range is true when not empty)."""
    loop_length = getattr(value, "loop_length", None)
    if loop_length is not None:
        return np.greater(loop_length(), 0)
    if value.ndim != 0 and all(d == 1 for d in value.static_shape):
        value = value[(0,) * value.ndim]   # NumPy tests the one element of a size-1 array
    if value.ndim != 0:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all() (%s is %s)"
                         % (what, type_text(value)))
    if value.dtype == np.bool_:
        return value
    return np.not_equal(value, 0)


# --- closure cells of generated functions ----------------------------------------------------

EMPTY = object()   # the content of a cell whose variable is not defined


def closure_cells(*functions, deep=False, global_names=None, visited=None):
    """{free variable name: cell} of the given functions (None entries are skipped). With
    `deep`, also those of the functions they reach through their cells (the block functions
    of nested statements, which the converter defines outside the blocks that call them).
    A set passed as `global_names` receives the global names those functions use, and one
    passed as `visited` the ids of the functions whose cells were taken."""
    cells = {}
    # (A block may be a partial application: `partial(body, target)` of a Python loop's
    # remaining iterations.)
    pending = [fn.func if isinstance(fn, functools.partial) else fn
               for fn in functions if fn is not None]
    # Only functions defined in the same (converted) function as the blocks.
    scopes = {getattr(fn, "__qualname__", "").rpartition(".")[0] for fn in pending}
    seen = set()
    while pending:
        fn = pending.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if visited is not None:
            visited.add(id(fn))
        code = getattr(fn, "__code__", None)
        if code is None:
            continue
        if global_names is not None:
            global_names.update(code.co_names)
        if not fn.__closure__:
            continue
        for name, cell in zip(code.co_freevars, fn.__closure__):
            cells.setdefault(name, cell)
            if not deep:
                continue
            content = cell_value(cell)
            # A nested statement's graph form is a partial application of its block
            # functions (ag__.if_form(...)): they are followed too.
            for candidate in (content.args if isinstance(content, functools.partial)
                              else (content,)):
                if isinstance(candidate, types.FunctionType) and \
                        candidate.__qualname__.rpartition(".")[0] in scopes:
                    pending.append(candidate)
    return cells


def cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return EMPTY


def set_cell(cell, value):
    """Sets a cell; EMPTY (or an Undefined value) makes the variable undefined again."""
    if value is EMPTY or is_undefined(value):
        try:
            del cell.cell_contents
        except ValueError:
            pass
    else:
        cell.cell_contents = value


# --- the state of a statement whose outputs are variables ------------------------------------

class _VariableState:
    """get_state/set_state of a statement whose outputs are all variables, for which the
    generated code passes None: the statement's block functions declare every variable
    they assign `nonlocal` (or `global`), so their closure cells (followed into the block
    functions of nested statements) and their globals are the variables themselves.

    Like generated get_state/set_state functions, an unbound variable reads as
    Undefined(name), and every value is assigned back as it is (placeholders included)."""

    def __init__(self, names, blocks):
        functions = [getattr(block, "func", block) for block in blocks]  # partial(body, x)
        global_names = set()
        self.names = names
        self.cells = [None] * len(names)
        self.globals = None
        cells = closure_cells(*functions, deep=True, global_names=global_names)
        for index, name in enumerate(names):
            cell = cells.get(name)
            if cell is not None:
                self.cells[index] = cell
                continue
            if name not in global_names or not name.isidentifier():
                raise StagingError(
                    "internal error: the output %r of a converted statement is neither a "
                    "variable its blocks declare nonlocal nor a global they assign" % name)
            if self.globals is None:
                self.globals = next(fn for fn in functions if fn is not None).__globals__

    def get(self):
        values = []
        for name, cell in zip(self.names, self.cells):
            if cell is None:
                value = self.globals.get(name, EMPTY)
            else:
                value = cell_value(cell)
            values.append(Undefined(name) if value is EMPTY else value)
        return tuple(values)

    def set(self, values):
        for name, cell, value in zip(self.names, self.cells, values):
            if cell is None:
                self.globals[name] = value
            else:
                cell.cell_contents = value


def variable_state(symbol_names, blocks):
    """(get_state, set_state) of a statement whose outputs are all variables, from its block
    functions `blocks` (None entries skipped; see _VariableState)."""
    state = _VariableState(tuple(symbol_names), blocks)
    return state.get, state.set


def statement_state(get_state, set_state, symbol_names, blocks):
    """(get_state, set_state, names) of a statement for its graph path: variable_state(
    symbol_names, blocks) when the code passes None for the state functions, else
    functions reading and writing each symbol through the generated ones' closure (so
    that an attribute or item not set yet reads as Undefined, as a variable does); item
    targets of graph arrays left out (see without_array_items)."""
    if get_state is None:
        get_state, set_state = variable_state(symbol_names, blocks)
    if not isinstance(get_state, types.FunctionType):   # variable_state's, made above or
        return get_state, set_state, list(symbol_names)  # by the caller
    return without_array_items(get_state, set_state, symbol_names)


# --- statement state without item targets of arrays ------------------------------------------

class _ClosureState:
    """get_state/set_state for a subset of a statement's symbols, read and written through the
    generated functions' closure cells (and globals).

    An attribute or item that does not exist reads as Undefined, and Undefined deletes it,
    as an undefined variable is read and written through its cell.

    Item targets of arrays (`out[i]`) need no state: item assignments on graph arrays are
    carried by handle rebinding (runtime), and reading `out[i]` before a loop defines `i`
    fails. This keeps every other symbol (names, attributes, items of Python containers)."""

    def __init__(self, get_state, set_state, names):
        self.names = names
        self.globals = get_state.__globals__
        self.cells = closure_cells(get_state, set_state)
        self.codes = [compile(name, "<state %s>" % name, "eval") for name in names]

    def env(self):
        env = dict(self.globals)
        for name, cell in self.cells.items():
            value = cell_value(cell)
            if value is EMPTY:
                env.pop(name, None)
            else:
                env[name] = value
        return env

    def get(self):
        env = self.env()
        values = []
        for name, code in zip(self.names, self.codes):
            try:
                values.append(eval(code, env))
            except (NameError, AttributeError, KeyError):
                values.append(Undefined(name))
        return tuple(values)

    def set(self, values):
        env = None
        for name, value in zip(self.names, values):
            cell = self.cells.get(name)
            if cell is not None:
                set_cell(cell, value)
            elif is_undefined(value) and name.isidentifier():
                continue   # never assign the placeholder of an undefined variable
            elif name.isidentifier():
                self.globals[name] = value
            else:
                if env is None:
                    env = self.env()
                if is_undefined(value):
                    try:   # an attribute or item not set before: unset it again
                        exec(compile("del %s" % name, "<state %s>" % name, "exec"), env)
                    except (NameError, AttributeError, KeyError):
                        pass
                    continue
                env["__ag_value__"] = value
                exec(compile("%s = __ag_value__" % name, "<state %s>" % name, "exec"), env)


def _subscript_root(name):
    """'out' for 'out[i]' / 'a.b[k]' (the object whose item is assigned), else None."""
    if not name.endswith("]") or "[" not in name:
        return None
    depth = 0
    for position in range(len(name) - 1, -1, -1):
        if name[position] == "]":
            depth += 1
        elif name[position] == "[":
            depth -= 1
            if depth == 0:
                return name[:position]
    return None


def _array_item(root, env):
    """Is the object `root` names (in `env`) an array, an item of one (`out[i]` for the
    target `out[i][0]`), or not found? The outermost object is looked at first, so an index
    that the statement defines (`i`, a loop's) is not read: reading it would record the
    graph's error for an undefined variable."""
    roots = [root]
    while _subscript_root(roots[-1]) is not None:
        roots.append(_subscript_root(roots[-1]))
    for part in reversed(roots):
        try:
            owner = eval(compile(part, "<state>", "eval"), env)
        except Exception:
            return True
        if owner is None or rt.is_tensor(owner) or isinstance(owner, np.ndarray):
            return True
    return False


def without_array_items(get_state, set_state, symbol_names):
    """(get_state, set_state, names) of a statement whose code generated state functions,
    leaving out item targets of graph arrays (see _ClosureState)."""
    names = list(symbol_names)
    roots = [_subscript_root(name) for name in names]
    state = _ClosureState(get_state, set_state, names)
    if not any(roots):
        return state.get, state.set, names
    env = state.env()
    keep = []
    for name, root in zip(names, roots):
        if root is not None and _array_item(root, env):
            continue
        keep.append(name)
    if len(keep) == len(names):
        return state.get, state.set, names
    filtered = _ClosureState(get_state, set_state, keep)
    return filtered.get, filtered.set, keep


# --- attributes of Python objects that called functions mutate ---------------------------------

def select(condition, x, y):
    """np.where(condition, x, y) for values Python holds as NumPy scalars (an index, a
    loop length, the best of min/max): rank 0, it is a scalar, where np.where's is a 0-d
    array, which `+=` would write in place."""
    chosen = np.where(condition, x, y)
    return chosen if chosen.ndim else rt.Tensor(chosen.graph_value)


def is_graph_value(value, graph=None):
    """A number or symbolic tensor a graph statement can carry as an output or loop variable
    (a tensor must belong to `graph`, by default the one being built, or one enclosing it)."""
    if rt.is_tensor(value):
        if hasattr(value, "loop_length"):   # lists built in loops, symbolic ranges
            return False
        defined_in = value.graph_value.graph
        return defined_in is None or defined_in.is_ancestor_of(graph or rt.current_graph())
    return isinstance(value, (bool, int, float, np.generic))


_NUMBERS = (bool, int, float, complex, np.generic)
_NOT_WATCHED = (types.ModuleType, type, types.FunctionType, types.MethodType,
                types.BuiltinFunctionType, np.ndarray, rt.Tensor, rt.Variable,
                rt.TensorArray)


def set_attribute(obj, attribute, value):
    """setattr; EMPTY deletes the attribute (it did not exist before). A closure cell's
    attribute is its contents."""
    if isinstance(obj, types.CellType):
        set_cell(obj, value)
    elif value is EMPTY:
        vars(obj).pop(attribute, None)
    else:
        setattr(obj, attribute, value)


def _called_functions(cells, blocks):
    """The functions that `cells` (the closure cells of a statement's blocks, {name: cell})
    hold, and transitively those in theirs, other than `blocks` (ids of the block functions
    of this and nested statements): functions a block can call, nested in the user's
    function, whose variables they can change (`nonlocal n`)."""
    found, pending, seen = [], [cell_value(cell) for cell in cells.values()], set(blocks)
    while pending:
        fn = pending.pop()
        if not isinstance(fn, types.FunctionType) or id(fn) in seen or not fn.__closure__:
            continue
        seen.add(id(fn))
        found.append(fn)
        pending.extend(cell_value(cell) for cell in fn.__closure__)
    return found


def _assigned_cells(blocks):
    """The ids of the closure cells that the functions `blocks` assign (STORE_DEREF)."""
    found = set()
    for block in blocks:
        code, closure = getattr(block, "__code__", None), getattr(block, "__closure__", None)
        if code is None or not closure:
            continue
        stored = {instruction.argval for instruction in dis.get_instructions(code)
                  if instruction.opname in ("STORE_DEREF", "DELETE_DEREF")}
        found.update(id(cell) for name, cell in zip(code.co_freevars, closure)
                     if name in stored)
    return found


class WatchedAttributes:
    """The attributes of the Python objects a statement's blocks can reach through their
    closure cells, and the variables of the functions they can call (their closure cells),
    before a branch or body is traced.

    The analysis sees `self.total += x` written in the block itself; a method the block
    calls can change attributes too (`counter.add(x)`), and a nested function the variables
    it declares nonlocal (`calls += 1`). Changed ones are reported (a cell as its
    `cell_contents`) so that they become outputs of the statement instead of keeping
    trace-time values."""

    def __init__(self, blocks, skip=()):
        self.skip = set(skip)   # labels ("obj.attribute") the statement's state carries
        self.objects = []
        self.cells = []         # (name, cell, contents before)
        seen = set()
        visited = set()
        block_cells = closure_cells(*blocks, deep=True, visited=visited)
        for name, cell in block_cells.items():
            obj = cell_value(cell)
            if name == "ag__" or id(obj) in seen or obj is EMPTY:
                continue
            if isinstance(obj, _NOT_WATCHED) or not hasattr(obj, "__dict__"):
                continue
            seen.add(id(obj))
            self.objects.append((name, obj, dict(vars(obj))))
        # (The variables the blocks assign themselves, a loop's target among them, are the
        # statement's own, not changed by a function it calls: a comprehension's function
        # reading the target of the loop around it sees it change on every iteration.)
        seen = _assigned_cells(blocks)
        for fn in _called_functions(block_cells, visited):
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                if id(cell) not in seen and name != "ag__":
                    seen.add(id(cell))
                    self.cells.append((name, cell, cell_value(cell)))

    def changed(self):
        """[(label, object, attribute, value before, value now)] for attributes changed to a
        number or tensor. (Other Python values set while tracing stay: trace-time side
        effects, like a layer building its weights on first use.)"""
        found = []
        for name, obj, before in self.objects:
            for attribute, value in list(vars(obj).items()):
                old = before.get(attribute, EMPTY)
                label = "%s.%s" % (name, attribute)
                if value is not old and label not in self.skip and (
                        rt.is_tensor(value) or isinstance(value, _NUMBERS)):
                    found.append((label, obj, attribute, old, value))
        for name, cell, old in self.cells:
            value = cell_value(cell)
            if value is not old and old is not EMPTY and name not in self.skip and (
                    rt.is_tensor(value) or isinstance(value, _NUMBERS)):
                found.append((name, cell, "cell_contents", old, value))
        return found

    def restore(self):
        for _, obj, attribute, before, _ in self.changed():
            set_attribute(obj, attribute, before)
