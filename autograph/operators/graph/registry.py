"""The table `symbolic.graph_path` dispatches to: overload name -> its graph path."""

GRAPH_PATHS = {}


def graph_path_of(*overload_names):
    """Decorator: registers a function as the graph path of the named overloads."""
    def register(handler):
        for name in overload_names:
            GRAPH_PATHS[name] = handler
        return handler
    return register
