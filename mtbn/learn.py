"""User-facing structure learning functions (the estimators are in :mod:`mtbn.estimators`).

The functions validate their inputs (data, constraints, start graphs, options)
and call the backends of :mod:`mtbn.search` and :mod:`mtbn.joint`.
"""

from __future__ import annotations

from typing import Any, Sequence

import warnings
import zlib
from dataclasses import dataclass

import numpy as np

from mtbn._validation import (
    check_max_parents,
    check_n_jobs,
    check_option,
    check_penalty,
    check_positive,
    check_random_state,
)
from mtbn.data import DiscreteData, from_dataframe, read_csv
from mtbn.engine import Shared
from mtbn.progress import reporter
from mtbn.exceptions import CycleError, InvalidParameterError, TransferWarning
from mtbn.messages import error, register
from mtbn.graph import DAG, nodes_and_edges
from mtbn.joint import SOLVERS, local_constraints, multitask_hill_climb
from mtbn.priors import make_prior
from mtbn.score import SCORES, make_scorer, pairwise_log_bayes_factors
from mtbn.search import TIE_TOLERANCE, SearchResult, hill_climb
from mtbn.stats import relabelling_test
from mtbn.selection import RULES, ValidationScores, holdout_splits, kfold_splits

__all__ = [
    "learn_structure",
    "learn_structures",
    "learn_identical_structures",
    "MultitaskResult",
    "PenaltyPathPoint",
    "DEFAULT_PENALTY_GRID",
]


# ---------------------------------------------------------------------------
# Input checks shared by the learners
# ---------------------------------------------------------------------------


def as_discrete_data(data, *, name="data", dropna=False):
    """A DiscreteData from a DataFrame, a CSV path or a DiscreteData."""
    if isinstance(data, DiscreteData):
        return data
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        return read_csv(data, dropna=dropna)
    return from_dataframe(data, name=name, dropna=dropna)


P = InvalidParameterError
register("tier-unknown-variable", P, "{what}: unknown variable {name!r}.",
         cause="A tier (temporal order) names a variable the data does not have.",
         fix="Use the data's column names in the tiers.")
register("tier-twice", P, "{what}: variable {name!r} is in two tiers.",
         cause="Each variable belongs to at most one tier of a temporal order.",
         fix="List the variable in one tier only.")
register("knowledge-type", P, "knowledge must be a pgmpy ExpertKnowledge (or None); got {got}.",
         cause="The knowledge argument has no required_edges / forbidden_edges attributes.",
         fix="Pass pgmpy.estimators.ExpertKnowledge(...), or give required_edges, forbidden_edges and tiers directly.")
register("edge-pair", P, "{what} must be (parent, child) pairs; got {value!r}.",
         cause="An edge in required_edges / forbidden_edges is not a (parent, child) pair.",
         fix="Give edges as a list of 2-tuples of variable names, e.g. [('smoke', 'cancer')].")
register("edge-unknown-variable", P, "{what}: unknown variable {name!r} in edge ({u!r}, {v!r}).",
         cause="An edge names a variable that no task has.",
         fix="Check the spelling against the column names.")
register("edge-self-loop", P, "{what}: self-loop on {name!r}.",
         cause="An edge from a variable to itself.",
         fix="Remove it: a Bayesian network has no self-loops.")
register("count-argument", P, "{name} must be an integer >= 0; got {value!r}.",
         cause="A restart count or tabu setting that is negative or not a whole number.",
         fix="Pass a whole number >= 0.")
register("start-cyclic", CycleError, "{what} graph is not a DAG: it has a directed cycle.",
         cause="A start graph given by the user has a directed cycle.",
         fix="Pass a directed acyclic graph (networkx.is_directed_acyclic_graph tells), or leave start at its default.")
register("required-and-forbidden", P, "edge ({u!r}, {v!r}) is both required and forbidden.",
         cause="The same edge appears in required_edges and forbidden_edges.",
         fix="Remove it from one of the two lists.")
register("start-forbidden-edge", P, "{what} graph has the forbidden edge ({u!r}, {v!r}).",
         cause="A start graph contains an edge that forbidden_edges excludes.",
         fix="Remove the edge from the start graph or from forbidden_edges.")
register("start-too-many-parents", P, "{what} graph gives {name!r} {n_parents} parents; max_parents is {limit}.",
         cause="A start graph (with the required edges added) exceeds max_parents.",
         fix="Raise max_parents or remove edges from the start graph.")
register("required-cyclic", CycleError, "required edges make the {what} graph cyclic.",
         cause="The required edges, added to the start graph, close a directed cycle.",
         fix="Check required_edges for a cycle, and the start graph for edges against them.")
register("validation-value", P, "validation must be a fraction in (0, 1) or a row count >= 1; got {value!r}.",
         cause="The validation split is neither a fraction between 0 and 1 nor a positive row count.",
         fix="Pass e.g. 0.05 (5% of each task's rows) or 50 (rows per task), or leave it unset to use cv.")
register("structure-prior-shape", P,
         "structure_log_prior must be a callable or an array of shape {shape}; got {got}.",
         cause="A structure prior array whose shape is not (tasks, variables, variables).",
         fix="Pass an array with one (parent, child) matrix per task, or a function f(task, parent, child).")
register("cv-value", P, "cv must be an integer >= 2; got {value!r}.",
         cause="A cross-validation fold count below 2 or not a whole number.",
         fix="Pass 2 or more folds (5 is the default), or --validation for the paper's single split.")
register("empty-grid", P, "penalty_grid is empty.",
         cause="An empty list of penalties to choose from.",
         fix="Pass at least one penalty in [0, 1], or leave penalty_grid unset for the default grid.")
register("edge-penalty-unknown-variable", P, "edge_penalty: unknown variable in edge ({u!r}, {v!r}).",
         cause="edge_penalty names a variable that no task has.",
         fix="Check the spelling against the column names.")
register("identical-needs-shared-variables", P, "{what} needs tasks over the same variables.",
         cause="The identical-structure method (one graph for all tasks) needs every task to have the same columns.",
         fix="Give all tasks the same columns, or use the multitask learner, which allows partly shared variables.")
register("start-count", P, "start must give one graph per task ({k}); got {n}.",
         cause="A list of start graphs whose length differs from the number of tasks.",
         fix="Pass one graph per task, in the order of the tasks.")


def _edge_list(edges):
    """Edges ``(parent, child)`` of a DAG, a networkx graph or an iterable of pairs."""
    if edges is None:
        return ()
    if isinstance(edges, DAG) or (hasattr(edges, "edges") and hasattr(edges, "nodes")):
        return nodes_and_edges(edges)[1]
    return edges  # pairs, checked one by one by edge_matrix


def edge_matrix(edges, names, what):
    """Boolean matrix ``M[u, v]`` for ``(parent, child)`` names (a list, a DAG or a networkx graph)."""
    n = len(names)
    index = {v: i for i, v in enumerate(names)}
    m = np.zeros((n, n), dtype=bool)
    for e in _edge_list(edges):
        try:
            u, v = e
        except (TypeError, ValueError):
            raise error("edge-pair", what=what, value=e) from None
        for x in (u, v):
            if x not in index:
                raise error("edge-unknown-variable", what=what, name=x, u=u, v=v)
        if u == v:
            raise error("edge-self-loop", what=what, name=u)
        m[index[u], index[v]] = True
    return m


def constraint_matrices(names, required_edges=None, forbidden_edges=None, tiers=None, knowledge=None):
    """Required and forbidden edge matrices from every form of background knowledge.

    ``required_edges`` / ``forbidden_edges``: ``(parent, child)`` names as a
    list, a :class:`~mtbn.graph.DAG` or a networkx graph. ``tiers``: a
    temporal order, a sequence of groups of variable names; an edge from a
    later tier into an earlier one is forbidden (edges within a tier and
    between untiered variables are free), as bnlearn's ``tiers2blacklist``.
    ``knowledge``: a pgmpy ``ExpertKnowledge``, whose required and forbidden
    edges and temporal order are added to the others.

    Returns
    -------
    required, forbidden : ndarray of shape (n, n), bool
    """
    req_lists = [("required_edges", required_edges)]
    forb_lists = [("forbidden_edges", forbidden_edges)]
    tier_lists = [("tiers", tiers)]
    if knowledge is not None:
        if not all(hasattr(knowledge, a) for a in ("required_edges", "forbidden_edges")):
            raise error("knowledge-type", got=type(knowledge).__name__)
        req_lists.append(("knowledge.required_edges", knowledge.required_edges))
        forb_lists.append(("knowledge.forbidden_edges", knowledge.forbidden_edges))
        tier_lists.append(("knowledge.temporal_order", getattr(knowledge, "temporal_order", None)))
    required = np.zeros((len(names), len(names)), dtype=bool)
    forbidden = required.copy()
    for what, edges in req_lists:
        required |= edge_matrix(edges, names, what)
    for what, edges in forb_lists:
        forbidden |= edge_matrix(edges, names, what)
    index = {v: i for i, v in enumerate(names)}
    for what, order in tier_lists:
        if not order:
            continue
        level = np.full(len(names), -1)
        for t, group in enumerate(order):
            for v in ([group] if isinstance(group, str) else group):
                if v not in index:
                    raise error("tier-unknown-variable", what=what, name=v)
                if level[index[v]] >= 0:
                    raise error("tier-twice", what=what, name=v)
                level[index[v]] = t
        tiered = level >= 0
        # u -> v is forbidden when u sits in a later tier than v
        forbidden |= tiered[:, None] & tiered[None, :] & (level[:, None] > level[None, :])
    return required, forbidden


def check_counts(**counts):
    """Each keyword must be an integer >= 0 (restart counts, tabu settings)."""
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise error("count-argument", name=name, value=value)


def as_parent_sets(graph, names, what="start"):
    """Parent sets (list of sets of indices) of a DAG, DiGraph or edge list."""
    if graph is None:
        return [set() for _ in names]
    if isinstance(graph, DAG):
        if tuple(graph.names) == tuple(names):
            return [set(p) for p in graph.parents]
        edges = graph.edges(names=True)
    else:
        edges = list(_edge_list(graph))
    m = edge_matrix(edges, names, what)
    parents = [set(np.flatnonzero(m[:, v]).tolist()) for v in range(len(names))]
    try:
        DAG(parents, names)
    except CycleError:
        raise error("start-cyclic", what=what) from None
    return parents


def check_constraints(parents, required, forbidden, names, max_parents, what="start"):
    """Add required edges to a start graph and check it against the constraints."""
    n = len(names)
    both = required & forbidden
    if both.any():
        u, v = np.argwhere(both)[0]
        raise error("required-and-forbidden", u=names[u], v=names[v])
    parents = [set(p) for p in parents]
    for u, v in np.argwhere(required):
        parents[v].add(int(u))
    for v in range(n):
        bad = [u for u in parents[v] if forbidden[u, v]]
        if bad:
            raise error("start-forbidden-edge", what=what, u=names[bad[0]], v=names[v])
        if max_parents is not None and len(parents[v]) > max_parents:
            raise error("start-too-many-parents", what=what, name=names[v], n_parents=len(parents[v]),
                        limit=max_parents)
    try:
        DAG(parents, names)
    except CycleError:
        raise error("required-cyclic", what=what) from None
    return parents


# ---------------------------------------------------------------------------
# Single-task learning
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Multitask learning
# ---------------------------------------------------------------------------

#: Default penalty grid: 1 - delta = 1, 1e-1, ..., 1e-8, 1e-10, 1e-12, 1e-14, then
#: delta = 1. Past 1 - delta = 1e-14 a double no longer holds 1 - delta to 1%.
DEFAULT_PENALTY_GRID = tuple(
    [0.0] + [1.0 - 10.0 ** -e for e in (*range(1, 9), 10, 12, 14)] + [1.0]
)


@dataclass
class PenaltyPathPoint:
    """One grid point of the penalty selection path."""

    penalty: float
    validation_log_likelihood: float
    graphs: list
    log_score: float
    n_iter: int
    validation_se: float = float("nan")
    se_vs_best: float = float("nan")


@dataclass
class MultitaskResult:
    """What :func:`learn_structures` returns.

    Attributes
    ----------
    task_names : tuple of str
    graphs : list of DAG
        The learned structure of each task (over that task's variables).
    networks : list of BayesianNetwork
        Each structure with CPTs fitted on all of the task's data.
    penalty : float
        The penalty used (delta in the paper), chosen or given.
    log_score : float
        Score of the final configuration (eq. 2.5 with the prior) on the data
        it was searched on.
    task_log_likelihoods : list of float
        BDeu log marginal likelihood of each task's graph.
    penalty_path : list of PenaltyPathPoint
        Empty when the penalty was given. Per grid point: the mean held-out
        log-likelihood per row (over folds and tasks), its standard error,
        the paired standard error of its difference from the best point,
        and the structures learned on the first fold's training rows.
    search : MultitaskSearchResult
        The search that produced ``graphs``.
    single_task : list of SearchResult
        The single-task solutions the search started from (or None).
    transfer : dict or None
        With ``penalty="auto"``: the negative-transfer guard's verdict
        (``status``: "accepted", "rejected", "forced" or "none"; ``message``;
        ``selected_penalty``; ``gain`` and ``se`` of the selected penalty
        over delta = 0 in nats per held-out row; ``tasks``: the same per
        task with a verdict "helped", "hurt" or "unclear").
    """

    task_names: tuple
    graphs: list
    networks: list
    penalty: float
    log_score: float
    task_log_likelihoods: list
    penalty_path: list
    search: Any
    single_task: "list | None" = None
    transfer: "dict | None" = None

    def penalty_path_records(self):
        """The path as JSON-ready dicts (penalty, validation log-likelihood, edges per task)."""
        return [
            {
                "penalty": p.penalty,
                "validation_log_likelihood": p.validation_log_likelihood,
                "validation_se": p.validation_se,
                "se_vs_best": p.se_vs_best,
                "log_score": p.log_score,
                "n_iter": p.n_iter,
                "n_edges": [g.n_edges for g in p.graphs],
            }
            for p in self.penalty_path
        ]


#: Effort of the searches that only score grid points during penalty
#: selection: restarts of the single-task and TSK starts, and joint restarts
#: per start. The final search at the chosen penalty uses the full settings.
SELECTION_RESTARTS = 10
SELECTION_JOINT_RESTARTS = 0


#: The relabelling test's level and permutations (see :func:`_relatedness_check`).
RELATEDNESS_LEVEL = 0.01
RELATEDNESS_PERMUTATIONS = 999
#: ... fewer (not below 199) when k * m^2 * permutations would exceed this.
RELATEDNESS_WORK = 2e8
#: ... and it needs at least this many variables shared by all tasks.
RELATEDNESS_MIN_VARIABLES = 8


def _relatedness_check(scorers, local_index, seed):
    """Do the tasks' variables depend on each other alike, beyond chance?

    The multitask prior assumes similar structures. On held-out rows it can
    also win on unrelated tasks, as a plain sparsity penalty (it removes
    edges one task has and the others lack), which is not transfer. So the
    guard also asks whether the tasks share a dependence pattern at all:
    :func:`mtbn.stats.relabelling_test` on every task's pairwise log Bayes
    factors (:func:`mtbn.score.pairwise_log_bayes_factors`, all rows), over
    the variables every task has. None (not tested) when fewer than
    :data:`RELATEDNESS_MIN_VARIABLES` variables are shared: with m variables
    there are only m! relabellings and few pairs, so the test cannot reach
    its level on small networks (on 8-variable ASIA tasks p is already near
    0.01 at times); cross-validation alone decides there.
    """
    common = np.flatnonzero(np.all(local_index >= 0, axis=0))
    if len(scorers) < 2 or len(common) < RELATEDNESS_MIN_VARIABLES:
        return None
    mats = [pairwise_log_bayes_factors(s, local_index[t, common]) for t, s in enumerate(scorers)]
    work = len(scorers) * len(common) ** 2
    n_perm = int(max(199, min(RELATEDNESS_PERMUTATIONS, RELATEDNESS_WORK // work)))
    out = relabelling_test(mats, n_perm, seed)
    out.update(level=RELATEDNESS_LEVEL, variables=int(len(common)))
    return out


def _transfer_check(scores, grid, chosen, task_names, rule, n_folds, force, related=None):
    """The negative-transfer guard: is the chosen penalty better than delta = 0 on held-out rows?

    Transfer is accepted when the chosen penalty's mean held-out
    log-likelihood exceeds that of independent learning (delta = 0) by more
    than the paired standard error of the difference, and the tasks'
    dependences are more alike than under random relabelling of their
    variables (``related``, from :func:`_relatedness_check`, p below
    :data:`RELATEDNESS_LEVEL`; skipped when None). Per task, the same
    comparison names the tasks that gain ("helped"), lose ("hurt") or
    neither ("unclear").
    """
    zero = grid.index(0.0)
    gain, se, d_t, se_t = scores.difference(chosen, zero)
    tasks = {
        name: ({"gain": float(g), "se": float(e),
                "verdict": "helped" if g > e else ("hurt" if g < -e else "unclear")} if np.isfinite(g)
               else {"gain": None, "se": None, "verdict": "not scored (too few rows to hold any out)"})
        for name, g, e in zip(task_names, d_t, se_t)
    }
    where = f"{n_folds}-fold cross-validation" if n_folds > 1 else "the validation split"
    if grid[chosen] == 0.0:
        status = "none"
        message = (f"no transfer: rule {rule!r} on {where} chose penalty 0 (independent learning); "
                   "returning the single-task structures")
    elif gain > se and related is not None and related["p_value"] >= related["level"]:
        status = "forced" if force else "rejected"
        message = (f"transfer {'kept (force_transfer)' if force else 'rejected'}: penalty {grid[chosen]:.10g} "
                   f"wins on {where} (gain {gain:.4g} nats per row, SE {se:.2g}), but the tasks' variables "
                   "depend on each other no more alike than under random relabelling "
                   f"(p = {related['p_value']:.2g}): the tasks look unrelated and the gain is regularisation, "
                   "not transfer" + ("" if force else "; returning the single-task structures"))
    elif gain > se:
        status = "accepted"
        message = (f"transfer accepted: penalty {grid[chosen]:.10g} beats independent learning by "
                   f"{gain:.4g} nats per held-out row (SE {se:.2g}) on {where}")
    else:
        status = "forced" if force else "rejected"
        message = (f"transfer {'kept (force_transfer)' if force else 'rejected'}: penalty {grid[chosen]:.10g} "
                   f"does not beat independent learning by more than one standard error on {where} "
                   f"(gain {gain:.4g} nats per row, SE {se:.2g})"
                   + ("" if force else "; returning the single-task structures"))
    if related is not None:
        for name, r in zip(task_names, related["tasks"]):
            tasks[name]["relatedness"] = r
    hurt = [n for n, v in tasks.items() if v["verdict"] == "hurt"]
    if hurt and status in ("accepted", "forced"):
        message += f"; tasks that lose on held-out rows: {', '.join(hurt)}"
    return {"status": status, "message": message, "selected_penalty": float(grid[chosen]),
            "gain": gain, "se": se, "rule": rule, "folds": n_folds, "tasks": tasks,
            "relatedness": None if related is None else {k: v for k, v in related.items() if k != "tasks"}}


def _check_validation(validation):
    ok = (isinstance(validation, (int, np.integer)) and not isinstance(validation, bool) and validation >= 1) or (
        isinstance(validation, float) and 0 < validation < 1
    )
    if not ok:
        raise error("validation-value", value=validation)
    return validation


def _edge_log_prior_array(structure_log_prior, taskset):
    if structure_log_prior is None:
        return None
    k, n = taskset.n_tasks, taskset.n_variables
    if callable(structure_log_prior):
        arr = np.zeros((k, n, n))
        for t, name in enumerate(taskset.names):
            for u, pu in enumerate(taskset.variables):
                for v, pv in enumerate(taskset.variables):
                    if u != v:
                        arr[t, u, v] = float(structure_log_prior(name, pu, pv))
        return arr
    arr = np.asarray(structure_log_prior, dtype=float)
    if arr.shape != (k, n, n):
        raise error("structure-prior-shape", shape=(k, n, n), got=arr.shape)
    return arr


def _stl_one(scorer, local_index, max_parents, required, forbidden, n_restarts, seed):
    req, forb = local_constraints(scorer, local_index, required, forbidden)
    start = [set(np.flatnonzero(req[:, v]).tolist()) for v in range(scorer.n_vars)]
    return hill_climb(
        scorer, start, max_parents=max_parents, required=req, forbidden=forb,
        tabu_length=10, max_tabu_iter=10, n_restarts=n_restarts,
        rng=np.random.default_rng(seed), names=scorer.data.names,
    )


def _stl_one_keeping_cache(scorer, *args):
    """:func:`_stl_one` in a worker process, returning the scores it computed with the result."""
    res = _stl_one(scorer, *args)
    return res, scorer.cache_items()


def _stl_starts(scorers, *, max_parents, required, forbidden, n_restarts, seeds, local_index, names, n_jobs=None,
                say=None):
    """Single-task solutions per task (local indices); tasks in parallel with ``n_jobs`` (same results)."""
    args = [(scorer, local_index[t], max_parents, required, forbidden, n_restarts, seeds[t])
            for t, scorer in enumerate(scorers)]
    with reporter(say).stage("single-task searches", len(args), "task") as tick:
        if n_jobs == 1 or len(scorers) < 2:  # in this process: the scorers keep their caches
            out = []
            for a in args:
                out.append(_stl_one(*a))
                tick()
            return out
        from joblib import Parallel, delayed

        out = []
        for t, (r, cache) in enumerate(Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_stl_one_keeping_cache)(*a) for a in args)):
            # The worker's local scores come back: the joint search reuses them.
            scorers[t].merge_cache(cache)
            out.append(r)
            tick()
        return out


def _point_rng(base, penalty, label):
    """The random stream of one start's chain at one penalty (independent of grid order and n_jobs)."""
    return np.random.default_rng([base, 3, zlib.crc32(repr(float(penalty)).encode("ascii")),
                                  zlib.crc32(label.encode("utf-8"))])


def _run_penalty(scorers, starts, prior_kwargs, penalty, search_kwargs, *, base=0, starts_are_optima=False):
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
    prior = make_prior(penalty=penalty, **prior_kwargs)
    kwargs = dict(search_kwargs)
    n = kwargs["local_index"].shape[1]
    uncoupled = kwargs.get("edge_log_prior") is None and not prior.is_coupled(n)
    if uncoupled and starts_are_optima:
        kwargs.update(tabu_length=0, max_tabu_iter=0, n_restarts=0)
        starts = starts[:1]
    # Uncoupled searches do not depend on the penalty, nor do their random streams.
    rngs = [np.random.default_rng([base, 3]) if uncoupled else _point_rng(base, penalty, label) for label, _ in starts]
    configs = [c for _, c in starts]
    return multitask_hill_climb(scorers, configs[0], prior, extra_starts=configs[1:], rng=rngs, **kwargs)


def _configs(result):
    return [[set(p) for p in g.parents] for g in result.graphs]


def _search_grid(problems, grid, prior_kwargs, search_kwargs, *, base, warm_start, n_jobs, say):
    """The joint search at every penalty of ``grid`` (sorted increasing), for each problem.

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
    if not warm_start:
        from joblib import Parallel, delayed

        label = "penalty grid" + (" x folds" if len(problems) > 1 else "")
        flat = []
        with reporter(say).stage(label, len(grid) * len(problems), "search", "searches") as tick:
            for r in Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_run_penalty)(scorers, starts, prior_kwargs, delta, search_kwargs, base=base,
                                      starts_are_optima=optima)
                for scorers, starts, optima in problems for delta in grid
            ):
                flat.append(r)
                tick()
        return [flat[i * len(grid):(i + 1) * len(grid)] for i in range(len(problems))]
    return [_warm_grid(scorers, starts, grid, prior_kwargs, search_kwargs, base=base, starts_are_optima=optima,
                       say=say) for scorers, starts, optima in problems]


def _warm_grid(scorers, starts, grid, prior_kwargs, search_kwargs, *, base, starts_are_optima, say):
    run = dict(base=base, starts_are_optima=starts_are_optima)
    up = []
    for i, delta in enumerate(grid):
        say(f"penalty {delta:.15g} (upward)")
        extra = [("upward", _configs(up[-1]))] if up else []
        up.append(_run_penalty(scorers, starts + extra, prior_kwargs, delta, search_kwargs, **run))
    down = [None] * len(grid)
    for i in range(len(grid) - 1, -1, -1):
        say(f"penalty {grid[i]:.15g} (downward)")
        cands = [("up", _configs(up[i]))] + ([("downward", _configs(down[i + 1]))] if i + 1 < len(grid) else [])
        res = _run_penalty(scorers, cands, prior_kwargs, grid[i], search_kwargs, base=base,
                           starts_are_optima=starts_are_optima and i == 0)
        down[i] = res if res.log_score > up[i].log_score + TIE_TOLERANCE else up[i]
    return down


def _fit_networks(graphs, datasets, ess):
    from mtbn.networks import fit_parameters

    return [
        fit_parameters(g, d, equivalent_sample_size=ess)
        for g, d in zip(graphs, datasets)
    ]


def _mean_validation_ll(graphs, train, valid, ess):
    return float(np.mean([r.mean() for r in _heldout_rows(graphs, train, valid, ess)]))


def _heldout_rows(graphs, train, valid, ess):
    """Per-row held-out log-likelihoods of each task, parameters fitted on ``train``."""
    from mtbn.networks import log_likelihood

    nets = _fit_networks(graphs, train, ess)
    return [log_likelihood(net, d, per_row=True) for net, d in zip(nets, valid)]


def _concat(a, b):
    return DiscreteData(np.concatenate([a.codes, b.codes]), a.names, a.states, a.name)


def learn_structures(
    tasks: Any,
    *,
    prior: str = "paired",
    penalty: Any = "auto",
    reversal: str | None = None,
    equivalent_sample_size: float = 1.0,
    max_parents: int | None = None,
    start: Any = "auto",
    cv: int = 5,
    validation: Any = None,
    selection_rule: str | None = None,
    force_transfer: bool = False,
    penalty_grid: Sequence[float] | None = None,
    warm_start: bool = False,
    solver: str = "auto",
    pair_weights: Any = None,
    edge_penalty: Any = None,
    structure_log_prior: Any = None,
    required_edges: Any = None,
    forbidden_edges: Any = None,
    tiers: Sequence[Sequence[str]] | None = None,
    knowledge: Any = None,
    n_restarts: int = 50,
    tabu_length: int = 10,
    max_tabu_iter: int = 10,
    n_joint_restarts: int = 20,
    max_iter: int | None = None,
    random_state: Any = 0,
    n_jobs: int | None = None,
    task_column: str | None = None,
    progress: Any = None,
) -> MultitaskResult:
    """Learn the structures of several related tasks jointly (paper Section 2.3).

    Search over joint moves (one node pair, every task's edge between them
    added, removed, reversed or kept) on the posterior of eq. 2.5 with the
    Edit (eq. 2.7) or Paired (eq. 2.8) prior: greedy ascent with a tabu
    phase and random restarts, from one or more start configurations.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, list of DataFrames, TaskSet, or DataFrame
        The tasks; with one DataFrame, ``task_column`` names the column that
        splits it into tasks (one network per value: the multi-net case).
    prior : {"paired", "edit", "none"}
        ``"none"`` learns every task independently (same as penalty 0).
    penalty : float in [0, 1] or "auto"
        delta in the paper. 0 learns the tasks independently; 1 forces
        identical structures. ``"auto"`` picks it from ``penalty_grid`` by
        the mean validation log-likelihood (Section 2.3.4).
    reversal : {"double", "single"}, optional
        How many differences an edge reversal counts as (default: "double"
        for Paired as in the paper, "single" for Edit).
    equivalent_sample_size : float, default 1.0
    max_parents : int, optional
    start : {"auto", "single-task", "identical", "empty"} or list of graphs
        Start configuration(s). ``"auto"``: three starts, the single-task
        solutions (the paper's start), the identical-structure (TSK)
        solution when all tasks share their variables, and empty graphs.
        Each heads its own chain of joint restarts with a random stream of
        its own, and the best chain is kept: the result equals the best of
        the single-start runs with the same seed, and at penalty 1 it
        scores at least as high as :func:`learn_identical_structures`.
        ``"single-task"``, ``"identical"``, ``"empty"``: that start alone;
        or one graph per task.
    cv : int, default 5
        ``penalty="auto"``: K-fold cross-validation within every task. Each
        grid point is learned on every fold's training rows and scored on
        its held-out rows (mean log-likelihood per row, averaged over
        tasks); see :mod:`mtbn.selection` for the standard errors.
    validation : float or int, optional
        Use one validation split per task instead of ``cv`` (a fraction or
        a row count): the paper's rule (Section 2.3.4; the paper holds out
        50 rows per task) with ``selection_rule="max"``.
    selection_rule : {"one-se", "max"}, optional
        How the penalty is chosen from the held-out scores: ``"one-se"``
        (default with ``cv``), the weakest coupling whose score is within
        one standard error of the best; ``"max"`` (default with
        ``validation``), the best score. Exact ties go to the smaller delta.
    force_transfer : bool, default False
        The negative-transfer guard: with ``penalty="auto"``, when the chosen
        penalty does not beat delta = 0 (independent learning) by more than
        one standard error on held-out rows, the independent structures are
        returned and a :class:`~mtbn.exceptions.TransferWarning` issued
        (``result.transfer`` holds the numbers, per task too).
        ``force_transfer=True`` keeps the multitask result. With either, the
        final structures and parameters are learned on all rows.
    penalty_grid : sequence of float, optional
        Default :data:`DEFAULT_PENALTY_GRID`: 0, then 1 - delta from 1e-1
        to 1e-8 on a log scale, 1e-10, 1e-12, 1e-14, and delta = 1. delta = 0
        is always added. During selection the searches use at most
        ``SELECTION_RESTARTS`` single-task restarts and
        ``SELECTION_JOINT_RESTARTS`` joint restarts per start.
    warm_start : bool, default False
        Continuation along the grid: each point also starts from its
        neighbours' results, in an upward then a downward pass (sequential;
        about twice the work). A point never scores below its cold search.
    solver : {"auto", "exact", "bnb", "exhaustive"}
        Best-neighbour solver (see :mod:`mtbn.joint`).
    pair_weights : (k, k) array, optional
        Paired prior only: symmetric weights per task pair.
    edge_penalty : dict of (u, v) -> float, optional
        Per-edge penalties replacing ``penalty`` for those node pairs (1: the
        edge must not differ between tasks; 0: free).
    structure_log_prior : callable or (k, n, n) array, optional
        ``f(task, parent, child) -> float``: each task's own structure prior
        ``log P(G_t) = sum_edges f(...)``, raised to ``c = 1/(1+(k-1)delta)``.
    required_edges, forbidden_edges : list of (parent, child), DAG or networkx graph, optional
        Apply to every task that has both variables.
    tiers : sequence of sequences of names, optional
        Temporal order for every task: no edge from a later tier into an
        earlier one (bnlearn's ``tiers2blacklist``).
    knowledge : pgmpy ExpertKnowledge, optional
        Its required / forbidden edges and temporal order are added.
    n_restarts : int, default 50
        Restarts of the single-task (and TSK) searches that give the starts.
    tabu_length : int, default 10
        Joint search: node pairs changed in the last ``tabu_length`` moves
        stay fixed unless the move reaches a new best score.
    max_tabu_iter : int, default 10
        Joint search: moves without a new best score before a climb stops.
    n_joint_restarts : int, default 20
        Joint search: restarts per start, each from the start's best
        configuration so far after random joint and per-task changes at
        ``n_vars // 4`` node pairs that hold an edge in some task.
    max_iter : int, optional
        Joint moves allowed per climb.
    random_state : int, Generator or None, default 0
    n_jobs : int, optional
        Parallel jobs over the penalty grid (joblib; results do not depend on it).
    task_column : str, optional
    progress : callable, optional
        Called with a short message at each stage.

    Returns
    -------
    MultitaskResult
    """
    from mtbn.data import make_taskset
    from mtbn.priors import PRIORS

    ts = make_taskset(tasks, task_column=task_column)
    k = ts.n_tasks
    names = ts.variables
    check_option("prior", prior, list(PRIORS) + ["none"])
    if prior == "none":
        prior, penalty = "edit", 0.0
    if penalty != "auto":
        check_penalty(penalty)
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    max_parents = check_max_parents(max_parents)
    check_option("solver", solver, SOLVERS)
    check_n_jobs(n_jobs)
    check_counts(tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, n_restarts=n_restarts,
                 n_joint_restarts=n_joint_restarts)
    if validation is not None:
        _check_validation(validation)
    elif isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise error("cv-value", value=cv)
    rule = selection_rule or ("max" if validation is not None else "one-se")
    check_option("selection_rule", rule, RULES)
    grid = tuple(DEFAULT_PENALTY_GRID if penalty_grid is None else penalty_grid)
    if not grid:
        raise error("empty-grid")
    # delta = 0 (independent learning) is always a candidate: the guard compares with it.
    grid = tuple(sorted({check_penalty(p, "penalty_grid value") for p in grid} | {0.0}))
    required, forbidden = constraint_matrices(names, required_edges, forbidden_edges, tiers, knowledge)
    edge_pen = None
    if edge_penalty:
        edge_pen = np.full((len(names), len(names)), np.nan)
        m = {v: i for i, v in enumerate(names)}
        for (u, v), val in dict(edge_penalty).items():
            if u not in m or v not in m:
                raise error("edge-penalty-unknown-variable", u=u, v=v)
            edge_pen[m[u], m[v]] = edge_pen[m[v], m[u]] = check_penalty(val, f"edge_penalty[({u!r}, {v!r})]")
    prior_kwargs = dict(prior=prior, n_tasks=k, reversal=reversal, weights=pair_weights, edge_penalty=edge_pen)
    make_prior(penalty=0.0 if penalty == "auto" else penalty, **prior_kwargs)  # validate once, early
    edge_prior = _edge_log_prior_array(structure_log_prior, ts)
    rng = check_random_state(random_state)
    # Per-task random streams keyed by the task name, so that results do not
    # depend on the order in which tasks are given.
    base = int(rng.integers(0, 2**31 - 1))
    task_keys = [zlib.crc32(name.encode("utf-8")) for name in ts.names]
    seeds = [int(np.random.SeedSequence([base, key]).generate_state(1)[0]) for key in task_keys]
    task_rngs = [np.random.default_rng([base, key, 1]) for key in task_keys]
    say = reporter(progress)
    search_kwargs = dict(local_index=ts.local_index, max_parents=max_parents, required=required,
                         forbidden=forbidden, edge_log_prior=edge_prior, solver=solver, max_iter=max_iter)

    check_option("start", start, ("auto", "single-task", "identical", "empty")) if isinstance(start, str) else None
    shared_variables = not np.any(ts.local_index < 0)
    if start == "identical" and not shared_variables:
        raise error("identical-needs-shared-variables", what="start='identical'")
    search_kwargs.update(tabu_length=tabu_length, max_tabu_iter=max_tabu_iter, n_restarts=n_joint_restarts)

    def constrained(parents, t, what):
        """A task's start with the required edges added, checked against the constraints (local indices)."""
        gl = np.flatnonzero(ts.local_index[t] >= 0)
        loc = ts.local_index[t][gl]
        n_local = len(parents)
        req, forb = np.zeros((n_local, n_local), dtype=bool), np.zeros((n_local, n_local), dtype=bool)
        req[np.ix_(loc, loc)] = required[np.ix_(gl, gl)]
        forb[np.ix_(loc, loc)] = forbidden[np.ix_(gl, gl)]
        return check_constraints(parents, req, forb, ts.tasks[t].names, max_parents, what)

    def empty_starts(datasets):
        return [constrained([set() for _ in range(d.n_vars)], t, "empty start") for t, d in enumerate(datasets)]

    def starts_for(datasets, scorers, restarts):
        """Start configurations (first = primary), single-task results, and whether the first are optima."""
        if not isinstance(start, str):
            if len(start) != k:
                raise error("start-count", k=k, n=len(start))
            return [("given", [constrained(as_parent_sets(g, d.names, f"start graph of task {d.name!r}"), t,
                                           f"start graph of task {d.name!r}")
                               for t, (g, d) in enumerate(zip(start, datasets))])], None
        if start == "empty":
            return [("empty", empty_starts(datasets))], None
        out, stl = [], None
        if start in ("auto", "single-task"):
            stl = _stl_starts(scorers, max_parents=max_parents, required=required, forbidden=forbidden,
                              n_restarts=restarts, seeds=seeds, local_index=ts.local_index, names=names,
                              n_jobs=n_jobs, say=say)
            out.append(("single-task", [[set(p) for p in r.graph.parents] for r in stl]))
        if start in ("auto", "identical") and shared_variables and k > 1:
            say("identical-structure (TSK) search")
            sub = make_taskset(datasets)
            order = [names.index(v) for v in sub.variables]
            shared, _ = _identical_search(
                sub, ess=k * ess, max_parents=max_parents, required=required[np.ix_(order, order)],
                forbidden=forbidden[np.ix_(order, order)], n_restarts=restarts,
                rng=np.random.default_rng([base, 4]),
            )
            out.append(("identical", [as_parent_sets(shared, d.names) for d in datasets]))
        if start == "auto":
            out.append(("empty", empty_starts(datasets)))
        return out, stl

    def run_grid(trains):
        """Every fold's starts, then the grid search of every (fold, penalty)."""
        problems = []
        for f, train in enumerate(trains):
            if len(trains) > 1:
                say(f"fold {f + 1}/{len(trains)}: starts")
            scorers = Shared(make_scorer(d, "bdeu", ess) for d in train)
            starts, stl = starts_for(train, scorers, min(n_restarts, SELECTION_RESTARTS))
            problems.append((scorers, starts, stl is not None))
        kwargs = dict(search_kwargs, n_restarts=min(n_joint_restarts, SELECTION_JOINT_RESTARTS))
        return _search_grid(problems, grid, prior_kwargs, kwargs, base=base, warm_start=warm_start,
                            n_jobs=n_jobs, say=say)

    full_scorers = Shared(make_scorer(d, "bdeu", ess) for d in ts.tasks)

    def run_one(delta):
        scorers = full_scorers
        starts, stl = starts_for(ts.tasks, scorers, n_restarts)
        say(f"multitask search at penalty {delta:.15g} on all rows")
        return _run_penalty(scorers, starts, prior_kwargs, delta, search_kwargs, base=base,
                            starts_are_optima=stl is not None), stl

    transfer = None
    if penalty == "auto" and k == 1:
        # One task: nothing to couple, so no penalty to choose.
        chosen, path = 0.0, []
        transfer = {"status": "none", "message": "one task: learned on its own (no penalty to choose)",
                    "selected_penalty": 0.0, "gain": 0.0, "se": 0.0, "rule": rule, "folds": 0, "tasks": {}}
        search, stl = run_one(chosen)
    elif penalty == "auto":
        if validation is not None:
            splits = [holdout_splits(d.n_samples, validation, r, d.name) for d, r in zip(ts.tasks, task_rngs)]
        else:
            splits = [kfold_splits(d.n_samples, cv, r) for d, r in zip(ts.tasks, task_rngs)]
        n_folds = len(splits[0])
        trains = [[d.take(sp[f][0]) for d, sp in zip(ts.tasks, splits)] for f in range(n_folds)]
        valids = [[d.take(sp[f][1]) for d, sp in zip(ts.tasks, splits)] for f in range(n_folds)]
        per_fold = run_grid(trains)
        # [fold][grid point][task] per-row log-likelihoods
        held_out = [[_heldout_rows(r.graphs, train, valid, ess) for r in results]
                    for results, train, valid in zip(per_fold, trains, valids)]
        first = per_fold[0]
        scores = ValidationScores([[np.concatenate([fold[c][t] for fold in held_out]) for t in range(k)]
                                   for c in range(len(grid))])
        best = scores.choose(rule)
        top = scores.best()
        path = [PenaltyPathPoint(d, float(scores.means[c]), r.graphs, r.log_score, r.n_iter,
                                 validation_se=float(scores.ses[c]), se_vs_best=scores.difference(c, top)[1])
                for c, (d, r) in enumerate(zip(grid, first))]
        related = _relatedness_check(full_scorers, ts.local_index, np.random.SeedSequence([base, 5]))
        transfer = _transfer_check(scores, grid, best, ts.names, rule, n_folds, force_transfer, related)
        chosen = grid[best] if transfer["status"] in ("accepted", "forced") else 0.0
        say(f"chosen penalty {grid[best]:.10g}" + ("" if chosen == grid[best] else "; " + transfer["message"]))
        if transfer["status"] in ("rejected", "none"):
            warnings.warn(transfer["message"], TransferWarning, stacklevel=2)
        search, stl = run_one(chosen)
    else:
        chosen = float(penalty)
        path = []
        search, stl = run_one(chosen)
    networks = _fit_networks(search.graphs, ts.tasks, ess)
    return MultitaskResult(
        task_names=ts.names,
        graphs=search.graphs,
        networks=networks,
        penalty=chosen,
        log_score=search.log_score,
        task_log_likelihoods=search.log_likelihoods,
        penalty_path=path,
        search=search,
        single_task=stl,
        transfer=transfer,
    )


def _identical_search(ts, *, ess, max_parents=None, required=None, forbidden=None, tabu_length=10,
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
    scorer = make_scorer(stacked, "bdeu", ess)
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
    """
    from mtbn.data import make_taskset

    ts = make_taskset(tasks, task_column=task_column)
    if np.any(ts.local_index < 0):
        raise error("identical-needs-shared-variables", what="learn_identical_structures")
    shared, res = _identical_search(
        ts, ess=equivalent_sample_size, max_parents=check_max_parents(max_parents), tabu_length=tabu_length,
        max_tabu_iter=max_tabu_iter, n_restarts=n_restarts, rng=check_random_state(random_state),
    )
    return [shared for _ in range(ts.n_tasks)], res
