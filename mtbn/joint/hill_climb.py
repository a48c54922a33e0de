"""The multitask hill climb: greedy and tabu climbs over joint moves from several starts, with restarts.

:func:`multitask_hill_climb` checks its options, builds one delta table per
task and the search state, runs one chain per start (climb, then rounds of
perturb-and-climb) and returns the best chain's configuration. The tasks are
searched on their own when the prior couples no pair.
"""

import dataclasses

import numpy as np

from mtbn._validation import check_option
from mtbn.graph import DAG
from mtbn.joint.gains import _pair_gains, _task_views
from mtbn.joint.independent import _independent_search
from mtbn.joint.restarts import _Chains, best_chain
from mtbn.joint.result import MultitaskSearchResult, _cache_counts
from mtbn.joint.solvers import resolve_solver
from mtbn.joint.state import _JointSearch
from mtbn.messages import error, register
from mtbn.search import TIE_TOLERANCE

__all__ = ["multitask_hill_climb", "merge_chains"]


register("joint-rng-count", ValueError, "rng: one generator per start ({n_starts}) expected, got {n_rngs}",
         cause="rng was given as a list of generators whose length differs from the number of starts (the start "
               "structures plus extra_starts).",
         fix="Pass one numpy Generator per start, in the order of the starts, or a single Generator (or None).")


def multitask_hill_climb(
    scorers,
    starts,
    prior,
    *,
    local_index,
    max_parents=None,
    required=None,
    forbidden=None,
    edge_log_prior=None,
    solver="auto",
    tabu_length=0,
    max_tabu_iter=0,
    n_restarts=0,
    perturbation=None,
    rng=None,
    extra_starts=(),
    max_iter=None,
    tol=TIE_TOLERANCE,
    task_names=None,
    resolve="changed",
):
    """Search over joint moves for ``k`` tasks: greedy, tabu, restarts.

    Parameters
    ----------
    scorers : list of BDeuScore
        One per task (their caches are reused and extended).
    starts : list of list of sets
        Start parent sets per task (local indices). Pairs whose start states
        the prior forbids (penalty 1 and differing edges) start with no edge.
    prior : EditPrior or PairedPrior
        The multitask prior (:func:`mtbn.priors.make_prior`, built for ``k`` tasks) whose pair terms couple
        the tasks; with no coupling (and no ``edge_log_prior``) each task is searched on its own.
    local_index : ndarray (k, n_global)
        Column of each global variable in each task, -1 when absent.
    max_parents : int, optional
        Most parents a variable may have in any task's graph; None (the default) sets no limit.
    required, forbidden : ndarray (n_global, n_global) of bool, optional
        ``[u, v]`` True: the edge ``u -> v`` must be in (required) or may not be in (forbidden) every task's
        graph that has both variables; global indices. None: no constraint. The starts must already hold the
        required edges.
    edge_log_prior : ndarray (k, n_global, n_global), optional
        Per-task structure log-prior ``log P(G_t) = sum_edges w_t[u, v]``,
        weighted by the prior's exponent ``c``.
    solver : {"auto", "exact", "bnb", "exhaustive"}, default "auto"
        The solver of the pair problems (see :mod:`mtbn.joint`); ``"auto"`` takes the prior's exact solver
        where it has one, else branch and bound. All choose the same moves.
    tabu_length : int, default 0
        Node pairs changed in the last ``tabu_length`` moves stay fixed
        unless a move on them reaches a new best score (0: plain greedy).
    max_tabu_iter : int, default 0
        Moves without a new best score allowed before a climb stops.
    n_restarts : int, default 0
        Restarts per start: each start heads its own chain, and a restart
        perturbs the chain's best configuration by ``perturbation`` random
        joint or per-task moves (see :func:`_perturb_joint`) and climbs
        again. The best configuration over all chains is returned.
    perturbation : int, optional
        Random moves per restart (default ``max(1, n_vars // 4)``).
    rng : numpy.random.Generator or sequence of them, optional
        Draws the perturbations (default: seed 0); a sequence gives each
        start's chain its own stream (one per start), so that a chain's
        result does not depend on the other starts.
    extra_starts : sequence of start configurations
        More start configurations (same form as ``starts``); a climb runs
        from each and the best configuration found is kept (ties: the
        earlier start).
    max_iter : int, optional
        Joint moves allowed per climb.
    tol : float, default :data:`mtbn.search.TIE_TOLERANCE`
        A move must gain more than ``tol`` to be taken; moves whose gains are within ``tol`` of the best are
        tied (the first pair in ``(i, j)`` order wins).
    task_names : sequence of str, optional
        Accepted for the callers' convenience and not used: the graphs returned carry each task's variable
        names from its scorer's data.
    resolve : {"changed", "all"}, default "changed"
        After a move, re-solve only the node pairs whose gains changed (the
        pairs around the moved families, and those whose legality changed)
        or, by the specification, every pair. The moves are identical
        (tested); ``"all"`` exists to measure and check the incremental path.

    Returns
    -------
    MultitaskSearchResult
        The best configuration found (one DAG per task), its joint score and the search's statistics.

    Notes
    -----
    When the prior couples no pair (penalty 0 everywhere, or all pair
    weights 0) and there is no per-task structure prior, the configuration
    score separates per task, and each task is searched on its own with the
    single-task search (:func:`mtbn.search.hill_climb`, same tabu and
    restart settings) from its start: penalty 0 then gives exactly
    independent single-task learning. The joint neighbourhood would
    otherwise force every task to move at the same node pair.
    """
    check_option("resolve", resolve, ("changed", "all"))
    local_index = np.asarray(local_index)
    n = local_index.shape[1]
    required = np.zeros((n, n), dtype=bool) if required is None else required
    forbidden = np.zeros((n, n), dtype=bool) if forbidden is None else forbidden
    solver = resolve_solver(prior, solver)
    all_starts = [starts, *extra_starts]
    rngs = _chain_rngs(rng, len(all_starts))
    cache_before = _cache_counts(scorers)
    if edge_log_prior is None and not prior.is_coupled(n):
        return _independent_search(scorers, all_starts, local_index, required, forbidden, rngs[0], cache_before,
                                   max_parents=max_parents, max_iter=max_iter, tol=tol, tabu_length=tabu_length,
                                   max_tabu_iter=max_tabu_iter, n_restarts=n_restarts, perturbation=perturbation)
    views = _task_views(scorers, starts, local_index, forbidden, max_parents)
    search = _JointSearch(views, prior, required, edge_log_prior, solver, tol, resolve)
    chains = _Chains(search, tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, max_iter=max_iter)
    chains.start(all_starts)
    n_moves = perturbation if perturbation is not None else max(1, n // 4)
    for _ in range(n_restarts):
        chains.restart(rngs, n_moves)
    return _search_result(search, scorers, chains, cache_before, n_restarts)


def merge_chains(results, tol=TIE_TOLERANCE):
    """What one :func:`multitask_hill_climb` call with several starts returns, from one call per start.

    Chains do not interact: each start heads its own chain with its own
    random stream (``rng`` a sequence), so its climbs are the same whether
    it runs alone or beside the others. Given the result of each start's call
    alone (same scorers, prior, settings and stream), this is the result of
    the call with all of them, the starts in the order of ``results``: the
    best chain's configuration and scores (ties within ``tol``: the earlier
    start), the climbs' counts summed, the steps in the order the joint call
    takes them (the starts' climbs, then each round of restarts, chain by
    chain), the trace and the start scores. Only the cache and evaluation
    counts differ (each call fills its own caches).

    Parameters
    ----------
    results : sequence of MultitaskSearchResult
        One per start, each from a call with that start alone and one random stream.
    tol : float, default :data:`mtbn.search.TIE_TOLERANCE`
        The joint call's ``tol``.

    Returns
    -------
    MultitaskSearchResult
        The joint call's result.
    """
    results = list(results)
    if len(results) == 1:
        return results[0]
    best = results[best_chain([r.trace[-1] for r in results], tol)]
    trace = [results[best_chain([r.trace[i] for r in results], tol)].trace[i] for i in range(len(best.trace))]
    steps = sorted(((step.get("round", 0), c, i, step) for c, r in enumerate(results) for i, step in enumerate(r.steps)),
                   key=lambda item: item[:3])
    stopped = [r for r in results if not r.converged]
    return dataclasses.replace(
        best, n_iter=sum(r.n_iter for r in results), n_evaluations=sum(r.n_evaluations for r in results),
        cache_hits=sum(r.cache_hits for r in results), cache_misses=sum(r.cache_misses for r in results),
        steps=[item[3] for item in steps], converged=not stopped,
        message=stopped[0].message if stopped else best.message, trace=trace,
        start_scores=[x for r in results for x in r.start_scores])


def _chain_rngs(rng, n_starts):
    """One random stream per start: ``rng`` shared by all (default seed 0) or a sequence of one each."""
    if rng is None or isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(0) if rng is None else rng
        return [rng] * n_starts
    rngs = list(rng)
    if len(rngs) != n_starts:
        raise error("joint-rng-count", n_starts=n_starts, n_rngs=len(rngs))
    return rngs


def _search_result(search, scorers, chains, cache_before, n_restarts):
    """The result of a joint search, with the tasks set to the best chain's configuration."""
    search.set_config(chains.configs[chains.best()])
    views = search.views
    _, part, cur = _pair_gains(views, search.required, search.iu, search.ju, None, search.c)
    log_pair = float(search.prior.log_prior(cur, part, search.L).sum())
    log_struct = search.structure_log_prior()
    lls = [v.table.log_score for v in views]
    graphs = [DAG([set(p) for p in v.table.graph.parents], scorers[t].data.names) for t, v in enumerate(views)]
    hits, misses = _cache_counts(scorers)
    return MultitaskSearchResult(
        graphs=graphs,
        log_score=float(sum(lls) + log_pair + log_struct),
        log_likelihoods=lls,
        log_prior=log_pair + log_struct,
        n_iter=chains.n_iter,
        n_evaluations=sum(v.table.n_evaluations for v in views),
        cache_hits=hits - cache_before[0],
        cache_misses=misses - cache_before[1],
        solver=search.solver,
        steps=chains.steps,
        converged=not chains.hit_max,
        message="max_iter reached" if chains.hit_max else "no improving joint move",
        n_restarts=n_restarts,
        trace=chains.trace,
        start_scores=chains.start_scores,
    )
