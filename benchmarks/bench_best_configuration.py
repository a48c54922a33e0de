"""Tie-broken best configuration of one pair problem: the Paired prior's O(k^3) path vs the generic path.

Run: ``python benchmarks/bench_best_configuration.py``. Both paths run in this one process on the same
random pair problems (Paired prior, penalty 0.99, equal weights), with and without an excluded
configuration (the tabu phase's "best move that changes something"); the generic path is the
task-by-task fixing with the exact solver's value oracle that the search used before. Results must agree
(checked); the table gives mean milliseconds per call and the ratio.
"""

import time

import numpy as np

from mtbn import joint
from mtbn.priors import PairedPrior


def problems(k, n, rng):
    out = []
    for _ in range(n):
        g = rng.normal(0, 3, (k, 3))
        g[:, 0] = 0.0
        out.append(g)
    return out


def main():
    rng = np.random.default_rng(0)
    print("| tasks k | exclude | generic ms | fast ms | ratio |")
    print("|---|---|---|---|---|")
    for k in (5, 10, 20, 50):
        prior = PairedPrior(0.99, k)
        L = float(prior.log_factors(2)[0])
        part = np.ones(k, dtype=bool)
        probs = problems(k, 20 if k <= 20 else 5, rng)
        for exclude in (False, True):
            t_gen = t_fast = 0.0
            for g in probs:
                ex = tuple(int(np.argmax(r)) for r in g) if exclude else None
                t0 = time.perf_counter()
                a = joint._fixing_best_configuration(prior, g, part, L, "exact", joint.TIE_TOLERANCE, ex)
                t1 = time.perf_counter()
                b = joint._paired_best_configuration(prior, g, part, L, joint.TIE_TOLERANCE, ex)
                t2 = time.perf_counter()
                assert a[0] == b[0] and np.isclose(a[1], b[1]), (k, exclude)
                t_gen += t1 - t0
                t_fast += t2 - t1
            n = len(probs)
            print(f"| {k} | {'yes' if exclude else 'no'} | {1000 * t_gen / n:.2f} | {1000 * t_fast / n:.2f} | "
                  f"{t_gen / t_fast:.1f}x |")


if __name__ == "__main__":
    main()
