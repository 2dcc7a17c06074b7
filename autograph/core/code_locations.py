"""Gives converted code objects the user's file and line numbers.

Generated code runs from a generated module, but tracebacks, `warnings.warn(stacklevel=n)`
and frame inspection should name the user's file and line. Every code object of a converted
function is rebuilt with the original file name and a line table that maps each instruction
to the original line its generated line came from (the transpiler's source map). Columns
are dropped (they refer to generated text); the generated source stays available through
`generated_source`.
"""

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


def _line_table(lines, first_line):
    """Encodes one line number (or None) per code unit."""
    table = bytearray()
    previous = first_line
    index = 0
    while index < len(lines):
        line = lines[index]
        run = 1
        while index + run < len(lines) and lines[index + run] == line and run < _MAX_RUN:
            run += 1
        if line is None:
            table.append(0x80 | (_NO_LOCATION << 3) | (run - 1))
        else:
            table.append(0x80 | (_NO_COLUMNS << 3) | (run - 1))
            _signed_varint(line - previous, table)
            previous = line
        index += run
    return bytes(table)


def remap(code, line_map, filename):
    """`code` (and its nested code objects) with lines mapped by `line_map` {generated line:
    original line} and `filename` as their file. Unmapped lines take the last mapped line
    before them in the same code object, or the code's own (mapped) first line."""
    first_line = line_map.get(code.co_firstlineno) or _nearest_before(line_map,
                                                                      code.co_firstlineno)
    lines = []
    current = first_line
    for start, _, _, _ in code.co_positions():
        if start is None:
            lines.append(None)
            continue
        mapped = line_map.get(start)
        if mapped is not None:
            current = mapped
        lines.append(current)
    constants = tuple(remap(c, line_map, filename) if isinstance(c, types.CodeType) else c
                      for c in code.co_consts)
    return code.replace(co_filename=filename, co_firstlineno=first_line or 1,
                        co_linetable=_line_table(lines, first_line or 1), co_consts=constants)


def _nearest_before(line_map, line):
    candidates = [generated for generated in line_map if generated <= line]
    return line_map[max(candidates)] if candidates else None


def line_map_from(source_map, generated_file):
    """{generated line: original line} and the original file, from a transpiler source map."""
    line_map = {}
    original_file = None
    for location, origin in source_map.items():
        if location.filename != generated_file:
            continue
        line_map[location.lineno] = origin.loc.lineno
        original_file = original_file or origin.loc.filename
    return line_map, original_file
