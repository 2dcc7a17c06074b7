"""Tests for naming.Namer: new symbols never clash with the user's names."""

from autograph.pyct import naming


class FakeQN:
    """Stands in for qual_names.QN: a composite name with a support set."""

    def __init__(self, text, support):
        self.text, self.support_set = text, support

    def __str__(self):
        return self.text


def test_new_symbol_avoids_globals_locals_and_earlier_symbols():
    namer = naming.Namer({"tmp": 1, "tmp_1": 2})
    assert namer.new_symbol("tmp", {"tmp_2"}) == "tmp_3"
    assert namer.new_symbol("tmp", set()) == "tmp_2"
    assert namer.new_symbol("tmp", set()) == "tmp_4"
    assert namer.new_symbol("fresh", set()) == "fresh"


def test_numbered_roots_continue_counting():
    namer = naming.Namer({"loop_3": None})
    assert namer.new_symbol("loop_3", ()) == "loop_4"


def test_reserved_names_builtins_and_keywords_are_avoided():
    namer = naming.Namer({})
    namer.reserve({"retval_"})
    assert namer.new_symbol("retval_", ()) == "retval__1"
    assert namer.new_symbol("len", ()) == "len_1"
    assert namer.new_symbol("lambda", ()) == "lambda_1"


def test_qualified_names_reserve_their_parts():
    namer = naming.Namer({})
    assert namer.new_symbol("a", [FakeQN("a.b", {"a"})]) == "a_1"
