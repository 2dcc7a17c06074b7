"""Verbosity-controlled logging of conversion, on the standard `logging` logger "autograph".

Level 1+: what is converted and what is left as it is (and why); level 3+: generated code.
The environment variable AUTOGRAPH_VERBOSITY sets the initial level.
"""

import logging
import os
import sys

logger = logging.getLogger("autograph")

_verbosity = None
_stdout_handler = None


def set_verbosity(level, alsologtostdout=False):
    """Sets how much conversion logs (0: nothing); optionally also echo to stdout."""
    global _verbosity, _stdout_handler
    _verbosity = int(level)
    if alsologtostdout and _stdout_handler is None:
        _stdout_handler = logging.StreamHandler(sys.stdout)
        logger.addHandler(_stdout_handler)
    elif not alsologtostdout and _stdout_handler is not None:
        logger.removeHandler(_stdout_handler)
        _stdout_handler = None
    if _verbosity > 0:
        _enable_info()


def _enable_info():
    logger.setLevel(logging.INFO)
    if not logger.handlers and not logging.getLogger().handlers:
        # Nobody configured logging: without a handler INFO records would be dropped.
        logger.addHandler(logging.StreamHandler(sys.stderr))


def get_verbosity():
    if _verbosity is not None:
        return _verbosity
    try:
        return int(os.environ.get("AUTOGRAPH_VERBOSITY", "0"))
    except ValueError:
        return 0


def has_verbosity(level):
    return get_verbosity() >= level


def log(level, message, *args):
    """Logs `message % args` at INFO when the verbosity is at least `level`."""
    if has_verbosity(level):
        if logger.getEffectiveLevel() > logging.INFO:
            _enable_info()
        logger.info(message, *args)
