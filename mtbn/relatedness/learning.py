"""How task selection and task clustering learn a group of tasks, and how they report the choice.

A group of one task is learned by single-task search
(:func:`mtbn.learn.learn_structure`), a larger group jointly
(:func:`mtbn.learn.learn_structures`, its penalty chosen or given); both with
the caller's seed, so every candidate of a selection or clustering is learned
the same way.
"""

from dataclasses import dataclass
from typing import Any

from mtbn.learn import learn_structure, learn_structures
from mtbn.learn.checks import parts_of_checked_data
from mtbn.learn.kinds import kind_settings
from mtbn.learn.settings import MULTITASK, SINGLE

#: Where task selection and clustering differ from learn_structures' defaults: the penalty of every group is
#: chosen on one validation split of each task, as in the paper's task selection.
GROUP_DEFAULTS = {"validation": 0.05}


def group_settings(func, settings):
    """The learner settings of a selection or clustering (``func`` names it in errors): checked at the front
    door, with :data:`GROUP_DEFAULTS` where not given."""
    return MULTITASK.bind(func, dict(GROUP_DEFAULTS, **settings))


def checked_tasks(tasks):
    """``(names, data, kind)`` of the tasks of a selection or clustering: the TaskSet's names and DiscreteData
    (``kind`` None), or continuous tasks' names, ContinuousData and their kind of data (learned as linear Gaussian
    networks; :func:`mtbn.relatedness.measures.continuous_tasks`)."""
    from mtbn.data import make_taskset
    from mtbn.relatedness.measures import continuous_tasks

    found = continuous_tasks(tasks)
    if found is None:
        ts = make_taskset(tasks)
        return list(ts.names), list(ts.tasks), None
    kind, data = found
    return list(data), list(data.values()), kind


def kind_group_settings(kind, settings):
    """The settings of :func:`group_settings` that the learner of ``kind`` (a registered kind of data, e.g.
    continuous tasks) takes; any other the caller set away from the selection's or clustering's default is refused
    in one line (:func:`mtbn.learn.kinds.kind_settings`)."""
    return kind_settings(kind, settings, dict(MULTITASK.defaults(), **GROUP_DEFAULTS))


@dataclass(frozen=True)
class GroupLearner:
    """Learns a group of tasks (``dict`` name -> DiscreteData) with fixed settings.

    ``settings`` are :func:`mtbn.learn.learn_structures`' (checked, as
    :func:`group_settings` gives them) for groups of two or more tasks; a
    group of one task is learned by :func:`mtbn.learn.learn_structure` with
    the settings the two share. ``seed`` is every search's ``random_state``;
    the groups' progress is not reported.
    """

    settings: dict
    seed: int
    kind: Any = None  # a registered kind of data (continuous tasks): its learner, with its settings

    def __call__(self, group):
        """``(dict name -> DAG, multitask penalty)``; the penalty is NaN for a group of one task."""
        if self.kind is not None:  # the kind's learner, alone or jointly; structures only
            extra = {k: None for k in ("parameter_sharing", "progress") if k in self.kind.settings}
            with parts_of_checked_data():
                res = self.kind.learn(group, **dict(self.settings, random_state=self.seed, **extra))
            return dict(zip(res.task_names, res.graphs)), float("nan") if len(group) == 1 else float(res.penalty)
        if len(group) == 1:
            (name, data), = group.items()
            shared = {k: v for k, v in self.settings.items() if k in SINGLE and SINGLE[k] is MULTITASK[k]}
            res = learn_structure(data, **dict(shared, random_state=self.seed))
            return {name: res.graph}, float("nan")
        # Groups are compared by their structures: no parameter sharing (nor its pooled structure).
        with parts_of_checked_data():  # a group of the tasks given
            res = learn_structures(group, **dict(self.settings, random_state=self.seed, progress=None,
                                                 parameter_sharing=None))
        return dict(zip(res.task_names, res.graphs)), res.penalty


def curve_records(curve, key):
    """A validation curve ``[(candidate, mean, se_vs_best), ...]`` as JSON-ready dicts, the candidate under ``key``."""
    return [{key: int(c[0]), "validation_log_likelihood": float(c[1]),
             "se_vs_best": float(c[2]) if len(c) > 2 else None} for c in curve]
