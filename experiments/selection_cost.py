"""The cheaper penalty selection against the previous default, cell by cell of the robustness suite (issue 30).

Run: ``python experiments/selection_cost.py [--problems alarm sachs ...] [--rows 250 1000] [--trials 10]``

For each cell of the robustness suite (``experiments/robustness.py``) it runs
the default learner (``mtl``: ``penalty_search="refine"``, 2 single-task and
TSK restarts per fold, no empty start during selection) on the same trials
(same data, same seed) into ``experiments/out/robustness-refine/<cell>/``,
and pairs it trial by trial with the previous default's ``mtl`` rows stored
in ``experiments/out/robustness/<cell>/`` (every grid point, 10 restarts per
fold, three starts). A killed run resumes from the trials already written.
Writes ``experiments/out/robustness-refine/table.md``: mean ED, CPDAG SHD
and KL of both, paired t-test p-values (new - old; positive = new worse),
and how often the chosen penalty and the structures are the same (the cost
is measured side by side in ``benchmarks/bench_default_learn.py``).
"""

import argparse
import os

import numpy as np
import pandas as pd
from _common import OUT, jobs, progress, write_out

from mtbn.evaluate import run_benchmark
from mtbn.stats import paired_comparison

CELLS = [(p, r) for p in ("sachs", "sachs-ind", "sachs-unrelated", "alarm", "alarm-unrelated", "hepar2",
                          "hepar2-ind", "win95pts", "win95pts-ind", "andes", "andes-ind")
         for r in (250, 1000) if (p, r) not in (("alarm", 250), ("alarm-unrelated", 250))]


def run_cell(problem, rows, trials, name="robustness-refine"):
    out = os.path.join(OUT, name, f"{problem}_{rows}")
    progress(f"{problem}, {rows} rows, {trials} trials -> {out}")
    results, _ = run_benchmark(problem, out, n_trials=trials, n_train=rows, n_test=5000, methods=("mtl",),
                               n_restarts=20, n_jobs=jobs(), progress=progress, plots=False)
    return results


def _stored(folder):
    files = sorted(f for f in os.listdir(folder) if f.endswith(".csv")) if os.path.isdir(folder) else []
    return pd.concat([pd.read_csv(os.path.join(folder, f)) for f in files], ignore_index=True) if files else None


def compare(problem, rows, name="robustness-refine", baseline="robustness"):
    """One table row: the new default (in ``name``) against the stored one (``baseline``) over the trials both have."""
    new = _stored(os.path.join(OUT, name, f"{problem}_{rows}", "trials"))
    old = _stored(os.path.join(OUT, baseline, f"{problem}_{rows}", "trials"))
    if new is None or old is None:
        return None
    old = old[old["method"] == "mtl"]
    trials = sorted(set(new["trial"]) & set(old["trial"]))
    cols = ["edit_distance", "cpdag_shd", "kl"]
    a = new[new["trial"].isin(trials)].groupby("trial")
    b = old[old["trial"].isin(trials)].groupby("trial")
    row = {"problem": problem, "rows": rows, "trials": len(trials)}
    for col in cols:
        x, y = a[col].mean().values, b[col].mean().values
        c = paired_comparison(x, y)
        row[col] = (y.mean(), x.mean(), c["mean_diff"], c["p_t"])
    row["same penalty"] = int(sum(a["penalty"].first().values == b["penalty"].first().values))
    row["same structures"] = int(sum(np.array_equal(a.get_group(t)["edit_distance"].values,
                                                    b.get_group(t)["edit_distance"].values) for t in trials))
    return row


def table(rows):
    lines = ["| problem | rows | trials | ED old | ED new | ED new-old, p | CPDAG old | CPDAG new "
             "| CPDAG new-old, p | KL old | KL new | KL new-old, p | same penalty | same ED per task |",
             "|---" * 14 + "|"]
    for r in rows:
        cells = [r["problem"], str(r["rows"]), str(r["trials"])]
        for col, fmt in (("edit_distance", "{:.1f}"), ("cpdag_shd", "{:.1f}"), ("kl", "{:.4f}")):
            old, new, d, p = r[col]
            star = " *" if p < 0.05 else ""
            diff = "{:+.2f}".format(d) if col != "kl" else "{:+.4f}".format(d)
            cells += [fmt.format(old), fmt.format(new), f"{diff}, {p:.2g}{star}" if np.isfinite(p) else f"{diff}, -"]
        cells += [f"{r['same penalty']}/{r['trials']}", f"{r['same structures']}/{r['trials']}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="*")
    ap.add_argument("--rows", nargs="*", type=int)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--name", default="robustness-refine", help="output folder under experiments/out")
    ap.add_argument("--baseline", default="robustness", help="folder of the stored default to pair with")
    args = ap.parse_args()
    cells = [(p, r) for p, r in CELLS if (not args.problems or p in args.problems)
             and (not args.rows or r in args.rows)]
    if not args.table_only:
        for p, r in cells:
            run_cell(p, r, args.trials, args.name)
    rows = [r for r in (compare(p, r, args.name, args.baseline) for p, r in CELLS) if r is not None]
    write_out(os.path.join(args.name, "table.md"), table(rows))


if __name__ == "__main__":
    main()
