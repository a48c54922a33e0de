"""The multitask driver: :func:`learn_structures` as five named steps.

1. :func:`_validate`: the settings, checked at the front door (:mod:`mtbn.learn.settings`), checked against the
   data into a :class:`_Problem`.
2. :func:`_seed`: one base seed from ``random_state``; per-task streams keyed by the task's name.
3. :func:`_choose_penalty` (``penalty="auto"``): grid points learned on every fold's training
   rows (K-fold CV, or the paper's single validation split) and scored on the held-out rows, in
   rounds (``penalty_search``), then chosen by the rule; the protocol is :mod:`mtbn.heldout`'s.
4. the guard (:func:`mtbn.learn.guard.check_transfer`): keep the chosen penalty only if it beats
   independent learning; otherwise delta = 0.
5. :func:`_refit`: the search at the final penalty on all rows, with full settings, and the
   parameters fitted on all rows.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mtbn._validation import check_random_state, format_penalty
from mtbn.data import TaskSet, make_taskset
from mtbn.engine import Shared, warm_workers
from mtbn.exceptions import InvalidParameterError, TransferWarning
from mtbn.learn.checks import (
    check_one_value_columns,
    check_task_overlap,
    check_task_rows,
    constraint_matrices,
    edge_log_prior_array,
    edge_penalty_matrix,
    parts_of_checked_data,
    starts_by_task,
)
from mtbn.learn.grid import (
    DEFAULT_PENALTY_GRID,
    SELECTION_JOINT_RESTARTS,
    SELECTION_RESTARTS,
    PriorSpec,
    SearchSettings,
    run_penalty_chains,
    search_grid,
)
from mtbn.learn.guard import (
    RELATEDNESS_LEVEL,
    _relatedness_check,
    agreement_reference,
    check_transfer,
    leave_out_by,
    one_task_verdict,
    pooled_instead,
    tasks_to_leave_out,
)
from mtbn.learn.kinds import kind_of, kind_settings, split_by_task_column
from mtbn.learn.results import MultitaskResult, PenaltyPathPoint, TransferVerdict
from mtbn.learn.settings import MULTITASK
from mtbn.learn.sharing import choose_sharing, folds_for_sharing, no_sharing
from mtbn.learn.starts import (
    FirstRound,
    Prepared,
    checked_start,
    fold_problems,
    given_starts,
    pooled_maker,
    search_starts,
)
from mtbn.messages import error, register, warn
from mtbn.networks.shared_fitting import fit_shared_parameters
from mtbn.priors import PRIORS
from mtbn.progress import reporter
from mtbn.score import make_scorer
from mtbn.heldout import (
    first_candidates,
    fit_networks,
    holdout_splits,
    kfold_splits,
    scores_of_rows,
    search_candidates,
)



@MULTITASK.declare(leading=("tasks",))
def learn_structures(tasks: Any, **settings: Any) -> MultitaskResult:
    """Learn the structures of several related tasks jointly (paper Section 2.3).

    Search over joint moves (one node pair, every task's edge between them
    added, removed, reversed or kept) on the posterior of eq. 2.5 with the
    Edit (eq. 2.7) or Paired (eq. 2.8) prior: greedy ascent with a tabu
    phase and random restarts, from one or more start configurations. The
    settings are declared in :data:`mtbn.learn.settings.MULTITASK` (the
    estimator and the command line read the same table).

    Parameters
    ----------
    tasks : dict of name -> DataFrame, list of DataFrames, TaskSet, or DataFrame
        The tasks; with one DataFrame, ``task_column`` names the column that
        splits it into tasks (one network per value: the multi-net case).
        Continuous tasks (every column a number, some continuous) are
        learned as linear Gaussian networks, and tasks a registered kind of
        data claims by that kind's learner (:mod:`mtbn.learn.kinds`).
    {settings}

    Returns
    -------
    MultitaskResult
        Or, for tasks of another kind, what its learner returns
        (:class:`~mtbn.learn.gaussian.GaussianResult` for continuous tasks).

    Examples
    --------
    Two samples of ASIA, learned jointly at a fixed penalty (``"auto"``, the
    default, chooses it by cross-validation):

    >>> from mtbn.networks import load_network, sample
    >>> net = load_network("asia")
    >>> tasks = {"north": sample(net, 400, random_state=1).to_dataframe(),
    ...          "south": sample(net, 400, random_state=2).to_dataframe()}
    >>> res = learn_structures(tasks, penalty=0.9, n_restarts=0, n_joint_restarts=0)
    >>> res.task_names, [g.n_edges for g in res.graphs]
    (('north', 'south'), [8, 8])
    >>> sorted(res.graphs[0].edges(names=True))[:2]
    [('bronc', 'dysp'), ('either', 'dysp')]
    """
    bound = MULTITASK.bind("learn_structures", settings)
    split = split_by_task_column(tasks, bound["task_column"])
    kind = kind_of(split)  # continuous tasks, or a registered kind of data: its own learner
    if kind is not None:
        return kind.learn(split, **kind_settings(kind, dict(bound, task_column=None), MULTITASK.defaults()))
    del split  # the discrete learner splits the rows again (make_taskset): one copy held, not two
    return _learn(dict(bound, tasks=tasks))


#: ``interventions=`` is learned by :mod:`mtbn.learn.interventional`, a module above this one (it runs this
#: learner for the adjacencies first). It installs its entry point here (``"learn"``: a function of the bound
#: settings) when :mod:`mtbn.learn` is imported, so that no import goes upward.
INTERVENTIONAL_ENTRY: dict = {}


def _learn(args, base=None):
    """:func:`learn_structures` on its arguments ``args`` (a dict); ``base``: the base seed (else drawn)."""
    if args["interventions"] is not None:
        return INTERVENTIONAL_ENTRY["learn"](args)
    sharing = args["parameter_sharing"]
    problem = _validate(args)
    warm_workers(problem.n_jobs, ["mtbn.learn"])  # the workers start (and import) while the relatedness test runs
    per_task = _per_task(args, problem)
    seeds = _seed(problem, base)
    say = reporter(args["progress"])
    ts = problem.taskset
    scorers = Shared(make_scorer(d, problem.score, problem.ess) for d in ts.tasks)  # all rows: the guard and the refit
    related = False  # the relatedness test, once run (None: not testable)
    if per_task and problem.penalty == "auto" and ts.n_tasks >= 3:
        related = _relatedness_check(scorers, ts.local_index, seeds.relatedness)
        split = _unrelated_tasks(problem, related)
        if split is not None:
            return _learn_apart(args, problem, seeds, split, say)
    path, transfer, chosen, folds, prepared = [], None, problem.penalty, None, None
    if problem.penalty == "auto" and ts.n_tasks == 1:
        transfer, chosen = one_task_verdict(problem.rule), 0.0
    elif problem.penalty == "auto":
        # The sharing step's pooled candidates, searched beside the folds' starts when the relatedness test has
        # already passed (else only if it does, after the guard).
        pool = (sharing == "auto" and PRIORS[args["prior"]].has_penalty and _poolable(problem)
                and isinstance(related, dict) and related["p_value"] < related["level"])
        path, scores, best, folds, searched, prepared = _choose_penalty(problem, seeds, say, scorers, pool)
        transfer, chosen = _guard(problem, seeds, scorers, scores, best, len(folds.trains), searched, say, related)
    choice = None
    if sharing == "auto" and (not PRIORS[args["prior"]].has_penalty or ts.n_tasks < 2):
        sharing = None  # independent learning asked for, or one task: each task's CPTs alone
    elif sharing == "auto" and folds is not None:
        choice = _choose_sharing(problem, seeds, folds, float(chosen), transfer, say)
        sharing = choice.strength if choice.shared else None
        transfer["sharing"] = choice.record
    elif sharing == "auto":  # a given penalty: the strength on folds whose structures never saw their held-out rows
        choice, prepared = _choose_sharing_fixed(problem, seeds, float(chosen), say, scorers)
        sharing = choice.strength if choice.shared else None
    pooled = choice is not None and choice.pooled
    if transfer is not None and transfer["status"] in ("rejected", "none"):
        if pooled:
            pooled_instead(transfer)
        warn(transfer["message"], TransferWarning)
    # With the pooled structure the joint search's result would be discarded: only the single-task one is run.
    search, stl = _refit(problem, seeds, scorers, 0.0 if pooled else float(chosen), say, prepared)
    graphs, log_score, task_lls = search.graphs, search.log_score, search.log_likelihoods
    if pooled:
        say("one structure from all tasks' rows pooled")
        graphs = _pooled_structure(problem, seeds, ts.tasks, problem.n_restarts, [seeds.base, 7])
        task_lls = [scorers[t].score([set(p) for p in g.parents]) for t, g in enumerate(graphs)]
        log_score = float(sum(task_lls))  # identical structures: the multitask prior adds nothing
    networks, strength, distances = _fit_cpts(graphs, ts, problem.ess, sharing)
    return MultitaskResult(
        task_names=ts.names, graphs=graphs, networks=networks,
        penalty=float(chosen), log_score=log_score, task_log_likelihoods=task_lls,
        penalty_path=path, search=search, single_task=stl, transfer=transfer, sharing_strength=strength,
        sharing_distances=distances, sharing=None if choice is None else choice.record,
    )


def _choose_sharing(problem, seeds, folds, chosen, transfer, say):
    """``parameter_sharing="auto"`` after the guard: the strength, and whether the pooled structure replaces the
    multitask one (:func:`mtbn.learn.sharing.choose_sharing`, on the selection's folds)."""
    say("parameter sharing: strength and the pooled structure on the selection's folds")
    related = transfer.get("relatedness")
    unrelated = related is not None and not related["p_value"] < related["level"]
    learner = None
    if folds.pooled is not None:  # searched beside the folds' starts
        pooled = iter(folds.pooled)

        def learner(train):
            return next(pooled)
    elif _poolable(problem):
        def learner(train):
            return _pooled_structure(problem, seeds, train, min(problem.n_restarts, SELECTION_RESTARTS),
                                     [seeds.base, 7])
    what = "the multitask structures" if chosen > 0 else "the single-task structures"
    return choose_sharing(folds.graphs[chosen], folds.trains, folds.held_out, problem.ess, learner, unrelated, what)


def _pooled_structure(problem, seeds, datasets, restarts, key):
    """One structure learned from ``datasets`` (one per task) stacked, as each task's DAG."""
    return pooled_maker(problem, datasets, restarts, key)()


def _poolable(problem):
    """Whether the pooled structure is a candidate of the sharing step (same variables, plain prior, no given
    starts or edge priors)."""
    return (problem.shared_variables and isinstance(problem.start, str) and problem.prior.plain
            and problem.settings.edge_log_prior is None)


def learn_pooled_structures(tasks: Any, **settings: Any) -> list:
    """One structure learned from all tasks' rows pooled, as each task's DAG.

    What :func:`learn_structures` returns when ``parameter_sharing="auto"``
    finds the pooled structure better than the multitask ones (with the same
    settings and ``random_state``, the same structure; when
    ``transfer_per_task`` leaves tasks out, of the other tasks alone):
    single-task search with all restarts on every task's rows stacked. The settings are
    :func:`learn_structures`' (those of the penalty and the joint search do
    not apply). Every task must have every variable.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, list of DataFrames, TaskSet, or DataFrame
        The tasks, as for :func:`learn_structures` (one DataFrame with ``task_column``).
    **settings
        Settings of :func:`learn_structures`, every one checked as there. Those used: ``score``,
        ``equivalent_sample_size``, ``max_parents``, ``required_edges``, ``forbidden_edges``, ``tiers``,
        ``knowledge``, ``n_restarts``, ``random_state`` and ``task_column``.

    Returns
    -------
    list of DAG
        One DAG per task, in the tasks' order: the same edges, each over that task's columns in its order.

    Examples
    --------
    >>> from mtbn.networks import load_network, sample
    >>> net = load_network("asia")
    >>> tasks = {"north": sample(net, 300, random_state=1).to_dataframe(),
    ...          "south": sample(net, 300, random_state=2).to_dataframe()}
    >>> graphs = learn_pooled_structures(tasks, n_restarts=0, random_state=0)
    >>> sorted(graphs[0].edges(names=True)) == sorted(graphs[1].edges(names=True))
    True
    """
    problem = _validate(dict(MULTITASK.bind("learn_pooled_structures", settings), tasks=tasks))
    ts = problem.taskset
    if not problem.shared_variables:
        t, v = (int(x[0]) for x in np.nonzero(ts.local_index < 0))
        raise error("pooled-needs-shared-variables", task=ts.names[t], variable=ts.variables[v])
    seeds = _seed(problem)
    return _pooled_structure(problem, seeds, ts.tasks, problem.n_restarts, [seeds.base, 7])


register("pooled-needs-shared-variables", InvalidParameterError,
         "task {task!r} has no column {variable!r}: one structure from all tasks' rows pooled needs every "
         "task to have every variable.",
         cause="One structure learned from all tasks' rows pooled was asked for tasks whose variables differ.",
         fix="Give every task the same variables, or learn the multitask structures.")


def _per_task(args, problem):
    """Whether transfer is decided per task: ``transfer_per_task=True``, or ``"auto"`` (the default) unless
    settings are given per task index (they cannot follow a task out of the joint learning) or transfer is
    forced."""
    value = args["transfer_per_task"]
    indexed = (not isinstance(args["start"], str) or args["pair_weights"] is not None
               or args["structure_log_prior"] is not None)
    if value is True and indexed:
        raise error("per-task-transfer-settings")
    if value == "auto":
        return not indexed and not problem.force_transfer
    return value


def _unrelated_tasks(problem, test):
    """``transfer_per_task``: ``(related, unrelated, test)`` by each task's own relatedness test
    (:func:`mtbn.learn.guard.tasks_to_leave_out`), or None (nothing to leave out, or too few shared variables
    to test)."""
    unrelated = tasks_to_leave_out(test)
    if not unrelated:
        return None
    related = [t for t in range(problem.taskset.n_tasks) if t not in unrelated]
    return related, unrelated, test


def _left_out_message(names, test):
    """Why :func:`mtbn.learn.guard.tasks_to_leave_out` leaves tasks out: per set of per-task results that left
    some out (the raw factors first, then their excess over independence for the tasks only that one left out),
    their own p-values and agreements against the passing tasks'."""
    found, said, parts = leave_out_by(test), set(), []
    for key, beyond in (("tasks", ""), ("tasks_excess", ", on each pair's evidence beyond its mean under "
                                                         "independence")):
        out = [t for t in found.get(key, ()) if t not in said]
        said.update(out)
        if not out:
            continue
        rows = test[key]
        ps = ", ".join(f"{rows[t]['p_value']:.2g}" for t in out)
        agree = ", ".join(f"{rows[t]['statistic'] - rows[t]['null_mean']:.2f}" for t in out)
        parts.append(f"tasks {', '.join(repr(names[t]) for t in out)} depend on their variables unlike the others "
                     f"(own relatedness p = {ps}, level {RELATEDNESS_LEVEL:g}; agreement with the others {agree} "
                     f"against {agreement_reference(test, key):.2f} for the tasks that pass{beyond})")
    return "; ".join(parts)


def _learn_apart(args, problem, seeds, split, say):
    """The related tasks learned jointly (per task again), the others alone, with the same base seed."""
    related, unrelated, test = split
    ts = problem.taskset
    names = [ts.names[t] for t in unrelated]
    message = _left_out_message(ts.names, test) + ": learned on their own, the other tasks jointly"
    say(message)
    warn(message, TransferWarning)
    # Every part keeps the state lists of all the tasks given, so a task's states (and its BDeu score) do not
    # depend on the group it lands in: a task learned alone gets exactly its structure of prior="none" on all
    # the tasks (the searches' seeds follow the task names and the base seed).
    rest = dict(args, task_column=None)
    with parts_of_checked_data():
        joint = _learn(dict(rest, tasks=ts.subset(related)), base=seeds.base)
        alone = _learn(dict(rest, tasks=ts.subset(unrelated), prior="none", transfer_per_task=False,
                            parameter_sharing=None),
                       base=seeds.base)
    order = {t: ("joint", i) for i, t in enumerate(related)} | {t: ("alone", i) for i, t in enumerate(unrelated)}
    parts = {"joint": joint, "alone": alone}

    def merged(field):
        return [getattr(parts[part], field)[i] for part, i in (order[t] for t in range(ts.n_tasks))]

    nested = set((joint.transfer or {}).get("excluded", ()))  # tasks the related part left out in turn
    excluded = [n for n in ts.names if n in nested or n in names]
    transfer = TransferVerdict(joint.transfer or {}, excluded=excluded,
                               message=(joint.transfer or {}).get("message", "") + "; " + message)
    sharing = joint.sharing
    if sharing:  # the joint part's choice: say whose rows and parameters it concerns
        joined = ", ".join(repr(ts.names[t]) for t in related)
        sharing = dict(sharing, message=f"tasks {joined}: " + sharing["message"].replace("all tasks' rows",
                                                                                          "their rows"))
        if transfer.get("sharing"):
            transfer["sharing"] = sharing
    transfer["tasks"] = dict(transfer.get("tasks") or {})
    by_excess = leave_out_by(test).get("tasks_excess", ())
    for t in unrelated:
        transfer["tasks"][ts.names[t]] = {"gain": None, "se": None, "verdict": "learned alone (unrelated)",
                                          "relatedness": test["tasks"][t]}
        if t in by_excess:
            transfer["tasks"][ts.names[t]]["relatedness_excess"] = test["tasks_excess"][t]
    stl = None if joint.single_task is None or alone.single_task is None else merged("single_task")
    return MultitaskResult(
        task_names=ts.names, graphs=merged("graphs"), networks=merged("networks"), penalty=joint.penalty,
        log_score=joint.log_score + alone.log_score, task_log_likelihoods=merged("task_log_likelihoods"),
        penalty_path=joint.penalty_path, search=joint.search, single_task=stl, transfer=transfer,
        sharing_strength=joint.sharing_strength, sharing_distances=joint.sharing_distances, sharing=sharing,
    )


def _choose_sharing_fixed(problem, seeds, penalty, say, scorers):
    """``parameter_sharing="auto"`` with a given penalty: the structures each fold learns at that penalty on its
    training rows (the selection's effort, the selection's folds), then the strength their held-out rows prefer
    (:func:`mtbn.learn.sharing.choose_sharing`, no pooled candidate). The structures learned on all rows never
    score a held-out row: they saw it. Always a ``cv``-fold split (``validation`` is the penalty selection's
    rule, and one small split of a few tasks would choose a strength on a few rows), of which the first
    :func:`mtbn.learn.sharing.folds_for_sharing` folds are searched: every fold up to 5 tasks, fewer with more
    tasks. Tasks with fewer rows than twice the folds: nothing shared. Returns the choice and what
    :func:`fold_problems` prepared (the final search's start searches ran beside the folds')."""
    if min(d.n_samples for d in problem.taskset.tasks) < 2 * problem.cv:
        return no_sharing(f"fewer than {2 * problem.cv} rows in a task, too few to choose a strength on"), None
    problem = replace(problem, validation=None)
    trains, held_out = _split_rows(problem, seeds)
    m = folds_for_sharing(problem.cv, problem.taskset.n_tasks)  # the split's first m folds (all, up to 5 tasks)
    trains, held_out = trains[:m], held_out[:m]
    which = "every fold" if m == problem.cv else f"{m} of {problem.cv} folds"
    say(f"parameter sharing: the structures of {which} at the given penalty, then the strength")
    prepared = fold_problems(problem, seeds, trains, say, refit_scorers=scorers)
    per_fold = _search_points(problem, seeds, prepared.problems, [penalty], say)
    return choose_sharing([fold[0].graphs for fold in per_fold], trains, held_out, problem.ess,
                          of_folds=problem.cv), prepared


def _fit_cpts(graphs, ts, ess, sharing):
    """The CPTs of the final structures: each task alone (``sharing`` None), or shrunk toward the pooled CPTs at
    strength ``sharing`` (:mod:`mtbn.networks.shared_fitting`); returns ``(networks, strength or None,
    distances or None)``."""
    if sharing is None:
        return fit_networks(graphs, ts.tasks, ess), None, None
    networks, distances = fit_shared_parameters(graphs, ts, strength=sharing, equivalent_sample_size=ess,
                                                with_distances=True)
    return networks, float(sharing), distances


@dataclass(frozen=True, eq=False)
class _Problem:
    """The checked arguments of one :func:`learn_structures` call."""

    taskset: TaskSet
    penalty: Any  # a float, or "auto"
    prior: PriorSpec
    settings: SearchSettings  # of the final search (all joint restarts)
    score: str
    ess: float
    start: Any
    n_restarts: int
    grid: tuple
    rule: str
    cv: int
    validation: Any
    warm_start: bool
    penalty_search: str
    force_transfer: bool
    n_jobs: Any
    rng: np.random.Generator

    @property
    def shared_variables(self):
        """Whether every task has every variable (the identical-structure start needs it)."""
        return not np.any(self.taskset.local_index < 0)


register("per-task-transfer-settings", InvalidParameterError,
         "transfer_per_task cannot leave tasks out with per-task settings (start graphs, pair_weights, "
         "structure_log_prior); learn the related tasks on their own instead.",
         cause="Settings given per task index cannot follow a task out of the joint learning.",
         fix="Drop transfer_per_task, or drop the per-task settings, or select the tasks yourself.")


def _validate(args):
    """Step 1: the checks that need the data, on the settings ``args`` (a dict, with ``tasks``) already checked at
    the front door (:meth:`mtbn.learn.settings.Settings.bind`)."""
    a = args
    penalty, validation, cv = a["penalty"], a["validation"], a["cv"]
    ts = make_taskset(a["tasks"], task_column=a["task_column"])
    if PRIORS[a["prior"]].has_penalty:
        check_task_overlap(ts)
    else:
        penalty = 0.0
    check_task_rows(ts, cv if penalty == "auto" and validation is None else None)
    check_one_value_columns(ts)
    rule = a["selection_rule"] or ("max" if validation is not None else "one-se")
    grid = DEFAULT_PENALTY_GRID if a["penalty_grid"] is None else a["penalty_grid"]
    required, forbidden = constraint_matrices(ts.variables, a["required_edges"], a["forbidden_edges"], a["tiers"],
                                              a["knowledge"])
    spec = PriorSpec(a["prior"], ts.n_tasks, a["reversal"], a["pair_weights"],
                     edge_penalty_matrix(a["edge_penalty"], ts.variables))
    spec.at(0.0 if penalty == "auto" else penalty)  # validate once, early
    edge_prior = edge_log_prior_array(a["structure_log_prior"], ts)
    settings = SearchSettings(ts.local_index, required, forbidden, max_parents=a["max_parents"],
                              edge_log_prior=edge_prior, solver=a["solver"], max_iter=a["max_iter"],
                              tabu_length=a["tabu_length"], max_tabu_iter=a["max_tabu_iter"],
                              n_restarts=a["n_joint_restarts"])
    problem = _Problem(ts, penalty, spec, settings, a["score"], a["equivalent_sample_size"],
                       starts_by_task(a["start"], list(ts.names)),
                       a["n_restarts"], grid, rule, cv, validation, a["warm_start"], a["penalty_search"],
                       a["force_transfer"], a["n_jobs"], check_random_state(a["random_state"]))
    _check_start(problem)
    return problem


def _check_start(problem):
    """The start graphs and required edges of every task, checked before any search (cycles, forbidden edges,
    max_parents, CPT sizes), with the variables' names in the messages."""
    start, k = problem.start, problem.taskset.n_tasks
    if isinstance(start, str):
        if start == "identical" and not problem.shared_variables:
            raise error("identical-needs-shared-variables", what="start='identical'")
    elif len(start) != k:
        raise error("start-count", k=k, n=len(start))
    else:
        given_starts(problem, problem.taskset.tasks)
    for t, d in enumerate(problem.taskset.tasks):
        checked_start(problem, [set() for _ in range(d.n_vars)], t, d, f"task {d.name!r}")


@dataclass(frozen=True)
class _Folds:
    """The selection's folds: each fold's training and held-out rows of every task (``[fold][task]``), and per
    penalty searched the structures every fold learned (``graphs[penalty][fold][task]``)."""

    trains: list
    held_out: list
    graphs: dict
    pooled: Any = None  # each fold's pooled structure, when searched beside the folds' starts


@dataclass(frozen=True)
class _Seeds:
    """The random streams of one call, all derived from one base seed.

    Per-task streams are keyed by the task's name, so that results do not
    depend on the order in which tasks are given.
    """

    base: int
    task_keys: tuple
    searches: tuple  # each task's single-task search seed

    def split_rng(self, t):
        """Task ``t``'s row split (CV folds or the validation split)."""
        return np.random.default_rng([self.base, self.task_keys[t], 1])

    @property
    def relatedness(self):
        return np.random.SeedSequence([self.base, 5])


def _seed(problem, base=None):
    """Step 2: the base seed (drawn from ``random_state`` unless given) and the per-task seeds."""
    base = int(problem.rng.integers(0, 2**31 - 1)) if base is None else base
    keys = tuple(zlib.crc32(name.encode("utf-8")) for name in problem.taskset.names)
    searches = tuple(int(np.random.SeedSequence([base, key]).generate_state(1)[0]) for key in keys)
    return _Seeds(base, keys, searches)


def _choose_penalty(problem, seeds, say, scorers, pooled=False):
    """Step 3: grid points learned on every fold's training rows, scored on its held-out rows, and chosen.

    Which points are searched is :func:`mtbn.heldout.search_candidates`'s
    (``penalty_search``; every point with ``warm_start``). Returns ``(path,
    scores, index of the chosen point, the folds (:class:`_Folds`), penalties searched, what
    :func:`fold_problems` prepared)``, indices into the penalties searched; the final search's start searches
    (on ``scorers``, all rows) run beside the folds', and with ``pooled`` each fold's pooled structure (kept in
    the folds for the sharing step).
    """
    trains, held_out = _split_rows(problem, seeds)
    grid, found, fold_graphs = problem.grid, {}, {}
    mode = "grid" if problem.warm_start else problem.penalty_search
    first = None if problem.warm_start else first_candidates(len(grid), mode)
    round_one = None if first is None else FirstRound([grid[i] for i in first], problem.prior,
                                                      _selection_settings(problem), seeds.base, held_out, problem.ess)
    prepared = fold_problems(problem, seeds, trains, say, refit_scorers=scorers, pooled=pooled, first=round_one)
    problems = prepared.problems
    early = {} if prepared.first is None else {tuple(first): prepared.first}  # searched beside the starts

    def score(points):  # each search's structures are scored on its fold's held-out rows in its own job
        per_fold, rows = early.pop(tuple(points), None) or _search_points(
            problem, seeds, problems, [grid[i] for i in points], say, held_out)
        found.update(zip(points, per_fold[0]))
        for j, i in enumerate(points):
            fold_graphs[grid[i]] = [fold[j].graphs for fold in per_fold]
        return scores_of_rows(rows).rows

    done, scores = search_candidates(len(grid), score, problem.rule, mode)
    searched = [grid[i] for i in done]
    path = [PenaltyPathPoint(delta, float(m), found[i].graphs, found[i].log_score, found[i].n_iter,
                             validation_se=float(se), se_vs_best=se_best)
            for delta, i, m, se, se_best in zip(searched, done, scores.means, scores.ses, scores.ses_vs_best())]
    folds = _Folds(trains, held_out, fold_graphs, prepared.pooled)
    return path, scores, scores.choose(problem.rule), folds, searched, prepared


def _guard(problem, seeds, scorers, scores, best, n_folds, grid, say, related=False):
    """Step 4: the negative-transfer guard's verdict and the penalty to learn with (``grid``: the penalties
    searched); :func:`_learn` warns when it is 0, once the sharing step has said what replaces the multitask
    structures."""
    transfer, chosen = check_transfer(scores, grid, best, problem.taskset.names, rule=problem.rule, n_folds=n_folds,
                                      force=problem.force_transfer, scorers=scorers,
                                      local_index=problem.taskset.local_index, seed=seeds.relatedness,
                                      related=related)
    say(f"chosen penalty {format_penalty(grid[best])}" + ("" if chosen == grid[best] else "; " + transfer["message"]))
    return transfer, chosen


def _split_rows(problem, seeds):
    """Each fold's training and held-out rows of every task: ``(trains, held_out)``, indexed [fold][task]."""
    tasks = problem.taskset.tasks
    if problem.validation is not None:
        splits = [holdout_splits(d.n_samples, problem.validation, seeds.split_rng(t), d.name)
                  for t, d in enumerate(tasks)]
    else:
        splits = [kfold_splits(d.n_samples, problem.cv, seeds.split_rng(t)) for t, d in enumerate(tasks)]
    folds = range(len(splits[0]))
    return ([[d.take(sp[f][0]) for d, sp in zip(tasks, splits)] for f in folds],
            [[d.take(sp[f][1]) for d, sp in zip(tasks, splits)] for f in folds])


def _selection_settings(problem):
    """The search settings of the penalty selection's searches (fewer joint restarts)."""
    return replace(problem.settings, n_restarts=min(problem.settings.n_restarts, SELECTION_JOINT_RESTARTS))


def _search_points(problem, seeds, problems, penalties, say, held_out=None):
    """The search of every (fold, penalty), with the selection's effort: one list of results per fold (with
    ``held_out``, and each search's held-out rows, :func:`mtbn.learn.grid.search_grid`)."""
    return search_grid(problems, penalties, problem.prior, _selection_settings(problem), base=seeds.base,
                       warm_start=problem.warm_start, n_jobs=problem.n_jobs, say=say, held_out=held_out,
                       ess=problem.ess)


def _refit(problem, seeds, scorers, penalty, say, prepared=None):
    """Step 5: the search at ``penalty`` on all rows with full settings; returns (search, single-task results).
    ``prepared``: :func:`fold_problems`' result, whose start searches on all rows are not run again."""
    s = problem.settings
    coupled = s.edge_log_prior is not None or problem.prior.at(penalty).is_coupled(s.local_index.shape[1])
    done = prepared if prepared is not None else Prepared([])
    starts, stl = search_starts(problem, seeds, problem.taskset.tasks, scorers, problem.n_restarts, say, coupled,
                          defer=True, stl=done.refit_stl, identical=done.refit_identical)
    say(f"multitask search at penalty {format_penalty(penalty)} on all rows")
    search = run_penalty_chains(scorers, starts, problem.prior, penalty, problem.settings, base=seeds.base,
                                starts_are_optima=stl is not None, n_jobs=problem.n_jobs, say=say)
    return search, stl
