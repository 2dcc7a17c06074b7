"""Overhead of conversion on pure-Python execution: converted vs original, same inputs.

Runs each workload (the shared NumPy workloads on small inputs, plus pure-Python functions)
through `ag.to_graph` and through the original, checks the results are equal, and prints
the time ratio. No symbolic values are involved: this is the cost of the inline type
checks of converted statements and expressions, and of the calls routed through
`ag__.converted` and the builtins' overloads.

    python tools/bench_overhead.py [--repeat N] [--cpu-time] [--conversion N] [--depth]

--cpu-time times with the process's CPU clock instead of the wall clock: on a machine
shared with other jobs, time spent waiting for a core then does not count.

With --conversion N it also reports the full conversion pipeline time (parse, analyses,
all converters, unparse, load) per function, median over N fresh copies of a typical
30-line function with loops, branches, break/return and calls. With --depth it reports how
deep a function can recurse through an `if`, a conditional expression, `or`, `while` and
`for`, converted vs original.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from autograph.impl import api  # noqa: E402
from tools.scratch import scratch_dir  # noqa: E402

WORKLOADS_PATH = "/work/shared/bench/workloads.py"


def fib_loop(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def word_counts(words):
    counts = {}
    for w in words:
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    best = None
    for w, c in counts.items():
        if best is None or c > counts[best]:
            best = w
    return best, len(counts)


def bubble_sort(values):
    values = list(values)
    n = len(values)
    while True:
        swapped = False
        for i in range(1, n):
            if values[i - 1] > values[i]:
                values[i - 1], values[i] = values[i], values[i - 1]
                swapped = True
        if not swapped:
            break
        n -= 1
    return values


def helper_calls(n):
    total = 0
    for i in range(n):
        total += abs(i - 50) + min(i, 10) + _square(i % 7)
    return total


def _square(x):
    return x * x


def pure_python_workloads():
    rng = np.random.default_rng(0)
    words = [str(w) for w in rng.integers(0, 200, 5000)]
    return {
        "fib_loop": (fib_loop, (20000,)),
        "word_counts": (word_counts, (words,)),
        "bubble_sort": (bubble_sort, (list(rng.integers(0, 1000, 300)),)),
        "helper_calls": (helper_calls, (20000,)),
    }


def shared_workloads():
    if not os.path.exists(WORKLOADS_PATH):
        return {}
    spec = importlib.util.spec_from_file_location("bench_workloads", WORKLOADS_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_workloads"] = module
    spec.loader.exec_module(module)
    small = {
        "collatz_total": (np.arange(1, 301, dtype=np.int64),),
        "count_primes": (np.int64(3000),),
    }
    result = {}
    for name, (fn, make_inputs) in module.WORKLOADS.items():
        inputs = small.get(name) or make_inputs()
        result[name] = (fn, inputs)
    return result


TYPICAL_FUNCTION = """
def typical_{index}(values, limit, scale=2):
    total = 0
    count = 0
    best = None
    seen = []
    for i, v in enumerate(values):
        if v is None:
            continue
        if v < 0:
            total -= abs(v)
        elif v > limit:
            break
        else:
            total += v * scale
        count += 1
        if best is None or v > best:
            best = v
        seen.append(v)
    while total > limit and count:
        total //= 2
        count -= 1
    if not seen:
        return None
    result = {{"total": total, "count": count, "best": best}}
    assert count >= 0, "negative count"
    average = total / count if count else 0.0
    result["average"] = round(average, 3)
    result["first"] = seen[0] if len(seen) > 0 and seen[0] else max(seen)
    return result
"""


def conversion_times(copies):
    """Seconds per to_graph call on fresh functions (nothing cached)."""
    directory = scratch_dir("bench_conversion_")
    source = "".join(TYPICAL_FUNCTION.format(index=i) for i in range(copies))
    path = os.path.join(directory, "bench_conversion_module.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("bench_conversion_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_conversion_module"] = module
    spec.loader.exec_module(module)
    times = []
    for i in range(copies):
        fn = getattr(module, f"typical_{i}")
        start = time.perf_counter()
        converted = api.to_graph(fn)
        times.append(time.perf_counter() - start)
        args = ([3, None, -2, 5, 40, 7], 30)
        assert converted(*args) == fn(*args)
    return times


# Recursion through each converted construct: how deep a function recursing through it gets
# before RecursionError, converted vs original (the frames conversion adds per level).
RECURSION_SOURCE = """
def through_if(n):
    if n == 0:
        return 0
    return 1 + through_if(n - 1)


def through_conditional_expression(n):
    return 0 if n == 0 else 1 + through_conditional_expression(n - 1)


def through_or(n):
    return n == 0 or through_or(n - 1)


def through_while(n):
    while n > 0:
        return through_while(n - 1)
    return 0


def through_for(n):
    for _ in range(1):
        if n > 0:
            return through_for(n - 1)
    return 0
"""


def max_depth(fn):
    """The largest n for which fn(n) does not raise RecursionError (binary search)."""
    low, high = 1, 5000
    while low < high:
        middle = (low + high + 1) // 2
        try:
            fn(middle)
            low = middle
        except RecursionError:
            high = middle - 1
    return low


def recursion_depths():
    directory = scratch_dir("bench_recursion_")
    path = os.path.join(directory, "bench_recursion_module.py")
    with open(path, "w") as f:
        f.write(RECURSION_SOURCE)
    spec = importlib.util.spec_from_file_location("bench_recursion_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_recursion_module"] = module
    spec.loader.exec_module(module)
    print(f"{'recursion':<32} {'original':>8} {'converted':>9}")
    for name in ("through_if", "through_conditional_expression", "through_or",
                 "through_while", "through_for"):
        fn = getattr(module, name)
        print(f"{name:<32} {max_depth(fn):>8} {max_depth(api.to_graph(fn)):>9}")


def best_time(fn, args, repeat, clock=time.perf_counter):
    times = []
    for _ in range(repeat):
        start = clock()
        fn(*args)
        times.append(clock() - start)
    return min(times)


def same(a, b):
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b)))
    except Exception:
        return a == b


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the process's CPU clock (time.process_time)")
    parser.add_argument("--conversion", type=int, default=0, metavar="N")
    parser.add_argument("--depth", action="store_true",
                        help="also report the recursion depth reachable through each "
                             "converted construct, converted vs original")
    args = parser.parse_args(argv)
    if args.depth:
        recursion_depths()
    if args.conversion:
        times = conversion_times(args.conversion)
        print(f"conversion of a typical 30-line function: median "
              f"{statistics.median(times) * 1e3:.1f} ms over {len(times)} fresh functions "
              f"(first {times[0] * 1e3:.1f} ms)")
    workloads = {**pure_python_workloads(), **shared_workloads()}
    ratios = []
    print(f"{'workload':<16} {'original':>10} {'converted':>10} {'ratio':>7}")
    for name, (fn, inputs) in workloads.items():
        converted = api.to_graph(fn)
        expected = fn(*inputs)
        if not same(converted(*inputs), expected):
            print(f"{name:<16} RESULT MISMATCH")
            continue
        clock = time.process_time if args.cpu_time else time.perf_counter
        original_time = best_time(fn, inputs, args.repeat, clock)
        converted_time = best_time(converted, inputs, args.repeat, clock)
        ratio = converted_time / original_time
        ratios.append(ratio)
        print(f"{name:<16} {original_time * 1e3:9.2f}ms {converted_time * 1e3:9.2f}ms "
              f"{ratio:6.2f}x")
    if ratios:
        print(f"median ratio {statistics.median(ratios):.2f}x, "
              f"geometric mean {statistics.geometric_mean(ratios):.2f}x")


if __name__ == "__main__":
    main()
