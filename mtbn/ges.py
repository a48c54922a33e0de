"""Greedy equivalence search (GES; Chickering 2002, "Optimal structure identification with greedy search").

A search over Markov equivalence classes, each held as its CPDAG (compelled
edges directed, reversible ones undirected), for scores that give every DAG of
a class the same value (BIC, BDeu, BGe, the Gaussian BIC). Two phases:

* forward: the best valid ``Insert(X, Y, T)`` until none improves the score:
  X and Y not adjacent, ``T`` a set of Y's undirected neighbours not adjacent
  to X; valid when ``NA(Y, X) | T`` is a clique (``NA``: Y's undirected
  neighbours adjacent to X) and every semi-directed path from Y to X meets it;
  its gain is ``s(Y, NA | T | Pa(Y) | {X}) - s(Y, NA | T | Pa(Y))``;
* backward: the best valid ``Delete(X, Y, H)`` until none improves: X and Y
  adjacent, ``H`` a subset of ``NA(Y, X)``, valid when ``NA(Y, X) - H`` is a
  clique; gain ``s(Y, (NA - H) | Pa(Y) - {X}) - s(Y, (NA - H) | Pa(Y) | {X})``.

After each operator the class is completed again: a consistent extension
(Dor & Tarsi 1992) turned into its CPDAG (:func:`mtbn.graph.essential_graph`).
The local scores are the scorer's, cached as in the hill climbing
(:mod:`mtbn.search`); the gains are computed for every operator first and the
validity (clique, paths) checked from the best down, so that only the chosen
operator's neighbours are examined in full. Both phases are deterministic
(ties broken by the order of (Y, X, T)).
"""

from itertools import combinations

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG, essential_graph
from mtbn.messages import error, register
from mtbn.search import TIE_TOLERANCE, SearchResult

__all__ = ["greedy_equivalence_search", "consistent_extension", "cpdag_matrices"]

register("no-consistent-extension", InvalidParameterError,
         "the partially directed graph has no consistent extension (no DAG keeps its directed edges and its "
         "adjacencies without a new v-structure).",
         cause="consistent_extension was given a PDAG that is not the pattern of any DAG (e.g. a directed cycle).",
         fix="Give the CPDAG of a DAG (mtbn.graph.essential_graph), or a PDAG obtained from one by a valid GES "
             "operator.")


def greedy_equivalence_search(scorer, *, start=None, max_parents=None, names=None, tol=TIE_TOLERANCE,
                              max_subset=None):
    """The equivalence class GES reaches from the empty graph (or from ``start``'s class), as one of its DAGs.

    Parameters
    ----------
    scorer : LocalScore
        A score equivalent score of one task (its ``local_score`` is cached).
    start : sequence of set of int, optional
        A DAG (each variable's parents) whose equivalence class the forward phase starts from; None: the empty
        graph.
    max_parents : int, optional
        The most parents of a variable in the class's DAGs; None sets no limit.
    names : sequence of str, optional
        Variable names of the returned graph (default ``"0", "1", ...``).
    tol : float, default :data:`mtbn.search.TIE_TOLERANCE`
        An operator must gain more than ``tol`` to be applied.
    max_subset : int, optional
        The largest ``T`` (forward) or ``H`` (backward) set tried; None: all (the subsets of a variable's
        undirected neighbours are enumerated, so a variable with many of them costs exponential time unless this
        or ``max_parents`` bounds it).

    Returns
    -------
    SearchResult
        A DAG of the class found (a consistent extension of its CPDAG), its score, the operators applied
        (``n_iter``) and the score after each (``trace``).

    Examples
    --------
    >>> import numpy as np
    >>> from mtbn.data import ContinuousData
    >>> from mtbn.score import GaussianBICScore
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=500); z = rng.normal(size=500); y = x + z + 0.5 * rng.normal(size=500)
    >>> res = greedy_equivalence_search(GaussianBICScore(ContinuousData(np.column_stack([x, y, z]), "xyz")),
    ...                                 names="xyz")
    >>> sorted(res.graph.edges(names=True))  # the v-structure x -> y <- z, compelled
    [('x', 'y'), ('z', 'y')]
    """
    n = scorer.n_vars
    limit = n if max_parents is None else int(max_parents)
    cap = n if max_subset is None else int(max_subset)
    start = [set() for _ in range(n)] if start is None else [set(p) for p in start]
    d, u = cpdag_matrices(start)
    trace = [scorer.score(start)]
    n_iter = 0
    for phase in (_inserts, _deletes):
        memo = {}  # per variable: its operators' gains, kept while its neighbourhood is unchanged
        while True:
            chosen = phase(scorer, d, u, limit, cap, tol, memo)
            if chosen is None:
                break
            gain, apply = chosen
            apply(d, u)
            d, u = _completed(d, u)
            n_iter += 1
            trace.append(trace[-1] + gain)
    parents = consistent_extension(d, u)
    info = scorer.cache_info()
    return SearchResult(graph=DAG(parents, names), log_score=scorer.score(parents), n_iter=n_iter,
                        n_evaluations=info["hits"] + info["misses"], cache_hits=info["hits"],
                        cache_misses=info["misses"], n_restarts=0, converged=True,
                        message="no improving operator", trace=trace)


def _neighbourhood(d, u, adj, y):
    """What Y's operators depend on: its parents, neighbours, adjacencies and its neighbours' adjacencies."""
    nb = np.flatnonzero(u[y])
    return d[:, y].tobytes() + u[y].tobytes() + adj[y].tobytes() + adj[nb].tobytes()


def _inserts(scorer, d, u, limit, cap, tol, memo):
    """The best valid Insert operator as ``(gain, apply)``, or None."""
    n = len(d)
    adj = d | d.T | u
    candidates = []
    rows = None
    for y in range(n):
        key = _neighbourhood(d, u, adj, y)
        if y in memo and memo[y][0] == key:
            candidates.extend(memo[y][1])
            continue
        if rows is None:
            rows = adj.tolist()  # Python rows: the loops below read single entries
        pa = set(np.flatnonzero(d[:, y]).tolist())
        nb = np.flatnonzero(u[y]).tolist()
        operators = {}  # the parent set each operator adds x to -> [(x, t, na)]: scored together below
        for x in range(n):
            row = rows[x]
            if x == y or row[y]:
                continue
            na = [v for v in nb if row[v]]
            if not _clique(rows, na):
                continue
            free = [v for v in nb if not row[v] and all(rows[v][w] for w in na)]
            # T is disjoint from Pa(Y) and NA: sizes past max_parents are never enumerated.
            for size in range(min(len(free), cap, limit - 1 - len(pa) - len(na)) + 1):
                for t in combinations(free, size):
                    if _clique(rows, t):
                        operators.setdefault(frozenset(pa.union(na, t)), []).append((x, t, na))
        mine = []
        for base, ops in operators.items():  # x is never in base (not adjacent to y), and differs per operator
            with_x = scorer.extension_scores(y, base, [x for x, _, _ in ops])
            for (x, t, na), score in zip(ops, with_x.tolist()):
                gain = score - scorer.local_score(y, base)
                if gain > tol:
                    mine.append((-gain, y, x, t, na))
        memo[y] = (key, mine)
        candidates.extend(mine)
    candidates.sort(key=lambda c: (c[0], c[1], c[2], c[3]))
    successors = [np.flatnonzero(row).tolist() for row in d | u]  # of every variable, for the path checks
    for neg, y, x, t, na in candidates:
        if not _reaches(successors, y, x, set(na).union(t)):

            def apply(d, u, x=x, y=y, t=t):
                d[x, y] = True
                for v in t:
                    u[v, y] = u[y, v] = False
                    d[v, y] = True

            return -neg, apply
    return None


def _deletes(scorer, d, u, limit, cap, tol, memo):
    """The best valid Delete operator as ``(gain, apply)``, or None."""
    n = len(d)
    adj = d | d.T | u
    best = None
    rows = None
    for y in range(n):
        key = _neighbourhood(d, u, adj, y)
        if y not in memo or memo[y][0] != key:
            if rows is None:
                rows = adj.tolist()
            memo[y] = (key, _deletes_of(scorer, d, u, rows, y, cap, tol))
        mine = memo[y][1]
        if mine is not None and (best is None or mine[0] > best[0]):
            best = mine
    if best is None:
        return None
    gain, y, x, h = best

    def apply(d, u):
        d[x, y] = d[y, x] = u[x, y] = u[y, x] = False
        for v in h:
            u[y, v] = u[v, y] = False
            d[y, v] = True
            if u[x, v]:
                u[x, v] = u[v, x] = False
                d[x, v] = True

    return gain, apply


def _deletes_of(scorer, d, u, adj, y, cap, tol):
    """Y's best Delete operator ``(gain, y, x, h)`` or None (``adj``: the adjacency matrix as rows)."""
    n = len(d)
    best = None
    pa = set(np.flatnonzero(d[:, y]).tolist())
    nb = np.flatnonzero(u[y]).tolist()
    for x in range(n):
        if not (d[x, y] or u[x, y]):
            continue
        na = [v for v in nb if v != x and adj[x][v]]
        for size in range(min(len(na), cap) + 1):
            for h in combinations(na, size):
                rest = [v for v in na if v not in h]
                if not _clique(adj, rest):
                    continue
                base = pa.union(rest) - {x}
                gain = scorer.local_score(y, base) - scorer.local_score(y, base | {x})
                if gain > tol and (best is None or gain > best[0]):
                    best = (gain, y, x, h)
    return best


def _clique(adj, nodes):
    """Whether ``nodes`` are pairwise adjacent; ``adj``: the adjacency matrix as rows (``adj[a][b]``)."""
    return all(adj[a][b] for i, a in enumerate(nodes) for b in nodes[i + 1:])


def _reaches(successors, y, x, blocked):
    """Whether a semi-directed path (each edge ``a -> b`` or ``a - b``) leads from ``y`` to ``x`` avoiding
    ``blocked``; ``successors[a]``: the variables ``b`` with ``a -> b`` or ``a - b``, increasing."""
    seen, stack = {y}, [y]
    while stack:
        a = stack.pop()
        for b in successors[a]:
            if b == x:
                return True
            if b not in seen and b not in blocked:
                seen.add(b)
                stack.append(b)
    return False


def consistent_extension(d, u):
    """A DAG that keeps a partially directed graph's directed edges and adjacencies and adds no v-structure
    (Dor & Tarsi 1992).

    Parameters
    ----------
    d : ndarray of bool, shape (n, n)
        ``d[a, b]``: the directed edge ``a -> b``.
    u : ndarray of bool, shape (n, n)
        Symmetric: ``u[a, b]``, the undirected edge ``a - b``.

    Returns
    -------
    list of set of int
        Each variable's parents.
    """
    n = len(d)
    d, u = np.asarray(d, dtype=bool), np.asarray(u, dtype=bool)

    def sets(m):  # row a as the set of b with m[a, b]
        return [set(np.flatnonzero(row).tolist()) for row in m]

    children, undirected, adjacent, before = sets(d), sets(u), sets(d | d.T | u), sets(d.T | u)
    alive = set(range(n))
    parents = [set() for _ in range(n)]
    while alive:
        for x in sorted(alive):
            if children[x] & alive:
                continue  # not a sink
            around = adjacent[x] & alive
            if all(around - {y} <= adjacent[y] & alive for y in undirected[x] & alive):
                parents[x] = before[x] & alive
                alive.discard(x)
                break
        else:
            raise error("no-consistent-extension")
    return parents


def _completed(d, u):
    """The CPDAG of the class a PDAG stands for (its consistent extension's essential graph)."""
    return cpdag_matrices(consistent_extension(d, u))


def cpdag_matrices(parents):
    """The CPDAG of a DAG as two boolean matrices (:func:`mtbn.graph.essential_graph`).

    Parameters
    ----------
    parents : sequence of set of int
        Each variable's parents (acyclic).

    Returns
    -------
    d : ndarray of bool, shape (n, n)
        ``d[a, b]``: the compelled edge ``a -> b``.
    u : ndarray of bool, shape (n, n)
        Symmetric: the reversible edges.
    """
    n = len(parents)
    directed, undirected = essential_graph(DAG(parents))
    d = np.zeros((n, n), dtype=bool)
    u = np.zeros((n, n), dtype=bool)
    for a, b in directed:
        d[int(a), int(b)] = True
    for pair in undirected:
        a, b = (int(v) for v in pair)
        u[a, b] = u[b, a] = True
    return d, u
