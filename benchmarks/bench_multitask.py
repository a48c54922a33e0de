"""Multitask search performance (issue 3).

Run: ``python benchmarks/bench_multitask.py [--quick]``

1. One search step on ALARM with k related tasks (1000 rows each, perturbed
   ALARM with P_del = 0.05, start = each task's greedy single-task solution,
   Paired prior with double reversal at delta = 0.9, and Edit prior): the
   best-neighbour problem of every node pair (666 pairs) solved by exhaustive
   enumeration (k <= 8), branch and bound, and the exact solver. Reports the
   configurations evaluated, partial configurations pruned and wall time, and
   checks that all solvers agree.
2. A full 5-task ALARM run (1000 rows per task, delta = 0.9, start from STL)
   against one single-task run on the same data (the same defaults), as a ratio.
3. ANDES (223 nodes), 5 tasks of 2000 rows: time and peak RSS (subprocess).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from mtbn.benchmarks import make_perturbed_tasks  # noqa: E402
from mtbn.data import DiscreteData  # noqa: E402
from mtbn.joint import _pair_gains, _TaskView, solve_pairs  # noqa: E402
from mtbn.learn import learn_structure, learn_structures  # noqa: E402
from mtbn.networks import sample  # noqa: E402
from mtbn.priors import make_prior  # noqa: E402
from mtbn.score import BDeuScore  # noqa: E402
from mtbn.search import DeltaTable, hill_climb  # noqa: E402


def tasks_for(network, k, rows, seed=0):
    nets, _ = make_perturbed_tasks(network, n_tasks=k, p_del=0.05, random_state=seed)
    rng = np.random.default_rng(seed + 1)
    return [DiscreteData(sample(n, rows, random_state=rng).codes, n.names, n.states, f"t{i}") for i, n in enumerate(nets)]


def step_problem(datasets):
    """Gains of every pair at the single-task (greedy) start."""
    scorers = [BDeuScore(d) for d in datasets]
    views = []
    for s in scorers:
        res = hill_climb(s, [set() for _ in range(s.n_vars)])
        table = DeltaTable(s, [set(p) for p in res.graph.parents])
        views.append(_TaskView(table, np.arange(s.n_vars), s.n_vars))
    n = scorers[0].n_vars
    iu, ju = np.triu_indices(n, 1)
    gains, part, _ = _pair_gains(views, np.zeros((n, n), bool), iu, ju, None, 1.0)
    return gains, part


def time_solver(prior, gains, part, solver, repeat):
    L = prior.log_factors(int(round((1 + np.sqrt(1 + 8 * gains.shape[0])) / 2)))
    best = None
    for _ in range(repeat):
        stats = {"n_configurations": 0, "n_pruned": 0}
        t0 = time.perf_counter()
        vals = solve_pairs(prior, gains, part, L, solver, stats)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return vals, best, stats


def bench_steps(ks, exhaustive_max, bnb_max, quick):
    print("## One search step on ALARM: best neighbour of all 666 node pairs\n")
    print("| prior | k | solver | configurations evaluated | partial configurations pruned | seconds | agrees |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for k in ks:
        datasets = tasks_for("alarm", k, 1000)
        gains, part = step_problem(datasets)
        for prior_name in ("paired", "edit"):
            prior = make_prior(prior_name, 0.9, k)
            ref = None
            for solver in ("exhaustive", "bnb", "exact"):
                if solver == "exhaustive" and k > exhaustive_max:
                    continue
                if solver == "bnb" and k > bnb_max:
                    continue
                vals, secs, stats = time_solver(prior, gains, part, solver, 1 if solver != "exact" else 3)
                ref = vals if ref is None else ref
                agree = bool(np.allclose(vals, ref, rtol=0, atol=1e-6))
                print(f"| {prior_name} | {k} | {solver} | {stats['n_configurations']:,} | {stats['n_pruned']:,} "
                      f"| {secs:.4f} | {agree} |", flush=True)
                rows.append(dict(prior=prior_name, k=k, solver=solver, seconds=secs, **stats))
    return rows


def bench_full_run(quick):
    datasets = tasks_for("alarm", 5, 1000)
    t0 = time.perf_counter()
    stl = [learn_structure(d, random_state=0).graph for d in datasets]
    t_stl = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = learn_structures(datasets, penalty=0.9, random_state=0)
    t_total = time.perf_counter() - t0
    t0 = time.perf_counter()
    joint = learn_structures(datasets, penalty=0.9, start=stl, random_state=0)
    t_joint = time.perf_counter() - t0
    print("\n## Full 5-task ALARM run (1000 rows per task, delta = 0.9, start from STL)\n")
    print("| what | seconds | ratio to single-task learning of the 5 tasks |")
    print("|---|---|---|")
    print(f"| single-task learning of the 5 tasks (learn_structure defaults: tabu 10, 50 restarts each) | {t_stl:.2f} | 1.00 |")
    print(f"| multitask run: its own 5 single-task starts + joint search ({res.search.n_iter} joint moves, "
          f"solver {res.search.solver}) + CPTs | {t_total:.2f} | {t_total / t_stl:.2f} |")
    print(f"| joint search alone from given STL graphs ({joint.search.n_iter} joint moves) + CPTs "
          f"| {t_joint:.2f} | {t_joint / t_stl:.2f} |")
    steps = res.search.steps
    if steps:
        print(f"\nJoint search: {len(steps)} steps, mean {np.mean([s['n_configurations'] for s in steps]):,.0f} "
              f"configurations evaluated per step (DP transitions over 666 pairs), "
              f"{res.search.cache_hits:,} cache hits, {res.search.cache_misses:,} misses.")
    return t_total / t_stl


ANDES_SNIPPET = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from bench_multitask import tasks_for
from mtbn.learn import learn_structures
datasets = tasks_for("{net}", 5, 2000)
t0 = time.perf_counter()
res = learn_structures(datasets, penalty=0.9, n_restarts={restarts}, random_state=0)
secs = time.perf_counter() - t0
print(json.dumps(dict(seconds=secs, n_iter=res.search.n_iter, rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      edges=[g.n_edges for g in res.graphs])))
"""


def bench_andes(andes_path, restarts):
    code = ANDES_SNIPPET.format(root=HERE, net=andes_path, restarts=restarts)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=HERE)
    if out.returncode:
        print(out.stderr)
        return None
    info = json.loads(out.stdout.strip().splitlines()[-1])
    print("\n## ANDES (223 nodes), 5 tasks x 2000 rows, delta = 0.9\n")
    print("| restarts of the STL starts | seconds | joint moves | peak RSS (MiB) | edges per task |")
    print("|---|---|---|---|---|")
    print(f"| {restarts} | {info['seconds']:.1f} | {info['n_iter']} | {info['rss_mib']:.0f} | {info['edges']} |")
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--andes", default=os.environ.get("MTBN_ANDES", os.path.join(os.path.dirname(HERE), "..", "shared", "data", "networks", "andes.bif.gz")))
    args = ap.parse_args()
    ks = (2, 3, 4, 5, 6, 8) if args.quick else (2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 30)
    bench_steps(ks, exhaustive_max=6 if args.quick else 8, bnb_max=8 if args.quick else 12, quick=args.quick)
    bench_full_run(args.quick)
    if os.path.exists(args.andes):
        bench_andes(os.path.abspath(args.andes), 0 if args.quick else 5)



if __name__ == "__main__":
    main()
