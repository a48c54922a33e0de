"""Seed-to-seed variation: the same data, learned under different seeds (issue 10).

Run: ``python experiments/seed_variation.py [--problem alarm] [--rows 1000] [--trials 3] [--seeds 5]``

The data of ``mtbn bench`` trial t (5 tasks, P_del = 0.05, seed 0) is learned
by single-task learning (``learn_structures(prior="none")``, 20 restarts) and
by the default multitask learner (``learn_structures()``: 5-fold
cross-validation, the one-standard-error rule, the guard), each with
``random_state`` = 0, 1, ..., seeds - 1. Only the search's random choices
change (restarts, perturbations, fold assignment); the rows do not. Per run:
the mean edit distance and CPDAG SHD over the tasks, and the chosen penalty.

One row per (trial, seed, method) in ``experiments/out/seeds/<problem>_<rows>.csv``;
rows already there are not rerun (a killed run resumes).
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from _common import OUT, jobs, progress

from mtbn.evaluate import trial_data
from mtbn.exceptions import TransferWarning
from mtbn.graph import DAG, cpdag_distance, edit_distance
from mtbn.learn import learn_structures

COLUMNS = ["trial", "seed", "method", "edit_distance", "cpdag_shd", "penalty", "seconds"]


def run(problem, rows, trial, seed, method):
    truths, train, _, _ = trial_data(problem, trial, n_train=rows, n_test=1)
    kwargs = dict(prior="none") if method == "stl" else {}
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        res = learn_structures(train, n_restarts=20, random_state=seed, n_jobs=jobs(), **kwargs)
    seconds = time.perf_counter() - t0
    true = [DAG([set(p) for p in net.parents], net.names) for net in truths]
    ed = np.mean([edit_distance(g, t) for g, t in zip(res.graphs, true)])
    shd = np.mean([cpdag_distance(g, t) for g, t in zip(res.graphs, true)])
    return dict(trial=trial, seed=seed, method=method, edit_distance=ed, cpdag_shd=shd,
                penalty=res.penalty if method == "mtl" else np.nan, seconds=seconds)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="alarm")
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    folder = os.path.join(OUT, "seeds")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{args.problem}_{args.rows}.csv")
    done = pd.read_csv(path) if os.path.exists(path) else pd.DataFrame(columns=COLUMNS)
    have = set(zip(done["trial"], done["seed"], done["method"]))
    for trial in range(args.trials):
        for seed in range(args.seeds):
            for method in ("stl", "mtl"):
                if (trial, seed, method) in have:
                    continue
                progress(f"{args.problem} {args.rows} rows: trial {trial}, seed {seed}, {method}")
                row = run(args.problem, args.rows, trial, seed, method)
                pd.DataFrame([row], columns=COLUMNS).to_csv(path, mode="a", header=not os.path.exists(path),
                                                            index=False)
    print(pd.read_csv(path).groupby(["method", "trial"])["edit_distance"].agg(["mean", "std", "min", "max"]))


if __name__ == "__main__":
    main()
