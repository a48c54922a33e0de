"""One climb of the joint search: greedy ascent over joint moves, then a tabu phase.

The climb reads every pair's value from a :class:`mtbn.joint.state._JointSearch`,
takes the first pair (in ``(i, j)`` order) whose improvement is within the
tolerance of the best, applies that pair's tie-broken best configuration
(:meth:`mtbn.joint.state._JointSearch.best_configuration`) and records the step.
"""

from collections import deque

import numpy as np

from mtbn.joint.result import _cache_counts

__all__ = []


def _joint_climb(search, *, tabu_length, max_tabu_iter, max_iter, steps):
    """Greedy ascent over joint moves, then a tabu phase; returns (config, score, n_iter, hit_max).

    Tabu attribute: a node pair changed in the last ``tabu_length`` moves may
    not change again unless the move reaches a new best score (aspiration).
    When no allowed move improves the score, the best allowed move that
    changes something is taken, up to ``max_tabu_iter`` moves without a new
    best. With ``tabu_length=0`` this is plain greedy search. Each move is
    appended to ``steps`` (see :class:`mtbn.joint.MultitaskSearchResult`).
    """
    tol = search.tol
    scorers = [v.table.scorer for v in search.views]
    tabu = deque()
    best_score = None
    since_best = []  # the moves applied since the best configuration so far: (pair, old states, new states)
    n_iter = 0
    stalls = 0
    while True:
        stats = {"n_configurations": 0, "n_pruned": 0}
        hits_before = _cache_counts(scorers)[0]
        gains, part, cur, phi, score = search.evaluate(stats)
        if best_score is None or score > best_score + tol:
            best_score, stalls = score, 0
            since_best.clear()
        elif n_iter:
            stalls += 1
        if max_iter is not None and n_iter >= max_iter:
            break
        in_tabu = np.zeros(len(phi), dtype=bool)
        in_tabu[list(tabu)] = True
        may_worsen = tabu_length != 0 and stalls < max_tabu_iter
        move = _next_move(search, gains, part, cur, phi, in_tabu, best_score + tol - score, may_worsen, stats)
        if move is None:
            break
        p, states, gain = move
        since_best.append((p, tuple(int(x) for x in cur[p]), tuple(int(x) for x in states)))
        search.apply(p, cur[p], states)
        n_iter += 1
        if tabu_length:
            tabu.append(p)
            if len(tabu) > tabu_length:
                tabu.popleft()
        steps.append(_step(search, p, states, gain, stats, _cache_counts(scorers)[0] - hits_before))
    hit_max = max_iter is not None and n_iter >= max_iter
    return _undo(search, search.config(), since_best), best_score, n_iter, hit_max


def _undo(search, config, moves):
    """``config`` with ``moves`` taken back, last first (parent sets only; the tables do not move).

    The climb copies the configuration once at its end instead of at every
    new best (a copy of every task's parent sets per step was 13% of the
    joint search's time on ANDES).
    """
    for p, old, new in reversed(moves):
        i, j = int(search.iu[p]), int(search.ju[p])
        for view, parents, a, b in zip(search.views, config, old, new):
            if a == b:
                continue
            u, v = view.loc(i), view.loc(j)
            if b:
                (parents[v] if b == 1 else parents[u]).discard(u if b == 1 else v)
            if a:
                (parents[v] if a == 1 else parents[u]).add(u if a == 1 else v)
    return config


def _next_move(search, gains, part, cur, phi, in_tabu, margin, may_worsen, stats):
    """The move to apply, ``(pair, states, gain)``, or None when the climb stops.

    The best allowed improving move (a tabu pair only if it improves by more
    than ``margin``); if none improves by more than the tolerance and
    ``may_worsen``, the best move outside the tabu list that changes the
    pair's configuration.
    """
    tol = search.tol
    candidates = search.candidates(gains, part, phi, in_tabu, margin, stats)
    top = float(candidates.max()) if len(candidates) else -np.inf
    if not top > tol:
        if not may_worsen:
            return None
        # Best move that changes something (the current state excluded).
        moving = search.moving_values(gains, part, cur, phi, in_tabu, stats) - phi
        candidates = np.where(in_tabu, -np.inf, moving)
        top = float(candidates.max())
        if not np.isfinite(top):
            return None
    p = int(np.flatnonzero(candidates >= top - tol)[0])
    exclude = cur[p] if top <= tol else None
    states = search.best_configuration(p, gains, part, exclude)
    return p, states, top


def _step(search, p, states, gain, stats, cache_hits):
    """The record of one applied move."""
    return {
        "pair": (int(search.iu[p]), int(search.ju[p])),
        "states": states,
        "gain": gain,
        "n_pairs_solved": search.n_solved,
        "n_configurations": stats["n_configurations"],
        "n_pruned": stats["n_pruned"],
        "cache_hits": cache_hits,
    }
