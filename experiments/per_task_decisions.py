"""Would ``transfer_per_task`` change anything on the robustness suite's cells? (issue 31 item 3)

Run: ``python experiments/per_task_decisions.py [--trials 10]``

``transfer_per_task=True`` changes the default learner only where some
task's own relatedness test fails (p >= 0.01) while at least two tasks pass;
otherwise it runs the default's code path unchanged. For every cell of the
robustness suite (the same training data and seed as ``mtbn bench``, so the
same test, permutations included, that the learner would run) this reads
each task's own p-value and reports the trials in which the option would
leave tasks out. Writes ``experiments/out/per-task/decisions.md``.
"""

import argparse
import os

import numpy as np
from _common import OUT, progress, write_out

from mtbn._validation import check_random_state
from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn import RELATEDNESS_LEVEL, _relatedness_check
from mtbn.score import make_scorer

CELLS = [(p, r) for p in ("sachs", "sachs-ind", "hepar2", "hepar2-ind", "win95pts", "win95pts-ind", "andes",
                          "andes-ind", "sachs-unrelated") for r in (250, 1000)] + [("alarm", 1000),
                                                                                   ("alarm-unrelated", 1000)]
#: ``--small``: related tasks with few rows and the smaller networks, where a task's own test has the least power
#: (a related task wrongly left out loses its transfer).
SMALL_CELLS = [(p, r) for p in ("sachs", "sachs-ind", "insurance", "insurance-ind", "alarm", "alarm-ind")
               for r in (50, 100, 250)]


def decision(problem, rows, trial):
    """``(left out, own p-values)`` as learn_structures(transfer_per_task=True) inside ``mtbn bench`` would see them."""
    _, train, _, rng = trial_data(problem, trial, n_train=rows, n_test=5000)
    learn_seed = int(rng.integers(2**31))  # run_trial's first draw: the seed of STL and every MTL method
    base = int(check_random_state(learn_seed).integers(0, 2**31 - 1))  # learn_structures' base seed
    ts = make_taskset(train)
    scorers = [make_scorer(d, "bdeu", 1.0) for d in ts.tasks]
    test = _relatedness_check(scorers, ts.local_index, np.random.SeedSequence([base, 5]))
    if test is None:
        return None, []
    ps = [r["p_value"] for r in test["tasks"]]
    out = [t for t, p in enumerate(ps) if not p < RELATEDNESS_LEVEL]
    return (out if out and len(ps) - len(out) >= 2 else []), ps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--small", action="store_true",
                    help="the small related cells (SMALL_CELLS) instead; writes per-task/decisions-small.md")
    args = ap.parse_args()
    lines = ["| problem | rows | trials | trials with tasks left out (which) | largest own p | smallest own p |",
             "|---|---|---|---|---|---|"]
    for problem, rows in (SMALL_CELLS if args.small else CELLS):
        found = [decision(problem, rows, t) for t in range(args.trials)]
        split = [(t, out) for t, (out, _) in enumerate(found) if out]
        all_ps = [p for _, ps in found for p in ps]
        which = "; ".join(f"trial {t}: task(s) {', '.join(map(str, out))}" for t, out in split) or "none"
        line = (f"| {problem} | {rows} | {args.trials} | {len(split)} ({which}) | "
                f"{max(all_ps):.3g} | {min(all_ps):.3g} |")
        progress(line)
        lines.append(line)
    write_out(os.path.join("per-task", "decisions-small.md" if args.small else "decisions.md"), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
