"""How task selection and task clustering learn a group of tasks, and how they report the choice.

A group of one task is learned by single-task search
(:func:`mtbn.learn.learn_structure`), a larger group jointly
(:func:`mtbn.learn.learn_structures`, its penalty chosen or given); both with
the caller's seed, so every candidate of a selection or clustering is learned
the same way.
"""

from dataclasses import dataclass

from mtbn.learn import learn_structure, learn_structures
from mtbn.learn.checks import parts_of_checked_data
from mtbn.learn.settings import MULTITASK, SINGLE

#: Where task selection and clustering differ from learn_structures' defaults: the penalty of every group is
#: chosen on one validation split of each task, as in the paper's task selection.
GROUP_DEFAULTS = {"validation": 0.05}


def group_settings(func, settings):
    """The learner settings of a selection or clustering (``func`` names it in errors): checked at the front
    door, with :data:`GROUP_DEFAULTS` where not given."""
    return MULTITASK.bind(func, dict(GROUP_DEFAULTS, **settings))


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

    def __call__(self, group):
        """``(dict name -> DAG, multitask penalty)``; the penalty is NaN for a group of one task."""
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
