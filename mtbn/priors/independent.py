"""The prior without coupling (``prior="none"``): each task's structure learned on its own."""

import numpy as np

from mtbn.priors.base import MultitaskPrior, state_max


class _NoBound:
    """Branch-and-bound bookkeeping of a prior without pair terms: 0 along every branch."""

    root = 0.0

    def extend(self, partial, prefix, s):
        return 0.0

    def value(self, partial):
        return 0.0


class IndependentPrior(MultitaskPrior):
    """No coupling (``prior="none"``): each task's structure on its own, whatever the penalty.

    ``phi`` is 0 for every configuration, so the joint search is the
    single-task search of every task (:func:`mtbn.learn.learn_structures`
    with ``prior="none"`` takes the penalty as 0 and chooses none).

    Parameters
    ----------
    penalty : float
        Ignored: the prior stores a penalty of 0 whatever is given.
    n_tasks : int
        The number of tasks ``k``.
    reversal : {"single", "double"}, default "single"
        Kept for the common interface; it changes nothing, as no pair term is counted.
    edge_penalty : ndarray (n_vars, n_vars), optional
        Ignored (not stored).

    Examples
    --------
    >>> from mtbn.priors import make_prior
    >>> prior = make_prior("none", 0.0, 2)
    >>> gains = np.array([[[0.0, 2.0, -np.inf], [0.0, -1.0, 0.5]]])
    >>> float(prior.solve(gains, np.ones((1, 2), dtype=bool), prior.log_factors(2))[0])
    2.5
    """

    name = "none"
    exact = True
    has_penalty = False

    def __init__(self, penalty, n_tasks, *, reversal="single", edge_penalty=None):
        super().__init__(0.0, n_tasks, reversal=reversal)

    def is_coupled(self, n_vars):
        """False: no pair term is ever non-zero.

        Parameters
        ----------
        n_vars : int
            The number of variables (nodes) of the networks.

        Returns
        -------
        bool
            Always False.
        """
        return False

    def log_prior(self, states, part, log_factor):
        """``phi`` of configurations ``states``: 0 for each.

        Parameters
        ----------
        states : ndarray of int, shape (m, k)
            One configuration per row: the state of the pair in each task (0 no edge, 1 ``i -> j``, 2 ``j -> i``).
        part : ndarray of bool, shape (m, k)
            Whether each task takes part in the pair (has both variables); the others add nothing.
        log_factor : float or ndarray of shape (m,)
            Ignored.

        Returns
        -------
        ndarray of float64, shape (m,)
            Zeros.
        """
        return np.zeros(np.shape(states)[0])

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem: each participating task's best gain, summed.

        Parameters
        ----------
        gains : ndarray of shape (m, k, 3)
            ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (0 no edge, 1 ``i -> j``, 2 ``j -> i``)
            at pair ``p``; ``-inf`` where the state is illegal.
        part : ndarray of bool, shape (m, k)
            ``part[p, t]``: whether task ``t`` has both variables of pair ``p``; a task that does not keeps
            "no edge" and takes no part in the pair term.
        log_factor : ndarray of shape (m,)
            Ignored.

        Returns
        -------
        ndarray of float64, shape (m,)
            The sum over the participating tasks of their best gain; ``-inf`` when some such task has no legal
            state.
        """
        return np.where(part, state_max(gains), 0.0).sum(axis=1)

    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem: the prior term is 0 along every branch.

        Parameters
        ----------
        part : ndarray of bool, shape (k,)
            Whether each task takes part in the pair (ignored).
        log_factor : float
            Ignored.

        Returns
        -------
        _NoBound
            ``root``, ``extend(partial, prefix, s)`` and ``value(partial)``, all 0.
        """
        return _NoBound()
