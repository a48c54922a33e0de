"""Tie-broken best configuration of one pair problem: the Paired prior's O(k^3) path vs the generic path.

Run: ``python benchmarks/bench_best_configuration.py``. Both paths run in this one process on the same
random pair problems (Paired prior, penalty 0.99, equal weights), with and without an excluded
configuration (the tabu phase's "best move that changes something"); the generic path is the
task-by-task fixing with the exact solver's value oracle that the search used before. Results must agree
(checked); the table gives mean milliseconds per call and the ratio.

``python benchmarks/bench_best_configuration.py --entry`` times :func:`mtbn.joint.best_configuration`
itself, the call the search makes once per move (enumeration up to 4096 configurations, else the
Paired DP), on pair problems with about 10% illegal states, to compare two checkouts of mtbn
(``PYTHONPATH=<checkout>``, one after the other); it prints a digest of the answers, which must agree.

``python benchmarks/bench_best_configuration.py --solve`` times the Paired prior's pair-problem values,
:meth:`~mtbn.priors.PairedPrior.solve` and :meth:`~mtbn.priors.PairedPrior.solve_excluding` (the values
the search asks for at every step, in batches of m node pairs), the same way across checkouts.
"""

import hashlib
import sys
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
                b = prior.best_configuration(g, part, L, joint.TIE_TOLERANCE, ex)
                t2 = time.perf_counter()
                assert a[0] == b[0] and np.isclose(a[1], b[1]), (k, exclude)
                t_gen += t1 - t0
                t_fast += t2 - t1
            n = len(probs)
            print(f"| {k} | {'yes' if exclude else 'no'} | {1000 * t_gen / n:.2f} | {1000 * t_fast / n:.2f} | "
                  f"{t_gen / t_fast:.1f}x |")


def entry():
    rng = np.random.default_rng(0)
    print("| tasks k | exclude | ms per call |")
    print("|---|---|---|")
    answers = []
    for k in (5, 8, 16):
        prior = PairedPrior(0.99, k)
        L = float(prior.log_factors(2)[0])
        part = np.ones(k, dtype=bool)
        probs = problems(k, 300, rng)
        for g in probs:
            g[rng.random(g.shape) < 0.1] = -np.inf
            g[:, 0] = 0.0  # "no edge" is always legal
        for exclude in (False, True):
            t0 = time.perf_counter()
            for g in probs:
                answers.append(joint.best_configuration(prior, g, part, L, exclude=(0,) * k if exclude else None))
            print(f"| {k} | {'yes' if exclude else 'no'} | {1000 * (time.perf_counter() - t0) / len(probs):.3f} |")
    print("answers", hashlib.sha256(repr(answers).encode()).hexdigest()[:12])


def solve():
    rng = np.random.default_rng(0)
    print("| tasks k | pairs m | solve ms | solve_excluding ms |")
    print("|---|---|---|---|")
    answers = []
    for k in (5, 8, 16):
        prior = PairedPrior(0.99, k)
        for m in (8, 64, 600):
            reps = max(3, 6000 // m)
            g = rng.normal(0, 3, (m, k, 3))
            g[rng.random(g.shape) < 0.1] = -np.inf
            g[:, :, 0] = 0.0
            part = rng.random((m, k)) < 0.9
            L = np.full(m, float(prior.log_factors(2)[0]))
            exclude = np.where(part, rng.integers(0, 3, (m, k)), 0)
            t0 = time.perf_counter()
            for _ in range(reps):
                a = prior.solve(g, part, L)
            t1 = time.perf_counter()
            for _ in range(reps):
                b = prior.solve_excluding(g, part, L, exclude)
            t2 = time.perf_counter()
            answers += [a.tolist(), b.tolist()]
            print(f"| {k} | {m} | {1000 * (t1 - t0) / reps:.3f} | {1000 * (t2 - t1) / reps:.3f} |")
    print("answers", hashlib.sha256(repr(answers).encode()).hexdigest()[:12])


if __name__ == "__main__":
    {"--entry": entry, "--solve": solve}.get(sys.argv[1] if sys.argv[1:] else None, main)()
