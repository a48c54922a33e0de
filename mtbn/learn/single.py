"""Single-task learning: the front end :func:`learn_structure`, the identical-structure (TSK) method, and the
single-task searches that start the multitask search.

The multitask driver (:mod:`mtbn.learn.multitask`) starts from
:func:`single_task_starts` and :func:`identical_search`, so delta = 0 and
``prior="none"`` run the same single-task learner as :func:`learn_structure`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from mtbn._validation import check_random_state
from mtbn.data import DiscreteData, make_taskset
from mtbn.engine import in_worker_processes, job, local_workers, run_jobs
from mtbn.graph import DAG
from mtbn.joint import local_constraints
from mtbn.learn.settings import IDENTICAL, SINGLE
from mtbn.learn.checks import (
    as_discrete_data,
    as_parent_sets,
    check_constraints,
    constraint_matrices,
)
from mtbn.messages import error
from mtbn.progress import reporter
from mtbn.score import make_scorer
from mtbn.search import SearchResult, hill_climb


@SINGLE.declare(leading=("data",), trailing={"scorer": None})
def learn_structure(data: Any, *, scorer: Any = None, **settings: Any) -> SearchResult:
    """Learn one Bayesian network structure by hill climbing (single task).

    Greedy search over edge additions, removals and reversals with a tabu
    list and random restarts (the paper's STL baseline), scored by BDeu. The
    settings are declared in :data:`mtbn.learn.settings.SINGLE`.

    Parameters
    ----------
    data : DataFrame, DiscreteData or path to a CSV file
        The rows to learn from, one column per variable: a DataFrame of state labels, a DiscreteData, or the path
        of a CSV file.
    {settings}
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
    s = SINGLE.bind("learn_structure", settings)
    d = as_discrete_data(data)
    names = d.names
    max_parents = s["max_parents"]
    required, forbidden = constraint_matrices(names, s["required_edges"], s["forbidden_edges"], s["tiers"],
                                              s["knowledge"])
    parents = check_constraints(as_parent_sets(s["start"], names), required, forbidden, names, max_parents,
                                arities=d.arities)
    if scorer is None:
        scorer = make_scorer(d, s["score"], s["equivalent_sample_size"])
    return hill_climb(
        scorer,
        parents,
        max_parents=max_parents,
        required=required,
        forbidden=forbidden,
        tabu_length=int(s["tabu_length"]),
        max_tabu_iter=int(s["max_tabu_iter"]),
        n_restarts=int(s["n_restarts"]),
        perturbation=s["perturbation"],
        rng=check_random_state(s["random_state"]),
        max_iter=s["max_iter"],
        names=names,
    )


def single_task_search(scorer, local_index, max_parents, required, forbidden, n_restarts, seed):
    """One task's single-task search from its required edges (the multitask search's first start)."""
    req, forb = local_constraints(scorer, local_index, required, forbidden)
    start = [set(np.flatnonzero(req[:, v]).tolist()) for v in range(scorer.n_vars)]
    return hill_climb(
        scorer, start, max_parents=max_parents, required=req, forbidden=forb,
        tabu_length=10, max_tabu_iter=10, n_restarts=n_restarts,
        rng=np.random.default_rng(seed), names=scorer.data.names,
    )


def single_task_search_keeping_cache(scorer, *args):
    """:func:`single_task_search` in a worker process, returning the scores it computed with the result (only
    those: the scorer arrived with the others)."""
    mark = scorer.cache_mark()
    res = single_task_search(scorer, *args)
    return res, scorer.cache_items(mark)


def single_task_starts(scorers, *, max_parents, required, forbidden, n_restarts, seeds, local_index, n_jobs=None,
                       say=None):
    """Single-task solutions per task (local indices); tasks in parallel with ``n_jobs`` (same results).

    ``required`` / ``forbidden`` are over the global variables; task ``t``
    searches with the random stream ``seeds[t]``.
    """
    return start_searches([(scorers, n_restarts, ())], max_parents=max_parents, required=required,
                          forbidden=forbidden, seeds=seeds, local_index=local_index, n_jobs=n_jobs, say=say)[0][0]


def start_searches(parts, *, max_parents, required, forbidden, seeds, local_index, n_jobs=None, say=None):
    """The searches that start several multitask searches, all in one parallel section (they are independent).

    ``parts``: per multitask search, ``(scorers, n_restarts, others)``:
    each task's single-task search on ``scorers[t]`` (stream ``seeds[t]``;
    ``scorers`` None: none), and ``others``, functions (picklable) whose
    results are further starts (e.g. the identical-structure search). In
    worker processes the single-task searches send the local scores they
    computed back into ``scorers``, for the searches that follow; in this
    process (one worker) the scorers fill their caches themselves. Returns
    per part ``(single-task results or None, [each other function's result])``,
    the same at any ``n_jobs``.
    """
    work = []  # (part, task or None for an "other", its index)
    for p, (scorers, restarts, others) in enumerate(parts):
        work += [(p, t, None) for t in range(len(scorers or ()))] + [(p, None, i) for i in range(len(others))]
    if not work:
        return [(None if scorers is None else [], []) for scorers, _, _ in parts]

    def cost(item):  # the longest jobs first, so that no worker is left with a long one at the end
        p, t, _ = item
        scorers, restarts, _ = parts[p]
        rows = sum(sc.data.n_samples for sc in scorers) if t is None and scorers else (
            scorers[t].data.n_samples if t is not None else 0)
        return -(restarts + 1) * rows * (2 if t is None else 1)

    work.sort(key=cost)

    def stl_args(p, t):
        scorers, restarts, _ = parts[p]
        return scorers[t], local_index[t], max_parents, required, forbidden, restarts, seeds[t]

    def here(p, t, i):  # a search in this process, on the scorers themselves (they keep their caches)
        return single_task_search(*stl_args(p, t)) if t is not None else parts[p][2][i]()

    local = n_jobs == 1 or len(work) < 2
    mine = set() if local else set(searched_here(work, [cost(w) for w in work], n_jobs))  # searched here
    kinds = "single-task and identical-structure searches" if any(o for *_, o in parts) else "single-task searches"
    with reporter(say).stage(kinds, len(work), "search", "searches") as tick:
        if local:
            done = []
            for item in work:
                done.append(here(*item))
                tick()
        else:
            sent = [w for k, w in enumerate(work) if k not in mine]
            beside = (lambda: [here(*work[k]) for k in sorted(mine)]) if mine else None
            back = run_jobs((job(single_task_search_keeping_cache)(*stl_args(p, t)) if t is not None
                             else job(call_function)(parts[p][2][i]) for p, t, i in sent), n_jobs=n_jobs, tick=tick,
                            beside=beside, sizes=[1] * len(sent) + [len(mine)] if mine else None)
            own = iter(back.pop() if mine else ())
            back = iter(back)
            done = [next(own) if k in mine else next(back) for k in range(len(work))]
    out = [(None if scorers is None else [None] * len(scorers), [None] * len(others)) for scorers, _, others in parts]
    for k, ((p, t, i), result) in enumerate(zip(work, done)):  # in the parts' order, whatever order they ran in
        if t is None:
            out[p][1][i] = result
            continue
        if not local and k not in mine:
            result, cache = result
            parts[p][0][t].merge_cache(cache)  # the worker's local scores come back: the joint search reuses them
        out[p][0][t] = result
    return out


def searched_here(work, costs, n_jobs):
    """Which of ``work`` (longest first, ``costs`` each, more negative = longer) this process searches itself
    while worker processes search the rest (:func:`start_searches`): none without local worker processes;
    else one share of a longest-first split of ``work`` among the workers and this process.

    The operating system shares the cores between this process and the
    workers, so this process's share fills the time that the workers'
    uneven jobs would leave idle: 5 equal searches on 2 workers take 3
    searches' time alone (3 and 2), and 2.5 with this process's 2 beside
    them (the worker left with one search frees its core for the others). A
    search here needs nothing sent or received, and its scorer keeps the
    scores it computes. Results never depend on where a search runs.
    """
    if not in_worker_processes(n_jobs, len(work)):
        return []
    workers = local_workers(n_jobs, len(work))
    loads, shares = [0.0] * (workers + 1), [[] for _ in range(workers + 1)]
    for k in sorted(range(len(work)), key=lambda k: costs[k]):
        j = loads.index(min(loads))
        loads[j] -= costs[k]
        shares[j].append(k)
    return max(shares, key=len)  # the share with the most searches: the most sent and received saved


def call_function(function):
    """``function()`` (a job of :func:`start_searches`)."""
    return function()


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
    codes = ts.pooled().codes
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


def pooled_search(ts, *, ess, score="bdeu", max_parents=None, required=None, forbidden=None, n_restarts=50,
                  seed=0):
    """One structure learned from all tasks' rows stacked (the POOLED baseline), as one DAG per task.

    ``ts``: tasks over the same variables and state lists; ``required`` /
    ``forbidden``: (n, n) matrices over ``ts.variables``. Each task's DAG
    lists its nodes in that task's column order.
    """
    pooled = ts.pooled()
    local = np.arange(ts.n_variables)
    res = single_task_search(make_scorer(pooled, score, ess), local, max_parents, required, forbidden, n_restarts,
                              seed)
    return [DAG(as_parent_sets(res.graph, d.names), d.names) for d in ts.tasks]


@IDENTICAL.declare(leading=("tasks",))
def learn_identical_structures(tasks: Any, **settings: Any):
    """One structure shared by all tasks, by the paper's TSK method (Section 2.3.1).

    The tasks' rows are stacked with an extra variable ``TSK`` (the task),
    which is forced to be a parent of every other variable; the structure is
    learned by single-task search and ``TSK`` is dropped. All tasks must
    have the same variables. BDeu on the stacked data with equivalent sample
    size ``k * ess`` equals the sum of the tasks' BDeu with ``ess`` for every
    shared graph, so pass ``equivalent_sample_size=k * ess`` to reproduce the
    multitask search at penalty 1.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, list of DataFrames, TaskSet, or DataFrame
        The tasks, all over the same variables; with one DataFrame, ``task_column`` names the column that splits
        it into tasks.
    {settings}

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
    s = IDENTICAL.bind("learn_identical_structures", settings)
    ts = make_taskset(tasks, task_column=s["task_column"])
    if np.any(ts.local_index < 0):
        raise error("identical-needs-shared-variables", what="learn_identical_structures")
    shared, res = identical_search(
        ts, ess=s["equivalent_sample_size"], max_parents=s["max_parents"], tabu_length=s["tabu_length"],
        max_tabu_iter=s["max_tabu_iter"], n_restarts=s["n_restarts"], rng=check_random_state(s["random_state"]),
    )
    return [shared for _ in range(ts.n_tasks)], res
