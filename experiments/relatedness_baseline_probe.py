"""The guard's relatedness test with each log Bayes factor's independence baseline removed, three ways.

Run: ``python experiments/relatedness_baseline_probe.py [--trials 10] [--copies 1] [--cells hepar2@50 ...]``
(the whole table: about 20 minutes on 2 cores); ``--copies 0`` is the guard's test since 0.2.0.

Found by ``experiments/generalisation.py``: on pgmpy's BARLEY, unrelated tasks
whose variables keep the network's marginals (``marginals:FILE``, the
construction of ``alarm-marginals``) passed the guard's relatedness test on
the raw factors in every trial, and on WATER at 250 rows in half of them,
against a level of 0.01. A pair's BDeu log Bayes factor is not 0 when the
two variables are independent: on sparse tables (BARLEY has variables of up
to 67 states) its value depends on both marginals, and tasks that share
their marginals share that pattern, which the relabelling null (within state
count and level) does not keep.

The probe subtracts from every pair's factor its mean value on ``--copies``
copies of the task's rows with every column shuffled on its own (the same
marginals, every pair independent), or with ``--copies 0`` its exact mean
over all such shufflings (:func:`mtbn.score.excess_log_bayes_factors`),
floored at 2 nats (what ``mtbn.learn.guard._relatedness_check`` now tests),
then runs the same test.
Per (problem, rows) cell, over the first ``--trials`` trials of ``mtbn
bench``'s data (seed 0): how often the test on the raw factors and on the
corrected ones passes (p < 0.01), and their largest p. Writes
``experiments/out/relatedness_baseline.md`` (with other ``--copies`` or
``--cells``: ``relatedness_baseline-copiesN[-some].md``).
"""

import argparse
import os

import numpy as np
import pgmpy
from _common import OUT, progress, write_out

from mtbn.data import DiscreteData, make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn.guard import RELATEDNESS_LEVEL, dependence_evidence, relatedness_of
from mtbn.score import make_scorer, pairwise_log_bayes_factors

EXAMPLES = os.path.join(os.path.dirname(pgmpy.__file__), "utils", "example_models")
PGMPY = ("barley", "water", "hailfinder", "child")
RELATED = (("sachs", "alarm", "hepar2", "alarm-ind") + PGMPY, (50, 250))
UNRELATED = (("sachs-marginals", "alarm-marginals", "hepar2-marginals", "alarm-random", "alarm-cptshare")
             + tuple(f"marginals:{n}" for n in PGMPY), (250, 1000))


def problem_path(problem):
    """A problem name, with pgmpy's example networks as files (``barley``, ``marginals:barley``)."""
    kind, _, name = problem.rpartition(":")
    if name in PGMPY:
        path = os.path.join(EXAMPLES, f"{name}.bif.gz")
        return f"{kind}:{path}" if kind else path
    return problem


def shuffled(data, rng):
    """``data`` with every column shuffled on its own: the same marginals, every pair of variables independent."""
    codes = np.asarray(data.codes)
    out = np.column_stack([codes[rng.permutation(len(codes)), j] for j in range(codes.shape[1])])
    return DiscreteData(out, data.names, data.states, data.name)


def probe(problem, rows, trial, copies=1):
    """The guard's test on each pair's log Bayes factor minus its mean value on ``copies`` shuffled copies
    (``copies=0``: minus its exact mean over all shufflings, floored at 2 nats, the guard's statistic since it
    was found here, :func:`mtbn.learn.guard.dependence_evidence`; ``copies=None``: the raw factors, the guard's
    statistic before)."""
    _, train, _, _ = trial_data(problem, trial, n_train=rows, n_test=1)
    ts = make_taskset(train)
    common = np.flatnonzero(np.all(ts.local_index >= 0, axis=0))
    rng = np.random.default_rng([0, trial, 6])
    mats, arities = [], []
    for t, d in enumerate(ts.tasks):
        idx = ts.local_index[t, common]
        arities.append(np.asarray(d.arities)[idx])
        if copies == 0:
            mats.append(dependence_evidence(d, idx))
            continue
        raw = pairwise_log_bayes_factors(make_scorer(d, "bdeu", 1.0), idx)
        base = [pairwise_log_bayes_factors(make_scorer(shuffled(d, rng), "bdeu", 1.0), idx) for _ in range(copies or 0)]
        mats.append(raw - np.mean(base, axis=0) if base else raw)
    return relatedness_of(mats, np.array(arities), np.random.SeedSequence([0, trial, 5]))["p_value"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--copies", type=int, default=1,
                    help="shuffled copies averaged into each baseline (0: the exact mean)")
    ap.add_argument("--cells", nargs="+", metavar="PROBLEM@ROWS", help="only these cells (e.g. hepar2@50)")
    args = ap.parse_args()
    wanted = None if not args.cells else {tuple(c.rsplit("@", 1)) for c in args.cells}
    lines = ["| problem | related? | rows | trials | raw factors (the test before): passed, largest p | baseline "
             "removed: passed, largest p |", "|---|---|---|---|---|---|"]
    for (problems, rows_list), related in ((RELATED, "yes"), (UNRELATED, "no")):
        for problem in problems:
            for rows in rows_list:
                if wanted is not None and (problem, str(rows)) not in wanted:
                    continue
                path = problem_path(problem)
                now = np.array([probe(path, rows, t, None) for t in range(args.trials)])
                new = np.array([probe(path, rows, t, args.copies) for t in range(args.trials)])
                line = (f"| {problem} | {related} | {rows} | {args.trials} | {int(np.sum(now < RELATEDNESS_LEVEL))}, "
                        f"{now.max():.3g} | {int(np.sum(new < RELATEDNESS_LEVEL))}, {new.max():.3g} |")
                progress(line)
                lines.append(line)
    lines += ["", f"passed: trials with p < {RELATEDNESS_LEVEL} (the guard lets transfer through if cross-validation "
                  "also accepts it); related problems should pass every trial, unrelated ones about 1 in 100."]
    suffix = "" if args.copies == 1 and wanted is None else f"-copies{args.copies}" + ("-some" if wanted else "")
    write_out(f"relatedness_baseline{suffix}.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
