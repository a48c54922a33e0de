"""Paired comparisons across trials: mean difference, 95% interval, t and Wilcoxon tests, Holm.

Used by the benchmark summaries (``mtbn bench``, ``docs/results.md``) so that
every "better" / "worse" is decided by a test, with multiplicity handled by
Holm's step-down correction across the comparisons of one table.
"""

import numpy as np

__all__ = ["paired_comparison", "holm"]


def paired_comparison(a, b, level=0.95):
    """Compare paired samples ``a`` and ``b`` (one value per trial).

    Returns
    -------
    dict
        ``n``, ``mean_diff`` (mean of ``a - b``), ``ci_low``, ``ci_high``
        (Student-t interval at ``level``), ``p_t`` (paired t-test) and
        ``p_wilcoxon`` (Wilcoxon signed-rank test, zero differences dropped;
        1.0 when every difference is zero). With fewer than two pairs the
        interval and p-values are NaN.
    """
    from scipy import stats

    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    n = len(d)
    out = {"n": n, "mean_diff": float(d.mean()) if n else float("nan")}
    if n < 2:
        out.update(ci_low=float("nan"), ci_high=float("nan"), p_t=float("nan"), p_wilcoxon=float("nan"))
        return out
    sd = d.std(ddof=1)
    half = stats.t.ppf(0.5 + level / 2, n - 1) * sd / np.sqrt(n)
    out.update(ci_low=float(d.mean() - half), ci_high=float(d.mean() + half))
    if sd == 0:
        out.update(p_t=1.0 if d.mean() == 0 else 0.0, p_wilcoxon=1.0 if d.mean() == 0 else float("nan"))
        return out
    out["p_t"] = float(stats.ttest_rel(a, b).pvalue)
    out["p_wilcoxon"] = float(stats.wilcoxon(d, zero_method="wilcox").pvalue) if np.any(d != 0) else 1.0
    return out


def holm(pvalues):
    """Holm's step-down adjusted p-values (NaNs are left out and stay NaN)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    idx = np.flatnonzero(~np.isnan(p))
    m = len(idx)
    order = idx[np.argsort(p[idx], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out
