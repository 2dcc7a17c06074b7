"""FunctionScope: the context of one converted function call, for graph paths.

Generated code does not enter it (a `with` per call costs on pure-Python code); graph paths
that need a name scope or the call's options (ag.function, issue 4) can use it explicitly.
"""


class FunctionScope:
    """Name and options of a converted function; `ret` marks a returned value."""

    def __init__(self, function_name, scope_name, options):
        self.function_name = function_name
        self.name = scope_name
        self.options = options

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False

    def ret(self, value, did_return):
        """The function's return value: None when no `return` ran, like Python."""
        return value if did_return else None
