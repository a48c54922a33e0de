"""The Paired prior (paper eq. 2.8): ``(1 - delta)`` per disagreeing pair of tasks, optionally weighted."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mtbn.priors import kernels
from mtbn.priors.base import MultitaskPrior, _times, state_max
from mtbn.priors.kernels import (
    _before,
    _best_configuration_windowed,
    _count_step,
    _paired_best_configuration,
    _solve_excluding_windowed,
    _solve_windowed,
    _Windows,
)

#: Use the count windows from this many tasks on: below it the full DPs are faster (a joint search with 8, 16
#: and 20 ALARM tasks took 1.5x, 1.3x and 1.1x as long with the windows; 30 tasks 0.9-1.0x, 50 tasks 0.6x:
#: ``benchmarks/bench_count_windows.py``). The answers are the same either way.
WINDOW_MIN_TASKS = 24

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


class PairedPrior(MultitaskPrior):
    """The Paired prior (eq. 2.8): ``(1 - delta)`` per differing edge per task pair.

    The product over task pairs is raised to ``1 / (k - 1)``.

    Parameters
    ----------
    penalty : float
        delta in the paper, in [0, 1].
    n_tasks : int
        The number of tasks ``k``.
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
        """``phi`` of configurations ``states`` (m, k) with participation ``part`` (m, k).

        Parameters
        ----------
        states : ndarray of int, shape (m, k)
            One configuration per row: the state of the pair in each task (0 no edge, 1 ``i -> j``, 2 ``j -> i``).
        part : ndarray of bool, shape (m, k)
            Whether each task takes part in the pair (has both variables); the others add nothing.
        log_factor : float or ndarray of shape (m,)
            ``L = log(1 - delta)`` of each row's pair.

        Returns
        -------
        ndarray of float64, shape (m,)
            ``L / (k - 1)`` times the weighted sum, over the pairs of participating tasks, of the distances between
            their states (``0`` when that sum is 0, also when ``L`` is ``-inf``; all zeros for fewer than two tasks).
        """
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
        """``phi`` of a configuration with ``n0``, ``n1``, ``n2`` tasks in each state (equal weights only).

        Parameters
        ----------
        n0, n1, n2 : int or ndarray of int
            The numbers of participating tasks in state 0 (no edge), 1 (``i -> j``) and 2 (``j -> i``);
            arrays broadcast together.
        log_factor : float or ndarray of float
            ``L = log(1 - delta)`` of the pair, broadcast with the counts.

        Returns
        -------
        ndarray of float64
            ``L W / (k - 1) * (n0 n1 + n0 n2 + rc n1 n2)``, with ``W`` the common pair weight and ``rc`` the
            reversal cost; ``0`` where the count of differences is 0.
        """
        rc = self.D[1, 2]
        diff = n0 * n1 + n0 * n2 + rc * n1 * n2
        return _times(log_factor, diff * self._scale)

    def solve(self, gains, part, log_factor):
        """Best objective of each pair problem (DP over counts; equal weights only).

        Exact, O(k^3) per pair; a few pairs of few tasks are enumerated instead, and with many tasks the DP is
        restricted to the counts that can win. The values are the same either way.

        Parameters
        ----------
        gains : ndarray of shape (m, k, 3)
            ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (0 no edge, 1 ``i -> j``, 2 ``j -> i``)
            at pair ``p``; ``-inf`` where the state is illegal.
        part : ndarray of bool, shape (m, k)
            ``part[p, t]``: whether task ``t`` has both variables of pair ``p``; a task that does not keeps
            "no edge" and takes no part in the pair term.
        log_factor : ndarray of shape (m,)
            ``L = log(1 - delta)`` of each pair (:meth:`log_factors`), ``<= 0``, ``-inf`` where the penalty is 1.

        Returns
        -------
        ndarray of float64, shape (m,)
            The best objective ``max_s sum_t gains[p, t, s_t] + phi(s)`` of each pair; ``-inf`` when no
            configuration is legal.
        """
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

        Parameters
        ----------
        gains : ndarray of shape (m, k, 3)
            ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (0 no edge, 1 ``i -> j``, 2 ``j -> i``)
            at pair ``p``; ``-inf`` where the state is illegal.
        part : ndarray of bool, shape (m, k)
            ``part[p, t]``: whether task ``t`` has both variables of pair ``p``; a task that does not keeps
            "no edge" and takes no part in the pair term.
        log_factor : ndarray of shape (m,)
            ``L = log(1 - delta)`` of each pair (:meth:`log_factors`), ``<= 0``, ``-inf`` where the penalty is 1.
        exclude : ndarray of int, shape (m, k)
            The configuration to leave out at each pair (usually the current one), one state per task.

        Returns
        -------
        ndarray of float64, shape (m,)
            The best objective over the configurations other than ``exclude[p]`` of each pair; ``-inf`` where
            there is none.
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
        step = max(1, kernels.EXCLUDING_CHUNK // (2 * k + 2) ** 2)
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
        """The sum of the per-task best gains or, with many tasks, the count windows' bound if lower.

        Parameters
        ----------
        gains : ndarray of shape (m, k, 3)
            ``gains[p, t, s]``: task ``t``'s score gain for state ``s`` (0 no edge, 1 ``i -> j``, 2 ``j -> i``)
            at pair ``p``; ``-inf`` where the state is illegal.
        part : ndarray of bool, shape (m, k)
            ``part[p, t]``: whether task ``t`` has both variables of pair ``p``; a task that does not keeps
            "no edge" and takes no part in the pair term.
        log_factor : ndarray of shape (m,)
            ``L = log(1 - delta)`` of each pair (:meth:`log_factors`), ``<= 0``, ``-inf`` where the penalty is 1.

        Returns
        -------
        ndarray of float64, shape (m,)
            A value at least the best objective of each pair problem.
        """
        total = state_max(gains).sum(axis=1)
        if gains.shape[1] < WINDOW_MIN_TASKS or not len(total):
            return total
        upper = _Windows(self, gains, part, np.asarray(log_factor, dtype=float)).upper
        with np.errstate(invalid="ignore"):
            upper = upper + 1e-9 * (1.0 + np.abs(upper))  # rounding: the windows sum in another order
        return np.minimum(total, np.where(np.isnan(upper), np.inf, upper))

    def best_configuration(self, gains, part, log_factor, tol, exclude=None):
        """The tie-broken best configuration by count tables (equal weights, two or more tasks), else None.

        Parameters
        ----------
        gains : ndarray of shape (k, 3)
            ``gains[t, s]``: task ``t``'s score gain for state ``s`` of the pair; ``-inf`` where illegal.
        part : ndarray of bool, shape (k,)
            Whether each task has both variables of the pair.
        log_factor : float
            ``L = log(1 - delta)`` of the pair.
        tol : float
            Configurations whose objective is within ``tol`` of the best are tied; the lexicographically
            smallest of them is returned.
        exclude : sequence of int of length k, optional
            A configuration to leave out. None (the default) considers all.

        Returns
        -------
        tuple or None
            ``(configuration, value)``: one state per task (a tuple of int) and the best objective, ``((), -inf)``
            when no legal configuration is left; None for fewer than two tasks or unequal pair weights.
        """
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
        """Branch-and-bound bookkeeping for one pair problem (see :class:`_PairedBound`).

        Parameters
        ----------
        part : ndarray of bool, shape (k,)
            Whether each task takes part in the pair (has both variables).
        log_factor : float
            ``L = log(1 - delta)`` of the pair.

        Returns
        -------
        _PairedBound
            Carries the weighted distances between the tasks assigned so far: ``root``,
            ``extend(partial, prefix, s)`` and ``value(partial)`` (``L / (k - 1)`` times their sum).
        """
        k = self.n_tasks
        return _PairedBound(self.D, self.weights, part, log_factor / (k - 1) if k > 1 else 0.0)

    def n_configurations(self, n_pairs):
        """Configurations an exact solve of ``n_pairs`` pair problems looks at (the search's statistics).

        Parameters
        ----------
        n_pairs : int
            The number of pair problems solved together.

        Returns
        -------
        int
            ``3 k (k + 1)^2 n_pairs``: the cells the count DP updates.
        """
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
