"""Greedy equivalence search (``mtbn.ges``) with BGe on rows of pgmpy's linear Gaussian networks: seconds and
result, to compare two checkouts (run it with each on ``PYTHONPATH``).

Run: ``PYTHONPATH=<checkout> python benchmarks/bench_ges.py [--networks ecoli70 magic-niab arth150] [--rows 1000]``

Per network: 1,000 rows sampled with seed 1, GES from the empty graph, the faster of two runs (each with a fresh
scorer, so nothing is cached); printed with the number of edges and the BGe of the result, which two checkouts
must share.
"""

import argparse
import time
import warnings

from mtbn.ges import greedy_equivalence_search
from mtbn.networks.gaussian import load_gaussian_network
from mtbn.score import BGeScore


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", nargs="+", default=["ecoli70", "magic-niab", "arth150"])
    ap.add_argument("--rows", type=int, default=1000)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print("| network | rows | seconds (best of 2) | edges | BGe |")
    print("|---|---|---|---|---|")
    for name in args.networks:
        data = load_gaussian_network(name).sample(args.rows, random_state=1, name=name)
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            res = greedy_equivalence_search(BGeScore(data))
            times.append(time.perf_counter() - t0)
        print(f"| {name} | {args.rows} | {min(times):.3f} | {res.graph.n_edges} | {res.log_score:.6f} |")


if __name__ == "__main__":
    main()
