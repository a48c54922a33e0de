"""Scores of continuous data (Gaussian networks): the Gaussian BIC and BGe, from each task's sufficient statistics.

Both read the task once, for its means and its scatter matrix ``S = sum_i (x_i - mean)(x_i - mean)^T``; a local
score is then a small solve on the family's submatrix, with no pass over the rows.

* **Gaussian BIC** (``"bic-g"``): the child regressed linearly on its parents with an intercept, at the maximum
  likelihood, ``-N/2 (log(2 pi s2) + 1)`` with ``s2`` the residual variance ``(S_yy - S_yP S_PP^-1 S_Py) / N``,
  minus ``(l + 2)/2 log N`` for the ``l`` coefficients, the intercept and the variance (pgmpy's ``BICGauss``
  counts the same).
* **BGe** (``"bge"``, Geiger and Heckerman 1994, in the corrected form of Kuipers, Moffa and Heckerman 2014):
  the marginal likelihood under a normal-Wishart prior with ``alpha_mu`` (default 1), ``alpha_w`` (default
  ``n + alpha_mu + 1``), ``T0 = t I`` with ``t = alpha_mu (alpha_w - n - 1) / (alpha_mu + 1)`` and the prior
  mean the sample mean (as R bnlearn's ``bge``), so ``T_N = T0 + S``. With ``l`` parents, ``F`` the family and
  ``a = alpha_w - n + l + 1``::

      log p = -N/2 log pi + 1/2 log(alpha_mu / (alpha_mu + N)) + lnG((a + N)/2) - lnG(a/2) + (a + l)/2 log t
              - (a + N)/2 log(|T_N[F]| / |T_N[P]|) - 1/2 log |T_N[P]|

  It is score equivalent: Markov-equivalent DAGs score the same (tests/test_gaussian.py checks it, and that the
  complete DAG scores the closed-form marginal likelihood of the unrestricted normal-Wishart model).

A continuous variable has no states; the scorers' ``arities`` are ones, so that the searches' bound on a
learned table's size never binds and the relatedness test's strata (variables of one state count) hold them all.
"""

import bisect

import numpy as np
from scipy.special import gammaln

from mtbn.data.continuous import ContinuousData, regression_from_scatter
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.score.base import LocalScore

__all__ = ["GaussianScore", "GaussianBICScore", "BGeScore"]



register("bge-prior", InvalidParameterError,
         "BGe needs alpha_mu > 0 and alpha_w > n_vars + 1 = {limit}; got alpha_mu={alpha_mu!r}, alpha_w={alpha_w!r}.",
         cause="The normal-Wishart prior is proper only for these values.",
         fix="Leave alpha_w at its default (n_vars + alpha_mu + 1) or give a larger value.")


class GaussianScore(LocalScore):
    """The sufficient statistics shared by the Gaussian scores: means and the scatter matrix of one task.

    Parameters
    ----------
    data : ContinuousData
        One task's rows.
    """

    data_kind = ContinuousData

    def __init__(self, data):
        super().__init__(data)
        self.means, self.scatter = data.centred_scatter()  # a fold's rows are read in blocks, not copied
        self.arities = np.ones(self.n_vars, dtype=np.int64)  # no states (see the module's docstring)
        self._rows = {}  # (child, sorted parents) -> the scores of parents | {u} by u (extension_scores)

    def clear_cache(self):
        """Forget every cached score (and the rows of :meth:`extension_scores`) and reset the counters."""
        super().clear_cache()
        self._rows.clear()

    def extension_scores(self, child, parents, candidates):
        """Cached scores of ``child`` given ``parents | {u}``, for every ``u`` in ``candidates``.

        The same values as :meth:`~mtbn.score.LocalScore.extension_scores`, bit for bit: read from a row per
        ``(child, parents)`` as the counting scores do, and the families not cached yet scored together
        (``_compute_many``: one stacked ``slogdet`` or ``solve``, which factors each matrix as a call on it alone
        does, instead of a call per family).

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
            Entry ``i`` is the score of ``child`` given ``parents | {candidates[i]}``.
        """
        return self._extension_rows(child, parents, candidates)

    def _extension_lookup(self, child, base, candidates):
        """:meth:`extension_scores` of the candidates not in its row: from the cache, the rest computed together."""
        out = np.empty(len(candidates))
        todo = []  # (position, cache key) of the families not cached
        for i, u in enumerate(candidates.tolist()):
            j = bisect.bisect_left(base, u)
            key = (child, base[:j] + (u,) + base[j:])
            value = self._cache.get(key)
            if value is None:
                todo.append((i, key))
            else:
                self.hits += 1
                out[i] = value
        if todo:
            self.misses += len(todo)
            sets = np.array([key[1] for _, key in todo], dtype=np.intp)  # (m, l), each row sorted
            for (i, key), value in zip(todo, self._compute_many(child, sets)):
                self._cache[key] = out[i] = value
        return out

    def _compute_many(self, child, sets):
        """``[compute(child, tuple(row)) for row in sets]``; subclasses score them together."""
        return [self.compute(child, tuple(row)) for row in sets.tolist()]

    def _residual(self, child, parents):
        """``S_yy - S_yP S_PP^-1 S_Py`` of the scatter matrix (the residual sum of squares of the regression).

        Floored at ``1e-12 S_yy`` (and at the smallest normal float): a family whose child is an exact linear
        function of its parents (fewer rows than parents, a constant column in a fold) gets a large but finite
        score, the same for every such family, so that the search compares finite numbers. Full tasks with such
        columns are refused by :class:`~mtbn.data.ContinuousData` where the rows allow telling.
        """
        _, value = regression_from_scatter(self.scatter, child, parents)
        return float(max(value, self._floor(child)))

    def _floor(self, child):
        return max(1e-12 * self.scatter[child, child], np.finfo(float).tiny)


class GaussianBICScore(GaussianScore):
    """The Gaussian BIC of each family: a linear regression's maximum log-likelihood minus ``(l + 2)/2 log N``.

    Parameters
    ----------
    data : ContinuousData
        One task's rows.

    Examples
    --------
    >>> import numpy as np
    >>> from mtbn.data import ContinuousData
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=200)
    >>> d = ContinuousData(np.column_stack([x, 3 * x + rng.normal(size=200)]), ["x", "y"])
    >>> s = GaussianBICScore(d)
    >>> bool(s.local_score(1, [0]) > s.local_score(1, []))  # y depends on x
    True
    """

    name = "bic-g"

    def compute(self, child, parents):
        """The BIC of ``child`` regressed on ``parents`` (a sorted tuple of column indices).

        Parameters
        ----------
        child : int
            The column scored.
        parents : tuple of int
            Its parents' columns.

        Returns
        -------
        float
        """
        return self._bic(len(parents), self._residual(child, parents))

    def _bic(self, l, residual):
        n = self.n_samples
        variance = residual / n
        return float(-0.5 * n * (np.log(2 * np.pi * variance) + 1.0) - 0.5 * (l + 2) * np.log(n))

    def _compute_many(self, child, sets):
        """:meth:`compute` of ``child`` given each row of ``sets`` (sorted parent sets of one size), the
        regressions solved by one stacked ``solve`` (each family alone where a parents' block is singular)."""
        scatter = self.scatter
        cross = scatter[sets, child]  # (m, l): each family's S_Py
        try:
            betas = np.linalg.solve(scatter[sets[:, :, None], sets[:, None, :]], cross[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:  # an exactly singular block: the least-squares path, family by family
            return super()._compute_many(child, sets)
        syy, floor = scatter[child, child], self._floor(child)
        return [self._bic(sets.shape[1], float(max(float(syy - c @ b), floor))) for c, b in zip(cross, betas)]


class BGeScore(GaussianScore):
    """The BGe score of each family (Kuipers, Moffa and Heckerman 2014), from the task's scatter matrix.

    Parameters
    ----------
    data : ContinuousData
        One task's rows.
    alpha_mu : float, default 1.0
        The prior's equivalent sample size for the mean.
    alpha_w : float, optional
        The Wishart prior's degrees of freedom, above ``n_vars + 1``; default ``n_vars + alpha_mu + 1``.

    Examples
    --------
    Score equivalent: ``x -> y`` and ``y -> x`` score the same.

    >>> import numpy as np
    >>> from mtbn.data import ContinuousData
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=100)
    >>> s = BGeScore(ContinuousData(np.column_stack([x, x + rng.normal(size=100)]), ["x", "y"]))
    >>> a = s.local_score(0, []) + s.local_score(1, [0])
    >>> b = s.local_score(1, []) + s.local_score(0, [1])
    >>> bool(abs(a - b) < 1e-9)
    True
    """

    name = "bge"

    def __init__(self, data, alpha_mu=1.0, alpha_w=None):
        super().__init__(data)
        n = self.n_vars
        self.alpha_mu = float(alpha_mu)
        self.alpha_w = float(n + self.alpha_mu + 1 if alpha_w is None else alpha_w)
        if not (self.alpha_mu > 0 and self.alpha_w > n + 1):
            raise error("bge-prior", limit=n + 1, alpha_mu=alpha_mu, alpha_w=alpha_w)
        self.t = self.alpha_mu * (self.alpha_w - n - 1) / (self.alpha_mu + 1)
        self.tn = self.t * np.eye(n) + self.scatter

    def _logdet(self, index):
        if not index:
            return 0.0
        sign, value = np.linalg.slogdet(self.tn[np.ix_(index, index)])
        return float(value)

    def _const(self, l):
        """The terms of :meth:`compute` that depend on the number of parents ``l`` only."""
        n_rows = self.n_samples
        a = self.alpha_w - self.n_vars + l + 1
        return a, (-0.5 * n_rows * np.log(np.pi) + 0.5 * np.log(self.alpha_mu / (self.alpha_mu + n_rows))
                   + gammaln((a + n_rows) / 2) - gammaln(a / 2) + 0.5 * (a + l) * np.log(self.t))

    def _combine(self, const, a, family_det, parent_det):
        return float(const - 0.5 * (a + self.n_samples) * (family_det - parent_det) - 0.5 * parent_det)

    def compute(self, child, parents):
        """The BGe of ``child`` given ``parents`` (a sorted tuple of column indices).

        Parameters
        ----------
        child : int
            The column scored.
        parents : tuple of int
            Its parents' columns.

        Returns
        -------
        float
        """
        a, const = self._const(len(parents))
        parent_det = self._logdet(list(parents))
        family_det = self._logdet(sorted(list(parents) + [child]))
        return self._combine(const, a, family_det, parent_det)

    def _compute_many(self, child, sets):
        """:meth:`compute` of ``child`` given each row of ``sets`` (sorted parent sets of one size), the
        submatrices' log-determinants of all of them taken by one stacked ``slogdet`` each."""
        families = np.sort(np.column_stack([sets, np.full(len(sets), child)]), axis=1)
        a, const = self._const(sets.shape[1])
        parent_dets = np.linalg.slogdet(self.tn[sets[:, :, None], sets[:, None, :]])[1].tolist()
        family_dets = np.linalg.slogdet(self.tn[families[:, :, None], families[:, None, :]])[1].tolist()
        return [self._combine(const, a, f, p) for f, p in zip(family_dets, parent_dets)]
