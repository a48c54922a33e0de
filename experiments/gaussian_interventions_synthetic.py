"""Synthetic interventional conditions of linear Gaussian networks (issue 46 for continuous tasks).

Run: ``python experiments/gaussian_interventions_synthetic.py [--networks ecoli70 magic-niab random-30]
[--rows 250 1000] [--kinds mechanism perfect] [--trials 5]`` (resumable: one file per trial under
``experiments/out/gaussian_interventions_synthetic/``; parallel over ``MTBN_JOBS``, default 2).

Per trial (seed ``[0, trial]``): one observational task and six single-variable interventions
(:func:`mtbn.benchmarks.gaussian.make_gaussian_interventional_tasks`; ``mechanism``: the target's regression
redrawn and its mean moved 1-2 sd; ``perfect``: its parents cut, a new normal distribution), every task the
same number of rows. The causal DAG of each method against the true one: edit distance (a reversal counts
one), reversals and the CPDAG SHD. ``pooled``: one Gaussian network on every task's rows stacked; ``default``:
the Gaussian multitask default (``learn_gaussian_structures``, its observational task's structure);
``known``: the continuous interventional learner (:mod:`mtbn.learn.gaussian_interventions`) with the targets,
as a user gets it (``intervention_type="auto"``: mechanism or activity chosen on held-out rows);
``known-mechanism`` and ``known-perfect``: the model fixed; ``unknown``: told only
which task is observational (recall and precision of the changed mechanisms it finds). Every search with 5
single-task and 5 joint restarts (the default learner's front ends use 50 and 20). Paired tests of the edit
distance over the trials, Holm-corrected over the table (known and unknown against pooled and default).
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from _common import OUT, progress, run_resumable, write_out

from mtbn.benchmarks.gaussian import make_gaussian_interventional_tasks
from mtbn.data import ContinuousData
from mtbn.graph import DAG, cpdag_distance, edit_distance
from mtbn.learn.gaussian import learn_gaussian_structures
from mtbn.learn.gaussian_interventions import learn_gaussian_interventional
from mtbn.stats import holm, paired_comparison

FOLDER = os.path.join(OUT, "gaussian_interventions_synthetic")
METHODS = ("pooled", "default", "known", "known-mechanism", "known-perfect", "unknown")
EFFORT = dict(n_restarts=5, n_joint_restarts=5)


def _reversals(graph, truth):
    true = set(truth.edges(names=True))
    return sum((v, u) in true for u, v in graph.edges(names=True))


def trial_tasks(network, rows, kind, trial):
    """``(tasks {name: ContinuousData}, targets, true causal DAG, true changes {(task, variable)}, seed)``."""
    rng = np.random.default_rng([0, trial])
    tasks = make_gaussian_interventional_tasks(network, kind=kind, random_state=rng)
    truth_net = tasks[0][2]
    truth = DAG([set(p) for p in truth_net.parents], truth_net.names)
    data = {name: net.sample(rows, random_state=rng, name=name) for name, _, net in tasks}
    targets = {name: list(t) for name, t, _ in tasks}
    changes = {(name, t[0]) for name, t, _ in tasks if t}
    return data, targets, truth, changes, int(rng.integers(2**31))


def run_trial(network, rows, kind, trial, methods=METHODS):
    warnings.simplefilter("ignore")
    data, targets, truth, changes, seed = trial_tasks(network, rows, kind, trial)
    out = []
    for method in methods:
        t0 = time.perf_counter()
        extra = {}
        if method == "pooled":
            stacked = ContinuousData(np.vstack([d.values for d in data.values()]), truth.names, "pooled")
            graph = learn_gaussian_structures({"pooled": stacked}, penalty=0.0, random_state=seed,
                                              **EFFORT).graphs[0]
        elif method == "default":
            graph = learn_gaussian_structures(data, random_state=seed, **EFFORT).graphs[0]
        else:
            given = {"observational": []} if method == "unknown" else targets
            kw = {"known-perfect": {"intervention_type": "perfect"},
                  "known-mechanism": {"intervention_type": "mechanism"}}.get(method, {})
            res = learn_gaussian_interventional(data, given, random_state=seed, n_restarts=EFFORT["n_restarts"], **kw)
            graph = res.interventions.causal_graph
            found = {(t, v) for t, per in res.interventions.changed.items() for v in per}
            extra = {"changes_found": len(found), "changes_true_found": len(found & changes),
                     "changes_true": len(changes)}
        out.append({"network": network, "rows": rows, "kind": kind, "trial": trial, "method": method,
                    "edit_distance": edit_distance(graph, truth), "reversals": _reversals(graph, truth),
                    "cpdag_shd": cpdag_distance(graph, truth), "n_edges": graph.n_edges, "true_edges": truth.n_edges,
                    "seconds": time.perf_counter() - t0, **extra})
    return pd.DataFrame(out)


def tables(frame):
    lines = ["| network | rows | kind | trials | method | ED | reversals | CPDAG SHD | edges (true) | changes: recall | "
             "precision | seconds |", "|---" * 12 + "|"]
    for (network, rows, kind), cell in frame.groupby(["network", "rows", "kind"], sort=False):
        for method in METHODS:
            part = cell[cell.method == method]
            recall = precision = ""
            if method == "unknown":
                recall = f"{part['changes_true_found'].sum() / part['changes_true'].sum():.2f}"
                precision = f"{part['changes_true_found'].sum() / max(1, part['changes_found'].sum()):.2f}"
            lines.append(f"| {network} | {rows} | {kind} | {len(part)} | {method} | {part['edit_distance'].mean():.2f} "
                         f"| {part['reversals'].mean():.2f} | {part['cpdag_shd'].mean():.2f} | "
                         f"{part['n_edges'].mean():.1f} ({part['true_edges'].iloc[0]}) | {recall} | {precision} | "
                         f"{part['seconds'].mean():.1f} |")
    tests = []
    for (network, rows, kind), cell in frame.groupby(["network", "rows", "kind"], sort=False):
        per = cell.pivot_table(index="trial", columns="method", values="edit_distance")
        for method in ("known", "unknown"):
            for base in ("pooled", "default"):
                c = paired_comparison(per[method].to_numpy(), per[base].to_numpy())
                tests.append((network, rows, kind, method, base, c))
    adjusted = holm([c["p_t"] for *_, c in tests])
    lines += ["", "Paired differences of the edit distance (method minus baseline; negative = closer to the true causal "
              "DAG), 95% t interval, p Holm-corrected over the rows of this table:", "",
              "| network | rows | kind | method | baseline | mean difference [95% CI] | p (t) | p (Holm) | "
              "significantly lower |", "|---" * 9 + "|"]
    for (network, rows, kind, method, base, c), p in zip(tests, adjusted):
        lower = "yes" if p < 0.05 and c["mean_diff"] < 0 else "no"
        lines.append(f"| {network} | {rows} | {kind} | {method} | {base} | {c['mean_diff']:+.2f} [{c['ci_low']:+.2f}, "
                     f"{c['ci_high']:+.2f}] | {c['p_t']:.2g} | {p:.2g} | {lower} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", nargs="+", default=["ecoli70", "magic-niab", "random-30"])
    ap.add_argument("--rows", type=int, nargs="+", default=[250, 1000])
    ap.add_argument("--kinds", nargs="+", default=["mechanism", "perfect"])
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--rerun", nargs="+", choices=METHODS, default=[],
                    help="recompute these methods in the trials already stored (their other rows kept: the same "
                         "seeds, so the same data), e.g. after a change to the interventional learner")
    args = ap.parse_args()
    keys = [(n, r, k, t) for n in args.networks for r in args.rows for k in args.kinds for t in range(args.trials)]

    def path(key):
        n, r, k, t = key
        return os.path.join(FOLDER, f"{n}-{r}-{k}", f"trial{t}.csv")

    progress(f"{len(keys)} trials")
    run_resumable(keys, path, lambda key: run_trial(*key))
    if args.rerun:
        def again(key):
            kept = pd.read_csv(path(key))
            fresh = run_trial(*key, methods=tuple(args.rerun))
            merged = pd.concat([kept[~kept.method.isin(args.rerun)], fresh], ignore_index=True)
            return merged.set_index("method").loc[list(METHODS)].reset_index()[kept.columns]

        def rerun_path(key):
            return path(key).replace(".csv", ".rerun")

        def done(marker):
            return os.path.exists(marker)

        run_resumable(keys, rerun_path, again, done=done)
        for key in keys:
            os.replace(rerun_path(key), path(key))
    frame = pd.concat([pd.read_csv(path(k)) for k in keys])
    write_out("gaussian_interventions_synthetic/results.md", tables(frame))


if __name__ == "__main__":
    main()
