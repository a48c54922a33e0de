"""Single-task Gaussian structure search against pgmpy's, same data, same run (issue 49, item 6).

Run: ``python benchmarks/bench_gaussian_single.py [--network ecoli70] [--rows 250 1000]``

On rows sampled from one of pgmpy's linear Gaussian networks: mtbn's greedy hill climbing from the empty graph
with the Gaussian BIC (:class:`mtbn.score.GaussianBICScore`: one greedy climb; and with a tabu list of 10 and 5
random restarts), mtbn's greedy equivalence search (:mod:`mtbn.ges`), and the Gaussian learner's single-task
search (the better of the tabu climbs from GES's DAG and from the empty graph, with 5 restarts and with 50;
50 is the default of ``learn_gaussian_structures`` and of the front ends), and pgmpy's
``HillClimbSearch`` with its ``BICGauss`` score (same start, no tabu list, ``max_indegree`` unset), one after the
other in one process. Printed: each one's wall time and the BIC of the structure it returns (scored by mtbn's
scorer, which equals pgmpy's ``BICGauss`` to 1e-9, tests/test_gaussian.py), and the edit distance of each to the
true network. With causal-learn installed (``pip install causal-learn``; not a dependency of mtbn), its GES with
the Gaussian BIC (``local_score_BIC``, lambda 0.5: the same penalty per coefficient) in the same run; GES returns
an equivalence class (a CPDAG), scored through one of its DAGs (``pdag2dag``; BIC gives every DAG of the class
the same score).
"""

import argparse
import time
import warnings

import numpy as np

from mtbn.ges import greedy_equivalence_search
from mtbn.graph import DAG, edit_distance
from mtbn.learn.gaussian import _singles
from mtbn.networks.gaussian import load_gaussian_network
from mtbn.score import GaussianBICScore
from mtbn.search import hill_climb


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--network", default="ecoli70")
    ap.add_argument("--rows", type=int, nargs="+", default=[250, 1000])
    ap.add_argument("--no-causal-learn", action="store_true", help="leave causal-learn's GES out (slow on wide networks)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    from pgmpy.estimators import BICGauss, HillClimbSearch

    net = load_gaussian_network(args.network)
    truth = DAG([set(p) for p in net.parents], net.names)
    print(f"## {args.network.upper()} ({net.n_vars} variables, {len(net.edges)} edges): single-task hill climbing, "
          "Gaussian BIC\n")
    print("| rows | method | seconds | BIC of the result | edges | ED to the truth | pgmpy's seconds / these "
          "| causal-learn's / these |")
    print("|---|---|---|---|---|---|---|---|")
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
        t0 = time.perf_counter()
        ges = greedy_equivalence_search(GaussianBICScore(data), names=net.names).graph
        t_ges = time.perf_counter() - t0
        rows_out = [("mtbn, greedy", ours, t_ours), ("mtbn, tabu 10 + 5 restarts", tabu, t_tabu),
                    ("mtbn, GES", ges, t_ges)]
        for restarts, whose in ((5, "the Gaussian experiments' effort"),
                                (50, "the default of learn_structures, the estimator and mtbn learn")):
            t0 = time.perf_counter()
            none = np.zeros((net.n_vars, net.n_vars), dtype=bool)  # no background knowledge
            single = _singles([GaussianBICScore(data)], list(net.names),
                              {"max_parents": None, "n_restarts": restarts, "required": none, "forbidden": none,
                               "base": [set() for _ in range(net.n_vars)]}, 0)[0]
            rows_out.append((f"mtbn, the learner's: better of tabu 10 + {restarts} restarts from GES's DAG and from "
                             f"empty ({whose})", DAG(single, net.names),
                             time.perf_counter() - t0))
        frame = data.to_dataframe()
        t0 = time.perf_counter()
        try:
            model = HillClimbSearch(frame).estimate(scoring_method=BICGauss(frame), tabu_length=0,
                                                    show_progress=False)
            t_pgmpy = time.perf_counter() - t0
            rows_out.append(("pgmpy HillClimbSearch, BICGauss",
                             DAG.from_edges(net.names, [(str(u), str(v)) for u, v in model.edges()]), t_pgmpy))
        except Exception as exc:  # noqa: BLE001 - e.g. variable names its regression formulas cannot hold
            t_pgmpy = None
            print(f"| {rows} | pgmpy HillClimbSearch, BICGauss | failed: {type(exc).__name__}: "
                  f"{str(exc).splitlines()[0]} | | | | | |")
        theirs = None if args.no_causal_learn else _ges(frame, net.names)
        if theirs is not None:
            rows_out.append(("causal-learn GES, local_score_BIC", *theirs))
        for label, graph, seconds in rows_out:
            bic = scorer.score([set(p) for p in graph.parents])
            ratio = "" if t_pgmpy is None else f"{t_pgmpy / seconds:.1f}x"
            versus = "" if theirs is None else f"{theirs[1] / seconds:.1f}x"
            print(f"| {rows} | {label} | {seconds:.2f} | {bic:.2f} | {len(graph.edges())} | "
                  f"{edit_distance(graph, truth)} | {ratio} | {versus} |")


def _ges(frame, names):
    """causal-learn's GES on ``frame`` (one DAG of the CPDAG it returns, seconds), or None when not installed."""
    try:
        from causallearn.search.ScoreBased.GES import ges
        from causallearn.utils.PDAG2DAG import pdag2dag
    except ImportError:
        return None
    t0 = time.perf_counter()
    record = ges(frame.to_numpy(dtype=float), score_func="local_score_BIC", node_names=list(names))
    seconds = time.perf_counter() - t0
    m = pdag2dag(record["G"]).graph  # m[j, i] == 1 and m[i, j] == -1: i -> j
    edges = [(names[i], names[j]) for i in range(len(names)) for j in range(len(names))
             if m[j, i] == 1 and m[i, j] == -1]
    return DAG.from_edges(names, edges), seconds


if __name__ == "__main__":
    main()
