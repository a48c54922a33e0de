"""Paired comparisons across trials: mean difference, 95% interval, t and Wilcoxon tests, Holm.

Used by the benchmark summaries (``mtbn bench``, ``docs/results.md``) so that
every "better" / "worse" is decided by a test, with multiplicity handled by
Holm's step-down correction across the comparisons of one table.
"""

import numpy as np

__all__ = ["level_strata", "paired_comparison", "holm", "relabelling_test", "stratified_permutation"]


def paired_comparison(a, b, level=0.95):
    """Compare paired samples ``a`` and ``b`` (one value per trial).

    Parameters
    ----------
    a : array_like of float, shape (n,)
        The first method's value in each trial.
    b : array_like of float, shape (n,)
        The second method's value in the same trials, in the same order as ``a``.
    level : float, default 0.95
        The coverage of the confidence interval of the mean difference, in (0, 1).

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
    """Holm's step-down adjusted p-values (NaNs are left out and stay NaN).

    Parameters
    ----------
    pvalues : array_like of float
        The raw p-values of one family of comparisons, any shape; NaN marks a comparison that was not made.

    Returns
    -------
    ndarray of float
        The adjusted p-values, in the shape and order of ``pvalues``, each at most 1; the number of comparisons
        is the number of non-NaN entries.
    """
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


def stratified_permutation(strata, rng):
    """A random permutation of ``range(len(strata))`` that moves each index only among those of its stratum.

    Parameters
    ----------
    strata : array_like of shape (m,)
        One stratum label per index; indices with equal labels may be exchanged.
    rng : numpy.random.Generator
        The random generator that draws the permutation within each stratum (strata in sorted label order).

    Returns
    -------
    ndarray of int, shape (m,)
        ``perm[i]`` is the index that goes to position ``i``; ``strata[perm[i]] == strata[i]`` for every ``i``.

    Examples
    --------
    >>> stratified_permutation([2, 3, 2, 3, 3], np.random.default_rng(0)).tolist()
    [0, 4, 2, 1, 3]
    """
    return _permute_within(_strata_groups(strata), len(strata), rng)


def _strata_groups(strata):
    """The indices of each stratum, strata in sorted order (computed once per task, not per permutation)."""
    strata = np.asarray(strata)
    return [np.flatnonzero(strata == value) for value in np.unique(strata)]


def _permute_within(groups, m, rng):
    """A permutation of ``range(m)`` moving each index only within its group: each group's indices shuffled in
    place, in the order of ``groups`` (the random draws of ``rng.permutation`` of each group in turn; a group
    of one draws nothing)."""
    order = np.concatenate(groups) if groups else np.arange(0)
    moved = order.copy()
    start = 0
    for where in groups:
        end = start + len(where)
        if end - start > 1:
            rng.shuffle(moved[start:end])
        start = end
    perm = np.arange(m)
    perm[order] = moved
    return perm


#: Cells of one block of relabelled matrices in :func:`relabelling_test` (a block of permutations at a time).
_RELABEL_BLOCK_CELLS = 1 << 21


def _relabelled_statistics(ranked, total, mean_pairwise, groups, n_permutations, rng):
    """:func:`relabelling_test`'s null: ``n_permutations`` relabellings (one per task, within ``groups[t]``, drawn
    from ``rng`` one permutation after another, each task in turn), and per permutation the mean pairwise inner
    product of the relabelled matrices and each task's inner product with the others' unrelabelled sum. Blocks of
    permutations at once (memory: a block's matrices, not every relabelling); each sum adds the tasks in order,
    as one permutation at a time would."""
    k, m, _ = ranked.shape
    null = np.empty(n_permutations)
    null_own = np.empty((n_permutations, k))
    others = total[None] - ranked  # task t against the sum of the others, as observed
    block = max(1, _RELABEL_BLOCK_CELLS // (m * m))
    for lo in range(0, n_permutations, block):
        n = min(block, n_permutations - lo)
        p = np.array([[_permute_within(groups[t], m, rng) for t in range(k)] for _ in range(n)],
                     dtype=np.intp).reshape(n, k, m)
        moved_sum = None
        for t in range(k):
            moved = np.take(ranked[t].ravel(), p[:, t, :, None] * m + p[:, t, None, :])  # ranked[t][p, p.T]
            moved_sum = moved.copy() if moved_sum is None else moved_sum + moved
            null_own[lo:lo + n, t] = (moved * others[t]).sum(axis=(1, 2)) / 2
        null[lo:lo + n] = mean_pairwise(moved_sum)
    return null, null_own


def _without_variable_effects(r):
    """A symmetric matrix (zero diagonal) minus its least-squares fit ``g + a_u + a_v`` over the pairs ``u != v``:
    what is left of each pair once each variable's own level (how strongly it depends on anything) is taken out."""
    m = r.shape[0]
    if m < 3:
        return r
    off = ~np.eye(m, dtype=bool)
    g = r[off].mean()
    a = (r.sum(axis=1) / (m - 1) - g) * (m - 1) / (m - 2)
    out = r - a[:, None] - a[None, :] - g
    out[~off] = 0.0
    return out


def level_strata(matrix, labels, size=4):
    """Strata for :func:`relabelling_test`: within each label (e.g. a state count), the variables cut into groups
    of about ``size`` by their *level*, the mean rank of their dependences on the others in ``matrix``.

    Relabelling within these strata keeps how strongly each variable depends on anything, in each task, and
    moves only which variables it depends on: the null of tasks whose variables behave alike (shared marginals,
    shared strengths of their mechanisms) while their structures are independent (issue 47).

    Parameters
    ----------
    matrix : ndarray of shape (m, m)
        A strength of dependence for every pair of the ``m`` variables (e.g. pairwise log Bayes factors); only
        the upper triangle is read, and only its ranks matter.
    labels : array_like of shape (m,)
        A label per variable (e.g. its number of states); variables with different labels never share a stratum.
    size : int, default 4
        The rough number of variables per group: a label with ``n`` variables is cut into ``max(1, n // size)``
        groups of consecutive levels.

    Returns
    -------
    ndarray of int64, shape (m,)
        The stratum of each variable, to pass as ``strata`` to :func:`relabelling_test`; within a label, a
        larger number means a higher level.

    Examples
    --------
    >>> m = np.array([[0, 9, 8, 7], [9, 0, 6, 5], [8, 6, 0, 1], [7, 5, 1, 0]], dtype=float)
    >>> level_strata(m, [2, 2, 2, 2], size=2).tolist()  # the two strongest together, the two weakest together
    [1, 1, 0, 0]
    """
    from scipy.stats import rankdata

    m = matrix.shape[0]
    iu = np.triu_indices(m, 1)
    ranks = np.zeros((m, m))
    ranks[iu] = rankdata(np.asarray(matrix, dtype=float)[iu])
    level = (ranks + ranks.T).sum(axis=1) / max(m - 1, 1)
    labels = np.asarray(labels)
    out = np.zeros(m, dtype=np.int64)
    for i, label in enumerate(np.unique(labels)):
        idx = np.flatnonzero(labels == label)
        bins = max(1, len(idx) // size)
        order = np.argsort(np.argsort(level[idx], kind="stable"), kind="stable")
        out[idx] = i * (m + 1) + (order * bins) // len(idx)
    return out


def relabelling_test(matrices, n_permutations=199, random_state=None, strata=None, centre=False):
    """Are the tasks' pairwise dependences more alike than under random variable labels?

    Each matrix (one per task, the same variables in the same order, symmetric)
    holds a strength of dependence for every pair of variables, e.g.
    :func:`mtbn.score.pairwise_log_bayes_factors`. The statistic is the mean,
    over pairs of tasks, of the Spearman correlation of their upper
    triangles. Under the null hypothesis the variable labels carry no shared
    meaning across tasks: each task's matrix is relabelled by its own random
    permutation of the variables (rows and columns together), which keeps
    every task's own pattern of dependences (degrees, hubs, chains) and only
    breaks the correspondence between tasks. The p-value is
    ``(1 + #{null >= observed}) / (1 + n_permutations)``.

    Per task, the same question is asked of that task alone: its correlation
    with the sum of the others, against relabelling only that task.

    ``strata`` (one label per variable, or one row of labels per task)
    restricts every relabelling to variables of the same label. With the
    variables' state counts as labels, the null keeps what the number of
    states alone does to a dependence strength (a log Bayes factor of two
    binary variables is not on the scale of one of two 4-state variables),
    so tasks whose variables merely share their state counts are not called
    related (issue 31: random networks over ALARM's variables were, 10 in 10).

    ``centre=True`` correlates what is left of each task's ranks once every
    variable's own level is taken out (the least-squares fit ``g + a_u +
    a_v``, :func:`_without_variable_effects`): how strongly a variable
    depends on anything follows its marginal (a variable with a skewed
    marginal has little information to share), and tasks over the same
    measured variables share their marginals whatever their structures, so
    the plain statistic called independent structures with shared marginals
    related (issue 47: 8 in 10 at p <= 0.01); centred, none. The statistic is
    then a Pearson correlation of the centred ranks.

    Because ``sum_{a<b} <R_a, R_b> = (|sum_t R_t|^2 - sum_t |R_t|^2) / 2``
    and relabelling does not change ``|R_t|``, each permutation costs
    ``O(k m^2)`` for ``k`` tasks and ``m`` variables.

    Parameters
    ----------
    matrices : sequence of ndarray of shape (m, m)
        One symmetric dependence matrix per task (``k >= 2``), the same variables in the same order; only the
        upper triangles are read, and only their ranks matter.
    n_permutations : int, default 199
        Random relabellings drawn for the null distribution.
    random_state : int, numpy.random.Generator or None, optional
        Seed or generator for the relabellings (passed to :func:`numpy.random.default_rng`); None draws fresh
        entropy, so the p-values vary from call to call.
    strata : array_like of shape (m,) or (k, m), optional
        A stratum label per variable (one row for all tasks, or one row per task, e.g. from
        :func:`level_strata`); each relabelling only exchanges variables of the same stratum. None: any variable
        with any other.
    centre : bool, default False
        Take each variable's own level out of the ranks before correlating them (see above).

    Returns
    -------
    dict
        ``statistic`` (mean pairwise Spearman correlation), ``null_mean``,
        ``p_value``, ``permutations``, and ``tasks``: per task its mean
        correlation with the others (``statistic``) and ``p_value``, with the mean and standard deviation of
        that correlation under its own relabelling (``null_mean``, ``null_sd``).
    """
    from scipy.stats import rankdata

    k = len(matrices)
    m = matrices[0].shape[0]
    iu = np.triu_indices(m, 1)
    ranked = np.zeros((k, m, m))
    for t, b in enumerate(matrices):
        r = rankdata(np.asarray(b, dtype=float)[iu])
        r = r - r.mean()
        if centre:
            full = np.zeros((m, m))
            full[iu] = r
            r = _without_variable_effects(full + full.T)[iu]
        norm = np.sqrt((r * r).sum())
        r = r / norm if norm > 0 else r
        ranked[t][iu] = r
        ranked[t] = ranked[t] + ranked[t].T
    # <R_a, R_b> over the upper triangle = half the full (zero-diagonal) inner product.
    norms = np.array([(r * r).sum() / 2 for r in ranked])

    def mean_pairwise(total):  # of one sum of the tasks' matrices (m, m), or of a block of them (n, m, m)
        return ((total * total).sum(axis=(-2, -1)) / 2 - norms.sum()) / (k * (k - 1))

    total = ranked.sum(axis=0)
    observed = mean_pairwise(total)
    own = np.array([(ranked[t] * (total - ranked[t])).sum() / 2 for t in range(k)])
    rng = np.random.default_rng(random_state)
    labels = np.broadcast_to(np.zeros(m, dtype=int) if strata is None else np.asarray(strata), (k, m))
    groups = [_strata_groups(labels[t]) for t in range(k)]
    null, null_own = _relabelled_statistics(ranked, total, mean_pairwise, groups, n_permutations, rng)
    p = float((1 + np.sum(null >= observed - 1e-12)) / (1 + n_permutations))
    p_own = (1 + np.sum(null_own >= own - 1e-12, axis=0)) / (1 + n_permutations)
    return {
        "statistic": float(observed),
        "null_mean": float(null.mean()),
        "p_value": p,
        "permutations": int(n_permutations),
        "tasks": [{"statistic": float(o / (k - 1)), "p_value": float(q), "null_mean": float(mu / (k - 1)),
                   "null_sd": float(sd / (k - 1))}
                  for o, q, mu, sd in zip(own, p_own, null_own.mean(axis=0), null_own.std(axis=0))],
    }
