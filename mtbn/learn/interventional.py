"""Tasks as interventional conditions of one system: one causal DAG, mechanisms that change (issue 46).

Each task is an experimental condition of the same system. A condition
intervenes on a few variables (its *targets*) and leaves every other
mechanism (a variable's CPT given its parents) as it is. So the tasks share
one causal DAG, and a family's CPT is the same in every task except in the
tasks that change that family's mechanism. That invariance is what turns
several conditions into orientations: a variable whose distribution shifts
in a condition without being a target must be a descendant of a target.

Two models (``intervention_type``):

``"mechanism"`` (the default; Joint Causal Inference, Mooij, Magliacane and
Claassen 2020, JMLR 21(99); Eaton and Murphy 2007, "uncertain
interventions")
    Every task that is not observational gets an indicator variable
    ``do(<task>)`` (1 on its rows, 0 elsewhere), a root of the augmented
    graph (JCI's exogeneity assumption: no system variable causes a
    condition; the indicators have no edges among them). All tasks' rows
    are pooled into one data set over the system variables and the
    indicators, and one DAG is learned on it by the single-task search
    (BDeu, tabu, restarts). An edge ``do(c) -> v`` says that ``v``'s
    mechanism changes in task ``c``: BDeu then scores ``v``'s counts in
    task ``c`` on their own configurations, and pools them over every task
    whose indicator is not a parent of ``v``. So a family's CPT is tied
    across tasks inside the score, not only when CPTs are fitted. Known
    targets are required edges ``do(c) -> t`` and the only changes of task
    ``c`` (the model's assumption); with ``further_changes`` the search may
    find more in that task (off-target effects). A task absent from ``interventions`` has unknown
    targets: its indicator's children are learned. A task with an empty
    list is observational: no indicator.

``"activity"`` (an inhibitor or activator acts on what the target does)
    Known targets act on the target's activity, which is not what is
    measured: the mechanisms that change in a task are those of its
    targets' *children* (and, if the search finds it, the target's own).
    Eaton and Murphy (2007) found this on the Sachs data: learning the
    intervention nodes' children, the inhibitors' effects fell on the
    targets' children. The score is the mechanism model's with each family
    that has a target of task ``c`` among its parents given ``do(c)`` as a
    parent too: which mechanisms change follows from the DAG, so the
    invariance of the other families orients the arcs out of a target
    (reversing ``t -> v`` moves the change off ``v``). Those implied
    indicator parents are not edges the search adds or removes; the target's
    own change (``do(c) -> t``) is searched. Unknown targets as for
    ``"mechanism"``.

``"perfect"`` (Cooper and Yoo 1999)
    Known targets only. A target's family is not scored from the rows of
    the tasks that intervene on it (those rows say nothing about its
    mechanism, which the intervention replaced); every other family is
    scored on all rows pooled. In the network of a task that intervenes
    on ``t``, ``t`` has no parents and the distribution of that task's rows.

The score of a structure, ``G`` over the system variables ``V`` and (mechanism
type) the indicators ``I``, is a sum of BDeu local scores on the pooled rows
``D``: ``sum_{v in V} BDeu(v | Pa_G(v); D_v)`` with ``D_v`` all rows
(mechanism: ``Pa_G(v)`` includes the indicators of the tasks that change
``v``; activity: also those of the tasks that target a parent of ``v``) or
the rows of the tasks that do not intervene on ``v`` (perfect).

The search has two stages. The adjacencies come from the default multitask
learner on the tasks (every task its own CPTs, so a changed mechanism cannot
mislead it; the adjacencies of any task's structure, oriented as most tasks
orient them); then the score above, with its
tied CPTs, orients them and finds the changed mechanisms: a hill climb
(tabu, restarts) that reverses edges between adjacent variables (an
adjacency is never added or removed) and adds or removes edges out of the
indicators, from the multitask structure's orientations and from the pooled
rows' structure's, the better score kept. Measured while building it
(issue 46), a climb of the tied score over every edge reached higher scores
farther from the truth than the multitask structure it started from (at ess
1 the tied score is sparser than the tasks' scores added up); within the
adjacencies it orients them, and the default's adjacencies were closer to the
truth than those of a cheaper multitask search at penalty 1 (docs/results.md).
Which of the two is closer to the truth depends on the system (on the
synthetic suite the tied score's own adjacencies were closer on INSURANCE,
HEPAR2 and SACHS, the multitask learner's on ALARM and WIN95PTS), so by
default (``skeleton="heldout"``) the data decide: both are learned on 80% of
every task's rows, and the one whose model gives the other 20% the higher
log-likelihood is learned on all rows. That costs the first stage and both
climbs once more, on the training rows.

What it assumes: the tasks measure the same variables of one system whose
causal structure does not change between conditions (only mechanisms do);
no hidden common cause of the system variables; conditions are not caused
by the system; a task's targets, when given, change (mechanism) or replace
(perfect) those mechanisms. The multitask priors are not used: one causal
DAG is the limit delta = 1 of the Paired prior (identical structures), and
the tasks differ only in the mechanisms that change. Tasks whose structures
really differ are the multitask learner's case (``interventions=None``).

:func:`learn_interventional` is called by :func:`mtbn.learn.learn_structures`
when ``interventions`` is given.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mtbn._validation import check_random_state
from mtbn.data import DiscreteData
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.graph import DAG
from mtbn.learn.checks import parts_of_checked_data
from mtbn.learn.interventional_model import INTERVENTION_TYPES, InterventionalModel
from mtbn.learn.multitask import INTERVENTIONAL_ENTRY, learn_structures
from mtbn.learn.results import MultitaskResult
from mtbn.learn.settings import MULTITASK
from mtbn.messages import error, register
from mtbn.networks import fit_parameters, log_likelihood
from mtbn.networks.model import BayesianNetwork
from mtbn.progress import reporter
from mtbn.score import LocalScore, make_scorer

__all__ = ["INTERVENTION_TYPES", "InterventionalModel", "check_interventions", "learn_from_settings",
           "learn_interventional"]

P, D = InvalidParameterError, InvalidDataError
register("interventions-type", P,
         "interventions must map task names to lists of target variables (or None: targets unknown); got {got}.",
         cause="interventions= was given in a form mtbn does not read (the command line reads a JSON object or a "
               "CSV file with columns task,variable).",
         fix="Pass e.g. {'control': [], 'inhibitor': ['pmek'], 'unknown-drug': None}.")
register("interventions-unknown-task", P, "interventions: unknown task {task!r}; tasks are {names}.",
         cause="The interventions name a task that is not among the tasks given (a typo, or a file left out).",
         fix="Use the task names (CSV file names without .csv, or the values of --task-column).")
register("interventions-target-missing", D, "interventions: task {task!r} has no column {variable!r} to intervene on.",
         cause="A task is said to intervene on a variable its own data do not contain.",
         fix="Give the task that column, or drop the target from its list.")
register("interventions-every-variable", P,
         "interventions: task {task!r} intervenes on every variable ({n}); nothing of the system is left to learn "
         "from it.",
         cause="A task whose targets are all the variables carries no information about any mechanism.",
         fix="List only the variables the condition acts on directly, or leave the task out.")
register("interventions-target-twice", P, "interventions: task {task!r} lists target {variable!r} twice.",
         cause="A variable appears twice in one task's target list.",
         fix="List each target once.")
register("interventions-shared-variables", D,
         "interventions need every task over the same variables: task {task!r} has no column {variable!r}.",
         cause="One causal DAG over the system is learned from all conditions, so every condition must measure "
               "every variable.",
         fix="Give every task the same columns (or drop the columns some tasks lack).")
register("perfect-needs-targets", P,
         "intervention_type='perfect' needs every task's targets; task {task!r} has none given (unknown).",
         cause="A perfect intervention's rows are left out of its targets' families, which needs the targets.",
         fix="List the task's targets (an empty list: observational), or use intervention_type='auto', "
             "which learns unknown targets.")
register("interventions-adjacencies-from", P,
         "adjacencies_from must be the MultitaskResult that learn_structures returned on the same tasks.",
         cause="learn_interventional was given as its first stage something other than the default learner's result "
               "on these tasks.",
         fix="Pass res from res = learn_structures(tasks) on the same tasks, or leave adjacencies_from out.")
register("perfect-target-everywhere", P,
         "intervention_type='perfect': every task intervenes on {variable!r}, so no row is left to learn its "
         "mechanism from.",
         cause="A perfect intervention's rows are left out of its target's family; when every task intervenes on "
               "the variable, none remain.",
         fix="Add an observational task (or one that leaves the variable alone), or use intervention_type="
             "'mechanism'.")
register("interventions-setting", P,
         "{name}= does not apply with interventions= (one causal DAG is learned for all tasks, without a "
         "multitask prior); leave it at its default.",
         cause="A multitask setting (penalty, prior, start, cross-validation, parameter sharing, ...) was given "
               "together with interventions, whose learner does not use it.",
         fix="Drop the setting, or learn without interventions= to use the multitask learner.")


def _targets(value, task):
    if value is None:
        return None
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise error("interventions-type", got=f"{type(value).__name__} for task {task!r}")
    targets = tuple(str(v) for v in value)
    seen = set()
    for v in targets:
        if v in seen:
            raise error("interventions-target-twice", task=task, variable=v)
        seen.add(v)
    return targets


def check_interventions(interventions, taskset, intervention_type="mechanism"):
    """``{task: targets or None}`` for every task of ``taskset``, checked before any work.

    ``interventions`` maps task names to their target variables (an empty
    list: an observational task); a task it leaves out, or maps to None,
    has unknown targets. Every task must have every variable.

    Parameters
    ----------
    interventions : dict of task name -> list of str or None
        Each task's target variables: a list (empty: observational) or None (unknown). Another form, an unknown
        task or target, a target listed twice, or every variable a target raises ``InvalidParameterError``.
    taskset : TaskSet
        The tasks (:func:`mtbn.data.make_taskset`); a task without a column some other task has raises
        ``InvalidDataError``.
    intervention_type : {"mechanism", "perfect"}, default "mechanism"
        With "perfect", every task's targets must be given (no None).

    Returns
    -------
    dict of task name -> tuple of str or None
        Every task of ``taskset``, in its order: its targets, or None when unknown.

    Examples
    --------
    >>> import pandas as pd
    >>> from mtbn.data import make_taskset
    >>> frame = pd.DataFrame({"x": ["a", "b"], "y": ["a", "a"]})
    >>> ts = make_taskset({"control": frame, "drug": frame, "other": frame})
    >>> check_interventions({"control": [], "drug": ["x"]}, ts)
    {'control': (), 'drug': ('x',), 'other': None}
    >>> check_interventions({"drug": ["z"]}, ts)
    Traceback (most recent call last):
    ...
    mtbn.exceptions.InvalidParameterError: interventions: task 'drug' targets 'z', which is not a variable of the tasks.
    """
    if not isinstance(interventions, Mapping):
        raise error("interventions-type", got=type(interventions).__name__)
    names = list(taskset.names)
    for task in interventions:
        if task not in names:
            raise error("interventions-unknown-task", task=task, names=", ".join(map(repr, names)))
    out = {}
    for task, data in zip(names, taskset.tasks):
        targets = _targets(interventions.get(task), task)
        for v in targets or ():
            if v not in taskset.variables:
                raise error("interventions-unknown-variable", task=task, variable=v)
            if v not in data.names:
                raise error("interventions-target-missing", task=task, variable=v)
        if targets is not None and len(targets) == data.n_vars:
            raise error("interventions-every-variable", task=task, n=data.n_vars)
        if targets is None and intervention_type == "perfect":
            raise error("perfect-needs-targets", task=task)
        out[task] = targets
    missing = np.nonzero(taskset.local_index < 0)
    if len(missing[0]):
        t, v = int(missing[0][0]), int(missing[1][0])
        raise error("interventions-shared-variables", task=names[t], variable=taskset.variables[v])
    return out


# ---------------------------------------------------------------------------
# Perfect interventions: each family scored on the rows that keep its mechanism
# ---------------------------------------------------------------------------


class _ExcludingScorer(LocalScore):
    """BDeu (or BIC) of each child on the rows of the tasks that do not intervene on it (Cooper & Yoo 1999).

    ``rows[v]``: the rows that score ``v``'s family (absent: all rows). A score through the protocol
    (:class:`~mtbn.score.LocalScore`): each child's family is scored, and cached, by the scorer of its own
    rows, so the search reads it like one scorer.
    """

    name = "excluding"

    def __init__(self, data, rows, score, ess):
        super().__init__(data)
        self._all = make_scorer(data, score, ess)
        self._own = {v: make_scorer(data.take(keep), score, ess) for v, keep in rows.items()}

    def _for(self, child):
        return self._own.get(child, self._all)

    def compute(self, child, parents):
        return self._for(child).compute(child, parents)

    def local_score(self, child, parents):
        return self._for(child).local_score(child, parents)

    def extension_scores(self, child, parents, candidates):
        return self._for(child).extension_scores(child, parents, candidates)

    def cache_info(self):
        infos = [self._all.cache_info()] + [s.cache_info() for s in self._own.values()]
        return {k: sum(i[k] for i in infos) for k in ("hits", "misses", "size")}


class _ActivityScorer(LocalScore):
    """The tied score with activity interventions: a family with a parent that a task targets is scored with
    that task's indicator among its parents (the child's mechanism changes in that task).

    ``via[p]``: the indicator columns of the tasks that target system variable ``p``. The indicators a family
    gets from its parents are not edges of the graph searched (the search cannot remove them): they follow from
    the parents, so a reversal of ``t -> v`` moves the change from ``v`` to ``t``'s other children. Families
    without such a parent are scored, and their extensions computed together, by the pooled rows' scorer.
    """

    name = "activity"

    def __init__(self, base, via):  # the base's data and sizes (any score of the augmented variables)
        self.data, self.n_vars, self.n_samples, self.arities = base.data, base.n_vars, base.n_samples, base.arities
        self._cache = {}
        self.hits = self.misses = 0
        self._base, self._via = base, via

    def _implied(self, parents):
        out = set()
        for p in parents:
            out |= self._via.get(p, set())
        return out

    def compute(self, child, parents):
        return self._base.local_score(child, set(parents) | self._implied(parents))

    def local_score(self, child, parents):
        parents = set(parents)
        return self._base.local_score(child, parents | self._implied(parents))

    def extension_scores(self, child, parents, candidates):
        parents = set(parents)
        have = parents | self._implied(parents)
        candidates = [int(u) for u in candidates]
        out = np.empty(len(candidates))
        plain = [i for i, u in enumerate(candidates) if u not in self._via and u not in have]
        if plain:
            out[plain] = self._base.extension_scores(child, have, [candidates[i] for i in plain])
        for i in sorted(set(range(len(candidates))) - set(plain)):
            u = candidates[i]
            out[i] = self._base.local_score(child, have | {u} | self._via.get(u, set()))
        return out

    def cache_info(self):
        return self._base.cache_info()


def _activity_parents(names, variables, given, indicator_of):
    """``{system column: indicator columns}``: for each variable some task targets, the indicators of those
    tasks (activity interventions: the target's children change)."""
    via = {}
    for task, targets in given.items():
        for t in targets or ():
            via.setdefault(variables.index(t), set()).add(names.index(indicator_of[task]))
    return via


def _with_implied(aug, via, n):
    """The augmented graph with the activity indicators made edges: each system variable gets the indicators
    of the tasks that target one of its system parents."""
    parents = [set(ps) for ps in aug.parents]
    for v in range(n):
        for p in aug.parents[v]:
            parents[v] |= via.get(p, set())
    return DAG(parents, aug.names)


# ---------------------------------------------------------------------------
# The learner
# ---------------------------------------------------------------------------


def _indicator_names(tasks, variables):
    """``do(<task>)`` for each task, primed until it clashes with no variable."""
    taken = set(variables)
    out = {}
    for task in tasks:
        name = f"do({task})"
        while name in taken:
            name += "'"
        taken.add(name)
        out[task] = name
    return out


def _pooled(taskset, indicator_of):
    """All tasks' rows over the system variables, then one 0/1 column per indicator; and each task's rows."""
    codes = [taskset.global_codes(t) for t in range(taskset.n_tasks)]
    sizes = [len(c) for c in codes]
    starts = np.cumsum([0] + sizes)
    rows = {name: np.arange(starts[t], starts[t + 1]) for t, name in enumerate(taskset.names)}
    system = np.concatenate(codes)
    columns = []
    for task in indicator_of:
        col = np.zeros(len(system), dtype=np.uint8)
        col[rows[task]] = 1
        columns.append(col)
    all_codes = np.column_stack([system] + columns) if columns else system
    names = tuple(taskset.variables) + tuple(indicator_of.values())
    states = tuple(taskset.states) + (("0", "1"),) * len(indicator_of)
    kinds = None
    if any(d.kinds for d in taskset.tasks):
        first = taskset.tasks[0]
        kinds = tuple(first.kinds[first.index(v)] if first.kinds else None for v in taskset.variables) \
            + (None,) * len(indicator_of)
    return DiscreteData(all_codes, names, states, "pooled", kinds), rows


def _constraints(variables, indicator_of, given, further, reference, user, adjacent=None, activity=False):
    """Required and forbidden edges over the augmented variables (the system's, then the indicators): the user's
    background knowledge among the system variables; nothing into an indicator (a condition is caused by nothing
    in the system); a task's given targets required from its indicator (``activity``: allowed, not required), and
    (without ``further``, and for the ``reference`` task) nothing else; with ``adjacent`` (pairs of system names),
    no edge between other pairs."""
    from mtbn.learn.checks import constraint_matrices

    n, names = len(variables), list(variables) + list(indicator_of.values())
    system_required, system_forbidden = constraint_matrices(list(variables), user["required_edges"],
                                                            user["forbidden_edges"], user["tiers"],
                                                            user["knowledge"])
    required = np.zeros((len(names), len(names)), dtype=bool)
    forbidden = np.zeros_like(required)
    required[:n, :n], forbidden[:n, :n] = system_required, system_forbidden
    for j, (task, ind) in enumerate(indicator_of.items()):
        i = n + j
        forbidden[:, i] = True
        targets = given[task] or ()
        for t in targets:
            required[i, variables.index(t)] = not activity
        if (given[task] is not None and not further) or task == reference:
            forbidden[i, :n] = [v not in targets for v in variables]
    if adjacent is not None:
        forbidden[:n, :n] |= np.array([[frozenset((a, b)) not in adjacent for b in variables] for a in variables])
    np.fill_diagonal(forbidden, False)
    return required, forbidden


def _reference(taskset, given, further, intervention_type):
    """With no observational task, the task whose mechanisms are the reference regime: the first by name among
    those whose changes are searched (changes are found relative to one condition, and symmetric choices would
    otherwise fall to the order the tasks were given in). None when a task is observational, or nothing is
    searched."""
    if intervention_type == "perfect" or any(g == () for g in given.values()):
        return None
    searched = [t for t in taskset.names if given[t] is None or further]
    return min(searched) if searched else None


def learn_interventional(taskset, interventions, *, intervention_type="auto", further_changes=False, score="bdeu",
                         equivalent_sample_size=1.0, max_parents=None, required_edges=None, forbidden_edges=None,
                         tiers=None, knowledge=None, n_restarts=50, tabu_length=10, max_tabu_iter=10, max_iter=None,
                         random_state=0, n_jobs=None, progress=None, skeleton="heldout", adjacencies_from=None):
    """Learn one causal DAG and the changed mechanisms from tasks that are interventional conditions.

    See the module docstring for the model. ``interventions`` as for
    :func:`check_interventions`; the search settings as for
    :func:`mtbn.learn.learn_structures`, whose default learner gives the
    adjacencies (``adjacencies_from``: its result on the same tasks, if
    already run; ``skeleton="search"``: no fixed adjacencies, the tied score
    decides them too).

    Parameters
    ----------
    taskset : TaskSet
        The tasks, each an experimental condition over every variable (:func:`mtbn.data.make_taskset`).
    interventions : dict of task name -> list of str or None
        Each task's targets (an empty list: observational; None or absent: unknown), as for
        :func:`check_interventions`.
    intervention_type : {"auto", "mechanism", "perfect", "activity"}, default "auto"
        The model (see the module docstring); "perfect" needs every task's targets; "activity": the given
        targets' children change; "auto": "mechanism" or "activity", the one whose model predicts held-out rows
        better (chosen with the adjacencies, see ``skeleton``; "mechanism" when no task has given targets).
    further_changes : bool, default False
        Mechanism type: besides a task's given targets, other mechanisms may change in it (found by the
        search). False: the given targets are all that changes; a task with unknown targets has its changes
        learned either way.
    score : str, default "bdeu"
        A registered score ("bdeu", "bic" or a plug-in's): the local score of the pooled rows, and of the first
        stage's multitask learner.
    equivalent_sample_size : float, default 1.0
        BDeu's equivalent sample size, of the scores and of the fitted CPTs.
    max_parents : int, optional
        Maximum number of parents per variable among the system variables (the indicators are not counted);
        None: no limit.
    required_edges : list of (parent, child), DAG or networkx graph, optional
        Edges among the system variables the causal DAG must have.
    forbidden_edges : list of (parent, child), DAG or networkx graph, optional
        Edges among the system variables the causal DAG must not have.
    tiers : sequence of sequences of names, optional
        Temporal order: no edge from a later tier into an earlier one.
    knowledge : pgmpy ExpertKnowledge, optional
        Its required and forbidden edges and its temporal order are added to the above.
    n_restarts : int, default 50
        Random restarts of each climb, and of the first stage's single-task searches.
    tabu_length : int, default 10
        Recent moves that stay forbidden unless they reach a new best score (0: plain hill climbing).
    max_tabu_iter : int, default 10
        Moves without a new best score before a climb stops.
    max_iter : int, optional
        Moves allowed per climb of the interventional search (None: no limit).
    random_state : int, Generator or None, default 0
        The seed: one base seed drawn from it seeds the first stage and every climb.
    n_jobs : int, optional
        Parallel jobs of the first stage's multitask learner (joblib's convention; results do not depend on it).
    progress : bool, callable or mtbn.progress.Reporter, optional
        As for :func:`mtbn.learn.learn_structures`: a line per stage.
    skeleton : {"heldout", "multitask", "search"}, default "heldout"
        "multitask": the first stage's adjacencies are kept, and the climbs only orient them and find the
        changed mechanisms (from the multitask and the pooled rows' orientations); "search": the climbs may add
        and remove system edges too (from the multitask structure and from an empty graph); "heldout": the one
        of the two whose model, learned on 80% of every task's rows, gives the other 20% the higher
        log-likelihood (ties, or a task under 10 rows: "multitask"), then learned on all rows
        (``result.interventions.adjacencies`` records the choice; with ``intervention_type="auto"`` the four
        pairs of model and adjacencies are compared so).
    adjacencies_from : MultitaskResult, optional
        The result of :func:`mtbn.learn.learn_structures` on the same tasks, used as the first stage instead of
        running it; anything else raises ``InvalidParameterError``.

    Returns
    -------
    MultitaskResult
        ``graphs[t]``: task ``t``'s structure (the causal DAG; with perfect
        interventions, its targets without parents); ``networks[t]``: its
        CPTs (tied to the other tasks' except where its mechanism changes);
        ``interventions``: the :class:`InterventionalModel`; ``log_score``:
        the score of the learned model on the pooled rows;
        ``task_log_likelihoods[t]``: the log-likelihood of task ``t``'s rows
        under its network; ``penalty`` is NaN (no multitask prior).
    """
    from mtbn._validation import check_option

    check_option("intervention_type", intervention_type, INTERVENTION_TYPES)
    check_option("skeleton", skeleton, SKELETONS)
    say = reporter(progress)
    given = check_interventions(interventions, taskset, intervention_type)
    base = int(check_random_state(random_state).integers(0, 2**31 - 1))
    types = CHOSEN_TYPES if intervention_type == "auto" and any(given.values()) else \
        ("mechanism",) if intervention_type == "auto" else (intervention_type,)
    skeletons = ("multitask", "search") if skeleton == "heldout" else (skeleton,)
    choice = None
    if len(types) * len(skeletons) > 1:
        chosen = [w for w, n in (("model", types), ("adjacencies", skeletons)) if len(n) > 1]
        say(f"held-out choice of the {' and '.join(chosen)}")
        choice = _heldout_choice(taskset, dict(interventions=given, further_changes=further_changes, score=score,
                                               equivalent_sample_size=equivalent_sample_size, max_parents=max_parents,
                                               required_edges=required_edges, forbidden_edges=forbidden_edges,
                                               tiers=tiers, knowledge=knowledge, n_restarts=n_restarts,
                                               tabu_length=tabu_length, max_tabu_iter=max_tabu_iter,
                                               max_iter=max_iter, random_state=base, n_jobs=n_jobs), base,
                                 types, skeletons)
        skeleton, intervention_type = choice["chosen"], choice["type"]
    else:
        skeleton, intervention_type = skeletons[0], types[0]
    variables = tuple(taskset.variables)
    reference = _reference(taskset, given, further_changes, intervention_type)
    indicator_of = {} if intervention_type == "perfect" else _indicator_names(
        [t for t in taskset.names if given[t] != ()], variables)
    data, rows = _pooled(taskset, indicator_of)
    if intervention_type == "perfect":
        keep = {}
        for v, name in enumerate(variables):
            hit = [t for t in taskset.names if name in (given[t] or ())]
            if len(hit) == taskset.n_tasks:
                raise error("perfect-target-everywhere", variable=name)
            if hit:
                keep[v] = np.setdiff1d(np.arange(data.n_samples), np.concatenate([rows[t] for t in hit]))
        scorer = _ExcludingScorer(data, keep, score, equivalent_sample_size)
    else:
        scorer = make_scorer(data, score, equivalent_sample_size)
        via = _activity_parents(list(data.names), variables, given, indicator_of) \
            if intervention_type == "activity" else {}
        if via:
            scorer = _ActivityScorer(scorer, via)
    user = dict(required_edges=required_edges, forbidden_edges=forbidden_edges, tiers=tiers, knowledge=knowledge)
    settings = dict(max_parents=max_parents, n_restarts=n_restarts, tabu_length=tabu_length,
                    max_tabu_iter=max_tabu_iter, max_iter=max_iter)
    say("adjacencies: the default multitask learner (every task its own CPTs)")
    shared = _shared_structure(taskset, settings, user, score, equivalent_sample_size, base, n_jobs,
                               adjacencies_from)
    names = list(data.names)
    kept, adjacent = None, None
    if skeleton == "multitask":  # orientations and changed mechanisms only: the adjacencies found stay
        adjacent = {frozenset(e) for e in shared.edges(names=True)}
        kept = np.zeros((len(names), len(names)), dtype=bool)
        for a, b in shared.edges(names=True):
            kept[names.index(a), names.index(b)] = kept[names.index(b), names.index(a)] = True
    required, forbidden = _constraints(variables, indicator_of, given, further_changes, reference, user, adjacent,
                                       activity=intervention_type == "activity")
    counted = np.arange(len(names)) < len(variables)  # max_parents counts system parents, not the indicators
    starts = [("multitask", _allowed(data, shared.edges(names=True), required, forbidden, max_parents, counted))]
    if skeleton == "multitask":  # the pooled rows' orientations of the same adjacencies
        pooled = {e for e in _pooled_structure(taskset, settings, user, score, equivalent_sample_size, base)}
        starts.append(("pooled", _allowed(data, [(b, a) if (b, a) in pooled else (a, b)
                                                 for a, b in shared.edges(names=True)],
                                          required, forbidden, max_parents, counted)))
    else:
        starts.append(("empty", _allowed(data, [], required, forbidden, max_parents, counted)))
    say(f"interventional search ({intervention_type}): {taskset.n_tasks} conditions pooled, {data.n_samples} rows, "
        f"{len(indicator_of)} condition indicator(s), {len(starts)} starts")
    search = None
    for i, (label, start) in enumerate(starts):
        found = _climb_from(scorer, start, settings, required, forbidden, kept, counted,
                            np.random.default_rng([base, 46, i]))
        if search is None or found.log_score > search.log_score + 1e-9:  # ties: the earlier start
            search = found
    n = len(variables)
    aug = search.graph if intervention_type != "activity" else _with_implied(search.graph, via, n)
    causal = DAG([{p for p in aug.parents[v] if p < n} for v in range(n)], variables)
    changed = {}
    for task in taskset.names:
        per = {}
        if intervention_type == "perfect":
            per = {v: "given" for v in given[task]}
        elif task in indicator_of:
            ind = list(data.names).index(indicator_of[task])
            for v in range(n):
                if ind in search.graph.parents[v]:
                    per[variables[v]] = "given" if variables[v] in (given[task] or ()) else "learned"
                elif ind in aug.parents[v]:  # activity: a child of one of the task's targets
                    per[variables[v]] = "activity"
        changed[task] = dict(sorted(per.items(), key=lambda kv: variables.index(kv[0])))
    say("fitting each condition's CPTs")
    if intervention_type == "perfect":
        networks, causal_network = _perfect_networks(taskset, data, rows, causal, given, equivalent_sample_size)
    else:
        networks, causal_network = _mechanism_networks(taskset, data, aug, indicator_of, equivalent_sample_size)
    graphs = [DAG([set(net.parents[v]) for v in range(n)], variables) for net in networks]
    task_ll = [float(log_likelihood(net, d) * d.n_samples) for net, d in zip(networks, taskset.tasks)]
    model = InterventionalModel(intervention_type, given, changed, causal, causal_network, dict(indicator_of),
                                reference, choice)
    return MultitaskResult(task_names=taskset.names, graphs=graphs, networks=networks, penalty=float("nan"),
                           log_score=float(search.log_score), task_log_likelihoods=task_ll, penalty_path=[],
                           search=search, interventions=model)


#: ``intervention_type="auto"`` with given targets: the models compared on held-out rows (each task's targets
#: change their own mechanisms, or their children's).
CHOSEN_TYPES = ("mechanism", "activity")

#: ``skeleton=`` of :func:`learn_interventional`: the one of the next two that predicts held-out rows better,
#: the adjacencies of the default multitask learner, or free (the interventional score alone decides them too).
SKELETONS = ("heldout", "multitask", "search")

#: ``skeleton="heldout"``: the share of every task's rows held out, and the fewest rows a task needs for it.
HELDOUT_SHARE, HELDOUT_MIN_ROWS = 0.2, 10


def _heldout_choice(taskset, settings, base, types, skeletons):
    """The held-out choice of the model (``types``) and of the adjacencies (``skeletons``): learn the model of each
    pair on 80% of every task's rows (a seeded split, the same for all) and score the other 20% under each task's
    fitted network; the highest total log-likelihood wins (ties: the earlier pair, types first: "mechanism" and
    "multitask" before the others). Returns ``{"chosen": skeleton, "type", "heldout": {skeleton: log-likelihood}
    (the chosen type's, when skeletons were compared), "types": {type: its best log-likelihood} (when types were
    compared), "held_out_rows"}``; with a task under ``HELDOUT_MIN_ROWS`` rows the first pair, nothing held out."""
    from mtbn.data import TaskSet

    if min(d.n_samples for d in taskset.tasks) < HELDOUT_MIN_ROWS:
        return {"chosen": skeletons[0], "type": types[0], "heldout": {}, "types": {}, "held_out_rows": 0}
    rng = np.random.default_rng([base, 46, 7])
    train, test = [], []
    for d in taskset.tasks:
        order = rng.permutation(d.n_samples)
        cut = d.n_samples - max(1, int(round(HELDOUT_SHARE * d.n_samples)))
        train.append(d.take(np.sort(order[:cut])))
        test.append(d.take(np.sort(order[cut:])))
    part = TaskSet.assemble(train, taskset.variables, taskset.states)
    # the first stage the learns below would each run (their seed drawn as learn_interventional draws it)
    with parts_of_checked_data():  # the training rows of the tasks given
        first = _first_stage(part, settings,
                             int(check_random_state(settings["random_state"]).integers(0, 2**31 - 1)))
    scores = {}
    for kind in types:
        for skeleton in skeletons:
            res = learn_interventional(part, **settings, intervention_type=kind, skeleton=skeleton,
                                       adjacencies_from=first)
            scores[kind, skeleton] = float(sum(log_likelihood(net, d) * d.n_samples
                                               for net, d in zip(res.networks, test)))
    best = None
    for key, value in scores.items():  # ties: the earlier pair
        if best is None or value > scores[best]:
            best = key
    kind, chosen = best
    return {"chosen": chosen, "type": kind,
            "heldout": {sk: scores[kind, sk] for sk in skeletons} if len(skeletons) > 1 else {},
            "types": {t: max(scores[t, sk] for sk in skeletons) for t in types} if len(types) > 1 else {},
            "held_out_rows": int(sum(d.n_samples for d in test))}


def _shared_structure(taskset, settings, user, score, ess, base, n_jobs, res=None):
    """The structure the tasks share, as the default multitask learner finds it (each task its own CPTs, so
    no changed mechanism misleads it): every adjacency some task's structure has (a perfect intervention
    removes a target's parents in its own task only), each oriented as most tasks orient it (ties: as the
    first task). ``res``: the default learner's result, if already run."""
    if res is None:
        res = _first_stage(taskset, dict(settings, **user, score=score, equivalent_sample_size=ess, n_jobs=n_jobs),
                           base)
    elif not isinstance(res, MultitaskResult) or tuple(res.task_names) != tuple(taskset.names):
        raise error("interventions-adjacencies-from")
    votes = {}
    for graph in res.graphs:
        for u, v in graph.edges(names=True):
            votes.setdefault(frozenset((u, v)), []).append((u, v))
    edges = [max(set(directed), key=lambda e: (directed.count(e), -directed.index(e))) for directed in votes.values()]
    return DAG.from_edges(taskset.variables, _acyclic_edges(edges, votes))


def _first_stage(taskset, settings, base):
    """The default multitask learner on ``taskset`` with the search ``settings`` (those of
    :func:`learn_interventional`) and seed ``base``: the first stage of the interventional search."""
    import warnings

    from mtbn.exceptions import TransferWarning

    keep = ("score", "equivalent_sample_size", "max_parents", "n_restarts", "tabu_length", "max_tabu_iter",
            "required_edges", "forbidden_edges", "tiers", "knowledge", "n_jobs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        return learn_structures(taskset, **{k: settings[k] for k in keep}, random_state=base)


def _acyclic_edges(edges, votes):
    """``edges`` in decreasing support (tasks having them), each kept only if it closes no directed cycle with
    those already kept; one reversed where the orientations of several tasks would close one."""
    import networkx as nx

    g = nx.DiGraph()
    out = []
    for u, v in sorted(edges, key=lambda e: -len(votes[frozenset(e)])):
        if g.has_node(v) and g.has_node(u) and nx.has_path(g, v, u):
            u, v = v, u
            if nx.has_path(g, v, u):
                continue
        g.add_edge(u, v)
        out.append((u, v))
    return out


def _pooled_structure(taskset, settings, user, score, ess, base):
    """The edges of the structure learned on all tasks' rows stacked, no mechanism changing."""
    from mtbn.learn.single import learn_structure

    return learn_structure(taskset.pooled(), score=score, equivalent_sample_size=ess,
                           n_restarts=settings["n_restarts"], max_parents=settings["max_parents"],
                           tabu_length=settings["tabu_length"],
                           max_tabu_iter=settings["max_tabu_iter"], random_state=np.random.default_rng([base, 46, 101]),
                           **user).graph.edges(names=True)


def _climb_from(scorer, start, settings, required, forbidden, kept, counted, rng):
    """The single-task climb (tabu, restarts) on the pooled rows from ``start``, ``kept`` adjacencies fixed."""
    from mtbn.search import hill_climb

    return hill_climb(scorer, [set(p) for p in start.parents], max_parents=settings["max_parents"],
                      required=required, forbidden=forbidden, tabu_length=int(settings["tabu_length"]),
                      max_tabu_iter=int(settings["max_tabu_iter"]), n_restarts=int(settings["n_restarts"]),
                      rng=rng, max_iter=settings["max_iter"], names=start.names, kept=kept, counted=counted)


def _allowed(data, edges, required, forbidden, max_parents, counted):
    """A start over ``data``'s variables: the required edges, then each of ``edges`` that the constraints allow
    (not forbidden, no cycle, within max_parents of the ``counted`` parents and the CPT size limit)."""
    from mtbn.data import MAX_LEARNED_CPT_SIZE
    from mtbn.graph import SearchGraph

    names = list(data.names)
    graph = SearchGraph([set() for _ in names])
    arity = [int(a) for a in data.arities]
    size = list(arity)
    n_counted = [0] * len(names)
    candidates = [tuple(e) for e in np.argwhere(required)] + [(names.index(u), names.index(v)) for u, v in edges]
    for u, v in candidates:
        full = max_parents is not None and counted[u] and n_counted[v] >= max_parents and not required[u, v]
        if forbidden[u, v] or graph.adj[u, v] or not graph.can_add(u, v) or full \
                or size[v] * arity[u] > MAX_LEARNED_CPT_SIZE:
            continue
        graph.add(u, v)
        size[v] *= arity[u]
        n_counted[v] += bool(counted[u])
    return DAG([set(p) for p in graph.parents], names)


def _slice(net, v, fixed, system):
    """Variable ``v``'s parents among ``system`` and its CPT with the parents in ``fixed`` set to their codes."""
    ps = net.parents[v]
    index = tuple(fixed[p] if p in fixed else slice(None) for p in ps) + (slice(None),)
    return tuple(p for p in ps if p < system), np.ascontiguousarray(net.cpts[v][index])


def _mechanism_networks(taskset, data, aug, indicator_of, ess):
    """Each task's network (its indicators' values fixed in the fitted augmented network) and the reference
    regime's (every indicator 0)."""
    net = fit_parameters(aug, data, equivalent_sample_size=ess)
    n = taskset.n_variables
    position = {task: list(data.names).index(name) for task, name in indicator_of.items()}

    def regime(task):
        fixed = {i: (1 if t == task else 0) for t, i in position.items()}
        parents, cpts = zip(*(_slice(net, v, fixed, n) for v in range(n)))
        return BayesianNetwork(taskset.variables, taskset.states, parents, cpts,
                               None if net.kinds is None else net.kinds[:n])

    return [regime(task) for task in taskset.names], regime(None)


def _perfect_networks(taskset, data, rows, causal, given, ess):
    """Each task's network under perfect interventions, and the reference regime's.

    A family not intervened on in a task has the CPT fitted on the rows of
    every task that leaves it alone; a target of the task has no parents and
    the BDeu posterior mean of its own rows' distribution in that task.
    """
    variables = list(taskset.variables)
    n = len(variables)
    by_rows = {}  # the tasks that intervene on v -> the variables with that set (fitted once per set)
    for v, name in enumerate(variables):
        by_rows.setdefault(frozenset(t for t in taskset.names if name in (given[t] or ())), []).append(v)
    reference = [None] * n
    for skip, vs in by_rows.items():
        keep = np.setdiff1d(np.arange(data.n_samples), np.concatenate([rows[t] for t in skip])) if skip \
            else np.arange(data.n_samples)
        fitted = fit_parameters(causal, data.take(keep), equivalent_sample_size=ess)
        for v in vs:
            reference[v] = (fitted.parents[v], fitted.cpts[v])
    kinds = None if data.kinds is None else data.kinds[:n]

    def network(task):
        parents, cpts = [], []
        for v, name in enumerate(variables):
            if task is not None and name in (given[task] or ()):
                counts = np.bincount(data.codes[rows[task], v], minlength=len(taskset.states[v])).astype(float)
                r = len(counts)
                parents.append(())
                cpts.append((counts + ess / r) / (counts.sum() + ess))
            else:
                parents.append(reference[v][0])
                cpts.append(reference[v][1])
        return BayesianNetwork(taskset.variables, taskset.states, parents, cpts, kinds)

    return [network(task) for task in taskset.names], network(None)


# Settings of learn_structures that the interventional learner uses; every other one must keep its default.
USED_SETTINGS = ("score", "equivalent_sample_size", "max_parents", "required_edges", "forbidden_edges", "tiers",
                 "knowledge", "n_restarts", "tabu_length", "max_tabu_iter", "max_iter", "random_state", "n_jobs",
                 "task_column", "progress", "interventions", "intervention_type", "further_changes", "tasks")


def check_unused_settings(args, defaults, used=USED_SETTINGS):
    """Refuse a multitask setting given with ``interventions`` (it would be ignored): one not in ``used``."""
    for name, value in args.items():
        if name in used or name not in defaults:
            continue
        default = defaults[name]
        same = value is default or (type(value) is type(default) and _equal(value, default))
        if not same:
            raise error("interventions-setting", name=name)


def _equal(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def learn_from_settings(args, skeleton="heldout"):
    """``learn_structures(..., interventions=...)`` on its settings: one causal DAG and the changed mechanisms.

    Installed as :data:`mtbn.learn.multitask.INTERVENTIONAL_ENTRY` (with the default ``skeleton``); the
    bootstrap calls it with the skeleton its result chose, so that every replicate repeats that decision.

    Parameters
    ----------
    args : dict
        Settings of :func:`mtbn.learn.learn_structures` by name (``tasks`` and ``interventions`` among them);
        a setting left out takes its default.
    skeleton : {"heldout", "multitask", "search"}, default "heldout"
        As for :func:`learn_interventional`.

    Returns
    -------
    MultitaskResult
        As :func:`learn_interventional` returns it.
    """
    from mtbn.data import make_taskset

    args = dict(MULTITASK.defaults(), **args)
    check_unused_settings(args, MULTITASK.defaults())
    ts = make_taskset(args["tasks"], task_column=args["task_column"])
    used = {k: args[k] for k in USED_SETTINGS if k not in ("tasks", "task_column", "interventions")}
    return learn_interventional(ts, args["interventions"], **used, skeleton=skeleton)


INTERVENTIONAL_ENTRY["learn"] = learn_from_settings
