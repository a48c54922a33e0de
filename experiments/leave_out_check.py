"""The per-task transfer decision on mixed tasks, where it was tuned and where it was not (issue 47, item 4).

Run: ``python experiments/leave_out_check.py [--trials 10] [--lookalike]`` (about 10 minutes; 20 with
``--lookalike``).

``transfer_per_task`` learns a task alone when its own relatedness test fails and its agreement with the others
falls ``LEAVE_OUT_SDS`` (3) null SDs below the related tasks' (:func:`mtbn.learn.guard.tasks_to_leave_out`).
The constant was set on ALARM-, SACHS- and HEPAR2-MIXED at 50-250 rows. Here the same check runs on those and on
INSURANCE-, WIN95PTS- and ANDES-MIXED (not used to set it), at 50, 250 and 1000 rows: 5 tasks, the last 2
relabelled (unrelated), the data of ``mtbn bench`` trials (seed 0). Per cell: how often a related task was left
out (wrong) and how often an unrelated one was kept (wrong), with the test as the guard runs it (relabelling
within state count and level, ranks centred: issue 47) and as it ran before (``--plain``: within state count,
plain ranks). Each task's own test runs on the raw log Bayes factors and on their excess over independence
(:func:`mtbn.learn.guard.leave_out_by`); the counts are given for each reading alone and for both (a task left out
when either says so: the guard's rule). ``--lookalike``: the ``*-lookalike`` cells instead (the last 2 tasks random
structures that keep the network's marginals), on ALARM, SACHS, HEPAR2 and pgmpy's BARLEY, WATER and CHILD
(``lookalike:FILE``). Writes ``experiments/out/leave_out_check.md`` (``leave_out_check_plain.md``,
``leave_out_check_lookalike.md``).
"""

import argparse
import os

import numpy as np
from _common import progress, write_out

import mtbn.learn.guard as guard
from mtbn.benchmarks import mixed_unrelated
from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn.guard import LEAVE_OUT_SDS, leave_out_by, tasks_to_leave_out
from mtbn.score import make_scorer
from mtbn.stats import relabelling_test

TUNED = ("alarm-mixed", "sachs-mixed", "hepar2-mixed")
UNTUNED = ("insurance-mixed", "win95pts-mixed", "andes-mixed")
#: ``--lookalike``: the shipped networks' look-alike problems, then pgmpy's networks (``lookalike:FILE``).
LOOKALIKE = ("alarm-lookalike", "sachs-lookalike", "hepar2-lookalike", "barley", "water", "child")
#: The readings of each task's own test: the raw factors, their excess over independence, and both (the guard's).
READINGS = ("raw", "excess", "both")


def problem_of(name):
    """A problem name, or a pgmpy example network's look-alike problem (``lookalike:FILE``)."""
    if name in ("barley", "water", "child"):
        import pgmpy

        return f"lookalike:{os.path.join(os.path.dirname(pgmpy.__file__), 'utils', 'example_models', name)}.bif.gz"
    return name


def check(problem, rows, trial):
    """Per reading (:data:`READINGS`), the tasks left out; and the number of tasks."""
    _, train, _, _ = trial_data(problem_of(problem), trial, n_train=rows, n_test=1)
    ts = make_taskset(train)
    scorers = [make_scorer(d, "bdeu", 1.0) for d in ts.tasks]
    test = guard._relatedness_check(scorers, ts.local_index, np.random.SeedSequence([0, trial, 5]))
    found = leave_out_by(test)
    out = {"raw": set(found.get("tasks", ())), "excess": set(found.get("tasks_excess", ())),
           "both": set(tasks_to_leave_out(test))}
    for key in ("raw", "excess"):  # each reading alone, with the guard's rule that two tasks must remain
        if ts.n_tasks - len(out[key]) < 2:
            out[key] = set()
    return out, ts.n_tasks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--rows", nargs="+", type=int, default=[50, 250, 1000])
    ap.add_argument("--problems", nargs="+", default=list(TUNED + UNTUNED))
    ap.add_argument("--plain", action="store_true", help="the test without centred ranks (before issue 47)")
    ap.add_argument("--lookalike", action="store_true", help="the look-alike cells (LOOKALIKE) instead")
    args = ap.parse_args()
    if args.plain:  # the guard's test before issue 47: state-count strata only, ranks not centred
        guard.relabelling_test = lambda *a, **kw: relabelling_test(*a, **dict(kw, centre=False))
        guard.level_strata = lambda matrix, labels: np.asarray(labels)
    problems = list(LOOKALIKE) if args.lookalike else args.problems
    what = ("the last 2 random structures keeping the network's marginals" if args.lookalike
            else "the last 2 relabelled")
    lines = [f"`python experiments/leave_out_check.py --trials {args.trials}{' --plain' if args.plain else ''}"
             f"{' --lookalike' if args.lookalike else ''}`: the per-task decision (LEAVE_OUT_SDS = {LEAVE_OUT_SDS}) on "
             f"5 tasks, {what}; {'the test before issue 47' if args.plain else 'the test since issue 47'}. Each cell: "
             "raw factors / their excess over independence / both (left out when either says so: the guard's rule).",
             "", "| problem | constants set here? | rows | trials | related tasks left out | unrelated tasks kept | "
             "trials all right |", "|---|---|---|---|---|---|---|"]
    for problem in problems:
        for rows in args.rows:
            wrong_out, wrong_in, right = ({r: 0 for r in READINGS} for _ in range(3))
            for trial in range(args.trials):
                out, k = check(problem, rows, trial)
                unrelated = set(range(k - mixed_unrelated(k), k))
                for r in READINGS:
                    wrong_out[r] += len(out[r] - unrelated)
                    wrong_in[r] += len(unrelated - out[r])
                    right[r] += out[r] == unrelated
            n_rel, n_unrel = args.trials * (5 - mixed_unrelated(5)), args.trials * mixed_unrelated(5)

            def cells(counts, n):
                return " / ".join(f"{counts[r]}" for r in READINGS) + f" of {n}"

            line = (f"| {problem} | {'yes' if problem in TUNED else 'no'} | {rows} | {args.trials} | "
                    f"{cells(wrong_out, n_rel)} | {cells(wrong_in, n_unrel)} | {cells(right, args.trials)} |")
            progress(line)
            lines.append(line)
    name = "leave_out_check" + ("_plain" if args.plain else "") + ("_lookalike" if args.lookalike else "")
    write_out(name + ".md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
