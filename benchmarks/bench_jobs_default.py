"""The default learner at ``--jobs 1`` against ``--jobs 2``, same run (issue 50).

Run: ``python benchmarks/bench_jobs_default.py [--problems alarm:1000 hepar2:250] [--repeats 3] [--prior none]``

In one process, on the 5 tasks of ``benchmarks/bench_default_learn.py`` (``mtbn bench PROBLEM`` trial 0, seed 0):
``learn_structures(tasks, n_jobs=1)`` and ``learn_structures(tasks, n_jobs=2)`` one after the other,
``--repeats`` times (the first ``n_jobs=2`` run starts the worker processes; later ones find them running, as
the sections of one run do). Prints the median wall seconds, the ratio, and whether the answers are the same
(structures, penalty, log score). ``--prior none``: single-task learning instead (``learn_structures(tasks,
prior="none")``, its 50 restarts per task: the comparator every user runs, issue 50 item 4).
"""

import argparse
import os
import statistics
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_default_learn import benchmark_tasks  # noqa: E402

from mtbn.learn import learn_structures  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=["alarm:1000", "hepar2:250"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--prior", default=None, help="a prior other than the default's (e.g. none)")
    args = ap.parse_args()
    kw = {} if args.prior is None else {"prior": args.prior}
    print("| tasks | --jobs 1 s (runs) | --jobs 2 s (runs) | speed-up | same answers |\n|---|---|---|---|---|")
    for spec in args.problems:
        problem, rows = spec.split(":")
        tasks = benchmark_tasks(problem, int(rows))
        seconds, answers = {1: [], 2: []}, {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(args.repeats):
                for jobs in (1, 2):
                    t0 = time.perf_counter()
                    res = learn_structures(tasks, n_jobs=jobs, **kw)
                    seconds[jobs].append(time.perf_counter() - t0)
                    answers.setdefault(jobs, []).append(([g.parents for g in res.graphs], res.penalty, res.log_score))
        same = all(a == answers[1][0] for runs in answers.values() for a in runs)
        one, two = statistics.median(seconds[1]), statistics.median(seconds[2])
        print(f"| 5 {problem.upper()} x {rows} | {one:.2f} ({', '.join(f'{s:.2f}' for s in seconds[1])}) | "
              f"{two:.2f} ({', '.join(f'{s:.2f}' for s in seconds[2])}) | {one / two:.2f}x | {same} |", flush=True)


if __name__ == "__main__":
    main()
