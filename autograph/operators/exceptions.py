"""`assert` as an overload: raises exactly the AssertionError Python raises."""

from autograph.operators.graph import builtins as graph_builtins
from autograph.operators.symbolic import PLAIN_TYPES, is_tensor


def assert_stmt(test, message_fn):
    """`assert test, message`; `message_fn` computes the message (None without a message)."""
    if type(test) not in PLAIN_TYPES and is_tensor(test):
        return graph_builtins.assert_stmt(test, message_fn)
    if not test:
        if message_fn is None:
            raise AssertionError
        raise AssertionError(message_fn())
    return None
