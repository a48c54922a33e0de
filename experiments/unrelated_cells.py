"""Unrelated tasks built unlike the relatedness test's null (issue 47, item 2): does the default learn them alone?

Run: ``python experiments/unrelated_cells.py [--trials 10]`` (``MTBN_JOBS`` parallel trials, default 2).

Cells (``mtbn.benchmarks``): ``*-marginals`` (independent random DAGs whose variables share their marginals),
``*-cptshare`` (independent random DAGs sharing a CPT wherever parent sets coincide), ``networks-unrelated``
(the first 20 variables of five different shipped networks, renamed alike); 5 tasks, 250 and 1000 rows, the
data of ``mtbn bench`` trials (seed 0). Per trial the default learner (``learn_structures(tasks)``) and
single-task learning (``prior="none"``) with the same seed: are the default's structures those of single-task
learning, and its CPTs too (the guard rejected transfer and nothing was shared)? Per trial a CSV file under
``experiments/out/unrelated_cells/``; ``table.md`` there.
"""

import argparse
import os
import warnings

import numpy as np
import pandas as pd
from _common import OUT, run_resumable, write_out

from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn import learn_structures

FOLDER = os.path.join(OUT, "unrelated_cells")
PROBLEMS = ("sachs-marginals", "alarm-marginals", "hepar2-marginals", "sachs-cptshare", "alarm-cptshare",
            "hepar2-cptshare", "networks-unrelated")


def run_trial(problem, rows, trial):
    warnings.simplefilter("ignore")
    _, train, _, rng = trial_data(problem, trial, n_train=rows, n_test=1)
    ts = make_taskset(train)
    seed = int(rng.integers(2**31))
    default = learn_structures(ts, random_state=seed)
    alone = learn_structures(ts, prior="none", random_state=seed)
    same_graphs = all(a.parents == b.parents for a, b in zip(default.graphs, alone.graphs))
    same_cpts = same_graphs and all(np.array_equal(x, y) for a, b in zip(default.networks, alone.networks)
                                    for x, y in zip(a.cpts, b.cpts))
    related = (default.transfer or {}).get("relatedness") or {}
    sharing = (default.transfer or {}).get("sharing") or {}
    return {"problem": problem, "rows": rows, "trial": trial, "penalty": default.penalty,
            "status": (default.transfer or {}).get("status"), "relatedness_p": related.get("p_value"),
            "excluded": len((default.transfer or {}).get("excluded", [])), "strength": sharing.get("strength"),
            "same_structures": same_graphs, "same_cpts": same_cpts}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--rows", nargs="+", type=int, default=[250, 1000])
    ap.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    args = ap.parse_args()
    run_resumable([(p, r, t) for p in args.problems for r in args.rows for t in range(args.trials)],
                  lambda c: os.path.join(FOLDER, f"{c[0]}_{c[1]}_{c[2]:03d}.csv"),
                  lambda c: pd.DataFrame([run_trial(*c)]))
    frame = pd.concat([pd.read_csv(os.path.join(FOLDER, f)) for f in sorted(os.listdir(FOLDER))
                       if f.endswith(".csv")], ignore_index=True)
    lines = ["| problem | rows | trials | relatedness p (median) | guard rejected or none | structures = single-task | "
             "CPTs = single-task |", "|---|---|---|---|---|---|---|"]
    for (problem, rows), cell in frame.groupby(["problem", "rows"], sort=False):
        lines.append(f"| {problem} | {rows} | {len(cell)} | {cell['relatedness_p'].median():.3g} | "
                     f"{int(cell['status'].isin(['rejected', 'none']).sum())}/{len(cell)} | "
                     f"{int(cell['same_structures'].sum())}/{len(cell)} | {int(cell['same_cpts'].sum())}/{len(cell)} |")
    write_out("unrelated_cells/table.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
