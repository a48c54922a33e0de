"""Task clustering (paper Section 2.4.3): average link on the direct distance, then learning within each cluster.

The number of clusters is chosen on held-out rows of every task by the
shared protocol of :mod:`mtbn.heldout` (or given); a cut that separates two
tasks within the noise floor is never tried.
"""

import zlib
from dataclasses import dataclass

import numpy as np

from mtbn._validation import check_option, check_random_state
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.progress import reporter
from mtbn.relatedness.learning import GroupLearner, checked_tasks, curve_records, group_settings, kind_group_settings
from mtbn.relatedness.measures import direct_relatedness
from mtbn.relatedness.result import RelatednessResult, check_relatedness
from mtbn.heldout import RULES, fit_networks, heldout_scores, hold_out

register("n-clusters-value", InvalidParameterError, "n_clusters must be 'auto' or an integer in [1, {k}]; got {value!r}.",
         cause="A cluster count below 1, above the number of tasks, or not a whole number.",
         fix="Pass 'auto' (chosen on validation rows) or a count from 1 to the number of tasks.")


@dataclass(frozen=True)
class ClusteringResult:
    """What :func:`cluster_tasks` returns.

    Parameters
    ----------
    labels : dict of name -> int
        Cluster of each task (1-based).
    n_clusters : int
        Number of clusters, given or chosen.
    linkage : ndarray
        scipy average-link linkage matrix on the direct distance.
    validation_curve : list of (int, float, float)
        ``(number of clusters, mean validation log-likelihood per row over
        tasks, paired standard error of its difference from the best)``.
        Empty when the number of clusters was given.
    graphs : dict of name -> DAG
        Each task's structure, learned within its cluster (with ``n_clusters="auto"``, on the rows not held
        out).
    networks : dict of name -> BayesianNetwork
        Each task's structure with CPTs fitted on all of its rows.
    relatedness : RelatednessResult
        The direct distances the tasks were clustered on.
    rule : {"one-se", "max"}, default "one-se"
        The rule that chose the number of clusters.

    Examples
    --------
    Three tasks over four ASIA variables, cut into two clusters; in ``c``
    the smoking column is shuffled:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> rel = direct_relatedness(tasks, n_restarts=0, n_joint_restarts=0, noise_floor=2, random_state=0)
    >>> res = cluster_tasks(tasks, n_clusters=2, penalty=0.9, n_restarts=0, relatedness=rel, random_state=0)
    >>> res.labels, res.n_clusters, res.linkage.shape
    ({'a': 1, 'b': 1, 'c': 2}, 2, (2, 4))
    >>> {name: g.n_edges for name, g in res.graphs.items()}
    {'a': 4, 'b': 4, 'c': 2}
    >>> type(res.networks["c"]).__name__
    'BayesianNetwork'

    ``to_dict`` gives the JSON summary that ``mtbn cluster`` writes (no
    validation curve: the number of clusters was given):

    >>> res.to_dict()
    {'labels': {'a': 1, 'b': 1, 'c': 2}, 'n_clusters': 2, 'validation_curve': [], 'noise_floor': 1.0}
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
            "validation_curve": curve_records(self.validation_curve, "n_clusters"),
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


def cluster_tasks(tasks, *, n_clusters="auto", selection_validation=0.05, relatedness_penalty=0.9, max_clusters=None,
                  noise_floor=True, selection_rule="one-se", relatedness=None, **settings):
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
    the best. ``relatedness``: direct distances computed before on these
    tasks (what :func:`direct_relatedness` returned, or
    :meth:`RelatednessResult.from_dict` of a ``relatedness.json``), used as
    they are, floor included, instead of learning the relatedness structures
    again (``relatedness_penalty`` and ``noise_floor`` then do not apply).
    Either way the distances come from every row, the held-out ones
    included, so that they equal those of :func:`direct_relatedness` with
    the same arguments. ``settings``: those of
    :func:`mtbn.learn.learn_structures` (:data:`mtbn.learn.settings.MULTITASK`)
    for every cluster learned (a cluster of one task with the settings the
    single-task learner shares), checked before any work, with the same
    defaults except ``validation=0.05`` (each cluster's penalty chosen on
    one validation split of each task); ``random_state``,
    ``equivalent_sample_size``, ``n_restarts`` and ``n_jobs`` also serve
    the relatedness and the choice of the number of clusters.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, DiscreteData or ContinuousData, list of them, or TaskSet
        The tasks to cluster (continuous tasks: linear Gaussian networks).
    n_clusters : "auto" or int, default "auto"
        The number of clusters, from 1 to the number of tasks, or "auto": chosen on held-out rows.
    selection_validation : float or int, default 0.05
        With ``n_clusters="auto"``: the rows of each task held out to choose the number of clusters (a fraction
        of its rows or a row count).
    relatedness_penalty : float, default 0.9
        delta of the joint learning behind the direct distances (:func:`direct_relatedness`'s ``penalty``).
    max_clusters : int, optional
        With ``n_clusters="auto"``: the largest number of clusters tried (None: the number of tasks).
    noise_floor : bool or int, default True
        Compute the direct distances' noise floor: True (10 permutation replicates), a number of replicates, or
        False (no floor: any cut may be tried).
    selection_rule : {"one-se", "max"}, default "one-se"
        How the number of clusters is chosen from the validation curve (see above).
    relatedness : RelatednessResult, optional
        Direct distances computed before on these tasks (see above); None: computed here.
    **settings
        Settings of :func:`mtbn.learn.learn_structures` for learning within every cluster (see above).

    Returns
    -------
    ClusteringResult
        The labels, the linkage, the validation curve, each task's structure and network, and the distances.

    Examples
    --------
    Three tasks over four ASIA variables; in ``c`` the smoking column is
    shuffled. The direct distances are computed once (two permutation
    replicates for the noise floor) and passed in:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> rel = direct_relatedness(tasks, n_restarts=0, n_joint_restarts=0, noise_floor=2, random_state=0)
    >>> rel.distance.values.tolist()
    [[0.0, 0.0, 2.0], [0.0, 0.0, 2.0], [2.0, 2.0, 0.0]]

    Cut into two clusters, ``a`` and ``b`` are learned together and ``c``
    on its own, so ``c`` keeps its structure without the smoking edges:

    >>> res = cluster_tasks(tasks, n_clusters=2, penalty=0.9, n_restarts=0, relatedness=rel, random_state=0)
    >>> res.labels
    {'a': 1, 'b': 1, 'c': 2}
    >>> sorted(res.graphs["c"].edges())
    [('bronc', 'dysp'), ('lung', 'dysp')]
    """
    settings = group_settings("cluster_tasks", settings)
    equivalent_sample_size, n_restarts, random_state, n_jobs = (
        settings[k] for k in ("equivalent_sample_size", "n_restarts", "random_state", "n_jobs"))
    names, tasks_data, kind = checked_tasks(tasks)
    k = len(names)
    learned_with = settings if kind is None else kind_group_settings(kind, settings)
    if n_clusters != "auto" and not (isinstance(n_clusters, (int, np.integer)) and 1 <= n_clusters <= k):
        raise error("n-clusters-value", k=k, value=n_clusters)
    check_option("selection_rule", selection_rule, RULES)
    check_relatedness(relatedness, names, "direct", "cluster_tasks")
    say = reporter(settings["progress"])
    rel = relatedness
    if rel is None:  # on every row with random_state as given: the distances of direct_relatedness() itself
        say(f"direct relatedness of {k} tasks")
        rel = direct_relatedness(list(tasks_data) if kind is None else dict(zip(names, tasks_data)),
                                 penalty=relatedness_penalty,
                                 equivalent_sample_size=equivalent_sample_size, n_restarts=n_restarts,
                                 random_state=random_state, noise_floor=noise_floor, n_jobs=n_jobs)
    seed = int(check_random_state(random_state).integers(0, 2**31 - 1))
    full = dict(zip(names, tasks_data))
    train, held_out = dict(full), {}
    if n_clusters == "auto":  # every task's rows that choose the number of clusters
        for name, d in full.items():
            rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8")), 4])
            train[name], held_out[name] = hold_out(d, selection_validation, rng, name, "selection_validation")
    learn = _ClusterLearner(GroupLearner(learned_with, seed, kind), train, names)
    curve = []
    if n_clusters == "auto":
        top = k if max_clusters is None else max(1, min(int(max_clusters), k))
        labels, graphs, curve = _choose_clusters(learn, rel, top, held_out, selection_rule, equivalent_sample_size,
                                                 say)
        _, Z = average_link_clusters(rel.distance.values, 1)
    else:
        labels, Z = average_link_clusters(rel.distance.values, int(n_clusters))
        graphs = learn(labels)
    networks = dict(zip(names, fit_networks([graphs[x] for x in names], [full[x] for x in names],
                                            equivalent_sample_size)))
    return ClusteringResult({n: int(l) for n, l in zip(names, labels)}, len(set(labels)), Z, curve, graphs,
                            networks, rel, rule=selection_rule)


@dataclass(frozen=True)
class _ClusterLearner:
    """Every cluster of a labelling learned on its own: dict name -> DAG."""

    learn: GroupLearner
    datasets: dict
    names: list

    def __call__(self, labels):
        graphs = {}
        for c in sorted(set(labels)):
            members = [self.names[i] for i in range(len(self.names)) if labels[i] == c]
            graphs.update(self.learn({m: self.datasets[m] for m in members})[0])
        return graphs


def _choose_clusters(learn, rel, top, held_out, rule, ess, say):
    """The number of clusters chosen on every task's held-out rows: ``(labels, graphs, validation curve)``.

    Cuts into 1 to ``top`` clusters, each partition once; the finer cuts
    stop at the first that separates two tasks within noise.
    """
    within = rel.within_noise()
    candidates = []
    for c in range(1, top + 1):
        labels, _ = average_link_clusters(rel.distance.values, c)
        if candidates and len(set(labels)) == len(set(candidates[-1][0])):
            continue  # the cut gives the same partition as before
        if within is not None and np.any(within.values & (labels[:, None] != labels[None, :])):
            break  # it separates tasks within noise, and every finer cut (they are nested) does too
        say(f"learning within {len(set(labels))} cluster(s)")
        candidates.append((labels, learn(labels)))
    # From the most clusters (least transfer) to the fewest: the protocol's simplest first.
    simplest_first = candidates[::-1]
    names = learn.names
    scores = heldout_scores([[[graphs[x] for x in names] for _, graphs in simplest_first]],
                            [[learn.datasets[x] for x in names]], [[held_out[x] for x in names]], ess)
    curve = scores.curve([len(set(labels)) for labels, _ in simplest_first])[::-1]
    return (*simplest_first[scores.choose(rule)], curve)
