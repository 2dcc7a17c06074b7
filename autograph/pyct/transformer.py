"""Base classes for AST transformers and code generators: conversion context, per-node-type
state stacks, statement-block visiting and preservation of origin annotations.
"""

import ast
import sys
from typing import NamedTuple

import gast

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import unparser


class EntityInfo(NamedTuple):
    """What a transformation knows about the entity it converts.

    name: the entity's name; source_code: its (dedented) source; source_file: the file it
    came from; future_features: names of `__future__` features in effect; namespace: the
    names the entity can see besides its locals (globals and closure variables).
    """

    name: str
    source_code: str
    source_file: str
    future_features: tuple
    namespace: dict


class Context:
    """Everything a transformation of one entity shares.

    info: an EntityInfo; namer: a naming.Namer; user: the caller's own context
    (conversion options, ...); current_origin: the ORIGIN of the node being visited.
    """

    def __init__(self, info, namer, user_context):
        self.info = info
        self.namer = namer
        self.user = user_context
        self.current_origin = None


class _StateStack:
    """A stack of state objects of one type, one per nested node being visited.

    `enter()` pushes a fresh instance, `exit()` pops it; the top one is `value`, and
    attributes not defined here are read from and written to it:

        self.state[_Loop].enter()
        self.state[_Loop].has_break = True   # sets it on the innermost loop's state
        self.state[_Loop].exit()
    """

    def __init__(self, state_type):
        object.__setattr__(self, "type", state_type)
        object.__setattr__(self, "_stack", [])
        # Some transformers read the value before the first enter(); give them one.
        if not hasattr(state_type, "no_root"):
            self._stack.append(state_type())

    def enter(self):
        self._stack.append(self.type())

    def exit(self):
        return self._stack.pop()

    @property
    def stack(self):
        return self._stack

    @property
    def level(self):
        return len(self._stack)

    @property
    def value(self):
        return self._stack[-1]

    def __iter__(self):
        return iter(self._stack)

    def __getattr__(self, name):
        return getattr(self._stack[-1], name)

    def __setattr__(self, name, value):
        setattr(self._stack[-1], name, value)


class _State:
    """`state[SomeType]` is the _StateStack of SomeType, created on first use."""

    def __init__(self):
        self._stacks = {}

    def __getitem__(self, state_type):
        stack = self._stacks.get(state_type)
        if stack is None:
            stack = self._stacks[state_type] = _StateStack(state_type)
        return stack


class NodeStateTracker:
    """What transformers and code generators share: the context, the state stacks,
    block visiting and debugging helpers."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.state = _State()

    def debug_print(self, node):
        """Prints the source of `node` (to stderr) and returns it, for use in a pipeline."""
        print(unparser.unparse(node, include_encoding_marker=False), file=sys.stderr)
        return node

    def debug_print_src(self, node):
        """Like debug_print, for a node that may be a list of statements."""
        print(unparser.unparse(node, include_encoding_marker=False), file=sys.stderr)
        return node

    def visit_block(self, nodes, before_visit=None, after_visit=None):
        """Visits a list of statements, splicing the lists that visits return.

        before_visit(): called before each statement. after_visit(replacement): called with
        each non-empty result; returns (replacement, new_destination). When new_destination
        is not None, the statements that follow go into that list instead of the returned
        one: this is how a statement takes the rest of its block into a body it created
        (see anno.Basic.INDENT_BLOCK_REMAINDER).
        """
        if nodes is None:
            return None
        accumulator = []
        destination = accumulator
        for node in nodes:
            if before_visit is not None:
                before_visit()
            replacement = self.visit(node)
            new_destination = None
            if after_visit is not None and replacement:
                replacement, new_destination = after_visit(replacement)
            if replacement:
                if isinstance(replacement, (list, tuple)):
                    destination.extend(replacement)
                else:
                    destination.append(replacement)
            if new_destination is not None:
                destination = new_destination
        return accumulator


_ORIGIN = anno.Basic.ORIGIN


def _inherit_origin(result, origin):
    for new_node in result if isinstance(result, (list, tuple)) else (result,):
        if isinstance(new_node, gast.AST) and not anno.hasanno(new_node, anno.Basic.ORIGIN):
            anno.setanno(new_node, anno.Basic.ORIGIN, origin)


class Base(NodeStateTracker, gast.NodeTransformer):
    """Base class for transformers of gast trees.

    A statement visit may return a node, a list of statements (spliced into the block) or
    None (removed). Replacement nodes inherit the ORIGIN of the node they replace.

    What it visits can be narrowed (conversion speed: a visit is a few calls, for most nodes
    of a tree): nodes with an annotation among `left_alone_keys` are returned unvisited;
    generic_visit visits the fields `fields_of(node class)` gives, and, when `relevant` is
    a set of node ids, only the children among them.
    """

    left_alone_keys = frozenset({anno.Basic.SKIP_PROCESSING})
    # Every field that may hold nodes (names, flags and expression contexts are left
    # alone: visiting a context changes nothing, and transformers define no visitor for
    # them).
    fields_of = staticmethod(ast_util.node_fields)
    relevant = None
    # node class -> the function visiting such nodes (called with the transformer), per
    # transformer class: the lookup runs for every node of every converter pass.
    _visitors = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._visitors = {}

    def visit(self, node):
        # Runs for every node of every converter pass: the visitor method is looked up
        # here instead of in super().
        if not isinstance(node, gast.AST):
            raise ValueError(
                f"expected an AST node, got {type(node).__name__}; use visit_block to "
                "visit a list of statements")
        annotations = anno.annotations(node)
        if annotations is not None:
            if not self.left_alone_keys.isdisjoint(annotations):
                return node
            origin = annotations.get(_ORIGIN)
        else:
            origin = None

        ctx = self.ctx
        parent_origin = ctx.current_origin
        if origin is not None:
            ctx.current_origin = origin
        try:
            visitor = self._visitors.get(node.__class__)
            if visitor is None:
                visitor = self._visitor_of(node.__class__)
            if node.__class__ is gast.Expr:
                original_value = node.value
                result = visitor(self, node)
                # An expression statement whose value was replaced by statements (an
                # assignment, or a list from a template) becomes those statements.
                if (isinstance(result, gast.Expr) and result.value is not original_value
                        and isinstance(result.value,
                                       (list, tuple, gast.Assign, gast.AugAssign))):
                    result = result.value
            else:
                result = visitor(self, node)

            if result is not node and result is not None:
                inherited = origin if origin is not None else parent_origin
                if inherited is not None:
                    _inherit_origin(result, inherited)
        finally:
            ctx.current_origin = parent_origin
        return result

    def _visitor_of(self, node_class):
        """The function visiting `node_class` nodes: visit_<class name>, or generic_visit
        (looked up once per transformer class and node class)."""
        transformer_class = self.__class__
        visitor = getattr(transformer_class, "visit_" + node_class.__name__, None)
        if visitor is None:
            visitor = transformer_class.generic_visit
        transformer_class._visitors[node_class] = visitor
        return visitor

    def generic_visit(self, node):
        """Visits the children of `node`, as ast.NodeTransformer does (lists returned for
        an element of a list field are spliced in, None removes it), with less overhead,
        except those the narrowing attributes leave as they are (see the class)."""
        relevant = self.relevant
        visit = self.visit
        values = node.__dict__
        for field in self.fields_of(node.__class__):
            old_value = values.get(field)
            if old_value.__class__ is list:
                new_values = []
                for value in old_value:
                    if isinstance(value, ast.AST) and (relevant is None
                                                       or id(value) in relevant):
                        value = visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old_value[:] = new_values
            elif isinstance(old_value, ast.AST) and (relevant is None
                                                     or id(old_value) in relevant):
                new_node = visit(old_value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node

    def get_definition_directive(self, node, directive, arg, default):
        """The argument `arg` of `directive` attached to the definitions reaching `node`.

        Directives (e.g. `ag.set_loop_options(...)`) are attached to the definitions of a
        symbol; all definitions reaching `node` must agree on the value.
        """
        definitions = anno.getanno(node, anno.Basic.ORIG_DEFINITIONS, None)
        if not definitions:
            definitions = anno.getanno(node, anno.Static.DEFINITIONS, ())
        values = []
        for definition in definitions:
            directives = getattr(definition, "directives", None) or {}
            if directive in directives and arg in directives[directive]:
                values.append(directives[directive][arg])
        if not values:
            return default
        first = values[0]
        for other in values[1:]:
            if not _same_value(first, other):
                qn = anno.getanno(node, anno.Basic.QN, None)
                name = str(qn) if qn is not None else unparser.unparse(
                    node, include_encoding_marker=False).strip()
                raise ValueError(
                    f"{name!r} has ambiguous values for {directive}({arg}=...): "
                    f"{_describe_value(first)} and {_describe_value(other)}")
        return first

    def apply_to_single_assignments(self, targets, values, apply_fn):
        """Calls apply_fn(target, value) for each simple target of an assignment.

        Tuple targets assigned from literal tuples or lists of the same length are split
        element by element; any other target is passed whole.
        """
        if not isinstance(targets, (list, tuple)):
            targets = (targets,)
        for target in targets:
            if isinstance(target, (gast.Tuple, gast.List)):
                if isinstance(values, (gast.Tuple, gast.List)) and len(values.elts) == len(
                        target.elts):
                    for sub_target, sub_value in zip(target.elts, values.elts):
                        self.apply_to_single_assignments(sub_target, sub_value, apply_fn)
                    continue
            apply_fn(target, values)


def _same_value(a, b):
    if isinstance(a, gast.AST) and isinstance(b, gast.AST):
        return gast.dump(a) == gast.dump(b)
    return a == b


def _describe_value(value):
    if isinstance(value, gast.AST):
        return unparser.unparse(value, include_encoding_marker=False).strip()
    return repr(value)


class CodeGenerator(NodeStateTracker, gast.NodeVisitor):
    """Base class for visitors that produce text (or other output) from a tree.

    Subclasses `emit` text; `code_buffer` is what was emitted so far.
    """

    def __init__(self, ctx):
        super().__init__(ctx)
        self._output_code = []
        self._output_lines = 1
        self.source_map = {}  # line of code_buffer -> OriginInfo of what produced it

    def emit(self, code):
        self._output_code.append(code)
        self._output_lines += code.count("\n")

    @property
    def code_buffer(self):
        return "".join(self._output_code)

    def visit(self, node):
        if anno.hasanno(node, anno.Basic.SKIP_PROCESSING):
            return None
        parent_origin = self.ctx.current_origin
        origin = anno.getanno(node, anno.Basic.ORIGIN, None)
        if origin is not None:
            self.ctx.current_origin = origin
            # The line being emitted comes from this origin.
            self.source_map.setdefault(self._output_lines, origin)
        try:
            return super().visit(node)
        finally:
            self.ctx.current_origin = parent_origin
