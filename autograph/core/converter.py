"""What every converter shares: conversion options, the program context, the Base class.

A converter is a module with a `transform(node, ctx)` function that returns the new node;
ctx is a pyct transformer.Context whose `user` is the ProgramContext of this conversion.
"""

import enum

import gast

from autograph.core import marks
from autograph.pyct import anno, ast_util, transformer


class Feature(enum.Enum):
    """Optional conversion features; Feature.ALL turns every one on."""

    ALL = "all"
    ASSERT_STATEMENTS = "assert statements become ag__.assert_stmt"
    LISTS = "list append/pop become overloads"
    LOGICAL_EXPRESSIONS = "and/or/not become lazy overloads"
    CONDITIONAL_EXPRESSIONS = "a if c else b becomes ag__.if_exp"
    BUILTIN_FUNCTIONS = "builtins are routed to overloads"


class ConversionOptions:
    """How to convert: `recursive` converts callees too; `user_requested` marks the entity the
    user asked for (converted even if its module is on the do-not-convert list)."""

    __slots__ = ("recursive", "user_requested", "optional_features", "_key")

    def __init__(self, recursive=False, user_requested=False, optional_features=Feature.ALL):
        self.recursive = bool(recursive)
        self.user_requested = bool(user_requested)
        if isinstance(optional_features, Feature):
            optional_features = (optional_features,)
        self.optional_features = frozenset(optional_features or ())
        self._key = (self.recursive, self.user_requested, self.optional_features)

    def uses(self, feature):
        return Feature.ALL in self.optional_features or feature in self.optional_features

    def call_options(self):
        """The options for the functions this one calls."""
        return ConversionOptions(recursive=self.recursive, user_requested=False,
                                 optional_features=self.optional_features)

    def caching_key(self):
        """The part of the options that changes generated code (user_requested does not)."""
        return (self.recursive, self.optional_features)

    def __eq__(self, other):
        return isinstance(other, ConversionOptions) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        features = sorted(f.name for f in self.optional_features)
        return (f"ConversionOptions(recursive={self.recursive}, "
                f"user_requested={self.user_requested}, optional_features={features})")


STANDARD_OPTIONS = ConversionOptions(recursive=True, user_requested=False)


class ProgramContext:
    """Per-conversion state shared by all converters: options and the entity converted."""

    def __init__(self, options, entity=None):
        self.options = options
        self.entity = entity
        # Names of the block functions the control-flow converter generated.
        self.generated_function_names = set()


class Base(transformer.Base):
    """Base class of converters: a pyct transformer that leaves alone what must stay as
    written (marks.is_left_alone).

    Converters that only rewrite statements set `statements_only`: expressions are then
    not walked at all (conversion speed: most of a tree is expressions).
    """

    left_alone_keys = marks.LEFT_ALONE_KEYS
    statements_only = False
    # Converters that only rewrite nodes of these types set them: subtrees without such a
    # node are then skipped without being walked node by node.
    target_types = ()
    # The ids of the nodes that are, or hold, a target: found by the relevance walk
    # (marks.nodes_containing) on the first visit, unless a transform gives them beforehand.
    relevant = None

    def __init__(self, ctx):
        super().__init__(ctx)
        if self.statements_only:
            # The statements below a statement are in its blocks.
            self.fields_of = ast_util.block_fields

    def visit(self, node):
        relevant = self.relevant
        if relevant is None and self.target_types:
            relevant = self.relevant = marks.nodes_containing(node, self.target_types,
                                                              self.is_target)
        if (relevant is not None and id(node) not in relevant
                or self.statements_only and isinstance(node, gast.expr)):
            return node
        return transformer.Base.visit(self, node)

    def has_targets(self, node):
        """True when `node` holds a node of `target_types` (the walk that finds out is the
        one `visit` uses to skip subtrees, so a transform can test this first for free)."""
        if self.relevant is None:
            self.relevant = marks.nodes_containing(node, self.target_types, self.is_target)
        return id(node) in self.relevant

    def is_target(self, node):
        """Whether this converter rewrites `node`, of one of `target_types`, itself: a node
        it would return as it is once its children are visited need not be visited, nor
        what is above it, unless they hold other targets. Decided from the node and what
        is below it (the relevance walk asks bottom-up); true by default."""
        return True

    def new_symbol(self, name_root):
        """A fresh name that clashes with nothing the function or its namespace uses.

        The namer already reserves every identifier of the original code object, and
        remembers the names it generated.
        """
        return self.ctx.namer.new_symbol(name_root, ())


def docstring_length(body):
    """1 if a function body starts with a docstring (which must stay first), else 0."""
    first = body[0] if body else None
    return int(isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant)
               and isinstance(first.value.value, str))


_BINDING_CONTEXTS = frozenset({gast.Store, gast.Del})
_DEFINITIONS = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})
_COMPREHENSION_CLASSES = frozenset({gast.ListComp, gast.SetComp, gast.DictComp,
                                    gast.GeneratorExp})
_NAMED_PATTERNS = frozenset({gast.MatchAs, gast.MatchStar, gast.MatchMapping})
_DECLARATIONS = frozenset({gast.Global, gast.Nonlocal})


# Without walrus operators, the only fields of these nodes that can bind a name (in a
# function's own scope): the walk of _own_scope_names then leaves out their expressions
# (most of a tree). Names, definitions, aliases, comprehensions and declarations are
# handled before fields are looked at; any other node has all its fields walked.
_BINDING_FIELDS = {
    gast.Assign: ("targets",),
    gast.AugAssign: ("target",),
    gast.AnnAssign: ("target",),
    gast.Delete: ("targets",),
    gast.For: ("target", "body", "orelse"),
    gast.AsyncFor: ("target", "body", "orelse"),
    gast.While: ("body", "orelse"),
    gast.If: ("body", "orelse"),
    gast.With: ("items", "body"),
    gast.AsyncWith: ("items", "body"),
    gast.withitem: ("optional_vars",),
    gast.Try: ("body", "handlers", "orelse", "finalbody"),
    gast.TryStar: ("body", "handlers", "orelse", "finalbody"),
    gast.ExceptHandler: ("name", "body"),
    gast.Match: ("cases",),
    gast.match_case: ("pattern", "body"),
    gast.MatchMapping: ("patterns",),
    gast.MatchClass: ("patterns", "kwd_patterns"),
    gast.MatchValue: (),
    gast.MatchSingleton: (),
    gast.Expr: (),
    gast.Return: (),
    gast.Raise: (),
    gast.Assert: (),
    gast.Attribute: (),  # a store into an attribute or item binds no name
    gast.Subscript: (),
}


def _own_scope_names(function_node, walrus=True):
    """(names the function's own code binds, names it declares global or nonlocal), from
    one walk of its own scope.

    walrus=False says the function holds no walrus operator (`:=`, which binds wherever
    it is): only the places that can bind otherwise are walked (see _BINDING_FIELDS).
    """
    bound = set()
    declared = set()
    add = bound.add
    stack = list(function_node.body)
    pop = stack.pop
    push = stack.append
    binding_fields = {} if walrus else _BINDING_FIELDS
    child_nodes = ast_util.child_nodes
    name_class = gast.Name
    while stack:
        node = pop()
        node_class = node.__class__
        if node_class is name_class:
            if node.ctx.__class__ in _BINDING_CONTEXTS:
                add(node.id)
            if walrus and node.annotation is not None:
                push(node.annotation)
            continue
        if node_class in _DEFINITIONS:
            add(node.name)
            if walrus:
                stack.extend(node.decorator_list)
            continue
        if node_class is gast.Lambda:
            continue
        if node_class is gast.alias:
            add((node.asname or node.name).partition(".")[0])
            continue
        if node_class in _COMPREHENSION_CLASSES:
            if not walrus:
                continue
            # Only the outermost iterable is evaluated here; walrus targets bind here too.
            push(node.generators[0].iter)
            bound.update(n.target.id for n in ast_util.walk(node)
                         if n.__class__ is gast.NamedExpr)
            continue
        if node_class in _DECLARATIONS:
            declared.update(node.names)
            continue
        if node_class is gast.AnnAssign:
            if node.value is None and node.target.__class__ is name_class:
                add(node.target.id)
        elif node_class in _NAMED_PATTERNS:  # match patterns bind plain strings
            for name_field in ("name", "rest"):
                value = getattr(node, name_field, None)
                if isinstance(value, str):
                    add(value)
        stack.extend(child_nodes(node, binding_fields.get(node_class)))
    return bound, declared


def own_bindings(function_node, walrus=True):
    """Names a function's own code binds (not counting what its nested scopes bind);
    walrus=False says it holds no walrus operator (a cheaper walk)."""
    return _own_scope_names(function_node, walrus)[0]


def local_names(function_node, walrus=True):
    """Names local to a function: its parameters and what its own code binds, minus the
    names it declares global or nonlocal. walrus=False says it holds no walrus operator
    (a cheaper walk)."""
    args = function_node.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    params.update(a.id for a in (args.vararg, args.kwarg) if a is not None)
    bound, declared = _own_scope_names(function_node, walrus)
    return (bound | params) - declared


def may_hold_walrus(ctx):
    """False when the converted entity's source has no `:=`, so neither has its tree
    (converters add walrus operators only in and/or and if-else conversion, which run
    last): the walks for bindings may then leave out expressions."""
    source = ctx.info.source_code
    return not isinstance(source, str) or ":=" in source


class LazyLocalNames:
    """`name in LazyLocalNames(function_node)` is `name in local_names(function_node)`,
    computed on the first test only (most functions never need it)."""

    __slots__ = ("function_node", "walrus", "_names")

    def __init__(self, function_node, walrus=True):
        self.function_node = function_node
        self.walrus = walrus
        self._names = None

    def __contains__(self, name):
        if self._names is None:
            self._names = frozenset(local_names(self.function_node, self.walrus))
        return name in self._names


def is_unconvertible_function(node):
    """Generators and coroutines keep their code: lowering returns or moving code into
    nested functions would change what `yield` and `await` mean."""
    if isinstance(node, gast.AsyncFunctionDef):
        return True
    for child in walk_own_scope(node):
        if isinstance(child, (gast.Yield, gast.YieldFrom, gast.Await)):
            return True
    return False


def walk_own_scope(node):
    """Walks a function's body without entering nested functions, lambdas or classes."""
    stack = list(node.body) if isinstance(node.body, list) else [node.body]
    while stack:
        child = stack.pop()
        yield child
        if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                              gast.ClassDef)):
            # Their decorators, defaults and bases are evaluated in this scope.
            stack.extend(getattr(child, "decorator_list", []))
            if not isinstance(child, gast.ClassDef):
                stack.extend(d for d in child.args.defaults if d is not None)
                stack.extend(d for d in child.args.kw_defaults if d is not None)
            else:
                stack.extend(child.bases)
                stack.extend(child.keywords)
            continue
        stack.extend(ast_util.child_nodes(child))

