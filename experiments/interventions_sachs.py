"""The nine Sachs conditions as interventional conditions (issue 46): arcs against the consensus network, and
predictions of a condition left out.

Run: ``python experiments/interventions_sachs.py [--boot 50] [--bins 3] [--seed 0]`` (``MTBN_JOBS`` sets the
parallel replicates, default 2). Writes ``experiments/out/interventions_sachs/``:

* ``consensus.csv`` / ``consensus.md``: per method, the arcs learned on all rows (``--discretize
  quantile:BINS``) against Sachs et al.'s 18 consensus arcs: arcs, consensus arcs in the right direction,
  reversed, not in the consensus, consensus adjacencies; with the 2.5% and 97.5% percentiles over ``--boot``
  bootstrap replicates (rows drawn with replacement within every condition, cut points recomputed, every
  method rerun). Methods: single-task learning per condition (the mean and the range over the nine), the
  default multitask learner (its first condition's structure), pooled rows, and the interventional learner
  with the documented targets (mechanism changes; exact targets; perfect interventions) and with the targets
  unknown (``known`` and ``unknown``: the learner's default, ``intervention_type="auto"`` and
  ``skeleton="heldout"``; ``known-mechanism`` and ``known-activity`` with the model fixed; the variants as in
  interventions_synthetic.py). Replicates are one file each under ``boot/``; a killed run resumes, and a
  replicate without some method gets only that method run and added.
* ``loco.csv`` / ``loco.md``: each of the seven conditions with targets left out in turn: the methods learn
  on the other eight (cut points on those eight), then the left-out condition's rows score the log-likelihood
  per row of the non-target variables given the targets. The interventional model predicts the condition by
  replacing its targets' mechanisms (``InterventionalModel.predict``: ``sum over v not a target of log
  P(v | parents)``); the pooled network and the default's structure (its first condition's, CPTs fitted on the
  eight conditions' rows pooled) by conditioning on the targets (``log P(x) - log P(targets)``, exact
  marginals). Paired differences over the seven conditions, with a 95% t interval.
"""

import argparse
import os
import warnings

import numpy as np
import pandas as pd
from _common import OUT, jobs, run_resumable, write_out

from mtbn.benchmarks import marginal
from mtbn.data import load_sachs_conditions, make_taskset
from mtbn.data.discretization import discretize
from mtbn.engine import job, parallel
from mtbn.learn import learn_structure, learn_structures
from mtbn.learn.interventional import learn_interventional
from mtbn.networks import fit_parameters, log_likelihood
from mtbn.stats import paired_comparison

FOLDER = os.path.join(OUT, "interventions_sachs")
METHODS = ("single-task", "default", "pooled", "known", "known-mechanism", "known-activity", "known-multitask",
           "known-free", "known-further", "known-perfect", "unknown", "unknown-multitask")
#: The interventional methods' settings of ``learn_interventional`` (as in interventions_synthetic.py):
#: ``known`` and ``unknown`` are the learner's default (``intervention_type="auto"``, ``skeleton="heldout"``);
#: ``known-mechanism`` / ``known-activity`` fix the model (``known-mechanism`` is the ``known`` of the runs before
#: "auto" became the default); the other variants are mechanism changes with the multitask adjacencies kept
#: (``known-free``: the tied score's own).
MECHANISM = {"intervention_type": "mechanism"}
INTERVENTIONAL = {"known": {}, "known-mechanism": MECHANISM, "known-activity": {"intervention_type": "activity"},
                  "known-multitask": {"skeleton": "multitask", **MECHANISM},
                  "known-free": {"skeleton": "search", **MECHANISM},
                  "known-further": {"further_changes": True, "skeleton": "multitask", **MECHANISM},
                  "known-perfect": {"intervention_type": "perfect", "skeleton": "multitask"},
                  "unknown": {}, "unknown-multitask": {"skeleton": "multitask"}}
COUNTS = ("arcs", "right", "reversed", "not_in_consensus", "adjacencies")


def _counts(edges, consensus):
    edges, cons = set(map(tuple, edges)), set(consensus)
    pairs = {frozenset(e) for e in cons}
    return {"arcs": len(edges), "right": len(edges & cons), "reversed": sum((b, a) in cons for a, b in edges),
            "not_in_consensus": sum(frozenset(e) not in pairs for e in edges),
            "adjacencies": len({frozenset(e) for e in edges} & pairs)}


def _targets(sachs, unknown=False):
    targets = sachs.intervention_targets()
    return {t: v for t, v in targets.items() if not v} if unknown else targets


def learn_all(frames, sachs, seed, methods=METHODS):
    """The arcs of each of ``methods`` on the (discretised) condition frames: ``{method: list of edges}``
    (single-task: one list per condition)."""
    warnings.simplefilter("ignore")
    ts = make_taskset(frames)
    default = learn_structures(ts, random_state=seed)
    out = {}
    if "single-task" in methods:
        out["single-task"] = [g.edges(names=True) for g in learn_structures(ts, prior="none", random_state=seed).graphs]
    if "default" in methods:
        out["default"] = default.graphs[0].edges(names=True)
    if "pooled" in methods:
        out["pooled"] = learn_structure(ts.pooled(), random_state=seed).graph.edges(names=True)
    for method, kw in INTERVENTIONAL.items():
        if method in methods:
            res = learn_interventional(ts, _targets(sachs, method.startswith("unknown")), random_state=seed,
                                       adjacencies_from=default, **kw)
            out[method] = res.interventions.causal_graph.edges(names=True)
    return out


def _rows(learned, consensus, replicate):
    rows = []
    for method, edges in learned.items():
        if method == "single-task":
            for c, es in enumerate(edges):
                rows.append({"replicate": replicate, "method": method, "condition": c, **_counts(es, consensus)})
        else:
            rows.append({"replicate": replicate, "method": method, "condition": -1, **_counts(edges, consensus)})
    return rows


def replicate(b, bins, seed, methods=METHODS):
    """Bootstrap replicate ``b`` (-1: the original rows): rows drawn within every condition, cut points and each
    of ``methods`` recomputed."""
    sachs = load_sachs_conditions()
    tasks = sachs.tasks
    if b >= 0:
        rng = np.random.default_rng([seed, 46, b])
        tasks = {n: f.iloc[rng.integers(0, len(f), len(f))].reset_index(drop=True) for n, f in tasks.items()}
    frames, _ = discretize(tasks, f"quantile:{bins}")
    return pd.DataFrame(_rows(learn_all(frames, sachs, seed, methods), sachs.consensus, b))


def consensus_table(results):
    """Markdown: per method the counts on all rows, with the bootstrap percentiles."""
    lines = ["| method | " + " | ".join(COUNTS) + " |", "|---" * (len(COUNTS) + 1) + "|"]
    replicates = results[results["replicate"] >= 0]
    n_boot = replicates["replicate"].nunique()
    for method in METHODS:
        full = results[(results["replicate"] == -1) & (results["method"] == method)]
        boot = replicates[replicates["method"] == method]
        if method == "single-task":  # per replicate, the mean over the nine conditions
            boot = boot.groupby("replicate")[list(COUNTS)].mean()
            cells = [f"{full[c].mean():.1f} ({full[c].min()}-{full[c].max()})" for c in COUNTS]
        else:
            cells = [f"{int(full[c].iloc[0])}" for c in COUNTS]
        if n_boot:
            cells = [f"{cell} [{np.percentile(boot[c], 2.5):.1f}, {np.percentile(boot[c], 97.5):.1f}]"
                     for cell, c in zip(cells, COUNTS)]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    text = (f"Arcs learned on all rows of the nine conditions (quantile:3) against the 18 consensus arcs; "
            f"[2.5%, 97.5%] over {n_boot} bootstrap replicates; single-task: the mean over the nine conditions "
            "(range), its interval that of the mean.\n\n" + "\n".join(lines) + "\n")
    return text + (_paired_right(results) if n_boot else "")


def _paired_right(results):
    """Markdown: consensus arcs in the right direction, ``known`` (the learner as a user gets it) minus each other
    method, on all rows and as the [2.5%, 97.5%] percentiles of the differences within each replicate, and the
    share of replicates where it is positive."""
    per = results[results["method"] != "single-task"].pivot_table(index="replicate", columns="method", values="right")
    single = results[results["method"] == "single-task"].groupby("replicate")["right"]
    per["single-task (mean)"], per["single-task (best)"] = single.mean(), single.max()
    lines = ["", "Consensus arcs in the right direction, `known` minus the method, within each replicate (the rows "
                 "drawn once for every method):", "",
             "| method | on all rows | [2.5%, 97.5%] over the replicates | replicates with more for `known` |",
             "|---|---|---|---|"]
    boot = per.loc[per.index >= 0]
    for method in ("single-task (mean)", "single-task (best)", "default", "pooled", "known-mechanism"):
        diff = boot["known"] - boot[method]
        lines.append(f"| {method} | {per.loc[-1, 'known'] - per.loc[-1, method]:+.1f} | "
                     f"[{np.percentile(diff, 2.5):+.1f}, {np.percentile(diff, 97.5):+.1f}] | "
                     f"{int((diff > 0).sum())} of {len(diff)} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Leave one condition out
# ---------------------------------------------------------------------------


def _conditional(network, data, targets):
    """Per row, ``log P(non-targets | targets)`` under ``network`` by conditioning (exact marginal of the
    targets)."""
    idx = [network.names.index(t) for t in targets]
    table = marginal(network, idx)
    codes = tuple(data.codes[:, data.index(t)] for t in targets)
    return log_likelihood(network, data, per_row=True) - np.log(table[codes])


def factors(network, data, targets):
    """Per variable of ``network`` not among ``targets``: ``(v, P(v | parents) of each row of data)``."""
    for v, name in enumerate(network.names):
        if name not in targets:
            index = tuple(data.codes[:, data.index(network.names[p])] for p in network.parents[v])
            yield v, network.cpts[v][index + (data.codes[:, data.index(name)],)]


def _do(network, data, targets):
    """Per row, ``sum over v not a target of log P(v | parents)``: the non-targets' factors of ``network``."""
    return sum((np.log(p) for _, p in factors(network, data, targets)), np.zeros(data.n_samples))


def left_out(condition, bins, seed):
    """Condition ``condition`` left out: ``(its targets, the other eight's TaskSet (cut points on them), its rows
    cut alike, the other eight's targets, the default learner on the eight)``."""
    warnings.simplefilter("ignore")
    sachs = load_sachs_conditions()
    targets = list(sachs.intervention_targets()[condition])
    train = {n: f for n, f in sachs.tasks.items() if n != condition}
    frames, cuts = discretize(train, f"quantile:{bins}")
    ts = make_taskset(frames)
    held = make_taskset(dict(frames, **{condition: cuts.transform(sachs.tasks[condition], condition)})).tasks[-1]
    given = {n: v for n, v in sachs.intervention_targets().items() if n != condition}
    return targets, ts, held, given, learn_structures(ts, random_state=seed)


def loco(condition, bins, seed):
    """Condition ``condition`` left out: each method's mean per-row score of its rows' non-targets given targets."""
    targets, ts, held, given, default = left_out(condition, bins, seed)
    pooled_data = ts.pooled()
    pooled = fit_parameters(learn_structure(pooled_data, random_state=seed).graph, pooled_data)
    structure = fit_parameters(default.graphs[0], pooled_data)
    out = {"condition": condition, "targets": ",".join(targets), "rows": held.n_samples,
           "pooled": float(_conditional(pooled, held, targets).mean()),
           "default": float(_conditional(structure, held, targets).mean())}
    for method, kw in INTERVENTIONAL.items():
        g = {n: v for n, v in given.items() if not v} if method.startswith("unknown") else given
        res = learn_interventional(ts, g, random_state=seed, adjacencies_from=default, **kw)
        out[method] = float(_do(res.interventions.predict(targets), held, targets).mean())
    return out


def loco_table(frame):
    lines = ["| condition | targets | rows | " + " | ".join(m for m in METHODS if m in frame) + " |",
             "|---" * (3 + sum(m in frame for m in METHODS)) + "|"]
    for _, r in frame.iterrows():
        lines.append(f"| {r['condition']} | {r['targets']} | {r['rows']} | "
                     + " | ".join(f"{r[m]:.4f}" for m in METHODS if m in frame) + " |")
    lines += ["", "Mean over the conditions of the per-row log-likelihood of the non-targets given the targets "
                  "(higher is better): paired differences, 95% t interval over the seven conditions.", "",
              "| method | baseline | mean difference [95% CI] | p (t) |", "|---|---|---|---|"]
    lines += paired_rows(frame, [m for m in INTERVENTIONAL if m in frame])
    return "\n".join(lines) + "\n"


def paired_rows(frame, methods, bases=("pooled", "default")):
    """Markdown rows: each of ``methods`` minus each of ``bases`` (columns of ``frame``), paired over its rows."""
    lines = []
    for method in methods:
        for base in bases:
            c = paired_comparison(frame[method], frame[base])
            lines.append(f"| {method} | {base} | {c['mean_diff']:+.4f} [{c['ci_low']:+.4f}, {c['ci_high']:+.4f}] | "
                         f"{c['p_t']:.2g} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boot", type=int, default=50)
    ap.add_argument("--bins", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    folder = os.path.join(FOLDER, "boot")
    def path(b):
        return os.path.join(folder, f"replicate_{b:03d}.csv")

    def missing(b):  # a replicate file from before a method was added gets only that method run
        have = set(pd.read_csv(path(b))["method"]) if os.path.exists(path(b)) else set()
        return [m for m in METHODS if m not in have]

    def compute(b):
        new = replicate(b, args.bins, args.seed, missing(b))
        return pd.concat([pd.read_csv(path(b)), new], ignore_index=True) if os.path.exists(path(b)) else new

    run_resumable(range(-1, args.boot), path, compute, done=lambda p: not missing(int(p[-7:-4])))
    results = pd.concat([pd.read_csv(os.path.join(folder, f)) for f in sorted(os.listdir(folder))
                         if f.endswith(".csv")], ignore_index=True)
    results.to_csv(os.path.join(FOLDER, "consensus.csv"), index=False)
    write_out("interventions_sachs/consensus.md", consensus_table(results))
    conditions = [n for n, v in load_sachs_conditions().intervention_targets().items() if v]
    rows = list(parallel(jobs(), len(conditions))(job(loco)(c, args.bins, args.seed) for c in conditions))
    frame = pd.DataFrame(rows)
    frame.to_csv(os.path.join(FOLDER, "loco.csv"), index=False)
    write_out("interventions_sachs/loco.md", loco_table(frame))


if __name__ == "__main__":
    main()
