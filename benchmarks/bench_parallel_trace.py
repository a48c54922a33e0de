"""Where the default learner's parallel time goes (issue 50, item 1), and what more workers could give.

Run: ``python benchmarks/bench_parallel_trace.py [--problem alarm --rows 1000] [--jobs 1 2]``

The default learner on the 5 tasks of ``benchmarks/bench_default_learn.py``, once per ``--jobs`` value, with
every parallel section recorded (:func:`mtbn.engine.tracing`: each ``run_jobs`` call, each job's start, end,
CPU seconds, process and pickled bytes). Printed per run: the wall time; the time outside every parallel
section (the serial part); per section kind, the jobs, their summed work (CPU seconds: with worker processes
the learner's own process works beside them, three processes on two cores, so a job's wall time is longer
than its work), the sections' wall time, the core time they left unused (workers x wall - work), the bytes
sent and received. Then the schedule the measured job
durations allow: each section's jobs list-scheduled (longest first) on N workers, plus the serial part, for
N = 1, 2, 4, 8, 16 (no overhead of starting workers or sending data counted: an upper bound on the speed-up).
A grid job holds several penalties of one fold, cut for the measured run's workers; for N workers each fold's
penalties are regrouped as the learner cuts them for N (each penalty's time taken as its job's mean). With at
most half as many workers as folds, each fold's start searches and first grid round are one job
(``mtbn.learn.starts.first_round_with_starts``); the schedule of 3 or more workers (traced on these workers)
keeps them apart.
The answers are the same at every ``--jobs`` (tests/test_engine.py, tests/test_workers.py).
"""

import argparse
import heapq
import json
import os
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_default_learn import benchmark_tasks  # noqa: E402

from mtbn.engine import tracing  # noqa: E402
from mtbn.learn import learn_structures  # noqa: E402


def traced_learn(tasks, jobs, wide=False):
    """The default learner on ``tasks`` with ``jobs`` workers, traced; ``wide``: the schedule it uses with 3
    or more workers (the final search's identical-structure search beside the folds' start searches)."""
    from mtbn.learn import grid, starts

    starts.IDENTICAL_BESIDE_FOLDS = True if wide else None
    starts.FIRST_ROUND_WITH_STARTS = False if wide else None
    groups = grid.chain_groups
    if wide:  # a chain per job, as with 3 or more workers
        grid.chain_groups = lambda chains, workers: groups(chains, None)
    try:
        return _traced_learn(tasks, jobs)
    finally:
        starts.IDENTICAL_BESIDE_FOLDS = starts.FIRST_ROUND_WITH_STARTS = None
        grid.chain_groups = groups


def _traced_learn(tasks, jobs):
    path = os.path.join(tempfile.mkdtemp(prefix="mtbn-trace-"), "trace.jsonl")
    t0 = time.perf_counter()
    with warnings.catch_warnings(), tracing(path):
        warnings.simplefilter("ignore")
        res = learn_structures(tasks, n_jobs=jobs)
    wall = time.perf_counter() - t0
    with open(path, encoding="utf-8") as fh:
        sections = [json.loads(line) for line in fh]
    return res, wall, t0, sections


def work(job):
    """A traced job's work: its CPU seconds (its wall seconds in a trace that has none)."""
    return job.get("cpu", job["end"] - job["start"])


def lpt(durations, workers):
    """The makespan of list scheduling, longest job first, on ``workers`` machines."""
    loads = [0.0] * workers
    heapq.heapify(loads)
    for d in sorted(durations, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + d)
    return max(loads)


def report(label, wall, sections):
    in_sections = sum(s["end"] - s["start"] for s in sections)
    serial = wall - in_sections
    print(f"\n### {label}: {wall:.1f} s wall, {serial:.1f} s ({serial / wall:.0%}) outside parallel sections\n")
    print("| section | calls | jobs | job work (CPU s) | sections' wall (s) | core time unused (s) | MB sent | "
          "MB received |")
    print("|---|---|---|---|---|---|---|---|")
    kinds = {}
    for s in sections:
        k = kinds.setdefault(s["section"], {"calls": 0, "jobs": 0, "work": 0.0, "wall": 0.0, "idle": 0.0,
                                            "sent": 0, "received": 0})
        durations = [work(j) for j in s["jobs"]]
        workers = max(1, s["n_jobs"] or 1)
        span = s["end"] - s["start"]
        k["calls"] += 1
        k["jobs"] += len(durations)
        k["work"] += sum(durations)
        k["wall"] += span
        k["idle"] += max(0.0, workers * span - sum(durations)) if workers > 1 else 0.0
        k["sent"] += sum(j["sent"] or 0 for j in s["jobs"])
        k["received"] += sum(j["received"] or 0 for j in s["jobs"])
    for name, k in kinds.items():
        print(f"| {name} | {k['calls']} | {k['jobs']} | {k['work']:.1f} | {k['wall']:.1f} | {k['idle']:.1f} | "
              f"{k['sent'] / 1e6:.1f} | {k['received'] / 1e6:.1f} |")
    return serial


def regrouped(section, n, folds=5):
    """The section's job durations as ``n`` workers would get them. A penalty-grid section's jobs hold the
    points of one fold (``size`` > 1: a whole fold, or a chunk of one; ``mtbn.learn.grid.grid_cut``, for the
    measured run's workers: with worker processes and more folds than workers, the last fold whole in the
    learner's own process); each point's time is taken as its job's mean, and the points are cut again as
    ``grid_cut`` cuts them for ``n`` workers (an approximation: a fold's points share one score cache only
    within a job; the learner's own process counted as one of the ``n``). Other jobs are kept as they are."""
    from mtbn.learn.grid import grid_cut

    jobs = sorted(section["jobs"], key=lambda j: j["index"])
    if section["section"] != "run_penalties" or all(j.get("size", 1) == 1 for j in jobs):
        return [work(j) for j in jobs]
    points = sum(j["size"] for j in jobs) // folds
    workers = max(1, section["n_jobs"] or 1)
    here = folds - 1 if any(j["pid"] == section.get("pid") for j in jobs) else None
    measured = grid_cut(folds, points, workers, here)
    per_point = {}
    for j, (fold, cut) in zip(jobs, measured):
        for i in cut:
            per_point[fold, i] = work(j) / j["size"]
    regroup = grid_cut(folds, points, n, folds - 1 if 1 < n < folds else None)
    return [sum(per_point[fold, i] for i in cut) for fold, cut in regroup]


def projection(serial, sections, wall1, wide=None):
    """The projected wall time on N workers; ``wide``: ``(serial, sections)`` of the schedule the learner uses
    with 3 or more workers, for N >= 3."""
    print("\n| workers | projected wall (s) | speed-up over 1 worker |\n|---|---|---|")
    for n in (1, 2, 4, 8, 16):
        ser, secs = wide if wide is not None and n >= 3 else (serial, sections)
        total = ser + sum(lpt(regrouped(s, n), n) for s in secs)
        print(f"| {n} | {total:.1f} | {wall1 / total:.2f}x |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="alarm")
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    tasks = benchmark_tasks(args.problem, args.rows)
    print(f"## 5 {args.problem.upper()} tasks x {args.rows} rows, the default learner")
    runs = {}
    for jobs in args.jobs:
        res, wall, _, sections = traced_learn(tasks, jobs)
        runs[jobs] = (res, wall, sections, report(f"--jobs {jobs} (penalty {res.penalty:.10g})", wall, sections))
    # With --jobs 1 some loops run in the calling process, not as jobs; the widest run shows every section.
    widest = max(runs)
    _, wall_w, sections_w, serial_w = runs[widest]
    wall1 = runs[1][1] if 1 in runs else wall_w
    wide = None
    if widest >= 2:  # the schedule of 3 or more workers, traced on these workers
        res_x, wall_x, _, sections_x = traced_learn(tasks, widest, wide=True)
        serial_x = report(f"--jobs {widest}, the schedule of 3 or more workers (penalty {res_x.penalty:.10g})",
                          wall_x, sections_x)
        wide = (serial_x, sections_x)
        print(f"\nsame structures as --jobs {widest}: "
              f"{[g.parents for g in res_x.graphs] == [g.parents for g in runs[widest][0].graphs]}")
    print(f"\nFrom the --jobs {widest} runs' sections and job durations, the schedule N workers allow (its serial "
          f"part kept, no overheads; N >= 3 from the run with their schedule; speed-up over the --jobs 1 wall "
          f"time, {wall1:.1f} s):")
    projection(serial_w, sections_w, wall1, wide)
    if 1 in runs and len(runs) > 1:
        base = runs[1]
        for jobs, (res, wall, _, _) in runs.items():
            if jobs != 1:
                same = [g.parents for g in res.graphs] == [g.parents for g in base[0].graphs]
                print(f"\n--jobs {jobs}: {base[1] / wall:.2f}x faster than --jobs 1, same structures: {same}")


if __name__ == "__main__":
    main()
