"""What :func:`mtbn.learn.learn_structures` returns: the structures, their networks, and how the penalty was chosen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class TransferVerdict(dict):
    """The negative-transfer guard's verdict: a JSON-ready dict whose keys are also typed attributes.

    Attributes
    ----------
    status : {"accepted", "rejected", "forced", "none"}
        "forced": rejected but kept (``force_transfer=True``); "none": one
        task, nothing to couple.
    message : str
        The one line the learner says about it.
    selected_penalty : float
        The penalty the selection chose (the learner uses 0 when rejected).
    gain, se : float
        The selected penalty's gain over delta = 0 in nats per held-out row,
        and its paired standard error.
    rule : str
    folds : int
    tasks : dict
        Per task name: ``gain``, ``se``, ``verdict`` ("helped", "hurt",
        "unclear") and, when the relatedness test ran, ``relatedness`` (its
        own statistic and p-value).
    relatedness : dict or None
        The all-task relatedness test (statistic, p-value, level, ...), None
        when not run.
    excluded : list of str
        ``transfer_per_task``: the tasks learned alone (empty otherwise).
    estimates : str
        What ``gain``, ``se``, the per-task gains and the sharing step's
        held-out scores are measured on: the held-out rows of the folds that
        made the choices (in-selection, so optimistic for new rows; an outer
        cross-validation around the learner, as ``experiments/sachs_conditions.py``
        runs, measures that).
    sharing : dict
        With ``parameter_sharing="auto"`` (:mod:`mtbn.learn.sharing`):
        ``strength`` (``"inf"`` for pooled tables), ``pooled`` (whether one
        structure learned from all rows pooled replaced the multitask
        ones), ``shared`` (False: nothing shared), the held-out means per
        strength, the pooled structure's gain and SE, and ``message``.

    Examples
    --------
    >>> v = TransferVerdict(status="accepted", message="transfer accepted", selected_penalty=0.9, gain=0.01,
    ...                     se=0.002, rule="one-se", folds=5, tasks={})
    >>> v.status, v["status"], v.transferred, v.excluded
    ('accepted', 'accepted', True, [])
    """

    def __getattr__(self, name):
        if name == "excluded":
            return self.get("excluded", [])
        if name in ("relatedness", "sharing"):
            return self.get(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"'TransferVerdict' object has no attribute {name!r}") from None

    @property
    def transferred(self):
        """Whether the multitask structures were kept (accepted, or forced)."""
        return self["status"] in ("accepted", "forced")


@dataclass
class PenaltyPathPoint:
    """One grid point of the penalty selection path.

    Parameters
    ----------
    penalty : float
        The grid point (delta).
    validation_log_likelihood : float
        Mean held-out log-likelihood per row: each task's held-out rows of every fold, then the mean over tasks.
    graphs : list of DAG
        The structures learned at this penalty on the first fold's training rows, one per task.
    log_score : float
        The score (eq. 2.5 with the prior) of that first fold's search.
    n_iter : int
        The moves of that search.
    validation_se : float, default nan
        Standard error of ``validation_log_likelihood``.
    se_vs_best : float, default nan
        Paired standard error of its difference from the best point's (0 for the best).
    """

    penalty: float
    validation_log_likelihood: float
    graphs: list
    log_score: float
    n_iter: int
    validation_se: float = float("nan")
    se_vs_best: float = float("nan")


@dataclass(frozen=True)
class MultitaskResult:
    """What :func:`learn_structures` returns.

    Parameters
    ----------
    task_names : tuple of str
        The tasks, in the order of the lists below.
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
        The search that produced ``graphs`` (when the pooled structure was
        chosen, ``transfer["sharing"]["pooled"]``: the single-task search).
    single_task : list of SearchResult
        The single-task solutions the search started from (or None).
    transfer : TransferVerdict or None
        With ``penalty="auto"``: the negative-transfer guard's verdict (a
        dict whose keys are also attributes: ``status``, ``message``,
        ``selected_penalty``, ``gain``, ``se``, ``tasks``, ...).
    sharing_strength : float or None
        With ``parameter_sharing``: the strength the CPTs were shrunk with
        toward the pooled CPTs (:func:`mtbn.networks.fit_shared_parameters`);
        None when each task's CPTs were fitted alone.
    sharing_distances : list of dict or None
        With ``parameter_sharing``: per family shared by two or more tasks
        and per task, the KL divergence of the pooled CPT from the task's own
        (:func:`mtbn.networks.family_distances`).
    sharing : dict or None
        With ``parameter_sharing="auto"``: how the strength was chosen
        (:class:`mtbn.learn.sharing.SharingChoice`'s record: ``strength``,
        ``shared``, ``pooled``, ``message`` and ``heldout``, the mean
        held-out log-likelihood per row of every strength, scored on
        held-out rows that the structures scored were not learned from:
        each fold's own structures; ``estimates`` says they are
        in-selection, the rows that chose the strength). With ``penalty="auto"`` it is also
        ``transfer["sharing"]``.
    interventions : InterventionalModel or None
        With ``interventions=``: the causal DAG shared by the tasks, the
        mechanisms that change in each task and the reference regime's
        network (:class:`mtbn.learn.interventional.InterventionalModel`);
        ``penalty`` is then NaN.

    Examples
    --------
    With a given penalty there is no path and no guard verdict:

    >>> from mtbn.learn import learn_structures
    >>> from mtbn.networks import load_network, sample
    >>> net = load_network("asia")
    >>> tasks = {"a": sample(net, 500, random_state=1), "b": sample(net, 500, random_state=2)}
    >>> res = learn_structures(tasks, penalty=0.9, n_restarts=0, n_joint_restarts=0, random_state=0)
    >>> res.task_names, res.penalty, res.penalty_path, res.transfer
    (('a', 'b'), 0.9, [], None)
    >>> [g.n_edges for g in res.graphs], [round(ll, 3) for ll in res.task_log_likelihoods]
    ([8, 8], [-1165.565, -1141.157])
    >>> type(res.networks[0]).__name__
    'BayesianNetwork'

    With ``penalty="auto"``, ``penalty_path`` holds every penalty tried
    (delta = 0 always among them) and ``transfer`` the guard's verdict:

    >>> res = learn_structures(tasks, penalty="auto", penalty_grid=[0.9], cv=2, n_restarts=0,
    ...                        n_joint_restarts=0, random_state=0)
    >>> [(p["penalty"], round(p["validation_log_likelihood"], 3)) for p in res.penalty_path_records()]
    [(0.0, -2.309), (0.9, -2.283)]
    >>> res.penalty, res.transfer["status"]
    (0.9, 'accepted')
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
    transfer: "TransferVerdict | None" = None
    sharing_strength: "float | None" = None
    sharing_distances: "list | None" = None
    interventions: Any = None
    sharing: "dict | None" = None

    def __post_init__(self):
        # Each learned network carries its task's name (written to its XMLBIF and BIF files, pgmpy's model.name).
        for name, network in zip(self.task_names, self.networks):
            if network is not None and getattr(network, "name", None) is None:
                network.name = name

    @property
    def pooled(self):
        """Whether ``graphs`` are one structure learned from all tasks' rows pooled (``parameter_sharing="auto"``
        chose it over the multitask structures)."""
        sharing = (self.transfer or {}).get("sharing") or {}
        return bool(sharing.get("pooled", False))

    def penalty_path_records(self):
        """The path as JSON-ready dicts (penalty, validation log-likelihood, edges per task).

        Returns
        -------
        list of dict
            Per point of ``penalty_path``: ``penalty``, ``validation_log_likelihood``, ``validation_se``,
            ``se_vs_best``, ``log_score``, ``n_iter`` and ``n_edges`` (the edge count of each task's structure).
        """
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
