"""Figure 2.5 rerun with the current default learner and the paper's STL effort (issue 10).

Run: ``python experiments/fig2_5_current.py [--problems alarm,alarm-ind,...] [--trials 10] [--restarts 100] [--priors]``

The same problems and data as ``fig2_4_2_5_problems.py`` (5 tasks, 1000
training rows per task, P_del = 0.05, seed 0, 20000 test rows per task;
``alarm-comp`` is the paper's own component split), learned by what
``mtbn learn`` does today: STL, IDENTICAL and POOLED with ``--restarts``
restarts (the paper: 100), MTL = the default (5-fold cross-validated
penalty, one-standard-error rule, negative-transfer guard, structures
relearned on all rows), MTL-PAPER (the paper's rule: 50 validation rows,
best held-out score, no guard) and MTL-ORACLE (the grid point of
MTL-PAPER's path with the lowest mean edit distance). Every multitask
method starts from the STL solution of the same seed, so it uses the same
restarts. Results go to ``experiments/out/problems-current/<problem>/``;
a killed run resumes from the trials already written.

With ``--priors`` it reruns Figure 2.4 instead: MTL (Paired prior, double
reversal), MTL-SINGLE (Paired, single reversal) and MTL-EDIT (Edit prior),
each the current default learner with the same restarts and seeds, into
``experiments/out/problems-current-priors/<problem>/`` (MTL there is the
same computation as MTL above, so its numbers must agree).
"""

import argparse
import os

from _common import OUT, jobs, progress

from mtbn.evaluate import run_benchmark

PROBLEMS = ("alarm", "alarm-ind", "insurance", "insurance-ind", "alarm-comp")
METHODS = ("stl", "identical", "pooled", "mtl", "mtl-paper", "mtl-oracle")
PRIOR_METHODS = ("mtl", "mtl-single", "mtl-edit")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--restarts", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=jobs())
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    ap.add_argument("--priors", action="store_true", help="rerun Figure 2.4 (the three priors) instead")
    args = ap.parse_args()
    folder, methods = ("problems-current-priors", PRIOR_METHODS) if args.priors else ("problems-current", METHODS)
    for problem in args.problems.split(","):
        progress(f"== {problem}")
        _, summary = run_benchmark(problem, os.path.join(OUT, folder, problem), n_trials=args.trials,
                                   methods=methods, n_restarts=args.restarts, n_jobs=args.jobs, progress=progress)
        print(summary, flush=True)


if __name__ == "__main__":
    main()
