"""The default learner on two checkouts of mtbn, alternated, and two learns side by side (issue 50).

Run, from a checkout::

    git worktree add /tmp/mtbn-base <commit>
    python benchmarks/bench_checkouts.py --base /tmp/mtbn-base [--problem hepar2 --rows 250] [--pairs 5] [--jobs 2]
    python benchmarks/bench_checkouts.py --side-by-side [--problem hepar2 --rows 250]

Checkouts: each pair runs the base checkout, then this one, each in a fresh process that learns the 5 tasks of
``benchmarks/bench_default_learn.py`` once to start its workers and then twice more, keeping the faster of the
two (the same data, settings and seed on both sides). Printed: every time and the median per side, and whether
the two sides gave the same structures, penalty and score. Alternating the sides spreads the machine's drift
over both. ``--problem gaussian:SPEC`` times the Gaussian default (``learn_gaussian_structures``) on
``benchmarks/bench_gaussian_jobs.py``'s problem ``SPEC`` (``sachs`` or ``NETWORK:TASKS:ROWS``; ``--rows`` unused),
its answer every structure and parameter.

Side by side (``--side-by-side``): one learn at ``--jobs 1`` alone, then two at once (one per core), then one
alone again: whether two processes on the two cores slow each other down.
"""

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

LEARN = '''
import hashlib, sys, time, warnings
sys.path.insert(0, sys.argv[1])
if sys.argv[2].startswith("gaussian:"):  # continuous tasks: the Gaussian default
    from bench_gaussian_jobs import tasks_of
    from mtbn.learn.gaussian import learn_gaussian_structures as learn_structures
    tasks = tasks_of(sys.argv[2].removeprefix("gaussian:"))
else:
    from bench_default_learn import benchmark_tasks
    from mtbn.learn import learn_structures
    tasks = benchmark_tasks(sys.argv[2], int(sys.argv[3]))
jobs, repeats = int(sys.argv[4]), int(sys.argv[5])
warnings.simplefilter("ignore")
if repeats > 1:
    learn_structures(tasks, n_jobs=jobs)  # starts the workers
times = []
for _ in range(max(1, repeats - 1)):
    t = time.perf_counter()
    res = learn_structures(tasks, n_jobs=jobs)
    times.append(time.perf_counter() - t)
if sys.argv[2].startswith("gaussian:"):
    from bench_gaussian_jobs import answer as gaussian_answer
    answer = repr(gaussian_answer(res)).encode()
else:
    answer = repr(([g.parents for g in res.graphs], res.penalty, res.log_score)).encode()
print(min(times), hashlib.sha256(answer).hexdigest()[:16])
'''


def learn(root, problem, rows, jobs, repeats):
    """``(seconds, answer digest)`` of the default learner run by the mtbn of checkout ``root``."""
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([sys.executable, "-c", LEARN, os.path.join(root, "benchmarks"), problem, str(rows),
                          str(jobs), str(repeats)], env=env, capture_output=True, text=True, cwd="/", check=True)
    seconds, digest = out.stdout.split()[-2:]
    return float(seconds), digest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="the other checkout (a folder holding mtbn/ and benchmarks/)")
    ap.add_argument("--side-by-side", action="store_true")
    ap.add_argument("--problem", default="hepar2")
    ap.add_argument("--rows", type=int, default=250)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if args.side_by_side:
        alone = learn(ROOT, args.problem, args.rows, 1, 1)[0]
        procs = [subprocess.Popen([sys.executable, "-c", LEARN, HERE, args.problem, str(args.rows), "1", "1"],
                                  env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.PIPE, text=True, cwd="/")
                 for _ in range(2)]
        together = [float(p.communicate()[0].split()[-2]) for p in procs]
        again = learn(ROOT, args.problem, args.rows, 1, 1)[0]
        print(f"{args.problem} x {args.rows}, --jobs 1: alone {alone:.2f} s; two at once {together[0]:.2f} s and "
              f"{together[1]:.2f} s; alone again {again:.2f} s")
        return
    if not args.base:
        ap.error("give --base or --side-by-side")
    sides = {"base": (os.path.abspath(args.base), []), "this": (ROOT, [])}
    digests = {"base": set(), "this": set()}
    for _ in range(args.pairs):
        for name, (root, times) in sides.items():
            seconds, digest = learn(root, args.problem, args.rows, args.jobs, 3)
            times.append(seconds)
            digests[name].add(digest)
    for name, (root, times) in sides.items():
        print(f"{name} ({root}): median {statistics.median(times):.2f} s ({', '.join(f'{t:.2f}' for t in times)})")
    print(f"same answers: {digests['base'] == digests['this'] and len(digests['this']) == 1}")


if __name__ == "__main__":
    main()
