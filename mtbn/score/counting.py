"""Counting a family's contingency table over integer-coded discrete data, and the scores built on it.

The table is counted with vectorised numpy over integer codes (a mixed-radix
code of the parent configuration, then ``numpy.bincount``, or a sort when
the table would be too large). :class:`CountingScore` is the base of the
discrete scores (:class:`~mtbn.score.BDeuScore`,
:class:`~mtbn.score.BICScore`): it keeps the data's columns once and
computes the candidate families of one child together.

The scorers assume valid integer codes (as built by :mod:`mtbn.data`) and do
not check that parent sets exclude the child.
"""

import bisect
import itertools

import numpy as np

from mtbn.score.base import LocalScore

__all__ = ["CountingScore", "count_family", "family_code", "observed_counts"]


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
        Index of the variable whose family is coded (the child; its arity is ``r``).
    parents : sequence of int
        Indices of the parents, in the order given (not sorted here). The parent configuration code is
        mixed-radix, first parent most significant, and the cell code is ``configuration * r + child state``.

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
            code = columns[p].astype(np.int64)  # a copy, in 8-byte integers whatever the columns' type
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

    A family whose declared table
    would not fit int64 codes (``q * r > 2**62``) renumbers its observed
    configurations on the way, so the counts stay exact and the table has
    at most one row per sample.

    Parameters
    ----------
    columns : sequence of int64 ndarray
        ``columns[v]`` holds the codes of variable ``v`` (one per sample).
    arities : sequence of int
        Number of states of each variable.
    child : int
        Index of the variable whose states are the table's columns.
    parents : sequence of int
        Indices of the parents; the rows follow the mixed-radix configuration code of
        :func:`family_code` (first parent most significant).

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
            self.hi[j + 1] = columns[p].astype(np.intp) if prev is None else prev * int(arities[p]) + columns[p]
        self.lo_term = [None] * (k + 1)
        self.span = [0] * (k + 1)
        lo, size = None, 1
        for j in range(k, -1, -1):
            self.lo_term[j] = columns[child].astype(np.intp) if lo is None else lo * r + columns[child]
            self.span[j] = size * r
            if j:
                p = parents[j - 1]
                lo = columns[p].astype(np.intp) * size if lo is None else columns[p].astype(np.intp) * size + lo
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
        code = self.columns[u].astype(np.intp) * self.span[j] + self.lo_term[j]
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

    Parameters
    ----------
    code : ndarray of int
        One cell code per sample, ``configuration * r + state``.
    r : int
        The number of states of the child (the radix of the state in ``code``).

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


class _CacheItems(dict):
    """:meth:`CountingScore.cache_items`: the scores, ``{(child, parents): score}``, and ``rows``, the rows of
    :meth:`CountingScore.extension_scores` (``{(child, parents): array}``)."""

    rows: dict


class CountingScore(LocalScore):
    """A score computed from each family's contingency table of integer-coded discrete data.

    Subclasses implement ``_score_code(child, code, q)``, the score of one
    family from its cell codes (:func:`family_code`) and its number of
    parent configurations ``q``, and may vectorise ``_score_codes`` over
    many families of one child (:meth:`extension_scores`).

    Parameters
    ----------
    data : DiscreteData
        The integer-coded data of one task; its columns are copied once into an ``(n_vars, n_samples)`` array.
    """

    def __init__(self, data):
        super().__init__(data)
        # One (n_vars, n_samples) array; the per-variable columns are its rows (views, no copy), so
        # many candidates' columns are read with one fancy index (_ExtensionCodes.codes). One byte per code
        # (at most 256 states): the arithmetic on codes is done in 8-byte integers (family_code,
        # _ExtensionCodes), and the copy takes an eighth of what 8-byte codes took (per task and CV fold).
        self._matrix = np.ascontiguousarray(data.codes.T, dtype=np.uint8 if max(self.arities, default=0) <= 256
                                            else np.intp)
        self._columns = list(self._matrix)
        # (child, sorted parents) -> scores of parents | {u} by u, NaN where not looked up yet: one
        # array read per refresh instead of a dict look-up per candidate (see extension_scores).
        self._rows = {}

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

    def extension_scores(self, child, parents, candidates):
        """Cached local scores of ``child`` given ``parents | {u}``, for every ``u`` in ``candidates``.

        The same values as ``[local_score(child, parents | {u}) for u in
        candidates]``, bit for bit (``candidates`` must not meet
        ``parents``); the families that are not cached yet share the work of
        coding the parents (:class:`_ExtensionCodes`). This is the search's
        hot loop: after a move, a child is rescored with every other
        variable added.

        Parameters
        ----------
        child : int
            Column index of the variable whose families are scored.
        parents : iterable of int
            Column indices of its current parents.
        candidates : sequence of int
            Column indices of the variables to add to ``parents``, one at a time; none of them in ``parents``.

        Returns
        -------
        ndarray of float64, shape (len(candidates),)
            Entry ``i`` is the local score of ``child`` given ``parents | {candidates[i]}``.
        """
        return self._extension_rows(child, parents, candidates)

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
            return [self.compute(child, key[1]) for _, _, _, key in group]
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

    def compute(self, child, parents):
        """The local score of ``child`` given the sorted tuple ``parents``, from the family's cell codes.

        Parameters
        ----------
        child : int
            Column index of the variable whose family is scored.
        parents : tuple of int
            Column indices of its parents, sorted increasingly, not containing ``child``.

        Returns
        -------
        float
            The local score, computed afresh (no cache look-up or store).
        """
        return self._score_code(child, *family_code(self._columns, self.arities, child, parents))

    def cache_mark(self):
        """Where both caches stand, for :meth:`cache_items`.

        Returns
        -------
        tuple of int
            The number of cached scores and of :meth:`extension_scores`' rows.
        """
        return len(self._cache), len(self._rows)

    def cache_items(self, start=0):
        """The cached scores after ``start`` (:meth:`LocalScore.cache_items`), with the rows of
        :meth:`extension_scores` made after it.

        A worker's rows come back too, so the next job's hot loop reads one
        array per family instead of a dict look-up per candidate.

        Parameters
        ----------
        start : int or tuple of int, default 0
            A :meth:`cache_mark` (or a number of cached scores: then every row).

        Returns
        -------
        dict
            ``{(child, parents): score}``, with attribute ``rows``: ``{(child, parents): array of n_vars
            floats}``, NaN where not looked up.
        """
        scores, rows = start if isinstance(start, tuple) else (start, 0)
        items = _CacheItems(super().cache_items(scores))
        items.rows = dict(itertools.islice(self._rows.items(), rows, None))
        return items

    def merge_cache(self, items):
        """Add scores (and rows of :meth:`extension_scores`) computed elsewhere on the same data.

        Parameters
        ----------
        items : dict
            As :meth:`cache_items` returns it; its ``rows``, if any, are added too (a row this scorer already
            has gets the entries it lacks).
        """
        super().merge_cache(items)
        for key, row in getattr(items, "rows", {}).items():
            mine = self._rows.get(key)
            if mine is None:
                self._rows[key] = row.copy()
            else:
                np.copyto(mine, row, where=np.isnan(mine) & ~np.isnan(row))

    def clear_cache(self):
        """Forget every cached score (and the rows of :meth:`extension_scores`) and reset the counters."""
        super().clear_cache()
        self._rows.clear()

    def counts(self, child, parents):
        """The contingency table of ``child`` against the configurations of ``parents`` (see :func:`count_family`).

        Parameters
        ----------
        child : int
            Column index of the variable whose states are the table's columns.
        parents : iterable of int
            Column indices of the parents, in the order that sets the configuration code (first most significant).

        Returns
        -------
        counts : ndarray of int64, shape (n_configs, r)
            The counts; every declared configuration is a row when the table is small, else only the observed ones.
        q : int
            The number of parent configurations (declared, not observed).
        """
        return count_family(self._columns, self.arities, child, tuple(parents))
