"""append/pop on local lists become overloads; other receivers are left alone."""

from converter_testing import assert_same_behaviour, code


def build(n):
    values = []
    for i in range(n):
        values.append(i * i)
    last = values.pop()
    first = values.pop(0)
    return values, last, first


class Holder:
    def __init__(self):
        self.items = []

    def add(self, x):
        self.items.append(x)
        return self.items


def test_generated_code():
    source = code(build)
    assert "values = ag__.list_append(values, i * i)" in source
    assert "values, last = ag__.list_pop(values, None, None)" in source
    assert "values, first = ag__.list_pop(values, 0, None)" in source


def test_attribute_receivers_are_not_rebound():
    source = code(Holder.add)
    assert "list_append" not in source
    assert "self.items = " not in source


def test_behaviour():
    assert_same_behaviour(build, 3, 1)
    assert_same_behaviour(build, 0)  # pop from empty list: same IndexError
    assert_same_behaviour(Holder.add, lambda: (Holder(), 1))


def test_global_lists_are_not_rebound():
    def f(x):
        GLOBAL_LIST.append(x)
        return GLOBAL_LIST[-1]

    assert "list_append" not in code(f)
    assert_same_behaviour(f, 1)


GLOBAL_LIST = []
