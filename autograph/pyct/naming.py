"""Fresh symbol names for generated code that never clash with the user's names."""

import builtins
import collections
import keyword


def _names_of(symbol):
    """A symbol's name and, for qualified names (qual_names.QN), the names it is built from."""
    names = {str(symbol)}
    support = getattr(symbol, "support_set", None)
    if support is not None:
        names.update(str(s) for s in support)
    return names


class Namer:
    """Chooses names for new symbols in one converted function.

    `global_namespace` is what the function can see besides its locals: its globals and
    closure variables (any container supporting `in`). Builtins are always avoided too,
    so a generated `len_1` never shadows `len`. Locals and parameters are passed per call
    as `reserved_locals`, or once for the whole function with `reserve`.
    """

    def __init__(self, global_namespace):
        self.global_namespace = global_namespace
        # A ChainMap's `in` is a Python-level loop over its maps: test them directly.
        self._namespaces = (tuple(global_namespace.maps)
                            if isinstance(global_namespace, collections.ChainMap)
                            else (global_namespace,))
        self.generated_names = set()
        self.reserved_names = set()
        # name_root -> the number of the name last returned for it by a search from the
        # root itself without reserved_locals: every candidate up to it was taken then, and
        # taken names stay taken, so the next such search starts after it (converters ask
        # for the same few roots tens of times per function).
        self._last_number = {}

    def reserve(self, names):
        """Marks `names` (e.g. every identifier used by the function) as taken."""
        self.reserved_names.update(names)

    def _is_taken(self, name, reserved_locals):
        if (name in self.generated_names or name in self.reserved_names
                or name in reserved_locals):
            return True
        for namespace in self._namespaces:
            if name in namespace:
                return True
        return hasattr(builtins, name) or keyword.iskeyword(name)

    def new_symbol(self, name_root, reserved_locals=()):
        """Returns `name_root`, or `name_root_<n>` with the smallest n making it unique."""
        taken_locals = set()
        for symbol in reserved_locals:
            taken_locals.update(_names_of(symbol))
        root, _, suffix = name_root.rpartition("_")
        if root and suffix.isdigit():
            number = int(suffix)
            searched_from_root = False
        else:
            root, number = name_root, 0
            searched_from_root = not taken_locals
        name = name_root
        if searched_from_root:
            last = self._last_number.get(root)
            if last is not None:
                number = last + 1
                name = f"{root}_{number}"
        while self._is_taken(name, taken_locals):
            number += 1
            name = f"{root}_{number}"
        if searched_from_root:
            self._last_number[root] = number
        self.generated_names.add(name)
        return name
