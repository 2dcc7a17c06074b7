"""Random differentiable programs: the input of the gradient fuzzer (tools/fuzz_grad.py,
checked by tools/fuzz/grad_check.py).

`generate(seed)` returns a `Program` (tools/fuzz/generator.py's): the text of one module
holding a function `f` of one or two float arrays (1-d or 2-d), maybe a float scalar `t` and
an int `n`, returning a float scalar loss; maybe module-level helpers; and `ARGS`, one or two
argument tuples of the same shapes (the second call of the gradient must not reuse the
first's values). The same seed gives the same text.

The programs are built from ops that have derivatives: + - * and / by denominators at least
0.5 away from 0, exp of bounded values, tanh, sin, cos, sqrt and log of x*x + 1, squares,
`@`, reductions over all elements or an axis, reshape, transpose, concatenate, stack, reads
by index, slice and index array, and item writes into preallocated arrays; a few piecewise
ones (abs, np.maximum, np.where, builtin max of scalars) at a small weight. Control flow
depends on the data: `if` on `x.sum() > c`, `for` over `range(3)`, `range(n)` and
`range(x.shape[0])`, `while` loops whose test reads the data with a cap on the iterations,
`break`, `continue`, early `return`, lists appended in loops, accumulators that start as
the int 0, helper calls. Values stay bounded (loops run at most a few times, factors of
products in loops are below 1.5 in size), so plain Python returns a finite float.

Generation is typed: every expression is made for a kind, `f` (float scalar) or `a` (float
array) of a shape known when generating. A shape is a tuple of dims: "N" and "M", the dims
of the arguments (written `x.shape[0]`, `len(x)` or as a number in the program), or ints
(slices, stacks, keepdims). Building blocks are the graph fuzzer's: `Expressions` (the
random source and the construct weights), `Var` for names in scope, `merge_scopes` after
control flow.
"""

import dataclasses
import random

from tools.fuzz.expressions import Expressions, Var
from tools.fuzz.generator import Program, _Ctx, _Fn, _indent, merge_scopes

# construct -> (default weight, what it generates)
CONSTRUCTS = {
    "if": (1.0, "if / elif / else on data (x.sum() > c), nested"),
    "ternary": (0.4, "a if x[i] > c else b"),
    "for_const": (0.8, "for over range(3) or range(n), n a Python int argument"),
    "for_dim": (1.0, "for over range(x.shape[0]), range(1, len(x)), reversed: a graph loop"),
    "for_array": (0.5, "for row in X, for e in x, enumerate"),
    "while": (0.8, "while with a test on the data and an iteration cap (also while True: ... break)"),
    "break": (0.5, "if <data>: break inside loops"),
    "continue": (0.4, "if <data>: continue inside loops"),
    "early_return": (0.5, "return inside branches and loops (also in helpers)"),
    "list_append": (0.5, "a list appended to in a loop, then np.stack / sum / [-1]"),
    "widen": (0.6, "s = 0 then s += <float> in a loop: a loop variable whose dtype widens"),
    "item_write": (0.8, "out = np.zeros(...); out[i] = ..., out[i, j] += ..., out[i] = row, slices"),
    "helper": (0.5, "module-level helper functions, with their own control flow"),
    "matmul": (0.8, "@, np.dot, np.matmul: vector and matrix products"),
    "reduce": (1.0, "sum, mean, max, min of all elements, dot products"),
    "reduce_axis": (0.8, "sum, mean, max, min over an axis, keepdims; cumsum"),
    "shape_ops": (0.8, "reshape, transpose, concatenate, stack, [:, None], broadcasting"),
    "index_read": (1.0, "x[i], X[i, j], X[i], X[:, j], x[i:j], x[::-1], x[np.array([...])]"),
    "smooth_math": (1.0, "exp of bounded values, tanh, sin, cos, sqrt/log of v*v + 1, square, **"),
    "piecewise": (0.3, "abs, np.maximum/minimum, np.where, np.clip, builtin max/min"),
    "math_module": (0.2, "math.sin, math.cos, math.tanh, math.exp of bounded scalars"),
    "numpy_more": (0.4, "np.prod, std, var, linalg.norm/det/inv/solve, outer, einsum, cumprod, "
                        "flip, roll, trace, and ops that may have no derivative rule (sort)"),
    "python_scalar": (0.3, "float(s), np.float64(s), pow(s, 2), (s*s + 1) ** 0.5, -s"),
    "closure": (0.3, "a function nested in f (or a lambda) reading f's arguments, called"),
    "zip": (0.3, "for a, b in zip(x, y); for i in reversed(range(...))"),
    "fancy_write": (0.4, "out[[0, 2]] = ..., out[[1, 1]] += ... (repeated), out[1:] += ..., "
                         "out[::2] = ..., masks read: v[v > c]"),
}

MAX_NESTING = 3
MAX_LOOPS = 2
_FLOATS = (0.5, 1.0, 1.5, 2.0, -1.0, 0.25, 3.0, -0.5, 0.75, -2.0)
_FACTORS = ("0.5", "0.9", "-0.7", "1.1", "0.25", "-1.2")
_SMOOTH_UNARY = ("np.tanh(%s)", "np.sin(%s)", "np.cos(%s)", "np.exp(np.tanh(%s))",
                 "np.exp(-np.square(%s))", "np.sqrt(np.square(%s) + 1.0)",
                 "np.log(np.square(%s) + 1.0)", "np.square(%s)", "((%s) ** 2)",
                 "(1.0 / (1.0 + np.square(%s)))", "np.log1p(np.exp(np.sin(%s)))",
                 "np.sinh(np.tanh(%s))", "np.expm1(np.sin(%s))", "np.arctan(%s)",
                 "np.power(np.tanh(%s), 3)", "np.hypot(%s, 1.0)", "np.logaddexp(%s, 0.5)",
                 "np.reciprocal(2.0 + np.sin(%s))", "np.cbrt(np.square(%s) + 1.0)")


@dataclasses.dataclass(frozen=True)
class GVar(Var):
    """A name of a differentiable program: `length` is an array's shape; `owned` marks an
    array this function made (np.zeros, .copy()) and nothing else views, the only arrays
    written in place (writes into a view of an argument would change the caller's array)."""
    owned: bool = False


def _merge(scopes):
    """merge_scopes, keeping `owned` only where every path owns the array."""
    merged = merge_scopes(scopes)
    for name, var in merged.items():
        if var.kind == "a":
            owned = all(s[name].owned and s[name].length == var.length for s in scopes if name in s)
            merged[name] = dataclasses.replace(var, owned=owned)
    return merged


class GradGenerator(Expressions):
    """One differentiable program from one seed; see the module docstring."""

    def __init__(self, seed, weights=None):
        all_weights = {name: w for name, (w, _) in CONSTRUCTS.items()}
        for name, w in (weights or {}).items():
            if name not in all_weights:
                raise ValueError("unknown construct %r (known: %s)" % (name, ", ".join(CONSTRUCTS)))
            all_weights[name] = w
        super().__init__(seed, all_weights)
        self.dims = {}  # "N", "M" -> its size in ARGS
        self.budget = 0

    # -- choosing ----------------------------------------------------------------------------
    def lit_f(self):
        return repr(self.rng.choice(_FLOATS))

    def size(self, dim):
        return dim if isinstance(dim, int) else self.dims[dim]

    def concrete(self, shape):
        return tuple(self.size(d) for d in shape)

    def arrays(self, ctx, shape=None, owned=False):
        return self.defined(ctx, lambda v: v.kind == "a" and (shape is None or v.length == shape)
                            and (v.owned or not owned))

    def shapes(self, ctx):
        return sorted({v.length for v in self.arrays(ctx)}, key=str)

    def dim_expr(self, ctx, dim):
        """Text for a dim: a number, or read from an array in scope (`x.shape[0]`, `len(x)`)."""
        if isinstance(dim, int):
            return str(dim)
        sources = [(v.name, axis) for v in self.arrays(ctx) for axis, d in enumerate(v.length) if d == dim]
        if not sources or self.rng.random() < 0.15:
            return str(self.dims[dim])
        name, axis = self.rng.choice(sources)
        if axis == 0 and self.rng.random() < 0.3:
            return "len(%s)" % name
        return "%s.shape[%d]" % (name, axis)

    def shape_text(self, ctx, shape):
        if len(shape) == 1:
            return self.dim_expr(ctx, shape[0])
        return "(%s)" % ", ".join(self.dim_expr(ctx, d) for d in shape)

    def index(self, ctx, dim):
        """A valid index along a dim of this size: a loop index over it, a constant, -1, or
        another int taken modulo the dim."""
        options = [(None, 5, (lambda v=v: v.name))
                   for v in self.defined(ctx, lambda v: v.kind == "i" and v.index_of == dim)]
        options.append((None, 1.5, lambda: str(self.rng.randrange(self.size(dim)))))
        options.append((None, 0.5, lambda: "-1"))
        others = self.defined(ctx, lambda v: v.kind == "i" and v.index_of != dim)
        if others:
            options.append((None, 1.5, lambda: "%s %% %s" % (self.rng.choice(others).name,
                                                            self.dim_expr(ctx, dim))))
        return self.pick(options)

    # -- float scalars -------------------------------------------------------------------------
    def fexpr(self, ctx, depth):
        deep = depth > 0
        floats = self.defined(ctx, lambda v: v.kind == "f")
        arrays = self.arrays(ctx)
        sub = lambda: self.fexpr(ctx, depth - 1)  # noqa: E731
        options = [
            (None, 1.5, self.lit_f),
            (None, 4 if floats else 0, lambda: self.rng.choice(floats).name),
            ("index_read", 3 if arrays else 0, lambda: self.element(ctx)),
            (None, 3 if deep else 0, lambda: "(%s %s %s)" % (sub(), self.rng.choice("+-*"), sub())),
            (None, 0.7 if deep else 0, lambda: self.safe_division(sub, sub)),
            ("smooth_math", 2 if deep else 0, lambda: self.rng.choice(_SMOOTH_UNARY) % sub()),
            ("reduce", 3 if arrays and deep else 0, lambda: self.reduction(ctx, depth)),
            ("piecewise", 1 if deep else 0, lambda: self.rng.choice((
                "abs(%s)" % sub(), "max(%s, %s)" % (sub(), sub()), "min(%s, %s)" % (sub(), sub()),
                "np.maximum(%s, %s)" % (sub(), sub()), "np.abs(%s)" % sub()))),
            ("ternary", 1 if deep else 0,
             lambda: "(%s if %s else %s)" % (sub(), self.condition(ctx, depth - 1), sub())),
            ("math_module", 1 if deep else 0, lambda: self.rng.choice((
                "math.sin(%s)", "math.cos(%s)", "math.tanh(%s)", "math.exp(math.tanh(%s))")) % sub()),
            ("helper", 2 if deep and self.helpers(ctx, "f") else 0, lambda: self.call(ctx, depth, "f")),
            ("closure", 2 if deep and self.helpers(ctx, "f", closures=True) else 0,
             lambda: self.call(ctx, depth, "f", closures=True)),
            ("python_scalar", 1 if deep else 0, lambda: self.rng.choice((
                "float(%s)", "np.float64(%s)", "pow(%s, 2)", "(np.square(%s) + 1.0) ** 0.5", "(-%s)")) % sub()),
            ("numpy_more", 1.5 if arrays and deep else 0, lambda: self.more_scalar(ctx, depth)),
            ("fancy_write", 0.5 if arrays and deep else 0, lambda: self.masked(ctx, depth)),
        ]
        return self.pick(options)

    def masked(self, ctx, depth):
        shape = self.new_shape(ctx)
        name = self.aexpr(ctx, 0, shape)
        return self.rng.choice(("np.sum(%s[%s > %s])", "np.sum(np.where(%s > %s, %s, 0.0))")) % (
            (name, name, self.lit_f()) if self.rng.random() < 0.5 else (name, self.lit_f(), name))

    def square(self, ctx, depth):
        """A well-conditioned square matrix from the data: 3 I + 0.3 tanh(A A^T)."""
        two_d = [s for s in self.shapes(ctx) if len(s) == 2]
        shape = self.rng.choice(two_d)
        a = self.aexpr(ctx, depth - 1, shape)
        return "(np.eye(%s) * 3.0 + 0.3 * np.tanh((%s) @ (%s).T))" % (
            self.dim_expr(ctx, shape[0]), a, a), shape[0]

    def more_scalar(self, ctx, depth):
        shape = self.new_shape(ctx)
        arr = lambda: self.aexpr(ctx, depth - 1, shape)  # noqa: E731
        spread = [v for v in self.arrays(ctx) if v.fixed and v.name in ("x", "y", "w")
                  and max(self.concrete(v.length)) > 1 and v.name in ctx.scope]
        options = [
            (None, 1, lambda: "np.prod(1.0 + 0.2 * np.tanh(%s))" % arr()),
            (None, 1, lambda: "np.var(%s)" % arr()),
            # np.std's gradient is NaN where all elements are equal (docs/gradients.md), and
            # np.linalg.norm's at 0 (JAX's too): of an argument with distinct elements only.
            (None, 1 if spread else 0, lambda: "np.std(%s)" % self.rng.choice(spread).name),
            (None, 1 if spread else 0, lambda: "np.linalg.norm(%s)" % self.rng.choice(spread).name),
            (None, 0.5, lambda: "np.cumprod(1.0 + 0.2 * np.tanh(%s))[-1]" % arr()),
            (None, 0.3, lambda: "np.sort(%s.ravel())[-1]" % arr()),
            (None, 0.5, lambda: "np.sum(np.flip(%s))" % arr()),
            (None, 0.5, lambda: "np.sum(np.roll(%s, 1) * %s)" % (arr(), arr())),
        ]
        if len(shape) == 1:
            options.append((None, 1, lambda: "np.einsum('i,i->', %s, %s)" % (arr(), arr())))
        if any(len(s) == 2 for s in self.shapes(ctx)):
            options += [
                (None, 1, lambda: "np.linalg.det(%s)" % self.square(ctx, depth)[0]),
                (None, 0.5, lambda: "np.linalg.slogdet(%s)[1]" % self.square(ctx, depth)[0]),
                (None, 0.5, lambda: "np.trace(%s)" % self.square(ctx, depth)[0]),
                (None, 0.7, lambda: "np.sum(np.linalg.inv(%s))" % self.square(ctx, depth)[0]),
                (None, 0.7, lambda: self.solve(ctx, depth)),
            ]
        return self.pick(options)

    def solve(self, ctx, depth):
        matrix, dim = self.square(ctx, depth)
        return "np.sum(np.linalg.solve(%s, %s))" % (matrix, self.aexpr(ctx, depth - 1, (dim,)))

    def safe_division(self, numerator, other):
        return self.rng.choice(("(%s / (1.0 + np.square(%s)))", "(%s / (2.0 + np.cos(%s)))",
                                "(%s / (1.5 + np.tanh(%s)))")) % (numerator(), other())

    def element(self, ctx):
        var = self.rng.choice(self.arrays(ctx))
        if len(var.length) == 1:
            if self.rng.random() < 0.1:
                return "%s[np.argmax(%s)]" % (var.name, var.name)
            return "%s[%s]" % (var.name, self.index(ctx, var.length[0]))
        indices = [self.index(ctx, d) for d in var.length]
        if self.rng.random() < 0.25:
            return "%s%s" % (var.name, "".join("[%s]" % i for i in indices))
        return "%s[%s]" % (var.name, ", ".join(indices))

    def reduction(self, ctx, depth):
        shape = self.new_shape(ctx)
        arr = lambda: self.aexpr(ctx, depth - 1, shape)  # noqa: E731
        options = [
            (None, 3, lambda: self.rng.choice(("np.sum(%s)", "(%s).sum()")) % arr()),
            (None, 1, lambda: self.rng.choice(("np.mean(%s)", "(%s).mean()")) % arr()),
            (None, 1, lambda: self.rng.choice(("np.max(%s)", "np.min(%s)", "(%s).max()")) % arr()),
            (None, 1, lambda: "np.sum(%s * %s)" % (arr(), arr())),
        ]
        if len(shape) == 1:
            options.append(("matmul", 1.5, lambda: self.rng.choice(("(%s @ %s)", "np.dot(%s, %s)")) % (arr(), arr())))
        return self.pick(options)

    # -- float arrays -------------------------------------------------------------------------
    def reachable(self, ctx, shape):
        """Whether a leaf of `shape` can be made from the arrays in scope in one step."""
        have = set(self.shapes(ctx))
        if shape in have:
            return True
        if len(shape) == 2:
            if shape[::-1] in have:
                return True
            if isinstance(shape[0], int) and shape[1:] in have and shape[0] <= 3:
                return True  # a stack
            if shape[1] == 1 and shape[:1] in have:
                return True
        if len(shape) == 1:
            for s in have:
                if len(s) == 2 and shape[0] in s:
                    return True  # a row, a column, a reduction over an axis
                if len(s) == 1 and isinstance(shape[0], int) and shape[0] <= self.size(s[0]):
                    return True  # a slice, an index array
        return False

    def leaf(self, ctx, shape):
        """An array of `shape` from one name in scope, or a constant array."""
        options = [(None, 4, (lambda v=v: v.name)) for v in self.arrays(ctx, shape)]
        for v in self.arrays(ctx):
            s = v.length
            if len(shape) == 2 and s == shape[::-1]:
                options.append(("shape_ops", 1.5, lambda v=v: self.rng.choice(
                    ("%s.T", "np.transpose(%s)", "np.swapaxes(%s, 0, 1)")) % v.name))
            if len(shape) == 2 and isinstance(shape[0], int) and s == shape[1:] and shape[0] <= 3:
                options.append(("shape_ops", 1, lambda v=v: "np.stack([%s])" % ", ".join(
                    [v.name] + ["%s * %s" % (v.name, self.lit_f()) for _ in range(shape[0] - 1)])))
            if len(shape) == 2 and shape[1] == 1 and s == shape[:1]:
                options.append(("shape_ops", 1, lambda v=v: self.rng.choice(
                    ("%s[:, None]", "%s.reshape(-1, 1)", "np.expand_dims(%s, 1)")) % v.name))
            if len(shape) == 1 and len(s) == 2 and shape[0] in s:
                axis = s.index(shape[0])
                options.append(("index_read", 1.5, lambda v=v, axis=axis: (
                    "%s[%s]" % (v.name, self.index(ctx, v.length[0])) if axis == 1 else
                    "%s[:, %s]" % (v.name, self.index(ctx, v.length[1])))))
                options.append(("reduce_axis", 1, lambda v=v, axis=axis: "%s(%s, axis=%d)" % (
                    self.rng.choice(("np.sum", "np.mean", "np.max", "np.min")), v.name, 1 - axis)))
            if len(shape) == 1 and len(s) == 1 and isinstance(shape[0], int) and shape[0] <= self.size(s[0]):
                options.append(("index_read", 1.5, lambda v=v: self.slice_of(v.name, self.size(v.length[0]), shape[0])))
        if isinstance(shape[0], str):
            options.extend(("index_read", 0.5, (lambda v=v: "%s[::-1]" % v.name)) for v in self.arrays(ctx, shape))
        if len(shape) == 2 and isinstance(shape[1], str):
            options.extend(("index_read", 0.3, (lambda v=v: "%s[:, ::-1]" % v.name)) for v in self.arrays(ctx, shape))
        if not options or self.rng.random() < 0.05:
            options.append((None, 1, lambda: "(np.%s(%s) * %s)" % (
                self.rng.choice(("ones", "zeros")), self.shape_text(ctx, shape), self.lit_f())))
        return self.pick(options)

    def slice_of(self, name, size, length):
        steps = [(start, step) for step in (2, 3) for start in range(size)
                 if len(range(start, size, step)) == length]
        if steps and self.rng.random() < 0.25:
            start, step = self.rng.choice(steps)
            return "%s[%s::%d]" % (name, start or "", step)
        if self.rng.random() < 0.35:
            indices = [self.rng.randrange(size) for _ in range(length)]
            form = self.rng.choice(("%s[np.array(%r)]", "%s[%r]"))
            return form % (name, indices)
        start = self.rng.randrange(size - length + 1)
        return "%s[%d:%d]" % (name, start, start + length)

    def aexpr(self, ctx, depth, shape):
        if depth <= 0:
            return self.leaf(ctx, shape)
        sub = lambda: self.aexpr(ctx, depth - 1, shape)  # noqa: E731
        of = lambda s: self.aexpr(ctx, depth - 1, s)  # noqa: E731
        scal = lambda: self.fexpr(ctx, depth - 1)  # noqa: E731
        dims = sorted(self.dims)
        options = [
            (None, 2, lambda: self.leaf(ctx, shape)),
            (None, 3, lambda: "(%s %s %s)" % (sub(), self.rng.choice("+-*"), sub())),
            (None, 2, lambda: "(%s %s %s)" % (sub(), self.rng.choice("+-*"), scal()) if self.rng.random() < 0.7
             else "(%s * %s)" % (scal(), sub())),
            (None, 0.7, lambda: self.safe_division(sub, sub)),
            ("smooth_math", 2, lambda: self.rng.choice(_SMOOTH_UNARY) % sub()),
            ("piecewise", 1, lambda: self.rng.choice((
                "np.maximum(%s, %s)" % (sub(), sub()), "np.minimum(%s, %s)" % (sub(), scal()),
                "np.abs(%s)" % sub(), "np.clip(%s, -1.0, 1.0)" % sub(),
                "np.where(%s > %s, %s, %s)" % (sub(), self.lit_f(), sub(), sub())))),
            ("ternary", 0.6, lambda: "(%s if %s else %s)" % (sub(), self.condition(ctx, depth - 1), sub())),
            ("helper", 2 if self.helpers(ctx, shape) else 0, lambda: self.call(ctx, depth, shape)),
            ("closure", 2 if self.helpers(ctx, shape, closures=True) else 0,
             lambda: self.call(ctx, depth, shape, closures=True)),
            ("numpy_more", 0.3, lambda: "np.flip(%s%s)" % (sub(), ", axis=0" if self.rng.random() < 0.5 else "")),
            ("numpy_more", 0.3, lambda: "np.roll(%s, %d, axis=0)" % (sub(), self.rng.choice((1, -1, 2)))),
        ]
        if len(shape) == 1:
            length = shape[0]
            options.append(("reduce_axis", 0.4, lambda: "np.cumsum(%s)" % sub()))
            for k in dims:
                if self.reachable(ctx, (length, k)) and self.reachable(ctx, (k,)):
                    options.append(("matmul", 1, lambda k=k: self.rng.choice(
                        ("(%s @ %s)", "np.dot(%s, %s)", "np.matmul(%s, %s)")) % (of((length, k)), of((k,)))))
                if self.reachable(ctx, (k, length)) and self.reachable(ctx, (k,)):
                    options.append(("matmul", 0.7, lambda k=k: "(%s @ %s)" % (of((k,)), of((k, length)))))
                if self.reachable(ctx, (length, k)):
                    options.append(("reduce_axis", 1, lambda k=k: "%s(%s, axis=1)" % (
                        self.rng.choice(("np.sum", "np.mean", "np.max", "np.min")), of((length, k)))))
                    options.append(("reduce_axis", 0.5, lambda k=k: "(%s).%s(axis=-1)" % (
                        of((length, k)), self.rng.choice(("sum", "mean", "max")))))
                if self.reachable(ctx, (k, length)):
                    options.append(("reduce_axis", 1, lambda k=k: "%s(%s, axis=0)" % (
                        self.rng.choice(("np.sum", "np.mean", "np.max", "np.min")), of((k, length)))))
            if self.reachable(ctx, (length, 1)):
                options.append(("shape_ops", 0.5, lambda: self.rng.choice(
                    ("(%s).reshape(-1)", "np.squeeze(%s, axis=1)", "(%s).ravel()", "(%s)[:, 0]")) % of((length, 1))))
            if self.size(length) >= 2:
                options.append(("shape_ops", 1, lambda: self.concatenation(ctx, depth, shape)))
            for k in dims:
                if self.reachable(ctx, (length, k)) and self.reachable(ctx, (k,)):
                    options.append(("numpy_more", 0.5, lambda k=k: "np.einsum('ij,j->i', %s, %s)" % (
                        of((length, k)), of((k,)))))
        else:
            a, b = shape
            if self.reachable(ctx, (a,)) and self.reachable(ctx, (b,)):
                options.append(("numpy_more", 0.7, lambda: "np.outer(%s, %s)" % (of((a,)), of((b,)))))
            options.append(("shape_ops", 1, lambda: "(%s %s %s)" % (sub(), self.rng.choice("+-*"), of((b,)))))
            options.append(("shape_ops", 0.7, lambda: "(%s %s %s)" % (
                sub(), self.rng.choice("+-*"), self.rng.choice(("%s[:, None]", "(%s).reshape(-1, 1)")) % of((a,)))))
            options.append(("shape_ops", 1, lambda: self.rng.choice(("(%s).T", "np.transpose(%s)")) % of((b, a))))
            options.append(("shape_ops", 0.5, lambda: "(%s).reshape(%s)" % (
                of((b, a)), self.shape_text(ctx, shape)[1:-1] if self.rng.random() < 0.5 else self.shape_text(ctx, shape))))
            if isinstance(a, int) and a <= 3 and self.reachable(ctx, (b,)):
                options.append(("shape_ops", 1.5, lambda: "np.stack([%s])" % ", ".join(of((b,)) for _ in range(a))))
            if isinstance(b, int) and b <= 3 and self.reachable(ctx, (a,)):
                options.append(("shape_ops", 1, lambda: "np.stack([%s], axis=%s)" % (
                    ", ".join(of((a,)) for _ in range(b)), self.rng.choice(("1", "-1")))))
            for k in dims:
                if self.reachable(ctx, (a, k)) and self.reachable(ctx, (k, b)):
                    options.append(("matmul", 1.2, lambda k=k: self.rng.choice(("(%s @ %s)", "np.matmul(%s, %s)")) % (
                        of((a, k)), of((k, b)))))
            if b == 1:
                for k in dims:
                    if self.reachable(ctx, (a, k)):
                        options.append(("reduce_axis", 1, lambda k=k: "%s(%s, axis=1, keepdims=True)" % (
                            self.rng.choice(("np.sum", "np.mean", "np.max")), of((a, k)))))
            if self.size(a) >= 2:
                options.append(("shape_ops", 0.7, lambda: self.concatenation(ctx, depth, shape)))
        return self.pick(options)

    def concatenation(self, ctx, depth, shape):
        """An array of `shape` joined from pieces of two arrays of that shape (along axis 0)."""
        k = self.rng.randrange(1, self.size(shape[0]))
        first, second = self.aexpr(ctx, depth - 1, shape), self.aexpr(ctx, depth - 1, shape)
        if len(shape) == 2 and self.rng.random() < 0.3:
            return "np.concatenate([(%s)[:%d], (%s)[%d:]])" % (first, k, second, k)
        return "np.concatenate([(%s)[:%d], (%s)[%d:]]%s)" % (
            first, k, second, k, ", axis=0" if len(shape) == 2 and self.rng.random() < 0.5 else "")

    # -- conditions -----------------------------------------------------------------------------
    def condition(self, ctx, depth):
        """A bool on the data (or on a loop index): an `if`, a ternary, a `while` test."""
        ints = self.defined(ctx, lambda v: v.kind == "i")
        arrays = self.arrays(ctx)
        def scalar():  # not a bare number: `if 3.0 < 1.0:` tests nothing
            for _ in range(5):
                text = self.fexpr(ctx, max(depth, 1))
                if not text.lstrip("-").replace(".", "").isdigit():
                    break
            return text
        options = [
            (None, 5, lambda: "%s %s %s" % (scalar(), self.rng.choice((">", "<", ">=")), self.lit_f())),
            (None, 2, lambda: "%s < %s" % (scalar(), scalar())),
            (None, 1.5 if arrays else 0, lambda: "%s.sum() > %s" % (self.rng.choice(arrays).name, self.lit_f())),
            (None, 0.5 if arrays else 0, lambda: "np.any(%s > %s)" % (self.rng.choice(arrays).name, self.lit_f())),
            (None, 0.7 if ints else 0, lambda: "%s %% 2 == 0" % self.rng.choice(ints).name),
            (None, 0.5, lambda: "(%s) and (%s)" % (self.condition(ctx, 0), self.condition(ctx, 0))),
            (None, 0.3, lambda: "not (%s)" % self.condition(ctx, 0)),
        ]
        return self.pick(options)

    # -- helpers ----------------------------------------------------------------------------------
    def helpers(self, ctx, result, closures=False):
        return [h for h in (ctx.fn.closures if closures else ctx.fn.helpers) if h[2] == result]

    def call(self, ctx, depth, result, closures=False):
        name, params, _ = self.rng.choice(self.helpers(ctx, result, closures))
        args = [self.fexpr(ctx, depth - 1) if p == "f" else self.aexpr(ctx, depth - 1, p) for p in params]
        return "%s(%s)" % (name, ", ".join(args))

    def helper(self, name, helpers, arg_shapes):
        shape = self.rng.choice(arg_shapes)
        signatures = [((shape, "f"), "f"), ((shape,), "f"), ((shape,), shape), (("f", "f"), "f"),
                      ((shape, "f"), shape)]
        two_d = [s for s in arg_shapes if len(s) == 2]
        if two_d:
            s = self.rng.choice(two_d)
            signatures.append(((s, (s[1],)), (s[0],)))
        params, result = self.rng.choice(signatures)
        names = ["a", "b", "c"][:len(params)]
        scope = {p: GVar(p, "f" if k == "f" else "a", length=None if k == "f" else k, fixed=True)
                 for p, k in zip(names, params)}
        fn = _Fn(result, helpers=helpers, is_main=False)
        ctx = _Ctx(fn, scope, nesting=1)
        self.budget = self.rng.choice((1, 2, 3))
        body, terminal = self.block(ctx, 3)
        if not terminal:
            body.append(self.returned(ctx))
        return ["def %s(%s):" % (name, ", ".join(names))] + _indent(body), (name, params, result)

    # -- statements --------------------------------------------------------------------------------
    def block(self, ctx, count):
        """Up to `count` statements: (lines, terminal), terminal when every path returns or
        jumps."""
        lines = []
        for _ in range(count):
            if self.budget <= 0:
                break
            stmt, terminal = self.statement(ctx)
            lines += stmt
            if terminal:
                return lines, True
        return lines or ["pass"], False

    def statement(self, ctx):
        self.budget -= 1
        in_loop = bool(ctx.loops)
        can_nest = ctx.nesting < MAX_NESTING and self.budget > 1
        can_loop = can_nest and len(ctx.loops) < MAX_LOOPS
        mutable = self.defined(ctx, lambda v: not v.fixed and v.kind in ("f", "a"))
        main = ctx.fn.is_main
        options = [
            (None, 2, lambda: (self.assign_new(ctx), False)),
            (None, 1 if mutable else 0, lambda: (self.reassign(ctx, mutable), False)),
            (None, 1.5 if mutable else 0, lambda: (self.aug_assign(ctx, mutable), False)),
            ("item_write", 1.5, lambda: (self.item_write(ctx), False)),
            ("if", 2 if can_nest else 0, lambda: self.if_stmt(ctx)),
            ("while", 1 if can_loop else 0, lambda: (self.while_stmt(ctx), False)),
            ("for_const", 1 if can_loop else 0, lambda: (self.for_const(ctx), False)),
            ("for_dim", 1.5 if can_loop else 0, lambda: (self.for_dim(ctx), False)),
            ("for_array", 0.8 if can_loop else 0, lambda: (self.for_array(ctx), False)),
            ("zip", 0.8 if can_loop else 0, lambda: (self.zip_loop(ctx), False)),
            ("break", 1.5 if in_loop else 0, lambda: (self.jump(ctx, "break"), False)),
            ("continue", 1.2 if in_loop else 0, lambda: (self.jump(ctx, "continue"), False)),
            ("early_return", 1, lambda: (self.early_return(ctx), False)),
            ("list_append", 1 if main and can_loop else 0, lambda: (self.list_block(ctx), False)),
            ("widen", 1 if can_loop else 0, lambda: (self.widen_block(ctx), False)),
        ]
        return self.pick(options)

    def bind(self, ctx, var):
        ctx.scope[var.name] = var

    def new_shape(self, ctx):
        """The shape of a new array: mostly one of the arrays in scope, sometimes one made
        from them (a slice's, a stack's, a transpose's, a column's)."""
        shapes = self.shapes(ctx)
        if not shapes:
            return (3,)
        if self.rng.random() < 0.25:
            derived = []
            for s in shapes:
                derived += [(k,) for k in (2, 3) if k <= self.size(s[0]) and len(s) == 1]
                derived += [(2,) + s, (3,) + s, s + (1,)] + ([s + (2,)] if len(s) == 1 else [])
                derived += [s[::-1]] if len(s) == 2 else []
            derived = [s for s in derived if len(s) <= 2 and self.reachable(ctx, s)]
            if derived:
                return self.rng.choice(derived)
        return self.rng.choice(shapes)

    def assign_new(self, ctx):
        if self.rng.random() < 0.45 or not self.arrays(ctx):
            name = self.fresh("u")
            text = self.fexpr(ctx, 2)
            self.bind(ctx, GVar(name, "f"))
            return ["%s = %s" % (name, text)]
        shape = self.new_shape(ctx)
        name = self.fresh("v")
        if self.rng.random() < 0.15:
            text = self.aexpr(ctx, 1, shape)
            self.bind(ctx, GVar(name, "a", length=shape, owned=True))
            return ["%s = (%s).copy()" % (name, text)]
        text = self.aexpr(ctx, 2, shape)
        self.bind(ctx, GVar(name, "a", length=shape))
        return ["%s = %s" % (name, text)]

    def bounded(self, ctx, text):
        """`text`, or in a loop mostly a bounded function of it: a loop applies its updates
        up to ~20 times, and `u += u * u` that often overflows."""
        if ctx.loops and self.rng.random() < 0.85:
            return self.rng.choice(("np.tanh(%s)", "np.sin(%s)", "0.5 * np.tanh(%s)")) % text
        return text

    def update(self, var, ctx, depth=1):
        """A new value for `var` of a bounded size: loops apply it a few times."""
        if ctx.loops:
            shape = var.length
            value = self.fexpr(ctx, depth) if var.kind == "f" else self.aexpr(ctx, depth, shape)
            return self.rng.choice(("np.tanh(%s)" % value, "%s * %s + %s" % (
                var.name, self.rng.choice(_FACTORS), self.bounded(ctx, value))))
        if var.kind == "f":
            return self.rng.choice(("np.tanh(%s)" % self.fexpr(ctx, depth),
                                    "%s * %s + %s" % (var.name, self.rng.choice(_FACTORS), self.fexpr(ctx, depth)),
                                    self.fexpr(ctx, depth)))
        shape = var.length
        return self.rng.choice(("np.tanh(%s)" % self.aexpr(ctx, depth, shape),
                                "%s * %s + %s" % (var.name, self.rng.choice(_FACTORS), self.aexpr(ctx, depth, shape)),
                                self.aexpr(ctx, depth, shape)))

    def reassign(self, ctx, mutable):
        """`v = ...`; an array this function owns stays owned (a loop may write it in place
        before this line in its next iteration): it is written in full, or gets a copy."""
        var = self.rng.choice(mutable)
        text = self.update(var, ctx)
        if var.kind == "a" and var.owned:
            if self.rng.random() < 0.5:
                return ["%s[:] = %s" % (var.name, text)]
            return ["%s = (%s).copy()" % (var.name, text)]
        return ["%s = %s" % (var.name, text)]

    def aug_assign(self, ctx, mutable):
        var = self.rng.choice(mutable)
        if var.kind == "f":
            if self.rng.random() < 0.2:
                return ["%s *= %s" % (var.name, self.rng.choice(_FACTORS + ("np.cos(%s)" % self.fexpr(ctx, 1),)))]
            return ["%s %s %s" % (var.name, self.rng.choice(("+=", "-=", "+=")), self.bounded(ctx, self.fexpr(ctx, 1)))]
        value = self.bounded(ctx, self.aexpr(ctx, 1, var.length) if self.rng.random() < 0.7 else self.fexpr(ctx, 1))
        op = self.rng.choice("+-*") if self.rng.random() < 0.2 else self.rng.choice("+-")
        if op == "*":
            value = self.rng.choice(_FACTORS)
        if var.owned:
            return ["%s %s= %s" % (var.name, op, value)]
        return ["%s = %s %s %s" % (var.name, var.name, op, value)]

    def preallocate(self, ctx):
        shape = self.new_shape(ctx)
        name = self.fresh("out")
        same = self.arrays(ctx, shape)
        form = self.rng.random()
        if same and form < 0.2:
            text = "%s.copy()" % self.rng.choice(same).name
        elif same and form < 0.3:
            text = "np.zeros_like(%s)" % self.rng.choice(same).name
        else:
            text = "np.%s(%s)" % (self.rng.choice(("zeros", "zeros", "ones")), self.shape_text(ctx, shape))
        var = GVar(name, "a", length=shape, owned=True)
        self.bind(ctx, var)
        return ["%s = %s" % (name, text)], var

    def item_write(self, ctx):
        lines = []
        targets = self.arrays(ctx, owned=True)
        if targets and self.rng.random() < 0.75:
            target = self.rng.choice(targets)
        else:
            lines, target = self.preallocate(ctx)
        shape = target.length
        op = self.rng.choice(("=", "=", "+=", "-="))
        if len(shape) == 1 and self.size(shape[0]) >= 2 and self.chance("fancy_write", 0.5):
            size = self.size(shape[0])
            form = self.rng.random()
            if form < 0.4:
                indices = [self.rng.randrange(size) for _ in range(self.rng.choice((2, 3)))]
                value = self.aexpr(ctx, 1, (len(indices),)) if self.reachable(ctx, (len(indices),)) else self.fexpr(ctx, 1)
                lines.append("%s[%s] %s %s" % (target.name, self.rng.choice(("%r", "np.array(%r)")) % indices, op, value))
            elif form < 0.7:
                start = self.rng.randrange(1, size)
                value = self.aexpr(ctx, 1, (size - start,)) if self.reachable(ctx, (size - start,)) else self.fexpr(ctx, 1)
                lines.append("%s[%d:] %s %s" % (target.name, start, self.rng.choice(("+=", "-=", "*=")) if op == "=" else op, value))
            else:
                lines.append("%s[::2] %s %s" % (target.name, op, self.fexpr(ctx, 1)))
            self.used.add("fancy_write")
            return lines
        if len(shape) == 1:
            if isinstance(shape[0], str) and self.size(shape[0]) >= 2 and self.rng.random() < 0.15:
                size = self.size(shape[0])
                start = self.rng.randrange(size - 1)
                stop = self.rng.randrange(start + 1, size + 1)
                value = self.aexpr(ctx, 1, (stop - start,)) if self.reachable(ctx, (stop - start,)) else self.fexpr(ctx, 1)
                lines.append("%s[%d:%d] %s %s" % (target.name, start, stop, op, value))
            else:
                lines.append("%s[%s] %s %s" % (target.name, self.index(ctx, shape[0]), op, self.bounded(ctx, self.fexpr(ctx, 2))))
            return lines
        a, b = shape
        form = self.rng.random()
        if form < 0.45:
            lines.append("%s[%s, %s] %s %s" % (target.name, self.index(ctx, a), self.index(ctx, b), op, self.bounded(ctx, self.fexpr(ctx, 2))))
        elif form < 0.55:
            lines.append("%s[%s][%s] %s %s" % (target.name, self.index(ctx, a), self.index(ctx, b), op, self.bounded(ctx, self.fexpr(ctx, 2))))
        elif form < 0.85:
            lines.append("%s[%s] %s %s" % (target.name, self.index(ctx, a), op, self.aexpr(ctx, 1, (b,))))
        else:
            lines.append("%s[:, %s] %s %s" % (target.name, self.index(ctx, b), op, self.aexpr(ctx, 1, (a,))))
        return lines

    def if_stmt(self, ctx):
        lines = ["if %s:" % self.condition(ctx, 1)]
        ends = []
        bodies = 1 + (self.rng.random() < 0.3)
        has_else = self.rng.random() < 0.6
        for number in range(bodies + has_else):
            if number:
                lines.append("else:" if number == bodies else "elif %s:" % self.condition(ctx, 1))
            inner = ctx.inner()
            body, terminal = self.block(inner, self.rng.choice((1, 2, 2, 3)))
            lines += _indent(body)
            if not terminal:
                ends.append(inner.scope)
        if not has_else:
            ends.append(dict(ctx.scope))
        if not ends:
            return lines, True
        ctx.scope.clear()
        ctx.scope.update(_merge(ends))
        return lines, False

    def loop_body(self, ctx, header, inner, prefix=(), tail=None):
        """The loop's lines; names first bound in the body are unbound after it."""
        body = list(prefix)
        outer = [v for v in self.defined(inner, lambda v: not v.fixed and v.kind in ("f", "a"))
                 if v.name in ctx.scope]
        if outer and self.rng.random() < 0.6:  # most loops update what is live after them
            var = self.rng.choice(outer)
            body += self.aug_assign(inner, [var]) if self.rng.random() < 0.5 else self.reassign(inner, [var])
        stmts, _ = self.block(inner, self.rng.choice((1, 1, 2, 3)))
        body += [] if stmts == ["pass"] and len(body) > len(prefix) else stmts
        if tail:
            body += tail(inner)
        merged = _merge([dict(ctx.scope), inner.scope])
        ctx.scope.clear()
        ctx.scope.update({name: var for name, var in merged.items() if not var.maybe})
        return [header] + _indent(body)

    def bound(self, ctx):
        options = [(None, 2, lambda: str(self.rng.choice((1, 2, 3, 4))))]
        if "n" in ctx.scope:
            options.append((None, 2, lambda: "n"))
        return self.pick(options)

    def for_const(self, ctx, tail=None):
        index = self.fresh("i")
        var = GVar(index, "i", fixed=True)
        inner = ctx.inner(loop=True, index=var)
        inner.scope[index] = var
        return self.loop_body(ctx, "for %s in range(%s):" % (index, self.bound(ctx)), inner, tail=tail)

    def for_dim(self, ctx, tail=None):
        dims = sorted({d for s in self.shapes(ctx) for d in s if isinstance(d, str)})
        if not dims:
            return self.for_const(ctx, tail)
        dim = self.rng.choice(dims)
        index = self.fresh("i")
        size = self.dim_expr(ctx, dim)
        iterable = self.rng.choice(("range(%s)" % size, "range(%s)" % size, "range(1, %s)" % size,
                                    "range(%s - 1, -1, -1)" % size))
        var = GVar(index, "i", index_of=dim, fixed=True)
        inner = ctx.inner(loop=True, index=var)
        inner.scope[index] = var
        return self.loop_body(ctx, "for %s in %s:" % (index, iterable), inner, tail=tail)

    def for_array(self, ctx, tail=None):
        arrays = self.arrays(ctx)
        if not arrays:
            return self.for_const(ctx, tail)
        array = self.rng.choice(arrays)
        element = self.fresh("e" if len(array.length) == 1 else "row")
        inner = ctx.inner(loop=True)
        var = (GVar(element, "f", fixed=True) if len(array.length) == 1
               else GVar(element, "a", length=array.length[1:], fixed=True))
        inner.scope[element] = var
        if self.rng.random() < 0.35:
            index = self.fresh("i")
            inner.scope[index] = GVar(index, "i", index_of=array.length[0], fixed=True)
            header = "for %s, %s in enumerate(%s):" % (index, element, array.name)
        else:
            header = "for %s in %s:" % (element, array.name)
        return self.loop_body(ctx, header, inner, tail=tail)

    def while_stmt(self, ctx, tail=None):
        """A loop whose test reads the data, capped: `c < cap and <test>`, or `while True:`
        counting first and breaking on the data."""
        counter = self.fresh("c")
        var = GVar(counter, "i", fixed=True)
        inner = ctx.inner(loop=True, index=var)
        inner.scope[counter] = var
        cap = self.rng.choice(("2", "3", "4", "5")) if self.rng.random() < 0.7 else self.bound(ctx)
        if self.rng.random() < 0.25:
            prefix = ["%s += 1" % counter, "if %s > %s:" % (counter, cap), "    break"]
            stop = ["if %s:" % self.condition(inner, 1), "    break"]
            lines = ["%s = 0" % counter] + self.loop_body(
                ctx, "while True:", inner, prefix, tail=lambda i: stop + (tail(i) if tail else []))
        else:
            test = self.condition(ctx, 1)
            lines = ["%s = 0" % counter] + self.loop_body(
                ctx, "while %s < %s and %s:" % (counter, cap, test), inner, ["%s += 1" % counter], tail=tail)
        return lines

    def zip_loop(self, ctx, tail=None):
        """for a, b in zip(x, y) over two arrays of the same first dim, or reversed(range)."""
        arrays = self.arrays(ctx)
        pairs = [(p, q) for p in arrays for q in arrays if p.name < q.name and p.length[0] == q.length[0]]
        if not pairs or self.rng.random() < 0.3:
            dims = sorted({s[0] for s in self.shapes(ctx) if isinstance(s[0], str)})
            if not dims:
                return self.for_const(ctx, tail)
            dim = self.rng.choice(dims)
            index = self.fresh("i")
            var = GVar(index, "i", index_of=dim, fixed=True)
            inner = ctx.inner(loop=True, index=var)
            inner.scope[index] = var
            return self.loop_body(ctx, "for %s in reversed(range(%s)):" % (index, self.dim_expr(ctx, dim)), inner, tail=tail)
        p, q = self.rng.choice(pairs)
        inner = ctx.inner(loop=True)
        names = []
        for array in (p, q):
            element = self.fresh("e" if len(array.length) == 1 else "row")
            inner.scope[element] = (GVar(element, "f", fixed=True) if len(array.length) == 1
                                    else GVar(element, "a", length=array.length[1:], fixed=True))
            names.append(element)
        return self.loop_body(ctx, "for %s, %s in zip(%s, %s):" % (names[0], names[1], p.name, q.name), inner, tail=tail)

    def any_loop(self, ctx, tail):
        return self.pick([
            ("for_dim", 2, lambda: self.for_dim(ctx, tail)),
            ("for_const", 1, lambda: self.for_const(ctx, tail)),
            ("for_array", 0.7, lambda: self.for_array(ctx, tail)),
            ("while", 1, lambda: self.while_stmt(ctx, tail)),
        ])

    def jump(self, ctx, keyword):
        return ["if %s:" % self.condition(ctx, 1), "    " + keyword]

    def returned(self, ctx):
        result = ctx.fn.spec
        if result == "f":
            return "return %s" % self.fexpr(ctx, 2)
        if result == "loss":
            return "return %s" % self.loss(ctx)
        return "return %s" % self.aexpr(ctx, 2, result)

    def loss(self, ctx):
        """A float scalar for sure (a scalar name may still hold the int 0 of a widening
        accumulator): a reduction of an array is part of it."""
        arr = self.aexpr(ctx, 2, self.new_shape(ctx))
        return self.rng.choice(("np.sum(%s)" % arr, "%s + np.mean(%s)" % (self.fexpr(ctx, 2), arr),
                                "np.tanh(%s) + np.sum(np.square(%s))" % (self.fexpr(ctx, 2), arr),
                                "%s * %s + np.sum(%s)" % (self.fexpr(ctx, 1), self.fexpr(ctx, 1), arr)))

    def early_return(self, ctx):
        return ["if %s:" % self.condition(ctx, 1), "    " + self.returned(ctx)]

    def list_block(self, ctx):
        """vals = [...]; a loop appending to it; a value read from the list after it."""
        name = self.fresh("vals")
        scalar = self.rng.random() < 0.4 or not self.arrays(ctx)
        shape = None if scalar else self.new_shape(ctx)
        if scalar:
            start = self.rng.choice(("[]", "[]", "[%s]" % self.lit_f()))
        else:  # never empty: np.stack of an empty list raises
            start = "[%s]" % self.aexpr(ctx, 1, shape)

        def append(inner):
            value = self.fexpr(inner, 2) if scalar else self.aexpr(inner, 2, shape)
            if value in inner.scope:  # a copy: the array may be written in place later
                value = "%s.copy()" % value if not scalar else value
            return ["%s.append(%s)" % (name, value)]

        lines = ["%s = %s" % (name, start)] + self.any_loop(ctx, append)
        result = self.fresh("u" if scalar or self.rng.random() < 0.5 else "v")
        if scalar:
            read = self.rng.choice(("sum(%s)", "np.sum(np.array(%s))" if start != "[]" else "sum(%s)",
                                    "np.sum(np.stack(%s))" if start != "[]" else "sum(%s, 0.0)",
                                    "%s[-1]" if start != "[]" else "sum(%s)")) % name
            self.bind(ctx, GVar(result, "f"))
        elif result.startswith("u"):
            read = self.rng.choice(("np.sum(np.stack(%s))", "np.sum(np.square(np.stack(%s)))",
                                    "np.max(np.stack(%s))")) % name
            self.bind(ctx, GVar(result, "f"))
        else:
            read = self.rng.choice(("np.stack(%s).sum(axis=0)", "np.mean(np.stack(%s), axis=0)",
                                    "%s[-1]", "sum(%s)")) % name
            self.bind(ctx, GVar(result, "a", length=shape))
        return lines + ["%s = %s" % (result, read)]

    def widen_block(self, ctx):
        """An accumulator that starts as the int 0 and becomes a float (or an array) in the
        loop; read after it."""
        name = self.fresh("s")
        array = self.rng.random() < 0.2 and self.arrays(ctx)
        shape = self.new_shape(ctx) if array else None

        def add(inner):
            value = self.aexpr(inner, 1, shape) if array else self.fexpr(inner, 2)
            return [self.rng.choice(("%s += %s" % (name, value), "%s = %s + %s" % (name, name, value)))]

        lines = ["%s = 0" % name] + self.any_loop(ctx, add)
        if array:
            result = self.fresh("u")
            self.bind(ctx, GVar(result, "f"))
            return lines + ["%s = np.sum(%s)" % (result, name)]
        self.bind(ctx, GVar(name, "f"))
        return lines

    # -- the module -------------------------------------------------------------------------------
    def params(self):
        """(name, kind, shape) of f's parameters."""
        self.dims["N"] = self.rng.choice((1, 2, 3, 3, 4, 4))
        layout = self.rng.choice(("x", "x", "xy", "xW", "X", "Xy", "XY"))
        params = []
        if "M" in layout or any(c in layout for c in "XW"):
            self.dims["M"] = self.rng.choice((1, 2, 3, 3, 4))
        if layout.startswith("x"):
            params.append(("x", "a", ("N",)))
        else:
            params.append(("x", "a", ("N", "M")))
        if layout == "xy":
            params.append(("y", "a", ("N",)))
        elif layout == "xW":
            params.append(("w", "a", ("N", "M")))
        elif layout == "Xy":
            params.append(("y", "a", ("M",)))
        elif layout == "XY":
            params.append(("y", "a", ("M", "N")))
        if self.rng.random() < 0.35:
            params.append(("t", "f", None))
        if self.rng.random() < 0.3:
            params.append(("n", "i", None))
        return params

    def argument(self, kind, shape, n):
        rng = self.rng
        if kind == "i":
            return str(n)
        if kind == "f":
            return repr(round(rng.uniform(-1.5, 1.5), 3)) if rng.random() < 0.7 else \
                "np.float64(%r)" % round(rng.uniform(-1.5, 1.5), 3)
        size = 1
        for d in self.concrete(shape):
            size *= d
        values = set()
        while len(values) < size:  # distinct sizes: no ties of max or abs by accident
            value = round(rng.uniform(-1.5, 1.5), 3)
            if abs(value) > 0.01 and abs(value) not in {abs(v) for v in values}:
                values.add(value)
        values = list(values)
        rng.shuffle(values)
        if len(shape) == 2:
            cols = self.size(shape[1])
            values = [values[r * cols:(r + 1) * cols] for r in range(self.size(shape[0]))]
        return "np.array(%r)" % values

    def module(self):
        params = self.params()
        lines = ["# gradient fuzz program, seed %s (tools/fuzz/grad_programs.py)" % self.seed,
                 "import math", "import numpy as np", ""]
        arg_shapes = [shape for _, kind, shape in params if kind == "a"]
        helpers = []
        for number in range(2):
            if self.chance("helper", 0.7):
                self.used.add("helper")
                text, signature = self.helper("h%d" % (number + 1), list(helpers), arg_shapes)
                helpers.append(signature)
                lines += ["", *text, ""]
        scope = {}
        for name, kind, shape in params:
            if kind == "i":
                scope[name] = GVar(name, "i", fixed=True)
            else:
                scope[name] = GVar(name, kind, length=shape, fixed=True)
        ctx = _Ctx(_Fn("loss", helpers=helpers), scope)
        self.budget = self.rng.choice((4, 6, 8, 10, 12))
        body = self.closures(ctx) if self.chance("closure", 0.6) else []
        stmts, terminal = self.block(ctx, 30)
        body += stmts
        if not terminal:
            body.append(self.returned(ctx))
        lines += ["", "def f(%s):" % ", ".join(name for name, _, _ in params)] + _indent(body)
        n = self.rng.randrange(0, 5)
        variants = ["    (%s)," % " ".join(self.argument(kind, shape, n) + "," for _, kind, shape in params)
                    for _ in range(self.rng.choice((1, 2)))]
        lines += ["", "", "ARGS = ["] + variants + ["]"]
        floats = [name for name, kind, _ in params if kind in ("a", "f")]
        if len(floats) > 1 and self.rng.random() < 0.25:
            # Differentiate with respect to some of them (tools/fuzz/grad_check.py reads WRT).
            lines += ["WRT = %r" % (tuple(sorted(self.rng.sample(floats, len(floats) - 1))),)]
        return "\n".join(lines) + "\n"

    def closures(self, ctx):
        """A function nested in f, or a lambda, reading f's arguments; callable afterwards."""
        self.used.add("closure")
        name = self.fresh("g")
        shapes = self.shapes(ctx)
        if self.rng.random() < 0.5 or not shapes:
            param, result = ("f",), "f"
            inner = _Ctx(ctx.fn, dict(ctx.scope, v=GVar("v", "f", fixed=True)))
            value = self.rng.choice(("np.tanh(v * %s)", "v * v + %s", "v / (1.0 + np.square(%s))")) % self.fexpr(inner, 1)
        else:
            shape = self.rng.choice(shapes)
            param, result = (shape,), shape
            inner = _Ctx(ctx.fn, dict(ctx.scope, v=GVar("v", "a", length=shape, fixed=True)))
            value = self.rng.choice(("v * %s", "np.tanh(v) + %s", "v * v - %s")) % self.fexpr(inner, 1)
        ctx.fn.closures.append((name, param, result))
        if self.rng.random() < 0.4:
            return ["%s = lambda v: %s" % (name, value)]
        return ["def %s(v):" % name, "    return %s" % value]


def generate(seed, weights=None, focus=()):
    """The program of `seed`: a `Program` whose source defines `f` and `ARGS`; `focus`
    makes the named constructs 6x as likely and regenerates until each appears."""
    if focus:
        weights = dict(weights or {})
        for name in focus:
            weights[name] = CONSTRUCTS[name][0] * 6 if name not in weights else weights[name] * 6
    for attempt in range(50):
        gen = GradGenerator(seed if not attempt else "%d/%d" % (seed, attempt), weights)
        source = gen.module()
        if all(name in gen.used for name in focus):
            break
    return Program(seed, source, frozenset(gen.used))
