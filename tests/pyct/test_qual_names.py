"""Qualified names: construction, structure, spelling and resolution on parsed code."""

import textwrap

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct import qual_names
from autograph.pyct.qual_names import QN, Literal


def test_simple_and_composite_names_spell_like_source():
    a = QN("a")
    assert str(a) == "a"
    assert str(QN(a, attr="b")) == "a.b"
    assert str(QN(a, subscript=QN("i"))) == "a[i]"
    assert str(QN(a, subscript=0)) == "a[0]"
    assert str(QN(a, subscript=Literal("k"))) == "a['k']"
    deep = QN(QN(QN(a, attr="b"), subscript=QN("c")), attr="d")
    assert str(deep) == "a.b[c].d"


def test_equal_names_are_equal_and_hash_equal():
    assert QN(QN("a"), attr="b") == QN(QN("a"), attr="b")
    assert hash(QN(QN("a"), attr="b")) == hash(QN(QN("a"), attr="b"))
    assert QN(QN("a"), attr="b") != QN(QN("a"), subscript=QN("b"))
    assert QN(QN("a"), subscript=1) != QN(QN("a"), subscript="1")
    assert QN(QN("a"), subscript=1) != QN(QN("a"), subscript=True)
    assert len({QN("a"), QN("a"), QN("b")}) == 2


def test_kind_predicates():
    a_b = qual_names.from_str("a.b")
    a_i = qual_names.from_str("a[i]")
    assert not QN("a").is_composite() and QN("a").is_simple()
    assert a_b.is_composite() and a_b.has_attr() and not a_b.has_subscript()
    assert a_i.is_composite() and a_i.has_subscript() and not a_i.has_attr()
    assert QN(Literal(3)).is_literal() and not QN(Literal(3)).is_symbol()


def test_parent_owner_set_and_support_set():
    qn = qual_names.from_str("a.b[c.d].e")
    assert qn.parent == qual_names.from_str("a.b[c.d]")
    assert qn.owner_set == {QN("a"), qual_names.from_str("a.b"),
                            qual_names.from_str("a.b[c.d]")}
    assert qn.support_set == {QN("a"), QN("c")}
    assert qual_names.from_str("a[0]").support_set == {QN("a")}
    assert qn.root == QN("a")
    with pytest.raises(ValueError):
        QN("a").parent


def test_ast_round_trips_through_source():
    for source in ["a", "a.b", "a[i]", "a.b[c].d", "a['k'][0]", "x[y.z]"]:
        node = qual_names.from_str(source).ast()
        assert gast.unparse(node).strip() == source
        assert qual_names.from_str(gast.unparse(node)) == qual_names.from_str(source)


def test_from_str_rejects_non_names():
    for source in ["a + b", "f(x)", "a[i + 1]", "x = 1"]:
        with pytest.raises(ValueError):
            qual_names.from_str(source)


def test_resolve_annotates_names_attributes_and_subscripts():
    tree = gast.parse(textwrap.dedent("""
        a.b[c] = d['k'].e
        f(x)[y] = z[i + 1]
        w[1:2] = 0
    """))
    qual_names.resolve(tree)
    first, second, third = tree.body
    assert anno.getanno(first.targets[0], anno.Basic.QN) == qual_names.from_str("a.b[c]")
    assert str(anno.getanno(first.value, anno.Basic.QN)) == "d['k'].e"
    # A call result and a computed index name no symbol; their parts still do.
    assert not anno.hasanno(second.targets[0], anno.Basic.QN)
    assert not anno.hasanno(second.value, anno.Basic.QN)
    assert anno.getanno(second.value.value, anno.Basic.QN) == QN("z")
    assert not anno.hasanno(third.targets[0], anno.Basic.QN)


def test_names_sort_by_spelling_and_have_safe_forms():
    names = [qual_names.from_str(s) for s in ["b", "a.x", "a"]]
    assert [str(n) for n in sorted(names)] == ["a", "a.x", "b"]
    assert qual_names.from_str("self.a[0]").ssf() == "self_a_0"


def test_resolve_again_after_a_transformation_drops_stale_names():
    statement = gast.parse("a.b = 1").body[0]
    qual_names.resolve(statement)
    target = statement.targets[0]
    assert str(anno.getanno(target, anno.Basic.QN)) == "a.b"
    target.value = gast.parse("f()").body[0].value
    qual_names.resolve(statement)
    assert not anno.hasanno(target, anno.Basic.QN)


def test_qn_of_works_without_annotations():
    expression = gast.parse("x.y[0][k]").body[0].value
    assert str(qual_names.qn_of(expression)) == "x.y[0][k]"
    assert not anno.hasanno(expression, anno.Basic.QN)
    assert qual_names.qn_of(gast.parse("x[k + 1]").body[0].value) is None


def test_computed_names_match_the_resolved_annotations_and_are_shared():
    tree = gast.parse("a.b[c].d = x[0] + a.b[c].d + f(y)[1]")
    qual_names.resolve(tree)
    names = {}
    for node in gast.walk(tree):
        computed = qual_names.computed_qn(node, names)
        assert computed == anno.getanno(node, anno.Basic.QN, None)
    assert names["a"] is qual_names.computed_qn(gast.parse("a").body[0].value, names)
