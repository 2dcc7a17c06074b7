"""Converted code objects report the user's file and lines (tracebacks, warnings, frames)."""

import inspect
import types

from autograph.errors import code_lines
from autograph.impl import api


def accumulate(values, limit=3):
    total = 0
    for v in values:
        if v is None:
            continue
        if v > limit:
            total += v
        else:
            total -= v
    while total > 100 and values:
        total -= values.pop()
    return total if total else None


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def test_every_instruction_reports_a_line_of_the_user_function():
    converted = api.to_graph(accumulate)
    lines, first = inspect.getsourcelines(accumulate)
    for code in _codes(converted.__code__):
        assert code.co_filename == __file__
        for start, end, _, _ in code.co_positions():
            if start is not None:
                assert first <= start <= end < first + len(lines)


def _reference_remap(code, line_map):
    """The documented rule, one code unit at a time: a mapped line, else the last mapped
    line before it in the same code object (or the code's own mapped first line)."""
    current = line_map.get(code.co_firstlineno) or code_lines._nearest_before(
        line_map, code.co_firstlineno)
    lines = []
    for start, _, _, _ in code.co_positions():
        if start is None:
            lines.append(None)
            continue
        current = line_map.get(start, current)
        lines.append(current)
    return lines


SCALED = lambda values, factor: [v * factor for v in values if v is not None]  # noqa: E731


def test_a_converted_lambda_reports_the_users_file_and_line():
    converted = api.to_graph(SCALED)
    line = inspect.getsourcelines(SCALED)[1]
    for code in _codes(converted.__code__):
        assert code.co_filename == __file__
        assert code.co_firstlineno == line
    assert converted([1, None, 2], 3) == [3, 6]


def test_remapped_lines_follow_the_rule_for_every_code_unit():
    # Long runs of one line (more than one table entry), lines without a location, and
    # lines missing from the map.
    source = ("def f(a):\n"
              "    x = [a, a, a, a, a, a, a, a, a, a, a, a, a, a]\n"
              "    try:\n"
              "        y = x[0] + x[1] * x[2] - x[3] // (x[4] or 1)\n"
              "    finally:\n"
              "        z = 1\n"
              "    return (lambda q: q + y)(z)\n")
    module = compile(source, "generated.py", "exec")
    for line_map in ({1: 10, 2: 11, 3: 12, 4: 13, 5: 14, 6: 15, 7: 16},
                     {1: 10, 4: 20, 7: 30}, {2: 5, 6: 5}):
        remapped = code_lines.remap(module, line_map, "user.py")
        for original, new in zip(_codes(module), _codes(remapped)):
            assert new.co_filename == "user.py"
            assert [start for start, _, _, _ in new.co_positions()] == _reference_remap(
                original, line_map)


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
            remapped = code_lines.remap(module, line_map, "user.py")
            for original, new in zip(_codes(module), _codes(remapped)):
                first_line = code_lines.Remapper(line_map, "user.py").first_line(
                    original.co_firstlineno)
                assert new.co_firstlineno == (first_line or 1)
                assert [start for start, _, _, _ in new.co_positions()] == (
                    _reference_remap(original, line_map))
                assert all(end == start for start, end, _, _ in new.co_positions())
