"""Nested functions are converted; nested generators and classes stay as written."""

from converter_testing import assert_same_behaviour, code


def with_nested(n):
    def gen(k):
        for i in range(k):
            if i % 2:
                yield i

    class Local:
        def double(self, v):
            return 2 * v

    def inner(k):
        if k:
            return k + 1
        return 0

    return list(gen(n)), Local().double(n), inner(n)


def test_generated_code():
    source = code(with_nested)
    assert "yield i" in source  # the generator is left as it is
    assert "return 2 * v" in source
    assert "ag__.if_form" in source  # inner is converted


def test_behaviour():
    assert_same_behaviour(with_nested, 0, 5)


def test_docstring_only_function():
    def f():
        """Only a docstring."""

    assert_same_behaviour(f, ())


scaled = lambda x, y=2, *rest, k=[1], **more: x * y + len(k)  # noqa: E731
pair = (lambda u=1: u, lambda v=(2,
                                  3): v)


def test_lambda_code_shows_its_own_defaults():
    # The generated module has placeholders for defaults (the converted lambda takes the
    # user's values); the printed code must show the user's, as it does for functions.
    assert code(scaled).startswith("lambda x, y=2, *rest, k=[1], **more: ")
    assert code(pair[0]).startswith("lambda u=1: ")
    assert code(pair[1]).startswith("lambda v=(2, 3): ")
    assert_same_behaviour(scaled, 3)
