"""Task selection (paper Section 2.4.3): which tasks to learn a principal task with.

The other tasks are ordered by their distance from the principal (a measure
of :mod:`mtbn.relatedness.measures`); the principal is learned with the
closest ``N``, ``N`` chosen on held-out rows of the principal by the shared
protocol of :mod:`mtbn.heldout`, by the largest gap in the distances, or
given.
"""

from dataclasses import dataclass

import numpy as np

from mtbn._validation import check_option, check_random_state
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG
from mtbn.messages import error, register
from mtbn.progress import reporter
from mtbn.relatedness.learning import GroupLearner, checked_tasks, curve_records, group_settings, kind_group_settings
from mtbn.relatedness.measures import direct_relatedness, gap_size, indirect_relatedness
from mtbn.relatedness.result import MEASURES, RelatednessResult, check_relatedness
from mtbn.heldout import RULES, fit_networks, heldout_scores, hold_out

register("n-select-value", InvalidParameterError, "n must be 'auto', 'gap' or an integer >= 0; got {value!r}.",
         cause="The number of tasks to select is neither 'auto', 'gap' nor a whole number.",
         fix="Pass 'auto' (chosen on validation rows), 'gap' (the largest gap in distances) or a count.")
register("n-select-range", InvalidParameterError,
         "n must be 'auto', 'gap' or an integer in [0, {n_others}] (the other tasks); got {value}.",
         cause="More tasks were asked for than there are besides the principal task.",
         fix="Ask for at most the number of other tasks.")
register("unknown-principal", InvalidParameterError, "principal task {task!r} is not one of the tasks ({names}).",
         cause="The principal task is not among the tasks given (for CSV files, a task's name is its file stem).",
         fix="Use one of the names listed.")


@dataclass(frozen=True)
class SelectionResult:
    """What :func:`select_tasks` returns.

    Parameters
    ----------
    principal : str
        The task whose network was learned.
    order : list of str
        The other tasks, most related first.
    distances : dict of name -> float
        Distance of each other task from the principal.
    n_selected : int
        The number N of other tasks the principal was learned with.
    selected : list of str
        The first ``n_selected`` of ``order``.
    how : str
        How ``n_selected`` was chosen: "given", "gap" or "validation".
    validation_curve : list of (int, float, float)
        ``(N, validation log-likelihood per row, paired standard error of its
        difference from the best N)`` for the N tried (``how="validation"``).
    rule : str
        The rule that chose N from the validation curve.
    n_within_noise : int
        The smallest N allowed: every task within noise of the principal
        (and any closer one) is selected.
    gap : int
        The number of tasks before the largest gap in the sorted distances.
    graph : DAG
        The principal's learned structure.
    network : BayesianNetwork
        With parameters fitted on all the principal's rows.
    single_task_graph : DAG
        The principal's single-task structure, for comparison.
    relatedness : RelatednessResult
        The distances the other tasks were ordered by.
    penalty : float
        The multitask penalty of the final run (nan for N = 0).

    Examples
    --------
    Task ``a`` learned with the one task closest to it by the indirect
    measure (2 folds here); in ``c`` the smoking column is shuffled:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> res = select_tasks(tasks, "a", measure="indirect", n_folds=2, n=1, penalty=0.9, n_restarts=0,
    ...                    random_state=0)
    >>> res.principal, res.order, res.selected, res.how
    ('a', ['b', 'c'], ['b'], 'given')
    >>> {name: round(d, 3) for name, d in res.distances.items()}
    {'b': 0.012, 'c': 0.055}
    >>> res.penalty, sorted(res.graph.edges())
    (0.9, [('bronc', 'dysp'), ('lung', 'dysp'), ('smoke', 'bronc'), ('smoke', 'lung')])

    ``to_dict`` gives the JSON record that ``mtbn select`` writes:

    >>> record = res.to_dict()
    >>> record["measure"], record["selected"], record["n_selected"]
    ('indirect', ['b'], 1)
    """

    principal: str
    order: list
    distances: dict
    n_selected: int
    selected: list
    how: str
    validation_curve: list
    gap: int
    graph: DAG
    network: object
    single_task_graph: DAG
    relatedness: RelatednessResult
    penalty: float = float("nan")
    n_within_noise: int = 0
    rule: str = "one-se"

    def to_dict(self):
        """JSON-ready summary (``selected.json``).

        Returns
        -------
        dict
            ``principal``, ``measure``, ``order``, ``distances``, ``n_selected``, ``selected``, ``how``, ``gap``,
            ``penalty`` (None for N = 0), ``validation_curve`` (records with ``n``, ``validation_log_likelihood``
            and ``se_vs_best``), ``n_within_noise``, ``noise_floor`` and the principal's ``edges``.
        """
        return {
            "principal": self.principal,
            "measure": self.relatedness.measure,
            "order": list(self.order),
            "distances": {k: float(v) for k, v in self.distances.items()},
            "n_selected": int(self.n_selected),
            "selected": list(self.selected),
            "how": self.how,
            "gap": int(self.gap),
            "penalty": None if np.isnan(self.penalty) else float(self.penalty),
            "validation_curve": curve_records(self.validation_curve, "n"),
            "n_within_noise": int(self.n_within_noise),
            "noise_floor": self.relatedness.floor,
            "edges": [list(e) for e in self.graph.edges(names=True)],
        }


def select_tasks(tasks, principal, *, measure="direct", n="auto", selection_validation=0.05, relatedness_penalty=0.9,
                 max_tasks=None, n_folds=10, noise_floor=True, selection_rule="one-se", relatedness=None,
                 **settings):
    """Select related tasks for a principal task and learn its network with them.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, DiscreteData or ContinuousData, list of them, or TaskSet
        The principal and the tasks it may be learned with (continuous tasks: linear Gaussian networks, each
        group's penalty by cross-validation; the settings of :data:`mtbn.learn.settings.MULTITASK` that learner
        does not take are refused).
    principal : str
        The task whose network matters.
    measure : {"direct", "indirect"}, default "direct"
        The relatedness measure the other tasks are ordered by.
    n : "auto", "gap" or int
        Number of tasks to learn with: chosen on a validation split of the
        principal (``"auto"``; separate from the split that picks the
        penalty), the count before the largest gap in the sorted distances
        (``"gap"``), or given.
    selection_validation : float or int, default 0.05
        Principal rows held out to choose N (fraction or count).
    relatedness_penalty : float, default 0.9
        delta used by the direct measure.
    max_tasks : int, optional
        Largest N tried by ``n="auto"`` (default: all).
    n_folds : int, default 10
        Folds of the indirect measure.
    noise_floor : bool or int, default True
        Direct measure: compute the noise floor (:func:`noise_floor`; True =
        10 permutation replicates, an int = that many) and never leave out a
        task whose distance from the principal is within it (``n="auto"``
        and ``"gap"`` select at least every such task).
    selection_rule : {"one-se", "max"}, default "one-se"
        ``n="auto"``: the smallest N whose validation log-likelihood is within
        one paired standard error of the best (toward less transfer, as for
        the penalty), or the best N.
    relatedness : RelatednessResult, optional
        Distances computed before on these tasks with the measure
        ``measure`` (what :func:`direct_relatedness` or
        :func:`indirect_relatedness` returned, or
        :meth:`RelatednessResult.from_dict` of a ``relatedness.json``): used
        as they are, noise floor included, instead of learning the
        relatedness structures again; ``relatedness_penalty``, ``n_folds``
        and ``noise_floor`` then do not apply. Either way the distances come
        from every row (those held out to choose N included), so that they
        equal those of :func:`relatedness` with the same arguments.

    **settings
        Settings of :func:`mtbn.learn.learn_structures`
        (:data:`mtbn.learn.settings.MULTITASK`) for every group learned, the
        principal alone included (with the settings the single-task learner
        shares); checked before any work. The same defaults, except
        ``validation=0.05``: each group's penalty (``penalty="auto"``) is
        chosen on one validation split of each task, as in the paper's task
        selection. ``random_state`` also seeds the relatedness and the
        choice of N, ``equivalent_sample_size`` and ``n_restarts`` the
        relatedness structures, ``n_jobs`` the relatedness and every group,
        ``progress`` the stages of the selection.

    Returns
    -------
    SelectionResult

    Examples
    --------
    Three tasks over four ASIA variables; in ``c`` the smoking column is
    shuffled. The direct distances (with a small noise floor: two
    permutation replicates) are computed once and passed in:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> rel = direct_relatedness(tasks, n_restarts=0, n_joint_restarts=0, noise_floor=2, random_state=0)
    >>> res = select_tasks(tasks, "a", n="gap", penalty=0.9, n_restarts=0, relatedness=rel, random_state=0)
    >>> res.order, res.distances
    (['b', 'c'], {'b': 0.0, 'c': 2.0})

    The largest gap in the sorted distances comes after ``b``, which is
    also within the noise floor of ``a``; so ``a`` is learned with ``b``
    only:

    >>> res.gap, res.n_within_noise, res.selected, res.how
    (1, 1, ['b'], 'gap')
    """
    settings = group_settings("select_tasks", settings)
    equivalent_sample_size, n_restarts, random_state, n_jobs = (
        settings[k] for k in ("equivalent_sample_size", "n_restarts", "random_state", "n_jobs"))
    names, tasks_data, kind, n = _check_selection(tasks, principal, measure, n, selection_rule)
    learned_with = settings if kind is None else kind_group_settings(kind, settings)
    check_relatedness(relatedness, names, measure, "select_tasks")
    say = reporter(settings["progress"])
    rel = relatedness
    if rel is None:  # on every row with random_state as given: the distances of relatedness() itself
        say(f"{measure} relatedness of {len(names)} tasks")
        rel = _task_distances(tasks_data if kind is None else dict(zip(names, tasks_data)), measure,
                              relatedness_penalty, equivalent_sample_size, noise_floor, n_folds, n_restarts,
                              random_state, n_jobs)
    seed = int(check_random_state(random_state).integers(0, 2**31 - 1))
    datasets = dict(zip(names, tasks_data))
    full = datasets[principal]
    held_out = None
    if n == "auto":  # rows of the principal that choose N, apart from those that choose the penalty
        datasets[principal], held_out = hold_out(full, selection_validation, np.random.default_rng([seed, 3]),
                                                 principal, "selection_validation")
    dist = rel.from_task(principal)
    order, n_min = _order(rel, dist, principal, names)
    gap = gap_size([dist[x] for x in order])
    learn = _PrincipalLearner(GroupLearner(learned_with, seed, kind), datasets, principal)
    curve = []
    if n == "auto":
        limit = max(n_min, len(order) if max_tasks is None else min(int(max_tasks), len(order)))
        n_sel, graph, pen, curve = _choose_n(learn, order, range(n_min, limit + 1), held_out, selection_rule,
                                             equivalent_sample_size, say)
        how = "validation"
    else:
        n_sel = max(gap, n_min) if n == "gap" else min(n, len(order))
        how = "gap" if n == "gap" else "given"
        graph, pen = learn(order[:n_sel])
    network = fit_networks([graph], [full], equivalent_sample_size)[0]
    stl_graph = learn([])[0]
    return SelectionResult(principal, order, {x: float(dist[x]) for x in order}, n_sel, order[:n_sel], how, curve,
                           gap, graph, network, stl_graph, rel, pen, n_within_noise=n_min,
                           rule=selection_rule)


def _task_distances(tasks, measure, penalty, ess, noise_floor, n_folds, n_restarts, random_state, n_jobs):
    """The distances of ``mtbn relatedness`` (same rows, seed and defaults), for select and cluster."""
    tasks = tasks if isinstance(tasks, dict) else list(tasks)  # continuous tasks by name
    if measure == "direct":
        return direct_relatedness(tasks, penalty=penalty, equivalent_sample_size=ess, noise_floor=noise_floor,
                                  n_jobs=n_jobs, n_restarts=n_restarts, random_state=random_state)
    return indirect_relatedness(tasks, equivalent_sample_size=ess, n_folds=n_folds, n_jobs=n_jobs,
                                n_restarts=n_restarts, random_state=random_state)


def _check_n(n):
    if n in ("auto", "gap"):
        return n
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0:
        return int(n)
    raise error("n-select-value", value=n)


def _check_selection(tasks, principal, measure, n, rule):
    """The checked tasks' names and data, their kind of data (None: discrete; else continuous tasks) and ``n``."""
    names, datasets, kind = checked_tasks(tasks)
    if principal not in names:
        raise error("unknown-principal", task=principal, names=", ".join(map(repr, names)))
    check_option("measure", measure, MEASURES)
    n = _check_n(n)
    check_option("selection_rule", rule, RULES)
    if isinstance(n, int) and n > len(names) - 1:
        raise error("n-select-range", n_others=len(names) - 1, value=n)
    return names, datasets, kind, n


def _order(rel, dist, principal, names):
    """The other tasks, closest first (ties: the given order; NaN last), and the smallest N allowed.

    Tasks within noise of the principal are never left out (nor any task
    closer than one of them).
    """
    others = [x for x in names if x != principal]
    order = sorted(others, key=lambda x: (np.isnan(dist[x]), float(dist[x]) if not np.isnan(dist[x]) else 0.0,
                                          others.index(x)))
    within = rel.within_noise()
    n_min = max((order.index(x) + 1 for x in order if within is not None and within.loc[principal, x]), default=0)
    return order, n_min


@dataclass(frozen=True)
class _PrincipalLearner:
    """The principal learned with a list of other tasks: ``(its DAG, the multitask penalty)``."""

    learn: GroupLearner
    datasets: dict
    principal: str

    def __call__(self, selected):
        group = {self.principal: self.datasets[self.principal], **{x: self.datasets[x] for x in selected}}
        graphs, penalty = self.learn(group)
        return graphs[self.principal], penalty


def _choose_n(learn, order, sizes, held_out, rule, ess, say):
    """N chosen on the principal's held-out rows: ``(N, graph, penalty, validation curve)``."""
    candidates = []
    for n in sizes:
        say(f"learning with the {n} closest task(s)")
        candidates.append((n, *learn(order[:n])))
    train = learn.datasets[learn.principal]
    scores = heldout_scores([[[graph] for _, graph, _ in candidates]], [[train]], [[held_out]], ess)
    return (*candidates[scores.choose(rule)], scores.curve([n for n, _, _ in candidates]))
