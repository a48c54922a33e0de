"""Where the time of multitask learning with many tasks goes (issue 30, item 3).

Run: ``python benchmarks/bench_many_tasks_stages.py [--k 100] [--rows 500]``

In one process, on ``bench_scale.py tasks``' data (k related ALARM tasks,
seed 0) and settings (5 single-task restarts, 2 joint restarts, penalty
0.99): ``learn_structures(prior="none")``, then ``learn_structures(penalty=0.99)``
with the seconds between its progress messages (each stage is labelled by
the message that opened it). ``bench_scale.py tasks`` gives the ratio with
each run in its own process and the peak memory.
"""

import argparse
import os
import sys
import time
import warnings

sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))

from bench_scale import _network, _tasks  # noqa: E402

from mtbn.learn import learn_structures  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--rows", type=int, default=500)
    args = ap.parse_args()
    tasks = _tasks(_network("alarm"), args.k, args.rows, 0)
    kw = dict(n_restarts=5, n_joint_restarts=2, random_state=0)
    stages = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        learn_structures(tasks, prior="none", **kw)
        t_stl = time.perf_counter() - t0
        t0 = time.perf_counter()
        stages.append((t0, "start"))
        learn_structures(tasks, penalty=0.99, progress=lambda m: stages.append((time.perf_counter(), m)), **kw)
        t_mtl = time.perf_counter() - t0
    stages.append((time.perf_counter(), "end"))
    print(f"| k | STL s | MTL s | MTL / STL |\n|---|---|---|---|\n| {args.k} | {t_stl:.1f} | {t_mtl:.1f} | "
          f"{t_mtl / t_stl:.2f}x |\n")
    print("| stage | s | / STL |\n|---|---|---|")
    for (a, message), (b, _) in zip(stages, stages[1:]):
        if b - a >= 0.1:
            print(f"| {message} | {b - a:.1f} | {(b - a) / t_stl:.2f} |")


if __name__ == "__main__":
    main()
