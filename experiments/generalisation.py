"""The default on networks nobody developed on: pgmpy's example networks (the brief's "generalise, don't tune").

Run: ``python experiments/generalisation.py [--networks barley pathfinder ...] [--kinds related unrelated ...]
[--rows 250 1000] [--trials 10]``

The robustness suite (``experiments/robustness.py``) checks the default on the
networks shipped in ``data/``. These cells use networks that are not shipped
and that no setting of mtbn was chosen on: the BIF files pgmpy installs
(``pgmpy/utils/example_models``), read at run time by the experiment, not by
the package. Each (network, rows) cell is one ``mtbn bench`` run on the
network file (``mtbn.benchmarks.problem_source``: 5 related tasks, each edge
deleted with probability 0.05, correlated parameters, seed 0; 5000 test rows
per task for KL) in ``experiments/out/generalisation/<network>_<rows>/``; a
killed run resumes from the trials already written. ``--kinds`` adds cells of
unrelated tasks on the same networks (:data:`KINDS`, ``KIND:FILE`` problems), in
``<network>-<kind>_<rows>/``, where the default should return the single-task
solution (the guard). Methods: STL, IDENTICAL,
POOLED and MTL (the default: 5-fold CV, one-SE rule, negative-transfer guard,
transfer decided per task, parameter sharing).

``experiments/out/generalisation/table.md``: per cell the mean edit distance
(ED), CPDAG SHD and KL per task of each method, MTL minus STL with its 95% t
interval and p (paired over trials), p Holm-corrected over the table's
comparisons, the median chosen penalty, and how often the guard returned the
single-task solution.
"""

import os

import numpy as np
import pgmpy
from _common import OUT, jobs, progress, write_out
from robustness import stored, suite_arguments

from mtbn.benchmarks import mixed_unrelated
from mtbn.evaluate import run_benchmark
from mtbn.stats import holm, paired_comparison

METHODS = ("stl", "identical", "pooled", "mtl")
EXAMPLES = os.path.join(os.path.dirname(pgmpy.__file__), "utils", "example_models")
#: Not shipped in data/, never used to set anything: small to large (variables: CHILD 20, WATER 32, BARLEY 48,
#: HAILFINDER 56, PATHFINDER 109, DIABETES 413).
DEFAULT_NETWORKS = ("child", "water", "barley", "hailfinder", "pathfinder", "diabetes")


#: The constructions: related tasks (as alarm's), and unrelated ones that the guard must catch (as
#: alarm-unrelated's, relabelled variables; as alarm-marginals', random structures whose variables keep the
#: network's marginals; as alarm-mixed's, 3 related tasks and 2 relabelled; as alarm-lookalike's, 3 related tasks
#: and 2 random structures keeping the network's marginals), and weakly related ones (as alarm-ind's, each task's
#: edges deleted independently: where the relatedness test has the least power).
KINDS = ("related", "unrelated", "marginals", "mixed", "ind", "lookalike")
#: The kinds whose last tasks are unrelated to the first (``mtbn.benchmarks.mixed_unrelated``): tabulated per group.
MIXED_KINDS = ("mixed", "lookalike")


def name(network, kind):
    return network if kind == "related" else f"{network}-{kind}"


def folder(network, kind, rows):
    return os.path.join(OUT, "generalisation", f"{name(network, kind)}_{rows}")


def cell(network, kind, rows, trials):
    out = folder(network, kind, rows)
    progress(f"{name(network, kind)}, {rows} rows, {trials} trials -> {out}")
    path = os.path.join(EXAMPLES, f"{network}.bif.gz")
    results, _ = run_benchmark(path if kind == "related" else f"{kind}:{path}", out, n_trials=trials, n_train=rows,
                               n_test=5000, methods=METHODS, n_restarts=20, n_jobs=jobs(), progress=progress,
                               plots=False)
    return results


def summarise_cell(network, rows, results):
    per = results.groupby(["method", "trial"])[["edit_distance", "cpdag_shd", "kl"]].mean()
    row = {"network": network, "rows": rows, "trials": results["trial"].nunique()}
    for m in METHODS:
        for col in ("edit_distance", "cpdag_shd", "kl"):
            row[f"{m}:{col}"] = per.loc[m][col].mean()
    for col in ("edit_distance", "kl"):
        c = paired_comparison(per.loc["mtl"][col].values, per.loc["stl"][col].values)
        row[f"diff:{col}"], row[f"p:{col}"], row[f"ci:{col}"] = c["mean_diff"], c["p_t"], (c["ci_low"], c["ci_high"])
    mtl = results[results["method"] == "mtl"].groupby("trial").first()
    row["penalty"] = float(np.median(mtl["penalty"]))
    row["guard"] = int(mtl["transfer"].isin(["none", "rejected"]).sum())
    row["equal_stl"] = int(sum(np.array_equal(per.loc["mtl"].loc[t].values, per.loc["stl"].loc[t].values)
                               for t in per.loc["mtl"].index))
    return row


def group_rows(network, rows, results):
    """A mixed cell per group of tasks (the related first ones, the unrelated last ones): ED and KL of STL and
    MTL, MTL minus STL paired over trials, and how often MTL learned each task alone (left out)."""
    tasks = sorted(results["task"].unique(), key=lambda t: int("".join(filter(str.isdigit, t))))
    n_other = mixed_unrelated(len(tasks))
    out = []
    for label, group in (("related", tasks[:-n_other]), ("unrelated", tasks[-n_other:])):
        sub = results[results["task"].isin(group)]
        per = sub.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
        mtl = sub[sub["method"] == "mtl"]
        alone = " ".join(f"{int((mtl[mtl['task'] == t]['transfer'] == 'alone').sum())}" for t in group)
        cells = [network, str(rows), str(sub["trial"].nunique()), f"{label} ({', '.join(group)})"]
        for col, digits in (("edit_distance", 2), ("kl", 4)):
            c = paired_comparison(per.loc["mtl"][col].values, per.loc["stl"][col].values)
            cells += [f"{per.loc['stl'][col].mean():.{digits}f}", f"{per.loc['mtl'][col].mean():.{digits}f}",
                      f"{c['mean_diff']:+.{digits}f}, " + (f"{c['p_t']:.2g}" if c["p_t"] == c["p_t"] else "n/a")]
        out.append("| " + " | ".join(cells + [alone]) + " |")
    return out


def table(rows):
    pvals = [r[f"p:{col}"] for r in rows for col in ("edit_distance", "kl")]
    adjusted = iter(holm(pvals)) if pvals else iter(())
    lines = ["| network | rows | trials | ED STL | ED MTL | ED POOLED | ED IDENT | CPDAG STL | CPDAG MTL | KL STL | "
             "KL MTL | ED MTL-STL (95% CI), p, Holm p | KL MTL-STL (95% CI), p, Holm p | median 1-delta | "
             "fell back | MTL = STL |", "|---" * 16 + "|"]

    def diff(r, col, digits):
        lo, hi = r[f"ci:{col}"]
        p, h = r[f"p:{col}"], next(adjusted)
        ci = "" if lo != lo else f" ({lo:+.{digits}f}, {hi:+.{digits}f})"
        if p != p:
            return f"{r[f'diff:{col}']:+.{digits}f}{ci}, n/a"
        return f"{r[f'diff:{col}']:+.{digits}f}{ci}, {p:.2g}, {h:.2g}" + (" *" if h < 0.05 else "")

    for r in rows:
        lines.append(
            f"| {r['network']} | {r['rows']} | {r['trials']} | {r['stl:edit_distance']:.1f} | "
            f"{r['mtl:edit_distance']:.1f} | {r['pooled:edit_distance']:.1f} | {r['identical:edit_distance']:.1f} | "
            f"{r['stl:cpdag_shd']:.1f} | {r['mtl:cpdag_shd']:.1f} | {r['stl:kl']:.4f} | {r['mtl:kl']:.4f} | "
            f"{diff(r, 'edit_distance', 2)} | {diff(r, 'kl', 4)} | {1 - r['penalty']:.0e} | "
            f"{r['guard']}/{r['trials']} | {r['equal_stl']}/{r['trials']} |")
    lines += ["", "ED, CPDAG SHD, KL: per task, mean over the tasks of a trial, then over the trials. Differences are "
                  "MTL minus STL (negative = MTL better), paired over trials; * Holm-corrected p < 0.05 over the "
                  "table's comparisons. median 1-delta: of the penalty MTL chose (1e+00 = delta 0). fell back: trials "
                  "where the rule chose delta 0 or the guard rejected the choice (the sharing step's pooled structure "
                  "may then still replace the single-task structures); MTL = STL: trials where MTL's per-task ED, "
                  "CPDAG SHD and KL equal STL's."]
    return "\n".join(lines)


def main():
    args = suite_arguments(__doc__, "--networks", DEFAULT_NETWORKS, kinds=KINDS)
    if not args.table_only:
        for kind in args.kinds:
            for network in args.networks:
                for n in args.rows:
                    cell(network, kind, n, args.trials)
    rows, groups = [], []
    for kind in KINDS:  # the table holds every stored cell, whichever were run now
        for network in DEFAULT_NETWORKS:
            for n in (50, 250, 1000):
                results = stored(folder(network, kind, n))
                if results is not None and set(METHODS) <= set(results["method"]):
                    rows.append(summarise_cell(name(network, kind), n, results))
                    if kind in MIXED_KINDS:
                        groups += group_rows(name(network, kind), n, results)
    text = table(rows) + "\n"
    if groups:
        text += ("\nThe cells whose last tasks are unrelated, per group of tasks (MTL minus STL paired over trials; "
                 "left out: in how many trials MTL learned each task alone):\n\n"
                 "| network | rows | trials | tasks | ED STL | ED MTL | ED MTL-STL, p | KL STL | KL MTL "
                 "| KL MTL-STL, p | left out (per task) |\n" + "|---" * 11 + "|\n" + "\n".join(groups) + "\n")
    write_out(os.path.join("generalisation", "table.md"), text)


if __name__ == "__main__":
    main()
