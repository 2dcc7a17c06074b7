"""Runs standard-library modules' own unit tests against converted versions of the modules.

For each module, every function and method defined in it (module functions, methods, static
and class methods, property accessors of its classes) is replaced by `ag.to_graph(...)` of
itself, then the module's tests (`test.test_<module>`) run. Each module runs twice in a fresh
subprocess, unconverted and converted, and the pass counts are compared. The last column is
the converted test run's time over the unconverted one's (test harness time included).

    python tools/stdlib_conformance.py [module ...] [--verbose]   # ~10 minutes for all
"""

import argparse
import inspect
import json
import os
import subprocess
import sys
import time
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Pure-Python modules (no C accelerator replacing their code) with self-contained tests;
# `module:test` when the test module is named differently. enum is left out: converting
# EnumType's methods in place breaks its identity checks on Enum.__new__ while classes are
# being built, which says nothing about converted code.
DEFAULT_MODULES = (
    "textwrap", "colorsys", "fnmatch", "shlex", "string", "calendar", "fractions",
    "statistics", "difflib", "graphlib", "html", "glob", "posixpath", "ntpath",
    "ipaddress", "configparser", "keyword", "getopt", "optparse", "gettext", "base64",
    "quopri", "uu", "netrc", "plistlib", "dataclasses", "cmd", "tabnanny", "pprint",
    "reprlib", "bisect", "heapq", "contextlib", "copy", "operator", "abc", "tomllib",
    "mailbox", "sched", "smtplib", "stringprep", "argparse", "random", "pathlib",
    "tempfile", "shutil", "tokenize", "traceback", "uuid", "zipfile", "csv", "fileinput",
    "filecmp", "secrets", "linecache", "weakref", "typing", "inspect", "ast",
    "urllib.parse:urlparse", "http.cookies:http_cookies", "functools", "collections",
)


def _convertible(fn, module_name):
    return (isinstance(fn, types.FunctionType) and fn.__module__ == module_name
            and not (fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE
                                             | inspect.CO_ASYNC_GENERATOR)))


def convert_module(module_name):
    """Replaces the module's functions and its classes' methods by converted versions.

    Returns (converted count, failures as [(qualname, error)]).
    """
    sys.path.insert(0, ROOT)
    import importlib

    from autograph.impl import api

    module = importlib.import_module(module_name)
    converted, failures = 0, []

    def convert(fn):
        nonlocal converted
        try:
            result = api.to_graph(fn)
        except Exception as e:  # reported, the original stays in place
            failures.append((fn.__qualname__, f"{type(e).__name__}: {e}"))
            return fn
        converted += 1
        return result

    def visit_class(cls, seen):
        if cls in seen or cls.__module__ != module_name:
            return
        seen.add(cls)
        for name, value in list(vars(cls).items()):
            new_value = value
            if _convertible(value, module_name):
                new_value = convert(value)
            elif isinstance(value, (staticmethod, classmethod)) and _convertible(
                    value.__func__, module_name):
                new_value = type(value)(convert(value.__func__))
            elif isinstance(value, property):
                accessors = [convert(f) if _convertible(f, module_name) else f
                             for f in (value.fget, value.fset, value.fdel)]
                new_value = property(*accessors, value.__doc__)
            elif isinstance(value, type):
                visit_class(value, seen)
            if new_value is not value:
                replacements.append((cls, name, new_value))

    # Everything is converted first and installed at the end: the converter itself uses
    # some of these modules (enum, contextlib, ...), and must not run half-converted code.
    replacements = []
    seen = set()
    for name, value in list(vars(module).items()):
        if _convertible(value, module_name):
            replacements.append((module, name, convert(value)))
        elif isinstance(value, type):
            visit_class(value, seen)
    for owner, name, new_value in replacements:
        try:
            setattr(owner, name, new_value)
        except (AttributeError, TypeError) as e:
            failures.append((f"{getattr(owner, '__qualname__', owner)}.{name}",
                             f"cannot set: {e}"))
    return converted, failures


def run_tests(module_spec, converted):
    """Runs test.test_<module> (or the test module named after a colon, `urllib.parse:urlparse`);
    returns a dict of counts."""
    module_name, _, test_name = module_spec.partition(":")
    test_name = test_name or module_name
    conversion = (0, [])
    # Both runs import autograph, so that they differ only by the conversion: importing gast
    # alone changes what some tests see (its node classes subclass ast.expr, say).
    sys.path.insert(0, ROOT)
    import autograph.impl.api  # noqa: F401
    started = time.perf_counter()
    if converted:
        conversion = convert_module(module_name)
    conversion_time = time.perf_counter() - started
    import importlib
    test_module = importlib.import_module(f"test.test_{test_name}")
    loader = unittest.TestLoader()
    suite = loader.loadTestsFromModule(test_module)
    stream = open(os.devnull, "w")
    runner = unittest.TextTestRunner(stream=stream, verbosity=0)
    started = time.perf_counter()
    result = runner.run(suite)
    run_time = time.perf_counter() - started
    problems = [(str(test), trace.strip().splitlines()[-1])
                for test, trace in result.failures + result.errors]
    return {
        "module": module_spec, "converted": converted, "run": result.testsRun,
        "failures": len(result.failures), "errors": len(result.errors),
        "skipped": len(result.skipped),
        "passed": result.testsRun - len(result.failures) - len(result.errors)
        - len(result.skipped),
        "functions_converted": conversion[0], "conversion_failures": conversion[1],
        "problems": problems, "conversion_time": conversion_time, "run_time": run_time,
    }


def run_in_subprocess(module_name, converted, timeout=600):
    command = [sys.executable, __file__, "--child", module_name]
    if converted:
        command.append("--converted")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"module": module_name, "converted": converted, "error": "timeout"}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"module": module_name, "converted": converted,
            "error": (done.stderr.strip().splitlines() or ["no output"])[-1]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--converted", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_tests(args.child, args.converted)))
        return
    modules = list(dict.fromkeys(args.modules or DEFAULT_MODULES))
    totals = {"plain": 0, "converted": 0, "run": 0}
    print(f"{'module':<14} {'tests':>6} {'plain':>6} {'conv.':>6} {'fns':>5} "
          f"{'slowdown':>8}")
    for module_name in modules:
        plain = run_in_subprocess(module_name, converted=False)
        conv = run_in_subprocess(module_name, converted=True)
        if "error" in plain or "error" in conv:
            print(f"{module_name:<14} error: {plain.get('error') or conv.get('error')}")
            continue
        totals["plain"] += plain["passed"]
        totals["converted"] += conv["passed"]
        totals["run"] += plain["run"]
        slowdown = conv["run_time"] / plain["run_time"] if plain["run_time"] else 0
        print(f"{module_name:<14} {plain['run']:>6} {plain['passed']:>6} {conv['passed']:>6} "
              f"{conv['functions_converted']:>5} {slowdown:>7.1f}x")
        if args.verbose:
            for name, error in conv["conversion_failures"]:
                print(f"    not converted: {name}: {error}")
            plain_problems = {p[0] for p in plain["problems"]}
            for test, last_line in conv["problems"]:
                if test not in plain_problems:
                    print(f"    FAIL {test}: {last_line}")
    print(f"total: {totals['run']} tests, {totals['plain']} pass unconverted, "
          f"{totals['converted']} pass converted")


if __name__ == "__main__":
    main()
