"""Probe for issue 30: penalty selection with one warm chain along the grid, against the current default.

Run: ``python experiments/selection_path_probe.py PROBLEM ROWS SEEDS`` (e.g. ``alarm 1000 3``, ``hepar2 250 2``)

Not a method of the package yet. The current default searches every grid
point of every fold cold, from three start chains (single-task, TSK, empty).
The probe replaces ``search_grid`` (the fold searches only; the final search
on all rows is unchanged) by one chain per fold that starts at delta = 0 from
the fold's starts and moves up the grid, each point starting from the
previous point's solution. It prints, per seed, the wall time, the mean edit
distance to the true structures and the chosen penalty of STL
(``prior="none"``), the current default and the probe, in one process, same
tasks (``make_problem(PROBLEM, 5 tasks, p_del 0.05)``, seed ``[seed, 0]``).
"""

import sys
import time
import warnings

import numpy as np

import mtbn.learn.grid as grid
import mtbn.learn.multitask as multitask
from mtbn.benchmarks import make_problem
from mtbn.data import DiscreteData
from mtbn.graph import edit_distance
from mtbn.learn import learn_structures
from mtbn.networks import sample

CURRENT = grid.search_grid


def path_grid(problems, points, prior, settings, *, base, warm_start, n_jobs, say):
    """One warm chain per fold: each grid point starts from the previous point's solution."""
    out = []
    for scorers, starts, optima in problems:
        path = []
        for i, delta in enumerate(points):
            cands = starts if i == 0 else [("path", grid._configs(path[-1]))]
            path.append(grid.run_penalty(scorers, cands, prior, delta, settings, base=base,
                                         starts_are_optima=optima and i == 0))
        out.append(path)
    return out


def run(problem, rows, seed, variant):
    rng = np.random.default_rng([seed, 0])
    nets = make_problem(problem, n_tasks=5, p_del=0.05, random_state=rng)
    tasks = [DiscreteData(sample(n, rows, random_state=rng).codes, n.names, n.states, f"task{t}")
             for t, n in enumerate(nets)]
    multitask.search_grid = path_grid if variant == "path" else CURRENT
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = learn_structures(tasks, prior="none") if variant == "stl" else learn_structures(tasks)
    seconds = time.perf_counter() - t0
    ed = float(np.mean([edit_distance(g, n) for g, n in zip(res.graphs, nets)]))
    return seconds, ed, res.penalty


def main():
    problem, rows, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print("| problem | rows | seed | variant | seconds | mean ED | penalty |\n|---|---|---|---|---|---|---|")
    for seed in range(seeds):
        for variant in ("stl", "current", "path"):
            seconds, ed, penalty = run(problem, rows, seed, variant)
            print(f"| {problem} | {rows} | {seed} | {variant} | {seconds:.1f} | {ed:.2f} | {penalty:.15g} |",
                  flush=True)


if __name__ == "__main__":
    main()
