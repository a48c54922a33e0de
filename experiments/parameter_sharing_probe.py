"""Probe for issue 32: does shrinking CPTs toward the pooled CPT lower KL on the suite's kinds of problems?

Run: ``python experiments/parameter_sharing_probe.py [--rows 250] [--trials 3] [--problems alarm,alarm-ind,...]``

Per problem and trial (seeded like ``mtbn bench``: 5 related tasks, edge deletion 0.05): sample the training
rows and 5000 test rows per task, learn the structures jointly at a fixed penalty 0.99 (to keep the probe cheap;
the same structures for every estimator), then fit the CPTs three ways: each task alone (strength 0), with the
strength chosen by 5-fold CV (:func:`mtbn.networks.choose_sharing_strength`), and pooled (strength inf).
Prints mean KL from the true networks (lower is better) and the chosen strengths. A probe, not the suite: it
does not touch the default learner.
"""

import argparse
import warnings

import numpy as np

from mtbn.benchmarks import make_problem
from mtbn.data import make_taskset
from mtbn.learn import learn_structures
from mtbn.metrics import kl_divergence
from mtbn.networks import choose_sharing_strength, fit_shared_parameters, sample


def trial(problem, rows, t):
    rng = np.random.default_rng([t, 32])
    nets = make_problem(problem, n_tasks=5, p_del=0.05, random_state=rng)
    train = make_taskset({f"t{i}": sample(n, rows, random_state=rng) for i, n in enumerate(nets)})
    tests = [sample(n, 5000, random_state=rng) for n in nets]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graphs = learn_structures(train, penalty=0.99, n_restarts=5, random_state=t, parameter_sharing=None).graphs
    chosen, _ = choose_sharing_strength(graphs, train, random_state=t)
    out = {}
    for label, strength in (("alone", 0.0), ("chosen", chosen), ("pooled", float("inf"))):
        fitted = fit_shared_parameters(graphs, train, strength=strength)
        out[label] = float(np.mean([kl_divergence(n, f, d) for n, f, d in zip(nets, fitted, tests)]))
    return out, chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=250)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--problems", default="alarm,alarm-ind,sachs,sachs-ind,hepar2,hepar2-ind")
    args = ap.parse_args()
    print(f"| problem | rows | KL alone | KL chosen strength | KL pooled | chosen strengths |")
    print("|---|---|---|---|---|---|")
    for problem in args.problems.split(","):
        results = [trial(problem, args.rows, t) for t in range(args.trials)]
        mean = {k: np.mean([r[k] for r, _ in results]) for k in ("alone", "chosen", "pooled")}
        print(f"| {problem} | {args.rows} | {mean['alone']:.4f} | {mean['chosen']:.4f} | {mean['pooled']:.4f} | "
              f"{', '.join(f'{c:g}' for _, c in results)} |", flush=True)


if __name__ == "__main__":
    main()
