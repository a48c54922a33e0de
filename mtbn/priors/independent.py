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
        return False

    def log_prior(self, states, part, log_factor):
        return np.zeros(np.shape(states)[0])

    def solve(self, gains, part, log_factor):
        return np.where(part, state_max(gains), 0.0).sum(axis=1)

    def bound(self, part, log_factor):
        return _NoBound()
