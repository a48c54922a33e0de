"""Per-task bookkeeping of the joint search: task views, pair gains and joint moves.

Each task keeps its own :class:`mtbn.search.DeltaTable` over its own
variables; a :class:`_TaskView` maps it to the global variable index. The
gains of a node pair's three states in every task are read off the tables
(``_pair_gains``) and a joint move is applied task by task
(``_apply_joint``). Nothing here checks acyclicity of the input: the start
graphs are assumed acyclic and to hold the required edges.
"""

import numpy as np

from mtbn.search import DeltaTable

__all__ = ["local_constraints"]


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

    def pair_entries(self, i, j):
        """Entries ``(i, j)`` and ``(j, i)`` of :meth:`matrices`: ``((T_ij, T_ji), (adj_ij, adj_ji), (anc_ij,
        anc_ji), (rev_ij, rev_ji))``, or None when the task lacks a variable (the fill values of ``_embed``).

        Read off the table one entry at a time without building the task's
        n x n matrices (the reversal entries by the rule of
        ``DeltaTable.reversal_legal``), so a single pair costs O(n) instead
        of O(n * n_edges).
        """
        a, b = self.loc(i), self.loc(j)
        if a < 0 or b < 0:
            return None
        t, g = self.table.T, self.table.graph
        adj, anc = g.adj, g.anc
        ab, ba = bool(adj[a, b]), bool(adj[b, a])
        rev_ab = ab and not (adj[:, b] & anc[:, a]).any()
        rev_ba = ba and not (adj[:, a] & anc[:, b]).any()
        return (t[a, b], t[b, a]), (ab, ba), (anc[a, b], anc[b, a]), (rev_ab, rev_ba)


def _one_pair_gains(views, required, present, i, j, c):
    """:func:`_pair_gains` of the one pair ``(i, j)`` (no edge prior), from each task's entries at the pair.

    ``present`` is the (k, n) participation of the variables. The same
    formula as every other path (:func:`_gains_from`), on the entries it
    would read (laid out as the flattened 2 x 2 matrices over ``(i, j)``,
    whose diagonal it does not read), so the values are the same bit for bit.
    """
    k = len(views)
    stacked = [np.full((k, 4), -np.inf), np.zeros((k, 4), dtype=bool), np.zeros((k, 4), dtype=bool),
               np.zeros((k, 4), dtype=bool)]
    for t, view in enumerate(views):
        found = view.pair_entries(i, j)
        if found is not None:
            for w, (ij, ji) in enumerate(found):
                stacked[w][t, 1], stacked[w][t, 2] = ij, ji
    sub = np.array([i, j])
    return _gains_from(stacked, 2, present[:, sub], required[np.ix_(sub, sub)], np.array([0]), np.array([1]),
                       None, c)


def _edged_pairs(views, iu, ju):
    """Indices of the pairs ``(iu, ju)`` that hold an edge, either way, in some task."""
    n = views[0].n
    any_adj = np.zeros((n, n), dtype=bool)
    for view in views:
        any_adj |= _embed(view.table.graph.adj, view.idx, n, False)
    any_adj |= any_adj.T
    return np.flatnonzero(any_adj.reshape(-1).take(iu * n + ju))


def _pair_gains(views, required, iu, ju, edge_log_prior, c):
    """Gains (m, k, 3), participation (m, k) and current states (m, k) of the pairs ``(iu, ju)``.

    For each task and pair, the gain of each state (0: no edge, 1: i -> j,
    2: j -> i) relative to the current one: -inf where the move would make a
    cycle, remove a required edge or add a forbidden one, and (0, -inf, -inf)
    where the task lacks one of the two variables. All tasks at once: the
    tasks' matrices are stacked to (k, n * n) and read once.
    """
    stacked, n = _stacked(views)
    present = np.stack([view.present for view in views])
    return _gains_from(stacked, n, present, required, iu, ju, edge_log_prior, c)


def _stacked(views):
    """Copies of the tasks' (T, adjacency, ancestors, reversal-legal) matrices, each stacked to (k, n * n)."""
    mats = [view.matrices() for view in views]
    k, n = len(mats), mats[0][0].shape[0]
    return [np.stack([x[w] for x in mats]).reshape(k, n * n) for w in range(4)], n


def _gains_from(stacked, n, present, required, iu, ju, edge_log_prior, c):
    """:func:`_pair_gains` of the pairs ``(iu, ju)`` from the stacked matrices of :func:`_stacked`."""
    neg = -np.inf
    T, adj, anc, rev = stacked
    # Entries (i, j) and (j, i) of every pair, read with take on the flattened
    # matrices (several times faster than indexing [:, iu, ju]).
    fij, fji = iu * n + ju, ju * n + iu
    a_ij, a_ji = adj.take(fij, axis=1), adj.take(fji, axis=1)
    s = np.where(a_ij, 1, np.where(a_ji, 2, 0))
    t_ij, t_ji = T.take(fij, axis=1), T.take(fji, axis=1)
    flat_required = required.reshape(-1)
    r_ij, r_ji = flat_required.take(fij), flat_required.take(fji)
    g0 = np.where(s == 0, 0.0, np.where(s == 1, np.where(r_ij, neg, t_ij), np.where(r_ji, neg, t_ji)))
    g1 = np.where(
        s == 1, 0.0,
        np.where(s == 0, np.where(anc.take(fij, axis=1), neg, t_ij),
                 np.where(rev.take(fji, axis=1) & ~r_ji, t_ji + t_ij, neg)),
    )
    g2 = np.where(
        s == 2, 0.0,
        np.where(s == 0, np.where(anc.take(fji, axis=1), neg, t_ji),
                 np.where(rev.take(fij, axis=1) & ~r_ij, t_ij + t_ji, neg)),
    )
    pt = present[:, iu] & present[:, ju]
    g = np.stack([g0, g1, g2], axis=2)  # (k, m, 3)
    if edge_log_prior is not None:
        ep = np.asarray(edge_log_prior)
        w = np.stack([np.zeros(s.shape), ep[:, iu, ju], ep[:, ju, iu]], axis=2)
        g = g + c * (w - np.take_along_axis(w, s[:, :, None], axis=2))
    if not pt.all():
        g[~pt] = (0.0, neg, neg)
    gains = np.ascontiguousarray(g.transpose(1, 0, 2))
    return gains, np.ascontiguousarray(pt.T), np.ascontiguousarray(np.where(pt, s, 0).T)


class _IncrementalGains:
    """:func:`_pair_gains` of all pairs, recomputed only for the pairs whose inputs changed since the last call.

    A pair's gains depend only on the entries ``(i, j)`` and ``(j, i)`` of the
    tasks' T, adjacency, ancestor and reversal-legal matrices (the required
    edges, edge prior and participation do not change during a search); a
    call re-reads the matrices of the tasks whose table changed since the
    last call (``DeltaTable.version``), compares them with the stored copies
    and reruns the same formula on the pairs where one of those entries
    differs, so every value equals the full computation's. Each call
    returns new arrays.
    """

    def __init__(self, views, required, iu, ju, edge_log_prior, c):
        self.views, self.required, self.iu, self.ju = views, required, iu, ju
        self.edge_log_prior, self.c = edge_log_prior, c
        self.present = np.stack([view.present for view in views])
        self._last = None
        self._versions = None

    def __call__(self):
        """``(gains, part, cur, recomputed)``; ``recomputed`` indexes the pairs computed afresh (None: all)."""
        args = (self.present, self.required)
        if self._last is None:
            stacked, n = _stacked(self.views)
            gains, part, cur = _gains_from(stacked, n, *args, self.iu, self.ju, self.edge_log_prior, self.c)
            self._last = (stacked, gains, part, cur)
            self._versions = [view.table.version for view in self.views]
            return gains, part, cur, None
        stacked, gains, part, cur = self._last  # stacked: updated in place, task by task
        n = self.views[0].n
        diff = np.zeros(n * n, dtype=bool)
        for t, view in enumerate(self.views):
            if view.table.version == self._versions[t]:
                continue
            self._versions[t] = view.table.version
            for w, mat in enumerate(view.matrices()):
                new = mat.reshape(-1)
                diff |= new != stacked[w][t]
                stacked[w][t] = new
        diff = diff.reshape(n, n)
        diff |= diff.T
        idx = np.flatnonzero(diff.reshape(-1).take(self.iu * n + self.ju))
        gains, cur = gains.copy(), cur.copy()
        if len(idx):
            gains[idx], _, cur[idx] = _gains_from(stacked, n, *args, self.iu[idx], self.ju[idx],
                                                  self.edge_log_prior, self.c)
        self._last = (stacked, gains, part, cur)
        return gains, part, cur, idx


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
    """A task's required / forbidden matrices (local indices) from the global ones.

    Parameters
    ----------
    scorer : LocalScore or DiscreteData
        The task's local scorer or data set; only its ``n_vars``, the number of the task's variables, is read.
    idx : ndarray of int, shape (n_global,)
        The task's column of each global variable, -1 where the task lacks it (a row of ``local_index``).
    required : ndarray of bool, shape (n_global, n_global)
        ``required[u, v]``: the edge ``u -> v`` must be in every graph (global indices).
    forbidden : ndarray of bool, shape (n_global, n_global)
        ``forbidden[u, v]``: the edge ``u -> v`` may not be in any graph (global indices).

    Returns
    -------
    required : ndarray of bool, shape (n_vars, n_vars)
        The required edges among the task's own variables, in the task's indices.
    forbidden : ndarray of bool, shape (n_vars, n_vars)
        The forbidden edges among the task's own variables, in the task's indices; constraints that name a
        variable the task lacks are dropped.
    """
    gl = np.flatnonzero(idx >= 0)
    loc = idx[gl]
    nl = scorer.n_vars
    req = np.zeros((nl, nl), dtype=bool)
    forb = np.zeros((nl, nl), dtype=bool)
    req[np.ix_(loc, loc)] = required[np.ix_(gl, gl)]
    forb[np.ix_(loc, loc)] = forbidden[np.ix_(gl, gl)]
    return req, forb



def _task_views(scorers, starts, local_index, forbidden, max_parents):
    """One :class:`_TaskView` per task: its delta table from ``starts`` under the global forbidden edges."""
    n = local_index.shape[1]
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
    return views
