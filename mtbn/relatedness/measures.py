"""Task relatedness measures (paper Section 2.4): direct, indirect, and the direct measure's noise floor.

See :mod:`mtbn.relatedness` for the two measures' definitions.
"""

import zlib
from dataclasses import dataclass

import numpy as np

from mtbn._validation import check_n_jobs, check_option, check_penalty, check_random_state
from mtbn.data import DiscreteData, make_taskset
from mtbn.engine import Shared, job, parallel
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import edit_distance
from mtbn.learn import learn_structure, learn_structures
from mtbn.learn.settings import MULTITASK
from mtbn.messages import error, register
from mtbn.networks import fit_parameters, log_likelihood
from mtbn.heldout import kfold_splits

MEASURES = ("direct", "indirect")


@dataclass(frozen=True)
class RelatednessResult:
    """Task distances (smaller = more related).

    Parameters
    ----------
    measure : {"direct", "indirect"}
        The measure the distances come from.
    names : tuple of str
        The task names, in the order of the matrices' rows and columns.
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
    interval : tuple of two pandas.DataFrame, optional
        Direct only, with ``n_boot``: the 95% percentile bootstrap interval
        ``(low, high)`` of every distance (rows resampled within every task,
        all tasks relearned jointly at the same penalty).
    n_boot : int
        Bootstrap replicates behind ``interval`` (0: none).

    Examples
    --------
    Distances between given structures (no learning, so no noise floor):

    >>> from mtbn.graph import DAG
    >>> graphs = {"a": DAG.from_edges(["smoke", "lung", "bronc"], [("smoke", "lung"), ("smoke", "bronc")]),
    ...           "b": DAG.from_edges(["smoke", "lung", "bronc"], [("smoke", "lung")]),
    ...           "c": DAG.empty(["smoke", "lung", "bronc"])}
    >>> rel = RelatednessResult.from_structures(graphs)
    >>> rel.measure, rel.names
    ('direct', ('a', 'b', 'c'))
    >>> rel.distance.values.tolist()
    [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    >>> rel.from_task("c").to_dict()
    {'a': 2.0, 'b': 1.0}
    >>> rel.within_noise() is None
    True
    """

    measure: str
    names: tuple
    distance: object
    graphs: dict
    log_likelihood: object = None
    search: object = None
    floor: "float | None" = None
    null_max: object = None
    interval: object = None
    n_boot: int = 0

    def within_noise(self):
        """Square boolean DataFrame: distance <= the noise floor (None without a floor).

        Returns
        -------
        pandas.DataFrame of bool or None
            True where ``distance`` is no larger than ``floor`` (task names as index and columns); None when
            ``floor`` is None or NaN.
        """
        if self.floor is None or np.isnan(self.floor):
            return None
        return self.distance <= self.floor

    def floor_table(self):
        """``noise_floor.csv``: each permutation replicate's largest distance, and the floor (None without).

        Returns
        -------
        pandas.DataFrame or None
            Columns ``replicate`` (``"0"``, ``"1"``, ..., then ``"floor"``) and ``largest_distance`` (each value
            of ``null_max``, then ``floor``); None when ``floor`` is None.
        """
        import pandas as pd

        if self.floor is None:
            return None
        reps = [] if self.null_max is None else list(self.null_max)
        return pd.DataFrame({"replicate": [str(i) for i in range(len(reps))] + ["floor"],
                             "largest_distance": reps + [self.floor]})

    def to_dict(self):
        """JSON-ready record (``relatedness.json``): every field but ``search``, read back by
        :meth:`from_dict` with the same distances, floor and structures.

        Returns
        -------
        dict
            ``measure``, ``names``, ``distance`` and ``log_likelihood`` (lists of rows of floats, or None),
            ``structures`` (per task: ``variables`` and ``edges`` as ``[parent, child]`` lists), ``floor``,
            ``null_max``, ``interval`` (two matrices, or None) and ``n_boot``.

        Examples
        --------
        >>> import pandas as pd
        >>> from mtbn.graph import DAG
        >>> g = {"a": DAG.from_edges(["x", "y"], [("x", "y")]), "b": DAG.empty(["x", "y"])}
        >>> d = pd.DataFrame([[0.0, 1.0], [1.0, 0.0]], index=["a", "b"], columns=["a", "b"])
        >>> rel = RelatednessResult("direct", ("a", "b"), d, g, floor=0.0)
        >>> back = RelatednessResult.from_dict(rel.to_dict())
        >>> back.distance.equals(rel.distance), back.graphs == rel.graphs, back.floor
        (True, True, 0.0)
        """
        def matrix(frame):
            return None if frame is None else [[float(x) for x in row] for row in np.asarray(frame, dtype=float)]

        return {
            "measure": self.measure,
            "names": list(self.names),
            "distance": matrix(self.distance),
            "log_likelihood": matrix(self.log_likelihood),
            "structures": {name: {"variables": list(g.names), "edges": [list(e) for e in g.edges(names=True)]}
                           for name, g in self.graphs.items()},
            "floor": None if self.floor is None else float(self.floor),
            "null_max": None if self.null_max is None else [float(x) for x in self.null_max],
            "interval": None if self.interval is None else [matrix(f) for f in self.interval],
            "n_boot": int(self.n_boot),
        }

    @classmethod
    def from_dict(cls, record):
        """The result :meth:`to_dict` recorded (``search`` is not kept: None), checked field by field.

        A record edited by hand or damaged is refused with one line naming
        the field (``relatedness-record``): the measure, distinct task names,
        square matrices of finite numbers (direct distances symmetric,
        non-negative, zero on the diagonal), a finite non-negative floor (or
        NaN: not computable), acyclic structures over named variables.
        """
        import pandas as pd

        names, distance, graphs, extra = _checked_record(record)

        def frame(values):
            return None if values is None else pd.DataFrame(values, index=list(names), columns=list(names),
                                                             dtype=float)

        return cls(record["measure"], names, frame(distance), graphs, log_likelihood=frame(extra["log_likelihood"]),
                   floor=extra["floor"], null_max=extra["null_max"],
                   interval=None if extra["interval"] is None else tuple(frame(v) for v in extra["interval"]),
                   n_boot=extra["n_boot"])

    @classmethod
    def from_structures(cls, graphs, *, reversal="single"):
        """Direct distances between given structures (a dict name -> DAG), e.g. those a ``learn`` run wrote:
        the edit distance between every two, with no floor.

        Examples
        --------
        >>> from mtbn.graph import DAG
        >>> g = {"a": DAG.from_edges(["x", "y", "z"], [("x", "y"), ("y", "z")]),
        ...      "b": DAG.from_edges(["x", "y", "z"], [("y", "x")])}
        >>> float(RelatednessResult.from_structures(g).distance.loc["a", "b"])  # x-y reversed, y -> z gone
        2.0
        """
        import pandas as pd

        names = list(graphs)
        D = _distance_matrix([graphs[n].edges(names=True) for n in names], reversal)
        return cls("direct", tuple(names), pd.DataFrame(D, index=names, columns=names), dict(graphs))

    def from_task(self, name):
        """Distances from task ``name`` to every other task (a pandas Series).

        Parameters
        ----------
        name : str
            One of ``names``; another name raises ``InvalidParameterError``.

        Returns
        -------
        pandas.Series
            Row ``name`` of ``distance`` without ``name`` itself, indexed by the other tasks' names.
        """
        if name not in self.names:
            raise error("unknown-task", task=name, names=", ".join(map(repr, self.names)))
        return self.distance.loc[name].drop(name)


register("relatedness-record", InvalidParameterError, "relatedness record: {problem}.",
         cause="A relatedness.json (or its dict) was edited by hand, damaged, or written by something else.",
         fix="Use the relatedness.json an mtbn run wrote, unchanged, or compute the relatedness again.")


def _matrix(value, k, field, *, finite=True):
    """``value`` as a k x k float array, or the ``relatedness-record`` error naming ``field``."""
    try:
        m = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise error("relatedness-record", problem=f"{field} must be a {k} x {k} matrix of numbers") from None
    if m.shape != (k, k):
        raise error("relatedness-record", problem=f"{field} must be {k} x {k} (one row and column per task); "
                                                   f"got shape {m.shape}")
    if finite and not np.all(np.isfinite(m)):
        raise error("relatedness-record", problem=f"{field} holds a value that is not a finite number")
    return m


def _checked_record(record):
    """The fields of a ``relatedness.json`` record, each checked: ``(names, distance, graphs, extra)``."""
    from mtbn.exceptions import CycleError
    from mtbn.graph import DAG

    def bad(problem):
        return error("relatedness-record", problem=problem)

    if not isinstance(record, dict):
        raise bad(f"a JSON object is needed, not {type(record).__name__}")
    for key in ("measure", "names", "distance", "structures"):
        if key not in record:
            raise bad(f"no {key!r}")
    if record["measure"] not in MEASURES:
        raise bad(f"measure must be one of {', '.join(MEASURES)}; got {record['measure']!r}")
    names = record["names"]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names) \
            or len(set(names)) != len(names):
        raise bad("names must be a list of distinct task names")
    k = len(names)
    distance = _matrix(record["distance"], k, "distance")
    if record["measure"] == "direct":
        if np.any(distance < 0) or not np.array_equal(distance, distance.T) or np.any(np.diag(distance) != 0):
            raise bad("direct distances must be symmetric, non-negative and 0 from a task to itself")
    structures = record["structures"]
    if not isinstance(structures, dict) or sorted(structures) != sorted(names):
        raise bad("structures must hold one structure per task name")
    graphs = {}
    for name, s in structures.items():
        variables, edges = (s.get("variables"), s.get("edges")) if isinstance(s, dict) else (None, None)
        if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables) \
                or len(set(variables)) != len(variables):
            raise bad(f"structure of {name!r}: variables must be a list of distinct names")
        if not isinstance(edges, list) or not all(isinstance(e, list) and len(e) == 2
                                                  and all(x in variables for x in e) for e in edges):
            raise bad(f"structure of {name!r}: edges must be [parent, child] pairs of its variables")
        try:
            graphs[name] = DAG.from_edges(variables, [tuple(e) for e in edges])
        except (CycleError, InvalidParameterError) as exc:
            raise bad(f"structure of {name!r}: {exc}".rstrip(".")) from None
    floor = record.get("floor")
    if floor is not None:
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not (np.isnan(floor) or
                                                                                  0 <= floor < np.inf):
            raise bad(f"floor must be a finite number >= 0 (or NaN: not computable); got {floor!r}")
        floor = float(floor)
    null_max = record.get("null_max")
    if null_max is not None:
        if not isinstance(null_max, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                     and np.isfinite(x) for x in null_max):
            raise bad("null_max must be a list of finite numbers")
        null_max = np.asarray(null_max, dtype=float)
    log_likelihood = record.get("log_likelihood")
    if log_likelihood is not None:
        log_likelihood = _matrix(log_likelihood, k, "log_likelihood")
    interval = record.get("interval")
    if interval is not None:
        if not isinstance(interval, list) or len(interval) != 2:
            raise bad("interval must be two matrices (low, high)")
        interval = [_matrix(m, k, f"interval[{i}]") for i, m in enumerate(interval)]
    n_boot = record.get("n_boot", 0)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 0:
        raise bad(f"n_boot must be an integer >= 0; got {n_boot!r}")
    return tuple(names), distance, graphs, {"log_likelihood": log_likelihood, "floor": floor, "null_max": null_max,
                                            "interval": interval, "n_boot": n_boot}


register("relatedness-tasks", InvalidParameterError,
         "relatedness= is over the tasks {given}, not the tasks given ({names}).",
         cause="The precomputed distances belong to another set of tasks (a task added, removed or renamed).",
         fix="Compute the relatedness of these tasks, or pass the tasks it was computed on.")
register("relatedness-measure", InvalidParameterError,
         "the precomputed distances are of the {given} measure, but {where} asks for the {measure} measure.",
         cause="The precomputed distances come from another relatedness measure than the one asked for.",
         fix="Ask for the measure the distances were computed with, or compute the one you want.")


def check_relatedness(rel, names, measure, where):
    """``rel`` (a precomputed :class:`RelatednessResult`, or None) checked against the tasks and the measure."""
    if rel is None:
        return None
    if not isinstance(rel, RelatednessResult):
        raise error("relatedness-type", got=type(rel).__name__)
    if set(rel.names) != set(names) or len(rel.names) != len(names):
        raise error("relatedness-tasks", given=", ".join(map(repr, rel.names)), names=", ".join(map(repr, names)))
    if rel.measure != measure:
        raise error("relatedness-measure", given=rel.measure, where=where, measure=measure)
    return rel


register("relatedness-type", InvalidParameterError, "relatedness= must be a RelatednessResult; got {got}.",
         cause="Precomputed distances were passed in another form.",
         fix="Pass what direct_relatedness or indirect_relatedness returned (or RelatednessResult.from_dict of a "
         "relatedness.json).")


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

    Parameters
    ----------
    tasks : dict of name -> DataFrame or DiscreteData, list of them, or TaskSet
        The tasks whose rows are pooled and dealt into pseudo-tasks.
    penalty : float, default 0.9
        delta of the multitask prior the pseudo-tasks are learned with (that of :func:`direct_relatedness`).
    prior : str, default "paired"
        The multitask prior (``prior`` of :func:`mtbn.learn.learn_structures`).
    free_edges : list of (u, v), optional
        Node pairs free in the prior (penalty 0) and ignored by the distance.
    reversal : {"single", "double"}, default "single"
        How the distance counts a reversed edge.
    n_restarts : int, default 50
        Random restarts of each replicate's single-task searches (:func:`mtbn.learn.learn_structures`).
    random_state : int, Generator or None, default 0
        The seed: one base seed is drawn from it for every replicate's permutation and search.
    solver : str, default "auto"
        The joint search's best-neighbour solver (``solver`` of :func:`mtbn.learn.learn_structures`).
    n_perm : int, default 10
        Permutation replicates (at least 2), each one joint search of all pseudo-tasks.
    quantile : float, default 0.95
        The quantile of the replicates' largest distances taken as the floor.
    n_jobs : int, optional
        Replicates run in parallel (joblib's convention, -1: all cores).
    **learn_kwargs
        Further settings of :func:`mtbn.learn.learn_structures` for every replicate (``parameter_sharing`` is
        always None).

    Returns
    -------
    floor : float
        The ``quantile`` of ``null_max``; NaN with fewer than two tasks or tasks over different variables.
    null_max : ndarray
        The largest pseudo-task distance of each replicate.
    """
    import warnings

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
    kwargs = dict(learn_kwargs, parameter_sharing=None, prior=prior, penalty=penalty, edge_penalty=edge_penalty,
                  n_restarts=n_restarts,
                  random_state=seed, solver=solver)
    # Pool in task-name order, so the floor does not depend on the order the tasks were given.
    order = sorted(range(ts.n_tasks), key=lambda t: ts.names[t])
    codes = np.concatenate([ts.global_codes(t) for t in order])
    sizes = [ts.tasks[t].n_samples for t in order]
    labels = [ts.names[t] for t in order]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        null_max = parallel(n_jobs, n_perm)(
            job(_null_replicate)(codes, ts.variables, ts.states, sizes, labels, r, seed, mask, reversal, kwargs)
            for r in range(n_perm))
    null_max = np.asarray(null_max, dtype=float)
    return float(np.quantile(null_max, quantile, method="higher")), null_max


def direct_relatedness(tasks, *, penalty=0.9, prior=MULTITASK["prior"].default, free_edges=None, reversal="single",
                       n_restarts=MULTITASK["n_restarts"].default, random_state=MULTITASK["random_state"].default,
                       solver=MULTITASK["solver"].default, noise_floor=False, n_boot=0, **learn_kwargs):
    """Direct task distances: edit distances of structures learned jointly at a mild penalty.

    Parameters
    ----------
    tasks : dict of name -> DataFrame or DiscreteData, list of them, or TaskSet
        The tasks whose distances are measured.
    penalty : float, default 0.9
        delta of the multitask prior used to learn the structures.
    prior : {"paired", "edit"}, default "paired"
        The multitask prior used to learn the structures.
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
    n_boot : int, default 0
        Also bootstrap the distances: ``n_boot`` replicates resample the rows
        within every task and relearn all tasks jointly at ``penalty``
        (:func:`mtbn.bootstrap.bootstrap_structures`; each one more joint
        search), giving a 95% percentile interval of every distance in
        ``interval``. The floor says whether a distance is above chance;
        the interval how much it moves when the data are resampled. A
        replicate's structures are learned from fewer distinct rows, so they
        are noisier and the interval usually lies above the distance itself:
        read it as the spread of the measure, not as a confidence interval
        centred on the estimate.

    Returns
    -------
    RelatednessResult

    Examples
    --------
    Three samples of four ASIA variables; in task ``c`` the smoking column
    is shuffled, so smoking causes neither lung cancer nor bronchitis there:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> rel = direct_relatedness(tasks, n_restarts=0, n_joint_restarts=0, noise_floor=2, random_state=0)
    >>> rel.distance.values.tolist()
    [[0.0, 0.0, 2.0], [0.0, 0.0, 2.0], [2.0, 2.0, 0.0]]
    >>> sorted(rel.graphs["c"].edges())
    [('bronc', 'dysp'), ('lung', 'dysp')]

    Two permutation replicates (the default is 10) put the noise floor at
    one edit: ``a`` and ``b`` differ by chance only, ``c`` by more:

    >>> rel.floor, rel.within_noise().loc["a"].to_dict()
    (1.0, {'a': True, 'b': True, 'c': False})
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
    res = learn_structures(ts, **dict(learn_kwargs, parameter_sharing=None), prior=prior, penalty=penalty,
                           edge_penalty=edge_penalty, n_restarts=n_restarts, random_state=random_state, solver=solver)
    mask = _mask_pairs(free_edges)
    names = ts.names
    edges = [_masked_edges(g, mask) for g in res.graphs]
    D = _distance_matrix(edges, reversal)
    interval = None
    if n_boot:
        interval = _distance_interval(ts, n_boot, mask, reversal, prior=prior, penalty=penalty,
                                      edge_penalty=edge_penalty, n_restarts=n_restarts, random_state=random_state,
                                      solver=solver, **learn_kwargs)
    return RelatednessResult("direct", names, pd.DataFrame(D, index=list(names), columns=list(names)),
                             dict(zip(names, res.graphs)), search=res.search, floor=floor,
                             null_max=null_max, interval=interval, n_boot=int(n_boot))


def _distance_interval(ts, n_boot, mask, reversal, **learn_kwargs):
    """95% bootstrap interval of the direct distances, free edges (``mask``) ignored as in the distance."""
    from mtbn.bootstrap import bootstrap_structures

    boot = bootstrap_structures(ts, n_boot=n_boot, **learn_kwargs)  # a given penalty: every task coupled, as D
    for pair in mask:
        u, v = (boot.variables.index(x) for x in sorted(pair))
        boot.edges[:, :, u, v] = boot.edges[:, :, v, u] = False
    return boot.distance_interval(0.95, reversal)


_noise_floor = noise_floor  # direct_relatedness's argument of the same name hides the function


def _restrict(graph, names, keep):
    """Parent index tuples of ``graph`` (over ``names``) induced on the variables ``keep``."""
    pos = {n: i for i, n in enumerate(keep)}
    return [tuple(sorted(pos[names[p]] for p in graph.parents[names.index(v)] if names[p] in pos)) for v in keep]


def _cv_ll(parents, keep, data, splits, ess):
    """Mean over the folds of the held-out log-likelihood per row (parameters fitted on the training rows)."""
    vals = []
    for train, test in splits:
        net = fit_parameters(parents, data.take(train), equivalent_sample_size=ess, names=keep)
        vals.append(log_likelihood(net, data.take(test)))
    return float(np.mean(vals))


def _cv_row(graph, source, graphs, datasets, folds, ess):
    """For one structure source: (its held-out log-likelihood on each task, each task's own on the same variables)."""
    lls, own = [], []
    for g_e, d, splits in zip(graphs, datasets, folds):
        keep = [n for n in d.names if n in set(source.names)]
        if not keep:
            lls.append(np.nan)
            own.append(np.nan)
            continue
        lls.append(_cv_ll(_restrict(graph, list(source.names), keep), keep, d, splits, ess))
        if len(keep) == d.n_vars:
            own.append(np.nan)  # filled from the diagonal
        else:
            own.append(_cv_ll(_restrict(g_e, list(d.names), keep), keep, d, splits, ess))
    return lls, own


def indirect_relatedness(tasks, *, n_folds=10, equivalent_sample_size=MULTITASK["equivalent_sample_size"].default,
                         n_restarts=MULTITASK["n_restarts"].default, random_state=MULTITASK["random_state"].default,
                         n_jobs=MULTITASK["n_jobs"].default):
    """Indirect task distances by cross-fitting structures (Section 2.4.2).

    Parameters
    ----------
    tasks : dict of name -> DataFrame or DiscreteData, list of them, or TaskSet
        The tasks whose distances are measured; each needs at least ``n_folds`` rows.
    n_folds : int, default 10
        Folds of each task's rows (at least 2): every structure's CPTs are fitted on a task's training folds and
        scored on its held-out fold.
    equivalent_sample_size : float, default 1.0
        BDeu's equivalent sample size, of the single-task searches and of the fitted CPTs.
    n_restarts : int, default 50
        Random restarts of each task's single-task search (:func:`mtbn.learn.learn_structure`).
    random_state : int, Generator or None, default 0
        The seed of the searches and the folds: the same seed gives the same distances.
    n_jobs : int, optional
        Parallel jobs over the structure sources (joblib's convention, -1: all cores; results do not depend on
        it).

    Returns
    -------
    RelatednessResult
        ``log_likelihood`` (row: structure source ``s``, column: evaluated
        task ``e``) and ``distance[e, s] = log_likelihood[e, e] - log_likelihood[s, e]``.

    Examples
    --------
    The tasks of the :func:`direct_relatedness` example (in ``c`` smoking
    is shuffled), with 2 folds instead of 10:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> rel = indirect_relatedness(tasks, n_folds=2, n_restarts=0, random_state=0)
    >>> rel.measure, rel.distance.loc["a"].round(3).to_dict()
    ('indirect', {'a': 0.0, 'b': 0.012, 'c': 0.055})

    ``c``'s structure explains ``a``'s rows worse than ``b``'s does. The
    measure is not symmetric: ``c``'s own rows, which have no smoking
    dependences to miss, are explained almost as well by the others'
    structures:

    >>> rel.distance.loc["c"].round(3).to_dict()
    {'a': 0.004, 'b': 0.017, 'c': 0.0}
    """
    import pandas as pd

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
    folds = [kfold_splits(d.n_samples, n_folds, np.random.default_rng([base, key, 2]))
             for d, key in zip(ts.tasks, keys)]
    shared = Shared(ts.tasks)  # shipped once to a Dask cluster, not once per job
    rows = parallel(n_jobs, ts.n_tasks)(
        job(_cv_row)(g, d, graphs, shared, folds, equivalent_sample_size) for g, d in zip(graphs, ts.tasks)
    )
    ll = np.array([r[0] for r in rows])  # ll[s, e]
    own = np.array([r[1] for r in rows])  # own[s, e]: e's own structure on the variables e shares with s
    own = np.where(np.isnan(own), np.diag(ll)[None, :], own)
    D = own.T - ll.T  # D[e, s] = own[s, e] - ll[s, e]
    names = list(ts.names)
    return RelatednessResult("indirect", ts.names, pd.DataFrame(D, index=names, columns=names),
                             dict(zip(ts.names, graphs)), pd.DataFrame(ll, index=names, columns=names))


def relatedness(tasks, measure="direct", **kwargs):
    """Dispatch to :func:`direct_relatedness` or :func:`indirect_relatedness`.

    Parameters
    ----------
    tasks : dict of name -> DataFrame or DiscreteData, list of them, or TaskSet
        The tasks whose distances are measured.
    measure : {"direct", "indirect"}, default "direct"
        The measure; another name raises ``InvalidParameterError``.
    **kwargs
        Keyword arguments of the measure's function.

    Returns
    -------
    RelatednessResult
        What the measure's function returned.

    Examples
    --------
    The keyword arguments go to the measure's function:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> rel = relatedness(tasks, "indirect", n_folds=2, n_restarts=0, random_state=0)
    >>> rel.measure, rel.distance.equals(indirect_relatedness(tasks, n_folds=2, n_restarts=0, random_state=0).distance)
    ('indirect', True)
    >>> relatedness(tasks, "cosine")
    Traceback (most recent call last):
        ...
    mtbn.exceptions.InvalidParameterError: measure must be one of 'direct', 'indirect'; got 'cosine'.
    """
    check_option("measure", measure, MEASURES)
    return (direct_relatedness if measure == "direct" else indirect_relatedness)(tasks, **kwargs)


def gap_size(sorted_distances):
    """Number of tasks before the largest gap in increasing distances ("gap hunting").

    Parameters
    ----------
    sorted_distances : sequence of float
        The distances from the principal task, in increasing order; NaN values are dropped.

    Returns
    -------
    int
        The number of distances before the largest increase between two consecutive ones; all of them when no
        distance is larger than the one before (or there is at most one).

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
