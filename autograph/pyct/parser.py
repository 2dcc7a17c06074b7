"""Parsing Python into gast trees: source text (parse, parse_expression), or live entities
(parse_entity*, whose source entity_source finds), optionally with origins and an observer.
"""

import ast
from typing import NamedTuple

from autograph.pyct import entity_source
from autograph.pyct import gast_bridge
from autograph.pyct import origin_info


class EntitySource(NamedTuple):
    """A parsed entity together with where its source came from.

    `node`'s line numbers count from 1 at the first line of `source`; its column offsets
    are relative to `source`. Line `n` of `source` is line `lineno + n - 1` of `filename`,
    and a column `c` of `source` is column `c + col_offset` there.
    """

    node: object
    source: str
    filename: str
    lineno: int
    col_offset: int


def parse_entity_with_location(entity, future_features=(), annotate_origins=False,
                               observer=None):
    """Like parse_entity, also saying where the source sits in its file (an EntitySource).

    With `annotate_origins`, the nodes carry their anno.Basic.ORIGIN as if the result had
    been passed to origin_info.resolve(node, source, filename, lineno, col_offset).
    `observer` is shown the nodes as the tree is built (see gast_bridge.ast_to_gast).
    """
    del future_features  # Python 3.11's grammar does not depend on __future__ imports.
    found = entity_source.find_source(entity)
    origins_from = None
    if annotate_origins:
        origins_from = (found.source, found.filename, found.lineno, found.col_offset)
    node = gast_bridge.ast_to_gast(found.node, found.shift, origins_from, observer)
    return EntitySource(node, found.source, found.filename, found.lineno, found.col_offset)


def parse_entity(entity, future_features=()):
    """Returns (node, source) for a function, method, lambda or class.

    The node is a gast FunctionDef/AsyncFunctionDef, Lambda or ClassDef with its decorators
    removed; `source` is the definition's text, dedented (for lambdas, just the lambda).
    Raises errors.SourceNotFoundError when no source can be found.
    """
    found = parse_entity_with_location(entity, future_features)
    return found.node, found.source


def resolve_entity(node, source, entity):
    """Annotates every node under `node` (parsed from `source`, `entity`'s source) with
    anno.Basic.ORIGIN, as origin_info.resolve does, finding where that source sits."""
    found = entity_source.find_source(entity)
    origin_info.resolve(node, source, found.filename, found.lineno, found.col_offset)


def parse(src, preamble_len=0, single_node=True):
    """Parses Python source into gast statement nodes.

    Skips the first `preamble_len` statements. With `single_node`, exactly one statement
    must remain and it is returned; otherwise the list of statements is returned.
    """
    module = gast_bridge.ast_to_gast(ast.parse(entity_source.dedent(src)))
    nodes = module.body[preamble_len:]
    if single_node:
        if len(nodes) != 1:
            raise ValueError(f"expected exactly one statement, found {len(nodes)}")
        return nodes[0]
    return nodes


def parse_expression(src):
    """Parses a Python expression into a gast expression node."""
    src = src.strip()
    return gast_bridge.ast_to_gast(ast.parse(src, mode="eval").body)
