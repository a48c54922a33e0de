"""Figure 2.5 table: STL vs IDENTICAL vs POOLED vs MTL on the five problems.

Run after ``fig2_4_2_5_problems.py``: ``python experiments/fig2_5_table.py``.
Writes ``experiments/out/problems/fig2_5.md`` (mean ± sd over trials of the
per-trial mean over tasks; reduction relative to STL and to IDENTICAL;
paired t-test p-values against STL across trials), and
``experiments/out/problems/fig2_5_tests.md``: the paper's four claims per
problem (MTL lower than STL and than IDENTICAL, in edit distance and KL) as
paired comparisons across trials, with the mean difference, its 95%
interval, the paired t-test and the Wilcoxon signed-rank test, Holm's
correction across the 20 comparisons of the figure, and "agrees?" decided by
the corrected t-test.
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
    tests = claim_tests()
    with open(os.path.join(OUT, "problems", "fig2_5_tests.md"), "w", encoding="utf-8") as fh:
        fh.write(tests)
    print(tests)


# The paper's claims for Figure 2.5 (1000 rows): MTL has lower values than the reference.
CLAIMS = (("stl", "edit_distance", "10-54% lower"), ("stl", "kl", "2-13% lower"),
          ("identical", "edit_distance", "4-60% fewer incorrect edges"), ("identical", "kl", "7-32% lower"))


def claim_tests():
    import numpy as np

    from mtbn.stats import holm, paired_comparison

    rows = []
    for problem in PROBLEMS:
        res = pd.read_csv(os.path.join(OUT, "problems", problem, "results.csv"))
        per = res.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
        for ref, col, paper in CLAIMS:
            a, b = per.loc["mtl"][col], per.loc[ref][col]
            c = paired_comparison(a.values, b.loc[a.index].values)
            rows.append(dict(problem=problem, ref=ref, col=col, paper=paper, rel=100 * c["mean_diff"] / b.mean(), **c))
    adjusted = holm([r["p_t"] for r in rows])
    fmt = (lambda col, x: f"{x:+.2f}" if col == "edit_distance" else f"{x:+.4f}")
    lines = ["| problem | MTL vs | metric | paper | mean difference (95% CI) | change | p (t) | p (Wilcoxon) "
             "| p (t, Holm) | agrees? |", "|---" * 10 + "|"]
    for r, ph in zip(rows, adjusted):
        if ph < 0.05:
            verdict = "yes" if r["mean_diff"] < 0 else "no: MTL significantly higher"
        else:
            verdict = "not shown (difference not significant after Holm)"
        lines.append(
            f"| {r['problem']} | {r['ref'].upper()} | {'ED' if r['col'] == 'edit_distance' else 'KL'} | {r['paper']} "
            f"| {fmt(r['col'], r['mean_diff'])} ({fmt(r['col'], r['ci_low'])}, {fmt(r['col'], r['ci_high'])}) "
            f"| {r['rel']:+.1f}% | {r['p_t']:.2g} | {r['p_wilcoxon']:.2g} | {ph:.2g} | {verdict} |")
    n_yes = sum(ph < 0.05 and r["mean_diff"] < 0 for r, ph in zip(rows, adjusted))
    lines += ["", f"{n_yes} of {len(rows)} claims supported at the 0.05 level after Holm's correction "
                  f"({int(np.asarray(rows[0]['n']))} paired trials each). Differences are MTL minus the reference "
                  "(negative = MTL lower, as the paper claims); 'change' is that difference relative to the "
                  "reference's mean. A non-significant difference is not evidence that the methods are equal."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
