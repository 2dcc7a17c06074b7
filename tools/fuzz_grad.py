"""Long run of the differential fuzzer of gradients: generated differentiable programs
(tools/fuzz/grad_programs.py) are differentiated by `ag.value_and_grad` on each backend and
checked against plain Python's value and central differences (tools/fuzz/grad_check.py),
counted per class and backend.

    python tools/fuzz_grad.py --count 300 --seed 0 --backends numpy,numba
    python tools/fuzz_grad.py --count 200 --construct while --show 2 --minimise
    python tools/fuzz_grad.py --program 1234 --backends numpy --minimise
    python tools/fuzz_grad.py --source repro.py --backends numpy,numba

The machinery is the graph-mode fuzzer's (tools/fuzz_graph_mode.py): a worker process per
backend with a per-program timeout and private compile caches (tools/fuzz/workers.py, here
running grad_check's checker), `--in-process` without them, the minimiser of
tools/fuzz/minimise.py. Run it against another worktree with PYTHONPATH set to that
worktree. Measured on this machine (2 shared cores): numpy 8-17 programs/s in process,
numba ~0.15 programs/s (each program compiles its gradient: 0.5-20 s, ~7 s on average).
"""

import argparse
import collections
import os
import signal
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(_ROOT)
import tools  # noqa: E402

if os.path.join(_ROOT, "tools") not in [os.path.abspath(p) for p in tools.__path__]:
    tools.__path__.append(os.path.join(_ROOT, "tools"))

from tools import fuzz_graph_mode  # noqa: E402
from tools.fuzz import grad_programs  # noqa: E402
from tools.fuzz.compare import normalise  # noqa: E402
from tools.fuzz.grad_check import CLASSES, FAILING, key  # noqa: E402

CHECKER = "tools.fuzz.grad_check:check_source"
TARGETS = ("numpy", "numba", "auto")


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=300, help="programs per backend (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--backends", default="numpy", help="comma-separated, of %s (default numpy)" % ",".join(TARGETS))
    parser.add_argument("--construct", action="append", default=[],
                        help="target a construct: 6x its weight, and every program uses it "
                             "(repeatable; names: %s)" % ", ".join(grad_programs.CONSTRUCTS))
    parser.add_argument("--weights", help="construct weights, e.g. while=2,piecewise=0")
    parser.add_argument("--show", type=int, default=0, metavar="K",
                        help="print the first K failing programs of each class and backend")
    parser.add_argument("--minimise", action="store_true",
                        help="shrink the programs --show prints (or --program/--source)")
    parser.add_argument("--max-checks", type=int, default=300, help="minimiser budget per program")
    parser.add_argument("--program", type=int, help="run the program of this one seed and print it")
    parser.add_argument("--source", help="run the program in this file (a module defining f and ARGS)")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds per program (default 90)")
    parser.add_argument("--in-process", action="store_true",
                        help="no worker processes (the timeout cannot stop compiled code)")
    parser.add_argument("--groups", type=int, default=12, help="distinct findings listed per backend")
    parser.add_argument("--json", help="write every verdict to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def make_runner(args):
    if args.in_process:
        return fuzz_graph_mode.InProcess(args.timeout, CHECKER)
    from tools.fuzz.workers import Pool
    return Pool(args.timeout, CHECKER)


def shrink(runner, target, source, verdict, args):
    """A small program that fails like `verdict` (grad_check.key)."""
    from tools.fuzz.minimise import minimise
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    wanted = key(verdict)
    if verdict.cls == "timeout":
        def fails(text):
            return runner.check(text, target, 10.0)[0].cls == "timeout"
    else:
        def fails(text):
            return key(runner.check(text, target, fuzz_graph_mode.MINIMISE_TIMEOUT)[0]) == wanted
    return minimise(source, fails, args.max_checks, log)


def run(args):
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    for b in backends:
        if b not in TARGETS:
            sys.exit("unknown backend %r (use %s)" % (b, ", ".join(TARGETS)))
    weights = fuzz_graph_mode.parse_weights(args.weights)
    focus = tuple(name for item in args.construct for name in item.split(","))
    for name in list(weights) + list(focus):
        if name not in grad_programs.CONSTRUCTS:
            sys.exit("unknown construct %r (use %s)" % (name, ", ".join(grad_programs.CONSTRUCTS)))
    with make_runner(args) as runner:
        if args.source:
            with open(args.source) as f:
                return fuzz_graph_mode.single(runner, args, backends, f.read(), args.source,
                                              FAILING, shrink)
        if args.program is not None:
            program = grad_programs.generate(args.program, weights, focus)
            return fuzz_graph_mode.single(runner, args, backends, program.source,
                                          "seed %d" % args.program, FAILING, shrink)
        programs = [grad_programs.generate(seed, weights, focus) for seed in range(args.seed, args.seed + args.count)]
        results = {target: [] for target in backends}
        elapsed = {}
        for target in backends:
            start = time.perf_counter()
            for number, program in enumerate(programs, 1):
                verdict, seconds = runner.check(program.source, target)
                results[target].append((program, verdict, seconds))
                if not args.quiet and number % 50 == 0:
                    counts = collections.Counter(v.cls for _, v, _ in results[target])
                    print("  %s: %d/%d %s (%.0f s)" % (target, number, len(programs), dict(counts),
                                                      time.perf_counter() - start), file=sys.stderr)
            elapsed[target] = time.perf_counter() - start
        report(args, backends, results, elapsed, weights, focus)
        if args.json:
            fuzz_graph_mode.write_json(args.json, results)
        if args.show:
            fuzz_graph_mode.show(runner, args, backends, results, FAILING + ("timeout",),
                                 shrink)


def report(args, backends, results, elapsed, weights, focus):
    import importlib.util
    tested = os.path.dirname(os.path.dirname(importlib.util.find_spec("autograph").origin))
    print("fuzz_grad: autograph from %s, seeds %d..%d, %d programs per backend%s%s" % (
        tested, args.seed, args.seed + args.count - 1, args.count,
        ", weights %s" % weights if weights else "", ", focus %s" % ",".join(focus) if focus else ""))
    width = 30
    print("class".ljust(width) + "".join(b.rjust(12) for b in backends))

    def row(title, test):
        print(title.ljust(width) + "".join(("%d" % sum(1 for _, v, _ in results[b] if test(v))).rjust(12)
                                           for b in backends))

    for cls in CLASSES + tuple(sorted({v.cls for r in results.values() for _, v, _ in r} - set(CLASSES))):
        row(cls, lambda v, cls=cls: v.cls == cls)
        if cls == "ok":
            row("  some elements not smooth", lambda v: v.cls == "ok" and v.kind == "non-smooth")
            row("  no element compared", lambda v: v.cls == "ok" and v.kind == "nothing compared")
    print("programs/second".ljust(width) + "".join(
        ("%.2f" % (len(results[b]) / elapsed[b] if elapsed[b] else 0)).rjust(12) for b in backends))
    print("seconds".ljust(width) + "".join(("%.0f" % elapsed[b]).rjust(12) for b in backends))
    for target in backends:
        groups = collections.OrderedDict()
        for program, verdict, _ in results[target]:
            if verdict.cls == "ok":
                continue
            group = (verdict.cls, verdict.kind,
                     normalise(verdict.message) if verdict.cls in ("crash", "refusal", "invalid program") else "")
            groups.setdefault(group, []).append((program.seed, verdict))
        if not groups:
            continue
        print("\n%s: distinct findings (class: kind: message), most frequent first" % target)
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        for (cls, kind, _), members in ranked[:args.groups]:
            example = members[0][1]
            seeds = " ".join(str(seed) for seed, _ in members[:8])
            message = (example.message[:160] + "...") if len(example.message) > 160 else example.message
            print("%5d  %s: %s\n       %s\n       seeds %s" % (len(members), cls, kind, message, seeds))
        if len(ranked) > args.groups:
            print("  ... %d more groups (--groups)" % (len(ranked) - args.groups))


def main(argv=None):
    args = build_parser().parse_args(argv)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    run(args)


if __name__ == "__main__":
    main()
