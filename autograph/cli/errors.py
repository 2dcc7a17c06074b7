"""The command's exit statuses, and the error for bad command-line input (one line, status 2)."""

EXIT_BAD_INPUT = 2
EXIT_FUNCTION_FAILED = 1


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


def one_line(error):
    """The first line of an error's message (its type name when it has none)."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    return first if first else type(error).__name__
