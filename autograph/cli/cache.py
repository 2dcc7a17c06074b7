"""`autograph cache info` and `autograph cache clear`: the private cache (`agcache`)."""

import argparse

import agcache
from autograph.cli.errors import EXIT_BAD_INPUT

DESCRIPTION = """\
The private on-disk cache: converted modules, generated Numba modules and the compiled
code of both. It is $AUTOGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/autograph-numpy, else
~/.cache/autograph-numpy; $AUTOGRAPH_CACHE_LIMIT bounds its size (default 1GiB), the least
recently used entries going first.

  info    where the cache is, whether it is usable, its size and entries
  clear   delete everything in it (everything is rebuilt when needed)
"""


def main(argv, prog, out, err):
    parser = argparse.ArgumentParser(prog=prog + " cache", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("info", "clear"))
    try:
        options = parser.parse_args(argv)
    except SystemExit as stop:      # --help (0) or a usage error (argparse printed it)
        return EXIT_BAD_INPUT if stop.code else 0
    if options.action == "info":
        return info(out)
    return clear(out, err, prog)


def _size(size):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return ("%d %s" % (size, unit)) if unit == "bytes" else "%.1f %s" % (size, unit)
        size /= 1024.0
    return None


def info(out):
    found = agcache.info()
    source = ("$%s" % agcache.ENV_DIR) if agcache.configured_by_environment() else "default"
    print("location: %s (%s)" % (found.root, source), file=out)
    if found.problem is not None:
        print("status:   not used: %s; processes use a private temporary directory "
              "instead" % found.problem, file=out)
    size = "%s of %s" % (_size(found.size), _size(found.limit))
    print("size:     %s (limit: $%s)" % (size, agcache.ENV_LIMIT), file=out)
    total = sum(found.entries.values())
    print("entries:  %d in %d files" % (total, found.files), file=out)
    for kind, count in found.entries.items():
        what = agcache.KINDS.get(kind, "files of older versions")
        print("  %-9s%6d  %s" % (kind, count, what), file=out)
    return 0


def clear(out, err, prog):
    try:
        files, size = agcache.clear()
    except OSError as error:
        print("%s cache: error: not clearing the cache: %s" % (prog, error), file=err)
        return EXIT_BAD_INPUT
    print("cleared %s: %d files, %s" % (agcache.configured_root(), files, _size(size)),
          file=out)
    return 0
