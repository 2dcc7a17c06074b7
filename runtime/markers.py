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
