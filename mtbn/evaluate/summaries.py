"""The benchmark's Markdown summary: means per method, reductions, paired tests with Holm's correction."""

import numpy as np

from mtbn.evaluate.methods import method_order


def summarise(results, title=""):
    """Markdown table: per method mean +- sd of edit distance and KL, reductions, p-values.

    Parameters
    ----------
    results : pandas.DataFrame
        Result rows as :func:`~mtbn.evaluate.run_trial` makes them (one per trial x method x task, the columns
        of :data:`~mtbn.evaluate.RESULT_COLUMNS`); without a ``cpdag_shd`` column the CPDAG columns are left
        out, and without a ``transfer`` column the negative-transfer guard's counts. Metrics are first
        averaged over the tasks of each trial.
    title : str, default ""
        A heading (``## title``) put above the table; none when empty.

    Returns
    -------
    str
        The Markdown summary: the table of methods (in :data:`~mtbn.evaluate.METHODS`' order), a note on
        its columns, the Holm-corrected paired comparisons of :func:`paired_table` and, with a ``transfer``
        column, how often the guard accepted or rejected transfer per method.
    """
    from scipy import stats

    has_cpdag = "cpdag_shd" in results.columns
    cols = ["edit_distance", "kl", "log_likelihood", "seconds"] + (["cpdag_shd", "undecidable_reversals"] if has_cpdag else [])
    per_trial = results.groupby(["method", "trial"])[cols].mean()
    order = method_order(results)
    lines = []
    if title:
        lines += [f"## {title}", ""]
    extra_head = "CPDAG SHD | undecidable reversals | " if has_cpdag else ""
    lines.append("| method | edit distance | " + extra_head + "KL | test log-lik | seconds/task | ED vs STL | "
                 "KL vs STL | ED vs IDENTICAL | KL vs IDENTICAL | p (ED, KL) vs STL |")
    lines.append("|---" * (12 if has_cpdag else 10) + "|")

    def red(m, base, col):
        if base not in order or m == base:
            return ""
        a, b = per_trial.loc[m][col].mean(), per_trial.loc[base][col].mean()
        return f"{100 * (b - a) / b:+.1f}%" if b else ""

    def pval(m, base, col):
        if base not in order or m == base:
            return ""
        a, b = per_trial.loc[m][col], per_trial.loc[base][col]
        common = a.index.intersection(b.index)
        if len(common) < 2 or np.allclose(a[common].values, b[common].values):
            return "n/a"
        return f"{stats.ttest_rel(a[common], b[common]).pvalue:.2g}"

    for m in order:
        d = per_trial.loc[m]
        extra = (f"| {d['cpdag_shd'].mean():.2f} ± {d['cpdag_shd'].std(ddof=1) if len(d) > 1 else 0:.2f} "
                 f"| {d['undecidable_reversals'].mean():.2f} " if has_cpdag else "")
        lines.append(
            f"| {m} | {d['edit_distance'].mean():.2f} ± {d['edit_distance'].std(ddof=1) if len(d) > 1 else 0:.2f} "
            + extra +
            f"| {d['kl'].mean():.4f} ± {d['kl'].std(ddof=1) if len(d) > 1 else 0:.4f} "
            f"| {d['log_likelihood'].mean():.4f} | {d['seconds'].mean():.2f} "
            f"| {red(m, 'stl', 'edit_distance')} | {red(m, 'stl', 'kl')} "
            f"| {red(m, 'identical', 'edit_distance')} | {red(m, 'identical', 'kl')} "
            f"| {_join(pval(m, 'stl', 'edit_distance'), pval(m, 'stl', 'kl'))} |"
        )
    lines += ["", "Edit distance and KL: mean over tasks per trial, then mean ± standard deviation over trials. "
              "Reductions are relative to the mean of STL / IDENTICAL (positive = better). "
              "p: paired t-test across trials."
              + (" CPDAG SHD: structural Hamming distance between essential graphs (a reversal the data "
                 "cannot decide costs 0); undecidable reversals: reversed edges whose direction the true "
                 "CPDAG leaves open." if has_cpdag else ""), ""]
    lines += paired_table(per_trial, order, ["edit_distance"] + (["cpdag_shd"] if has_cpdag else []) + ["kl"])
    if "transfer" in results.columns:
        status = results.dropna(subset=["transfer"]).groupby(["method", "trial"])["transfer"].first()
        for m in order:
            if m in status.index.get_level_values(0):
                counts = status.loc[m].value_counts()
                lines.append(f"Negative-transfer guard, {m}: " + ", ".join(
                    f"{name} in {int(counts[name])}" for name in ("accepted", "rejected", "none", "forced")
                    if name in counts) + f" of {len(status.loc[m])} trials.")
        lines.append("")
    return "\n".join(lines)


def paired_table(per_trial, order, columns):
    """Markdown: every method against STL (and MTL against IDENTICAL), paired over trials, Holm-corrected."""
    from mtbn.stats import holm, paired_comparison

    pairs = [(m, "stl") for m in order if m != "stl" and "stl" in order]
    pairs += [(m, "identical") for m in order if m.startswith("mtl") and "identical" in order]
    rows = []
    for m, base in pairs:
        a, b = per_trial.loc[m], per_trial.loc[base]
        common = a.index.intersection(b.index)
        for col in columns:
            rows.append((m, base, col, paired_comparison(a.loc[common, col], b.loc[common, col])))
    if not rows:
        return []
    if all(r[3]["n"] < 2 for r in rows):
        return ["Paired differences over trials need at least 2 trials.", ""]
    adjusted = holm([r[3]["p_t"] for r in rows])
    lines = ["Paired differences over trials (method minus baseline; negative = lower ED / KL), 95% t interval, "
             "paired t-test and Wilcoxon signed-rank p-values, and the t-test p-value Holm-corrected across "
             "all rows of this table. \"different\" means Holm p < 0.05.", "",
             "| method | baseline | metric | mean difference [95% CI] | p (t) | p (Wilcoxon) | p (Holm) | different |",
             "|---|---|---|---|---|---|---|---|"]
    for (m, base, col, r), adj in zip(rows, adjusted):
        lines.append(f"| {m} | {base} | {col} | {r['mean_diff']:+.4g} [{r['ci_low']:+.4g}, {r['ci_high']:+.4g}] "
                     f"| {r['p_t']:.2g} | {r['p_wilcoxon']:.2g} | {adj:.2g} | {'yes' if adj < 0.05 else 'no'} |")
    return lines + [""]


def _join(*cells):
    return ", ".join(cells) if any(cells) else ""
