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
from dataclasses import dataclass, field

import numpy as np

from mtbn.graph import DAG
from mtbn.search import TIE_TOLERANCE, DeltaTable

__all__ = [
    "MultitaskSearchResult",
    "multitask_hill_climb",
    "solve_pairs",
    "solve_branch_and_bound",
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
    """Branch and bound for one pair; ``g`` (k, 3) gains, ``L`` log factor."""
    k = g.shape[0]
    D = prior.D
    best_rest = np.zeros(k + 1)
    for t in range(k - 1, -1, -1):
        best_rest[t] = best_rest[t + 1] + (float(np.max(g[t])) if part[t] else float(g[t, 0]))
    orders = [sorted((s for s in range(3) if np.isfinite(g[t, s])), key=lambda s: -g[t, s]) if part[t] else [0] for t in range(k)]
    is_edit = prior.name == "edit"
    if is_edit:
        unit = L
    else:
        unit = L / (k - 1) if k > 1 else 0.0
        W = prior.weights
    best = -np.inf
    n_conf = 0
    n_pruned = 0

    def times(count):
        return 0.0 if count == 0 else unit * count

    # Iterative DFS: stack of (t, assigned states, partial gain, prior state)
    stack = [(0, (), 0.0, (0.0, 0.0, 0.0) if is_edit else 0.0)]
    while stack:
        t, states, partial, pstate = stack.pop()
        if is_edit:
            prior_val = times(min(pstate))
        else:
            prior_val = times(pstate)
        if partial + prior_val + best_rest[t] <= best:
            n_pruned += 1
            continue
        if t == k:
            n_conf += 1
            best = partial + prior_val
            continue
        children = []
        for s in orders[t]:
            if not part[t]:
                children.append((t + 1, states + (s,), partial + g[t, s], pstate))
                continue
            if is_edit:
                new_p = (pstate[0] + D[s, 0], pstate[1] + D[s, 1], pstate[2] + D[s, 2])
            else:
                new_p = pstate + sum(W[u, t] * D[states[u], s] for u in range(t) if part[u])
            children.append((t + 1, states + (s,), partial + g[t, s], new_p))
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


def resolve_solver(prior, solver):
    """The concrete solver for ``solver`` ("auto" -> exact where it applies)."""
    if solver == "auto":
        return "exact" if getattr(prior, "exact", False) else "bnb"
    if solver == "exact" and not getattr(prior, "exact", False):
        from mtbn.exceptions import InvalidParameterError

        raise InvalidParameterError(
            "solver='exact' needs the Edit prior or the Paired prior with equal pair weights; use 'bnb'."
        )
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


def best_configuration(prior, gains, part, log_factor, solver="auto", tol=TIE_TOLERANCE):
    """The tie-broken best configuration of one pair problem, and its value.

    Returns the lexicographically smallest configuration whose objective is
    within ``tol`` of the best (see the module docstring).
    """
    k = gains.shape[0]
    L = np.array([log_factor])

    def value(g):
        return float(solve_pairs(prior, g[None], part[None], L, solver)[0])

    best = value(gains)
    g = np.array(gains, dtype=float, copy=True)
    states = []
    for t in range(k):
        chosen = None
        for s in range(3):
            if not np.isfinite(gains[t, s]):
                continue
            trial = g.copy()
            keep = trial[t, s]
            trial[t] = -np.inf
            trial[t, s] = keep
            if value(trial) >= best - tol:
                chosen = s
                g = trial
                break
        if chosen is None:  # numerical corner: fall back to the best state
            chosen = int(np.argmax(gains[t]))
            keep = g[t, chosen]
            g[t] = -np.inf
            g[t, chosen] = keep
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
    """Gains (m, k, 3), participation (m, k) and current states (m, k) of all pairs."""
    m = len(iu)
    k = len(views)
    gains = np.empty((m, k, 3))
    part = np.empty((m, k), dtype=bool)
    cur = np.empty((m, k), dtype=np.int64)
    neg = -np.inf
    for t, view in enumerate(views):
        T, adj, anc, rev = view.matrices()
        a_ij, a_ji = adj[iu, ju], adj[ju, iu]
        s = np.where(a_ij, 1, np.where(a_ji, 2, 0))
        t_ij, t_ji = T[iu, ju], T[ju, iu]
        r_ij, r_ji = required[iu, ju], required[ju, iu]
        g0 = np.where(s == 0, 0.0, np.where(s == 1, np.where(r_ij, neg, t_ij), np.where(r_ji, neg, t_ji)))
        g1 = np.where(
            s == 1, 0.0,
            np.where(s == 0, np.where(anc[iu, ju], neg, t_ij), np.where(rev[ju, iu] & ~r_ji, t_ji + t_ij, neg)),
        )
        g2 = np.where(
            s == 2, 0.0,
            np.where(s == 0, np.where(anc[ju, iu], neg, t_ji), np.where(rev[iu, ju] & ~r_ij, t_ij + t_ji, neg)),
        )
        pt = view.present[iu] & view.present[ju]
        g = np.stack([g0, g1, g2], axis=1)
        if edge_prior is not None:
            w = np.stack([np.zeros(m), edge_prior[t][iu, ju], edge_prior[t][ju, iu]], axis=1)
            g = g + c * (w - w[np.arange(m), s][:, None])
        g[~pt] = (0.0, neg, neg)
        gains[:, t, :] = g
        part[:, t] = pt
        cur[:, t] = np.where(pt, s, 0)
    return gains, part, cur


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


def _independent_search(scorers, starts, local_index, max_parents, required, forbidden, max_iter, tol, hits0, miss0):
    """Uncoupled tasks: one single-task greedy search per task."""
    from mtbn.search import hill_climb

    results = []
    for t, scorer in enumerate(scorers):
        req, forb = local_constraints(scorer, local_index[t], required, forbidden)
        results.append(hill_climb(scorer, [set(p) for p in starts[t]], max_parents=max_parents, required=req,
                                  forbidden=forb, max_iter=max_iter, tol=tol, names=scorer.data.names))
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
    )


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
    max_iter=None,
    tol=TIE_TOLERANCE,
    task_names=None,
):
    """Greedy search over joint moves for ``k`` tasks.

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
    max_iter : int, optional

    Notes
    -----
    When the prior couples no pair (penalty 0 everywhere, or all pair
    weights 0) and there is no per-task structure prior, the configuration
    score separates per task, and each task is searched on its own with
    single-task greedy hill climbing (:func:`mtbn.search.hill_climb`, no tabu,
    no restarts) from its start: penalty 0 then gives exactly independent
    single-task learning. The joint neighbourhood would otherwise force every
    task to move at the same node pair.

    Returns
    -------
    MultitaskSearchResult
    """
    k = len(scorers)
    local_index = np.asarray(local_index)
    n = local_index.shape[1]
    required = np.zeros((n, n), dtype=bool) if required is None else required
    forbidden = np.zeros((n, n), dtype=bool) if forbidden is None else forbidden
    solver = resolve_solver(prior, solver)
    c = prior.exponent
    iu, ju = np.triu_indices(n, 1)
    L = prior.log_factors(n)
    hits0 = [s.cache_info()["hits"] for s in scorers]
    miss0 = [s.cache_info()["misses"] for s in scorers]

    if edge_log_prior is None and not prior.is_coupled(n):
        return _independent_search(scorers, starts, local_index, max_parents, required, forbidden, max_iter, tol,
                                   hits0, miss0)

    views = []
    for t, scorer in enumerate(scorers):
        idx = local_index[t]
        gl = np.flatnonzero(idx >= 0)
        loc = idx[gl]
        addable = np.ones((scorer.n_vars, scorer.n_vars), dtype=bool)
        addable[np.ix_(loc, loc)] = ~forbidden[np.ix_(gl, gl)]
        np.fill_diagonal(addable, False)
        req_local = np.zeros((scorer.n_vars, scorer.n_vars), dtype=bool)
        req_local[np.ix_(loc, loc)] = required[np.ix_(gl, gl)]
        parents = [set(p) for p in starts[t]]
        table = DeltaTable(scorer, parents, max_parents=max_parents, addable=addable)
        view = _TaskView(table, idx, n)
        view.required_local = req_local
        views.append(view)

    # Repair start states that the prior forbids (log prior -inf).
    _, part, cur = _pair_gains(views, required, iu, ju, edge_log_prior, c)
    phi = prior.log_prior(cur, part, L)
    for p in np.flatnonzero(~np.isfinite(phi)):
        _apply_joint(views, int(iu[p]), int(ju[p]), cur[p], [0] * k)

    steps = []
    prev_gains = None
    values = None
    n_iter = 0
    hit_max = False
    while True:
        if max_iter is not None and n_iter >= max_iter:
            hit_max = True
            break
        gains, part, cur = _pair_gains(views, required, iu, ju, edge_log_prior, c)
        phi_cur = prior.log_prior(cur, part, L)
        stats = {"n_configurations": 0, "n_pruned": 0}
        hits_before = sum(s.cache_info()["hits"] for s in scorers)
        if solver == "bnb" and prev_gains is not None:
            changed = np.flatnonzero(np.any((gains != prev_gains).reshape(len(iu), -1), axis=1))
            if len(changed):
                values[changed] = solve_branch_and_bound(prior, gains[changed], part[changed], L[changed], stats)
            n_solved = len(changed)
        else:
            values = solve_pairs(prior, gains, part, L, solver, stats)
            n_solved = len(iu)
        prev_gains = gains
        improvement = values - phi_cur
        best = float(np.max(improvement)) if len(improvement) else 0.0
        if not best > tol:
            break
        p = int(np.flatnonzero(improvement >= best - tol)[0])
        states, _ = best_configuration(prior, gains[p], part[p], float(L[p]), solver, tol)
        i, j = int(iu[p]), int(ju[p])
        _apply_joint(views, i, j, cur[p], states)
        n_iter += 1
        steps.append({
            "pair": (i, j),
            "states": states,
            "gain": best,
            "n_pairs_solved": n_solved,
            "n_configurations": stats["n_configurations"],
            "n_pruned": stats["n_pruned"],
            "cache_hits": sum(s.cache_info()["hits"] for s in scorers) - hits_before,
        })

    _, part, cur = _pair_gains(views, required, iu, ju, None, c)
    log_pair = float(prior.log_prior(cur, part, L).sum())
    log_struct = 0.0
    if edge_log_prior is not None:
        for t, view in enumerate(views):
            adj = view.matrices()[1]
            log_struct += c * float(edge_log_prior[t][adj].sum())
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
    )
