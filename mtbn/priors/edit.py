"""The Edit prior (paper eq. 2.7): ``(1 - delta)`` per edit that makes a pair agree across the tasks."""

import numpy as np

from mtbn.priors.base import MultitaskPrior, _times, state_max


class _EditBound:
    """The Edit prior along a branch: the edits to each consensus state so far.

    Plain Python floats (the DFS is scalar code; the values are those of the
    float64 arrays).
    """

    root = (0.0, 0.0, 0.0)

    def __init__(self, D, log_factor):
        self.D = D.tolist()
        self.unit = float(log_factor)

    def extend(self, partial, prefix, s):
        d = self.D[s]
        return (partial[0] + d[0], partial[1] + d[1], partial[2] + d[2])

    def value(self, partial):
        count = min(partial)
        return 0.0 if count == 0 else self.unit * count  # 0 * -inf = 0, as in _times


class EditPrior(MultitaskPrior):
    """The Edit prior (eq. 2.7): ``(1 - delta)`` per edit needed to agree.

    Parameters
    ----------
    penalty : float
        delta in the paper, in [0, 1].
    n_tasks : int
        The number of tasks ``k``.
    reversal : {"single", "double"}, default "single"
        Whether an edge reversal is one edit or two.
    edge_penalty : ndarray (n_vars, n_vars), optional
        A penalty per unordered pair (the larger of ``[i, j]`` and ``[j, i]``)
        replacing ``penalty`` there: 1 forbids differences, 0 frees the pair.
    """

    name = "edit"
    exact = True

    def __init__(self, penalty, n_tasks, *, reversal="single", edge_penalty=None):
        super().__init__(penalty, n_tasks, reversal=reversal, edge_penalty=edge_penalty)

    def log_prior(self, states, part, log_factor):
        """``phi`` of configurations ``states`` (m, k) with participation ``part`` (m, k).

        Parameters
        ----------
        states : ndarray of int, shape (m, k)
            One configuration per row: the state of the pair in each task (0 no edge, 1 ``i -> j``, 2 ``j -> i``).
        part : ndarray of bool, shape (m, k)
            Whether each task takes part in the pair (has both variables); the others add nothing.
        log_factor : float or ndarray of shape (m,)
            ``L = log(1 - delta)`` of each row's pair.

        Returns
        -------
        ndarray of float64, shape (m,)
            ``L`` times the fewest edits that make each configuration agree across its participating tasks
            (``0`` when it already agrees, also when ``L`` is ``-inf``).
        """
        states = np.asarray(states)
        edits = np.full(states.shape[0], np.inf)
        for z in range(3):
            cost = np.where(part, self.D[states, z], 0.0).sum(axis=1)
            edits = np.minimum(edits, cost)
        return _times(log_factor, edits)

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem: gains (m, k, 3), part (m, k), L (m,).

        Exact, O(k) per pair: the best over the consensus state ``z`` of the sum over the participating tasks of
        ``max_s (gains[p, t, s] + L D[s, z])``.

        Parameters
        ----------
        gains : ndarray of shape (m, k, 3)
            ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (0 no edge, 1 ``i -> j``, 2 ``j -> i``)
            at pair ``p``; ``-inf`` where the state is illegal.
        part : ndarray of bool, shape (m, k)
            ``part[p, t]``: whether task ``t`` has both variables of pair ``p``; a task that does not keeps
            "no edge" and takes no part in the pair term.
        log_factor : ndarray of shape (m,)
            ``L = log(1 - delta)`` of each pair (:meth:`log_factors`), ``<= 0``, ``-inf`` where the penalty is 1.

        Returns
        -------
        ndarray of float64, shape (m,)
            The best objective ``max_s sum_t gains[p, t, s_t] + phi(s)`` of each pair; ``-inf`` when no
            configuration is legal.
        """
        best = np.full(gains.shape[0], -np.inf)
        for z in range(3):
            pen = _times(log_factor[:, None], self.D[:, z][None, :])  # (m, 3)
            per_task = state_max(gains + pen[:, None, :])  # (m, k)
            best = np.maximum(best, np.where(part, per_task, 0.0).sum(axis=1))
        return best

    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem (see :class:`_EditBound`).

        Parameters
        ----------
        part : ndarray of bool, shape (k,)
            Whether each task takes part in the pair (has both variables).
        log_factor : float
            ``L = log(1 - delta)`` of the pair.

        Returns
        -------
        _EditBound
            Carries the edits to each consensus state of the tasks assigned so far: ``root``,
            ``extend(partial, prefix, s)`` and ``value(partial)`` (``L`` times the fewest of them).

        Examples
        --------
        Task 0 takes ``i -> j``, then task 1 ``j -> i``: one edit so far.

        >>> from mtbn.priors import make_prior
        >>> prior = make_prior("edit", 0.9, 3)
        >>> b = prior.bound(np.ones(3, dtype=bool), float(np.log(0.1)))
        >>> one = b.extend(b.root, (), 1)
        >>> two = b.extend(one, (1,), 2)
        >>> float(b.value(one)), round(float(b.value(two)), 3)
        (0.0, -2.303)
        """
        return _EditBound(self.D, log_factor)

    def n_configurations(self, n_pairs):
        """Configurations an exact solve of ``n_pairs`` pair problems looks at (the search's statistics).

        Parameters
        ----------
        n_pairs : int
            The number of pair problems solved together.

        Returns
        -------
        int
            ``9 k n_pairs``: three states per task for each of the three consensus states.
        """
        return 9 * self.n_tasks * n_pairs
