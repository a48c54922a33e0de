"""Task relatedness, task selection and task clustering (paper Section 2.4).

Two measures of how related tasks are:

* **direct** (Section 2.4.1): learn all tasks jointly with multitask learning
  at a mild penalty (delta = 0.9 by default), then the edit distance between
  two tasks' learned structures is their distance. The matrix is symmetric,
  zero on the diagonal and a metric. Edges listed in ``free_edges`` are
  free in the prior (penalty 0) and ignored by the distance.
* **indirect** (Section 2.4.2): learn each task's structure from its own
  data; for tasks ``s`` and ``e``, fit the parameters of ``s``'s structure on
  ``e``'s training folds and score ``e``'s held-out fold (10-fold
  cross-validation by default). ``log_likelihood[s, e]`` is the mean
  held-out log-likelihood per row of task ``e``'s data under task ``s``'s
  structure (rows: structure source, columns: evaluated task). The distance
  used for ordering is ``distance[e, s] = log_likelihood[e, e] -
  log_likelihood[s, e]``: how much worse task ``e``'s own data is explained
  by ``s``'s structure than by its own (row = the task being explained, e.g.
  the principal). Every candidate is scored on the same held-out data of
  ``e``, so the values in a row are comparable. It is not symmetric. When
  ``s`` and ``e`` have different variables, both structures are restricted
  to the variables they share (induced subgraphs) and only those are scored.

:func:`select_tasks` orders the other tasks by distance from a principal task
and learns with the closest ``N``; :func:`cluster_tasks` clusters the tasks
by average link on the direct distance and learns within each cluster.
"""

import zlib
from dataclasses import dataclass

import numpy as np

from mtbn._validation import check_n_jobs, check_option, check_penalty, check_random_state
from mtbn.selection import RULES, ValidationScores, holdout_splits
from mtbn.data import DiscreteData, make_taskset
from mtbn.engine import Shared
from mtbn.progress import reporter
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.graph import DAG, edit_distance
from mtbn.learn import learn_structure, learn_structures
from mtbn.networks import fit_parameters, log_likelihood

__all__ = [
    "RelatednessResult",
    "SelectionResult",
    "ClusteringResult",
    "direct_relatedness",
    "indirect_relatedness",
    "relatedness",
    "select_tasks",
    "cluster_tasks",
    "gap_size",
    "noise_floor",
    "MEASURES",
]

MEASURES = ("direct", "indirect")


@dataclass
class RelatednessResult:
    """Task distances (smaller = more related).

    Attributes
    ----------
    measure : str
    names : tuple of str
    distance : pandas.DataFrame
        Square, task names as index and columns. For the indirect measure,
        row ``e`` column ``s`` is how much worse ``e``'s data is explained by
        ``s``'s structure than by its own.
    graphs : dict of name -> DAG
        The structures the distances come from.
    log_likelihood : pandas.DataFrame or None
        Indirect only: row = structure source, column = evaluated task.
    search : MultitaskSearchResult or None
        Direct only: the joint search that learned the structures (solver,
        moves, configurations evaluated per step).
    floor : float, optional
        Direct only, with ``noise_floor``: the distance that tasks differing
        only by chance stay within (see :func:`noise_floor`); a distance no
        larger is within noise. NaN when it cannot be computed (tasks over
        different variables).
    null_max : ndarray, optional
        The permutation replicates' largest distances the floor comes from.
    """

    measure: str
    names: tuple
    distance: object
    graphs: dict
    log_likelihood: object = None
    search: object = None
    floor: "float | None" = None
    null_max: object = None

    def within_noise(self):
        """Square boolean DataFrame: distance <= the noise floor (None without a floor)."""
        if self.floor is None or np.isnan(self.floor):
            return None
        return self.distance <= self.floor

    def floor_table(self):
        """``noise_floor.csv``: each permutation replicate's largest distance, and the floor (None without)."""
        import pandas as pd

        if self.floor is None:
            return None
        reps = [] if self.null_max is None else list(self.null_max)
        return pd.DataFrame({"replicate": [str(i) for i in range(len(reps))] + ["floor"],
                             "largest_distance": reps + [self.floor]})

    def from_task(self, name):
        """Distances from task ``name`` to every other task (a pandas Series)."""
        if name not in self.names:
            raise error("unknown-task", task=name, names=", ".join(map(repr, self.names)))
        return self.distance.loc[name].drop(name)


def _mask_pairs(free_edges):
    return {frozenset((str(u), str(v))) for u, v in (free_edges or ())}


def _masked_edges(graph, mask):
    return [e for e in graph.edges(names=True) if frozenset(e) not in mask]


register("n-folds-value", InvalidParameterError, "n_folds must be an integer >= 2; got {value!r}.",
         cause="The indirect measure's cross-fitting needs at least two folds.",
         fix="Pass 2 or more folds (10 is the default).")
register("too-few-rows-for-folds", InvalidParameterError, "task {task!r} has {n_rows} rows, fewer than n_folds={n_folds}.",
         cause="A task is too small to split into the requested number of folds.",
         fix="Use fewer folds, or leave the small task out.")
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
register("n-clusters-value", InvalidParameterError, "n_clusters must be 'auto' or an integer in [1, {k}]; got {value!r}.",
         cause="A cluster count below 1, above the number of tasks, or not a whole number.",
         fix="Pass 'auto' (chosen on validation rows) or a count from 1 to the number of tasks.")

register("noise-floor-replicates", InvalidParameterError,
         "noise_floor must be True, False or a number of permutation replicates >= 2; got {value!r}.",
         cause="A noise floor is a quantile over permutation replicates, so it needs at least two.",
         fix="Pass True (10 replicates), an integer >= 2, or False / 0 for no floor.")


def _null_replicate(codes, variables, states, sizes, labels, r, seed, mask, reversal, kwargs):
    perm = np.random.default_rng([seed, r, 6]).permutation(len(codes))
    parts = np.split(perm, np.cumsum(sizes)[:-1])
    data = {f"pseudo:{lab}": DiscreteData(codes[np.sort(p)], variables, states, f"pseudo:{lab}")
            for lab, p in zip(labels, parts)}
    res = learn_structures(data, **kwargs)
    return float(_distance_matrix([_masked_edges(g, mask) for g in res.graphs], reversal).max())


def _distance_matrix(edges, reversal):
    """Symmetric matrix of edit distances between the tasks' edge lists."""
    k = len(edges)
    D = np.zeros((k, k))
    for a in range(k):
        for b in range(a + 1, k):
            D[a, b] = D[b, a] = edit_distance(edges[a], edges[b], reversal=reversal)
    return D


def noise_floor(tasks, *, penalty=0.9, prior="paired", free_edges=None, reversal="single", n_restarts=50,
                random_state=0, solver="auto", n_perm=10, quantile=0.95, n_jobs=None, **learn_kwargs):
    """The noise floor of the direct measure: how far apart tasks land when they differ only by chance.

    A permutation null: the rows of all tasks are pooled and dealt at random
    into pseudo-tasks of the original sizes, so that the pseudo-tasks come
    from one distribution; they are learned jointly exactly as
    :func:`direct_relatedness` learns the tasks (same number of tasks, same
    sizes, same penalty), and the largest pairwise distance among them is
    recorded. The floor is the ``quantile`` of that largest distance over
    ``n_perm`` replicates (an observed value: the next one up; with fewer
    than 20 replicates the 0.95 quantile is their maximum), so that "every distance is within the floor"
    holds for identical tasks with probability about ``quantile`` (a
    family-wise level over all pairs). Needs tasks over the same variables
    (returns NaN otherwise) and at least two tasks. Replicates run in
    parallel through joblib; results do not depend on ``n_jobs``.

    Returns
    -------
    floor : float
    null_max : ndarray
        The largest pseudo-task distance of each replicate.
    """
    import warnings

    from joblib import Parallel, delayed

    from mtbn.exceptions import TransferWarning

    if isinstance(n_perm, bool) or not isinstance(n_perm, (int, np.integer)) or n_perm < 2:
        raise error("noise-floor-replicates", value=n_perm)
    ts = make_taskset(tasks)
    if ts.n_tasks < 2 or np.any(ts.local_index < 0):
        return float("nan"), np.zeros(0)
    rng = check_random_state(random_state)
    seed = int(rng.integers(0, 2**31 - 1))
    mask = _mask_pairs(free_edges)
    edge_penalty = {tuple(e): 0.0 for e in free_edges} if free_edges else None
    kwargs = dict(learn_kwargs, prior=prior, penalty=penalty, edge_penalty=edge_penalty, n_restarts=n_restarts,
                  random_state=seed, solver=solver)
    # Pool in task-name order, so the floor does not depend on the order the tasks were given.
    order = sorted(range(ts.n_tasks), key=lambda t: ts.names[t])
    codes = np.concatenate([ts.global_codes(t) for t in order])
    sizes = [ts.tasks[t].n_samples for t in order]
    labels = [ts.names[t] for t in order]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        null_max = Parallel(n_jobs=n_jobs)(
            delayed(_null_replicate)(codes, ts.variables, ts.states, sizes, labels, r, seed, mask, reversal, kwargs)
            for r in range(n_perm))
    null_max = np.asarray(null_max, dtype=float)
    return float(np.quantile(null_max, quantile, method="higher")), null_max


def direct_relatedness(tasks, *, penalty=0.9, prior="paired", free_edges=None, reversal="single", n_restarts=50,
                       random_state=0, solver="auto", noise_floor=False, **learn_kwargs):
    """Direct task distances: edit distances of structures learned jointly at a mild penalty.

    Parameters
    ----------
    tasks : dict, list or TaskSet
    penalty : float, default 0.9
        delta of the multitask prior used to learn the structures.
    prior : {"paired", "edit"}
    free_edges : list of (u, v), optional
        Node pairs free in the prior (penalty 0) and ignored by the distance.
    reversal : {"single", "double"}, default "single"
        How the distance counts a reversed edge (the paper's edit distance
        counts it once; "double" matches the Paired prior's default).
    n_restarts, random_state, solver, **learn_kwargs
        Passed to :func:`mtbn.learn.learn_structures`.
    noise_floor : bool or int, default False
        Also compute the noise floor (:func:`noise_floor` with 10
        permutation replicates, or as many as given: each one more joint
        search of all tasks) into ``floor``, so that
        :meth:`RelatednessResult.within_noise` can tell which distances are
        no larger than chance.

    Returns
    -------
    RelatednessResult
    """
    import pandas as pd

    ts = make_taskset(tasks)
    floor = null_max = None
    if noise_floor:
        n_perm = 10 if noise_floor is True else noise_floor
        floor, null_max = _noise_floor(ts, penalty=penalty, prior=prior, free_edges=free_edges, reversal=reversal,
                                       n_restarts=n_restarts, random_state=random_state, solver=solver,
                                       n_perm=n_perm, **learn_kwargs)
    check_penalty(penalty)
    edge_penalty = {tuple(e): 0.0 for e in free_edges} if free_edges else None
    res = learn_structures(ts, prior=prior, penalty=penalty, edge_penalty=edge_penalty, n_restarts=n_restarts,
                           random_state=random_state, solver=solver, **learn_kwargs)
    mask = _mask_pairs(free_edges)
    names = ts.names
    edges = [_masked_edges(g, mask) for g in res.graphs]
    D = _distance_matrix(edges, reversal)
    return RelatednessResult("direct", names, pd.DataFrame(D, index=list(names), columns=list(names)),
                             dict(zip(names, res.graphs)), search=res.search, floor=floor,
                             null_max=null_max)


_noise_floor = noise_floor  # direct_relatedness's argument of the same name hides the function


def _restrict(graph, names, keep):
    """Parent index tuples of ``graph`` (over ``names``) induced on the variables ``keep``."""
    pos = {n: i for i, n in enumerate(keep)}
    return [tuple(sorted(pos[names[p]] for p in graph.parents[names.index(v)] if names[p] in pos)) for v in keep]


def _cv_ll(parents, keep, data, fold_ids, ess):
    vals = []
    for f in range(len(fold_ids)):
        test = np.sort(fold_ids[f])
        train = np.sort(np.concatenate([x for i, x in enumerate(fold_ids) if i != f]))
        net = fit_parameters(parents, data.take(train), equivalent_sample_size=ess, names=keep)
        vals.append(log_likelihood(net, data.take(test)))
    return float(np.mean(vals))


def _cv_row(graph, source, graphs, datasets, folds, ess):
    """For one structure source: (its held-out log-likelihood on each task, each task's own on the same variables)."""
    lls, own = [], []
    for g_e, d, fold_ids in zip(graphs, datasets, folds):
        keep = [n for n in d.names if n in set(source.names)]
        if not keep:
            lls.append(np.nan)
            own.append(np.nan)
            continue
        lls.append(_cv_ll(_restrict(graph, list(source.names), keep), keep, d, fold_ids, ess))
        if len(keep) == d.n_vars:
            own.append(np.nan)  # filled from the diagonal
        else:
            own.append(_cv_ll(_restrict(g_e, list(d.names), keep), keep, d, fold_ids, ess))
    return lls, own


def indirect_relatedness(tasks, *, n_folds=10, equivalent_sample_size=1.0, n_restarts=50, random_state=0,
                         n_jobs=None):
    """Indirect task distances by cross-fitting structures (Section 2.4.2).

    Returns
    -------
    RelatednessResult
        ``log_likelihood`` (row: structure source ``s``, column: evaluated
        task ``e``) and ``distance[e, s] = log_likelihood[e, e] - log_likelihood[s, e]``.
    """
    import pandas as pd
    from joblib import Parallel, delayed

    check_n_jobs(n_jobs)
    ts = make_taskset(tasks)
    if not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise error("n-folds-value", value=n_folds)
    for d in ts.tasks:
        if d.n_samples < n_folds:
            raise error("too-few-rows-for-folds", task=d.name, n_rows=d.n_samples, n_folds=n_folds)
    rng = check_random_state(random_state)
    base = int(rng.integers(0, 2**31 - 1))
    keys = [zlib.crc32(n.encode("utf-8")) for n in ts.names]
    graphs = [
        learn_structure(d, equivalent_sample_size=equivalent_sample_size, n_restarts=n_restarts,
                        random_state=np.random.default_rng([base, key])).graph
        for d, key in zip(ts.tasks, keys)
    ]
    folds = [np.array_split(np.random.default_rng([base, key, 2]).permutation(d.n_samples), n_folds)
             for d, key in zip(ts.tasks, keys)]
    shared = Shared(ts.tasks)  # shipped once to a Dask cluster, not once per job
    rows = Parallel(n_jobs=n_jobs)(
        delayed(_cv_row)(g, d, graphs, shared, folds, equivalent_sample_size) for g, d in zip(graphs, ts.tasks)
    )
    ll = np.array([r[0] for r in rows])  # ll[s, e]
    own = np.array([r[1] for r in rows])  # own[s, e]: e's own structure on the variables e shares with s
    own = np.where(np.isnan(own), np.diag(ll)[None, :], own)
    D = own.T - ll.T  # D[e, s] = own[s, e] - ll[s, e]
    names = list(ts.names)
    return RelatednessResult("indirect", ts.names, pd.DataFrame(D, index=names, columns=names),
                             dict(zip(ts.names, graphs)), pd.DataFrame(ll, index=names, columns=names))


def relatedness(tasks, measure="direct", **kwargs):
    """Dispatch to :func:`direct_relatedness` or :func:`indirect_relatedness`."""
    check_option("measure", measure, MEASURES)
    return (direct_relatedness if measure == "direct" else indirect_relatedness)(tasks, **kwargs)


def gap_size(sorted_distances):
    """Number of tasks before the largest gap in increasing distances ("gap hunting").

    Examples
    --------
    >>> gap_size([3, 4, 12, 13, 15])
    2

    Equal distances have no gap, and every task is kept:

    >>> gap_size([2, 2, 2])
    3
    """
    d = np.asarray(sorted_distances, dtype=float)
    d = d[~np.isnan(d)]
    if len(d) <= 1:
        return len(d)
    gaps = np.diff(d)
    if not np.any(gaps > 0):
        return len(d)  # no gap: nothing to separate
    return int(np.argmax(gaps)) + 1


# ---------------------------------------------------------------------------
# Task selection
# ---------------------------------------------------------------------------


@dataclass
class SelectionResult:
    """What :func:`select_tasks` returns.

    Attributes
    ----------
    principal : str
    order : list of str
        The other tasks, most related first.
    distances : dict of name -> float
        Distance of each other task from the principal.
    n_selected : int
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
    penalty : float
        The multitask penalty of the final run (nan for N = 0).
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
        """JSON-ready summary (``selected.json``)."""
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
            "validation_curve": [{"n": int(c[0]), "validation_log_likelihood": float(c[1]),
                                  "se_vs_best": float(c[2]) if len(c) > 2 else None} for c in self.validation_curve],
            "n_within_noise": int(self.n_within_noise),
            "noise_floor": self.relatedness.floor,
            "edges": [list(e) for e in self.graph.edges(names=True)],
        }


def _learn_principal(datasets, principal, selected, *, learn_kwargs, random_state):
    """Learn the principal with the selected tasks; returns (graph, penalty, result)."""
    if not selected:
        res = learn_structure(datasets[principal], random_state=random_state,
                              **{k: v for k, v in learn_kwargs.items() if k in ("equivalent_sample_size", "max_parents", "n_restarts")})
        return res.graph, float("nan"), res
    chosen = {principal: datasets[principal], **{n: datasets[n] for n in selected}}
    res = learn_structures(chosen, random_state=random_state, **learn_kwargs)
    return res.graphs[res.task_names.index(principal)], res.penalty, res


def _check_n(n):
    if n in ("auto", "gap"):
        return n
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0:
        return int(n)
    raise error("n-select-value", value=n)


def select_tasks(tasks, principal, *, measure="direct", n="auto", selection_validation=0.05, penalty="auto",
                 validation=0.05, relatedness_penalty=0.9, equivalent_sample_size=1.0, n_restarts=50,
                 max_tasks=None, n_folds=10, noise_floor=True, selection_rule="one-se", random_state=0, n_jobs=None,
                 progress=None):
    """Select related tasks for a principal task and learn its network with them.

    Parameters
    ----------
    tasks : dict, list or TaskSet
    principal : str
        The task whose network matters.
    measure : {"direct", "indirect"}
    n : "auto", "gap" or int
        Number of tasks to learn with: chosen on a validation split of the
        principal (``"auto"``; separate from the split that picks the
        penalty), the count before the largest gap in the sorted distances
        (``"gap"``), or given.
    selection_validation : float or int, default 0.05
        Principal rows held out to choose N (fraction or count).
    penalty, validation
        Multitask penalty (or "auto") and its validation split, passed to
        :func:`mtbn.learn.learn_structures`.
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

    Returns
    -------
    SelectionResult
    """
    ts = make_taskset(tasks)
    if principal not in ts.names:
        raise error("unknown-principal", task=principal, names=", ".join(map(repr, ts.names)))
    check_option("measure", measure, MEASURES)
    check_n_jobs(n_jobs)
    n = _check_n(n)
    check_option("selection_rule", selection_rule, RULES)
    if isinstance(n, int) and n > ts.n_tasks - 1:
        raise error("n-select-range", n_others=ts.n_tasks - 1, value=n)
    say = reporter(progress)
    rng = check_random_state(random_state)
    seed = int(rng.integers(0, 2**31 - 1))
    datasets = dict(zip(ts.names, ts.tasks))
    full_principal = datasets[principal]
    sel_valid = None
    if n == "auto":
        tr, va = holdout_splits(full_principal.n_samples, selection_validation,
                                np.random.default_rng([seed, 3]), principal, "selection_validation")[0]
        datasets[principal] = full_principal.take(tr)
        sel_valid = full_principal.take(va)
    say(f"{measure} relatedness of {len(ts.names)} tasks")
    rel_kwargs = dict(n_restarts=n_restarts, random_state=seed)
    if measure == "direct":
        rel = direct_relatedness(list(datasets.values()), penalty=relatedness_penalty,
                                 equivalent_sample_size=equivalent_sample_size, noise_floor=noise_floor,
                                 n_jobs=n_jobs, **rel_kwargs)
    else:
        rel = indirect_relatedness(list(datasets.values()), equivalent_sample_size=equivalent_sample_size,
                                   n_folds=n_folds, n_jobs=n_jobs, **rel_kwargs)
    dist = rel.from_task(principal)
    others = [x for x in ts.names if x != principal]
    order = sorted(others, key=lambda x: (np.isnan(dist[x]), float(dist[x]) if not np.isnan(dist[x]) else 0.0,
                                          others.index(x)))
    gap = gap_size([dist[x] for x in order])
    within = rel.within_noise()
    # Tasks within noise of the principal are never left out (nor any task closer than one of them).
    n_min = max((order.index(x) + 1 for x in order if within is not None and within.loc[principal, x]), default=0)
    learn_kwargs = dict(penalty=penalty, validation=validation, equivalent_sample_size=equivalent_sample_size,
                        n_restarts=n_restarts, n_jobs=n_jobs)
    curve = []
    if n == "auto":
        limit = len(order) if max_tasks is None else min(int(max_tasks), len(order))
        limit = max(limit, n_min)
        candidates, rows = [], []
        for N in range(n_min, limit + 1):
            say(f"learning with the {N} closest task(s)")
            graph, pen, _ = _learn_principal(datasets, principal, order[:N], learn_kwargs=learn_kwargs,
                                             random_state=seed)
            net = fit_parameters(graph, datasets[principal],
                                 equivalent_sample_size=equivalent_sample_size)
            rows.append([log_likelihood(net, sel_valid, per_row=True)])
            candidates.append((N, graph, pen))
        scores = ValidationScores(rows)
        best = scores.best()
        curve = [(N, float(m), scores.difference(c, best)[1]) for c, ((N, _, _), m) in
                 enumerate(zip(candidates, scores.means))]
        n_sel, graph, pen = candidates[scores.choose(selection_rule)]
        how = "validation"
    else:
        n_sel = max(gap, n_min) if n == "gap" else min(n, len(order))
        how = "gap" if n == "gap" else "given"
        graph, pen, _ = _learn_principal(datasets, principal, order[:n_sel], learn_kwargs=learn_kwargs,
                                         random_state=seed)
    network = fit_parameters(graph, full_principal,
                             equivalent_sample_size=equivalent_sample_size)
    stl_graph = learn_structure(datasets[principal], equivalent_sample_size=equivalent_sample_size,
                                n_restarts=n_restarts, random_state=seed).graph
    return SelectionResult(principal, order, {x: float(dist[x]) for x in order}, n_sel, order[:n_sel], how, curve,
                           gap, graph, network, stl_graph, rel, pen, n_within_noise=n_min,
                           rule=selection_rule)


# ---------------------------------------------------------------------------
# Task clustering
# ---------------------------------------------------------------------------


@dataclass
class ClusteringResult:
    """What :func:`cluster_tasks` returns.

    Attributes
    ----------
    labels : dict of name -> int
        Cluster of each task (1-based).
    n_clusters : int
    linkage : ndarray
        scipy average-link linkage matrix on the direct distance.
    validation_curve : list of (int, float, float)
        ``(number of clusters, mean validation log-likelihood per row over
        tasks, paired standard error of its difference from the best)``.
    graphs : dict of name -> DAG
    networks : dict of name -> BayesianNetwork
    relatedness : RelatednessResult
    rule : str
        The rule that chose the number of clusters.
    """

    labels: dict
    n_clusters: int
    linkage: object
    validation_curve: list
    graphs: dict
    networks: dict
    relatedness: RelatednessResult
    rule: str = "one-se"

    def to_dict(self):
        return {
            "labels": {k: int(v) for k, v in self.labels.items()},
            "n_clusters": int(self.n_clusters),
            "validation_curve": [{"n_clusters": int(c[0]), "validation_log_likelihood": float(c[1]),
                                  "se_vs_best": float(c[2]) if len(c) > 2 else None} for c in self.validation_curve],
            "noise_floor": self.relatedness.floor,
        }


def average_link_clusters(distance, n_clusters):
    """Cut an average-link dendrogram of a square distance matrix into ``n_clusters``.

    Returns (labels as an int array, linkage matrix).
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    D = np.asarray(distance, dtype=float)
    if D.shape[0] == 1:
        return np.ones(1, dtype=int), np.zeros((0, 4))
    Z = linkage(squareform((D + D.T) / 2, checks=False), method="average")
    return fcluster(Z, t=n_clusters, criterion="maxclust"), Z


def _learn_clusters(datasets, labels, names, learn_kwargs, seed, ess):
    graphs = {}
    for c in sorted(set(labels)):
        members = [names[i] for i in range(len(names)) if labels[i] == c]
        if len(members) == 1:
            graphs[members[0]] = learn_structure(
                datasets[members[0]], equivalent_sample_size=ess, n_restarts=learn_kwargs["n_restarts"],
                random_state=seed).graph
        else:
            res = learn_structures({m: datasets[m] for m in members}, random_state=seed, **learn_kwargs)
            graphs.update(dict(zip(res.task_names, res.graphs)))
    return graphs


def cluster_tasks(tasks, *, n_clusters="auto", selection_validation=0.05, penalty="auto", validation=0.05,
                  relatedness_penalty=0.9, equivalent_sample_size=1.0, n_restarts=50, max_clusters=None,
                  noise_floor=True, selection_rule="one-se", random_state=0, n_jobs=None, progress=None):
    """Cluster tasks (average link on the direct distance) and learn within each cluster.

    ``n_clusters="auto"`` chooses the number of clusters by the mean
    validation log-likelihood over tasks (``selection_validation`` rows of
    each task held out); an int fixes it. With ``noise_floor=True`` (default;
    an int sets the number of permutation replicates, True = 10) the direct
    distances come with a noise floor (:func:`noise_floor`), and ``"auto"`` never separates two tasks whose
    distance is within noise (identical tasks end in one cluster).
    ``selection_rule="one-se"`` (default) takes the largest number of
    clusters whose validation log-likelihood is within one paired standard
    error of the best (toward less transfer, as for the penalty); ``"max"``
    the best.

    Returns
    -------
    ClusteringResult
    """
    ts = make_taskset(tasks)
    names = list(ts.names)
    k = len(names)
    if n_clusters != "auto" and not (isinstance(n_clusters, (int, np.integer)) and 1 <= n_clusters <= k):
        raise error("n-clusters-value", k=k, value=n_clusters)
    check_n_jobs(n_jobs)
    check_option("selection_rule", selection_rule, RULES)
    say = reporter(progress)
    rng = check_random_state(random_state)
    seed = int(rng.integers(0, 2**31 - 1))
    full = dict(zip(names, ts.tasks))
    learn_kwargs = dict(penalty=penalty, validation=validation, equivalent_sample_size=equivalent_sample_size,
                        n_restarts=n_restarts, n_jobs=n_jobs)
    train, valid = dict(full), {}
    if n_clusters == "auto":
        for name, d in full.items():
            tr, va = holdout_splits(d.n_samples, selection_validation,
                                    np.random.default_rng([seed, zlib.crc32(name.encode("utf-8")), 4]), name,
                                    "selection_validation")[0]
            train[name], valid[name] = d.take(tr), d.take(va)
    say(f"direct relatedness of {k} tasks")
    rel = direct_relatedness(list(train.values()), penalty=relatedness_penalty,
                             equivalent_sample_size=equivalent_sample_size, n_restarts=n_restarts, random_state=seed,
                             noise_floor=noise_floor, n_jobs=n_jobs)
    within = rel.within_noise()
    curve = []
    if n_clusters == "auto":
        top = k if max_clusters is None else max(1, min(int(max_clusters), k))
        candidates, rows = [], []
        for c in range(1, top + 1):
            labels, Z = average_link_clusters(rel.distance.values, c)
            if candidates and len(set(labels)) == len(set(candidates[-1][0])):
                continue  # the cut gives the same partition as before
            if within is not None and np.any(within.values & (labels[:, None] != labels[None, :])):
                break  # it separates tasks within noise, and every finer cut (they are nested) does too
            say(f"learning within {len(set(labels))} cluster(s)")
            graphs = _learn_clusters(train, labels, names, learn_kwargs, seed, equivalent_sample_size)
            per_task = []
            for name in names:
                net = fit_parameters(graphs[name], train[name],
                                     equivalent_sample_size=equivalent_sample_size)
                per_task.append(log_likelihood(net, valid[name], per_row=True))
            rows.append(per_task)
            candidates.append((labels, graphs))
        # Candidates from the most clusters (least transfer) to the fewest, for the one-SE rule.
        scores = ValidationScores(rows[::-1])
        best = scores.best()
        ses = [scores.difference(c, best)[1] for c in range(len(rows))][::-1]
        curve = [(len(set(lab)), float(m), se) for (lab, _), m, se in zip(candidates, scores.means[::-1], ses)]
        labels, graphs = candidates[::-1][scores.choose(selection_rule)]
        _, Z = average_link_clusters(rel.distance.values, 1)
    else:
        labels, Z = average_link_clusters(rel.distance.values, int(n_clusters))
        graphs = _learn_clusters(train, labels, names, learn_kwargs, seed, equivalent_sample_size)
    networks = {
        name: fit_parameters(graphs[name], full[name],
                             equivalent_sample_size=equivalent_sample_size)
        for name in names
    }
    return ClusteringResult({n: int(l) for n, l in zip(names, labels)}, len(set(labels)), Z, curve, graphs,
                            networks, rel, rule=selection_rule)



