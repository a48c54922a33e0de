"""The searches that start the multitask searches of :func:`mtbn.learn.learn_structures`, and their schedule.

A joint search starts from one or more configurations (``start``): the
single-task solutions, the identical-structure (TSK) solution, the empty
graphs, or the user's. :func:`starts_of` computes those of several searches
(every CV fold, and the final search on all rows) in one parallel section
(:func:`mtbn.learn.single.start_searches`), together with other searches that
do not depend on the penalty (each fold's pooled structure, the sharing step's
candidate); :func:`fold_problems` builds every fold's problem from them.
Where a search runs never changes its result: each one draws from its own
random stream.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from mtbn.data import make_taskset
from mtbn.engine import Shared, in_worker_processes, job, local_workers, run_jobs
from mtbn.learn.checks import as_parent_sets, task_start
from mtbn.learn.grid import SELECTION_RESTARTS
from mtbn.learn.single import (
    call_function,
    identical_search,
    pooled_search,
    single_task_search,
    single_task_search_keeping_cache,
    start_searches,
)
from mtbn.progress import reporter
from mtbn.score import make_scorer

__all__: list = []  # used by mtbn.learn.multitask only

def search_starts(problem, seeds, datasets, scorers, restarts, say, coupled=True, defer=False, stl=None, identical=None):
    """Start configurations (first = primary) on ``datasets``, and the single-task results (None: not a start).

    ``coupled=False`` (a search that couples no pair): ``start="auto"`` gives the single-task start alone,
    the one such a search uses. ``defer``: the identical-structure start as a function that computes it (run
    by :func:`mtbn.learn.grid.run_penalty_chains` in that start's own job). ``stl``, ``identical``: the
    single-task results and the identical-structure start, if already searched.
    """
    part = StartPart(datasets, scorers, restarts, stl, done_identical=identical)
    return starts_of(problem, seeds, [part], say, coupled, defer)[0][:2]


@dataclass(frozen=True)
class StartPart:
    """One search whose starts :func:`starts_of` computes: its tasks, their scorers, the restarts of its start
    searches, its single-task results if already searched, and whether it takes the identical-structure start."""

    datasets: Sequence
    scorers: Sequence
    restarts: int
    stl: Any = None
    identical: bool = True
    extra: tuple = ()  # further searches of the same section (picklable functions), their results returned
    done_identical: Any = None  # the identical-structure start, if already searched


def starts_of(problem, seeds, parts, say, coupled=True, defer=False):
    """:func:`search_starts` of several searches (:class:`StartPart` each), their single-task and identical-structure
    searches (and the parts' ``extra`` searches) all in one parallel section
    (:func:`mtbn.learn.single.start_searches`); per part ``(starts, single-task results, extra results)``."""
    start = problem.start
    if not isinstance(start, str) or start == "empty":
        given = "given" if not isinstance(start, str) else "empty"
        found = extra_searches(problem, parts, say)
        return [([(given, (given_starts if given == "given" else empty_starts)(problem, part.datasets))], None,
                 extra) for part, extra in zip(parts, found)]
    single, identical = _start_kinds(problem, coupled)
    makers = [identical_maker(problem, seeds, part.datasets, part.restarts)
              if identical and part.identical and part.done_identical is None else None for part in parts]
    s = problem.settings
    found = start_searches([(part.scorers if single and part.stl is None else None, part.restarts,
                             ([m] if m is not None and not defer else []) + list(part.extra))
                            for part, m in zip(parts, makers)],
                           max_parents=s.max_parents, required=s.required, forbidden=s.forbidden, seeds=seeds.searches,
                           local_index=s.local_index, n_jobs=problem.n_jobs, say=say)
    out = []
    for part, maker, (stl, others) in zip(parts, makers, found):
        stl = part.stl if single and part.stl is not None else stl
        starts = [] if stl is None else [("single-task", [[set(p) for p in r.graph.parents] for r in stl])]
        if identical and part.done_identical is not None:
            starts.append(("identical", part.done_identical))
        elif maker is not None and not defer:
            starts.append(("identical", others.pop(0)))
        elif maker is not None:
            starts.append(("identical", maker))
        if start == "auto" and coupled:
            starts.append(("empty", empty_starts(problem, part.datasets)))
        out.append((starts, stl, others))
    return out


def _start_kinds(problem, coupled=True):
    """Whether a search on ``problem`` (with a start named by a string) starts from the single-task solutions,
    and whether from the identical-structure one."""
    start = problem.start
    single = start in ("auto", "single-task")
    identical = (start in ("auto", "identical") and problem.shared_variables and problem.taskset.n_tasks > 1
                 and (coupled or start != "auto"))
    return single, identical


def _selection_starts(starts):
    """A selection search's starts: the empty start, which only ties the others at delta = 1, left out."""
    return [st for st in starts if st[0] != "empty"] if len(starts) > 1 else starts


def extra_searches(problem, parts, say):
    """The parts' ``extra`` searches alone (starts that need no search): per part, their results."""
    s = problem.settings
    return [others for _, others in start_searches(
        [(None, part.restarts, list(part.extra)) for part in parts], max_parents=s.max_parents, required=s.required,
        forbidden=s.forbidden, seeds=(), local_index=s.local_index, n_jobs=problem.n_jobs, say=say)]


def checked_start(problem, parents, t, data, what):
    s = problem.settings
    return task_start(parents, data, s.local_index[t], s.required, s.forbidden, s.max_parents, what)


def given_starts(problem, datasets):
    out = []
    for t, (g, d) in enumerate(zip(problem.start, datasets)):
        what = f"start graph of task {d.name!r}"
        out.append(checked_start(problem, as_parent_sets(g, d.names, what), t, d, what))
    return out


def empty_starts(problem, datasets):
    return [checked_start(problem, [set() for _ in range(d.n_vars)], t, d, "empty start")
            for t, d in enumerate(datasets)]


def identical_maker(problem, seeds, datasets, restarts):
    """A function (picklable, a job's) that gives the TSK solution on ``datasets`` (tasks over the same
    variables), once per task."""
    s = problem.settings
    return functools.partial(identical_start, list(datasets), problem.taskset.variables, problem.score, problem.ess,
                             s.max_parents, s.required, s.forbidden, restarts, seeds.base)


def identical_start(datasets, names, score, ess, max_parents, required, forbidden, restarts, base):
    """The TSK solution on ``datasets`` (tasks over the same variables ``names``), once per task."""
    sub = make_taskset(datasets)
    order = [names.index(v) for v in sub.variables]
    shared, _ = identical_search(sub, ess=sub.n_tasks * ess, score=score, max_parents=max_parents,
                                 required=required[np.ix_(order, order)], forbidden=forbidden[np.ix_(order, order)],
                                 n_restarts=restarts, rng=np.random.default_rng([base, 4]))  # the TSK search's stream
    return [as_parent_sets(shared, d.names) for d in datasets]


def pooled_maker(problem, datasets, restarts, key):
    """A function (picklable, a job's) that gives :func:`_pooled_structure`."""
    s = problem.settings
    seed = int(np.random.SeedSequence(key).generate_state(1)[0])
    return functools.partial(pooled_graphs, list(datasets), problem.ess, problem.score, s.max_parents, s.required,
                             s.forbidden, restarts, seed)


def pooled_graphs(datasets, ess, score, max_parents, required, forbidden, restarts, seed):
    return pooled_search(make_taskset(datasets), ess=ess, score=score, max_parents=max_parents, required=required,
                         forbidden=forbidden, n_restarts=restarts, seed=seed)


#: Where the final search's identical-structure (TSK) search runs: None decides by the workers (see
#: :func:`identical_beside_folds`); True or False fixes it (``benchmarks/bench_parallel_trace.py`` traces the
#: schedule of 3 or more workers on 2 cores with it). Answers never depend on it.
IDENTICAL_BESIDE_FOLDS = None


def identical_beside_folds(problem):
    """Whether the final search's identical-structure search runs beside the folds' start searches (else in
    its chain's job, once the penalty says it is needed). With as many workers as the final search's three
    chains (or a cluster), the chains run side by side and the TSK search would lengthen the longest of them.
    With fewer, it runs in the chain's job, except where each fold's starts and first grid round are one job
    (:func:`first_round_with_starts`): there this process searches it beside the workers' folds, and the
    chains, one per process, all start ready (measured with ``benchmarks/bench_parallel_trace.py``)."""
    if IDENTICAL_BESIDE_FOLDS is not None:
        return IDENTICAL_BESIDE_FOLDS
    workers = local_workers(problem.n_jobs, 3)
    return workers is None or workers >= 3


#: Whether each fold's first grid round runs in its start searches' job: None decides by the workers (see
#: :func:`first_round_with_starts`); True or False fixes it (``benchmarks/bench_parallel_trace.py``). Answers
#: never depend on it.
FIRST_ROUND_WITH_STARTS = None


def first_round_with_starts(problem, n_folds):
    """Whether :func:`fold_problems` runs each fold's first grid round in the job of its start searches.

    A fold's starts and first round as one job keep its scores in one
    process and let no fold wait for the others' starts (at ``--jobs 2``
    on 5 folds, about 1 s less on 5 HEPAR2 tasks x 250 rows), but such a job
    cannot be cut: it pays only while every worker gets two folds or more.
    With more workers (or a cluster), the starts are one section and the
    grid's points are cut finer (:func:`mtbn.learn.grid.grid_jobs`); in one
    process nothing is sent, and the stages stay as they were.
    """
    if FIRST_ROUND_WITH_STARTS is not None:
        return FIRST_ROUND_WITH_STARTS
    workers = local_workers(problem.n_jobs, n_folds + problem.taskset.n_tasks + 1)
    return workers is not None and 2 <= workers and n_folds >= 2 * workers


@dataclass(frozen=True)
class Prepared:
    """What :func:`fold_problems` prepares: every fold's ``(scorers, starts, starts_are_optima)``; the final
    search's single-task results and identical-structure start, when searched beside them (else None); each
    fold's pooled structure, when asked for; the first round's searches, when asked for (else None):
    ``(results, rows)`` as :func:`mtbn.learn.grid.search_grid` returns them."""

    problems: list
    refit_stl: Any = None
    refit_identical: Any = None
    pooled: Any = None
    first: Any = None


@dataclass(frozen=True)
class FirstRound:
    """The first round of the penalty selection's grid searches, run by :func:`fold_problems` in each fold's
    job after its start searches: the penalties, the prior, the selection's search settings, the base seed,
    each fold's held-out rows and the equivalent sample size their parameters are fitted with."""

    penalties: list
    prior: Any
    settings: Any
    base: int
    held_out: list
    ess: float


@dataclass(frozen=True)
class _Outline:
    """What :func:`starts_of` reads of a problem, for a fold's job (the problem without its rows)."""

    start: Any
    shared_variables: bool
    taskset: Any  # n_tasks and variables
    settings: Any
    score: str
    ess: float
    n_jobs: Any = 1


@dataclass(frozen=True)
class _Names:
    n_tasks: int
    variables: list


def fold_problems(problem, seeds, trains, say, refit_scorers=None, pooled=False, first=None):
    """Every fold's scorers and starts (with the selection's effort), all folds' start searches in one
    parallel section (:class:`Prepared`). With ``refit_scorers`` (all rows) the final search's single-task
    searches run there too (they do not depend on the penalty), and its identical-structure search when
    :func:`identical_beside_folds` says so; with ``pooled``, each fold's pooled structure (the sharing step's
    candidate). With ``first`` (:class:`FirstRound`), each fold's start searches and then its first round of
    grid searches are one job: the fold's scorers fill their caches in one place, and no fold waits for
    another's starts (the same searches and results as the start section followed by
    :func:`mtbn.learn.grid.search_grid`).

    The empty start, which only ties the others at delta = 1, is left out of the selection's searches.
    """
    fold_scorers = [Shared(make_scorer(d, problem.score, problem.ess) for d in train) for train in trains]
    restarts = min(problem.n_restarts, SELECTION_RESTARTS)
    parts = [StartPart(train, sc, restarts,
                        extra=(pooled_maker(problem, train, restarts, [seeds.base, 7]),) if pooled else ())
             for train, sc in zip(trains, fold_scorers)]
    fused = (first is not None and isinstance(problem.start, str) and problem.start != "empty"
             and first_round_with_starts(problem, len(trains)))
    if refit_scorers is not None:
        # In the fused section this process searches the final search's identical-structure start beside the
        # workers (see _fused), so that the final search's chains all start ready.
        parts.append(StartPart(problem.taskset.tasks, refit_scorers, problem.n_restarts,
                                identical=identical_beside_folds(problem) or fused))
    say(f"starts of {len(trains)} fold{'s' if len(trains) > 1 else ''}"
        + (" and of the search on all rows" if refit_scorers is not None else ""))
    if fused:
        return _fused(problem, seeds, parts, len(trains), first, say)
    found = starts_of(problem, seeds, parts, say)
    problems = []
    for scorers, (starts, stl, _) in zip(fold_scorers, found):
        starts = _selection_starts(starts)
        problems.append((scorers, starts, stl is not None))
    refit_stl = refit_identical = None
    if refit_scorers is not None:
        starts, refit_stl, _ = found[-1]
        refit_identical = next((c for label, c in starts if label == "identical"), None)
    return Prepared(problems, refit_stl, refit_identical,
                     [extra[0] for _, _, extra in found[:len(trains)]] if pooled else None)




def _fused(problem, seeds, parts, n_folds, first, say):
    """:func:`fold_problems` with its first round: one section of each fold's job (:func:`fold_first_round`)
    and the final search's start searches, longest first."""
    outline = _Outline(problem.start, problem.shared_variables,
                       _Names(problem.taskset.n_tasks, list(problem.taskset.variables)), problem.settings,
                       problem.score, problem.ess)
    refit = parts[n_folds:]
    s = problem.settings
    single, identical = _start_kinds(problem)
    stl_calls = [(t, sc) for t, sc in enumerate(refit[0].scorers)] if refit and single else []
    maker = (identical_maker(problem, seeds, refit[0].datasets, refit[0].restarts)
             if refit and refit[0].identical and identical else None)
    folds = [functools.partial(fold_first_round, outline, seeds, parts[f], first, f) for f in range(n_folds)]
    sizes = [len(first.penalties) + single * len(parts[f].scorers) + identical + len(parts[f].extra)
             for f in range(n_folds)]
    stl_args = [(sc, s.local_index[t], s.max_parents, s.required, s.forbidden, refit[0].restarts,
                 seeds.searches[t]) for t, sc in stl_calls]
    label = f"starts and the first penalty round of {n_folds} fold{'s' if n_folds > 1 else ''}"
    # With worker processes this process searches the last fold, the final search's identical-structure start
    # and half of its single-task searches itself (on its own scorers: nothing sent, nothing merged) while the
    # workers search the other folds and then the other single-task searches: the operating system shares the
    # cores, and this process's share fills the time that the workers' uneven jobs would leave idle
    # (mtbn.learn.grid.problem_here does the same in the later grid rounds).
    n_calls = n_folds + len(stl_args) + (maker is not None)
    here = n_folds - 1 if in_worker_processes(problem.n_jobs, n_calls) else None
    mine = 0 if here is None else (len(stl_args) + 1) // 2  # the single-task searches this process runs
    beside = None
    if here is not None:
        def beside():
            return ([folds[here](caches=False)] + [(single_task_search(*a), None) for a in stl_args[:mine]]
                    + ([call_function(maker)] if maker is not None else []))
    sent = [f for i, f in enumerate(folds) if i != here]
    with reporter(say).stage(label, sum(sizes) + len(stl_calls) + (maker is not None), "search",
                             "searches") as tick:
        calls = ([job(call_function)(f) for f in sent]
                 + [job(single_task_search_keeping_cache)(*a) for a in stl_args[mine:]]
                 + ([job(call_function)(maker)] if maker is not None and here is None else []))
        done = run_jobs(calls, n_jobs=problem.n_jobs, tick=tick, beside=beside,
                        sizes=[z for i, z in enumerate(sizes) if i != here] + [1] * (len(calls) - len(sent))
                        + ([sizes[here] + mine + (maker is not None)] if beside else []))
    if here is not None:  # back in order: the folds, the final search's single-task searches, its TSK start
        own = done.pop()  # the last fold, this process's single-task searches (the first ones), the TSK start
        done = done[:here] + own[:1 + mine] + done[here:] + own[1 + mine:]
    problems, results, rows, pooled = [], [], [], []
    for part, (starts, stl, extra, found, found_rows, caches) in zip(parts, done[:n_folds]):
        for scorer, items in zip(part.scorers, caches or ()):
            scorer.merge_cache(items)
        problems.append((part.scorers, starts, stl is not None))
        results.append(found)
        rows.append(found_rows)
        pooled.append(extra[0] if extra else None)
    refit_stl = refit_identical = None
    if stl_calls:
        refit_stl = []
        for (t, sc), (result, cache) in zip(stl_calls, done[n_folds:n_folds + len(stl_calls)]):
            if cache is not None:
                sc.merge_cache(cache)
            refit_stl.append(result)
    if maker is not None:
        refit_identical = done[-1]
    return Prepared(problems, refit_stl, refit_identical, pooled if parts[0].extra else None, (results, rows))


def fold_first_round(outline, seeds, part, first, fold, caches=True):
    """One fold's start searches, then its first round of grid searches (a job of :func:`fold_problems`, in a
    worker process, or in this one beside them).

    Returns ``(starts, single-task results, extra results, grid results, held-out rows, caches)``, the
    caches holding every score the fold's scorers computed, for the later rounds (None without ``caches``: the
    search ran on the scorers themselves).
    """
    from mtbn.learn.grid import run_penalties

    ((starts, stl, extra),) = starts_of(outline, seeds, [part], None)
    starts = _selection_starts(starts)
    found, rows, _ = run_penalties(part.scorers, starts, first.prior, first.penalties, first.settings,
                                   valid=first.held_out[fold], ess=first.ess, base=first.base,
                                   starts_are_optima=stl is not None)
    return starts, stl, extra, found, rows, [sc.cache_items() for sc in part.scorers] if caches else None
