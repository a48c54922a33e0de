"""The Gaussian default's penalty selection with the final search's effort against the discrete learner's
selection effort (2 single-task restarts, no joint restarts in every fold at every penalty).

Run: ``python experiments/gaussian_selection_effort.py [--problems ...] [--rows ...] [--trials N]`` (resumable:
each trial a file under out/gaussian_selection_effort/; ``MTBN_JOBS`` processes). Per trial, 5 related linear
Gaussian networks (:func:`mtbn.benchmarks.make_gaussian_problem`), ``--rows`` training rows and 1,000 test rows per
task; :func:`mtbn.learn.learn_gaussian_structures` with its defaults (50 single-task restarts, 20 joint
restarts) and ``SELECTION_EFFORT`` None (``full``: the folds search as the final search does, the learner's
behaviour before this experiment) or ``(2, 0)`` (``cheap``). The final search is the same in both. Measured
per task against its own true network: the directed edit distance, the CPDAG SHD and the mean held-out
log-likelihood per test row (averaged over the tasks); the penalty and sharing strength chosen; the seconds.
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from _common import OUT, run_resumable, write_out

import mtbn.learn.gaussian as gaussian
from mtbn.benchmarks import make_gaussian_problem
from mtbn.graph import DAG, edit_distance
from mtbn.metrics import cpdag_distance
from mtbn.stats import holm, paired_comparison

FOLDER = os.path.join(OUT, "gaussian_selection_effort")
METHODS = {"full": None, "cheap": (2, 0)}


def run_trial(problem, rows, trial):
    warnings.simplefilter("ignore")
    rng = np.random.default_rng([trial, rows, sum(map(ord, problem)), 7])
    nets = make_gaussian_problem(problem, n_tasks=5, random_state=rng)
    train = {n.name: n.sample(rows, random_state=rng, name=n.name) for n in nets}
    test = [n.sample(1000, random_state=rng, name=n.name) for n in nets]
    seed = int(rng.integers(2**31))
    truth = [DAG([set(p) for p in n.parents], n.names) for n in nets]
    out = []
    for method, effort in METHODS.items():
        gaussian.SELECTION_EFFORT = effort
        t0 = time.perf_counter()
        res = gaussian.learn_gaussian_structures(train, random_state=seed)
        seconds = time.perf_counter() - t0
        out.append({"problem": problem, "rows": rows, "trial": trial, "method": method,
                    "ed": float(np.mean([edit_distance(g, t) for g, t in zip(res.graphs, truth)])),
                    "shd": float(np.mean([cpdag_distance(g, t) for g, t in zip(res.graphs, truth)])),
                    "heldout_ll": float(np.mean([net.log_likelihood(t) / t.n_samples
                                                 for net, t in zip(res.networks, test)])),
                    "penalty": res.penalty, "sharing": res.sharing_strength, "seconds": seconds})
    gaussian.SELECTION_EFFORT = None
    return pd.DataFrame(out)


def table(frame):
    lines = ["| problem | rows | trials | method | ED | CPDAG SHD | held-out LL per row | penalties | sharing | "
             "seconds (mean) |", "|---|---|---|---|---|---|---|---|---|---|"]
    tests = []
    for (problem, rows), cell in frame.groupby(["problem", "rows"], sort=False):
        for method, m in cell.groupby("method", sort=False):
            lines.append(f"| {problem} | {rows} | {len(m)} | {method} | {m['ed'].mean():.2f} | {m['shd'].mean():.2f} "
                         f"| {m['heldout_ll'].mean():.4f} | {', '.join(f'{p:g}' for p in m['penalty'])} | "
                         f"{', '.join(str(x) for x in m['sharing'])} | {m['seconds'].mean():.1f} |")
        wide = {k: v.sort_values("trial") for k, v in cell.groupby("method")}
        for metric in ("ed", "shd", "heldout_ll"):
            a, b = wide["cheap"][metric].to_numpy(), wide["full"][metric].to_numpy()
            if len(a) >= 2:
                tests.append((problem, rows, metric, paired_comparison(a, b)))
    same = (frame.pivot_table(index=["problem", "rows", "trial"], columns="method", values="penalty")
            .pipe(lambda w: int((w["cheap"] == w["full"]).sum())), frame["trial"].count() // 2)
    lines += ["", f"The same penalty in {same[0]} of {same[1]} trials. Paired differences, cheap minus full (ED, SHD: "
              "negative = closer to the truth; held-out LL: positive = better), 95% t interval, t-test p "
              "Holm-corrected over every row:", "", "| problem | rows | metric | mean difference [95% CI] | p (t) | "
              "p (Holm) |", "|---|---|---|---|---|---|"]
    adjusted = holm([t[-1]["p_t"] for t in tests]) if tests else []
    for (problem, rows, metric, cmp), p_holm in zip(tests, adjusted):
        lines.append(f"| {problem} | {rows} | {metric} | {cmp['mean_diff']:+.4f} [{cmp['ci_low']:+.4f}, "
                     f"{cmp['ci_high']:+.4f}] | {cmp['p_t']:.2g} | {p_holm:.2g} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=["ecoli70", "random-30", "magic-niab"])
    ap.add_argument("--rows", nargs="+", type=int, default=[100, 500])
    ap.add_argument("--trials", type=int, default=2)
    args = ap.parse_args()
    run_resumable([(p, r, t) for t in range(args.trials) for p in args.problems for r in args.rows],
                  lambda c: os.path.join(FOLDER, f"{c[0]}_{c[1]}_{c[2]:03d}.csv"), lambda c: run_trial(*c))
    frame = pd.concat([pd.read_csv(os.path.join(FOLDER, f)) for f in sorted(os.listdir(FOLDER))
                       if f.endswith(".csv")], ignore_index=True)
    write_out("gaussian_selection_effort.md", table(frame))


if __name__ == "__main__":
    main()
