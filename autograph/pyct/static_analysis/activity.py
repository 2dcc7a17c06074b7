"""Activity analysis: which symbols each scope of a function reads, modifies, binds or declares.

`resolve(node, ctx)` annotates (anno.Static keys, Scope values):
  FunctionDef / AsyncFunctionDef: SCOPE and BODY_SCOPE (the same Scope: parameters and
    body); Lambda, ListComp/SetComp/DictComp/GeneratorExp, ClassDef: SCOPE;
  If / While: COND_SCOPE (the test), BODY_SCOPE, ORELSE_SCOPE;
  For / AsyncFor: ITERATE_SCOPE (iterable, target, extra loop test), BODY_SCOPE,
    ORELSE_SCOPE; Try / TryStar: BODY_SCOPE, ORELSE_SCOPE; ExceptHandler, With,
    AsyncWith, match_case: BODY_SCOPE; Call: ARGS_SCOPE (positional and keyword args);
  parameter Name nodes: IS_PARAM.
It also runs qual_names.resolve on the node (unless told not to: see resolve).
"""

import gast

from autograph.pyct import anno
from autograph.pyct import ast_util
from autograph.pyct import qual_names

_LOAD = gast.Load

# Fields visited by generic_visit, per node class: those that may hold nodes, except the
# operators of BinOp, UnaryOp, BoolOp, AugAssign (`op`) and Compare (`ops`) and the
# expression contexts, which record nothing.
_activity_fields = {}


def _fields_with_activity(node_class):
    fields = _activity_fields[node_class] = tuple(
        field for field in ast_util.node_fields(node_class) if field not in ("op", "ops"))
    return fields


class _Dispatch(dict):
    """{node class: the analyzer class's visit_<class name> method, else its generic_visit},
    filled as classes are met."""

    def __init__(self, analyzer_class):
        super().__init__()
        self._analyzer_class = analyzer_class

    def __missing__(self, node_class):
        analyzer_class = self._analyzer_class
        method = getattr(analyzer_class, "visit_" + node_class.__name__,
                         analyzer_class.generic_visit)
        self[node_class] = method
        return method


class Scope:
    """What one scope does with symbols (sets of qual_names.QN).

    Attributes:
      read: symbols whose value is used (`a`, and `a.b` and `a` for a read of `a.b`).
      modified: symbols (re)bound or changed: assignment, augmented assignment, `del`,
        the targets of for/with/except/import/walrus/match patterns, def and class names.
        Mutations appear as composites: `self.a += 1` modifies `self.a`, `d[k] = v`
        modifies `d[k]` (and reads `self`, `d`, `k`).
      indirectly_modified: owners of stores whose target names no single symbol:
        `d[i + 1] = v` and `d[1:2] = v` record `d` here (and nothing in `modified`).
      deleted: symbols removed by `del` (also in `modified`).
      bound: simple names bound in this scope, parameters included (what makes a name
        local to a function).
      params: {QN: Name node} of the parameters of a function or lambda.
      globals, nonlocals: names declared `global` / `nonlocal`.
      annotations: symbols read in type annotations (local variable annotations are
        never evaluated, so they are not in `read`; parameter and return annotations are).
      isolated: True for functions, lambdas, comprehensions and classes: their local
        names do not leak into the parent; only their free reads propagate as reads of
        the parent (so a name read only by a closure still counts as read where the
        closure is defined). Other scopes (blocks) merge everything into their parent.
      parent: the enclosing Scope, or None.
      function_name: name of the function for function scopes, else None.
    """

    # A few dozen are made per conversion (one per block, simple statement, call, function):
    # no per-instance dict to build and free.
    __slots__ = ("parent", "isolated", "function_name", "is_comprehension", "read",
                 "modified", "indirectly_modified", "deleted", "bound", "params", "globals",
                 "nonlocals", "annotations", "walrus_escapes", "is_final")

    def __init__(self, parent, isolated=True, function_name=None):
        self.parent = parent
        self.isolated = isolated
        self.function_name = function_name
        self.is_comprehension = False
        self.read = set()
        self.modified = set()
        self.indirectly_modified = set()
        self.deleted = set()
        self.bound = set()
        self.params = {}
        self.globals = set()
        self.nonlocals = set()
        self.annotations = set()
        # Walrus targets inside a comprehension bind in the enclosing function (PEP 572).
        self.walrus_escapes = set()
        self.is_final = False

    @property
    def referenced(self):
        """Symbols read here or in any enclosing scope."""
        if self.parent is not None:
            return self.read | self.parent.referenced
        return set(self.read)

    @property
    def enclosing_scope(self):
        """The nearest isolated scope, this one included (the function it belongs to)."""
        scope = self
        while scope is not None and not scope.isolated:
            scope = scope.parent
        return scope

    @property
    def local_names(self):
        """Simple names that are local to this (isolated) scope."""
        return (self.bound | set(self.params)) - self.globals - self.nonlocals

    @property
    def free_reads(self):
        """Reads that refer to symbols of enclosing scopes (or globals)."""
        local = self.local_names
        return {s for s in self.read if s.root not in local}

    def mutations_of(self, base):
        """Modified composites owned by `base` (a QN or str): {d[k], d.x} for base `d`.

        `mutations_of(b) or b in indirectly_modified` answers "is the object held
        by b changed here".
        """
        if isinstance(base, str):
            base = qual_names.from_str(base)
        return {s for s in self.modified if s.is_composite() and base in s.owner_set}

    def is_mutated(self, base):
        """True if any composite owned by `base` is modified, or `base` is indirectly modified."""
        if isinstance(base, str):
            base = qual_names.from_str(base)
        if any(base == s or base in s.owner_set for s in self.indirectly_modified):
            return True
        return bool(self.mutations_of(base))

    def merge_from(self, other):
        """Adds everything `other` records to this scope."""
        # Most of these sets are empty in a block: testing is cheaper than a union.
        if other.read:
            self.read |= other.read
        if other.modified:
            self.modified |= other.modified
        if other.indirectly_modified:
            self.indirectly_modified |= other.indirectly_modified
        if other.deleted:
            self.deleted |= other.deleted
        if other.bound:
            self.bound |= other.bound
        if other.globals:
            self.globals |= other.globals
        if other.nonlocals:
            self.nonlocals |= other.nonlocals
        if other.annotations:
            self.annotations |= other.annotations
        if other.walrus_escapes:
            self.walrus_escapes |= other.walrus_escapes

    def finalize(self):
        """Closes the scope, propagating what its parent must see."""
        assert not self.is_final
        self.is_final = True
        parent = self.parent
        if parent is None:
            return
        if not self.isolated:
            parent.merge_from(self)
            return
        parent.read |= self.free_reads
        local = self.local_names
        parent.annotations |= {s for s in self.annotations if s.root not in local}
        if self.walrus_escapes:
            enclosing = parent.enclosing_scope
            if enclosing is not None and enclosing.is_comprehension:
                enclosing.walrus_escapes |= self.walrus_escapes
            else:
                parent.modified |= self.walrus_escapes
                parent.bound |= self.walrus_escapes

    def __repr__(self):
        def names(symbols):
            return "{" + ", ".join(sorted(str(s) for s in symbols)) + "}"
        return (f"Scope(read={names(self.read)}, modified={names(self.modified)}, "
                f"bound={names(self.bound)}, params={names(self.params)}, "
                f"deleted={names(self.deleted)}, globals={names(self.globals)}, "
                f"nonlocals={names(self.nonlocals)}, isolated={self.isolated})")


class ActivityAnalyzer(gast.NodeVisitor):
    """Visits a tree recording symbol activity into `self.scope` and its children.

    With annotate=False nothing is written on the nodes: used to compute the effect of
    one CFG node (see `effects`).
    """

    def __init__(self, scope, annotate=True, effects=None, names=None, call_scopes=True):
        self.scope = scope
        self.annotate = annotate
        # Without call scopes (or annotations), a call's arguments are recorded in the
        # enclosing scope directly: a call's scope is not isolated, so that is where
        # all of it ends up anyway (a Scope fewer per call).
        self.call_scopes = call_scopes and annotate
        # {identifier: QN} when the QNs are computed here (qual_names.computed_qn) instead
        # of read from the anno.Basic.QN annotations of qual_names.resolve.
        self._names = names
        # {function or lambda node: its Scope}, also filled when not annotating.
        self.function_scopes = {}
        # {AST node of a CFG node: its `effects`}, when given: the scopes of the units of
        # work are recorded as they are visited, instead of being visited again for the
        # dataflow analyses (see record_effects).
        self.effects = effects
        self._in_aug_assign = False
        self._in_annotation = False

    # A per-class dispatch table (see _Dispatch) and a direct field walk: NodeVisitor's
    # string-built method lookup and iter_fields dominate the cost of this pass otherwise.
    # The most frequent callers (generic_visit, _statements, visit_Call) use the table
    # directly: a Python call fewer per node.
    _dispatch = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._dispatch = _Dispatch(cls)

    def visit(self, node):
        return self._dispatch[node.__class__](self, node)

    def generic_visit(self, node):
        fields = _activity_fields.get(node.__class__)
        if fields is None:
            fields = _fields_with_activity(node.__class__)
        dispatch = self._dispatch
        for child in ast_util.child_nodes(node, fields):
            dispatch[child.__class__](self, child)

    # Scope management.
    def _enter(self, isolated, function_name=None):
        self.scope = Scope(self.scope, isolated=isolated, function_name=function_name)
        return self.scope

    def _exit(self, node=None, key=None):
        scope = self.scope
        scope.finalize()
        self.scope = scope.parent
        if node is not None and self.annotate:
            anno.setanno(node, key, scope)
        return scope

    def _block(self, statements, node, key):
        self._enter(False)
        self._statements(statements)
        return self._exit(node, key)

    def _statements(self, statements):
        effects = self.effects
        dispatch = self._dispatch
        if effects is None:
            for statement in statements:
                dispatch[statement.__class__](self, statement)
            return
        for statement in statements:
            if statement.__class__ in _COMPOUND_STATEMENTS:
                dispatch[statement.__class__](self, statement)
            else:
                # A CFG node of its own: its effects are the scope of its visit.
                effects[statement] = self._unit(statement)

    def _unit(self, node):
        """Visits `node` in a block scope of its own (merged into the current one): what
        `effects` computes for a CFG node standing for `node`."""
        self._enter(False)
        self.visit(node)
        return self._exit()

    # Symbols.
    def _track(self, node, qn):
        if self._in_annotation:
            self.scope.annotations.add(qn)
            return
        ctx = node.ctx
        if isinstance(ctx, gast.Store):
            self.scope.modified.add(qn)
            if qn.is_simple():
                self.scope.bound.add(qn)
            if self._in_aug_assign:
                self.scope.read.add(qn)
        elif isinstance(ctx, gast.Del):
            self.scope.modified.add(qn)
            self.scope.deleted.add(qn)
        elif isinstance(ctx, gast.Param):
            self.scope.params[qn] = node
            self.scope.bound.add(qn)
            if self.annotate:
                anno.setanno(node, anno.Static.IS_PARAM, True)
        else:
            self.scope.read.add(qn)

    def _qn(self, node):
        if self._names is not None:
            return qual_names.computed_qn(node, self._names)
        return qual_names.qn_of(node)

    def visit_Constant(self, node):
        # Nothing to record (ast.NodeVisitor's own visit_Constant, which the dispatch
        # would find, looks for deprecated visitors first, for every constant).
        pass

    def visit_Name(self, node):
        # The most frequent visit: _qn and _track inlined for a name read.
        names = self._names
        if names is None:
            qn = qual_names.qn_of(node)
        else:
            qn = names.get(node.id)
            if qn is None:
                qn = qual_names.computed_qn(node, names)
        if node.ctx.__class__ is _LOAD and not self._in_annotation:
            self.scope.read.add(qn)
        else:
            self._track(node, qn)
        # gast keeps parameter annotations on the Name; visit_arguments handles them.

    def _visit_composite(self, node):
        qn = self._qn(node)
        if isinstance(node.ctx, (gast.Store, gast.Del)) and not self._in_annotation:
            # The owner is read (loaded) to store into it; so are subscript indices.
            saved = self._in_aug_assign
            self._in_aug_assign = False
            self.visit(node.value)
            if isinstance(node, gast.Subscript):
                self.visit(node.slice)
            self._in_aug_assign = saved
            if qn is not None:
                self._track(node, qn)
            else:
                owner = self._qn(node.value)
                if owner is not None:
                    self.scope.indirectly_modified.add(owner)
                    if self._in_aug_assign:
                        self.scope.read.add(owner)
            return
        self.generic_visit(node)
        if qn is not None:
            self._track(node, qn)

    visit_Attribute = _visit_composite
    visit_Subscript = _visit_composite

    def visit_AugAssign(self, node):
        self.visit(node.value)
        self._in_aug_assign = True
        self.visit(node.target)
        self._in_aug_assign = False

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
        self._visit_annotation(node.annotation)
        if node.value is not None:
            self.visit(node.target)
        elif not isinstance(node.target, gast.Name):
            # `a.b: int` evaluates `a` without assigning.
            self.visit(node.target.value)

    def _visit_annotation(self, annotation, evaluated=False):
        if annotation is None:
            return
        if evaluated:
            self.visit(annotation)
        saved = self._in_annotation
        self._in_annotation = True
        self.visit(annotation)
        self._in_annotation = saved

    def visit_Assign(self, node):
        # The value is evaluated before the targets are bound.
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_NamedExpr(self, node):
        if self.effects is not None:
            self.effects.walrus = True
        self.visit(node.value)
        qn = self._qn(node.target)
        enclosing = self.scope.enclosing_scope
        if enclosing is not None and enclosing.is_comprehension:
            enclosing.walrus_escapes.add(qn)
        else:
            self.scope.modified.add(qn)
            self.scope.bound.add(qn)

    def visit_Global(self, node):
        self.scope.globals.update(qual_names.QN(name) for name in node.names)

    def visit_Nonlocal(self, node):
        self.scope.nonlocals.update(qual_names.QN(name) for name in node.names)

    def _bind(self, name):
        qn = qual_names.QN(name)
        self.scope.modified.add(qn)
        self.scope.bound.add(qn)

    def visit_Import(self, node):
        for alias in node.names:
            # `import a.b` binds `a`; `import a.b as c` binds `c`.
            self._bind(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node):
        for alias in node.names:
            if alias.name != "*":
                self._bind(alias.asname or alias.name)

    # Functions, lambdas, classes, comprehensions: isolated scopes.
    def _visit_defaults_and_annotations(self, args, annotations_evaluated=True):
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default)
        if annotations_evaluated:
            for arg in self._all_args(args):
                self._visit_annotation(arg.annotation, evaluated=True)

    @staticmethod
    def _all_args(args):
        all_args = list(args.posonlyargs) + list(args.args)
        if args.vararg is not None:
            all_args.append(args.vararg)
        all_args.extend(args.kwonlyargs)
        if args.kwarg is not None:
            all_args.append(args.kwarg)
        return all_args

    def visit_arguments(self, node):
        # Only parameter binding happens in the function's own scope.
        for arg in self._all_args(node):
            self._track(arg, self._qn(arg))

    def _visit_function(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._visit_defaults_and_annotations(node.args)
        self._visit_annotation(node.returns, evaluated=True)
        self._bind(node.name)
        self._enter(True, function_name=node.name)
        self.visit(node.args)
        self._statements(node.body)
        scope = self._exit(node, anno.Static.SCOPE)
        self.function_scopes[node] = scope
        if self.annotate:
            anno.setanno(node, anno.Static.BODY_SCOPE, scope)

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_Lambda(self, node):
        if self.effects is not None:
            self.effects.lambdas.append(node)
        self._visit_defaults_and_annotations(node.args, annotations_evaluated=False)
        self._enter(True, function_name="<lambda>")
        self.visit(node.args)
        self.visit(node.body)
        self.function_scopes[node] = self._exit(node, anno.Static.SCOPE)

    def visit_ClassDef(self, node):
        for expression in node.decorator_list + node.bases + node.keywords:
            self.visit(expression)
        self._bind(node.name)
        self._enter(True)
        for statement in node.body:
            self.visit(statement)
        self._exit(node, anno.Static.SCOPE)

    def _visit_comprehension(self, node):
        # The first iterable is evaluated in the enclosing scope.
        self.visit(node.generators[0].iter)
        scope = self._enter(True)
        scope.is_comprehension = True
        for i, generator in enumerate(node.generators):
            if i > 0:
                self.visit(generator.iter)
            self.visit(generator.target)
            for condition in generator.ifs:
                self.visit(condition)
        if isinstance(node, gast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self._exit(node, anno.Static.SCOPE)

    visit_ListComp = _visit_comprehension
    visit_SetComp = _visit_comprehension
    visit_DictComp = _visit_comprehension
    visit_GeneratorExp = _visit_comprehension

    # Calls and blocks: non-isolated scopes.
    def visit_Call(self, node):
        dispatch = self._dispatch
        dispatch[node.func.__class__](self, node.func)
        call_scope = self.call_scopes
        if call_scope:
            self._enter(False)
        for arg in node.args:
            dispatch[arg.__class__](self, arg)
        for keyword in node.keywords:
            dispatch[keyword.value.__class__](self, keyword.value)
        if call_scope:
            self._exit(node, anno.Static.ARGS_SCOPE)

    def _visit_test_body_orelse(self, node):
        self._enter(False)
        self.visit(node.test)
        cond_scope = self._exit(node, anno.Static.COND_SCOPE)
        if self.effects is not None:
            self.effects[node.test] = cond_scope  # the CFG node of the test
        self._block(node.body, node, anno.Static.BODY_SCOPE)
        self._block(node.orelse, node, anno.Static.ORELSE_SCOPE)

    visit_If = _visit_test_body_orelse
    visit_While = _visit_test_body_orelse

    def _visit_for(self, node):
        self._enter(False)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        effects = self.effects
        if effects is None:
            self.visit(node.iter)
            self.visit(node.target)
            if extra_test is not None:
                self.visit(extra_test)
        else:
            # Three CFG nodes: the iterable, the loop header (its extra test) and the
            # target.
            effects[node.iter] = self._unit(node.iter)
            effects[node.target] = self._unit(node.target)
            if extra_test is not None:
                effects[node] = self._unit(extra_test)
            else:
                effects[node] = _no_effects()
        self._exit(node, anno.Static.ITERATE_SCOPE)
        self._block(node.body, node, anno.Static.BODY_SCOPE)
        self._block(node.orelse, node, anno.Static.ORELSE_SCOPE)

    visit_For = _visit_for
    visit_AsyncFor = _visit_for

    def _visit_with(self, node):
        for item in node.items:
            self.visit(item)
        self._block(node.body, node, anno.Static.BODY_SCOPE)

    visit_With = _visit_with
    visit_AsyncWith = _visit_with

    def _visit_try(self, node):
        self._block(node.body, node, anno.Static.BODY_SCOPE)
        for handler in node.handlers:
            self.visit(handler)
        self._block(node.orelse, node, anno.Static.ORELSE_SCOPE)
        for statement in node.finalbody:
            self.visit(statement)

    visit_Try = _visit_try
    visit_TryStar = _visit_try

    def visit_ExceptHandler(self, node):
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            self.visit(node.name)
        self._block(node.body, node, anno.Static.BODY_SCOPE)

    def visit_Delete(self, node):
        for target in node.targets:
            self.visit(target)

    # Pattern matching.
    def visit_Match(self, node):
        self.visit(node.subject)
        for case in node.cases:
            self.visit(case)

    def visit_match_case(self, node):
        self.visit(node.pattern)
        if node.guard is not None:
            self.visit(node.guard)
        self._block(node.body, node, anno.Static.BODY_SCOPE)

    def visit_MatchAs(self, node):
        if node.pattern is not None:
            self.visit(node.pattern)
        if node.name is not None:
            self._bind(node.name)

    def visit_MatchStar(self, node):
        if node.name is not None:
            self._bind(node.name)

    def visit_MatchMapping(self, node):
        for key in node.keys:
            self.visit(key)
        for pattern in node.patterns:
            self.visit(pattern)
        if node.rest is not None:
            self._bind(node.rest)


ActivityAnalyzer._dispatch = _Dispatch(ActivityAnalyzer)

_COMPOUND_STATEMENTS = frozenset({
    gast.If, gast.While, gast.For, gast.AsyncFor, gast.With, gast.AsyncWith, gast.Try,
    gast.TryStar, gast.Match})


class Effects(dict):
    """{AST node of a CFG node: its `effects`}, as `resolve` records them; `lambdas`: the
    lambdas it met (their graphs are not recorded; without any, a CFG builder need not
    search expressions for them); `walrus`: whether it met a walrus operator."""

    def __init__(self):
        super().__init__()
        self.lambdas = []
        self.walrus = False


def _no_effects():
    scope = Scope(None, isolated=False)
    scope.is_final = True
    return scope


def resolve(node, ctx=None, parent_scope=None, effects=None, annotate_names=True,
            call_scopes=True):
    """Annotates `node` (a function, lambda, module or any statement) with Scope objects.

    `ctx` (a transformer.Context) is accepted for API symmetry; nothing in it is needed.
    With `effects` (an Effects), also records there what `effects` gives for the AST
    nodes of the CFG nodes met (simple statements, if/while tests, the three parts of a
    for): see record_effects. It also runs qual_names.resolve on the node, unless
    annotate_names=False (the same symbols are then computed as the walk meets them, a
    pass fewer when nothing else reads those annotations). With call_scopes=False, calls
    get no ARGS_SCOPE (for callers that never read it; the other scopes are the same).
    Returns `node`.
    """
    del ctx
    if annotate_names:
        qual_names.resolve(node)
    analyzer = ActivityAnalyzer(Scope(parent_scope, isolated=parent_scope is None),
                                effects=effects, names=None if annotate_names else {},
                                call_scopes=call_scopes)
    if isinstance(node, gast.Module):
        for statement in node.body:
            analyzer.visit(statement)
    else:
        analyzer.visit(node)
    return node


def record_effects(graphs, effects):
    """Gives the CFG nodes of `graphs` (cfg.build's result, for the tree `resolve` filled
    `effects` from, unchanged since) those effects, so that node_effects needs no walk of
    its own for them: the dataflow analyses then reuse the walk of `resolve`."""
    for graph in graphs.values():
        for ast_node, cfg_node in graph.index.items():
            scope = effects.get(ast_node)
            if scope is not None:
                cfg_node._activity_effects = scope


def effects(ast_node):
    """The Scope of the work done by one CFG node (see cfg.py for what each node stands for).

    For a def or class statement: its name, decorators, defaults and the free reads of
    its body; for a `for` loop's header (the For node itself): only its extra loop test;
    for For.target: the binding of the target; for a Try or Match node: the try entry
    (nothing) or the subject; for an ExceptHandler: its type and name; for a withitem:
    the context expression and target; for a match_case: the pattern and the guard;
    any other statement or expression: all of it.
    """
    scope = Scope(None, isolated=False)
    analyzer = ActivityAnalyzer(scope, annotate=False)
    if isinstance(ast_node, (gast.For, gast.AsyncFor)):
        if anno.hasanno(ast_node, anno.Basic.EXTRA_LOOP_TEST):
            analyzer.visit(anno.getanno(ast_node, anno.Basic.EXTRA_LOOP_TEST))
    elif isinstance(ast_node, (gast.Try, gast.TryStar)):
        pass
    elif isinstance(ast_node, gast.Match):
        analyzer.visit(ast_node.subject)
    elif isinstance(ast_node, gast.ExceptHandler):
        if ast_node.type is not None:
            analyzer.visit(ast_node.type)
        if ast_node.name is not None:
            analyzer.visit(ast_node.name)
    elif isinstance(ast_node, gast.withitem):
        analyzer.visit(ast_node.context_expr)
        if ast_node.optional_vars is not None:
            analyzer.visit(ast_node.optional_vars)
    elif isinstance(ast_node, gast.match_case):
        analyzer.visit(ast_node.pattern)
        if ast_node.guard is not None:
            analyzer.visit(ast_node.guard)
    elif isinstance(ast_node, (gast.If, gast.While)):
        analyzer.visit(ast_node.test)
    elif isinstance(ast_node, (gast.With, gast.AsyncWith)):
        for item in ast_node.items:
            analyzer.visit(item)
    else:
        analyzer.visit(ast_node)
    scope.is_final = True
    return scope


def function_scope(function_node):
    """The Scope of a function's or lambda's own body, computed without annotating."""
    analyzer = ActivityAnalyzer(Scope(None), annotate=False)
    analyzer.visit(function_node)
    return analyzer.function_scopes[function_node]


def node_effects(cfg_node):
    """`effects(cfg_node.ast_node)`, computed once per CFG node (analyses share graphs)."""
    cached = getattr(cfg_node, "_activity_effects", None)
    if cached is None:
        cached = effects(cfg_node.ast_node)
        cfg_node._activity_effects = cached
    return cached


def scope_of(function_node):
    """The function's Scope: the SCOPE annotation when activity ran, else computed."""
    scope = anno.getanno(function_node, anno.Static.SCOPE, None)
    if scope is None:
        scope = function_scope(function_node)
    return scope
