"""Nested structures (tuples, lists, dicts, namedtuples) of leaves: flatten and rebuild."""


def is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x):
    return type(x) in (tuple, list, dict) or is_namedtuple(x) or isinstance(x, (list, dict))


def flatten(structure):
    """The leaves of `structure`, depth first (dicts in insertion order)."""
    leaves = []
    _flatten_into(structure, leaves)
    return leaves


def _flatten_into(x, leaves):
    if isinstance(x, (tuple, list)):
        for item in x:
            _flatten_into(item, leaves)
    elif isinstance(x, dict):
        for item in x.values():
            _flatten_into(item, leaves)
    else:
        leaves.append(x)


def flatten_with_paths(structure, prefix=""):
    """[(path, leaf)] where path reads like an expression: `[0]['a'].b`."""
    out = []

    def visit(x, path):
        if is_namedtuple(x):
            for name, item in zip(type(x)._fields, x):
                visit(item, "%s.%s" % (path, name))
        elif isinstance(x, (tuple, list)):
            for i, item in enumerate(x):
                visit(item, "%s[%d]" % (path, i))
        elif isinstance(x, dict):
            for key, item in x.items():
                visit(item, "%s[%r]" % (path, key))
        else:
            out.append((path, x))

    visit(structure, prefix)
    return out


def pack_as(structure, leaves):
    """Rebuild `structure` with its leaves replaced by `leaves` (in flatten order)."""
    it = iter(leaves)
    result = _pack(structure, it)
    return result


def _pack(x, it):
    if is_namedtuple(x):
        return type(x)(*[_pack(item, it) for item in x])
    if isinstance(x, tuple):
        return tuple(_pack(item, it) for item in x)
    if isinstance(x, list):
        return [_pack(item, it) for item in x]
    if isinstance(x, dict):
        return type(x)((k, _pack(v, it)) for k, v in x.items()) if type(x) is not dict else \
            {k: _pack(v, it) for k, v in x.items()}
    return next(it)


def structure_key(x):
    """A hashable description of the nesting (not the leaves)."""
    if is_namedtuple(x):
        return (type(x), tuple(structure_key(i) for i in x))
    if isinstance(x, tuple):
        return ("tuple", tuple(structure_key(i) for i in x))
    if isinstance(x, list):
        return ("list", tuple(structure_key(i) for i in x))
    if isinstance(x, dict):
        return ("dict", type(x), tuple((k, structure_key(v)) for k, v in x.items()))
    return None


def same_structure(a, b, lists_match_tuples=False):
    ka, kb = structure_key(a), structure_key(b)
    if lists_match_tuples:
        ka, kb = _erase_sequence_kind(ka), _erase_sequence_kind(kb)
    return ka == kb


def _erase_sequence_kind(key):
    if isinstance(key, tuple) and len(key) == 2 and key[0] in ("tuple", "list"):
        return ("seq", tuple(_erase_sequence_kind(k) for k in key[1]))
    if isinstance(key, tuple) and len(key) == 3 and key[0] == "dict":
        return ("dict", key[1], tuple((k, _erase_sequence_kind(v)) for k, v in key[2]))
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], type):
        return (key[0], tuple(_erase_sequence_kind(k) for k in key[1]))
    return key
