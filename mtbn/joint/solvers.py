"""Best values of pair problems: the exact, branch-and-bound and exhaustive solvers.

A pair problem asks for ``max_s sum_t G[t, s_t] + phi(s)`` over the
configurations ``s`` of one node pair (see :mod:`mtbn.joint`). Every solver
here takes many pairs at once, ``gains`` (m, k, 3), ``part`` (m, k) and
``log_factor`` (m,), and returns the best value of each (m,); a ``stats``
dict, if given, counts the configurations visited and the branches pruned.
The solvers assume that a task which does not take part in a pair has the
gains ``(0, -inf, -inf)``; they do not check it.
"""

import itertools

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

__all__ = ["SOLVERS", "best_values", "solve_pairs", "solve_excluding", "solve_exhaustive",
           "solve_branch_and_bound", "resolve_solver"]

SOLVERS = ("auto", "exact", "bnb", "exhaustive")


def solve_exhaustive(prior, gains, part, log_factor, stats=None):
    """Best objective of each pair problem by enumerating all 3^k configurations.

    Parameters
    ----------
    prior : MultitaskPrior
        The multitask prior (:func:`mtbn.priors.make_prior`) whose pair term ``phi`` is added to the gains.
    gains : ndarray of shape (m, k, 3)
        ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (no edge, ``i -> j``, ``j -> i``) at pair
        ``p``; ``-inf`` where the state is illegal.
    part : ndarray of bool, shape (m, k)
        ``part[p, t]``: whether task ``t`` has both variables of pair ``p`` (takes part in the pair term).
    log_factor : ndarray of shape (m,)
        ``log(1 - delta)`` of each pair: the log prior factor per difference between tasks
        (:meth:`mtbn.priors.MultitaskPrior.log_factors`).
    stats : dict, optional
        Search statistics updated in place: ``stats["n_configurations"]`` grows by the configurations
        visited. The keys must already exist. None (the default) counts nothing.

    Returns
    -------
    ndarray of shape (m,)
        The best objective ``max_s sum_t gains[p, t, s_t] + phi(s)`` of each pair problem; ``-inf`` when no
        configuration is legal.
    """
    m, k, _ = gains.shape
    configs = np.array(list(itertools.product(range(3), repeat=k)), dtype=np.int64)  # (C, k)
    total = np.zeros((m, len(configs)))
    for t in range(k):
        total += gains[:, t, configs[:, t]]
    out = np.empty(m)
    for p in range(m):
        finite = np.isfinite(total[p])
        phi = np.full(len(configs), -np.inf)
        if finite.any():
            sub = configs[finite]
            phi[finite] = prior.log_prior(sub, np.broadcast_to(part[p], sub.shape), np.full(len(sub), log_factor[p]))
        with np.errstate(invalid="ignore"):
            vals = np.where(finite, total[p] + phi, -np.inf)
        out[p] = vals.max()
    if stats is not None:
        stats["n_configurations"] += m * len(configs)
    return out


def _bnb_one(prior, g, part, L, stats):
    """Branch and bound for one pair; ``g`` (k, 3) gains, ``L`` log factor.

    Depth-first in task order, each task's legal states best gain first; a
    branch is cut when its gains so far, the prior term of its assigned
    tasks (``prior.bound``: an upper bound of every completion's) and each
    unassigned task's best gain cannot beat the best complete configuration.
    """
    k = g.shape[0]
    best_rest = np.zeros(k + 1)  # the best gains of tasks t..k-1, each on its own
    for t in range(k - 1, -1, -1):
        best_rest[t] = best_rest[t + 1] + (float(np.max(g[t])) if part[t] else float(g[t, 0]))
    orders = [sorted((s for s in range(3) if np.isfinite(g[t, s])), key=lambda s: -g[t, s]) if part[t] else [0]
              for t in range(k)]
    bound = prior.bound(part, L)
    extend, value = bound.extend, bound.value
    best = -np.inf
    n_conf = 0
    n_pruned = 0
    # Iterative DFS: stack of (t, assigned states, partial gain, partial prior)
    stack = [(0, (), 0.0, bound.root)]
    while stack:
        t, states, partial, prefix_prior = stack.pop()
        prior_val = value(prefix_prior)
        if partial + prior_val + best_rest[t] <= best:
            n_pruned += 1
            continue
        if t == k:
            n_conf += 1
            best = partial + prior_val
            continue
        # A task that takes no part keeps "no edge" and adds nothing to the prior.
        children = [(t + 1, states + (s,), partial + g[t, s],
                     extend(prefix_prior, states, s) if part[t] else prefix_prior) for s in orders[t]]
        stack.extend(reversed(children))
    if stats is not None:
        stats["n_configurations"] += n_conf
        stats["n_pruned"] += n_pruned
    return best


def solve_branch_and_bound(prior, gains, part, log_factor, stats=None):
    """Best objective of each pair problem by branch and bound (eqs. 2.9-2.10).

    Parameters
    ----------
    prior : MultitaskPrior
        The multitask prior (:func:`mtbn.priors.make_prior`) whose pair term ``phi`` is added to the gains.
    gains : ndarray of shape (m, k, 3)
        ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (no edge, ``i -> j``, ``j -> i``) at pair
        ``p``; ``-inf`` where the state is illegal.
    part : ndarray of bool, shape (m, k)
        ``part[p, t]``: whether task ``t`` has both variables of pair ``p`` (takes part in the pair term).
    log_factor : ndarray of shape (m,)
        ``log(1 - delta)`` of each pair: the log prior factor per difference between tasks
        (:meth:`mtbn.priors.MultitaskPrior.log_factors`).
    stats : dict, optional
        Search statistics updated in place: ``stats["n_configurations"]`` grows by the configurations
        visited and ``stats["n_pruned"]`` by the branches cut. The keys must already exist. None (the default)
        counts nothing.

    Returns
    -------
    ndarray of shape (m,)
        The best objective ``max_s sum_t gains[p, t, s_t] + phi(s)`` of each pair problem; ``-inf`` when no
        configuration is legal.
    """
    return np.array([_bnb_one(prior, gains[p], part[p], float(log_factor[p]), stats) for p in range(gains.shape[0])])


def _solve_exact(prior, gains, part, log_factor, stats=None):
    if stats is not None:
        stats["n_configurations"] += prior.n_configurations(gains.shape[0])
    return prior.solve(gains, part, log_factor)


_SOLVER_FUNCS = {"exact": _solve_exact, "bnb": solve_branch_and_bound, "exhaustive": solve_exhaustive}


register("joint-exact-solver", InvalidParameterError,
         "solver='exact' needs the Edit prior or the Paired prior with equal pair weights; use 'bnb'.",
         cause="solver='exact' was chosen with a Paired prior whose pair weights differ, a case the exact solver "
               "does not cover.",
         fix="Use solver='bnb' (or 'auto', which picks it), or drop the pair weights.")


def resolve_solver(prior, solver):
    """The concrete solver for ``solver`` ("auto" -> exact where it applies).

    Parameters
    ----------
    prior : MultitaskPrior
        The multitask prior; its ``exact`` attribute says whether it has an exact solver.
    solver : {"auto", "exact", "bnb", "exhaustive"}
        The requested solver (see :data:`SOLVERS`). ``"auto"`` becomes ``"exact"`` when ``prior.exact`` is
        true, else ``"bnb"``; ``"exact"`` with a prior that has no exact solver raises
        :class:`mtbn.exceptions.InvalidParameterError`. Other names are returned unchanged.

    Returns
    -------
    str
        The solver to run: ``"exact"``, ``"bnb"`` or ``"exhaustive"``.
    """
    if solver == "auto":
        return "exact" if prior.exact else "bnb"
    if solver == "exact" and not prior.exact:
        raise error("joint-exact-solver")
    return solver


def best_values(prior, gains, part, log_factor, solver="auto", stats=None):
    """Best objective value of each pair problem with the named solver (values, not configurations).

    ``gains[p, t, s]`` is task ``t``'s gain for state ``s`` at pair ``p``
    (``-inf`` when illegal); ``part[p, t]`` says whether task ``t`` has both
    variables of the pair. A task that does not take part must be given the
    gains ``(0, -inf, -inf)`` (it keeps "no edge"), as the search does; the
    solvers agree only on inputs that respect this.

    Parameters
    ----------
    prior : MultitaskPrior
        The multitask prior (:func:`mtbn.priors.make_prior`) whose pair term ``phi`` is added to the gains.
    gains : ndarray of shape (m, k, 3)
        ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (no edge, ``i -> j``, ``j -> i``) at pair
        ``p``; ``-inf`` where the state is illegal.
    part : ndarray of bool, shape (m, k)
        ``part[p, t]``: whether task ``t`` has both variables of pair ``p``.
    log_factor : ndarray of shape (m,)
        ``log(1 - delta)`` of each pair: the log prior factor per difference between tasks
        (:meth:`mtbn.priors.MultitaskPrior.log_factors`).
    solver : {"auto", "exact", "bnb", "exhaustive"}, default "auto"
        The solver, resolved by :func:`resolve_solver` (``"auto"``: the prior's exact solver where it has one,
        else branch and bound).
    stats : dict, optional
        Search statistics updated in place (``"n_configurations"``, and ``"n_pruned"`` for branch and bound);
        the keys must already exist. None (the default) counts nothing.

    Returns
    -------
    ndarray of shape (m,)
        The best objective ``max_s sum_t gains[p, t, s_t] + phi(s)`` of each pair problem.

    Examples
    --------
    Two tasks at one pair: the first gains 2 by adding ``i -> j``, the
    second loses 1 by it and gains 0.5 by ``j -> i``. At delta = 0.9 an edit
    costs ``log 0.1 = -2.3``, so the best is both tasks adding ``i -> j``:

    >>> from mtbn.priors import make_prior
    >>> prior = make_prior("edit", 0.9, 2)
    >>> gains = np.array([[[0.0, 2.0, -np.inf], [0.0, -1.0, 0.5]]])
    >>> part = np.ones((1, 2), dtype=bool)
    >>> [float(best_values(prior, gains, part, prior.log_factors(2), solver)[0])
    ...  for solver in ("exact", "bnb", "exhaustive")]
    [1.0, 1.0, 1.0]
    """
    return _SOLVER_FUNCS[resolve_solver(prior, solver)](prior, gains, part, log_factor, stats)


#: The former name of :func:`best_values` (it returns values, not solutions).
solve_pairs = best_values


def solve_excluding(prior, gains, part, log_factor, exclude, solver="auto", stats=None):
    """Best objective of each pair problem over the configurations other than ``exclude``.

    ``exclude[p]`` is one configuration of pair ``p`` (length ``k``). The
    configurations that differ from it split into ``k`` boxes: agree on tasks
    ``< t``, differ at task ``t``, free after ``t``; each box is one
    restricted pair problem for the solver, so this costs ``k`` solver calls
    and is exact for every solver. The tabu phase of the joint search uses it
    to find the best move that changes something.

    Parameters
    ----------
    prior : MultitaskPrior
        The multitask prior (:func:`mtbn.priors.make_prior`); an exact prior may answer directly through
        :meth:`mtbn.priors.MultitaskPrior.solve_excluding`.
    gains : array_like of shape (m, k, 3)
        ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (no edge, ``i -> j``, ``j -> i``) at pair
        ``p``; ``-inf`` where the state is illegal.
    part : ndarray of bool, shape (m, k)
        ``part[p, t]``: whether task ``t`` has both variables of pair ``p``.
    log_factor : array_like of shape (m,)
        ``log(1 - delta)`` of each pair: the log prior factor per difference between tasks.
    exclude : array_like of int, shape (m, k)
        The configuration to leave out at each pair, one state (0, 1 or 2) per task; usually the current one.
    solver : {"auto", "exact", "bnb", "exhaustive"}, default "auto"
        The solver of each restricted problem, resolved by :func:`resolve_solver`.
    stats : dict, optional
        Search statistics updated in place (``"n_configurations"``, and ``"n_pruned"`` for branch and bound);
        the keys must already exist. None (the default) counts nothing.

    Returns
    -------
    ndarray of shape (m,)
        The best objective of each pair problem over the configurations other than ``exclude[p]``; ``-inf``
        where there is none (for instance when no task takes part in the pair).
    """
    gains = np.asarray(gains, dtype=float)
    exclude = np.asarray(exclude, dtype=np.int64)
    if resolve_solver(prior, solver) == "exact":
        found = prior.solve_excluding(gains, part, np.asarray(log_factor, dtype=float), exclude)
        if found is not None:
            if stats is not None:
                stats["n_configurations"] += 2 * prior.n_configurations(gains.shape[0])
            return found
    m, k, _ = gains.shape
    rows = np.arange(m)
    best = np.full(m, -np.inf)
    g = gains.copy()
    for t in range(k):
        x = exclude[:, t]
        trial = g.copy()
        trial[rows, t, x] = -np.inf
        val = best_values(prior, trial, part, log_factor, solver, stats)
        # A task that takes no part in a pair cannot differ there.
        best = np.maximum(best, np.where(part[:, t], val, -np.inf))
        keep = g[rows, t, x]
        g[:, t, :] = -np.inf
        g[rows, t, x] = keep
    return best

