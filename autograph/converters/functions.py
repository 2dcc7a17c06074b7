"""Marks what inside a function must stay exactly as written: nested generators and
coroutines (lowering their returns or moving their code would change `yield`/`await`) and
nested classes (their methods rely on the class body for `super()` and private names)."""

from autograph.core import converter, marks


class FunctionTransformer(converter.Base):

    statements_only = True

    def visit_FunctionDef(self, node):
        if self.nesting and converter.is_unconvertible_function(node):
            marks.mark_unconvertible(node)
            return node
        self.nesting += 1
        try:
            return self.generic_visit(node)
        finally:
            self.nesting -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        marks.mark_unconvertible(node)
        return node


def transform(node, ctx):
    transformer = FunctionTransformer(ctx)
    transformer.nesting = 0
    return transformer.visit(node)
