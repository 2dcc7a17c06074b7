"""Gives converted code objects the user's file and line numbers.

Generated code runs from a generated module, but tracebacks, `warnings.warn(stacklevel=n)`
and frame inspection should name the user's file and line. Every code object of a converted
function is rebuilt with the original file name and a line table that maps each instruction
to the original line its generated line came from (the transpiler's source map). Columns
are dropped (they refer to generated text); the generated source stays available through
`generated_source`.
"""

import bisect
import itertools
import operator
import types

# CPython 3.11 line table (Objects/locations.md): one entry per run of up to 8 code units;
# first byte 0x80 | code << 3 | (length - 1). Code 13: line only (signed varint line delta);
# code 15: no location.
_NO_COLUMNS = 13
_NO_LOCATION = 15
_MAX_RUN = 8


def _varint(value, out):
    while value >= 64:
        out.append(0x40 | (value & 63))
        value >>= 6
    out.append(value)


def _signed_varint(value, out):
    _varint((-value << 1) | 1 if value < 0 else value << 1, out)


def remap(code, line_map, filename):
    """`code` (and its nested code objects) with lines mapped by `line_map` {generated line:
    original line} and `filename` as their file. Unmapped lines take the last mapped line
    before them in the same code object, or the code's own (mapped) first line."""
    remapper = Remapper(line_map, filename)
    return _remap_tree(code, remapper)


def _remap_tree(code, remapper):
    constants = tuple(_remap_tree(c, remapper) if isinstance(c, types.CodeType) else c
                      for c in code.co_consts)
    return code.replace(co_consts=constants, **remapper.fields(code))


def remapped_fields(code, line_map, filename):
    """The `code.replace` arguments that give `code` itself (not its nested code objects)
    the lines of `remap`: co_filename, co_firstlineno and co_linetable."""
    return Remapper(line_map, filename).fields(code)


class Remapper:
    """remapped_fields for the code objects of one generated module (one line map): the
    map's sorted lines are worked out once for all of them."""

    __slots__ = ("line_map", "filename", "_sorted_lines")

    def __init__(self, line_map, filename):
        self.line_map = line_map
        self.filename = filename
        self._sorted_lines = None

    def first_line(self, line):
        """The mapped line of `line`, else that of the nearest mapped line before it."""
        mapped = self.line_map.get(line)
        if mapped is not None:
            return mapped
        if self._sorted_lines is None:
            self._sorted_lines = sorted(self.line_map)
        index = bisect.bisect_right(self._sorted_lines, line)
        return self.line_map[self._sorted_lines[index - 1]] if index else None

    def fields(self, code):
        first_line = self.first_line(code.co_firstlineno)
        return {"co_filename": self.filename, "co_firstlineno": first_line or 1,
                "co_linetable": _remapped_line_table(code, self.line_map, first_line)}


_LINE_OF_RANGE = operator.itemgetter(2)


def _remapped_line_table(code, line_map, first_line):
    """The line table giving every code unit its mapped line (None: no location).

    co_lines() yields one range per entry of the code's table (about one per instruction,
    contiguous): groupby (in C) gives the runs of one generated line, so the loop below
    runs once per generated-line change, not per instruction. Runs mapping to one
    original line are merged, then cut into entries of up to _MAX_RUN code units.
    """
    table = bytearray()
    previous = first_line or 1
    current = first_line
    run_line = None
    run_start = 0
    get = line_map.get
    for line, ranges in itertools.groupby(code.co_lines(), _LINE_OF_RANGE):
        if line is not None:
            # A line missing from the map takes the last mapped line before it.
            line = current = get(line, current)
        if line == run_line:
            continue
        start = next(ranges)[0]
        if start > run_start:
            previous = _encode_run(run_line, (start - run_start) >> 1, previous, table)
        run_line, run_start = line, start
    end = len(code.co_code)
    if end > run_start:
        _encode_run(run_line, (end - run_start) >> 1, previous, table)
    return bytes(table)


# The first byte of an entry of `n` code units: _LINE_ENTRY + n on a line (no columns),
# _NO_LOCATION_ENTRY + n without a location.
_LINE_ENTRY = (0x80 | (_NO_COLUMNS << 3)) - 1
_NO_LOCATION_ENTRY = (0x80 | (_NO_LOCATION << 3)) - 1
# units -> the entries of a run of that many code units after its first entry (same line:
# a delta of 0, the byte 0), and of a run without a location; made once per length.
_LINE_TAILS = {}
_NO_LOCATION_RUNS = {}
_CACHED_RUNS = 1024


def _cached_entries(units, entry_of, cache):
    """The entries of a run of `units` code units, each entry `entry_of(units in it)`,
    kept in `cache` for short runs (made once per length)."""
    entries = bytearray()
    left = units
    while left > 0:
        run = left if left < _MAX_RUN else _MAX_RUN
        left -= run
        entries += entry_of(run)
    result = bytes(entries)
    if units < _CACHED_RUNS:
        cache[units] = result
    return result


def _line_tail(units):
    """The entries of `units` code units on the line of the entry before them."""
    return _cached_entries(units, lambda run: bytes((_LINE_ENTRY + run, 0)), _LINE_TAILS)


def _no_location_run(units):
    """The entries of `units` code units without a location."""
    return _cached_entries(units, lambda run: bytes((_NO_LOCATION_ENTRY + run,)),
                           _NO_LOCATION_RUNS)


def _encode_run(line, units, previous, table):
    """Appends entries for `units` code units on `line` (None: no location); returns the
    line the next entry's delta is taken from."""
    if line is None:
        entries = _NO_LOCATION_RUNS.get(units)
        table += entries if entries is not None else _no_location_run(units)
        return previous
    delta = line - previous
    if units <= _MAX_RUN:
        table.append(_LINE_ENTRY + units)
        units = 0
    else:
        table.append(_LINE_ENTRY + _MAX_RUN)
        units -= _MAX_RUN
    # The signed varint of the line delta (see _signed_varint): one byte when small.
    if -32 < delta < 32:
        table.append(((-delta) << 1) | 1 if delta < 0 else delta << 1)
    else:
        _signed_varint(delta, table)
    if units:
        entries = _LINE_TAILS.get(units)
        table += entries if entries is not None else _line_tail(units)
    return line


def _nearest_before(line_map, line):
    candidates = [generated for generated in line_map if generated <= line]
    return line_map[max(candidates)] if candidates else None


def line_map_from(source_map, generated_file):
    """{generated line: original line} and the original file, from a transpiler source map."""
    # Source map keys are LineLocation(filename, lineno), values OriginInfo(loc=Location(
    # filename, lineno, ...), ...): read by index, in one comprehension.
    line_map = {location[1]: origin[0][1] for location, origin in source_map.items()
                if location[0] == generated_file}
    original_file = None
    if line_map:
        for location, origin in source_map.items():
            if location[0] == generated_file and origin[0][0]:
                original_file = origin[0][0]
                break
    return line_map, original_file
