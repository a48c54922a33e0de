"""The exact pair solvers of the Paired prior: the count DPs, their count windows and the forward tie rule.

Vectorised numpy over many node pairs; the prior classes call them and own
the choice between them (:mod:`mtbn.priors.paired`).
"""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mtbn.priors.base import _times


def _count_step(V, g, take):
    """One task of the count DP, in place: ``V[n1, n2]`` (best gains per count pair) after one more task.

    ``g`` (m, 3) are the task's gains per state; rows where ``take`` is False (the task does not take
    part) keep ``V``. ``V`` is a view whose last row and column hold no finite value yet.
    """
    if not take.all():  # only the rows that take part change (a broadcast np.where over all rows is 3-4x slower)
        rows = np.flatnonzero(take)
        if rows.size:
            sub = V[rows]
            _count_step(sub, g[rows], np.ones(rows.size, dtype=bool))
            V[rows] = sub
        return
    new = V + g[:, 0, None, None]
    np.maximum(new[:, 1:, :], V[:, :-1, :] + g[:, 1, None, None], out=new[:, 1:, :])
    np.maximum(new[:, :, 1:], V[:, :, :-1] + g[:, 2, None, None], out=new[:, :, 1:])
    V[...] = new


def _shift_add(nxt, gains_t):
    """One DP step: extend suffix tables by a participating task with the given state gains."""
    cur = nxt + gains_t[0]
    cur[1:, :] = np.maximum(cur[1:, :], nxt[:-1, :] + gains_t[1])
    cur[:, 1:] = np.maximum(cur[:, 1:], nxt[:, :-1] + gains_t[2])
    return cur


def _paired_best_configuration(prior, gains, part, log_factor, tol, exclude=None):
    """:meth:`PairedPrior.best_configuration` (equal weights), in O(k^3) instead of O(k^4) or more.

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


# ---------------------------------------------------------------------------
# Count windows: the Paired count DPs restricted to the counts that can win
# ---------------------------------------------------------------------------
#
# With many tasks the count DPs above cost O(k^3) per pair, though the
# configurations that can win leave few tasks out of one state: a task not in
# the state ``a`` of ``P - d`` others differs from each of them, so ``phi`` of
# a configuration with ``d`` tasks outside ``a`` is at most ``L s (P - d) d``
# (``s`` the pair scale), and its gains are at most those of the ``d`` tasks
# that gain most by leaving ``a`` (each to its best other state). Every
# configuration has a state held by at least ``P / 3`` of its tasks, so ``d``
# of that state is at most ``2P / 3``. Given a lower bound ``LB`` of the best
# value (a configuration's own value), a configuration that can reach ``LB``
# has, for some ``a``, at most ``limit[a]`` tasks outside ``a``: the count DP
# over the tasks' counts outside ``a``, capped at ``limit[a]``, once per
# ``a``, covers it. The capped tables hold the same values as the full
# table's cells (the same sums, in the same order), so the answers are the
# same to the bit.

#: State ``a`` first, then the other two in increasing order: the DP's "relative" states per majority state.
_PERMS = np.array([[0, 1, 2], [1, 0, 2], [2, 0, 1]])
#: The relative index of each state for each majority state (the inverse of ``_PERMS``).
_RELATIVE = np.argsort(_PERMS, axis=1)

_STATES = np.arange(3)[None, :]
_ONE = (_STATES == 0, _STATES == 1, _STATES == 2)  # per state: is it state 0, 1, 2 (rows of one)


def _leave_profile(gains, part, exclude=None):
    """Per majority state ``a`` (first axis), pair and ``d``: the best gains with ``d`` tasks outside ``a``.

    Returns ``value`` (3, m, k + 1): the ``d`` tasks that gain most by
    leaving ``a`` take their best other state, the rest ``a``
    (non-participating tasks stay out); ``nb``, ``nc`` (3, m, k + 1): how
    many of those ``d`` take the lower and the higher other state; with
    ``exclude``, ``differs`` (3, m, k + 1): whether that configuration
    differs from ``exclude``.
    """
    m, k, _ = gains.shape
    a = np.arange(3)[:, None, None]
    rel = np.moveaxis(gains[:, :, _PERMS], 2, 0)  # (3, m, k, 3): each a's gains in its relative states
    upper = rel[..., 2] > rel[..., 1]  # ties: the lower state
    leave = np.where(part, np.where(upper, rel[..., 2], rel[..., 1]), -np.inf)
    stay = np.where(part, rel[..., 0], 0.0)
    with np.errstate(invalid="ignore"):
        gain_by_leaving = np.nan_to_num(leave - stay, nan=-np.inf, posinf=np.inf, neginf=-np.inf)
    order = np.argsort(-gain_by_leaving, axis=2, kind="stable")
    leave = np.take_along_axis(leave, order, 2)
    stay = np.take_along_axis(stay, order, 2)
    value = np.zeros((3, m, k + 1))
    np.cumsum(leave, axis=2, out=value[:, :, 1:])
    tail = np.zeros((3, m, k + 1))
    tail[:, :, :-1] = np.cumsum(stay[:, :, ::-1], axis=2)[:, :, ::-1]
    value += tail
    p = np.take_along_axis(np.broadcast_to(part, upper.shape), order, 2)
    up = np.take_along_axis(upper, order, 2)
    nb = np.zeros((3, m, k + 1), dtype=np.int64)
    nc = np.zeros((3, m, k + 1), dtype=np.int64)
    np.cumsum(~up & p, axis=2, out=nb[:, :, 1:])
    np.cumsum(up & p, axis=2, out=nc[:, :, 1:])
    if exclude is None:
        return value, nb, nc, None
    x = np.take_along_axis(np.broadcast_to(np.asarray(exclude), upper.shape), order, 2)
    target = np.where(up, _PERMS[:, 2][:, None, None], _PERMS[:, 1][:, None, None])
    miss = np.zeros((3, m, k + 1), dtype=np.int64)
    np.cumsum(p & (x != target), axis=2, out=miss[:, :, 1:])  # a leaving task not in its state in exclude
    tail = np.zeros((3, m, k + 1), dtype=np.int64)
    tail[:, :, :-1] = np.cumsum((p & (x != a))[:, :, ::-1], axis=2)[:, :, ::-1]  # a staying task not in a
    return value, nb, nc, (miss + tail) > 0


class _Windows:
    """The count windows of a batch of pair problems (see the section above).

    ``limit`` (m, 3): the most tasks outside each state a winning
    configuration can have (-1: none has ``a`` as its majority state);
    ``windowed`` (m,): the capped DPs are cheaper than the full one;
    ``upper`` (m,): an upper bound of each pair's best value (over all
    configurations, or over those other than ``exclude``).
    """

    def __init__(self, prior, gains, part, log_factor, exclude=None, tol=0.0):
        m, k, _ = gains.shape
        L = np.asarray(log_factor, dtype=float)[:, None]
        n_part = part.sum(axis=1)[:, None]
        d = np.arange(k + 1)[None, :]
        outside = np.maximum(n_part - d, 0) * d * prior._scale
        cap = d <= (2 * n_part) // 3  # the majority state holds at least a third of the tasks
        value, nb, nc, differs = _leave_profile(gains, part, exclude)
        with np.errstate(invalid="ignore"):
            exact = prior.log_prior_of_counts(*_absolute_counts(np.arange(3)[:, None, None], n_part - d, nb, nc), L)
            found = np.where((d <= n_part) & np.isfinite(value), value + exact, -np.inf)
            bounds = np.where(cap & np.isfinite(value), value + _times(L, outside), -np.inf)  # (3, m, k + 1)
        if differs is not None:
            found = np.where(differs, found, -np.inf)
        lower = found.max(axis=(0, 2))
        # One more configuration for the lower bound: every task in its own best state (ties: the lowest).
        own = np.argmax(gains, axis=2)
        taken = np.where(part, np.take_along_axis(gains, own[:, :, None], 2)[:, :, 0], 0.0).sum(axis=1)
        counts = [(part & (own == s)).sum(axis=1) for s in range(3)]
        with np.errstate(invalid="ignore"):
            value = np.where(np.isfinite(taken), taken + prior.log_prior_of_counts(*counts, L[:, 0]), -np.inf)
        if exclude is not None:
            value = np.where((part & (own != exclude)).any(axis=1), value, -np.inf)
        lower = np.maximum(lower, value)
        self.lower = lower
        floor = lower - tol - 1e-9 * (1.0 + np.abs(np.where(np.isfinite(lower), lower, 0.0)))
        floor = np.where(np.isfinite(lower), floor, -np.inf)
        self.limit = np.where(bounds >= floor[:, None], d, -1).max(axis=2).T
        self.upper = bounds.max(axis=(0, 2))
        side = np.where(self.limit >= 0, self.limit + 1, 0)
        self.windowed = (side ** 2).sum(axis=1) * 4 <= (n_part[:, 0] + 1) ** 2

    def subset(self, rows):
        """The windows of the pair problems ``rows`` (a boolean mask or indices)."""
        out = object.__new__(_Windows)
        out.lower, out.limit, out.upper, out.windowed = (self.lower[rows], self.limit[rows], self.upper[rows],
                                                         self.windowed[rows])
        return out


def _absolute_counts(a, na, cb, cc):
    """The counts ``(n0, n1, n2)`` of ``na`` tasks in state ``a`` and ``cb``, ``cc`` in the lower and higher other."""
    return (np.where(a == 0, na, cb), np.where(a == 0, cb, np.where(a == 1, na, cc)), np.where(a == 2, na, cc))


def _relative_penalty(prior, a, n_part, cb, cc, log_factor):
    """``phi`` of the counts ``cb``, ``cc`` of tasks in the two states other than ``a`` (rows: pair problems)."""
    a, n_part, log_factor = (np.asarray(v)[:, None, None] for v in (a, n_part, log_factor))
    na = n_part - cb - cc
    with np.errstate(invalid="ignore"):  # cells with na < 0 are masked
        phi = prior.log_prior_of_counts(*_absolute_counts(a, na, cb, cc), log_factor)
    return np.where(na >= 0, phi, -np.inf)


def _stacked(windows, gains):
    """The (pair, majority state) problems to run: rows, states, limits and the gains in relative states."""
    rows, a = np.nonzero(windows.limit >= 0)
    return rows, a, windows.limit[rows, a], np.take_along_axis(gains[rows], _PERMS[a][:, None, :], axis=2)


def _side_groups(limit, keep_single=False):
    """Rows grouped by table side (powers of two at least ``limit + 1``): (side, row indices).

    A group with few cells joins the next larger side (one DP pass over the
    tasks costs numpy's per-call overhead whatever its size); with
    ``keep_single`` the side-1 group stays apart (its caller sums it directly).
    """
    side = 1 << np.ceil(np.log2(limit + 1)).astype(np.int64)
    sizes = [int(v) for v in np.unique(side)]
    groups, carry = [], np.zeros(0, dtype=np.int64)
    for i, size in enumerate(sizes):
        rows = np.concatenate([carry, np.flatnonzero(side == size)])
        last = i == len(sizes) - 1
        if not last and not (keep_single and size == 1) and len(rows) * sizes[i + 1] ** 2 <= MERGE_CELLS:
            carry = rows
            continue
        groups.append((size, rows))
        carry = np.zeros(0, dtype=np.int64)
    return groups


#: A group of count-window rows whose cells at the next larger side stay below this joins that side.
MERGE_CELLS = 4096


def _solve_windowed(prior, gains, part, log_factor, windows):
    m, k, _ = gains.shape
    rows, a, limit, rel = _stacked(windows, gains)
    n_part = part.sum(axis=1)
    best = np.full(m, -np.inf)
    grid = np.arange(k + 1)
    for side, sel in _side_groups(limit, keep_single=True):
        r, g = rows[sel], rel[sel]
        if side == 1:  # only "every task in a": the DP's sum, in task order (cumsum adds in the same order)
            np.maximum.at(best, r, np.cumsum(np.where(part[r], g[:, :, 0], 0.0), axis=1)[:, -1] + 0.0)
            continue
        V = np.full((len(sel), side, side), -np.inf)
        V[:, 0, 0] = 0.0
        for t in range(k):
            s = min(t + 2, side)
            _count_step(V[:, :s, :s], g[:, t, :], part[r, t])
        pen = _relative_penalty(prior, a[sel], n_part[r], grid[:side, None], grid[None, :side], log_factor[r])
        np.maximum.at(best, r, (V + pen).reshape(len(sel), -1).max(axis=1))
    return best


def _solve_excluding_windowed(prior, gains, part, log_factor, exclude, windows):
    m, k, _ = gains.shape
    rows, a, limit, rel = _stacked(windows, gains)
    n_part = part.sum(axis=1)
    best = np.full(m, -np.inf)
    for side, group in _side_groups(limit):
        step = max(1, EXCLUDING_CHUNK // (k + side + 1) ** 2)
        for sel in (group[i:i + step] for i in range(0, len(group), step)):
            r = rows[sel]
            found = _excluding_boxes(prior, rel[sel], part[r], a[sel], n_part[r], log_factor[r], exclude[r], side)
            np.maximum.at(best, r, found)
    return best


def _excluding_boxes(prior, g, p, aa, n_part, log_factor, exclude, side):
    """:meth:`PairedPrior._solve_excluding` on count tables capped at ``side`` (rows: pair, majority state)."""
    n, k, _ = g.shape
    rows = np.arange(n)
    x = _RELATIVE[aa[:, None], exclude]  # the excluded states, relative
    fixed = np.where(p, np.take_along_axis(g, x[:, :, None], 2)[:, :, 0], 0.0)
    prefix_gain = _before(fixed)
    c1, c2 = _before((p & (x == 1)).astype(np.int64)), _before((p & (x == 2)).astype(np.int64))
    # The penalty of every count pair a box reads: the prefix's counts, one task, the suffix's (below side).
    size1, size2 = int(c1[:, -1].max()) + 2 + side, int(c2[:, -1].max()) + 2 + side
    table = _relative_penalty(prior, aa, n_part, np.arange(size1)[:, None], np.arange(size2)[None, :], log_factor)
    found = np.full(n, -np.inf)
    V = np.full((n, side, side), -np.inf)
    V[:, 0, 0] = 0.0
    full = sliding_window_view(table, (side, side), axis=(1, 2))
    for t in range(k - 1, -1, -1):
        w = min(k - t, side)
        Vr = V[:, :w, :w]
        windows = full if w == side else sliding_window_view(table, (w, w), axis=(1, 2))
        shifted = windows[rows[:, None], c1[:, t, None] + _ONE[1], c2[:, t, None] + _ONE[2]]  # (n, 3, w, w)
        value = prefix_gain[:, t, None] + g[:, t, :] + (Vr[:, None] + shifted).reshape(n, 3, -1).max(axis=2)
        ok = p[:, t, None] & (x[:, t, None] != _STATES)
        found = np.maximum(found, np.where(ok, value, -np.inf).max(axis=1))
        _count_step(V[:, :min(w + 1, side), :min(w + 1, side)], g[:, t, :], p[:, t])
    return found


def _before(x):
    """Sums over the tasks before each t (exclusive cumulative sum along axis 1)."""
    out = np.zeros_like(x)
    out[:, 1:] = np.cumsum(x[:, :-1], axis=1)
    return out


def _best_configuration_windowed(prior, gains, part, log_factor, tol, exclude, windows):
    """:func:`_paired_best_configuration` on count tables capped by ``windows`` (one pair, same answer)."""
    k = gains.shape[0]
    neg = -np.inf
    aa = np.flatnonzero(windows.limit[0] >= 0)
    n = len(aa)
    side = int(windows.limit[0, aa].max()) + 1
    if side == 1:
        found = _all_same_configuration(gains, part, tol, exclude, aa)
        if found is not None:
            return found
    rel = gains[:, _PERMS[aa]].transpose(1, 0, 2)  # (n, k, 3): each row's gains in its relative states
    x = None if exclude is None else np.asarray(exclude, dtype=np.int64)
    xr = None if x is None else _RELATIVE[aa[:, None], x[None, :]]
    B = np.full((k + 1, n, side, side), neg)
    B[k, :, 0, 0] = 0.0
    E = np.full((k + 1, n, side, side), neg)
    states = np.arange(3)[None, :]
    # One DP step per task for the three tables at once: B, then E's two branches (differ here, anything
    # after; agree here, differ later), stacked on the rows.
    stack = np.empty((n if x is None else 3 * n, side, side))
    take = np.ones(len(stack), dtype=bool)
    for t in range(k - 1, -1, -1):
        if not part[t]:
            B[t], E[t] = B[t + 1], E[t + 1]
            continue
        g = rel[:, t, :]
        stack[:n] = B[t + 1]
        if x is not None:
            mine = states == xr[:, t, None]
            stack[n:2 * n] = B[t + 1]
            stack[2 * n:] = E[t + 1]
            g = np.concatenate([g, np.where(mine, neg, g), np.where(mine, g, neg)])
        _count_step(stack, g, take)
        B[t] = stack[:n]
        if x is not None:
            np.maximum(stack[n:2 * n], stack[2 * n:], out=E[t])
    n_part = int(np.sum(part))
    size = k + side + 1
    grid = np.arange(size)
    table = _relative_penalty(prior, aa, np.full(n, n_part), grid[:, None], grid[None, :], np.full(n, log_factor))
    windows3 = sliding_window_view(table, (side, side), axis=(1, 2))
    rows = np.arange(n)
    row_best = (0.0 + (B[0] if x is None else E[0]) + table[:, :side, :side]).reshape(n, -1).max(axis=1)
    best = float(row_best.max())
    if not np.isfinite(best):
        return (), neg
    relative = _RELATIVE[aa]  # (n, 3): each state's relative index per row
    finite = np.isfinite(gains)
    if k * 3 * n * side * side <= FORWARD_CELLS:
        start = np.where(part, aa[int(np.argmax(row_best))], 0)  # every task in the best row's state
        found = _fix_states_at_once(gains, part, best, tol, x, B, E, windows3, relative, start)
        if found is not None:
            return found, best
    G, a1, a2, equal, chosen_states = 0.0, np.zeros(n, np.int64), np.zeros(n, np.int64), x is not None, []
    for t in range(k):
        p = int(part[t])
        chosen = int(np.argmax(gains[t]))  # one legal state: the rule takes it whatever the values
        if finite[t].sum() > 1:
            d1 = a1[None, :] + p * (relative.T == 1)  # (3, n): prefix counts with task t in each state
            d2 = a2[None, :] + p * (relative.T == 2)
            shifted = windows3[rows[None, :], d1, d2]  # (3, n, side, side)
            tables = np.broadcast_to(B[t + 1], shifted.shape)
            if equal:
                tables = tables.copy()
                tables[x[t]] = E[t + 1]
            with np.errstate(invalid="ignore"):
                vals = ((G + gains[t])[:, None, None, None] + tables + shifted).reshape(3, -1).max(axis=1)
            ok = [s for s in range(3) if finite[t, s] and vals[s] >= best - tol]
            chosen = ok[0] if ok else chosen
        G += gains[t, chosen]
        if p:
            a1 += relative[:, chosen] == 1
            a2 += relative[:, chosen] == 2
        equal = equal and chosen == x[t]
        chosen_states.append(chosen)
    return tuple(chosen_states), best



#: Cells of the count tables one chunk of :meth:`PairedPrior.solve_excluding` may hold (memory bound).
EXCLUDING_CHUNK = 2**21

#: Cells of the tables :func:`_fix_states_at_once` may build (k tasks x 3 states x rows x side^2).
FORWARD_CELLS = 2**19
#: Rounds of guess and check :func:`_fix_states_at_once` tries before the task-by-task loop takes over.
FORWARD_ROUNDS = 8


def _fix_states_at_once(gains, part, best, tol, x, B, E, windows, relative, guess):
    """The task-by-task tie rule of :func:`_best_configuration_windowed` checked for all tasks at once, or None.

    The loop fixes task ``t`` to the smallest legal state whose best
    completion, after the states fixed before it, is within ``tol`` of the
    best. Given a guess of all the states, every task's values follow from
    the guess's prefix (the same sums as the loop's: its running sum of the
    fixed gains, the tables, the penalty windows); where the rule first
    picks another state than the guess, the guess is wrong from there on,
    and the rule's picks from there on are the next guess. A guess that the
    rule reproduces at every task is the loop's answer.
    """
    k = gains.shape[0]
    n = relative.shape[0]
    finite = np.isfinite(gains)
    tasks = np.arange(k)
    rows = np.arange(n)[None, None, :]
    step = np.where(part[:, None, None], relative.T[None, :, :], 0)  # (k, 3, n): relative state, if counted
    one, two = (step == 1).astype(np.int64), (step == 2).astype(np.int64)
    forced = finite.sum(axis=1) == 1
    for _ in range(FORWARD_ROUNDS):
        c = guess
        taken = gains[tasks, c]
        G = np.zeros(k)
        G[1:] = np.cumsum(taken)[:-1]  # the loop's running sum before each task
        a1 = np.zeros((k, n), dtype=np.int64)
        a2 = np.zeros((k, n), dtype=np.int64)
        a1[1:] = np.cumsum(one[tasks, c], axis=0)[:-1]
        a2[1:] = np.cumsum(two[tasks, c], axis=0)[:-1]
        shifted = windows[rows, a1[:, None, :] + one, a2[:, None, :] + two]  # (k, 3, n, side, side)
        tables = np.broadcast_to(B[1:, None], shifted.shape)
        if x is not None:
            equal = np.ones(k, dtype=bool)
            equal[1:] = np.cumprod(c == x)[:-1].astype(bool)  # the prefix is the excluded one's
            if equal.any():
                tables = tables.copy()
                t_eq = np.flatnonzero(equal)
                tables[t_eq, x[t_eq]] = E[t_eq + 1]
        with np.errstate(invalid="ignore"):
            vals = ((G[:, None] + gains)[:, :, None, None, None] + tables + shifted).reshape(k, 3, -1).max(axis=2)
        ok = finite & (vals >= best - tol)
        rule = np.where(ok.any(axis=1) & ~forced, np.argmax(ok, axis=1), np.argmax(gains, axis=1))
        wrong = np.flatnonzero(rule != c)
        if not len(wrong):
            return tuple(int(v) for v in c)
        guess = np.concatenate([c[:wrong[0]], rule[wrong[0]:]])
    return None


def _all_same_configuration(gains, part, tol, exclude, states):
    """:func:`_best_configuration_windowed` when only "every task in one state" can win, or None.

    ``states`` are the states ``a`` whose all-``a`` configuration can reach
    the best (every other configuration lies below the best by more than the
    tolerance). The values are summed in the order of the count tables
    (backward for the best, prefix plus suffix at each task); the tie rule
    then takes the smallest state within ``tol`` of the best and keeps it at
    every later task, which is checked here with the loop's own sums; if the
    check fails (a value on the tolerance's edge) the caller runs the tables.
    """
    k = gains.shape[0]
    taken = np.where(part[None, :], gains[:, states].T, 0.0)  # (n, k)
    suffix = np.zeros((len(states), k + 1))
    suffix[:, :-1] = np.cumsum(taken[:, ::-1], axis=1)[:, ::-1]  # the backward DP's sums, (0 + g_{k-1}) + ...
    value = suffix[:, 0] + 0.0
    if exclude is not None:
        x = np.asarray(exclude)
        value = np.where((part[None, :] & (x[None, :] != states[:, None])).any(axis=1), value, -np.inf)
    best = float(value.max())
    if not np.isfinite(best):
        return (), -np.inf
    i = int(np.flatnonzero(value >= best - tol)[0])
    a = int(states[i])
    chosen = np.where(part, a, 0)
    prefix = np.zeros(k)
    prefix[1:] = np.cumsum(np.where(part, gains[:, a], 0.0))[:-1]  # the loop's G before each task
    first = np.flatnonzero(part)
    checked = ((prefix + gains[:, a]) + suffix[i, 1:] + 0.0)[first[1:]] if len(first) > 1 else np.zeros(0)
    if not np.all(checked >= best - tol):
        return None
    return tuple(int(c) for c in chosen), best
