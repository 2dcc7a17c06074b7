"""Python numbers as graph inputs, and specialising a trace on them where Python needs them.

rt.function makes the Python int and float arguments of a call (not bools: they stay
static, as None and str do) inputs of the trace: rank-0 values that stand for Python
scalars (path_kinds.mark_python, so NEP 50's weak promotion applies: `x_f32 * lr` stays
float32). A new learning rate reuses the trace. An argument named in `static_argnames`
stays a constant of the trace, its value in the trace key, as before; so does an int out of
int64's range.

Where Python code needs the concrete value of such a number (a Python list index, the size
of a weight being built, `math.sqrt(n)`, a dict key, `if n == 1` ending a recursion), the
Tensor's conversion to a Python value calls `check`, which raises `Specialise` naming the
arguments the value was computed from (`sources`). The staged function then traces again
with those arguments static: their values join the trace key, which is the guard (another
value traces again). Where the sources cannot be told apart (a value computed in a loop
body), and where a trace with symbolic numbers is refused for another reason (or recurses
without end: a recursion whose base case tests a number), every Python number of the call
becomes static, which is what a trace did before numbers were inputs.

Shapes share this: an array argument's dims are symbolic in a trace (one trace per dtype
and rank), so `x.shape[0]` and `len(x)` are symbolic ints, and a converted `if N == 1:`
on one is a graph branch. A recursion whose end depends on a shape (`def fft(x): N =
x.shape[0]; if N == 1: return x; ... fft(x[::2]) ...`) then traces both branches at every
depth, without end; when a trace recurses until Python's RecursionError while the arrays
have symbolic dims, `Specialise(..., shapes=True)` makes rt.Function trace again with the
shapes of the array arguments static: their dims are then Python ints, the `if` is
Python's, and the recursion ends as it does in Python. The shapes join the trace key (the
guard: another shape traces again), and those calls take the general call path.
"""

from runtime.thread_values import ThreadValue

# Labels of the arguments (a position, or a keyword's name) each input Value of the trace
# being built stands for: {Value: label}, while a trace with symbolic numbers runs.
_labels = ThreadValue()

ALL = None   # (Specialise.labels: every Python number of the call)

# Python ints beyond this are constants of the trace: a graph holds Python ints in int64s,
# and checks only its products for overflow (runtime/path_kinds.py), so its sums must
# start far from int64's bounds.
INT_INPUT_BOUND = 2 ** 53


def is_number_input(x):
    """Is `x` a Python number that can be a graph input (a float, an int of at most
    INT_INPUT_BOUND; not a bool)?"""
    t = type(x)
    return t is float or (t is int and -INT_INPUT_BOUND <= x <= INT_INPUT_BOUND)


class Specialise(Exception):
    """Raised while tracing where Python needs the concrete value of a Python number the
    trace made symbolic: `labels` (a frozenset of positions and keyword names, or ALL) are
    the arguments to make static; `refusal` the error Python would get otherwise; `shapes`:
    the shapes of the array arguments are to be static too."""

    def __init__(self, labels, refusal=None, shapes=False):
        needs = [] if not labels and labels is not ALL else [
            "every Python number argument" if labels is ALL
            else ", ".join("argument %r" % (label,) for label in sorted(labels, key=str))]
        super().__init__("the trace needs the values of %s" % " and ".join(
            needs + (["the shapes of the array arguments"] if shapes else [])))
        self.labels = labels
        self.refusal = refusal
        self.shapes = shapes


def inputs(labels):
    """Context manager: while active (a trace is built), `check` can raise Specialise for
    the Values of `labels` ({Value: label}: the placeholders of Python number arguments)."""
    return _labels.set(labels)


def active():
    """Does the trace being built have Python numbers as inputs?"""
    return bool(_labels.get())


def check(value, refusal):
    """Called where Python needs the concrete value of Value `value`: raises Specialise when
    it was computed from Python number arguments of the trace being built (and so would be
    concrete with them static); returns otherwise (the caller raises `refusal`)."""
    labels = _labels.get()
    if not labels:
        return
    found = sources(value, labels)
    if found is ALL or found:
        raise Specialise(found, refusal)


_MAX_WALK = 10000


def sources(value, labels):
    """The labels (of `labels`: {Value: label}) of the inputs `value` is computed from: a
    frozenset (empty: none of them), or ALL when that cannot be told (the value depends on
    an input of a nested graph: a loop body's variable, a branch's input)."""
    found = set()
    seen = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if len(seen) > _MAX_WALK:
            return ALL
        label = labels.get(v)
        if label is not None:
            found.add(label)
            continue
        if v.node is not None:
            stack.extend(v.node.inputs)
            continue
        graph = v.graph
        if graph is None or graph.parent is None:   # (a literal, or an input of the trace)
            continue
        outer = next((o for o, inner in graph.captured if inner is v), None)
        if outer is None:   # (a nested graph's own input: a loop variable)
            return ALL
        stack.append(outer)
    return frozenset(found)
