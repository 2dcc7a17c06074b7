"""Long run of the differential fuzzer of graph mode: generated programs (tools/fuzz/
generator.py) run as plain Python and through `ag.to_graph` and `ag.function` on each backend
(tools/fuzz/compare.py), counted per class and backend.

    python tools/fuzz_graph_mode.py --count 2000 --seed 0 --backends numpy,numba
    python tools/fuzz_graph_mode.py --count 300 --construct chained_compare --show 2
    python tools/fuzz_graph_mode.py --program 1234 --backends numba --minimise
    python tools/fuzz_graph_mode.py --source repro.py --backends numpy,numba

Each backend runs in a worker process of its own (tools/fuzz/workers.py) with a per-program
timeout and private, temporary compile caches; `--in-process` runs in this process instead
(a SIGALRM timeout, which cannot stop compiled code). Run it against another worktree with
PYTHONPATH set to that worktree: the program imports `autograph` and `runtime` from the path,
the fuzzer from its own directory. Measured on this machine (2 cores shared with other
work): to_graph and numpy ~100 programs/s in process when it is quiet, ~25/s with workers
under load; numba 2.6 programs/s quiet, ~1/s under load (every program that traces
compiles, 0.3-5 s). The table of a run says its own figure ("programs/second").
"""

import argparse
import collections
import contextlib
import json
import os
import signal
import sys
import tempfile
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# autograph and runtime come from PYTHONPATH first (the worktree under test); the fuzzer from
# this checkout when that worktree's `tools` package has no `fuzz` (runs again in workers).
sys.path.append(_ROOT)
import tools  # noqa: E402

if os.path.join(_ROOT, "tools") not in [os.path.abspath(p) for p in tools.__path__]:
    tools.__path__.append(os.path.join(_ROOT, "tools"))

from tools.fuzz import generator  # noqa: E402
from tools.fuzz.compare import CLASSES, FAILING, TARGETS, Verdict, normalise  # noqa: E402


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException, so the harness's `except Exception` lets it by."""


@contextlib.contextmanager
def _alarm(seconds):
    """A timeout for Python code in the main thread (compiled code runs on until it returns)."""
    def expire(signum, frame):
        raise _Timeout()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class InProcess:
    """The workers' interface in this process: compile caches in a temporary directory (set
    before autograph is imported), a timeout by SIGALRM (it cannot stop compiled code);
    `checker` as tools/fuzz/workers.py's."""

    def __init__(self, timeout, checker="tools.fuzz.compare:check_source"):
        self.timeout = timeout
        self.checker = checker
        self.root = tempfile.mkdtemp(prefix="ag-fuzz-")
        os.environ["AUTOGRAPH_CACHE_DIR"] = os.path.join(self.root, "autograph")
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(self.root, "numba")
        self.number = 0

    def check(self, source, target, timeout=None):
        from tools.fuzz import compare
        from tools.fuzz.workers import load_checker
        self.number += 1
        start = time.perf_counter()
        with _alarm(timeout or self.timeout):
            try:
                verdict = load_checker(self.checker)(source, target, self.root, "fuzz_program_%d" % self.number)
            except _Timeout:
                kind = "plain Python did not finish" if compare.running == "python" else "no result"
                verdict = Verdict("timeout", "%s in %g s" % (kind, timeout or self.timeout))
        return verdict, time.perf_counter() - start

    def close(self):
        import shutil
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def parse_weights(text):
    weights = {}
    for item in filter(None, (text or "").split(",")):
        name, _, value = item.partition("=")
        weights[name.strip()] = float(value)
    return weights


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=300, help="programs per backend (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--backends", default="to_graph,numpy",
                        help="comma-separated, of %s (default to_graph,numpy)" % ",".join(TARGETS))
    parser.add_argument("--construct", action="append", default=[],
                        help="target a construct: 6x its weight, and every program uses it "
                             "(repeatable; names: %s)" % ", ".join(generator.CONSTRUCTS))
    parser.add_argument("--weights", help="construct weights, e.g. while=2,print=0")
    parser.add_argument("--show", type=int, default=0, metavar="N",
                        help="print the first N failing programs of each class and backend")
    parser.add_argument("--minimise", action="store_true",
                        help="shrink the programs --show prints (or --program/--source) to small "
                             "ones that fail the same way")
    parser.add_argument("--max-checks", type=int, default=300, help="minimiser budget per program")
    parser.add_argument("--program", type=int, help="run the program of this one seed and print it")
    parser.add_argument("--source", help="run the program in this file (a module defining f and ARGS)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per program (default 60)")
    parser.add_argument("--in-process", action="store_true",
                        help="no worker processes (the timeout cannot stop compiled code)")
    parser.add_argument("--groups", type=int, default=12,
                        help="distinct failures listed per backend (default 12)")
    parser.add_argument("--json", help="write every verdict to this file")
    parser.add_argument("--xfail-list", action="store_true",
                        help="print the failing seeds as the entries of tests/test_fuzz.py's XFAIL")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def make_runner(args):
    if args.in_process:
        return InProcess(args.timeout)
    from tools.fuzz.workers import Pool
    return Pool(args.timeout)


MINIMISE_TIMEOUT = 15.0  # seconds per candidate: a Numba compile takes up to ~6 s


def fails_like(runner, target, verdict):
    """Whether a candidate fails like `verdict`; a hang is shrunk with a shorter timeout (in
    process, a candidate where plain Python hangs is told apart and never kept)."""
    if verdict.cls == "timeout":
        def hangs(text):
            candidate = runner.check(text, target, 5.0)[0]
            return candidate.cls == "timeout" and not candidate.kind.startswith("plain Python")
        return hangs
    key = verdict.key()
    return lambda text: runner.check(text, target, MINIMISE_TIMEOUT)[0].key() == key


def shrink(runner, target, source, verdict, args):
    from tools.fuzz.minimise import minimise
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    return minimise(source, fails_like(runner, target, verdict), args.max_checks, log)


def single(runner, args, backends, source, title, failing=FAILING, shrink_with=None):
    """Runs one program on each backend (`failing`, `shrink_with`: the classes to minimise
    and how; tools/fuzz_grad.py passes its own)."""
    shrink_with = shrink_with or shrink
    print("# %s\n%s" % (title, source))
    for target in backends:
        verdict, seconds = runner.check(source, target)
        print("%-8s %s  (%.2f s)" % (target, verdict.describe(), seconds))
        if args.minimise and verdict.cls in failing:
            small = shrink_with(runner, target, source, verdict, args)
            print("minimised on %s (%s):\n%s" % (target, runner.check(small, target)[0].describe(), small))


def run(args):
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    for b in backends:
        if b not in TARGETS:
            sys.exit("unknown backend %r (use %s)" % (b, ", ".join(TARGETS)))
    weights = parse_weights(args.weights)
    focus = tuple(name for item in args.construct for name in item.split(","))
    for name in list(weights) + list(focus):
        if name not in generator.CONSTRUCTS:
            sys.exit("unknown construct %r (use %s)" % (name, ", ".join(generator.CONSTRUCTS)))
    with make_runner(args) as runner:
        if args.source:
            with open(args.source) as f:
                return single(runner, args, backends, f.read(), args.source)
        if args.program is not None:
            program = generator.generate(args.program, weights, focus)
            return single(runner, args, backends, program.source, "seed %d" % args.program)
        programs = [generator.generate(seed, weights, focus) for seed in range(args.seed, args.seed + args.count)]
        results = {target: [] for target in backends}  # target -> [(program, verdict, seconds)]
        elapsed = {}
        for target in backends:
            start = time.perf_counter()
            for number, program in enumerate(programs, 1):
                verdict, seconds = runner.check(program.source, target)
                results[target].append((program, verdict, seconds))
                if not args.quiet and number % 100 == 0:
                    counts = collections.Counter(v.cls for _, v, _ in results[target])
                    print("  %s: %d/%d %s (%.0f s)" % (target, number, len(programs), dict(counts),
                                                      time.perf_counter() - start), file=sys.stderr)
            elapsed[target] = time.perf_counter() - start
        if args.xfail_list:
            return xfail_list(backends, results)
        report(args, backends, results, elapsed, weights, focus)
        if args.json:
            write_json(args.json, results)
        if args.show:
            show(runner, args, backends, results)


def report(args, backends, results, elapsed, weights, focus):
    import importlib.util
    tested = os.path.dirname(os.path.dirname(importlib.util.find_spec("autograph").origin))
    print("fuzz_graph_mode: autograph from %s, seeds %d..%d, %d programs per backend%s%s" % (
        tested, args.seed, args.seed + args.count - 1, args.count,
        ", weights %s" % weights if weights else "", ", focus %s" % ",".join(focus) if focus else ""))
    width = max(len(c) for c in CLASSES + ("programs/second",)) + 2
    classes = list(CLASSES) + sorted({v.cls for r in results.values() for _, v, _ in r} - set(CLASSES))
    print("class".ljust(width) + "".join(b.rjust(12) for b in backends))
    from tools.fuzz.compare import acceptable
    for cls in classes:
        counts = [sum(1 for _, v, _ in results[b] if v.cls == cls) for b in backends]
        print(cls.ljust(width) + "".join(("%d" % c).rjust(12) for c in counts))
        if cls == "refusal":
            undocumented = [sum(1 for _, v, _ in results[b] if v.cls == cls and not acceptable(v))
                            for b in backends]
            print("  not documented".ljust(width)
                  + "".join(("%d" % c).rjust(12) for c in undocumented))
    print("programs/second".ljust(width) + "".join(
        ("%.2f" % (len(results[b]) / elapsed[b] if elapsed[b] else 0)).rjust(12) for b in backends))
    print("seconds".ljust(width) + "".join(("%.0f" % elapsed[b]).rjust(12) for b in backends))
    for target in backends:
        groups = collections.OrderedDict()
        for program, verdict, _ in results[target]:
            if verdict.cls == "match":
                continue
            key = (verdict.cls, verdict.kind, normalise(verdict.message) if verdict.cls != "mismatch" else "")
            groups.setdefault(key, []).append((program.seed, verdict))
        if not groups:
            continue
        print("\n%s: distinct failures (class: kind: message), most frequent first" % target)
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        for (cls, kind, _), members in ranked[:args.groups]:
            example = members[0][1]
            seeds = " ".join(str(seed) for seed, _ in members[:6])
            message = (example.message[:150] + "...") if len(example.message) > 150 else example.message
            print("%5d  %s: %s\n       %s\n       seeds %s" % (len(members), cls, kind, message, seeds))
        if len(ranked) > args.groups:
            print("  ... %d more groups (--groups)" % (len(ranked) - args.groups))


def xfail_list(backends, results):
    from tools.fuzz.compare import acceptable
    for target in backends:
        print("    %r: {" % target)
        for program, verdict, _ in results[target]:
            if not acceptable(verdict):
                print("        %d: %r," % (program.seed, verdict.reason()))
        print("    },")


def write_json(path, results):
    rows = [dict(seed=program.seed, backend=target, constructs=sorted(program.constructs),
                 seconds=round(seconds, 3), **verdict._asdict())
            for target, items in results.items() for program, verdict, seconds in items]
    with open(path, "w") as f:
        json.dump(rows, f, indent=0)


def show(runner, args, backends, results, failing=FAILING, shrink_with=None):
    shrink_with = shrink_with or shrink
    for target in backends:
        for cls in failing:
            found = [(p, v) for p, v, _ in results[target] if v.cls == cls][:args.show]
            for program, verdict in found:
                print("\n--- %s, seed %d: %s\n%s" % (target, program.seed, verdict.describe(), program.source))
                if args.minimise:
                    small = shrink_with(runner, target, program.source, verdict, args)
                    print("--- minimised (%s):\n%s" % (runner.check(small, target)[0].describe(), small))


def main(argv=None):
    args = build_parser().parse_args(argv)
    # A terminated run still stops its workers and removes its temporary caches.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    run(args)


if __name__ == "__main__":
    main()
