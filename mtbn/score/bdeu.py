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

__all__ = ["BDeuScore", "bdeu_local_score"]


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
        t_cell = self._table(self.ess / cells)
        t_conf = self._table(self.ess / q)
        conf = counts.reshape(m, q, r).sum(axis=2)
        return (t_cell[counts].sum(axis=1) - t_conf[conf].sum(axis=1)).tolist()

    def _score_code(self, child, code, q):
        r = int(self.arities[child])
        t_cell = self._table(self.ess / (q * r))
        t_conf = self._table(self.ess / q)
        if code is None:
            counts = np.bincount(self._columns[child], minlength=r)
            return float(t_cell[counts].sum() - t_conf[counts.sum()])
        if q * r <= max(_SORT_PER_SAMPLE * self.n_samples, _SORT_FLOOR):
            counts = np.bincount(code, minlength=q * r).reshape(q, r)
            return float(t_cell[counts].sum() - t_conf[counts.sum(axis=1)].sum())
        # Large declared table: only the observed cells, found by one sort
        # (unobserved cells and configurations contribute exactly 0).
        cells, configs = observed_counts(code, r)
        return float(t_cell[cells].sum() - t_conf[configs].sum())



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
