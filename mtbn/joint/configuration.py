"""The tie-broken best configuration of one pair problem (the move the search applies).

The configuration returned is the lexicographically smallest ``(s_1, ..., s_k)``
whose objective is within ``tol`` of the pair's best (see :mod:`mtbn.joint`),
so every solver moves identically: small problems are enumerated, a prior
may break ties by a method of its own (:meth:`mtbn.priors.MultitaskPrior.best_configuration`:
the Paired prior with equal weights has an O(k^3) table method), and any
other problem is fixed task by task with the solver's value oracle.
"""

import weakref

import numpy as np

from mtbn.joint.solvers import best_values, resolve_solver, solve_excluding
from mtbn.search import TIE_TOLERANCE

__all__ = ["best_configuration", "ENUMERATION_LIMIT"]


#: Pair problems with at most this many legal configurations are broken by enumeration.
ENUMERATION_LIMIT = 4096


#: Per prior: (legal pattern, participation, log factor) -> every legal configuration and its prior term.
_ENUMERATED: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()
#: Entries kept per prior (a search meets few patterns; the oldest go first beyond this).
ENUMERATION_CACHE = 4096


def _enumerated(prior, finite, part, log_factor):
    """Every legal configuration in lexicographic order and its ``phi``, built once per pattern and prior."""
    try:
        cache = _ENUMERATED.setdefault(prior, {})
    except TypeError:  # a prior that takes no weak reference: no cache
        cache = {}
    key = (finite.shape, finite.tobytes(), np.asarray(part, dtype=bool).tobytes(), float(log_factor))
    found = cache.get(key)
    if found is None:
        legal = [np.flatnonzero(row).tolist() for row in finite]
        # itertools.product's order, built in numpy
        grids = np.meshgrid(*[np.asarray(x, dtype=np.int64) for x in legal], indexing="ij")
        configs = np.stack([g.ravel() for g in grids], axis=1).reshape(-1, finite.shape[0])
        phi = prior.log_prior(configs, np.broadcast_to(part, configs.shape),
                              np.full(len(configs), float(log_factor)))
        found = cache[key] = (configs, phi)
        if len(cache) > ENUMERATION_CACHE:
            del cache[next(iter(cache))]
    return found


def _best_by_enumeration(prior, gains, part, log_factor, tol, exclude):
    """Lexicographically smallest legal configuration within ``tol`` of the best, or None if too many."""
    finite = np.isfinite(gains)
    if float(np.prod(finite.sum(axis=1), dtype=float)) > ENUMERATION_LIMIT:
        return None
    configs, phi = _enumerated(prior, finite, part, log_factor)
    if exclude is not None:
        other = np.any(configs != np.asarray(exclude)[None, :], axis=1)
        configs, phi = configs[other], phi[other]
    if not len(configs):
        return (), -np.inf
    total = gains[np.arange(gains.shape[0])[None, :], configs].sum(axis=1)
    with np.errstate(invalid="ignore"):
        obj = np.where(np.isfinite(phi), total + phi, -np.inf)
    best = float(obj.max())
    if not np.isfinite(best):
        return (), -np.inf
    return tuple(int(s) for s in configs[np.flatnonzero(obj >= best - tol)[0]]), best


def best_configuration(prior, gains, part, log_factor, solver="auto", tol=TIE_TOLERANCE, exclude=None):
    """The tie-broken best configuration of one pair problem, and its value.

    Returns the lexicographically smallest configuration whose objective is
    within ``tol`` of the best (see the module docstring). With ``exclude``
    (a configuration), the best is taken over the other configurations.
    Small problems (at most :data:`ENUMERATION_LIMIT` legal configurations)
    are enumerated; larger ones are fixed task by task with the solver's
    value oracle. Either way the result does not depend on the solver.

    Parameters
    ----------
    prior : MultitaskPrior
        The multitask prior (:func:`mtbn.priors.make_prior`) whose pair term ``phi`` is added to the gains.
    gains : array_like of shape (k, 3)
        ``gains[t, s]``: task ``t``'s score gain for state ``s`` (0 no edge, 1 ``i -> j``, 2 ``j -> i``);
        ``-inf`` where the state is illegal.
    part : ndarray of bool, shape (k,)
        Whether each task has both variables of the pair.
    log_factor : float
        ``log(1 - delta)`` for the pair: the log prior factor per difference between tasks.
    solver : {"auto", "exact", "bnb", "exhaustive"}, default "auto"
        The value oracle used when the problem is too large to enumerate (see :func:`resolve_solver`).
    tol : float, default :data:`mtbn.search.TIE_TOLERANCE`
        Configurations whose objective is within ``tol`` of the best are tied.
    exclude : sequence of int of length k, optional
        A configuration to leave out (the tabu phase passes the current one). None considers all.

    Returns
    -------
    configuration : tuple of int
        One state per task, the lexicographically smallest within ``tol`` of the best (``()`` for an
        enumerated problem with no legal configuration left).
    value : float
        The best objective ``sum_t gains[t, s_t] + phi(s)``; ``-inf`` when no legal configuration is left.

    Examples
    --------
    The pair of :func:`mtbn.joint.best_values`' example: both tasks add
    ``i -> j`` (state 1), objective 1.

    >>> from mtbn.priors import make_prior
    >>> prior = make_prior("edit", 0.9, 2)
    >>> gains = np.array([[0.0, 2.0, -np.inf], [0.0, -1.0, 0.5]])
    >>> best_configuration(prior, gains, np.ones(2, dtype=bool), float(np.log(0.1)))
    ((1, 1), 1.0)
    """
    gains = np.asarray(gains, dtype=float)
    found = _best_by_enumeration(prior, gains, part, log_factor, tol, exclude)
    if found is not None:
        return found
    if resolve_solver(prior, solver) == "exact":
        found = prior.best_configuration(gains, part, log_factor, tol, exclude)
        if found is not None:
            return found
    return _fixing_best_configuration(prior, gains, part, log_factor, solver, tol, exclude)


def _fixing_best_configuration(prior, gains, part, log_factor, solver, tol, exclude):
    """The generic path: fix tasks one by one with the solver's best value as an oracle."""
    k = gains.shape[0]

    def values(gs):
        b = len(gs)
        P = np.broadcast_to(part, (b, k))
        L = np.full(b, float(log_factor))
        if exclude is None:
            return best_values(prior, gs, P, L, solver)
        return solve_excluding(prior, gs, P, L, np.broadcast_to(np.asarray(exclude), (b, k)), solver)

    best = float(values(gains[None])[0])
    g = gains.copy()
    states = []
    for t in range(k):
        # The three ways to fix task t, solved in one call.
        trials = np.repeat(g[None], 3, axis=0)
        for s in range(3):
            trials[s, t] = -np.inf
            trials[s, t, s] = g[t, s]
        vals = values(trials)
        ok = [s for s in range(3) if np.isfinite(gains[t, s]) and vals[s] >= best - tol]
        # Numerical corner (nothing within tol): fall back to the best state.
        chosen = ok[0] if ok else int(np.argmax(gains[t]))
        g = trials[chosen]
        states.append(chosen)
    return tuple(states), best

