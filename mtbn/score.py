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

import bisect

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
    "family_code",
    "observed_counts",
    "make_scorer",
    "pairwise_log_bayes_factors",
    "SCORES",
]

# A dense table is counted with bincount when q * r is at most this many
# cells per sample (or this absolute floor); otherwise with np.unique.
_DENSE_FLOOR = 1 << 16
# BDeu counts a family by sorting its n cell codes (cost independent of q r)
# once the declared table has more than max(_SORT_PER_SAMPLE * n,
# _SORT_FLOOR) cells; below that a dense bincount is cheaper (measured at
# n = 250, 1000 and 5000: the two cost the same at about 4 cells per sample).
_SORT_PER_SAMPLE = 4
_SORT_FLOOR = 1024
# Largest code a family's cells may take before it is renumbered (int64-safe).
_CODE_LIMIT = 1 << 62
# BDeu scores the candidate families of one child together (one bincount)
# in chunks of at most this many cell codes (candidates x samples), when
# the data have at most _BATCH_MAX_SAMPLES rows: at 200 to 2000 rows that
# is 1.2x to 3.6x faster than one family at a time (the default learner on
# ANDES at 200 rows: 1.6x, benchmarks/bench_kernel.py --search default); at
# 5000 rows the counting itself dominates and batching no longer pays.
_BATCH_ELEMENTS = 1 << 17
_BATCH_MAX_SAMPLES = 4096


def family_code(columns, arities, child, parents):
    """One integer code per sample for the cell (parent configuration, child state) of a family.

    Parameters
    ----------
    columns : sequence of int64 ndarray
        ``columns[v]`` holds the codes of variable ``v`` (one per sample).
    arities : sequence of int
        Number of states of each variable.
    child : int
    parents : sequence of int
        The parent configuration code is mixed-radix, first parent most
        significant, and the cell code is ``configuration * r + child state``.

    Returns
    -------
    code : ndarray of int64 or None
        ``None`` when ``parents`` is empty (the cell is the child's code).
    q : int
        The number of parent configurations (declared, not observed).
        When the declared table would not fit int64 codes
        (``q * r > 2**62``), the observed configurations are renumbered on
        the way: ``code // r`` still tells configurations apart exactly, but
        no longer equals the declared configuration's index.
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
    if code is None:
        return None, 1
    code *= r
    code += columns[child]
    return code, q


def count_family(columns, arities, child, parents):
    """Contingency table of ``child`` against the configurations of ``parents``.

    Parameters as for :func:`family_code`. A family whose declared table
    would not fit int64 codes (``q * r > 2**62``) renumbers its observed
    configurations on the way, so the counts stay exact and the table has
    at most one row per sample.

    Returns
    -------
    counts : ndarray of int64, shape (n_configs, r)
        When the full table (``q * r`` cells) is small it is returned whole
        (rows of unobserved configurations are zero); otherwise only the
        observed configurations are returned as rows.
    q : int
        The number of parent configurations (declared, not observed).
    """
    code, q = family_code(columns, arities, child, parents)
    return _table_of_code(code, q, int(arities[child]), columns[child]), q


def _table_of_code(code, q, r, child_column):
    """The table :func:`count_family` returns, from the family's cell codes."""
    if code is None:
        return np.bincount(child_column, minlength=r).reshape(1, r)
    cells = q * r
    if cells <= max(_DENSE_FLOOR, 4 * len(code)):
        return np.bincount(code, minlength=cells).reshape(q, r)
    cell_ids, cell_counts = np.unique(code, return_counts=True)
    config_ids, row = np.unique(cell_ids // r, return_inverse=True)
    table = np.zeros((len(config_ids), r), dtype=np.int64)
    table[row.reshape(-1), cell_ids % r] = cell_counts
    return table


class _ExtensionCodes:
    """Cell codes of the families ``parents | {u}`` of one child, for many ``u``.

    :func:`family_code` of ``sorted(parents | {u})`` is
    ``((hi * a_u + x_u) * L + lo) * r + x_child``, where ``hi`` is the code of
    the parents before ``u`` in sorted order, ``lo`` the code of those after
    it and ``L`` the product of their arities. The prefix and suffix codes
    are computed once per child and parent set, so each candidate costs a
    few array operations instead of two per parent, and its codes are the
    same integers :func:`family_code` gives (so its score is the same float).
    """

    def __init__(self, columns, arities, child, parents):
        self.columns, self.arities = columns, arities  # columns: (n_vars, n) array, row v = variable v
        self._stacked = None
        self.r = r = int(arities[child])
        k = len(parents)
        self.q = 1
        for p in parents:
            self.q *= int(arities[p])
        # hi[j]: code of parents[:j] (None when j = 0); lo_term[j] = lo_j * r + x_child; span[j] = L_j * r.
        self.hi = [None] * (k + 1)
        for j, p in enumerate(parents):
            prev = self.hi[j]
            self.hi[j + 1] = columns[p].copy() if prev is None else prev * int(arities[p]) + columns[p]
        self.lo_term = [None] * (k + 1)
        self.span = [0] * (k + 1)
        lo, size = None, 1
        for j in range(k, -1, -1):
            self.lo_term[j] = columns[child] if lo is None else lo * r + columns[child]
            self.span[j] = size * r
            if j:
                p = parents[j - 1]
                lo = columns[p] * size if lo is None else columns[p] * size + lo
                size *= int(arities[p])

    def codes(self, us, js, a):
        """Cell codes of ``parents | {u}`` for many ``u`` of arity ``a``, one row each (no overflow check).

        Row ``i`` equals ``code(us[i], js[i])[0]``: the same integer
        operations, done for all the candidates at once.
        """
        if self._stacked is None:  # once per child and parent set, shared by every chunk and arity
            n = len(self.columns[0])
            self._stacked = (np.asarray(self.span, dtype=np.intp),
                             np.stack([np.zeros(n, np.intp) if h is None else h for h in self.hi]),
                             np.stack(self.lo_term))
        spans, hi, lo = self._stacked
        span = spans[js]
        cols = self.columns[us]
        return cols * span[:, None] + lo[js] + hi[js] * (a * span)[:, None]

    def code(self, u, j):
        """``(code, q)`` of ``parents | {u}`` with ``u`` at sorted position ``j``; None if it would overflow."""
        a = int(self.arities[u])
        q = self.q * a
        if q * self.r > _CODE_LIMIT:
            return None  # family_code renumbers such families; leave them to it
        code = self.columns[u] * self.span[j] + self.lo_term[j]
        if self.hi[j] is not None:
            code += self.hi[j] * (a * self.span[j])
        return code, q


def observed_counts(code, r):
    """Counts of the observed cells and of the observed configurations, from cell codes.

    ``code`` holds ``configuration * r + state`` per sample (as
    :func:`family_code` returns it). One sort of the ``n`` codes: the cost
    does not depend on the size of the declared table, which is what a
    family with many parents needs (a dense table of ``q r`` cells would be
    mostly zeros).

    Returns
    -------
    cell_counts, config_counts : ndarray of int64
        The positive counts only, cells in increasing code order,
        configurations likewise; ``cell_counts.sum() == config_counts.sum() == n``.

    Examples
    --------
    >>> cells, configs = observed_counts(np.array([5, 0, 5, 4, 1]), 2)
    >>> cells.tolist(), configs.tolist()
    ([1, 1, 1, 2], [2, 3])
    """
    s = np.sort(code)
    n = len(s)
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    cell_counts = np.diff(np.append(starts, n))
    config = s[starts] // r
    config_starts = np.flatnonzero(np.concatenate(([True], config[1:] != config[:-1])))
    return cell_counts, np.add.reduceat(cell_counts, config_starts)


class _CountingScore:
    """Shared machinery: integer columns, a cache, and hit/miss counters."""

    def __init__(self, data):
        if not isinstance(data, DiscreteData):
            raise error("scorer-data-type", got=type(data).__name__)
        self.data = data
        self.n_vars = data.n_vars
        self.n_samples = data.n_samples
        self.arities = data.arities
        # One (n_vars, n_samples) array; the per-variable columns are its rows (views, no copy), so
        # many candidates' columns are read with one fancy index (_ExtensionCodes.codes).
        self._matrix = np.ascontiguousarray(data.codes.T, dtype=np.intp)
        self._columns = list(self._matrix)
        self._cache = {}
        # (child, sorted parents) -> scores of parents | {u} by u, NaN where not looked up yet: one
        # array read per refresh instead of a dict look-up per candidate (see extension_scores).
        self._rows = {}
        self.hits = 0
        self.misses = 0

    def __getstate__(self):
        # The columns are views of the matrix: pickle the matrix once and rebuild the views.
        state = self.__dict__.copy()
        del state["_columns"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._columns = list(self._matrix)

    def __sizeof__(self):
        # The data columns and about 100 bytes per cached score: lets a Dask
        # engine see that a scorer is worth scattering (see mtbn.engine).
        return (object.__sizeof__(self) + sum(c.nbytes for c in self._columns) + 100 * len(self._cache)
                + 8 * self.n_vars * len(self._rows))

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

    def extension_scores(self, child, parents, candidates):
        """Cached local scores of ``child`` given ``parents | {u}``, for every ``u`` in ``candidates``.

        The same values as ``[local_score(child, parents | {u}) for u in
        candidates]``, bit for bit (``candidates`` must not meet
        ``parents``); the families that are not cached yet share the work of
        coding the parents (:class:`_ExtensionCodes`). This is the search's
        hot loop: after a move, a child is rescored with every other
        variable added.

        Returns
        -------
        ndarray of float64, shape (len(candidates),)
        """
        base = tuple(sorted(parents))
        cand = np.asarray(candidates, dtype=np.intp)
        row = self._rows.get((child, base))
        if row is None:
            row = self._rows[child, base] = np.full(self.n_vars, np.nan)
        out = row[cand]
        todo = np.flatnonzero(np.isnan(out))
        self.hits += len(cand) - len(todo)
        if len(todo):
            out[todo] = row[cand[todo]] = self._extension_lookup(child, base, cand[todo])
        return out

    def _extension_lookup(self, child, base, candidates):
        """:meth:`extension_scores` of candidates not in the row cache: a cache look-up each, the rest computed."""
        out = np.empty(len(candidates))
        missing = {}  # arity of u -> [(i, u, j, key)]
        for i, u in enumerate(candidates.tolist()):
            j = bisect.bisect_left(base, u)
            key = (child, base[:j] + (u,) + base[j:])
            value = self._cache.get(key)
            if value is None:
                missing.setdefault(int(self.arities[u]), []).append((i, u, j, key))
            else:
                self.hits += 1
                out[i] = value
        if missing:
            shared = _ExtensionCodes(self._matrix, self.arities, child, base)
            for a, group in missing.items():
                self.misses += len(group)
                for (i, _, _, key), value in zip(group, self._extension_group(child, shared, a, group)):
                    self._cache[key] = out[i] = value
        return out

    def _extension_group(self, child, shared, a, group):
        """Scores of the families ``parents | {u}`` of ``group`` (``(i, u, j, key)``, every ``u`` of arity ``a``)."""
        q, r = shared.q * a, shared.r
        if q * r > _CODE_LIMIT:  # family_code renumbers such families
            return [self._compute(child, key[1]) for _, _, _, key in group]
        if len(group) > 1 and self._batched(q, r):
            scores = []
            step = max(1, _BATCH_ELEMENTS // max(1, self.n_samples))
            for s in range(0, len(group), step):
                part = group[s:s + step]
                codes = shared.codes([g[1] for g in part], [g[2] for g in part], a)
                scores.extend(self._score_codes(child, codes, q))
            return scores
        return [self._score_code(child, *shared.code(u, j)) for _, u, j, _ in group]

    def _batched(self, q, r):
        """Whether families of ``q`` configurations are scored together by :meth:`_score_codes`."""
        return False

    def _score_codes(self, child, codes, q):
        """``[_score_code(child, row, q) for row in codes]``; subclasses may vectorise it."""
        return [self._score_code(child, row, q) for row in codes]

    def _compute(self, child, parents):
        return self._score_code(child, *family_code(self._columns, self.arities, child, parents))

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
        self._rows.clear()
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


class BICScore(_CountingScore):
    """BIC local scores (log-likelihood at the MLE minus ``log(N)/2`` per parameter).

    Examples
    --------
    >>> import numpy as np
    >>> from mtbn.data import DiscreteData
    >>> d = DiscreteData(np.array([[0, 0], [1, 1], [1, 1]]), ("A", "B"), (("a", "b"), ("x", "y")))
    >>> s = BICScore(d)

    B copies A. Alone, B has one free parameter and the log-likelihood
    ``ln(1/3) + 2 ln(2/3)``, so ``s(B) = ln(1/3) + 2 ln(2/3) - ln(3)/2 =
    -2.458849``; given A it is predicted perfectly (log-likelihood 0) with
    two free parameters, ``s(B | A) = -ln 3 = -1.098612``:

    >>> round(float(s.local_score(1, [])), 6), round(float(s.local_score(1, [0])), 6)
    (-2.458849, -1.098612)

    Scores are cached, like those of :class:`BDeuScore`: asking again is a hit.

    >>> _ = s.local_score(1, [0])
    >>> s.cache_info()
    {'hits': 1, 'misses': 2, 'size': 2}
    """

    name = "bic"

    def __init__(self, data):
        super().__init__(data)

    def _score_code(self, child, code, q):
        r = int(self.arities[child])
        counts = _table_of_code(code, q, r, self._columns[child])
        n_j = counts.sum(axis=1, keepdims=True)
        nz = counts > 0
        loglik = float((counts[nz] * np.log(counts[nz] / np.broadcast_to(n_j, counts.shape)[nz])).sum())
        return float(loglik - 0.5 * np.log(max(self.n_samples, 1)) * q * (r - 1))  # a Python float, as BDeu's


def bdeu_local_score(data, child, parents, equivalent_sample_size=1.0):
    """BDeu local score of one family (uncached convenience function).

    ``child`` and ``parents`` are column indices or names of ``data``.

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
