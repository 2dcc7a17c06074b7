"""What a function's tree holds (breaks, returns in blocks, nested defs, ...): the facts by
which the conversion skips the converters with nothing to do (conversion speed)."""

import gast

from autograph.pyct import gast_bridge

# What a Census records about a node, by its class (absent: nothing). Ifs and loops
# (_BLOCK and above) hold blocks a return can be in.
_PRESENT, _ATTRIBUTE, _SUBSCRIPT, _RETURN, _DEFINITION, _BINARY, _LOOP, _IF = range(1, 9)
_BLOCK = _LOOP
_KINDS = {
    gast.Break: _PRESENT, gast.Continue: _PRESENT, gast.Assert: _PRESENT,
    gast.IfExp: _PRESENT, gast.JoinedStr: _PRESENT, gast.BinOp: _BINARY,
    gast.Attribute: _ATTRIBUTE, gast.Subscript: _SUBSCRIPT,
    gast.Return: _RETURN, gast.Raise: _RETURN, gast.FunctionDef: _DEFINITION, gast.AsyncFunctionDef: _DEFINITION,
    gast.ClassDef: _DEFINITION, gast.For: _LOOP, gast.AsyncFor: _LOOP, gast.While: _LOOP,
    gast.If: _IF,
    gast.ListComp: _PRESENT, gast.GeneratorExp: _PRESENT,
}
_COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp)   # (those the conversion lowers)
_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)


class Census:
    """What a function's gast tree holds, for a transpiler that skips the passes with
    nothing to do in it.

    A census is an observer of the tree (see gast_bridge.ast_to_gast): the transpiler shows
    it the tree while parsing it (no walk of its own), and Census.of(root) walks a tree for
    one. It describes the tree as it was then: whoever changes the tree before using it
    must drop it.

    types: the node classes present among those of _KINDS (breaks, continues, asserts,
      conditional expressions, f-strings, attributes, subscripts, returns, defs, classes,
      loops, ifs, comprehensions; not binary operations);
    comprehensions: it holds a list comprehension or a generator expression;
    attributes: the attribute names (Attribute.attr) in it;
    nested_scopes: it holds a class, or a def other than the root;
    loop_else: a loop has an else block;
    loop_starts_with_call: a loop's body starts with a call statement;
    return_in_block: a return or a raise is inside an if or loop (at any depth, in nested
      defs too);
    subscript_store: an item or slice is assigned to (a Subscript in the Store context);
    percent_format: a str literal is formatted with % (`'%d' % x`).
    """

    __slots__ = ("types", "attributes", "loop_else", "loop_starts_with_call",
                 "return_in_block", "subscript_store", "percent_format", "_definitions",
                 "_root_is_function", "_blocks")

    node_classes = _KINDS  # the nodes it is shown

    def __init__(self, root_is_function):
        self.types = set()
        self.attributes = set()
        self.loop_else = False
        self.loop_starts_with_call = False
        self.return_in_block = False
        self.subscript_store = False
        self.percent_format = False
        self._definitions = 0  # defs and classes, the root included
        self._root_is_function = root_is_function
        self._blocks = 0  # the ifs and loops the node being shown is in

    @property
    def comprehensions(self):
        """Does it hold a list comprehension or a generator expression?"""
        return any(kind in self.types for kind in _COMPREHENSIONS)

    @property
    def nested_scopes(self):
        return self._definitions > self._root_is_function

    def enter(self, node):
        if _KINDS[node.__class__] >= _BLOCK:
            self._blocks += 1

    def leave(self, node):
        """Records `node`, whose children are gast nodes by now."""
        kind = _KINDS[node.__class__]
        if kind == _BINARY:
            left = node.left
            if (node.op.__class__ is gast.Mod and left.__class__ is gast.Constant
                    and left.value.__class__ is str):
                self.percent_format = True
            return
        self.types.add(node.__class__)
        if kind == _ATTRIBUTE:
            self.attributes.add(node.attr)
        elif kind == _SUBSCRIPT:
            if node.ctx.__class__ is gast.Store:
                self.subscript_store = True
        elif kind == _RETURN:
            if self._blocks:
                self.return_in_block = True
        elif kind == _DEFINITION:
            self._definitions += 1
        elif kind >= _BLOCK:
            self._blocks -= 1
            if kind == _LOOP:
                if node.orelse:
                    self.loop_else = True
                first = node.body[0] if node.body else None
                if first.__class__ is gast.Expr and first.value.__class__ is gast.Call:
                    self.loop_starts_with_call = True

    @classmethod
    def of(cls, root):
        """The census of the gast tree `root`, from a walk of it."""
        census = cls(root.__class__ in _FUNCTIONS)
        gast_bridge.observe(root, census)
        return census
