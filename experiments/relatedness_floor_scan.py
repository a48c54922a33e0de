"""How the relatedness test's floor on each pair's excess evidence was chosen, and how it held on other cells.

Run: ``python experiments/relatedness_floor_scan.py --cells development`` (about 40 minutes on one core)
and ``--cells held-out`` (about 15 minutes).

The guard's relatedness test correlates, across tasks, each pair's BDeu log
Bayes factor less its exact mean under independence
(:func:`mtbn.score.excess_log_bayes_factors`). Without a floor, the many
pairs with no evidence of dependence rank their noise, and related tasks at
50 rows lost power (WIN95PTS-IND, ANDES-IND). The floor ties every pair
whose excess is below it. Floors compared: none, 0, 1 and 2 nats, on the
*development* cells (the problems of ``relatedness_power.py`` and
``relatedness_baseline_probe.py``: related ones at 50 rows, where power is
lowest, and unrelated ones at 250 and 1000 rows); 2 nats was chosen there
(:data:`mtbn.learn.guard.RELATEDNESS_EVIDENCE`). The *held-out* cells were
looked at only after the choice: the ``ind:`` construction (each task's
edges deleted independently) and the ``unrelated:``, ``random:`` and
``cptshare:`` constructions on pgmpy's example networks, and PATHFINDER.
Per cell: in how many of 10 trials each floor's test passes (p < 0.01) and
its largest p. Writes ``experiments/out/relatedness_floor_scan-<cells>.md``.
"""

import argparse
import os

import numpy as np
from _common import progress, write_out
from relatedness_baseline_probe import EXAMPLES, PGMPY
from relatedness_baseline_probe import RELATED as PROBE_RELATED
from relatedness_baseline_probe import UNRELATED as PROBE_UNRELATED
from relatedness_power import RELATED, UNRELATED

from mtbn.data import make_taskset
from mtbn.evaluate import trial_data
from mtbn.learn.guard import RELATEDNESS_LEVEL, relatedness_of
from mtbn.score import excess_log_bayes_factors

FLOORS = (None, 0.0, 1.0, 2.0)
NETWORKS = PGMPY + ("pathfinder",)


def cells(which):
    """(problem, rows, related?) of the development or the held-out cells."""
    if which == "development":
        return ([(p, 50, "yes") for p in RELATED + PROBE_RELATED[0][4:]]
                + [(p, r, "no") for r in (250, 1000) for p in UNRELATED + PROBE_UNRELATED[0][5:]])
    return ([(f"ind:{n}", 50, "yes") for n in PGMPY] + [("pathfinder", 50, "yes")]
            + [(f"{k}:{n}", 250, "no") for k in ("unrelated", "random", "cptshare") for n in PGMPY])


def path(problem):
    """pgmpy's example networks by name (``barley``, ``ind:barley``), the shipped problems as they are."""
    kind, _, name = problem.rpartition(":")
    if name not in NETWORKS:
        return problem
    file = os.path.join(EXAMPLES, f"{name}.bif.gz")
    return f"{kind}:{file}" if kind else file


def p_values(problem, rows, trial):
    """The test's p-value at every floor, on one trial's training data (the data and seed ``mtbn bench`` uses)."""
    _, train, _, _ = trial_data(path(problem), trial, n_train=rows, n_test=1)
    ts = make_taskset(train)
    common = np.flatnonzero(np.all(ts.local_index >= 0, axis=0))
    idx = [ts.local_index[t, common] for t in range(ts.n_tasks)]
    excess = [excess_log_bayes_factors(d, i) for d, i in zip(ts.tasks, idx)]
    arities = np.array([np.asarray(d.arities)[i] for d, i in zip(ts.tasks, idx)])
    seed = np.random.SeedSequence([0, trial, 5])
    return [relatedness_of(excess if f is None else [np.maximum(b, f) for b in excess], arities, seed)["p_value"]
            for f in FLOORS]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", choices=("development", "held-out"), default="development")
    ap.add_argument("--trials", type=int, default=10)
    args = ap.parse_args()
    names = ["none" if f is None else f"{f:g} nats" for f in FLOORS]
    lines = ["| problem | related? | rows | " + " | ".join(f"floor {n}: passed, largest p" for n in names) + " |",
             "|---|---|---|" + "---|" * len(FLOORS)]
    for problem, rows, related in cells(args.cells):
        ps = np.array([p_values(problem, rows, t) for t in range(args.trials)])
        line = (f"| {problem} | {related} | {rows} | "
                + " | ".join(f"{int(np.sum(c < RELATEDNESS_LEVEL))}, {c.max():.3g}" for c in ps.T) + " |")
        progress(line)
        lines.append(line)
    lines += ["", f"passed: of {args.trials} trials, p < {RELATEDNESS_LEVEL}; related problems should pass every "
                  "trial, unrelated ones about 1 in 100."]
    write_out(f"relatedness_floor_scan-{args.cells}.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
