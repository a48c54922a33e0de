"""Scale benchmarks (issue 12): many tasks, wide networks, and the incremental joint search.

Three measurements, each run in its own child process (so that the peak
resident set size, ``ru_maxrss``, belongs to that run alone), one after
another in one invocation, data generated and coded before the clock starts:

* ``tasks``: k = 20, 50, 100 related ALARM tasks (each edge deleted with
  probability 0.05 per task, deleted parents integrated out) x 500 rows.
  Single-task learning of the k tasks (``learn_structures(prior="none")``)
  against multitask learning at penalty 0.99 (``learn_structures(penalty=0.99)``,
  which includes its own single-task starts), the same search settings
  (``--restarts`` single-task restarts, ``--joint-restarts`` joint restarts).
* ``incremental``: the joint search alone (``multitask_hill_climb`` from the
  single-task optima, tabu 10, no restarts) at penalty 0.99 with
  ``resolve="changed"`` (re-solve only the pairs whose gains changed) and
  ``resolve="all"`` (every pair after every move, the specification). The
  moves must be identical; the ratio is the speed-up.
* ``wide``: PIGS (441 variables) and LINK (724), pgmpy's shipped copies,
  2000 rows: mtbn's plain greedy hill climbing from the empty graph against
  pyAgrum's greedy hill climbing (BDeu, 1 thread), both scored with mtbn's
  BDeu (ess 1); then 5 related tasks (as above) at penalty 0.99.

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_scale.py [tasks|incremental|wide ...] [--k 20 50 100]
Writes a Markdown table per measurement to stdout and, with ``--out FILE``,
appends them to FILE.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _pgmpy_network(name):
    import pgmpy

    from mtbn.networks import read_bif

    path = os.path.join(os.path.dirname(pgmpy.__file__), "utils", "example_models", f"{name}.bif.gz")
    return read_bif(path)


def _network(name):
    from mtbn.networks import load_network

    try:
        return load_network(name)
    except Exception:
        return _pgmpy_network(name)


def _tasks(network, k, rows, seed):
    import numpy as np

    from mtbn.benchmarks import make_perturbed_tasks
    from mtbn.data import DiscreteData
    from mtbn.networks import sample

    rng = np.random.default_rng(seed)
    nets, _ = make_perturbed_tasks(network, n_tasks=k, p_del=0.05, random_state=rng)
    return [DiscreteData(sample(n, rows, random_state=rng).codes, n.names, n.states, f"task{t}")
            for t, n in enumerate(nets)]


def _peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- children -------------------------------------------------------------------------------


def child_learn(p):
    import warnings

    from mtbn.learn import learn_structures

    tasks = _tasks(_network(p["network"]), p["k"], p["rows"], p["seed"])
    loaded = _peak_mib()
    kw = dict(n_restarts=p["restarts"], n_joint_restarts=p["joint_restarts"], random_state=0)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if p["method"] == "stl":
            res = learn_structures(tasks, prior="none", **kw)
        else:
            res = learn_structures(tasks, penalty=p["penalty"], start=p.get("start", "auto"), **kw)
    secs = time.perf_counter() - t0
    return {"seconds": secs, "log_score": res.log_score, "edges": sum(len(g.edges()) for g in res.graphs),
            "loaded_mib": loaded, "peak_mib": _peak_mib()}


def child_incremental(p):
    import numpy as np

    from mtbn.data import make_taskset
    from mtbn.joint import multitask_hill_climb
    from mtbn.learn import learn_structures
    from mtbn.priors import make_prior
    from mtbn.score import BDeuScore

    ts = make_taskset(_tasks(_network(p["network"]), p["k"], p["rows"], p["seed"]))
    stl = learn_structures(ts, prior="none", n_restarts=0, random_state=0)
    starts = [[set(pa) for pa in g.parents] for g in stl.graphs]
    scorers = [BDeuScore(d) for d in ts.tasks]
    for s, g in zip(scorers, stl.graphs):  # warm the caches: time the search, not first-time scoring
        s.score([tuple(pa) for pa in g.parents])
    t0 = time.perf_counter()
    res = multitask_hill_climb(scorers, starts, make_prior("paired", p["penalty"], len(ts.tasks)),
                               local_index=ts.local_index, tabu_length=10, max_tabu_iter=10, n_restarts=0,
                               rng=np.random.default_rng(0), resolve=p["resolve"])
    secs = time.perf_counter() - t0
    moves = [(s["pair"], tuple(int(x) for x in s["states"])) for s in res.steps]
    return {"seconds": secs, "log_score": res.log_score, "moves": len(moves),
            "solved_per_move": float(np.mean([s["n_pairs_solved"] for s in res.steps])) if res.steps else 0.0,
            "moves_hash": hash(tuple(moves)) & 0xFFFFFFFF, "peak_mib": _peak_mib()}


def child_wide(p):
    import numpy as np

    from mtbn.networks import sample
    from mtbn.score import BDeuScore
    from mtbn.search import hill_climb

    net = _network(p["network"])
    data = sample(net, p["rows"], random_state=np.random.default_rng(p["seed"]))
    scorer = BDeuScore(data)
    if p["learner"] == "mtbn":
        loaded = _peak_mib()
        t0 = time.perf_counter()
        res = hill_climb(BDeuScore(data), [set() for _ in range(data.n_vars)], tabu_length=0, n_restarts=0,
                         names=data.names)
        secs = time.perf_counter() - t0
        edges = res.graph.edges(names=True)
    else:
        import pyagrum as gum

        df = data.to_dataframe().astype(str)
        learner = gum.BNLearner(df)
        learner.useGreedyHillClimbing()
        learner.useScoreBDeu()
        learner.useNoPrior()
        learner.setNumberOfThreads(1)
        loaded = _peak_mib()
        t0 = time.perf_counter()
        bn = learner.learnBN()
        secs = time.perf_counter() - t0
        edges = [(bn.variable(a).name(), bn.variable(b).name()) for a, b in bn.arcs()]
    pos = {v: i for i, v in enumerate(data.names)}
    parents = [set() for _ in data.names]
    for u, v in edges:
        parents[pos[v]].add(pos[u])
    return {"seconds": secs, "bdeu": scorer.score([tuple(pa) for pa in parents]), "edges": len(edges),
            "loaded_mib": loaded, "peak_mib": _peak_mib()}


CHILDREN = {"learn": child_learn, "incremental": child_incremental, "wide": child_wide}


def run_child(kind, **params):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--child", kind, json.dumps(params)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- measurements ---------------------------------------------------------------------------


def measure_tasks(args):
    lines = [f"k ALARM tasks x {args.rows} rows, penalty {args.penalty}, {args.restarts} single-task restarts, "
             f"{args.joint_restarts} joint restarts, start {args.start!r} (each run a child process)", "",
             "| k | STL s | MTL s | MTL / STL | STL peak MiB | MTL peak MiB | MTL log score |",
             "|---|---|---|---|---|---|---|"]
    for k in args.k:
        lines.append(_stl_vs_mtl(k, network="alarm", k=k, rows=args.rows, seed=0, restarts=args.restarts,
                                 joint_restarts=args.joint_restarts, penalty=args.penalty, start=args.start))
    return "\n".join(lines)


def _stl_vs_mtl(label, **common):
    """One table row: single-task and multitask learning of the same tasks, each in a child process."""
    stl = run_child("learn", method="stl", **common)
    mtl = run_child("learn", method="mtl", **common)
    line = (f"| {label} | {stl['seconds']:.1f} | {mtl['seconds']:.1f} | {mtl['seconds'] / stl['seconds']:.2f}x | "
            f"{stl['peak_mib']:.0f} | {mtl['peak_mib']:.0f} | {mtl['log_score']:.4f} |")
    print(line, file=sys.stderr, flush=True)
    return line


def measure_incremental(args):
    lines = [f"Joint search from the single-task optima at penalty {args.penalty} (tabu 10, no restarts), "
             "ALARM tasks; `all` re-solves every pair after each move, `changed` only the pairs whose gains "
             "changed", "",
             "| tasks x rows | moves | pairs solved per move (changed / all) | all s | changed s | speed-up | "
             "same moves |", "|---|---|---|---|---|---|---|"]
    for k, rows in ((5, 1000), (20, 500)):
        common = dict(network="alarm", k=k, rows=rows, seed=0, penalty=args.penalty)
        full = run_child("incremental", resolve="all", **common)
        inc = run_child("incremental", resolve="changed", **common)
        same = full["moves_hash"] == inc["moves_hash"] and full["log_score"] == inc["log_score"]
        line = (f"| {k} x {rows} | {inc['moves']} | {inc['solved_per_move']:.0f} / {full['solved_per_move']:.0f} | "
                f"{full['seconds']:.2f} | {inc['seconds']:.2f} | {full['seconds'] / inc['seconds']:.1f}x | "
                f"{'yes' if same else 'NO'} |")
        print(line, file=sys.stderr, flush=True)
        lines.append(line)
    return "\n".join(lines)


def measure_wide(args):
    lines = [f"{args.wide_rows} rows, plain greedy hill climbing from the empty graph, BDeu (ess 1) of both "
             "results by mtbn's scorer; pyAgrum 1 thread, learnBN() timed (data already in its learner)", "",
             "| network | variables | learner | seconds | BDeu | edges | peak MiB |", "|---|---|---|---|---|---|---|"]
    for name in args.networks:
        n_vars = _network(name).n_vars
        for learner in ("mtbn", "pyagrum"):
            r = run_child("wide", network=name, rows=args.wide_rows, seed=0, learner=learner)
            line = (f"| {name} | {n_vars} | {learner} | {r['seconds']:.1f} | {r['bdeu']:.1f} | {r['edges']} | "
                    f"{r['peak_mib']:.0f} |")
            print(line, file=sys.stderr, flush=True)
            lines.append(line)
    lines += ["", f"5 related tasks x {args.wide_rows} rows at penalty {args.penalty} (0 restarts)", "",
              "| network | STL s | MTL s | MTL / STL | STL peak MiB | MTL peak MiB | MTL log score |",
              "|---|---|---|---|---|---|---|"]
    for name in args.tasks_networks or args.networks:
        lines.append(_stl_vs_mtl(name, network=name, k=5, rows=args.wide_rows, seed=0, restarts=0,
                                 joint_restarts=0, penalty=args.penalty, start=args.start))
    return "\n".join(lines)


def main(argv=None):
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(CHILDREN[sys.argv[2]](json.loads(sys.argv[3]))))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="*", default=["incremental", "tasks", "wide"])
    ap.add_argument("--k", nargs="+", type=int, default=[20, 50, 100])
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--penalty", type=float, default=0.99)
    ap.add_argument("--restarts", type=int, default=5)
    ap.add_argument("--joint-restarts", type=int, default=2)
    ap.add_argument("--start", default="auto", help="start of the multitask search (default auto, the learner's)")
    ap.add_argument("--networks", nargs="+", default=["pigs", "link"])
    ap.add_argument("--wide-rows", type=int, default=2000)
    ap.add_argument("--tasks-networks", nargs="*", default=None,
                    help="wide: networks of the 5-task multitask part (default: --networks)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    funcs = {"tasks": measure_tasks, "incremental": measure_incremental, "wide": measure_wide}
    for what in args.what:
        text = f"### {what}\n\n`PYTHONPATH=. python benchmarks/bench_scale.py {what}`\n\n" + funcs[what](args) + "\n"
        print(text, flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(text + "\n")


if __name__ == "__main__":
    main()
