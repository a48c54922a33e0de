"""The Paired prior's count windows on and off, side by side (issue 30, item 3).

Run:  python benchmarks/bench_count_windows.py [--cases alarm-pool:8 alarm-pool k20 k50 k100] [--repeats 2]

For each case the joint search alone (``multitask_hill_climb`` from the
single-task optima, Paired prior at penalty 0.99, tabu 10, 2 restarts, as
``bench_joint_search.py``) runs with the count windows (``mtbn.priors``
uses them from ``WINDOW_MIN_TASKS`` tasks on) and without (the threshold
set above the number of tasks), alternated ``--repeats`` times in one
process. The two must make the same moves and reach the same joint score
(checked); the table gives the best time of each and their ratio.

Cases: ``alarm-pool[:N]`` is Figure 2.10's pool of 16 ALARM tasks (its first
N), 1000 rows each; ``kN`` is ``bench_scale.py tasks``' N related ALARM
tasks x 500 rows (seed 0).
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(1, HERE)

from bench_joint_search import _train  # noqa: E402
from bench_scale import _network, _tasks  # noqa: E402

import mtbn.priors as priors  # noqa: E402
from mtbn.data import make_taskset  # noqa: E402
from mtbn.joint import multitask_hill_climb  # noqa: E402
from mtbn.learn import learn_structures  # noqa: E402
from mtbn.score import BDeuScore  # noqa: E402


def _case(name):
    if name.startswith("k"):
        return _tasks(_network("alarm"), int(name[1:]), 500, 0)
    return _train(name, 1000)


def _search(ts, starts, graphs):
    scorers = [BDeuScore(d) for d in ts.tasks]
    for s, g in zip(scorers, graphs):
        s.score([tuple(p) for p in g.parents])
    t0 = time.perf_counter()
    res = multitask_hill_climb(scorers, starts, priors.make_prior("paired", 0.99, len(ts.tasks)),
                               local_index=ts.local_index, tabu_length=10, max_tabu_iter=10, n_restarts=2,
                               rng=np.random.default_rng(0))
    return time.perf_counter() - t0, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=["alarm-pool:8", "alarm-pool", "k20", "k50", "k100"])
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    threshold = priors.paired.WINDOW_MIN_TASKS
    print("| case | tasks | moves | windows s | full DPs s | full / windows | same moves and score |")
    print("|---|---|---|---|---|---|---|")
    for name in args.cases:
        ts = make_taskset(_case(name))
        stl = learn_structures(ts, prior="none", n_restarts=0, random_state=0)
        starts = [[set(p) for p in g.parents] for g in stl.graphs]
        times = {"windows": [], "full": []}
        results = {}
        for _ in range(args.repeats):
            for label, limit in (("windows", threshold), ("full", 10**9)):
                priors.paired.WINDOW_MIN_TASKS = limit
                seconds, results[label] = _search(ts, starts, stl.graphs)
                times[label].append(seconds)
        priors.paired.WINDOW_MIN_TASKS = threshold
        a, b = results["windows"], results["full"]
        same = (a.log_score == b.log_score and [(s["pair"], tuple(s["states"])) for s in a.steps]
                == [(s["pair"], tuple(s["states"])) for s in b.steps])
        w, f = min(times["windows"]), min(times["full"])
        print(f"| {name} | {len(ts.tasks)} | {len(a.steps)} | {w:.2f} | {f:.2f} | {f / w:.2f}x | "
              f"{'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
