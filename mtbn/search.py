"""Score-based structure search: greedy hill climbing with tabu and restarts.

This module is the backend: it assumes validated inputs (a scorer per task,
acyclic start graphs, consistent constraint matrices) and checks none of it;
:mod:`mtbn.learn` validates and calls it.

The delta cache
---------------
For one task the search keeps ``T[u, v] = s(v, Pa(v) xor {u}) - s(v, Pa(v))``,
the change in ``v``'s local score if ``u`` were toggled in its parent set.
Every move is read off ``T``: adding ``u -> v`` gains ``T[u, v]``, removing
it ``T[u, v]``, reversing it ``T[u, v] + T[v, u]``. A move changes the
parent sets of one child (two for a reversal), so only those columns of
``T`` are recomputed (bnlearn's ``cache`` update in ``hill-climbing.R``),
each entry a look-up in the scorer's cache.

Ties
----
Score-equivalent moves (``i -> j`` vs ``j -> i``) tie up to rounding. Moves
whose gains are within ``tol`` of the best gain are treated as tied, and the
tie is broken by a fixed order: additions before removals before reversals,
then by parent index, then by child index. So results do not depend on
floating-point summation order, on hash seeds or on the machine.
"""

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from mtbn.data import MAX_LEARNED_CPT_SIZE
from mtbn.graph import DAG, SearchGraph

__all__ = ["DeltaTable", "SearchResult", "hill_climb", "TIE_TOLERANCE"]

#: Gains closer than this are tied (see the module docstring).
TIE_TOLERANCE = 1e-7

_ADD, _REMOVE, _REVERSE = 0, 1, 2
_KIND_NAMES = ("add", "remove", "reverse")


@dataclass(frozen=True)
class SearchResult:
    """What a structure search returns (in the spirit of scipy's OptimizeResult).

    Each parameter is kept as the (read-only) attribute of the same name.

    Parameters
    ----------
    graph : DAG
        The best graph found (single task); see ``graphs`` for several.
    log_score : float
        Its total score.
    n_iter : int, default 0
        Moves applied (over all restarts).
    n_evaluations : int, default 0
        Local-score requests made by the search (cache hits included).
    cache_hits, cache_misses : int, default 0
        The scorer's cache counters at the end of the search.
    n_restarts : int, default 0
        Restarts performed.
    converged : bool, default True
        False if ``max_iter`` stopped the search.
    message : str, default ""
        Why the search stopped: ``"no improving move"`` or ``"max_iter reached"``.
    trace : list of float, optional
        The best score after the initial climb and after each restart (default: empty).

    Examples
    --------
    :func:`mtbn.learn.learn_structure` returns one:

    >>> from mtbn.learn import learn_structure
    >>> from mtbn.networks import load_network, sample
    >>> d = sample(load_network("asia"), 500, random_state=0)
    >>> res = learn_structure(d, n_restarts=2, random_state=0)
    >>> res.graph, round(res.log_score, 3)
    (DAG(n_nodes=8, n_edges=7), -1181.458)
    >>> res.converged, res.message, res.n_restarts, len(res.trace)
    (True, 'no improving move', 2, 3)

    A search cut short by ``max_iter`` says so, and scores lower:

    >>> short = learn_structure(d, n_restarts=0, max_iter=2, random_state=0)
    >>> short.converged, short.message, short.graph.n_edges, short.log_score < res.log_score
    (False, 'max_iter reached', 2, True)
    """

    graph: DAG
    log_score: float
    n_iter: int = 0
    n_evaluations: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    n_restarts: int = 0
    converged: bool = True
    message: str = ""
    trace: list = field(default_factory=list)


class DeltaTable:
    """One task's graph and its toggle-delta matrix ``T`` (see module docstring).

    An addition (or the addition half of a reversal) that would give its
    child a CPT of more than :data:`mtbn.data.MAX_LEARNED_CPT_SIZE` entries is
    illegal, like one past ``max_parents``: its ``T`` entry stays ``-inf``
    and is never scored, so no search returns a network too large to fit.

    Parameters
    ----------
    scorer : BDeuScore or BICScore
        The score of the task's data (any :class:`~mtbn.score.LocalScore` with ``arities``); every local score
        is read through it, from its cache unless ``use_cache`` is False.
    parents : sequence of sets
        The start graph (must be acyclic): ``parents[v]`` holds the column indices of ``v``'s parents.
    max_parents : int or None
        The most parents a variable may have (additions beyond it are illegal); None for no limit.
    addable : ndarray of bool, shape (n, n)
        ``addable[u, v]``: the edge u -> v may be added (not forbidden, u != v,
        both variables present). None (the default) allows every edge with ``u != v``.
    use_cache : bool
        If False, every delta is recomputed from scratch at every step (the
        by-spec path used to test the cached one).
    """

    def __init__(self, scorer, parents, *, max_parents=None, addable=None, use_cache=True):
        self.scorer = scorer
        self.n = scorer.n_vars
        self.graph = SearchGraph(parents)
        self.max_parents = max_parents
        self.addable = addable if addable is not None else ~np.eye(self.n, dtype=bool)
        self._arity = [int(a) for a in scorer.arities]
        self._widest = max(self._arity, default=1)
        self.kept = None  # hill_climb(kept=...): adjacencies that may be reversed but not removed
        self.counted = None  # hill_climb(counted=...): the parents max_parents counts (None: all)
        self.use_cache = use_cache
        self.n_evaluations = 0
        self.version = 0  # incremented whenever the graph or T changes (every change ends in refresh)
        self.local = np.zeros(self.n)
        self.T = np.full((self.n, self.n), -np.inf)
        for v in range(self.n):
            self.refresh(v)

    def _score(self, v, parents):
        self.n_evaluations += 1
        if self.use_cache:
            return self.scorer.local_score(v, parents)
        return self.scorer.local_score_uncached(v, parents)

    def _extension_scores(self, v, pa, adds):
        """Scores of ``v`` given ``pa | {u}`` for each ``u`` in ``adds`` (one batched cache call)."""
        self.n_evaluations += len(adds)
        if self.use_cache:
            return self.scorer.extension_scores(v, pa, adds)
        score = self.scorer.local_score if self.use_cache else self.scorer.local_score_uncached
        return np.array([score(v, pa | {u}) for u in adds])

    def refresh(self, v):
        """Recompute node ``v``'s local score and column ``T[:, v]``.

        Parameters
        ----------
        v : int
            Index of the node whose parent set changed.
        """
        self.version += 1
        pa = self.graph.parents[v]
        base = self._score(v, pa)
        self.local[v] = base
        col = self.T[:, v]
        col[:] = -np.inf
        for u in pa:
            col[u] = self._score(v, pa - {u}) - base
        full = self.max_parents is not None and self._n_parents(pa) >= self.max_parents
        if not full or self.counted is not None:
            adds = [u for u in np.flatnonzero(self.addable[:, v]).tolist() if u not in pa]
            if full:  # only parents max_parents does not count
                adds = [u for u in adds if not self.counted[u]]
            size = self._arity[v]
            for p in pa:
                size *= self._arity[p]
            if size * self._widest > MAX_LEARNED_CPT_SIZE:  # rare: only parents within the limit
                adds = [u for u in adds if size * self._arity[u] <= MAX_LEARNED_CPT_SIZE]
            if adds:
                col[adds] = self._extension_scores(v, pa, adds) - base

    def _n_parents(self, pa):
        """The parents of a parent set that ``max_parents`` counts."""
        return len(pa) if self.counted is None else sum(1 for p in pa if self.counted[p])

    @property
    def log_score(self):
        """The total score of the current graph: the sum of its local scores (float)."""
        return float(self.local.sum())

    def apply(self, kind, u, v):
        """Apply a move and refresh the changed columns.

        The move is assumed legal (it is not checked).

        Parameters
        ----------
        kind : {0, 1, 2}
            The move: 0 adds the edge ``u -> v``, 1 removes it, 2 reverses the existing edge ``u -> v`` into
            ``v -> u``.
        u : int
            Index of the parent end of the edge (before a reversal).
        v : int
            Index of the child end of the edge (before a reversal).
        """
        g = self.graph
        if kind == _ADD:
            g.add(u, v)
            self.refresh(v)
        elif kind == _REMOVE:
            g.remove(u, v)
            self.refresh(v)
        else:
            g.reverse(u, v)
            self.refresh(v)
            self.refresh(u)

    def set_parents(self, parents):
        """Move to another graph, refreshing only the columns that differ.

        Parameters
        ----------
        parents : sequence of iterables of int
            The new graph (must be acyclic): ``parents[v]`` holds the indices of ``v``'s parents, for every node.
        """
        changed = [v for v in range(self.n) if set(parents[v]) != self.graph.parents[v]]
        if changed:
            self.graph = SearchGraph(parents)
            for v in changed:
                self.refresh(v)

    def parents_copy(self):
        """A copy of the current graph's parent sets.

        Returns
        -------
        list of set of int
            ``[set(parents of v) for v in range(n)]``, independent of later moves.
        """
        return [set(p) for p in self.graph.parents]

    def reversal_legal(self):
        """``L[u, v]``: the edge u -> v exists and reversing it keeps a DAG.

        Reversing u -> v makes a cycle iff another parent of ``v`` has ``u``
        as an ancestor; checked for all edges at once with boolean arrays
        (O(n * n_edges), no BLAS).

        Returns
        -------
        ndarray of bool, shape (n, n)
            ``L[u, v]`` is True where the edge ``u -> v`` exists and reversing it creates no cycle.
        """
        g = self.graph
        us, vs = np.nonzero(g.adj)
        legal = np.zeros_like(g.adj)
        if len(us):
            # blocked[p, e]: p is a parent of v_e and u_e is an ancestor of p.
            blocked = g.adj[:, vs] & g.anc[:, us]
            legal[us, vs] = ~blocked.any(axis=0)
        return legal

    def refresh_all(self):
        """The by-spec path: recompute every column (used when use_cache=False)."""
        for v in range(self.n):
            self.refresh(v)


def _pick(matrices, tol):
    """Best move over per-kind gain matrices with the documented tie rule."""
    best = max(float(m.max()) for m in matrices)
    if not np.isfinite(best):
        return None
    for kind, m in enumerate(matrices):
        hits = np.flatnonzero(m >= best - tol)
        if len(hits):
            u, v = divmod(int(hits[0]), m.shape[1])
            return kind, u, v, float(m[u, v])
    return None


def _move_gains(table, required, tabu):
    """Gain matrices (add, remove, reverse) with illegal or tabu moves at -inf."""
    g = table.graph
    T = table.T
    adj = g.adj
    add_ok = ~adj & ~adj.T & ~g.anc
    rem_ok = adj & ~required
    if table.kept is not None:  # adjacencies that stay, either way round: reversed, never removed
        rem_ok &= ~table.kept
    rev_ok = table.reversal_legal() & ~required & table.addable.T
    if table.max_parents is not None:
        indeg = (adj if table.counted is None else adj[table.counted]).sum(axis=0)
        rev_ok &= (indeg < table.max_parents)[None, :].T
    if tabu is not None:
        add_ok &= ~tabu[_ADD]
        rem_ok &= ~tabu[_REMOVE]
        rev_ok &= ~tabu[_REVERSE]
    neg = -np.inf
    return (
        np.where(add_ok, T, neg),
        np.where(rem_ok, T, neg),
        np.where(rev_ok, T + T.T, neg),
    )


def _climb(table, required, *, tabu_length, max_tabu_iter, max_iter, tol):
    """Greedy ascent with an optional tabu phase; returns (parents, score, n_iter, hit_max)."""
    n = table.n
    best_score = table.log_score
    best_parents = table.parents_copy()
    tabu = np.zeros((3, n, n), dtype=bool) if tabu_length > 0 else None
    recent = deque()
    n_iter = 0
    stalls = 0
    while max_iter is None or n_iter < max_iter:
        if not table.use_cache:
            table.refresh_all()
        move = _pick(_move_gains(table, required, tabu), tol)
        if move is None:
            break
        kind, u, v, gain = move
        if gain <= tol and (tabu is None or stalls >= max_tabu_iter):
            break
        table.apply(kind, u, v)
        n_iter += 1
        if tabu is not None:
            inverse = (_REMOVE, u, v) if kind == _ADD else (_ADD, u, v) if kind == _REMOVE else (_REVERSE, v, u)
            tabu[inverse] = True
            recent.append(inverse)
            if len(recent) > tabu_length:
                tabu[recent.popleft()] = False
        score = table.log_score
        if score > best_score + tol:
            best_score = score
            best_parents = table.parents_copy()
            stalls = 0
        else:
            stalls += 1
    hit_max = max_iter is not None and n_iter >= max_iter
    return best_parents, best_score, n_iter, hit_max


def _perturb(table, required, rng, n_moves):
    """Apply ``n_moves`` random legal moves (additions, removals, reversals)."""
    done = 0
    attempts = 0
    n = table.n
    if n < 2:  # one variable: no edge to change
        return 0
    while done < n_moves and attempts < 50 * n_moves + 100:
        attempts += 1
        u, v = (int(x) for x in rng.choice(n, size=2, replace=False))
        g = table.graph
        if g.adj[v, u]:
            u, v = v, u
        if g.adj[u, v]:
            if required[u, v]:
                continue
            # T[v, u] is finite when v may become a parent of u (addable, max_parents, MAX_LEARNED_CPT_SIZE).
            reversible = g.can_reverse(u, v) and np.isfinite(table.T[v, u])
            if table.kept is not None and table.kept[u, v]:
                if not reversible:
                    continue
                table.apply(_REVERSE, u, v)
            elif rng.random() < 0.5 and reversible:
                table.apply(_REVERSE, u, v)
            else:
                table.apply(_REMOVE, u, v)
        elif table.addable[u, v] and g.can_add(u, v) and np.isfinite(table.T[u, v]):
            table.apply(_ADD, u, v)
        else:
            continue
        done += 1
    return done


def hill_climb(
    scorer,
    start,
    *,
    max_parents=None,
    required=None,
    forbidden=None,
    tabu_length=0,
    max_tabu_iter=0,
    n_restarts=0,
    perturbation=None,
    rng=None,
    max_iter=None,
    use_delta_cache=True,
    tol=TIE_TOLERANCE,
    names=None,
    kept=None,
    counted=None,
):
    """Hill climbing over additions, removals and reversals of one task.

    Parameters
    ----------
    scorer : BDeuScore or BICScore
        The score of the task's data (any :class:`~mtbn.score.LocalScore` with ``arities``); its cache counters
        are reported in the result.
    start : sequence of sets
        Start parent sets (acyclic; containing every required edge and no
        forbidden one).
    max_parents : int or None
        The most parents a variable may have (among the ``counted`` variables); None for no limit.
    required, forbidden : ndarray of bool, shape (n, n), optional
        ``[u, v]`` = the edge u -> v must / must not be in the graph.
    tabu_length : int
        Length of the tabu list of recently undone moves (0: plain greedy).
    max_tabu_iter : int
        Non-improving moves allowed before the climb stops.
    n_restarts : int
        Restarts from the best graph after ``perturbation`` random moves.
    perturbation : int, optional
        Random moves per restart (default: max(1, n_vars // 4)).
    rng : numpy.random.Generator, optional
        The random moves of the restarts. None (the default) uses ``numpy.random.default_rng(0)``; unused when
        ``n_restarts`` is 0.
    max_iter : int, optional
        Moves allowed per climb.
    use_delta_cache : bool
        False recomputes all deltas at every step (by-spec path).
    tol : float, default :data:`TIE_TOLERANCE`
        Gains within ``tol`` of the best are tied (broken by the fixed order of the module docstring); a move
        that gains at most ``tol`` does not improve (the climb stops there unless the tabu phase goes on), and a
        restart's graph replaces the best only if it scores more than ``tol`` higher.
    names : sequence of str, optional
        Variable names of the returned graph (default ``"0", "1", ...``).
    kept : ndarray of bool, shape (n, n), optional
        Symmetric: ``kept[u, v]``, the adjacency of ``u`` and ``v`` (present
        in ``start``) stays; its edge may be reversed, never removed (the
        orientation stage of :mod:`mtbn.learn.interventional`).
    counted : ndarray of bool, shape (n,), optional
        The variables ``max_parents`` counts as parents (default all; the
        interventional learner's condition indicators are not counted).

    Returns
    -------
    SearchResult
        The best graph found over the climb and its restarts, its score and the search's statistics.
    """
    n = scorer.n_vars
    required = np.zeros((n, n), dtype=bool) if required is None else required
    forbidden = np.zeros((n, n), dtype=bool) if forbidden is None else forbidden
    addable = ~forbidden & ~np.eye(n, dtype=bool)
    table = DeltaTable(scorer, start, max_parents=max_parents, addable=addable, use_cache=use_delta_cache)
    table.kept = kept
    if counted is not None:
        table.counted = np.asarray(counted, dtype=bool)
        for v in range(n):  # the add columns under the counted rule
            table.refresh(v)
    kwargs = dict(tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, max_iter=max_iter, tol=tol)
    best_parents, best_score, n_iter, hit_max = _climb(table, required, **kwargs)
    trace = [best_score]
    if n_restarts:
        rng = np.random.default_rng(0) if rng is None else rng
        k = perturbation if perturbation is not None else max(1, n // 4)
        for _ in range(n_restarts):
            table.set_parents(best_parents)
            _perturb(table, required, rng, k)
            parents, score, it, hm = _climb(table, required, **kwargs)
            n_iter += it
            hit_max = hit_max or hm
            if score > best_score + tol:
                best_parents, best_score = parents, score
            trace.append(best_score)
    table.set_parents(best_parents)
    info = scorer.cache_info()
    return SearchResult(
        graph=DAG(best_parents, names),
        log_score=table.log_score,
        n_iter=n_iter,
        n_evaluations=table.n_evaluations,
        cache_hits=info["hits"],
        cache_misses=info["misses"],
        n_restarts=n_restarts,
        converged=not hit_max,
        message="max_iter reached" if hit_max else "no improving move",
        trace=trace,
    )
