"""The BDeu counting kernel before and after a change, side by side in one run.

Plain greedy hill climbing from the empty graph (no tabu, no restarts, BDeu
with ess 1; ``mtbn.search.hill_climb``) on data sampled from each network,
once with the code of this checkout and once with the code of an earlier
revision (``--before``, default: the commit before the kernel change of issue
12, which counted families of up to 65536 cells in a dense table and coded
every candidate family's parents afresh). The earlier revision is checked out
with ``git worktree`` into a temporary folder. Each run is a child process
(data generated and coded before the clock starts); the two versions of one
network run one after the other, so they see about the same machine load.

``--search default`` runs the library's default single-task learner instead
(``learn_structure``: tabu list, 20 perturbed restarts, seed 0), which is
what each fold of the cross-validated penalty choice runs.

Reports seconds, the ratio, whether the learned edge sets are identical and
the difference of the final BDeu scores.

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_kernel.py [--networks alarm hepar2 ...] [--rows 2000]
      [--search plain|default] [--before REV]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BEFORE = "ed71daa"  # the last commit before "Score: BDeu counts large tables by sorting ..."


def child(network, rows, seed, search="plain"):
    import numpy as np

    sys.path.insert(0, HERE)
    from bench_scale import _network

    from mtbn.networks import sample
    from mtbn.score import BDeuScore
    from mtbn.search import hill_climb

    data = sample(_network(network), rows, random_state=np.random.default_rng(seed))
    t0 = time.perf_counter()
    if search == "default":
        from mtbn import learn_structure

        res = learn_structure(data, n_restarts=20, random_state=0)
        edges, score = sorted(map(list, res.graph.edges())), res.log_score
    else:
        res = hill_climb(BDeuScore(data), [set() for _ in range(data.n_vars)], tabu_length=0, n_restarts=0)
        edges, score = sorted(map(list, res.graph.edges())), res.log_score
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "edges": edges, "score": score}


def run(code_root, network, rows, seed, timeout, search="plain"):
    env = dict(os.environ, PYTHONPATH=code_root)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps([network, rows, seed, search])]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(child(*json.loads(sys.argv[2]))))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", nargs="+", default=["alarm", "hepar2", "win95pts", "andes", "pigs", "link"])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--search", choices=("plain", "default"), default="plain",
                    help="plain greedy hill climbing, or the default learner (tabu, 20 restarts)")
    ap.add_argument("--before", default=BEFORE, help="git revision of the 'before' code")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run before it counts as not finished")
    args = ap.parse_args()
    old = os.path.join(tempfile.mkdtemp(prefix="mtbn-before-"), "tree")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", old, args.before], check=True,
                   capture_output=True)
    try:
        what = "plain hill climbing from the empty graph" if args.search == "plain" else "learn_structure defaults"
        print(f"{args.rows} rows, seed {args.seed}; {what}; before = {args.before}")
        print()
        print("| network | before s | after s | before / after | same edges | BDeu after - before |")
        print("|---|---|---|---|---|---|")
        for name in args.networks:
            a = run(old, name, args.rows, args.seed, args.timeout, args.search)
            b = run(ROOT, name, args.rows, args.seed, args.timeout, args.search)
            if a is None or b is None:
                fmt = (lambda r: "did not finish" if r is None else f"{r['seconds']:.1f}")
                print(f"| {name} | {fmt(a)} | {fmt(b)} | | | |", flush=True)
                continue
            print(f"| {name} | {a['seconds']:.1f} | {b['seconds']:.1f} | {a['seconds'] / b['seconds']:.2f}x | "
                  f"{'yes' if a['edges'] == b['edges'] else 'NO'} | {b['score'] - a['score']:+.2e} |", flush=True)
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", old], capture_output=True)


if __name__ == "__main__":
    main()
