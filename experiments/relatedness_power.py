"""The guard's relatedness test on the benchmark problems: power on related tasks, level on unrelated ones.

Run: ``python experiments/relatedness_power.py [--trials 10]``  (about 5 minutes)

For every (problem, rows) cell, the training data of the first trials of
``mtbn bench`` (seed 0: exactly the data the robustness suite learns from)
goes through the negative-transfer guard's relatedness check
(``mtbn.learn._relatedness_check``: mean pairwise correlation of the tasks'
ranked pairwise BDeu log Bayes factors with each variable's level taken out,
999 relabellings among variables with the same number of states and a
similar level, level 0.01).
On related problems the check must pass (p < 0.01) in every trial, or the
guard would throw away transfer that helps; on unrelated problems it should
pass in about 1% of trials. Writes ``experiments/out/relatedness_power.md``.
"""

import argparse
import os

import numpy as np
from _common import OUT, progress

from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn import _relatedness_check
from mtbn.score import make_scorer

RELATED = ("sachs", "sachs-ind", "insurance", "insurance-ind", "alarm", "alarm-ind", "alarm-comp",
           "hepar2", "hepar2-ind", "win95pts", "win95pts-ind", "andes", "andes-ind")
UNRELATED = ("sachs-unrelated", "alarm-unrelated", "sachs-random", "alarm-random", "hepar2-random", "alarm-marginals",
             "sachs-marginals", "hepar2-marginals", "alarm-cptshare", "sachs-cptshare", "hepar2-cptshare",
             "networks-unrelated")
ROWS = (50, 250, 1000)


def check(problem, rows, trial):
    _, train, _, _ = trial_data(problem, trial, n_train=rows, n_test=1)
    ts = make_taskset(train)
    scorers = [make_scorer(d, "bdeu", 1.0) for d in ts.tasks]
    return _relatedness_check(scorers, ts.local_index, np.random.SeedSequence([0, trial, 5]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--problems", nargs="+", default=list(RELATED + UNRELATED))
    ap.add_argument("--rows", nargs="+", type=int, default=list(ROWS))
    args = ap.parse_args()
    lines = [
        "# The guard's relatedness test on the benchmark problems",
        "",
        f"`python experiments/relatedness_power.py --trials {args.trials}`. Per cell: the trials' mean and",
        "range of the statistic (mean pairwise correlation of the tasks' ranked pairwise log Bayes",
        "factors, each variable's level taken out; about 0 under random relabelling within state count",
        "and level), the largest p-value, and in how many trials the test passed (p < 0.01: the guard",
        "lets transfer through if cross-validation also accepts it).",
        "",
        "| problem | related? | rows | trials | statistic mean (min-max) | largest p | passed |",
        "|---|---|---|---|---|---|---|",
    ]
    for problem in args.problems:
        for rows in args.rows:
            res = [check(problem, rows, t) for t in range(args.trials)]
            stat = np.array([r["statistic"] for r in res])
            p = np.array([r["p_value"] for r in res])
            passed = int(np.sum(p < res[0]["level"]))
            related = "no" if problem in UNRELATED else "yes"
            line = (f"| {problem} | {related} | {rows} | {len(res)} | {stat.mean():.3f} ({stat.min():.3f}-"
                    f"{stat.max():.3f}) | {p.max():.3g} | {passed}/{len(res)} |")
            progress(line)
            lines.append(line)
    path = os.path.join(OUT, "relatedness_power.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    progress(f"wrote {path}")


if __name__ == "__main__":
    main()
