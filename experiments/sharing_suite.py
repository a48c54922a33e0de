"""Parameter sharing and the pooled structure in the default, cell by cell of the robustness suite (issue 32).

Run: ``python experiments/selection_cost.py --name robustness-share --baseline robustness-refine`` (from a
checkout whose default is ``parameter_sharing="auto"``) to learn the cells, then
``python experiments/sharing_suite.py`` to write ``experiments/out/robustness-share/sharing.md``.

Per cell, over the trials the new run has: mean KL of STL and POOLED (stored in
``experiments/out/robustness/``), of the previous default (``robustness-refine``: each task's CPTs alone)
and of the new one; the new default's KL minus the better of STL and POOLED (by cell mean) with the paired
t-test's p; the new minus the previous default (KL, ED, CPDAG SHD) with p (†: a cell the cheaper selection was
not run on, paired with the default before it, the suite's MTL rows); and the trials in which some task's edit
distance differs from the previous default's ("structures changed": the pooled structure was chosen, since
otherwise the two defaults run the same searches; a pooled structure at the same distances would not be
counted).
"""

import glob
import os

import numpy as np
import pandas as pd
from _common import OUT, write_out

from mtbn.stats import paired_comparison

NEW, OLD, SUITE = "robustness-share", "robustness-refine", "robustness"


def _trials(name, cell):
    files = sorted(glob.glob(os.path.join(OUT, name, cell, "trials", "*.csv")))
    return pd.concat([pd.read_csv(f) for f in files], ignore_index=True) if files else None


def _per_trial(frame, method, col, trials):
    part = frame[(frame["method"] == method) & frame["trial"].isin(trials)]
    return part.groupby("trial")[col].mean().reindex(trials).to_numpy()


def _cells():
    return sorted(os.path.basename(d) for d in glob.glob(os.path.join(OUT, NEW, "*_*")) if os.path.isdir(d))


def cell_row(cell):
    new, old, suite = _trials(NEW, cell), _trials(OLD, cell), _trials(SUITE, cell)
    label = cell
    if old is None:  # a cell the cheaper selection was not run on: the default before it (the suite's MTL)
        old, label = suite, cell + " †"
    if new is None or suite is None:
        return None
    trials = sorted(set(new["trial"]) & set(old["trial"]) & set(suite["trial"]))
    row = {"cell": label, "trials": len(trials), "related": "unrelated" not in cell}
    for method, frame, label in (("stl", suite, "stl"), ("pooled", suite, "pooled"), ("mtl", old, "old"),
                                 ("mtl", new, "new")):
        for col in ("kl", "edit_distance", "cpdag_shd"):
            row[(label, col)] = _per_trial(frame, method, col, trials)
    best = "stl" if row[("stl", "kl")].mean() <= row[("pooled", "kl")].mean() else "pooled"
    row["best"] = best
    row["vs_best"] = paired_comparison(row[("new", "kl")], row[(best, "kl")])
    for col in ("kl", "edit_distance", "cpdag_shd"):
        row[("vs_old", col)] = paired_comparison(row[("new", col)], row[("old", col)])
    changed = 0
    for t in trials:
        a = new[(new["trial"] == t) & (new["method"] == "mtl")]["edit_distance"].to_numpy()
        b = old[(old["trial"] == t) & (old["method"] == "mtl")]["edit_distance"].to_numpy()
        changed += int(not np.array_equal(a, b))
    row["changed"] = changed
    return row


def _p(c):
    p = c["p_t"]
    return "-" if not np.isfinite(p) else f"{p:.2g}" + (" *" if p < 0.05 else "")


def table(rows):
    lines = ["| cell | trials | KL STL | KL POOLED | KL old | KL new | new - min(STL, POOLED), p | KL new - old, p "
             "| ED old | ED new | ED new - old, p | CPDAG old | CPDAG new | CPDAG new - old, p | structures changed |",
             "|---" * 15 + "|"]
    for r in rows:
        m = {k: r[k].mean() for k in r if isinstance(k, tuple) and isinstance(r[k], np.ndarray)}
        vb, vk, ve, vc = r["vs_best"], r[("vs_old", "kl")], r[("vs_old", "edit_distance")], r[("vs_old", "cpdag_shd")]
        lines.append(
            f"| {r['cell']} | {r['trials']} | {m[('stl', 'kl')]:.4f} | {m[('pooled', 'kl')]:.4f} | "
            f"{m[('old', 'kl')]:.4f} | {m[('new', 'kl')]:.4f} | {vb['mean_diff']:+.4f} ({r['best'].upper()}), "
            f"{_p(vb)} | {vk['mean_diff']:+.4f}, {_p(vk)} | {m[('old', 'edit_distance')]:.1f} | "
            f"{m[('new', 'edit_distance')]:.1f} | {ve['mean_diff']:+.2f}, {_p(ve)} | {m[('old', 'cpdag_shd')]:.1f} | "
            f"{m[('new', 'cpdag_shd')]:.1f} | {vc['mean_diff']:+.2f}, {_p(vc)} | {r['changed']}/{r['trials']} |")
    return "\n".join(lines) + "\n"


def _same_as_stl(row):
    """Per trial: the new default's mean ED and CPDAG distance equal STL's and its KL too, to 1e-9 (STL's rows were
    computed by an earlier version of the code, which sums in another order)."""
    return ((row[("new", "edit_distance")] == row[("stl", "edit_distance")])
            & (row[("new", "cpdag_shd")] == row[("stl", "cpdag_shd")])
            & np.isclose(row[("new", "kl")], row[("stl", "kl")], rtol=0, atol=1e-9))


def verdicts(rows):
    related = [r for r in rows if r["related"]]
    above = [r["cell"] for r in related if r["vs_best"]["mean_diff"] > 0 and r["vs_best"]["p_t"] < 0.05]
    worse = [f"{r['cell']} ({col})" for r in rows for col in ("edit_distance", "cpdag_shd")
             if r[("vs_old", col)]["mean_diff"] > 0 and r[("vs_old", col)]["p_t"] < 0.05]
    unrelated = [r for r in rows if not r["related"]]
    equal = [f"{r['cell']}: {int(np.sum(_same_as_stl(r)))}/{r['trials']}" for r in unrelated]
    old = np.mean([r[("old", "kl")].mean() for r in related]) if related else float("nan")
    new = np.mean([r[("new", "kl")].mean() for r in related]) if related else float("nan")
    out = [f"Related cells: {len(related)}. New default's mean KL significantly above min(STL, POOLED) "
           f"(paired t-test, p < 0.05): {', '.join(above) or 'none'}.",
           f"Mean over the related cells' mean KL: previous default {old:.4f}, new {new:.4f}.",
           f"ED or CPDAG SHD significantly worse than the previous default: {', '.join(worse) or 'none'}.",
           f"Unrelated cells, trials whose ED, CPDAG distance and KL (to 1e-9) equal STL's: {'; '.join(equal) or 'none run'}."]
    return "\n\n".join(out) + "\n"


def main():
    rows = [r for r in (cell_row(c) for c in _cells()) if r is not None]
    text = table(rows) + "\n" + verdicts(rows)
    write_out(os.path.join(NEW, "sharing.md"), text)


if __name__ == "__main__":
    main()
