"""Annotations on AST nodes: typed keys stored on the node, copied and queried uniformly.

Analyses (qual_names, activity, liveness, ...) and converters exchange information
through these annotations instead of side tables.
"""

import enum

_ANNO_FIELD = "___pyct_anno"
_FAIL = object()


class NoValue(enum.Enum):
    """An annotation key; its value is its documentation."""

    # Members are singletons: identity hashing is correct, and much cheaper than Enum's
    # Python-level __hash__ (annotation lookups run thousands of times per conversion).
    __hash__ = object.__hash__

    def __repr__(self):
        return self.name


class Basic(NoValue):
    """Annotations set by the generic machinery (parsing, transformation, naming)."""

    QN = "Qualified name of a Name, Attribute or Subscript node (a qual_names.QN)."
    SKIP_PROCESSING = "This node must not be transformed further."
    INDENT_BLOCK_REMAINDER = (
        "A (new_body, remainder_holder) pair: the statements after this one in its "
        "block are moved into the given block.")
    ORIGIN = "origin_info.OriginInfo: where the node came from in the user's source."
    PARSE_OBSERVER = (
        "What PyToPy.parse_observer gave: the observer shown the tree below this root while "
        "it was parsed (dropped when the tree is changed before transform_ast).")
    DIRECTIVES = "Dict of directive name -> argument dict, set by the directives converter."
    EXTRA_LOOP_TEST = "An extra test (expression) to add to a loop's condition."
    ORIG_DEFINITIONS = "Definitions reaching this node before any transformation."


class Static(NoValue):
    """Annotations set by static analysis."""

    IS_PARAM = "This symbol is a parameter of the function."
    SCOPE = "activity.Scope of the node's own body (function, lambda, comprehension)."
    BODY_SCOPE = "activity.Scope of a compound statement's body."
    ORELSE_SCOPE = "activity.Scope of a compound statement's else block."
    ARGS_SCOPE = "activity.Scope of a call's arguments."
    COND_SCOPE = "activity.Scope of a loop's or branch's condition."
    ITERATE_SCOPE = "activity.Scope of a for loop's target and iterated expression."
    DEFINITIONS = "Definitions (reaching_definitions.Definition) reaching a name."
    DEFINED_VARS_IN = "Symbols defined on every path reaching this statement."
    DEFINED_FNS_IN = "Local functions defined before this statement."
    LIVE_VARS_IN = "Symbols live when entering the node."
    LIVE_VARS_OUT = "Symbols live when leaving the node."
    LIVE_VARS_IN_BODY = "Symbols live when entering a loop body (from the loop's own start)."


def annotations(node):
    """The dict holding `node`'s annotations (None when it has none), for walks that look
    up several keys on every node they pass: read keys from it, or set them."""
    return node.__dict__.get(_ANNO_FIELD)


def copy_annotations(from_node, to_node, keys=None):
    """Gives `to_node` (which has none) `from_node`'s annotations, or those among `keys`."""
    annotations = from_node.__dict__.get(_ANNO_FIELD)
    if annotations:
        if keys is not None:
            annotations = {key: annotations[key] for key in keys if key in annotations}
            if not annotations:
                return
        to_node.__dict__[_ANNO_FIELD] = dict(annotations)


def keys(node, field_name=_ANNO_FIELD):
    return frozenset(getattr(node, field_name, {}).keys())


def getanno(node, key, default=_FAIL, field_name=_ANNO_FIELD):
    annotations = getattr(node, field_name, None)
    if default is _FAIL:
        if annotations is None or key not in annotations:
            raise KeyError(f"{type(node).__name__} node has no annotation {key!r}")
        return annotations[key]
    if annotations is None:
        return default
    return annotations.get(key, default)


def hasanno(node, key, field_name=_ANNO_FIELD):
    return key in getattr(node, field_name, {})


def setanno(node, key, value, field_name=_ANNO_FIELD):
    annotations = getattr(node, field_name, None)
    if annotations is None:
        annotations = {}
        # A plain instance attribute: not in _fields, so AST comparison, dumping and
        # unparsing never see it.
        setattr(node, field_name, annotations)
    annotations[key] = value


def delanno(node, key, field_name=_ANNO_FIELD):
    annotations = getattr(node, field_name)
    del annotations[key]
    if not annotations:
        delattr(node, field_name)


def copyanno(from_node, to_node, key, field_name=_ANNO_FIELD):
    if hasanno(from_node, key, field_name=field_name):
        setanno(to_node, key, getanno(from_node, key, field_name=field_name),
                field_name=field_name)


def dup(node, copy_map, field_name=_ANNO_FIELD):
    """Copies annotations on `node` within its tree: copy_map maps source key -> target key."""
    import gast
    for n in gast.walk(node):
        for source_key, target_key in copy_map.items():
            if hasanno(n, source_key, field_name=field_name):
                setanno(n, target_key, getanno(n, source_key, field_name=field_name),
                        field_name=field_name)
