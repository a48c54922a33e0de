"""Time the joint search alone, to compare two versions of mtbn on the same problem.

Run:  PYTHONPATH=<a checkout of mtbn> python benchmarks/bench_joint_search.py [PROBLEM] [ROWS] [default]
(default hepar2 250), once per checkout (e.g. ``git worktree add /tmp/old <commit>``), one after the other.
PROBLEM ``alarm-pool`` is the 16 ALARM tasks of Figure 2.10 (the original network and the 15 ALARM-COMP
tasks that change every non-empty subset of its components, seed 0): the largest learn of that figure;
``alarm-pool:N`` keeps its first N tasks.
With ``default`` as the third argument it times the whole default learner instead
(``learn_structures(tasks, n_restarts=20, random_state=0)``, as the robustness suite runs it: CV over
the penalty grid, guard, search on all rows) and prints the chosen penalty and edge counts.

Trial 0 of the bench problem (5 tasks), the single-task optima (no restarts) as the start, the Paired prior
at penalty 0.99, tabu 10, 2 restarts; score caches warmed with the start's families, so the time is the
search's. Prints the best of 2 runs, the joint score and the number of moves (which must agree between
versions that claim the same search).
"""

import sys
import time

import numpy as np

from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.joint import multitask_hill_climb
from mtbn.learn import learn_structures
from mtbn.priors import make_prior
from mtbn.score import BDeuScore


def _train(problem, rows):
    """The training tasks of trial 0 of a bench problem, or Figure 2.10's pool (its own data, seed 0)."""
    if not problem.startswith("alarm-pool"):
        return trial_data(problem, 0, n_train=int(rows), n_test=1)[1]
    import os

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "experiments"))
    from relatedness_spearman import pool_data

    keep = int(problem.split(":")[1]) if ":" in problem else None
    data, _, _, names = pool_data(0, int(rows))
    return {n: data[n] for n in names[:keep]}


def _edges_digest(graphs):
    """A short digest of every task's edge set (equal digests: equal structures)."""
    import hashlib

    text = repr([sorted(map(str, g.edges())) for g in graphs])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def main(problem="hepar2", rows=250):
    train = _train(problem, rows)
    ts = make_taskset(train)
    stl = learn_structures(ts, prior="none", n_restarts=0, random_state=0)
    starts = [[set(p) for p in g.parents] for g in stl.graphs]
    times = []
    for _ in range(2):
        scorers = [BDeuScore(d) for d in ts.tasks]
        for s, g in zip(scorers, stl.graphs):
            s.score([tuple(p) for p in g.parents])
        t0 = time.perf_counter()
        res = multitask_hill_climb(scorers, starts, make_prior("paired", 0.99, len(ts.tasks)),
                                   local_index=ts.local_index, tabu_length=10, max_tabu_iter=10, n_restarts=2,
                                   rng=np.random.default_rng(0))
        times.append(time.perf_counter() - t0)
    print(f"{problem} x {rows} rows: joint search {min(times):.2f} s, score {res.log_score:.6f}, "
          f"{len(res.steps)} moves, edges {_edges_digest(res.graphs)}")


def default_learner(problem="hepar2", rows=250):
    import warnings

    train = _train(problem, rows)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = learn_structures(train, n_restarts=20, random_state=0)
    print(f"{problem} x {rows} rows: default learner {time.perf_counter() - t0:.1f} s, penalty {res.penalty:.15g}, "
          f"edges {[len(list(g.edges())) for g in res.graphs]} ({_edges_digest(res.graphs)}), "
          f"transfer {res.transfer['status']}")


if __name__ == "__main__":
    if sys.argv[3:4] == ["default"]:
        default_learner(*sys.argv[1:3])
    else:
        main(*sys.argv[1:])
