"""The protocol every score follows (:class:`LocalScore`): what the searches, the guard and the held-out scoring call.

A score is *decomposable*: the score of a DAG is the sum of one local score
per variable, a function of the variable (the *child*) and its parent set.
A score names the kind of data it accepts (:attr:`LocalScore.data_kind`),
computes one local score (:meth:`LocalScore.compute`) and inherits the rest:
a cache by ``(child, parents)``, the batched look-up the search's hot loop
calls (:meth:`LocalScore.extension_scores`, which a score may vectorise),
the DAG total and the cache's exchange with worker processes.
:func:`~mtbn.score.register_score` makes a score available by name to every
learner and to the ``mtbn`` command.
"""

import itertools
from abc import ABC, abstractmethod

import numpy as np

from mtbn.data import DiscreteData
from mtbn.messages import error, register

__all__ = ["LocalScore", "pairwise_log_bayes_factors"]

register("scorer-data-type", TypeError, "score {score!r} takes {kind} data; got {got}.",
         cause="A scorer was built from data of another kind (e.g. raw values instead of integer-coded data).",
         fix="Code the data first with mtbn.data.from_dataframe or read_csv (learn_structure does this for you), "
             "or choose a score for this kind of data.")


class LocalScore(ABC):
    """A decomposable structure score of one data set, its local scores cached by ``(child, parents)``.

    Subclasses set :attr:`name`, :attr:`data_kind` and :attr:`params` and
    implement :meth:`compute`; a score whose constructor takes settings of
    the learner lists their names in :attr:`params` (the learner passes
    them by keyword).

    Parameters
    ----------
    data : data_kind
        The data set the scores are of (one task's rows).

    Attributes
    ----------
    data : data_kind
    n_vars, n_samples : int
    arities : ndarray of int64
        The declared number of states of each variable (discrete data kinds).
    hits, misses : int
        Cache look-ups that found a score, and that computed one.
    """

    #: The name the score is registered under (``score=`` and ``--score``).
    name = ""
    #: The class of the data the score accepts.
    data_kind: type = DiscreteData
    #: The learner's settings the constructor takes (by keyword), e.g. ``("equivalent_sample_size",)``.
    params: tuple = ()

    def __init__(self, data):
        if not isinstance(data, self.data_kind):
            raise error("scorer-data-type", score=self.name, kind=self.data_kind.__name__, got=type(data).__name__)
        self.data = data
        self.n_vars = data.n_vars
        self.n_samples = data.n_samples
        self.arities = getattr(data, "arities", None)
        self._cache = {}
        self.hits = 0
        self.misses = 0

    @abstractmethod
    def compute(self, child, parents):
        """The local score of ``child`` given ``parents`` (a sorted tuple of column indices), computed afresh.

        Parameters
        ----------
        child : int
            Column index of the variable whose family is scored.
        parents : tuple of int
            Column indices of its parents, sorted increasingly, not containing ``child``.

        Returns
        -------
        float
            The local score (a log score, higher is better).
        """

    def local_score(self, child, parents):
        """Cached local score of ``child`` given the set ``parents``.

        Parameters
        ----------
        child : int
            Column index of the variable whose family is scored.
        parents : iterable of int
            Column indices of its parents, in any order (sorted for the cache key).

        Returns
        -------
        float
            The local score, from the cache or computed by :meth:`compute` and cached.
        """
        key = (child, tuple(sorted(parents)))
        value = self._cache.get(key)
        if value is None:
            self.misses += 1
            value = self.compute(child, key[1])
            self._cache[key] = value
        else:
            self.hits += 1
        return value

    def local_score_uncached(self, child, parents):
        """The local score computed afresh (no cache look-up or store).

        Parameters
        ----------
        child : int
            Column index of the variable whose family is scored.
        parents : iterable of int
            Column indices of its parents, in any order.

        Returns
        -------
        float
            The local score, as :meth:`compute` gives it.
        """
        return self.compute(child, tuple(sorted(parents)))

    def extension_scores(self, child, parents, candidates):
        """Cached local scores of ``child`` given ``parents | {u}``, for every ``u`` in ``candidates``.

        The search's hot loop: after a move, a child is rescored with every
        other variable added. This version looks each family up in turn; a
        score may compute the missing ones together (as the counting scores
        do), with the same values.

        Parameters
        ----------
        child : int
            Column index of the variable whose families are scored.
        parents : iterable of int
            Column indices of its current parents.
        candidates : sequence of int
            Column indices of the variables to add to ``parents``, one at a time.

        Returns
        -------
        ndarray of float64, shape (len(candidates),)
            Entry ``i`` is the local score of ``child`` given ``parents | {candidates[i]}``.
        """
        parents = set(parents)
        return np.array([self.local_score(child, parents | {int(u)}) for u in candidates], dtype=np.float64)

    def _extension_rows(self, child, parents, candidates):
        """:meth:`extension_scores` read from a row per ``(child, parents)``: the scores of ``parents | {u}`` by
        ``u``, NaN where not looked up yet, kept in ``self._rows`` (a dict the subclass creates). One array read
        per call instead of a dict look-up per candidate; the entries not in the row come from
        ``self._extension_lookup(child, sorted parents tuple, candidates array)``, which a subclass using this
        provides (the cache look-ups, the rest computed together). A score must never be NaN."""
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

    def score(self, parents):
        """Total score of a DAG given as one parent set per variable.

        Parameters
        ----------
        parents : sequence of iterable of int
            ``parents[v]`` holds the column indices of the parents of variable ``v``, for every variable.

        Returns
        -------
        float
            The sum of the (cached) local scores of all families.
        """
        return float(sum(self.local_score(v, pa) for v, pa in enumerate(parents)))

    def cache_info(self):
        """The cache's ``hits``, ``misses`` and ``size``.

        Returns
        -------
        dict
            ``{"hits": int, "misses": int, "size": int}``: look-ups that found a score, look-ups that computed
            one, and the number of cached scores.
        """
        return {"hits": self.hits, "misses": self.misses, "size": len(self._cache)}

    def cache_mark(self):
        """Where the cache stands now, for :meth:`cache_items` to return only what is added after it.

        Returns
        -------
        object
            A value to pass as ``start`` to :meth:`cache_items` (here the number of cached scores; a score
            with more than one cache may return a tuple).
        """
        return len(self._cache)

    def cache_items(self, start=0):
        """The cached scores, ``{(child, parents): score}`` (to send back from a worker process).

        Parameters
        ----------
        start : int or object, default 0
            Only the scores cached after the first ``start`` ones (in the order they were cached; e.g. the
            :meth:`cache_mark` taken when a job began: what the job added).

        Returns
        -------
        dict
            A shallow copy of the cache (from entry ``start`` on), ``{(child, parents): score}`` with ``parents``
            a sorted tuple.
        """
        if not start:
            return dict(self._cache)
        return dict(itertools.islice(self._cache.items(), start, None))

    def merge_cache(self, items):
        """Add scores computed elsewhere on the same data (e.g. by :meth:`cache_items` in a worker).

        Parameters
        ----------
        items : dict
            ``{(child, parents): score}`` with ``parents`` a sorted tuple.
        """
        self._cache.update(items)

    def clear_cache(self):
        """Forget every cached score and reset the counters."""
        self._cache.clear()
        self.hits = self.misses = 0


def pairwise_log_bayes_factors(scorer, variables=None):
    """Evidence for dependence between every two variables, on one data set.

    ``B[u, v] = s(v | {u}) - s(v | {})``: the log Bayes factor of "u and v
    are dependent" against "independent" under ``scorer``. BDeu is score
    equivalent, so ``B`` is symmetric (``s(v|u) + s(u) = s(u|v) + s(v)``).
    The diagonal is 0. Only ``variables`` (column indices, default all) are
    scored; the one-parent local scores land in the scorer's cache, where a
    later search reuses them.

    Parameters
    ----------
    scorer : LocalScore
        The score of one data set.
    variables : sequence of int, optional
        The columns to score (default: all).

    Returns
    -------
    ndarray of shape (m, m), float64
        ``B[a, b]`` for the ``a``-th and ``b``-th of the ``m = len(variables)`` scored variables.
    """
    idx = list(range(scorer.n_vars)) if variables is None else [int(v) for v in variables]
    m = len(idx)
    out = np.zeros((m, m))
    for a, v in enumerate(idx):
        empty = scorer.local_score(v, ())
        for b in range(a + 1, m):
            out[b, a] = out[a, b] = scorer.local_score(v, (idx[b],)) - empty
    return out
