"""Reads of outputs that may be undefined before their statement go through ag__.ld."""

from converter_testing import assert_same_behaviour, code


def maybe(c):
    if c:
        x = 1
    return x


def maybe_with_attribute(c, obj):
    if c:
        x = 1
        obj.n = 2
    return x


def test_generated_code_loads_maybe_undefined_outputs_with_ld():
    assert "ag__.ld(x)" in code(maybe)
    # State functions (generated when attribute targets are outputs too) read it safely.
    assert "ag__.value_or_undefined(lambda : x, 'x')" in code(maybe_with_attribute)


def test_defined_variables_are_read_directly():
    def f(c):
        x = 0
        if c:
            x = 1
        return x

    assert "ag__.ld" not in code(f)


def test_behaviour():
    assert_same_behaviour(maybe, True, False)


def last_positive_doubled(values):
    for value in values:
        if value > 0:
            last = value
        total = last * 2
    return total


def test_both_forms_read_through_ld():
    # The statement `total = ...` appears in both forms; the graph form's copy reads
    # through ld too: there a graph path may have bound the variable to a value that some
    # paths did not define (ag__.MaybeUndefined), which ld checks where Python reads it.
    generated = code(last_positive_doubled)
    assert generated.count("total = ag__.ld(last) * 2") == 2
    assert_same_behaviour(last_positive_doubled, [1, -2, 3], [2, -1], [-1, 2], [-1], [])
