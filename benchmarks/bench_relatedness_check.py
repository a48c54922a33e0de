"""The default's relatedness test alone (``mtbn.learn.guard._relatedness_check``), optionally against another checkout.

On the 5 tasks of ``bench_default_learn.py`` per problem: the median wall seconds of ``--repeats`` calls, each on
fresh scorers (nothing cached), and the test's p-value. With ``--base PATH`` (e.g. a ``git worktree`` of an
earlier commit), the same runs on that checkout in a child process before this one's (also a child process),
and the two answers are compared.

Run: ``python benchmarks/bench_relatedness_check.py [--problems hepar2:250 alarm:1000] [--repeats 5] [--base PATH]``
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(problem, repeats):
    """``(seconds of each call, the test's result as JSON)`` on this interpreter's ``mtbn``."""
    sys.path.insert(0, HERE)
    from bench_default_learn import benchmark_tasks

    from mtbn.data import make_taskset
    from mtbn.learn.guard import _relatedness_check
    from mtbn.score import make_scorer

    name, rows = problem.split(":")
    ts = make_taskset(benchmark_tasks(name, int(rows)))
    times, result = [], None
    for _ in range(repeats):
        scorers = [make_scorer(d, "bdeu", 1.0) for d in ts.tasks]
        t0 = time.perf_counter()
        result = _relatedness_check(scorers, ts.local_index, 12345)
        times.append(time.perf_counter() - t0)
    return times, json.dumps(result, sort_keys=True, default=float)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=["hepar2:250", "alarm:1000"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--base", help="another checkout of mtbn, run in a child process")
    ap.add_argument("--inner", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        print(json.dumps(measure(args.inner, args.repeats)))
        return
    print("| tasks | checkout | median s | calls (s) | same answer |\n|---|---|---|---|---|")
    for problem in args.problems:
        sides = {"this": None} if not args.base else {"base": args.base, "this": None}
        found = {}
        for side, path in sides.items():
            env = dict(os.environ)
            root = path or os.path.dirname(HERE)
            env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--inner", problem, "--repeats",
                                  str(args.repeats)], env=env, check=True, capture_output=True, text=True).stdout
            found[side] = json.loads(out.strip().splitlines()[-1])
        answers = {a for _, a in found.values()}
        for side, (times, _) in found.items():
            print(f"| 5 {problem} | {side} | {statistics.median(times):.2f} | "
                  f"{', '.join(f'{x:.2f}' for x in times)} | {len(answers) == 1} |")


if __name__ == "__main__":
    main()
