"""How sure are we? Bootstrap edge confidence for several related networks at once.

:func:`bootstrap_structures` resamples the rows of every task (with
replacement, the same number of rows) and reruns the multitask learner on
each replicate. From the replicates' structures it counts, per task, how
often each directed edge and each adjacency appears (bnlearn's
``boot.strength`` for one network, Friedman, Goldszmidt & Wyner 1999), and,
across tasks, how often an edge is present in every task that has both its
variables, in exactly one task, or in one of two tasks but not the other:
the questions "which edges are real?" and "which differences between tasks
are real?".

Two costs are offered:

* ``reselect_penalty=False`` (default): the penalty is chosen once, by the
  learner's own rule on the original data (or given), and every replicate
  is one multitask search at that penalty. Cost: about ``n_boot`` joint
  searches.
* ``reselect_penalty=True``: every replicate reruns the whole learner,
  penalty selection included (``cv`` folds x grid points per replicate, so
  about ``cv * len(grid)`` times more). This also carries the uncertainty of
  the penalty choice.

When the learner returns one structure learned from all tasks' rows pooled
(``parameter_sharing="auto"`` chose it on the original data), the
replicates learn that pooled structure too (``pooled``), so the
frequencies describe the structures the learner returned.

Every replicate draws its rows from its own seed (derived from
``random_state`` and the replicate number), so results are identical for
any ``n_jobs`` and reproducible from the seed.
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass

import numpy as np

from mtbn._validation import check_n_jobs, check_option, check_random_state
from mtbn.engine import Shared, job, run_jobs
from mtbn.progress import reporter
from mtbn.data import make_taskset
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG, REVERSAL_COSTS
from mtbn.learn import learn_structures
from mtbn.learn.multitask import learn_pooled_structures
from mtbn.learn.settings import MULTITASK
from mtbn.messages import error, register

__all__ = ["BootstrapResult", "bootstrap_structures", "strength_threshold"]

register("n-boot", InvalidParameterError, "n_boot must be an integer >= 1; got {value!r}.",
         cause="A number of bootstrap replicates below 1 or not a whole number.",
         fix="Pass a count; 100-200 replicates give frequencies to about +-0.05.")
register("bootstrap-pooled", InvalidParameterError, "pooled must be True, False or None; got {value!r}.",
         cause="The bootstrap's pooled argument was given something other than a bool or None.",
         fix="Pass True to bootstrap the pooled structure, False for the multitask structures, None to let the "
             "learner decide.")
register("level-range", InvalidParameterError, "level must be strictly between 0 and 1; got {value!r}.",
         cause="A confidence level of 0, 1 or outside that range.",
         fix="Pass a level such as 0.95.")
register("threshold-range", InvalidParameterError, "threshold must be in [0, 1] or None; got {value!r}.",
         cause="An edge-strength threshold outside [0, 1].",
         fix="Pass a frequency such as 0.5, or None for the data-driven threshold.")


@dataclass(frozen=True)
class BootstrapResult:
    """Edge frequencies over bootstrap replicates of several tasks.

    Attributes
    ----------
    task_names : tuple of str
    variables : tuple of str
        The union of the tasks' variables (the axes of the arrays below).
    present : ndarray of bool, shape (k, n)
        Which variables each task has.
    edges : ndarray of bool, shape (n_boot, k, n, n)
        ``edges[b, t, u, v]``: replicate ``b`` learned ``u -> v`` in task ``t``.
    penalty : float or None
        The penalty every replicate used (None with ``reselect_penalty``,
        and with ``pooled``, where no penalty is used).
    penalties : list of float
        The penalty each replicate used.
    pooled : bool
        The replicates learned one structure from all tasks' rows pooled
        (the same for every task) instead of the multitask structures.

    Examples
    --------
    Five replicates (far too few in practice) of three tasks over four
    ASIA variables; in ``c`` the smoking column is shuffled:

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> boot = bootstrap_structures(tasks, n_boot=5, penalty=0.9, n_restarts=0, n_joint_restarts=0,
    ...                             random_state=0)
    >>> boot.variables, boot.edges.shape
    (('smoke', 'lung', 'bronc', 'dysp'), (5, 3, 4, 4))

    Per task, how often each adjacency was learned (``strength``) and how
    often it pointed each way (``direction``):

    >>> boot.strength("a").head(4)
        from     to  strength  direction
    0  bronc   dysp       1.0        1.0
    1  smoke   lung       1.0        1.0
    2   lung   dysp       1.0        0.8
    3  smoke  bronc       1.0        0.8

    The averaged structure of ``c`` keeps the adjacencies whose strength
    reaches the data-driven threshold; the smoking edges are not among them:

    >>> graph, threshold = boot.averaged_network("c")
    >>> sorted(graph.edges()), threshold
    ([('bronc', 'dysp'), ('lung', 'dysp')], 1.0)
    """

    task_names: tuple
    variables: tuple
    present: np.ndarray
    edges: np.ndarray
    penalty: object
    penalties: list
    pooled: bool = False

    @property
    def n_boot(self):
        return self.edges.shape[0]

    def _adjacent(self, t=slice(None)):
        """``adj[b, (t,) u, v]``: replicate ``b`` has ``u`` and ``v`` adjacent (in task ``t``, or all tasks)."""
        e = self.edges[:, t]
        return e | np.swapaxes(e, -1, -2)

    def _task(self, task):
        if task not in self.task_names:
            raise error("unknown-task", task=task, names=", ".join(map(repr, self.task_names)))
        return self.task_names.index(task)

    # -- per task ---------------------------------------------------------
    def edge_frequency(self):
        """``(k, n, n)``: fraction of replicates with the directed edge ``u -> v`` in each task."""
        return self.edges.mean(axis=0)

    def adjacency_frequency(self):
        """``(k, n, n)``, symmetric: fraction of replicates with ``u`` and ``v`` adjacent in each task."""
        return self._adjacent().mean(axis=0)

    def strength(self, task):
        """bnlearn-style table of one task: ``from, to, strength, direction`` for every pair seen at least once.

        ``strength`` is the adjacency frequency; ``direction`` the fraction of
        those replicates in which the edge points ``from -> to``.
        """
        import pandas as pd

        t = self._task(task)
        freq = self.edges[:, t].mean(axis=0)
        adj = self._adjacent(t).mean(axis=0)
        rows = []
        for u, v in zip(*np.nonzero(np.triu(adj, 1))):
            for a, b in ((u, v), (v, u)):
                rows.append((self.variables[a], self.variables[b], float(adj[u, v]),
                             float(freq[a, b] / adj[u, v])))
        table = pd.DataFrame(rows, columns=["from", "to", "strength", "direction"])
        return table.sort_values(["strength", "direction", "from", "to"], ascending=[False, False, True, True],
                                 ignore_index=True)

    def averaged_network(self, task, threshold=None):
        """The averaged structure of one task (bnlearn's ``averaged.network``).

        Keeps the adjacencies whose strength is at least ``threshold``
        (default :func:`strength_threshold` of the task's strengths), each
        oriented the way it pointed more often (ties: the order of the
        variables); adjacencies that would close a directed cycle are
        dropped, weakest first. Returns ``(DAG, threshold)``.
        """
        t = self._task(task)
        adj = self._adjacent(t).mean(axis=0)
        freq = self.edges[:, t].mean(axis=0)
        idx = np.flatnonzero(self.present[t])
        if threshold is None:
            iu, ju = np.triu_indices(len(idx), 1)
            threshold = strength_threshold(adj[np.ix_(idx, idx)][iu, ju])
        elif not (isinstance(threshold, (int, float)) and 0.0 <= threshold <= 1.0):
            raise error("threshold-range", value=threshold)
        pos = {g: i for i, g in enumerate(idx)}
        candidates = []
        for u, v in zip(*np.nonzero(np.triu(adj, 1))):
            if adj[u, v] >= threshold and adj[u, v] > 0:
                a, b = (u, v) if freq[u, v] >= freq[v, u] else (v, u)
                candidates.append((-adj[u, v], -max(freq[u, v], freq[v, u]), int(a), int(b)))
        parents = [set() for _ in idx]
        reach = np.eye(len(idx), dtype=bool)  # reach[x, y]: a directed path x -> ... -> y
        for _, _, a, b in sorted(candidates):
            i, j = pos[a], pos[b]
            if reach[j, i]:
                continue  # would close a cycle
            parents[j].add(i)
            reach |= np.outer(reach[:, i], reach[j, :])
        return DAG(parents, [self.variables[g] for g in idx]), float(threshold)

    # -- across tasks ---------------------------------------------------
    def edge_table(self):
        """Per adjacency seen in some replicate: each task's strength and the across-task frequencies.

        Columns: ``x, y`` (the variables, in variable order), one column
        ``strength:<task>`` per task (NaN where the task lacks a variable), ``all_tasks``
        (fraction of replicates in which the adjacency is present in every
        task that has both variables), ``one_task`` (present in exactly one
        such task), ``none`` (in no task) and ``n_tasks`` (how many tasks have
        both variables).
        """
        import pandas as pd

        adj = self._adjacent()  # (B, k, n, n)
        has = self.present[:, :, None] & self.present[:, None, :]  # (k, n, n)
        count = adj.sum(axis=1)  # (B, n, n): tasks with the adjacency, per replicate
        n_has = has.sum(axis=0)
        strength = adj.mean(axis=0)
        rows = []
        for u, v in zip(*np.nonzero(np.triu(strength.max(axis=0), 1))):
            row = {"x": self.variables[u], "y": self.variables[v]}
            for t, name in enumerate(self.task_names):
                row[f"strength:{name}"] = float(strength[t, u, v]) if has[t, u, v] else float("nan")
            c = count[:, u, v]
            row.update(all_tasks=float(np.mean(c == n_has[u, v])), one_task=float(np.mean(c == 1)),
                       none=float(np.mean(c == 0)), n_tasks=int(n_has[u, v]))
            rows.append(row)
        return pd.DataFrame(rows)

    def difference_frequency(self, task_a, task_b):
        """Per adjacency: the fraction of replicates in which it is in one of the two tasks but not the other.

        Columns ``x, y, differs`` and the two tasks' strengths; only pairs of
        variables both tasks have; sorted by frequency.
        """
        import pandas as pd

        a, b = self._task(task_a), self._task(task_b)
        adj = self._adjacent()
        both = self.present[a] & self.present[b]
        diff = (adj[:, a] != adj[:, b]).mean(axis=0)
        rows = [(self.variables[u], self.variables[v], float(diff[u, v]), float(adj[:, a, u, v].mean()),
                 float(adj[:, b, u, v].mean()))
                for u, v in zip(*np.nonzero(np.triu(diff, 1))) if both[u] and both[v]]
        table = pd.DataFrame(rows, columns=["x", "y", "differs", f"strength:{task_a}", f"strength:{task_b}"])
        return table.sort_values(["differs", "x", "y"], ascending=[False, True, True], ignore_index=True)


    # -- task distances ----------------------------------------------------
    def distances(self, reversal="single"):
        """``(n_boot, k, k)``: the edit distance between every two tasks' structures in each replicate.

        The distance of :func:`mtbn.graph.edit_distance` (every node pair
        whose edge differs costs one edit; a reversed edge costs
        ``REVERSAL_COSTS[reversal]``), on the replicates' structures.
        """
        check_option("reversal", reversal, REVERSAL_COSTS)
        e = self.edges
        k, n = e.shape[1], e.shape[2]
        upper = np.triu(np.ones((n, n), dtype=bool), 1)
        # state of each unordered pair {u < v}: 0 none, 1 u -> v, 2 v -> u
        state = (e.astype(np.int8) + 2 * np.swapaxes(e, -1, -2))[:, :, upper]  # (B, k, pairs)
        out = np.zeros((e.shape[0], k, k))
        for a in range(k):
            for c in range(a + 1, k):
                s1, s2 = state[:, a], state[:, c]
                differ = s1 != s2
                cost = np.where((s1 > 0) & (s2 > 0), REVERSAL_COSTS[reversal], 1)
                out[:, a, c] = out[:, c, a] = (differ * cost).sum(axis=1)
        return out

    def distance_interval(self, level=0.95, reversal="single"):
        """Percentile bootstrap interval of every task distance: two square DataFrames ``(low, high)``."""
        import pandas as pd

        if not 0 < level < 1:
            raise error("level-range", value=level)
        d = self.distances(reversal)
        low, high = np.quantile(d, [(1 - level) / 2, (1 + level) / 2], axis=0, method="linear")
        names = list(self.task_names)
        return (pd.DataFrame(low, index=names, columns=names), pd.DataFrame(high, index=names, columns=names))


def strength_threshold(strengths):
    """The significance threshold of Scutari & Nagarajan (2013) for edge strengths.

    Among the observed strengths ``t``, the one minimising the L1 distance
    between the empirical CDF ``F`` of the strengths and the ideal CDF of a
    perfectly separated set (a mass ``F(t)`` at 0 and the rest at 1):
    ``integral_0^1 |F(x) - F(t)| dx``. Edges with strength >= the threshold
    are kept. With no strengths above 0, the threshold is 1.

    Examples
    --------
    Ten pairs never adjacent and three adjacent in nearly every replicate:

    >>> strength_threshold([0.0] * 10 + [0.02, 0.96, 0.98, 1.0])
    0.96
    """
    s = np.sort(np.asarray(strengths, dtype=float))
    if len(s) == 0 or s[-1] <= 0:
        return 1.0
    points = np.unique(np.concatenate([[0.0], s, [1.0]]))
    # F is a step function: constant on [points[i], points[i+1]).
    F = np.searchsorted(s, points[:-1], side="right") / len(s)
    widths = np.diff(points)
    best, best_cost = 1.0, np.inf
    for t in np.unique(s[s > 0]):
        level = np.searchsorted(s, t, side="left") / len(s)  # F just below t: the share dropped
        cost = float(np.sum(np.abs(F - level) * widths))
        if cost < best_cost - 1e-12:
            best, best_cost = float(t), cost
    return best


#: How a replicate draws its rows from a task of n rows.
RESAMPLING = {
    # n rows with replacement (Efron's bootstrap; bnlearn's boot.strength)
    "bootstrap": lambda rng, n: np.sort(rng.integers(0, n, n)),
    # n // 2 distinct rows (subsampling, as in stability selection): no duplicated rows
    "subsample": lambda rng, n: np.sort(rng.choice(n, n // 2, replace=False)),
}


def _replicate(tasks, names, b, base, kwargs, resample="bootstrap", pooled=False):
    rng = np.random.default_rng([base, b])
    data = dict(zip(names, (d.take(RESAMPLING[resample](rng, d.n_samples)) for d in tasks)))
    if pooled:
        graphs, penalty = learn_pooled_structures(data, **kwargs), None
    else:
        res = learn_structures(data, **kwargs)
        graphs, penalty = res.graphs, res.penalty
    return [[(u, v) for u, v in g.edges(names=True)] for g in graphs], penalty


def bootstrap_structures(tasks: Any, *, n_boot: int = 100, reselect_penalty: bool = False, random_state: Any = 0,
                         n_jobs: int | None = None, progress: Any = None, resample: str = "bootstrap",
                         pooled: bool | None = None, **learn_kwargs) -> BootstrapResult:
    """Bootstrap the multitask learner: edge frequencies per task and across tasks.

    Parameters
    ----------
    tasks
        As for :func:`mtbn.learn.learn_structures`.
    n_boot : int, default 100
        Replicates.
    reselect_penalty : bool, default False
        False: choose the penalty once on the original data (the learner's
        rule, or ``penalty=`` if given) and use it in every replicate. True:
        every replicate reruns the whole learner, penalty selection included
        (much slower; see the module docstring).
    random_state : int, default 0
        Seeds the replicates' row draws and their learners.
    n_jobs : int, optional
        Replicates run in parallel through joblib; results do not depend on it.
    resample : {"bootstrap", "subsample"}, default "bootstrap"
        How a replicate draws a task's rows: ``"bootstrap"``, ``n`` rows with
        replacement (as bnlearn's ``boot.strength``); ``"subsample"``,
        ``n // 2`` distinct rows (as stability selection). Duplicated rows
        make spurious dependences look stronger, so with few rows bootstrap
        frequencies of weak edges run high (``docs/results.md``, the
        calibration study); subsampling has no duplicates but learns from
        half the rows.
    pooled : bool, optional
        True: every replicate learns one structure from all tasks' rows
        pooled (what the learner returns when ``parameter_sharing="auto"``
        chooses it). None (default): as the learner decides on the original
        data when it chooses the penalty there (``penalty="auto"``, the
        default); with a given penalty, False; with ``reselect_penalty``,
        each replicate's learner decides. Pass the learner's own choice
        (``result.transfer["sharing"]["pooled"]``) with its penalty to
        describe a result already learned.
    **learn_kwargs
        Settings of :func:`~mtbn.learn.learn_structures` (``prior``,
        ``penalty``, ``n_restarts``, ...; :data:`mtbn.learn.settings.MULTITASK`),
        checked before any work; ``parameter_sharing`` matters only where
        it decides whether the pooled structure is learned (the replicates
        give structures only).

    Returns
    -------
    BootstrapResult

    Examples
    --------
    Three tasks over four ASIA variables; in ``c`` the smoking column is
    shuffled. Five replicates at a fixed penalty keep the example quick
    (100 or more give usable frequencies):

    >>> from mtbn.networks import example_tasks
    >>> tasks = example_tasks()  # a, b, c over smoke, lung, bronc, dysp; in c smoking no longer matters
    >>> boot = bootstrap_structures(tasks, n_boot=5, penalty=0.9, n_restarts=0, n_joint_restarts=0,
    ...                             random_state=0)
    >>> boot.n_boot, boot.penalty, boot.task_names
    (5, 0.9, ('a', 'b', 'c'))

    The smoking edges differ between ``a`` and ``c`` in four replicates
    out of five; between ``a`` and ``b`` only a weak adjacency ever differs:

    >>> boot.difference_frequency("a", "c")
           x      y  differs  strength:a  strength:c
    0  smoke  bronc      0.8         1.0         0.2
    1  smoke   lung      0.8         1.0         0.2
    >>> boot.difference_frequency("a", "b")
          x      y  differs  strength:a  strength:b
    0  lung  bronc      0.2         0.2         0.0
    """
    import warnings

    from mtbn.exceptions import TransferWarning

    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise error("n-boot", value=n_boot)
    check_option("resample", resample, RESAMPLING)
    check_n_jobs(n_jobs)
    # The learner's settings, checked at the front door; the replicates' CPTs are not used (structures only).
    learn_kwargs = MULTITASK.bind("bootstrap_structures", dict(learn_kwargs, random_state=random_state, n_jobs=n_jobs,
                                                                  progress=progress))
    for name in ("random_state", "n_jobs", "progress"):
        del learn_kwargs[name]
    if pooled is not None and not isinstance(pooled, (bool, np.bool_)):
        raise error("bootstrap-pooled", value=pooled)
    sharing = learn_kwargs["parameter_sharing"]
    if not reselect_penalty or pooled is not None:
        learn_kwargs["parameter_sharing"] = None  # structures only: the CPTs' sharing is not needed
    ts = make_taskset(tasks, task_column=learn_kwargs.pop("task_column", None))
    rng = check_random_state(random_state)
    base = int(rng.integers(0, 2**31 - 1))
    say = reporter(progress)
    kwargs = dict(learn_kwargs, random_state=base, n_jobs=1)
    penalty = None
    if not reselect_penalty:
        penalty = learn_kwargs.get("penalty", "auto")
        if penalty == "auto":
            say("choosing the penalty on the original data")
            decide = pooled is None and sharing == "auto"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TransferWarning)
                res = learn_structures(ts, **dict(kwargs, n_jobs=n_jobs, parameter_sharing="auto" if decide else None))
            penalty = res.penalty
            if decide:
                pooled = bool((res.transfer or {}).get("sharing", {}).get("pooled", False))
        kwargs["penalty"] = float(penalty)
    pooled = bool(pooled)
    with warnings.catch_warnings(), say.stage(f"bootstrap of {ts.n_tasks} task(s)", n_boot, "replicate") as tick:
        warnings.simplefilter("ignore", TransferWarning)
        shared = Shared(ts.tasks)  # shipped once to a Dask cluster, not once per replicate
        reps = run_jobs((job(_replicate)(shared, ts.names, b, base, kwargs, resample, pooled) for b in range(n_boot)),
                        n_jobs=n_jobs, tick=tick)
    n = len(ts.variables)
    pos = {v: i for i, v in enumerate(ts.variables)}
    edges = np.zeros((n_boot, ts.n_tasks, n, n), dtype=bool)
    for b, (task_edges, _) in enumerate(reps):
        for t, es in enumerate(task_edges):
            for u, v in es:
                edges[b, t, pos[u], pos[v]] = True
    return BootstrapResult(ts.names, ts.variables, ts.local_index >= 0, edges, None if pooled else penalty,
                           [p for _, p in reps], pooled)
