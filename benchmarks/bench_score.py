"""BDeu local-score throughput (cold cache) of mtbn vs pgmpy, and BDeu anchors.

1. The same random distinct families (child plus 0-3 parents, fixed seed) of
   ALARM-5000 are scored by mtbn (a fresh ``BDeuScore``, so every request is
   a cache miss) and by pgmpy 1.1.2 (``BDeu(df, equivalent_sample_size=1)
   .local_score``, which has no cache), in this process, side by side.
   Reported: families per second (median of repeats), the ratio, and the
   largest relative difference between the two tools' values.
2. The BDeu of the true and the empty DAG of every anchor data set next to
   the value in reference.md.

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_score.py [--quick]
The anchor folder is $MTBN_ANCHORS (default ../shared/data/anchors).
"""

import argparse
import statistics
import sys
import time

import numpy as np

import _common as C

DATASETS = ["alarm_1000_s0", "alarm_5000_s0", "insurance_1000_s0", "andes_2000_s0"]


def random_families(n_vars, n_families, seed):
    """``n_families`` distinct (child, sorted parents) pairs with 0-3 parents."""
    rng = np.random.default_rng(seed)
    seen, out = set(), []
    while len(out) < n_families:
        child = int(rng.integers(n_vars))
        k = int(rng.integers(0, 4))
        others = np.delete(np.arange(n_vars), child)
        parents = tuple(sorted(int(p) for p in rng.choice(others, size=k, replace=False)))
        if (child, parents) not in seen:
            seen.add((child, parents))
            out.append((child, parents))
    return out


def mtbn_pass(data, families):
    """Seconds to score ``families`` with a fresh scorer, and the values."""
    from mtbn.score import BDeuScore

    scorer = BDeuScore(data, equivalent_sample_size=1.0)
    t0 = time.perf_counter()
    values = [scorer.local_score(c, p) for c, p in families]
    seconds = time.perf_counter() - t0
    info = scorer.cache_info()
    assert info["hits"] == 0 and info["misses"] == len(families), info
    return seconds, values


def pgmpy_pass(df, names, families):
    from pgmpy.estimators import BDeu

    est = BDeu(df, equivalent_sample_size=1)
    t0 = time.perf_counter()
    values = [est.local_score(names[c], [names[p] for p in ps]) for c, ps in families]
    return time.perf_counter() - t0, values


def throughput(args):
    ds = "alarm_5000_s0"
    data = C.load_mtbn(ds)
    df = C.load_pandas(ds)
    families = random_families(data.n_vars, args.families, seed=args.seed)
    sub = families[: args.pgmpy_families]
    repeats = args.repeats
    m_times, p_times = [], []
    # Interleave the two tools so that load changes on the machine hit both.
    for _ in range(repeats):
        s, m_values = mtbn_pass(data, families)
        m_times.append(s)
        s, p_values = pgmpy_pass(df, data.names, sub)
        p_times.append(s)
    m_rate = len(families) / statistics.median(m_times)
    p_rate = len(sub) / statistics.median(p_times)
    # Same-process ratio on the same subset too (in case the subsets differ).
    sub_times = []
    for _ in range(repeats if len(sub) < len(families) else 0):
        s, _v = mtbn_pass(data, sub)
        sub_times.append(s)
    m_rate_sub = len(sub) / statistics.median(sub_times) if sub_times else m_rate
    rel = max(abs(a - b) / abs(b) for a, b in zip(m_values[: len(sub)], p_values))
    counts = np.bincount([len(p) for _c, p in families], minlength=4)
    header = ["tool", "families", "median seconds", "families / s", "ratio mtbn / pgmpy"]
    rows = [["mtbn BDeuScore (fresh, cold)", len(families), C.fmt(statistics.median(m_times), 4), f"{m_rate:,.0f}",
             C.ratio(m_rate, p_rate)]]
    if len(sub) < len(families):
        rows.append(["mtbn, pgmpy's subset", len(sub), C.fmt(statistics.median(sub_times), 4), f"{m_rate_sub:,.0f}",
                     C.ratio(m_rate_sub, p_rate)])
    rows.append(["pgmpy BDeu.local_score", len(sub), C.fmt(statistics.median(p_times), 4), f"{p_rate:,.0f}", "1x"])
    print(f"### BDeu local-score throughput, {ds} ({data.n_vars} variables, {data.n_samples} rows), cold cache\n")
    print(f"Families: {len(families)} distinct, seed {args.seed}, by number of parents 0/1/2/3: "
          f"{'/'.join(map(str, counts.tolist()))}; median of {repeats} passes, tools interleaved.\n")
    print(C.md_table(header, rows))
    print(f"\nLargest relative difference mtbn vs pgmpy over {len(sub)} families: {rel:.2e} "
          f"({'OK' if rel < 1e-9 else 'FAIL'}: < 1e-9 required)\n")
    return rel < 1e-9


def anchors(args):
    from mtbn.score import BDeuScore

    ref = C.reference()["bdeu"]
    rows = []
    ok = True
    datasets = DATASETS if not args.quick else DATASETS[:3]
    for ds in datasets:
        data = C.load_mtbn(ds)
        scorer = BDeuScore(data, equivalent_sample_size=1.0)
        true_score = scorer.score(C.parent_sets(data, C.true_edges(ds)))
        empty_score = scorer.score([set() for _ in data.names])
        r_true, r_empty = ref[ds]
        d_true, d_empty = true_score - r_true, empty_score - r_empty
        ok &= abs(d_true) < 1e-6 * abs(r_true) and abs(d_empty) < 1e-6 * abs(r_empty)
        rows.append([ds, f"{true_score:.6f}", f"{r_true:.6f}", f"{d_true:.1e}", f"{empty_score:.6f}", f"{r_empty:.6f}", f"{d_empty:.1e}"])
    # Declared (BIF) state lists: only INSURANCE has never-observed states.
    declared = C.declared_reference()
    if declared is not None:
        import pandas as pd
        from mtbn.data import read_csv

        ds = "insurance_1000_s0"
        st = pd.read_csv(C.anchors_dir() / "insurance_states.csv", dtype=str, keep_default_na=False)
        states = {v: list(g["state"]) for v, g in st.groupby("variable", sort=False)}
        data = read_csv(C.csv_path(ds), states=states)
        scorer = BDeuScore(data, equivalent_sample_size=1.0)
        true_score = scorer.score(C.parent_sets(data, C.true_edges(ds)))
        empty_score = scorer.score([set() for _ in data.names])
        r_true, r_empty = declared
        d_true, d_empty = true_score - r_true, empty_score - r_empty
        ok &= abs(d_true) < 1e-6 * abs(r_true) and abs(d_empty) < 1e-6 * abs(r_empty)
        rows.append([ds + " (declared states)", f"{true_score:.6f}", f"{r_true:.6f}", f"{d_true:.1e}",
                     f"{empty_score:.6f}", f"{r_empty:.6f}", f"{d_empty:.1e}"])
    print("### BDeu (ess = 1, observed states unless said) of the true and empty DAGs vs reference.md\n")
    print(C.md_table(["data set", "true DAG (mtbn)", "true DAG (reference)", "difference",
                      "empty DAG (mtbn)", "empty DAG (reference)", "difference"], rows))
    print()
    return ok


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer families and repeats; skip ANDES anchors")
    p.add_argument("--families", type=int, default=None, help="families scored by mtbn (default 2000; quick 500)")
    p.add_argument("--pgmpy-families", type=int, default=None, help="subset scored by pgmpy (default 2000; quick 200)")
    p.add_argument("--repeats", type=int, default=None, help="passes per tool (default 3; quick 1)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    args.families = args.families or (500 if args.quick else 2000)
    args.pgmpy_families = min(args.families, args.pgmpy_families or (200 if args.quick else 2000))
    args.repeats = args.repeats or (1 if args.quick else 3)
    C.quiet_pgmpy()
    print(f"Machine: {C.machine()}\n")
    ok = throughput(args)
    ok = anchors(args) and ok
    print(f"At the end: {C.load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
