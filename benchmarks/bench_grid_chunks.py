"""Penalty-grid jobs with --jobs 2: one job per (fold, grid point) against a few chunks of points per fold.

Run: ``python benchmarks/bench_grid_chunks.py [--repeats 3]``

In one process, on the 5 tasks of ``bench_default_learn.py`` (``mtbn bench
PROBLEM`` trial 0 data; ALARM x 1000 rows and HEPAR2 x 250 rows), the
default learner with ``n_jobs=2``, alternating two ways of cutting the
penalty grid into jobs: ``per point`` (every (fold, point) search its own
job, shipping its own copy of the fold's scorers, before 2026-11-25) and
``chunks`` (:func:`mtbn.learn.grid._chunks`: per fold, one interleaved chunk
of points per worker, so that a worker's score cache serves all its points).
Also ``n_jobs=1`` once. Prints median wall seconds and whether the learned
structures and penalty are the same in every run.
"""

import argparse
import statistics
import time
import warnings

import numpy as np

import mtbn.learn.grid as grid
from mtbn.benchmarks import make_problem
from mtbn.data import DiscreteData
from mtbn.learn import learn_structures
from mtbn.networks import sample


def _tasks(problem, rows):
    rng = np.random.default_rng([0, 0])
    nets = make_problem(problem, n_tasks=5, p_del=0.05, random_state=rng)
    return [DiscreteData(sample(n, rows, random_state=rng).codes, n.names, n.states, f"task{t}")
            for t, n in enumerate(nets)]


def _timed(tasks, n_jobs):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = learn_structures(tasks, n_jobs=n_jobs)
    return time.perf_counter() - t0, (res.penalty, tuple(res.graphs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    chunked = grid._chunks

    def per_point(n_points, workers):
        return [[i] for i in range(n_points)]

    print("| tasks | --jobs 1 s | --jobs 2, per point s | --jobs 2, chunks s | chunks / per point | same results |")
    print("|---|---|---|---|---|---|")
    for problem, rows in (("alarm", 1000), ("hepar2", 250)):
        tasks = _tasks(problem, rows)
        one, ref = _timed(tasks, 1)
        times = {"per point": [], "chunks": []}
        same = True
        for _ in range(args.repeats):
            for name, cut in (("per point", per_point), ("chunks", chunked)):
                grid._chunks = cut
                try:
                    secs, out = _timed(tasks, 2)
                finally:
                    grid._chunks = chunked
                times[name].append(secs)
                same &= out == ref
        a, b = statistics.median(times["per point"]), statistics.median(times["chunks"])
        print(f"| 5 {problem.upper()} x {rows} | {one:.1f} | {a:.1f} | {b:.1f} | {b / a:.2f} | "
              f"{'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
