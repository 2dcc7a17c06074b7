"""The marks converters leave on the tree for the converters after them. Each is defined
here with its contract: who sets it, who reads it, and what must not happen in between;
converters set and read marks only through this module. Its walk finds which nodes hold
what a converter rewrites (so that it visits only those), reading the marks.
"""

import gast

from autograph.pyct import anno, ast_util


class AgAnno(anno.NoValue):
    """Annotation keys the converters exchange among themselves (contracts below)."""

    # Members are singletons compared by identity: hashing them by identity (in C) is
    # equivalent, and cheaper than Enum's hash of the name (they are looked up per node).
    __hash__ = object.__hash__

    MAYBE_UNDEFINED = (
        "On a user's function: the names a converted statement of its own body may leave "
        "undefined (a frozenset). See set_maybe_undefined.")
    UNCONVERTIBLE = (
        "A nested function or class that stays exactly as written. See mark_unconvertible.")
    WITHOUT_CHOICES = (
        "An expression or simple statement holding no if-else, and/or, `not` or chained "
        "comparison. See mark_what_holds_no_choice.")


# -- The skip table -----------------------------------------------------------------------
# A node is left alone by every converter, and by every walk a converter makes, when it is
# marked SKIP_PROCESSING (pyct's own mark: no pyct transformer enters such a node) or
# UNCONVERTIBLE. Set by: control_flow (leave_alone) on the type tests it generates and on
# its generated functions made of names and constants only; functions (mark_unconvertible)
# on nested generators, coroutines and classes. Read by: converter.Base.visit and pyct's
# transformer.Base.visit (the node is returned unvisited), this module's walk (relevance
# and marks: nodes_containing_each), control_flow's dual forms
# (the node is kept, and copied whole into a graph form), variables. In between: a
# converter may move a left-alone node whole, never change what is in it.


LEFT_ALONE_KEYS = frozenset({anno.Basic.SKIP_PROCESSING, AgAnno.UNCONVERTIBLE})


def is_left_alone(node):
    """True for a node every converter leaves as it is (see the skip table above)."""
    annotations = anno.annotations(node)
    return annotations is not None and not LEFT_ALONE_KEYS.isdisjoint(annotations)


def leave_alone(node):
    """Marks a generated node that the converters after this one must leave as it is."""
    anno.setanno(node, anno.Basic.SKIP_PROCESSING, True)
    return node


def mark_unconvertible(node):
    """Marks a nested function or class that must stay exactly as written."""
    anno.setanno(node, AgAnno.UNCONVERTIBLE, True)
    return node


# -- Names a converted statement may leave undefined ----------------------------------------
# Set by: control_flow, on each user function (not on the functions it generates) whose
# converted statements have an output that is not surely defined before them. Read by:
# variables, which wraps the loads of those names in `ag__.ld(name)` in that function's own
# code, and impl/conversion, which runs variables only when the converted function has the
# mark (or nested functions, which may have their own). In between: conditional_expressions
# and logical_expressions may rewrite expressions, never bind or rename those names; and
# no node may be shared by the function's Python form and its graph forms (variables
# rewrites loads in place, in the Python form only: control_flow copies the graph forms
# of a function it marks).


def set_maybe_undefined(function_node, names):
    anno.setanno(function_node, AgAnno.MAYBE_UNDEFINED, frozenset(names))


def maybe_undefined(function_node):
    """The names the function's converted statements may leave undefined (empty when none)."""
    return anno.getanno(function_node, AgAnno.MAYBE_UNDEFINED, frozenset())


# -- What holds no choice ------------------------------------------------------------------
# Set by: call_trees, which marks (mark_what_holds_no_choice) every expression and simple
# statement of the function that holds no node of CHOICE_TYPES and nothing left alone; and
# control_flow, on the nodes it makes from names, constants and marked nodes only
# (mark_holds_no_choice). Read by: control_flow (holds_no_choice: the Python and graph
# forms of a statement share such a node instead of each having a copy), the relevance
# walks of conditional_expressions and logical_expressions (nodes_containing_each skips
# marked nodes when it looks for CHOICE_TYPES only), and the copies of
# logical_expressions.functional_copy, which keep the mark. In between (from call_trees to
# logical_expressions): no converter puts a node of CHOICE_TYPES into a marked node in
# place; they move or copy marked nodes whole (copies keep the mark), and the nodes they
# make are unmarked, so they are walked.

# What conditional_expressions and logical_expressions convert (of comparisons, the
# chained ones, `a < b < c`, and `x is None`: see is_choice).
CHOICE_TYPES = (gast.IfExp, gast.BoolOp, gast.UnaryOp, gast.Compare)
_CHOICE_CLASSES = frozenset(CHOICE_TYPES)
# The nodes that can carry the mark: expressions and simple statements.
_MARKABLE_CLASSES = frozenset(
    [cls for cls in vars(gast).values() if isinstance(cls, type) and issubclass(cls, gast.expr)]
    + [gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.Delete,
       gast.Raise])


def is_choice(node):
    """Whether `node`, of CHOICE_TYPES, is a choice: a comparison only when chained, or an
    `is None` test (whose result a graph may compute: a called function's result may be
    None on some paths only)."""
    return node.__class__ is not gast.Compare or len(node.ops) > 1 or is_none_test(node)


def is_none_test(node):
    """Is Compare `node` `x is None` or `x is not None` (None on either side)?"""
    return (len(node.ops) == 1 and node.ops[0].__class__ in (gast.Is, gast.IsNot)
            and any(side.__class__ is gast.Constant and side.value is None
                    for side in (node.left, node.comparators[0])))


def holds_no_choice(node):
    """Whether `node` is marked as holding no choice (unmarked: unknown)."""
    return bool(anno.getanno(node, AgAnno.WITHOUT_CHOICES, False))


def mark_holds_no_choice(node):
    """Marks a node made of names, constants and marked nodes only."""
    anno.setanno(node, AgAnno.WITHOUT_CHOICES, True)
    return node


def mark_what_holds_no_choice(root, target_types):
    """Marks the nodes of `root`'s tree that can carry the mark (not its leaves: names,
    constants, operators), already have annotations, and hold no choice and nothing left
    alone. Returns, found in the same walk, the ids of the nodes that are, or have below
    them, a node of `target_types` (the relevance set of a converter looking for them: see
    converter.Base.target_types)."""
    return _walk(root, target_types, CHOICE_TYPES, None, is_choice, mark=True)[0]


# -- Which nodes hold what a converter rewrites ---------------------------------------------

def nodes_containing_each(root, first_types, second_types, is_first=None, is_second=None):
    """(ids of the nodes that are, or have below them, a node of `first_types`; the same
    for `second_types`), from one walk (two converters that run one after the other share
    it). `is_first` and `is_second`, if given, say which nodes of those types count (see
    converter.Base.is_target).

    Nodes left alone, which converters never enter, are not walked, nor, when every type
    looked for is among CHOICE_TYPES, nodes marked as holding no choice."""
    return _walk(root, first_types, second_types, is_first, is_second, mark=False)


def nodes_containing(root, node_types, is_target=None):
    """ids of the nodes of a tree that are, or have below them, a node of `node_types`
    (for which `is_target`, if given, is true)."""
    return _walk(root, node_types, (), is_target, None, mark=False)[0]


def _walk(root, first_types, second_types, is_first, is_second, mark):
    """nodes_containing_each; with `mark` (second_types: CHOICE_TYPES), it also marks what
    holds no choice, and counts what is left alone as holding one."""
    if not isinstance(first_types, tuple):
        first_types = (first_types,)
    if not isinstance(second_types, tuple):
        second_types = (second_types,)
    first = set()
    second = set()
    child_nodes = ast_util.child_nodes
    name_class = gast.Name
    # Leaves (constants, operators, names without an annotation: about half of all nodes)
    # are passed without a call, unless they are of a type looked for.
    leaf_classes = _leaves_not_looked_for(first_types + second_types)
    # What is not walked: what converters leave alone, and what holds none of the types
    # looked for.
    not_walked = LEFT_ALONE_KEYS
    if not mark and all(t in _CHOICE_CLASSES for t in first_types + second_types):
        not_walked = not_walked | {AgAnno.WITHOUT_CHOICES}
    left_alone_found = 2 if mark else 0
    without_choices = AgAnno.WITHOUT_CHOICES

    def visit(node):
        """Bit 1: `node` is or holds a node of first_types; bit 2: of second_types."""
        annotations = anno.annotations(node)
        if annotations is not None and not not_walked.isdisjoint(annotations):
            return left_alone_found
        found = 0
        for child in child_nodes(node):
            child_class = child.__class__
            if not (child_class in leaf_classes
                    and (child_class is not name_class or child.annotation is None)):
                found |= visit(child)
        if found & 1 or (isinstance(node, first_types)
                         and (is_first is None or is_first(node))):
            first.add(id(node))
            found |= 1
        if found & 2 or (isinstance(node, second_types)
                         and (is_second is None or is_second(node))):
            second.add(id(node))
            found |= 2
        elif mark and annotations is not None and node.__class__ in _MARKABLE_CLASSES:
            annotations[without_choices] = True
        return found

    visit(root)
    del visit  # it refers to itself: a cycle the collector would have to find
    return first, second


_leaf_classes = {}  # types looked for -> the leaf classes (and Name) not among them


def _leaves_not_looked_for(node_types):
    leaf_classes = _leaf_classes.get(node_types)
    if leaf_classes is None:
        leaf_classes = _leaf_classes[node_types] = frozenset(
            cls for cls in ast_util.LEAF_CLASSES | {gast.Name}
            if not issubclass(cls, node_types))
    return leaf_classes
