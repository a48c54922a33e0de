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


def _pair_gains(views, required, iu, ju, edge_log_prior, c):
    """Gains (m, k, 3), participation (m, k) and current states (m, k) of the pairs ``(iu, ju)``.

    For each task and pair, the gain of each state (0: no edge, 1: i -> j,
    2: j -> i) relative to the current one: -inf where the move would make a
    cycle, remove a required edge or add a forbidden one, and (0, -inf, -inf)
    where the task lacks one of the two variables. All tasks at once: the
    tasks' matrices are stacked to (k, n, n) and indexed once.
    """
    neg = -np.inf
    mats = [view.matrices() for view in views]
    k, n = len(mats), mats[0][0].shape[0]
    # Entries (i, j) and (j, i) of every pair, read with take on the flattened
    # matrices (several times faster than indexing [:, iu, ju]).
    fij, fji = iu * n + ju, ju * n + iu

    def pick(which, flat):
        return np.stack([x[which] for x in mats]).reshape(k, n * n).take(flat, axis=1)

    present = np.stack([view.present for view in views])
    a_ij, a_ji = pick(1, fij), pick(1, fji)
    s = np.where(a_ij, 1, np.where(a_ji, 2, 0))
    T = np.stack([x[0] for x in mats]).reshape(k, n * n)
    t_ij, t_ji = T.take(fij, axis=1), T.take(fji, axis=1)
    flat_required = required.reshape(-1)
    r_ij, r_ji = flat_required.take(fij), flat_required.take(fji)
    g0 = np.where(s == 0, 0.0, np.where(s == 1, np.where(r_ij, neg, t_ij), np.where(r_ji, neg, t_ji)))
    g1 = np.where(
        s == 1, 0.0,
        np.where(s == 0, np.where(pick(2, fij), neg, t_ij), np.where(pick(3, fji) & ~r_ji, t_ji + t_ij, neg)),
    )
    g2 = np.where(
        s == 2, 0.0,
        np.where(s == 0, np.where(pick(2, fji), neg, t_ji), np.where(pick(3, fij) & ~r_ij, t_ij + t_ji, neg)),
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
