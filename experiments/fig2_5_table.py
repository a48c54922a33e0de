"""Figure 2.5 table: STL vs IDENTICAL vs POOLED vs MTL on the five problems.

Run after ``fig2_4_2_5_problems.py``: ``python experiments/fig2_5_table.py``.
Writes ``experiments/out/problems/fig2_5.md`` (mean ± sd over trials of the
per-trial mean over tasks; reduction relative to STL and to IDENTICAL;
paired t-test p-values against STL across trials).
"""

import os

import pandas as pd
from _common import OUT
from scipy import stats

PROBLEMS = ("alarm", "alarm-ind", "insurance", "insurance-ind", "alarm-comp")
METHODS = ("stl", "identical", "pooled", "mtl", "mtl-oracle")


def main():
    lines = ["| problem | method | edit distance | KL | ED vs STL | KL vs STL | KL vs IDENTICAL | ED vs IDENTICAL "
             "| p ED vs STL | p KL vs STL |", "|---" * 10 + "|"]
    for problem in PROBLEMS:
        res = pd.read_csv(os.path.join(OUT, "problems", problem, "results.csv"))
        per = res.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
        stl, ide = per.loc["stl"], per.loc["identical"]
        for m in METHODS:
            d = per.loc[m]

            def red(base, col):
                return f"{100 * (base[col].mean() - d[col].mean()) / base[col].mean():+.1f}%"

            p = ["", ""] if m == "stl" else [f"{stats.ttest_rel(d[c], stl[c]).pvalue:.2g}" for c in ("edit_distance", "kl")]
            lines.append(
                f"| {problem} | {m.upper()} | {d['edit_distance'].mean():.2f} ± {d['edit_distance'].std(ddof=1):.2f} "
                f"| {d['kl'].mean():.4f} ± {d['kl'].std(ddof=1):.4f} "
                f"| {'' if m == 'stl' else red(stl, 'edit_distance')} | {'' if m == 'stl' else red(stl, 'kl')} "
                f"| {'' if m == 'identical' else red(ide, 'kl')} | {'' if m == 'identical' else red(ide, 'edit_distance')} "
                f"| {p[0]} | {p[1]} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "problems", "fig2_5.md"), "w", encoding="utf-8") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
