"""The joint search at one penalty, or at every penalty of a grid (cold or warm-started).

:func:`run_penalty` is the one place where :func:`mtbn.joint.multitask_hill_climb`
is called: by the final search at the chosen penalty and by every (fold,
grid point) search of the penalty selection (:func:`search_grid`). A
search's random streams are keyed by its start's label and its penalty, so
results do not depend on grid order, on ``n_jobs`` or on where the jobs run.
"""

import functools
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import zlib

from mtbn.engine import in_worker_processes, job, local_workers, run_jobs, sent_once
from mtbn.heldout import split_rows
from mtbn.joint import merge_chains, multitask_hill_climb
from mtbn.priors import make_prior
from mtbn.progress import reporter
from mtbn.search import TIE_TOLERANCE

#: Default penalty grid: 1 - delta = 1, 1e-1, ..., 1e-8, 1e-10, 1e-12, 1e-14, then
#: delta = 1. Past 1 - delta = 1e-14 a double no longer holds 1 - delta to 1%.
DEFAULT_PENALTY_GRID = tuple(
    [0.0] + [1.0 - 10.0 ** -e for e in (*range(1, 9), 10, 12, 14)] + [1.0]
)

#: Effort of the searches that only score grid points during penalty
#: selection: restarts of the single-task and TSK starts, and joint restarts
#: per start. The final search at the chosen penalty uses the full settings.
#: (10 restarts until 2026-11-25; 2 measured no worse on the robustness suite.)
SELECTION_RESTARTS = 2
SELECTION_JOINT_RESTARTS = 0


@dataclass(frozen=True, eq=False)
class PriorSpec:
    """The multitask prior, checked, without its penalty: :meth:`at` builds it at one penalty."""

    prior: str
    n_tasks: int
    reversal: "str | None" = None
    weights: Any = None
    edge_penalty: Any = None

    @property
    def plain(self):
        """Whether the prior has no per-pair weights or per-edge penalties (identical structures cost nothing)."""
        return self.weights is None and self.edge_penalty is None

    def at(self, penalty):
        return make_prior(self.prior, penalty, self.n_tasks, reversal=self.reversal, weights=self.weights,
                          edge_penalty=self.edge_penalty)


@dataclass(frozen=True, eq=False)
class SearchSettings:
    """Everything the joint search needs besides the scores, the starts and the prior (global indices).

    ``n_restarts`` is the number of joint restarts per start (``n_joint_restarts``); the values come from
    the checked settings (no defaults here: :mod:`mtbn.learn.settings` declares them).
    """

    local_index: np.ndarray
    required: np.ndarray
    forbidden: np.ndarray
    max_parents: "int | None"
    edge_log_prior: "np.ndarray | None"
    solver: str
    max_iter: "int | None"
    tabu_length: int
    max_tabu_iter: int
    n_restarts: int


def _point_rng(base, penalty, label):
    """The random stream of one start's chain at one penalty (independent of grid order and n_jobs)."""
    return np.random.default_rng([base, 3, zlib.crc32(repr(float(penalty)).encode("ascii")),
                                  zlib.crc32(label.encode("utf-8"))])


def run_penalty(scorers, starts, prior, penalty, settings, *, base=0, starts_are_optima=False):
    """The joint search at one penalty from one or more start configurations.

    ``starts`` is a list of ``(label, configuration)``: each start heads its
    own chain of restarts, with a random stream keyed by its label and the
    penalty, so a chain gives the same result whatever the other starts are
    (the result is the best chain's). When the prior couples no pair and
    the first start holds the single-task solutions (``starts_are_optima``),
    those are the answer: the uncoupled search is the single-task search
    that produced them, so it runs plain greedy from them (no move improves)
    and penalty 0 equals single-task learning.
    """
    prior = prior.at(penalty)
    uncoupled = settings.edge_log_prior is None and not prior.is_coupled(settings.local_index.shape[1])
    if uncoupled and starts_are_optima:
        settings = replace(settings, tabu_length=0, max_tabu_iter=0, n_restarts=0)
        starts = starts[:1]
    # Uncoupled searches do not depend on the penalty, nor do their random streams.
    rngs = [np.random.default_rng([base, 3]) if uncoupled else _point_rng(base, penalty, label) for label, _ in starts]
    configs = [c for _, c in starts]
    s = settings
    return multitask_hill_climb(
        scorers, configs[0], prior, extra_starts=configs[1:], rng=rngs, local_index=s.local_index,
        max_parents=s.max_parents, required=s.required, forbidden=s.forbidden, edge_log_prior=s.edge_log_prior,
        solver=s.solver, max_iter=s.max_iter, tabu_length=s.tabu_length, max_tabu_iter=s.max_tabu_iter,
        n_restarts=s.n_restarts,
    )


def run_penalty_chains(scorers, starts, prior, penalty, settings, *, base=0, starts_are_optima=False, n_jobs=None,
                       say=None):
    """:func:`run_penalty` with each start's chain (its climbs and restarts) a parallel job of its own.

    A start may be given as ``(label, make)`` with ``make()`` returning its
    configuration (e.g. the identical-structure search): it runs in that
    start's job, beside the other chains. Chains do not interact
    (:func:`mtbn.joint.merge_chains`), so the answer is :func:`run_penalty`'s
    at any ``n_jobs``; with one worker, or a search that couples no pair, it
    is :func:`run_penalty` itself.
    """
    coupled = settings.edge_log_prior is not None or prior.at(penalty).is_coupled(settings.local_index.shape[1])
    if not coupled or len(starts) < 2:
        return run_penalty(scorers, [(label, _made(start)) for label, start in starts], prior, penalty, settings,
                           base=base, starts_are_optima=starts_are_optima)
    with reporter(say).stage("multitask search chains", len(starts), "chain", "chains") as tick:
        if local_workers(n_jobs, len(starts)) == 1:  # in this process, one chain after the other
            found = []
            for start in starts:
                found += _chains(scorers, [start], prior, penalty, settings, base)
                tick()
        else:
            workers = local_workers(n_jobs, len(starts))
            # With worker processes this process runs a group too: one more group than workers.
            groups = chain_groups(starts, workers + 1 if in_worker_processes(n_jobs, len(starts)) else workers)
            shipped = sent_once(scorers, n_jobs, len(groups))  # every job gets the scorers and their caches
            beside = None
            if shipped is not scorers:  # worker processes: this process runs the first (longest) group itself,
                here = groups.pop(0)  # its caches warm, nothing to send
                shipped.freeze()  # before this process's chains add to the caches

                def beside():
                    return _chains(scorers, [starts[i] for i in here], prior, penalty, settings, base)

            done = run_jobs((job(_chains)(shipped, [starts[i] for i in g], prior, penalty, settings, base)
                             for g in groups), n_jobs=n_jobs, tick=tick, beside=beside,
                            sizes=[len(g) for g in groups] + ([len(here)] if beside else []))
            if beside is not None:
                groups.append(here)
            found = [None] * len(starts)
            for g, results in zip(groups, done):
                for i, result in zip(g, results):
                    found[i] = result
    return merge_chains(found)


def chain_groups(starts, workers):
    """The jobs of :func:`run_penalty_chains`: lists of start indices, one job per local worker at most (with
    worker processes, ``workers`` counts this process too: it runs the first group itself).

    Chains in one job run one after the other on one copy of the scorers,
    so a later chain finds the local scores an earlier one computed. A
    start that is still to be computed (a function, e.g. the
    identical-structure search) counts as two chains; each start goes to
    the job with the least work so far (longest first). Where the cluster
    decides (``workers`` None), a job per chain.
    """
    if workers is None:
        return [[i] for i in range(len(starts))]
    cost = [2 if callable(start) else 1 for _, start in starts]
    groups, load = [[] for _ in range(min(workers, len(starts)))], [0] * min(workers, len(starts))
    for i in sorted(range(len(starts)), key=lambda i: -cost[i]):
        g = load.index(min(load))
        groups[g].append(i)
        load[g] += cost[i]
    return [sorted(g) for g in groups]


def _chains(scorers, starts, prior, penalty, settings, base):
    """Each start's chain at ``penalty``, in turn (a job of :func:`run_penalty_chains`)."""
    return [run_penalty(scorers, [(label, _made(start))], prior, penalty, settings, base=base)
            for label, start in starts]


def _made(start):
    """A start configuration, or the one its function computes (:func:`run_penalty_chains`)."""
    return start() if callable(start) else start


def _configs(result):
    return [[set(p) for p in g.parents] for g in result.graphs]


def search_grid(problems, grid, prior, settings, *, base, warm_start, n_jobs, say, held_out=None, ess=None):
    """The joint search at every penalty of ``grid`` (sorted increasing), for each problem.

    With ``held_out`` (per problem, the held-out rows of each of its tasks) every search's structures are also
    scored there, in the job that learned them (:func:`mtbn.heldout.split_rows`, parameters fitted on the
    problem's scorers' rows with ``ess``): returns ``(results, rows)``, ``rows[problem][point][task]``.

    ``problems`` is a list of ``(scorers, starts, starts_are_optima)``, one
    per CV fold; returns one list of results (one per grid point) per
    problem. Cold (default): every (problem, point) search starts from the
    problem's ``starts``, all of them in one joblib loop (so a Dask cluster
    sees folds x points jobs). ``warm_start``: continuation in both
    directions, problem by problem. An upward pass adds the previous point's
    result to each point's starts; a downward pass then searches each point
    from its upward result and the next point's downward result. Each point
    keeps the best score it saw, so a warm point never scores below the
    cold search from ``starts``.
    """
    valid = [None] * len(problems) if held_out is None else held_out
    if not warm_start:
        label = "penalty grid" + (" x folds" if len(problems) > 1 else "")
        workers = local_workers(n_jobs, len(grid) * len(problems))
        here = problem_here(len(problems), n_jobs, len(grid) * len(problems))
        cut = grid_cut(len(problems), len(grid), workers, here)
        keep = workers != 1  # jobs in other processes send back the scores they computed, for the next rounds

        def search(p, points, keep):  # the run_penalties call of problem p's points
            return ((*problems[p][:2], prior, [grid[i] for i in points], settings),
                    dict(base=base, starts_are_optima=problems[p][2], valid=valid[p], ess=ess, keep=keep))

        beside, sent = None, cut
        if here is not None:  # this process's problem, the last of the cut: its scorers cache their own scores
            args, kwargs = search(*cut[-1], keep=False)
            beside, sent = functools.partial(run_penalties, *args, **kwargs), cut[:-1]
        with reporter(say).stage(label, len(grid) * len(problems), "search", "searches") as tick:
            done = run_jobs((job(run_penalties)(*a, **kw) for a, kw in (search(p, points, keep) for p, points in sent)),
                            n_jobs=n_jobs, tick=tick, beside=beside, sizes=[len(points) for _, points in cut])
        out = [[None] * len(grid) for _ in problems]
        rows = [[None] * len(grid) for _ in problems]
        for (p, points), (found, found_rows, caches) in zip(cut, done):
            for k, i in enumerate(points):
                out[p][i], rows[p][i] = found[k], found_rows[k] if found_rows is not None else None
            for scorer, items in zip(problems[p][0], caches or ()):
                scorer.merge_cache(items)
        return out if held_out is None else (out, rows)
    out = [_warm_grid(scorers, starts, grid, prior, settings, base=base, starts_are_optima=optima, say=say)
           for scorers, starts, optima in problems]
    if held_out is None:
        return out
    return out, [_scored(results, scorers, v, ess) for results, (scorers, _, _), v in zip(out, problems, valid)]


def problem_here(n_problems, n_jobs, n_items):
    """The problem (CV fold) that this process searches itself while worker processes search the others, or None.

    With local worker processes and more problems than workers, this
    process would only wait for the workers: it takes the last problem
    whole instead (all its points, on its own scorers and their warm
    caches, nothing sent or received), and :func:`grid_jobs` cuts the rest
    for the workers. The operating system shares the cores between this
    process and the workers, so the last problem fills the time that the
    workers' uneven jobs would leave idle. The answers do not depend on it
    (a point's search does not depend on the other points of its job).
    """
    workers = local_workers(n_jobs, n_items)
    if workers is None or n_problems <= workers or not in_worker_processes(n_jobs, n_items):
        return None
    return n_problems - 1


def grid_cut(n_problems, n_points, workers, here=None):
    """:func:`search_grid`'s ``(problem, points)`` pairs: :func:`grid_jobs` for the workers, then, with ``here``
    (:func:`problem_here`, the last problem), that problem whole, searched by this process."""
    cut = grid_jobs(n_problems - (here is not None), n_points, workers)
    return cut + ([(here, list(range(n_points)))] if here is not None else [])


def grid_jobs(n_problems, n_points, workers):
    """The jobs of :func:`search_grid`: ``(problem, points)`` pairs covering every point of every problem once.

    Where the cluster decides (``workers`` None) or in one process, a job per
    point. With local workers, a problem's points share one score cache
    only inside one job (the searches at neighbouring penalties compute
    mostly the same local scores), so as many problems as divide evenly
    among the workers are one job each, and each of the rest is cut into
    interleaved chunks (:func:`_chunks`) so that the workers finish
    together: 5 folds on 2 workers are 4 whole folds and the fifth in 2
    chunks. With more workers than problems, each problem is cut for every
    worker (a point per job, up to as many workers as points).
    """
    if workers is None or workers <= 1:
        return [(p, [i]) for p in range(n_problems) for i in range(n_points)]
    whole = n_problems - n_problems % workers
    if not whole:  # more workers than problems: every problem cut for every worker
        return [(p, c) for p in range(n_problems) for c in _chunks(n_points, workers)]
    cut = [(p, list(range(n_points))) for p in range(whole)]
    rest = n_problems - whole
    if rest:
        cut += [(p, c) for p in range(whole, n_problems) for c in _chunks(n_points, -(-workers // rest))]
    return cut


def _chunks(n_points, workers):
    """The grid points of one problem split into jobs: one per point where the cluster decides (``workers``
    None); with local workers, ``workers`` interleaved chunks (points ``i, i + workers, ...``), so that a
    worker keeps one copy of the problem's scorers, and the score cache it fills, across its points
    (each job ships its own copy). In one process (one worker) the scorers are shared anyway."""
    if workers is None or workers <= 1:
        return [[i] for i in range(n_points)]
    return [list(range(i, n_points, workers)) for i in range(min(workers, n_points))]


def run_penalties(scorers, starts, prior, penalties, settings, valid=None, ess=None, keep=False, **kwargs):
    """:func:`run_penalty` at each of ``penalties`` in turn, on the same scorers (one job of :func:`search_grid`).

    Returns ``(results, rows, caches)``: with ``valid`` (each task's held-out rows) ``rows`` holds each
    result's held-out rows' log-likelihoods (else None); with ``keep``, ``caches`` holds the scores each
    scorer cached during the job (else None).
    """
    marks = [s.cache_mark() for s in scorers]
    results = [run_penalty(scorers, starts, prior, delta, settings, **kwargs) for delta in penalties]
    rows = None if valid is None else _scored(results, scorers, valid, ess)
    return results, rows, [s.cache_items(m) for s, m in zip(scorers, marks)] if keep else None


def _scored(results, scorers, valid, ess):
    """Per result, per task: the held-out rows ``valid`` scored by its structure fitted on the scorer's rows."""
    return split_rows([r.graphs for r in results], [s.data for s in scorers], valid, ess)


def _warm_grid(scorers, starts, grid, prior, settings, *, base, starts_are_optima, say):
    run = dict(base=base, starts_are_optima=starts_are_optima)
    up = []
    for delta in grid:
        say(f"penalty {delta:.15g} (upward)")
        extra = [("upward", _configs(up[-1]))] if up else []
        up.append(run_penalty(scorers, starts + extra, prior, delta, settings, **run))
    down = [None] * len(grid)
    for i in range(len(grid) - 1, -1, -1):
        say(f"penalty {grid[i]:.15g} (downward)")
        cands = [("up", _configs(up[i]))] + ([("downward", _configs(down[i + 1]))] if i + 1 < len(grid) else [])
        res = run_penalty(scorers, cands, prior, grid[i], settings, base=base,
                          starts_are_optima=starts_are_optima and i == 0)
        down[i] = res if res.log_score > up[i].log_score + TIE_TOLERANCE else up[i]
    return down
