"""Transfer decided per task, and unrelated tasks that are not relabelled copies (issue 31, items 3 and 5).

Run: ``python experiments/per_task_transfer.py [--problems alarm-mixed ...] [--trials 10]``

Cells (5 tasks, P_del = 0.05, seed 0, 5000 test rows, 20 restarts, as the
robustness suite): ``*-mixed`` (tasks 0-2 related, tasks 3-4 relabelled) and
``*-random`` (task 0 from the network, tasks 1-4 independent random networks
over the same variables). Methods: STL, MTL (all tasks at once) and MTL-PER-TASK
(``transfer_per_task=True``); with ``--default-per-task``: STL, ``mtl-all-tasks``
(``transfer_per_task=False``, the default before 2026-11-26) and ``mtl`` (the
default, transfer decided per task). Each cell is one ``run_benchmark`` run in
``experiments/out/per-task/<problem>_<rows>/`` (resumable; ``--name NAME``: another folder). Writes
``experiments/out/per-task/table.md``: per cell and per group of tasks
(related / unrelated), mean edit distance and KL of each method, paired
t-tests (MTL-PER-TASK - MTL, MTL - STL, MTL-PER-TASK - STL; trials as pairs),
how often each task was left out, and how often the result equals STL.
"""

import argparse
import os

import numpy as np
import pandas as pd
from _common import OUT, jobs, progress, write_out

from mtbn.benchmarks import mixed_unrelated
from mtbn.evaluate import run_benchmark
from mtbn.stats import paired_comparison

CELLS = [("alarm-mixed", 1000), ("sachs-mixed", 1000), ("hepar2-mixed", 250), ("alarm-random", 1000),
         ("sachs-random", 1000), ("hepar2-random", 250), ("alarm-mixed", 250), ("sachs-mixed", 250),
         ("hepar2-mixed", 1000)]
N_TASKS = 5
#: The all-or-nothing method and the per-task one (``--default-per-task``: the default against mtl-all-tasks).
ROLES = {"all": "mtl", "per": "mtl-per-task"}
METHODS = ["stl", "mtl", "mtl-per-task"]


#: Output folder under experiments/out (``--name``).
NAME = ["per-task"]


#: ``--default-per-task``: also ``stl-all-states`` (the networks ``prior="none"`` returns), in ``NAME-stl``.
WITH_ALL_STATES = [False]


def run_cell(problem, rows, trials):
    out = os.path.join(OUT, NAME[0], f"{problem}_{rows}")
    progress(f"{problem}, {rows} rows, {trials} trials -> {out}")
    kw = dict(n_trials=trials, n_train=rows, n_test=5000, n_restarts=20, n_jobs=jobs(), progress=progress,
              plots=False)
    run_benchmark(problem, out, methods=METHODS, **kw)
    if WITH_ALL_STATES[0]:
        run_benchmark(problem, os.path.join(OUT, NAME[0] + "-stl", f"{problem}_{rows}"), methods=("stl-all-states",),
                      **kw)


def _read(folder):
    files = sorted(f for f in os.listdir(folder) if f.endswith(".csv")) if os.path.isdir(folder) else []
    return pd.concat([pd.read_csv(os.path.join(folder, f)) for f in files], ignore_index=True) if files else None


def _stored(problem, rows):
    res = _read(os.path.join(OUT, NAME[0], f"{problem}_{rows}", "trials"))
    extra = _read(os.path.join(OUT, NAME[0] + "-stl", f"{problem}_{rows}", "trials")) if WITH_ALL_STATES[0] else None
    if res is None or extra is None:
        return res
    return pd.concat([res, extra[extra["trial"].isin(set(res["trial"]))]], ignore_index=True)


def _groups(problem):
    """The task groups of a cell: (label, task names)."""
    tasks = [f"task{t}" for t in range(N_TASKS)]
    if problem.endswith("-mixed"):
        n = N_TASKS - mixed_unrelated(N_TASKS)
        return [("related (tasks 0-%d)" % (n - 1), tasks[:n]), ("unrelated (tasks %d-%d)" % (n, N_TASKS - 1), tasks[n:])]
    if problem.endswith("-random"):
        return [("task 0 (the network)", tasks[:1]), ("random (tasks 1-4)", tasks[1:])]
    return [("all tasks (related)", tasks)]


def _cmp(per, col, a, b):
    c = paired_comparison(per.loc[a][col].values, per.loc[b][col].values)
    star = " *" if c["p_t"] < 0.05 else ""
    p = f"{c['p_t']:.2g}" if np.isfinite(c["p_t"]) else "-"
    return f"{c['mean_diff']:+.2f}, {p}{star}" if col == "edit_distance" else f"{c['mean_diff']:+.4f}, {p}{star}"


def table(cells):
    head = ("| problem | rows | trials | tasks | ED STL | ED MTL | ED PER-TASK | ED PER-TASK - MTL, p | ED MTL - STL, p "
            "| ED PER-TASK - STL, p | KL STL | KL MTL | KL PER-TASK | KL PER-TASK - MTL, p | left out (per task) "
            "| MTL = STL | PER-TASK = STL |")
    lines = [head, "|---" * 17 + "|"]
    states = ["| problem | rows | trials | tasks | KL STL (own states) | KL STL (all states) | KL PER-TASK "
              "| KL PER-TASK - STL (all states), p | PER-TASK = STL (all states) |", "|---" * 9 + "|"]
    for problem, rows in cells:
        res = _stored(problem, rows)
        if res is None:
            continue
        done = res.groupby("trial")["method"].nunique()
        res = res[res["trial"].isin(done[done == res["method"].nunique()].index)]
        n_trials = res["trial"].nunique()
        A, P = ROLES["all"], ROLES["per"]
        for label, tasks in _groups(problem):
            sub = res[res["task"].isin(tasks)]
            per = sub.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
            m = {k: per.loc[k].mean() for k in METHODS}
            same = {k: int(sum(np.array_equal(sub[(sub.method == k) & (sub.trial == t)]["edit_distance"].values,
                                              sub[(sub.method == "stl") & (sub.trial == t)]["edit_distance"].values)
                               for t in sorted(sub.trial.unique()))) for k in (A, P)}
            alone = sub[(sub.method == P)].groupby("task")["transfer"].apply(lambda s: int((s == "alone").sum()))
            if "stl-all-states" in set(sub["method"]):
                states.append("| " + " | ".join([
                    problem, str(rows), str(n_trials), label, f"{per.loc['stl']['kl'].mean():.4f}",
                    f"{per.loc['stl-all-states']['kl'].mean():.4f}", f"{per.loc[P]['kl'].mean():.4f}",
                    _cmp(per, "kl", P, "stl-all-states"),
                    f"{_same_networks(sub, P, 'stl-all-states')}/{n_trials}"]) + " |")
            lines.append("| " + " | ".join([
                problem, str(rows), str(n_trials), label,
                f"{m['stl']['edit_distance']:.1f}", f"{m[A]['edit_distance']:.1f}", f"{m[P]['edit_distance']:.1f}",
                _cmp(per, "edit_distance", P, A), _cmp(per, "edit_distance", A, "stl"),
                _cmp(per, "edit_distance", P, "stl"),
                f"{m['stl']['kl']:.4f}", f"{m[A]['kl']:.4f}", f"{m[P]['kl']:.4f}",
                _cmp(per, "kl", P, A),
                " ".join(f"{t[4:]}:{alone.get(t, 0)}" for t in tasks),
                f"{same[A]}/{n_trials}", f"{same[P]}/{n_trials}"]) + " |")
    out = "\n".join(lines) + "\n"
    if len(states) > 2:
        out += ("\nKL of the same trials against the networks `learn_structures(prior=\"none\")` returns "
                "(`stl-all-states`: every task over the state lists of all tasks, as the learner's own networks):"
                "\n\n" + "\n".join(states) + "\n")
    return out


def _same_networks(sub, a, b):
    """Trials in which methods ``a`` and ``b`` have the same edit distance and KL on every task of ``sub``."""
    n = 0
    for _, g in sub.groupby("trial"):
        x = g[g.method == a].sort_values("task")
        y = g[g.method == b].sort_values("task")
        n += int(np.array_equal(x["edit_distance"].values, y["edit_distance"].values)
                 and np.allclose(x["kl"].values, y["kl"].values, rtol=0, atol=1e-12))
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="*")
    ap.add_argument("--cells", nargs="*", metavar="PROBLEM:ROWS",
                    help="other cells (e.g. sachs-ind:50), run and tabulated instead of the standard ones")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--name", default="per-task", help="output folder under experiments/out")
    ap.add_argument("--default-per-task", action="store_true",
                    help="the default (mtl, transfer per task) against mtl-all-tasks (all tasks at once)")
    args = ap.parse_args()
    NAME[0] = args.name
    if args.default_per_task:
        ROLES.update(all="mtl-all-tasks", per="mtl")
        METHODS[:] = ["stl", "mtl-all-tasks", "mtl"]
        WITH_ALL_STATES[0] = True
    if args.cells:
        CELLS[:] = [(c.split(":")[0], int(c.split(":")[1])) for c in args.cells]
    cells = [(p, r) for p, r in CELLS if not args.problems or p in args.problems]
    if not args.table_only:
        for p, r in cells:
            run_cell(p, r, args.trials)
    write_out(os.path.join(args.name, "table.md"), table(CELLS))


if __name__ == "__main__":
    main()
