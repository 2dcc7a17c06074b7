"""Qualified names: symbols such as `a`, `a.b`, `a[i]` or `a.b['k'].c` as hashable values.

`resolve(node)` annotates every Name, Attribute and Subscript node that denotes such a
symbol with anno.Basic.QN; the analyses (activity, liveness, ...) work on these values.
"""

import gast

from autograph.pyct import anno
from autograph.pyct import ast_util


class Literal:
    """A constant used as a subscript, as in `a[0]` or `a['key']`."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return (isinstance(other, Literal) and type(self.value) is type(other.value)
                and self.value == other.value)

    def __hash__(self):
        return hash((Literal, type(self.value), self.value))

    def __str__(self):
        return repr(self.value)

    def __repr__(self):
        return f"Literal({self.value!r})"


class QN:
    """A qualified name.

    QN("a") is a simple name; QN(QN("a"), attr="b") is `a.b`; QN(QN("a"),
    subscript=QN("i")) is `a[i]`; QN(QN("a"), subscript=QN(Literal(0))) is `a[0]`
    (a plain constant is accepted too: subscript=0). Equal names compare and hash equal.
    """

    __slots__ = ("_base", "_attr", "_subscript", "_key", "_str", "_hash", "_owners")

    def __init__(self, base, attr=None, subscript=None):
        if attr is not None and subscript is not None:
            raise ValueError("a qualified name has an attribute or a subscript, not both")
        self._attr = attr
        self._subscript = None
        if attr is not None or subscript is not None:
            if not isinstance(base, QN):
                raise TypeError(f"the base of a composite name must be a QN, got {base!r}")
            if attr is not None:
                if not isinstance(attr, str):
                    raise TypeError(f"attr must be a str, got {attr!r}")
                self._key = ("attr", base, attr)
                self._str = f"{base._str}.{attr}"
            else:
                if not isinstance(subscript, QN):
                    subscript = QN(subscript if isinstance(subscript, Literal)
                                   else Literal(subscript))
                self._subscript = subscript
                self._key = ("subscript", base, subscript)
                self._str = f"{base._str}[{subscript._str}]"
        elif isinstance(base, Literal):
            self._key = ("literal", base)
            self._str = str(base)
        elif isinstance(base, str):
            if not base.isidentifier():
                raise ValueError(f"not a simple name: {base!r}")
            self._key = ("name", base)
            self._str = base
        else:
            raise TypeError(f"a simple name must be a str or a Literal, got {base!r}")
        self._base = base
        # Names are hashed and compared constantly by the analyses: compute once.
        self._hash = hash(self._key)
        self._owners = None

    # Kinds of names.
    def is_simple(self):
        """A plain identifier, like `a`."""
        return self._key[0] == "name"

    def is_symbol(self):
        """A name or a composite of names: anything that is not a literal constant."""
        return self._key[0] != "literal"

    def is_literal(self):
        return self._key[0] == "literal"

    def is_composite(self):
        return self._key[0] in ("attr", "subscript")

    def has_attr(self):
        return self._key[0] == "attr"

    def has_subscript(self):
        return self._key[0] == "subscript"

    @property
    def parent(self):
        """`a.b` for `a.b.c` and for `a.b[i]`; only composite names have one."""
        if not self.is_composite():
            raise ValueError(f"{self} is not a composite name")
        return self._base

    @property
    def attr(self):
        return self._attr

    @property
    def subscript(self):
        return self._subscript

    @property
    def value(self):
        """The constant of a literal name (QN(Literal(0)).value == 0)."""
        if not self.is_literal():
            raise ValueError(f"{self} is not a literal")
        return self._base.value

    @property
    def root(self):
        """The simple name at the base: `a` for `a.b[i].c`."""
        qn = self
        while qn.is_composite():
            qn = qn._base
        return qn

    @property
    def owner_set(self):
        """The names whose change may change this one: {a, a.b} for `a.b[c.d]`."""
        if self._owners is None:
            owners = set()
            qn = self
            while qn.is_composite():
                qn = qn._base
                owners.add(qn)
            self._owners = frozenset(owners)
        return set(self._owners)

    @property
    def support_set(self):
        """The simple names this name depends on: {a, i} for `a.b[i]`; literals add none."""
        if self.is_simple():
            return {self}
        if self.is_literal():
            return set()
        support = set(self._base.support_set)
        if self.has_subscript():
            support |= self._subscript.support_set
        return support

    def ast(self):
        """A fresh gast expression (Load context) spelling this name."""
        kind = self._key[0]
        if kind == "name":
            return gast.Name(id=self._base, ctx=gast.Load(), annotation=None,
                             type_comment=None)
        if kind == "literal":
            return gast.Constant(value=self._base.value, kind=None)
        if kind == "attr":
            return gast.Attribute(value=self._base.ast(), attr=self._attr, ctx=gast.Load())
        return gast.Subscript(value=self._base.ast(), slice=self._subscript.ast(),
                              ctx=gast.Load())

    def ssf(self):
        """A simple, identifier-safe spelling, for naming helper variables: `a_b_i`."""
        if self.is_simple():
            return self._base
        if self.is_literal():
            return "".join(c if c.isalnum() else "_" for c in str(self._base.value))
        if self.has_attr():
            return f"{self._base.ssf()}_{self._attr}"
        return f"{self._base.ssf()}_{self._subscript.ssf()}"

    def __eq__(self, other):
        return self is other or (isinstance(other, QN) and self._hash == other._hash
                                 and self._key == other._key)

    def __hash__(self):
        return self._hash

    def __lt__(self, other):
        # Ordering by spelling gives converters a deterministic order of symbols.
        return str(self) < str(other)

    def __str__(self):
        return self._str

    def __repr__(self):
        return f"QN({self._str!r})"


def _resolve(node, names):
    """Annotates bottom-up, so a parent can use its children's QNs. `names` ({identifier:
    QN}) gives all Names of one identifier the same QN (QNs are immutable)."""
    for child in ast_util.child_nodes(node):
        _resolve(child, names)
    node_class = node.__class__
    if node_class is gast.Name:
        qn = names.get(node.id)
        if qn is None:
            qn = names[node.id] = QN(node.id)
        anno.setanno(node, anno.Basic.QN, qn)
    elif node_class is gast.Attribute or node_class is gast.Subscript:
        qn = _composite_qn(node)
        if qn is not None:
            anno.setanno(node, anno.Basic.QN, qn)
        elif anno.hasanno(node, anno.Basic.QN):
            # Left over from before a transformation changed the expression.
            anno.delanno(node, anno.Basic.QN)


def _annotated_qn(node):
    return anno.getanno(node, anno.Basic.QN, None)


def _composite_qn(node, child_qn=_annotated_qn):
    """The QN of an Attribute or Subscript, from its children's QNs (`child_qn`)."""
    owner = child_qn(node.value)
    if owner is None:
        return None
    if isinstance(node, gast.Attribute):
        return QN(owner, attr=node.attr)
    index = node.slice
    if isinstance(index, gast.Constant) and index.value is not Ellipsis:
        return QN(owner, subscript=QN(Literal(index.value)))
    # Slices, tuples and computed indices (a[i + 1]) name no single symbol.
    if not isinstance(index, (gast.Name, gast.Attribute, gast.Subscript)):
        return None
    subscript = child_qn(index)
    return None if subscript is None else QN(owner, subscript=subscript)


def qn_of(node):
    """The QN of a Name/Attribute/Subscript: its annotation, else computed (not stored).

    Returns None for expressions that name no symbol.
    """
    qn = anno.getanno(node, anno.Basic.QN, None)
    if qn is not None:
        return qn
    if isinstance(node, gast.Name):
        return QN(node.id)
    if isinstance(node, (gast.Attribute, gast.Subscript)):
        return _composite_qn(node, qn_of)
    return None


def computed_qn(node, names):
    """qn_of(node) computed from the expression itself, whatever its annotations, for
    analyses that do without resolve's annotations; `names` ({identifier: QN}, and
    {(owner QN, attribute): QN}) gives every Name of one identifier, and every attribute
    of one owner, the same QN."""
    node_class = node.__class__
    if node_class is gast.Name:
        qn = names.get(node.id)
        if qn is None:
            qn = names[node.id] = QN(node.id)
        return qn
    if node_class is gast.Attribute:
        owner = computed_qn(node.value, names)
        if owner is None:
            return None
        key = (owner, node.attr)
        qn = names.get(key)
        if qn is None:
            qn = names[key] = QN(owner, attr=node.attr)
        return qn
    if node_class is gast.Subscript:
        return _composite_qn(node, lambda child: computed_qn(child, names))
    return None


def resolve(node):
    """Sets anno.Basic.QN on every Name, Attribute and Subscript in `node` that names a symbol."""
    _resolve(node, {})
    return node


def from_str(source):
    """Parses a qualified name from its source text: from_str("a.b[c]")."""
    module = gast.parse(source.strip())
    if len(module.body) != 1 or not isinstance(module.body[0], gast.Expr):
        raise ValueError(f"not a qualified name: {source!r}")
    expression = module.body[0].value
    resolve(expression)
    if not anno.hasanno(expression, anno.Basic.QN):
        raise ValueError(f"not a qualified name: {source!r}")
    return anno.getanno(expression, anno.Basic.QN)
