"""How well the direct and indirect measures order the 15-task ALARM-COMP pool.

Run: ``python experiments/relatedness_spearman.py [--seeds 5] [--rows 1000]``

What it runs: for each seed, the principal (original ALARM) and the 15 pool
tasks (every non-empty subset of the 4 components changed), 1000 rows each;
the direct measure (multitask learning at delta = 0.9, Paired prior, then
edit distances) and the indirect measure (10-fold cross-fitted structures);
the Spearman correlation between each measure's distances from the principal
and the true edit distances from the principal's structure. Also the time of
the direct measure (16 tasks). Writes ``experiments/out/spearman.md``.
"""

import argparse
import os
import time

import numpy as np
from _common import OUT, jobs, progress
from scipy.stats import spearmanr

from mtbn.benchmarks import make_component_pool
from mtbn.data import DiscreteData
from mtbn.graph import edit_distance
from mtbn.networks import sample
from mtbn.relatedness import direct_relatedness, indirect_relatedness


def pool_data(seed, rows):
    principal, pool, changed = make_component_pool(random_state=seed)
    rng = np.random.default_rng([seed, 7])
    nets = [principal] + pool
    names = ["alarm"] + ["comp-" + "".join(str(c + 1) for c in ch) for ch in changed]
    data = {n: DiscreteData(sample(net, rows, random_state=rng).codes, net.names, net.states, n)
            for n, net in zip(names, nets)}
    true = {n: edit_distance(net.edges, principal.edges) for n, net in zip(names[1:], pool)}
    return data, true, nets, names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=jobs())
    args = ap.parse_args()
    lines = ["| seed | Spearman direct | Spearman indirect | direct seconds | joint moves | solver | mean configurations per step | indirect seconds |",
             "|---|---|---|---|---|---|---|---|"]
    rd, ri = [], []
    for seed in range(args.seeds):
        data, true, _, names = pool_data(seed, args.rows)
        t0 = time.perf_counter()
        direct = direct_relatedness(data, random_state=seed)
        t_direct = time.perf_counter() - t0
        t0 = time.perf_counter()
        indirect = indirect_relatedness(data, random_state=seed, n_jobs=args.jobs)
        t_ind = time.perf_counter() - t0
        truth = [true[n] for n in names[1:]]
        s_d = spearmanr(direct.from_task("alarm")[names[1:]].values, truth).correlation
        s_i = spearmanr(indirect.from_task("alarm")[names[1:]].values, truth).correlation
        rd.append(s_d)
        ri.append(s_i)
        search = direct.search
        per_step = np.mean([st["n_configurations"] for st in search.steps]) if search.steps else 0
        lines.append(f"| {seed} | {s_d:.3f} | {s_i:.3f} | {t_direct:.1f} | {search.n_iter} | {search.solver} "
                     f"| {per_step:,.0f} | {t_ind:.1f} |")
        progress(lines[-1])
    lines.append(f"| mean | {np.mean(rd):.3f} | {np.mean(ri):.3f} | | | | | |")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "spearman.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
