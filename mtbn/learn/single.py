"""Single-task learning: the front end :func:`learn_structure`, the identical-structure (TSK) method, and the
single-task searches that start the multitask search.

The multitask driver (:mod:`mtbn.learn.multitask`) starts from
:func:`single_task_starts` and :func:`identical_search`, so delta = 0 and
``prior="none"`` run the same single-task learner as :func:`learn_structure`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from mtbn._validation import check_max_parents, check_option, check_positive, check_random_state
from mtbn.data import DiscreteData, make_taskset
from mtbn.engine import job, run_jobs
from mtbn.graph import DAG
from mtbn.joint import local_constraints
from mtbn.learn.checks import (
    as_discrete_data,
    as_parent_sets,
    check_constraints,
    check_counts,
    constraint_matrices,
)
from mtbn.messages import error
from mtbn.progress import reporter
from mtbn.score import SCORES, make_scorer
from mtbn.search import SearchResult, hill_climb


def learn_structure(
    data: Any,
    *,
    score: str = "bdeu",
    equivalent_sample_size: float = 1.0,
    max_parents: int | None = None,
    required_edges: Any = None,
    forbidden_edges: Any = None,
    tiers: Sequence[Sequence[str]] | None = None,
    knowledge: Any = None,
    start: Any = None,
    tabu_length: int = 10,
    max_tabu_iter: int = 10,
    n_restarts: int = 50,
    perturbation: int | None = None,
    max_iter: int | None = None,
    random_state: Any = 0,
    scorer: Any = None,
) -> SearchResult:
    """Learn one Bayesian network structure by hill climbing (single task).

    Greedy search over edge additions, removals and reversals with a tabu
    list and random restarts (the paper's STL baseline), scored by BDeu.

    Parameters
    ----------
    data : DataFrame, DiscreteData or path to a CSV file
    score : {"bdeu", "bic"}
    equivalent_sample_size : float, default 1.0
        BDeu's equivalent sample size.
    max_parents : int, optional
    required_edges, forbidden_edges : list of (parent, child) names, DAG or networkx graph, optional
    tiers : sequence of sequences of names, optional
        Temporal order: no edge from a later tier into an earlier one.
    knowledge : pgmpy ExpertKnowledge, optional
        Its required / forbidden edges and temporal order are added
        (see :func:`constraint_matrices`).
    start : DAG, networkx.DiGraph or edge list, optional
        Start graph (default: empty). Required edges are added to it.
    tabu_length : int, default 10
        Recently undone moves that stay forbidden (0: plain hill climbing).
    max_tabu_iter : int, default 10
        Non-improving moves tolerated before a climb stops.
    n_restarts : int, default 50
        Random restarts, each from the best graph after ``perturbation``
        random moves.
    perturbation : int, optional
        Random moves per restart (default ``n_vars // 4``).
    max_iter : int, optional
        Moves allowed per climb.
    random_state : int, Generator or None, default 0
    scorer : BDeuScore, optional
        A scorer for ``data`` whose cache to reuse.

    Returns
    -------
    SearchResult
        ``graph`` (a DAG with variable names), ``log_score`` and statistics.

    Examples
    --------
    >>> from mtbn.networks import load_network, sample
    >>> d = sample(load_network("asia"), 2000, random_state=0)
    >>> res = learn_structure(d, n_restarts=0)
    >>> res.graph.n_nodes
    8
    """
    d = as_discrete_data(data)
    check_option("score", score, SCORES)
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    max_parents = check_max_parents(max_parents)
    check_counts(tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, n_restarts=n_restarts)
    rng = check_random_state(random_state)
    names = d.names
    required, forbidden = constraint_matrices(names, required_edges, forbidden_edges, tiers, knowledge)
    parents = check_constraints(as_parent_sets(start, names), required, forbidden, names, max_parents)
    if scorer is None:
        scorer = make_scorer(d, score, ess)
    return hill_climb(
        scorer,
        parents,
        max_parents=max_parents,
        required=required,
        forbidden=forbidden,
        tabu_length=int(tabu_length),
        max_tabu_iter=int(max_tabu_iter),
        n_restarts=int(n_restarts),
        perturbation=perturbation,
        rng=rng,
        max_iter=max_iter,
        names=names,
    )


def _single_task_search(scorer, local_index, max_parents, required, forbidden, n_restarts, seed):
    """One task's single-task search from its required edges (the multitask search's first start)."""
    req, forb = local_constraints(scorer, local_index, required, forbidden)
    start = [set(np.flatnonzero(req[:, v]).tolist()) for v in range(scorer.n_vars)]
    return hill_climb(
        scorer, start, max_parents=max_parents, required=req, forbidden=forb,
        tabu_length=10, max_tabu_iter=10, n_restarts=n_restarts,
        rng=np.random.default_rng(seed), names=scorer.data.names,
    )


def _single_task_search_keeping_cache(scorer, *args):
    """:func:`_single_task_search` in a worker process, returning the scores it computed with the result."""
    res = _single_task_search(scorer, *args)
    return res, scorer.cache_items()


def single_task_starts(scorers, *, max_parents, required, forbidden, n_restarts, seeds, local_index, n_jobs=None,
                       say=None):
    """Single-task solutions per task (local indices); tasks in parallel with ``n_jobs`` (same results).

    ``required`` / ``forbidden`` are over the global variables; task ``t``
    searches with the random stream ``seeds[t]``.
    """
    args = [(scorer, local_index[t], max_parents, required, forbidden, n_restarts, seeds[t])
            for t, scorer in enumerate(scorers)]
    with reporter(say).stage("single-task searches", len(args), "task") as tick:
        if n_jobs == 1 or len(scorers) < 2:  # in this process: the scorers keep their caches
            out = []
            for a in args:
                out.append(_single_task_search(*a))
                tick()
            return out
        out = []
        for t, (r, cache) in enumerate(run_jobs((job(_single_task_search_keeping_cache)(*a) for a in args),
                                                n_jobs=n_jobs, tick=tick)):
            # The worker's local scores come back: the joint search reuses them.
            scorers[t].merge_cache(cache)
            out.append(r)
        return out


def identical_search(ts, *, ess, score="bdeu", max_parents=None, required=None, forbidden=None, tabu_length=10,
                     max_tabu_iter=10, n_restarts=50, rng=None):
    """The TSK search on a TaskSet over shared variables; returns (shared DAG, SearchResult).

    ``required`` / ``forbidden`` are (n, n) matrices over ``ts.variables``.
    """
    k = ts.n_tasks
    n = ts.n_variables
    tsk = "TSK"
    while tsk in ts.variables:
        tsk = "_" + tsk
    codes = np.concatenate([ts.global_codes(t) for t in range(k)])
    task_codes = np.concatenate([np.full(d.n_samples, t, dtype=np.uint8) for t, d in enumerate(ts.tasks)])
    stacked = DiscreteData(
        np.column_stack([codes, task_codes]), ts.variables + (tsk,), ts.states + (ts.names,), "stacked"
    )
    req = np.zeros((n + 1, n + 1), dtype=bool)
    req[n, :n] = True
    forb = np.zeros((n + 1, n + 1), dtype=bool)
    forb[:n, n] = True
    if required is not None:
        req[:n, :n] = required
    if forbidden is not None:
        forb[:n, :n] = forbidden
    start = [{n} | set(np.flatnonzero(req[:n, v]).tolist()) for v in range(n)] + [set()]
    mp = None if max_parents is None else max_parents + 1
    scorer = make_scorer(stacked, score, ess)
    res = hill_climb(
        scorer, start, max_parents=mp, required=req, forbidden=forb,
        tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, n_restarts=n_restarts,
        rng=rng, names=stacked.names,
    )
    return DAG([set(p) - {n} for p in res.graph.parents[:n]], ts.variables), res


def learn_identical_structures(
    tasks: Any,
    *,
    equivalent_sample_size: float = 1.0,
    max_parents: int | None = None,
    tabu_length: int = 10,
    max_tabu_iter: int = 10,
    n_restarts: int = 50,
    random_state: Any = 0,
    task_column: str | None = None,
):
    """One structure shared by all tasks, by the paper's TSK method (Section 2.3.1).

    The tasks' rows are stacked with an extra variable ``TSK`` (the task),
    which is forced to be a parent of every other variable; the structure is
    learned by single-task search and ``TSK`` is dropped. All tasks must
    have the same variables. BDeu on the stacked data with equivalent sample
    size ``k * ess`` equals the sum of the tasks' BDeu with ``ess`` for every
    shared graph, so pass ``equivalent_sample_size=k * ess`` to reproduce the
    multitask search at penalty 1.

    Returns
    -------
    graphs : list of DAG
        The same graph once per task.
    result : SearchResult
        The search on the stacked data (with ``TSK`` as the last variable).

    Examples
    --------
    >>> from mtbn.networks import load_network, sample
    >>> net = load_network("asia")
    >>> tasks = [sample(net, 400, random_state=s).to_dataframe() for s in (1, 2)]
    >>> graphs, search = learn_identical_structures(tasks, equivalent_sample_size=2.0, n_restarts=0)
    >>> graphs[0] is graphs[1], graphs[0].n_edges
    (True, 8)
    """
    ts = make_taskset(tasks, task_column=task_column)
    if np.any(ts.local_index < 0):
        raise error("identical-needs-shared-variables", what="learn_identical_structures")
    shared, res = identical_search(
        ts, ess=equivalent_sample_size, max_parents=check_max_parents(max_parents), tabu_length=tabu_length,
        max_tabu_iter=max_tabu_iter, n_restarts=n_restarts, rng=check_random_state(random_state),
    )
    return [shared for _ in range(ts.n_tasks)], res
