"""Directives: calls that mean something to the converter and nothing when run as Python."""


def set_loop_options(maximum_iterations=None, shape_invariants=None):
    """Options for a graph loop; the first statement of the loop's body.

    The converter records them for the loop's overload and removes the call. Called as plain
    Python (unconverted code) it does nothing. `shape_invariants` is a list of
    `(variable, shape)` pairs, with None for a dimension that may change.
    """
    del maximum_iterations, shape_invariants


LOOP_OPTIONS = ("maximum_iterations", "shape_invariants")
