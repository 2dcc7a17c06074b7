"""Marker objects that op attributes hold: `DYN` in index templates, `SLOT` in print and
assert items. The front end builds them, the ops and every executor read them."""


class _Dynamic:
    __slots__ = ()

    def __repr__(self):
        return "DYN"

    def __reduce__(self):
        return "DYN"


# An index-template entry (or slice part) taken from the node's next dynamic input
# (runtime/ops/indexing.py).
DYN = _Dynamic()


class _Slot:
    __slots__ = ()

    def __repr__(self):
        return "_"


# A print / assert item that is the node's next input (runtime/ops/state.py).
SLOT = _Slot()


class KindSlot:
    """A print / raise item that is the node's next two inputs: a value whose kind depends
    on the path the graph takes (runtime/path_kinds.py), and the code of the kind it has
    there (an index into `kinds`). It is filled as `convert(value, kind)`: the value shown
    as Python holds it (True, not 1)."""

    __slots__ = ("kinds", "convert")

    def __init__(self, kinds, convert):
        self.kinds = tuple(kinds)
        self.convert = convert

    def fill(self, values):
        value = next(values)
        return self.convert(value, self.kinds[int(next(values))])

    def __repr__(self):
        return "_as(%s)" % "|".join(str(dtype) for dtype, _, _ in self.kinds)
