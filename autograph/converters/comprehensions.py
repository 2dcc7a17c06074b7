"""Comprehensions and generator expressions become the loops Python runs for them, so the
control-flow converter turns a loop over a symbolic array into a graph loop (the list it
appends to into a tensor array) and runs a loop over a Python iterable as Python.

Python 3.11 itself runs `[elt for t in it if c]` as a function called with the first
iterable, and that is what it becomes, defined just before the statement holding it:

    def listcomp(iterated):
        result = []
        for t in iterated:
            if c:
                result = ag__.list_append(result, elt)
        return result
    ... listcomp(it) ...

So the scope is Python's (the targets are locals of that function and do not leak), so is
the order of evaluation (the first iterable where the comprehension is, the rest per
item, `if` clauses in order), and the names the comprehension reads are read where it
was (the analyses of the control-flow converter see them at the definition). A
generator expression is lazy: `ag__.generator_expression(it, genexpr, lambda
iterated: (elt for t in iterated if c))` runs the expression itself (a Python generator)
over a Python iterable, and the function (a list, made by a graph loop) over a symbolic
one, whose items a graph computes all at once.

Left as written, as Python runs them: set and dict comprehensions (a graph cannot hash
symbolic items: over Python values Python runs them as they are, over a symbolic array
Python's iteration refuses), comprehensions with `:=` (which binds in the
enclosing function), `await` or `async for`, inside lambdas, in the test of a `while`
(read again on each iteration, where a definition before the loop would be read once by
the analyses), and in default values and decorators. It runs after call_trees: the calls
inside are already converted, and the generated ones are called directly.
"""

import gast

from autograph.core import converter
from autograph.pyct import anno, ast_util, templates

_COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp)
# What makes a comprehension run as written (see the module docstring).
_AS_WRITTEN = (gast.NamedExpr, gast.Await, gast.Yield, gast.YieldFrom)

# kind -> (the generated function's name root, the result's initial value, how an item is
# stored in it).
_KINDS = {
    gast.ListComp: ("listcomp", "[]", "result = ag__.list_append(result, elt)"),
    gast.GeneratorExp: ("genexpr", "[]", "result = ag__.list_append(result, elt)"),
}


def _convertible(node):
    return (not any(generator.is_async for generator in node.generators)
            and not any(isinstance(n, _AS_WRITTEN) for n in ast_util.walk(node)))


class ComprehensionTransformer(converter.Base):

    target_types = _COMPREHENSIONS

    def is_target(self, node):
        return _convertible(node)

    def visit(self, node):
        if not isinstance(node, gast.stmt):
            return super().visit(node)
        # The functions of the comprehensions in a statement go just before it.
        self.pending.append([])
        try:
            result = super().visit(node)
        finally:
            definitions = self.pending.pop()
        if not definitions:
            return result
        return definitions + (result if isinstance(result, list) else [result])

    def visit_FunctionDef(self, node):
        # (Decorators, defaults and annotations are left as written.)
        node.body = self.visit_block(node.body)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_While(self, node):
        node.body = self.visit_block(node.body)
        node.orelse = self.visit_block(node.orelse)
        return node

    def visit_Lambda(self, node):
        return node

    def _lower(self, node):
        if not self.pending or not _convertible(node):
            return node   # (and what is inside: it may read the targets of this one)
        name_root, initial, store = _KINDS[node.__class__]
        lazy = templates.copy_clean(node) if node.__class__ is gast.GeneratorExp else None
        generators = node.generators
        # The first iterable is evaluated where the comprehension is.
        first = self.visit(generators[0].iter)
        iterated = self.new_symbol("iterated")
        result = self.new_symbol("result")
        # The rest is evaluated in the function; the functions of comprehensions in it go
        # first in its body, before its loops (the only names of its own they read are
        # the targets, which each iteration sets before they are read).
        self.pending.append([])
        try:
            body = templates.replace(store, result=result,
                                     elt=templates.moved(self.visit(node.elt)))
            for position in range(len(generators) - 1, -1, -1):
                generator = generators[position]
                for test in reversed(generator.ifs):
                    body = templates.replace("if test:\n    body",
                                             test=templates.moved(self.visit(test)), body=body)
                iterable = self.visit(generator.iter) if position else _load(iterated)
                body = templates.replace(
                    "for target in iterable:\n    body",
                    target=templates.moved(generator.target),
                    iterable=templates.moved(iterable), body=body)
        finally:
            definitions = self.pending.pop()
        function = self.new_symbol(name_root)
        definition = templates.replace(
            "def function(iterated):\n    definitions\n    result = initial\n    body\n"
            "    return result",
            function=function, iterated=iterated, result=result, definitions=definitions,
            initial=templates.replace_as_expression(initial), body=body)
        # (What it generates is at the comprehension's line: errors and loops name it.)
        origin = anno.getanno(node, anno.Basic.ORIGIN, None)
        if origin is not None:
            for statement in definition:
                for generated in ast_util.walk(statement):
                    if not anno.hasanno(generated, anno.Basic.ORIGIN):
                        anno.setanno(generated, anno.Basic.ORIGIN, origin)
        self.pending[-1].extend(definition)
        if lazy is None:
            return templates.replace_as_expression("function(first)", function=function,
                                                   first=templates.moved(first))
        lazy.generators[0].iter = _load(iterated)
        return templates.replace_as_expression(
            "ag__.generator_expression(first, function, lambda iterated: lazy)",
            first=templates.moved(first), function=function, iterated=iterated,
            lazy=templates.moved(lazy))

    visit_ListComp = visit_GeneratorExp = _lower


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def transform(node, ctx):
    transformer = ComprehensionTransformer(ctx)
    transformer.pending = []
    return transformer.visit(node)
