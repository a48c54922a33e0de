"""Strength of the joint search (issue 8): delta = 1 vs TSK, start independence, restarts.

Run: ``python experiments/joint_search.py [--problems alarm insurance] [--trials 10]``

Per trial (the data of ``mtbn bench PROBLEM`` trial t with seed 0: 5 tasks,
1000 training rows per task, P_del = 0.05), with 20 restarts for every
single-task and TSK search as in the stored benchmarks:

* ``tsk``: the score (sum of the tasks' BDeu) of learn_identical_structures;
* ``delta1``: the joint score of learn_structures at penalty 1 (default start);
* ``chosen``: the penalty chosen on 50 validation rows per task (the
  benchmark's rule) and the edit distances of STL and of MTL at it;
* at the chosen penalty, on all 1000 rows: the joint score from each single
  start (empty, single-task, identical; 20 joint restarts each) and from the
  default start ("auto": the three starts, each with its own chain of 20
  restarts), with the restart traces.

Results: ``experiments/out/joint_search/<problem>/trial_NNNN.json`` (a
killed run resumes) and the table ``experiments/out/joint_search/table.md``.
"""

import argparse
import json
import os
import time

import numpy as np
from _common import OUT, progress

from mtbn.benchmarks import make_problem
from mtbn.data import DiscreteData
from mtbn.graph import DAG, edit_distance
from mtbn.learn import learn_identical_structures, learn_structure, learn_structures
from mtbn.networks import sample
from mtbn.score import BDeuScore

RESTARTS = 20
STARTS = ("auto", "empty", "single-task", "identical")


def trial_data(problem, trial, seed=0, k=5, rows=1000):
    """The training data and true graphs of ``run_trial(problem, trial, seed=seed)``."""
    rng = np.random.default_rng([int(seed), int(trial)])
    truths = make_problem(problem, n_tasks=k, p_del=0.05, random_state=rng)
    train = [DiscreteData(sample(net, rows, random_state=rng).codes, net.names, net.states, f"task{t}")
             for t, net in enumerate(truths)]
    return train, [DAG(n.parents, n.names) for n in truths]


def run_trial(problem, trial):
    train, truth = trial_data(problem, trial)
    k = len(train)
    scorers = [BDeuScore(d) for d in train]
    row = {"problem": problem, "trial": trial}
    t0 = time.perf_counter()
    tsk, _ = learn_identical_structures(train, equivalent_sample_size=k, n_restarts=RESTARTS, random_state=trial)
    row["tsk"] = float(sum(s.score([set(p) for p in g.parents]) for s, g in zip(scorers, tsk)))
    row["tsk_ed"] = float(np.mean([edit_distance(g, t) for g, t in zip(tsk, truth)]))
    one = learn_structures(train, penalty=1.0, n_restarts=RESTARTS, random_state=trial)
    row["delta1"] = one.log_score
    row["delta1_ed"] = float(np.mean([edit_distance(g, t) for g, t in zip(one.graphs, truth)]))
    auto = learn_structures(train, penalty="auto", validation=50, n_restarts=RESTARTS, random_state=trial)
    row["chosen"] = auto.penalty
    row["mtl_ed"] = float(np.mean([edit_distance(g, t) for g, t in zip(auto.graphs, truth)]))
    row["path"] = [(p.penalty, p.validation_log_likelihood) for p in auto.penalty_path]
    stl = [learn_structure(d, n_restarts=RESTARTS, random_state=trial).graph for d in train]
    row["stl_ed"] = float(np.mean([edit_distance(g, t) for g, t in zip(stl, truth)]))
    row["starts"] = {}
    for start in STARTS:
        res = learn_structures(train, penalty=auto.penalty, start=start, n_restarts=RESTARTS, random_state=trial)
        row["starts"][start] = {"score": res.log_score, "start_scores": res.search.start_scores,
                                "trace": res.search.trace,
                                "ed": float(np.mean([edit_distance(g, t) for g, t in zip(res.graphs, truth)]))}
    row["seconds"] = time.perf_counter() - t0
    return row


def table(rows):
    lines = ["| problem | trial | TSK score | delta=1 score | delta=1 - TSK | chosen 1-delta | default - best start "
             "| spread of starts | ED STL | ED MTL | ED TSK |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = r["starts"]
        singles = [s[x]["score"] for x in ("empty", "single-task", "identical")]
        lines.append(
            f"| {r['problem']} | {r['trial']} | {r['tsk']:.2f} | {r['delta1']:.2f} | {r['delta1'] - r['tsk']:+.2f} | "
            f"{1 - r['chosen']:.0e} | {s['auto']['score'] - max(singles):+.2f} | {max(singles) - min(singles):.2f} | "
            f"{r['stl_ed']:.1f} | {r['mtl_ed']:.1f} | {r['tsk_ed']:.1f} |")
    return "\n".join(lines)


def trace_table(rows):
    """Mean gain of the default run's best score over its start climbs, per round of restarts."""
    out = ["| problem | " + " | ".join(f"after {r}" for r in (1, 2, 5, 10, 15, 20)) + " |", "|---" * 7 + "|"]
    for problem in sorted({r["problem"] for r in rows}):
        traces = np.array([r["starts"]["auto"]["trace"] for r in rows if r["problem"] == problem])
        gain = traces - traces[:, :1]
        out.append(f"| {problem} | " + " | ".join(f"{gain[:, r].mean():.1f}" for r in (1, 2, 5, 10, 15, 20)) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=["alarm", "insurance"])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--only", type=int, nargs="*", help="run only these trials")
    args = ap.parse_args()
    base = os.path.join(OUT, "joint_search")
    for problem in args.problems:
        os.makedirs(os.path.join(base, problem), exist_ok=True)
        for trial in args.only if args.only else range(args.trials):
            path = os.path.join(base, problem, f"trial_{trial:04d}.json")
            if os.path.exists(path):
                continue
            progress(f"{problem} trial {trial}")
            row = run_trial(problem, trial)
            with open(path + ".tmp", "w") as f:
                json.dump(row, f, indent=1)
            os.replace(path + ".tmp", path)
    rows = []
    for problem in args.problems:
        d = os.path.join(base, problem)
        rows += [json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d)) if f.endswith(".json")]
    text = table(rows) + "\n\nMean joint score gained (nats) by the default run's restarts:\n\n" + trace_table(rows) + "\n"
    with open(os.path.join(base, "table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
