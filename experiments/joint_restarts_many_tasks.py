"""What the joint search's restarts buy as the tasks grow (issue 50, item 5).

Run: ``python experiments/joint_restarts_many_tasks.py [--tasks 5 10 20 50] [--rows 500] [--problems ...]``

The final joint search runs one chain per start (single-task, identical-structure, empty) and ``n_joint_restarts``
= 20 rounds of restarts, each perturbing every chain's best and climbing again; a round's climbs cost about as
much as the tasks they move, so with many tasks the restarts are most of the search. Rounds are sequential and
each chain draws from its own stream, so the best joint log score after ``R`` rounds is what a search with ``R``
restarts returns (``result.search.trace[R]``); one run gives every ``R``. Per problem and number of tasks (related
tasks, edge deletion 0.05, seed 0): ``learn_structures(penalty=0.99, n_restarts=2, parameter_sharing=None)``,
the start scores, the trace and the seconds. Each row is kept in ``experiments/out/joint_restarts/`` (a killed run
resumes).
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mtbn.benchmarks import make_problem  # noqa: E402
from mtbn.data import make_taskset  # noqa: E402
from mtbn.learn import learn_structures  # noqa: E402
from mtbn.networks import sample  # noqa: E402
from sharing_fold_structures import _problem  # noqa: E402

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "joint_restarts")


def run(problem, k, rows):
    rng = np.random.default_rng([k, rows, 55])
    nets = make_problem(_problem(problem), n_tasks=k, p_del=0.05, random_state=rng)
    train = make_taskset({f"t{i}": sample(n, rows, random_state=rng) for i, n in enumerate(nets)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        res = learn_structures(train, penalty=0.99, n_restarts=2, parameter_sharing=None, random_state=0)
        seconds = time.perf_counter() - t0
    s = res.search
    return {"problem": problem, "tasks": k, "rows": rows, "seconds": seconds, "start_scores": list(s.start_scores),
            "trace": list(s.trace), "n_edges": float(np.mean([g.n_edges for g in res.graphs]))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[5, 10, 20, 50])
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--problems", nargs="+", default=["alarm", "insurance", "sachs", "child", "hepar2", "win95pts"])
    args = ap.parse_args()
    os.makedirs(FOLDER, exist_ok=True)
    rows = []
    for problem in args.problems:
        for k in args.tasks:
            path = os.path.join(FOLDER, f"{problem}-{k}-{args.rows}.json")
            if not os.path.exists(path):
                with open(path + ".part", "w") as fh:
                    json.dump(run(problem, k, args.rows), fh)
                os.replace(path + ".part", path)
                print(f"{problem} {k} tasks: done", flush=True)
            with open(path) as fh:
                rows.append(json.load(fh))
    marks = (0, 1, 2, 5, 10)
    print(f"\n{args.rows} rows per task. Best joint log score after R rounds of restarts minus after all 20 "
          "(0 = nothing lost):\n")
    print("| problem | tasks | s | " + " | ".join(f"R = {r}" for r in marks) + " | rounds that improved |")
    print("|---|---|---|" + "---|" * (len(marks) + 1))
    for row in rows:
        trace = np.array(row["trace"])
        better = [r for r in range(1, len(trace)) if trace[r] > trace[r - 1]]
        print(f"| {row['problem']} | {row['tasks']} | {row['seconds']:.1f} | "
              + " | ".join(f"{trace[r] - trace[-1]:.2f}" for r in marks) + f" | {', '.join(map(str, better))} |")


if __name__ == "__main__":
    main()
