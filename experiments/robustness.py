"""Robustness suite (issue 9): does the default transfer hold up on networks nobody tuned for?

Run: ``python experiments/robustness.py [--problems sachs hepar2 ...] [--rows 250 1000] [--trials 10]``

Each (problem, rows) cell is one ``mtbn bench`` run (5 tasks, P_del = 0.05,
seed 0) in ``experiments/out/robustness/<problem>_<rows>/``; a killed run
resumes from the trials already written. Methods: STL, IDENTICAL, POOLED,
MTL (the default: 5-fold CV, one-SE rule, negative-transfer guard), MTL-PAPER
(50 validation rows, best score, no guard) and MTL-ORACLE (the best grid
point of MTL-PAPER's path by edit distance). 5000 test rows per task for KL.

The table ``experiments/out/robustness/table.md`` gives, per cell, the mean
edit distance, CPDAG SHD and KL of STL, MTL and MTL-PAPER, the paired t-test
p-values of MTL against STL (ED, KL; a positive difference means MTL is
worse), the median chosen penalty, and how often the guard returned the
independent solution.
"""

import argparse
import os

import numpy as np
import pandas as pd
from _common import OUT, jobs, progress, write_out

from mtbn.evaluate import run_benchmark
from mtbn.stats import paired_comparison

METHODS = ("stl", "identical", "pooled", "mtl", "mtl-paper", "mtl-oracle")
#: Trials per cell of the suite; the summaries count only cells that have them all.
SUITE_TRIALS = 10
DEFAULT_PROBLEMS = ("sachs", "sachs-ind", "sachs-unrelated", "hepar2", "hepar2-ind", "win95pts", "win95pts-ind",
                    "alarm-unrelated")


def cell(problem, rows, trials):
    out = os.path.join(OUT, "robustness", f"{problem}_{rows}")
    progress(f"{problem}, {rows} rows, {trials} trials -> {out}")
    results, _ = run_benchmark(problem, out, n_trials=trials, n_train=rows, n_test=5000, methods=METHODS,
                               n_restarts=20, n_jobs=jobs(), progress=progress, plots=False)
    return results


def stored(out):
    """A cell's results: its results.csv, or, while the cell is still running, its finished trials."""
    if os.path.exists(os.path.join(out, "results.csv")):
        return pd.read_csv(os.path.join(out, "results.csv"))
    folder = os.path.join(out, "trials")
    files = sorted(f for f in os.listdir(folder) if f.endswith(".csv")) if os.path.isdir(folder) else []
    if not files:
        return None
    return pd.concat([pd.read_csv(os.path.join(folder, f)) for f in files], ignore_index=True)


def summarise_cell(problem, rows, results):
    per = results.groupby(["method", "trial"])[["edit_distance", "cpdag_shd", "kl"]].mean()
    row = {"problem": problem, "rows": rows, "trials": results["trial"].nunique()}
    for m in ("stl", "mtl", "mtl-paper", "identical", "pooled", "mtl-oracle"):
        for col in ("edit_distance", "cpdag_shd", "kl"):
            row[f"{m}:{col}"] = per.loc[m][col].mean()
    for col in ("edit_distance", "kl"):
        c = paired_comparison(per.loc["mtl"][col].values, per.loc["stl"][col].values)
        row[f"diff:{col}"], row[f"p:{col}"] = c["mean_diff"], c["p_t"]
        row[f"ci:{col}"] = (c["ci_low"], c["ci_high"])
    c = paired_comparison(per.loc["mtl"]["edit_distance"].values, per.loc["mtl-paper"]["edit_distance"].values)
    row["diff:paper"], row["p:paper"] = c["mean_diff"], c["p_t"]
    row["seconds"] = float(results.groupby("trial")["seconds"].sum().mean())
    mtl = results[results["method"] == "mtl"].groupby("trial").first()
    row["penalty"] = float(np.median(mtl["penalty"]))
    row["guard"] = int((mtl["transfer"].isin(["none", "rejected"])).sum())
    row["equal_stl"] = int(sum(
        np.array_equal(per.loc["mtl"].loc[t].values, per.loc["stl"].loc[t].values) for t in per.loc["mtl"].index))
    return row


def table(rows):
    head = ("| problem | rows | trials | ED STL | ED MTL | ED MTL-PAPER | ED ORACLE | ED IDENT | ED POOLED "
            "| CPDAG STL | CPDAG MTL | KL STL | KL MTL | KL MTL-PAPER | ED MTL-STL (95% CI), p | KL MTL-STL, p "
            "| ED MTL-(MTL-PAPER), p | median 1-delta | guard fired | MTL = STL |")
    lines = [head, "|---" * 20 + "|"]
    for r in rows:
        def p(key):
            value = r[f"p:{key}"]
            return "n/a" if value != value else f"{value:.2g}" + (" *" if value < 0.05 else "")

        lo, hi = r["ci:edit_distance"]
        ci = "" if lo != lo else f" ({lo:+.1f}, {hi:+.1f})"
        lines.append(
            f"| {r['problem']} | {r['rows']} | {r['trials']} | {r['stl:edit_distance']:.1f} | "
            f"{r['mtl:edit_distance']:.1f} | {r['mtl-paper:edit_distance']:.1f} | {r['mtl-oracle:edit_distance']:.1f} | "
            f"{r['identical:edit_distance']:.1f} | {r['pooled:edit_distance']:.1f} | {r['stl:cpdag_shd']:.1f} | "
            f"{r['mtl:cpdag_shd']:.1f} | {r['stl:kl']:.4f} | {r['mtl:kl']:.4f} | {r['mtl-paper:kl']:.4f} | "
            f"{r['diff:edit_distance']:+.2f}{ci}, {p('edit_distance')} | {r['diff:kl']:+.4f}, {p('kl')} | "
            f"{r['diff:paper']:+.2f}, {p('paper')} | {1 - r['penalty']:.0e} | {r['guard']}/{r['trials']} | "
            f"{r['equal_stl']}/{r['trials']} |")
    related = [r for r in rows if "unrelated" not in r["problem"] and r["trials"] >= SUITE_TRIALS]
    short = [f"{r['problem']} at {r['rows']} rows ({r['trials']} of {SUITE_TRIALS} trials)" for r in rows
             if "unrelated" not in r["problem"] and r["trials"] < SUITE_TRIALS]
    ed_stl = np.mean([r["stl:edit_distance"] for r in related])
    ed_mtl = np.mean([r["mtl:edit_distance"] for r in related])
    cell_red = np.mean([(r["stl:edit_distance"] - r["mtl:edit_distance"]) / r["stl:edit_distance"] for r in related])
    lines += ["", f"Related-task cells with all {SUITE_TRIALS} trials ({len(related)}): mean ED STL {ed_stl:.2f}, "
                  f"MTL {ed_mtl:.2f} ({100 * (ed_stl - ed_mtl) / ed_stl:+.1f}% reduction of the pooled mean; mean "
                  f"of the cells' own reductions {100 * cell_red:+.1f}%)"
                  + (f"; not counted, still running: {'; '.join(short)}." if short else "."),
              "Differences are MTL minus STL (or minus MTL-PAPER): negative = MTL lower (better); p: paired t-test "
              "over trials, * p < 0.05, uncorrected. median 1-delta: of the penalty MTL chose (1e+00 = delta 0). "
              "guard fired: trials where MTL returned the independent solution (the rule chose delta 0, or the guard "
              "rejected the choice). MTL = STL: trials where MTL's per-task ED, CPDAG SHD and KL equal STL's."]
    return "\n".join(lines)


def suite_arguments(doc, flag, default, kinds=None):
    """The command line of a suite of benchmark cells: which cells (``flag``, and ``--kinds`` of ``kinds`` if
    given), their rows and trials, or only the table (this suite's and ``experiments/generalisation.py``'s)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument(flag, nargs="+", default=list(default))
    if kinds:
        ap.add_argument("--kinds", nargs="+", choices=kinds, default=[kinds[0]])
    ap.add_argument("--rows", nargs="+", type=int, default=[250, 1000])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--table-only", action="store_true", help="only rebuild the table from finished cells")
    return ap.parse_args()


def main():
    args = suite_arguments(__doc__, "--problems", DEFAULT_PROBLEMS)
    rows = []
    for problem in args.problems:
        for n in args.rows:
            out = os.path.join(OUT, "robustness", f"{problem}_{n}")
            if args.table_only:
                results = stored(out)
                if results is None:
                    continue
            else:
                results = cell(problem, n, args.trials)
            rows.append(summarise_cell(problem, n, results))
    write_out(os.path.join("robustness", "table.md"), table(rows) + "\n")


if __name__ == "__main__":
    main()
