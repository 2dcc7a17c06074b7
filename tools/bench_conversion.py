"""Measures how long converting one function takes (median over many fresh functions).

    python tools/bench_conversion.py [--pipeline identity|full] [--count 200] [--phases]

Every measured function is new (its own source text and code object), so no conversion
cache can hit: this is the cost a user pays the first time a function is converted.

It prints one row per function shape: median, 90th percentile and minimum milliseconds per
conversion. --phases then splits the mean time of the typical function into the steps of
PHASES (finding and parsing the source with its origins, the converters with their analyses,
unparsing, writing/compiling/importing the module, the source map, and remapping the code
object to the user's lines) and "everything else" (caches, rebuilding the function, and
the garbage collection the conversion triggers).
"""

import argparse
import collections
import contextlib
import importlib
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# Function templates; {i} makes each copy's name and source unique.
SHAPES = {
    "one-liner": '''
def one_liner_{i}(x):
    return x + {i}
''',
    "lambda": '''
lambda_{i} = lambda x, y=2: x * y + {i}
''',
    "typical 30 lines": '''
def typical_{i}(values, threshold=0.5, *, scale=2):
    """Sums and counts values by a threshold ({i})."""
    total = 0.0
    count = 0
    largest = None
    history = []
    for index, value in enumerate(values):
        if value is None:
            continue
        scaled = value * scale
        if scaled > threshold:
            total += scaled
            count += 1
        elif scaled < -threshold:
            total -= abs(scaled)
        else:
            history.append((index, scaled))
        if largest is None or scaled > largest:
            largest = scaled
    while count > 10 and history:
        index, value = history.pop()
        count -= 1
    try:
        mean = total / count
    except ZeroDivisionError:
        mean = 0.0
    summary = {{"total": total, "count": count, "mean": mean}}
    labels = [f"{{k}}={{v:.2f}}" for k, v in summary.items() if v is not None]
    result = max(total, {i}) if labels else min(total, 0)
    return result, largest, ", ".join(labels), sorted(history)
''',
    "nested closure": '''
def make_closure_{i}(offset):
    def closure(x):
        nonlocal offset
        offset += 1
        return [x + offset + k for k in range({i} % 3 + 1)]
    return closure
''',
}


def _identity_converter():
    from autograph.pyct import transpiler
    converter = transpiler.PyToPy()

    def convert(fn):
        return converter.transform(fn, None)[0]
    return convert


def _full_converter():
    try:
        api = importlib.import_module("autograph.impl.api")
    except ImportError as e:
        return None, f"the full pipeline is not available yet (autograph.impl.api: {e})"
    to_graph = getattr(api, "to_graph", None) or getattr(api, "convert", None)
    if to_graph is None:
        return None, "autograph.impl.api has no to_graph/convert function yet"
    return to_graph, None


def _write_module(directory, shape, count, tag):
    name = f"bench_{shape.replace(' ', '_').replace('-', '_')}_{tag}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        for i in range(count):
            f.write(SHAPES[shape].format(i=i))
    module = importlib.import_module(name)
    functions = []
    for attribute in sorted(vars(module)):
        value = getattr(module, attribute)
        if callable(value) and getattr(value, "__module__", None) == name:
            functions.append(value(0) if shape == "nested closure" else value)
    return functions


# The steps every conversion goes through, for --phases: (module, function or
# Class.method, description). Steps with the same description add up.
PHASES = (
    # Parsing also converts the tree to gast and annotates origins, in the same walk.
    ("autograph.pyct.parser", "parse_entity_with_location",
     "find and parse the source, origins"),
    ("autograph.impl.conversion", "AutoGraphTranspiler.transform_ast",
     "converters and their analyses"),
    ("autograph.pyct.unparser", "unparse_statements", "unparse (gast -> source)"),
    ("autograph.pyct.loader", "load_source", "write, compile and import"),
    ("autograph.pyct.origin_info", "source_map_from_lines", "map generated lines back"),
    ("autograph.pyct.origin_info", "create_source_map", "map generated lines back"),
    ("autograph.impl.conversion", "_rebuilt_code", "code object with the user's lines"),
)


@contextlib.contextmanager
def timed_phases():
    """Accumulates the time spent in each of PHASES while active: {description: seconds}."""
    totals = collections.Counter()
    patched = []
    for module_name, function_name, description in PHASES:
        owner = importlib.import_module(module_name)
        *owner_path, attribute = function_name.split(".")
        for name in owner_path:
            owner = getattr(owner, name)
        original = owner.__dict__[attribute]

        def timed(*args, _original=original, _description=description, **kwargs):
            start = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                totals[_description] += time.perf_counter() - start

        setattr(owner, attribute, timed)
        patched.append((owner, attribute, original))
    try:
        yield totals
    finally:
        for owner, attribute, original in patched:
            setattr(owner, attribute, original)


def measure(convert, functions):
    times = []
    for fn in functions:
        start = time.perf_counter()
        convert(fn)
        times.append(time.perf_counter() - start)
    return times


def main(argv=None):
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--pipeline", choices=("identity", "full"), default="identity")
    arguments.add_argument("--count", type=int, default=200, help="functions per shape")
    arguments.add_argument("--phases", action="store_true",
                           help="also show where the time goes for the typical function")
    options = arguments.parse_args(argv)

    if options.pipeline == "identity":
        convert = _identity_converter()
    else:
        convert, problem = _full_converter()
        if convert is None:
            print(problem)
            return 1

    with tempfile.TemporaryDirectory() as work_dir:
        # A fresh cache directory: generated files must really be written and compiled.
        os.environ["AUTOGRAPH_CACHE_DIR"] = os.path.join(work_dir, "cache")
        sys.path.insert(0, work_dir)
        tag = f"{os.getpid()}_{time.time_ns()}"
        print(f"pipeline: {options.pipeline}; {options.count} fresh functions per shape")
        print(f"{'function':<20} {'median ms':>10} {'p90 ms':>8} {'min ms':>8}")
        for shape in SHAPES:
            functions = _write_module(work_dir, shape, options.count, tag)
            convert(functions[0])  # first use of the file: builds its definition index
            times = measure(convert, functions[1:])
            times.sort()
            median = statistics.median(times) * 1e3
            p90 = times[int(len(times) * 0.9)] * 1e3
            print(f"{shape:<20} {median:>10.2f} {p90:>8.2f} {times[0] * 1e3:>8.2f}")
        if options.phases:
            functions = _write_module(work_dir, "typical 30 lines", options.count, tag + "_p")
            convert(functions[0])
            with timed_phases() as totals:
                total = sum(measure(convert, functions[1:]))
            count = len(functions) - 1
            print(f"\nwhere the time goes (typical 30 lines, mean ms per function):")
            for description, seconds in totals.items():
                print(f"  {description:<34} {seconds / count * 1e3:>6.2f}")
            rest = total - sum(totals.values())
            print(f"  {'everything else':<34} {rest / count * 1e3:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
