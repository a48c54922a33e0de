"""The protocol every multitask prior follows (:class:`MultitaskPrior`) and the helpers the priors share."""

from abc import ABC, abstractmethod

import numpy as np

from mtbn.graph import REVERSAL_COSTS


def log1m(penalty):
    """``log(1 - penalty)`` with ``-inf`` at 1 (no overflow warning).

    Parameters
    ----------
    penalty : float or array_like of float
        The coupling penalty ``delta``, in [0, 1]; values at or above 1 give ``-inf``.

    Returns
    -------
    ndarray of float64
        ``log(1 - penalty)`` elementwise, of the shape of ``penalty`` (0-d for a scalar).
    """
    penalty = np.asarray(penalty, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(penalty >= 1.0, -np.inf, np.log1p(-np.minimum(penalty, 1.0)))


def state_max(gains):
    """``gains.max(axis=-1)`` for the last axis of the three pair states (no edge, i -> j, j -> i).

    The same values; two elementwise maxima over strided views are about
    three times faster than numpy's reduction over an axis of length 3,
    which the joint search does over every node pair at every step.

    Parameters
    ----------
    gains : ndarray of shape (..., 3)
        Values per pair state on the last axis (e.g. gains of shape (m, k, 3)).

    Returns
    -------
    ndarray of shape ``gains.shape[:-1]``
        The largest of the three values.
    """
    return np.maximum(np.maximum(gains[..., 0], gains[..., 1]), gains[..., 2])


def _times(log_factor, count):
    """``log_factor * count`` with ``0 * -inf = 0``."""
    log_factor, count = np.broadcast_arrays(np.asarray(log_factor, float), np.asarray(count, float))
    with np.errstate(invalid="ignore"):
        return np.where(count == 0, 0.0, log_factor * count)


def _distance_matrix(reversal):
    rc = REVERSAL_COSTS[reversal]
    return np.array([[0, 1, 1], [1, 0, rc], [1, rc, 0]], dtype=float)


class MultitaskPrior(ABC):
    """The protocol of a multitask structure prior: what the joint search calls, and nothing else.

    A prior is one class registered in :data:`PRIORS` (:func:`register_prior`);
    :func:`make_prior` builds it by name. The joint search (:mod:`mtbn.joint`)
    never asks which prior it holds: it reads the attributes and calls the
    methods below, whose defaults here are those of a prior with no special
    solver. A new prior implements :meth:`log_prior` and :meth:`bound` (and,
    for speed, :meth:`solve` with ``exact = True``, and :meth:`upper_bound`).

    Parameters
    ----------
    penalty : float
        The coupling penalty ``delta`` of the paper, in [0, 1] (0 couples nothing, 1 forbids differences).
    n_tasks : int
        The number of tasks ``k``.
    reversal : {"single", "double"}
        Whether a reversed edge between two tasks counts as one difference or two.
    edge_penalty : ndarray (n_vars, n_vars), optional
        A penalty per unordered pair (the larger of ``[i, j]`` and ``[j, i]``) replacing ``penalty`` there.
        None (the default) uses ``penalty`` for every pair.

    Attributes
    ----------
    name : str
        The registered name.
    exact : bool
        :meth:`solve` is an exact, vectorised solver of pair problems
        (``solver="auto"`` uses it; otherwise branch and bound on :meth:`bound`).
    has_penalty : bool
        False for a prior that couples nothing whatever the penalty
        (``"none"``): the learners then take the penalty as 0 and choose none.
    takes_weights : bool
        The constructor takes ``weights=`` (task-pair weights).
    default_reversal : {"single", "double"}
        How many differences a reversed edge counts as when not given.
    weights : ndarray (k, k) or None
        Task-pair weights, where the prior has them.
    """

    name = "base"
    exact = False
    has_penalty = True
    takes_weights = False
    default_reversal = "single"
    weights = None

    def __init__(self, penalty, n_tasks, *, reversal, edge_penalty=None):
        self.penalty = penalty
        self.n_tasks = n_tasks
        self.reversal = reversal
        self.D = _distance_matrix(reversal)
        self.edge_penalty = edge_penalty

    def is_coupled(self, n_vars):
        """False when no pair term can be non-zero (penalty 0 everywhere, or all pair weights 0).

        Parameters
        ----------
        n_vars : int
            The number of variables (nodes) of the networks.

        Returns
        -------
        bool
            Whether some pair of variables has a non-zero pair term for some configuration.
        """
        if np.all(self.log_factors(n_vars) == 0):
            return False
        return self.weights is None or bool(np.any(self.weights > 0))

    @property
    def exponent(self):
        """``c = 1 / (1 + (k - 1) delta)``, the power of each task's structure prior."""
        return 1.0 / (1.0 + (self.n_tasks - 1) * self.penalty)

    def log_factors(self, n_vars):
        """``L`` per unordered pair (upper-triangle order), honouring edge penalties.

        Parameters
        ----------
        n_vars : int
            The number of variables (nodes) of the networks.

        Returns
        -------
        ndarray of float64, shape (n_vars * (n_vars - 1) // 2,)
            ``log(1 - delta)`` of each pair ``i < j`` in :func:`numpy.triu_indices` order, with ``delta`` the
            pair's edge penalty if given, else ``penalty``; ``-inf`` where ``delta`` is 1.
        """
        iu, ju = np.triu_indices(n_vars, 1)
        if self.edge_penalty is None:
            return np.full(len(iu), float(log1m(self.penalty)))
        pen = np.maximum(self.edge_penalty, self.edge_penalty.T)[iu, ju]
        return log1m(pen)

    @abstractmethod
    def log_prior(self, states, part, log_factor):
        """``phi`` of configurations ``states`` (m, k) with participation ``part`` (m, k) and ``L`` (m,).

        Parameters
        ----------
        states : ndarray of int, shape (m, k)
            One configuration per row: the state of the pair in each task (0 no edge, 1 ``i -> j``, 2 ``j -> i``).
        part : ndarray of bool, shape (m, k)
            Whether each task takes part in the pair (has both variables); the others add nothing.
        log_factor : ndarray of shape (m,)
            ``L = log(1 - delta)`` of each row's pair.

        Returns
        -------
        ndarray of float64, shape (m,)
            The pair term ``phi`` of each configuration, ``<= 0`` (``0`` when nothing differs, never NaN).
        """

    @abstractmethod
    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem (see the section below).

        Parameters
        ----------
        part : ndarray of bool, shape (k,)
            Whether each task takes part in the pair (has both variables).
        log_factor : float
            ``L = log(1 - delta)`` of the pair.

        Returns
        -------
        object
            An object with ``root``, ``extend(partial, prefix, s)`` and ``value(partial)``: the prior term of
            the tasks assigned so far along a branch, an upper bound of ``phi`` of every completion.
        """

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem, here by enumerating all ``3^k`` configurations with
        :meth:`log_prior` (a prior that declares ``exact`` overrides it with something faster).

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
        gains = np.asarray(gains, dtype=float)
        m, k, _ = gains.shape
        configs = np.stack(np.meshgrid(*[np.arange(3)] * k, indexing="ij"), axis=-1).reshape(-1, k)
        best = np.full(m, -np.inf)
        for c in configs:
            taken = np.where(part, gains[:, np.arange(k), c], np.where(c == 0, 0.0, -np.inf)[None, :]).sum(axis=1)
            phi = self.log_prior(np.broadcast_to(c, (m, k)), part, np.asarray(log_factor, dtype=float))
            with np.errstate(invalid="ignore"):
                best = np.maximum(best, np.where(np.isfinite(taken) & np.isfinite(phi), taken + phi, -np.inf))
        return best

    def upper_bound(self, gains, part, log_factor):
        """An upper bound of each pair problem's best value, cheaper than solving it.

        Here the sum of the per-task best gains (the pair term is at most 0);
        the search solves exactly only the pairs whose bound can reach the
        best move, so a tighter bound saves solves and never changes a move.

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
            A value at least the best objective of each pair problem.
        """
        return state_max(gains).sum(axis=1)

    def solve_excluding(self, gains, part, log_factor, exclude):
        """Best objective of each pair problem over the configurations other than ``exclude``, or None.

        None (the default): the search splits the other configurations into
        ``k`` boxes and calls the solver once per box.

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
        exclude : ndarray of int, shape (m, k)
            The configuration to leave out at each pair (usually the current one), one state per task.

        Returns
        -------
        ndarray of float64, shape (m,) or None
            The best objective over the other configurations of each pair (``-inf`` where there is none);
            None here, where the prior has no method of its own.
        """
        return None

    def best_configuration(self, gains, part, log_factor, tol, exclude=None):
        """The tie-broken best configuration of one pair problem by a method of the prior's own, or None.

        None (the default): the search fixes the tasks one by one with the
        solver's values as an oracle (:func:`mtbn.joint.best_configuration`).

        Parameters
        ----------
        gains : ndarray of shape (k, 3)
            ``gains[t, s]``: task ``t``'s score gain for state ``s`` of the pair; ``-inf`` where illegal.
        part : ndarray of bool, shape (k,)
            Whether each task has both variables of the pair.
        log_factor : float
            ``L = log(1 - delta)`` of the pair.
        tol : float
            Configurations whose objective is within ``tol`` of the best are tied; the lexicographically
            smallest of them is returned.
        exclude : sequence of int of length k, optional
            A configuration to leave out. None (the default) considers all.

        Returns
        -------
        tuple or None
            ``(configuration, value)``: one state per task (a tuple of int) and the best objective, ``((), -inf)``
            when no legal configuration is left; None here, where the prior has no method of its own.
        """
        return None

    def n_configurations(self, n_pairs):
        """Configurations an exact solve of ``n_pairs`` pair problems looks at (the search's statistics).

        Parameters
        ----------
        n_pairs : int
            The number of pair problems solved together.

        Returns
        -------
        int
            The count the search adds to its ``n_configurations`` statistic (here ``3 k n_pairs``).
        """
        return 3 * self.n_tasks * n_pairs


# ---------------------------------------------------------------------------
# Branch-and-bound bookkeeping: the prior term of a prefix of tasks
# ---------------------------------------------------------------------------
#
# A branch and bound over one pair problem assigns the participating tasks'
# states in task order. Each prior's ``bound(part, log_factor)`` returns an
# object that carries the prior term of the tasks assigned so far along a
# branch: ``root`` (no task assigned), ``extend(partial, prefix, s)`` (the
# next participating task, ``len(prefix)``, takes state ``s`` after the
# states ``prefix``) and ``value(partial)``. Both priors count non-negative
# distances times ``L <= 0``, so ``value`` never increases along a branch: it
# bounds ``phi`` of every completion from above (eqs. 2.9, 2.10).
