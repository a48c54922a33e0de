"""How much the default learner shares between tasks beyond structure: CPTs, and the pooled structure (issue 32).

``parameter_sharing="auto"`` with ``penalty="auto"`` decides on the same
cross-validation folds the penalty was chosen on, after the guard:

1. the sharing strength of the returned structures: every strength of
   :data:`mtbn.networks.shared_fitting.STRENGTH_GRID`, the structures each
   fold learned at the returned penalty, CPTs fitted on the fold's training
   rows (:func:`mtbn.networks.shared_fitting.heldout_rows_by_strength`),
   the best mean held-out log-likelihood (ties to less sharing);
2. the pooled candidate: one structure learned on every fold's training rows
   of all tasks stacked (:func:`mtbn.learn.single.pooled_search`), with its
   own best strength; it replaces the multitask structures only when it
   beats them by more than the paired standard error of the difference
   (the one-standard-error rule toward the multitask structures).

When the relatedness test finds the tasks unrelated nothing is shared
(strength 0): the guard's single-task answer stays exactly single-task
learning.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mtbn.heldout import ValidationScores
from mtbn.networks import fits_in_tables
from mtbn.networks.shared_fitting import STRENGTH_GRID, heldout_rows_by_strength

__all__ = ["SharingChoice", "choose_sharing", "folds_for_sharing", "no_sharing"]


@dataclass(frozen=True)
class SharingChoice:
    """What :func:`choose_sharing` decided.

    ``strength``: the sharing strength of the structures returned;
    ``pooled``: whether those are the pooled structure; ``record``: the
    JSON-ready account (kept in the guard's verdict as ``sharing``).

    Parameters
    ----------
    strength : float
        The sharing strength of the structures returned: one of
        :data:`mtbn.networks.shared_fitting.STRENGTH_GRID` (0: each task's CPTs alone; inf: pooled tables).
    pooled : bool
        Whether the structures returned are the pooled structure.
    record : dict
        The JSON-ready account: ``strength`` (``"inf"`` for infinity), ``pooled``, ``message``, and, when
        something was compared, ``heldout`` (mean held-out log-likelihood per strength) and the pooled
        candidate's ``pooled_gain``, ``pooled_se`` and ``pooled_strength``; ``shared: False`` when nothing is
        shared.
    """

    strength: float
    pooled: bool
    record: dict

    @property
    def shared(self):
        """False when nothing is shared at all (unrelated tasks, or tables too large): CPTs fitted alone."""
        return self.record.get("shared", True)


#: What the sharing record's ``heldout`` means (and ``pooled_gain``): scores on the rows that made the choice.
ESTIMATES = ("in-selection: each fold's held-out rows, scored by structures learned on the other folds' rows; "
             "these rows chose the strength, so the best value is optimistic for a new sample")


def _strength_scores(fold_graphs, trains, held_out, ess):
    """:class:`ValidationScores` of every strength (from 0 up) for the structures each fold learned, or None when a
    family's table would be too large to build."""
    if any(not fits_in_tables(g, d) for graphs, train in zip(fold_graphs, trains) for g, d in zip(graphs, train)):
        return None
    per_fold = [heldout_rows_by_strength(graphs, train, valid, STRENGTH_GRID, ess)
                for graphs, train, valid in zip(fold_graphs, trains, held_out)]
    k = len(trains[0])
    return ValidationScores([[np.concatenate([rows[g][t] for rows in per_fold]) for t in range(k)]
                             for g in STRENGTH_GRID])


def _shared_text(strength, what, n_folds=0, of_folds=None):
    """What the sharing step did with the parameters of ``what`` (a strength of 0 is no sharing at all);
    ``n_folds``: the folds it was chosen on (0: not said), of ``of_folds`` when fewer than a split's."""
    if of_folds is not None and n_folds < of_folds:
        how = f" ({n_folds} of {of_folds} CV folds)"
    else:
        how = "" if not n_folds else " (held-out split)" if n_folds == 1 else f" ({n_folds}-fold CV)"
    if strength == 0:
        return f"parameters not shared: strength 0 chosen{how}, each task's CPTs from its own rows"
    owner = "its" if what == "its" else f"{what}'"
    return f"{owner} parameters shrunk toward the tasks' pooled CPTs at strength {_strength_text(strength)}{how}"


def _strength_text(strength):
    return "inf" if strength == float("inf") else f"{strength:g}"


def _json_strength(strength):
    """A strength for JSON (which has no infinity)."""
    return "inf" if strength == float("inf") else float(strength)


def no_sharing(reason):
    """The choice to share nothing (each task's CPTs from its own rows), for ``reason``.

    Parameters
    ----------
    reason : str
        Why nothing is shared, as the message ends ("parameters not shared: " + reason).

    Returns
    -------
    SharingChoice
        Strength 0, not pooled, ``shared`` False.
    """
    return SharingChoice(0.0, False, {"shared": False, "strength": 0.0, "pooled": False,
                                      "message": f"parameters not shared: {reason}"})


#: With a given penalty the sharing strength is chosen on at least as many held-out task folds as this many
#: tasks with every fold have: with more tasks, fewer of the split's folds are searched (:func:`folds_for_sharing`).
SHARING_REFERENCE_TASKS = 5


def folds_for_sharing(cv, n_tasks):
    """How many of ``cv`` folds choose the sharing strength with a given penalty: every fold up to
    :data:`SHARING_REFERENCE_TASKS` (5) tasks, and with more tasks the fewest whose held-out parts (one per task
    and fold) are at least the ``5 cv`` of 5 tasks with every fold.

    The strength is one number of a grid of eight, chosen by the held-out rows' mean log-likelihood; the rows that
    choose it grow with the tasks, while each fold's joint search costs as much as the tasks it couples
    (``experiments/sharing_fewer_folds.py``: at 20 tasks, 2 of 5 folds chose the strength of all five in 32 of 36
    trials, KL within 0.0006 of it).

    Parameters
    ----------
    cv : int
        The folds of the split (``cv`` >= 2).
    n_tasks : int
        The number of tasks.

    Returns
    -------
    int
        Between 1 and ``cv``.

    Examples
    --------
    >>> [folds_for_sharing(5, k) for k in (1, 5, 6, 10, 13, 25, 50)]
    [5, 5, 5, 3, 2, 1, 1]
    >>> folds_for_sharing(10, 5), folds_for_sharing(10, 20)
    (10, 3)
    """
    return max(1, min(cv, -(-cv * SHARING_REFERENCE_TASKS // max(1, n_tasks))))


def choose_sharing(fold_graphs, trains, held_out, ess, pooled_learner=None, unrelated=False,
                   what="the multitask structures", of_folds=None):
    """The sharing strength of the structures ``fold_graphs[f][t]`` (learned on fold ``f``'s training rows), and
    whether the pooled structure replaces them.

    ``pooled_learner(train)``: one DAG per task learned from the stacked training rows ``train`` (a list of
    DiscreteData, one per task), or None to leave the pooled candidate out; ``unrelated``: the relatedness test
    found the tasks unrelated (then nothing is shared); ``what`` names ``fold_graphs``' kind in the message.

    Parameters
    ----------
    fold_graphs : list of list of DAG
        ``fold_graphs[f][t]``: task ``t``'s structure learned on fold ``f``'s training rows.
    trains : list of list of DiscreteData
        ``trains[f][t]``: task ``t``'s training rows of fold ``f`` (the tasks share their state lists).
    held_out : list of list of DiscreteData
        ``held_out[f][t]``: task ``t``'s held-out rows of fold ``f``, which score every strength.
    ess : float
        BDeu's equivalent sample size of the fitted CPTs.
    pooled_learner : callable, optional
        ``pooled_learner(train)`` -> one DAG per task (see above); None: no pooled candidate.
    unrelated : bool, default False
        The relatedness test found the tasks unrelated: nothing is shared and nothing is compared.
    what : str, default "the multitask structures"
        What ``fold_graphs`` are, as the message names them.
    of_folds : int, optional
        The folds of the split when ``trains`` holds fewer of them (the message says "m of K CV folds").

    Returns
    -------
    SharingChoice
        The strength, whether the pooled structure replaces ``fold_graphs``' kind, and the record.
    """
    if unrelated:
        return no_sharing("the tasks look unrelated")
    own = _strength_scores(fold_graphs, trains, held_out, ess)
    if own is None:
        return no_sharing("a family's table is too large")
    best = own.best()
    strength = STRENGTH_GRID[best]
    record = {"strength": _json_strength(strength), "pooled": False,
              "heldout": {_strength_text(g): float(m) for g, m in zip(STRENGTH_GRID, own.means)},
              "estimates": ESTIMATES}
    message = _shared_text(strength, what, len(trains), of_folds)
    if pooled_learner is not None:
        pooled_graphs = [pooled_learner(train) for train in trains]
        pooled = _strength_scores(pooled_graphs, trains, held_out, ess)
        if pooled is not None:
            p_best = pooled.best()
            both = ValidationScores([own.rows[best], pooled.rows[p_best]])
            gain, se, _, _ = both.difference(1, 0)
            chosen = gain > se
            record.update(pooled=bool(chosen), pooled_gain=gain, pooled_se=se,
                          pooled_strength=_json_strength(STRENGTH_GRID[p_best]))
            if chosen:
                strength = STRENGTH_GRID[p_best]
                record["strength"] = _json_strength(strength)
                message = (f"one structure learned from all tasks' rows pooled replaces {what}: it beats them "
                           f"by {gain:.4g} nats per held-out row (SE {se:.2g}; in-selection); "
                           + _shared_text(strength, "its"))
            else:
                message += (f"; the pooled structure does not beat {what} by more than one "
                            f"standard error (gain {gain:.4g}, SE {se:.2g}; in-selection)")
    record["message"] = message
    return SharingChoice(float(strength), bool(record["pooled"]), record)
