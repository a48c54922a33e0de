"""What each effort setting of the default learner costs (issue 30): one process, the same 5 tasks.

Run: ``python benchmarks/bench_default_knobs.py [--problem alarm] [--rows 1000] [--trial 0]``

Times ``learn_structures(tasks, prior="none")`` and the default learner,
then the default with cheaper settings added one at a time (each line keeps
the ones above it): the selection's climbs plain greedy (no tabu moves),
no restarts of the fold starts, 5 joint restarts in the final search with
10 restarts of the TSK start, only the single-task start in the selection,
and 3 instead of 5 folds. The settings are patched into the module for the
measurement only (they are not options). Prints a Markdown table: seconds,
ratio to ``prior="none"`` (same process) and the penalty chosen.
"""

import argparse
import time
import warnings
from dataclasses import replace

import mtbn.learn.multitask as M
from bench_default_learn import benchmark_tasks

from mtbn.learn import learn_structures

STEPS = (("default", {}), ("selection climbs plain greedy", {"sel_tabu": 0}),
         ("+ no restarts of the fold starts", {"sel_restarts": 0}),
         ("+ 5 joint restarts, 10 TSK restarts in the final search", {"n_joint_restarts": 5, "tsk_restarts": 10}),
         ("+ single-task start only in the selection", {"sel_starts": ("single-task",)}),
         ("+ 3 folds", {"cv": 3}))


def patched(knobs):
    """The learner's private steps with the knobs applied (restored by the caller)."""
    search_points, identical_start = M._search_points, M._identical_start

    def _search_points(problem, seeds, problems, penalties, say):
        s = problem.settings
        if "sel_tabu" in knobs:
            problem = replace(problem, settings=replace(s, max_tabu_iter=knobs["sel_tabu"], tabu_length=0))
        if "sel_starts" in knobs:
            problems = [(sc, [st for st in starts if st[0] in knobs["sel_starts"]], opt)
                        for sc, starts, opt in problems]
        return search_points(problem, seeds, problems, penalties, say)

    def _identical_start(problem, seeds, datasets, restarts):
        if "tsk_restarts" in knobs and restarts > M.SELECTION_RESTARTS:
            restarts = knobs["tsk_restarts"]
        return identical_start(problem, seeds, datasets, restarts)

    return {"_search_points": _search_points, "_identical_start": _identical_start,
            "SELECTION_RESTARTS": knobs.get("sel_restarts", M.SELECTION_RESTARTS)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="alarm")
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--trial", type=int, default=0)
    args = ap.parse_args()
    tasks = benchmark_tasks(args.problem, args.rows, args.trial)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    learn_structures(tasks, prior="none", n_jobs=1)
    t_none = time.perf_counter() - t0
    print(f"| what | seconds | ratio to prior='none' ({t_none:.2f} s) | penalty |\n|---|---|---|---|")
    knobs = {}
    saved = {k: getattr(M, k) for k in ("_search_points", "_identical_start", "SELECTION_RESTARTS")}
    for label, step in STEPS:
        knobs.update(step)
        for k, v in patched(knobs).items():
            setattr(M, k, v)
        kw = {k: knobs[k] for k in ("cv", "n_joint_restarts") if k in knobs}
        try:
            t0 = time.perf_counter()
            res = learn_structures(tasks, n_jobs=1, **kw)
            t = time.perf_counter() - t0
        finally:
            for k, v in saved.items():
                setattr(M, k, v)
        print(f"| {label} | {t:.2f} | {t / t_none:.2f} | {res.penalty:.15g} |")


if __name__ == "__main__":
    main()
