"""The per-task transfer decision on mixed tasks, where it was tuned and where it was not (issue 47, item 4).

Run: ``python experiments/leave_out_check.py [--trials 10]`` (about 10 minutes).

``transfer_per_task`` learns a task alone when its own relatedness test fails and its agreement with the others
falls ``LEAVE_OUT_SDS`` (3) null SDs below the related tasks' (:func:`mtbn.learn.guard.tasks_to_leave_out`).
The constant was set on ALARM-, SACHS- and HEPAR2-MIXED at 50-250 rows. Here the same check runs on those and on
INSURANCE-, WIN95PTS- and ANDES-MIXED (not used to set it), at 50, 250 and 1000 rows: 5 tasks, the last 2
relabelled (unrelated), the data of ``mtbn bench`` trials (seed 0). Per cell: how often a related task was left
out (wrong) and how often an unrelated one was kept (wrong), with the test as the guard runs it (relabelling
within state count and level, ranks centred: issue 47) and as it ran before (``--plain``: within state count,
plain ranks). Writes ``experiments/out/leave_out_check.md`` (``leave_out_check_plain.md``).
"""

import argparse

import numpy as np
from _common import progress, write_out

import mtbn.learn.guard as guard
from mtbn.benchmarks import mixed_unrelated
from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn.guard import LEAVE_OUT_SDS, tasks_to_leave_out
from mtbn.score import make_scorer
from mtbn.stats import relabelling_test

TUNED = ("alarm-mixed", "sachs-mixed", "hepar2-mixed")
UNTUNED = ("insurance-mixed", "win95pts-mixed", "andes-mixed")


def check(problem, rows, trial):
    _, train, _, _ = trial_data(problem, trial, n_train=rows, n_test=1)
    ts = make_taskset(train)
    scorers = [make_scorer(d, "bdeu", 1.0) for d in ts.tasks]
    test = guard._relatedness_check(scorers, ts.local_index, np.random.SeedSequence([0, trial, 5]))
    return set(tasks_to_leave_out(test)), ts.n_tasks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--rows", nargs="+", type=int, default=[50, 250, 1000])
    ap.add_argument("--problems", nargs="+", default=list(TUNED + UNTUNED))
    ap.add_argument("--plain", action="store_true", help="the test without centred ranks (before issue 47)")
    args = ap.parse_args()
    if args.plain:  # the guard's test before issue 47: state-count strata only, ranks not centred
        guard.relabelling_test = lambda *a, **kw: relabelling_test(*a, **dict(kw, centre=False))
        guard.level_strata = lambda matrix, labels: np.asarray(labels)
    lines = [f"`python experiments/leave_out_check.py --trials {args.trials}{' --plain' if args.plain else ''}`: "
             f"the per-task decision (LEAVE_OUT_SDS = {LEAVE_OUT_SDS}) on 5 tasks of which the last 2 are relabelled; "
             f"{'the test before issue 47' if args.plain else 'the test since issue 47'}.", "",
             "| problem | constants set here? | rows | trials | related tasks left out | unrelated tasks kept | "
             "trials all right |", "|---|---|---|---|---|---|---|"]
    for problem in args.problems:
        for rows in args.rows:
            wrong_out = wrong_in = right = 0
            for trial in range(args.trials):
                out, k = check(problem, rows, trial)
                unrelated = set(range(k - mixed_unrelated(k), k))
                wrong_out += len(out - unrelated)
                wrong_in += len(unrelated - out)
                right += out == unrelated
            n_rel, n_unrel = args.trials * (5 - mixed_unrelated(5)), args.trials * mixed_unrelated(5)
            line = (f"| {problem} | {'yes' if problem in TUNED else 'no'} | {rows} | {args.trials} | "
                    f"{wrong_out}/{n_rel} | {wrong_in}/{n_unrel} | {right}/{args.trials} |")
            progress(line)
            lines.append(line)
    write_out("leave_out_check_plain.md" if args.plain else "leave_out_check.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
