"""Typed expressions for the fuzz program generator (tools/fuzz/generator.py): every
expression is generated for a kind (`f` float scalar, `i` int, `b` bool, `a` float array, `ai`
int array) and arrays for a length class, from the names in scope, so that it is valid where
it is used. `Expressions` is the generator's base class: it holds the random source, the
construct weights and the names of the constructs used.
"""

import dataclasses
import random

_FLOATS = (0.5, 1.0, 1.5, 2.0, -1.0, 0.25, 3.0, 0.0, -0.5, 2.5)


@dataclasses.dataclass(frozen=True)
class Var:
    name: str
    kind: str  # f i b a ai list obj:<Class>
    length: object = None  # arrays: "n", "g" or an int
    maybe: bool = False  # may be undefined here (first bound in a loop or one branch)
    small: bool = False  # an int in 0..5 that is never reassigned: a safe range bound
    index_of: object = None  # an int that is a valid index into arrays of this length class
    fixed: bool = False  # loop targets, counters, arguments used as bounds: never reassigned
    zero_d: bool = False  # a 0-d array (the argument k0 or an alias of it)



class Expressions:
    """Choosing, names in scope, expressions and calls; see the module docstring."""

    def __init__(self, seed, weights):
        self.rng = random.Random(seed)
        self.seed = seed
        self.weights = weights
        self.used = set()
        self.counter = 0

    # -- choosing --------------------------------------------------------------------------
    def chance(self, construct, scale=1.0):
        """True with a probability growing with the construct's weight (0 never)."""
        w = self.weights[construct] * scale
        return w > 0 and self.rng.random() < w / (w + 2.0)

    def pick(self, options):
        """options: (construct or None, base weight, thunk); runs the chosen thunk."""
        live = [(c, w * (self.weights[c] if c else 1.0), t) for c, w, t in options if w > 0]
        live = [o for o in live if o[1] > 0]
        total = sum(w for _, w, _ in live)
        r = self.rng.random() * total
        for construct, w, thunk in live:
            r -= w
            if r <= 0:
                break
        if construct:
            self.used.add(construct)
        return thunk()

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def lit_f(self):
        return repr(self.rng.choice(_FLOATS))

    def lit_i(self):
        return str(self.rng.choice((0, 1, 2, 3, -1, 4, 5, -2)))

    # -- names in scope --------------------------------------------------------------------
    @staticmethod
    def defined(ctx, pred, allow_maybe=False):
        return [v for v in ctx.scope.values() if (allow_maybe or not v.maybe) and pred(v)]

    def scalars(self, ctx, kinds):
        return self.defined(ctx, lambda v: v.kind in kinds)

    def arrays(self, ctx, kind="a", length=None):
        return self.defined(ctx, lambda v: v.kind == kind and (length is None or v.length == length))

    def lengths(self, ctx):
        """Length classes arrays can be made of here ("g" only by growing)."""
        found = {v.length for v in self.defined(ctx, lambda v: v.kind in ("a", "ai"))}
        found.discard("g")
        return sorted(found | {3}, key=str)

    def length_expr(self, ctx, length):
        if isinstance(length, int):
            return str(length)
        sources = self.defined(ctx, lambda v: v.kind in ("a", "ai") and v.length == length)
        src = self.rng.choice(sources).name
        return self.rng.choice(("%s.shape[0]" % src, "len(%s)" % src))

    def bound(self, ctx):
        """A small non-negative int expression: a safe range bound."""
        options = [(None, 2, lambda: str(self.rng.choice((0, 1, 2, 3, 4))))]
        small = self.defined(ctx, lambda v: v.small)
        if small:
            options.append((None, 2, lambda: self.rng.choice(small).name))
        dims = [length for length in self.lengths(ctx) if length == "n"]
        if dims:
            options.append((None, 4, lambda: self.length_expr(ctx, "n")))
        return self.pick(options)

    def index(self, ctx, length):
        """A valid index into an array of this length class, or None."""
        options = [(None, 5, (lambda v=v: v.name)) for v in
                   self.defined(ctx, lambda v: v.index_of == length and v.index_of is not None)]
        if isinstance(length, int):
            options.append((None, 1, lambda: str(self.rng.randrange(length))))
            options.append((None, 0.5, lambda: "-1"))
            # Only counters and loop indices: a name whose kind changes in a loop is never an index.
            ints = self.defined(ctx, lambda v: v.kind == "i" and v.fixed)
            if ints:
                options.append((None, 0.5, lambda: "%s %% %d" % (self.rng.choice(ints).name, length)))
        elif length == "n":
            options.append((None, 0.6, lambda: self.rng.choice(("0", "-1"))))
        elif length == "g":
            options.append((None, 0.2, lambda: "-1"))
        if not options:
            return None
        return self.pick(options)

    # -- expressions -----------------------------------------------------------------------
    def expr(self, kind, ctx, depth, length=None):
        if kind == "f":
            return self.fexpr(ctx, depth)
        if kind == "i":
            return self.iexpr(ctx, depth)
        if kind == "b":
            return self.bexpr(ctx, depth)
        if kind in ("a", "ai"):
            if length is None:
                length = self.rng.choice(self.lengths(ctx))
            return self.aexpr(ctx, depth, length, kind)
        raise ValueError(kind)

    def scalar(self, ctx, depth):
        return self.expr(self.rng.choice("ffi"), ctx, depth)

    def element(self, ctx, kinds):
        """x[i] of an array of one of `kinds` with a valid index, or None."""
        candidates = []
        for var in self.defined(ctx, lambda v: v.kind in kinds):
            idx = self.index(ctx, var.length)
            if idx is not None:
                candidates.append("%s[%s]" % (var.name, idx))
        return self.rng.choice(candidates) if candidates else None

    def fexpr(self, ctx, depth):
        deep = depth > 0
        floats = self.scalars(ctx, ("f",))
        ints_bools = self.scalars(ctx, ("i", "b"))
        elem = self.element(ctx, ("a",))
        arrays = self.arrays(ctx)
        objs = self.defined(ctx, lambda v: v.kind.startswith("obj:"))
        lists = self.defined(ctx, lambda v: v.kind == "list")
        sub = lambda: self.fexpr(ctx, depth - 1)  # noqa: E731
        options = [
            (None, 2, self.lit_f),
            ("list_append", 1 if lists else 0, lambda: "sum(%s, 0.0)" % self.rng.choice(lists).name),
            ("list_append", 0.3 if lists else 0, lambda: "%s[-1]" % self.rng.choice(lists).name),
            (None, 4 if floats else 0, lambda: self.rng.choice(floats).name),
            (None, 3 if elem else 0, lambda: elem),
            (None, 2 if deep else 0, lambda: "(%s %s %s)" % (sub(), self.rng.choice("+-"), sub())),
            (None, 1 if deep else 0, lambda: "(%s * %s)" % (sub(), self.factor(ctx, depth))),
            (None, 0.5 if deep else 0, lambda: "(%s / (abs(%s) + 1.0))" % (sub(), sub())),
            (None, 0.6 if deep else 0, lambda: "%s(%s, %s)" % (self.rng.choice(("max", "min")), sub(), sub())),
            (None, 0.3 if deep else 0, lambda: "abs(%s)" % sub()),
            ("numpy_math", 1.5 if deep else 0, lambda: self.np_scalar(ctx, depth)),
            ("numpy_math", 1.2 if arrays and deep else 0, lambda: self.reduction(ctx, depth)),
            ("mixing", 1 if ints_bools else 0, lambda: self.mixed_f(ctx, depth, ints_bools)),
            ("ternary", 0.7 if deep else 0,
             lambda: "(%s if %s else %s)" % (sub(), self.bexpr(ctx, depth - 1), sub())),
            ("logic", 0.2 if deep else 0, lambda: "(%s %s %s)" % (sub(), self.rng.choice(("or", "and")), sub())),
            ("helper", 1.5 if deep and self.helpers_returning(ctx, "f") else 0,
             lambda: self.call_helper(ctx, depth, "f")),
            ("closure", 1.5 if deep and ctx.fn.closures else 0, lambda: self.call_closure(ctx, depth)),
            ("method", 1.5 if objs else 0, lambda: self.method_value(ctx, depth, objs, "f")),
        ]
        return self.pick(options)

    def factor(self, ctx, depth):
        """A multiplier of bounded size: products never square a value, so values updated in
        loops grow at most geometrically (no float overflow, no int64 overflow)."""
        return self.pick([
            (None, 3, self.lit_f),
            ("numpy_math", 1, lambda: "np.exp(-np.abs(%s))" % self.fexpr(ctx, depth - 1)),
            ("numpy_math", 0.5, lambda: "np.sqrt(np.abs(%s))" % self.lit_f()),
        ])

    def np_scalar(self, ctx, depth):
        sub = lambda: self.fexpr(ctx, depth - 1)  # noqa: E731
        return self.pick([
            (None, 1, lambda: "np.exp(-np.abs(%s))" % sub()),
            (None, 1, lambda: "np.sqrt(np.abs(%s))" % sub()),
            (None, 1, lambda: "np.maximum(%s, %s)" % (sub(), sub())),
            (None, 0.6, lambda: "np.minimum(%s, %s)" % (sub(), sub())),
            (None, 0.8, lambda: "np.abs(%s)" % sub()),
            (None, 0.4, lambda: "np.floor(%s)" % sub()),
            (None, 0.4, lambda: "np.where(%s, %s, %s)" % (self.bexpr(ctx, depth - 1), sub(), sub())),
            (None, 0.3, lambda: "np.float64(%s)" % sub()),
        ])

    def reduction(self, ctx, depth):
        length = self.rng.choice([v.length for v in self.arrays(ctx)])
        arr = lambda: self.aexpr(ctx, depth - 1, length)  # noqa: E731
        return self.pick([
            (None, 3, lambda: "np.sum(%s)" % arr()),
            (None, 0.5, lambda: "np.mean(%s)" % arr() if length != "g" and length != "n" else "np.sum(%s)" % arr()),
            (None, 0.5, lambda: "np.max(%s)" % arr()),  # empty: ValueError on both sides
            (None, 0.3, lambda: "np.min(%s)" % arr()),
            (None, 0.5, lambda: "np.dot(%s, %s)" % (arr(), arr())),
        ])

    def mixed_f(self, ctx, depth, ints_bools):
        var = self.rng.choice(ints_bools).name
        return self.rng.choice((
            "float(%s)" % var, "(%s * 0.5)" % var, "(%s + %s)" % (var, self.fexpr(ctx, depth - 1)), var))

    def iexpr(self, ctx, depth):
        deep = depth > 0
        ints = self.scalars(ctx, ("i",))
        floats = self.scalars(ctx, ("f",))
        bools = self.scalars(ctx, ("b",))
        elem = self.element(ctx, ("ai",))
        sized = self.defined(ctx, lambda v: v.kind in ("a", "ai", "list"))
        int_arrays = self.arrays(ctx, "ai")
        objs = self.defined(ctx, lambda v: v.kind.startswith("obj:"))
        sub = lambda: self.iexpr(ctx, depth - 1)  # noqa: E731
        options = [
            (None, 2, self.lit_i),
            (None, 4 if ints else 0, lambda: self.rng.choice(ints).name),
            (None, 1.5 if sized else 0, lambda: self.size_of(self.rng.choice(sized))),
            (None, 3 if elem else 0, lambda: elem),
            (None, 3 if deep else 0, lambda: "(%s %s %s)" % (sub(), self.rng.choice("+-"), sub())),
            (None, 1 if deep else 0, lambda: "(%s %s)" % (sub(), self.rng.choice(("* 2", "// 2", "% 3", "- 1")))),
            (None, 0.5 if deep else 0, lambda: "%s(%s, %s)" % (self.rng.choice(("max", "min")), sub(), sub())),
            ("mixing", 1 if floats and deep else 0, lambda: "int(%s)" % self.fexpr(ctx, depth - 1)),
            ("mixing", 1 if bools else 0,
             lambda: self.rng.choice(("(%s + %s)" % (self.rng.choice(bools).name, sub()),
                                      "int(%s)" % self.rng.choice(bools).name))),
            ("numpy_math", 1 if int_arrays and deep else 0,
             lambda: "np.sum(%s)" % self.aexpr(ctx, depth - 1, self.rng.choice(int_arrays).length, "ai")),
            ("numpy_math", 0.3 if self.arrays(ctx) and deep else 0,
             lambda: "np.argmax(%s)" % self.rng.choice(self.arrays(ctx)).name),
            ("ternary", 0.6 if deep else 0,
             lambda: "(%s if %s else %s)" % (sub(), self.bexpr(ctx, depth - 1), sub())),
            ("helper", 1.5 if deep and self.helpers_returning(ctx, "i") else 0,
             lambda: self.call_helper(ctx, depth, "i")),
            ("method", 1 if objs else 0, lambda: self.method_value(ctx, depth, objs, "i")),
        ]
        return self.pick(options)

    def size_of(self, var):
        if var.kind == "list" or self.rng.random() < 0.4:
            return "len(%s)" % var.name
        return "%s.shape[0]" % var.name

    def bexpr(self, ctx, depth):
        deep = depth > 0
        bools = self.scalars(ctx, ("b",))
        arrays = self.arrays(ctx)
        sub = lambda: self.bexpr(ctx, depth - 1)  # noqa: E731
        scalar = lambda: self.scalar(ctx, depth - 1 if deep else 0)  # noqa: E731
        ops = ("<", "<=", ">", ">=", "==", "!=")
        options = [
            (None, 0.3, lambda: self.rng.choice(("True", "False"))),
            (None, 2 if bools else 0, lambda: self.rng.choice(bools).name),
            (None, 4, lambda: "(%s %s %s)" % (scalar(), self.rng.choice(ops[:4] * 3 + ops[4:]), scalar())),
            ("chained_compare", 1.5, lambda: self.chained(ctx, depth)),
            ("logic", 1.5 if deep else 0, lambda: "(%s %s %s)" % (sub(), self.rng.choice(("and", "or")), sub())),
            ("logic", 0.8 if deep else 0, lambda: "(not %s)" % sub()),
            ("logic", 0.4 if deep else 0,
             lambda: "(%s %s %s %s %s)" % (sub(), self.rng.choice(("and", "or")), sub(),
                                           self.rng.choice(("and", "or")), sub())),
            ("ternary", 0.6 if deep else 0, lambda: "(%s if %s else %s)" % (sub(), sub(), sub())),
            ("ternary", 0.6 if deep else 0,  # a conditional expression inside and/or
             lambda: "(%s %s (%s if %s else %s))" % (sub(), self.rng.choice(("and", "or")), sub(), sub(), sub())),
            ("numpy_math", 0.8 if arrays and deep else 0,
             lambda: "np.%s(%s %s %s)" % (self.rng.choice(("all", "any")), self.rng.choice(arrays).name,
                                          self.rng.choice(ops[:4]), self.lit_f())),
            ("mixing", 0.4, lambda: "bool(%s)" % self.iexpr(ctx, depth - 1 if deep else 0)),
        ]
        return self.pick(options)

    def chained(self, ctx, depth):
        scalar = lambda: self.scalar(ctx, depth - 1 if depth > 0 else 0)  # noqa: E731
        if self.rng.random() < 0.5:
            low = self.rng.choice((-1, 0, 0.5, 1))
            high = low + self.rng.choice((1, 2, 3, 5))
            ops = self.rng.choice((("<", "<"), ("<=", "<"), ("<", "<="), ("<=", "<=")))
            return "(%s %s %s %s %s)" % (low, ops[0], scalar(), ops[1], high)
        parts = [scalar() for _ in range(self.rng.choice((3, 3, 4)))]
        text = parts[0]
        for part in parts[1:]:
            text += " %s %s" % (self.rng.choice(("<", "<=", ">", "!=")), part)
        return "(%s)" % text

    def aexpr(self, ctx, depth, length, kind="a"):
        deep = depth > 0
        same = self.arrays(ctx, kind, length)
        int_same = self.arrays(ctx, "ai", length)
        objs = [v for v in self.defined(ctx, lambda v: v.kind == "obj:Buf") if length == "n"]
        lists = self.defined(ctx, lambda v: v.kind == "list")
        sub = lambda: self.aexpr(ctx, depth - 1, length, kind)  # noqa: E731
        scal = (lambda: self.iexpr(ctx, depth - 1)) if kind == "ai" else (lambda: self.fexpr(ctx, depth - 1))
        creatable = length != "g"
        dtype = ", dtype=np.int64" if kind == "ai" else ""
        options = [
            (None, 4 if same else 0, lambda: self.rng.choice(same).name),
            (None, 2 if creatable else 0,
             lambda: "np.%s(%s%s)" % (self.rng.choice(("zeros", "ones")), self.length_expr(ctx, length), dtype)),
            (None, 0.5 if creatable and same else 0,
             lambda: "np.zeros_like(%s)" % self.rng.choice(same).name),
            (None, 3 if deep and (same or creatable) else 0,
             lambda: "(%s %s %s)" % (sub(), self.rng.choice("+-"), self.rng.choice((sub, scal))())),
            (None, 1 if deep and (same or creatable) else 0,
             lambda: "(%s * %s)" % (sub(), "2" if kind == "ai" else self.factor(ctx, depth))),
        ]
        if kind == "a":
            options += [
                ("numpy_math", 2 if deep else 0, lambda: self.rng.choice((
                    "np.exp(-np.abs(%s))" % sub(), "np.sqrt(np.abs(%s))" % sub(),
                    "np.maximum(%s, %s)" % (sub(), scal()), "np.abs(%s)" % sub(),
                    "np.minimum(%s, %s)" % (sub(), sub())))),
                ("numpy_math", 1 if deep else 0,
                 lambda: "np.where(%s %s %s, %s, %s)" % (sub(), self.rng.choice(("<", ">")), self.lit_f(),
                                                         sub(), scal())),
                ("numpy_math", 0.4 if deep else 0, lambda: "np.cumsum(%s)" % sub()),
                ("mixing", 1 if int_same else 0, lambda: "(%s * 0.5)" % self.rng.choice(int_same).name),
                ("mixing", 0.5 if deep and creatable else 0,
                 lambda: "np.arange(%s) * %s" % (self.length_expr(ctx, length), self.lit_f())),
                ("ternary", 0.5 if deep else 0, lambda: "(%s if %s else %s)" % (sub(), self.bexpr(ctx, depth - 1), sub())),
                ("helper", 1.5 if deep and length == "n" and self.helpers_returning(ctx, "a") else 0,
                 lambda: self.call_helper(ctx, depth, "a")),
                ("method", 1 if objs else 0, lambda: "%s.data" % self.rng.choice(objs).name),
                ("list_append", 1 if length == "g" and lists else 0, lambda: "np.array(%s)" % self.rng.choice(lists).name),
            ]
        options = [o for o in options if o[1] > 0]
        if not options:  # a grown array that is not in scope any more: start a new one
            return "np.zeros(0%s)" % dtype
        return self.pick(options)

    # -- calls -----------------------------------------------------------------------------
    def helpers_returning(self, ctx, kind):
        return [h for h in ctx.fn.helpers if h[2] == kind]

    def call_helper(self, ctx, depth, kind):
        name, params, _ = self.rng.choice(self.helpers_returning(ctx, kind))
        if "a" in params and not self.arrays(ctx, "a", "n"):
            # A helper taking an array, called from a helper that has none: a constant
            # instead (chosen so that the programs of other seeds stay as they are).
            return self.lit_i() if kind == "i" else self.lit_f()
        args = [self.expr(p, ctx, depth - 1, "n" if p == "a" else None) for p in params]
        return self.none_default("%s(%s)" % (name, ", ".join(args)), kind)

    def call_closure(self, ctx, depth):
        name, _ = self.rng.choice(ctx.fn.closures)
        return "%s(%s)" % (name, self.fexpr(ctx, depth - 1))

    def method_value(self, ctx, depth, objs, kind):
        obj = self.rng.choice(objs)
        cls = obj.kind.split(":")[1]
        if cls == "Acc":
            if kind == "i":
                return "%s.count" % obj.name
            return self.rng.choice(("%s.total" % obj.name, "%s.add(%s)" % (obj.name, self.fexpr(ctx, depth - 1)),
                                    "%s.mean()" % obj.name))
        if kind == "i":
            return "%s.size" % obj.name
        return "%s.total()" % obj.name
