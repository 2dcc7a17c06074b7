"""Reading variables that may be undefined: Python's own error, not a sentinel object."""

import runtime as rt
from autograph.operators.special_values import MaybeUndefined, Undefined


def ld(value):
    """Loads a variable's value; an Undefined value raises what Python would raise, and a
    graph value that some paths did not define raises it when the graph runs on such a
    path (MaybeUndefined)."""
    if type(value) is Undefined:
        raise UnboundLocalError(
            f"cannot access local variable '{value.symbol_name}' where it is not associated "
            "with a value")
    if isinstance(value, MaybeUndefined):
        checked = value.check()
        # An array stays the object the name holds, so what is written into it (`last[i]
        # = v`, `y = last; y += 1`) is written into the variable, and into the earlier
        # array it is on some paths (MaybeUndefinedAlias); its later uses check again.
        return value if rt.is_ndarray(value) else checked
    return value
