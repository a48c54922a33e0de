"""Cost of the default multitask learner against independent learning (issue 9).

Run: ``python benchmarks/bench_default_learn.py [--problem alarm] [--rows 1000] [--jobs 1]``

In one process, on the same 5 tasks (``mtbn bench PROBLEM`` trial 0, seed 0):
``learn_structures(tasks, prior="none")`` (what ``mtbn learn --prior none``
runs) and ``learn_structures(tasks)`` (the default: 5-fold CV over the
penalty grid, guard, parameter sharing, search on all rows), with the time spent in each stage
(from the progress messages). Prints a Markdown table of seconds and ratios.
"""

import argparse
import time
import warnings

import numpy as np

from mtbn.benchmarks import make_problem
from mtbn.data import DiscreteData
from mtbn.networks import sample
from mtbn.learn import learn_structures


def benchmark_tasks(problem, rows, trial=0):
    """The 5 tasks of ``mtbn bench PROBLEM`` trial ``trial`` (seed 0) with ``rows`` rows each (DiscreteData)."""
    rng = np.random.default_rng([0, trial])
    nets = make_problem(problem, n_tasks=5, p_del=0.05, random_state=rng)
    return [DiscreteData(sample(n, rows, random_state=rng).codes, n.names, n.states, f"task{t}")
            for t, n in enumerate(nets)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="alarm")
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    tasks = benchmark_tasks(args.problem, args.rows)
    stages = []

    def progress(message):
        stages.append((time.perf_counter(), message))

    t0 = time.perf_counter()
    learn_structures(tasks, prior="none", n_jobs=args.jobs)
    t_none = time.perf_counter() - t0
    t0 = time.perf_counter()
    stages.append((t0, "start"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = learn_structures(tasks, n_jobs=args.jobs, progress=progress)
    t_default = time.perf_counter() - t0
    stages.append((time.perf_counter(), "end"))
    print("| what | seconds | ratio to --prior none |\n|---|---|---|")
    print(f"| learn_structures(prior='none') | {t_none:.1f} | 1.00 |")
    print(f"| learn_structures() default (penalty {res.penalty:.10g}, guard: {res.transfer['status']}) "
          f"| {t_default:.1f} | {t_default / t_none:.2f} |")
    # Every message starts a stage that lasts until the next one; stages are summed by kind.
    kinds = (("starts of", "start searches: every fold's (single-task, TSK, pooled; 2 restarts) and the final "
                           "search's single-task searches (full restarts)"),
             ("single-task and identical-structure searches", None), ("single-task searches", None),
             ("penalty grid", "joint searches of the penalty selection (all rounds) with their held-out scoring, "
                              "the guard"),
             ("chosen penalty", "the guard's verdict"),
             ("parameter sharing", "parameter sharing: strengths and the pooled structures on the folds"),
             ("multitask search", "final joint search on all rows (its chains, the TSK start in one of them)"),
             ("one structure from all", "the pooled structure on all rows (when chosen)"))
    spent = {}
    last = None
    for (a, m), (b, _) in zip(stages, stages[1:]):
        kind = next((k for k, _ in kinds if m.startswith(k)), None)
        if kind is not None and dict(kinds)[kind] is None:
            kind = last  # a counted stage inside the one announced before it
        last = kind if kind is not None else last
        spent[kind] = spent.get(kind, 0.0) + b - a
    for kind, label in kinds:
        if label and kind in spent:
            print(f"| &nbsp; {label} | {spent[kind]:.1f} | {spent[kind] / t_none:.2f} |")
    other = sum(v for k, v in spent.items() if k not in dict(kinds) or not dict(kinds)[k])
    if other > 0.05:
        print(f"| &nbsp; other (the relatedness test, the folds, the CPTs) | {other:.1f} | {other / t_none:.2f} |")


if __name__ == "__main__":
    main()
