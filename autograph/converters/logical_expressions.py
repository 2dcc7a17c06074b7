"""`a and b`, `a or b`, `not a` run as themselves when the left operand is a Python value,
and as lazy overloads otherwise: `ag__.and_(a, lambda: b)()`, ... (the overload returns the
function computing the result, so it adds no frame of its own).

The inline form tests the left operand's exact type once, as the overloads do:

    (v and b) if (v := a) is True or v is False or ag__.type_(v) in ag__.PLAIN_TYPES
    else ag__.and_(v, lambda: b)()

(no temporary when `a` is a name). The right operand still runs only when Python would run
it, and the result is the same object Python returns. A left operand whose value is
certainly a Python bool (`x is y`, `k in d`, see is_python_valued) needs no test: the
operator stays as it is. The overload's operand keeps today's
functional form (tracing runs it once), so code grows with size times nesting depth. Inside
comprehensions (where a walrus would bind in the enclosing function, and is not allowed at
all in some places), in the graph forms of control flow and in the lambdas given to
overloads, only the overload form is used.
"""

import gast

from autograph.core import converter, marks
from autograph.pyct import anno, ast_util, templates, transformer

# Annotation of the generated `v is True or v is False or ...` tests (and of `not v` once v
# is known to be a Python value): left as they are, only their operands are converted.
INLINE_TEST = "inline type test"
_THUNK_OVERLOADS = frozenset({"and_", "or_", "if_exp"})


_IDENTITY_OR_MEMBERSHIP = (gast.Is, gast.IsNot, gast.In, gast.NotIn)


def has_named_expr(node, generated=frozenset()):
    """True when `node` holds a walrus of the user's, which would bind in the lambda of an
    overload form instead of the function: such expressions stay. Walruses binding the
    names in `generated` (converters' temporaries, read only inside the expression that
    sets them, as python_test makes them) do not count: they may move into a lambda."""
    for current in ast_util.walk(node):
        if current.__class__ is gast.NamedExpr and current.target.id not in generated:
            return True
    return False


def is_python_valued(node):
    """True when an expression's value is certainly a Python value, never symbolic, so a
    statement or operator testing it needs no graph form: a constant, an identity or
    membership test (`x is y`, `k in d`: Python makes their result a bool whatever the
    operands are; but not `x is None`, which a graph answers for a called function's
    result that is None on some paths: ag__.is_none), and `not`/`and`/`or` of such
    expressions."""
    node_class = node.__class__
    if node_class is gast.Constant:
        return True
    if node_class is gast.Compare:
        return (all(op.__class__ in _IDENTITY_OR_MEMBERSHIP for op in node.ops)
                and not marks.is_none_test(node))
    if node_class is gast.UnaryOp:
        return node.op.__class__ is gast.Not and is_python_valued(node.operand)
    if node_class is gast.BoolOp:
        return all(is_python_valued(v) for v in node.values)
    return False


def is_overload_call(node):
    """`ag__.and_(...)`, `ag__.or_(...)` or `ag__.if_exp(...)`: their lambdas are graph
    forms."""
    func = node.func
    return (isinstance(func, gast.Attribute) and func.attr in _THUNK_OVERLOADS
            and isinstance(func.value, gast.Name) and func.value.id == "ag__")


class InlineScopes:
    """Mixin: tracks where the inline Python form may be used, and the temporary's name of
    each function (one per function: each temporary is read right after it is set)."""

    # False when the tree holds no walrus operator of the user's: nothing then needs
    # has_named_expr.
    walrus = True

    def init_scopes(self, walrus=True):
        # Per function or lambda: {name root: its temporary's name}, once needed.
        self.scopes = [None]
        self.functional_depth = 0  # > 0: only the overload form
        self.walrus_forbidden = 0  # > 0: in a comprehension's iterable (no walrus there)
        self.walrus = walrus
        # The converters' temporaries: their walruses are not the user's (has_named_expr).
        self.generated = self.ctx.namer.generated_names

    def temporary(self, root="val"):
        """The function's temporary named from `root` (one per root and function: each is
        read before it is set again)."""
        names = self.scopes[-1]
        if names is None:
            names = self.scopes[-1] = {}
        name = names.get(root)
        if name is None:
            name = names[root] = self.new_symbol(root)
        return name

    def visit_FunctionDef(self, node):
        generated = node.name in self.ctx.user.generated_function_names
        self.functional_depth += generated
        self.scopes.append(None)
        try:
            return self.generic_visit(node)
        finally:
            self.scopes.pop()
            self.functional_depth -= generated

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self.scopes.append(None)
        try:
            return self.generic_visit(node)
        finally:
            self.scopes.pop()

    def _visit_functional(self, node):
        self.functional_depth += 1
        try:
            return self.generic_visit(node)
        finally:
            self.functional_depth -= 1

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_functional

    def visit_comprehension(self, node):
        # Python allows no walrus in a comprehension's iterable, not even in a lambda there.
        self.walrus_forbidden += 1
        try:
            node.iter = self.visit(node.iter)
        finally:
            self.walrus_forbidden -= 1
        node.target = self.visit(node.target)
        node.ifs = [self.visit(test) for test in node.ifs]
        return node

    def visit_Call(self, node):
        if is_overload_call(node):
            return self._visit_functional(node)
        return self.generic_visit(node)

    def python_test(self, value, move=True):
        """(test that `value` is a Python value, expression to read it again): a name is
        read twice, anything else is computed once into the temporary. `value` (the
        operand of the node being replaced) moves into the test, or is copied if not
        `move`."""
        if isinstance(value, gast.Name):
            read = value.id
            tested = value
        else:
            read = self.temporary()
            tested = gast.NamedExpr(target=gast.Name(id=read, ctx=gast.Store(), annotation=None,
                                                     type_comment=None), value=value)
        # Bools first: most operands are comparisons.
        test = templates.replace_as_expression(
            "tested is True or read is False or ag__.type_(read) in ag__.PLAIN_TYPES",
            tested=templates.moved(tested) if move else tested, read=read)
        return test, read

    @staticmethod
    def mark_inline_test(expression):
        """Marks the test of a generated `x if <test> else y` (templates drop annotations
        of what they copy, so this runs on the result)."""
        anno.setanno(expression.test, INLINE_TEST, True)
        return expression


_inline_classes = {}


def inline_transformer(transformer_class, ctx, walrus=True):
    """A `transformer_class` (a converter.Base) with the InlineScopes mixin, ready to visit
    (walrus=False: the tree holds no walrus operator)."""
    mixed = _inline_classes.get(transformer_class)
    if mixed is None:
        mixed = _inline_classes[transformer_class] = type(
            transformer_class.__name__, (InlineScopes, transformer_class), {})
    transformer = mixed(ctx)
    transformer.init_scopes(walrus)
    return transformer


def functional_copy(transformer, node):
    """The overload form of (a copy of) `node`, as `transformer`'s class makes it in
    functional mode (one such transformer per conversion, made on first use).

    `node` is in the tree `transformer` visits (its relevance walk saw it), or made there
    and of its target types: a copy of a node with nothing to convert below it is the
    overload form as it is."""
    copy = templates.copy_clean(node, _COPIED_ANNOTATIONS)
    relevant = transformer.relevant
    if (relevant is not None and id(node) not in relevant
            and not isinstance(node, transformer.target_types)):
        return copy
    functional = transformer.__dict__.get("_functional")
    if functional is None:
        functional = transformer._functional = type(transformer)(transformer.ctx)
        functional.init_scopes(transformer.walrus)
        functional.functional_depth = 1
    functional.relevant = None
    return functional.visit(copy)


# A copy holds what the original holds: it keeps the marks that let relevance walks skip
# what holds no choice (marks.AgAnno.WITHOUT_CHOICES).
_COPIED_ANNOTATIONS = templates.PRESERVED_ANNOTATIONS | {marks.AgAnno.WITHOUT_CHOICES}


class LogicalExpressionTransformer(InlineScopes, converter.Base):

    target_types = (gast.BoolOp, gast.UnaryOp, gast.Compare)

    def is_target(self, node):
        return is_rewritten(node, self.walrus, generated=self.generated)

    def visit_BoolOp(self, node):
        if _operands_only(node, self.walrus, anno.getanno(node, INLINE_TEST, False),
                          self.generated):
            return self.generic_visit(node)
        overload = "ag__.and_" if isinstance(node.op, gast.And) else "ag__.or_"
        if is_python_valued(node.values[0]):
            # `x is None or ...`: Python's own operator on a Python bool, in both forms.
            rest = (node.values[1] if len(node.values) == 2
                    else gast.BoolOp(op=node.op, values=node.values[1:]))
            rest = self.visit_BoolOp(rest) if len(node.values) > 2 else self.visit(rest)
            result = gast.BoolOp(op=node.op, values=[self.visit(node.values[0]), rest])
            anno.setanno(result, INLINE_TEST, True)
            return result
        if self.functional_depth:
            node = self.generic_visit(node)
            # a and b and c == a and (b and c): nest from the right.
            result = node.values[-1]
            for left in reversed(node.values[:-1]):
                result = templates.replace_as_expression(
                    f"{overload}(left, lambda: right)()", left=templates.moved(left),
                    right=templates.moved(result))
            return result
        right = (node.values[1] if len(node.values) == 2
                 else gast.BoolOp(op=node.op, values=node.values[1:]))
        # A BoolOp made here is not in the tree the relevance walk saw: visited directly.
        return self._inline_form(node.op, node.values[0], right, len(node.values) > 2)

    def _inline_form(self, op, left, right, right_is_made, left_is_visited=False):
        """`left <op> right` (op: gast.And or gast.Or) in the inline form: Python's own
        operator when the left operand's value is a Python value, the overload's otherwise.
        `right` was made here (`right_is_made`: not in the tree the relevance walk saw) or
        is part of the tree; `left` may be visited already."""
        overload = "ag__.and_" if op.__class__ is gast.And else "ag__.or_"
        right_graph = functional_copy(self, right)
        right = transformer.Base.visit(self, right) if right_is_made else self.visit(right)
        if not left_is_visited:
            left = self.visit(left)
        test, read = self.python_test(left)
        python = "read and right" if op.__class__ is gast.And else "read or right"
        moved = templates.moved
        return self.mark_inline_test(templates.replace_as_expression(
            f"({python}) if test else {overload}(read, lambda: right_graph)()",
            right=moved(right), read=read, test=moved(test), right_graph=moved(right_graph)))

    def visit_Compare(self, node):
        """A chained comparison `a < b < c` is `a < b and b < c` with b computed once, into
        a temporary: `a < (t := b) and t < c`, whose `and` is converted as above. Where
        Python allows no walrus, the temporaries are the parameters of a lambda instead:
        `(lambda l, t: ag__.and_(l < t, lambda: t < c)())(a, b)`."""
        if not is_rewritten(node, self.walrus, generated=self.generated):
            return self.generic_visit(node)
        if marks.is_none_test(node):
            # `x is None`: a graph's answer where x is a called function's result that is
            # None on some paths.
            operand = node.left if node.comparators[0].__class__ is gast.Constant \
                and node.comparators[0].value is None else node.comparators[0]
            test = ("ag__.is_none(operand)" if node.ops[0].__class__ is gast.Is
                    else "ag__.is_not_none(operand)")
            return templates.replace_as_expression(test, operand=self.visit(operand))
        left = self.visit(node.left)
        middle = self.visit(node.comparators[0])
        if self.walrus_forbidden:
            return self._chain_in_lambda(node, left, middle)
        # A new name for each: the rest of the chain may be in a lambda of its own.
        temporary = self.new_symbol("compared")
        first = gast.Compare(left=left, ops=node.ops[:1], comparators=[gast.NamedExpr(
            target=gast.Name(id=temporary, ctx=gast.Store(), annotation=None,
                             type_comment=None),
            value=middle)])
        rest = gast.Compare(left=gast.Name(id=temporary, ctx=gast.Load(), annotation=None,
                                           type_comment=None),
                            ops=node.ops[1:], comparators=node.comparators[1:])
        if self.functional_depth:
            return templates.replace_as_expression(
                "ag__.and_(first, lambda: rest)()", first=templates.moved(first),
                rest=templates.moved(transformer.Base.visit(self, rest)))
        return self._inline_form(gast.And(), first, rest, True, left_is_visited=True)

    def _chain_in_lambda(self, node, left, middle):
        """The chained comparison `node` (its first operands visited: `left`, `middle`)
        without a walrus."""
        left_name, middle_name = self.new_symbol("left"), self.new_symbol("compared")
        rest = gast.Compare(left=gast.Name(id=middle_name, ctx=gast.Load(), annotation=None,
                                           type_comment=None),
                            ops=node.ops[1:], comparators=node.comparators[1:])
        first = gast.Compare(left=gast.Name(id=left_name, ctx=gast.Load(), annotation=None,
                                            type_comment=None),
                             ops=node.ops[:1], comparators=[gast.Name(
                                 id=middle_name, ctx=gast.Load(), annotation=None,
                                 type_comment=None)])
        return templates.replace_as_expression(
            "(lambda left_name, middle_name: ag__.and_(first, lambda: rest)())(left, middle)",
            left_name=left_name, middle_name=middle_name, first=templates.moved(first),
            rest=templates.moved(transformer.Base.visit(self, rest)),
            left=templates.moved(left), middle=templates.moved(middle))

    def visit_UnaryOp(self, node):
        rewritten = is_rewritten(node)
        node = self.generic_visit(node)
        if not rewritten:
            return node
        if self.functional_depth:
            return templates.replace_as_expression("ag__.not_(operand)",
                                                   operand=templates.moved(node.operand))
        test, read = self.python_test(node.operand)
        return self.mark_inline_test(templates.replace_as_expression(
            "(not read) if test else ag__.not_(read)", read=read, test=templates.moved(test)))


def _operands_only(node, walrus, marked, generated):
    """True for a BoolOp left as it is, with only its operands converted: a generated test
    (`marked`: it has the INLINE_TEST mark), or one whose operand after the first holds a
    walrus of the user's (walrus=False: none does; `generated`: see has_named_expr)."""
    return marked or walrus and any(has_named_expr(v, generated) for v in node.values[1:])


def is_rewritten(node, walrus=True, copied=False, generated=frozenset()):
    """True when LogicalExpressionTransformer replaces `node` (a BoolOp, UnaryOp or Compare), False
    when it leaves it as it is but for its operands (walrus=False: the tree holds no walrus
    operator of the user's; `generated`: the converters' temporaries, see has_named_expr).
    `x is None or y` stays an `or` of its converted operands. copied=True: in a copy of
    `node` (a functional copy), which drops the marks of generated tests: their copies are
    rewritten too."""
    if node.__class__ is gast.Compare:
        # `x is None` (ag__.is_none); a chained comparison, unless its result is a Python
        # bool (`a is b is c`), or a comparand after the second holds a walrus of the
        # user's (it would bind in the lambda of the overload form).
        if marks.is_none_test(node):
            return True
        return (len(node.ops) > 1 and not is_python_valued(node)
                and not (walrus and any(has_named_expr(c, generated)
                                        for c in node.comparators[1:])))
    marked = not copied and bool(anno.getanno(node, INLINE_TEST, False))
    if node.__class__ is gast.BoolOp:
        return not (_operands_only(node, walrus, marked, generated)
                    or len(node.values) == 2 and is_python_valued(node.values[0]))
    return node.op.__class__ is gast.Not and not is_python_valued(node) and not marked


def hand_over_relevance(ctx, root, relevant, walrus=True):
    """Records, for the transform of `root` that follows, a set of node ids holding every
    node the relevance walk would find, and whether the tree may hold a walrus operator
    (conditional_expressions, which runs just before, finds both in its own walk)."""
    ctx.logical_relevance = (root, relevant, walrus)


def transform(node, ctx):
    handed_over = ctx.__dict__.pop("logical_relevance", None)
    if not ctx.user.options.uses(converter.Feature.LOGICAL_EXPRESSIONS):
        return node
    transformer = LogicalExpressionTransformer(ctx)
    transformer.init_scopes(converter.may_hold_walrus(ctx) if handed_over is None
                            else handed_over[2])
    if handed_over is not None:
        if handed_over[0] is node:
            transformer.relevant = handed_over[1]
        else:
            # The tree holds conditional_expressions' inline tests: what would be rewritten
            # in their copies counts too (see functional_copy).
            transformer.relevant = marks.nodes_containing(
                node, transformer.target_types,
                lambda n: is_rewritten(n, transformer.walrus, True, transformer.generated))
    if not transformer.has_targets(node):
        return node
    return transformer.visit(node)
