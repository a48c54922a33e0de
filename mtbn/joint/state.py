"""The state of the joint search: the configuration of all tasks and every pair's best value.

:class:`_JointSearch` holds the tasks' views, the prior and its per-pair log
factors, and per node pair the best value of its pair problem (``values``)
and the best value over the configurations other than the current one
(``moving``). Both are kept until the pair's gains change, and pairs that
cannot be the best move hold an upper bound instead of an exact value. A
:class:`_Memo` remembers the pair problems solved so far by their inputs.
"""

import hashlib

import numpy as np

from mtbn.joint.configuration import best_configuration
from mtbn.joint.gains import _apply_joint, _IncrementalGains, _pair_gains
from mtbn.joint.solvers import best_values, solve_excluding
from mtbn.priors import state_max

__all__ = []


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
        self._values_stale = np.ones(len(self.iu), dtype=bool)
        self.moving = np.full(len(self.iu), -np.inf)
        self._moving_stale = np.ones(len(self.iu), dtype=bool)
        self._prev = None
        self._bound = None
        self._gains = _IncrementalGains(views, required, self.iu, self.ju, edge_log_prior, self.c)
        # "all": every pair solved, by the specification; with few tasks a solve costs less than its key
        self._memo = _Memo(self.L) if resolve == "changed" and len(views) >= MEMO_MIN_TASKS else None

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
            idx = np.flatnonzero(self._moving_stale)
            self._solve_moving(idx, gains, part, cur, stats)
            return self.moving
        cheap = _moving_bound(gains, cur)
        ub = np.minimum(cheap, self._bound) - phi
        allowed = ~excluded & np.isfinite(ub)
        exact = allowed & ~self._moving_stale
        best = float((self.moving - phi)[exact].max()) if exact.any() else -np.inf
        while True:
            slack = self.tol + 1e-9 * (1.0 + abs(best)) if np.isfinite(best) else np.inf
            need = np.flatnonzero(allowed & self._moving_stale & (ub >= best - slack))
            if not len(need):
                break
            if self._tighten(need, gains, part):
                ub[need] = np.minimum(cheap[need], self._bound[need]) - phi[need]
                allowed[need] &= np.isfinite(ub[need])
                continue
            if not np.isfinite(best):  # nothing exact yet: start with the most promising pairs
                need = need[np.argsort(-ub[need], kind="stable")[:MOVING_BATCH]]
            self._solve_moving(need, gains, part, cur, stats)
            found = (self.moving[need] - phi[need]).max()
            best = max(best, float(found))
        return np.where(self._moving_stale, ub + phi, self.moving)

    def candidates(self, gains, part, phi, in_tabu, margin, stats=None):
        """Each pair's improvement ``values - phi`` where the move is allowed, else -inf.

        A pair in ``in_tabu`` is allowed only if its improvement exceeds
        ``margin`` (aspiration). Exact for every pair that can be the best
        allowed move, tie with it within the tolerance, or show that some
        move improves by more than the tolerance; the others hold an upper
        bound below all of those (``resolve="all"``: every pair exact). The
        bound: the pair prior is <= 0, so no configuration beats the sum of
        the per-task best gains (kept by :meth:`evaluate`; ``gains`` must be
        the last call's).
        """
        tol = self.tol
        ub = self._bound - phi

        def allowed(imp, idx):
            return np.where(~in_tabu[idx] | (imp > margin), imp, -np.inf)

        exact = ~self._values_stale
        best = -np.inf
        if exact.any():
            idx = np.flatnonzero(exact)
            best = float(allowed(self.values[idx] - phi[idx], idx).max())
        while True:
            floor = max(best, tol)
            slack = tol + 1e-9 * (1.0 + abs(floor))
            need = np.flatnonzero(self._values_stale & (ub >= floor - slack) & (~in_tabu | (ub > margin - slack)))
            if not len(need):
                break
            if self._tighten(need, gains, part):
                ub[need] = self._bound[need] - phi[need]
                continue
            if not best > tol:  # nothing to bound by yet: start with the most promising pairs
                need = need[np.argsort(-ub[need], kind="stable")[:MOVING_BATCH]]
            self._solve_values(need, gains, part, stats)
            best = max(best, float(allowed(self.values[need] - phi[need], need).max()))
        improvement = np.where(self._values_stale, ub, self.values - phi)
        return allowed(improvement, np.arange(len(ub)))

    def _tighten(self, idx, gains, part):
        """Replace the bounds of ``idx`` by the prior's own (:meth:`upper_bound`) where not done yet; any done?

        :meth:`evaluate` keeps the cheap bound (the sum of the per-task best
        gains); the prior's, which may cost more, is taken only for the pairs
        that cheap bound cannot rule out.
        """
        loose = idx[~self._tight[idx]]
        if not len(loose):
            return False
        bound = self._remembered("bound", loose, gains, part, None,
                                 lambda rows: self.prior.upper_bound(gains[rows], part[rows], self.L[rows]))
        self._bound[loose] = np.minimum(self._bound[loose], bound)
        self._tight[loose] = True
        return True

    def _solve_values(self, idx, gains, part, stats):
        if len(idx):
            self.values[idx] = self._remembered(
                "values", idx, gains, part, None,
                lambda rows: best_values(self.prior, gains[rows], part[rows], self.L[rows], self.solver, stats))
            self._values_stale[idx] = False
            self.n_solved += len(idx)

    def _solve_moving(self, idx, gains, part, cur, stats):
        if len(idx):
            self.moving[idx] = self._remembered(
                "moving", idx, gains, part, cur[idx],
                lambda rows: solve_excluding(self.prior, gains[rows], part[rows], self.L[rows], cur[rows],
                                             self.solver, stats))
            self._moving_stale[idx] = False

    def _remembered(self, table, idx, gains, part, excluded, solve):
        """``solve(idx)``, from the memo where it holds the pairs' inputs (none with ``resolve="all"``)."""
        if self._memo is None:
            return solve(idx)
        return self._memo.values(table, self._memo.keys(idx, gains, part, excluded), idx, solve)

    def best_configuration(self, p, gains, part, exclude):
        """The tie-broken best configuration of pair ``p`` (:func:`mtbn.joint.configuration.best_configuration`;
        ``exclude``: a configuration to leave out, or None)."""
        def solve():
            return best_configuration(self.prior, gains[p], part[p], float(self.L[p]), self.solver, self.tol,
                                      exclude)[0]

        if self._memo is None:
            return solve()
        key = self._memo.keys(np.array([p]), gains, part, None if exclude is None else np.asarray(exclude))[0]
        return self._memo.item("configuration" if exclude is None else "configuration-excluding", key, solve)

    def evaluate(self, stats=None):
        """Gains, participation, current states, pair terms and the joint score."""
        gains, part, cur, fresh = self._gains()
        if self._prev is None or fresh is None or self.resolve == "all":
            changed = np.arange(len(self.iu))
            phi = self.prior.log_prior(cur, part, self.L)
            self._bound = state_max(gains).sum(axis=1)
            self._tight = np.zeros(len(self.iu), dtype=bool)
        else:
            # Only the freshly computed pairs can differ from the last call
            # (participation does not change during a search).
            changed = fresh[_rows_with_any(gains[fresh] != self._prev[fresh])]
            # A pair's prior term changes only with its states.
            moved = fresh[_rows_with_any(cur[fresh] != self._cur[fresh])]
            phi = self._phi.copy()
            # The candidates' bound (tightened by _tighten where needed): it too changes only with the gains.
            self._bound[changed] = state_max(gains[changed]).sum(axis=1)
            self._tight[changed] = False
            if len(moved):
                phi[moved] = self.prior.log_prior(cur[moved], part[moved], self.L[moved])
        self._cur, self._part, self._phi = cur, part, phi
        self._values_stale[changed] = True
        self.n_solved = 0
        if self.resolve == "all":
            self._solve_values(changed, gains, part, stats)
        self._prev = gains
        self._moving_stale[changed] = True
        score = sum(v.table.log_score for v in self.views) + float(phi.sum()) + self.structure_log_prior()
        return gains, part, cur, phi, score


class _Memo:
    """The results of the pair problems a search has solved, by their exact inputs.

    A pair's problem is a function of its gains (of the families around it),
    so a search that comes back to a configuration meets the same problems
    again: every restart climbs back towards its chain's best. On 50 related
    ALARM tasks (``learn_structures(penalty=0.99, n_restarts=10)``) 84% of the
    values, 90% of the moving values and 42% of the moves' configurations the
    final search asked for had been solved before in the same search. The
    solvers are deterministic and solve each pair of a batch on its own (the
    same bits alone or in any batch), so a remembered result is the result.

    A key is the bytes of the pair's gains, participation, log factor and (for
    the moving values) current states or, when those are longer than
    :data:`MEMO_KEY_BYTES`, their 128-bit BLAKE2b digest; a table holds at
    most :data:`MEMO_ENTRIES` and starts again empty beyond.
    """

    def __init__(self, log_factor):
        self.log_factor = np.ascontiguousarray(log_factor, dtype=np.float64)
        self.tables = {}

    def keys(self, idx, gains, part, excluded):
        """One key per pair of ``idx``; ``excluded``: the configuration each leaves out (a row per pair), or None."""
        n = len(idx)
        fields = [np.ascontiguousarray(gains[idx], dtype=np.float64).reshape(n, -1).view(np.uint8),
                  np.ascontiguousarray(part[idx], dtype=bool).view(np.uint8),
                  self.log_factor[idx, None].view(np.uint8)]
        if excluded is not None:
            fields.append(np.ascontiguousarray(excluded, dtype=np.int64).reshape(n, -1).view(np.uint8))
        rows = np.concatenate(fields, axis=1)
        keys = rows.view(np.dtype((np.void, rows.shape[1]))).ravel().tolist()  # one bytes object per row
        if rows.shape[1] > MEMO_KEY_BYTES:
            keys = [hashlib.blake2b(key, digest_size=16).digest() for key in keys]
        return keys

    def values(self, table, keys, idx, solve):
        """The values of the pairs ``idx`` (one per key): remembered, or ``solve`` of the others (then kept)."""
        found = self._table(table)
        got = [found.get(key) for key in keys]
        missing = [i for i, value in enumerate(got) if value is None]
        if not missing:
            return np.array(got, dtype=np.float64)
        new = np.asarray(solve(idx[np.asarray(missing)]), dtype=np.float64).tolist()
        for i, value in zip(missing, new):
            got[i] = found[keys[i]] = value
        return np.array(got, dtype=np.float64)

    def item(self, table, key, solve):
        """The result remembered under ``key``, or ``solve()`` (then kept)."""
        found = self._table(table)
        value = found.get(key)
        if value is None:
            value = found[key] = solve()
        return value

    def _table(self, name):
        found = self.tables.setdefault(name, {})
        if len(found) >= MEMO_ENTRIES:
            found.clear()
        return found


#: Entries each table of a search's :class:`_Memo` keeps before it starts again empty: with keys of at most
#: :data:`MEMO_KEY_BYTES` and a float each, a table of values stays under about 25 MB (the configurations'
#: tables grow by at most one entry per move).
MEMO_ENTRIES = 2**16
#: Longest key a :class:`_Memo` keeps as the inputs' own bytes (longer: their 16-byte digest). 256 bytes: the
#: values of up to 9 tasks, the moving values of up to 7.
MEMO_KEY_BYTES = 256
#: Tasks from which a search keeps a :class:`_Memo`: with fewer, solving a pair costs about what its key does.
#: learn_structures(penalty=0.99, n_joint_restarts=10), memo against none: 1.02-1.04x the time at 3 tasks
#: (ALARM x 250 rows, INSURANCE x 500, HEPAR2 x 250), 0.98-0.99x at 4, 0.92-0.97x at 5, ALARM 0.88x at 8 and
#: 0.82x at 12; the default learner on 5 tasks, alternated in one process, 1.011x (HEPAR2 x 250) and 0.982x
#: (ALARM x 1000), within its runs' spread.
MEMO_MIN_TASKS = 5


def _rows_with_any(mask):
    """``np.flatnonzero(mask.any(axis=all but the first))``, from the few true entries (faster for sparse masks)."""
    width = mask[0].size if len(mask) else 1
    return np.unique(np.flatnonzero(mask.ravel()) // width)


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
    total = state_max(gains).sum(axis=1)
    others = gains.copy()
    others[np.arange(m)[:, None], np.arange(k)[None, :], cur] = -np.inf
    single = state_max(others).max(axis=1)
    return np.where(total > 0, total, single)

