"""Multitask structure priors (paper eqs. 2.6-2.8) and their exact pair solvers.

Both priors factorise over unordered node pairs ``(i, j)``, ``i < j``: the
*state* of a pair in task ``t`` is 0 (no edge), 1 (``i -> j``) or 2
(``j -> i``), and

    log P(G_1..G_k) = c * sum_t log P(G_t) + sum_{i<j} phi(s_1, ..., s_k) + const,

with ``c = 1 / (1 + (k - 1) delta)`` and ``L = log(1 - delta)`` (``-inf`` at
``delta = 1``, where a zero count times ``L`` is 0, never NaN):

* **Edit** (eq. 2.7): ``phi = L * edits``, ``edits`` the fewest edge edits
  that make the pair the same in every task, i.e.
  ``min_z sum_t D[s_t, z]``;
* **Paired** (eq. 2.8): ``phi = L / (k - 1) * sum_{t<u} W[t, u] D[s_t, s_u]``
  with pair weights ``W`` (all ones in the paper).

``D[a, b]`` is 0 when ``a == b``, 1 when one of them is "no edge", and the
reversal cost (1 for ``reversal="single"``, 2 for ``"double"``) when the
edges point in opposite directions. A task that lacks ``X_i`` or ``X_j``
takes no part in pair ``(i, j)`` and incurs no penalty for it.

A *pair problem* asks for the configuration ``s`` maximising
``sum_t G[t, s_t] + phi(s)`` given each task's gains ``G[t, :]`` (the change
of its local scores, ``-inf`` for illegal moves). Each prior solves it
exactly and vectorised over many pairs:

* Edit: ``phi`` is a maximum over the consensus state ``z`` of terms that
  separate per task, so the optimum is ``max_z sum_t max_s (G[t, s] + L D[s, z])``,
  O(k) per pair;
* Paired with equal weights: ``phi`` depends only on the counts ``(n1, n2)``
  of tasks in states 1 and 2, so a dynamic programme over tasks on those
  counts is exact, O(k^3) per pair;
* Paired with a general weight matrix has no such structure and is solved by
  branch and bound (:func:`mtbn.joint.solve_branch_and_bound`), which reads
  each prior's term of a partial configuration through ``prior.bound``.

Priors assume validated arguments (see :func:`make_prior`).
"""

from abc import ABC, abstractmethod

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mtbn._validation import check_option, check_penalty, is_penalty
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import REVERSAL_COSTS
from mtbn.messages import error, register

__all__ = ["MultitaskPrior", "EditPrior", "PairedPrior", "IndependentPrior", "make_prior", "register_prior", "PRIORS",
           "log1m"]


def log1m(penalty):
    """``log(1 - penalty)`` with ``-inf`` at 1 (no overflow warning)."""
    penalty = np.asarray(penalty, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(penalty >= 1.0, -np.inf, np.log1p(-np.minimum(penalty, 1.0)))


def state_max(gains):
    """``gains.max(axis=-1)`` for the last axis of the three pair states (no edge, i -> j, j -> i).

    The same values; two elementwise maxima over strided views are about
    three times faster than numpy's reduction over an axis of length 3,
    which the joint search does over every node pair at every step.
    """
    return np.maximum(np.maximum(gains[..., 0], gains[..., 1]), gains[..., 2])


def _times(log_factor, count):
    """``log_factor * count`` with ``0 * -inf = 0``."""
    log_factor, count = np.broadcast_arrays(np.asarray(log_factor, float), np.asarray(count, float))
    with np.errstate(invalid="ignore"):
        return np.where(count == 0, 0.0, log_factor * count)


def _distance_matrix(reversal):
    rc = REVERSAL_COSTS[reversal]
    return np.array([[0, 1, 1], [1, 0, rc], [1, rc, 0]], dtype=float)


class MultitaskPrior(ABC):
    """The protocol of a multitask structure prior: what the joint search calls, and nothing else.

    A prior is one class registered in :data:`PRIORS` (:func:`register_prior`);
    :func:`make_prior` builds it by name. The joint search (:mod:`mtbn.joint`)
    never asks which prior it holds: it reads the attributes and calls the
    methods below, whose defaults here are those of a prior with no special
    solver. A new prior implements :meth:`log_prior` and :meth:`bound` (and,
    for speed, :meth:`solve` with ``exact = True``, and :meth:`upper_bound`).

    Attributes
    ----------
    name : str
        The registered name.
    exact : bool
        :meth:`solve` is an exact, vectorised solver of pair problems
        (``solver="auto"`` uses it; otherwise branch and bound on :meth:`bound`).
    has_penalty : bool
        False for a prior that couples nothing whatever the penalty
        (``"none"``): the learners then take the penalty as 0 and choose none.
    takes_weights : bool
        The constructor takes ``weights=`` (task-pair weights).
    default_reversal : {"single", "double"}
        How many differences a reversed edge counts as when not given.
    weights : ndarray (k, k) or None
        Task-pair weights, where the prior has them.
    """

    name = "base"
    exact = False
    has_penalty = True
    takes_weights = False
    default_reversal = "single"
    weights = None

    def __init__(self, penalty, n_tasks, *, reversal, edge_penalty=None):
        self.penalty = penalty
        self.n_tasks = n_tasks
        self.reversal = reversal
        self.D = _distance_matrix(reversal)
        self.edge_penalty = edge_penalty

    def is_coupled(self, n_vars):
        """False when no pair term can be non-zero (penalty 0 everywhere, or all pair weights 0)."""
        if np.all(self.log_factors(n_vars) == 0):
            return False
        return self.weights is None or bool(np.any(self.weights > 0))

    @property
    def exponent(self):
        """``c = 1 / (1 + (k - 1) delta)``, the power of each task's structure prior."""
        return 1.0 / (1.0 + (self.n_tasks - 1) * self.penalty)

    def log_factors(self, n_vars):
        """``L`` per unordered pair (upper-triangle order), honouring edge penalties."""
        iu, ju = np.triu_indices(n_vars, 1)
        if self.edge_penalty is None:
            return np.full(len(iu), float(log1m(self.penalty)))
        pen = np.maximum(self.edge_penalty, self.edge_penalty.T)[iu, ju]
        return log1m(pen)

    @abstractmethod
    def log_prior(self, states, part, log_factor):
        """``phi`` of configurations ``states`` (m, k) with participation ``part`` (m, k) and ``L`` (m,)."""

    @abstractmethod
    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem (see the section below)."""

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem, here by enumerating all ``3^k`` configurations with
        :meth:`log_prior` (a prior that declares ``exact`` overrides it with something faster)."""
        gains = np.asarray(gains, dtype=float)
        m, k, _ = gains.shape
        configs = np.stack(np.meshgrid(*[np.arange(3)] * k, indexing="ij"), axis=-1).reshape(-1, k)
        best = np.full(m, -np.inf)
        for c in configs:
            taken = np.where(part, gains[:, np.arange(k), c], np.where(c == 0, 0.0, -np.inf)[None, :]).sum(axis=1)
            phi = self.log_prior(np.broadcast_to(c, (m, k)), part, np.asarray(log_factor, dtype=float))
            with np.errstate(invalid="ignore"):
                best = np.maximum(best, np.where(np.isfinite(taken) & np.isfinite(phi), taken + phi, -np.inf))
        return best

    def upper_bound(self, gains, part, log_factor):
        """An upper bound of each pair problem's best value, cheaper than solving it.

        Here the sum of the per-task best gains (the pair term is at most 0);
        the search solves exactly only the pairs whose bound can reach the
        best move, so a tighter bound saves solves and never changes a move.
        """
        return state_max(gains).sum(axis=1)

    def solve_excluding(self, gains, part, log_factor, exclude):
        """Best objective of each pair problem over the configurations other than ``exclude``, or None.

        None (the default): the search splits the other configurations into
        ``k`` boxes and calls the solver once per box.
        """
        return None

    def best_configuration(self, gains, part, log_factor, tol, exclude=None):
        """The tie-broken best configuration of one pair problem by a method of the prior's own, or None.

        None (the default): the search fixes the tasks one by one with the
        solver's values as an oracle (:func:`mtbn.joint.best_configuration`).
        """
        return None

    def n_configurations(self, n_pairs):
        """Configurations an exact solve of ``n_pairs`` pair problems looks at (the search's statistics)."""
        return 3 * self.n_tasks * n_pairs


# ---------------------------------------------------------------------------
# Branch-and-bound bookkeeping: the prior term of a prefix of tasks
# ---------------------------------------------------------------------------
#
# A branch and bound over one pair problem assigns the participating tasks'
# states in task order. Each prior's ``bound(part, log_factor)`` returns an
# object that carries the prior term of the tasks assigned so far along a
# branch: ``root`` (no task assigned), ``extend(partial, prefix, s)`` (the
# next participating task, ``len(prefix)``, takes state ``s`` after the
# states ``prefix``) and ``value(partial)``. Both priors count non-negative
# distances times ``L <= 0``, so ``value`` never increases along a branch: it
# bounds ``phi`` of every completion from above (eqs. 2.9, 2.10).


class _EditBound:
    """The Edit prior along a branch: the edits to each consensus state so far.

    Plain Python floats (the DFS is scalar code; the values are those of the
    float64 arrays).
    """

    root = (0.0, 0.0, 0.0)

    def __init__(self, D, log_factor):
        self.D = D.tolist()
        self.unit = float(log_factor)

    def extend(self, partial, prefix, s):
        d = self.D[s]
        return (partial[0] + d[0], partial[1] + d[1], partial[2] + d[2])

    def value(self, partial):
        count = min(partial)
        return 0.0 if count == 0 else self.unit * count  # 0 * -inf = 0, as in _times


class _PairedBound:
    """The Paired prior along a branch: the weighted distances between assigned tasks so far."""

    root = 0.0

    def __init__(self, D, weights, part, unit):
        self.D = D.tolist()
        k = len(part)
        # Per task t: (u, W[u, t]) for the participating tasks u before t.
        self.earlier = [[(u, float(weights[u, t])) for u in range(t) if part[u]] for t in range(k)]
        self.unit = float(unit)

    def extend(self, partial, prefix, s):
        D = self.D
        return partial + sum(w * D[prefix[u]][s] for u, w in self.earlier[len(prefix)])

    def value(self, partial):
        return 0.0 if partial == 0 else self.unit * partial  # 0 * -inf = 0, as in _times


class EditPrior(MultitaskPrior):
    """The Edit prior (eq. 2.7): ``(1 - delta)`` per edit needed to agree.

    Parameters
    ----------
    penalty : float
        delta in the paper, in [0, 1].
    n_tasks : int
    reversal : {"single", "double"}, default "single"
        Whether an edge reversal is one edit or two.
    edge_penalty : ndarray (n_vars, n_vars), optional
        A penalty per unordered pair (the larger of ``[i, j]`` and ``[j, i]``)
        replacing ``penalty`` there: 1 forbids differences, 0 frees the pair.
    """

    name = "edit"
    exact = True

    def __init__(self, penalty, n_tasks, *, reversal="single", edge_penalty=None):
        super().__init__(penalty, n_tasks, reversal=reversal, edge_penalty=edge_penalty)

    def log_prior(self, states, part, log_factor):
        """``phi`` of configurations ``states`` (m, k) with participation ``part`` (m, k)."""
        states = np.asarray(states)
        edits = np.full(states.shape[0], np.inf)
        for z in range(3):
            cost = np.where(part, self.D[states, z], 0.0).sum(axis=1)
            edits = np.minimum(edits, cost)
        return _times(log_factor, edits)

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem: gains (m, k, 3), part (m, k), L (m,)."""
        best = np.full(gains.shape[0], -np.inf)
        for z in range(3):
            pen = _times(log_factor[:, None], self.D[:, z][None, :])  # (m, 3)
            per_task = state_max(gains + pen[:, None, :])  # (m, k)
            best = np.maximum(best, np.where(part, per_task, 0.0).sum(axis=1))
        return best

    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem (see :class:`_EditBound`).

        Examples
        --------
        Task 0 takes ``i -> j``, then task 1 ``j -> i``: one edit so far.

        >>> prior = make_prior("edit", 0.9, 3)
        >>> b = prior.bound(np.ones(3, dtype=bool), float(np.log(0.1)))
        >>> one = b.extend(b.root, (), 1)
        >>> two = b.extend(one, (1,), 2)
        >>> float(b.value(one)), round(float(b.value(two)), 3)
        (0.0, -2.303)
        """
        return _EditBound(self.D, log_factor)

    def n_configurations(self, n_pairs):
        return 9 * self.n_tasks * n_pairs


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

#: Use the count windows from this many tasks on: below it the full DPs are faster (a joint search with 8, 16
#: and 20 ALARM tasks took 1.5x, 1.3x and 1.1x as long with the windows; 30 tasks 0.9-1.0x, 50 tasks 0.6x:
#: ``benchmarks/bench_count_windows.py``). The answers are the same either way.
WINDOW_MIN_TASKS = 24


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


class PairedPrior(MultitaskPrior):
    """The Paired prior (eq. 2.8): ``(1 - delta)`` per differing edge per task pair.

    The product over task pairs is raised to ``1 / (k - 1)``.

    Parameters
    ----------
    penalty : float
        delta in the paper, in [0, 1].
    n_tasks : int
    reversal : {"double", "single"}, default "double"
        A reversed edge counts as two differences (the paper's default) or one.
    weights : ndarray (k, k), optional
        Symmetric non-negative pair weights ``W[t, u]`` multiplying the
        penalty between tasks t and u (default: all ones). With unequal
        weights the pair problem is solved by branch and bound.
    edge_penalty : ndarray (n_vars, n_vars), optional
        Per-pair penalty replacing ``penalty`` (see :class:`EditPrior`).
    """

    name = "paired"
    takes_weights = True
    default_reversal = "double"

    def __init__(self, penalty, n_tasks, *, reversal="double", weights=None, edge_penalty=None):
        super().__init__(penalty, n_tasks, reversal=reversal, edge_penalty=edge_penalty)
        k = n_tasks
        if weights is None:
            weights = np.ones((k, k)) - np.eye(k)
        self.weights = np.asarray(weights, dtype=float).copy()
        np.fill_diagonal(self.weights, 0.0)
        off = self.weights[~np.eye(k, dtype=bool)]
        self.exact = k < 2 or bool(np.all(off == off[0]))
        self._unit = k >= 2 and bool(np.all(off == 1.0))  # the default weights: the sum is a count
        self._scale = (off[0] if k >= 2 else 0.0) / max(k - 1, 1)
        self._count_tables = {}  # size -> (scaled counts, valid), see _count_table

    def log_prior(self, states, part, log_factor):
        states = np.asarray(states)
        k = self.n_tasks
        total = np.zeros(states.shape[0])
        if k < 2:
            return total
        if self._unit:
            # Unit weights: the sum over task pairs is the count n0 n1 + n0 n2 + rc n1 n2 over the
            # participating tasks, an integer held exactly either way (the same value as the loop).
            part = np.asarray(part, dtype=bool)
            n1 = ((states == 1) & part).sum(axis=1)
            n2 = ((states == 2) & part).sum(axis=1)
            n0 = part.sum(axis=1) - n1 - n2
            total = (n0 * n1 + n0 * n2).astype(float) + self.D[1, 2] * (n1 * n2)
            return _times(np.asarray(log_factor) / (k - 1), total)
        for t in range(k):
            for u in range(t + 1, k):
                if self.weights[t, u] == 0:
                    continue
                d = np.where(part[:, t] & part[:, u], self.D[states[:, t], states[:, u]], 0.0)
                total = total + self.weights[t, u] * d
        return _times(np.asarray(log_factor) / (k - 1), total)

    def log_prior_of_counts(self, n0, n1, n2, log_factor):
        """``phi`` of a configuration with ``n0``, ``n1``, ``n2`` tasks in each state (equal weights only)."""
        rc = self.D[1, 2]
        diff = n0 * n1 + n0 * n2 + rc * n1 * n2
        return _times(log_factor, diff * self._scale)

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem (DP over counts; equal weights only)."""
        m, k, _ = gains.shape
        if k < 2:
            return np.where(part, state_max(gains), 0.0).sum(axis=1)
        if m * k * 3**k <= ENUMERATED_CELLS:
            return self._solve_enumerated(gains, part, log_factor)
        out = np.empty(m)
        full = np.ones(m, dtype=bool)
        if k >= WINDOW_MIN_TASKS and m:
            windows = _Windows(self, gains, part, log_factor)
            full = ~windows.windowed
            if not full.all():
                out[~full] = _solve_windowed(self, gains[~full], part[~full], log_factor[~full],
                                             windows.subset(~full))
        if full.any():
            out[full] = self._solve_full(gains[full], part[full], log_factor[full])
        return out

    def _solve_enumerated(self, gains, part, log_factor):
        """:meth:`_solve_full` by enumerating the 3^k configurations of a few pairs (the same floats).

        Each configuration's gains are summed task by task from 0.0 and its
        count penalty added last, as along the DP's best path; adding floats
        is monotone, so the maximum over configurations is the DP's value
        exactly. A task that takes no part adds 0.0 and must stay "no edge".
        """
        m, k, _ = gains.shape
        configs, n1, n2 = _all_configurations(k)
        g = np.where(part[:, :, None], gains, _NO_EDGE_ONLY)
        total = np.zeros((m, len(configs)))
        for t in range(k):
            total += g[:, t, configs[:, t]]
        scaled, _ = self._count_table(k + 1)
        return (total + _times(log_factor[:, None], scaled[part.sum(axis=1)][:, n1, n2])).max(axis=1)

    def _solve_full(self, gains, part, log_factor):
        m, k, _ = gains.shape
        neg = -np.inf
        V = np.full((m, k + 1, k + 1), neg)
        V[:, 0, 0] = 0.0
        for t in range(k):
            # After t + 1 tasks no count exceeds t + 1: the DP works on that corner (the rest stays -inf).
            _count_step(V[:, :t + 2, :t + 2], gains[:, t, :], part[:, t])
        n_part = part.sum(axis=1)
        scaled, valid = self._count_table(k + 1)
        pen = _times(log_factor[:, None, None], scaled[n_part])
        total = np.where(valid[n_part], V + pen, neg)
        return total.reshape(m, -1).max(axis=1)

    def _count_table(self, size):
        """The scaled difference count of every (tasks taking part, n1, n2), n1 and n2 below ``size``.

        ``scaled[p, n1, n2]`` is :meth:`log_prior_of_counts`'s count times the pair scale for ``p``
        participating tasks (``n0 = p - n1 - n2``); ``valid`` marks the cells with ``n0 >= 0``.
        Built once per prior and size (the count DPs read it on every call).
        """
        cache = self._count_tables
        if size not in cache:
            p = np.arange(self.n_tasks + 1)[:, None, None]
            n1 = np.arange(size)[None, :, None]
            n2 = np.arange(size)[None, None, :]
            n0 = p - n1 - n2
            diff = np.maximum(n0, 0) * n1 + np.maximum(n0, 0) * n2 + self.D[1, 2] * n1 * n2
            cache[size] = (diff * self._scale, n0 >= 0)
        return cache[size]

    def solve_excluding(self, gains, part, log_factor, exclude):
        """Best objective of each pair problem over the configurations other than ``exclude``.

        The configurations that differ from ``exclude`` split by the first
        task ``t`` where they differ: tasks before ``t`` as in ``exclude``,
        task ``t`` in another state, tasks after ``t`` free. A backward DP
        over tasks gives the best sum of gains of the free suffix per count
        pair ``(n1, n2)``; at each ``t`` the box adds the fixed prefix and
        the count-dependent penalty. O(k^3) per pair, as :meth:`solve` (the
        generic route, one solve per box, is O(k^4)); memory O(k^2) per pair,
        in chunks of pairs. Equal weights only.
        """
        m, k, _ = gains.shape
        exclude = np.asarray(exclude, dtype=np.int64)
        if m * k * 3**k <= 2 * ENUMERATED_CELLS:
            return self._solve_excluding_enumerated(gains, part, log_factor, exclude)
        if k >= WINDOW_MIN_TASKS and m:
            windows = _Windows(self, gains, part, log_factor, exclude)
            if windows.windowed.any():
                out = np.empty(m)
                w = windows.windowed
                out[w] = _solve_excluding_windowed(self, gains[w], part[w], log_factor[w], exclude[w],
                                                   windows.subset(w))
                if not w.all():
                    out[~w] = self._solve_excluding_chunks(gains[~w], part[~w], log_factor[~w], exclude[~w])
                return out
        return self._solve_excluding_chunks(gains, part, log_factor, exclude)

    def _solve_excluding_enumerated(self, gains, part, log_factor, exclude):
        """:meth:`_solve_excluding` by enumerating the 3^k configurations of a few pairs (the same floats).

        A configuration other than ``exclude`` is valued as the DP's box of
        the first task ``t`` where it differs values it: (the prefix sum of
        the excluded gains before ``t`` + task ``t``'s gain) + (the gains of
        the tasks after ``t`` summed from the last task back + the count
        penalty), so the maximum is the DP's value exactly (see
        :meth:`_solve_enumerated`).
        """
        m, k, _ = gains.shape
        configs, n1, n2 = _all_configurations(k)
        g = np.where(part[:, :, None], gains, _NO_EDGE_ONLY)
        excluded = np.where(part, exclude, 0)
        prefix = _before(np.where(part, gains[np.arange(m)[:, None], np.arange(k)[None, :], exclude], 0.0))
        n_part = part.sum(axis=1)
        scaled, valid = self._count_table(k + 2)
        pen = np.where(valid[n_part][:, n1, n2], _times(log_factor[:, None], scaled[n_part][:, n1, n2]), -np.inf)
        per_task = [g[:, t, configs[:, t]] for t in range(k)]
        after = [None] * k  # after[t]: the gains of tasks t+1..k-1, summed from the last one back
        suffix = np.zeros((m, len(configs)))
        for t in range(k - 1, -1, -1):
            after[t] = suffix
            suffix = suffix + per_task[t]
        value = np.full((m, len(configs)), -np.inf)
        same = np.ones((m, len(configs)), dtype=bool)  # as in ``exclude`` on every task so far
        for t in range(k):
            differ = configs[None, :, t] != excluded[:, t, None]
            value = np.where(same & differ, (prefix[:, t, None] + per_task[t]) + (after[t] + pen), value)
            same &= ~differ
        return value.max(axis=1)

    def _solve_excluding_chunks(self, gains, part, log_factor, exclude):
        m, k, _ = gains.shape
        step = max(1, EXCLUDING_CHUNK // (2 * k + 2) ** 2)
        return np.concatenate([
            self._solve_excluding(gains[i:i + step], part[i:i + step], log_factor[i:i + step],
                                  exclude[i:i + step]) for i in range(0, m, step)
        ]) if m else np.zeros(0)

    def _solve_excluding(self, gains, part, log_factor, exclude):
        m, k, _ = gains.shape
        neg = -np.inf
        rows = np.arange(m)
        # The prefix of box t: tasks before t in their excluded states (those that take part).
        fixed = np.where(part, gains[rows[:, None], np.arange(k)[None, :], exclude], 0.0)
        prefix_gain = _before(fixed)
        c1 = _before((part & (exclude == 1)).astype(np.int64))
        c2 = _before((part & (exclude == 2)).astype(np.int64))
        n_part = part.sum(axis=1)
        scaled, valid = self._count_table(k + 2)  # a window starts at a prefix count + 1 <= t + 1 and spans k - t
        pen = np.where(valid[n_part], _times(log_factor[:, None, None], scaled[n_part]), neg)  # of the total counts
        best = np.full(m, neg)
        V = np.full((m, k + 1, k + 1), neg)  # best gains of tasks t+1..k-1 per count pair
        V[:, 0, 0] = 0.0
        for t in range(k - 1, -1, -1):
            g = gains[:, t, :]
            r = k - t  # tasks t+1..k-1 count at most k - 1 - t: the DP's finite corner is r x r
            Vr = V[:, :r, :r]
            windows = sliding_window_view(pen, (r, r), axis=(1, 2))  # windows[i, d1, d2] = pen[i, d1:d1+r, d2:d2+r]
            for state in range(3):
                d1 = c1[:, t] + (state == 1)
                d2 = c2[:, t] + (state == 2)
                shifted = windows[rows, d1, d2]
                value = prefix_gain[:, t] + g[:, state] + (Vr + shifted).reshape(m, -1).max(axis=1)
                ok = part[:, t] & (exclude[:, t] != state)
                best = np.where(ok, np.maximum(best, value), best)
            _count_step(V[:, :r + 1, :r + 1], g, part[:, t])
        return best

    def upper_bound(self, gains, part, log_factor):
        """The sum of the per-task best gains or, with many tasks, the count windows' bound if lower."""
        total = state_max(gains).sum(axis=1)
        if gains.shape[1] < WINDOW_MIN_TASKS or not len(total):
            return total
        upper = _Windows(self, gains, part, np.asarray(log_factor, dtype=float)).upper
        with np.errstate(invalid="ignore"):
            upper = upper + 1e-9 * (1.0 + np.abs(upper))  # rounding: the windows sum in another order
        return np.minimum(total, np.where(np.isnan(upper), np.inf, upper))

    def best_configuration(self, gains, part, log_factor, tol, exclude=None):
        """The tie-broken best configuration by count tables (equal weights, two or more tasks), else None."""
        if np.shape(gains)[0] < 2 or not self.exact:
            return None
        gains = np.asarray(gains, dtype=float)
        part = np.asarray(part, dtype=bool)
        if gains.shape[0] >= WINDOW_MIN_TASKS:
            windows = _Windows(self, gains[None], part[None], np.array([float(log_factor)]),
                               None if exclude is None else np.asarray(exclude, dtype=np.int64)[None], tol=tol)
            side = np.where(windows.limit[0] >= 0, windows.limit[0] + 1, 0)
            if (side ** 2).sum() <= (int(part.sum()) + 1) ** 2:  # the full tables hold (k + 1)^2 cells per task
                return _best_configuration_windowed(self, gains, part, float(log_factor), tol, exclude, windows)
        return _paired_best_configuration(self, gains, part, log_factor, tol, exclude)

    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem (see :class:`_PairedBound`)."""
        k = self.n_tasks
        return _PairedBound(self.D, self.weights, part, log_factor / (k - 1) if k > 1 else 0.0)

    def n_configurations(self, n_pairs):
        k = self.n_tasks
        return 3 * k * (k + 1) ** 2 * n_pairs


#: Pairs x tasks x configurations (m k 3^k) up to which the Paired prior's count DPs enumerate instead
#: (``solve``; twice as many for ``solve_excluding``): the same values, faster for a few pairs of a few tasks
#: (5 tasks: one pair 2.2x and 4.1x faster, 4-13 pairs about 1.2-2.5x; 64 pairs slower;
#: ``python benchmarks/bench_enumerated_dps.py``).
ENUMERATED_CELLS = 16384

#: A task that takes no part in a pair: "no edge" only.
_NO_EDGE_ONLY = np.array([0.0, -np.inf, -np.inf])

_CONFIGURATIONS: "dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]" = {}


def _all_configurations(k):
    """Every configuration of ``k`` tasks in lexicographic order (3^k, k), with its counts of states 1 and 2."""
    found = _CONFIGURATIONS.get(k)
    if found is None:
        configs = np.indices((3,) * k).reshape(k, -1).T.copy()
        found = _CONFIGURATIONS[k] = (configs, (configs == 1).sum(axis=1), (configs == 2).sum(axis=1))
    return found


#: Cells of the count tables one chunk of :meth:`PairedPrior.solve_excluding` may hold (memory bound).
EXCLUDING_CHUNK = 2**21

class _NoBound:
    """Branch-and-bound bookkeeping of a prior without pair terms: 0 along every branch."""

    root = 0.0

    def extend(self, partial, prefix, s):
        return 0.0

    def value(self, partial):
        return 0.0


class IndependentPrior(MultitaskPrior):
    """No coupling (``prior="none"``): each task's structure on its own, whatever the penalty.

    ``phi`` is 0 for every configuration, so the joint search is the
    single-task search of every task (:func:`mtbn.learn.learn_structures`
    with ``prior="none"`` takes the penalty as 0 and chooses none).

    Examples
    --------
    >>> prior = make_prior("none", 0.0, 2)
    >>> gains = np.array([[[0.0, 2.0, -np.inf], [0.0, -1.0, 0.5]]])
    >>> float(prior.solve(gains, np.ones((1, 2), dtype=bool), prior.log_factors(2))[0])
    2.5
    """

    name = "none"
    exact = True
    has_penalty = False

    def __init__(self, penalty, n_tasks, *, reversal="single", edge_penalty=None):
        super().__init__(0.0, n_tasks, reversal=reversal)

    def is_coupled(self, n_vars):
        return False

    def log_prior(self, states, part, log_factor):
        return np.zeros(np.shape(states)[0])

    def solve(self, gains, part, log_factor):
        return np.where(part, state_max(gains), 0.0).sum(axis=1)

    def bound(self, part, log_factor):
        return _NoBound()


#: Registry of priors: name -> class (:func:`register_prior` adds one).
PRIORS = {"paired": PairedPrior, "edit": EditPrior, "none": IndependentPrior}


def register_prior(name, cls):
    """Make ``cls`` (a :class:`MultitaskPrior`) available by ``name`` to :func:`make_prior` and every learner.

    The command line's ``--prior`` choices are read from :data:`PRIORS` when
    its parser is built.

    Examples
    --------
    >>> class Harsh(EditPrior):
    ...     name = "harsh"  # the Edit prior with every edit counted twice
    ...     def log_prior(self, states, part, log_factor):
    ...         return 2 * super().log_prior(states, part, log_factor)
    ...     exact = False  # its own solve would need the doubled edits too: branch and bound instead
    ...     def bound(self, part, log_factor):
    ...         return super().bound(part, 2 * log_factor)
    >>> _ = register_prior("harsh", Harsh)
    >>> make_prior("harsh", 0.9, 3).name
    'harsh'
    >>> del PRIORS["harsh"]
    """
    if not (isinstance(cls, type) and issubclass(cls, MultitaskPrior)):
        raise error("prior-class", name=name)
    PRIORS[name] = cls
    return cls

register("prior-class", InvalidParameterError, "prior {name!r}: a prior must be a subclass of MultitaskPrior.",
         cause="register_prior was given something that is not a MultitaskPrior class.",
         fix="Subclass mtbn.priors.MultitaskPrior (or EditPrior / PairedPrior) and register the class.")
register("prior-edge-penalty-shape", InvalidParameterError, "edge_penalty must be a square matrix over the variables.",
         cause="The per-edge penalty matrix is not two-dimensional with as many rows as columns.",
         fix="Pass an n x n matrix (n variables) whose entry [i, j] is the penalty of the pair i, j; NaN keeps the "
             "global penalty.")
register("prior-edge-penalty-range", InvalidParameterError, "edge_penalty values must be in [0, 1].",
         cause="An entry of the per-edge penalty matrix is negative or above 1.",
         fix="Give every entry a value between 0 and 1, or NaN to use the global penalty for that pair.")
register("prior-weights-edit", InvalidParameterError, "prior={name!r} takes no pair weights (prior='paired' does).",
         cause="Task-pair weights were given together with a prior that has no task pairs to weight (e.g. Edit).",
         fix="Use prior='paired' with the weights, or drop the weights.")
register("prior-weights-shape", InvalidParameterError,
         "pair weights must be a {k} x {k} matrix (one row and column per task); got shape {shape}.",
         cause="The task-pair weight matrix does not have one row and one column per task.",
         fix="Pass a k x k matrix for k tasks, with rows and columns in task order.")
register("prior-weights-values", InvalidParameterError, "pair weights must be finite and non-negative.",
         cause="The task-pair weight matrix has a negative, infinite or NaN entry.",
         fix="Use weights >= 0 (0 leaves a pair of tasks uncoupled); replace NaN and infinite entries.")
register("prior-weights-symmetric", InvalidParameterError, "pair weights must be a symmetric matrix.",
         cause="The weight of task pair (s, t) differs from that of (t, s).",
         fix="Pass a symmetric matrix, e.g. (w + w.T) / 2.")


def make_prior(prior, penalty, n_tasks, *, reversal=None, weights=None, edge_penalty=None):
    """Validate the options and build the prior named ``prior``.

    Raises
    ------
    InvalidParameterError
        Unknown prior or reversal, a penalty outside [0, 1], or a pair-weight
        matrix of the wrong shape, asymmetric, negative or not finite.
    """
    check_option("prior", prior, PRIORS)
    cls = PRIORS[prior]
    penalty = check_penalty(penalty)
    if reversal is None:
        reversal = cls.default_reversal
    check_option("reversal", reversal, REVERSAL_COSTS)
    if edge_penalty is not None:
        edge_penalty = np.asarray(edge_penalty, dtype=float)
        if edge_penalty.ndim != 2 or edge_penalty.shape[0] != edge_penalty.shape[1]:
            raise error("prior-edge-penalty-shape")
        bad = edge_penalty[~np.isnan(edge_penalty)]
        if not np.all(is_penalty(bad)):
            raise error("prior-edge-penalty-range")
        edge_penalty = np.where(np.isnan(edge_penalty), penalty, edge_penalty)
    if not cls.takes_weights:
        if weights is not None:
            raise error("prior-weights-edit", name=prior)
        return cls(penalty, n_tasks, reversal=reversal, edge_penalty=edge_penalty)
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        if w.shape != (n_tasks, n_tasks):
            raise error("prior-weights-shape", k=n_tasks, shape=w.shape)
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise error("prior-weights-values")
        if not np.allclose(w, w.T, rtol=0, atol=1e-12):
            raise error("prior-weights-symmetric")
        weights = w
    return cls(penalty, n_tasks, reversal=reversal, weights=weights, edge_penalty=edge_penalty)


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
