"""Chains and restarts of the joint search: one chain per start, random perturbations between climbs.

Each start heads a chain that keeps its best configuration; a restart
perturbs that configuration (:func:`_perturb_joint`) with the chain's own
random stream and climbs again (:func:`mtbn.joint.climb._joint_climb`).
"""

import numpy as np

from mtbn.joint.climb import _joint_climb
from mtbn.joint.gains import _edged_pairs, _one_pair_gains

__all__ = []

#: Probability that a perturbation picks a node pair holding an edge in some task (else any pair).
EDGE_BIAS = 1.0


def _perturb_joint(search, rng, n_moves):
    """Apply ``n_moves`` random legal moves at random node pairs.

    Each move picks a pair and, with probability 1/2, puts every task that
    has both variables in one random state (a joint perturbation), else
    changes one random task's state (a per-task perturbation). Moves that
    would make a graph cyclic, break a constraint or get prior probability 0
    (penalty 1) are skipped.
    """
    iu, ju = search.iu, search.ju
    m = len(iu)
    present = np.stack([view.present for view in search.views])
    done = attempts = 0
    while done < n_moves and attempts < 50 * n_moves + 100 and m:
        attempts += 1
        if rng.random() < EDGE_BIAS:
            edged = _edged_pairs(search.views, iu, ju)
            if not len(edged):
                continue
            p = int(rng.choice(edged))
        else:
            p = int(rng.integers(m))
        gains, part, cur = _one_pair_gains(search.views, search.required, present, int(iu[p]), int(ju[p]),
                                           search.c)
        g, pt, s = gains[0], part[0], cur[0]
        if not pt.any():
            continue
        if rng.random() < 0.5:
            new = np.where(pt, int(rng.integers(3)), 0)
        else:
            new = s.copy()
            new[int(rng.choice(np.flatnonzero(pt)))] = int(rng.integers(3))
        if np.array_equal(new, s) or not np.all(np.isfinite(g[np.arange(len(new)), new])):
            continue
        if not np.isfinite(search.prior.log_prior(new[None], pt[None], search.L[p:p + 1])[0]):
            continue
        search.apply(p, s, new)
        done += 1
    return done



class _Chains:
    """The chains of one joint search, with what the result reports about them.

    ``configs[c]`` and ``scores[c]`` are chain ``c``'s best configuration and
    joint score so far; ``steps``, ``n_iter`` and ``hit_max`` gather every
    climb's moves, ``start_scores`` the score of each start's first climb and
    ``trace`` the best score over the chains after the starts and after each
    round of restarts.
    """

    def __init__(self, search, *, tabu_length, max_tabu_iter, max_iter):
        self.search = search
        self.climb_options = dict(tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, max_iter=max_iter)
        self.configs, self.scores = [], []
        self.steps, self.start_scores, self.trace = [], [], []
        self.n_iter = 0
        self.hit_max = False
        self.round = 0  # 0: the climbs from the starts; r: the r-th round of restarts

    def _climb(self):
        first = len(self.steps)
        config, score, n_iter, hit_max = _joint_climb(self.search, steps=self.steps, **self.climb_options)
        for step in self.steps[first:]:
            step["round"] = self.round
        self.n_iter += n_iter
        self.hit_max = self.hit_max or hit_max
        return config, score

    def start(self, all_starts):
        """Climb from each start (the first is the search's current configuration); one chain each."""
        for s, start in enumerate(all_starts):
            if s:
                self.search.set_config([[set(p) for p in g] for g in start])
            self.search.repair()
            config, score = self._climb()
            self.start_scores.append(float(score))
            self.configs.append(config)
            self.scores.append(score)
        self.trace.append(float(self.scores[self.best()]))

    def restart(self, rngs, n_moves):
        """One round of restarts: perturb each chain's best by ``n_moves`` moves and climb again."""
        self.round += 1
        for c, rng in enumerate(rngs):
            self.search.set_config(self.configs[c])
            _perturb_joint(self.search, rng, n_moves)
            config, score = self._climb()
            if score > self.scores[c] + self.search.tol:
                self.configs[c], self.scores[c] = config, score
        self.trace.append(float(self.scores[self.best()]))

    def best(self):
        """The index of the best chain (ties within the tolerance: the earlier start)."""
        return best_chain(self.scores, self.search.tol)


def best_chain(scores, tol):
    """The index of the highest of ``scores`` (one per chain); scores within ``tol`` of it: the earliest."""
    b = 0
    for c in range(1, len(scores)):
        if scores[c] > scores[b] + tol:
            b = c
    return b
