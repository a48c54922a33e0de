"""Figures 2.4 and 2.5: methods and priors on the five benchmark problems.

Run: ``python experiments/fig2_4_2_5_problems.py [--trials 10] [--jobs 2]``

What it runs: for each problem (ALARM, ALARM-IND, INSURANCE, INSURANCE-IND,
ALARM-COMP), 5 tasks, 1000 training rows per task, P_del = 0.05, 10 trials
(seed 0), test sets of 20000 rows per task, the methods STL, IDENTICAL,
POOLED, MTL (Paired prior, double reversal), MTL-SINGLE (Paired, single
reversal), MTL-EDIT (Edit prior) with the penalty chosen on 50 validation
rows, and MTL-ORACLE (best penalty of MTL's grid on the true structures).
Each problem's results go to ``experiments/out/problems/<problem>/``
(results.csv, summary.md, plots); the combined tables to
``experiments/out/problems/tables.md``. Interrupted runs resume.
"""

import argparse
import os

from _common import OUT, jobs, progress

from mtbn.evaluate import run_benchmark

PROBLEMS = ("alarm", "alarm-ind", "insurance", "insurance-ind", "alarm-comp")
METHODS = ("stl", "identical", "pooled", "mtl", "mtl-single", "mtl-edit", "mtl-oracle")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=jobs())
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    args = ap.parse_args()
    base = os.path.join(OUT, "problems")
    tables = []
    for problem in args.problems.split(","):
        progress(f"== {problem}")
        _, summary = run_benchmark(problem, os.path.join(base, problem), n_trials=args.trials, methods=METHODS,
                                   n_jobs=args.jobs, progress=progress)
        tables.append(summary)
        print(summary, flush=True)
    with open(os.path.join(base, "tables.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(tables))


if __name__ == "__main__":
    main()
