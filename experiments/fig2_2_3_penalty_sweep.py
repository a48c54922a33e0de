"""Figures 2.2 and 2.3: reduction in edit distance and KL over STL against 1 - delta.

Run: ``python experiments/fig2_2_3_penalty_sweep.py [--trials 10] [--jobs 2] [--current]``

What it runs: ALARM and INSURANCE-IND, 5 tasks, 1000 training rows per task,
P_del in {0, 0.05, 0.1, 0.2}, 10 trials each (seed 0), STL and multitask
learning (Paired prior, double reversal) at fixed penalties
1 - delta = 1, 1e-1, ..., 1e-8 started from the STL solution, test sets of
20000 rows. Writes ``experiments/out/sweep/<problem>-pdel<P>/`` per setting
and the plots ``experiments/out/sweep/sweep-<problem>.png`` (percent
reduction of edit distance and KL over STL against 1 - delta on a log
scale, one line per P_del) and ``experiments/out/sweep/sweep.md``.

``--current`` reruns it with the current learner and the paper's STL effort
(100 restarts; the joint search of today at each fixed penalty) into
``experiments/out/sweep-current/``; the stored ``sweep/`` came from the
earlier learner with 20 restarts.
"""

import argparse
import os


from _common import OUT, jobs, progress

from mtbn.evaluate import run_benchmark

PDELS = (0.0, 0.05, 0.1, 0.2)
ONE_MINUS = tuple(10.0 ** -e for e in range(0, 9))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=jobs())
    ap.add_argument("--problems", default="alarm,insurance-ind")
    ap.add_argument("--current", action="store_true", help="rerun with 100 STL restarts into sweep-current/")
    args = ap.parse_args()
    base = os.path.join(OUT, "sweep-current" if args.current else "sweep")
    restarts = 100 if args.current else 20
    penalties = [1.0 - x for x in ONE_MINUS]
    methods = ["stl"] + [f"mtl@{p!r}" for p in penalties]
    lines = ["| problem | P_del | 1 - delta | ED reduction over STL | KL reduction over STL |", "|---|---|---|---|---|"]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for problem in args.problems.split(","):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for pdel in PDELS:
            progress(f"== {problem} P_del={pdel}")
            res, _ = run_benchmark(problem, os.path.join(base, f"{problem}-pdel{pdel}"), n_trials=args.trials,
                                   p_del=pdel, methods=methods, n_restarts=restarts, n_jobs=args.jobs,
                                   progress=progress, plots=False)
            per = res.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
            stl = per.loc["stl"].mean()
            red_ed, red_kl = [], []
            for p, om in zip(penalties, ONE_MINUS):
                m = per.loc[f"mtl@{p!r}"].mean()
                red_ed.append(100 * (stl["edit_distance"] - m["edit_distance"]) / stl["edit_distance"])
                red_kl.append(100 * (stl["kl"] - m["kl"]) / stl["kl"])
                lines.append(f"| {problem} | {pdel} | {om:.0e} | {red_ed[-1]:+.1f}% | {red_kl[-1]:+.1f}% |")
            axes[0].plot(ONE_MINUS, red_ed, marker="o", label=f"P_del = {pdel}")
            axes[1].plot(ONE_MINUS, red_kl, marker="o", label=f"P_del = {pdel}")
        for ax, what in zip(axes, ("edit distance", "KL divergence")):
            ax.set_xscale("log")
            ax.invert_xaxis()
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_xlabel("1 - delta")
            ax.set_ylabel(f"% reduction in {what} over STL")
            ax.set_title(problem.upper())
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(base, f"sweep-{problem}.png"), dpi=110)
        plt.close(fig)
    with open(os.path.join(base, "sweep.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))



if __name__ == "__main__":
    main()
