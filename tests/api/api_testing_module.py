"""Functions at module level, for the API tests (pickling needs importable names)."""

from autograph.impl import api


@api.convert()
def decorated_square(x):
    """Squares x."""
    if x < 0:
        x = -x
    return x * x


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def plain_recursion(n):
    return 0 if n == 0 else 1 + plain_recursion(n - 1)
