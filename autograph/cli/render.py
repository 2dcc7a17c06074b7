"""How the command prints: ANSI colouring of Python source and of diffs, results and timings."""

import io
import keyword
import os
import tokenize

_RESET = "\033[0m"
_STYLES = {
    "keyword": "\033[1;34m",     # bold blue
    "builtin": "\033[36m",       # cyan
    "string": "\033[32m",        # green
    "number": "\033[35m",        # magenta
    "comment": "\033[2;37m",     # dim grey
    "generated": "\033[33m",     # yellow: the ag__ overloads and generated helpers
    "definition": "\033[1m",     # bold: names being defined
}
_BUILTINS = frozenset(name for name in dir(__import__("builtins")) if not name.startswith("_"))


def use_colour(choice, stream):
    """Whether to colour: --color always/never, else only for a terminal without NO_COLOR."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def emit(text, out, colour, colourer):
    """Writes `text` to `out` (coloured by `colourer` when `colour`), ending in a newline."""
    if colour:
        text = colourer(text)
    out.write(text if text.endswith("\n") else text + "\n")


def colour_python(source):
    """`source` with ANSI colours, token by token (the stdlib tokenizer; no dependency)."""
    lines = source.splitlines(keepends=True)
    out = []
    row, column = 1, 0
    previous_name = None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    for token in tokens:
        (start_row, start_col), (end_row, end_col) = token.start, token.end
        if token.type == tokenize.ENDMARKER:
            break
        # Copy the text between tokens (spaces, line continuations) as it is.
        out.append(_slice(lines, (row, column), (start_row, start_col)))
        text = _slice(lines, (start_row, start_col), (end_row, end_col))
        style = _token_style(token, previous_name)
        out.append(_STYLES[style] + text + _RESET if style and text else text)
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                              tokenize.INDENT, tokenize.DEDENT):
            previous_name = token.string if token.type == tokenize.NAME else None
        row, column = end_row, end_col
    out.append(_slice(lines, (row, column), (len(lines) + 1, 0)))
    return "".join(out)


def _slice(lines, start, end):
    (start_row, start_col), (end_row, end_col) = start, end
    if start_row > len(lines):
        return ""
    if start_row == end_row:
        return lines[start_row - 1][start_col:end_col]
    parts = [lines[start_row - 1][start_col:]]
    parts.extend(lines[start_row:end_row - 1])
    if end_row <= len(lines):
        parts.append(lines[end_row - 1][:end_col])
    return "".join(parts)


def _token_style(token, previous_name):
    if token.type == tokenize.COMMENT:
        return "comment"
    if token.type == tokenize.STRING:
        return "string"
    if token.type == tokenize.NUMBER:
        return "number"
    if token.type == tokenize.NAME:
        name = token.string
        if keyword.iskeyword(name) or keyword.issoftkeyword(name) and name != "_":
            return "keyword"
        if previous_name in ("def", "class"):
            return "definition"
        if name.startswith("ag__"):
            return "generated"
        if name in _BUILTINS:
            return "builtin"
    return None


def colour_diff(diff_text):
    """A unified diff with removed lines red, added lines green and hunk headers cyan."""
    out = []
    for line in diff_text.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append("\033[1m" + line.rstrip("\n") + _RESET + "\n")
        elif line.startswith("+"):
            out.append("\033[32m" + line.rstrip("\n") + _RESET + "\n")
        elif line.startswith("-"):
            out.append("\033[31m" + line.rstrip("\n") + _RESET + "\n")
        elif line.startswith("@@"):
            out.append("\033[36m" + line.rstrip("\n") + _RESET + "\n")
        else:
            out.append(line)
    return "".join(out)


def format_result(value):
    """One result of --run: NumPy's summary for arrays, repr for anything else."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=50, separator=", ")
    return repr(value)


def seconds(t):
    """A duration in s, ms or us, three significant decimals."""
    if t >= 1:
        return "%.3f s" % t
    if t >= 1e-3:
        return "%.3f ms" % (t * 1e3)
    return "%.1f us" % (t * 1e6)
