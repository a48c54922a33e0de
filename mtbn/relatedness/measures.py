"""Task relatedness measures (paper Section 2.4): direct, indirect, and the direct measure's noise floor.

See :mod:`mtbn.relatedness` for the two measures' definitions.
"""

import zlib

import numpy as np

from mtbn._validation import check_n_jobs, check_option, check_penalty, check_random_state
from mtbn.data import DiscreteData, make_taskset
from mtbn.data.continuous import ContinuousData
from mtbn.engine import Shared, job, parallel
from mtbn.exceptions import InvalidParameterError
from mtbn.heldout import kfold_splits
from mtbn.learn import learn_structure, learn_structures
from mtbn.learn.checks import parts_of_checked_data
from mtbn.learn.kinds import kind_of, kind_settings
from mtbn.learn.settings import MULTITASK
from mtbn.messages import error, register
from mtbn.networks import fit_parameters, log_likelihood
from mtbn.networks.gaussian import fit_linear_gaussian
from mtbn.relatedness.result import MEASURES, RelatednessResult, _distance_matrix


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


register("relatedness-kind", InvalidParameterError,
         "the relatedness measures are not available for {kind} tasks (learned as {learned_as}).",
         cause="A registered kind of data other than continuous tasks, whose rows the measures cannot resample or "
               "fit.",
         fix="Convert the tasks to discrete states first.")


def continuous_tasks(tasks):
    """``(kind, {name: ContinuousData})`` of continuous tasks (the Gaussian kind claims them), None for discrete
    ones; another registered kind of data is refused.

    Parameters
    ----------
    tasks : object
        The tasks as the user gave them.

    Returns
    -------
    tuple of (DataKind, dict of str -> ContinuousData) or None
    """
    kind = kind_of(tasks)
    if kind is None:
        return None
    data = kind.task_data(tasks)
    if data is None or not all(isinstance(d, ContinuousData) for d in data.values()):
        raise error("relatedness-kind", kind=kind.description or kind.name, learned_as=kind.learned_as)
    return kind, data


def _continuous(tasks):
    """The ``{name: ContinuousData}`` of :func:`continuous_tasks`, or None."""
    found = continuous_tasks(tasks)
    return None if found is None else found[1]


def _null_replicate(codes, variables, states, sizes, labels, r, seed, mask, reversal, kwargs):
    perm = np.random.default_rng([seed, r, 6]).permutation(len(codes))
    parts = np.split(perm, np.cumsum(sizes)[:-1])
    if states is None:  # continuous rows: pseudo-tasks of real values
        data = {f"pseudo:{lab}": ContinuousData(codes[np.sort(p)], variables, f"pseudo:{lab}", checked=False)
                for lab, p in zip(labels, parts)}
    else:
        data = {f"pseudo:{lab}": DiscreteData(codes[np.sort(p)], variables, states, f"pseudo:{lab}")
                for lab, p in zip(labels, parts)}
    with parts_of_checked_data():  # pseudo-tasks of the pooled rows
        res = learn_structures(data, **kwargs)
    return float(_distance_matrix([_masked_edges(g, mask) for g in res.graphs], reversal).max())


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
    tasks : dict of name -> DataFrame, DiscreteData or ContinuousData, list of them, or TaskSet
        The tasks whose rows are pooled and dealt into pseudo-tasks (continuous tasks: linear Gaussian
        networks).
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
    continuous = _continuous(tasks)
    ts = make_taskset(tasks) if continuous is None else None
    if (len(continuous) if ts is None else ts.n_tasks) < 2 or (ts is not None and np.any(ts.local_index < 0)):
        return float("nan"), np.zeros(0)
    rng = check_random_state(random_state)
    seed = int(rng.integers(0, 2**31 - 1))
    mask = _mask_pairs(free_edges)
    edge_penalty = {tuple(e): 0.0 for e in free_edges} if free_edges else None
    kwargs = dict(learn_kwargs, parameter_sharing=None, prior=prior, penalty=penalty, edge_penalty=edge_penalty,
                  n_restarts=n_restarts,
                  random_state=seed, solver=solver)
    # Pool in task-name order, so the floor does not depend on the order the tasks were given.
    if ts is None:  # continuous tasks (the same columns, in one order): their values pooled
        labels = sorted(continuous)
        codes = np.concatenate([continuous[n].values for n in labels])
        sizes = [continuous[n].n_samples for n in labels]
        variables, states = continuous[labels[0]].names, None
    else:
        order = sorted(range(ts.n_tasks), key=lambda t: ts.names[t])
        codes = np.concatenate([ts.global_codes(t) for t in order])
        sizes = [ts.tasks[t].n_samples for t in order]
        labels = [ts.names[t] for t in order]
        variables, states = ts.variables, ts.states
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        null_max = parallel(n_jobs, n_perm)(
            job(_null_replicate)(codes, variables, states, sizes, labels, r, seed, mask, reversal, kwargs)
            for r in range(n_perm))
    null_max = np.asarray(null_max, dtype=float)
    return float(np.quantile(null_max, quantile, method="higher")), null_max


def direct_relatedness(tasks, *, penalty=0.9, prior=MULTITASK["prior"].default, free_edges=None, reversal="single",
                       n_restarts=MULTITASK["n_restarts"].default, random_state=MULTITASK["random_state"].default,
                       solver=MULTITASK["solver"].default, noise_floor=False, n_boot=0, **learn_kwargs):
    """Direct task distances: edit distances of structures learned jointly at a mild penalty.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, DiscreteData or ContinuousData, list of them, or TaskSet
        The tasks whose distances are measured (continuous tasks: linear Gaussian networks).
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

    continuous = _continuous(tasks)  # continuous tasks: learned as linear Gaussian networks
    ts = make_taskset(tasks) if continuous is None else continuous
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
    names = tuple(res.task_names)
    edges = [_masked_edges(g, mask) for g in res.graphs]
    D = _distance_matrix(edges, reversal)
    interval = None
    if n_boot:
        interval = _distance_interval(ts, n_boot, mask, reversal, prior=prior, penalty=penalty,
                                      edge_penalty=edge_penalty, n_restarts=n_restarts, random_state=random_state,
                                      solver=solver, **learn_kwargs)
    return RelatednessResult("direct", names, pd.DataFrame(D, index=list(names), columns=list(names)),
                             dict(zip(names, res.graphs)), search=getattr(res, "search", None), floor=floor,
                             null_max=null_max, interval=interval, n_boot=int(n_boot))


def _distance_interval(ts, n_boot, mask, reversal, **learn_kwargs):
    """95% bootstrap interval of the direct distances, free edges (``mask``) ignored as in the distance."""
    from mtbn.bootstrap import bootstrap_structures
    from mtbn.learn.checks import parts_of_checked_data

    with parts_of_checked_data():  # the tasks' one-value columns were reported when D was learned
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
        if isinstance(data, ContinuousData):  # a linear Gaussian network; continuous tasks share every column
            held = data.take(test)
            net = fit_linear_gaussian([list(p) for p in parents], data.take(train))
            vals.append(net.log_likelihood(held) / held.n_samples)
            continue
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
    tasks : dict of name -> DataFrame, DiscreteData or ContinuousData, list of them, or TaskSet
        The tasks whose distances are measured; each needs at least ``n_folds`` rows (continuous tasks: linear
        Gaussian networks, fitted by least squares).
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
    continuous = continuous_tasks(tasks)  # continuous tasks: linear Gaussian networks, fitted by least squares
    if continuous is None:
        ts = make_taskset(tasks)
        names, datasets = tuple(ts.names), list(ts.tasks)
    else:
        kind, data = continuous
        kind_settings(kind, {"equivalent_sample_size": equivalent_sample_size}, MULTITASK.defaults())  # refused if set
        names, datasets = tuple(data), list(data.values())
    if not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise error("n-folds-value", value=n_folds)
    for name, d in zip(names, datasets):
        if d.n_samples < n_folds:
            raise error("too-few-rows-for-folds", task=name, n_rows=d.n_samples, n_folds=n_folds)
    rng = check_random_state(random_state)
    base = int(rng.integers(0, 2**31 - 1))
    keys = [zlib.crc32(str(n).encode("utf-8")) for n in names]
    if continuous is None:
        graphs = [learn_structure(d, equivalent_sample_size=equivalent_sample_size, n_restarts=n_restarts,
                                  random_state=np.random.default_rng([base, key])).graph
                  for d, key in zip(datasets, keys)]
    else:  # each task's single-task structure, as the Gaussian learner finds it
        graphs = [learn_structures({n: d}, n_restarts=n_restarts, random_state=int(
            np.random.default_rng([base, key]).integers(0, 2**31 - 1))).graphs[0]
                  for n, d, key in zip(names, datasets, keys)]
    folds = [kfold_splits(d.n_samples, n_folds, np.random.default_rng([base, key, 2]))
             for d, key in zip(datasets, keys)]
    shared = Shared(datasets)  # shipped once to a Dask cluster, not once per job
    rows = parallel(n_jobs, len(names))(
        job(_cv_row)(g, d, graphs, shared, folds, equivalent_sample_size) for g, d in zip(graphs, datasets)
    )
    ll = np.array([r[0] for r in rows])  # ll[s, e]
    own = np.array([r[1] for r in rows])  # own[s, e]: e's own structure on the variables e shares with s
    own = np.where(np.isnan(own), np.diag(ll)[None, :], own)
    D = own.T - ll.T  # D[e, s] = own[s, e] - ll[s, e]
    labels = list(names)
    return RelatednessResult("indirect", names, pd.DataFrame(D, index=labels, columns=labels),
                             dict(zip(names, graphs)), pd.DataFrame(ll, index=labels, columns=labels))


def relatedness(tasks, measure="direct", **kwargs):
    """Dispatch to :func:`direct_relatedness` or :func:`indirect_relatedness`.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, DiscreteData or ContinuousData, list of them, or TaskSet
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
