"""Continuous tasks learned jointly as linear Gaussian networks (issue 49).

The multitask prior and the joint search are those of the discrete learner, unchanged: only the score differs
(:mod:`mtbn.score.gaussian`, through the score protocol). Each task's search starts from its single-task
structure (the better of tabu climbs with restarts from the DAG of greedy equivalence search, :mod:`mtbn.ges`,
and from the empty graph) and from the empty graph. ``penalty="auto"`` (the default) chooses the penalty as the discrete
default does: K-fold cross-validation over the grid, each point scored by the held-out Gaussian log-likelihood
of linear Gaussian networks fitted on the training rows, the one-standard-error rule, then the negative-transfer
guard (the chosen penalty must beat delta = 0 by more than a paired standard error, and the tasks' dependences
must be more alike than under relabelling; :func:`mtbn.learn.guard.check_transfer`). Parameter sharing (each
task's coefficients shrunk towards the tasks' pooled within-task regression) is chosen on the same folds, each
strength scored on rows that neither the fold's structures nor its fit saw; it is off when the guard's
relatedness test finds the tasks unrelated or ``prior="none"``, as in the discrete default. Background knowledge
(required and forbidden edges, tiers, pgmpy's ``ExpertKnowledge``) holds in every search, the folds' included;
GES, which knows none of it, gives its DAG cut to what the knowledge allows as the single-task climb's start.
"""

from dataclasses import dataclass, field

import numpy as np

from mtbn._validation import check_random_state
from mtbn.data.continuous import ContinuousData, continuous_from_dataframe, looks_continuous
from mtbn.engine import job, run_jobs
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.ges import greedy_equivalence_search
from mtbn.graph import DAG
from mtbn.heldout import ValidationScores, kfold_splits
from mtbn.joint import multitask_hill_climb
from mtbn.learn.grid import DEFAULT_PENALTY_GRID, SELECTION_JOINT_RESTARTS, SELECTION_RESTARTS
from mtbn.learn.checks import check_constraints, constraint_matrices
from mtbn.learn.guard import check_transfer
from mtbn.learn.kinds import DataKind, _same, named_frames, register_data_kind
from mtbn.learn.settings import MULTITASK
from mtbn.messages import error, register
from mtbn.networks.gaussian import fit_linear_gaussian, within_covariance
from mtbn.priors import make_prior
from mtbn.progress import reporter
from mtbn.score import make_scorer
from mtbn.search import TIE_TOLERANCE, hill_climb

__all__ = ["learn_gaussian_structures", "GaussianResult", "GaussianKind", "SHARING_STRENGTHS"]

register("gaussian-columns-differ", InvalidDataError,
         "task {task!r} has the columns {got}; the first task has {expected} (continuous tasks share their columns).",
         cause="The joint Gaussian learner couples the same variables in every task.",
         fix="Give every task the same columns, in any order.")
register("gaussian-score", InvalidParameterError,
         "score {score!r} is not a score of continuous data; use 'bge' or 'bic-g'.",
         cause="A score for discrete data (BDeu, BIC) was asked of real-valued tasks.",
         fix="Choose score='bge' (the default) or 'bic-g', or discretise the tasks and learn a discrete network.")


@dataclass(frozen=True)
class GaussianResult:
    """What :func:`learn_gaussian_structures` returns.

    Parameters
    ----------
    task_names : tuple of str
        The tasks, in the order of the lists below.
    graphs : list of DAG
        Each task's structure.
    networks : list of LinearGaussianNetwork
        Each task's linear Gaussian network, fitted on all its rows (shrunk towards the pooled within-task
        regression by ``sharing_strength`` pseudo-rows when that is not None).
    penalty : float
        The penalty the structures were learned at (0.0 when the guard rejected transfer).
    penalty_path : list of tuple
        ``(penalty, mean held-out log-likelihood per row, SE of the difference from the best)`` per grid
        point (empty for a given penalty).
    transfer : TransferVerdict or None
        The guard's verdict (None for a given penalty); with ``parameter_sharing="auto"`` its ``"sharing"``
        entry holds the strengths' held-out path.
    sharing_strength : float or None
        The pseudo-rows of the pooled fit each task's parameters were shrunk with (None: none).
    score : str
        The structure score (``"bge"`` or ``"bic-g"``).
    interventions : InterventionalModel or None
        With ``interventions=`` (:mod:`mtbn.learn.gaussian_interventions`): the causal DAG, each task's changed
        mechanisms and the reference regime's network; else None.
    log_score : float or None
        With ``interventions=``: the learned model's score (the groups' Gaussian scores summed); else None.
    search : SearchResult or None
        With ``interventions=``: the climb that found the model; else None.
    """

    task_names: tuple
    graphs: list
    networks: list
    penalty: float
    penalty_path: list = field(default_factory=list)
    transfer: object = None
    sharing_strength: object = None
    score: str = "bge"
    interventions: object = None
    log_score: object = None
    search: object = None


#: The strengths (pseudo-rows of the pooled fit) ``parameter_sharing="auto"`` chooses among, simplest first.
SHARING_STRENGTHS = (0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, float("inf"))


class _HeldOut:
    """Each candidate's held-out log-likelihoods per task, one array per task filled fold by fold in place: the
    folds' rows in fold order, as :class:`~mtbn.heldout.ValidationScores` takes them, never held twice (the
    folds' pieces beside their concatenation)."""

    def __init__(self, folds, n_candidates):
        self.offsets = [np.cumsum([0] + [len(held) for _, held in task_folds]) for task_folds in folds]
        self.rows = [[np.empty(int(o[-1])) for o in self.offsets] for _ in range(n_candidates)]

    def put(self, c, t, f, values):
        """Candidate ``c``'s log-likelihoods of task ``t``'s held-out rows of fold ``f``."""
        o = self.offsets[t]
        self.rows[c][t][o[f]:o[f + 1]] = values

    def scores(self):
        return ValidationScores(self.rows)


def _choose_strength(datas, folds, graphs_per_fold, rule):
    """The sharing strength chosen on the folds (structures learned on each fold's training rows)."""
    held = _HeldOut(folds, len(SHARING_STRENGTHS))
    for f, graphs in enumerate(graphs_per_fold):
        trains = [d.subset(folds[t][f][0]) for t, d in enumerate(datas)]
        tests = [d.take(folds[t][f][1]) for t, d in enumerate(datas)]
        pooled = within_covariance(trains)  # the tasks' training rows, once per fold
        for c, strength in enumerate(SHARING_STRENGTHS):
            for t, (g, train, test) in enumerate(zip(graphs, trains, tests)):
                net = fit_linear_gaussian([sorted(p) for p in g.parents], train, pooled=pooled, strength=strength)
                held.put(c, t, f, net.log_likelihood(test, per_row=True))
    scores = held.scores()
    chosen = scores.choose(rule)
    return SHARING_STRENGTHS[chosen], {"strength": SHARING_STRENGTHS[chosen], "rule": rule,
                                       "path": scores.curve(SHARING_STRENGTHS)}


def _tasks(tasks):
    items = named_frames(tasks)  # a dict, or a list of tasks or of (name, task) pairs
    if items is None:
        raise error("tasks-type", kind=type(tasks).__name__)
    names = [n for n, _ in items]
    repeated = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if repeated is not None:
        raise error("duplicate-task", value=repeated)
    datas = [d if isinstance(d, ContinuousData) else continuous_from_dataframe(d, name=str(n)) for n, d in items]
    variables = list(datas[0].names)
    for d in datas[1:]:
        if sorted(d.names) != sorted(variables):
            raise error("gaussian-columns-differ", task=d.name, got=list(d.names), expected=variables)
    datas = [d if list(d.names) == variables else ContinuousData(d.values[:, [d.index(v) for v in variables]],
                                                                 variables, d.name) for d in datas]
    return names, variables, datas


#: The single-task and joint restarts of the searches that choose the penalty (every fold at every grid point),
#: as ``(n_restarts, n_joint_restarts)`` caps (None: the final search's own): the discrete learner's selection
#: effort. Against the final search's effort, 18 trials (``experiments/gaussian_selection_effort.py``: ECOLI70,
#: MAGIC-NIAB and random 30-variable DAGs at 100 and 500 rows; ARTH150, MAGIC-IRRI and unrelated ECOLI70 tasks
#: at 1,000; 5 tasks each) chose the same penalty in 11, with no significant difference in edit distance, CPDAG
#: distance or held-out likelihood, in a quarter to a third of the time (docs/robustness.md).
SELECTION_EFFORT = (SELECTION_RESTARTS, SELECTION_JOINT_RESTARTS)


def _selection_settings(settings):
    """The search settings of the penalty's folds (:data:`SELECTION_EFFORT`)."""
    if SELECTION_EFFORT is None:
        return settings
    restarts, joint = SELECTION_EFFORT
    return dict(settings, n_restarts=min(settings["n_restarts"], restarts),
                n_joint_restarts=min(settings["n_joint_restarts"], joint))


def _fold(datas, folds, f, grid, prior, variables, settings, seed, score):
    """Fold ``f`` of the penalty's cross-validation (a job): the structures at every penalty of ``grid``, learned
    on the fold's training rows (read in place), and the held-out log-likelihoods of their fits, per penalty and
    task."""
    trains = [d.subset(folds[t][f][0]) for t, d in enumerate(datas)]
    tests = [d.take(folds[t][f][1]) for t, d in enumerate(datas)]
    fold_scorers = [make_scorer(d, score) for d in trains]
    singles = _singles(fold_scorers, variables, settings, seed + f)
    graphs, rows = [], []
    for point in grid:
        found = _joint(fold_scorers, singles, point, prior, variables, settings, seed + f)
        graphs.append(found)
        rows.append([fit_linear_gaussian([sorted(p) for p in g.parents], train).log_likelihood(test, per_row=True)
                     for g, train, test in zip(found, trains, tests)])
    return graphs, rows


def _singles(scorers, variables, settings, seed):
    """Each task's single-task structure, parent sets: the better of tabu climbs with restarts from the DAG
    greedy equivalence search reaches (:mod:`mtbn.ges`) and from the empty graph (the first on a tie), so at
    least as good as GES and as the climb alone."""
    rng = np.random.default_rng([seed, 1])
    required, forbidden, base = _constraints(settings)
    out = []
    for s in scorers:
        ges = greedy_equivalence_search(s, max_parents=settings["max_parents"]).graph.parents
        if required.any() or forbidden.any():  # GES's DAG within the constraints: the required edges, then its own
            ges = _within(ges, required, forbidden, base, settings["max_parents"])
        found = [hill_climb(s, [set(p) for p in start], max_parents=settings["max_parents"], required=required,
                            forbidden=forbidden, n_restarts=settings["n_restarts"], tabu_length=10, max_tabu_iter=10,
                            rng=rng, names=variables) for start in (ges, base)]
        best = found[0] if found[0].log_score >= found[1].log_score - TIE_TOLERANCE else found[1]
        out.append([set(p) for p in best.graph.parents])
    return out


def _constraints(settings):
    """The required and forbidden edge matrices of the search ``settings`` and the graph of the required edges
    alone (parent sets), the start that stands for the empty graph."""
    return settings["required"], settings["forbidden"], settings["base"]


def _within(parents, required, forbidden, base, max_parents):
    """``parents`` (a DAG's parent sets) made a start the constraints allow: the required edges (``base``), then
    each of its edges in order that is not forbidden, closes no cycle with those kept and stays within
    ``max_parents``."""
    from mtbn.graph import SearchGraph

    graph = SearchGraph([set(p) for p in base])
    for v, ps in enumerate(parents):
        for u in sorted(ps):
            full = max_parents is not None and len(graph.parents[v]) >= max_parents
            if not (forbidden[u, v] or graph.adj[u, v] or full) and graph.can_add(u, v):
                graph.add(u, v)
    return [set(p) for p in graph.parents]


def _joint(scorers, singles, penalty, prior, variables, settings, seed):
    """The joint search at ``penalty`` from the single-task structures and from the empty graph."""
    k, n = len(scorers), len(variables)
    if penalty == 0.0 or prior == "none":
        return [DAG([set(p) for p in ps], variables) for ps in singles]
    required, forbidden, base = _constraints(settings)
    empty_start = [[set(p) for p in base] for _ in range(k)]  # the required edges
    res = multitask_hill_climb(scorers, singles, make_prior(prior, penalty, k), extra_starts=[empty_start],
                               local_index=np.tile(np.arange(n), (k, 1)), max_parents=settings["max_parents"],
                               required=required, forbidden=forbidden,
                               tabu_length=10, max_tabu_iter=10, n_restarts=settings["n_joint_restarts"],
                               rng=[np.random.default_rng([seed, 2, i]) for i in range(2)])
    return [DAG([set(p) for p in g.parents], variables) for g in res.graphs]


def learn_gaussian_structures(tasks, *, penalty="auto", prior="paired", score="bge", max_parents=None,
                              n_restarts=MULTITASK["n_restarts"].default,
                              n_joint_restarts=MULTITASK["n_joint_restarts"].default, cv=5, penalty_grid=None, selection_rule="one-se",
                              force_transfer=False, parameter_sharing="auto", required_edges=None,
                              forbidden_edges=None, tiers=None, knowledge=None, random_state=0, n_jobs=None,
                              progress=None):
    """Learn the linear Gaussian network of every continuous task jointly.

    Parameters
    ----------
    tasks : dict of str -> pandas.DataFrame or ContinuousData, or a list of them
        The tasks (a list: named by each ContinuousData's name, else ``task0``, ``task1``, ..., or given as
        ``(name, task)`` pairs), each with the same real-valued columns (checked: missing values, constant, identifier-like
        and collinear columns are refused with one line naming them).
    penalty : float or "auto", default "auto"
        The multitask penalty delta in [0, 1] (0: each task alone; 1: one structure for all), or ``"auto"``:
        chosen by ``cv``-fold cross-validation on held-out Gaussian log-likelihood, then checked by the
        negative-transfer guard (see the module's docstring).
    prior : str, default "paired"
        The multitask prior (``"paired"``, ``"edit"``, ``"none"`` or a registered one).
    score : {"bge", "bic-g"}, default "bge"
        Each task's structure score.
    max_parents : int, optional
        Most parents of a variable; None sets no limit.
    n_restarts : int, default 50
        Random restarts of each task's single-task search (its start for the joint search). The searches of
        the penalty's folds take at most ``mtbn.learn.SELECTION_RESTARTS``, as the discrete learner's.
    n_joint_restarts : int, default 20
        Random restarts of the joint search per start; at most ``mtbn.learn.SELECTION_JOINT_RESTARTS`` in
        the penalty's folds.
    cv : int, default 5
        Folds of the penalty's cross-validation (``penalty="auto"``).
    penalty_grid : sequence of float, optional
        The penalties cross-validated (default: the discrete learner's grid); 0.0 is always among them.
    selection_rule : {"one-se", "max"}, default "one-se"
        How the grid point is chosen from the held-out scores.
    force_transfer : bool, default False
        Keep the chosen penalty even when the guard rejects it.
    parameter_sharing : "auto", None or float, default "auto"
        Each task's regression coefficients shrunk towards the tasks' pooled fit by this many pseudo-rows
        (:func:`~mtbn.networks.gaussian.fit_linear_gaussian`; ``inf``: the pooled within-task regression).
        ``"auto"`` (with ``penalty="auto"``): the strength chosen among :data:`SHARING_STRENGTHS` by the same
        folds, each scored on rows that neither its structures (learned on the fold's training rows) nor its fit
        saw, with ``selection_rule`` (the one-standard-error rule leans toward no sharing); no sharing with a
        given penalty, a single task, ``prior="none"``, or tasks the guard's relatedness test finds unrelated.
    required_edges, forbidden_edges : list of (parent, child), DAG or networkx graph, optional
        Edges every task's network must have, or must not have (names), in every search (the folds' too), as
        in :func:`mtbn.learn.learn_structures`.
    tiers : sequence of sequences of names, optional
        A temporal order: no edge from a later tier into an earlier one.
    knowledge : pgmpy ExpertKnowledge, optional
        Its required and forbidden edges, temporal order and search space, added to the above.
    random_state : int, default 0
        Seed of every random choice (folds, restarts, the relatedness test).
    n_jobs : int, optional
        Workers for the folds of ``penalty="auto"`` (each fold a job; this process searches the final
        single-task starts beside them), as in :func:`mtbn.learn.learn_structures`; the same answer at any
        ``n_jobs``.
    progress : None, bool, callable or Reporter, optional
        Where the stages are reported (:func:`mtbn.progress.reporter`).

    Returns
    -------
    GaussianResult

    Examples
    --------
    Three sites measuring the chain ``x -> y -> z`` with their own coefficients:

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> def site(b1, b2, n=150):
    ...     x = rng.normal(size=n); y = b1 * x + rng.normal(size=n); z = b2 * y + rng.normal(size=n)
    ...     return pd.DataFrame({"x": x, "y": y, "z": z})
    >>> res = learn_gaussian_structures({"a": site(1.0, 0.8), "b": site(0.7, 1.2), "c": site(1.3, 0.6)},
    ...                                 penalty=0.9)
    >>> sorted({frozenset(e) for e in res.graphs[0].edges(names=True)}, key=sorted) == [{"x", "y"}, {"y", "z"}]
    True
    >>> res.penalty, type(res.networks[1]).__name__
    (0.9, 'LinearGaussianNetwork')
    """
    from mtbn.score import SCORES, GaussianScore

    if score not in SCORES or not issubclass(SCORES[score], GaussianScore):
        raise error("gaussian-score", score=score)
    names, variables, datas = _tasks(tasks)
    seed = int(check_random_state(random_state).integers(2**31))
    if len(datas) == 1:  # nothing to couple or share: the task learned alone
        penalty, parameter_sharing = 0.0, None
    required, forbidden = constraint_matrices(list(variables), required_edges, forbidden_edges, tiers, knowledge)
    base = check_constraints([set() for _ in variables], required, forbidden, list(variables), max_parents,
                             "empty start")  # the required edges alone, checked (cycles, max_parents, conflicts)
    settings = {"max_parents": max_parents, "n_restarts": n_restarts, "n_joint_restarts": n_joint_restarts,
                "required": required, "forbidden": forbidden, "base": base}
    scorers = [make_scorer(d, score) for d in datas]
    path, transfer, sharing, singles = [], None, None, None
    say = reporter(progress)
    if penalty == "auto":
        grid = sorted(set(DEFAULT_PENALTY_GRID if penalty_grid is None else penalty_grid) | {0.0})
        folds = [kfold_splits(d.n_samples, cv, np.random.default_rng([seed, 3, t])) for t, d in enumerate(datas)]
        held = _HeldOut(folds, len(grid))

        def receive(f, found):  # each fold's held-out rows into their place as the fold comes back
            graphs, rows = found
            for c, per_task in enumerate(rows):
                for t, values in enumerate(per_task):
                    held.put(c, t, f, values)
            return graphs

        chosen_by = _selection_settings(settings)
        with say.stage("penalty selection", cv, "fold", "folds") as tick:
            # The folds are independent jobs; this process searches the final single-task starts beside them.
            fold_graphs = run_jobs((job(_fold)(datas, folds, f, grid, prior, variables, chosen_by, seed, score)
                                    for f in range(cv)), n_jobs=n_jobs, tick=tick, receive=receive,
                                   beside=lambda: _singles(scorers, variables, settings, seed))
        singles = fold_graphs.pop()  # beside's; left: per fold and grid point, its training rows' structures
        scores = held.scores()
        chosen = scores.choose(selection_rule)
        path = scores.curve(grid)
        transfer, penalty = check_transfer(scores, grid, chosen, tuple(names), rule=selection_rule, n_folds=cv,
                                           force=force_transfer, scorers=scorers,
                                           local_index=np.tile(np.arange(len(variables)), (len(datas), 1)),
                                           seed=seed)
        related = transfer.get("relatedness") or {}
        unrelated = related.get("p_value") is not None and related["p_value"] >= related["level"]
        if parameter_sharing == "auto" and not unrelated and prior != "none":
            used = grid.index(float(penalty))
            parameter_sharing, sharing = _choose_strength(datas, folds, [g[used] for g in fold_graphs],
                                                          selection_rule)
    if parameter_sharing == "auto":
        parameter_sharing = None  # a given penalty (nothing held out to choose on), unrelated tasks, no prior
    if singles is None:
        singles = _singles(scorers, variables, settings, seed)
    graphs = _joint(scorers, singles, float(penalty), prior, variables, settings, seed)
    pooled = within_covariance(datas) if parameter_sharing else None
    networks = [fit_linear_gaussian([sorted(p) for p in g.parents], d, pooled=pooled,
                                    strength=float(parameter_sharing or 0.0)) for g, d in zip(graphs, datas)]
    if transfer is not None and sharing is not None:
        transfer["sharing"] = sharing
    return GaussianResult(tuple(names), graphs, networks, float(penalty), path, transfer,
                          None if not parameter_sharing else float(parameter_sharing), score)


#: The settings that only ``interventions=`` reads (:mod:`mtbn.learn.gaussian_interventions`).
INTERVENTION_SETTINGS = ("interventions", "intervention_type", "further_changes", "tabu_length", "max_tabu_iter",
                         "max_iter")

#: ``interventions=`` is learned by :mod:`mtbn.learn.gaussian_interventions`, a module above this one; it installs
#: its entry point here (``"learn"``: a function of the tasks and the settings) when :mod:`mtbn.learn` is imported.
INTERVENTIONAL: dict = {}

register("interventions-only", InvalidParameterError,
         "for continuous tasks {name} applies only with interventions= (the tasks as interventional conditions); "
         "leave it at its default.",
         cause="A setting that the Gaussian learner reads only for interventional conditions was given without the "
               "tasks' interventions.",
         fix="Give interventions= (each task's targets), or drop the setting.")


class GaussianKind(DataKind):
    """Continuous tasks (every column a number, some column continuous) learned as linear Gaussian networks.

    What :func:`mtbn.learn.learn_structures`, the estimators and ``mtbn learn`` do with tasks this kind claims:
    :func:`learn_gaussian_structures` with the learner's settings (the discrete learner's defaults, so the three
    front ends agree; ``score`` "bdeu", the default, means BGe), ``n_jobs`` and ``progress`` included.
    """

    name = "gaussian"
    description = "continuous"
    learned_as = "Gaussian networks"
    settings = ("prior", "penalty", "score", "max_parents", "cv", "selection_rule", "force_transfer",
                "penalty_grid", "n_restarts", "n_joint_restarts", "random_state", "parameter_sharing", "n_jobs",
                "progress", "required_edges", "forbidden_edges", "tiers", "knowledge") + INTERVENTION_SETTINGS
    instead = "discretise the tasks (mtbn.data.discretize, or --discretize) to learn discrete networks"
    numbers_only = True  # looks_continuous: None (not claimed) as soon as a cell is not a number
    needs_fractions = True  # looks_continuous: False while every value is whole

    def claims(self, tasks):
        items = named_frames(tasks)
        if not items:
            return False
        if all(isinstance(d, ContinuousData) for _, d in items):
            return True
        import pandas as pd

        if not all(isinstance(d, pd.DataFrame) for _, d in items):
            return False
        looks = [looks_continuous(d) for _, d in items]
        return None not in looks and any(looks)

    def learn(self, tasks, **settings):
        if settings.get("interventions") is not None:  # the tasks as interventional conditions
            return INTERVENTIONAL["learn"](tasks, settings)
        defaults = MULTITASK.defaults()
        for name in INTERVENTION_SETTINGS:
            if name in settings and not _same(settings[name], defaults[name]):
                raise error("interventions-only", name=name)
        s = {k: v for k, v in settings.items() if k not in INTERVENTION_SETTINGS}
        if s.get("score", "bdeu") == "bdeu":
            s["score"] = "bge"
        if s.get("selection_rule", "one-se") is None:
            s["selection_rule"] = "one-se"
        if s.get("prior") == "none":  # each task alone: the joint search at penalty 0
            s["prior"], s["penalty"] = "paired", 0.0
        frames = {name: d if isinstance(d, ContinuousData) else _numbers(d) for name, d in named_frames(tasks)}
        return learn_gaussian_structures(frames, **s)

    def task_data(self, tasks):
        names, _, datas = _tasks({name: d if isinstance(d, ContinuousData) else _numbers(d)
                                  for name, d in named_frames(tasks)})
        return dict(zip(names, datas))

    def pgmpy_networks(self, result):
        from mtbn.networks.gaussian import to_pgmpy_gaussian

        return {n: to_pgmpy_gaussian(net) for n, net in zip(result.task_names, result.networks)}

    def mean_log_likelihoods(self, result, tasks):
        nets = dict(zip(result.task_names, result.networks))
        out = {}
        for name, d in named_frames(tasks) or ():
            if name not in nets:
                raise error("unknown-task", task=name, names=", ".join(map(repr, nets)))
            data = d if isinstance(d, ContinuousData) else continuous_from_dataframe(_numbers(d), name=name)
            out[name] = float(np.mean(nets[name].log_likelihood(data, per_row=True)))
        return out

    def write(self, result, out, stems=None):
        import os

        from mtbn.networks.gaussian import write_gaussian_network

        super().write(result, out, stems)
        for name, net in zip(result.task_names, result.networks):
            write_gaussian_network(net, os.path.join(out, f"{(stems or {}).get(name, name)}.gaussian.json"))
        return {"penalty_path": [{"penalty": p, "validation_log_likelihood": m, "se_vs_best": e}
                                 for p, m, e in result.penalty_path],
                "transfer": None if result.transfer is None else {k: v for k, v in result.transfer.items()
                                                                 if k != "tasks"},
                "sharing_strength": result.sharing_strength, "score": result.score}


def _numbers(frame):
    """A DataFrame whose cells are numbers held as text (a CSV file's) as floats; one of floats as it is."""
    import pandas as pd

    if all(dtype == np.float64 for dtype in frame.dtypes):  # read as numbers (mtbn.data.csvfile.read_csv_numbers)
        return frame
    return frame.apply(pd.to_numeric, errors="coerce").astype(float)


register_data_kind(GaussianKind())
