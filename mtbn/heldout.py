"""Choosing among candidates by held-out log-likelihood: one protocol for every choice.

The penalty of :func:`mtbn.learn.learn_structures`, the number of tasks of
:func:`mtbn.relatedness.select_tasks` and the number of clusters of
:func:`mtbn.relatedness.cluster_tasks` are all chosen the same way: each
candidate is learned on training rows and scored on held-out rows of every
task; the candidates' mean held-out log-likelihoods are compared with
standard errors taken from the per-row differences, and a rule picks one.

The unit is the mean held-out log-likelihood per row (nats), averaged over
the tasks with equal weight: ``M(c) = mean_t mean_rows ll_t(c)``. Because
every candidate is scored on the same rows, the difference of two
candidates is a mean of per-row differences, and its standard error

    SE(a - b) = sqrt(sum_t var_rows(ll_t(a) - ll_t(b)) / n_t) / k

is much smaller than the spread of the rows' log-likelihoods themselves
(row difficulty cancels). It treats held-out rows as independent, which
ignores the dependence between cross-validation folds that share training
rows; that makes it somewhat optimistic, so rules built on it are read as
guides, not as tests at a stated level.

Rules (candidates ordered from the simplest, e.g. the weakest coupling):

* ``"max"``: the best mean, exact ties (within ``1e-12``) to the simplest;
  the paper's rule (Section 2.3.4).
* ``"one-se"``: the one-standard-error rule: the simplest candidate whose
  mean is within one paired standard error of the best mean (Hastie,
  Tibshirani & Friedman, *Elements of Statistical Learning*, Section 7.10).

The steps, each written once: split every task's rows (:func:`kfold_splits`,
:func:`holdout_splits`, :func:`hold_out`), learn the candidates on the training rows (the
caller's learner), score them (:func:`heldout_scores`: parameters fitted on
the training rows, per-row log-likelihoods of the held-out rows), choose
(:meth:`ValidationScores.choose`), and fit the chosen structures' parameters
on all rows (:func:`fit_networks`).
"""

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.networks import fit_parameters, fits_in_tables, heldout_log_likelihood, log_likelihood

__all__ = ["kfold_splits", "holdout_splits", "hold_out", "ValidationScores", "RULES", "heldout_scores", "split_rows",
           "scores_of_rows",
           "fit_networks", "SEARCHES", "first_candidates", "search_candidates"]

RULES = ("max", "one-se")
#: How many of an ordered list of candidates :func:`search_candidates` scores.
SEARCHES = ("refine", "grid")
TIE = 1e-12


register("kfold-no-rows", InvalidParameterError, "kfold_splits needs at least one row.",
         cause="Cross-validation folds were asked for a task without rows.",
         fix="Give every task at least one row.")
register("validation-too-large", InvalidParameterError,
         "{name}={value!r} leaves no training rows in task {task!r} ({n_rows} rows).",
         cause="The validation split holds out every row of a small task.",
         fix="Hold out fewer rows (a smaller count or fraction), or use cross-validation (--cv).")
register("no-candidates", InvalidParameterError, "no candidates to choose from.",
         cause="A choice by held-out log-likelihood was asked among no candidates (an empty grid or list).",
         fix="Give at least one candidate.")
register("nothing-held-out", InvalidParameterError, "no task has held-out rows to score the candidates on.",
         cause="Every task is too small (one row) to hold rows out for validation.",
         fix="Give a penalty instead of 'auto' (e.g. --penalty 0.5), or more rows.")
register("candidate-search", InvalidParameterError, "search must be one of {searches}; got {value!r}.",
         cause="An unknown way of going through the candidates of a choice by held-out log-likelihood.",
         fix="Use 'refine' (every other candidate, then the neighbours of the best and the chosen one) or 'grid'.")
register("selection-rule", InvalidParameterError, "rule must be one of {rules}; got {value!r}.",
         cause="An unknown rule for choosing among candidates.",
         fix="Use 'one-se' (the simplest candidate within one standard error of the best) or 'max'.")

def kfold_splits(n_rows, k, rng):
    """``k`` folds of ``range(n_rows)``: a list of ``(train, held_out)`` sorted index arrays.

    A task with fewer rows than folds holds out one row in each of its first
    ``n_rows`` folds and none in the others (every row is still held out
    exactly once), so small tasks can sit beside large ones. A task of one
    row cannot be held out (its training rows would be empty): it trains on
    that row in every fold and is left out of the held-out scores.

    Parameters
    ----------
    n_rows : int
        The task's number of rows (at least 1, else :class:`mtbn.exceptions.InvalidParameterError`).
    k : int
        The number of folds.
    rng : numpy.random.Generator
        Draws the random order of the rows that is cut into folds.

    Returns
    -------
    list of (ndarray, ndarray)
        One ``(train, held_out)`` pair of sorted row-index arrays per fold, ``k`` in all.
    """
    if n_rows < 1:
        raise error("kfold-no-rows")
    if n_rows == 1:
        return [(np.zeros(1, dtype=int), np.zeros(0, dtype=int)) for _ in range(k)]
    parts = np.array_split(rng.permutation(n_rows), k)
    return [(np.sort(np.concatenate([p for i, p in enumerate(parts) if i != f])), np.sort(parts[f]))
            for f in range(k)]


def holdout_splits(n_rows, validation, rng, task, name="validation"):
    """One split: ``validation`` rows (a count, or a fraction of ``n_rows``) held out.

    A one-row task holds out nothing (as in :func:`kfold_splits`); ``name``
    is the argument named in errors.

    Parameters
    ----------
    n_rows : int
        The task's number of rows.
    validation : int or float
        An integer is the number of rows to hold out; anything else is read as a fraction of ``n_rows``
        (rounded). At least one row is held out, and at least one must be left for training (else
        :class:`mtbn.exceptions.InvalidParameterError`).
    rng : numpy.random.Generator
        Draws which rows are held out.
    task : str
        The task's name, for the error message.
    name : str, default "validation"
        The name of the caller's argument that gave ``validation``, for the error message.

    Returns
    -------
    list of (ndarray, ndarray)
        A single ``(train, held_out)`` pair of sorted row-index arrays (in the form of :func:`kfold_splits`).
    """
    if n_rows == 1:
        return [(np.zeros(1, dtype=int), np.zeros(0, dtype=int))]
    if isinstance(validation, (int, np.integer)) and not isinstance(validation, bool):
        n_val = int(validation)
    else:
        n_val = int(round(float(validation) * n_rows))
    n_val = max(1, n_val)
    if n_val >= n_rows:
        raise error("validation-too-large", name=name, value=validation, task=task, n_rows=n_rows)
    perm = rng.permutation(n_rows)
    return [(np.sort(perm[n_val:]), np.sort(perm[:n_val]))]


def hold_out(data, validation, rng, task, name="validation"):
    """``(training rows, held-out rows)`` of one task's DiscreteData, split by :func:`holdout_splits`.

    Parameters
    ----------
    data : DiscreteData
        The task's rows.
    validation : int or float
        The number of rows to hold out (an integer) or a fraction of the rows (see :func:`holdout_splits`).
    rng : numpy.random.Generator
        Draws which rows are held out.
    task : str
        The task's name, for the error message.
    name : str, default "validation"
        The name of the caller's argument that gave ``validation``, for the error message.

    Returns
    -------
    train : DiscreteData
        The rows kept for training, in their original order.
    held_out : DiscreteData
        The held-out rows, in their original order (none for a one-row task).
    """
    train, held = holdout_splits(data.n_samples, validation, rng, task, name)[0]
    return data.take(train), data.take(held)


class ValidationScores:
    """Per-row held-out log-likelihoods of candidates, and the choices made from them.

    Parameters
    ----------
    rows : list (candidates) of list (tasks) of 1-d arrays
        ``rows[c][t]``: the held-out log-likelihood of every held-out row of
        task ``t`` under candidate ``c`` (the same rows, in the same order,
        for every candidate). Candidates are ordered from the simplest.
    """

    def __init__(self, rows):
        self.rows = [[np.asarray(r, dtype=float) for r in cand] for cand in rows]
        if not self.rows:
            raise error("no-candidates")
        # Tasks without held-out rows (a one-row task) are left out of the means.
        self.scored = np.array([len(r) > 0 for r in self.rows[0]])
        if not self.scored.any():
            raise error("nothing-held-out")
        self.k = int(self.scored.sum())
        self.means = np.array([np.mean(self.task_means(c)[self.scored]) for c in range(len(self.rows))])
        self.ses = np.array([np.sqrt(sum(r.var(ddof=1) / len(r) if len(r) > 1 else 0.0 for r in cand)) / self.k
                             for cand in self.rows])

    def task_means(self, c):
        """Mean held-out log-likelihood per row of each task under candidate ``c`` (NaN: no held-out rows).

        Parameters
        ----------
        c : int
            The candidate's index (from 0, the simplest).

        Returns
        -------
        ndarray of float, shape (n_tasks,)
            Each task's mean log-likelihood per held-out row (nats).
        """
        return np.array([r.mean() if len(r) else np.nan for r in self.rows[c]])

    def difference(self, a, b):
        """``(M(a) - M(b), paired SE, per-task differences, per-task SEs)``; NaN for unscored tasks.

        Parameters
        ----------
        a : int
            The index of the first candidate.
        b : int
            The index of the candidate it is compared with.

        Returns
        -------
        diff : float
            ``M(a) - M(b)``, the difference of the means over the scored tasks (nats per row).
        se : float
            Its paired standard error (see the module docstring).
        task_diffs : ndarray of float, shape (n_tasks,)
            Each task's mean per-row difference.
        task_ses : ndarray of float, shape (n_tasks,)
            The standard error of each task's difference (0 for a task with one held-out row).
        """
        diffs = [ra - rb for ra, rb in zip(self.rows[a], self.rows[b])]
        d_t = np.array([d.mean() if len(d) else np.nan for d in diffs])
        se_t = np.array([d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else (0.0 if len(d) else np.nan)
                         for d in diffs])
        ok = self.scored
        return float(d_t[ok].mean()), float(np.sqrt(np.sum(se_t[ok] ** 2)) / self.k), d_t, se_t

    def best(self):
        """Index of the best mean (exact ties to the simplest candidate).

        Returns
        -------
        int
            The index of the candidate with the highest mean held-out log-likelihood; among means within
            ``1e-12`` of it, the smallest index.
        """
        return int(np.flatnonzero(self.means >= self.means.max() - TIE)[0])

    def ses_vs_best(self):
        """The paired standard error of each candidate's difference from the best one (0 for the best).

        Returns
        -------
        list of float
            One standard error per candidate, in candidate order (see :meth:`difference`).
        """
        b = self.best()
        return [self.difference(c, b)[1] for c in range(len(self.rows))]

    def curve(self, labels):
        """``(label, mean, SE of the difference from the best)`` per candidate, ``labels`` naming them.

        Parameters
        ----------
        labels : sequence
            One label per candidate, in candidate order (e.g. the penalties); extra entries are ignored.

        Returns
        -------
        list of tuple
            ``(label, mean held-out log-likelihood, SE of the difference from the best)`` per candidate.
        """
        return [(label, float(m), se) for label, m, se in zip(labels, self.means, self.ses_vs_best())]

    def choose(self, rule="one-se"):
        """The candidate the rule picks (see the module docstring).

        Parameters
        ----------
        rule : {"one-se", "max"}, default "one-se"
            ``"max"``: the best mean (:meth:`best`); ``"one-se"``: the simplest candidate whose mean is within one
            paired standard error of the best. Any other value raises :class:`mtbn.exceptions.InvalidParameterError`.

        Returns
        -------
        int
            The index of the chosen candidate.
        """
        if rule not in RULES:
            raise error("selection-rule", rules=RULES, value=rule)
        b = self.best()
        if rule == "max":
            return b
        for c in range(b + 1):
            diff, se, _, _ = self.difference(c, b)
            if diff >= -se - TIE:
                return c
        return b


def fit_networks(graphs, datasets, ess):
    """Each task's structure with its parameters fitted on that task's rows (posterior mean, BDeu prior).

    Parameters
    ----------
    graphs : sequence of DAG
        One structure per task, over that task's variables.
    datasets : sequence of DiscreteData or ContinuousData
        Each task's rows, in the order of ``graphs`` (continuous rows: linear Gaussian regressions).
    ess : float
        The BDeu equivalent sample size of the parameter prior (> 0).

    Returns
    -------
    list of BayesianNetwork or LinearGaussianNetwork
        One fitted network per task (:func:`mtbn.networks.fit_parameters`,
        :func:`mtbn.networks.gaussian.fit_linear_gaussian`).
    """
    return [_fitted(g, d, ess) for g, d in zip(graphs, datasets)]


def _fitted(graph, data, ess):
    """``graph``'s parameters fitted on ``data``: CPTs (BDeu posterior mean), or for continuous rows
    (:class:`~mtbn.data.ContinuousData`, the structure over its columns) linear Gaussian regressions by least
    squares."""
    from mtbn.data.continuous import ContinuousData

    if isinstance(data, ContinuousData):
        from mtbn.networks.gaussian import fit_linear_gaussian

        return fit_linear_gaussian([sorted(p) for p in graph.parents], data)
    return fit_parameters(graph, data, equivalent_sample_size=ess)


def _heldout_rows(graph, train, valid, ess):
    """Per-row held-out log-likelihood of one task's structure (without CPTs when they would be too large; a
    linear Gaussian network for continuous rows)."""
    from mtbn.data.continuous import ContinuousData

    if isinstance(train, ContinuousData):
        return _fitted(graph, train, ess).log_likelihood(valid, per_row=True)
    if fits_in_tables(graph, train):
        return log_likelihood(fit_parameters(graph, train, equivalent_sample_size=ess), valid, per_row=True)
    return heldout_log_likelihood(graph, train, valid, equivalent_sample_size=ess)


def heldout_scores(candidates, trains, held_out, ess):
    """:class:`ValidationScores` of candidates learned on one or more splits of every task's rows.

    Parameters
    ----------
    candidates : list (splits) of list (candidates) of list (tasks) of DAG
        ``candidates[f][c][t]``: task ``t``'s structure under candidate
        ``c``, learned on split ``f``'s training rows.
    trains, held_out : list (splits) of list (tasks) of DiscreteData
        Each split's training and held-out rows of every task.
    ess : float
        Equivalent sample size of the parameter fit on the training rows.

    Returns
    -------
    ValidationScores
        Per candidate and task, the held-out rows of every split in turn.
    """
    return scores_of_rows([split_rows(split, train, valid, ess)
                           for split, train, valid in zip(candidates, trains, held_out)])


def split_rows(candidates, train, valid, ess):
    """The per-row held-out log-likelihoods of candidates learned on one split (one part of
    :func:`heldout_scores`, e.g. computed in the job that learned them).

    Parameters
    ----------
    candidates : list (candidates) of list (tasks) of DAG
        ``candidates[c][t]``: task ``t``'s structure under candidate ``c``, learned on ``train``.
    train, valid : list (tasks) of DiscreteData
        The split's training and held-out rows of every task.
    ess : float
        Equivalent sample size of the parameter fit on the training rows.

    Returns
    -------
    list (candidates) of list (tasks) of numpy.ndarray
        Each held-out row's natural-log likelihood.
    """
    return [[_heldout_rows(g, tr, va, ess) for g, tr, va in zip(graphs, train, valid)] for graphs in candidates]


def scores_of_rows(rows):
    """:class:`ValidationScores` from :func:`split_rows` of every split (``rows[split][candidate][task]``).

    Parameters
    ----------
    rows : list (splits) of list (candidates) of list (tasks) of numpy.ndarray
        Every split's :func:`split_rows`.

    Returns
    -------
    ValidationScores
        Per candidate and task, the held-out rows of every split in turn.
    """
    n_tasks = len(rows[0][0])
    return ValidationScores([[np.concatenate([split[c][t] for split in rows]) for t in range(n_tasks)]
                             for c in range(len(rows[0]))])


def first_candidates(n, search="refine"):
    """The candidates :func:`search_candidates` scores in its first round (so a caller can start them early).

    Parameters
    ----------
    n : int
        Number of candidates.
    search : {"refine", "grid"}, default "refine"
        As for :func:`search_candidates`.

    Returns
    -------
    list of int
        Every candidate (``"grid"``), or every other one with both ends (``"refine"``), increasing.
    """
    if search not in SEARCHES:
        raise error("candidate-search", searches=SEARCHES, value=search)
    return list(range(n)) if search == "grid" else sorted(set(range(0, n, 2)) | {n - 1})


def search_candidates(n, score, rule="one-se", search="refine"):
    """Score candidates ``0..n-1`` (ordered from the simplest) in rounds, and choose one by ``rule``.

    ``search="grid"`` scores all of them in one round. ``"refine"`` scores
    every other candidate (both ends included), then, round by round, the
    unscored neighbours of the best candidate and the one before the chosen
    one, until none is left: the rule is applied to the candidates scored,
    which include every candidate next to the best and next to the chosen
    one. On a curve that rises to one peak and then falls (or stays flat),
    the best and the choice of ``"max"`` are those of the whole grid; the
    one-SE choice differs from the whole grid's only when a skipped
    candidate below the chosen one is within one SE of the best.

    Parameters
    ----------
    n : int
        Number of candidates.
    score : callable
        ``score(indices)`` -> the held-out rows of those candidates
        (``rows[c][t]`` as for :class:`ValidationScores`), in that order.
    rule : {"one-se", "max"}, default "one-se"
        The rule that picks among the candidates scored (:meth:`ValidationScores.choose`).
    search : {"refine", "grid"}, default "refine"
        ``"grid"`` scores every candidate at once; ``"refine"`` scores in rounds as described above.

    Returns
    -------
    (list of int, ValidationScores)
        The indices scored, in increasing order, and their scores (in that order).
    """
    rows = {}
    todo = first_candidates(n, search)
    while todo:
        for i, r in zip(todo, score(todo)):
            rows[i] = r
        done = sorted(rows)
        scores = ValidationScores([rows[i] for i in done])
        best, chosen = done[scores.best()], done[scores.choose(rule)]
        todo = sorted(i for i in {best - 1, best + 1, chosen - 1} if 0 <= i < n and i not in rows)
    return done, scores
