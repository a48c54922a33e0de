"""The joint search when the prior couples no pair: one single-task search per task."""

import numpy as np

from mtbn.joint.gains import local_constraints
from mtbn.joint.result import MultitaskSearchResult, _cache_counts
from mtbn.search import hill_climb

__all__ = []


def _independent_search(scorers, all_starts, local_index, required, forbidden, rng, cache_before, *, max_parents,
                        max_iter, tol, tabu_length, max_tabu_iter, n_restarts, perturbation):
    """Uncoupled tasks: single-task searches per task from each start, the best kept per task.

    Each (task, start) search gets its own stream seeded from ``rng``;
    ``cache_before`` holds the scorers' (hits, misses) when the search began.
    """
    results = []
    seeds = rng.integers(0, 2**63 - 1, size=(len(scorers), len(all_starts)))
    for t, scorer in enumerate(scorers):
        req, forb = local_constraints(scorer, local_index[t], required, forbidden)
        best = None
        for s, starts in enumerate(all_starts):
            r = hill_climb(scorer, [set(p) for p in starts[t]], max_parents=max_parents, required=req,
                           forbidden=forb, max_iter=max_iter, tol=tol, names=scorer.data.names,
                           tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, n_restarts=n_restarts,
                           perturbation=perturbation, rng=np.random.default_rng(int(seeds[t, s])))
            if best is None or r.log_score > best.log_score + tol:
                best = r
        results.append(best)
    lls = [r.log_score for r in results]
    hits, misses = _cache_counts(scorers)
    return MultitaskSearchResult(
        graphs=[r.graph for r in results],
        log_score=float(sum(lls)),
        log_likelihoods=lls,
        log_prior=0.0,
        n_iter=sum(r.n_iter for r in results),
        n_evaluations=sum(r.n_evaluations for r in results),
        cache_hits=hits - cache_before[0],
        cache_misses=misses - cache_before[1],
        solver="independent",
        steps=[],
        converged=all(r.converged for r in results),
        message="tasks uncoupled (penalty 0): independent single-task searches",
        n_restarts=n_restarts,
        trace=[float(sum(lls))],
        start_scores=[],
    )
