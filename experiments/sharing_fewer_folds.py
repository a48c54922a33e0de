"""With many tasks, how many folds does the sharing strength need with a given penalty (issue 50, item 5)?

Run: ``python experiments/sharing_fewer_folds.py [--tasks 20] [--rows 250 1000] [--trials 3] [--problems ...]``

With a given penalty the learner chooses the parameter-sharing strength (one number of
:data:`mtbn.networks.shared_fitting.STRENGTH_GRID`) on ``cv`` = 5 folds: each fold's joint search at the penalty
on its training rows, scored on its held-out rows. With many tasks those searches are most of the command's cost
beyond the final search, while the held-out rows that choose one number grow with the tasks. Per problem and
trial (``--tasks`` related tasks, edge deletion 0.05, 2000 test rows per task), one
``learn_structures(penalty=0.99, n_restarts=2, parameter_sharing="auto")`` run with every fold searched (a hook
on :func:`mtbn.learn.sharing.folds_for_sharing`: the learner before it), whose fold structures and held-out rows
are read as it runs (a hook on :func:`mtbn.learn.multitask.choose_sharing`); the strength
:func:`mtbn.learn.sharing.choose_sharing` picks on the first ``m`` folds only, m = 1..5 (m = 5: that learner's
choice; m = ``folds_for_sharing(5, k)``: the learner's now, 2 at 20 tasks, 1 at 25 or more); the final
structures' CPTs fitted with each strength and scored by KL from the true networks (lower is better), with
``oracle`` (the grid's lowest KL; looks at the truth, not a method).

A network path or a pgmpy example network's name is accepted as a problem (see ``sharing_fold_structures.py``).
Each trial is kept in ``experiments/out/sharing_fewer_folds/`` (a killed run resumes).
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mtbn.benchmarks import make_problem  # noqa: E402
from mtbn.data import make_taskset  # noqa: E402
from mtbn.learn.sharing import choose_sharing  # noqa: E402
from mtbn.networks import sample  # noqa: E402
from mtbn.stats import paired_comparison  # noqa: E402
from sharing_choice_fixed import kl_by_strength, learn_watched, stored_trials, watch_choice, with_rules  # noqa: E402
from sharing_fold_structures import _problem  # noqa: E402

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "sharing_fewer_folds")
FOLDS = (1, 2, 3, 4, 5)


def trial(problem, rows, t, k):
    rng = np.random.default_rng([t, 50])
    nets = make_problem(_problem(problem), n_tasks=k, p_del=0.05, random_state=rng)
    train = make_taskset({f"t{i}": sample(n, rows, random_state=rng) for i, n in enumerate(nets)})
    tests = [sample(n, 2000, random_state=rng) for n in nets]
    seen = {}
    every_fold = {"choose_sharing": watch_choice(seen), "folds_for_sharing": lambda real, cv, k: cv}
    auto, seconds = learn_watched(train, every_fold, n_restarts=2, random_state=t)
    joint, trains, held_out, ess = seen["joint"], seen["trains"], seen["held_out"], seen["ess"]
    strengths = {f"folds{m}": choose_sharing(joint[:m], trains[:m], held_out[:m], ess).strength for m in FOLDS}
    assert strengths["folds5"] == (auto.sharing_strength or 0.0)
    row = {"problem": problem, "rows": rows, "tasks": k, "trial": t, "seconds": seconds}
    return with_rules(row, strengths, kl_by_strength(auto.graphs, train, nets, tests))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--rows", type=int, nargs="+", default=[250, 1000])
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--problems", nargs="+", default=["alarm", "hepar2", "win95pts", "insurance", "sachs", "child"])
    args = ap.parse_args()
    d = stored_trials(os.path.join(FOLDER, f"k{args.tasks}"), args.rows, args.problems, args.trials,
                      lambda problem, rows, t: trial(problem, rows, t, args.tasks))
    rules = [f"folds{m}" for m in FOLDS] + ["oracle"]
    print(f"\n{args.tasks} tasks per trial.\n\n| problem | rows | trials | " + " | ".join(f"KL {r}" for r in rules)
          + " | strengths (folds 1 .. 5) |")
    print("|---|---|---|" + "---|" * (len(rules) + 1))
    for (problem, rows), g in d.groupby(["problem", "rows"], sort=False):
        chosen = "; ".join(", ".join(f"{g[f'strength_{r}'].iloc[i]:g}" for r in rules[:-1]) for i in range(len(g)))
        print(f"| {problem} | {rows} | {len(g)} | " + " | ".join(f"{g[f'kl_{r}'].mean():.4f}" for r in rules)
              + f" | {chosen} |")
    print("\nPaired over trials (first minus 5 folds, KL: negative = first better), 95% t interval:\n")
    print("| rows | folds | trials | mean difference [95% CI] | p (t) | same strength |")
    print("|---|---|---|---|---|---|")
    for rows, g in list(d.groupby("rows")) + [("all", d)]:
        for m in FOLDS[:-1]:
            c = paired_comparison(g[f"kl_folds{m}"], g["kl_folds5"])
            same = int((g[f"strength_folds{m}"] == g["strength_folds5"]).sum())
            print(f"| {rows} | {m} | {len(g)} | {c['mean_diff']:+.5f} [{c['ci_low']:+.5f}, {c['ci_high']:+.5f}] | "
                  f"{c['p_t']:.2g} | {same} of {len(g)} |")


if __name__ == "__main__":
    main()
