"""The Gaussian default learner (continuous tasks) at ``n_jobs=1`` against ``n_jobs=2``, same run.

Run: ``python benchmarks/bench_gaussian_jobs.py [--problems sachs ecoli70:3:500] [--repeats 1]``

In one process, ``learn_gaussian_structures(tasks, n_jobs=1)`` and ``(..., n_jobs=2)`` one after the other,
``--repeats`` times (the first ``n_jobs=2`` run starts the worker processes). Problems: ``sachs`` (the nine
conditions' measurements, log-transformed, as ``benchmarks/digest_gaussian.py`` takes them) and
``NETWORK:TASKS:ROWS`` (tasks sampled from one of pgmpy's linear Gaussian networks, each its own seed). Prints
the median wall seconds, the ratio and whether the answers are the same (structures, every parameter, penalty,
held-out path, sharing strength).
"""

import argparse
import statistics
import time
import warnings

import numpy as np

from mtbn.data import load_sachs_conditions
from mtbn.learn.gaussian import learn_gaussian_structures
from mtbn.networks.gaussian import load_gaussian_network


def tasks_of(problem):
    if problem == "sachs":
        return {n: np.log(f.clip(lower=1e-3)) for n, f in load_sachs_conditions().tasks.items()}
    network, k, rows = problem.split(":")
    net = load_gaussian_network(network)
    return {f"t{i}": net.sample(int(rows), random_state=i, name=f"t{i}") for i in range(int(k))}


def answer(res):
    params = [np.concatenate([net.intercepts, net.variances, *map(np.atleast_1d, net.coefficients)]).tolist()
              for net in res.networks]
    return ([sorted(g.edges()) for g in res.graphs], params, res.penalty, res.penalty_path, res.sharing_strength)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=["sachs", "ecoli70:3:500"])
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print("| problem | n_jobs=1 s (runs) | n_jobs=2 s (runs) | speed-up | same answers |\n|---|---|---|---|---|")
    for problem in args.problems:
        tasks = tasks_of(problem)
        times, answers = {1: [], 2: []}, {1: [], 2: []}
        for _ in range(args.repeats):
            for jobs in (1, 2):
                t0 = time.perf_counter()
                res = learn_gaussian_structures(tasks, n_jobs=jobs)
                times[jobs].append(time.perf_counter() - t0)
                answers[jobs].append(answer(res))
        med = {j: statistics.median(t) for j, t in times.items()}
        same = all(a == answers[1][0] for a in answers[1] + answers[2])
        runs = {j: ", ".join(f"{x:.1f}" for x in t) for j, t in times.items()}
        print(f"| {problem} | {med[1]:.1f} ({runs[1]}) | {med[2]:.1f} ({runs[2]}) | {med[1] / med[2]:.2f}x | {same} |",
              flush=True)


if __name__ == "__main__":
    main()
