"""Do task selection and clustering keep related continuous tasks together and unrelated ones apart?

Run: ``python experiments/gaussian_relatedness.py [--problems ecoli70 random-30] [--rows 250 1000] [--trials 2]``
(resumable: a file per trial under out/gaussian_relatedness/; ``MTBN_JOBS`` trials at a time).

Per trial, six continuous tasks (:func:`mtbn.benchmarks.make_gaussian_problem`): three related ones (``r0``-``r2``,
the problem's network with edges deleted and coefficients perturbed) and three whose variables are relabelled at
random (``u0``-``u2``: the ``-unrelated`` problem's tasks after its first, related to nothing here, nor to each
other). :func:`mtbn.relatedness.cluster_tasks` (the number of clusters chosen on held-out rows) should put the
related tasks in one cluster without an unrelated one; :func:`mtbn.relatedness.select_tasks` for ``r0`` should
select ``r1`` and ``r2`` and no ``u``. Both with their defaults (direct measure with its noise floor), except
restarts (``--restarts``, default 5) and the floor's replicates (``--floor``, default 5).
"""

import argparse
import os
import warnings

import numpy as np
import pandas as pd
from _common import OUT, run_resumable, write_out

from mtbn.benchmarks import make_gaussian_problem
from mtbn.relatedness import cluster_tasks, direct_relatedness, select_tasks

FOLDER = os.path.join(OUT, "gaussian_relatedness")


def run_trial(problem, rows, trial, restarts, floor):
    warnings.simplefilter("ignore")
    rng = np.random.default_rng([trial, rows, sum(map(ord, problem)), 11])
    related = make_gaussian_problem(problem, n_tasks=3, random_state=rng)
    unrelated = make_gaussian_problem(f"{problem}-unrelated", n_tasks=4, random_state=rng)[1:]
    tasks = {f"r{i}": n.sample(rows, random_state=rng, name=f"r{i}") for i, n in enumerate(related)}
    tasks.update({f"u{i}": n.sample(rows, random_state=rng, name=f"u{i}") for i, n in enumerate(unrelated)})
    kw = dict(n_restarts=restarts, n_joint_restarts=2, random_state=trial)
    rel = direct_relatedness(tasks, noise_floor=floor, **kw)
    chosen = select_tasks(tasks, "r0", relatedness=rel, **kw)
    clusters = cluster_tasks(tasks, relatedness=rel, **kw)
    labels = clusters.labels
    r_cluster = {labels[f"r{i}"] for i in range(3)}
    joined = [f"u{i}" for i in range(3) if labels[f"u{i}"] in r_cluster]
    return pd.DataFrame([{
        "problem": problem, "rows": rows, "trial": trial,
        "related_together": len(r_cluster) == 1, "unrelated_in_related_cluster": len(joined),
        "n_clusters": clusters.n_clusters,
        "selected_related": sum(s.startswith("r") for s in chosen.selected),
        "selected_unrelated": sum(s.startswith("u") for s in chosen.selected),
        "d_related": float(np.mean([rel.distance.loc["r0", x] for x in ("r1", "r2")])),
        "d_unrelated": float(np.mean([rel.distance.loc["r0", f"u{i}"] for i in range(3)])),
        "floor": rel.floor}])


def table(frame):
    lines = ["| problem | rows | trials | related tasks in one cluster | unrelated tasks in their cluster | clusters | "
             "selected for r0: related (of 2) / unrelated (of 3) | direct distance r0 to related / unrelated | "
             "noise floor |", "|---|---|---|---|---|---|---|---|---|"]
    for (problem, rows), cell in frame.groupby(["problem", "rows"], sort=False):
        lines.append(
            f"| {problem} | {rows} | {len(cell)} | {int(cell['related_together'].sum())} of {len(cell)} | "
            f"{', '.join(str(int(x)) for x in cell['unrelated_in_related_cluster'])} | "
            f"{', '.join(str(int(x)) for x in cell['n_clusters'])} | "
            f"{cell['selected_related'].mean():.1f} / {cell['selected_unrelated'].mean():.1f} | "
            f"{cell['d_related'].mean():.1f} / {cell['d_unrelated'].mean():.1f} | {cell['floor'].mean():.1f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=["ecoli70", "random-30"])  # those with an -unrelated form
    ap.add_argument("--rows", nargs="+", type=int, default=[250, 1000])
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--restarts", type=int, default=5)
    ap.add_argument("--floor", type=int, default=5)
    args = ap.parse_args()
    run_resumable([(p, r, t) for t in range(args.trials) for p in args.problems for r in args.rows],
                  lambda c: os.path.join(FOLDER, f"{c[0]}_{c[1]}_{c[2]:03d}.csv"),
                  lambda c: run_trial(*c, args.restarts, args.floor))
    frame = pd.concat([pd.read_csv(os.path.join(FOLDER, f)) for f in sorted(os.listdir(FOLDER))
                       if f.endswith(".csv")], ignore_index=True)
    write_out("gaussian_relatedness.md", table(frame))


if __name__ == "__main__":
    main()
