"""Continuous tasks as interventional conditions: one causal DAG of linear Gaussian mechanisms (issue 46).

The continuous counterpart of :mod:`mtbn.learn.interventional`, with the same
model and inputs (``interventions=``: each task's targets, an empty list for
an observational task, None or absent for unknown targets) and the same
output (:class:`~mtbn.learn.interventional_model.InterventionalModel` in
``result.interventions``).

``"mechanism"`` (the default; Joint Causal Inference, Mooij, Magliacane and
Claassen 2020)
    Every task that is not observational gets an indicator ``do(<task>)``, a
    root of the augmented graph. A family ``v | P`` with the indicators ``C``
    of some tasks among its parents is scored as the tasks' rows split in
    groups: one group per task of ``C`` (its own regression of ``v`` on
    ``P``: intercept, coefficients and residual variance) and one group of
    every other task's rows pooled (the tied mechanism). Each group's score
    is the Gaussian score of its rows (BGe or the Gaussian BIC, from the
    group's pooled means and scatter, :class:`mtbn.data.continuous.PooledTasks`),
    so the score of a structure is
    ``sum_v [S(v | P; rows of the tasks not in C_v) + sum_{c in C_v} S(v | P; rows of c)]``.
    Known targets are required edges ``do(c) -> t`` and (unless
    ``further_changes``) the only changes of task ``c``; a task with unknown
    targets has its indicator's children learned. With no observational task
    and changes to search, the first such task by name is the reference
    regime, as in the discrete learner.

``"activity"`` (an inhibitor or activator acts on what the target does)
    The mechanisms that change in a task are those of its targets' children
    in the DAG (and the target's own, if the search finds it): a family with
    a parent that task ``c`` targets is scored with ``c``'s rows as a group
    of their own, as if ``do(c)`` were among its parents
    (:class:`mtbn.learn.interventional._ActivityScorer`, shared with the
    discrete learner).

``"perfect"`` (Cooper and Yoo 1999)
    Known targets only. A target's family is scored on the rows of the tasks
    that do not intervene on it; in a task that does, the target has no
    parents and its own rows' mean and variance.

``"auto"`` (the default): with targets given, mechanism or activity,
whichever, learned on 80% of every condition's rows, gives the other 20%
the higher log-likelihood (recorded in ``result.interventions.adjacencies``);
mechanism when no targets are given.

The search is the single-task tabu climb with restarts over the system
variables and the indicators (nothing into an indicator; max_parents counts
system parents only), from three starts: the DAGs that greedy equivalence
search finds on all rows pooled and on the conditions' own score (indicators
included), each cut to what the constraints allow, and the required edges
alone; the best end is kept (ties: the first). (With two starts, the first
and the last, a climb told only which condition is observational ended in
a local optimum 720 below the true DAG's score on one of four random
30-variable systems; the second start reaches it.) Unlike the discrete
learner it has no first stage: the tied score decides the adjacencies too
(the discrete ``skeleton="search"``).

Each task's network: every family fitted by least squares on the rows of its
group (its own rows where its mechanism changes, else the rows of every task
that leaves it alone). ``causal_network`` is the reference regime (each
family on the rows of the tasks that leave it alone).
"""

from __future__ import annotations

import numpy as np

from mtbn._validation import check_option, check_random_state
from mtbn.data.continuous import ContinuousData, PooledTasks
from mtbn.ges import greedy_equivalence_search
from mtbn.graph import DAG
from mtbn.learn import gaussian
from mtbn.learn.checks import check_constraints
from mtbn.learn.interventional import (
    CHOSEN_TYPES,
    HELDOUT_MIN_ROWS,
    HELDOUT_SHARE,
    INTERVENTION_TYPES,
    USED_SETTINGS,
    _activity_parents,
    _ActivityScorer,
    _constraints,
    _indicator_names,
    _reference,
    _with_implied,
    check_interventions,
)
from mtbn.learn.interventional_model import InterventionalModel
from mtbn.learn.settings import MULTITASK
from mtbn.messages import error
from mtbn.networks.gaussian import LinearGaussianNetwork, fit_family
from mtbn.progress import reporter
from mtbn.score import make_scorer
from mtbn.score.base import LocalScore
from mtbn.search import TIE_TOLERANCE, hill_climb

__all__ = ["learn_gaussian_interventional"]

class _Conditions:
    """The tasks as :func:`check_interventions` reads them (names, data, the shared variables)."""

    def __init__(self, names, variables, datas):
        self.names, self.variables, self.tasks = list(names), list(variables), list(datas)
        self.n_tasks = len(datas)
        self.local_index = np.tile(np.arange(len(variables)), (len(datas), 1))


#: The groups of tasks whose scorers :class:`ConditionScore` keeps (each holds a few matrices of the variables
#: squared; the least recently used goes first). The family scores are cached by the condition score itself, so a
#: group dropped costs only its pooled scatter again (from the tasks' own, kept).
MAX_GROUPS = 256


class ConditionScore(LocalScore):
    """The Gaussian score of tasks pooled by mechanism: system variables, then one indicator per task that may
    change a mechanism (see the module's docstring).

    Parameters
    ----------
    datas : sequence of ContinuousData
        The tasks, over the same columns in the same order (the system variables).
    score : str
        The Gaussian score of each group of rows (``"bge"`` or ``"bic-g"``).
    indicator_tasks : sequence of int
        The task of each indicator column (column ``n_system + j`` is task ``indicator_tasks[j]``'s).
    skip : sequence of frozenset of int, optional
        Per system variable, the tasks whose rows never enter its family (perfect interventions on it).
    """

    name = "conditions"
    data_kind = ContinuousData

    def __init__(self, datas, score, indicator_tasks=(), skip=None):  # no one data set: LocalScore's not called
        self.datas, self.score_name = list(datas), score
        self._parts = [PooledTasks([d], d.name) for d in self.datas]  # each task's means and scatter, once
        self.n_system = datas[0].n_vars
        self.indicator_tasks = list(indicator_tasks)
        self.skip = [frozenset()] * self.n_system if skip is None else list(skip)
        self.data = None
        self.n_vars = self.n_system + len(self.indicator_tasks)
        self.n_samples = sum(d.n_samples for d in self.datas)
        self.arities = np.ones(self.n_vars, dtype=np.int64)
        self._cache, self._groups = {}, {}
        self.hits = self.misses = 0

    def group(self, tasks):
        """The score of the rows of ``tasks`` pooled (one scorer per group, its scores cached).

        Parameters
        ----------
        tasks : iterable of int
            Task indices.

        Returns
        -------
        LocalScore
        """
        key = tuple(sorted(set(tasks)))
        scorer = self._groups.pop(key, None)
        if scorer is None:
            scorer = make_scorer(PooledTasks([self._parts[t] for t in key]), self.score_name)
            if len(self._groups) >= MAX_GROUPS:  # the least recently used group goes (its scores are cached here)
                del self._groups[next(iter(self._groups))]
        self._groups[key] = scorer  # the most recently used last
        return scorer

    def groups_of(self, child, parents):
        """The groups of tasks ``child``'s family is scored (and fitted) on: the pooled rest first (omitted
        when empty), then each task whose indicator is among ``parents``.

        Parameters
        ----------
        child : int
            A system variable's column.
        parents : iterable of int
            Its parents (system columns and indicator columns).

        Returns
        -------
        list of tuple of int
        """
        own = sorted({self.indicator_tasks[p - self.n_system] for p in parents if p >= self.n_system})
        rest = tuple(t for t in range(len(self.datas)) if t not in own and t not in self.skip[child])
        return ([rest] if rest else []) + [(t,) for t in own]

    def compute(self, child, parents):
        """The family's score: the sum over its groups of the Gaussian score of ``child`` given its system parents.

        Parameters
        ----------
        child : int
            The column scored (an indicator, a root by construction, scores 0).
        parents : tuple of int
            Its parents' columns.

        Returns
        -------
        float
        """
        if child >= self.n_system:
            return 0.0
        system = tuple(p for p in parents if p < self.n_system)
        return float(sum(self.group(g).local_score(child, system) for g in self.groups_of(child, parents)))


def learn_gaussian_interventional(tasks, interventions, *, intervention_type="auto", further_changes=False,
                                  score="bge", max_parents=None, required_edges=None, forbidden_edges=None,
                                  tiers=None, knowledge=None, n_restarts=MULTITASK["n_restarts"].default,
                                  tabu_length=10, max_tabu_iter=10, max_iter=None, random_state=0, progress=None):
    """Learn one causal DAG of linear Gaussian mechanisms and each continuous task's changed mechanisms.

    See the module docstring for the model.

    Parameters
    ----------
    tasks : dict of str -> pandas.DataFrame or ContinuousData, or a list of them
        The conditions, each over the same real-valued columns (as for
        :func:`~mtbn.learn.gaussian.learn_gaussian_structures`).
    interventions : dict of task name -> list of str or None
        Each task's targets (an empty list: observational; None or absent: unknown), checked as by
        :func:`~mtbn.learn.interventional.check_interventions`.
    intervention_type : {"auto", "mechanism", "activity", "perfect"}, default "auto"
        The model (see the module docstring); "perfect" needs every task's targets; "auto": mechanism or
        activity, chosen on held-out rows when targets are given (else mechanism).
    further_changes : bool, default False
        Mechanism type: other mechanisms besides a task's given targets may change in it (found by the search).
    score : {"bge", "bic-g"}, default "bge"
        The Gaussian score of each group of rows.
    max_parents : int, optional
        Most system parents of a variable (the indicators are not counted); None: no limit.
    required_edges, forbidden_edges : list of (parent, child), DAG or networkx graph, optional
        Edges among the system variables the causal DAG must have, or must not have.
    tiers : sequence of sequences of names, optional
        Temporal order: no edge from a later tier into an earlier one.
    knowledge : pgmpy ExpertKnowledge, optional
        Its required and forbidden edges and its temporal order, added to the above.
    n_restarts : int, default 50
        Random restarts of each climb.
    tabu_length : int, default 10
        Recent moves that stay forbidden unless they reach a new best score.
    max_tabu_iter : int, default 10
        Moves without a new best score before a climb stops.
    max_iter : int, optional
        Moves allowed per climb (None: no limit).
    random_state : int, Generator or None, default 0
        The seed of the restarts.
    progress : bool, callable or mtbn.progress.Reporter, optional
        A line per stage.

    Returns
    -------
    GaussianResult
        ``graphs[t]``: task ``t``'s structure (the causal DAG; with perfect interventions, its targets without
        parents); ``networks[t]``: its linear Gaussian network (its own regressions where its mechanisms
        change, the tied ones elsewhere); ``interventions``: the :class:`InterventionalModel` (its
        ``causal_network`` a :class:`~mtbn.networks.gaussian.LinearGaussianNetwork`); ``log_score``: the
        score of the learned model; ``penalty`` is NaN (no multitask prior).

    Examples
    --------
    ``x -> y``: observational rows alone cannot orient it; a condition that shifts ``x`` and leaves ``y``'s
    mechanism alone can.

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> def condition(shift, n=500):
    ...     x = shift + rng.normal(size=n)
    ...     return pd.DataFrame({"x": x, "y": 0.8 * x + rng.normal(size=n)})
    >>> res = learn_gaussian_interventional({"obs": condition(0.0), "drug": condition(2.0)},
    ...                                     {"obs": [], "drug": ["x"]}, n_restarts=0)
    >>> res.interventions.causal_graph.edges(names=True)
    [('x', 'y')]
    >>> res.interventions.changed["drug"]
    {'x': 'given'}
    """
    from mtbn.score import SCORES, GaussianScore

    check_option("intervention_type", intervention_type, INTERVENTION_TYPES)
    if score not in SCORES or not issubclass(SCORES[score], GaussianScore):
        raise error("gaussian-score", score=score)
    names, variables, datas = gaussian._tasks(tasks)
    conditions = _Conditions(names, variables, datas)
    given = check_interventions(interventions, conditions, intervention_type)
    say = reporter(progress)
    base = int(check_random_state(random_state).integers(2**31))
    search = dict(further_changes=further_changes, score=score, max_parents=max_parents,
                  user=dict(required_edges=required_edges, forbidden_edges=forbidden_edges, tiers=tiers,
                            knowledge=knowledge),
                  n_restarts=n_restarts, tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, max_iter=max_iter)
    choice = None
    kind = intervention_type
    if intervention_type == "auto":
        kind = "mechanism"
        if any(given.values()):  # targets given: their own mechanisms change, or their children's
            say("held-out choice of the model")
            choice = _heldout_choice(names, variables, datas, given, search, base)
            kind = choice["type"]
    return _learn(names, variables, datas, given, kind, search, base, say, choice)


def _heldout_choice(names, variables, datas, given, search, base):
    """The model of ``intervention_type="auto"``: mechanism changes or activity interventions, whichever learned on
    80% of every task's rows (a seeded split) gives the other 20% the higher log-likelihood under each task's
    network (ties: mechanism); as :attr:`InterventionalModel.adjacencies` records it. With a task under
    ``HELDOUT_MIN_ROWS`` rows: mechanism, nothing held out."""
    if min(d.n_samples for d in datas) < HELDOUT_MIN_ROWS:
        return {"chosen": "search", "type": CHOSEN_TYPES[0], "heldout": {}, "types": {}, "held_out_rows": 0}
    rng = np.random.default_rng([base, 46, 7])
    train, test = [], []
    for d in datas:
        order = rng.permutation(d.n_samples)
        cut = d.n_samples - max(1, int(round(HELDOUT_SHARE * d.n_samples)))
        train.append(d.subset(np.sort(order[:cut])))  # read in place: the scores and fits use its scatter
        test.append(d.take(np.sort(order[cut:])))
    scores = {}
    for kind in CHOSEN_TYPES:
        res = _learn(names, variables, train, given, kind, search, base, reporter(None), None)
        scores[kind] = float(sum(net.log_likelihood(d) for net, d in zip(res.networks, test)))
    best = max(CHOSEN_TYPES, key=lambda k: (scores[k], -CHOSEN_TYPES.index(k)))
    return {"chosen": "search", "type": best, "heldout": {}, "types": scores,
            "held_out_rows": int(sum(d.n_samples for d in test))}


def _learn(names, variables, datas, given, kind, search, base, say, choice):
    """:func:`learn_gaussian_interventional` of one model ``kind`` ("mechanism", "activity" or "perfect")."""
    n = len(variables)
    conditions = _Conditions(names, variables, datas)
    further = search["further_changes"]
    reference = _reference(conditions, given, further, kind)
    skip = [frozenset()] * n
    if kind == "perfect":
        indicator_of = {}
        skip = [frozenset(t for t, task in enumerate(names) if v in (given[task] or ())) for v in variables]
        for v, hit in zip(variables, skip):
            if len(hit) == len(names):
                raise error("perfect-target-everywhere", variable=v)
    else:
        indicator_of = _indicator_names([t for t in names if given[t] != ()], variables)
    grouped = ConditionScore(datas, search["score"], [names.index(t) for t in indicator_of], skip)
    augmented = list(variables) + list(indicator_of.values())
    via = _activity_parents(augmented, variables, given, indicator_of) if kind == "activity" else {}
    scorer = _ActivityScorer(grouped, via) if via else grouped
    required, forbidden = _constraints(variables, indicator_of, given, further, reference, search["user"],
                                       activity=kind == "activity")
    empty = check_constraints([set() for _ in augmented], required, forbidden, augmented, None, "empty start")
    counted = np.arange(len(augmented)) < n  # max_parents counts system parents, not the indicators
    max_parents = search["max_parents"]
    pooled = greedy_equivalence_search(grouped.group(range(len(datas))), max_parents=max_parents).graph.parents
    starts = [gaussian._within(list(pooled) + [set() for _ in indicator_of], required, forbidden, empty,
                               max_parents)]
    if indicator_of:  # GES on the conditions' own score too (indicators included), cut to the constraints
        own = greedy_equivalence_search(scorer, max_parents=max_parents).graph.parents
        starts.append(gaussian._within(own, required, forbidden, empty, max_parents))
    starts.append(empty)
    say(f"interventional search ({kind}): {len(names)} continuous conditions pooled, {grouped.n_samples} rows, "
        f"{len(indicator_of)} condition indicator(s)")
    found = None
    for i, start in enumerate(starts):
        climb = hill_climb(scorer, [set(p) for p in start], max_parents=max_parents, required=required,
                           forbidden=forbidden, tabu_length=int(search["tabu_length"]),
                           max_tabu_iter=int(search["max_tabu_iter"]), n_restarts=int(search["n_restarts"]),
                           rng=np.random.default_rng([base, 46, i]), max_iter=search["max_iter"], names=augmented,
                           counted=counted)
        if found is None or climb.log_score > found.log_score + TIE_TOLERANCE:  # ties: the earlier start
            found = climb
    graph = found.graph if not via else _with_implied(found.graph, via, n)
    parents = [set(ps) for ps in graph.parents]
    causal = DAG([{p for p in parents[v] if p < n} for v in range(n)], variables)
    changed = {}
    for task in names:
        if kind == "perfect":
            per = {v: "given" for v in given[task]}
        else:
            column = n + list(indicator_of).index(task) if task in indicator_of else None
            per = {}
            for v in range(n):
                if column in found.graph.parents[v]:
                    per[variables[v]] = "given" if variables[v] in (given[task] or ()) else "learned"
                elif column in parents[v]:  # activity: a child of one of the task's targets
                    per[variables[v]] = "activity"
        changed[task] = dict(sorted(per.items(), key=lambda kv: variables.index(kv[0])))
    say("fitting each condition's regressions")
    networks, causal_network = _networks(grouped, parents, names, variables, given, kind)
    graphs = [DAG([set(p) for p in net.parents], variables) for net in networks]
    model = InterventionalModel(kind, given, changed, causal, causal_network, dict(indicator_of), reference, choice)
    return gaussian.GaussianResult(tuple(names), graphs, networks, float("nan"), score=search["score"],
                                   interventions=model, log_score=float(found.log_score), search=found)


def _networks(scorer, parents, names, variables, given, kind):
    """Each task's linear Gaussian network and the reference regime's: every family fitted on its group's rows
    (:meth:`ConditionScore.groups_of`) from the group's means and scatter; with perfect interventions a target of
    the task has no parents and its own rows' mean and variance."""
    n = len(variables)
    system = [tuple(sorted(p for p in parents[v] if p < n)) for v in range(n)]

    def family(v, group, ps):
        rows = scorer.group(group).data
        intercept, beta, variance = fit_family(*rows.centred_scatter(), rows.n_samples, v, ps)
        return ps, intercept, beta, variance

    def network(t, name):
        out = []
        for v in range(n):
            groups = scorer.groups_of(v, parents[v])
            if kind == "perfect" and t is not None and variables[v] in (given[names[t]] or ()):
                out.append(family(v, (t,), ()))
            elif t is not None and (t,) in groups[1:]:
                out.append(family(v, (t,), system[v]))
            else:
                out.append(family(v, groups[0], system[v]))
        ps, intercepts, coefficients, variances = zip(*out)
        return LinearGaussianNetwork(tuple(variables), tuple(ps), np.array(intercepts), tuple(coefficients),
                                     np.array(variances), name)

    return [network(t, name) for t, name in enumerate(names)], network(None, "causal")


#: Settings of :func:`mtbn.learn.learn_structures` that the continuous interventional learner reads (``n_jobs``
#: and ``progress`` taken, the first unused: one climb); every other one must keep its default.
GAUSSIAN_USED = tuple(s for s in USED_SETTINGS if s not in ("equivalent_sample_size", "task_column"))


def learn_from_kind_settings(tasks, settings):
    """:class:`~mtbn.learn.gaussian.GaussianKind`'s learner with ``interventions`` given: the settings checked
    (a multitask one away from its default refused), ``score="bdeu"`` (the default) read as BGe.

    Parameters
    ----------
    tasks : object
        Continuous tasks (what the kind claims).
    settings : dict
        The settings of :func:`mtbn.learn.learn_structures` the kind took, ``interventions`` among them.

    Returns
    -------
    GaussianResult
        As :func:`learn_gaussian_interventional` returns it.
    """
    from mtbn.learn.interventional import check_unused_settings

    check_unused_settings(settings, MULTITASK.defaults(), GAUSSIAN_USED)
    s = {k: v for k, v in settings.items() if k in GAUSSIAN_USED and k not in ("n_jobs", "interventions")}
    if s.get("score", "bdeu") == "bdeu":
        s["score"] = "bge"
    frames = {name: d if isinstance(d, ContinuousData) else gaussian._numbers(d)
              for name, d in gaussian.named_frames(tasks)}
    return learn_gaussian_interventional(frames, settings["interventions"], **s)


gaussian.INTERVENTIONAL["learn"] = learn_from_kind_settings
