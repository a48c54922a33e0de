"""Identical tasks (issue 13): do clustering and selection keep several samples of one network together?

Run: ``python experiments/identical_tasks.py [--network sachs] [--tasks 4] [--rows 500] [--seeds 10]
[--restarts 50]``

Per seed: ``--tasks`` independent samples of the same network (``--rows``
rows each), then ``cluster_tasks(n_clusters="auto")`` and
``select_tasks(principal=task0, n="auto")`` with their defaults (noise
floor from 10 permutation replicates, one-SE rule) and without the noise
floor (``noise_floor=False``, the one-SE rule only). Success: one cluster,
and every other task selected. One JSON line per seed is appended to
``experiments/out/identical/<network>_<rows>.jsonl`` (a killed run resumes);
the summary goes to ``experiments/out/identical/<network>_<rows>.md``.
"""

import argparse
import json
import os
import warnings

from _common import OUT, progress

from mtbn.exceptions import TransferWarning
from mtbn.networks import load_network, sample
from mtbn.relatedness import cluster_tasks, select_tasks


def run_seed(network, n_tasks, rows, seed, restarts):
    net = load_network(network)
    tasks = {f"task{i}": sample(net, rows, random_state=1000 * seed + i).to_dataframe() for i in range(n_tasks)}
    out = {"seed": seed}
    for label, floor in (("floor", True), ("no_floor", False)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TransferWarning)
            c = cluster_tasks(tasks, n_restarts=restarts, random_state=seed, noise_floor=floor)
            s = select_tasks(tasks, "task0", n_restarts=restarts, random_state=seed, noise_floor=floor)
        rel = c.relatedness
        out[label] = {"n_clusters": c.n_clusters, "n_selected": s.n_selected,
                      "max_distance": float(rel.distance.values.max()),
                      "floor": None if rel.floor is None else float(rel.floor)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--network", default="sachs")
    ap.add_argument("--tasks", type=int, default=4)
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--restarts", type=int, default=50)
    args = ap.parse_args()
    folder = os.path.join(OUT, "identical")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{args.network}_{args.rows}.jsonl")
    done = {}
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    done[rec["seed"]] = rec
    for seed in range(args.seeds):
        if seed in done:
            continue
        progress(f"{args.network}: seed {seed}")
        rec = run_seed(args.network, args.tasks, args.rows, seed, args.restarts)
        with open(path, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        done[seed] = rec
    recs = [done[s] for s in range(args.seeds)]
    k = args.tasks
    lines = [f"# {args.tasks} identical {args.network} tasks, {args.rows} rows each, {args.seeds} seeds "
             f"(restarts {args.restarts})", "",
             "| seed | max distance | noise floor | clusters (floor) | selected (floor) | clusters (no floor) "
             "| selected (no floor) |", "|---|---|---|---|---|---|---|"]
    for r in recs:
        f, n = r["floor"], r["no_floor"]
        lines.append(f"| {r['seed']} | {f['max_distance']:.0f} | {f['floor']} | {f['n_clusters']} | "
                     f"{f['n_selected']} | {n['n_clusters']} | {n['n_selected']} |")
    for label in ("floor", "no_floor"):
        one = sum(r[label]["n_clusters"] == 1 for r in recs)
        allsel = sum(r[label]["n_selected"] == k - 1 for r in recs)
        lines += ["", f"{label.replace('_', ' ')}: one cluster in {one}/{len(recs)} seeds; all {k - 1} other tasks "
                      f"selected in {allsel}/{len(recs)}."]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(folder, f"{args.network}_{args.rows}.md"), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
