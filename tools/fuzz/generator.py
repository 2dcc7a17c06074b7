"""Random valid programs over NumPy scalars and 1-d arrays: the input of the differential
fuzzer of graph mode (tools/fuzz/compare.py).

`generate(seed)` returns a `Program`: the text of one small module holding a function `f`,
maybe module-level helpers and a class with state, and `ARGS`, two tuples of arguments with
the same types (the second call of a staged function must reuse its trace). The same seed
and weights give the same text. Plain Python runs every program (or raises) deterministically
in well under a second: loops run over small ranges or arrays of length 0..5, a `while`
always counts a counter first and stops at a small bound, values stay small (no `**`,
division only by `abs(...) + 1.0`, integer `//` and `%` only by constants), and no value
reaches NaN or int64 overflow. With `narrow_dtypes` the array arguments are float32 or int32
(and k0, c0 float32): the program's text stays as it was, NumPy's promotion rules (NEP 50:
Python numbers are weak) decide which values stay narrow.

Programs are typed as they are written: every expression is generated for a kind (`f` float
scalar, `i` int, `b` bool, `a` float array, `ai` int array) and arrays for a length class
(`"n"`: the length of the array arguments; an int: a fixed length; `"g"`: grown in a loop), so
an array never lands where Python needs a scalar, and indices are valid for their array
(loop indices over its length, constants below a fixed length) except where a construct asks
for invalid programs on purpose: `loop_defined` reads names a loop or one branch may leave
undefined, and `x[0]`/`x[-1]` of an argument raise IndexError when the arguments are empty.
Those programs are part of the comparison: graph mode must raise what Python raises.

`CONSTRUCTS` names every construct with its default weight; `generate(seed, weights=...)`
scales them, and `focus=` makes the named constructs 6x as likely and regenerates
(deterministically) until each appears, so a run can target one construct.
"""

import dataclasses
import random
from typing import NamedTuple

from tools.fuzz.expressions import Expressions, Var

# construct -> (default weight, what it generates)
CONSTRUCTS = {
    "if": (1.0, "if / elif / else, nested"),
    "while": (0.6, "while bounded by a counter that the body increments first"),
    "for_range": (1.0, "for over range(...) of constants, n and x.shape[0] / len(x)"),
    "for_array": (0.5, "for over an array, also enumerate"),
    "break": (0.5, "if ...: break inside loops"),
    "continue": (0.4, "if ...: continue inside loops"),
    "early_return": (0.5, "return inside branches and loops (also in helpers)"),
    "aug_assign": (1.0, "+= -= *= on scalars and arrays (also on arguments)"),
    "item_assign": (0.8, "out[i] = ... / out[i] += ... into preallocated arrays and arguments"),
    "numpy_math": (1.0, "np.exp, np.sqrt(np.abs), np.maximum, np.sum, np.where, np.abs ..."),
    "mixing": (0.6, "int/float/bool mixing: float(i), int(v), flag + 1, accumulators changing type"),
    "chained_compare": (0.4, "chained comparisons 0 < a < 5"),
    "logic": (0.7, "and / or / not, also on numbers (value semantics)"),
    "ternary": (0.5, "a if c else b, also inside and/or"),
    "helper": (0.4, "calls of module-level helper functions"),
    "closure": (0.3, "calls of nested functions reading (or nonlocal-writing) outer names"),
    "method": (0.3, "methods of a small class holding state"),
    "list_append": (0.4, "a list appended to in a loop, read after"),
    "print": (0.4, "print of values (also inside loops, also with % formatting)"),
    "assert": (0.25, "assert with a %-formatted message"),
    "raise": (0.25, "if ...: raise ValueError('... %d' % i)"),
    "alias": (0.5, "acc = base; loops updating acc; m = k; m -= 1 on a 0-d array argument"),
    "grow_array": (0.3, "v = np.concatenate((v, [e])) in a loop"),
    "loop_defined": (0.25, "names first bound in a loop or one branch, read after (may raise)"),
    "mixed_return": (0.5, "results of mixed types: (True, 1), tuples, None"),
    "maybe_none": (0.5, "helpers that fall off their end on some paths (None), results "
                        "tested with `is None`"),
    "shared_args": (0.3, "one array passed as both x and y in the second call (drawn last: the "
                         "programs of other seeds stay as they were)"),
    "narrow_dtypes": (0.3, "float32 x and y, int32 xi, a float32 k0 or c0: narrow arrays next to "
                           "Python numbers, np.float64 scalars and the float64 arrays the program "
                           "makes (NEP 50; drawn from a stream of its own: the programs of other "
                           "seeds keep their text)"),
}

MAX_NESTING = 3  # statements nest at most this deep (loops at most 2 deep)
MAX_LOOPS = 2


class Program(NamedTuple):
    seed: int
    source: str  # a module: import numpy, helpers, class, `def f(...)`, ARGS = [(...), (...)]
    constructs: frozenset  # the constructs the program uses


class _Fn:
    """What the function being generated offers: its return kinds, callable helpers."""

    def __init__(self, spec, helpers=(), closures=(), is_main=True):
        self.spec = spec  # tuple of kinds returned (a 1-tuple returns the bare value), or None
        self.helpers = list(helpers)  # (name, param kinds, result kind)
        self.closures = list(closures)  # (name, result kind)
        self.is_main = is_main


class _Ctx:
    """Where a statement is generated: its function, the names in scope, the loops around."""

    def __init__(self, fn, scope, loops=(), nesting=0):
        self.fn = fn
        self.scope = scope  # name -> Var (mutated as statements are generated)
        self.loops = loops  # enclosing loops: their index Var (or None)
        self.nesting = nesting

    def inner(self, loop=False, index=None):
        """The context of a nested block (a loop body when `loop`, with its index Var)."""
        loops = self.loops + ((index,) if loop else ())
        return _Ctx(self.fn, dict(self.scope), loops, self.nesting + 1)


def _indent(lines):
    return ["    " + line for line in lines]


def _merge_var(a, b):
    if a == b:
        return a
    kind = a.kind if a.kind == b.kind else ("f" if {a.kind, b.kind} <= {"f", "i", "b"} else a.kind)
    length = a.length if a.length == b.length else "g"
    return dataclasses.replace(
        a, kind=kind, length=length, maybe=a.maybe or b.maybe, small=a.small and b.small,
        index_of=a.index_of if a.index_of == b.index_of else None, fixed=a.fixed and b.fixed,
        zero_d=a.zero_d and b.zero_d)


def merge_scopes(scopes):
    """The scope after control flow whose paths end in `scopes`: a name bound on only some
    paths may be undefined."""
    names = {}
    for scope in scopes:
        for name in scope:
            names.setdefault(name, None)
    merged = {}
    for name in names:
        present = [s[name] for s in scopes if name in s]
        var = present[0]
        for other in present[1:]:
            var = _merge_var(var, other)
        if len(present) < len(scopes):
            var = dataclasses.replace(var, maybe=True)
        merged[name] = var
    return merged


class Generator(Expressions):
    """One program from one seed; see the module docstring."""

    def __init__(self, seed, weights=None):
        all_weights = {name: w for name, (w, _) in CONSTRUCTS.items()}
        for name, w in (weights or {}).items():
            if name not in all_weights:
                raise ValueError("unknown construct %r (known: %s)" % (name, ", ".join(CONSTRUCTS)))
            all_weights[name] = w
        super().__init__(seed, all_weights)
        self.classes = []  # names of the classes the module defines
        # maybe_none draws from a stream of its own: the programs that do not use it are
        # those the seed gave before it existed.
        self.none_rng = random.Random("maybe_none %s" % seed)
        self.maybe_none_helpers = set()
        # narrow_dtypes too (it only changes the dtypes of the arguments, not the program).
        self.narrow_rng = random.Random("narrow_dtypes %s" % seed)
        self.narrow = {}  # argument name -> the NumPy dtype it is made with ("float32", "int32")

    # -- statements ------------------------------------------------------------------------
    def condition(self, ctx, depth):
        """A bool expression that is not a bare literal (an `if True:` tests nothing)."""
        text = self.bexpr(ctx, depth)
        while text in ("True", "False"):
            text = self.bexpr(ctx, depth)
        return text

    def block(self, ctx, count):
        """Up to `count` statements; returns (lines, terminal): terminal when every path of
        the block ends in a return, raise, break or continue."""
        lines = []
        for _ in range(count):
            if self.budget <= 0:
                break
            stmt_lines, terminal = self.statement(ctx)
            lines += stmt_lines
            if terminal:
                return lines, True
        if not lines:
            lines = ["pass"]
        return lines, False

    def statement(self, ctx):
        self.budget -= 1
        in_loop = bool(ctx.loops)
        can_nest = ctx.nesting < MAX_NESTING and self.budget > 1
        can_loop = can_nest and len(ctx.loops) < MAX_LOOPS
        mutable = self.defined(ctx, lambda v: not v.fixed and v.kind in ("f", "i", "b", "a", "ai"))
        arrays = self.defined(ctx, lambda v: v.kind in ("a", "ai"))
        lists = self.defined(ctx, lambda v: v.kind == "list")
        objs = self.defined(ctx, lambda v: v.kind.startswith("obj:"))
        main = ctx.fn.is_main
        options = [
            (None, 2, lambda: (self.assign_new(ctx), False)),
            (None, 1 if mutable else 0, lambda: (self.reassign(ctx, mutable), False)),
            ("aug_assign", 1.5 if mutable else 0, lambda: (self.aug_assign(ctx, mutable), False)),
            ("item_assign", 1.5 if arrays or main else 0, lambda: (self.item_assign(ctx), False)),
            ("if", 2 if can_nest else 0, lambda: self.if_stmt(ctx)),
            ("while", 1 if can_loop else 0, lambda: (self.while_stmt(ctx), False)),
            ("for_range", 1.5 if can_loop else 0, lambda: (self.for_range(ctx), False)),
            ("for_array", 1 if can_loop and arrays else 0, lambda: (self.for_array(ctx), False)),
            ("break", 1.5 if in_loop else 0, lambda: (self.jump(ctx, "break"), False)),
            ("continue", 1.5 if in_loop else 0, lambda: (self.jump(ctx, "continue"), False)),
            ("early_return", 1, lambda: (self.early_return(ctx), False)),
            ("list_append", 2 if lists and in_loop else 0, lambda: (self.append(ctx, lists), False)),
            ("list_append", 1 if main and can_loop and not lists else 0, lambda: (self.list_block(ctx), False)),
            ("print", 1 if main else 0, lambda: (self.print_stmt(ctx), False)),
            ("assert", 1, lambda: (self.assert_stmt(ctx), False)),
            ("raise", 1, lambda: (self.raise_stmt(ctx), False)),
            ("alias", 1 if main and can_loop else 0, lambda: (self.alias_block(ctx), False)),
            ("grow_array", 1 if main and can_loop else 0, lambda: (self.grow_block(ctx), False)),
            ("loop_defined", 1 if main and can_loop else 0, lambda: (self.loop_defined_block(ctx), False)),
            ("method", 1.5 if objs else 0, lambda: (self.method_stmt(ctx, objs), False)),
            ("closure", 1 if ctx.fn.closures else 0,
             lambda: (["%s(%s)" % (self.rng.choice(ctx.fn.closures)[0], self.fexpr(ctx, 1))], False)),
        ]
        return self.pick(options)

    def bind(self, ctx, var):
        ctx.scope[var.name] = var

    def assign_new(self, ctx):
        kinds = ["f", "f", "i", "b", "a"]
        if self.arrays(ctx, "ai"):
            kinds.append("ai")
        kind = self.rng.choice(kinds)
        prefix = {"f": "u", "i": "m", "b": "ok", "a": "out", "ai": "cnt"}[kind]
        name = self.fresh(prefix)
        length = self.rng.choice(self.lengths(ctx)) if kind in ("a", "ai") else None
        if kind == "i" and self.rng.random() < 0.25 and "n" in self.lengths(ctx):
            # A dimension held in a name: a safe bound for loops (never reassigned).
            self.bind(ctx, Var(name, "i", small=True, fixed=True))
            return ["%s = %s" % (name, self.length_expr(ctx, "n"))]
        text = self.expr(kind, ctx, 2, length)
        self.bind(ctx, Var(name, kind, length=length))
        return ["%s = %s" % (name, text)]

    def reassign(self, ctx, mutable):
        var = self.rng.choice(mutable)
        text = self.expr(var.kind, ctx, 2, var.length)
        if text == var.name:  # not `v = v`
            text = self.expr(var.kind, ctx, 2, var.length)
        self.bind(ctx, dataclasses.replace(var, maybe=False, small=False, index_of=None, zero_d=False))
        return ["%s = %s" % (var.name, text)]

    def aug_assign(self, ctx, mutable):
        var = self.rng.choice(mutable)
        if var.kind in ("a", "ai"):
            value_kind = self.rng.choice((var.kind, "i" if var.kind == "ai" else "f"))
            if self.rng.random() < 0.25:
                return ["%s *= %s" % (var.name, "2" if var.kind == "ai" else self.factor(ctx, 1))]
            op = self.rng.choice(("+=", "-="))
            text = self.expr(value_kind, ctx, 1, var.length)
            return ["%s %s %s" % (var.name, op, text)]
        if var.kind == "i" and self.chance("mixing", 0.5):
            self.used.add("mixing")
            line = "%s += %s" % (var.name, self.fexpr(ctx, 1))
            self.bind(ctx, dataclasses.replace(var, kind="f"))
            return [line]
        kind = "i" if var.kind in ("i", "b") else "f"
        if kind == "f" and self.rng.random() < 0.2:
            return ["%s *= %s" % (var.name, self.factor(ctx, 1))]
        line = "%s %s %s" % (var.name, self.rng.choice(("+=", "-=", "+=")), self.expr(kind, ctx, 1))
        if var.kind == "b":  # bool += int is an int
            self.bind(ctx, dataclasses.replace(var, kind="i"))
        return [line]

    def item_assign(self, ctx):
        lines = []
        targets = [v for v in self.defined(ctx, lambda v: v.kind in ("a", "ai"))
                   if self.index(ctx, v.length) is not None]
        loop_targets = [v for v in targets if any(v.length == i.index_of for i in ctx.loops if i)]
        if loop_targets and self.rng.random() < 0.8:
            target = self.rng.choice(loop_targets)
        elif targets and self.rng.random() < 0.7:
            target = self.rng.choice(targets)
        else:  # preallocate
            length = self.rng.choice(self.lengths(ctx))
            name = self.fresh("out")
            kind = "ai" if self.rng.random() < 0.15 else "a"
            dtype = ", dtype=np.int64" if kind == "ai" else ""
            lines.append("%s = np.%s(%s%s)" % (name, self.rng.choice(("zeros", "zeros", "ones")),
                                                self.length_expr(ctx, length), dtype))
            target = Var(name, kind, length=length)
            self.bind(ctx, target)
        idx = self.index(ctx, target.length)
        if idx is None:
            return lines or ["pass"]
        value = self.expr("i" if target.kind == "ai" else "f", ctx, 2)
        op = self.rng.choice(("=", "=", "+=", "-="))
        lines.append("%s[%s] %s %s" % (target.name, idx, op, value))
        return lines

    def if_stmt(self, ctx):
        lines = ["if %s:" % self.condition(ctx, 2)]
        ends = []
        bodies = 1 + (self.rng.random() < 0.35) + (self.rng.random() < 0.15)
        has_else = self.rng.random() < 0.5
        for number in range(bodies + has_else):
            if number:
                lines.append("else:" if number == bodies else "elif %s:" % self.condition(ctx, 2))
            inner = ctx.inner()
            body, terminal = self.block(inner, self.rng.choice((1, 1, 2, 3)))
            lines += _indent(body)
            if not terminal:
                ends.append(inner.scope)
        if not has_else:
            ends.append(dict(ctx.scope))
        if not ends:
            return lines, True
        ctx.scope.clear()
        ctx.scope.update(merge_scopes(ends))
        return lines, False

    def loop_body(self, ctx, header, inner, prefix_lines=()):
        body, _ = self.block(inner, self.rng.choice((1, 2, 2, 3)))
        new_scope = merge_scopes([dict(ctx.scope), inner.scope])
        # Names first bound in the body, and loop targets, may be undefined after the loop.
        for name, var in new_scope.items():
            if name not in ctx.scope:
                new_scope[name] = dataclasses.replace(var, maybe=True, index_of=None)
        ctx.scope.clear()
        ctx.scope.update(new_scope)
        return [header] + _indent(list(prefix_lines) + body)

    def while_stmt(self, ctx):
        counter = self.fresh("c")
        inner = ctx.inner(loop=True)
        inner.scope[counter] = Var(counter, "i", fixed=True)
        bound = self.bound(ctx)
        if self.rng.random() < 0.2:
            lines = ["%s = 0" % counter, "while True:"]
            body = ["%s += 1" % counter, "if %s > %s:" % (counter, bound), "    break"]
            lines += self.loop_body(ctx, "", inner, body)[1:]
        else:
            cond = "%s < %s" % (counter, bound)
            if self.rng.random() < 0.4:
                cond += " %s %s" % (self.rng.choice(("and", "and", "or False and")), self.condition(ctx, 1))
            lines = ["%s = 0" % counter] + self.loop_body(ctx, "while %s:" % cond, inner, ["%s += 1" % counter])
        ctx.scope[counter] = Var(counter, "i")
        return lines

    def for_range(self, ctx):
        index = self.fresh("i")
        dims = "n" in self.lengths(ctx)
        const_lengths = [length for length in self.lengths(ctx) if isinstance(length, int)]
        choices = [(None, 3, lambda: ("range(%s)" % self.bound(ctx), None))]
        if dims:
            options = [("range(%s)" % self.length_expr(ctx, "n"), "n"),
                       ("range(1, %s)" % self.length_expr(ctx, "n"), "n"),
                       ("range(%s - 1, -1, -1)" % self.length_expr(ctx, "n"), "n")]
            choices.append((None, 5, lambda: self.rng.choice(options[:1] * 3 + options[1:])))
        if const_lengths:
            length = self.rng.choice(const_lengths)
            choices.append((None, 2, lambda: ("range(%d)" % length, length)))
        choices.append((None, 0.5, lambda: ("range(0, %s, 2)" % self.bound(ctx), None)))
        iterable, index_of = self.pick(choices)
        var = Var(index, "i", index_of=index_of, fixed=True)
        inner = ctx.inner(loop=True, index=var)
        inner.scope[index] = var
        return self.loop_body(ctx, "for %s in %s:" % (index, iterable), inner)

    def for_array(self, ctx):
        arrays = self.defined(ctx, lambda v: v.kind in ("a", "ai") and v.length != "g")
        if not arrays:
            return self.for_range(ctx)
        array = self.rng.choice(arrays)
        element = self.fresh("e")
        index = self.fresh("i") if self.rng.random() < 0.4 else None
        var = Var(index, "i", index_of=array.length, fixed=True) if index else None
        inner = ctx.inner(loop=True, index=var)
        inner.scope[element] = Var(element, "f" if array.kind == "a" else "i", fixed=True)
        if index:
            inner.scope[index] = var
            header = "for %s, %s in enumerate(%s):" % (index, element, array.name)
        else:
            header = "for %s in %s:" % (element, array.name)
        return self.loop_body(ctx, header, inner)

    def jump(self, ctx, keyword):
        return ["if %s:" % self.condition(ctx, 1), "    " + keyword]

    def returned(self, ctx):
        spec = ctx.fn.spec
        if spec is None:
            return "return"
        values = [self.return_value(ctx, kind) for kind in spec]
        return "return " + ", ".join(values)

    def return_value(self, ctx, kind):
        if kind == "none":
            return "None"
        if kind == "list":
            lists = self.defined(ctx, lambda v: v.kind == "list")
            return self.rng.choice(lists).name if lists else "[]"
        if kind == "b" and self.rng.random() < 0.4:
            return self.rng.choice(("True", "False"))
        if kind == "i" and self.rng.random() < 0.3:
            return self.lit_i()
        return self.expr(kind, ctx, 1, "n" if kind == "a" and "n" in self.lengths(ctx) else None)

    def early_return(self, ctx):
        return ["if %s:" % self.condition(ctx, 1), "    " + self.returned(ctx)]

    def append(self, ctx, lists):
        return ["%s.append(%s)" % (self.rng.choice(lists).name, self.fexpr(ctx, 2))]

    def list_block(self, ctx):
        name = self.fresh("vals")
        lines = ["%s = []" % name]
        ctx.scope[name] = Var(name, "list")
        lines += self.for_range(ctx) if self.rng.random() < 0.6 else self.for_array(ctx)
        return lines

    def print_stmt(self, ctx):
        values = [self.expr(self.rng.choice("ffib"), ctx, 1) for _ in range(self.rng.choice((1, 1, 2)))]
        arrays = self.defined(ctx, lambda v: v.kind in ("a", "ai"))
        if arrays and self.rng.random() < 0.2:
            values.append(self.rng.choice(arrays).name)
        tag = repr(self.fresh("p"))
        if self.rng.random() < 0.3:
            ints = [self.iexpr(ctx, 1) for _ in range(1)]
            return ["print(%s %% (%s, %s))" % (repr(self.fresh("p") + " %d %.3f"), ints[0], self.fexpr(ctx, 1))]
        return ["print(%s)" % ", ".join([tag] + values)]

    def message(self, ctx):
        if self.rng.random() < 0.75:
            return ", %s %% %s" % (repr("bad value %d"), self.iexpr(ctx, 1))
        if self.rng.random() < 0.5:
            return ", %s %% (%s,)" % (repr("value %s here"), self.fexpr(ctx, 1))
        return ", 'failed'"

    def assert_stmt(self, ctx):
        return ["assert %s%s" % (self.condition(ctx, 1), self.message(ctx))]

    def raise_stmt(self, ctx):
        error = self.rng.choice(("ValueError", "ValueError", "RuntimeError"))
        return ["if %s:" % self.condition(ctx, 1), "    raise %s(%s)" % (error, self.message(ctx)[2:])]

    def method_stmt(self, ctx, objs):
        obj = self.rng.choice(objs)
        if obj.kind == "obj:Acc":
            return ["%s.add(%s)" % (obj.name, self.fexpr(ctx, 2))]
        idx = self.index(ctx, "n")
        if idx is None:
            return ["%s.scale(%s)" % (obj.name, self.fexpr(ctx, 1))]
        return ["%s.put(%s, %s)" % (obj.name, idx, self.fexpr(ctx, 2))]

    def alias_block(self, ctx):
        """Cause 1 and cause 6 of issue 15: a loop variable that starts as an alias, and an
        in-place update of a 0-d array through an alias."""
        zero_d = self.defined(ctx, lambda v: v.zero_d)
        if zero_d and self.rng.random() < 0.4:
            alias = self.fresh("m")
            ctx.scope[alias] = Var(alias, "f", zero_d=True)
            return ["%s = %s" % (alias, self.rng.choice(zero_d).name),
                    "%s %s %s" % (alias, self.rng.choice(("-=", "+=", "*=")), self.rng.choice(("1", "0.5", "2")))]
        base, acc = self.fresh("base"), self.fresh("acc")
        kind = "i" if self.rng.random() < 0.35 else "f"
        if kind == "i" and "n" in self.lengths(ctx):
            base_value = self.length_expr(ctx, "n")
        else:
            base_value = self.expr(kind, ctx, 1)
        ctx.scope[base] = Var(base, kind)
        ctx.scope[acc] = Var(acc, kind)
        lines = ["%s = %s" % (base, base_value), "%s = %s" % (acc, base)]
        loop = self.for_range(ctx)
        op = self.rng.choice(("%s = %s + %s" % (acc, acc, base), "%s += %s" % (acc, base)))
        return lines + loop[:1] + ["    " + op] + loop[1:]

    def grow_block(self, ctx):
        name = self.fresh("grow")
        start = self.rng.choice(("np.zeros(0)", "np.array([%s])" % self.lit_f()))
        lines = ["%s = %s" % (name, start)]
        loop = self.for_range(ctx) if self.rng.random() < 0.7 else self.for_array(ctx)
        value = self.rng.choice(("[%s]" % loop[0].split()[1].rstrip(","), "[%s]" % self.lit_f()))
        grow = "    %s = np.concatenate((%s, %s))" % (name, name, value)
        ctx.scope[name] = Var(name, "a", length="g")
        return lines + loop[:1] + [grow] + loop[1:]

    def loop_defined_block(self, ctx):
        """A name first bound inside a loop or one branch, read after: Python raises
        UnboundLocalError when the loop runs zero times or the branch is not taken."""
        name = self.fresh("last")
        before = dict(ctx.scope)
        if self.rng.random() < 0.5:
            lines = self.for_range(ctx) if self.rng.random() < 0.6 else self.while_stmt(ctx)
            header = next(i for i, line in enumerate(lines) if line.startswith(("for ", "while ")))
            # After the statements that count a while loop (they must stay first).
            first = lines[header]
            counting = 0 if first.startswith("for ") else 3 if first == "while True:" else 1
            lines.insert(header + 1 + counting, "    %s = %s" % (name, self.fexpr(_Ctx(ctx.fn, before), 1)))
        else:
            lines = ["if %s:" % self.condition(ctx, 1), "    %s = %s" % (name, self.fexpr(ctx, 1))]
            if self.rng.random() < 0.3:
                lines += ["elif %s:" % self.condition(ctx, 1), "    %s = %s" % (name, self.fexpr(ctx, 1))]
        ctx.scope[name] = Var(name, "f")  # read as if defined: that is the point
        target = self.rng.choice(self.defined(ctx, lambda v: v.kind == "f" and not v.fixed) or
                                 [ctx.scope[name]])
        lines.append("%s = %s + %s" % (target.name, target.name, name))
        return lines

    # -- the module ------------------------------------------------------------------------
    def helper(self, name, helpers):
        signatures = [(("f", "f"), "f"), (("f", "i"), "f"), (("i", "i"), "i"), (("a", "f"), "f"),
                      (("a",), "a"), (("a", "f"), "a")]
        params, result = self.rng.choice(signatures)
        names = ["a", "b", "c"][:len(params)]
        scope = {p: Var(p, k, length="n" if k in ("a", "ai") else None) for p, k in zip(names, params)}
        fn = _Fn((result,), helpers=helpers, is_main=False)
        ctx = _Ctx(fn, scope, nesting=1)
        self.budget = self.rng.choice((1, 2, 3))
        body, terminal = self.block(ctx, 3)
        if not terminal:
            final = self.returned(ctx)
            if self._none_chance():
                # Falls off its end (returns None) where the test is false.
                self.used.add("maybe_none")
                self.maybe_none_helpers.add(name)
                test = {"f": "%s > %s", "i": "%s > %s", "a": "%s[0] > %s"}[params[0]] % (
                    names[0], self.none_rng.choice(("0", "1", "-1", "0.5")))
                body += ["if %s:" % test, "    " + final]
            else:
                body.append(final)
        lines = ["def %s(%s):" % (name, ", ".join(names))] + _indent(body)
        return lines, (name, params, result)

    def _none_chance(self):
        w = self.weights["maybe_none"]
        return w > 0 and self.none_rng.random() < w / (w + 1.0)

    def none_default(self, call, kind):
        """`call` (of a helper), or, for one that may return None, sometimes `or_default(call,
        d)` (`or_default` tests `is None`)."""
        name = call.split("(", 1)[0]
        if name not in self.maybe_none_helpers or kind == "a" or self.none_rng.random() < 0.4:
            return call
        return "or_default(%s, %s)" % (call, self.none_rng.choice(
            ("0", "1", "-1") if kind == "i" else ("1.5", "0.0", "-2.0")))

    def classes_source(self):
        if not self.chance("method", 0.6):
            return []
        self.used.add("method")
        if self.rng.random() < 0.6:
            self.classes.append("Acc")
            update = self.rng.choice(("self.total = self.total + v", "self.total += v * 0.5",
                                      "self.total = max(self.total, v)"))
            return ["class Acc:",
                    "    def __init__(self, start):",
                    "        self.total = start",
                    "        self.count = 0",
                    "",
                    "    def add(self, v):",
                    "        " + update,
                    "        self.count += 1",
                    "        return self.total",
                    "",
                    "    def mean(self):",
                    "        return self.total / max(self.count, 1)"]
        self.classes.append("Buf")
        return ["class Buf:",
                "    def __init__(self, n):",
                "        self.data = np.zeros(n)",
                "        self.size = n",
                "",
                "    def put(self, i, v):",
                "        self.data[i] %s v" % self.rng.choice(("=", "+=")),
                "",
                "    def scale(self, v):",
                "        self.data = self.data * v",
                "",
                "    def total(self):",
                "        return np.sum(self.data)"]

    def params(self):
        """The parameters of f: (name, Var, argument factory)."""
        params = [("x", Var("x", "a", length="n"))]
        if self.rng.random() < 0.4:
            params.append(("y", Var("y", "a", length="n")))
        if self.rng.random() < 0.25 or self.chance("mixing", 0.2):
            params.append(("xi", Var("xi", "ai", length="n")))
        if self.rng.random() < 0.6:
            params.append(("n", Var("n", "i", small=True, fixed=True)))
        if self.rng.random() < 0.4:
            params.append(("t", Var("t", "f")))
        if self.rng.random() < 0.4:
            params.append(("flag", Var("flag", "b")))
        if self.rng.random() < 0.2 or self.chance("alias", 0.3):
            params.append(("k0", Var("k0", "f", zero_d=True)))
        if self.rng.random() < 0.2:
            params.append(("c0", Var("c0", "f")))
        return params

    def narrow_arguments(self, names):
        """narrow_dtypes: which of the arguments `names` are made float32 or int32 (x and y
        together: the programs combine them)."""
        w = self.weights["narrow_dtypes"]
        if not (w > 0 and self.narrow_rng.random() < w / (w + 2.0)):
            return
        rng = self.narrow_rng
        choices = {"x": 0.7, "xi": 0.6, "k0": 0.5, "c0": 0.3}
        while not self.narrow:
            for name, p in choices.items():
                if name in names and rng.random() < p:
                    self.narrow[name] = "int32" if name == "xi" else "float32"
        if "x" in self.narrow:
            self.narrow["y"] = "float32"
        self.used.add("narrow_dtypes")

    def argument(self, name, length):
        rng = self.rng
        dtype = self.narrow.get(name)
        if name in ("x", "y"):
            values = [rng.randrange(-6, 7) / 2 for _ in range(length)]
            if dtype:
                return "np.array(%r, dtype=np.%s)" % (values, dtype)
            return "np.array(%r)" % values if values else "np.zeros(0)"
        if name == "xi":
            return "np.array(%r, dtype=np.%s)" % ([rng.randrange(-3, 6) for _ in range(length)], dtype or "int64")
        if name == "n":
            return str(rng.randrange(0, 5))
        if name == "t":
            return repr(rng.randrange(-8, 9) / 4)
        if name == "flag":
            return repr(rng.random() < 0.5)
        if name == "k0":
            value = rng.randrange(-4, 5) / 2
            return "np.array(%r, dtype=np.float32)" % value if dtype else "np.array(%r)" % value
        return "np.%s(%r)" % (dtype or "float64", rng.randrange(-4, 5) / 2)

    def return_spec(self):
        plain = [("f",), ("i",), ("a",), ("f", "i")]
        mixed = [("b", "i"), ("a", "i"), ("f", "b"), ("none",), ("a", "f", "i"), ("b",), ("list",),
                 ("f", "none"), None]
        if self.chance("mixed_return"):
            self.used.add("mixed_return")
            return self.rng.choice(mixed)
        return self.rng.choice(plain)

    def module(self):
        lines = ["# fuzz program, seed %s (tools/fuzz/generator.py)" % self.seed, "import numpy as np", ""]
        helpers = []
        for number in range(2):
            if self.chance("helper", 0.7):
                self.used.add("helper")
                text, signature = self.helper("h%d" % (number + 1), list(helpers))
                helpers.append(signature)
                lines += ["", *text, ""]
        if self.maybe_none_helpers:
            lines += ["", "def or_default(v, d):", "    if v is None:", "        return d",
                      "    return v", ""]
        class_lines = self.classes_source()
        if class_lines:
            lines += ["", *class_lines, ""]
        params = self.params()
        scope = {name: var for name, var in params}
        spec = self.return_spec()
        if spec and "list" in spec and not self.weights["list_append"]:
            spec = ("f",)
        fn = _Fn(spec, helpers=helpers)
        ctx = _Ctx(fn, scope)
        self.budget = self.rng.choice((5, 6, 8, 10, 12))
        body = []
        for cls in self.classes:
            name = self.fresh(cls.lower())
            start = ("Acc(%s)" % self.rng.choice(("0.0", "0", "1.5")) if cls == "Acc"
                     else "Buf(%s)" % self.length_expr(ctx, "n"))
            body.append("%s = %s" % (name, start))
            scope[name] = Var(name, "obj:" + cls, fixed=True)
        if spec and "list" in spec:
            body += self.list_block(ctx)
        body += self.closures(ctx)
        stmts, terminal = self.block(ctx, 30)
        body += stmts
        if not terminal and spec is not None:
            body.append(self.returned(ctx))
        lines += ["", "def f(%s):" % ", ".join(name for name, _ in params)] + _indent(body)
        lengths = [self.rng.choice((0, 1, 2, 3, 3, 4, 4, 5, 5, 5, 2, 3, 4, 5, 1, 2)) for _ in range(2)]
        self.narrow_arguments([name for name, _ in params])
        variants = ["    (%s)," % " ".join(self.argument(name, length) + "," for name, _ in params)
                    for length in lengths]
        names = [name for name, _ in params]
        if "y" in names and self.chance("shared_args"):
            # (The same object in both places: the comparison's deepcopy keeps it one.)
            self.used.add("shared_args")
            lines += ["", "", "SHARED = %s" % self.argument("x", lengths[1])]
            variants[1] = "    (%s)," % " ".join(
                ("SHARED" if name in ("x", "y") else self.argument(name, lengths[1])) + ","
                for name in names)
        lines += ["", "", "ARGS = ["] + variants + ["]"]
        return "\n".join(lines) + "\n"

    def closures(self, ctx):
        lines = []
        if not self.chance("closure", 0.6):
            return lines
        self.used.add("closure")
        name = self.fresh("g")
        if self.rng.random() < 0.35:
            counter = self.fresh("calls")
            lines += ["%s = 0" % counter, "def %s(v):" % name, "    nonlocal %s" % counter,
                      "    %s += 1" % counter, "    return v * %s" % counter]
            ctx.scope[counter] = Var(counter, "i", fixed=True)
        else:
            captured = self.scalars(ctx, ("f", "i"))
            value = "(v %s %s)" % (self.rng.choice("+-*"), self.rng.choice(captured).name if captured else "2.0")
            lines += ["def %s(v):" % name, "    return %s" % value]
        ctx.fn.closures.append((name, "f"))
        return lines


def generate(seed, weights=None, focus=()):
    """The program of `seed`: a `Program` whose source is a module defining `f` and `ARGS`."""
    if focus:
        weights = dict(weights or {})
        for name in focus:
            weights[name] = CONSTRUCTS[name][0] * 6 if name not in weights else weights[name] * 6
    for attempt in range(50):
        gen = Generator(seed if not attempt else "%d/%d" % (seed, attempt), weights)
        source = gen.module()
        if all(name in gen.used for name in focus):
            return Program(seed, source, frozenset(gen.used))
    return Program(seed, source, frozenset(gen.used))
