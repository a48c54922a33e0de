"""The Paired prior's count DPs against enumeration, on a few pairs of a few tasks (issue 30).

Run:  python benchmarks/bench_enumerated_dps.py [--tasks 3 4 5 6] [--pairs 1 4 16 64 256]

``PairedPrior.solve`` and ``solve_excluding`` enumerate the 3^k
configurations when pairs x tasks x 3^k is at most ``ENUMERATED_CELLS`` (twice that
for ``solve_excluding``) and run the count DPs otherwise; both give the same
floats (checked here on every problem timed, and in tests/test_priors.py).
For each number of tasks k and of pairs m, in one process, the two paths
are timed on the same random pair problems (Paired prior at penalty 0.99,
every task taking part, gains relative to a current configuration, some
states illegal), best of three rounds, microseconds per call.
"""

import argparse
import time

import numpy as np

from mtbn.priors import make_prior
from mtbn.priors.paired import ENUMERATED_CELLS


def _problem(rng, m, k):
    cur = rng.integers(0, 3, size=(m, k))
    gains = rng.normal(0, 2, size=(m, k, 3))
    gains -= np.take_along_axis(gains, cur[:, :, None], 2)
    gains[rng.random((m, k, 3)) < 0.1] = -np.inf
    gains[np.arange(m)[:, None], np.arange(k)[None, :], cur] = 0.0
    return gains, np.ones((m, k), dtype=bool), cur


def _time(f, m):
    calls = max(3, 3000 // m)
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[3, 4, 5, 6])
    ap.add_argument("--pairs", type=int, nargs="+", default=[1, 4, 16, 64, 256])
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"ENUMERATED_CELLS = {ENUMERATED_CELLS}\n")
    print("| tasks | pairs | solve: DP us | enumerated us | DP / enumerated | excluding: DP us | enumerated us "
          "| DP / enumerated | taken (solve, excluding) |\n|---|---|---|---|---|---|---|---|---|")
    for k in args.tasks:
        prior = make_prior("paired", 0.99, k)
        for m in args.pairs:
            gains, part, cur = _problem(rng, m, k)
            L = np.full(m, float(prior.log_factors(2)[0]))
            assert np.array_equal(prior._solve_full(gains, part, L), prior._solve_enumerated(gains, part, L))
            assert np.array_equal(prior._solve_excluding_chunks(gains, part, L, cur),
                                  prior._solve_excluding_enumerated(gains, part, L, cur))
            dp = _time(lambda: prior._solve_full(gains, part, L), m)
            en = _time(lambda: prior._solve_enumerated(gains, part, L), m)
            dx = _time(lambda: prior._solve_excluding_chunks(gains, part, L, cur), m)
            ex = _time(lambda: prior._solve_excluding_enumerated(gains, part, L, cur), m)
            cells = m * k * 3**k
            taken = ("enumerated" if cells <= ENUMERATED_CELLS else "DP",
                     "enumerated" if cells <= 2 * ENUMERATED_CELLS else "DP")
            print(f"| {k} | {m} | {dp:.0f} | {en:.0f} | {dp / en:.2f} | {dx:.0f} | {ex:.0f} | {dx / ex:.2f} "
                  f"| {', '.join(taken)} |", flush=True)


if __name__ == "__main__":
    main()
