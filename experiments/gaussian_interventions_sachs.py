"""The nine Sachs conditions as interventional conditions without discretising (issue 46 for continuous tasks).

Run: ``python experiments/gaussian_interventions_sachs.py [--boot 20] [--seed 0]`` (resumable: each bootstrap
replicate and each left-out condition is a file of ``experiments/out/gaussian_interventions_sachs/``; parallel
over ``MTBN_JOBS``, default 2). The conditions' intensities, log-transformed (``gaussian_sachs.log_tasks``), and
the documented targets (``load_sachs_conditions().intervention_targets()``: the two general stimulations
observational, each inhibitor's or activator's protein a target). Methods: single-task Gaussian learning per
condition, one network from all rows pooled, the Gaussian default (``learn_gaussian_structures``, its first
condition's structure), and the continuous interventional learner (:mod:`mtbn.learn.gaussian_interventions`):
``known`` (the documented targets, the learner's default ``intervention_type="auto"``: mechanism or activity
chosen on held-out rows), ``known-mechanism`` and ``known-activity`` (the model fixed), ``known-further``
(mechanism changes, other mechanisms may change too), ``known-perfect`` (perfect interventions) and
``unknown`` (only the observational conditions said). Writes:

* ``consensus.md``: per method, the arcs learned on all rows against the 18 consensus arcs, with [2.5%, 97.5%]
  over the bootstrap replicates (rows drawn within every condition, every method rerun); ``known`` minus each
  method in consensus arcs of the right direction, within each replicate.
* ``mechanisms.md``: the changed mechanisms ``known`` and ``unknown`` find on all rows.
* ``loco.md``: each of the seven conditions with targets left out, every method learned on the other eight and
  the left-out rows scored: per row, the log-density of the non-targets given the targets (the interventional
  models: the network ``predict(targets)`` gives, and for ``known`` also ``predict(targets, children="keep")``,
  ``known-keep``; pooling and the default's structure, fitted on the eight's rows
  pooled: the Gaussian conditional of the non-targets given the targets), with paired 95% t intervals over the
  seven conditions.
"""

import argparse
import os
import warnings

import numpy as np
import pandas as pd
from _common import OUT, run_resumable, write_out
from gaussian_sachs import EFFORT, GRID, log_tasks
from interventions_sachs import COUNTS, _counts, paired_rows

from mtbn.data import ContinuousData, load_sachs_conditions
from mtbn.data.continuous import PooledTasks
from mtbn.learn.gaussian import learn_gaussian_structures
from mtbn.learn.gaussian_interventions import learn_gaussian_interventional
from mtbn.networks.gaussian import fit_linear_gaussian, implied_moments

FOLDER = os.path.join(OUT, "gaussian_interventions_sachs")
#: The interventional variants: settings of ``learn_gaussian_interventional`` (``unknown``: only the observational
#: conditions given).
INTERVENTIONAL = {"known": {}, "known-mechanism": {"intervention_type": "mechanism"},
                  "known-activity": {"intervention_type": "activity"},
                  "known-further": {"further_changes": True, "intervention_type": "mechanism"},
                  "known-perfect": {"intervention_type": "perfect"}, "unknown": {}}
METHODS = ("single-task", "pooled", "default") + tuple(INTERVENTIONAL)


def _given(targets, method):
    return {t: v for t, v in targets.items() if not v} if method == "unknown" else targets


def learn_all(tasks, targets, seed):
    """``{method: edges}`` (single-task: one list per condition) and the interventional models, on ``tasks``."""
    warnings.simplefilter("ignore")
    names = list(tasks)
    out, models = {}, {}
    out["single-task"] = [g.edges(names=True) for g in
                          learn_gaussian_structures(tasks, penalty=0.0, random_state=seed, **EFFORT).graphs]
    variables = list(tasks[names[0]].names)
    stacked = ContinuousData(np.vstack([d.values for d in tasks.values()]), variables, "pooled")
    out["pooled"] = learn_gaussian_structures({"pooled": stacked}, penalty=0.0, random_state=seed,
                                              **EFFORT).graphs[0].edges(names=True)
    out["default"] = learn_gaussian_structures(tasks, penalty_grid=GRID, random_state=seed,
                                               **EFFORT).graphs[0].edges(names=True)
    for method, kw in INTERVENTIONAL.items():
        res = learn_gaussian_interventional(tasks, _given(targets, method), random_state=seed,
                                            n_restarts=EFFORT["n_restarts"], **kw)
        models[method] = res.interventions
        out[method] = res.interventions.causal_graph.edges(names=True)
    return out, models


def replicate(b, seed):
    """Bootstrap replicate ``b`` (-1: the original rows): rows drawn within every condition, every method rerun."""
    sachs = load_sachs_conditions()
    tasks = log_tasks(sachs)
    if b >= 0:
        rng = np.random.default_rng([seed, 146, b])
        tasks = {n: d.take(rng.integers(0, d.n_samples, d.n_samples)) for n, d in tasks.items()}
    learned, _ = learn_all(tasks, sachs.intervention_targets(), seed)
    rows = []
    for method, edges in learned.items():
        for c, es in enumerate(edges if method == "single-task" else [edges]):
            rows.append({"replicate": b, "method": method, "condition": c if method == "single-task" else -1,
                         **_counts(es, sachs.consensus)})
    return pd.DataFrame(rows)


def consensus_table(frame):
    per = frame.groupby(["replicate", "method"])[list(COUNTS)].mean().reset_index()
    lines = ["| method | " + " | ".join(COUNTS) + " |", "|---" * (1 + len(COUNTS)) + "|"]
    for method in METHODS:
        rows = per[per.method == method]
        full = rows[rows.replicate == -1].iloc[0]
        boot = rows[rows.replicate >= 0]
        cells = [f"{full[c]:.3g} [{np.percentile(boot[c], 2.5):.1f}, {np.percentile(boot[c], 97.5):.1f}]"
                 for c in COUNTS]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    lines += ["", "Consensus arcs in the right direction, `known` minus the method, within each replicate:", "",
              "| method | on all rows | [2.5%, 97.5%] over the replicates | replicates with more for `known` |",
              "|---|---|---|---|"]
    right = per.pivot_table(index="replicate", columns="method", values="right")
    n = int((right.index >= 0).sum())
    for method in METHODS:
        if method == "known":
            continue
        diff = right["known"] - right[method]
        boot = diff[diff.index >= 0]
        lines.append(f"| {method}{' (mean)' if method == 'single-task' else ''} | {diff.loc[-1]:+.1f} | "
                     f"[{np.percentile(boot, 2.5):+.1f}, {np.percentile(boot, 97.5):+.1f}] | "
                     f"{int((boot > 0).sum())} of {n} |")
    return "\n".join(lines) + "\n"


def mechanisms_table(seed):
    sachs = load_sachs_conditions()
    _, models = learn_all(log_tasks(sachs), sachs.intervention_targets(), seed)
    shown = ("known", "known-mechanism", "unknown")
    lines = ["| condition | documented targets | " + " | ".join(f"{m}: changed" for m in shown) + " |",
             "|---" * (2 + len(shown)) + "|"]
    for task, targets in sachs.intervention_targets().items():
        cells = [", ".join(f"{v} ({how})" for v, how in models[m].changed[task].items()) or "none" for m in shown]
        lines.append(f"| {task} | {', '.join(targets) or 'observational'} | " + " | ".join(cells) + " |")
    choice = models["known"].adjacency_line()
    return "\n".join(lines) + "\n" + (f"\n`known`: {choice}.\n" if choice else "")


def conditional(network, data, targets):
    """Per row, the log-density of the non-targets given the targets under the joint Gaussian ``network``
    implies."""
    means, cov = implied_moments(network)
    x = data.values[:, [data.index(v) for v in network.names]]
    t = [network.names.index(v) for v in targets]
    o = [i for i in range(len(network.names)) if i not in t]
    gain = cov[np.ix_(o, t)] @ np.linalg.inv(cov[np.ix_(t, t)])
    mu = means[o] + (x[:, t] - means[t]) @ gain.T
    sigma = cov[np.ix_(o, o)] - gain @ cov[np.ix_(t, o)]
    resid = x[:, o] - mu
    sign, logdet = np.linalg.slogdet(sigma)
    quad = np.einsum("ij,jk,ik->i", resid, np.linalg.inv(sigma), resid)
    return -0.5 * (len(o) * np.log(2 * np.pi) + logdet + quad)


def loco(condition, seed):
    """Condition ``condition`` left out: each method's mean per-row log-density of its non-targets given targets."""
    warnings.simplefilter("ignore")
    sachs = load_sachs_conditions()
    all_tasks = log_tasks(sachs)
    targets = list(sachs.intervention_targets()[condition])
    tasks = {n: d for n, d in all_tasks.items() if n != condition}
    held = all_tasks[condition]
    given = {n: v for n, v in sachs.intervention_targets().items() if n != condition}
    variables = list(held.names)
    rows = PooledTasks(list(tasks.values()))
    stacked = ContinuousData(rows.values, variables, "pooled")
    pooled = learn_gaussian_structures({"pooled": stacked}, penalty=0.0, random_state=seed, **EFFORT).graphs[0]
    default = learn_gaussian_structures(tasks, penalty_grid=GRID, random_state=seed, **EFFORT).graphs[0]
    out = {"condition": condition, "targets": ",".join(targets), "rows": held.n_samples}
    for method, graph in (("pooled", pooled), ("default", default)):
        net = fit_linear_gaussian([sorted(p) for p in graph.parents], rows)
        out[method] = float(conditional(net, held, targets).mean())
    for method, kw in INTERVENTIONAL.items():
        res = learn_gaussian_interventional(tasks, _given(given, method), random_state=seed,
                                            n_restarts=EFFORT["n_restarts"], **kw)
        out[method] = float(conditional(res.interventions.predict(targets), held, targets).mean())
        if method == "known":  # the other reading of an unseen activity intervention: the children keep theirs
            keep = res.interventions.predict(targets, children="keep")
            out["known-keep"] = float(conditional(keep, held, targets).mean())
    return pd.DataFrame([out])


def loco_table(frame):
    methods = [m for m in METHODS + ("known-keep",) if m in frame]
    lines = ["| condition | targets | rows | " + " | ".join(methods) + " |", "|---" * (3 + len(methods)) + "|"]
    for _, r in frame.iterrows():
        lines.append(f"| {r['condition']} | {r['targets']} | {r['rows']} | "
                     + " | ".join(f"{r[m]:.4f}" for m in methods) + " |")
    lines += ["", "Per-row log-density of the non-targets given the targets, paired over the seven conditions "
              "(higher is better), 95% t interval:", "",
              "| method | baseline | mean difference [95% CI] | p (t) |", "|---|---|---|---|"]
    lines += paired_rows(frame, [m for m in ("known", "known-keep") + tuple(INTERVENTIONAL)[1:] if m in frame])
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boot", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    sachs = load_sachs_conditions()

    def boot_path(b):
        return os.path.join(FOLDER, "replicates", f"{b}.csv")

    run_resumable(range(-1, args.boot), boot_path, lambda b: replicate(b, args.seed))
    frame = pd.concat([pd.read_csv(boot_path(b)) for b in range(-1, args.boot)])
    write_out("gaussian_interventions_sachs/consensus.md", consensus_table(frame))
    write_out("gaussian_interventions_sachs/mechanisms.md", mechanisms_table(args.seed))
    held = [c for c, v in sachs.intervention_targets().items() if v]

    def loco_path(c):
        return os.path.join(FOLDER, "loco", f"{c}.csv")

    run_resumable(held, loco_path, lambda c: loco(c, args.seed))
    write_out("gaussian_interventions_sachs/loco.md",
              loco_table(pd.concat([pd.read_csv(loco_path(c)) for c in held])))


if __name__ == "__main__":
    main()
