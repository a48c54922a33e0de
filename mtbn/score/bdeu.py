"""The BDeu score (Heckerman, Geiger and Chickering, 1995), the paper's ``log P(D | G)``.

With equivalent sample size ``ess``: for a child with ``r`` states and ``q`` parent configurations,
``alpha_j = ess / q`` and ``alpha_jk = ess / (q r)``, and

    log P(D_X | Pa) = sum_j [lnG(alpha_j) - lnG(alpha_j + N_j)]
                    + sum_jk [lnG(alpha_jk + N_jk) - lnG(alpha_jk)].

Written with the tables ``T_a[N] = lnG(a + N) - lnG(a)``, every cell or
configuration with a zero count contributes exactly ``T_a[0] = 0``, so parent
configurations that never occur contribute exactly zero and no correction
term exists. ``r`` is the number of *declared* states of the child (those of
the state list of the data), whether observed or not; ``q`` is the product of
the parents' declared arities.

The scorers assume valid integer codes (as built by :mod:`mtbn.data`) and do
not check that parent sets exclude the child.
"""

import numpy as np

from mtbn._validation import check_positive
from mtbn.score.counting import _BATCH_MAX_SAMPLES, _SORT_FLOOR, _SORT_PER_SAMPLE, CountingScore, observed_counts

__all__ = ["BDeuScore", "bdeu_local_score", "excess_log_bayes_factors"]


class BDeuScore(CountingScore):
    """BDeu local scores of one data set, cached by ``(child, parents)``.

    The cache lives as long as the object, so penalty sweeps and task
    selection runs that reuse the scorer reuse every local score.

    Parameters
    ----------
    data : DiscreteData
        The integer-coded data of one task; the child's and parents' declared arities come from its state lists.
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (``ess``); must be positive.

    Examples
    --------
    >>> import numpy as np
    >>> from mtbn.data import DiscreteData
    >>> d = DiscreteData(np.array([[0, 0], [1, 1], [1, 1]]), ("A", "B"), (("a", "b"), ("x", "y")))
    >>> s = BDeuScore(d)

    B copies A, so making A a parent of B raises the score. By hand,
    ``s(B | A) = [ln G(.5) - ln G(1.5) + ln G(1.25) - ln G(.25)]
    + [ln G(.5) - ln G(2.5) + ln G(2.25) - ln G(.25)] = -1.568616`` and
    ``s(B) = -ln 6 + ln .5 + ln .75 = -2.772589``:

    >>> round(s.local_score(1, [0]) - s.local_score(1, []), 6)
    1.203973
    """

    name = "bdeu"
    params = ("equivalent_sample_size",)

    def __init__(self, data, equivalent_sample_size=1.0):
        super().__init__(data)
        self.ess = check_positive(equivalent_sample_size, "equivalent_sample_size")

    def _terms(self, alpha, counts):
        """``lnG(alpha + N) - lnG(alpha)`` of each count ``N`` in ``counts``: read off the process's table for
        ``alpha`` (:func:`_table`) when it covers the rows or can, within :data:`TABLE_BYTES`; else computed on
        the counts themselves, the same floats."""
        table = _table(alpha, self.n_samples)
        if table is not None:
            return table[counts]
        from scipy.special import gammaln

        return gammaln(alpha + np.asarray(counts, dtype=np.float64)) - gammaln(alpha)

    def _batched(self, q, r):
        return self.n_samples <= _BATCH_MAX_SAMPLES and q * r <= max(_SORT_PER_SAMPLE * self.n_samples, _SORT_FLOOR)

    def _score_codes(self, child, codes, q):
        # Dense tables of many families in one bincount (row i's cells offset
        # by i q r); each family's sums run over its own row, in the order
        # _score_code sums them, so every score is the same float.
        r = int(self.arities[child])
        m, cells = len(codes), q * r
        codes = codes + (np.arange(m, dtype=codes.dtype) * cells)[:, None]
        counts = np.bincount(codes.ravel(), minlength=m * cells).reshape(m, cells)
        conf = counts.reshape(m, q, r).sum(axis=2)
        cell_terms = self._terms(self.ess / cells, counts).sum(axis=1)
        return (cell_terms - self._terms(self.ess / q, conf).sum(axis=1)).tolist()

    def _score_code(self, child, code, q):
        r = int(self.arities[child])
        a_cell, a_conf = self.ess / (q * r), self.ess / q
        if code is None:
            counts = np.bincount(self._columns[child], minlength=r)
            return float(self._terms(a_cell, counts).sum() - self._terms(a_conf, counts.sum()))
        if q * r <= max(_SORT_PER_SAMPLE * self.n_samples, _SORT_FLOOR):
            counts = np.bincount(code, minlength=q * r).reshape(q, r)
            return float(self._terms(a_cell, counts).sum() - self._terms(a_conf, counts.sum(axis=1)).sum())
        # Large declared table: only the observed cells, found by one sort
        # (unobserved cells and configurations contribute exactly 0).
        cells, configs = observed_counts(code, r)
        return float(self._terms(a_cell, cells).sum() - self._terms(a_conf, configs).sum())


#: The bytes of the tables of ``lnG(alpha + N)`` a process keeps for all its :class:`BDeuScore` (``8 (rows + 1)``
#: each, one per ``alpha``); the terms of the other ``alpha`` are computed on the counts.
TABLE_BYTES = 2**25

_TABLES: dict = {}  # alpha -> T_alpha (see _table); their bytes: _TABLES_BYTES[0]
_TABLES_BYTES = [0]


def _table(alpha, n_rows):
    """``T_alpha[N] = lnG(alpha + N) - lnG(alpha)`` for N = 0..(at least) ``n_rows``, or None when the tables of
    the process would pass :data:`TABLE_BYTES`.

    One table per ``alpha`` serves every scorer of the process: each entry is computed on its own, so the first
    ``n + 1`` entries of a longer table are a shorter one's floats, and the tasks and folds of a multitask
    search, of the same variables, share their ``alpha = ess / (q r)``. Before, each scorer kept its own tables
    (up to 8 MB each): 128 MB of them for 3 ALARM tasks of 50,000 rows and their 5 folds, whose codes take 5.5 MB.
    """
    table = _TABLES.get(alpha)
    if table is not None and len(table) > n_rows:
        return table
    grown = 8 * (n_rows + 1) - (0 if table is None else table.nbytes)
    if _TABLES_BYTES[0] + grown > TABLE_BYTES:
        return None
    from scipy.special import gammaln

    n = np.arange(n_rows + 1, dtype=np.float64)
    table = gammaln(alpha + n) - gammaln(alpha)
    table[0] = 0.0
    _TABLES[alpha] = table
    _TABLES_BYTES[0] += grown
    return table


def bdeu_local_score(data, child, parents, equivalent_sample_size=1.0):
    """BDeu local score of one family (uncached convenience function).

    ``child`` and ``parents`` are column indices or names of ``data``.

    Parameters
    ----------
    data : DiscreteData
        The integer-coded data of one task.
    child : int or str
        Column index or name of the variable whose family is scored.
    parents : iterable of int or str
        Column indices or names of its parents (in any order; empty for no parents).
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (``ess``); must be positive.

    Returns
    -------
    float
        The BDeu local score ``log P(D_child | parents)``, computed without a cache.

    Examples
    --------
    The data of the :class:`BDeuScore` example, where B copies A:

    >>> import numpy as np
    >>> from mtbn.data import DiscreteData
    >>> d = DiscreteData(np.array([[0, 0], [1, 1], [1, 1]]), ("A", "B"), (("a", "b"), ("x", "y")))
    >>> round(bdeu_local_score(d, "B", ["A"]), 6), round(bdeu_local_score(d, "B", []), 6)
    (-1.568616, -2.772589)
    >>> bdeu_local_score(d, 1, [0]) == bdeu_local_score(d, "B", ["A"])
    True

    A larger equivalent sample size smooths the counts more, so that the
    data's dependence counts for less:

    >>> round(bdeu_local_score(d, "B", ["A"], equivalent_sample_size=10.0), 6)
    -1.925291
    """
    def idx(v):
        return data.index(v) if isinstance(v, str) else int(v)

    scorer = BDeuScore(data, equivalent_sample_size)
    return scorer.local_score_uncached(idx(child), [idx(p) for p in parents])


#: Support points of the hypergeometric sums of :func:`excess_log_bayes_factors` evaluated at once (bounded memory).
_SUPPORT_BATCH = 1 << 21


def _mean_cell_terms(n, a, b, alpha):
    """``E[lnG(alpha + X) - lnG(alpha)]`` for ``X ~ Hypergeometric(n, a, b)`` (the count of a cell whose row and
    column totals are ``a`` and ``b`` when the rows are matched at random), elementwise over arrays ``a, b, alpha``."""
    from scipy.special import gammaln

    # The support, cut to the mean +- sqrt(20 min(a, b)): Hoeffding's bound for sampling without replacement puts
    # less than 2 exp(-40) (about 1e-17) of the probability outside, so the cut changes no digit that matters.
    half = np.ceil(np.sqrt(20.0 * np.minimum(a, b))).astype(np.int64) + 1
    mean = (a * b) // max(n, 1)
    lo = np.maximum(np.maximum(0, a + b - n), mean - half)
    length = np.minimum(np.minimum(a, b), mean + half) - lo + 1
    log_fact = gammaln(np.arange(n + 1, dtype=np.float64) + 1.0)  # ln k!
    levels, which = np.unique(alpha, return_inverse=True)
    terms = gammaln(levels[:, None] + np.arange(n + 1)) - gammaln(levels)[:, None]  # lnG(alpha + x) - lnG(alpha)
    out = np.empty(len(a))
    ends = np.cumsum(length)
    start = 0
    while start < len(a):
        # cells [start, stop): at most _SUPPORT_BATCH support points (or one cell)
        stop = max(start + 1, int(np.searchsorted(ends, (ends[start - 1] if start else 0) + _SUPPORT_BATCH, "right")))
        lens = length[start:stop]
        cell = np.repeat(np.arange(stop - start), lens)
        offset = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        x = lo[start:stop][cell] + offset
        aa, bb = a[start:stop][cell], b[start:stop][cell]
        log_p = (log_fact[aa] - log_fact[x] - log_fact[aa - x] + log_fact[n - aa] - log_fact[bb - x]
                 - log_fact[n - aa - bb + x] - log_fact[n] + log_fact[bb] + log_fact[n - bb])
        value = terms[which.ravel()[start:stop][cell], x]
        out[start:stop] = np.bincount(cell, np.exp(log_p) * value, minlength=stop - start)
        start = stop
    return out


def _distinct_rows(*columns):
    """The distinct rows of equal-length int64 ``columns``: the index of one row of each, and each row's distinct
    row (``np.unique(..., axis=0, return_inverse=True)`` without its sort of the rows as bytes, several times
    slower on a few thousand rows)."""
    order = np.lexsort(columns[::-1])
    new = np.ones(len(order), dtype=bool)
    new[1:] = np.any([np.diff(c[order]) != 0 for c in columns], axis=0)
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


def excess_log_bayes_factors(data, variables=None, equivalent_sample_size=1.0):
    """Every pair's BDeu log Bayes factor of dependence minus its mean under independence with the same marginals.

    ``B[u, v]`` is :func:`mtbn.score.pairwise_log_bayes_factors`'s factor
    under BDeu; given both variables' observed marginal counts, only the
    cell counts ``N_jk`` of their table are random when the rows are
    matched at random (each ``N_jk`` hypergeometric with the row and column
    totals), so the mean of ``B[u, v]`` under that null is exact:
    ``E[B] = B - sum_jk [lnG(alpha + N_jk) - E lnG(alpha + N_jk)]`` with
    ``alpha = ess / (r_u r_v)``. The returned excess ``B - E[B]`` is about
    0 for independent variables whatever their marginals, while ``B``
    itself is not on sparse tables: it is larger for some marginals than
    for others, a pattern that unrelated tasks with alike marginals share.

    Parameters
    ----------
    data : DiscreteData
        The integer-coded data of one task.
    variables : sequence of int, optional
        The columns to score (default: all).
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size; must be positive.

    Returns
    -------
    ndarray of shape (m, m), float64
        Symmetric, 0 on the diagonal.

    Examples
    --------
    Two variables whose four rows can only be matched in 4!/(2! 2!) = 6 ways
    (up to equal rows); matched as ``(0, 0), (0, 0), (1, 1), (1, 1)`` they
    agree more than the mean over those 6 matchings:

    >>> import numpy as np
    >>> from mtbn.data import DiscreteData
    >>> d = DiscreteData(np.array([[0, 0], [0, 0], [1, 1], [1, 1]]), ("A", "B"), (("a", "b"), ("x", "y")))
    >>> bool(excess_log_bayes_factors(d)[0, 1] > 0)
    True
    """
    check_positive(equivalent_sample_size, "equivalent_sample_size")
    codes = np.asarray(data.codes)
    idx = np.arange(codes.shape[1]) if variables is None else np.asarray([int(v) for v in variables], dtype=np.int64)
    cols = codes[:, idx].astype(np.int64)
    r = np.asarray(data.arities, dtype=np.int64)[idx]
    n, m = cols.shape
    out = np.zeros((m, m))
    if m < 2 or n == 0:
        return out
    from scipy.special import gammaln

    margins = [np.bincount(cols[:, u], minlength=int(r[u])) for u in range(m)]
    top = int(r.max())
    step = max(1, _SUPPORT_BATCH // max(n, top * top))
    for u, vs in ((u, np.arange(s, min(s + step, m))) for u in range(m - 1) for s in range(u + 1, m, step)):
        # pairs (u, v) for a block of v > u in one bincount: v's table is block i, cells (j, k) at j * top + k
        joint = (cols[:, u][:, None] * top + cols[:, vs]) + (np.arange(len(vs)) * top * top)[None, :]
        tables = np.bincount(joint.ravel(), minlength=len(vs) * top * top).reshape(len(vs), top, top)
        alpha = equivalent_sample_size / (r[u] * r[vs])
        observed = (gammaln(alpha[:, None, None] + tables) - gammaln(alpha)[:, None, None]).sum(axis=(1, 2))
        # the null's mean: one hypergeometric mean per cell of the declared tables
        a = np.concatenate([np.repeat(margins[u], r[v]) for v in vs])
        b = np.concatenate([np.tile(margins[v], r[u]) for v in vs])
        al = np.repeat(alpha, r[u] * r[vs])
        first, inverse = _distinct_rows(a, b, al.view(np.int64))
        mean = _mean_cell_terms(n, a[first], b[first], al[first])[inverse]
        expected = np.add.reduceat(mean, np.concatenate([[0], np.cumsum(r[u] * r[vs])[:-1]]))
        out[u, vs] = out[vs, u] = observed - expected
    return out
