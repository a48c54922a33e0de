"""Joint greedy search over the structures of several tasks (paper Section 2.3.2-2.3.3).

A *joint move* picks an unordered node pair ``(i, j)`` and, in every task,
adds, removes, reverses or keeps the edge between them, each task's graph
staying a DAG. Because the likelihood and both priors decompose, the gain of
a joint move is ``sum_t G[t, s_t] + phi(s) - phi(current)``, where
``G[t, s]`` is read off task ``t``'s delta table (:class:`mtbn.search.DeltaTable`:
per-task local-score deltas computed once and reused by every configuration
that shares them) and ``phi`` is the prior's pair term.

Best-neighbour solvers (all return the same best value; see below for ties):

* ``"exact"``: the prior's own exact solver, vectorised over all pairs
  (Edit: O(k) per pair; Paired with equal weights: O(k^3) DP);
* ``"bnb"``: depth-first branch and bound over partial configurations in task
  order with the bounds of eqs. 2.9 / 2.10 (partial prior + partial gains +
  the best gain of each unassigned task); general (pair-weight matrices);
* ``"exhaustive"``: all ``3^k`` configurations (tests and benchmarks);
* ``"auto"``: ``"exact"`` where the prior has one, else ``"bnb"``.

Ties: pairs whose best gains are within ``tol`` of the best are tied and the
first pair in ``(i, j)`` order wins; within that pair, the configuration is
the lexicographically smallest ``(s_1, ..., s_k)`` (state order: no edge,
``i -> j``, ``j -> i``) whose objective is within ``tol`` of the pair's best.
It is found task by task with the solver's own value oracle, so every solver
picks the same move.

The search assumes validated input (scorers, acyclic start graphs that
contain required edges, a prior built by :func:`mtbn.priors.make_prior`).
"""

import itertools
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from mtbn._validation import check_option
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG
from mtbn.messages import error, register
from mtbn.priors import PairedPrior
from mtbn.search import TIE_TOLERANCE, DeltaTable

__all__ = [
    "MultitaskSearchResult",
    "multitask_hill_climb",
    "solve_pairs",
    "solve_branch_and_bound",
    "solve_excluding",
    "solve_exhaustive",
    "best_configuration",
    "SOLVERS",
]

SOLVERS = ("auto", "exact", "bnb", "exhaustive")


# ---------------------------------------------------------------------------
# Pair-problem solvers
# ---------------------------------------------------------------------------


def solve_exhaustive(prior, gains, part, log_factor, stats=None):
    """Best objective of each pair problem by enumerating all 3^k configurations."""
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
    best = -np.inf
    n_conf = 0
    n_pruned = 0
    # Iterative DFS: stack of (t, assigned states, partial gain, partial prior)
    stack = [(0, (), 0.0, bound.root)]
    while stack:
        t, states, partial, prefix_prior = stack.pop()
        prior_val = bound.value(prefix_prior)
        if partial + prior_val + best_rest[t] <= best:
            n_pruned += 1
            continue
        if t == k:
            n_conf += 1
            best = partial + prior_val
            continue
        # A task that takes no part keeps "no edge" and adds nothing to the prior.
        children = [(t + 1, states + (s,), partial + g[t, s],
                     bound.extend(prefix_prior, states, s) if part[t] else prefix_prior) for s in orders[t]]
        stack.extend(reversed(children))
    if stats is not None:
        stats["n_configurations"] += n_conf
        stats["n_pruned"] += n_pruned
    return best


def solve_branch_and_bound(prior, gains, part, log_factor, stats=None):
    """Best objective of each pair problem by branch and bound (eqs. 2.9-2.10)."""
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
    """The concrete solver for ``solver`` ("auto" -> exact where it applies)."""
    if solver == "auto":
        return "exact" if getattr(prior, "exact", False) else "bnb"
    if solver == "exact" and not getattr(prior, "exact", False):
        raise error("joint-exact-solver")
    return solver


def solve_pairs(prior, gains, part, log_factor, solver="auto", stats=None):
    """Best objective of each pair problem with the named solver.

    ``gains[p, t, s]`` is task ``t``'s gain for state ``s`` at pair ``p``
    (``-inf`` when illegal); ``part[p, t]`` says whether task ``t`` has both
    variables of the pair. A task that does not take part must be given the
    gains ``(0, -inf, -inf)`` (it keeps "no edge"), as the search does; the
    solvers agree only on inputs that respect this.
    """
    return _SOLVER_FUNCS[resolve_solver(prior, solver)](prior, gains, part, log_factor, stats)


def solve_excluding(prior, gains, part, log_factor, exclude, solver="auto", stats=None):
    """Best objective of each pair problem over the configurations other than ``exclude``.

    ``exclude[p]`` is one configuration of pair ``p`` (length ``k``). The
    configurations that differ from it split into ``k`` boxes: agree on tasks
    ``< t``, differ at task ``t``, free after ``t``; each box is one
    restricted pair problem for the solver, so this costs ``k`` solver calls
    and is exact for every solver. The tabu phase of the joint search uses it
    to find the best move that changes something.
    """
    gains = np.asarray(gains, dtype=float)
    exclude = np.asarray(exclude, dtype=np.int64)
    if resolve_solver(prior, solver) == "exact" and hasattr(prior, "solve_excluding"):
        if stats is not None:
            stats["n_configurations"] += 2 * prior.n_configurations(gains.shape[0])
        return prior.solve_excluding(gains, part, np.asarray(log_factor, dtype=float), exclude)
    m, k, _ = gains.shape
    rows = np.arange(m)
    best = np.full(m, -np.inf)
    g = gains.copy()
    for t in range(k):
        x = exclude[:, t]
        trial = g.copy()
        trial[rows, t, x] = -np.inf
        val = solve_pairs(prior, trial, part, log_factor, solver, stats)
        # A task that takes no part in a pair cannot differ there.
        best = np.maximum(best, np.where(part[:, t], val, -np.inf))
        keep = g[rows, t, x]
        g[:, t, :] = -np.inf
        g[rows, t, x] = keep
    return best


#: Pair problems with at most this many legal configurations are broken by enumeration.
ENUMERATION_LIMIT = 4096


def _best_by_enumeration(prior, gains, part, log_factor, tol, exclude):
    """Lexicographically smallest legal configuration within ``tol`` of the best, or None if too many."""
    legal = [[s for s in range(3) if np.isfinite(gains[t, s])] for t in range(gains.shape[0])]
    if int(np.prod([len(x) for x in legal], dtype=float)) > ENUMERATION_LIMIT:
        return None
    configs = np.array(list(itertools.product(*legal)), dtype=np.int64).reshape(-1, gains.shape[0])
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
    n1 = np.arange(k + 1)[:, None]
    n2 = np.arange(k + 1)[None, :]

    def value(G, a1, a2, table):
        t1, t2 = a1 + n1, a2 + n2
        n0 = n_part - t1 - t2
        pen = prior.log_prior_of_counts(np.maximum(n0, 0), t1, t2, float(log_factor))
        with np.errstate(invalid="ignore"):
            total = np.where(n0 >= 0, G + table + pen, neg)
        return float(total.max())

    best = value(0.0, 0, 0, B[0] if x is None else E[0])
    if not np.isfinite(best):
        return (), neg
    G, a1, a2, equal, states = 0.0, 0, 0, x is not None, []
    for t in range(k):
        vals = []
        for s in range(3):
            if not np.isfinite(gains[t, s]):
                vals.append(neg)
                continue
            table = E[t + 1] if equal and s == x[t] else B[t + 1]
            vals.append(value(G + gains[t, s], a1 + (s == 1) * part[t], a2 + (s == 2) * part[t], table))
        ok = [s for s in range(3) if np.isfinite(gains[t, s]) and vals[s] >= best - tol]
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
            return solve_pairs(prior, gs, P, L, solver)
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


# ---------------------------------------------------------------------------
# The joint search
# ---------------------------------------------------------------------------


@dataclass
class MultitaskSearchResult:
    """What the joint search returns.

    Attributes
    ----------
    graphs : list of DAG
        One graph per task (over that task's variables).
    log_score : float
        ``sum_t [c log P(G_t) + log P(D_t | G_t)] + sum_pairs phi`` (eq. 2.5).
    log_likelihoods : list of float
        ``log P(D_t | G_t)`` per task (BDeu).
    log_prior : float
        The multitask prior part (pair terms plus the weighted structure priors).
    n_iter : int
        Joint moves applied.
    n_evaluations : int
        Local-score requests over all tasks.
    cache_hits, cache_misses : int
        Summed over the tasks' scorers during this search.
    solver : str
    steps : list of dict
        Per step: ``pair``, ``states``, ``gain``, ``n_pairs_solved``,
        ``n_configurations``, ``n_pruned``, ``cache_hits``.
    converged : bool
    message : str
    n_restarts : int
        Random restarts per start.
    trace : list of float
        The best joint score after the climbs from the start(s), then after
        each round of restarts (one restart per start).
    start_scores : list of float
        The joint score reached by the climb from each start (the given start
        first, then ``extra_starts`` in order).
    """

    graphs: list
    log_score: float
    log_likelihoods: list
    log_prior: float
    n_iter: int = 0
    n_evaluations: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    solver: str = ""
    steps: list = field(default_factory=list)
    converged: bool = True
    message: str = ""
    n_restarts: int = 0
    trace: list = field(default_factory=list)
    start_scores: list = field(default_factory=list)


def _embed(local, idx, n, fill):
    """Global n x n matrix from a task's local matrix via the index map."""
    if idx is None:
        return local
    out = np.full((n, n), fill, dtype=local.dtype)
    gl = np.flatnonzero(idx >= 0)
    loc = idx[gl]
    out[np.ix_(gl, gl)] = local[np.ix_(loc, loc)]
    return out


class _TaskView:
    """A task's DeltaTable seen through the global variable index."""

    def __init__(self, table, local_index, n_global):
        self.table = table
        n_local = table.n
        if len(local_index) == n_local and np.array_equal(local_index, np.arange(n_local)):
            self.idx = None
        else:
            self.idx = np.asarray(local_index)
        self.n = n_global
        self.present = np.ones(n_global, dtype=bool) if self.idx is None else self.idx >= 0

    def loc(self, v):
        return v if self.idx is None else int(self.idx[v])

    def matrices(self):
        t = self.table
        g = t.graph
        return (
            _embed(t.T, self.idx, self.n, -np.inf),
            _embed(g.adj, self.idx, self.n, False),
            _embed(g.anc, self.idx, self.n, False),
            _embed(t.reversal_legal(), self.idx, self.n, False),
        )


def _pair_gains(views, required, iu, ju, edge_prior, c):
    """Gains (m, k, 3), participation (m, k) and current states (m, k) of the pairs ``(iu, ju)``.

    For each task and pair, the gain of each state (0: no edge, 1: i -> j,
    2: j -> i) relative to the current one: -inf where the move would make a
    cycle, remove a required edge or add a forbidden one, and (0, -inf, -inf)
    where the task lacks one of the two variables. All tasks at once: the
    tasks' matrices are stacked to (k, n, n) and indexed once.
    """
    neg = -np.inf
    mats = [view.matrices() for view in views]
    T = np.stack([x[0] for x in mats])
    adj = np.stack([x[1] for x in mats])
    anc = np.stack([x[2] for x in mats])
    rev = np.stack([x[3] for x in mats])
    present = np.stack([view.present for view in views])
    a_ij, a_ji = adj[:, iu, ju], adj[:, ju, iu]
    s = np.where(a_ij, 1, np.where(a_ji, 2, 0))
    t_ij, t_ji = T[:, iu, ju], T[:, ju, iu]
    r_ij, r_ji = required[iu, ju], required[ju, iu]
    g0 = np.where(s == 0, 0.0, np.where(s == 1, np.where(r_ij, neg, t_ij), np.where(r_ji, neg, t_ji)))
    g1 = np.where(
        s == 1, 0.0,
        np.where(s == 0, np.where(anc[:, iu, ju], neg, t_ij), np.where(rev[:, ju, iu] & ~r_ji, t_ji + t_ij, neg)),
    )
    g2 = np.where(
        s == 2, 0.0,
        np.where(s == 0, np.where(anc[:, ju, iu], neg, t_ji), np.where(rev[:, iu, ju] & ~r_ij, t_ij + t_ji, neg)),
    )
    pt = present[:, iu] & present[:, ju]
    g = np.stack([g0, g1, g2], axis=2)  # (k, m, 3)
    if edge_prior is not None:
        ep = np.asarray(edge_prior)
        w = np.stack([np.zeros(s.shape), ep[:, iu, ju], ep[:, ju, iu]], axis=2)
        g = g + c * (w - np.take_along_axis(w, s[:, :, None], axis=2))
    g[~pt] = (0.0, neg, neg)
    gains = np.ascontiguousarray(g.transpose(1, 0, 2))
    return gains, np.ascontiguousarray(pt.T), np.ascontiguousarray(np.where(pt, s, 0).T)


def _apply_joint(views, i, j, old, new):
    for view, a, b in zip(views, old, new):
        if a == b:
            continue
        u, v = view.loc(i), view.loc(j)
        table = view.table
        if a == 0:
            table.apply(0, u, v) if b == 1 else table.apply(0, v, u)
        elif b == 0:
            table.apply(1, u, v) if a == 1 else table.apply(1, v, u)
        else:
            table.apply(2, u, v) if a == 1 else table.apply(2, v, u)


def local_constraints(scorer, idx, required, forbidden):
    """A task's required / forbidden matrices (local indices) from the global ones."""
    gl = np.flatnonzero(idx >= 0)
    loc = idx[gl]
    nl = scorer.n_vars
    req = np.zeros((nl, nl), dtype=bool)
    forb = np.zeros((nl, nl), dtype=bool)
    req[np.ix_(loc, loc)] = required[np.ix_(gl, gl)]
    forb[np.ix_(loc, loc)] = forbidden[np.ix_(gl, gl)]
    return req, forb


def _independent_search(scorers, all_starts, local_index, max_parents, required, forbidden, max_iter, tol, hits0,
                        miss0, tabu_length, max_tabu_iter, n_restarts, perturbation, rng):
    """Uncoupled tasks: single-task searches per task from each start, the best kept per task."""
    from mtbn.search import hill_climb

    results = []
    seeds = rng.integers(0, 2**63 - 1, size=(len(scorers), len(all_starts)))
    for t, scorer in enumerate(scorers):
        req, forb = local_constraints(scorer, local_index[t], required, forbidden)
        best = None
        for s, starts in enumerate(all_starts):
            r = hill_climb(scorer, [set(p) for p in starts[t]], max_parents=max_parents, required=req,
                           forbidden=forb, max_iter=max_iter, tol=tol, names=scorer.data.names,
                           tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, n_restarts=n_restarts,
                           perturbation=perturbation, rng=np.random.default_rng(int(seeds[t, s])))
            if best is None or r.log_score > best.log_score + tol:
                best = r
        results.append(best)
    lls = [r.log_score for r in results]
    return MultitaskSearchResult(
        graphs=[r.graph for r in results],
        log_score=float(sum(lls)),
        log_likelihoods=lls,
        log_prior=0.0,
        n_iter=sum(r.n_iter for r in results),
        n_evaluations=sum(r.n_evaluations for r in results),
        cache_hits=sum(s.cache_info()["hits"] for s in scorers) - sum(hits0),
        cache_misses=sum(s.cache_info()["misses"] for s in scorers) - sum(miss0),
        solver="independent",
        steps=[],
        converged=all(r.converged for r in results),
        message="tasks uncoupled (penalty 0): independent single-task searches",
        n_restarts=n_restarts,
        trace=[float(sum(lls))],
        start_scores=[],
    )


class _JointSearch:
    """The configuration of all tasks, its joint score and every pair's best value.

    ``evaluate`` recomputes every pair's gains from the tasks' delta tables
    and re-solves only the pairs whose gains changed since the last call
    (a joint move changes the gains of the pairs around the moved families
    and those whose legality changed; the rest keep their values).
    """

    def __init__(self, views, prior, required, edge_log_prior, solver, tol, resolve="changed"):
        self.resolve = resolve
        self.views = views
        self.prior = prior
        self.required = required
        self.edge_log_prior = edge_log_prior
        self.solver = solver
        self.tol = tol
        self.n = views[0].n
        self.iu, self.ju = np.triu_indices(self.n, 1)
        self.L = prior.log_factors(self.n)
        self.c = prior.exponent
        self.values = np.full(len(self.iu), -np.inf)
        self._vstale = np.ones(len(self.iu), dtype=bool)
        self.moving = np.full(len(self.iu), -np.inf)
        self._stale = np.ones(len(self.iu), dtype=bool)
        self._prev = None

    # -- configuration -------------------------------------------------
    def config(self):
        return [v.table.parents_copy() for v in self.views]

    def set_config(self, config):
        for view, parents in zip(self.views, config):
            view.table.set_parents(parents)

    def repair(self):
        """Replace pair states the prior forbids (log prior -inf) by "no edge"."""
        _, part, cur = _pair_gains(self.views, self.required, self.iu, self.ju, None, self.c)
        phi = self.prior.log_prior(cur, part, self.L)
        k = len(self.views)
        for p in np.flatnonzero(~np.isfinite(phi)):
            _apply_joint(self.views, int(self.iu[p]), int(self.ju[p]), cur[p], [0] * k)

    def apply(self, p, old, new):
        _apply_joint(self.views, int(self.iu[p]), int(self.ju[p]), old, new)

    # -- scores ----------------------------------------------------------
    def structure_log_prior(self):
        if self.edge_log_prior is None:
            return 0.0
        return sum(self.c * float(self.edge_log_prior[t][v.matrices()[1]].sum()) for t, v in enumerate(self.views))

    def moving_values(self, gains, part, cur, phi, excluded, stats=None):
        """Each pair's best objective over the configurations other than the current one.

        Exact (and kept, like ``values``, until the pair's gains change) for
        every pair that can be the best move not in ``excluded`` or tie with
        it within the tolerance; every other pair holds an upper bound below
        that move's value, so the best move and the tie rule are those of
        the exact values (``resolve="all"`` computes every pair exactly).
        The bound: a configuration other than the current one has a pair
        prior <= 0 and per-task gains at most the per-task maxima (or, if
        every task's best is its current state, one task's second best).
        """
        if self.resolve == "all":
            idx = np.flatnonzero(self._stale)
            self._solve_moving(idx, gains, part, cur, stats)
            return self.moving
        ub = _moving_bound(gains, cur) - phi
        allowed = ~excluded & np.isfinite(ub)
        exact = allowed & ~self._stale
        best = float((self.moving - phi)[exact].max()) if exact.any() else -np.inf
        while True:
            slack = self.tol + 1e-9 * (1.0 + abs(best)) if np.isfinite(best) else np.inf
            need = np.flatnonzero(allowed & self._stale & (ub >= best - slack))
            if not len(need):
                break
            if not np.isfinite(best):  # nothing exact yet: start with the most promising pairs
                need = need[np.argsort(-ub[need], kind="stable")[:MOVING_BATCH]]
            self._solve_moving(need, gains, part, cur, stats)
            found = (self.moving[need] - phi[need]).max()
            best = max(best, float(found))
        return np.where(self._stale, ub + phi, self.moving)

    def candidates(self, gains, part, phi, in_tabu, margin, stats=None):
        """Each pair's improvement ``values - phi`` where the move is allowed, else -inf.

        A pair in ``in_tabu`` is allowed only if its improvement exceeds
        ``margin`` (aspiration). Exact for every pair that can be the best
        allowed move, tie with it within the tolerance, or show that some
        move improves by more than the tolerance; the others hold an upper
        bound below all of those (``resolve="all"``: every pair exact). The
        bound: the pair prior is <= 0, so no configuration beats the sum of
        the per-task best gains.
        """
        tol = self.tol
        ub = gains.max(axis=2).sum(axis=1) - phi

        def allowed(imp, idx):
            return np.where(~in_tabu[idx] | (imp > margin), imp, -np.inf)

        exact = ~self._vstale
        best = -np.inf
        if exact.any():
            idx = np.flatnonzero(exact)
            best = float(allowed(self.values[idx] - phi[idx], idx).max())
        while True:
            floor = max(best, tol)
            slack = tol + 1e-9 * (1.0 + abs(floor))
            need = np.flatnonzero(self._vstale & (ub >= floor - slack) & (~in_tabu | (ub > margin - slack)))
            if not len(need):
                break
            if not best > tol:  # nothing to bound by yet: start with the most promising pairs
                need = need[np.argsort(-ub[need], kind="stable")[:MOVING_BATCH]]
            self._solve_values(need, gains, part, stats)
            best = max(best, float(allowed(self.values[need] - phi[need], need).max()))
        improvement = np.where(self._vstale, ub, self.values - phi)
        return allowed(improvement, np.arange(len(ub)))

    def _solve_values(self, idx, gains, part, stats):
        if len(idx):
            self.values[idx] = solve_pairs(self.prior, gains[idx], part[idx], self.L[idx], self.solver, stats)
            self._vstale[idx] = False
            self.n_solved += len(idx)

    def _solve_moving(self, idx, gains, part, cur, stats):
        if len(idx):
            self.moving[idx] = solve_excluding(self.prior, gains[idx], part[idx], self.L[idx], cur[idx],
                                               self.solver, stats)
            self._stale[idx] = False

    def evaluate(self, stats=None):
        """Gains, participation, current states, pair terms and the joint score."""
        gains, part, cur = _pair_gains(self.views, self.required, self.iu, self.ju, self.edge_log_prior, self.c)
        if self._prev is None or self.resolve == "all":
            changed = np.arange(len(self.iu))
            phi = self.prior.log_prior(cur, part, self.L)
        else:
            changed = np.flatnonzero(np.any((gains != self._prev).reshape(len(self.iu), -1), axis=1))
            # A pair's prior term changes only with its states or participation.
            moved = np.flatnonzero(np.any((cur != self._cur) | (part != self._part), axis=1))
            phi = self._phi.copy()
            if len(moved):
                phi[moved] = self.prior.log_prior(cur[moved], part[moved], self.L[moved])
        self._cur, self._part, self._phi = cur, part, phi
        self._vstale[changed] = True
        self.n_solved = 0
        if self.resolve == "all":
            self._solve_values(changed, gains, part, stats)
        self._prev = gains
        self._stale[changed] = True
        score = sum(v.table.log_score for v in self.views) + float(phi.sum()) + self.structure_log_prior()
        return gains, part, cur, phi, score


#: Pairs solved exactly first when the tabu phase has no exact value to bound the others by.
MOVING_BATCH = 64


def _moving_bound(gains, cur):
    """Upper bound of each pair's best gain over the configurations other than the current one.

    ``gains`` (m, k, 3) are relative to the current states ``cur`` (0 there;
    -inf where illegal), so the best of all configurations is the sum of the
    per-task maxima; if that sum is 0 the current configuration is among the
    best and any other one changes at least one task, so the bound is the
    best single-task change. The pair prior, <= 0, is left out.
    """
    m, k, _ = gains.shape
    total = gains.max(axis=2).sum(axis=1)
    others = gains.copy()
    others[np.arange(m)[:, None], np.arange(k)[None, :], cur] = -np.inf
    single = others.max(axis=2).max(axis=1)
    return np.where(total > 0, total, single)


def _joint_climb(search, *, tabu_length, max_tabu_iter, max_iter, steps):
    """Greedy ascent over joint moves, then a tabu phase; returns (config, score, n_iter, hit_max).

    Tabu attribute: a node pair changed in the last ``tabu_length`` moves may
    not change again unless the move reaches a new best score (aspiration).
    When no allowed move improves the score, the best allowed move that
    changes something is taken, up to ``max_tabu_iter`` moves without a new
    best. With ``tabu_length=0`` this is plain greedy search.
    """
    tol = search.tol
    prior = search.prior
    scorers = [v.table.scorer for v in search.views]
    tabu = deque()
    best_score = None
    best_config = None
    n_iter = 0
    stalls = 0
    while True:
        stats = {"n_configurations": 0, "n_pruned": 0}
        hits_before = sum(s.cache_info()["hits"] for s in scorers)
        gains, part, cur, phi, score = search.evaluate(stats)
        if best_score is None or score > best_score + tol:
            best_score, best_config, stalls = score, search.config(), 0
        elif n_iter:
            stalls += 1
        if max_iter is not None and n_iter >= max_iter:
            break
        in_tabu = np.zeros(len(phi), dtype=bool)
        in_tabu[list(tabu)] = True
        candidates = search.candidates(gains, part, phi, in_tabu, best_score + tol - score, stats)
        top = float(candidates.max()) if len(candidates) else -np.inf
        exclude = None
        if not top > tol:
            if tabu_length == 0 or stalls >= max_tabu_iter:
                break
            # Best move that changes something (the current state excluded).
            moving = search.moving_values(gains, part, cur, phi, in_tabu, stats) - phi
            candidates = np.where(in_tabu, -np.inf, moving)
            top = float(candidates.max())
            if not np.isfinite(top):
                break
        p = int(np.flatnonzero(candidates >= top - tol)[0])
        if top <= tol:
            exclude = cur[p]
        states, _ = best_configuration(prior, gains[p], part[p], float(search.L[p]), search.solver, tol, exclude)
        search.apply(p, cur[p], states)
        n_iter += 1
        if tabu_length:
            tabu.append(p)
            if len(tabu) > tabu_length:
                tabu.popleft()
        steps.append({
            "pair": (int(search.iu[p]), int(search.ju[p])),
            "states": states,
            "gain": top,
            "n_pairs_solved": search.n_solved,
            "n_configurations": stats["n_configurations"],
            "n_pruned": stats["n_pruned"],
            "cache_hits": sum(s.cache_info()["hits"] for s in scorers) - hits_before,
        })
    hit_max = max_iter is not None and n_iter >= max_iter
    return best_config, best_score, n_iter, hit_max


EDGE_BIAS = 1.0


def _perturb_joint(search, rng, n_moves):
    """Apply ``n_moves`` random legal moves at random node pairs.

    Each move picks a pair and, with probability 1/2, puts every task that
    has both variables in one random state (a joint perturbation), else
    changes one random task's state (a per-task perturbation). Moves that
    would make a graph cyclic, break a constraint or get prior probability 0
    (penalty 1) are skipped.
    """
    iu, ju = search.iu, search.ju
    m = len(iu)
    done = attempts = 0
    while done < n_moves and attempts < 50 * n_moves + 100 and m:
        attempts += 1
        if rng.random() < EDGE_BIAS:
            _, _, cur_all = _pair_gains(search.views, search.required, iu, ju, None, search.c)
            edged = np.flatnonzero(cur_all.any(axis=1))
            if not len(edged):
                continue
            p = int(rng.choice(edged))
        else:
            p = int(rng.integers(m))
        gains, part, cur = _pair_gains(search.views, search.required, iu[p:p + 1], ju[p:p + 1], None, search.c)
        g, pt, s = gains[0], part[0], cur[0]
        if not pt.any():
            continue
        if rng.random() < 0.5:
            new = np.where(pt, int(rng.integers(3)), 0)
        else:
            new = s.copy()
            new[int(rng.choice(np.flatnonzero(pt)))] = int(rng.integers(3))
        if np.array_equal(new, s) or not np.all(np.isfinite(g[np.arange(len(new)), new])):
            continue
        if not np.isfinite(search.prior.log_prior(new[None], pt[None], search.L[p:p + 1])[0]):
            continue
        search.apply(p, s, new)
        done += 1
    return done


register("joint-rng-count", ValueError, "rng: one generator per start ({n_starts}) expected, got {n_rngs}",
         cause="rng was given as a list of generators whose length differs from the number of starts (the start "
               "structures plus extra_starts).",
         fix="Pass one numpy Generator per start, in the order of the starts, or a single Generator (or None).")


def multitask_hill_climb(
    scorers,
    starts,
    prior,
    *,
    local_index,
    max_parents=None,
    required=None,
    forbidden=None,
    edge_log_prior=None,
    solver="auto",
    tabu_length=0,
    max_tabu_iter=0,
    n_restarts=0,
    perturbation=None,
    rng=None,
    extra_starts=(),
    max_iter=None,
    tol=TIE_TOLERANCE,
    task_names=None,
    resolve="changed",
):
    """Search over joint moves for ``k`` tasks: greedy, tabu, restarts.

    Parameters
    ----------
    scorers : list of BDeuScore
        One per task (their caches are reused and extended).
    starts : list of list of sets
        Start parent sets per task (local indices). Pairs whose start states
        the prior forbids (penalty 1 and differing edges) start with no edge.
    prior : EditPrior or PairedPrior
    local_index : ndarray (k, n_global)
        Column of each global variable in each task, -1 when absent.
    required, forbidden : ndarray (n_global, n_global) of bool, optional
    edge_log_prior : ndarray (k, n_global, n_global), optional
        Per-task structure log-prior ``log P(G_t) = sum_edges w_t[u, v]``,
        weighted by the prior's exponent ``c``.
    solver : {"auto", "exact", "bnb", "exhaustive"}
    tabu_length : int, default 0
        Node pairs changed in the last ``tabu_length`` moves stay fixed
        unless a move on them reaches a new best score (0: plain greedy).
    max_tabu_iter : int, default 0
        Moves without a new best score allowed before a climb stops.
    n_restarts : int, default 0
        Restarts per start: each start heads its own chain, and a restart
        perturbs the chain's best configuration by ``perturbation`` random
        joint or per-task moves (see :func:`_perturb_joint`) and climbs
        again. The best configuration over all chains is returned.
    perturbation : int, optional
        Random moves per restart (default ``max(1, n_vars // 4)``).
    rng : numpy.random.Generator or sequence of them, optional
        Draws the perturbations (default: seed 0); a sequence gives each
        start's chain its own stream (one per start), so that a chain's
        result does not depend on the other starts.
    extra_starts : sequence of start configurations
        More start configurations (same form as ``starts``); a climb runs
        from each and the best configuration found is kept (ties: the
        earlier start).
    max_iter : int, optional
        Joint moves allowed per climb.
    resolve : {"changed", "all"}, default "changed"
        After a move, re-solve only the node pairs whose gains changed (the
        pairs around the moved families, and those whose legality changed)
        or, by the specification, every pair. The moves are identical
        (tested); ``"all"`` exists to measure and check the incremental path.

    Notes
    -----
    When the prior couples no pair (penalty 0 everywhere, or all pair
    weights 0) and there is no per-task structure prior, the configuration
    score separates per task, and each task is searched on its own with the
    single-task search (:func:`mtbn.search.hill_climb`, same tabu and
    restart settings) from its start: penalty 0 then gives exactly
    independent single-task learning. The joint neighbourhood would
    otherwise force every task to move at the same node pair.

    Returns
    -------
    MultitaskSearchResult
    """
    check_option("resolve", resolve, ("changed", "all"))
    local_index = np.asarray(local_index)
    n = local_index.shape[1]
    required = np.zeros((n, n), dtype=bool) if required is None else required
    forbidden = np.zeros((n, n), dtype=bool) if forbidden is None else forbidden
    solver = resolve_solver(prior, solver)
    all_starts = [starts, *extra_starts]
    if rng is None or isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(0) if rng is None else rng
        rngs = [rng] * len(all_starts)
    else:
        rngs = list(rng)
        if len(rngs) != len(all_starts):
            raise error("joint-rng-count", n_starts=len(all_starts), n_rngs=len(rngs))
    hits0 = [s.cache_info()["hits"] for s in scorers]
    miss0 = [s.cache_info()["misses"] for s in scorers]

    if edge_log_prior is None and not prior.is_coupled(n):
        return _independent_search(scorers, all_starts, local_index, max_parents, required, forbidden, max_iter, tol,
                                   hits0, miss0, tabu_length, max_tabu_iter, n_restarts, perturbation, rngs[0])

    views = []
    for t, scorer in enumerate(scorers):
        idx = local_index[t]
        gl = np.flatnonzero(idx >= 0)
        loc = idx[gl]
        addable = np.ones((scorer.n_vars, scorer.n_vars), dtype=bool)
        addable[np.ix_(loc, loc)] = ~forbidden[np.ix_(gl, gl)]
        np.fill_diagonal(addable, False)
        table = DeltaTable(scorer, [set(p) for p in starts[t]], max_parents=max_parents, addable=addable)
        views.append(_TaskView(table, idx, n))
    search = _JointSearch(views, prior, required, edge_log_prior, solver, tol, resolve)
    climb = dict(tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, max_iter=max_iter)

    steps = []
    chains = []  # [config, score] per start: each start's best so far
    start_scores = []
    n_iter = 0
    hit_max = False
    for s, start in enumerate(all_starts):
        if s:
            search.set_config([[set(p) for p in g] for g in start])
        search.repair()
        config, score, it, hm = _joint_climb(search, steps=steps, **climb)
        n_iter += it
        hit_max = hit_max or hm
        start_scores.append(float(score))
        chains.append([config, score])

    def best():
        b = 0
        for c in range(1, len(chains)):
            if chains[c][1] > chains[b][1] + tol:
                b = c
        return chains[b]

    trace = [float(best()[1])]
    n_moves = perturbation if perturbation is not None else max(1, n // 4)
    for _ in range(n_restarts):
        for chain, chain_rng in zip(chains, rngs):
            search.set_config(chain[0])
            _perturb_joint(search, chain_rng, n_moves)
            config, score, it, hm = _joint_climb(search, steps=steps, **climb)
            n_iter += it
            hit_max = hit_max or hm
            if score > chain[1] + tol:
                chain[0], chain[1] = config, score
        trace.append(float(best()[1]))
    best_config, best_score = best()
    search.set_config(best_config)
    _, part, cur = _pair_gains(views, required, search.iu, search.ju, None, search.c)
    log_pair = float(prior.log_prior(cur, part, search.L).sum())
    log_struct = search.structure_log_prior()
    lls = [v.table.log_score for v in views]
    graphs = [
        DAG([set(p) for p in v.table.graph.parents], scorers[t].data.names)
        for t, v in enumerate(views)
    ]
    return MultitaskSearchResult(
        graphs=graphs,
        log_score=float(sum(lls) + log_pair + log_struct),
        log_likelihoods=lls,
        log_prior=log_pair + log_struct,
        n_iter=n_iter,
        n_evaluations=sum(v.table.n_evaluations for v in views),
        cache_hits=sum(s.cache_info()["hits"] for s in scorers) - sum(hits0),
        cache_misses=sum(s.cache_info()["misses"] for s in scorers) - sum(miss0),
        solver=solver,
        steps=steps,
        converged=not hit_max,
        message="max_iter reached" if hit_max else "no improving joint move",
        n_restarts=n_restarts,
        trace=trace,
        start_scores=start_scores,
    )
