"""Interventional conditions on the shipped networks (issue 46): does the interventional learner recover the
causal DAG better than pooling and than the default multitask learner, which ignore the targets?

Run: ``python experiments/interventions_synthetic.py [--networks alarm insurance ...] [--rows 250 1000]
[--kinds mechanism perfect] [--trials 10] [--table-only]`` (``MTBN_JOBS`` sets the parallel trials, default 2).

Each cell (network, rows per task, kind of intervention) draws, per trial, one observational task and
``--interventions`` (default 6) single-variable interventions (:func:`mtbn.benchmarks.make_interventional_tasks`,
seed ``[0, trial]``): ``mechanism``, the target's CPT rows redrawn (same parents); ``perfect``, the target's
parents removed and a new distribution; ``activity``, the target's children see one state of it (an inhibitor or
activator of what it does). A task's true changes are the families whose CPT differs from the observational
task's. Every task gets ``rows`` rows. Methods, each scored on the true causal DAG (the observational network's)
by directed edit distance (a reversal counts 1), reversals and the CPDAG SHD:

* ``pooled``: one structure learned on all rows stacked (the targets ignored);
* ``default``: ``learn_structures(tasks)`` (the targets ignored), the observational task's structure;
* ``known``: the interventional learner with the targets, as a user gets it (``learn_structures(tasks,
  interventions=targets)``: ``intervention_type="auto"``, the model, mechanism changes or activity interventions,
  and the adjacencies, the multitask learner's or the tied score's, chosen together on 20% held-out rows);
* ``known-mechanism``: the same with the model fixed to mechanism changes (the given targets the only changes
  of their tasks; the ``known`` of the trials run before "auto" became the default);
* ``known-activity``: the same with the model fixed to activity interventions (the targets' children change);
* ``known-multitask``: ``known-mechanism`` with the multitask learner's adjacencies kept (``skeleton="multitask"``,
  the default before; the variants below run with it too, except ``known-free``);
* ``known-free``: the same without fixed adjacencies (``skeleton="search"``: the tied score decides them too);
* ``known-further``: ``known-multitask`` with ``further_changes=True`` (changes besides the given targets);
* ``known-perfect``: ``intervention_type="perfect"`` (Cooper & Yoo);
* ``unknown``: ``interventions={"observational": []}``: every other task's targets unknown, learned (as a user
  gets it: the held-out choice of the adjacencies); the precision and recall of the changed mechanisms it finds
  are recorded;
* ``unknown-multitask``: the same with the multitask learner's adjacencies kept (the ``unknown`` of the trials
  run before the held-out choice became the default).

The interventional methods run :func:`mtbn.learn.interventional.learn_interventional` with the ``default``
method's result as their first stage (``adjacencies_from``: the computation ``learn_structures(tasks,
interventions=...)`` runs itself, here with the trial's seed and done once); their seconds include it.

Every trial is one CSV file in ``experiments/out/interventions/<network>_<rows>_<kind>/``; a killed run resumes,
and a trial file without some of ``--methods`` gets only those run and added (the rest of a trial does not
depend on which methods run: the tasks and the seed come from the trial number).
``table.md`` there (and ``experiments/out/interventions/table.md`` for all cells): per cell and method the
mean ED, reversals and SHD, and paired comparisons (t-test, Wilcoxon, Holm over every comparison of the
table) of ``known``, ``unknown`` and ``known-mechanism`` against ``pooled`` and ``default``.
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from _common import OUT, progress, run_resumable, write_out

from mtbn.benchmarks import make_interventional_tasks
from mtbn.data import DiscreteData, make_taskset
from mtbn.graph import DAG, cpdag_distance, edit_distance
from mtbn.learn import learn_structure, learn_structures
from mtbn.learn.interventional import learn_interventional
from mtbn.networks import sample
from mtbn.stats import holm, paired_comparison

FOLDER = os.path.join(OUT, "interventions")
METHODS = ("pooled", "default", "known", "known-mechanism", "known-activity", "known-multitask", "known-free",
           "known-further", "known-perfect", "unknown", "unknown-multitask")
#: The methods run by default.
RUN = METHODS
MECHANISM = {"intervention_type": "mechanism"}
#: Each interventional method's settings of ``learn_interventional``.
SETTINGS = {"known": {}, "known-mechanism": MECHANISM, "known-activity": {"intervention_type": "activity"},
            "known-multitask": {"skeleton": "multitask", **MECHANISM},
            "known-free": {"skeleton": "search", **MECHANISM},
            "known-further": {"further_changes": True, "skeleton": "multitask", **MECHANISM},
            "known-perfect": {"intervention_type": "perfect", "skeleton": "multitask"},
            "unknown": {}, "unknown-multitask": {"skeleton": "multitask"}}
COMPARISONS = (("known", "pooled"), ("known", "default"), ("unknown", "pooled"), ("unknown", "default"),
               ("known-mechanism", "pooled"), ("known-mechanism", "default"))


def _reversals(graph, truth):
    true = set(truth.edges(names=True))
    return sum((v, u) in true for u, v in graph.edges(names=True))


def trial_tasks(network, rows, kind, trial, n_interventions=6):
    """Trial ``trial``'s conditions (seed ``[0, trial]``): ``(taskset, targets, true causal DAG, true changes
    {(task, variable)}, the methods' seed)``."""
    rng = np.random.default_rng([0, trial])
    tasks = make_interventional_tasks(network, n_interventions=n_interventions, kind=kind, random_state=rng)
    truth_net = tasks[0][2]
    truth = DAG([set(p) for p in truth_net.parents], truth_net.names)
    data = {name: DiscreteData(sample(net, rows, random_state=rng).codes, net.names, net.states, name)
            for name, _, net in tasks}
    targets = {name: list(t) for name, t, _ in tasks}
    true_changes = {(name, truth_net.names[v]) for name, _, net in tasks for v in range(net.n_vars)
                    if net.parents[v] != truth_net.parents[v] or not np.array_equal(net.cpts[v], truth_net.cpts[v])}
    return make_taskset(data), targets, truth, true_changes, int(rng.integers(2**31))


def run_trial(network, rows, kind, trial, n_interventions, methods):
    """One trial's rows: per method the distances to the true causal DAG, seconds, changed-mechanism recovery."""
    warnings.simplefilter("ignore")
    ts, targets, truth, true_changes, seed = trial_tasks(network, rows, kind, trial, n_interventions)
    out = []
    t0 = time.perf_counter()
    default = learn_structures(ts, random_state=seed)  # the default, and the interventional methods' first stage
    default_seconds = time.perf_counter() - t0
    for method in methods:
        t0 = time.perf_counter()
        extra = {}
        if method == "pooled":
            graph = learn_structure(ts.pooled(), random_state=seed).graph
        elif method == "default":
            graph = default.graphs[0]
        else:
            given = {"observational": []} if method.startswith("unknown") else targets
            res = learn_interventional(ts, given, random_state=seed, adjacencies_from=default, **SETTINGS[method])
            graph = res.interventions.causal_graph
            found = {(t, v) for t, per in res.interventions.changed.items() for v in per}
            extra = {"changes_found": len(found), "changes_true_found": len(found & true_changes),
                     "changes_true": len(true_changes), "type": res.interventions.type}
        seconds = time.perf_counter() - t0 + (default_seconds if method != "pooled" else 0.0)
        out.append({"network": network, "rows": rows, "kind": kind, "trial": trial, "method": method,
                    "edit_distance": edit_distance(graph, truth), "reversals": _reversals(graph, truth),
                    "cpdag_shd": cpdag_distance(graph, truth), "n_edges": graph.n_edges, "true_edges": truth.n_edges,
                    "seconds": seconds, **extra})
    return pd.DataFrame(out)


def _cell_folder(network, rows, kind):
    return os.path.join(FOLDER, f"{network}_{rows}_{kind}")


def run_cell(network, rows, kind, trials, n_interventions, methods):
    folder = _cell_folder(network, rows, kind)
    progress(f"{network}, {rows} rows, {kind}: {trials} trials")
    def path(t):
        return os.path.join(folder, f"trial_{t:03d}.csv")

    def have(t):
        return pd.read_csv(path(t)) if os.path.exists(path(t)) else None

    def missing(t):
        old = have(t)
        return [m for m in methods if old is None or m not in set(old["method"])]

    def compute(t):
        old, new = have(t), run_trial(network, rows, kind, t, n_interventions, missing(t))
        return new if old is None else pd.concat([old, new], ignore_index=True)

    run_resumable(range(trials), path, compute, done=lambda p: not missing(int(p[-7:-4])))
    return stored(folder)


def stored(folder):
    files = sorted(f for f in os.listdir(folder) if f.startswith("trial_") and f.endswith(".csv")) \
        if os.path.isdir(folder) else []
    return pd.concat([pd.read_csv(os.path.join(folder, f)) for f in files], ignore_index=True) if files else None


def _comparisons(results):
    """The paired comparisons of :data:`COMPARISONS` in every cell, ``(network, rows, kind, method, baseline,
    paired_comparison)`` each, and their t-test p-values Holm-corrected over all of them."""
    comparisons = []
    for (network, rows, kind), cell in results.groupby(["network", "rows", "kind"], sort=False):
        per = cell.pivot_table(index="trial", columns="method", values="edit_distance")
        for a, b in COMPARISONS:
            if a in per and b in per:
                both = per[[a, b]].dropna()
                comparisons.append((network, rows, kind, a, b, paired_comparison(both[a], both[b])))
    return comparisons, holm([c[5]["p_t"] for c in comparisons])


def verdicts(results):
    """Markdown: per cell, the mean ED differences of the learner as a user gets it (``known``, ``unknown``)
    from pooling and the default (``*``: significant after Holm over every comparison, as in :func:`table`;
    ``(worse)``: significantly higher), the recall of the changed mechanisms with unknown targets, and the
    trials in which ``known`` chose activity interventions; then the counts over the cells."""
    comparisons, adjusted = _comparisons(results)
    found = {(n, r, k, a, b): (c, p) for (n, r, k, a, b, c), p in zip(comparisons, adjusted)}
    lines = ["| network | rows | kind | " + " | ".join(f"{a} - {b}" for a, b in COMPARISONS)
             + " | unknown: recall / precision of the changes | known: trials choosing activity |",
             "|---" * (len(COMPARISONS) + 5) + "|"]
    count = {key: [0, 0, 0, 0] for key in COMPARISONS}  # cells, lower, significantly lower, significantly higher
    recall_1000 = []
    for (network, rows, kind), cell in results.groupby(["network", "rows", "kind"], sort=False):
        cells = []
        for a, b in COMPARISONS:
            if (network, rows, kind, a, b) not in found:
                cells.append("")
                continue
            c, p = found[network, rows, kind, a, b]
            tally = count[a, b]
            tally[0] += 1
            tally[1] += c["mean_diff"] < 0
            tally[2] += p < 0.05 and c["mean_diff"] < 0
            tally[3] += p < 0.05 and c["mean_diff"] > 0
            cells.append(f"{c['mean_diff']:+.2f}" + ("*" if p < 0.05 and c["mean_diff"] < 0 else "")
                         + (" (worse)" if p < 0.05 and c["mean_diff"] > 0 else ""))
        part = cell[cell["method"] == "unknown"]
        changes = ""
        if len(part) and part["changes_true"].notna().all():
            recall = part["changes_true_found"].sum() / part["changes_true"].sum()
            changes = f"{recall:.2f} / {part['changes_true_found'].sum() / max(part['changes_found'].sum(), 1):.2f}"
            if rows == 1000:
                recall_1000.append(recall)
        known = cell[cell["method"] == "known"]
        chose = f"{int((known['type'] == 'activity').sum())} of {len(known)}" \
            if len(known) and "type" in known and known["type"].notna().all() else ""
        lines.append(f"| {network} | {rows} | {kind} | " + " | ".join(cells) + f" | {changes} | {chose} |")
    lines.append("")
    for (a, b), (n, lower, sig, worse) in count.items():
        lines.append(f"- `{a}` against `{b}`: lower in {lower} of {n} cells, significantly lower in {sig}, "
                     f"significantly higher in {worse}.")
    if recall_1000:
        lines.append(f"- `unknown`, 1,000 rows per task: recall of the changed mechanisms {min(recall_1000):.2f} to "
                     f"{max(recall_1000):.2f} over {len(recall_1000)} cells.")
    return "\n".join(lines) + "\n"


def table(results):
    """Markdown: per cell and method the means; then the paired comparisons with Holm-corrected p-values."""
    lines = ["| network | rows | kind | trials | method | ED | reversals | CPDAG SHD | edges (true) | "
             "changes: recall | precision | seconds |", "|---" * 12 + "|"]
    for (network, rows, kind), cell in results.groupby(["network", "rows", "kind"], sort=False):
        for method in [m for m in METHODS if m in set(cell["method"])]:
            part = cell[cell["method"] == method]
            n_trials = part["trial"].nunique()
            recall = precision = ""
            if "changes_true" in part and part["changes_true"].notna().all():
                recall = f"{part['changes_true_found'].sum() / part['changes_true'].sum():.2f}"
                precision = f"{part['changes_true_found'].sum() / max(part['changes_found'].sum(), 1):.2f}"
            lines.append(f"| {network} | {rows} | {kind} | {n_trials} | {method} | {part['edit_distance'].mean():.2f} "
                         f"| {part['reversals'].mean():.2f} | {part['cpdag_shd'].mean():.2f} | "
                         f"{part['n_edges'].mean():.1f} ({part['true_edges'].iloc[0]}) | {recall} | {precision} | "
                         f"{part['seconds'].mean():.1f} |")
    comparisons, adjusted = _comparisons(results)
    lines += ["", "Paired differences of the edit distance to the true causal DAG (method minus baseline; negative = "
                  "closer), 95% t interval, paired t-test and Wilcoxon p-values, t-test p Holm-corrected over every "
                  "row of this table:", "",
              "| network | rows | kind | method | baseline | mean difference [95% CI] | p (t) | p (Wilcoxon) | "
              "p (Holm) | significantly lower |", "|---" * 10 + "|"]
    for (network, rows, kind, a, b, c), p_holm in zip(comparisons, adjusted):
        lower = "yes" if p_holm < 0.05 and c["mean_diff"] < 0 else "no"
        lines.append(f"| {network} | {rows} | {kind} | {a} | {b} | {c['mean_diff']:+.2f} [{c['ci_low']:+.2f}, "
                     f"{c['ci_high']:+.2f}] | {c['p_t']:.2g} | {c['p_wilcoxon']:.2g} | {p_holm:.2g} | {lower} |")
    lines += ["", "The held-out choice of the adjacencies (`known`, `unknown`) against keeping the first stage's "
                  "(`known-multitask`, `unknown-multitask`): paired differences of the edit distance, unadjusted.", "",
              "| network | rows | kind | targets | trials | mean difference [95% CI] | p (t) | trials whose ED differs |",
              "|---" * 8 + "|"]
    for (network, rows, kind), cell in results.groupby(["network", "rows", "kind"], sort=False):
        per = cell.pivot_table(index="trial", columns="method", values="edit_distance")
        for method in ("known", "unknown"):
            if method in per and f"{method}-multitask" in per:
                both = per[[method, f"{method}-multitask"]].dropna()
                c = paired_comparison(both[method], both[f"{method}-multitask"])
                chose = both[method].ne(both[f"{method}-multitask"]).sum()
                lines.append(f"| {network} | {rows} | {kind} | {method} | {len(both)} | {c['mean_diff']:+.2f} "
                             f"[{c['ci_low']:+.2f}, {c['ci_high']:+.2f}] | {c['p_t']:.2g} | {chose} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", nargs="+", default=["sachs", "insurance", "alarm", "hepar2", "win95pts"])
    ap.add_argument("--rows", nargs="+", type=int, default=[250, 1000])
    ap.add_argument("--kinds", nargs="+", default=["mechanism", "perfect", "activity"])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--interventions", type=int, default=6)
    ap.add_argument("--methods", nargs="+", default=list(RUN), choices=METHODS)
    ap.add_argument("--table-only", action="store_true", help="rewrite the tables from the stored cells, run nothing")
    args = ap.parse_args()
    if not args.table_only:
        for network in args.networks:
            for rows in args.rows:
                for kind in args.kinds:
                    run_cell(network, rows, kind, args.trials, args.interventions, args.methods)
    write_tables()


def write_tables():
    """``table.md`` and ``verdicts.md`` from every stored cell (not only those of this run: running some
    networks must not shrink the tables to them), networks in the order of ``--networks``' default."""
    order = ("sachs", "insurance", "alarm", "hepar2", "win95pts")
    cells = sorted((d for d in os.listdir(FOLDER) if os.path.isdir(os.path.join(FOLDER, d))),
                   key=lambda d: (order.index(d.split("_")[0]) if d.split("_")[0] in order else len(order),
                                  int(d.split("_")[1]), d.split("_")[2]))
    frames = [f for f in (stored(os.path.join(FOLDER, d)) for d in cells) if f is not None]
    if not frames:
        return
    results = pd.concat(frames, ignore_index=True)
    write_out("interventions/table.md", table(results))
    write_out("interventions/verdicts.md", verdicts(results))


if __name__ == "__main__":
    main()
