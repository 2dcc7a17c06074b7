"""Remapped line tables (core/code_locations.py) give every code unit the line the documented
rule says, for runs of any length."""

import types

from autograph.core import code_locations


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _expected_lines(code, line_map, first_line):
    """One code unit at a time: a mapped line, else the last mapped line before it in the
    same code object (first: the code's own mapped first line); None stays None."""
    current = first_line
    lines = []
    for start, _, _, _ in code.co_positions():
        if start is None:
            lines.append(None)
            continue
        current = line_map.get(start, current)
        lines.append(current)
    return lines


def test_runs_longer_than_any_cached_length_keep_every_unit_on_its_line():
    # One line of thousands of code units (one table entry per 8 units), then short ones.
    items = ", ".join(["a"] * 1500)
    source = (f"def f(a):\n"
              f"    x = [{items}]\n"
              f"    y = [{items[:40]}]\n"
              f"    return x, y\n")
    module = compile(source, "generated.py", "exec")
    for line_map in ({1: 7, 2: 8, 3: 9, 4: 10}, {1: 7, 3: 20}, {2: 3, 4: 3}):
        for _ in range(2):  # the second time from the per-length bytes made the first
            remapped = code_locations.remap(module, line_map, "user.py")
            for original, new in zip(_codes(module), _codes(remapped)):
                remapper = code_locations.Remapper(line_map, "user.py")
                first_line = remapper.first_line(original.co_firstlineno)
                assert new.co_firstlineno == (first_line or 1)
                assert [start for start, _, _, _ in new.co_positions()] == (
                    _expected_lines(original, line_map, first_line))
                assert all(end == start for start, end, _, _ in new.co_positions())
