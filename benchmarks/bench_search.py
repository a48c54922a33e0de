"""Single-task structure search of mtbn vs pgmpy (and reference.md's peers).

Per data set (ALARM-1000, ALARM-5000, INSURANCE-1000):

1. Plain greedy hill climbing from the empty graph (no tabu, no restarts,
   no in-degree limit, BDeu with ess = 1): mtbn's ``hill_climb`` timed with
   a fresh scorer per run (median of repeats; data read and coded before
   the clock starts, scorer construction inside it), and pgmpy 1.1.2's
   ``HillClimbSearch.estimate`` with ``tabu_length=0`` measured in the same
   process (``estimate`` call only). The pyAgrum and R bnlearn seconds are
   quoted from reference.md, not measured here.
2. The default single-task learner (``learn_structure`` defaults: tabu list
   of 10, 10 non-improving moves, 50 restarts): final BDeu against the best
   peer score of reference.md, time, edit distance, and the restart trace.
   The elapsed time after restart ``k`` is time-stamped inside the same run
   (see ``traced_learn``).
3. Whole-process time of ``python -m mtbn learn --prior none`` against
   ``python -c "import pgmpy"`` for scale.

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_search.py [--quick]
"""

import argparse
import json
import statistics
import sys
import tempfile
import time

import _common as C

DATASETS = ["alarm_1000_s0", "alarm_5000_s0", "insurance_1000_s0"]
CHECKPOINTS = [0, 1, 2, 5, 10, 20, 30, 40, 50]  # restarts shown in the trace table


def mtbn_hc(data):
    from mtbn.score import BDeuScore
    from mtbn.search import hill_climb

    scorer = BDeuScore(data, equivalent_sample_size=1.0)
    return hill_climb(scorer, [set() for _ in data.names], tabu_length=0, n_restarts=0, names=data.names)


def pgmpy_hc(df):
    """Seconds of HillClimbSearch.estimate (no tabu) and the learned edges."""
    from pgmpy.estimators import BDeu, HillClimbSearch

    est = HillClimbSearch(df)
    score = BDeu(df, equivalent_sample_size=1)
    t0 = time.perf_counter()
    model = est.estimate(scoring_method=score, tabu_length=0, max_indegree=None, show_progress=False)
    seconds = time.perf_counter() - t0
    return seconds, [(str(u), str(v)) for u, v in model.edges()]


def score_of(data, edges):
    from mtbn.score import BDeuScore

    return BDeuScore(data, equivalent_sample_size=1.0).score(C.parent_sets(data, edges))


def plain_hc(args, ref):
    from mtbn.graph import edit_distance

    rows = []
    summary = []
    for ds in args.datasets:
        data, df, truth = C.load_mtbn(ds), C.load_pandas(ds), C.true_edges(ds)
        # Interleave mtbn runs and pgmpy runs so that both see similar load.
        m_times, p_times, p_edges = [], [], None
        for i in range(args.repeats):
            t0 = time.perf_counter()
            res = mtbn_hc(data)
            m_times.append(time.perf_counter() - t0)
            if i < args.pgmpy_repeats:
                s, p_edges = pgmpy_hc(df)
                p_times.append(s)
        m_sec = statistics.median(m_times)
        rows.append([ds, "mtbn", "hill_climb (tabu_length=0, n_restarts=0)", f"{m_sec:.3f}", "1x",
                     f"{res.log_score:.4f}", res.graph.n_edges, edit_distance(res.graph, truth)])
        entry = {"data": ds, "mtbn_seconds": m_sec, "mtbn_bdeu": res.log_score}
        if p_times:
            p_sec = statistics.median(p_times)
            rows.append([ds, "pgmpy (measured)", "HillClimbSearch (tabu_length=0)", f"{p_sec:.3f}",
                         C.ratio(p_sec, m_sec), f"{score_of(data, p_edges):.4f}", len(p_edges),
                         edit_distance(p_edges, truth)])
            entry["pgmpy_seconds"] = p_sec
        for tool in ("pyAgrum", "bnlearn"):
            for r in ref["learners"]:
                if r["data"] == ds and r["tool"] == tool and r["algorithm"] != "tabu" and r["seconds"]:
                    rows.append([ds, f"{tool} (reference.md)", r["algorithm"], f"{r['seconds']:.3f}",
                                 C.ratio(r["seconds"], m_sec), f"{r['bdeu']:.4f}", int(r["edges"]), int(r["shd"])])
                    entry[f"{tool}_ratio"] = r["seconds"] / m_sec
        summary.append(entry)
    print("### Plain greedy hill climbing from the empty graph (BDeu, ess = 1)\n")
    pg = (f"pgmpy: {args.pgmpy_repeats} run(s) in the same process, `estimate` only" if args.pgmpy_repeats
          else "pgmpy: skipped (--skip-pgmpy)")
    print(f"mtbn: median of {args.repeats} runs, fresh scorer each; {pg}. 'x mtbn' = tool seconds / mtbn seconds "
          "(> 1: mtbn faster). pyAgrum and bnlearn rows are quoted from reference.md (other process, "
          "same machine class), not measured here.\n")
    print(C.md_table(["data", "tool", "algorithm", "seconds", "x mtbn", "BDeu", "edges", "SHD"], rows))
    print()
    return summary


def traced_learn(data):
    """``learn_structure(data)`` with the wall time and best graph after each restart.

    ``hill_climb`` calls ``mtbn.search._perturb`` at the start of every
    restart, right after moving to the best graph so far; the benchmark wraps
    that function to time-stamp the calls (the search itself is unchanged).
    Returns (result, [(seconds since start, best parent sets)] for the first
    climb and each restart).
    """
    import mtbn.search as S
    from mtbn.learn import learn_structure

    marks = []
    original = S._perturb

    def stamped(table, *a, **kw):
        marks.append((time.perf_counter(), table.parents_copy()))
        return original(table, *a, **kw)

    S._perturb = stamped
    try:
        t0 = time.perf_counter()
        res = learn_structure(data)
        t_end = time.perf_counter()
    finally:
        S._perturb = original
    points = [(t - t0, parents) for t, parents in marks]
    points.append((t_end - t0, [set(p) for p in res.graph.parents]))
    return t_end - t0, res, points


def default_learner(args, ref):
    from mtbn.graph import DAG, edit_distance
    from mtbn.score import BDeuScore

    rows, traces = [], []
    for ds in args.datasets:
        data, truth = C.load_mtbn(ds), C.true_edges(ds)
        true_score = BDeuScore(data).score(C.parent_sets(data, truth))
        runs = [traced_learn(data) for _ in range(args.repeats)]
        sec = statistics.median(r[0] for r in runs)
        res, points = runs[0][1], runs[0][2]
        if len(points) != len(res.trace):
            print(f"WARNING: {ds}: {len(points)} time stamps for {len(res.trace)} trace entries", file=sys.stderr)
        peer = C.best_peer(ref, ds)
        rows.append([ds, f"{sec:.3f}", f"{res.log_score:.4f}", f"{peer['bdeu']:.4f} ({peer['tool']} {peer['algorithm']})",
                     f"{res.log_score - peer['bdeu']:+.4f}", f"{true_score:.4f}", res.graph.n_edges,
                     edit_distance(res.graph, truth), res.n_iter])
        scorer = BDeuScore(data)
        for k, (best, (_t, parents)) in enumerate(zip(res.trace, points)):
            if k not in args.checkpoints:
                continue
            elapsed = statistics.median(r[2][k][0] for r in runs)
            check = scorer.score(parents)
            if abs(check - best) > 1e-6 * abs(best):
                print(f"WARNING: {ds}: restart {k}: graph scores {check} but the trace says {best}", file=sys.stderr)
            g = DAG(parents, data.names)
            traces.append([ds, k, f"{elapsed:.3f}", f"{best:.4f}", f"{best - true_score:+.2f}",
                           g.n_edges, edit_distance(g, truth)])
    print("### Default single-task learner (`learn_structure` defaults: tabu_length=10, max_tabu_iter=10, "
          "n_restarts=50, random_state=0)\n")
    print(f"Seconds: median of {args.repeats} runs (fresh scorer each). Best peer: highest BDeu among "
          "the learners of reference.md. SHD: edit distance to the true edges, a reversal counted once.\n")
    print(C.md_table(["data", "seconds", "BDeu", "best peer BDeu (reference.md)", "mtbn - peer",
                      "true DAG BDeu", "edges", "SHD", "moves"], rows))
    print(f"\n#### Restart trace (best graph after the first climb, k = 0, and after k restarts; seconds since "
          f"the call, median of the same {args.repeats} runs)\n")
    print(C.md_table(["data", "restarts k", "seconds", "best BDeu", "minus true DAG BDeu", "edges", "SHD"], traces))
    print()


def whole_process(args):
    rows = []
    env = C.child_env()
    base, _ = C.subprocess_seconds([sys.executable, "-c", "import pgmpy"], args.proc_repeats, env=env)
    imp, _ = C.subprocess_seconds([sys.executable, "-c", "import mtbn"], args.proc_repeats, env=env)
    for ds in args.datasets:
        with tempfile.TemporaryDirectory() as out:
            argv = [sys.executable, "-m", "mtbn", "learn", "--prior", "none", "--out", out, str(C.csv_path(ds))]
            sec, _ = C.subprocess_seconds(argv, args.proc_repeats, env=env, cwd=str(C.REPO_ROOT))
            with open(f"{out}/summary.json", encoding="utf-8") as fh:
                inner = json.load(fh)["seconds"]
        rows.append([f"`mtbn learn --prior none` {ds}", f"{sec:.3f}", f"{inner:.3f}", C.ratio(sec, base)])
    rows.append(["`python -c \"import mtbn\"`", f"{imp:.3f}", "", C.ratio(imp, base)])
    rows.append(["`python -c \"import pgmpy\"`", f"{base:.3f}", "", "1x"])
    print(f"### Whole-process time (median of {args.proc_repeats} subprocess runs)\n")
    print("'inside' = the `seconds` field of summary.json (reading, learning with the defaults, "
          "fitting CPTs, writing); the rest is interpreter start-up and imports.\n")
    print(C.md_table(["command", "wall seconds", "inside (summary.json)", "x `import pgmpy`"], rows))
    print()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="ALARM-1000 only, single runs, fewer checkpoints")
    p.add_argument("--skip-pgmpy", action="store_true", help="do not run pgmpy's HillClimbSearch")
    args = p.parse_args(argv)
    args.datasets = DATASETS[:1] if args.quick else DATASETS
    args.repeats = 1 if args.quick else 3
    args.pgmpy_repeats = 0 if args.skip_pgmpy else 1
    args.checkpoints = CHECKPOINTS
    args.proc_repeats = 1 if args.quick else 3
    C.quiet_pgmpy()
    ref = C.reference()
    print(f"Machine: {C.machine()}\n")
    plain_hc(args, ref)
    default_learner(args, ref)
    whole_process(args)
    print(f"At the end: {C.load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
