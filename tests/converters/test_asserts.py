"""PYTEST_DONT_REWRITE: the functions under test use assert. assert becomes ag__.assert_stmt with a lazily computed message."""

from converter_testing import assert_same_behaviour, code


def check(x):
    assert x > 0, f"x must be positive, got {x}"
    assert x != 3
    return x


def test_generated_code():
    source = code(check)
    # (the f-string formats its value when a graph runs: ag__.format_)
    assert "ag__.assert_stmt(x > 0, lambda : 'x must be positive, got ' + ag__.format_('{}', x))" in source
    assert "ag__.assert_stmt(x != 3, None)" in source
    assert "assert " not in source


def test_behaviour_and_messages():
    assert_same_behaviour(check, 1, -1, 3)


def test_message_only_computed_on_failure():
    def f(x, log):
        assert x, log.append("computed") or "msg"
        return log

    assert_same_behaviour(f, lambda: (1, []), lambda: (0, []))
