"""Which chain's restarts find the final search's answer (issue 50, item 5)?

Run: ``python experiments/restart_chains.py [--tasks 5 10 20 50] [--rows 500] [--trials 2] [--problems ...]``
(resumable: a file per run under out/restart_chains/; ``MTBN_JOBS`` runs at a time).

The final joint search climbs from each of its starts (single-task, identical-structure, empty), each the head
of a chain, then runs ``n_joint_restarts`` = 20 rounds in which every chain perturbs its own best and climbs
again. Chains do not interact and each draws from its own random stream, so a search that restarted only the
chain whose start climb scored best would return exactly what the full search returns whenever that chain
ends best, and otherwise that chain's own best. One full run per problem, number of tasks and trial (related
tasks, edge deletion 0.05; ``learn_structures(penalty=0.99, n_restarts=2, parameter_sharing=None)``), read
through a hook on :func:`mtbn.learn.grid.merge_chains`, gives both: per chain its label, its score after its
start climb and after each round. The table says how often the chain that led after the start climbs ends
best, and what restarting only it would lose in joint log score (0: the same answer). The restarts' share of
the search is what that would save.
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mtbn.learn.grid as grid  # noqa: E402
from _common import OUT, run_resumable, write_out  # noqa: E402
from mtbn.benchmarks import make_problem  # noqa: E402
from mtbn.data import make_taskset  # noqa: E402
from mtbn.joint.restarts import best_chain  # noqa: E402
from mtbn.learn import learn_structures  # noqa: E402
from mtbn.networks import sample  # noqa: E402
from mtbn.search import TIE_TOLERANCE  # noqa: E402
from sharing_fold_structures import _problem  # noqa: E402

FOLDER = os.path.join(OUT, "restart_chains")
LABELS = ("single-task", "identical", "empty")


def run(problem, k, rows, trial):
    rng = np.random.default_rng([k, rows, trial, 56])
    nets = make_problem(_problem(problem), n_tasks=k, p_del=0.05, random_state=rng)
    train = make_taskset({f"t{i}": sample(n, rows, random_state=rng) for i, n in enumerate(nets)})
    seen = []
    real = grid.merge_chains

    def hook(results, *args, **kwargs):
        seen.append([list(r.trace) for r in results])
        return real(results, *args, **kwargs)

    grid.merge_chains = hook
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            res = learn_structures(train, penalty=0.99, n_restarts=2, parameter_sharing=None, random_state=trial)
            seconds = time.perf_counter() - t0
    finally:
        grid.merge_chains = real
    traces = seen[-1]  # the final search's chains, in the order of its starts
    return pd.DataFrame([{"problem": problem, "tasks": k, "rows": rows, "trial": trial, "seconds": seconds,
                          "chains": json.dumps(traces), "log_score": res.log_score}])


def summary(row):
    traces = json.loads(row["chains"])
    first = best_chain([t[0] for t in traces], TIE_TOLERANCE)
    last = best_chain([t[-1] for t in traces], TIE_TOLERANCE)
    best = traces[last][-1]
    gained = [t[-1] - t[0] for t in traces]
    return {"leader": LABELS[first] if len(traces) == 3 else str(first), "winner": LABELS[last] if len(traces) == 3
            else str(last), "same": first == last, "loss": best - traces[first][-1],
            "leader_gain": gained[first], "others_gain": max([g for c, g in enumerate(gained) if c != first],
                                                             default=0.0)}


def table(frame):
    lines = ["| problem | tasks | rows | trial | s | chain leading after the starts | chain best at the end | "
             "loss restarting only the leader | the leader's restarts gained | the others' best gain |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    same, losses = 0, []
    for _, row in frame.sort_values(["problem", "tasks", "rows", "trial"]).iterrows():
        s = summary(row)
        same += s["same"]
        losses.append(s["loss"])
        lines.append(f"| {row['problem']} | {row['tasks']} | {row['rows']} | {row['trial']} | {row['seconds']:.1f} | "
                     f"{s['leader']} | {s['winner']} | {s['loss']:.2f} | {s['leader_gain']:.2f} | "
                     f"{s['others_gain']:.2f} |")
    losses = np.array(losses)
    lines += ["", f"The leader ended best in {same} of {len(frame)} runs; restarting only it would lose "
              f"{np.mean(losses):.2f} in joint log score on average (largest {np.max(losses):.2f}; "
              f"{int((losses > 1).sum())} runs lose more than 1)."]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[5, 10, 20, 50])
    ap.add_argument("--rows", type=int, nargs="+", default=[500])
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--problems", nargs="+", default=["alarm", "insurance", "sachs", "child", "hepar2", "win95pts"])
    args = ap.parse_args()
    keys = [(p, k, r, t) for t in range(args.trials) for k in args.tasks for p in args.problems for r in args.rows]
    run_resumable(keys, lambda c: os.path.join(FOLDER, f"{c[0]}_{c[1]}_{c[2]}_{c[3]:03d}.csv"), lambda c: run(*c))
    frame = pd.concat([pd.read_csv(os.path.join(FOLDER, f)) for f in sorted(os.listdir(FOLDER))
                       if f.endswith(".csv")], ignore_index=True)
    write_out("restart_chains.md", table(frame))


if __name__ == "__main__":
    main()
