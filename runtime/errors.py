"""Runtime error types, and the user-source locations that graph nodes carry for error messages."""

import os
import sys

import numpy as np


class InvalidArgumentError(Exception):
    """A graph hit a runtime failure (failed assertion, impossible loop, out-of-range read, ...)."""

    def __init__(self, message="", *args):
        super().__init__(message, *args)
        self.message = message

    def __str__(self):
        return str(self.message)


class AssertionFailedError(InvalidArgumentError, AssertionError):
    """A failed `assert` statement in a graph: both an InvalidArgumentError, as every
    failure of a running graph, and the AssertionError Python raises."""


class OutOfRangeError(InvalidArgumentError, IndexError):
    """An out-of-range read in a graph: both an InvalidArgumentError and an IndexError,
    so user code that catches IndexError keeps working."""


# --- where nodes come from -------------------------------------------------------------------

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_AUTOGRAPH_DIR = os.path.join(os.path.dirname(_RUNTIME_DIR.rstrip(os.sep)), "autograph") + os.sep
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__)) + os.sep
_SKIPPED_PREFIXES = (_RUNTIME_DIR, _AUTOGRAPH_DIR, _NUMPY_DIR)

_location_mapper = None


def set_location_mapper(mapper):
    """Install a process-wide hook mapping raw frames to user locations.

    ``mapper(filename, lineno, function_name)`` returns a ``(filename, lineno,
    function_name)`` triple, or None to keep the raw frame. The autograph layer uses it
    to map frames of generated files back to the original source lines. Pass None to
    remove the hook. Returns the previous mapper.
    """
    global _location_mapper
    previous = _location_mapper
    _location_mapper = mapper
    return previous


def get_location_mapper():
    return _location_mapper


def _is_internal(filename):
    if filename.startswith(_SKIPPED_PREFIXES):
        return True
    # An installed autograph package elsewhere on sys.path is framework code too.
    autograph = sys.modules.get("autograph")
    ag_file = getattr(autograph, "__file__", None)
    if ag_file:
        ag_dir = os.path.dirname(os.path.abspath(ag_file)) + os.sep
        if filename.startswith(ag_dir):
            return True
    return filename.startswith("<frozen ")


def capture_location():
    """The raw (filename, lineno, function_name) of the first frame outside the framework."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not _is_internal(code.co_filename):
            return (code.co_filename, frame.f_lineno, code.co_name)
        frame = frame.f_back
    return None


def map_location(location):
    """Apply the location mapper (if any) to a raw location."""
    if location is None or _location_mapper is None:
        return location
    try:
        mapped = _location_mapper(*location)
    except Exception:  # a broken mapper must not hide the user's real error
        mapped = None
    return tuple(mapped) if mapped else location


def format_location(location):
    location = map_location(location)
    if location is None:
        return "<unknown location>"
    filename, lineno, function_name = location
    return "%s:%s in %s" % (filename, lineno, function_name)
