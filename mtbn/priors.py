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
    for speed, :meth:`solve` with ``exact = True``).

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
        def before(x):  # sums over the tasks before each t (exclusive cumulative sum)
            out = np.zeros_like(x)
            out[:, 1:] = np.cumsum(x[:, :-1], axis=1)
            return out

        prefix_gain = before(fixed)
        c1 = before((part & (exclude == 1)).astype(np.int64))
        c2 = before((part & (exclude == 2)).astype(np.int64))
        n_part = part.sum(axis=1)
        scaled, valid = self._count_table(2 * k + 2)
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

    def best_configuration(self, gains, part, log_factor, tol, exclude=None):
        """The tie-broken best configuration by count tables (equal weights, two or more tasks), else None."""
        if np.shape(gains)[0] < 2 or not self.exact:
            return None
        return _paired_best_configuration(self, np.asarray(gains, dtype=float), part, log_factor, tol, exclude)

    def bound(self, part, log_factor):
        """Branch-and-bound bookkeeping for one pair problem (see :class:`_PairedBound`)."""
        k = self.n_tasks
        return _PairedBound(self.D, self.weights, part, log_factor / (k - 1) if k > 1 else 0.0)

    def n_configurations(self, n_pairs):
        k = self.n_tasks
        return 3 * k * (k + 1) ** 2 * n_pairs


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
