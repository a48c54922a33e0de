"""The tie-broken best configuration of one pair problem (the move the search applies).

The configuration returned is the lexicographically smallest ``(s_1, ..., s_k)``
whose objective is within ``tol`` of the pair's best (see :mod:`mtbn.joint`),
so every solver moves identically: small problems are enumerated, the Paired
prior with equal weights has an O(k^3) table method, and any other problem is
fixed task by task with the solver's value oracle.
"""

import numpy as np

from mtbn.joint.solvers import best_values, resolve_solver, solve_excluding
from mtbn.priors import PairedPrior
from mtbn.search import TIE_TOLERANCE

__all__ = ["best_configuration", "ENUMERATION_LIMIT"]


#: Pair problems with at most this many legal configurations are broken by enumeration.
ENUMERATION_LIMIT = 4096


def _best_by_enumeration(prior, gains, part, log_factor, tol, exclude):
    """Lexicographically smallest legal configuration within ``tol`` of the best, or None if too many."""
    finite = np.isfinite(gains)
    if float(np.prod(finite.sum(axis=1), dtype=float)) > ENUMERATION_LIMIT:
        return None
    legal = [np.flatnonzero(row).tolist() for row in finite]
    # Every legal configuration in lexicographic order (itertools.product's order, built in numpy).
    grids = np.meshgrid(*[np.asarray(x, dtype=np.int64) for x in legal], indexing="ij")
    configs = np.stack([g.ravel() for g in grids], axis=1).reshape(-1, gains.shape[0])
    if exclude is not None:
        configs = configs[np.any(configs != np.asarray(exclude)[None, :], axis=1)]
    if not len(configs):
        return (), -np.inf
    total = gains[np.arange(gains.shape[0])[None, :], configs].sum(axis=1)
    phi = prior.log_prior(configs, np.broadcast_to(part, configs.shape), np.full(len(configs), float(log_factor)))
    with np.errstate(invalid="ignore"):
        obj = np.where(np.isfinite(phi), total + phi, -np.inf)
    best = float(obj.max())
    if not np.isfinite(best):
        return (), -np.inf
    return tuple(int(s) for s in configs[np.flatnonzero(obj >= best - tol)[0]]), best


def _shift_add(nxt, gains_t):
    """One DP step: extend suffix tables by a participating task with the given state gains."""
    cur = nxt + gains_t[0]
    cur[1:, :] = np.maximum(cur[1:, :], nxt[:-1, :] + gains_t[1])
    cur[:, 1:] = np.maximum(cur[:, 1:], nxt[:, :-1] + gains_t[2])
    return cur


def _paired_best_configuration(prior, gains, part, log_factor, tol, exclude=None):
    """``best_configuration`` for the Paired prior with equal weights, in O(k^3) instead of O(k^4) or more.

    Backward tables ``B[t][n1, n2]`` hold the best gain of tasks ``t..k-1``
    with ``n1`` of them in state 1 and ``n2`` in state 2 (participating tasks
    only; the others keep "no edge"), so the best completion of any prefix is
    one maximisation over ``(n1, n2)`` with the prior's count penalty. With
    ``exclude``, tables ``E[t]`` do the same over the suffixes that differ
    from the excluded configuration's. Tasks are then fixed in order to the
    smallest state whose best completion is within ``tol`` of the best: the
    same tie rule as the generic path.
    """
    k = gains.shape[0]
    part = np.asarray(part, dtype=bool)
    neg = -np.inf
    x = None if exclude is None else [int(v) for v in exclude]
    B = np.full((k + 1, k + 1, k + 1), neg)
    B[k, 0, 0] = 0.0
    E = np.full((k + 1, k + 1, k + 1), neg)  # suffixes that differ from x's (the empty one does not)
    for t in range(k - 1, -1, -1):
        if not part[t]:
            B[t], E[t] = B[t + 1], E[t + 1]
            continue
        B[t] = _shift_add(B[t + 1], gains[t])
        if x is not None:
            other = np.where(np.arange(3) == x[t], neg, gains[t])  # differ here, anything after
            same = np.where(np.arange(3) == x[t], gains[t], neg)  # agree here, differ later
            E[t] = np.maximum(_shift_add(B[t + 1], other), _shift_add(E[t + 1], same))
    n_part = int(part.sum())
    # The penalty of every total count pair (c1, c2), once: a prefix with counts (a1, a2) reads the
    # window pen[a1:a1 + k + 1, a2:a2 + k + 1] (the same values, elementwise, as computing it per call).
    c1 = np.arange(2 * k + 2)[:, None]
    c2 = np.arange(2 * k + 2)[None, :]
    c0 = n_part - c1 - c2
    pen = prior.log_prior_of_counts(np.maximum(c0, 0), c1, c2, float(log_factor))
    pen = np.where(c0 >= 0, pen, neg)

    best = float((0.0 + (B[0] if x is None else E[0]) + pen[:k + 1, :k + 1]).max())
    if not np.isfinite(best):
        return (), neg
    G, a1, a2, equal, states = 0.0, 0, 0, x is not None, []
    finite = np.isfinite(gains)
    windows = np.empty((3, k + 1, k + 1))
    for t in range(k):
        # The best completion with task t in each state, the three at once.
        p = int(part[t])
        windows[0] = pen[a1:a1 + k + 1, a2:a2 + k + 1]
        windows[1] = pen[a1 + p:a1 + p + k + 1, a2:a2 + k + 1]
        windows[2] = pen[a1:a1 + k + 1, a2 + p:a2 + p + k + 1]
        tables = np.broadcast_to(B[t + 1], windows.shape)
        if equal:
            tables = tables.copy()
            tables[x[t]] = E[t + 1]
        with np.errstate(invalid="ignore"):
            vals = ((G + gains[t])[:, None, None] + tables + windows).reshape(3, -1).max(axis=1)
        ok = [s for s in range(3) if finite[t, s] and vals[s] >= best - tol]
        chosen = ok[0] if ok else int(np.argmax(gains[t]))
        G += gains[t, chosen]
        a1 += int(chosen == 1 and part[t])
        a2 += int(chosen == 2 and part[t])
        equal = equal and chosen == x[t]
        states.append(chosen)
    return tuple(states), best


def best_configuration(prior, gains, part, log_factor, solver="auto", tol=TIE_TOLERANCE, exclude=None):
    """The tie-broken best configuration of one pair problem, and its value.

    Returns the lexicographically smallest configuration whose objective is
    within ``tol`` of the best (see the module docstring). With ``exclude``
    (a configuration), the best is taken over the other configurations.
    Small problems (at most :data:`ENUMERATION_LIMIT` legal configurations)
    are enumerated; larger ones are fixed task by task with the solver's
    value oracle. Either way the result does not depend on the solver.

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
    k = gains.shape[0]
    if k >= 2 and isinstance(prior, PairedPrior) and resolve_solver(prior, solver) == "exact":
        return _paired_best_configuration(prior, gains, part, log_factor, tol, exclude)
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

