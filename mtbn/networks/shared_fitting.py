"""Partially pooled parameters: each task's CPTs shrunk toward the tasks' pooled CPT (issue 32, first step).

:func:`fit_shared_parameters` fits one network per task on given structures.
A *family* is a child with a set of parents (matched by name). For a family
that several tasks share, the pooled estimate is the BDeu posterior mean on
the counts of all those tasks together,
``pool_jk = (M_jk + ess / (q r)) / (M_j + ess / q)``, and each task's CPT
is the posterior mean under a Dirichlet prior that adds ``strength``
pseudo-counts spread as the pooled estimate to the task's BDeu prior:

``theta_jk = (N_jk + ess / (q r) + strength * pool_jk) / (N_j + ess / q + strength)``

(``N``: the task's counts, ``M``: the sum over the tasks sharing the
family, ``j`` the parent configuration, ``k`` the child state, ``q`` the
number of parent configurations, ``r`` the child's arity). ``strength = 0``
is each task fitted alone (:func:`mtbn.networks.fit_parameters`);
``strength = inf`` is the pooled estimate for every task. This is the
empirical-Bayes shortcut of a hierarchical Dirichlet model (the centre is
estimated, then plugged in) rather than a full posterior over the centre;
choosing ``strength`` on held-out rows, and a default, are the rest of
issue 32.
"""

from __future__ import annotations

import math

import numpy as np

from mtbn._validation import check_positive
from mtbn.data import make_taskset
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG
from mtbn.messages import error, register
from mtbn.networks.fitting import _config_codes, _cpt_size, _data_column
from mtbn.networks.model import MAX_CPT_SIZE, BayesianNetwork

__all__ = ["fit_shared_parameters", "choose_sharing_strength", "evidence_by_strength", "family_distances",
           "heldout_rows_by_strength", "STRENGTH_GRID"]

#: Strengths tried by :func:`choose_sharing_strength`: from independent estimation to pooling.
STRENGTH_GRID = (0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, float("inf"))

register("sharing-strength", InvalidParameterError, "strength must be a number >= 0 (or inf); got {value!r}.",
         cause="The parameter-sharing strength is a count of pseudo-observations, so it cannot be negative.",
         fix="Pass 0 (each task alone), a positive number, or float('inf') (the pooled estimate).")
register("sharing-graphs", InvalidParameterError, "graphs has {n_graphs} structure(s) for {n_tasks} task(s).",
         cause="fit_shared_parameters needs one structure per task, in the tasks' order.",
         fix="Pass one DAG per task (e.g. the graphs of learn_structures' result).")


def _family_counts(graph, data, v, parent_names):
    """Counts of child ``v`` of ``graph`` in ``data``, parents in the order ``parent_names``: shape (q, r)."""
    columns = [_data_column(data, p) for p in parent_names]
    arities = [len(data.states[c]) for c in columns]
    child = _data_column(data, graph.names[v])
    r = len(data.states[child])
    q = math.prod(arities)
    config = _config_codes(data.codes, columns, arities)
    counts = np.bincount(config * r + data.codes[:, child].astype(np.int64), minlength=q * r)
    return counts.reshape(q, r).astype(np.float64), arities, r


def fit_shared_parameters(graphs, tasks, *, strength, equivalent_sample_size=1.0, with_distances=False):
    """One network per task, its CPTs shrunk toward the pooled CPT of the tasks that share each family.

    Parameters
    ----------
    graphs : sequence of DAG
        One structure per task (node names = the task's variables).
    tasks : dict, list or TaskSet
        The tasks (one state list per variable across tasks, as
        :func:`mtbn.data.make_taskset` gives).
    strength : float
        Pseudo-counts of the pooled estimate added to each parent
        configuration of each task (0: independent; ``inf``: pooled).
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (> 0) of each task's own prior and of the pooled estimate.
    with_distances : bool, default False
        Also return :func:`family_distances`' records (from the same counts).

    Returns
    -------
    list of BayesianNetwork, or (list of BayesianNetwork, list of dict)

    Examples
    --------
    One binary variable in two tasks (counts 3:1 and 0:4); at strength 0 each
    task alone, at strength inf both get the pooled (3 + 0.5) / (8 + 1):

    >>> import pandas as pd
    >>> from mtbn.graph import DAG
    >>> tasks = {"a": pd.DataFrame({"x": ["u", "u", "u", "v"]}), "b": pd.DataFrame({"x": ["v"] * 4})}
    >>> g = [DAG.empty(["x"]), DAG.empty(["x"])]
    >>> [round(float(n.cpts[0][0]), 4) for n in fit_shared_parameters(g, tasks, strength=0)]
    [0.7, 0.1]
    >>> [round(float(n.cpts[0][0]), 4) for n in fit_shared_parameters(g, tasks, strength=float("inf"))]
    [0.3889, 0.3889]
    """
    ts = make_taskset(tasks)
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    if not is_strength(strength):
        raise error("sharing-strength", value=strength)
    counted = _counted(graphs, ts)
    networks = _shrunk(counted, strength, ess)
    return (networks, _distances(counted, ts.names, ess)) if with_distances else networks


def family_distances(graphs, tasks, *, equivalent_sample_size=1.0):
    """How far each task's own CPT of each shared family sits from the pooled CPT (the centre of the shrinkage).

    For every family (child and parent names) that two or more tasks have:
    the KL divergence, in nats, of the pooled estimate from the task's own
    (BDeu posterior mean, strength 0), averaged over the parent
    configurations with the task's frequencies of them:
    ``sum_j (N_j / N) sum_k theta_jk log(theta_jk / pool_jk)``. 0 when the
    task's table equals the pooled one; large where pooling that family
    would cost the task most.

    Parameters
    ----------
    graphs : sequence of DAG
        One structure per task, in the tasks' order (node names = the task's variables; a networkx DiGraph is
        read with :meth:`mtbn.graph.DAG.from_networkx`).
    tasks : dict, list or TaskSet
        The tasks (one state list per variable across tasks, as :func:`mtbn.data.make_taskset` gives).
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (> 0) of the task's own estimate and of the pooled one.

    Returns
    -------
    list of dict
        One record per (family, task), families in the order the tasks
        list them: ``child``, ``parents`` (names, sorted), ``task``,
        ``tasks_sharing`` (how many tasks have the family) and ``kl``.

    Examples
    --------
    One binary variable in two tasks (counts 3:1 and 1:3): alone 0.7 and
    0.3, pooled 0.5, so ``KL = 0.7 log 1.4 + 0.3 log 0.6`` for both:

    >>> import pandas as pd
    >>> from mtbn.graph import DAG
    >>> tasks = {"a": pd.DataFrame({"x": list("uuuv")}), "b": pd.DataFrame({"x": list("uvvv")})}
    >>> [round(r["kl"], 5) for r in family_distances([DAG.empty(["x"])] * 2, tasks)]
    [0.08228, 0.08228]
    """
    ts = make_taskset(tasks)
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    return _distances(_counted(graphs, ts), ts.names, ess)


def _distances(counted, names, ess):
    """:func:`family_distances` from :func:`_counted`'s counts."""
    families, pooled = counted
    sharing: dict = {}
    for _, _, mine in families:
        for key, *_ in mine:
            sharing[key] = sharing.get(key, 0) + 1
    out = []
    for name, (_, _, mine) in zip(names, families):
        for key, counts, _, r in mine:
            if sharing[key] < 2:
                continue
            q = counts.shape[0]
            own = _theta(counts, counts, math.inf, ess)  # the task's own BDeu posterior mean
            centre = _theta(counts, pooled[key], math.inf, ess)
            n_j = counts.sum(axis=1)
            weights = n_j / n_j.sum() if n_j.sum() > 0 else np.full(q, 1.0 / q)
            kl = float(weights @ (own * np.log(own / centre)).sum(axis=1))
            out.append({"child": key[0], "parents": list(key[1]), "task": name, "tasks_sharing": sharing[key],
                        "kl": kl})
    return out


def is_strength(value):
    """Whether ``value`` is a sharing strength: a real number >= 0, infinity included."""
    return not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating)) \
        and not math.isnan(value) and value >= 0


def _counted(graphs, ts):
    """Every task's family counts (parents in name order, so that tasks sharing a family count alike) and the
    pooled counts of each family: ``(per task: (graph, data, [(key, counts, arities, r)]), pooled)``."""
    graphs = list(graphs)
    if len(graphs) != ts.n_tasks:
        raise error("sharing-graphs", n_graphs=len(graphs), n_tasks=ts.n_tasks)
    families = []
    pooled: dict = {}
    for graph, data in zip(graphs, ts.tasks):
        if not isinstance(graph, DAG):
            graph = DAG.from_networkx(graph, names=data.names)
        mine = []
        arity = [len(data.states[_data_column(data, n)]) for n in graph.names]
        for v in range(graph.n_nodes):  # every table's size checked before any is allocated
            size = _cpt_size(arity, v, graph.parents[v])
            if size > MAX_CPT_SIZE:
                raise error("network-cpt-size", name=graph.names[v], size=size)
        for v in range(graph.n_nodes):
            parent_names = sorted(graph.names[p] for p in graph.parents[v])
            counts, arities, r = _family_counts(graph, data, v, parent_names)
            key = (graph.names[v], tuple(parent_names))
            pooled[key] = pooled.get(key, 0.0) + counts
            mine.append((key, counts, arities, r))
        families.append((graph, data, mine))
    return families, pooled


def _shrunk(counted, strength, ess):
    """The networks of :func:`fit_shared_parameters` from :func:`_counted`'s counts."""
    families, pooled = counted
    networks = []
    for graph, data, mine in families:
        parents, cpts = [], []
        index = {n: i for i, n in enumerate(graph.names)}
        for (child, parent_names), counts, arities, r in mine:
            theta = _theta(counts, pooled[(child, parent_names)], strength, ess)
            parents.append(tuple(index[p] for p in parent_names))
            cpts.append(theta.reshape(tuple(arities) + (r,)))
        columns = [_data_column(data, n) for n in graph.names]
        kinds = None if data.kinds is None else tuple(data.kinds[c] for c in columns)
        networks.append(BayesianNetwork(graph.names, [data.states[c] for c in columns], parents, cpts, kinds))
    return networks


register("sharing-folds", InvalidParameterError, "n_folds must be an integer >= 2 and at most the rows of the smallest "
         "task ({n_rows}); got {value!r}.",
         cause="Choosing the strength holds out every fold of every task once, so each fold needs rows.",
         fix="Use fewer folds (5 is the default) or give the small task more rows.")


def choose_sharing_strength(graphs, tasks, *, grid=STRENGTH_GRID, n_folds=5, equivalent_sample_size=1.0,
                            random_state=0):
    """The strength of :func:`fit_shared_parameters` with the best held-out log-likelihood, by k-fold CV.

    Every task's rows are cut into ``n_folds`` folds (a stream per task and
    ``random_state``); for each fold and strength the structures ``graphs``
    are fitted on the other folds of all tasks and score the fold. Returns
    ``(strength, scores)``: the strength with the highest held-out
    log-likelihood (all held-out rows of all tasks, per row; ties go to the
    smaller strength, i.e. less sharing) and ``scores`` (strength -> that
    mean).

    Parameters
    ----------
    graphs : sequence of DAG
        One structure per task, in the tasks' order (node names = the task's variables; a networkx DiGraph is
        read with :meth:`mtbn.graph.DAG.from_networkx`).
    tasks : dict, list or TaskSet
        The tasks (one state list per variable across tasks, as :func:`mtbn.data.make_taskset` gives).
    grid : sequence of float, default STRENGTH_GRID
        The strengths tried, each a number >= 0 or ``inf``; they are tried in increasing order.
    n_folds : int, default 5
        The number of folds, from 2 to the number of rows of the smallest task.
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (> 0) of every fit.
    random_state : int, numpy.random.Generator or None, default 0
        Seeds the folds (through ``numpy.random.default_rng``); the same seed gives the same folds and result.

    Returns
    -------
    strength : float
        The strength of ``grid`` with the highest mean held-out log-likelihood per row.
    scores : dict of float to float
        Every strength of ``grid`` (as a float) -> its mean held-out log-likelihood per row (natural log).

    Raises
    ------
    InvalidParameterError
        ``n_folds``, ``equivalent_sample_size`` or a strength of ``grid`` is out of range, or ``graphs`` does
        not have one structure per task.

    Examples
    --------
    Two copies of one distribution share everything; two opposite ones
    next to nothing (a pseudo-count of shrinkage helps any small-sample
    estimate, as the BDeu prior itself does):

    >>> import pandas as pd
    >>> from mtbn.graph import DAG
    >>> same = {t: pd.DataFrame({"x": list("uuuv" * 50)}) for t in "ab"}
    >>> opposite = {"a": pd.DataFrame({"x": list("uuuv" * 50)}), "b": pd.DataFrame({"x": list("vvvu" * 50)})}
    >>> g = [DAG.empty(["x"])] * 2
    >>> choose_sharing_strength(g, same)[0], choose_sharing_strength(g, opposite)[0]
    (inf, 1.0)
    """
    ts = make_taskset(tasks)
    smallest = min(d.n_samples for d in ts.tasks)
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or not 2 <= n_folds <= smallest:
        raise error("sharing-folds", n_rows=smallest, value=n_folds)
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    for g in grid:
        if not is_strength(g):
            raise error("sharing-strength", value=g)
    grid = sorted(float(g) for g in grid)
    seed = int(np.random.default_rng(random_state).integers(0, 2**31 - 1))
    folds = [np.array_split(np.random.default_rng([seed, t]).permutation(d.n_samples), n_folds)
             for t, d in enumerate(ts.tasks)]
    total = {g: 0.0 for g in grid}
    n_rows = 0
    for f in range(n_folds):
        held = [np.sort(parts[f]) for parts in folds]
        kept = [np.sort(np.concatenate(parts[:f] + parts[f + 1:])) for parts in folds]
        tests = [d.take(h) for d, h in zip(ts.tasks, held)]
        n_rows += sum(t.n_samples for t in tests)
        rows = heldout_rows_by_strength(graphs, [d.take(k) for d, k in zip(ts.tasks, kept)], tests, grid, ess)
        for g in grid:
            total[g] += sum(float(r.sum()) for r in rows[g])
    scores = {g: total[g] / n_rows for g in grid}
    best = max(grid, key=lambda g: (scores[g], -g))
    return best, scores


def evidence_by_strength(graphs, tasks, *, grid=STRENGTH_GRID, equivalent_sample_size=1.0):
    """The log marginal likelihood of every task's counts of its shared families under each strength's prior.

    Type-II maximum likelihood of the strength (the concentration of a
    hierarchical Dirichlet model) without any held-out rows: for task ``t``
    and a family that at least one other task has, the prior of each parent
    configuration ``j`` is ``Dirichlet(ess / (q r) + strength * c_jk)``, with
    the centre ``c`` the BDeu posterior mean of the *other* tasks' pooled
    counts of that family (so a task's own rows never build the prior they
    are scored under), and the evidence is the Dirichlet-multinomial
    ``sum_j [lgamma(A_j) - lgamma(A_j + N_j) + sum_k (lgamma(a_jk + N_jk) - lgamma(a_jk))]``
    (``a_jk`` the prior counts, ``A_j`` their sum; at ``inf``, the multinomial
    ``sum_jk N_jk log c_jk``). Families only one task has do not depend on the
    strength's centre and are left out. Summed over tasks and families.

    Parameters
    ----------
    graphs : sequence of DAG
        One structure per task, in the tasks' order (node names = the task's variables; a networkx DiGraph is
        read with :meth:`mtbn.graph.DAG.from_networkx`).
    tasks : dict, list or TaskSet
        The tasks (one state list per variable across tasks, as :func:`mtbn.data.make_taskset` gives).
    grid : sequence of float, default STRENGTH_GRID
        The strengths, each a number >= 0 or ``inf``.
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (> 0) of the task's own prior and of the centre.

    Returns
    -------
    dict of float to float
        Every strength of ``grid`` (as a float) -> the summed log evidence in nats (0 for every strength when
        no family is shared).

    Examples
    --------
    Two tasks with the same 3:1 counts of a binary variable: the other's
    pooled centre predicts each well, so more sharing has more evidence;
    with opposite counts (3:1 and 1:3) less sharing does:

    >>> import pandas as pd
    >>> from mtbn.graph import DAG
    >>> g = [DAG.empty(["x"])] * 2
    >>> same = {t: pd.DataFrame({"x": list("uuuv" * 5)}) for t in "ab"}
    >>> opposite = {"a": pd.DataFrame({"x": list("uuuv" * 5)}), "b": pd.DataFrame({"x": list("vvvu" * 5)})}
    >>> ev = evidence_by_strength(g, same)
    >>> ev[0.0] < ev[10.0] < ev[float("inf")]
    True
    >>> ev = evidence_by_strength(g, opposite)
    >>> ev[0.0] > ev[10.0] > ev[float("inf")]
    True
    """
    from scipy.special import gammaln

    ts = make_taskset(tasks)
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    for g in grid:
        if not is_strength(g):
            raise error("sharing-strength", value=g)
    families, pooled = _counted(graphs, ts)
    n_sharing: dict = {}
    for _, _, mine in families:
        for key, *_ in mine:
            n_sharing[key] = n_sharing.get(key, 0) + 1
    grid = [float(g) for g in grid]
    total = {g: 0.0 for g in grid}
    for _, _, mine in families:
        for key, counts, _, r in mine:
            if n_sharing[key] < 2:
                continue
            q = counts.shape[0]
            others = pooled[key] - counts
            centre = (others + ess / (q * r)) / (others.sum(axis=1, keepdims=True) + ess / q)
            n_j = counts.sum(axis=1)
            for g in grid:
                if math.isinf(g):
                    total[g] += float((counts * np.log(centre)).sum())
                    continue
                a = ess / (q * r) + g * centre
                a_j = a.sum(axis=1)
                total[g] += float((gammaln(a_j) - gammaln(a_j + n_j)).sum() + (gammaln(a + counts) - gammaln(a)).sum())
    return total


def heldout_rows_by_strength(graphs, train, held_out, grid, ess):
    """Per strength, each task's per-row log-likelihood of ``held_out`` under :func:`fit_shared_parameters`
    fitted on ``train`` (one DiscreteData per task, same state lists): ``{strength: [array per task]}``.

    The family counts are taken once; each strength only reweighs them, and
    only at the held-out rows' cells (memory: the counts, not one table per strength).

    Parameters
    ----------
    graphs : sequence of DAG
        One structure per task, in the tasks' order (node names = the task's variables; a networkx DiGraph is
        read with :meth:`mtbn.graph.DAG.from_networkx`).
    train : sequence of DiscreteData
        Each task's training rows, which the family counts are taken from.
    held_out : sequence of DiscreteData
        Each task's rows to score, in the tasks' order, coded on the same state lists as ``train``.
    grid : sequence of float
        The strengths (numbers >= 0 or ``inf``; not checked here).
    ess : float
        The BDeu equivalent sample size (> 0; not checked here).

    Returns
    -------
    dict of float to list of ndarray
        Each strength of ``grid`` -> one array per task of the natural-log likelihood of each of its held-out
        rows.
    """
    families, pooled = _counted(graphs, make_taskset(list(train)))
    grid = list(grid)
    strengths = np.asarray(grid, dtype=float)[:, None]
    finite = np.isfinite(strengths[:, 0])
    out = {g: [] for g in grid}
    for (_, _, mine), test in zip(families, held_out):
        rows = np.zeros((len(grid), test.n_samples))
        for key, counts, arities, r in mine:
            child, parents = key
            config = _config_codes(test.codes, [_data_column(test, p) for p in parents], arities)
            state = test.codes[:, _data_column(test, child)]
            q = counts.shape[0]
            total = pooled[key]
            # The elementwise formula of _theta, at each held-out row's cell only.
            centre = (total[config, state] + ess / (q * r)) / (total.sum(axis=1)[config] + ess / q)
            own, n_j = counts[config, state], counts.sum(axis=1)[config]
            theta = np.empty((len(grid), test.n_samples))
            f = strengths[finite]
            theta[finite] = (own + ess / (q * r) + f * centre) / (n_j + ess / q + f)
            theta[~finite] = centre
            rows += np.log(theta)
        for g, row in zip(grid, rows):
            out[g].append(row)
    return out


def _theta(counts, total, strength, ess):
    """One task's shrunk table (q, r) from its counts and the pooled counts ``total`` of the family."""
    q, r = counts.shape
    centre = (total + ess / (q * r)) / (total.sum(axis=1, keepdims=True) + ess / q)
    if math.isinf(strength):
        return centre
    return (counts + ess / (q * r) + strength * centre) / (counts.sum(axis=1, keepdims=True) + ess / q + strength)
