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


def remap(code, line_map, filename):
    """`code` (and its nested code objects) with lines mapped by `line_map` {generated line:
    original line} and `filename` as their file. Unmapped lines take the last mapped line
    before them in the same code object, or the code's own (mapped) first line."""
    constants = tuple(remap(c, line_map, filename) if isinstance(c, types.CodeType) else c
                      for c in code.co_consts)
    return code.replace(co_consts=constants, **remapped_fields(code, line_map, filename))


def remapped_fields(code, line_map, filename):
    """The `code.replace` arguments that give `code` itself (not its nested code objects)
    the lines of `remap`: co_filename, co_firstlineno and co_linetable."""
    first_line = line_map.get(code.co_firstlineno) or _nearest_before(line_map,
                                                                      code.co_firstlineno)
    return {"co_filename": filename, "co_firstlineno": first_line or 1,
            "co_linetable": _remapped_line_table(code, line_map, first_line)}


def _remapped_line_table(code, line_map, first_line):
    """The line table giving every code unit its mapped line (None: no location), read
    from code.co_lines() (ranges, not one position per code unit). Runs of code units on
    one line are merged across ranges, then cut into entries of up to _MAX_RUN units."""
    table = bytearray()
    previous = first_line or 1
    current = first_line
    run_line = None
    run_units = 0
    get = line_map.get
    for start, end, line in code.co_lines():
        if line is not None:
            mapped = get(line)
            if mapped is not None:
                current = mapped
            line = current
        if line == run_line:
            run_units += (end - start) >> 1
            continue
        units = (end - start) >> 1
        if not units:
            continue
        if run_units:
            previous = _encode_run(run_line, run_units, previous, table)
        run_line, run_units = line, units
    if run_units:
        _encode_run(run_line, run_units, previous, table)
    return bytes(table)


def _encode_run(line, units, previous, table):
    """Appends entries for `units` code units on `line` (None: no location); returns the
    line the next entry's delta is taken from."""
    if line is None:
        while units > 0:
            run = units if units < _MAX_RUN else _MAX_RUN
            units -= run
            table.append(0x80 | (_NO_LOCATION << 3) | (run - 1))
        return previous
    delta = line - previous
    while units > 0:
        run = units if units < _MAX_RUN else _MAX_RUN
        units -= run
        table.append(0x80 | (_NO_COLUMNS << 3) | (run - 1))
        # The signed varint of the line delta (see _signed_varint): one byte when small.
        if -32 < delta < 32:
            table.append(((-delta) << 1) | 1 if delta < 0 else delta << 1)
        else:
            _signed_varint(delta, table)
        delta = 0
    return line


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
