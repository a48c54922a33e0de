"""BIC against BDeu as the structure score of the default multitask learner (issue 34, item 8).

Run: ``python experiments/score_bic_vs_bdeu.py PROBLEM ROWS SEEDS`` (e.g. ``alarm 250 2``)

For each seed, 5 tasks of ``make_problem(PROBLEM, 5 tasks, p_del 0.05)``
(seed ``[seed, 0]``), ROWS rows each, learned by ``learn_structures(tasks,
score=...)`` with every other setting at its default. Prints the mean edit
distance to the true structures of the single-task starts (STL) and of the
returned structures, the chosen penalty and the wall time.
"""

import sys
import time
import warnings

import numpy as np

from mtbn.benchmarks import make_problem
from mtbn.data import DiscreteData
from mtbn.graph import edit_distance
from mtbn.learn import learn_structures
from mtbn.networks import sample


def main():
    problem, rows, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print("| problem | rows | seed | score | STL ED | default ED | penalty | seconds |\n|---|---|---|---|---|---|---|---|")
    for seed in range(seeds):
        rng = np.random.default_rng([seed, 0])
        nets = make_problem(problem, n_tasks=5, p_del=0.05, random_state=rng)
        tasks = [DiscreteData(sample(n, rows, random_state=rng).codes, n.names, n.states, f"task{t}")
                 for t, n in enumerate(nets)]
        for score in ("bdeu", "bic"):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = learn_structures(tasks, score=score)
            seconds = time.perf_counter() - t0
            ed = np.mean([edit_distance(g, n) for g, n in zip(res.graphs, nets)])
            stl = np.mean([edit_distance(r.graph, n) for r, n in zip(res.single_task, nets)])
            print(f"| {problem} | {rows} | {seed} | {score} | {stl:.1f} | {ed:.1f} | {res.penalty:.10g} "
                  f"| {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
