"""Single-task Gaussian structure search against pgmpy's, same data, same run (issue 49, item 6).

Run: ``python benchmarks/bench_gaussian_single.py [--network ecoli70] [--rows 250 1000]``

On rows sampled from one of pgmpy's linear Gaussian networks: mtbn's greedy hill climbing from the empty graph
with the Gaussian BIC (:class:`mtbn.score.GaussianBICScore`: one greedy climb; and with a tabu list of 10 and 5
random restarts, the Gaussian learner's settings) and pgmpy's
``HillClimbSearch`` with its ``BICGauss`` score (same start, no tabu list, ``max_indegree`` unset), one after the
other in one process. Printed: each one's wall time and the BIC of the structure it returns (scored by mtbn's
scorer, which equals pgmpy's ``BICGauss`` to 1e-9, tests/test_gaussian.py), and the edit distance of each to the
true network. causal-learn's GES is not installed here and is not compared.
"""

import argparse
import time
import warnings

import numpy as np

from mtbn.graph import DAG, edit_distance
from mtbn.networks.gaussian import load_gaussian_network
from mtbn.score import GaussianBICScore
from mtbn.search import hill_climb


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--network", default="ecoli70")
    ap.add_argument("--rows", type=int, nargs="+", default=[250, 1000])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    from pgmpy.estimators import BICGauss, HillClimbSearch

    net = load_gaussian_network(args.network)
    truth = DAG([set(p) for p in net.parents], net.names)
    print(f"## {args.network.upper()} ({net.n_vars} variables, {len(net.edges)} edges): single-task hill climbing, "
          "Gaussian BIC\n")
    print("| rows | method | seconds | BIC of the result | edges | ED to the truth | speed ratio |")
    print("|---|---|---|---|---|---|---|")
    for rows in args.rows:
        data = net.sample(rows, random_state=rows)
        scorer = GaussianBICScore(data)
        t0 = time.perf_counter()
        ours = hill_climb(scorer, [set() for _ in range(net.n_vars)], names=net.names).graph
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        tabu = hill_climb(GaussianBICScore(data), [set() for _ in range(net.n_vars)], names=net.names, tabu_length=10,
                          max_tabu_iter=10, n_restarts=5, rng=np.random.default_rng(0)).graph
        t_tabu = time.perf_counter() - t0
        frame = data.to_dataframe()
        t0 = time.perf_counter()
        model = HillClimbSearch(frame).estimate(scoring_method=BICGauss(frame), tabu_length=0, show_progress=False)
        t_pgmpy = time.perf_counter() - t0
        theirs = DAG.from_edges(net.names, [(str(u), str(v)) for u, v in model.edges()])
        for label, graph, seconds in (("mtbn, greedy", ours, t_ours), ("mtbn, tabu 10 + 5 restarts", tabu, t_tabu),
                                      ("pgmpy HillClimbSearch, BICGauss", theirs, t_pgmpy)):
            bic = scorer.score([set(p) for p in graph.parents])
            print(f"| {rows} | {label} | {seconds:.2f} | {bic:.2f} | {len(graph.edges())} | "
                  f"{edit_distance(graph, truth)} | {t_pgmpy / seconds:.1f}x |")


if __name__ == "__main__":
    main()
