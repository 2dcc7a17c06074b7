"""rt.cond: plain Python when the predicate is not symbolic, a graph `cond` op otherwise.

Both branches are traced into nested graphs; outer values they read become explicit
captures. Item assignments on outer arrays inside a branch (`out[i] = v` on a handle defined
outside) become extra outputs of the cond, carried out automatically. Every handle a trace
points at a value of the branch is pointed back when the trace ends, also when it fails.

Python identity is kept: an output that is the same handle in both branches is that handle,
and one that is an array from before the cond on some path is a CondAlias, which reads and
writes that array there. The helpers here are rt.while_loop's too (runtime/control_flow.py).
"""

import numpy as np

from runtime import errors, nest, ops, path_kinds
from runtime.graph import TENSOR, TENSOR_ARRAY, Graph, Value, building, current_graph, literal
from runtime.tensor import Tensor, _defining_graph, is_ndarray, is_tensor, mark_ndarray
from runtime.tensor import _usable as tensor_usable
from runtime.tensor_array import TensorArray


# --- helpers ----------------------------------------------------------------------------------

def _is_graph_tensor_array(x):
    return isinstance(x, TensorArray) and x._value is not None


def _is_eager_tensor_array(x):
    return isinstance(x, TensorArray) and x._value is None


def _is_symbolic(x):
    return is_tensor(x) or _is_graph_tensor_array(x)


def _is_number(x):
    return isinstance(x, (bool, int, float, complex, np.generic))


def _wrap(value, flexible=False):
    if value.kind == TENSOR_ARRAY:
        return TensorArray.from_graph_value(value, flexible=flexible)
    return Tensor(value)


_PYTHON_TYPE_NAMES = {"b": "bool", "i": "int", "f": "float", "c": "complex"}


def _describe(x):
    if isinstance(x, Value):
        if x.is_literal:
            return "a Python %s" % type(x.literal).__name__ if x.weak else x.type_str()
        if not x.shape and path_kinds.is_python(x) and path_kinds.mixed(x) is None:
            return "a Python %s" % _PYTHON_TYPE_NAMES[x.dtype.kind]
        return x.type_str()
    if is_tensor(x) or _is_graph_tensor_array(x):
        return x._value.type_str()
    return "a Python %s (%r)" % (type(x).__name__, x)


def _value_of(x, graph):
    """The Value for a symbolic or numeric leaf, recorded (if needed) in `graph` (a handle's
    own: control flow carries values, it does not use them)."""
    if _is_symbolic(x):
        return x._value
    with building(graph):
        return ops.to_value(x)


def _cast_in(graph, value, dtype):
    """`value` as `dtype`, adding a cast to `graph` when needed (literals stay literals)."""
    dtype = np.dtype(dtype)
    if value.kind == TENSOR_ARRAY or (value.dtype == dtype and not value.weak):
        return value
    if value.is_literal:
        return literal(np.asarray(value.literal).astype(dtype)[()] if not value.weak
                       else dtype.type(value.literal))
    if value.dtype == dtype:
        return value
    with building(graph):
        return ops.get("cast").bind1([value], dtype=dtype)


def _join_dtypes(a, b):
    """NumPy's promotion of two values (weak Python scalars stay weak)."""
    def operand(v):
        return v.literal if v.weak else v.dtype
    return np.result_type(operand(a), operand(b))


def _holds_0d_array(x):
    """Does leaf `x` (of a branch's or loop's output) stand for a 0-d array (not a scalar)?"""
    if is_tensor(x):
        return is_ndarray(x)
    return isinstance(x, np.ndarray) and x.ndim == 0


def _mixed_kinds(name, a, a_leaf, path_a, b, b_leaf, path_b, location):
    """The path_kinds.Mixed of a join of Values `a` and `b` (the values of leaves `a_leaf`,
    `b_leaf` on paths `path_a`, `path_b`) whose kinds differ, or None."""
    return path_kinds.join(name, a, _holds_0d_array(a_leaf), path_a, b,
                           _holds_0d_array(b_leaf), path_b, errors.format_location(location),
                           _describe)


def kind_tag(value, ndarray=False):
    """An int8 Value, in the graph being built, holding when the graph runs the code
    (path_kinds.code_of) of the kind `value` has on the path taken: its own kind's, or its
    mark's tag translated; None for a value marked without a tag."""
    found = path_kinds.mixed(value)
    if found is None:
        return literal(np.int8(path_kinds.code_of(path_kinds.kind_of(value, ndarray))))
    if found.tag is None:
        return None
    tag = current_graph().localize(found.tag)
    items = sorted(found.table.items())
    if all(code == path_kinds.code_of(kind) for code, kind in items):
        return tag
    chosen = literal(np.int8(path_kinds.code_of(items[0][1])))
    for code, kind in items[1:]:   # (the value's kinds differ from its tag's origin's)
        chosen = ops.get("where").bind1([ops.get("equal").bind1([tag, literal(np.int8(code))]),
                                         literal(np.int8(path_kinds.code_of(kind))), chosen])
    return chosen


def _join_shapes(name, a, b):
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise TypeError("%s has shape (%s) in one branch and (%s) in the other; its rank must "
                        "not change" % (name, ",".join(map(str, a)), ",".join(map(str, b))))
    return tuple(x if x == y else None for x, y in zip(a, b))


def _put_back(graph):
    """Points the outer handles that `graph` rebound (while it was built) back at their
    values from before."""
    for handle, original in list(graph.rebound.values()):
        handle._value = original


def _same_static(a, b):
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


# --- cond ---------------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, names=None):
    """`true_fn()` if pred else `false_fn()`; a graph `cond` op when `pred` is symbolic.

    Both branches must return the same structure. Python values equal in both branches
    pass through; numbers and tensors become tensors of the promoted dtype (dims that
    differ become unknown). `names` (optional) names the outputs in error messages.
    """
    if not is_tensor(pred):
        return true_fn() if pred else false_fn()
    outer = current_graph()
    if outer is None:
        raise RuntimeError("rt.cond on a symbolic tensor outside a trace")
    location = errors.capture_location()

    traced = []
    for fn, label in ((true_fn, "then_branch"), (false_fn, "else_branch")):
        branch = Graph(label, parent=outer)
        with building(branch):
            try:
                result = fn()
                # What the handles it returns hold at its end, before those it rebound
                # are put back.
                ends = {id(x): x._value for x in nest.flatten(result) if _is_symbolic(x)}
            except BaseException:
                _put_back(branch)
                raise
        rebound = list(branch.rebound.values())
        rebound_ends = {id(handle): handle._value for handle, _ in rebound}
        for handle, original in rebound:
            handle._value = original
        traced.append((branch, result, ends, rebound, rebound_ends))

    (then_graph, then_result, then_leaf_ends, then_rebound, then_ends), \
        (else_graph, else_result, else_leaf_ends, else_rebound, else_ends) = traced
    if not nest.same_structure(then_result, else_result, lists_match_tuples=True):
        raise TypeError("rt.cond: true_fn and false_fn must return the same structure; got %r "
                        "and %r" % (_structure_text(then_result), _structure_text(else_result)))

    if names is not None and not isinstance(names, (list, tuple)):
        names = [names]
    then_paths = _named_paths(then_result, names, "output")
    else_leaves = nest.flatten(else_result)

    output_leaves = []     # ("static", Python value), ("value", index into outputs, aliases)
    then_outputs, else_outputs, output_types = [], [], []
    mixed = {}             # output index -> path_kinds.Mixed: its kind depends on the path
    python = []            # output indexes that are Python scalars on both paths
    python_on_some_paths = {}   # output index -> description: a Python number on one path
    flexible = []          # per output: a list-like TensorArray (dtype follows writes)

    def _kind_tags(name, va, a, vb, b):
        """The index of an output saying which kind the output of `va`, `vb` has, or
        None when a branch cannot say."""
        tags = []
        for graph, value, leaf in ((then_graph, va, a), (else_graph, vb, b)):
            with building(graph):
                tags.append(kind_tag(value, _holds_0d_array(leaf)))
        if None in tags:
            return None
        return add_output("the kind of %s" % name, *tags)

    def add_output(name, a, b, a_end=None, b_end=None):
        va = a_end or (a if isinstance(a, Value) else _value_of(a, then_graph))
        vb = b_end or (b if isinstance(b, Value) else _value_of(b, else_graph))
        if va.kind != vb.kind:
            raise TypeError("%s is %s in the true branch but %s in the false branch"
                            % (name, _describe(va), _describe(vb)))
        if va.kind == TENSOR_ARRAY:
            if va.dtype != vb.dtype:
                raise TypeError("%s is %s in the true branch but %s in the false branch"
                                % (name, _describe(va), _describe(vb)))
            from runtime.ops.state import unify_element_shapes
            shape = _join_shapes(name, va.shape, vb.shape) if (
                va.shape is not None and vb.shape is not None) else unify_element_shapes(
                    va.shape, vb.shape)
            dtype = va.dtype
        else:
            dtype = _join_dtypes(va, vb)
            shape = _join_shapes(name, va.shape, vb.shape)
            found = _mixed_kinds(name, va, a, "the true branch", vb, b, "the false branch",
                                 location)
            if found is not None:
                mixed[len(output_types)] = (found, _kind_tags(name, va, a, vb, b))
            if path_kinds.is_python(va) and path_kinds.is_python(vb):
                python.append(len(output_types))
            elif found is None and path_kinds.python_differs([va, vb]):
                python_on_some_paths[len(output_types)] = (
                    path_kinds.python_on_some_paths_description(
                        name, va, "the true branch", vb, "the false branch",
                        errors.format_location(location)))
        then_outputs.append(then_graph.localize(_cast_in(then_graph, va, dtype)))
        else_outputs.append(else_graph.localize(_cast_in(else_graph, vb, dtype)))
        output_types.append((dtype, shape, va.kind))
        flexible.append(getattr(a, "flexible", False) or getattr(b, "flexible", False))
        return len(output_types) - 1

    for (name, a), b in zip(then_paths, else_leaves):
        # (A front end may have added outputs since: those read as they are now.)
        a_end, b_end = then_leaf_ends.get(id(a)), else_leaf_ends.get(id(b))
        symbolic = _is_symbolic(a) or _is_symbolic(b)
        if a is b and is_tensor(a):
            # One object on both paths, as in Python (what a branch wrote into it is
            # carried below).
            output_leaves.append(("static", a))
            continue
        if not symbolic and _same_static(a, b):
            output_leaves.append(("static", a))
            continue
        if symbolic or (_is_number(a) or isinstance(a, np.ndarray)) and (
                _is_number(b) or isinstance(b, np.ndarray)):
            for x, label in ((a, "true"), (b, "false")):
                if not (_is_symbolic(x) or _is_number(x) or isinstance(x, np.ndarray)):
                    raise TypeError("%s is %s in the true branch but %s in the false branch"
                                    % (name, _describe(a), _describe(b)))
            index = add_output(name, a, b, a_end, b_end)
            # Arrays from before the cond that the output is on some path: (None for the
            # predicate, or the index of an output saying so; the value it has then; the
            # handle).
            aliases = []
            for leaf, end, graph, ends, taken in ((a, a_end, then_graph, then_ends, True),
                                                  (b, b_end, else_graph, else_ends, False)):
                for condition, when, handle in _earlier_arrays(leaf, end, graph, ends):
                    if condition is None:
                        aliases.append((None, taken, handle))
                        continue
                    other = literal(np.bool_(not when))   # on the other branch
                    aliases.append((add_output("a condition", *(
                        (condition, other) if taken else (other, condition))), when, handle))
            output_leaves.append(("value", index, aliases))
            continue
        raise TypeError("%s is %s in the true branch but %s in the false branch; a Python "
                        "value must be the same in both branches of a graph cond"
                        % (name, _describe(a), _describe(b)))

    # Outer handles assigned to inside a branch (item assignment) become extra outputs.
    carried = {}
    for rebound in (then_rebound, else_rebound):
        for handle, original in rebound:
            carried.setdefault(id(handle), (handle, original))
    carried_outputs = []
    for key, (handle, original) in carried.items():
        a = then_ends.get(key, original)
        b = else_ends.get(key, original)
        carried_outputs.append((handle, add_output("a tensor assigned in a branch", a, b)))

    node = _cond_node(outer, pred._value, then_graph, else_graph, then_outputs, else_outputs,
                      output_types, location)
    for index, (found, tag) in mixed.items():
        if tag is not None:
            found.tag = node.outputs[tag]
        path_kinds.mark(node.outputs[index], found)
    for index in python:
        path_kinds.mark_python(node.outputs[index])
    for index, description in python_on_some_paths.items():
        path_kinds.mark_python_on_some_paths(node.outputs[index], description)
    for handle, index in carried_outputs:
        handle.rebind(node.outputs[index])
    leaves = []
    for leaf in output_leaves:
        if leaf[0] == "static":
            leaves.append(leaf[1])
        elif leaf[2]:
            leaves.append(_cond_alias(pred._value, node.outputs, leaf[1], leaf[2]))
        else:
            leaves.append(_wrap(node.outputs[leaf[1]], flexible[leaf[1]]))
    return nest.pack_as(then_result, leaves)


def _cond_node(outer, pred, then_graph, else_graph, then_outputs, else_outputs,
               output_types, location=None):
    """Adds the `cond` node of two traced branches to `outer`: their captures aligned, and
    `then_outputs` / `else_outputs` (Values of the branches, of `output_types`) as outputs."""
    union = _ordered_union([o for o, _ in then_graph.captured] + [o for o, _ in else_graph.captured])
    then_graph.capture_in_order(union)
    else_graph.capture_in_order(union)
    then_graph.outputs = then_outputs
    else_graph.outputs = else_outputs
    return outer.add_node(ops.get("cond"), [pred] + union,
                          {"then_branch": then_graph, "else_branch": else_graph},
                          output_types, location=location)


# --- names that are an earlier array on some paths only ------------------------------------------

def _earlier_arrays(leaf, end, branch, rebound_ends):
    """[(condition Value of `branch` or None for always, the value it has then, handle)]:
    the arrays from before
    the branch that `leaf`, a branch's output, is (Python's name then is that very array):
    itself, or those of an alias the branch made (a nested `if`)."""
    if not is_tensor(leaf) or end is None or end.kind != TENSOR or not is_ndarray(leaf):
        return []
    if id(leaf) in rebound_ends or end.graph is None or not branch.is_ancestor_of(end.graph):
        return [(None, True, leaf)]
    if isinstance(leaf, CondAlias):
        found = []
        for condition, when, handle in leaf._arrays:
            if id(handle) in rebound_ends or not branch.is_ancestor_of(
                    handle._value.graph or branch):
                found.append((condition, when, handle))
            elif isinstance(handle, CondAlias):
                # An alias the branch made of an alias it made (two ifs in a row, each
                # maybe rebinding the name): the arrays from before the branch that one
                # is, where both conditions say so.
                with building(branch):
                    if not _usable([condition]):
                        continue
                    here = condition if when else ops.get("logical_not").bind1([condition])
                    for inner, inner_when, array in _earlier_arrays(
                            handle, handle._value, branch, rebound_ends):
                        both = here
                        if inner is not None:
                            if not inner_when:
                                inner = ops.get("logical_not").bind1([inner])
                            both = ops.get("logical_and").bind1([here, inner])
                        found.append((both, True, array))
        return found
    return []


def _cond_alias(pred, outputs, index, aliases):
    arrays = [(pred if condition is None else outputs[condition], when, handle)
              for condition, when, handle in aliases]
    return CondAlias(outputs[index], arrays, Tensor(outputs[index]))


class CondAlias(Tensor):
    """The handle rt.cond gives an output that is, on some path, the handle of an array from
    before the cond (`if c: b = a`): on that path Python's name is that very array, so this
    handle reads as that array's current contents there (`a[0] = 5` after the `if` shows in
    `b` when c held), and what is written into it lands in that array there.

    `arrays`: [(condition Value, when, handle)]: the name is `handle` where the condition
    is `when` (exclusive cases); `own`: a handle on the contents on the other paths."""

    __slots__ = ("_arrays", "_own", "_seen")

    def __init__(self, value, arrays, own):
        Tensor.__init__(self, value)
        self._arrays = arrays
        self._own = own
        self._seen = self._versions()
        if any(is_ndarray(handle) for _, _, handle in arrays):   # (0-d arrays too)
            mark_ndarray(self)
            mark_ndarray(own)

    def _versions(self):
        return [handle._value for _, _, handle in self._arrays] + [self._own._value]

    @property
    def _value(self):
        versions = self._versions()
        if any(a is not b for a, b in zip(versions, self._seen)) and _usable(
                [condition for condition, _, _ in self._arrays] + versions):
            # (A handle kept past the branch or body that made it reads as it was, as
            # plain handles do.)
            self._seen = versions
            chosen = versions[-1]
            for (condition, when, handle), version in reversed(list(zip(self._arrays,
                                                                         versions))):
                chosen = _choose(condition, when, version, chosen, is_ndarray(handle),
                                 is_ndarray(self._own))
            self._raw = chosen
        return self._raw

    @_value.setter
    def _value(self, value):
        # (Control flow pointing the handle at a version: nothing is written.)
        self._raw = value
        self._seen = self._versions()

    def rebind(self, new):
        """New contents: written into the array of the path that holds, too."""
        value = new if isinstance(new, Value) else ops.to_value(new)
        for condition, when, handle in self._arrays:
            mine = _cast_in(current_graph(), value, handle.dtype)
            handle.rebind(_choose(condition, when, mine, handle._value))
        self._own.rebind(value)
        self._value = value
        return self

    def aliased_arrays(self):
        return [handle for _, _, handle in self._arrays]

    def _rt_own_handle(self, value):
        """A loop's own handle for a variable that starts as this one: a plain handle."""
        return Tensor(value)


def _usable(values):
    """Can the graph being built use `values` (all defined in it or in graphs around it)?"""
    return current_graph() is not None and tensor_usable(values)


def _choose(pred, when, a, b, a_ndarray=False, b_ndarray=False):
    """The Value `a` where `pred` is `when`, else `b` (a `cond` node, so their shapes may
    differ), built in the innermost graph defining one of them; where their kinds differ
    (an argument's float32 array on one path, float64 zeros a branch made on the other), it
    is marked with the kind of each (path_kinds), as the join that made the alias was.
    `a_ndarray`, `b_ndarray`: a rank-0 `a`, `b` stands for a 0-d array."""
    if not when:
        a, b, a_ndarray, b_ndarray = b, a, b_ndarray, a_ndarray
    with building(_defining_graph([pred, a, b])):
        outer = current_graph()
        dtype, shape = _join_dtypes(a, b), _join_shapes("a chosen value", a.shape, b.shape)
        graphs = [Graph(label, parent=outer) for label in ("then_branch", "else_branch")]
        outputs = [[g.localize(_cast_in(g, v, dtype))] for g, v in zip(graphs, (a, b))]
        chosen = _cond_node(outer, pred, *graphs, *outputs,
                            [(dtype, shape, TENSOR)]).outputs[0]
        found = path_kinds.join("a name that is an array from before an if on some paths",
                                a, a_ndarray, "those paths", b, b_ndarray, "the others",
                                errors.format_location(errors.capture_location()), _describe)
        if found is not None:
            tags = [kind_tag(a, a_ndarray), kind_tag(b, b_ndarray)]
            if None not in tags:
                found.tag = ops.get("where").bind1([pred] + tags)
            path_kinds.mark(chosen, found)
        return chosen


def _structure_text(x):
    return nest.pack_as(x, ["_"] * len(nest.flatten(x)))


def _ordered_union(values):
    seen = set()
    out = []
    for v in values:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _named_paths(structure, names, default):
    if isinstance(structure, (tuple, list)) and not nest.is_namedtuple(structure) and names:
        paths = []
        for i, item in enumerate(structure):
            prefix = repr(names[i]) if i < len(names) else "%s[%d]" % (default, i)
            for path, leaf in nest.flatten_with_paths(item):
                paths.append(("%s%s" % (prefix, path) if not path else prefix + path, leaf))
        return paths
    return [(default + path if path else default, leaf)
            for path, leaf in nest.flatten_with_paths(structure)]
