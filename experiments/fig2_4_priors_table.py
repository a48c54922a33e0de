"""Figure 2.4 table: the three priors against each other (paired t-tests across trials).

Run after ``fig2_4_2_5_problems.py``: ``python experiments/fig2_4_priors_table.py``.
Reads ``experiments/out/problems/<problem>/results.csv`` and writes
``experiments/out/problems/priors.md``: per problem, the mean edit distance
and KL of MTL (Paired, double reversal), MTL-SINGLE (Paired, single) and
MTL-EDIT (Edit prior), and the paired t-test p-value of every pair of priors.
"""

import itertools
import os

import pandas as pd
from _common import OUT
from scipy import stats

PROBLEMS = ("alarm", "alarm-ind", "insurance", "insurance-ind", "alarm-comp")
PRIORS = {"mtl-edit": "Edit", "mtl-single": "Paired/Single", "mtl": "Paired/Double"}


def main():
    lines = ["| problem | metric | " + " | ".join(PRIORS.values()) + " | "
             + " | ".join(f"p {PRIORS[a]} vs {PRIORS[b]}" for a, b in itertools.combinations(PRIORS, 2)) + " |",
             "|---" * (2 + len(PRIORS) + 3) + "|"]
    for problem in PROBLEMS:
        res = pd.read_csv(os.path.join(OUT, "problems", problem, "results.csv"))
        per = res.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
        for col in ("edit_distance", "kl"):
            means = [f"{per.loc[m][col].mean():.4g}" for m in PRIORS]
            ps = [f"{stats.ttest_rel(per.loc[a][col], per.loc[b][col]).pvalue:.2g}"
                  for a, b in itertools.combinations(PRIORS, 2)]
            lines.append(f"| {problem} | {col.replace('_', ' ')} | " + " | ".join(means) + " | " + " | ".join(ps) + " |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "problems", "priors.md"), "w", encoding="utf-8") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
