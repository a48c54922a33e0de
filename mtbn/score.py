"""Decomposable scores of discrete data: BDeu and BIC, with a per-task cache.

A local score is a function of a variable (the *child*) and a set of
*parents*. It is computed from the contingency table of the child against
the parent configurations; the table is counted with vectorised numpy over
integer codes (a mixed-radix code of the parent configuration, then
``numpy.bincount``, or ``numpy.unique`` when the table would be too large).

BDeu (Heckerman, Geiger and Chickering, 1995) with equivalent sample size
``ess``: for a child with ``r`` states and ``q`` parent configurations,
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

from mtbn._validation import check_option, check_positive
from mtbn.data import DiscreteData
from mtbn.messages import error, register

register("scorer-data-type", TypeError, "data must be a DiscreteData; got {got}.",
         cause="A scorer was built from raw data instead of integer-coded data.",
         fix="Code the data first with mtbn.data.from_dataframe or read_csv (learn_structure does this for you).")

__all__ = [
    "BDeuScore",
    "BICScore",
    "bdeu_local_score",
    "count_family",
    "make_scorer",
    "pairwise_log_bayes_factors",
    "SCORES",
]

# A dense table is counted with bincount when q * r is at most this many
# cells per sample (or this absolute floor); otherwise with np.unique.
_DENSE_FLOOR = 1 << 16
# Largest code a family's cells may take before it is renumbered (int64-safe).
_CODE_LIMIT = 1 << 62


def count_family(columns, arities, child, parents):
    """Contingency table of ``child`` against the configurations of ``parents``.

    Parameters
    ----------
    columns : sequence of int64 ndarray
        ``columns[v]`` holds the codes of variable ``v`` (one per sample).
    arities : sequence of int
        Number of states of each variable.
    child : int
    parents : sequence of int
        The parent configuration code is mixed-radix, first parent most
        significant. A family whose declared table would not fit int64
        codes (``q * r > 2**62``) renumbers its observed configurations on
        the way, so the counts stay exact and the table has at most one row
        per sample.

    Returns
    -------
    counts : ndarray of int64, shape (n_configs, r)
        When the full table (``q * r`` cells) is small it is returned whole
        (rows of unobserved configurations are zero); otherwise only the
        observed configurations are returned as rows.
    q : int
        The number of parent configurations (declared, not observed).
    """
    r = int(arities[child])
    q = 1
    code = None
    base = 1  # the codes so far lie in range(base)
    for p in parents:
        a = int(arities[p])
        q *= a
        if code is None:
            code = columns[p].copy()
        else:
            if base * a * r > _CODE_LIMIT:
                # The mixed-radix code would overflow int64: renumber the
                # observed configurations so far (at most n of them) first.
                code = np.unique(code, return_inverse=True)[1].reshape(-1).astype(np.int64)
                base = int(code.max()) + 1
            code *= a
            code += columns[p]
        base *= a
    n = len(columns[child])
    if code is None:
        return np.bincount(columns[child], minlength=r).reshape(1, r), 1
    code *= r
    code += columns[child]
    cells = q * r
    if cells <= max(_DENSE_FLOOR, 4 * n):
        return np.bincount(code, minlength=cells).reshape(q, r), q
    cell_ids, cell_counts = np.unique(code, return_counts=True)
    config_ids, row = np.unique(cell_ids // r, return_inverse=True)
    table = np.zeros((len(config_ids), r), dtype=np.int64)
    table[row.reshape(-1), cell_ids % r] = cell_counts
    return table, q


class _CountingScore:
    """Shared machinery: integer columns, a cache, and hit/miss counters."""

    def __init__(self, data):
        if not isinstance(data, DiscreteData):
            raise error("scorer-data-type", got=type(data).__name__)
        self.data = data
        self.n_vars = data.n_vars
        self.n_samples = data.n_samples
        self.arities = data.arities
        self._columns = [np.ascontiguousarray(data.codes[:, v], dtype=np.intp) for v in range(data.n_vars)]
        self._cache = {}
        self.hits = 0
        self.misses = 0

    def __sizeof__(self):
        # The data columns and about 100 bytes per cached score: lets a Dask
        # engine see that a scorer is worth scattering (see mtbn.engine).
        return object.__sizeof__(self) + sum(c.nbytes for c in self._columns) + 100 * len(self._cache)

    def local_score(self, child, parents):
        """Cached local score of ``child`` given the set ``parents``."""
        key = (child, tuple(sorted(parents)))
        value = self._cache.get(key)
        if value is None:
            self.misses += 1
            value = self._compute(child, key[1])
            self._cache[key] = value
        else:
            self.hits += 1
        return value

    def local_score_uncached(self, child, parents):
        """The local score computed afresh (no cache look-up or store)."""
        return self._compute(child, tuple(sorted(parents)))

    def score(self, parents):
        """Total score of a DAG given as one parent set per variable."""
        return float(sum(self.local_score(v, pa) for v, pa in enumerate(parents)))

    def cache_info(self):
        """A dict with the cache's ``hits``, ``misses`` and ``size``."""
        return {"hits": self.hits, "misses": self.misses, "size": len(self._cache)}

    def cache_items(self):
        """The cached scores, ``{(child, parents): score}`` (to send back from a worker process)."""
        return dict(self._cache)

    def merge_cache(self, items):
        """Add scores computed elsewhere on the same data (e.g. by :meth:`cache_items` in a worker)."""
        self._cache.update(items)

    def clear_cache(self):
        self._cache.clear()
        self.hits = self.misses = 0

    def counts(self, child, parents):
        """The contingency table (see :func:`count_family`)."""
        return count_family(self._columns, self.arities, child, tuple(parents))


class BDeuScore(_CountingScore):
    """BDeu local scores of one data set, cached by ``(child, parents)``.

    The cache lives as long as the object, so penalty sweeps and task
    selection runs that reuse the scorer reuse every local score.

    Parameters
    ----------
    data : DiscreteData
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (``ess``).

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

    def __init__(self, data, equivalent_sample_size=1.0):
        super().__init__(data)
        self.ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
        self._tables = {}

    def _table(self, alpha):
        """``T_alpha[N] = lnG(alpha + N) - lnG(alpha)`` for N = 0..n_samples."""
        t = self._tables.get(alpha)
        if t is None:
            from scipy.special import gammaln

            n = np.arange(self.n_samples + 1, dtype=np.float64)
            t = gammaln(alpha + n) - gammaln(alpha)
            t[0] = 0.0
            self._tables[alpha] = t
        return t

    def _compute(self, child, parents):
        counts, q = count_family(self._columns, self.arities, child, parents)
        r = int(self.arities[child])
        t_cell = self._table(self.ess / (q * r))
        t_conf = self._table(self.ess / q)
        return float(t_cell[counts].sum() - t_conf[counts.sum(axis=1)].sum())


class BICScore(_CountingScore):
    """BIC local scores (log-likelihood at the MLE minus ``log(N)/2`` per parameter)."""

    name = "bic"

    def __init__(self, data):
        super().__init__(data)

    def _compute(self, child, parents):
        counts, q = count_family(self._columns, self.arities, child, parents)
        r = int(self.arities[child])
        n_j = counts.sum(axis=1, keepdims=True)
        nz = counts > 0
        loglik = float((counts[nz] * np.log(counts[nz] / np.broadcast_to(n_j, counts.shape)[nz])).sum())
        return loglik - 0.5 * np.log(max(self.n_samples, 1)) * q * (r - 1)


def bdeu_local_score(data, child, parents, equivalent_sample_size=1.0):
    """BDeu local score of one family (uncached convenience function).

    ``child`` and ``parents`` are column indices or names of ``data``.
    """
    def idx(v):
        return data.index(v) if isinstance(v, str) else int(v)

    scorer = BDeuScore(data, equivalent_sample_size)
    return scorer.local_score_uncached(idx(child), [idx(p) for p in parents])


#: Registry of scores: name -> constructor(data, equivalent_sample_size).
SCORES = {
    "bdeu": lambda data, ess: BDeuScore(data, ess),
    "bic": lambda data, ess: BICScore(data),
}


def pairwise_log_bayes_factors(scorer, variables=None):
    """Evidence for dependence between every two variables, on one data set.

    ``B[u, v] = s(v | {u}) - s(v | {})``: the log Bayes factor of "u and v
    are dependent" against "independent" under ``scorer``. BDeu is score
    equivalent, so ``B`` is symmetric (``s(v|u) + s(u) = s(u|v) + s(v)``).
    The diagonal is 0. Only ``variables`` (column indices, default all) are
    scored; the one-parent local scores land in the scorer's cache, where a
    later search reuses them.

    Returns
    -------
    ndarray of shape (m, m), float64, ``m = len(variables)``.
    """
    idx = list(range(scorer.n_vars)) if variables is None else [int(v) for v in variables]
    m = len(idx)
    out = np.zeros((m, m))
    for a, v in enumerate(idx):
        empty = scorer.local_score(v, ())
        for b in range(a + 1, m):
            out[b, a] = out[a, b] = scorer.local_score(v, (idx[b],)) - empty
    return out


def make_scorer(data, score="bdeu", equivalent_sample_size=1.0):
    """Build the scorer named ``score`` (one of :data:`SCORES`) for ``data``."""
    check_option("score", score, SCORES)
    return SCORES[score](data, equivalent_sample_size)
