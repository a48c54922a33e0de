"""The protocol every multitask prior follows (:class:`MultitaskPrior`) and the helpers the priors share."""

from abc import ABC, abstractmethod

import numpy as np

from mtbn.graph import REVERSAL_COSTS


def log1m(penalty):
    """``log(1 - penalty)`` with ``-inf`` at 1 (no overflow warning)."""
    penalty = np.asarray(penalty, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(penalty >= 1.0, -np.inf, np.log1p(-np.minimum(penalty, 1.0)))


def state_max(gains):
    """``gains.max(axis=-1)`` for the last axis of the three pair states (no edge, i -> j, j -> i).

    The same values; two elementwise maxima over strided views are about
    three times faster than numpy's reduction over an axis of length 3,
    which the joint search does over every node pair at every step.
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
        """False when no pair term can be non-zero (penalty 0 everywhere, or all pair weights 0)."""
        if np.all(self.log_factors(n_vars) == 0):
            return False
        return self.weights is None or bool(np.any(self.weights > 0))

    @property
    def exponent(self):
        """``c = 1 / (1 + (k - 1) delta)``, the power of each task's structure prior."""
        return 1.0 / (1.0 + (self.n_tasks - 1) * self.penalty)

    def log_factors(self, n_vars):
        """``L`` per unordered pair (upper-triangle order), honouring edge penalties."""
        iu, ju = np.triu_indices(n_vars, 1)
        if self.edge_penalty is None:
            return np.full(len(iu), float(log1m(self.penalty)))
        pen = np.maximum(self.edge_penalty, self.edge_penalty.T)[iu, ju]
        return log1m(pen)

    @abstractmethod
    def log_prior(self, states, part, log_factor):
        """``phi`` of configurations ``states`` (m, k) with participation ``part`` (m, k) and ``L`` (m,)."""

    @abstractmethod
    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem (see the section below)."""

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem, here by enumerating all ``3^k`` configurations with
        :meth:`log_prior` (a prior that declares ``exact`` overrides it with something faster)."""
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
        """
        return state_max(gains).sum(axis=1)

    def solve_excluding(self, gains, part, log_factor, exclude):
        """Best objective of each pair problem over the configurations other than ``exclude``, or None.

        None (the default): the search splits the other configurations into
        ``k`` boxes and calls the solver once per box.
        """
        return None

    def best_configuration(self, gains, part, log_factor, tol, exclude=None):
        """The tie-broken best configuration of one pair problem by a method of the prior's own, or None.

        None (the default): the search fixes the tasks one by one with the
        solver's values as an oracle (:func:`mtbn.joint.best_configuration`).
        """
        return None

    def n_configurations(self, n_pairs):
        """Configurations an exact solve of ``n_pairs`` pair problems looks at (the search's statistics)."""
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
