"""Where does the per-task transfer decision leave tasks out? (issue 31 item 3)

Run: ``python experiments/per_task_decisions.py [--trials 10] [--small | --mixed]``

The default (``transfer_per_task="auto"``) changes the learner only where
:func:`mtbn.learn.guard.tasks_to_leave_out` leaves a task out (its own
relatedness test fails and its agreement with the others falls 3 null SDs
below the related tasks'); otherwise it runs the all-tasks code path
unchanged. For every cell (the same training data and seed as ``mtbn
bench``, so the same test, permutations included, that the learner would
run) this reads the decision and each task's own p-value. Cells: the
robustness suite's (``decisions.md``), ``--small`` related tasks with 50-250
rows (``decisions-small.md``), ``--mixed`` the mixed and random cells
(``decisions-mixed.md``), all under ``experiments/out/per-task/``.
"""

import argparse
import os

import numpy as np
from _common import OUT, progress, write_out

from mtbn._validation import check_random_state
from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn import RELATEDNESS_LEVEL, _relatedness_check, agreement_gaps, tasks_to_leave_out
from mtbn.score import make_scorer

CELLS = [(p, r) for p in ("sachs", "sachs-ind", "hepar2", "hepar2-ind", "win95pts", "win95pts-ind", "andes",
                          "andes-ind", "sachs-unrelated") for r in (250, 1000)] + [("alarm", 1000),
                                                                                   ("alarm-unrelated", 1000)]
#: ``--small``: related tasks with few rows and the smaller networks, where a task's own test has the least power
#: (a related task wrongly left out loses its transfer).
SMALL_CELLS = [(p, r) for p in ("sachs", "sachs-ind", "insurance", "insurance-ind", "alarm", "alarm-ind")
               for r in (50, 100, 250)]
#: ``--mixed``: the cells of experiments/per_task_transfer.py (writes per-task/decisions-mixed.md).
MIXED_CELLS = [(p, r) for p in ("alarm-mixed", "sachs-mixed", "hepar2-mixed", "alarm-random", "sachs-random",
                                "hepar2-random") for r in (250, 1000)]


def decision(problem, rows, trial):
    """``(left out, own p-values)`` as learn_structures(transfer_per_task=True) inside ``mtbn bench`` would see them."""
    _, train, _, rng = trial_data(problem, trial, n_train=rows, n_test=5000)
    learn_seed = int(rng.integers(2**31))  # run_trial's first draw: the seed of STL and every MTL method
    base = int(check_random_state(learn_seed).integers(0, 2**31 - 1))  # learn_structures' base seed
    ts = make_taskset(train)
    scorers = [make_scorer(d, "bdeu", 1.0) for d in ts.tasks]
    test = _relatedness_check(scorers, ts.local_index, np.random.SeedSequence([base, 5]))
    if test is None:
        return None, [], []
    ps = [r["p_value"] for r in test["tasks"]]
    gaps = agreement_gaps(test)
    failing = [g for g, p in zip(gaps or [np.nan] * len(ps), ps) if not p < RELATEDNESS_LEVEL]
    return tasks_to_leave_out(test), ps, failing


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--small", action="store_true",
                    help="the small related cells (SMALL_CELLS) instead; writes per-task/decisions-small.md")
    ap.add_argument("--mixed", action="store_true",
                    help="the mixed and random cells (MIXED_CELLS); writes per-task/decisions-mixed.md")
    args = ap.parse_args()
    cells, suffix = (SMALL_CELLS, "-small") if args.small else (MIXED_CELLS, "-mixed") if args.mixed else (CELLS, "")
    lines = ["| problem | rows | trials | trials with tasks left out (which) | largest own p | smallest own p "
             "| own test failed (task x trials) | SDs below the related tasks, failed ones (min-max) |",
             "|---|---|---|---|---|---|---|---|"]
    for problem, rows in cells:
        found = [decision(problem, rows, t) for t in range(args.trials)]
        split = [(t, out) for t, (out, _, _) in enumerate(found) if out]
        all_ps = [p for _, ps, _ in found for p in ps]
        gaps = [g for _, _, gs in found for g in gs]
        finite = [g for g in gaps if np.isfinite(g)]
        span = f"{min(finite):.1f}-{max(finite):.1f}" if finite else "-"
        which = "; ".join(f"trial {t}: task(s) {', '.join(map(str, out))}" for t, out in split) or "none"
        line = (f"| {problem} | {rows} | {args.trials} | {len(split)} ({which}) | "
                f"{max(all_ps):.3g} | {min(all_ps):.3g} | {len(gaps)} | {span} |")
        progress(line)
        lines.append(line)
    write_out(os.path.join("per-task", f"decisions{suffix}.md"), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
