"""Figures 2.10 and 2.11: task selection on the 15-task ALARM-COMP pool.

Run: ``python experiments/fig2_10_2_11_selection.py [--trials 5] [--jobs 2] [--current]``

Figure 2.10: principal = the original ALARM network, pool = the 15 tasks
that change every non-empty subset of ALARM's 4 components; 1000 training
rows per task. For the DIRECT, INDIRECT and TRUE orderings of the pool and
N in {0, 1, 2, 3, 4, 6, 8, 10, 12, 15}, multitask learning (Paired prior,
double reversal) of the principal with the N closest tasks; the KL
divergence of the principal's learned network (test set of 20000 rows) with
the penalty chosen on 50 validation rows and with the grid's best penalty
("optimal", chosen on the true network). N = 0 is single-task learning.

Figure 2.11: improvement in edit distance over STL against the training size
(250, 500, 1000, 2000 rows per task) for: all 15 tasks (10% of the
principal's data to choose the penalty), task selection with N chosen on a
separate 5% validation split (5% more to choose the penalty), the optimal N
(best edit distance) and the two closest tasks, all with the DIRECT order.

Settings that keep it affordable on 2 cores (stated in docs/results.md):
single-task starts with 5 restarts, the penalty grid
1 - delta in {1, 1e-1, 1e-2, 1e-4, 1e-6, 1e-8, 0}, and ``--trials`` trials
(default 5). Per-trial results are cached in ``experiments/out/selection``
(JSON per trial), so an interrupted run resumes.

``--current`` runs the same protocol with the current default learner
instead: every multitask learn is ``learn_structures`` with its defaults
(5-fold cross-validated penalty over the full default grid, the
one-standard-error rule, the negative-transfer guard, structures relearned
on all rows), 20 restarts, 20 trials by default; outputs in
``experiments/out/selection-current``. "Validation" then reads "the
default's penalty", and the "optimal" penalty is the grid point of the
default's path (fold 0's structures) with the best metric.
"""

import argparse
import json
import os
import warnings

import numpy as np
from _common import OUT, jobs, progress
from relatedness_spearman import pool_data

from mtbn.exceptions import TransferWarning
from mtbn.graph import edit_distance
from mtbn.learn import learn_structure, learn_structures
from mtbn.metrics import kl_divergence
from mtbn.networks import fit_parameters, log_likelihood, sample
from mtbn.relatedness import direct_relatedness, indirect_relatedness

GRID = (0.0, 0.9, 0.99, 0.9999, 0.999999, 0.99999999, 1.0)
NS = (0, 1, 2, 3, 4, 6, 8, 10, 12, 15)
RESTARTS = 5
CURRENT_RESTARTS = 20


def _restarts(current):
    return CURRENT_RESTARTS if current else RESTARTS


def _fit(graph, data):
    return fit_parameters(graph, data)


def run_set(principal_train, others, true_net, test, validation, seed, select_valid=None, current=False):
    """Learn the principal with ``others``; metrics at the chosen and at the best penalty.

    ``current``: the current default learner (``validation`` unused), else the paper's rule.
    """
    restarts = _restarts(current)
    if not others:
        g = learn_structure(principal_train, n_restarts=restarts, random_state=seed).graph
        net = _fit(g, principal_train)
        kl = kl_divergence(true_net, net, test)
        ed = edit_distance(g, true_net.edges)
        out = dict(kl=kl, ed=ed, kl_opt=kl, ed_opt=ed, penalty=None)
    else:
        tasks = {"alarm": principal_train, **others}
        if current:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TransferWarning)
                res = learn_structures(tasks, n_restarts=restarts, random_state=seed)
        else:
            res = learn_structures(tasks, penalty="auto", validation=validation, penalty_grid=GRID,
                                   n_restarts=restarts, random_state=seed)
        g = res.graphs[0]
        net = res.networks[0]
        kls = [kl_divergence(true_net, _fit(p.graphs[0], principal_train), test) for p in res.penalty_path]
        eds = [edit_distance(p.graphs[0], true_net.edges) for p in res.penalty_path]
        out = dict(kl=kl_divergence(true_net, net, test), ed=edit_distance(g, true_net.edges),
                   kl_opt=float(min(kls)), ed_opt=float(min(eds)), penalty=res.penalty,
                   transfer=res.transfer["status"] if res.transfer else None)
    if select_valid is not None:
        out["select_ll"] = float(log_likelihood(net, select_valid))
    return out


def fig_2_10_trial(seed, rows=1000, current=False):
    data, true, nets, names = pool_data(seed, rows)
    principal = nets[0]
    test = sample(principal, 20000, random_state=np.random.default_rng([seed, 11]))
    orders = {"TRUE": sorted(names[1:], key=lambda n: (true[n], names.index(n)))}
    d = direct_relatedness(data, random_state=seed, n_restarts=_restarts(current)).from_task("alarm")
    orders["DIRECT"] = sorted(names[1:], key=lambda n: (d[n], names.index(n)))
    i = indirect_relatedness(data, random_state=seed, n_restarts=_restarts(current)).from_task("alarm")
    orders["INDIRECT"] = sorted(names[1:], key=lambda n: (i[n], names.index(n)))
    memo = {}
    out = {}
    for label, order in orders.items():
        for N in NS:
            key = frozenset(order[:N])
            if key not in memo:
                memo[key] = run_set(data["alarm"], {n: data[n] for n in order[:N]}, principal, test, 50, seed,
                                    current=current)
            out[f"{label}:{N}"] = memo[key]
    return out


def fig_2_11_trial(seed, rows, current=False):
    data, _, nets, names = pool_data(seed, rows)
    principal = nets[0]
    test = sample(principal, 20000, random_state=np.random.default_rng([seed, 11]))
    full = data["alarm"]
    perm = np.random.default_rng([seed, 12]).permutation(full.n_samples)
    n_sel = max(1, int(round(0.05 * full.n_samples)))
    sel_valid, train = full.take(np.sort(perm[:n_sel])), full.take(np.sort(perm[n_sel:]))
    restarts = _restarts(current)
    stl = learn_structure(full, n_restarts=restarts, random_state=seed).graph
    stl_ed = edit_distance(stl, principal.edges)
    d = direct_relatedness({**data, "alarm": train}, random_state=seed, n_restarts=restarts).from_task("alarm")
    order = sorted(names[1:], key=lambda n: (d[n], names.index(n)))
    curve = {}
    for N in NS:
        curve[N] = run_set(train, {n: data[n] for n in order[:N]}, principal, test, 0.05, seed, sel_valid,
                           current=current)
    chosen = max(NS, key=lambda N: (curve[N]["select_ll"], -N))
    all_tasks = run_set(full, {n: data[n] for n in order}, principal, test, 0.10, seed, current=current)
    return dict(stl_ed=stl_ed, all=all_tasks["ed"], selection=curve[chosen]["ed"], chosen=chosen,
                optimal=min(c["ed"] for c in curve.values()), two=curve[2]["ed"])


def cached(path, fn, *args):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    res = fn(*args)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(res, fh)
    os.replace(tmp, path)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=None, help="default 5, or 20 with --current")
    ap.add_argument("--jobs", type=int, default=jobs())
    ap.add_argument("--sizes", default="250,500,1000,2000")
    ap.add_argument("--size-trials", default="",
                    help="per-size trial counts overriding --trials for Figure 2.11, e.g. 2000:2")
    ap.add_argument("--skip-2-10", action="store_true")
    ap.add_argument("--skip-2-11", action="store_true")
    ap.add_argument("--current", action="store_true", help="the current default learner, into selection-current/")
    ap.add_argument("--reverse", action="store_true",
                    help="Figure 2.11: run each size's trials from the last one down (a second process on the same "
                         "size then meets the first in the middle; finished trials are skipped either way)")
    args = ap.parse_args()
    if args.trials is None:
        args.trials = 20 if args.current else 5
    from joblib import Parallel, delayed

    base = os.path.join(OUT, "selection-current" if args.current else "selection")
    os.makedirs(base, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not args.skip_2_10:
        runs = Parallel(n_jobs=args.jobs)(
            delayed(cached)(os.path.join(base, f"fig2_10_trial{t}.json"), fig_2_10_trial, t, 1000, args.current)
            for t in range(args.trials)
        )
        lines = ["| N | " + " | ".join(f"{o} (validation δ)" for o in ("TRUE", "DIRECT", "INDIRECT")) + " | "
                 + " | ".join(f"{o} (optimal δ)" for o in ("TRUE", "DIRECT", "INDIRECT")) + " |",
                 "|---" * 7 + "|"]
        fig, ax = plt.subplots(figsize=(6.5, 4))
        names = ({"kl": "default's penalty", "kl_opt": "best grid point of its path, fold 0"} if args.current
                 else {"kl": "validation penalty", "kl_opt": "optimal penalty"})
        for o, color in zip(("TRUE", "DIRECT", "INDIRECT"), ("k", "C0", "C1")):
            for kind, style in (("kl", "-"), ("kl_opt", "--")):
                ys = [np.mean([r[f"{o}:{N}"][kind] for r in runs]) for N in NS]
                ax.plot(NS, ys, style, color=color, marker="o", ms=3, label=f"{o} ({names[kind]})")
        for N in NS:
            vals = [np.mean([r[f"{o}:{N}"][kind] for r in runs]) for kind in ("kl", "kl_opt") for o in ("TRUE", "DIRECT", "INDIRECT")]
            lines.append(f"| {N} | " + " | ".join(f"{v:.4f}" for v in vals) + " |")
        ax.set_xlabel("number of selected tasks N")
        ax.set_ylabel("KL divergence of the principal (ALARM)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(base, "fig2_10.png"), dpi=110)
        plt.close(fig)
        with open(os.path.join(base, "fig2_10.md"), "w", encoding="utf-8") as fh:
            fh.write(f"Mean over {args.trials} trials.\n\n" + "\n".join(lines) + "\n")
        print("\n".join(lines), flush=True)
    if not args.skip_2_11:
        sizes = [int(s) for s in args.sizes.split(",")]
        per_size = {int(k): int(v) for k, v in (x.split(":") for x in args.size_trials.split(",") if x)}
        todo = [(s, t) for s in sizes
                for t in sorted(range(per_size.get(s, args.trials)), reverse=args.reverse)]
        runs = Parallel(n_jobs=args.jobs)(
            delayed(cached)(os.path.join(base, f"fig2_11_rows{s}_trial{t}.json"), fig_2_11_trial, t, s, args.current)
            for s, t in todo
        )
        by = {}
        for (s, _), r in zip(todo, runs):
            by.setdefault(s, []).append(r)
        lines = ["| rows per task | trials | STL edit distance | all tasks | task selection (N on validation) | optimal N | two closest | mean chosen N |",
                 "|---|---|---|---|---|---|---|---|"]
        fig, ax = plt.subplots(figsize=(6.5, 4))
        curves = {k: [] for k in ("all", "selection", "optimal", "two")}
        for s in sizes:
            rs = by[s]
            stl = np.mean([r["stl_ed"] for r in rs])
            imp = {k: 100 * (stl - np.mean([r[k] for r in rs])) / stl for k in curves}
            for k in curves:
                curves[k].append(imp[k])
            lines.append(f"| {s} | {len(rs)} | {stl:.1f} | {imp['all']:+.1f}% | {imp['selection']:+.1f}% | {imp['optimal']:+.1f}% "
                         f"| {imp['two']:+.1f}% | {np.mean([r['chosen'] for r in rs]):.1f} |")
        for k, label in (("all", "All Tasks"), ("selection", "Task Selection"), ("optimal", "Optimal Number of Tasks"),
                         ("two", "Two Tasks")):
            ax.plot(sizes, curves[k], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_xlabel("training rows per task")
        ax.set_ylabel("% improvement in edit distance over STL")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(base, "fig2_11.png"), dpi=110)
        plt.close(fig)
        with open(os.path.join(base, "fig2_11.md"), "w", encoding="utf-8") as fh:
            fh.write("Mean over the trials of each size.\n\n" + "\n".join(lines) + "\n")
        print("\n".join(lines), flush=True)
    progress("done")


if __name__ == "__main__":
    main()
