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

* ``reselect_penalty=False`` (default): the learner decides once, on the
  original data (or ``result=`` brings its decisions, or a penalty is
  given): its penalty, the tasks it learns alone (``transfer_per_task``)
  and whether it returns one structure learned from all tasks' rows pooled
  (``parameter_sharing="auto"``). Every replicate repeats those decisions:
  one multitask search at that penalty, or one pooled search, and the
  left-out tasks learned alone, so the frequencies describe the structures
  the learner returned. Cost: about ``n_boot`` joint searches.
* ``reselect_penalty=True``: every replicate reruns the whole learner,
  penalty selection included (``cv`` folds x grid points per replicate, so
  about ``cv * len(grid)`` times more). This also carries the uncertainty of
  the penalty choice.

Every replicate draws its rows from its own seed (derived from
``random_state`` and the replicate number), so results are identical for
any ``n_jobs`` and reproducible from the seed.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtbn._validation import check_option, check_random_state
from mtbn.engine import Shared, job, run_jobs
from mtbn.progress import reporter
from mtbn.data import make_taskset
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG, REVERSAL_COSTS
from mtbn.learn import MultitaskResult, learn_structures
from mtbn.learn.checks import check_one_value_columns, parts_of_checked_data
from mtbn.learn.kinds import kind_of, kind_settings, split_by_task_column
from mtbn.learn.multitask import learn_pooled_structures
from mtbn.learn.settings import MULTITASK
from mtbn.messages import error, register

__all__ = ["BootstrapResult", "bootstrap_structures", "strength_threshold"]

register("n-boot", InvalidParameterError, "n_boot must be an integer >= 1; got {value!r}.",
         cause="A number of bootstrap replicates below 1 or not a whole number.",
         fix="Pass a count; 100-200 replicates give frequencies to about +-0.05.")
register("bootstrap-result-reselect", InvalidParameterError,
         "result cannot be given with reselect_penalty=True: each replicate then reruns the whole learner.",
         cause="bootstrap_structures was asked both to repeat a learned result's decisions and to remake them in "
               "every replicate.",
         fix="Drop result= to reselect the penalty per replicate, or reselect_penalty=False (the default) to "
             "repeat the result's decisions.")
register("bootstrap-result-type", InvalidParameterError,
         "result must be the MultitaskResult learn_structures returned; got a {got}.",
         cause="bootstrap_structures was given as result= something other than a mtbn.learn.MultitaskResult.",
         fix="Pass res from res = learn_structures(tasks, ...) on the same tasks, or leave result= out.")
register("bootstrap-result-tasks", InvalidParameterError,
         "result is of the tasks {got}, not of the tasks given {tasks}.",
         cause="The result passed to bootstrap_structures was learned on other tasks (or is not a MultitaskResult).",
         fix="Pass the MultitaskResult that learn_structures returned on the same tasks.")
register("bootstrap-kind", InvalidParameterError,
         "the bootstrap is not available for {kind} tasks (learned as {learned_as}).",
         cause="A registered kind of data whose learner gives the bootstrap no way to resample its tasks "
               "(DataKind.task_data).",
         fix="Implement DataKind.task_data for the kind, or convert the tasks to discrete states first.")
register("level-range", InvalidParameterError, "level must be strictly between 0 and 1; got {value!r}.",
         cause="A confidence level of 0, 1 or outside that range.",
         fix="Pass a level such as 0.95.")
register("threshold-range", InvalidParameterError, "threshold must be in [0, 1] or None; got {value!r}.",
         cause="An edge-strength threshold outside [0, 1].",
         fix="Pass a frequency such as 0.5, or None for the data-driven threshold.")


@dataclass(frozen=True)
class BootstrapResult:
    """Edge frequencies over bootstrap replicates of several tasks.

    Parameters
    ----------
    task_names : tuple of str
        The tasks, in the order of the arrays' task axis.
    variables : tuple of str
        The union of the tasks' variables (the axes of the arrays below).
    present : ndarray of bool, shape (k, n)
        Which variables each task has.
    edges : ndarray of bool, shape (n_boot, k, n, n)
        ``edges[b, t, u, v]``: replicate ``b`` learned ``u -> v`` in task ``t``.
    penalty : float or None
        The penalty every replicate used (None with ``reselect_penalty``,
        and with ``pooled``, where no penalty is used).
    penalties : list of float or None
        The penalty each replicate used (None where it learned the pooled
        structure).
    pooled : bool or None
        The replicates learned one structure from the rows of all tasks not
        in ``alone`` pooled (the same for those tasks) instead of the
        multitask structures; None with ``reselect_penalty`` (each
        replicate's learner decided).
    alone : tuple of str
        The tasks every replicate learned alone, as the learner did
        (``transfer_per_task``).
    changed : ndarray of bool, shape (n_boot, k, n), or None
        With ``interventions``: ``changed[b, t, v]``, replicate ``b`` found
        the mechanism of ``v`` changed in task ``t``
        (:meth:`mechanism_frequency`). Each replicate runs the interventional
        learner whole; ``edges`` then hold each task's structure (the causal
        DAG, with perfect interventions its targets without parents).

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
    pooled: "bool | None" = False
    alone: tuple = ()
    changed: "np.ndarray | None" = None

    def mechanism_frequency(self):
        """With ``interventions``: task x variable (a pandas DataFrame), the fraction of replicates in which the
        variable's mechanism changes in the task (None otherwise).

        Returns
        -------
        pandas.DataFrame or None
            Task names as index, ``variables`` as columns; None when ``changed`` is None.
        """
        import pandas as pd

        if self.changed is None:
            return None
        return pd.DataFrame(self.changed.mean(axis=0), index=list(self.task_names), columns=list(self.variables))

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
        """``(k, n, n)``: fraction of replicates with the directed edge ``u -> v`` in each task.

        Returns
        -------
        ndarray of float, shape (k, n, n)
            ``[t, u, v]``: the fraction for task ``t`` and the variables ``u``, ``v`` (indices into ``variables``).
        """
        return self.edges.mean(axis=0)

    def adjacency_frequency(self):
        """``(k, n, n)``, symmetric: fraction of replicates with ``u`` and ``v`` adjacent in each task.

        Returns
        -------
        ndarray of float, shape (k, n, n)
            ``[t, u, v]``: the fraction for task ``t`` and the variables ``u``, ``v`` (indices into ``variables``).
        """
        return self._adjacent().mean(axis=0)

    def strength(self, task):
        """bnlearn-style table of one task: ``from, to, strength, direction`` for every pair seen at least once.

        ``strength`` is the adjacency frequency; ``direction`` the fraction of
        those replicates in which the edge points ``from -> to``.

        Parameters
        ----------
        task : str
            One of ``task_names``; another name raises ``InvalidParameterError``.

        Returns
        -------
        pandas.DataFrame
            Columns ``from``, ``to``, ``strength``, ``direction``: each adjacency twice (once per direction),
            sorted by decreasing strength, then decreasing direction.
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

        Parameters
        ----------
        task : str
            One of ``task_names``; another name raises ``InvalidParameterError``.
        threshold : float, optional
            A strength in [0, 1]; None: :func:`strength_threshold` of the task's strengths.

        Returns
        -------
        graph : DAG
            The averaged structure, over the variables the task has.
        threshold : float
            The threshold used.
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

        Returns
        -------
        pandas.DataFrame
            One row per adjacency learned in some task of some replicate, with the columns above.
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

        Parameters
        ----------
        task_a, task_b : str
            Two of ``task_names``; another name raises ``InvalidParameterError``.

        Returns
        -------
        pandas.DataFrame
            Columns ``x``, ``y``, ``differs``, ``strength:<task_a>`` and ``strength:<task_b>``, one row per pair
            that differs in some replicate, by decreasing ``differs``.
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

        Parameters
        ----------
        reversal : {"single", "double"}, default "single"
            What a reversed edge costs: one edit or two.

        Returns
        -------
        ndarray of float, shape (n_boot, k, k)
            ``[b, s, t]``: the distance between tasks ``s`` and ``t`` in replicate ``b`` (symmetric, 0 on the
            diagonal).
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
        """Percentile bootstrap interval of every task distance: two square DataFrames ``(low, high)``.

        Parameters
        ----------
        level : float, default 0.95
            The interval's coverage, strictly between 0 and 1: the bounds are the ``(1 - level) / 2`` and
            ``(1 + level) / 2`` quantiles (linear interpolation) of each distance over the replicates.
        reversal : {"single", "double"}, default "single"
            What a reversed edge costs (as for :meth:`distances`).

        Returns
        -------
        low : pandas.DataFrame
            The lower bounds, task names as index and columns.
        high : pandas.DataFrame
            The upper bounds, in the same layout.
        """
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

    Parameters
    ----------
    strengths : array-like of float
        Edge strengths (frequencies in [0, 1]), e.g. the adjacency frequencies of every pair of a task's
        variables, zeros included.

    Returns
    -------
    float
        The threshold: one of the positive strengths, or 1.0.

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


@dataclass(frozen=True)
class _Plan:
    """The learner's decisions on the original data that every replicate repeats (without ``reselect_penalty``):
    the penalty, whether the structure was pooled, and the tasks learned alone (``transfer_per_task``)."""

    penalty: float
    pooled: bool = False
    alone: tuple = ()


def _replicate(tasks, names, b, base, kwargs, resample="bootstrap", plan=None, skeleton=None):
    """Replicate ``b``'s edges per task and its penalty (None for a pooled structure): the rows drawn, then the
    whole learner (``plan`` None) or the plan's decisions repeated; ``skeleton``: the interventional learner's
    choice of adjacencies, repeated. A column that the draw leaves with one value is not reported (in this
    process or a worker): a rare state missed by a replicate is not a property of the user's data."""
    with parts_of_checked_data():
        return _replicate_edges(tasks, names, b, base, kwargs, resample, plan, skeleton)


def _replicate_edges(tasks, names, b, base, kwargs, resample, plan, skeleton):
    rng = np.random.default_rng([base, b])
    data = dict(zip(names, (d.take(RESAMPLING[resample](rng, d.n_samples)) for d in tasks)))
    changed = []
    if plan is None:
        if skeleton is not None:
            from mtbn.learn.interventional import learn_from_settings

            res = learn_from_settings(dict(kwargs, tasks=data), skeleton=skeleton)
        else:
            res = learn_structures(data, **kwargs)
        graphs, penalty = dict(zip(names, res.graphs)), (None if res.pooled else res.penalty)
        if res.interventions is not None:
            penalty = None
            changed = [(t, v) for t, per in res.interventions.changed.items() for v in per]
    else:
        graphs, penalty = {}, None if plan.pooled else plan.penalty
        alone = [n for n in names if n in plan.alone]
        joint = {n: data[n] for n in names if n not in plan.alone}
        if alone:  # as learn_structures learns a task that transfer_per_task leaves out
            part = learn_structures({n: data[n] for n in alone}, **dict(kwargs, prior="none", transfer_per_task=False))
            graphs.update(zip(alone, part.graphs))
        if joint and plan.pooled:
            graphs.update(zip(joint, learn_pooled_structures(joint, **kwargs)))
        elif joint:
            graphs.update(zip(joint, learn_structures(joint, **kwargs).graphs))
    return [[(u, v) for u, v in graphs[n].edges(names=True)] for n in names], penalty, changed


def bootstrap_structures(tasks: Any, *, n_boot: int = 100, reselect_penalty: bool = False,
                         random_state: Any = MULTITASK["random_state"].default,
                         n_jobs: int | None = MULTITASK["n_jobs"].default, progress: Any = MULTITASK["progress"].default,
                         resample: str = "bootstrap", result: Any = None, **learn_kwargs) -> BootstrapResult:
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
    progress : bool, callable or mtbn.progress.Reporter, optional
        As for :func:`mtbn.learn.learn_structures`: reports the penalty choice on the original data and counts
        the replicates (the replicates' own searches are not reported).
    resample : {"bootstrap", "subsample"}, default "bootstrap"
        How a replicate draws a task's rows: ``"bootstrap"``, ``n`` rows with
        replacement (as bnlearn's ``boot.strength``); ``"subsample"``,
        ``n // 2`` distinct rows (as stability selection). Duplicated rows
        make spurious dependences look stronger, so with few rows bootstrap
        frequencies of weak edges run high (``docs/results.md``, the
        calibration study); subsampling has no duplicates but learns from
        half the rows.
    result : MultitaskResult, optional
        What :func:`~mtbn.learn.learn_structures` returned on these tasks
        with these settings: every replicate repeats its decisions, its
        penalty, the tasks it learned alone (``transfer_per_task``) and
        whether it returned one structure learned from all (related) tasks'
        rows pooled, so that the frequencies describe the structures it
        returned; its decisions replace ``penalty=``. Without it,
        ``penalty="auto"`` (the default) runs the learner on the original
        data once for those decisions (seeded from ``random_state``, so
        they can differ from those of a run of your own: pass its result
        to describe it); a given penalty couples every task at that
        penalty. Not with ``reselect_penalty``, where each replicate's
        learner decides. With ``interventions`` every replicate runs the
        interventional learner whole, except that it keeps the result's
        source of adjacencies (``result.interventions.adjacencies``) instead
        of choosing it on held-out rows again.
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
    from mtbn.exceptions import TransferWarning

    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise error("n-boot", value=n_boot)
    check_option("resample", resample, RESAMPLING)
    # The learner's settings (n_jobs and the seed among them), checked once, at the front door; the replicates' CPTs are not used (structures only).
    learn_kwargs = MULTITASK.bind("bootstrap_structures", dict(learn_kwargs, random_state=random_state, n_jobs=n_jobs,
                                                                  progress=progress))
    for name in ("random_state", "n_jobs", "progress"):
        del learn_kwargs[name]
    if result is not None and reselect_penalty:
        raise error("bootstrap-result-reselect")
    split = split_by_task_column(tasks, learn_kwargs["task_column"])
    kind = kind_of(split)  # continuous tasks, or a registered kind of data: its own learner in every replicate
    if kind is not None:
        return _bootstrap_kind(kind, split, dict(learn_kwargs, task_column=None), n_boot=n_boot,
                               reselect_penalty=reselect_penalty, random_state=random_state, n_jobs=n_jobs,
                               progress=progress, resample=resample, result=result)
    del split  # make_taskset splits the rows again: one copy held, not two
    ts = make_taskset(tasks, task_column=learn_kwargs.pop("task_column", None))
    if result is not None and not isinstance(result, MultitaskResult):
        raise error("bootstrap-result-type", got=type(result).__name__)
    if result is not None and tuple(result.task_names) != tuple(ts.names):
        raise error("bootstrap-result-tasks", got=tuple(result.task_names), tasks=tuple(ts.names))
    rng = check_random_state(random_state)
    base = int(rng.integers(0, 2**31 - 1))
    say = reporter(progress)
    kwargs = dict(learn_kwargs, random_state=base, n_jobs=1)
    interventional = learn_kwargs["interventions"] is not None
    if result is None and (reselect_penalty or interventional or learn_kwargs["penalty"] != "auto"):
        check_one_value_columns(ts)  # no learner runs on the user's data here (the draws are quiet)
    skeleton = None
    if interventional:  # no penalty to choose: every replicate runs the interventional learner whole, except the
        # choices of the model and of where the adjacencies come from, which a result made (rows drawn with
        # replacement would fall on both sides of its held-out split)
        if result is not None and result.interventions is not None:
            skeleton = (result.interventions.adjacencies or {}).get("chosen")
            kwargs["intervention_type"] = result.interventions.type  # the model it chose, repeated
        reselect_penalty, result = True, None
    elif not reselect_penalty or learn_kwargs["penalty"] != "auto":
        kwargs["parameter_sharing"] = None  # structures only, and no pooled structure for a replicate to decide
    plan = None  # reselect_penalty: every replicate runs the whole learner
    if not reselect_penalty:
        if result is None and learn_kwargs["penalty"] == "auto":
            say("choosing the penalty on the original data")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TransferWarning)
                result = learn_structures(ts, **dict(learn_kwargs, random_state=base, n_jobs=n_jobs,
                                                     progress=progress))
        if result is None:
            plan = _Plan(float(learn_kwargs["penalty"]))
        else:
            plan = _Plan(float(result.penalty), result.pooled, tuple((result.transfer or {}).get("excluded", ())))
        # Every replicate at the plan's penalty, the tasks split as the plan says (not tested again).
        kwargs.update(penalty=plan.penalty, transfer_per_task=False)
    with warnings.catch_warnings(), say.stage(f"bootstrap of {ts.n_tasks} task(s)", n_boot, "replicate") as tick:
        warnings.simplefilter("ignore", TransferWarning)
        shared = Shared(ts.tasks)  # shipped once to a Dask cluster, not once per replicate
        reps = run_jobs((job(_replicate)(shared, ts.names, b, base, kwargs, resample, plan, skeleton)
                         for b in range(n_boot)),
                        n_jobs=n_jobs, tick=tick)
    n = len(ts.variables)
    pos = {v: i for i, v in enumerate(ts.variables)}
    edges = np.zeros((n_boot, ts.n_tasks, n, n), dtype=bool)
    changed = np.zeros((n_boot, ts.n_tasks, n), dtype=bool) if interventional else None
    for b, (task_edges, _, task_changes) in enumerate(reps):
        for t, es in enumerate(task_edges):
            for u, v in es:
                edges[b, t, pos[u], pos[v]] = True
        for task, v in task_changes:  # empty unless interventional
            assert changed is not None
            changed[b, ts.names.index(task), pos[v]] = True
    penalty, pooled, alone = (None, None, ()) if plan is None else (
        None if plan.pooled else plan.penalty, plan.pooled, plan.alone)
    return BootstrapResult(ts.names, ts.variables, ts.local_index >= 0, edges, penalty, [p for _, p, _ in reps],
                           pooled, alone, changed)


def _bootstrap_kind(kind, tasks, learn_kwargs, *, n_boot, reselect_penalty, random_state, n_jobs, progress, resample,
                    result):
    """:func:`bootstrap_structures` of tasks a registered kind of data claims (continuous tasks: Gaussian
    networks): each replicate resamples every task's rows (:meth:`mtbn.learn.DataKind.task_data`) and runs the
    kind's learner at the penalty chosen once on the original data (``result``'s, the given one, or its learner's
    on these tasks), its structures only (no parameter sharing); with ``reselect_penalty`` the whole learner."""
    data = kind.task_data(tasks)
    if data is None:
        raise error("bootstrap-kind", kind=kind.description or kind.name, learned_as=kind.learned_as)
    settings = kind_settings(kind, learn_kwargs, MULTITASK.defaults())
    interventional = settings.get("interventions") is not None
    names = tuple(data)
    if result is not None and not (hasattr(result, "task_names") and hasattr(result, "penalty")):
        raise error("bootstrap-result-type", got=type(result).__name__)
    if result is not None and tuple(result.task_names) != names:
        raise error("bootstrap-result-tasks", got=tuple(result.task_names), tasks=names)
    base = int(check_random_state(random_state).integers(0, 2**31 - 1))
    say = reporter(progress)
    kwargs = dict(settings, random_state=base, n_jobs=1)
    kwargs.pop("progress", None)
    penalty = None
    if interventional:  # no penalty: every replicate runs the interventional learner whole, with the model a
        # result chose (rows drawn with replacement would fall on both sides of its held-out split)
        model = getattr(result, "interventions", None)
        if model is not None:
            kwargs["intervention_type"] = model.type
    elif not reselect_penalty:
        if result is None and settings.get("penalty", "auto") == "auto":
            say("choosing the penalty on the original data")
            result = kind.learn(data, **dict(settings, random_state=base, n_jobs=n_jobs, progress=progress))
        penalty = float(settings["penalty"] if result is None else result.penalty)
        kwargs.update(penalty=penalty, parameter_sharing=None)  # structures only
    with say.stage(f"bootstrap of {len(names)} task(s)", n_boot, "replicate") as tick:
        shared = Shared([data[n] for n in names])  # shipped once to a Dask cluster, not once per replicate
        reps = run_jobs((job(_kind_replicate)(kind, shared, names, b, base, kwargs, resample)
                         for b in range(n_boot)), n_jobs=n_jobs, tick=tick)
    variables = tuple(data[names[0]].names)
    pos = {v: i for i, v in enumerate(variables)}
    edges = np.zeros((n_boot, len(names), len(variables), len(variables)), dtype=bool)
    changed = np.zeros((n_boot, len(names), len(variables)), dtype=bool) if interventional else None
    for b, (task_edges, _, task_changes) in enumerate(reps):
        for t, es in enumerate(task_edges):
            for u, v in es:
                edges[b, t, pos[u], pos[v]] = True
        for task, v in task_changes:  # empty unless interventional
            assert changed is not None
            changed[b, names.index(task), pos[v]] = True
    return BootstrapResult(names, variables, np.ones((len(names), len(variables)), dtype=bool), edges, penalty,
                           [p for _, p, _ in reps], None if reselect_penalty or interventional else False, (),
                           changed)


def _kind_replicate(kind, tasks, names, b, base, kwargs, resample):
    """Replicate ``b`` of :func:`_bootstrap_kind`: every task's rows drawn, then the kind's learner; each task's
    edges and the penalty used."""
    rng = np.random.default_rng([base, b])
    drawn = {n: d.take(RESAMPLING[resample](rng, d.n_samples)) for n, d in zip(names, tasks)}
    res = kind.learn(drawn, **kwargs)  # the instance itself: a kind registered in this process only works too
    model = getattr(res, "interventions", None)
    changed = [] if model is None else [(t, v) for t, per in model.changed.items() for v in per]
    return ([[(u, v) for u, v in g.edges(names=True)] for g in res.graphs],
            None if model is not None else float(res.penalty), changed)
