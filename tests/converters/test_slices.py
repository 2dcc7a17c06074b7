"""Item writes on local lists that the function appends to go through ag__.set_item."""

from converter_testing import assert_same_behaviour, code


def fill(n):
    out = []
    for i in range(n):
        out.append(0)
    for i in range(n):
        out[i] = i * 2
    out[-1] = "last"
    return out


def other_writes(a, d):
    a[0] = 1
    d["k"] = 2
    a[1:2] = [9]
    return a, d


def test_generated_code():
    source = code(fill)
    assert "out = ag__.set_item(out, i, i * 2)" in source
    assert "out = ag__.set_item(out, -1, 'last')" in source


def test_other_item_writes_stay_as_written():
    source = code(other_writes)
    assert "set_item" not in source
    assert "a[0] = 1" in source and "d['k'] = 2" in source


def test_behaviour():
    assert_same_behaviour(fill, 3)
    assert_same_behaviour(fill, 0)  # IndexError for out[-1] on an empty list
    assert_same_behaviour(other_writes, lambda: ([0, 0, 0], {}))
