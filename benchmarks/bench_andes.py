"""Single-task learning on ANDES-2000 (223 variables): time, BDeu, SHD, peak RSS.

Two measurements, each in its own child process so that the peak resident
set size (``ru_maxrss``, KiB on Linux) belongs to that measurement alone:

* ``hc``: plain greedy hill climbing from the empty graph (``hill_climb``
  with tabu_length=0, n_restarts=0), a fresh scorer per run;
* ``default``: ``learn_structure`` with its defaults (tabu list of 10,
  10 non-improving moves, 50 restarts).

Each is run twice: with numpy's default BLAS threading and with one BLAS
thread (``OPENBLAS_NUM_THREADS=1``), because mtbn's search calls a small
matrix product per move and OpenBLAS's threads slow it down badly on a
loaded 2-core machine.

Seconds are the median over runs, one run per child process, the variants
interleaved (data read and coded before the clock starts). The BDeu is compared with R bnlearn's ``hc`` and
the other learners of reference.md (their seconds are quoted, not measured
here). The child also reports its RSS after imports and data loading, before
any search.

``--quick`` measures plain hill climbing only (one run per variant).

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_andes.py [--quick] [--profile]
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _common as C

DATASET = "andes_2000_s0"

#: Environment variables that limit numpy's BLAS (OpenBLAS here) to one thread.
BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def worker(kind, repeats, profile):
    """Run one measurement in this process and print a JSON line."""
    from mtbn.graph import edit_distance
    from mtbn.learn import learn_structure
    from mtbn.score import BDeuScore
    from mtbn.search import hill_climb

    data = C.load_mtbn(DATASET)
    truth = C.true_edges(DATASET)
    rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def run():
        if kind == "hc":
            scorer = BDeuScore(data, equivalent_sample_size=1.0)
            return hill_climb(scorer, [set() for _ in data.names], tabu_length=0, n_restarts=0, names=data.names)
        return learn_structure(data)

    times = []
    for _ in range(repeats):
        if profile:
            import cProfile
            import io
            import pstats

            prof = cProfile.Profile()
            t0 = time.perf_counter()
            res = prof.runcall(run)
            times.append(time.perf_counter() - t0)
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
            print(buf.getvalue(), file=sys.stderr)
        else:
            t0 = time.perf_counter()
            res = run()
            times.append(time.perf_counter() - t0)
    out = {
        "kind": kind,
        "seconds": statistics.median(times),
        "times": times,
        "bdeu": res.log_score,
        "edges": res.graph.n_edges,
        "shd": edit_distance(res.graph, truth),
        "n_iter": res.n_iter,
        "n_evaluations": res.n_evaluations,
        "cache_misses": res.cache_misses,
        "trace": res.trace,
        "rss_loaded_kib": rss_loaded,
        "rss_peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    print(json.dumps(out))


def measure(kind, repeats, profile, one_blas_thread=False):
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--repeats", str(repeats)]
    if profile:
        argv.append("--profile")
    env = C.child_env()
    if one_blas_thread:
        for var in BLAS_VARS:
            env[var] = "1"
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=str(C.REPO_ROOT))
    if proc.returncode != 0:
        raise RuntimeError(f"worker {kind} failed: {proc.stderr[-3000:]}")
    if profile:
        print(f"<details><summary>profile of {kind}{' (1 BLAS thread)' if one_blas_thread else ''} "
              "(cProfile, by own time)</summary>\n\n```\n"
              f"{proc.stderr.strip()}\n```\n</details>\n")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["one_blas_thread"] = one_blas_thread
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="plain hill climbing only, one run per variant")
    p.add_argument("--profile", action="store_true", help="print a cProfile summary of each measurement")
    p.add_argument("--worker", choices=["hc", "default"], help=argparse.SUPPRESS)
    p.add_argument("--repeats", type=int, default=None, help="runs of plain hill climbing per variant (default 3; quick 1)")
    p.add_argument("--default-repeats", type=int, default=1, help="runs of the default learner per variant (default 1)")
    args = p.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    if args.worker:
        worker(args.worker, repeats, args.profile)
        return 0
    ref = C.reference()
    true_empty = ref["bdeu"][DATASET]
    print(f"Machine: {C.machine()}\n")
    # One run per child process; the four variants are interleaved round by
    # round so that changes in the machine's load hit all of them.
    variants = [("hc", False), ("hc", True)]
    if not args.quick:
        variants += [("default", False), ("default", True)]
    n_runs = {"hc": repeats, "default": args.default_repeats}
    runs = {v: [] for v in variants}
    for i in range(max(n_runs.values())):
        for kind, one in variants:
            if i < n_runs[kind]:
                runs[(kind, one)].append(measure(kind, 1, args.profile, one_blas_thread=one))
    results = []
    for v in variants:
        rs = runs[v]
        r = dict(rs[0])
        r["times"] = [x["seconds"] for x in rs]
        r["seconds"] = statistics.median(r["times"])
        r["rss_loaded_kib"] = max(x["rss_loaded_kib"] for x in rs)
        r["rss_peak_kib"] = max(x["rss_peak_kib"] for x in rs)
        assert all(abs(x["bdeu"] - r["bdeu"]) < 1e-6 for x in rs), "runs disagree"
        results.append(r)
    bn_hc = C.peer_seconds(ref, DATASET, "bnlearn", "hc")
    rows = []
    for r in results:
        label = ("mtbn hill_climb (tabu_length=0, n_restarts=0)" if r["kind"] == "hc"
                 else "mtbn learn_structure defaults (tabu 10, 50 restarts)")
        label += ", OPENBLAS_NUM_THREADS=1" if r["one_blas_thread"] else ", default BLAS threads"
        rows.append([label, f"{r['seconds']:.2f}", f"{r['bdeu']:.4f}", f"{r['bdeu'] - bn_hc['bdeu']:+.4f}",
                     r["edges"], r["shd"], r["n_iter"], f"{r['cache_misses']:,}",
                     f"{r['rss_loaded_kib'] / 1024:.0f}", f"{r['rss_peak_kib'] / 1024:.0f}"])
    for r in ref["learners"]:
        if r["data"] == DATASET and r["seconds"]:
            rows.append([f"{r['tool']} {r['algorithm']} (reference.md)", f"{r['seconds']:.2f}", f"{r['bdeu']:.4f}",
                         f"{r['bdeu'] - bn_hc['bdeu']:+.4f}", int(r["edges"]), int(r["shd"]), "", "", "", ""])
    print(f"### {DATASET} (223 variables, 2000 rows): single-task learning\n")
    print(f"mtbn seconds: median of {repeats} run(s) (hill climbing) / {args.default_repeats} run(s) (default "
          "learner), each in its own child process, variants interleaved; "
          "peak RSS = largest `ru_maxrss` of those children; 'loaded' = RSS after imports and reading the data. BDeu: ess = 1, "
          f"observed states; true DAG {true_empty[0]:.4f}, empty DAG {true_empty[1]:.4f}. "
          "Other tools' rows are quoted from reference.md (pgmpy did not finish in 20 min there).\n")
    print(C.md_table(["learner", "seconds", "BDeu", "minus bnlearn hc", "edges", "SHD", "moves",
                      "scores computed", "RSS loaded MiB", "peak RSS MiB"], rows))
    for hc in results[:2]:
        ratios = []
        for r in ref["learners"]:
            if r["data"] == DATASET and r["seconds"]:
                ratios.append(f"{r['tool']} {r['algorithm']}: {r['seconds'] / hc['seconds']:.2f}x")
        which = "OPENBLAS_NUM_THREADS=1" if hc["one_blas_thread"] else "default BLAS threads"
        print(f"\nPublished seconds / mtbn plain hill-climbing seconds ({which}): {'; '.join(ratios)}.")
    line = f"\nBLAS threads: default / one thread = {results[0]['seconds'] / results[1]['seconds']:.2f}x (plain hill climbing)"
    if len(results) > 2:
        line += f", {results[2]['seconds'] / results[3]['seconds']:.2f}x (default learner)"
    print(line + ".")
    print(f"\nAt the end: {C.load()}")
    if len(results) > 2:
        print(f"\nDefault learner trace (best BDeu after the first climb and each restart): "
              f"{', '.join(f'{x:.2f}' for x in results[2]['trace'])}")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
